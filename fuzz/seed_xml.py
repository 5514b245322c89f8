"""Writes the seed inputs of the `xml` fuzz target into corpus/xml/: each
document of fixtures/xml, fixtures/feeds and fixtures/stylesheet (a
stylesheet is no XML: what the engine makes of any bytes), with the base its
case gives (fixtures/xml: its args' --retrieved-from) or
http://h/d/feed.xml, as `Case::from_bytes` reads it (a flags byte, a
chunking byte, the base's length, the base, the document); and a few flag
variations of the first ones (RFC 3986, --keep-fragments, a 2 KiB memory
limit, no base). Run from the repository's root.
"""

import hashlib
import os

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

os.makedirs("fuzz/corpus/xml", exist_ok=True)
for seed in seeds:
    name = hashlib.sha1(seed).hexdigest()
    with open(os.path.join("fuzz/corpus/xml", name), "wb") as f:
        f.write(seed)
print(len(seeds), "seeds")
