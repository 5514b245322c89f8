"""The usual link script beside htmlabs: what it misses, and what it
resolves otherwise.

The usual script is how web-graph jobs get a page's links from a WARC
file (cc-pyspark's way): warcio reads each HTML response, lxml parses it
and `iterlinks()` gives the links, and `urllib.parse.urljoin` resolves each
against the record's `WARC-Target-URI`. This runs it and
`htmlabs.warc_links` (with `--lazy`, and `--standard rfc3986`, as browsers
and `urljoin` resolve, so that what differs is which links are found and
which base they are resolved against) over the same WARC files, matches
the links page by page (by element, attribute and value), and counts by
class the links the script misses, those it resolves to another URL, and
those only it finds. Run with the Python of the tests' environment
(htmlabs, warcio and lxml installed), from the checkout's root:

    python python/tools/usual_links.py [--examples N] WARC...

It prints Markdown tables (docs/python.md has its figures on the shared
wget crawl).
"""

from __future__ import annotations

import argparse
import collections
import sys
from urllib.parse import urljoin


def usual_links(path):
    """The usual script over one WARC file: for each link of each HTML
    response, (record ID, page URL, element, attribute, value, absolute
    URL). `attribute` is None for a `<style>`'s text, as lxml says."""
    import lxml.etree
    import lxml.html
    from warcio.archiveiterator import ArchiveIterator

    with open(path, "rb") as f:
        for record in ArchiveIterator(f):
            if record.rec_type != "response" or not record.http_headers:
                continue
            if "html" not in (record.http_headers.get_header("Content-Type") or ""):
                continue
            record_id = record.rec_headers.get_header("WARC-Record-ID")
            url = record.rec_headers.get_header("WARC-Target-URI")
            body = record.content_stream().read()
            try:
                doc = lxml.html.document_fromstring(body)
            except (ValueError, lxml.etree.ParserError):
                continue  # an empty page, or one lxml cannot take
            for element, attribute, link, _ in doc.iterlinks():
                yield record_id, url, element.tag, attribute, link, urljoin(url, link)


LAZY = {"data-src", "data-srcset", "data-original", "data-lazy-src", "data-lazyload", "data-hires",
        "data-lazy-srcset"}


def missed_class(link):
    """Why the usual script has no link where htmlabs has this one."""
    kind, element, attribute = link["kind"], link["element"], link["attribute"]
    if attribute in LAZY:
        return "lazy-loading attributes (`data-src`, `data-srcset`…)"
    if kind == "srcset":
        return "`srcset` candidates (`<img>`, `<source>`)"
    if kind == "css":
        return "CSS `url()` in `style` attributes" if attribute == "style" else "CSS `url()` in `<style>`"
    if kind == "refresh":
        return "`<meta http-equiv=refresh>`"
    if attribute in ("itemtype", "itemid"):
        return "microdata `itemtype` and `itemid`"
    return f"`<{element} {attribute}>`" if attribute else f"`<{element}>`"


def otherwise_class(original, theirs, ours):
    """Why `urljoin` gives another URL against the same base."""
    if ours == theirs + "#":
        return "`urljoin` drops an empty fragment (`#`)"
    if ours == theirs + "?":
        return "`urljoin` drops an empty query (`?`)"
    if theirs != theirs.strip() or original != original.strip():
        return "`urljoin` keeps the spaces around the value (the HTML standard strips them)"
    if "//" in ours.split("://", 1)[-1] and "//" not in theirs.split("://", 1)[-1]:
        return "`urljoin` collapses `//` in the path"
    return "other"


def compare(paths, examples=0):
    import htmlabs

    found = collections.Counter()  # class -> links
    shown = collections.defaultdict(list)
    total = usual_total = 0

    def note(cls, example):
        found[cls] += 1
        if len(shown[cls]) < examples:
            shown[cls].append(example)

    for path in paths:
        ours = collections.defaultdict(list)
        for link in htmlabs.warc_links(path, lazy=True, standard="rfc3986"):
            ours[link["record"]].append(link)
        theirs = collections.defaultdict(list)
        for record_id, url, element, attribute, value, absolute in usual_links(path):
            theirs[record_id].append((element, attribute or "", value.strip(), absolute, url))
        for record_id in set(ours) | set(theirs):
            left = collections.defaultdict(list)
            for element, attribute, value, absolute, url in theirs.get(record_id, []):
                usual_total += 1
                left[(element, attribute, value)].append(absolute)
            for link in ours.get(record_id, []):
                total += 1
                key = (link["element"], link["attribute"], link["original"].strip())
                if record_id not in theirs:
                    note("missed: the page is not read (no `html` in its `Content-Type`, or lxml cannot parse it)",
                         (link["target"], link["original"]))
                elif not left.get(key):
                    note("missed: " + missed_class(link), (link["target"], link["original"]))
                else:
                    absolute = left[key].pop(0)
                    if link["absolute"] is None or absolute == link["absolute"]:
                        note("same", None)
                    elif link["layer"] == "embedded":
                        note("resolved otherwise: against the URL, not the page's `<base href>`",
                             (link["target"], link["base"], link["original"], absolute, link["absolute"]))
                    elif link["layer"] == "encapsulating":
                        note("resolved otherwise: against the URL, not the HTTP `Content-Base`/`Content-Location`",
                             (link["target"], link["base"], link["original"], absolute, link["absolute"]))
                    else:
                        note("resolved otherwise, the same base: "
                             + otherwise_class(link["original"], absolute, link["absolute"]),
                             (link["target"], link["original"], absolute, link["absolute"]))
            for (element, attribute, value), rest in left.items():
                for absolute in rest:
                    note(f"only the usual script: `<{element}{' ' + attribute if attribute else ''}>`",
                         (value, absolute))
    return total, usual_total, found, shown


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("warcs", nargs="+")
    p.add_argument("--examples", type=int, default=0, help="print N examples of each class")
    args = p.parse_args(argv)
    total, usual_total, found, shown = compare(args.warcs, args.examples)
    print(f"{total} links by htmlabs (`lazy=True, standard=\"rfc3986\"`), {usual_total} by the usual script "
          f"(warcio + lxml `iterlinks` + `urljoin`)\n")
    print("| class | links | of htmlabs's |")
    print("| --- | ---: | ---: |")
    for cls, n in sorted(found.items(), key=lambda kv: (kv[0] != "same", -kv[1])):
        share = "" if cls.startswith("only") else f"{100 * n / total:.1f}%"
        print(f"| {cls} | {n} | {share} |")
    if args.examples:
        for cls, items in shown.items():
            if items and items[0] is not None:
                print(f"\n{cls}:")
                for item in items:
                    print("   ", item)
    return 0


if __name__ == "__main__":
    sys.exit(main())
