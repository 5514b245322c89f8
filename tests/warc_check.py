"""Reads an archive htmlabs wrote (and the one it read) with the readers
archivists use, and checks what htmlabs promises; exits non-zero naming what
failed. Usage: python warc_check.py HTMLABS IN OUT [FLAG...]

- warcio's ArchiveIterator and FastWARC's read every record of OUT; both
  count the same records: those of IN, each conversion, one warcinfo;
- `warcio check` passes OUT (every block and payload digest);
- FastWARC verifies the block digest of each record htmlabs wrote, and the
  payload digest of each response it wrote;
- cdxj-indexer indexes OUT, and with --records conversion each conversion;
- the records of IN come out byte for byte: OUT without the records htmlabs
  added is IN (gzip: its members as they were; zstd: its frames);
- zstd (`.warc.zst`, split into frames by python-zstandard, read
  decompressed by the others): each new frame holds one record whole, with
  its content size, its checksum and the input's dictionary ID, and every
  record of OUT starts a frame;
- each conversion follows the record it refers to, has its target URI, and
  its block is what `htmlabs --http --strip-headers -r TARGET` (a resource:
  `htmlabs -r TARGET`, with `--type` of its media type) makes of the
  original.

With --replace (replace mode), instead of the byte-for-byte check of the
input: each unit of OUT (a gzip member, or a plain record) that is not one
htmlabs added is the input's unit in the same place, byte for byte, or its
record's replacement: a new WARC-Record-ID, WARC-Concurrent-To the old one,
every other WARC field as it came but WARC-Date, WARC-Warcinfo-ID (the
warcinfo of htmlabs, `htmlabs-mode: replace`), Content-Length and the
digests; its HTTP header as it came but for Transfer-Encoding,
Content-Encoding and Content-Length, renamed X-Archive-Orig-…, each line
of an interim response before it (`100 Continue`) as an
X-Archive-Orig-Interim field, and a true Content-Length; its payload what
`htmlabs --http --strip-headers -r TARGET` makes of the original (a
resource: `htmlabs -r TARGET`).

With --quirks, FastWARC reads in its quirks mode (for an input it reads
only so: header lines in CR CR LF). With --damaged (an input with records
that are not framed as their headers say, or bytes that are no record):
OUT without the records htmlabs added is IN byte for byte (with --replace,
of a gzip input: each member of OUT is IN's, or its replacement, as
above), and each conversion is checked as above, read by warcio where it reads OUT to its
end (a record a gzip member, it reads past a Content-Length too long),
else by FastWARC in its quirks mode (which reads on past lines that are no
record).

Prints one line per conversion: target URI, Content-Type, base64 of the
block; with --replace, one per replaced record too: target URI,
`replaced`, base64 of its payload."""

import base64
import gzip
import io
import subprocess
import sys
import zlib

import zstandard

from fastwarc.warc import ArchiveIterator as FastIterator, WarcRecordType
from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed


def fail(message):
    sys.exit("warc_check: " + message)


def added(header):
    """Whether a record's header is one htmlabs adds."""
    return b"WARC-Type: conversion\r\n" in header or (
        b"WARC-Type: warcinfo\r\n" in header and b"software: htmlabs/" in header
    )


ZSTD_FRAME = b"\x28\xb5\x2f\xfd"
DICTIONARY_FRAME = b"\x5d\x2a\x4d\x18"
# What text() decompresses zstd frames with: set by zst_frames().
ZST = {"dctx": zstandard.ZstdDecompressor(), "dict_id": 0}


def is_zst(data):
    return data[:4] in (ZSTD_FRAME, DICTIONARY_FRAME)


def skippable(data):
    return len(data) >= 4 and 0x184D2A50 <= int.from_bytes(data[:4], "little") <= 0x184D2A5F


def zst_frames(data):
    """A .warc.zst split into its frames with python-zstandard: the
    dictionary frame (a unit of its own), extension frames, zstd frames each
    cut where the decompressor ends it, a cut last one as the rest is."""
    frames, at, dictionary = [], 0, None
    if data[:4] == DICTIONARY_FRAME:
        end = 8 + int.from_bytes(data[4:8], "little")
        user = data[8:end]
        if user[:4] == ZSTD_FRAME:
            user = zstandard.ZstdDecompressor().decompress(user)
        dictionary = zstandard.ZstdCompressionDict(user)
        frames.append(data[:end])
        at = end
    ZST["dctx"] = zstandard.ZstdDecompressor(dict_data=dictionary)
    ZST["dict_id"] = dictionary.dict_id() if dictionary else 0
    while at < len(data):
        if skippable(data[at:]):
            end = at + 8 + int.from_bytes(data[at + 4:at + 8], "little")
        else:
            d = ZST["dctx"].decompressobj()
            try:
                d.decompress(data[at:])
            except zstandard.ZstdError:
                frames.append(data[at:])
                break
            if not d.eof:
                frames.append(data[at:])
                break
            end = len(data) - len(d.unused_data)
        frames.append(data[at:end])
        at = end
    return frames


