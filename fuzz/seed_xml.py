"""Writes the seed inputs of the `xml` fuzz target into corpus/xml/: each
document of fixtures/xml, fixtures/feeds and fixtures/stylesheet (a
stylesheet is no XML: what the engine makes of any bytes), with the base its
case gives (fixtures/xml: its args' --retrieved-from) or
http://h/d/feed.xml, as `Case::from_bytes` reads it (a flags byte, a
chunking byte, the base's length, the base, the document); and a few flag
variations of the first ones (RFC 3986, --keep-fragments, a 2 KiB memory
limit, no base). Run from the repository's root; `shapes` writes only the
hostile shapes (nesting, entities, long bases, Appendix F) at the end.
"""

import hashlib
import os
import sys

BASE, RFC3986, KEEP_FRAGMENTS, SMALL_MEMORY = 16, 1, 2, 64
MAX = 4096


def case(flags, chunks, base, document):
    return bytes([flags, chunks, len(base)]) + base + document


def documents():
    for root, name in [("fixtures/xml", "input.xml"), ("fixtures/stylesheet", "input.css")]:
        for case_dir in sorted(os.listdir(root)):
            path = os.path.join(root, case_dir, name)
            if not os.path.exists(path):
                continue
            with open(os.path.join(root, case_dir, "args")) as f:
                args = f.read().split("\n")
            base = args[args.index("-r") + 1].encode() if "-r" in args else None
            with open(path, "rb") as f:
                yield base, f.read()
    for root, _, files in sorted(os.walk("fixtures/feeds")):
        for name in sorted(files):
            if name.endswith((".xml", ".atom", ".rss")):
                with open(os.path.join(root, name), "rb") as f:
                    yield b"http://h/d/feed.xml", f.read()


def shapes():
    """Hostile shapes: nested `xml:base`s and namespace declarations, a long
    base, entities (Illustrator's namespace, laughs, recursion), UTF-16 and
    UTF-32 told by XML 1.0 Appendix F, an XHTML `<base href>`."""
    atom = b'<feed xmlns="http://www.w3.org/2005/Atom">'
    yield atom + b'<e xml:base="a/">' * 200 + b'<link href="x"/>' + b"</e>" * 200 + b"</feed>"
    yield atom + b'<e xml:base="../b/"><link href="x"/>' * 100 + b"</e>" * 100 + b"</feed>"
    yield atom + b"".join(b'<a xmlns:p%d="urn:%d"><p%d:x/>' % (i, i, i) for i in range(100)) + b"</a>" * 100 + b"</feed>"
    yield atom.replace(b">", b' xml:base="http://h/' + b"long/" * 600 + b'">') + b'<link href="x"/><e xml:base="y/"><link href="z"/></e></feed>'
    yield (
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY ns_svg "http://www.w3.org/2000/svg">'
        b'<!ENTITY img "i/"><!ENTITY m "<b/>">]><svg xmlns="&ns_svg;"><image href="&img;a.png"/>'
        b'<style>&m;</style></svg>'
    )
    laughs = b"".join(b'<!ENTITY l%d "%s">' % (i, b"&l%d;" % (i - 1) * 10) for i in range(1, 10))
    yield b'<!DOCTYPE feed [<!ENTITY l0 "ha">' + laughs + b"]>" + atom + b'<link href="&l9;"/></feed>'
    yield b'<!DOCTYPE feed [<!ENTITY a "&b;"><!ENTITY b "&a;">]>' + atom + b'<link href="&a;"/></feed>'
    yield atom.replace(b">", b' xml:base="http://h/a\nb/\r\n\t">') + b'<link href="x"/></feed>'
    yield '<?xml version="1.0" encoding="UTF-16"?><rss><channel><link>a/</link></channel></rss>'.encode("utf-16-le")
    yield "<?xml version='1.0'?><feed xmlns='http://www.w3.org/2005/Atom'/>".encode("utf-32-le")
    yield b'<?xml version="1.0" encoding="ISO-2022-JP"?><rss><channel><link>a/</link></channel></rss>'
    yield (
        b'<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head><link href="s.css"/>'
        b'<base href="/sub/"/></head><body><a href="p.html"/><base href="late/"/></body></html>'
    )


def from_fixtures():
    seeds = []
    for i, (base, document) in enumerate(documents()):
        document = document[:MAX]
        if base is None or len(base) > 255:
            seeds.append(case(0, i % 256, b"", document))
            continue
        seeds.append(case(BASE, i % 256, base, document))
        if i < 12:
            for flags in [RFC3986, KEEP_FRAGMENTS, SMALL_MEMORY, 0]:
                seeds.append(case(flags | (BASE if flags else 0), (i * 7) % 256, base if flags else b"", document))
    return seeds


def from_shapes():
    seeds = []
    for i, document in enumerate(shapes()):
        for flags, chunks in [(BASE, (i * 13) % 256), (SMALL_MEMORY | BASE, (i * 5) % 256)]:
            seeds.append(case(flags, chunks, b"http://h/d/feed.xml", document[:MAX]))
    return seeds


seeds = from_shapes() if sys.argv[1:] == ["shapes"] else from_fixtures() + from_shapes()
os.makedirs("fuzz/corpus/xml", exist_ok=True)
for seed in seeds:
    name = hashlib.sha1(seed).hexdigest()
    with open(os.path.join("fuzz/corpus/xml", name), "wb") as f:
        f.write(seed)
print(len(seeds), "seeds")
