"""rewrite_warc: the command line's WARC run, over paths and file objects,
checked by warcio (and, where the venv has them, the checks tests/sources/warc.rs
runs: FastWARC, cdxj-indexer, each conversion against `htmlabs --http`)."""

import gzip
import io
import os
import re
import subprocess
import sys

import pytest

import htmlabs

from conftest import REPO, missing, module, run_cli, warcio_check


def summary_line(err):
    """The figures of the command line's summary line."""
    line = next(line for line in err if " records, " in line)
    return tuple(int(n) for n in re.findall(r"(\d+) (?:records?|HTML|conversions?|URLs?|warnings?)\b", line))


def figures(summary):
    return (summary.records, summary.rewritten, summary.conversions, summary.urls, len(summary.warnings))


def test_the_corpus_warc_as_the_cli_rewrites_it(cli, corpus, tmp_path):
    src = corpus / "warc/corpus-wget.warc.gz"
    out = tmp_path / "out.warc.gz"
    summary = htmlabs.rewrite_warc(str(src), out)
    status, _, err = run_cli(cli, ["--warc", str(src), "-o", str(tmp_path / "cli.warc.gz")])
    assert status == 0
    assert figures(summary) == summary_line(err)
    # The same words as the command line's line, but its speed.
    line = next(line for line in err if " records, " in line).removeprefix("htmlabs: ")
    assert summary.line == line.rsplit(", ", 1)[0] and repr(summary) == f"<htmlabs.Summary: {summary.line}>"
    assert summary.rewritten > 170 and summary.urls > 10000 and not summary.incomplete
    assert summary.bytes == src.stat().st_size
    records = warcio_check(out)
    # The input's, a conversion for each page, and the warcinfo before them.
    assert len(records) == summary.records + summary.conversions + 1
    assert sum(1 for t, _ in records if t == "conversion") == summary.rewritten
    # The checks tests/sources/warc.rs runs on the command line's output.
    check = subprocess.run([sys.executable, str(REPO / "tests/warc_check.py"), cli, str(src), str(out)],
                           capture_output=True, text=True)
    if "No module named" in check.stderr:
        missing("warc_check.py's readers (" + check.stderr.splitlines()[-1] + ")")
    assert check.returncode == 0, check.stderr[-3000:]


def test_file_objects_in_and_out(corpus, tmp_path):
    src = corpus / "warc/corpus-wget.warc.gz"
    by_path = tmp_path / "by-path.warc.gz"
    expected = htmlabs.rewrite_warc(src, by_path)
    out = io.BytesIO()
    with open(src, "rb") as f:
        summary = htmlabs.rewrite_warc(f, out)
    assert figures(summary) == figures(expected)
    written = tmp_path / "by-object.warc.gz"
    written.write_bytes(out.getvalue())
    assert len(warcio_check(written)) == len(warcio_check(by_path))
    # A path in, a file object out, and the other way round.
    with open(tmp_path / "mixed.warc.gz", "wb") as f:
        assert figures(htmlabs.rewrite_warc(src, f)) == figures(expected)
    with open(tmp_path / "mixed.warc.gz", "rb") as f:
        again = htmlabs.rewrite_warc(f, tmp_path / "again.warc.gz")
    assert again.records == len(warcio_check(tmp_path / "mixed.warc.gz"))