def check_zst(data_in, data_out):
    """Each frame htmlabs wrote is one record whole, with its content size,
    checksum and the input's dictionary ID; every record starts a frame."""
    old = set(zst_frames(data_in))
    frames = zst_frames(data_out)
    starts, at = set(), 0
    for frame in frames:
        plain = text(frame)
        if frame[:4] == ZSTD_FRAME:
            starts.add(at)
        if frame not in old:
            p = zstandard.get_frame_parameters(frame)
            if p.content_size != len(plain) or not p.has_checksum or p.dict_id != ZST["dict_id"]:
                fail("a new zstd frame: content size %d (of %d), checksum %s, dictionary %d (the input's: %d)"
                     % (p.content_size, len(plain), p.has_checksum, p.dict_id, ZST["dict_id"]))
            records = list(ArchiveIterator(io.BytesIO(plain), no_record_parse=True))
            if len(records) != 1 or not plain.startswith(b"WARC/"):
                fail("a new zstd frame holds %d records" % len(records))
        at += len(plain)
    whole = b"".join(text(f) for f in frames)
    it = ArchiveIterator(io.BytesIO(whole))
    for record in it:
        it.read_to_end(record)
        if it.get_record_offset() not in starts:
            fail("a record starts within a zstd frame, at %d" % it.get_record_offset())
    return whole


def without_added(data):
    """OUT's bytes without the records htmlabs added: gzip members are split
    with zlib, zstd frames with python-zstandard, plain records by warcio's
    offsets."""
    if is_zst(data):
        return b"".join(f for f in zst_frames(data) if not added(text(f)[:4096]))
    if data[:2] == b"\x1f\x8b":
        kept, rest = [], data
        while rest:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            plain = d.decompress(rest)
            if not d.eof:
                kept.append(rest)
                break
            member = rest[: len(rest) - len(d.unused_data)]
            if not added(plain[:4096]):
                kept.append(member)
            rest = d.unused_data
        return b"".join(kept)
    # A record runs to the next one's offset (warcio's lengths leave out
    # the empty line after the block).
    it = ArchiveIterator(io.BytesIO(data))
    offsets = []
    for record in it:
        it.read_to_end(record)
        offsets.append(it.get_record_offset())
    ends = offsets[1:] + [len(data)]
    kept = [data[: offsets[0]]] if offsets else [data]
    for offset, end in zip(offsets, ends):
        if not added(data[offset:end][:8192]):
            kept.append(data[offset:end])
    return b"".join(kept)


def without_added_plain(data):
    """Plain OUT without the records htmlabs added, found by their header
    alone: for an input warcio cannot read to its end."""
    kept, at = [], 0
    while True:
        starts = [data.find(t, at) for t in (b"WARC-Type: conversion\r\n", b"software: htmlabs/")]
        starts = [s for s in starts if s >= 0]
        if not starts:
            break
        start = data.rfind(b"WARC/1.", at, min(starts))
        head_end = data.find(b"\r\n\r\n", start) + 4
        length = int(data[start:head_end].split(b"Content-Length: ")[1].split(b"\r\n")[0])
        kept.append(data[at:start])
        at = head_end + length + 4
    kept.append(data[at:])
    return b"".join(kept)


def units(data):
    """The units of an archive: its gzip members, its zstd frames, or its
    plain records (each to the next one's offset)."""
    if is_zst(data):
        return zst_frames(data)
    if data[:2] == b"\x1f\x8b":
        out, rest = [], data
        while rest:
            d = zlib.decompressobj(16 + zlib.MAX_WBITS)
            d.decompress(rest)
            out.append(rest[: len(rest) - len(d.unused_data)])
            rest = d.unused_data
        return out
    it = ArchiveIterator(io.BytesIO(data))
    offsets = []
    for record in it:
        it.read_to_end(record)
        offsets.append(it.get_record_offset())
    return [data[a:b] for a, b in zip(offsets, offsets[1:] + [len(data)])]


