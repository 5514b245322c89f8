"""Writes the seed inputs of the `http` fuzz target into corpus/http/: the
committed captures of fixtures/http/ and hand-made shapes (codings, broken
codings, redirects, base fields, bad heads), each as `Case::from_bytes`
reads it (a flags byte, a chunking byte, the base's length, the base, the
response). Run from the repository's root; needs Python's brotli.
"""

import gzip
import hashlib
import os
import sys
import zlib

import brotli

sys.path.insert(0, "tests")
from http_server import chunks as chunked  # noqa: E402

PAGE = b"<!doctype html><head><link href=s.css></head><a href='../x?a=1&amp;b'>x</a> <img src=/i.png>\n"
BASE_FLAG = 16


def response(fields, body, status=b"HTTP/1.1 200 OK"):
    return status + b"\r\n" + b"".join(f + b"\r\n" for f in fields) + b"\r\n" + body


HTML = b"Content-Type: text/html; charset=utf-8"
seeds = []
for name in sorted(os.listdir("fixtures/http")):
    with open(os.path.join("fixtures/http", name), "rb") as f:
        seeds.append((b"http://127.0.0.1:8000/start/r1", f.read()))
gz = gzip.compress(PAGE, mtime=0)
seeds += [(b"http://h/a/p", r) for r in [
    response([HTML, b"Content-Length: %d" % len(PAGE)], PAGE),
    response([HTML, b"Transfer-Encoding: chunked"], chunked(PAGE, 17)),
    response([HTML, b"Transfer-Encoding: chunked"], PAGE),
    response([HTML, b"Content-Encoding: gzip", b"Content-Length: %d" % len(gz)], gz),
    response([HTML, b"Content-Encoding: gzip", b"Transfer-Encoding: chunked"], chunked(gz, 30)),
    response([HTML, b"Content-Encoding: gzip"], gz[:-9]),
    response([HTML, b"Content-Encoding: deflate"], zlib.compress(PAGE)),
    response([HTML, b"Content-Encoding: deflate"], zlib.compress(PAGE)[2:-4]),
    response([HTML, b"Content-Encoding: br"], brotli.compress(PAGE)),
    response([HTML, b"Content-Encoding: br"], PAGE),
    response([HTML, b"Content-Encoding: zstd"], b"\x28\xb5\x2f\xfd" + PAGE),
    response([HTML, b"Content-Encoding: x-unknown"], PAGE),
    response([HTML, b"Transfer-Encoding: chunked"], b"ff\r\n" + PAGE),
    response([b"Content-Base: ../cb/", b"Content-Location: /cl/", b"Base: <URL:http://b/\r\n x/>"], PAGE),
    response([b"Content-Type: image/png"], b"\x89PNG<a href=x>"),
    response([], PAGE),
    response([b"content-type: text/html;charset=shift_jis"], b"<a href=\x82\xa0>"),
    response([HTML], PAGE, b"HTTP/2 200"),
    b"HTTP/1.1 100 Continue\r\n\r\n" + response([b"Location: /b/"], b"", b"HTTP/1.1 301 Moved")
    + response([b"Location: http://o/c#f"], b"", b"HTTP/1.1 302 Found") + response([HTML], PAGE),
    # Bases that must never be taken (issue 30, fault 3): script from any
    # header layer or a redirect.
    response([HTML, b"Base: javascript:alert(document.domain)//"], PAGE),
    response([HTML, b"Content-Base: JavaScript://%0aalert(1)/"], PAGE),
    response([HTML, b"Content-Location: data:text/html,x/"], PAGE),
    response([HTML, b"Content-Base: vbscript:msgbox(1)"], PAGE),
    response([b"Location: javascript:alert(1)//"], b"", b"HTTP/1.1 302 Found") + response([HTML], PAGE),
    response([HTML, b"Content-Length: 5", b"Content-Length: %d" % len(PAGE)], PAGE),
    b"HTTP/1.1 100 Continue\r\n\r\n",
    b"HTTP/1.1 2x0 OK\r\n\r\n" + PAGE,
    b"HTTP/1.0 200 OK\nContent-Type: text/html\n\n" + PAGE,
]]
os.makedirs("fuzz/corpus/http", exist_ok=True)
for chunks, (base, doc) in enumerate(seeds):
    data = bytes([BASE_FLAG, chunks % 256, len(base)]) + base + doc
    name = hashlib.sha1(data).hexdigest()
    with open(os.path.join("fuzz/corpus/http", name), "wb") as f:
        f.write(data)
print(len(seeds), "seeds")
