"""feedparser and tinycss2, timed inside Python, for benches/feeds.rs.

Usage: python benches/feeds_python.py MANIFEST

MANIFEST has one document a line: SET<TAB>MEDIA TYPE<TAB>PATH<TAB>URL. The
documents are read into memory, then "ready feedparser <version> tinycss2
<version>" is printed. Each line on standard input names a SET; the script
reads every document of that set and prints one line: "<wall seconds> <CPU
seconds> <bytes> <items> <problems>".

- A feed (any media type but text/css) is parsed by feedparser.parse, with
  the Content-Type and the Content-Location (the URL, the base of its
  relative URIs) as response headers, and feedparser's defaults: relative
  URIs in entries resolved, HTML sanitized. Items: its entries; problems: 1
  when it is bozo (not well-formed), its reason on standard error.
- A stylesheet (text/css) is decoded as CSS Syntax says
  (tinycss2.bytes.decode_stylesheet_bytes) and tokenized into component
  values (tinycss2.parse_component_value_list, comments kept). Items: the
  top-level component values.

Only this work is timed, not the interpreter's start-up or the reading of
the files, and the bench asks set by set, so that these runs are
interleaved with the others and noise on the machine hits all alike.
"""

import sys
import time

import feedparser
import tinycss2
from tinycss2.bytes import decode_stylesheet_bytes


def load(manifest):
    sets = {}
    with open(manifest, encoding="utf-8") as f:
        for line in f:
            name, media_type, path, url = line.rstrip("\n").split("\t")
            with open(path, "rb") as document:
                sets.setdefault(name, []).append((media_type, document.read(), url))
    return sets


def run(documents):
    size = items = problems = 0
    # Kept to the end and freed outside the clock.
    results = []
    wall, cpu = time.perf_counter(), time.process_time()
    for media_type, data, url in documents:
        size += len(data)
        if media_type == "text/css":
            text, _ = decode_stylesheet_bytes(data)
            results.append(tinycss2.parse_component_value_list(text, skip_comments=False))
            items += len(results[-1])
            continue
        parsed = feedparser.parse(
            data,
            response_headers={"content-type": media_type, "content-location": url},
        )
        results.append(parsed)
        items += len(parsed.entries)
        if parsed.bozo:
            problems += 1
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    for parsed in results:
        if not isinstance(parsed, list) and parsed.bozo:
            print(f"feedparser: {parsed.bozo_exception}", file=sys.stderr)
    del results
    return wall, cpu, size, items, problems


def main():
    sets = load(sys.argv[1])
    print("ready feedparser", feedparser.__version__, "tinycss2", tinycss2.__version__, flush=True)
    for line in sys.stdin:
        wall, cpu, size, items, problems = run(sets[line.strip()])
        print(f"{wall:.6f} {cpu:.6f} {size} {items} {problems}", flush=True)


if __name__ == "__main__":
    main()