def records_of(unit):
    """(type, headers, block) of each record of a unit."""
    return [(r.rec_type, r.rec_headers, r.raw_stream.read())
            for r in ArchiveIterator(io.BytesIO(text(unit)), no_record_parse=True)]


def text(unit):
    if unit[:2] == b"\x1f\x8b":
        return gzip.decompress(unit)
    if unit[:4] == ZSTD_FRAME:
        return ZST["dctx"].decompressobj().decompress(unit)
    if skippable(unit):
        return b""
    return unit


CHANGED = {"warc-record-id", "warc-date", "warc-warcinfo-id", "content-length",
           "warc-block-digest", "warc-payload-digest"}
RENAMED = {b"transfer-encoding", b"content-encoding", b"content-length"}


def fields(headers, leave):
    return [(n, v) for n, v in headers.headers if n.lower() not in leave]


XML_TYPES = {"application/rss+xml", "application/atom+xml", "application/rdf+xml",
             "image/svg+xml", "application/xml", "text/xml"}


def run_htmlabs(htmlabs, kind, headers, block, flags):
    bare = headers.get_header("WARC-Target-URI").strip("<>")
    if kind == "response":
        command = [htmlabs, "--http", "--strip-headers", "-r", bare, *flags]
    else:
        command = [htmlabs, "-r", bare, *(f for f in flags if f != "--content-location")]
        content_type = headers.get_header("Content-Type")
        charset = content_type.partition("charset=")[2]
        if charset:
            command += ["--encoding", charset]
        # A resource's type is its media type's, which one document's
        # first bytes cannot always tell (a stylesheet).
        essence = content_type.partition(";")[0].strip().lower()
        if essence == "text/css":
            command += ["--type", "css"]
        elif essence in XML_TYPES:
            command += ["--type", "xml"]
    return subprocess.run(command, input=block, capture_output=True).stdout, command


def http_blocks(block):
    """The HTTP header blocks that start a response's block (interim
    responses, then the final one), each without its empty line."""
    blocks, rest = [], block
    while True:
        head, _, rest = rest.partition(b"\r\n\r\n")
        blocks.append(head)
        if not rest.startswith(b"HTTP/"):
            return blocks


def check_replaced(htmlabs, units_in, units_out, flags):
    """Pairs OUT's units with IN's; checks each replacement; prints it."""
    kept = [u for u in units_out if not added(text(u)[:8192])]
    if len(kept) != len(units_in):
        fail("%d units in, %d out besides the added ones" % (len(units_in), len(kept)))
    infos = [r for u in units_out if added(text(u)[:8192]) for r in records_of(u)
             if r[0] == "warcinfo" and b"software: htmlabs/" in r[2]]
    for unit_in, unit_out in zip(units_in, kept):
        if unit_in == unit_out:
            continue
        [(kind, old, block_in)] = records_of(unit_in)
        [(kind_out, new, block_out)] = records_of(unit_out)
        old_id = old.get_header("WARC-Record-ID")
        if kind_out != kind or new.get_header("WARC-Record-ID") == old_id:
            fail("%s is changed, and not replaced by a new record" % old_id)
        if old_id not in [v for n, v in new.headers if n.lower() == "warc-concurrent-to"]:
            fail("the replacement of %s is not WARC-Concurrent-To it" % old_id)
        if fields(old, CHANGED | {"warc-concurrent-to"}) != fields(new, CHANGED | {"warc-concurrent-to"}) or \
                sorted([v for n, v in old.headers if n.lower() == "warc-concurrent-to"] + [old_id]) != \
                sorted(v for n, v in new.headers if n.lower() == "warc-concurrent-to"):
            fail("the replacement of %s changes other WARC fields" % old_id)
        if len(infos) != 1 or b"htmlabs-mode: replace\r\n" not in infos[0][2] or \
                new.get_header("WARC-Warcinfo-ID") != infos[0][1].get_header("WARC-Record-ID"):
            fail("the replacement of %s does not name the warcinfo of htmlabs in replace mode" % old_id)
        if int(new.get_header("Content-Length")) != len(block_out):
            fail("the replacement of %s: its Content-Length is not its block's" % old_id)
        if kind == "response":
            *interim, final = http_blocks(block_in)
            head_out, _, payload = block_out.partition(b"\r\n\r\n")
            lines_out = head_out.split(b"\r\n")
            # The final response's lines; each line of an interim one
            # (`100 Continue`) kept as a field, so that the payload starts
            # after the first block, as every reader takes it.
            expected = [b"X-Archive-Orig-" + l if l.split(b":")[0].strip().lower() in RENAMED else l
                        for l in final.split(b"\r\n")] + \
                [b"X-Archive-Orig-Interim: " + l for block in interim for l in block.split(b"\r\n")] + \
                [b"Content-Length: %d" % len(payload)]
            if lines_out != expected:
                fail("the HTTP header of the replacement of %s: %r, not %r" % (old_id, lines_out, expected))
        else:
            payload = block_out
        made, command = run_htmlabs(htmlabs, kind, old, block_in, flags)
        if made != payload:
            fail("the replacement of %s is not what %s makes of it" % (old_id, " ".join(command[1:])))
        print(old.get_header("WARC-Target-URI").strip("<>"), "replaced",
              base64.b64encode(payload).decode(), sep="\t")


