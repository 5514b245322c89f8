"""Every record that warcio and FastWARC read from an archive IN, each
reads from OUT, the archive htmlabs made of it: in the same order, with the
same type, WARC-Record-ID and payload (what follows the HTTP header of a
response or request; a block otherwise), or, in replace mode, a record of
the same type that is WARC-Concurrent-To it. A reader that stops at an
error keeps the records it read before. warcio reads a compressed archive
as it is (no zstd; in gzip, a member's first record only), and decompressed
a member or frame at a time (python-zstandard's stream reader may end at a
frame's end before the input does); FastWARC reads it as it is.

Usage: python warc_records.py [--quirks] IN OUT [IN OUT...]; with --quirks,
FastWARC in its quirks mode too (which reads on past lines that are no
record to the next `WARC/1.x` line). Prints one line a pair
(the records each reader read from IN); exits non-zero naming every pair
and reader that loses a record."""

import hashlib
import io
import sys
import zlib

import zstandard
from fastwarc.warc import ArchiveIterator as FastIterator, WarcRecordType
from warcio.archiveiterator import ArchiveIterator

ZSTD = (b"\x28\xb5\x2f\xfd", b"\x5d\x2a\x4d\x18")


def digest(payload):
    return hashlib.sha1(payload).hexdigest()


def decoded(data):
    """A `.warc.gz` or `.warc.zst` (without a dictionary) decompressed, a
    member or frame at a time, as a stream reader gives it: up to one that
    breaks, which is lost whole (zlib and libzstd raise before they give
    its end), or one cut short, which gives what it holds; zstd's
    skippable frames skipped."""
    parts, at = [], 0
    gzip = data[:2] == b"\x1f\x8b"
    while at < len(data):
        if not gzip and 0x184D2A50 <= int.from_bytes(data[at:at + 4], "little") <= 0x184D2A5F:
            at += 8 + int.from_bytes(data[at + 4:at + 8], "little")
            continue
        if gzip:
            unit = zlib.decompressobj(16 + zlib.MAX_WBITS)
        else:
            unit = zstandard.ZstdDecompressor().decompressobj()
        try:
            parts.append(unit.decompress(data[at:]))
        except (zlib.error, zstandard.ZstdError):
            break
        if not unit.eof:
            break
        at = len(data) - len(unit.unused_data)
    return b"".join(parts)


def by_warcio(data):
    """(type, ID, payload digest, WARC-Concurrent-To values) of each record
    warcio reads, until it stops."""
    stream = io.BytesIO(data)
    records = []
    try:
        for record in ArchiveIterator(stream):
            headers = record.rec_headers
            records.append((record.rec_type, headers.get_header("WARC-Record-ID"),
                            digest(record.raw_stream.read()),
                            [v for n, v in headers.headers if n.lower() == "warc-concurrent-to"]))
    except Exception:  # warcio's errors on a cut record are of any kind
        pass
    return records


def by_fastwarc(data, quirks=False):
    records = []
    try:
        for record in FastIterator(io.BytesIO(data), record_types=WarcRecordType.any_type,
                                   quirks_mode=quirks):
            headers = record.headers
            kind = str(record.record_type).rsplit(".", 1)[-1]
            records.append((kind, record.record_id, digest(record.reader.read()),
                            [v for n, v in headers if n.lower() == "warc-concurrent-to"]))
    except Exception:
        pass
    return records


def lost(records_in, records_out):
    """The records of IN not read, in order, from OUT."""
    missing, at = [], 0
    for kind, record_id, payload, _ in records_in:
        for i in range(at, len(records_out)):
            k, i_d, p, concurrent = records_out[i]
            if k == kind and ((i_d, p) == (record_id, payload) or record_id in concurrent):
                at = i + 1
                break
        else:
            missing.append("%s %s" % (kind, record_id))
    return missing


def main():
    paths = sys.argv[1:]
    quirks = paths[:1] == ["--quirks"]
    paths = paths[quirks:]
    failures = []
    for path_in, path_out in zip(paths[::2], paths[1::2]):
        data_in = open(path_in, "rb").read()
        data_out = open(path_out, "rb").read()
        counts = []
        readers = []
        if data_in[:4] not in ZSTD:
            readers.append(("warcio", by_warcio))
        if data_in[:2] == b"\x1f\x8b" or data_in[:4] in ZSTD:
            readers.append(("warcio decompressed", lambda data: by_warcio(decoded(data))))
        readers.append(("FastWARC", by_fastwarc))
        if quirks:
            readers.append(("FastWARC quirks", lambda data: by_fastwarc(data, quirks=True)))
        for name, read in readers:
            records_in = read(data_in)
            records_out = read(data_out)
            counts.append("%s %d" % (name, len(records_in)))
            missing = lost(records_in, records_out)
            if missing:
                failures.append("%s: %s reads %d records from IN, %d from OUT; not read from OUT: %s"
                                % (path_out, name, len(records_in), len(records_out), ", ".join(missing)))
        print(path_in, *counts, sep="\t")
    if failures:
        sys.exit("warc_records: " + "\n".join(failures))


if __name__ == "__main__":
    main()
