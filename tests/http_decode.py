"""Reads a saved HTTP response (one header block and its body) from standard
input as Python's http.client reads one off the wire: its Content-Length or
its chunks (http.client refuses a length that does not match, and chunks that
do not parse), then undoes its Content-Encoding (gzip and deflate by the
standard library, br by Google's `brotli` package). Writes the body to
standard output; a response that does not read fails with a message.

An independent reader of what htmlabs writes: tests/sources/http.rs checks the
bodies htmlabs encodes again with it.
"""

import gzip
import http.client
import io
import sys
import zlib


class Kept(io.BytesIO):
    """Not closed by http.client once the body is read: what is left after
    it is looked at."""

    def close(self):
        pass


class Saved:
    def __init__(self, data):
        self.file = Kept(data)

    def makefile(self, mode):
        return self.file


def main():
    data = sys.stdin.buffer.read()
    saved = Saved(data)
    response = http.client.HTTPResponse(saved)
    response.begin()
    body = response.read()
    if response.length not in (None, 0):
        sys.exit("the body is shorter than its Content-Length")
    rest = saved.file.read()
    if rest:
        sys.exit("%d bytes follow the body" % len(rest))
    for coding in reversed([c.strip() for c in (response.getheader("Content-Encoding") or "").split(",") if c.strip()]):
        if coding == "gzip":
            body = gzip.decompress(body)
        elif coding == "deflate":
            body = zlib.decompress(body)
        elif coding == "br":
            import brotli
            body = brotli.decompress(body)
        else:
            sys.exit("unknown coding " + coding)
    sys.stdout.buffer.write(body)


if __name__ == "__main__":
    main()
