"""`htmlabs.check_links`: a site's links checked against what its host
serves, an archive's against its captures, as `htmlabs --check-links`
checks them: each link the line of the command line's `--report` with
`broken`, the figures its summary line says. The checker's verdicts are
Chromium's in tests/judges/link_check.rs; here, that Python gives the same,
on planted links whose class is known, and an archive written by warcio."""

import io
import json

import pytest

import htmlabs

from conftest import REPO, module, run_cli

URL = "https://example.com/"

# Each planted link: its file, its value, and its status on each host
# (plain, github-pages, netlify, cloudflare-pages, gitlab-pages).
PLANTED = [
    ("index.html", "about.html", ("found",) * 5),
    ("index.html", "gone.html", ("not-found",) * 5),
    ("index.html", "about.html#team", ("found",) * 5),
    ("index.html", "about.html#nobody", ("fragment-not-found",) * 5),
    ("index.html", "#top", ("found",) * 5),
    ("index.html", "/about", ("not-found", "found", "found", "found", "found")),
    ("index.html", "/about/", ("not-found", "not-found", "found", "found", "found")),
    ("index.html", "https://example.com/docs/", ("found",) * 5),
    ("index.html", "https://www.example.com/img/logo.png", ("found",) * 5),
    ("index.html", "https://elsewhere.org/", ("off-site",) * 5),
    # Netlify's functions answer there, whatever the site holds.
    ("index.html", "/.netlify/functions/hello", ("not-found", "not-found", "service", "not-found", "not-found")),
    ("docs/index.html", "../about.html", ("found",) * 5),
    # Under the page's <base href>: about.html is beside the base, not
    # beside the page.
    ("docs/based.html", "about.html", ("found",) * 5),
    ("docs/based.html", "based.html", ("not-found",) * 5),
    ("css/site.css", "../img/logo.png", ("found",) * 5),
    ("css/site.css", "../img/gone.png", ("not-found",) * 5),
]
BROKEN = {"not-found", "fragment-not-found"}
HOSTS = ["plain", "github-pages", "netlify", "cloudflare-pages", "gitlab-pages"]


def make_site(root):
    """The site of PLANTED: each page's links in the order listed."""
    (root / "docs").mkdir(parents=True)
    (root / "css").mkdir()
    (root / "img").mkdir()
    (root / "img/logo.png").write_bytes(b"\x89PNG\r\n")
    (root / "about.html").write_text('<h1 id="team">Team</h1>')
    for page in {page for page, _, _ in PLANTED if page.endswith(".html")}:
        values = [value for p, value, _ in PLANTED if p == page]
        base = '<base href="/">' if page == "docs/based.html" else ""
        links = "".join(f'<a href="{v}">{i}</a>\n' for i, v in enumerate(values))
        (root / page).write_text(f"<!DOCTYPE html>{base}<link rel=stylesheet href=/css/site.css>\n{links}")
    values = [value for p, value, _ in PLANTED if p == "css/site.css"]
    (root / "css/site.css").write_text("".join(f"a{{background:url({v})}}\n" for v in values))


def cli_report(cli, args):
    """The command line's exit status and its `--report` lines, parsed."""
    status, out, err = run_cli(cli, [*args, "--report", "-", "-q"])
    assert status in (0, 1), err
    return status, [json.loads(line) for line in out.decode().splitlines()]


@pytest.mark.parametrize("host", HOSTS)
def test_a_sites_links_are_the_command_lines_with_their_class(cli, tmp_path, host):
    make_site(tmp_path / "site")
    site = tmp_path / "site"
    links = htmlabs.check_links(site, URL, host=host, jobs=1)
    got = list(links)
    status, expected = cli_report(
        cli, ["--site", str(site), "--site-url", URL, "--check-links", "--host", host, "--jobs", "1"]
    )
    # The report's lines, each with `broken`, in the same order.
    assert [{k: v for k, v in link.items() if k != "broken"} for link in got] == [
        {"status": None, **line} if "status" not in line else line for line in expected
    ]
    for link in got:
        assert link["broken"] == (link["status"] in BROKEN), link
    # Each planted link's class, on this host.
    index = HOSTS.index(host)
    by_place = {(link["file"][len(str(site)) + 1:], link["original"]): link for link in got}
    for page, value, statuses in PLANTED:
        assert by_place[(page, value)]["status"] == statuses[index], (page, value)
    # The figures, as the summary line says them; exit 1 when any is broken.
    summary = links.summary
    assert summary.source == "site"
    broken = sum(link["broken"] for link in got)
    assert broken == summary.broken > 0 and status == 1
    assert summary.found == sum(link["status"] == "found" for link in got)
    assert summary.off_site == sum(link["status"] == "off-site" for link in got)
    assert summary.service == sum(link["status"] == "service" for link in got)
    assert summary.captured is None and summary.seeds == []
    assert f"{summary.broken} broken" in summary.line
    assert not summary.incomplete
    # Every core gives the same links, in the same order.
    assert list(htmlabs.check_links(str(site), URL, host=host)) == got


