"""lxml's make_links_absolute, timed inside Python, for benches/throughput.rs.

Usage: python3 benches/lxml_links.py MANIFEST

MANIFEST has one document a line: SET<TAB>PATH<TAB>BASE_URL. The documents
are read into memory, then "ready <lxml version>" is printed. Each line on
standard input names a SET; the script rewrites every document of that set
(parse with lxml.html.document_fromstring, make_links_absolute against its
base URL, serialize with lxml.html.tostring) and prints one line:
"<seconds> <bytes in> <bytes out> <documents that failed>". Only this work
is timed, not the interpreter's start-up or the reading of the files, and
the bench asks set by set, so that lxml's runs are interleaved with the
others and noise on the machine hits all alike.
"""

import sys
import time

import lxml
import lxml.etree
import lxml.html


def load(manifest):
    sets = {}
    with open(manifest, encoding="utf-8") as f:
        for line in f:
            name, path, url = line.rstrip("\n").split("\t")
            with open(path, "rb") as page:
                sets.setdefault(name, []).append((page.read(), url))
    return sets


def rewrite(docs):
    bytes_in = bytes_out = failed = 0
    start = time.perf_counter()
    for data, url in docs:
        bytes_in += len(data)
        try:
            doc = lxml.html.document_fromstring(data)
        except (lxml.etree.ParserError, ValueError):
            # An empty or unparsable document: lxml gives up on it.
            failed += 1
            continue
        # "ignore": a URL that urljoin cannot take (a bad IPv6 host) is left
        # as it is rather than ending the run, as htmlabs would.
        doc.make_links_absolute(url, resolve_base_href=True, handle_failures="ignore")
        bytes_out += len(lxml.html.tostring(doc))
    return time.perf_counter() - start, bytes_in, bytes_out, failed


def main():
    sets = load(sys.argv[1])
    print("ready", lxml.__version__, flush=True)
    for line in sys.stdin:
        seconds, bytes_in, bytes_out, failed = rewrite(sets[line.strip()])
        print(f"{seconds:.6f} {bytes_in} {bytes_out} {failed}", flush=True)


if __name__ == "__main__":
    main()
