"""Documents beyond pages (issue 33): rewrite(type=...) for a stylesheet, a
feed, a sitemap, SVG, or its first bytes deciding, as the command line's
--type does; and rewrite_warc over an archive of feeds, stylesheets and SVG,
read back by warcio. The documents are the engines' golden cases
(fixtures/xml, fixtures/stylesheet)."""

import gzip
import io

import pytest

import htmlabs

from conftest import REPO, run_cli, warcio_check


def golden(case):
    """A golden case: its input, its expected output, the URL it was
    retrieved from (its args: -r URL)."""
    d = REPO / "fixtures" / case
    ext = "xml" if case.startswith("xml/") else "css"
    flag, url = (d / "args").read_text().split()
    assert flag == "-r"
    return (d / f"input.{ext}").read_bytes(), (d / f"expected.{ext}").read_bytes(), url


XML_CASES = ["xml/rss2-elements", "xml/atom-elements", "xml/rss1-rdf", "xml/sitemap", "xml/svg-sprite"]


@pytest.mark.parametrize("case", XML_CASES)
def test_a_feed_sitemap_or_svg_by_its_first_bytes_or_by_type(cli, case):
    source, expected, url = golden(case)
    for kind in [None, "xml"]:
        r = htmlabs.rewrite(source, url, type=kind)
        assert r.html == expected
        assert r.type == "xml"
        assert r.rewritten > 0 and not r.warnings
        # A value's path starts at the root, but a stylesheet instruction's,
        # which is outside it.
        roots = {link["element"].split("/")[0] for link in r.links} - {"?xml-stylesheet"}
        assert len(roots) == 1 and roots <= {"rss", "feed", "rdf:RDF", "urlset", "svg"}
    status, out, _ = run_cli(cli, ["-r", url], source)
    assert (status, out) == (0, expected)


def test_a_stylesheet_is_read_as_one_only_when_type_says_so(cli):
    source, expected, url = golden("stylesheet/imports-and-image-sets")
    r = htmlabs.rewrite(source, url, type="css")
    assert (r.html, r.type) == (expected, "css")
    assert r.links[0]["kind"] == "css" and r.links[0]["original"] == "reset.css"
    status, out, _ = run_cli(cli, ["-r", url, "--type", "css"], source)
    assert (status, out) == (0, expected)
    # Its first bytes say nothing: a page, whose text is no URL.
    r = htmlabs.rewrite(source, url)
    assert (r.html, r.type, r.rewritten) == (source, "html", 0)


def test_type_html_reads_a_feed_as_a_page():
    feed = b"<rss version='2.0'><channel><link>./</link></channel></rss>"
    r = htmlabs.rewrite(feed, "http://h/feed/", type="html")
    assert (r.html, r.type) == (feed, "html")
    r = htmlabs.rewrite(feed, "http://h/feed/")
    assert r.html == b"<rss version='2.0'><channel><link>http://h/feed/</link></channel></rss>"


def test_an_unknown_type_is_a_value_error():
    with pytest.raises(ValueError, match=r"^unknown type: `json` \(html, css or xml\)$"):
        htmlabs.rewrite(b"{}", "http://h/", type="json")


def record(kind, target, content_type, block):
    head = (f"WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{target}>\r\n"
            f"WARC-Date: 2024-05-01T00:00:00Z\r\nWARC-Target-URI: {target}\r\n"
            f"Content-Type: {content_type}\r\nContent-Length: {len(block)}\r\n\r\n").encode()
    return gzip.compress(head + block + b"\r\n\r\n")


def response(content_type, body, zipped=False, chunked=False):
    head = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n"
    if zipped:
        head += "Content-Encoding: gzip\r\n"
        body = gzip.compress(body)
    if chunked:
        head += "Transfer-Encoding: chunked\r\n"
        pieces = [body[i:i + 100] for i in range(0, len(body), 100)]
        body = b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n"
    else:
        head += f"Content-Length: {len(body)}\r\n"
    return (head + "\r\n").encode() + body


def test_an_archive_of_feeds_stylesheets_and_svg(cli, tmp_path):
    http = "application/http; msgtype=response"
    cases = [
        ("xml/rss2-elements", "application/rss+xml", True, True),
        ("xml/atom-elements", "application/atom+xml", True, False),
        ("stylesheet/imports-and-image-sets", "text/css", False, True),
        ("xml/svg-sprite", "image/svg+xml", False, False),
    ]
    records, expected = [], {}
    for case, content_type, zipped, chunked in cases:
        source, out, url = golden(case)
        records.append(record("response", url, http, response(content_type, source, zipped, chunked)))
        expected[url] = (content_type, out)
    # XML of no vocabulary: left as it is, no conversion.
    records.append(record("response", "http://h/pom.xml", http,
                          response("application/xml", b"<?xml version='1.0'?><project><url>a</url></project>")))
    src = tmp_path / "types.warc.gz"
    src.write_bytes(b"".join(records))
    dst = tmp_path / "out.warc.gz"
    summary = htmlabs.rewrite_warc(src, dst)
    assert (summary.records, summary.rewritten, summary.css_rewritten, summary.xml_rewritten) == (5, 4, 1, 3)
    assert (summary.conversions, summary.incomplete, summary.warnings) == (4, False, [])
    status, _, err = run_cli(cli, ["--warc", str(src), "-o", str(tmp_path / "cli.warc.gz")])
    assert status == 0
    assert err[-1].startswith(f"htmlabs: 5 records, 0 HTML rewritten, 1 CSS rewritten, 3 XML rewritten, "
                              f"4 conversions added, {summary.urls} URLs rewritten, 0 warnings, ")
    records = warcio_check(dst)
    assert [t for t, _ in records].count("conversion") == 4
    from warcio.archiveiterator import ArchiveIterator

    with open(dst, "rb") as f:
        for r in ArchiveIterator(f):
            if r.rec_type != "conversion":
                continue
            url = r.rec_headers.get_header("WARC-Target-URI")
            content_type, out = expected.pop(url)
            assert r.rec_headers.get_header("Content-Type").startswith(content_type + "; charset=")
            assert r.content_stream().read() == out
    assert expected == {}


@pytest.mark.parametrize(
    "content_type, expected_type",
    [("text/css", "css"), ("text/css; charset=utf-8", "css"), ("application/rss+xml", "xml"),
     ("image/png", None), ("text/html", "html")],
)
def test_headers_content_type_decides_the_type_as_http_does(cli, content_type, expected_type):
    """rewrite(headers=…) reads the block's Content-Type as --http does: a
    stylesheet by its media type although its first bytes say nothing, a
    type no engine rewrites left as it is; the body as the command line's."""
    if expected_type == "xml":
        body, _, url = golden("xml/rss2-elements")
    else:
        body, url = b"a { background: url(x.png) }\n", "https://example.com/css/site.css"
    r = htmlabs.rewrite(body, url, headers={"Content-Type": content_type})
    assert r.type == expected_type
    response = f"HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n".encode() + body
    status, out, err = run_cli(cli, ["--http", "--strip-headers", "-r", url], response)
    assert status == 0, err
    assert r.html == out
    if expected_type is None:
        assert r.html == body and r.links == [] and r.rewritten == 0
    elif expected_type == "css":
        assert b"url(https://example.com/css/x.png)" in r.html
