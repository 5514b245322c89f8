"""Reads each feed htmlabs rewrote, and the feed it read, with feedparser, and
prints where the links differ. Usage: python feed_check.py CASES

CASES is a JSON file: a list of {"name", "original", "output", "base"}, the
two feeds' paths and the base URL htmlabs was given. The original is parsed
with feedparser's resolution of relative URIs on (against `base`, given as
its Content-Location, then each xml:base); htmlabs's output with every
resolution off (resolve_relative_uris=False, and the resolver feedparser
uses for links, ids and the like made to leave a URI as it is): what
feedparser finds in it is what htmlabs wrote. HTML is never sanitized.

Compared, for the feed and each entry: every link feedparser reports (link,
links, id, icon, logo, docs, comments, enclosures, image, textinput,
people's href, generator, source, wfw), and the href and src attributes of
the HTML of every text (title, subtitle, rights, summary, content), in
order. Prints one JSON object a line: {"compared": N} for each feed, then a
{"name", "field", "feedparser", "htmlabs"} for each value that differs (a
missing one is null)."""

import json
import sys
from html.parser import HTMLParser

import feedparser
from feedparser import mixin

# The fields that hold a URL, for the feed and for each entry.
LINKS = ["link", "id", "icon", "logo", "docs", "comments", "wfw_comment", "wfw_commentrss"]
LISTS = ["links", "enclosures", "contributors"]
DETAILS = ["author_detail", "publisher_detail", "generator_detail"]
TEXTS = ["title_detail", "subtitle_detail", "rights_detail", "summary_detail"]
HTML_TYPES = {"text/html", "application/xhtml+xml"}


class Attributes(HTMLParser):
    """Collects the href and src attributes of HTML, in order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value is not None:
                self.found.append((f"<{tag} {name}>", value))

    handle_startendtag = handle_starttag


def html_urls(value):
    parser = Attributes()
    parser.feed(value)
    parser.close()
    return parser.found


def text(path, detail, out):
    if not detail or detail.get("type") not in HTML_TYPES:
        return
    for i, (where, url) in enumerate(html_urls(detail.get("value", ""))):
        out[f"{path} {where}[{i}]"] = url


def values(node, path, out):
    """Every URL of a feed or an entry, by a path naming where it stands."""
    for key in LINKS:
        if key in node:
            out[f"{path}.{key}"] = node[key]
    for key in LISTS:
        for i, item in enumerate(node.get(key, [])):
            if "href" in item:
                out[f"{path}.{key}[{i}].href"] = item["href"]
    for key in DETAILS:
        detail = node.get(key)
        if detail and "href" in detail:
            out[f"{path}.{key}.href"] = detail["href"]
    for key in ("image", "textinput"):
        detail = node.get(key)
        if detail:
            for field in ("href", "link"):
                if field in detail:
                    out[f"{path}.{key}.{field}"] = detail[field]
    for key in TEXTS:
        text(f"{path}.{key}", node.get(key), out)
    for i, content in enumerate(node.get("content", [])):
        text(f"{path}.content[{i}]", content, out)
    source = node.get("source")
    if source:
        values(source, f"{path}.source", out)


def urls(result):
    out = {}
    values(result.feed, "feed", out)
    for i, entry in enumerate(result.entries):
        values(entry, f"entries[{i}]", out)
    return out


def headers(base):
    """The same response headers for both: they decide how feedparser
    reads the bytes (without a Content-Type, it takes a response's as
    Latin-1)."""
    headers = {"content-type": "application/xml"}
    if base:
        headers["content-location"] = base
    return headers


def parse_original(data, base):
    return feedparser.parse(
        data, response_headers=headers(base), resolve_relative_uris=True, sanitize_html=False
    )


def parse_output(data, base):
    resolve = mixin._FeedParserMixin.resolve_uri
    mixin._FeedParserMixin.resolve_uri = lambda self, uri: uri
    try:
        return feedparser.parse(
            data, response_headers=headers(base), resolve_relative_uris=False, sanitize_html=False
        )
    finally:
        mixin._FeedParserMixin.resolve_uri = resolve


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        cases = json.load(f)
    for case in cases:
        with open(case["original"], "rb") as f:
            theirs = urls(parse_original(f.read(), case["base"]))
        with open(case["output"], "rb") as f:
            ours = urls(parse_output(f.read(), case["base"]))
        print(json.dumps({"name": case["name"], "compared": len(theirs)}))
        for field in sorted(set(theirs) | set(ours)):
            a, b = theirs.get(field), ours.get(field)
            if (a or "").strip() != (b or "").strip():
                print(
                    json.dumps(
                        {"name": case["name"], "field": field, "feedparser": a, "htmlabs": b}
                    )
                )


main()
