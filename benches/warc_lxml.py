"""What a user would write today to do what `htmlabs --warc IN -o OUT` does,
with warcio and lxml: for benches/warc.rs.

Usage: python benches/warc_lxml.py IN.warc.gz OUT.warc.gz

Every record of IN is copied to OUT as it came (its gzip member, by the
offset and length warcio's ArchiveIterator gives), and after each HTML
response comes a `conversion` record: the payload as warcio's
content_stream() gives it (chunking and gzip undone), parsed by
lxml.html.document_fromstring, made absolute by make_links_absolute against
the record's WARC-Target-URI (a <base href> first), serialized by
lxml.html.tostring, and written by warcio's WARCWriter, which computes its
digests. Prints "<records> <html responses> <conversions> <failed>" at the
end.
"""

import io
import sys

import lxml.etree
import lxml.html
from warcio.archiveiterator import ArchiveIterator
from warcio.warcwriter import WARCWriter


def is_html_response(record):
    if record.rec_type != "response" or record.http_headers is None:
        return False
    content_type = record.http_headers.get_header("Content-Type") or ""
    return content_type.split(";")[0].strip().lower() == "text/html"


def absolute(payload, url):
    """The page made absolute by lxml, or None when lxml cannot parse it."""
    try:
        doc = lxml.html.document_fromstring(payload)
    except (lxml.etree.ParserError, ValueError):
        return None
    # "ignore": a URL urljoin cannot take (a bad IPv6 host) is left as it
    # is rather than ending the run, as htmlabs would.
    doc.make_links_absolute(url, resolve_base_href=True, handle_failures="ignore")
    return lxml.html.tostring(doc)


def main():
    source, target = sys.argv[1], sys.argv[2]
    records = html = conversions = failed = 0
    # The iterator reads ahead: the records' bytes are copied from a second
    # handle on the same file.
    with open(source, "rb") as stream, open(source, "rb") as raw, open(target, "wb") as out:
        writer = WARCWriter(out, gzip=True)
        it = ArchiveIterator(stream)
        for record in it:
            records += 1
            page = None
            if is_html_response(record):
                html += 1
                url = record.rec_headers.get_header("WARC-Target-URI")
                record_id = record.rec_headers.get_header("WARC-Record-ID")
                page = absolute(record.content_stream().read(), url)
                failed += page is None
            raw.seek(it.get_record_offset())
            out.write(raw.read(it.get_record_length()))
            if page is not None:
                conversion = writer.create_warc_record(
                    url,
                    "conversion",
                    payload=io.BytesIO(page),
                    warc_content_type="text/html",
                    warc_headers_dict={"WARC-Refers-To": record_id},
                )
                writer.write_record(conversion)
                conversions += 1
    print(records, html, conversions, failed)


if __name__ == "__main__":
    main()
