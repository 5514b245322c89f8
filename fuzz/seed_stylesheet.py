"""Writes the seed inputs of the `stylesheet` fuzz target into
corpus/stylesheet/: each stylesheet of fixtures/stylesheet (real ones among
them: its README), with the base its args give (--retrieved-from, -r), or
none, as `Case::from_bytes` reads it (a flags byte, a chunking byte, the
base's length, the base, the document); and a few flag variations of each
(RFC 3986, a 2 KiB memory limit, no base). Run from the repository's root.
"""

import hashlib
import os

BASE, RFC3986, SMALL_MEMORY = 16, 1, 64
MAX = 4096


def case(flags, chunks, base, document):
    return bytes([flags, chunks, len(base)]) + base + document


def stylesheets():
    root = "fixtures/stylesheet"
    for case_dir in sorted(os.listdir(root)):
        path = os.path.join(root, case_dir, "input.css")
        if not os.path.exists(path):
            continue
        with open(os.path.join(root, case_dir, "args")) as f:
            args = f.read().split("\n")
        flag = next((a for a in ("-r", "--retrieved-from") if a in args), None)
        base = args[args.index(flag) + 1].encode() if flag else None
        with open(path, "rb") as f:
            yield base, f.read()


seeds = []
for i, (base, document) in enumerate(stylesheets()):
    document = document[:MAX]
    if base is None or len(base) > 255:
        seeds.append(case(0, i % 256, b"", document))
        continue
    seeds.append(case(BASE, i % 256, base, document))
    for flags in [RFC3986, SMALL_MEMORY, 0]:
        seeds.append(case(flags | (BASE if flags else 0), (i * 7) % 256, base if flags else b"", document))

os.makedirs("fuzz/corpus/stylesheet", exist_ok=True)
for seed in seeds:
    name = hashlib.sha1(seed).hexdigest()
    with open(os.path.join("fuzz/corpus/stylesheet", name), "wb") as f:
        f.write(seed)
print(len(seeds), "seeds")
