"""The module's API: what rewrite() gives, each keyword meaning what its
flag means on the command line, and the encapsulating entity's headers."""

import io
import json

import pytest

import htmlabs

from conftest import run_cli

PAGE = b"""<!DOCTYPE html><html><head><meta charset="utf-8"><title>t</title></head>
<body><a href="../up.html#s">up</a> <a href="../../../g">g</a> <a href="#top">top</a>
<img src="i.png" data-src="lazy.png" srcset="a.png 1x, b.png 2x">
<meta property="og:image" content="og.png">
<div style="background: url(bg.png)"></div><video poster=p.jpg></video><x-widget data-url="w.html"></x-widget></body></html>"""

URL = "https://example.com/docs/page.html"


def test_rewrite_makes_links_absolute_and_says_how():
    r = htmlabs.rewrite(b"<a href=c.html></a><img src=/d.png>", URL)
    assert r.html == b"<a href=https://example.com/docs/c.html></a><img src=https://example.com/d.png>"
    assert (r.base, r.base_layer, r.encoding, r.rewritten) == (URL, "retrieval", "UTF-8", 2)
    assert r.warnings == []
    assert [link["absolute"] for link in r.links] == [
        "https://example.com/docs/c.html",
        "https://example.com/d.png",
    ]
    assert "2 rewritten" in repr(r)


def test_an_embedded_base_outranks_the_retrieval_url():
    r = htmlabs.rewrite(b'<head><base href="http://b.example/x/"></head><a href=y>', URL)
    assert (r.base, r.base_layer) == ("http://b.example/x/", "embedded")
    assert r.html.endswith(b"<a href=http://b.example/x/y>")


def test_without_a_base_the_page_is_unchanged_with_the_clis_warning(cli):
    r = htmlabs.rewrite(PAGE)
    assert r.html == PAGE
    assert (r.base, r.base_layer) == (None, "none")
    status, out, err = run_cli(cli, [], PAGE)
    assert (status, out) == (0, PAGE)
    assert ["htmlabs: warning: " + w for w in r.warnings] == err
    assert r.warnings


@pytest.mark.parametrize(
    "keywords, flags",
    [
        ({}, []),
        ({"keep_fragments": True}, ["--keep-fragments"]),
        ({"lazy": True}, ["--lazy"]),
        ({"social": True}, ["--social"]),
        ({"standard": "rfc3986"}, ["--standard", "rfc3986"]),
        ({"encoding": "latin1"}, ["--encoding", "latin1"]),
        ({"attr": ["x-widget:data-url", "*:data-src"]}, ["--attr", "x-widget:data-url", "--attr", "*:data-src"]),
        ({"lazy": True, "social": True, "keep_fragments": True}, ["--lazy", "--social", "--keep-fragments"]),
    ],
)
def test_each_keyword_is_its_flag(cli, keywords, flags, tmp_path):
    r = htmlabs.rewrite(PAGE, URL, **keywords)
    report = tmp_path / "links.jsonl"
    status, out, err = run_cli(cli, ["-r", URL, "--report", str(report), "-o", str(tmp_path / "out"), *flags], PAGE)
    assert (status, err) == (0, [])
    assert r.html == (tmp_path / "out").read_bytes()
    # The links are the link report's lines, less the file they are in.
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    for line in lines:
        assert line.pop("file") == "-"
    assert r.links == lines
    assert r.rewritten == sum(1 for link in r.links if link["outcome"] == "rewritten")
    # Made once, when first read: the same list after.
    assert r.links is r.links


def test_the_keywords_change_something():
    """So that the comparisons above compare something."""
    plain = htmlabs.rewrite(PAGE, URL)
    for keywords in ({"keep_fragments": True}, {"lazy": True}, {"social": True}, {"standard": "rfc3986"},
                     {"attr": ["x-widget:data-url"]}):
        assert htmlabs.rewrite(PAGE, URL, **keywords).html != plain.html, keywords
    assert (plain.encoding, htmlabs.rewrite(PAGE, URL, encoding="latin1").encoding) == ("UTF-8", "windows-1252")


