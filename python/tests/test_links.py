"""The link graph of an archive: `htmlabs.warc_links` and
`htmlabs.spark.extract_links` give, page by page, the lines of
`htmlabs --warc --links` (itself the lines of `--report` beside an archive
written: tests/sources/warc.rs); Parquet read back with pyarrow; the docs'
host-graph example run."""

import json
import os
import re
import subprocess
import sys

import pytest

import htmlabs
from htmlabs import spark as job
from htmlabs.spark import tasks
from htmlabs.spark.schema import arrow_schema

from conftest import IN_CI, REPO, missing, run_cli

FIXTURES = sorted(p for p in (REPO / "fixtures/warc").iterdir() if p.suffix != ".py")


def cli_links(cli, path):
    """`htmlabs --warc PATH --links`: its status and its lines, parsed."""
    status, out, err = run_cli(cli, ["--warc", str(path), "--links", "-q"])
    return status, [json.loads(line) for line in out.decode().splitlines()]


def inputs(corpus):
    return FIXTURES + [corpus / "warc/corpus-wget.warc.gz"]


def test_warc_links_are_the_lines_of_the_command_line(cli, corpus):
    for path in inputs(corpus):
        status, expected = cli_links(cli, path)
        links = htmlabs.warc_links(str(path))
        assert links.summary is None
        got = list(links)
        assert got == expected, path
        # The run's summary, once all is given: incomplete as the command
        # line's exit 2 (a cut archive, a record whose length lies).
        assert links.summary.incomplete == (status == 2), path
        assert status in (0, 2)
        # A file object gives the same, and so does one page at a time.
        with open(path, "rb") as f:
            assert list(htmlabs.warc_links(f, jobs=1)) == expected, path
    assert len(expected) > 20000
    assert {link["layer"] for link in expected} >= {"retrieval", "embedded"}


def test_warc_links_errors_are_the_command_lines(cli, tmp_path):
    def cli_error(args):
        status, _, err = run_cli(cli, args)
        assert status == 2, err
        return err[-1][len("htmlabs: error: "):]

    missing_file = tmp_path / "nothing.warc.gz"
    with pytest.raises(htmlabs.ReadError) as raised:
        htmlabs.warc_links(str(missing_file))
    assert str(raised.value) == cli_error(["--warc", str(missing_file), "--links"])
    page = tmp_path / "page.html"
    page.write_bytes(b"<!doctype html><a href=x>")
    with pytest.raises(htmlabs.ConfigError) as raised:
        list(htmlabs.warc_links(str(page)))
    assert str(raised.value) == cli_error(["--warc", str(page), "--links"])
    with pytest.raises(htmlabs.ConfigError) as raised:
        htmlabs.warc_links(str(page), encoding="klingon")
    assert str(raised.value) == cli_error(["--warc", str(page), "--links", "--encoding", "klingon"])
    with pytest.raises(TypeError):
        htmlabs.warc_links(str(page), mode="replace")


def test_warc_links_stopped_early_can_be_left(corpus):
    path = corpus / "warc/corpus-wget.warc.gz"
    links = htmlabs.warc_links(str(path))
    first = [next(links) for _ in range(3)]
    del links  # its run stops at its next read
    again = htmlabs.warc_links(str(path))
    assert [next(again) for _ in range(3)] == first


def values_warc(path):
    """An archive whose links have every kind of value a column holds: text
    beyond ASCII, bytes that are not (`raw`), no base (`base` and
    `absolute` null), and a page of 300 links."""

    def record(kind, block, content_type, n, target=None):
        head = [b"WARC/1.1", b"WARC-Type: " + kind, b"WARC-Record-ID: <urn:uuid:00000000-0000-0000-0000-%012d>" % n,
                b"WARC-Date: 2024-05-01T10:00:0%dZ" % n]
        if target:
            head.append(b"WARC-Target-URI: " + target)
        head += [b"Content-Type: " + content_type, b"Content-Length: %d" % len(block)]
        return b"\r\n".join(head) + b"\r\n\r\n" + block + b"\r\n\r\n"

    def response(body):
        return b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body

    http = b"application/http; msgtype=response"
    page = "<base href=http://b\u00e9.example/d/><a href='caf\u00e9'><img srcset='a.png 1x, b.png 2x'>".encode()
    many = b"".join(b"<a href='p%d.html'>" % i for i in range(300))
    path.write_bytes(record(b"response", response(page + b"<a href='x\xff\xfey'>"), http, 1, b"http://example.com/a/")
                     + record(b"resource", b"<a href=nothing.html>", b"text/html", 2)
                     + record(b"response", response(many), http, 3, b"http://example.com/many/"))
    return path


