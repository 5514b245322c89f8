"""What a user would write today to do what `htmlabs --warc IN --out-dir DIR`
does, with warcio and lxml: for benches/warc.rs.

Usage: python benches/tree_lxml.py IN.warc.gz DIR

Two passes, as htmlabs makes: the first finds each URL's latest 2xx
response (by WARC-Date), the second writes each one's payload (warcio's
content_stream(): chunking and content coding undone) to DIR/host/path (a
directory's as index.html, the query after `?`, `.html` after an HTML
page's name without it), each HTML page parsed by lxml and every link to a
URL saved rewritten (rewrite_links, against the record's URL and its
<base href>) to the relative path from the page's own file (os.path.relpath),
the fragment kept. Prints "<records> <files written>" at the end.
"""

import os
import sys
import urllib.parse

import lxml.etree
import lxml.html
from warcio.archiveiterator import ArchiveIterator


def file_of(url, html):
    parts = urllib.parse.urlsplit(url)
    path = urllib.parse.unquote(parts.path) or "/"
    if path.endswith("/"):
        path += "index.html"
    if parts.query:
        path += "?" + parts.query
    if html and not path.endswith((".html", ".htm")):
        path += ".html"
    segments = [s for s in path.split("/") if s not in ("", ".", "..")]
    return os.path.join(parts.netloc.lower(), *segments)


def responses(source):
    with open(source, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            if not record.http_headers.get_statuscode().startswith("2"):
                continue
            yield record


def main():
    source, target = sys.argv[1], sys.argv[2]
    latest = {}
    for record in responses(source):
        url = record.rec_headers.get_header("WARC-Target-URI").strip("<>")
        date = record.rec_headers.get_header("WARC-Date")
        kind = (record.http_headers.get_header("Content-Type") or "").split(";")[0].strip().lower()
        if url not in latest or latest[url][0] <= date:
            latest[url] = (date, file_of(url, kind == "text/html"))
    files = {url: path for url, (_, path) in latest.items()}
    records = written = 0
    with open(source, "rb") as stream:
        for record in ArchiveIterator(stream):
            records += 1
            if record.rec_type != "response" or record.http_headers is None:
                continue
            url = record.rec_headers.get_header("WARC-Target-URI").strip("<>")
            date = record.rec_headers.get_header("WARC-Date")
            if url not in latest or latest[url][0] != date:
                continue
            path = os.path.join(target, files[url])
            payload = record.content_stream().read()
            kind = (record.http_headers.get_header("Content-Type") or "").split(";")[0].strip().lower()
            if kind == "text/html":
                try:
                    doc = lxml.html.document_fromstring(payload)
                except (lxml.etree.ParserError, ValueError):
                    doc = None
                if doc is not None:
                    here = os.path.dirname(files[url])

                    def relative(link):
                        target_url, _, fragment = link.partition("#")
                        saved = files.get(target_url)
                        if saved is None:
                            return link
                        rel = os.path.relpath(saved, here)
                        return urllib.parse.quote(rel) + ("#" + fragment if fragment else "")

                    doc.make_links_absolute(url, resolve_base_href=True, handle_failures="ignore")
                    doc.rewrite_links(relative)
                    payload = lxml.html.tostring(doc)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "wb") as out:
                out.write(payload)
            written += 1
    print(records, written)


if __name__ == "__main__":
    main()