def test_a_site_that_is_whole_exits_zero_and_says_so(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text('<a href="a/">a</a>')
    (tmp_path / "a/index.html").write_text('<a href="../">up</a><a href="https://x.org/">x</a>')
    links = htmlabs.check_links(tmp_path, URL)
    assert [link["status"] for link in links] == ["found", "off-site", "found"]
    assert (links.summary.broken, links.summary.found, links.summary.off_site) == (0, 2, 1)


def write_archive(path):
    """A crawl of one page whose links lead to a capture, a revisit of
    one, a redirect to a capture, a redirect to nothing, an error, and
    nothing; written by warcio."""
    warcio = module("warcio")
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    site = "http://crawl.example/"
    page = b"".join(
        f'<a href="{v}">x</a>\n'.encode()
        for v in ["b.html", "again.html", "moved", "lost", "error.html", "never.html", "never.html#x",
                  "mailto:a@b.c"]
    )
    with open(path, "wb") as out:
        writer = WARCWriter(out, gzip=True)

        def response(url, status, body=b"", headers=()):
            http = StatusAndHeaders(status, [("Content-Type", "text/html"), *headers],
                                    protocol="HTTP/1.1")
            record = writer.create_warc_record(url, "response", payload=io.BytesIO(body),
                                               http_headers=http)
            writer.write_record(record)
            return record

        response(site, "200 OK", page)
        b = response(site + "b.html", "200 OK", b"<p>b</p>")
        http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        revisit = writer.create_revisit_record(
            site + "again.html", b.rec_headers.get_header("WARC-Payload-Digest"),
            site + "b.html", b.rec_headers.get_header("WARC-Date"), http_headers=http)
        writer.write_record(revisit)
        response(site + "moved", "301 Moved Permanently", headers=[("Location", "/b.html")])
        response(site + "lost", "302 Found", headers=[("Location", "/nowhere.html")])
        response(site + "error.html", "404 Not Found", b"no")
    return site


def test_an_archives_links_are_classed_by_its_captures(cli, tmp_path):
    archive = tmp_path / "crawl.warc.gz"
    site = write_archive(archive)
    links = htmlabs.check_links(archive, seeds=True)
    got = [link for link in links if link["target"] == site]
    assert [(link["original"], link["status"], link["broken"]) for link in got] == [
        ("b.html", "captured", False),
        ("again.html", "captured", False),
        ("moved", "redirected", False),
        ("lost", "redirected", True),
        ("error.html", "failed", True),
        ("never.html", "not-captured", True),
        ("never.html#x", "not-captured", True),
        ("mailto:a@b.c", None, False),
    ]
    assert got[2]["redirect"] == site + "b.html" and got[2]["end"] == "captured"
    assert got[3]["redirect"] == site + "nowhere.html" and got[3]["end"] == "not-captured"
    assert got[4]["http"] == 404
    summary = links.summary
    assert summary.source == "archive"
    assert (summary.captured, summary.redirected, summary.failed, summary.not_captured) == (2, 1, 1, 3)
    assert summary.broken == 4 and summary.unchecked == 1 and summary.found is None
    # One seed a URL, its fragment aside, where a redirect's chain ends.
    assert summary.seeds == [site + "nowhere.html", site + "never.html"]
    # The command line's report, line for line, and its seed list.
    seeds = tmp_path / "seeds.txt"
    status, expected = cli_report(cli, ["--warc", str(archive), "--check-links", "--seeds", str(seeds)])
    assert status == 1
    everything = list(htmlabs.check_links(str(archive)))
    assert [{k: v for k, v in link.items() if k != "broken"} for link in everything] == [
        {"status": None, **line} if "status" not in line else line for line in expected
    ]
    assert seeds.read_text().splitlines() == summary.seeds


def test_what_a_check_is_not_asked_is_refused(tmp_path):
    (tmp_path / "site").mkdir()
    archive = tmp_path / "crawl.warc.gz"
    write_archive(archive)
    with pytest.raises(htmlabs.ConfigError, match="needs `site_url`"):
        htmlabs.check_links(tmp_path / "site")
    with pytest.raises(htmlabs.ConfigError, match="`seeds` is for an archive"):
        htmlabs.check_links(tmp_path / "site", URL, seeds=True)
    with pytest.raises(ValueError, match="unknown host: `gitlab`"):
        htmlabs.check_links(tmp_path / "site", URL, host="gitlab")
    for keyword in [{"site_url": URL}, {"host": "netlify"}, {"exclude": ["a"]}]:
        with pytest.raises(htmlabs.ConfigError, match="is for a site's check"):
            htmlabs.check_links(archive, **keyword)
    with pytest.raises(htmlabs.ConfigError, match="jobs"):
        htmlabs.check_links(archive, jobs=0)
    with pytest.raises(htmlabs.ReadError):
        list(htmlabs.check_links(tmp_path / "nothing.warc.gz"))


def test_a_caller_that_stops_early_stops_the_run(tmp_path):
    for i in range(300):
        (tmp_path / f"p{i}.html").write_text("".join(f'<a href="p{j}.html">' for j in range(50)))
    links = htmlabs.check_links(tmp_path, URL, jobs=2)
    assert next(links)["status"] == "found"
    del links
    # Another run goes on as if none had been left.
    assert sum(1 for _ in htmlabs.check_links(tmp_path, URL)) == 300 * 50


def test_the_docs_example_runs(tmp_path, monkeypatch):
    text = (REPO / "docs/python.md").read_text()
    marker = "<!-- check: run by python/tests/test_check.py -->"
    example = text.split(marker, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    make_site(tmp_path / "public")
    site = write_archive(tmp_path / "crawl.warc.gz")
    scope = {}
    exec(compile(example, "docs/python.md", "exec"), scope)
    # The planted links broken on GitHub Pages, page by page.
    expected = {}
    for page, value, statuses in PLANTED:
        if statuses[1] in BROKEN:
            expected.setdefault(f"public/{page}", []).append((value, statuses[1]))
    assert {page: [(v, s) for _, v, s in links] for page, links in scope["broken"].items()} == expected
    assert scope["s"].broken == sum(len(v) for v in expected.values())
    assert scope["not_captured"] == {site + "never.html": 1, site + "never.html#x": 1}
    assert scope["seeds"] == [site + "nowhere.html", site + "never.html"]


def warcio_captures(path):
    """The captures warcio reads in `path`: each response (of HTTP),
    revisit and resource record's ID, target, date, final status and
    Location resolved."""
    from urllib.parse import urljoin

    from warcio.archiveiterator import ArchiveIterator

    found = []
    with open(path, "rb") as f:
        for record in ArchiveIterator(f, arc2warc=False):
            kind = record.rec_type
            if kind not in ("response", "revisit", "resource"):
                continue
            headers = record.rec_headers
            target = headers.get_header("WARC-Target-URI")
            status = 200
            location = None
            if kind != "resource":
                if record.http_headers is None:
                    continue
                status = int(record.http_headers.get_statuscode())
                if 300 <= status < 400 and record.http_headers.get_header("Location"):
                    location = urljoin(target, record.http_headers.get_header("Location").strip())
            found.append((headers.get_header("WARC-Record-ID"), target, headers.get_header("WARC-Date"),
                          status, kind == "revisit", location))
    return found


def test_an_archives_captures_are_what_warcio_reads(corpus, tmp_path):
    module("warcio")
    ours = tmp_path / "crawl.warc.gz"
    write_archive(ours)
    for path in [ours, corpus / "warc/corpus-wget.warc.gz"]:
        listed = htmlabs.warc_captures(str(path))
        # The figures are known once every capture is given.
        assert listed.records is None
        captures = list(listed)
        assert listed.incomplete is False and listed.warnings == []
        got = [(c["record"], c["target"], c["date"], c["status"], c["revisit"], c["location"])
               for c in captures]
        assert got == warcio_captures(path), path
        for c in captures:
            assert c["key"] == htmlabs.url_key(c["target"])
            assert c["captured"] == (200 <= c["status"] < 300 or (c["status"] == 304 and c["revisit"]))
        # A file object gives the same.
        with open(path, "rb") as f:
            assert list(htmlabs.warc_captures(f)) == captures
    assert len(got) > 150
    empty = htmlabs.warc_captures(io.BytesIO())
    assert list(empty) == [] and empty.records == 0
    with pytest.raises(htmlabs.ReadError):
        htmlabs.warc_captures(str(tmp_path / "nothing.warc.gz"))
    # A record cut short: the captures before it, and a warning.
    cut = tmp_path / "cut.warc"
    whole = (corpus / "warc/corpus-wget.warc.gz").read_bytes()
    import gzip

    plain = gzip.decompress(whole)
    cut.write_bytes(plain[: len(plain) // 2])
    listed = htmlabs.warc_captures(cut)
    assert 0 < len(list(listed)) < len(got)
    assert listed.incomplete and listed.warnings


def test_an_archive_of_more_captures_than_memory_is_listed_as_they_are_asked_for(tmp_path):
    """The captures come as they are read, within max_memory: an archive
    whose captures hold many times the limit is listed whole, the reading
    thread a few batches ahead; a file object that fails part way gives
    the captures before it, then ReadError; an iterator dropped early
    stops the reading."""
    record = (
        "WARC/1.0\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:{n:08d}-0000-0000-0000-000000000000>\r\n"
        "WARC-Date: 2026-11-30T00:00:00Z\r\nWARC-Target-URI: https://example.com/{n}/{pad}\r\n"
        "Content-Type: application/http; msgtype=response\r\nContent-Length: {length}\r\n\r\n{http}\r\n\r\n"
    )
    http = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\n\r\n"
    pad = "p" * 200
    count = 20_000
    body = "".join(record.format(n=n, pad=pad, length=len(http), http=http) for n in range(count)).encode()
    path = tmp_path / "many.warc"
    path.write_bytes(body)
    limit = 1 << 20
    # What the captures' strings alone hold, against the limit.
    assert count * (len(pad) + 100) > 4 * limit
    listed = htmlabs.warc_captures(str(path), max_memory=limit)
    n = 0
    for n, capture in enumerate(listed, 1):
        assert capture["target"] == f"https://example.com/{n - 1}/{pad}"
    assert n == count and listed.records == count and listed.incomplete is False

    class Reader(io.RawIOBase):
        """The archive, read in pieces, failing past `fail_at` bytes."""

        def __init__(self, fail_at=None):
            self.at, self.fail_at = 0, fail_at

        def readable(self):
            return True

        def read(self, size=-1):
            if self.fail_at is not None and self.at >= self.fail_at:
                raise OSError("the disk went away")
            chunk = body[self.at:self.at + min(size, 65536)]
            self.at += len(chunk)
            return chunk

    given = []
    with pytest.raises(htmlabs.ReadError, match="the disk went away"):
        for capture in htmlabs.warc_captures(Reader(fail_at=len(body) // 2), max_memory=limit):
            given.append(capture)
    assert 0 < len(given) < count

    src = Reader()
    listed = htmlabs.warc_captures(src, max_memory=limit)
    next(listed)
    del listed
    import gc
    import time

    gc.collect()
    time.sleep(0.5)
    # The reading stopped a few batches in, not at the end.
    assert src.at < len(body) // 2


@pytest.mark.parametrize("url, key", [
    ("https://Example.COM:443/a/../b.html?q=1#top", "example.com/b.html?q=1"),
    ("http://example.com:80", "example.com/"),
    ("http://example.com:8080/x", "example.com:8080/x"),
    ("HTTPS://user:pw@example.com/", "example.com/"),
    ("mailto:a@example.com", None),
    ("ftp://example.com/x", None),
])
def test_a_urls_key_is_what_a_capture_is_found_by(url, key):
    assert htmlabs.url_key(url) == key


def test_the_docs_captured_share_runs(spark, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crawl").mkdir()
    wget = corpus / "warc/corpus-wget.warc.gz"
    (tmp_path / "crawl/corpus-wget.warc.gz").symlink_to(wget)
    text = (REPO / "docs/python.md").read_text()
    marker = "<!-- captured share: run by python/tests/test_check.py -->"
    example = text.split(marker, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    scope = {"spark": spark}
    exec(compile(example, "docs/python.md", "exec"), scope)
    got = {r.host: (r.links, r.captured) for r in scope["share"].collect()}
    # What the archive's own check classes, host by host.
    expected = {}
    for link in htmlabs.check_links(wget):
        if link["status"] is None:
            continue
        host = htmlabs.url_key(link["absolute"]).split("/")[0].split("?")[0]
        links, captured = expected.get(host, (0, 0))
        expected[host] = (links + 1, captured + (link["status"] == "captured"))
    assert got == expected
    assert sum(c for _, c in got.values()) > 100


def test_extract_captures_gives_each_files_captures_and_errors(spark, corpus, tmp_path):
    from htmlabs.spark import CAPTURE_COLUMNS, extract_captures

    wget = str(corpus / "warc/corpus-wget.warc.gz")
    missing_file = str(tmp_path / "missing.warc.gz")
    df = extract_captures(spark, [wget, missing_file])
    assert [(f.name, f.dataType.simpleString()) for f in df.schema.fields] == [
        (name, {"long": "bigint"}.get(kind, kind)) for name, kind in CAPTURE_COLUMNS]
    rows = [r.asDict() for r in df.collect()]
    expected = [{**c, "path": wget, "error": None} for c in htmlabs.warc_captures(wget)]
    assert [r for r in rows if r["path"] == wget] == expected
    failed = [r for r in rows if r["path"] == missing_file]
    assert len(failed) == 1 and "missing.warc.gz" in failed[0]["error"]
    with pytest.raises(TypeError):
        extract_captures(spark, [wget], jobs=2)