def test_extract_links_arrow_batches_are_the_links_in_any_batch_size(cli, corpus, tmp_path):
    """The Arrow record batches extract_links hands the JVM (their columns
    built by the Rust side) hold, row by row, the values warc_links gives
    and the command line's lines, in batches of any number of rows or
    bytes; a file cut short ends with its error's row, one that cannot be
    opened is that row alone."""
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        missing("pyarrow")
    names = [n for n, _ in job.LINK_COLUMNS]
    values = values_warc(tmp_path / "values.warc")
    paths = [values, REPO / "fixtures/warc/cut.warc.gz", corpus / "warc/corpus-wget.warc.gz"]
    for path in paths + [tmp_path / "missing.warc.gz"]:
        try:
            links = htmlabs.warc_links(str(path))
            expected = [tuple([str(path)] + [d.get(n) for n in names[1:-1]] + [None]) for d in links]
            if links.summary.incomplete:
                expected.append(tasks.error_row(str(path), tasks.stopped(links.summary.warnings)))
        except htmlabs.Error as e:
            expected = [tasks.error_row(str(path), str(e))]
        if path in paths:
            status, lines = cli_links(cli, path)
            assert [dict(zip(names, row[:-1])) for row in expected if row[-1] is None] == [
                {"path": str(path), "raw": None, **line} for line in lines], path
            assert (expected[-1][-1] is not None) == (status == 2)
        for rows, limits in [(8192, {}), (1, {}), (7, {}), (1000, {"bytes": 100})]:
            got = []
            for batch in tasks.file_batches(str(path), {}, rows, **limits):
                assert batch.schema == arrow_schema()
                assert 0 < batch.num_rows <= rows
                batch.validate(full=True)
                got += zip(*(column.to_pylist() for column in batch.columns))
            assert got == expected, (path, rows, limits)
    got = [row for row in tasks.file_batches(str(values), {}) for row in zip(*(c.to_pylist() for c in row.columns))]
    assert {row[names.index("raw")] for row in got} == {None, "x%FF%FEy"}
    assert {row[names.index("original")] for row in got} >= {"caf\u00e9", "nothing.html"}
    assert [row[names.index("base")] for row in got].count(None) == 1
    assert len(got) == 306


