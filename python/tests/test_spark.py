"""htmlabs.spark in local mode (local[2]): one row per input, every output
read back by `warcio check`, a broken file a row with its error."""

import gzip
import io
import os

import pytest

import htmlabs
from htmlabs import spark as job

from conftest import module, warcio_check

PAGE = b'<html><head><title>%d</title></head><body><a href="p%d.html">next</a><img src="/i.png"></body></html>'


def generated(path, pages, gzipped=True):
    """A WARC written by warcio (an independent writer): `pages` HTML
    responses, each with its request, and a non-HTML response."""
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    with open(path, "wb") as f:
        writer = WARCWriter(f, gzip=gzipped)
        for i in range(pages):
            url = f"http://example.com/dir{i}/page.html"
            body = PAGE % (i, i + 1)
            headers = StatusAndHeaders("200 OK", [("Content-Type", "text/html; charset=utf-8"),
                                                  ("Content-Length", str(len(body)))], protocol="HTTP/1.1")
            writer.write_record(writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                                          http_headers=headers))
        headers = StatusAndHeaders("200 OK", [("Content-Type", "image/png")], protocol="HTTP/1.1")
        writer.write_record(writer.create_warc_record("http://example.com/i.png", "response",
                                                      payload=io.BytesIO(b"\x89PNG..."), http_headers=headers))
    return str(path)


def test_rewrite_warcs_one_row_per_file(spark, corpus, tmp_path):
    inputs = [str(corpus / "warc/corpus-wget.warc.gz")]
    inputs += [generated(tmp_path / f"gen{i}.warc.gz", 3 + i) for i in range(3)]
    inputs.append(generated(tmp_path / "plain.warc", 2, gzipped=False))
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes((corpus / "warc/corpus-wget.warc.gz").read_bytes()[:30000])
    inputs.append(str(cut))
    inputs.append(str(tmp_path / "missing.warc.gz"))
    out = tmp_path / "out"
    df = job.rewrite_warcs(spark, inputs, str(out), lazy=True)
    assert df.columns == ["path", "output", "records", "html_rewritten", "urls_rewritten", "warnings", "error"]
    rows = {r.path: r for r in df.collect()}
    assert sorted(rows) == sorted(inputs)

    for path in inputs[:5]:
        row = rows[path]
        assert row.error is None, row.error
        assert row.output == str(out / os.path.basename(path))
        # What rewrite_warc makes of it, file by file.
        alone = htmlabs.rewrite_warc(path, tmp_path / "alone.warc.gz", lazy=True)
        assert (row.records, row.html_rewritten, row.urls_rewritten, row.warnings) == (
            alone.records, alone.rewritten, alone.urls, alone.warnings)
        records = warcio_check(row.output)
        assert sum(1 for t, _ in records if t == "conversion") == row.html_rewritten > 0
    assert rows[inputs[1]].html_rewritten == 3

    broken = rows[str(cut)]
    assert broken.error.startswith("malformed record at the gzip member at byte ")
    # Its output is complete all the same: the records before the break,
    # their conversions, and the rest byte for byte.
    assert os.path.getsize(broken.output) > cut.stat().st_size

    missing = rows[str(tmp_path / "missing.warc.gz")]
    assert missing.output is None and missing.records is None
    assert missing.error.startswith("cannot open `") and "no such file or directory" in missing.error
    # No attempt's file is left behind, and nothing for the missing input.
    assert sorted(os.listdir(out)) == sorted(os.path.basename(p) for p in inputs[:6])

    # As many partitions as files: each task rewrote one file (the attempt
    # names differ), in parallel where there are cores.
    assert df.count() == len(inputs)


def test_a_retried_attempt_replaces_and_a_failed_one_leaves_nothing(tmp_path):
    src = generated(tmp_path / "g.warc.gz", 2)
    out = tmp_path / "out"
    out.mkdir()
    first = job.rewrite_one(src, str(out), {})
    data = (out / "g.warc.gz").read_bytes()
    second = job.rewrite_one(src, str(out), {})
    assert first["error"] is None and second["error"] is None
    assert os.listdir(out) == ["g.warc.gz"]
    # The same records (the conversions' IDs and dates are new each time).
    assert len(warcio_check(out / "g.warc.gz")) == len(warcio_check(_written(tmp_path, data)))

    (out / "g.warc.gz").chmod(0o444)
    readonly = tmp_path / "readonly"
    readonly.mkdir()
    readonly.chmod(0o555)
    try:
        row = job.rewrite_one(src, str(readonly), {})
        if os.geteuid() != 0:  # root writes anyway
            assert row["error"].startswith("cannot write ") and row["output"] is None
            assert os.listdir(readonly) == []
    finally:
        readonly.chmod(0o755)


