"""Errors: the command line's one-line message, as a Python exception of
the package's, never a panic."""

import io

import pytest

import htmlabs

from conftest import run_cli


def cli_error(cli, args, stdin=b""):
    status, _, err = run_cli(cli, args, stdin)
    assert status == 2 and len(err) == 1 and err[0].startswith("htmlabs: error: "), err
    return err[0][len("htmlabs: error: "):]


@pytest.mark.parametrize(
    "keywords, flags",
    [
        ({"retrieved_from": "docs/page.html"}, ["-r", "docs/page.html"]),
        ({"retrieved_from": "http://a/\nb"}, ["-r", "http://a/\nb"]),
        ({"encoding": "klingon"}, ["--encoding", "klingon"]),
        ({"attr": ["img"]}, ["--attr", "img"]),
        ({"attr": ["img:"]}, ["--attr", "img:"]),
    ],
)
def test_a_bad_value_is_a_config_error_with_the_clis_text(cli, keywords, flags):
    with pytest.raises(htmlabs.ConfigError) as raised:
        htmlabs.rewrite(b"<a href=x>", **keywords)
    assert str(raised.value) == cli_error(cli, flags)
    # One class to catch them all, and the one Python users expect.
    assert isinstance(raised.value, htmlabs.Error)
    assert isinstance(raised.value, ValueError)


def test_warc_errors_have_the_clis_text(cli, tmp_path):
    missing = tmp_path / "nothing.warc.gz"
    with pytest.raises(htmlabs.ReadError) as raised:
        htmlabs.rewrite_warc(missing, tmp_path / "out.warc.gz")
    assert str(raised.value) == cli_error(cli, ["--warc", str(missing), "-o", str(tmp_path / "out.warc.gz")])
    assert isinstance(raised.value, OSError)
    assert not (tmp_path / "out.warc.gz").exists()

    src = tmp_path / "in.warc"
    src.write_bytes(b"")
    nowhere = tmp_path / "no-such-dir" / "out.warc"
    with pytest.raises(htmlabs.WriteError) as raised:
        htmlabs.rewrite_warc(src, nowhere)
    assert str(raised.value) == cli_error(cli, ["--warc", str(src), "-o", str(nowhere)])

    with pytest.raises(htmlabs.ConfigError) as raised:
        htmlabs.rewrite_warc(src, tmp_path / "o", encoding="klingon")
    assert str(raised.value) == cli_error(cli, ["--warc", str(src), "-o", str(tmp_path / "o"), "--encoding", "klingon"])


def test_a_file_objects_failure_names_it():
    class Failing(io.RawIOBase):
        name = "flaky.warc"

        def readable(self):
            return True

        def read(self, n=-1):
            raise OSError("the disk went away")

    with pytest.raises(htmlabs.ReadError) as raised:
        htmlabs.rewrite_warc(Failing(), io.BytesIO())
    assert str(raised.value) == "cannot read `flaky.warc`: the disk went away"

    class Full(io.RawIOBase):
        def writable(self):
            return True

        def write(self, b):
            raise OSError("no space left on device")

    src = io.BytesIO(b"WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x>\r\nContent-Length: 0\r\n\r\n\r\n\r\n")
    with pytest.raises(htmlabs.WriteError, match="^cannot write the dst file object: no space left on device$"):
        htmlabs.rewrite_warc(src, Full())


def test_sizes_as_the_command_line_takes_them():
    page = b'<a href="x">'
    plain = htmlabs.rewrite(page, "http://h/d/").html
    assert htmlabs.rewrite(page, "http://h/d/", max_memory="64M", max_lookahead="1M").html == plain
    assert htmlabs.rewrite(page, "http://h/d/", max_memory=64 << 20).html == plain
    with pytest.raises(ValueError, match="max_memory: "):
        htmlabs.rewrite(page, max_memory="lots")
    with pytest.raises(TypeError, match="an int of bytes or a size"):
        htmlabs.rewrite(page, max_memory=1.5)


def test_an_unknown_keyword_names_the_options():
    with pytest.raises(TypeError, match=r"unexpected keyword argument `keep_fragment` \(the options are standard, encoding, keep_fragments,"):
        htmlabs.rewrite(b"", keep_fragment=True)


def test_arguments_python_refuses():
    with pytest.raises(ValueError, match="unknown standard: `rfc2396`"):
        htmlabs.rewrite(b"", standard="rfc2396")
    with pytest.raises(ValueError, match=r"unknown WARC mode: `rewrite` \(conversion, replace\)"):
        htmlabs.rewrite_warc(io.BytesIO(), io.BytesIO(), mode="rewrite")
    with pytest.raises(ValueError, match="the gzip level must be 1 to 9: `0`"):
        htmlabs.rewrite_warc(io.BytesIO(), io.BytesIO(), gzip_level=0)
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        htmlabs.rewrite_warc(io.BytesIO(), io.BytesIO(), jobs=0)
    with pytest.raises(TypeError, match="binary mode"):
        htmlabs.rewrite_warc(io.StringIO(), io.BytesIO())
    with pytest.raises(TypeError, match="path or a binary file object"):
        htmlabs.rewrite_warc(42, io.BytesIO())
    with pytest.raises(TypeError):
        htmlabs.rewrite(b"", None, None)  # headers is keyword-only


def test_hostile_input_is_never_a_panic():
    """Bytes that are no HTML, no encoding, no WARC: an answer, not a crash."""
    import random

    rng = random.Random(21)
    for _ in range(200):
        junk = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 400)))
        for prefix in (b"", b"<a href='", b"\xff\xfe", b"<meta charset=utf-16>", b"<base href="):
            try:
                r = htmlabs.rewrite(prefix + junk, "http://h/a/b")
                assert isinstance(r.html, bytes)
            except htmlabs.Error as e:
                # A document htmlabs refuses (a broken UTF-16): one line.
                assert str(e).startswith("cannot rewrite `html`: ") and "\n" not in str(e)
        summary = htmlabs.rewrite_warc(io.BytesIO(b"WARC/1.0\r\n" + junk), io.BytesIO())
        assert summary.incomplete or summary.records >= 0
