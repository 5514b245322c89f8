"""Writes out the HTML pages an archive captured, as warcio reads them
(payloads decoded of their codings): `python payloads.py ARCHIVE DIR`.
DIR gets each page as N.html and pages.json, URL -> file. Of captures of one
URL, the last in the archive. Driven by tests/judges/chromium.rs.
"""
import json
import os
import sys

from warcio.archiveiterator import ArchiveIterator


def main():
    archive, out = sys.argv[1:3]
    pages = {}
    with open(archive, "rb") as f:
        for record in ArchiveIterator(f):
            if record.rec_type != "response" or record.http_headers is None:
                continue
            headers = record.http_headers
            if not headers.get_statuscode().startswith("2"):
                continue
            if "text/html" not in (headers.get_header("Content-Type") or ""):
                continue
            url = record.rec_headers.get_header("WARC-Target-URI").strip("<>")
            path = os.path.join(out, f"{len(pages)}.html")
            with open(path, "wb") as page:
                page.write(record.content_stream().read())
            pages[url] = path
    with open(os.path.join(out, "pages.json"), "w") as f:
        json.dump(pages, f)


if __name__ == "__main__":
    main()