def test_a_page_served_as_xml_has_its_stylesheets_read_as_http_reads_them(cli):
    # Served as application/xhtml+xml, a browser reads the page as XML and
    # loads the <?xml-stylesheet?> before its root; as text/html it is a
    # comment, and so it is without headers (the first bytes decide).
    body = b'<?xml-stylesheet href="s.css"?><html xmlns="http://www.w3.org/1999/xhtml"><a href="x.html">x</a></html>'
    sheet = b'href="https://example.com/docs/s.css"'
    for content_type, read in (("application/xhtml+xml", True), ("text/html", False)):
        r = htmlabs.rewrite(body, URL, headers={"Content-Type": content_type})
        response = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n".encode() + body
        status, out, _ = run_cli(cli, ["--http", "--strip-headers", "-r", URL], response)
        assert status == 0 and r.html == out, content_type
        assert (sheet in r.html) == read, r.html
        assert [link["original"] for link in r.links] == ["s.css"] * read + ["x.html"]
    assert sheet not in htmlabs.rewrite(body, URL).html


def test_headers_are_the_encapsulating_entity_as_http_reads_them(cli):
    body = b'<meta charset="utf-8"><a href="x.html">\xe9</a>'
    for headers in (
        {"Content-Base": "../base/", "Content-Type": "text/html; charset=iso-8859-1"},
        [("Content-Location", "/cl/"), ("Base", "not a url"), ("Content-Type", "text/html")],
        [("Content-Type", "text/html; charset=nonsense")],
    ):
        pairs = list(headers.items()) if isinstance(headers, dict) else headers
        for content_location in (False, True):
            r = htmlabs.rewrite(body, URL, headers=headers, content_location=content_location)
            response = b"HTTP/1.1 200 OK\r\n" + b"".join(
                f"{n}: {v}\r\n".encode() for n, v in pairs) + b"\r\n" + body
            flags = ["--http", "--strip-headers", "-r", URL] + ["--content-location"] * content_location
            status, out, err = run_cli(cli, flags, response)
            assert status == 0
            assert r.html == out, (headers, content_location)
            assert ["htmlabs: warning: " + w for w in r.warnings] == err
    # The header's charset outranks <meta>; its base the retrieval URL.
    r = htmlabs.rewrite(body, URL, headers={"Content-Base": "../base/", "Content-Type": "text/html; charset=latin1"})
    assert (r.base, r.base_layer, r.encoding) == ("https://example.com/base/", "encapsulating", "windows-1252")
    html = {"Content-Type": "text/html"}
    r = htmlabs.rewrite(body, URL, headers={"Content-Location": "/cl/", **html})
    assert r.base_layer == "retrieval"
    r = htmlabs.rewrite(body, URL, headers={"Content-Location": "/cl/", **html}, content_location=True)
    assert (r.base, r.base_layer) == ("https://example.com/cl/", "encapsulating")
    # Without a Content-Type, the body's first bytes are sniffed as --http
    # sniffs them (the MIME Sniffing standard's HTML patterns): a body
    # starting `<meta` is none of them, and is left as it is, as there.
    r = htmlabs.rewrite(body, URL, headers={"Content-Location": "/cl/"})
    status, out, _ = run_cli(cli, ["--http", "--strip-headers", "-r", URL],
                             b"HTTP/1.1 200 OK\r\nContent-Location: /cl/\r\n\r\n" + body)
    assert status == 0 and (r.type, r.html) == (None, out) == (None, body)


def test_a_header_field_cannot_smuggle_another():
    with pytest.raises(htmlabs.ConfigError, match="holds a line break"):
        htmlabs.rewrite(b"<a href=x>", URL, headers={"X": "y\r\nContent-Base: http://evil/"})
    with pytest.raises(TypeError, match="headers must be"):
        htmlabs.rewrite(b"<a href=x>", URL, headers=[("X", 1)])


def test_bytes_in_and_bytes_out():
    assert htmlabs.rewrite(bytearray(b"<a href=x>"), URL).html == b"<a href=https://example.com/docs/x>"
    with pytest.raises(TypeError):
        htmlabs.rewrite("<a href=x>", URL)