def test_a_task_imports_no_pandas(tmp_path):
    """A task's batches, of links or captures and of a file's error, are
    made without pandas: pyarrow's `pa.scalar`, `pa.array` and
    `from_pylist` import it on their first call, 56 MB more in each of
    Spark's Python workers."""
    paths = [str(p) for p in FIXTURES] + [str(tmp_path / "missing.warc.gz")]
    script = f"""
import importlib.util, sys
assert importlib.util.find_spec("pandas"), "pandas is installed (the spark extra's)"
from htmlabs.spark import tasks
for made in (tasks.file_batches, tasks.capture_batches):
    batches = [b for path in {paths!r} for b in made(path, {{}})]
    assert sum(b.num_rows for b in batches) > 10
    assert batches[-1].column(batches[-1].num_columns - 1).null_count == 0, "the missing file's error"
print("pandas" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False"]


def by_file(rows):
    """Rows of extract_links, by file: each link as the command line's
    line (the keys it has), and the errors."""
    links, errors = {}, {}
    for row in rows:
        d = row.asDict()
        path = d.pop("path")
        if d["error"] is not None:
            errors[path] = d["error"]
            continue
        del d["error"]
        if d["raw"] is None:
            del d["raw"]
        links.setdefault(path, []).append(d)
    return links, errors


@pytest.mark.parametrize("parquet", [False, True], ids=["through-spark", "parquet-per-task"])
def test_extract_links_are_the_command_lines_page_by_page(spark, cli, corpus, tmp_path, parquet):
    paths = [str(p) for p in inputs(corpus)] + [str(tmp_path / "missing.warc.gz")]
    out = tmp_path / "links"
    df = job.extract_links(spark, paths, jobs=None, **({"parquet": str(out)} if parquet else {}))
    if parquet:
        # One file a task, named by its input, nothing else left behind;
        # into a directory that holds something: refused.
        names = sorted(p.name for p in out.iterdir())
        assert names == [f"part-{i:05d}-{os.path.basename(p)}.parquet" for i, p in enumerate(paths)]
        with pytest.raises(htmlabs.ConfigError, match="is not empty"):
            job.extract_links(spark, paths[:1], parquet=str(out))
    assert [c for c, _ in job.LINK_COLUMNS] == df.columns
    assert dict(df.dtypes)["offset"] == "bigint" and dict(df.dtypes)["date"] == "string"
    links, errors = by_file(df.collect())
    for path in inputs(corpus):
        status, expected = cli_links(cli, path)
        # The same links, page by page: a page's links in its order.
        got = links.get(str(path), [])
        key = lambda d: (d["record"], d["offset"], d["kind"], d["original"])  # noqa: E731
        assert sorted(got, key=key) == sorted(expected, key=key), path
        pages = {}
        for d in got:
            pages.setdefault(d["record"], []).append(d)
        for record, page in pages.items():
            assert page == [d for d in expected if d["record"] == record]
        # A file cut short has its links, and its error.
        assert (str(path) in errors) == (status == 2), path
    assert errors[str(tmp_path / "missing.warc.gz")].startswith("cannot open `")
    assert re.match(r"malformed record at the gzip member at byte \d+", errors[str(REPO / "fixtures/warc/cut.warc.gz")])


def test_the_command_line_writes_parquet_that_pyarrow_reads(spark, cli, corpus, tmp_path):
    try:
        import pyarrow.parquet as pq
    except ImportError:
        missing("pyarrow")
    wget = corpus / "warc/corpus-wget.warc.gz"
    out = tmp_path / "links"
    assert job.main(["links", str(wget), str(REPO / "fixtures/warc/shapes.warc.gz"), "--output", str(out)],
                    spark=spark) == 0
    table = pq.read_table(out)
    assert table.column_names == [c for c, _ in job.LINK_COLUMNS]
    assert str(table.schema.field("line").type) == "int64"
    rows = table.to_pylist()
    _, expected = cli_links(cli, wget)
    assert len(rows) == len(expected) + cli_links(cli, REPO / "fixtures/warc/shapes.warc.gz")[1].__len__()
    assert all(r["error"] is None for r in rows)
    # Into a directory that exists: refused, nothing written over.
    assert job.main(["links", str(wget), "--output", str(out)], spark=spark) == 2
    # A file that cannot be read is a row of its own, and exit 2.
    other = tmp_path / "other"
    assert job.main(["links", str(tmp_path / "missing.warc.gz"), "--output", str(other)], spark=spark) == 2
    assert [r["error"] is not None for r in pq.read_table(other).to_pylist()] == [True]


def doc_example(marker):
    """The ```python block after `marker` in docs/python.md."""
    text = (REPO / "docs/python.md").read_text()
    block = text.split(marker, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    return block


def test_the_docs_host_graph_example_runs(spark, cli, corpus, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "crawl").mkdir()
    wget = corpus / "warc/corpus-wget.warc.gz"
    (tmp_path / "crawl/corpus-wget.warc.gz").symlink_to(wget)
    scope = {"spark": spark}
    example = doc_example("<!-- host graph: run by python/tests/test_links.py -->")
    exec(compile(example, "docs/python.md", "exec"), scope)
    graph = scope["graph"]
    assert graph.columns == ["source", "target", "count"]
    counts = {(r.source, r.target): r["count"] for r in graph.collect()}
    # The same graph counted by hand from the command line's lines: links
    # to http(s) URLs between two hosts (the authority, less user and
    # port, lowercased), each pair's links counted.
    host = re.compile(scope["HOST"])
    by_hand = {}
    for d in cli_links(cli, wget)[1]:
        if not d["absolute"] or not re.match(r"(?i)^https?://", d["absolute"]):
            continue
        source, target = (host.match(u) for u in (d["target"], d["absolute"]))
        source, target = (m.group(1).lower() if m else "" for m in (source, target))
        if source and target and source != target:
            by_hand[(source, target)] = by_hand.get((source, target), 0) + 1
    assert counts == by_hand
    assert len(counts) > 50


def test_the_usual_script_is_counted_link_by_link():
    """python/tools/usual_links.py (docs/python.md's figures): every link
    htmlabs lists is in exactly one class, every link of the usual script
    matched or counted as its own; on the fixture, the srcset candidates
    are what it misses, and the <base href> and Content-Base pages what it
    resolves otherwise."""
    try:
        import lxml.html  # noqa: F401
    except ImportError:
        missing("lxml")
    import importlib.util

    spec = importlib.util.spec_from_file_location("usual_links", REPO / "python/tools/usual_links.py")
    usual = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(usual)
    shapes = str(REPO / "fixtures/warc/shapes.warc.gz")
    total, usual_total, found, _ = usual.compare([shapes])
    ours = list(htmlabs.warc_links(shapes, lazy=True, standard="rfc3986"))
    theirs = list(usual.usual_links(shapes))
    assert total == len(ours) and usual_total == len(theirs)
    assert sum(n for c, n in found.items() if not c.startswith("only")) == total
    matched = sum(n for c, n in found.items() if c == "same" or c.startswith("resolved"))
    assert matched + sum(n for c, n in found.items() if c.startswith("only")) == usual_total
    read = {record_id for record_id, *_ in theirs}
    assert found["missed: `srcset` candidates (`<img>`, `<source>`)"] == sum(
        1 for d in ours if d["kind"] == "srcset" and d["record"] in read)
    assert found["resolved otherwise: against the URL, not the page's `<base href>`"] >= 1
    assert found["resolved otherwise: against the URL, not the HTTP `Content-Base`/`Content-Location`"] >= 1