class Headers:
    """FastWARC's headers, read as warcio's are."""

    def __init__(self, headers):
        self.headers = list(headers)

    def get_header(self, name):
        return next((v for n, v in self.headers if n.lower() == name.lower()), None)


def check_conversion(htmlabs, records, i, warcinfo_id, flags):
    """records[i], a conversion (type, headers, block): it follows the
    record it refers to, has its target URI, names htmlabs's warcinfo, has
    a true Content-Length, and its block is what htmlabs makes of the
    original; printed."""
    kind, headers, block = records[i]
    refers = headers.get_header("WARC-Refers-To")
    before = {r[1].get_header("WARC-Record-ID"): r for r in records[:i]}
    original = before.get(refers)
    if original is None:
        fail("conversion %s refers to %s, which does not come before it" % (headers.get_header("WARC-Record-ID"), refers))
    target = headers.get_header("WARC-Target-URI")
    if target != original[1].get_header("WARC-Target-URI"):
        fail("conversion of %s has another target URI" % refers)
    if headers.get_header("WARC-Warcinfo-ID") != warcinfo_id:
        fail("conversion of %s names another warcinfo" % refers)
    if int(headers.get_header("Content-Length")) != len(block):
        fail("conversion of %s: its Content-Length is not its block's" % refers)
    made, command = run_htmlabs(htmlabs, original[0], original[1], original[2], flags)
    if made != block:
        fail("conversion of %s is not what %s makes of it" % (refers, " ".join(command[1:])))
    print(target.strip("<>"), headers.get_header("Content-Type"), base64.b64encode(block).decode(), sep="\t")


def check_damaged(htmlabs, data_in, data_out, flags):
    if "--replace" in flags:
        # A gzip input: each member is the input's, or its record's
        # replacement.
        check_replaced(htmlabs, units(data_in), units(data_out), [f for f in flags if f != "--replace"])
        return
    if data_in[:2] == b"\x1f\x8b" or is_zst(data_in):
        kept = without_added(data_out)
    else:
        kept = without_added_plain(data_out)
    if kept != data_in:
        fail("the input does not come out byte for byte")
    try:
        records = [(r.rec_type, r.rec_headers, r.raw_stream.read())
                   for r in ArchiveIterator(io.BytesIO(data_out), no_record_parse=True)]
    except ArchiveLoadFailed:
        records = []
        for record in FastIterator(io.BytesIO(data_out), parse_http=False, record_types=WarcRecordType.any_type,
                                   quirks_mode=True):
            kind = str(record.record_type).rsplit(".", 1)[-1]
            records.append((kind, Headers(record.headers), record.reader.read()))
    infos = [r for r in records if r[0] == "warcinfo" and b"software: htmlabs/" in r[2]]
    conversions = [i for i, r in enumerate(records) if r[0] == "conversion"]
    if len(infos) != (1 if conversions else 0):
        fail("%d warcinfo records of htmlabs for %d conversions" % (len(infos), len(conversions)))
    for i in conversions:
        check_conversion(htmlabs, records, i, infos[0][1].get_header("WARC-Record-ID"), flags)