def _written(tmp_path, data):
    path = tmp_path / "copy.warc.gz"
    path.write_bytes(data)
    return path


def test_remote_paths_go_through_fsspec(tmp_path, corpus):
    fsspec = module("fsspec")
    fs = fsspec.filesystem("memory")
    fs.pipe("/in/crawl.warc.gz", (corpus / "warc/corpus-wget.warc.gz").read_bytes())
    row = job.rewrite_one("memory://in/crawl.warc.gz", "memory://out", {})
    assert row["error"] is None and row["output"] == "memory://out/crawl.warc.gz"
    assert fs.ls("/out", detail=False) == ["/out/crawl.warc.gz"]
    local = tmp_path / "from-memory.warc.gz"
    local.write_bytes(fs.cat("/out/crawl.warc.gz"))
    assert sum(1 for t, _ in warcio_check(local) if t == "conversion") == row["html_rewritten"] > 170
    row = job.rewrite_one("memory://in/none.warc.gz", "memory://out", {})
    assert row["error"].startswith("FileNotFoundError") and fs.ls("/out", detail=False) == ["/out/crawl.warc.gz"]


def test_options_are_checked_before_any_task(spark, tmp_path):
    with pytest.raises(htmlabs.ConfigError, match="unknown encoding label: `klingon`"):
        job.rewrite_warcs(spark, [], str(tmp_path / "o"), encoding="klingon")
    with pytest.raises(ValueError, match="unknown WARC mode: `rewrite`"):
        job.rewrite_warcs(spark, [], str(tmp_path / "o"), mode="rewrite")
    with pytest.raises(htmlabs.ConfigError, match="same output name: `a.warc.gz`"):
        job.rewrite_warcs(spark, ["x/a.warc.gz", "y/a.warc.gz"], str(tmp_path / "o"))


def test_the_command_line(spark, tmp_path, capsys):
    a = generated(tmp_path / "a.warc.gz", 2)
    listed = tmp_path / "inputs.txt"
    listed.write_text(generated(tmp_path / "b.warc.gz", 1) + "\n")
    out = tmp_path / "out"
    status = job.main([a, "--inputs-from", str(listed), "--output", str(out), "--social", "--max-memory", "64M"],
                      spark=spark)
    err = capsys.readouterr().err
    assert status == 0, err
    assert "2 files, 2 rewritten, 0 failed" in err
    with gzip.open(out / "a.warc.gz") as f:
        assert b"--social" in f.read()  # the warcinfo names the flags
    status = job.main([str(tmp_path / "nothing.warc.gz"), "--output", str(out)], spark=spark)
    assert status == 2
    assert "nothing.warc.gz: error: cannot open" in capsys.readouterr().err


FIX = ("set PYSPARK_PYTHON or spark.pyspark.python to a python that has htmlabs installed, "
       "or ship a packed environment with --archives (docs/python.md, spark)")


def test_workers_that_cannot_import_htmlabs_give_one_error(spark, tmp_path, capsys):
    """A library user's session whose Python workers are another Python
    (here the one this virtual environment was made from, without htmlabs),
    or none: one error naming the fix, before any file's task."""
    import subprocess
    import sys

    other = getattr(sys, "_base_executable", None) or sys.executable
    plain = subprocess.run([other, "-c", "import htmlabs"], capture_output=True, text=True)
    assert "No module named 'htmlabs'" in plain.stderr, "the base Python has htmlabs: the test shows nothing"
    inputs = [generated(tmp_path / f"g{i}.warc.gz", 2) for i in range(3)]
    out = tmp_path / "out"
    context = spark.sparkContext
    ours = context.pythonExec  # what the session gives each task's function
    try:
        context.pythonExec = other
        with pytest.raises(htmlabs.ConfigError) as raised:
            job.rewrite_warcs(spark, inputs, str(out))
        assert str(raised.value) == f"spark's python workers cannot import htmlabs: their python is `{other}`; {FIX}"
        assert raised.value.__suppress_context__
        assert os.listdir(out) == []
        # The command line's: the same, on one line.
        assert job.main([*inputs, "--output", str(out)], spark=spark) == 2
        assert capsys.readouterr().err == (
            f"htmlabs.spark: error: spark's python workers cannot import htmlabs: their python is `{other}`; {FIX}\n")

        context.pythonExec = str(tmp_path / "no-python")
        with pytest.raises(htmlabs.ConfigError) as raised:
            job.rewrite_warcs(spark, inputs, str(out))
        assert str(raised.value) == (
            f"spark cannot start its python workers' interpreter: `{tmp_path / 'no-python'}`; {FIX}")
    finally:
        context.pythonExec = ours
    # The session works again with its own workers.
    assert job.rewrite_warcs(spark, inputs[:1], str(out)).collect()[0].error is None