def test_plain_in_plain_out_and_a_cut_archive(cli, corpus, tmp_path):
    plain = tmp_path / "plain.warc"
    plain.write_bytes(gzip.decompress((corpus / "warc/corpus-wget.warc.gz").read_bytes()))
    out = tmp_path / "plain-out.warc"
    summary = htmlabs.rewrite_warc(plain, out)
    assert not out.read_bytes().startswith(b"\x1f\x8b")
    status, _, err = run_cli(cli, ["--warc", str(plain), "-o", str(tmp_path / "cli-plain.warc")])
    assert status == 0 and figures(summary) == summary_line(err)
    warcio_check(out)

    cut = tmp_path / "cut.warc"
    cut.write_bytes(plain.read_bytes()[: plain.stat().st_size // 2])
    out = tmp_path / "cut-out.warc"
    summary = htmlabs.rewrite_warc(cut, out)
    status, _, err = run_cli(cli, ["--warc", str(cut), "-o", str(tmp_path / "cli.warc")])
    assert status == 2 and summary.incomplete
    assert ["htmlabs: warning: " + w for w in summary.warnings] == err[:-1]
    assert "the rest of the input is copied as it is" in summary.warnings[-1]
    # Complete all the same: the input's bytes are all there.
    assert out.stat().st_size > cut.stat().st_size


def test_flags_reach_the_records(corpus, tmp_path):
    src = corpus / "warc/corpus-wget.warc.gz"
    plain = htmlabs.rewrite_warc(src, tmp_path / "a.warc.gz")
    more = htmlabs.rewrite_warc(src, tmp_path / "b.warc.gz", lazy=True, social=True)
    assert more.urls > plain.urls
    # The warcinfo record names the flags, as the command line's does.
    with gzip.open(tmp_path / "b.warc.gz") as f:
        assert b"--lazy --social" in f.read()


def test_replace_mode_jobs_and_gzip_level_as_the_cli_has_them(cli, corpus, tmp_path):
    src = corpus / "warc/corpus-wget.warc.gz"
    out = tmp_path / "replaced.warc.gz"
    summary = htmlabs.rewrite_warc(src, out, mode="replace", jobs=2)
    status, _, err = run_cli(cli, ["--warc", str(src), "--warc-mode", "replace", "-o", str(tmp_path / "cli.warc.gz")])
    assert status == 0
    assert figures(summary) == summary_line(err)
    assert summary.replaced == summary.rewritten > 170 and summary.conversions == 0
    records = warcio_check(out)
    # Each page in place of its response, and one warcinfo before them.
    assert len(records) == summary.records + 1
    assert not any(t == "conversion" for t, _ in records)
    check = subprocess.run([sys.executable, str(REPO / "tests/warc_check.py"), cli, str(src), str(out), "--replace"],
                           capture_output=True, text=True)
    if "No module named" in check.stderr:
        missing("warc_check.py's readers (" + check.stderr.splitlines()[-1] + ")")
    assert check.returncode == 0, check.stderr[-3000:]
    # Only the new records' compression differs with the level.
    fast = htmlabs.rewrite_warc(src, tmp_path / "fast.warc.gz", gzip_level=1, jobs=1)
    small = htmlabs.rewrite_warc(src, tmp_path / "small.warc.gz", gzip_level=9, jobs=1)
    assert figures(fast) == figures(small)
    assert (tmp_path / "fast.warc.gz").stat().st_size > (tmp_path / "small.warc.gz").stat().st_size
    # A level other than the default is named among the warcinfo's flags.
    with gzip.open(tmp_path / "fast.warc.gz") as f:
        assert b"--gzip-level" not in f.read()
    with gzip.open(tmp_path / "small.warc.gz") as f:
        assert b"htmlabs-flags: --gzip-level 9" in f.read()


def test_a_warc_zst_with_its_dictionary_and_zstd_level_as_the_cli_has_them(cli, tmp_path):
    zstandard = module("zstandard")
    src = REPO / "fixtures/warc/shapes-dict.warc.zst"
    summary = htmlabs.rewrite_warc(src, tmp_path / "out.warc.zst", jobs=1)
    status, _, err = run_cli(cli, ["--warc", str(src), "-o", str(tmp_path / "cli.warc.zst")])
    assert status == 0
    assert figures(summary) == summary_line(err) == (20, 12, 12, 47, 0)
    small = htmlabs.rewrite_warc(src, tmp_path / "small.warc.zst", zstd_level=19)
    assert figures(small) == figures(summary)
    with pytest.raises(ValueError, match="the zstd level must be 1 to 19: `20`"):
        htmlabs.rewrite_warc(src, io.BytesIO(), zstd_level=20)
    # A level for the other compression would do nothing: refused, as
    # --gzip-level is on the command line, and nothing is written.
    with pytest.raises(htmlabs.ConfigError, match="--gzip-level needs a gzip archive, and .* is zstd"):
        htmlabs.rewrite_warc(src, tmp_path / "gz-level.warc.zst", gzip_level=6)
    assert not (tmp_path / "gz-level.warc.zst").exists()
    # python-zstandard reads it back with the dictionary of its first
    # frame: the input's frames, then each new record a frame of its own.
    data = (tmp_path / "small.warc.zst").read_bytes()
    size = int.from_bytes(data[4:8], "little")
    dictionary = zstandard.ZstdCompressionDict(zstandard.ZstdDecompressor().decompress(data[8:8 + size]))
    reader = zstandard.ZstdDecompressor(dict_data=dictionary).stream_reader(io.BytesIO(data[8 + size:]),
                                                                          read_across_frames=True)
    text = reader.read()
    assert text.count(b"WARC-Type: conversion\r\n") == 12
    assert b"htmlabs-flags: --zstd-level 19\r\n" in text