def main():
    htmlabs, path_in, path_out, *flags = sys.argv[1:]
    data_in = open(path_in, "rb").read()
    data_out = open(path_out, "rb").read()
    replace = "--replace" in flags
    quirks = "--quirks" in flags
    if "--damaged" in flags:
        check_damaged(htmlabs, data_in, data_out, [f for f in flags if f != "--damaged"])
        return
    flags = [f for f in flags if f not in ("--replace", "--quirks")]
    if flags == ["--broken"]:
        # An input cut or malformed: the records before the break come
        # out as they came, with their conversions; the rest as it is.
        if data_in[:2] == b"\x1f\x8b" or is_zst(data_in):
            kept = without_added(data_out)
        else:
            kept = without_added_plain(data_out)
        if kept != data_in:
            fail("the input does not come out byte for byte")
        return
    if replace:
        check_replaced(htmlabs, units(data_in), units(data_out), flags)
    elif without_added(data_out) != data_in:
        fail("the input's records do not come out byte for byte")

    if is_zst(data_out):
        # warcio, FastWARC and cdxj-indexer read no zstd: they read OUT
        # (and IN) decompressed.
        whole = check_zst(data_in, data_out)
        path_out = path_out + ".decompressed"
        with open(path_out, "wb") as f:
            f.write(whole)
        # (Beside OUT: IN may lie in the checkout.)
        path_in = path_out + ".input"
        with open(path_in, "wb") as f:
            f.write(b"".join(text(u) for u in zst_frames(data_in)))

    # Blocks whole: HTTP heads not parsed off.
    def read(f):
        return [(r.rec_type, r.rec_headers, r.raw_stream.read()) for r in ArchiveIterator(f, no_record_parse=True)]

    try:
        with open(path_out, "rb") as f:
            records = read(f)
    except ArchiveLoadFailed:
        # warcio refuses a gzip member of several records (it could not
        # seek to them): it reads them, checks and indexes them
        # decompressed.
        path_out = path_out + ".decompressed"
        with open(path_out, "wb") as f:
            f.write(gzip.decompress(data_out))
        with open(path_out, "rb") as f:
            records = read(f)
    # The records htmlabs wrote: its warcinfo, and those that name it.
    ours = {r[1].get_header("WARC-Record-ID") for r in records
            if r[0] == "warcinfo" and b"software: htmlabs/" in r[2]}
    ours |= {r[1].get_header("WARC-Record-ID") for r in records if r[1].get_header("WARC-Warcinfo-ID") in ours}
    fast = []
    with open(path_out, "rb") as f:
        for record in FastIterator(f, parse_http=False, record_types=WarcRecordType.any_type,
                                   quirks_mode=quirks):
            if record.record_id in ours and not record.verify_block_digest():
                fail("FastWARC: the block digest of %s fails" % record.record_id)
            fast.append(record.record_id)
    # (FastWARC verifies payload digests of HTTP records only, their HTTP
    # header read; warcio check verifies the conversions' below.)
    with open(path_out, "rb") as f:
        for record in FastIterator(f, parse_http=True, record_types=WarcRecordType.response,
                                   quirks_mode=quirks):
            if record.record_id in ours and not record.verify_payload_digest():
                fail("FastWARC: the payload digest of %s fails" % record.record_id)
    if [r[1].get_header("WARC-Record-ID") for r in records] != fast:
        fail("warcio and FastWARC read different records")
    with open(path_in, "rb") as f:
        count_in = sum(1 for _ in FastIterator(f, parse_http=False, record_types=WarcRecordType.any_type,
                                               quirks_mode=quirks))

    check = subprocess.run([sys.executable, "-m", "warcio.cli", "check", "-v", path_out],
                           capture_output=True, text=True)
    if check.returncode != 0 or "failed" in check.stdout:
        fail("warcio check: " + check.stdout[-2000:] + check.stderr[-2000:])

    conversions = [r for r in records if r[0] == "conversion"]
    infos = [r for r in records if r[0] == "warcinfo" and b"software: htmlabs/" in r[2]]
    replaced = replace and without_added(data_out) != data_in
    if len(infos) != (1 if conversions or replaced else 0):
        fail("%d warcinfo records of htmlabs for %d conversions" % (len(infos), len(conversions)))
    if len(records) != count_in + len(conversions) + len(infos):
        fail("%d records out, %d in, %d added" % (len(records), count_in, len(conversions) + len(infos)))
    index = subprocess.run([sys.executable, "-m", "cdxj_indexer.main", "--records", "conversion", path_out],
                           capture_output=True, text=True)
    if index.returncode != 0 or len(index.stdout.splitlines()) != len(conversions):
        fail("cdxj-indexer --records conversion: " + index.stdout[-1000:] + index.stderr[-2000:])
    index = subprocess.run([sys.executable, "-m", "cdxj_indexer.main", path_out], capture_output=True, text=True)
    if index.returncode != 0:
        fail("cdxj-indexer: " + index.stderr[-2000:])

    warcinfo_id = infos[0][1].get_header("WARC-Record-ID") if infos else None
    for i, (kind, headers, block) in enumerate(records):
        if kind == "conversion":
            check_conversion(htmlabs, records, i, warcinfo_id, flags)

if __name__ == "__main__":
    main()