def test_a_second_run_changes_nothing():
    once = htmlabs.rewrite(PAGE, URL, lazy=True, social=True).html
    assert htmlabs.rewrite(once, URL, lazy=True, social=True).html == once


def test_the_memory_limit_is_a_warning_and_the_output_complete(cli):
    page = b"<a href=a.html>" + b"<p title='" + b"x" * 200000 + b"'>" + b"<a href=b.html>"
    r = htmlabs.rewrite(page, URL, max_memory=1024)
    status, out, err = run_cli(cli, ["-r", URL, "--max-memory", "1024"], page)
    assert status == 2
    assert r.html == out == page
    assert ["htmlabs: warning: " + w for w in r.warnings] == err
    assert "memory limit of 1024 bytes" in r.warnings[0]


def test_map_is_the_command_lines_map(cli):
    """``map`` takes ``{OLD: NEW}`` or ``OLD=NEW`` strings, and means what
    ``--map`` means: the page and its link report are the command line's."""
    page = b'<base href="https://old.example/d/"><a href=a.html>a</a> <img src=https://old.example/i.png>'
    rules = ["https://old.example/=https://new.example/", "https://old.example/d/=https://d.example/"]
    status, out, err = run_cli(cli, ["-r", URL, *[f"--map={r}" for r in rules]], page)
    assert status == 0 and err == []
    assert out == b'<base href="https://d.example/"><a href=https://d.example/a.html>a</a> <img src=https://new.example/i.png>'
    for given in (rules, dict(r.split("=", 1) for r in rules)):
        r = htmlabs.rewrite(page, URL, map=given)
        assert r.html == out
    links = htmlabs.rewrite(page, URL, map=rules).links
    assert [(l["absolute"], l.get("mapped"), l.get("map")) for l in links] == [
        ("https://old.example/d/", "https://d.example/", rules[1]),
        ("https://old.example/d/a.html", "https://d.example/a.html", rules[1]),
        ("https://old.example/i.png", "https://new.example/i.png", rules[0]),
    ]
    with pytest.raises(htmlabs.ConfigError, match="^--map wants OLD=NEW"):
        htmlabs.rewrite(page, URL, map="/old/=/new/")


def test_keywords_are_checked():
    with pytest.raises(TypeError, match="unexpected keyword argument `keep_fragment`"):
        htmlabs.rewrite(b"", URL, keep_fragment=True)
    with pytest.raises(TypeError, match="^lazy: "):
        htmlabs.rewrite(b"", URL, lazy="yes")
    with pytest.raises(TypeError, match="^attr: "):
        htmlabs.rewrite(b"", URL, attr="img:data-x")
    with pytest.raises(TypeError, match="unexpected keyword argument `retrieved_from`"):
        htmlabs.rewrite_warc(io.BytesIO(), io.BytesIO(), retrieved_from=URL)


def test_the_stubs_name_what_the_module_has():
    """The .pyi stubs and py.typed ship in the package, and declare what
    the module has, no more."""
    import ast
    from importlib.resources import files

    package = files("htmlabs")
    assert package.joinpath("py.typed").is_file()
    stubs = ast.parse(package.joinpath("_htmlabs.pyi").read_text())
    declared = {n.name for n in stubs.body if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and not n.name.startswith("_")}
    native = {n for n in dir(htmlabs._htmlabs) if not n.startswith("_")}
    # TypedDicts type keywords and dicts: the module has none of its own.
    assert declared - {"Options", "Link", "CheckedLink", "Capture"} == native
    typed = {n.name: n for n in stubs.body if isinstance(n, ast.ClassDef)}
    for cls in ("Result", "Summary", "Links"):
        fields = {f.name for f in typed[cls].body if isinstance(f, ast.FunctionDef) and not f.name.startswith("_")}
        assert fields == {n for n in dir(getattr(htmlabs, cls)) if not n.startswith("_")}, cls
    # Fields declared as attributes.
    for cls in ("CheckSummary", "Captures"):
        fields = {f.target.id for f in typed[cls].body if isinstance(f, ast.AnnAssign)}
        assert fields == {n for n in dir(getattr(htmlabs, cls)) if not n.startswith("_")}, cls
