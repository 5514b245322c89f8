"""Rewrites a collection of WARC files on a Spark cluster, one file per task,
or lists their links (the link graph of a crawl).

The pattern of Common Crawl's cc-pyspark: the list of paths is
parallelized into as many partitions as there are files, and each task
reads its WARC file and writes the rewritten one inside the Python worker
(no Hadoop client: local paths directly, remote ones such as ``s3://``,
``gs://`` or ``hdfs://`` through fsspec when it is installed).

Each task writes under a name unique to its task attempt, beside the
final name, and renames it into place only when the file is complete, so
a failed, retried or speculative attempt never leaves a half-written file
or a second copy. One file's failure does not fail the job: it is a row
with its error.

From Python::

    from htmlabs.spark import rewrite_warcs
    df = rewrite_warcs(spark, ["a.warc.gz", "b.warc.gz"], "out/", lazy=True)

The links of every page, one row each (:func:`extract_links`), as
``htmlabs --warc --links`` lists them::

    from htmlabs.spark import extract_links
    extract_links(spark, ["a.warc.gz", "b.warc.gz"]).write.parquet("links/")

From the command line (``spark-submit`` or plain ``python``)::

    python -m htmlabs.spark a.warc.gz b.warc.gz --output out/ [--lazy ...]
    python -m htmlabs.spark links a.warc.gz b.warc.gz --output links/ [--lazy ...]
"""

from __future__ import annotations

import argparse
import io
import os
import posixpath
import sys
from collections.abc import Iterable, Iterator
from typing import Any

import htmlabs

# One row per input file.
COLUMNS = [
    ("path", "string"),
    ("output", "string"),
    ("records", "long"),
    ("html_rewritten", "long"),
    ("urls_rewritten", "long"),
    ("warnings", "array<string>"),
    ("error", "string"),
]
SCHEMA = ", ".join(f"{name} {kind}" for name, kind in COLUMNS)

# One row per link (extract_links): the WARC file, then a line of
# `htmlabs --warc --links` (the record, the page's URL, the capture's date,
# the link's place in the record's HTTP message, the element and
# attribute, the value as written, its absolute URL, what was done with it
# and the base and its layer), and `error` on a row of its own for a file
# that could not be read whole (its other columns null but `path`).
LINK_COLUMNS = [
    ("path", "string"),
    ("record", "string"),
    ("target", "string"),
    ("date", "string"),
    ("line", "long"),
    ("column", "long"),
    ("offset", "long"),
    ("element", "string"),
    ("attribute", "string"),
    ("kind", "string"),
    ("original", "string"),
    ("raw", "string"),
    ("absolute", "string"),
    ("outcome", "string"),
    ("base", "string"),
    ("layer", "string"),
    ("error", "string"),
]
LINK_SCHEMA = ", ".join(f"`{name}` {kind}" for name, kind in LINK_COLUMNS)


def _is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def _local(path: str) -> str:
    return path[len("file://"):] if path.startswith("file://") else path


def _join(directory: str, name: str) -> str:
    if _is_local(directory):
        return os.path.join(_local(directory), name)
    return posixpath.join(directory, name)


def _filesystem(path: str):
    """fsspec's filesystem for a remote path, and the path within it."""
    try:
        import fsspec
    except ImportError:
        raise htmlabs.ConfigError(f"a remote path needs fsspec (pip install fsspec): `{path}`") from None
    return fsspec.core.url_to_fs(path)


def output_name(path: str) -> str:
    """The name an input's output gets in the output directory: its own."""
    return posixpath.basename(path.rstrip("/")) or "archive.warc.gz"


def _attempt() -> str:
    """A name part unique to this task attempt (Spark's task attempt ID, unique
    within the application; the process ID outside Spark)."""
    try:
        from pyspark import TaskContext

        context = TaskContext.get()
    except ImportError:
        context = None
    if context is None:
        return f"pid{os.getpid()}"
    return f"stage{context.stageId()}-task{context.taskAttemptId()}-attempt{context.attemptNumber()}"


def _open(path: str, mode: str):
    if _is_local(path):
        return open(_local(path), mode)
    fs, inner = _filesystem(path)
    return fs.open(inner, mode)


def _rename(source: str, target: str) -> None:
    if _is_local(target):
        os.replace(_local(source), _local(target))
    else:
        fs, inner = _filesystem(source)
        fs.mv(inner, _filesystem(target)[1])


def _remove(path: str) -> None:
    try:
        if _is_local(path):
            os.remove(_local(path))
        else:
            fs, inner = _filesystem(path)
            fs.rm(inner)
    except Exception:
        pass  # never written, or already gone


def _stopped(warnings: list[str]) -> str:
    """Why a run was incomplete: the warning that said so."""
    for warning in warnings:
        if "malformed record" in warning or "not rewritten" in warning or "memory limit" in warning:
            return warning
    return warnings[-1] if warnings else "incomplete"


def rewrite_one(path: str, output_dir: str, options: dict[str, Any]) -> dict[str, Any]:
    """Rewrites one WARC file into `output_dir`: its row. Never raises for
    the file's sake: what went wrong is the row's `error`."""
    final = _join(output_dir, output_name(path))
    temporary = _join(output_dir, f".{output_name(path)}.{_attempt()}.tmp")
    row: dict[str, Any] = {name: None for name, _ in COLUMNS}
    row["path"] = path
    try:
        if _is_local(path) and _is_local(output_dir):
            summary = htmlabs.rewrite_warc(_local(path), _local(temporary), **options)
        else:
            with _open(path, "rb") as src, _open(temporary, "wb") as dst:
                summary = htmlabs.rewrite_warc(src, dst, **options)
        _rename(temporary, final)
    except Exception as e:  # one file's failure is its row, not the job's
        row["error"] = str(e) if isinstance(e, htmlabs.Error) else f"{type(e).__name__}: {e}"
        _remove(temporary)
        return row
    row.update(
        output=final,
        records=summary.records,
        html_rewritten=summary.rewritten - summary.css_rewritten - summary.xml_rewritten,
        urls_rewritten=summary.urls,
        warnings=summary.warnings,
    )
    if summary.incomplete:
        # The output is complete (every byte of the input is in it), but
        # not all of it could be rewritten: the command line's exit 2.
        row["error"] = _stopped(summary.warnings)
    return row


def _rewrite_partition(items: Iterable[str], output_dir: str, options: dict[str, Any]) -> Iterator[dict]:
    for path in items:
        yield rewrite_one(path, output_dir, options)


def _error_row(path: str, error: str) -> tuple:
    """A file's row with its error, its other columns null."""
    return (path,) + (None,) * (len(LINK_COLUMNS) - 2) + (error,)


def links_of(path: str, options: dict[str, Any]) -> Iterator[tuple]:
    """The links of one WARC file, as rows of :data:`LINK_COLUMNS`
    (tuples), streamed; then, when the file could not be read whole, a
    row with its error. Never raises for the file's sake."""
    for batch in _file_batches(path, options):
        yield from zip(*(column.to_pylist() for column in batch.columns))


# Rows a record batch at most: each batch crosses to the JVM whole, as Arrow.
_BATCH_ROWS = 8192


def _arrow_schema():
    import pyarrow as pa

    kinds = {"string": pa.string(), "long": pa.int64()}
    return pa.schema([(name, kinds[kind]) for name, kind in LINK_COLUMNS])


def _file_batches(path: str, options: dict[str, Any], rows: int = _BATCH_ROWS, **limits: int):
    """The links of one WARC file as Arrow record batches of
    :data:`LINK_COLUMNS`, streamed; then, when the file could not be read
    whole, a batch of one row with its error. Never raises for the file's
    sake. The columns are built by the Rust side, in Arrow's layout
    (``Links._arrow_columns``): no link is a Python object on its way, which
    was most of a task's CPU in Python (a ``dict``, a tuple, then
    ``pa.array`` of each column's values)."""
    import pyarrow as pa

    schema = _arrow_schema()
    types = [f.type for f in schema][1:-1]

    def error_batch(error):
        row = _error_row(path, error)
        return pa.RecordBatch.from_arrays([pa.array([v], type=f.type) for v, f in zip(row, schema)], schema=schema)

    def array(kind, count, column):
        if kind == pa.int64():
            return pa.Array.from_buffers(kind, count, [None, pa.py_buffer(column)], null_count=0)
        valid, offsets, data, nulls = column
        buffers = [valid and pa.py_buffer(valid), pa.py_buffer(offsets), pa.py_buffer(data)]
        return pa.Array.from_buffers(kind, count, buffers, null_count=nulls)

    try:
        if _is_local(path):
            src = None
            links = htmlabs.warc_links(_local(path), **options)
        else:
            src = _open(path, "rb")
            links = htmlabs.warc_links(src, **options)
        try:
            while (got := links._arrow_columns(rows, **limits)) is not None:
                count, columns = got
                arrays = [pa.repeat(pa.scalar(path, pa.string()), count)]
                arrays += [array(kind, count, column) for kind, column in zip(types, columns)]
                arrays.append(pa.nulls(count, pa.string()))
                yield pa.RecordBatch.from_arrays(arrays, schema=schema)
        finally:
            if src is not None:
                src.close()
        summary = links.summary
    except Exception as e:  # one file's failure is its row, not the job's
        yield error_batch(str(e) if isinstance(e, htmlabs.Error) else f"{type(e).__name__}: {e}")
        return
    if summary.incomplete:
        # The links before the break are rows; what stopped it is one more.
        yield error_batch(_stopped(summary.warnings))


def _links_batches(batches, options: dict[str, Any]):
    """mapInArrow's function: the paths of its partition (one file) in,
    their links out as Arrow record batches of LINK_COLUMNS. Arrow, not
    pickled rows: the JVM reads the columns as they are, instead of
    unpickling a row at a time (most of the job's CPU on rows of 17
    fields)."""
    for paths in batches:
        for path in paths.column(0).to_pylist():
            yield from _file_batches(path, options)


def extract_links(spark, inputs: list[str], **options: Any):
    """The links of every HTML page of each WARC file of `inputs`: a
    DataFrame of :data:`LINK_COLUMNS`, one row per URL value, as ``htmlabs
    --warc --links`` lists them (``path`` is the file's; ``record``,
    ``target`` and ``date`` its record's ID, URL and ``WARC-Date``), one
    Spark task per file. A file that cannot be opened or read whole gives
    one row more, with ``error`` (null on every link's row).

    `options` are :func:`htmlabs.warc_links`'s keywords (``lazy=True``,
    ``standard=``, …), checked here before any task starts, and so is that
    the workers can import htmlabs (:func:`check_workers`). Nothing is read
    until the DataFrame is: write it once (``.write.parquet(DIR)``), or
    cache it, since each action reads the files again.
    """
    inputs = list(inputs)
    options = dict(options)
    if options.get("jobs") is None:
        options["jobs"] = 1
    # The options are checked once, here, on an empty archive.
    for _ in htmlabs.warc_links(io.BytesIO(), **options):
        pass
    if not inputs:
        return spark.createDataFrame([], LINK_SCHEMA)
    check_workers(spark)
    # One partition a file (parallelize keeps them apart; a DataFrame's
    # repartition would hash them together).
    rdd = spark.sparkContext.parallelize([(p,) for p in inputs], numSlices=len(inputs))
    paths = spark.createDataFrame(rdd, "path string")
    return paths.mapInArrow(lambda batches: _links_batches(batches, options), LINK_SCHEMA)


def _imported(items: Iterable[Any]) -> Iterator[str]:
    """The probe's task: its htmlabs's version. Unpickled in a Python
    worker, it imports htmlabs there: what the probe tries."""
    yield htmlabs.__version__


_FIX = (
    "set PYSPARK_PYTHON or spark.pyspark.python to a python that has htmlabs installed, "
    "or ship a packed environment with --archives (docs/python.md, spark)"
)


def check_workers(spark) -> None:
    """Raises :class:`htmlabs.ConfigError` naming the fix when Spark's
    Python workers cannot import htmlabs: one task tries it before the job,
    so that a misconfigured cluster gives one error, not the failure of
    every file's task. (One executor is tried: a cluster's are alike.)"""
    context = spark.sparkContext
    try:
        context.parallelize([0], 1).mapPartitions(_imported).collect()
    except Exception as e:
        text = str(e)
        if "No module named 'htmlabs'" in text:
            raise htmlabs.ConfigError(
                f"spark's python workers cannot import htmlabs: their python is `{context.pythonExec}`; {_FIX}"
            ) from None
        if f'Cannot run program "{context.pythonExec}"' in text:
            raise htmlabs.ConfigError(
                f"spark cannot start its python workers' interpreter: `{context.pythonExec}`; {_FIX}"
            ) from None
        raise


def rewrite_warcs(spark, inputs: list[str], output_dir: str, **options: Any):
    """Rewrites each WARC file of `inputs` into `output_dir` (under its own
    name), one file per Spark task, and gives a DataFrame of one row per
    input: ``path``, ``output``, ``records``, ``html_rewritten``,
    ``urls_rewritten``, ``warnings`` and ``error`` (null when it worked).

    `options` are :func:`htmlabs.rewrite_warc`'s keywords (``lazy=True``,
    ``mode=``, …), checked here before any task starts, and so is that the
    workers can import htmlabs (:func:`check_workers`). The work is done when
    this returns (the rows are collected: one small row a file), so that
    using the DataFrame twice does not rewrite the files twice.
    """
    inputs = list(inputs)
    # Spark's tasks are the parallel work (one a core): each file's records
    # are rewritten on its task's thread unless `jobs` asks for more.
    options = dict(options)
    if options.get("jobs") is None:
        options["jobs"] = 1
    names = [output_name(p) for p in inputs]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise htmlabs.ConfigError(f"inputs would be written to the same output name: `{twice[0]}`")
    # The options are checked once, here, on an empty archive.
    htmlabs.rewrite_warc(io.BytesIO(), io.BytesIO(), **options)
    if _is_local(output_dir):
        os.makedirs(_local(output_dir), exist_ok=True)
    else:
        fs, path = _filesystem(output_dir)
        fs.makedirs(path, exist_ok=True)
    from pyspark.sql import Row

    if not inputs:
        return spark.createDataFrame([], SCHEMA)
    check_workers(spark)
    rdd = spark.sparkContext.parallelize(inputs, numSlices=len(inputs))
    rows = rdd.mapPartitions(lambda items: _rewrite_partition(items, output_dir, options)).collect()
    return spark.createDataFrame([Row(**{n: r[n] for n, _ in COLUMNS}) for r in rows], SCHEMA)


def _arguments(argv: list[str] | None, links: bool = False) -> argparse.Namespace:
    if links:
        p = argparse.ArgumentParser(
            prog="python -m htmlabs.spark links",
            description="List the links of WARC files on Spark, one file per task (htmlabs --warc --links on "
                        "each), into Parquet.",
        )
    else:
        p = argparse.ArgumentParser(
            prog="python -m htmlabs.spark",
            description="Rewrite WARC files on Spark, one file per task (htmlabs --warc on each). "
                        "`python -m htmlabs.spark links --help`: list their links instead.",
        )
    p.add_argument("inputs", nargs="*", metavar="INPUT", help="WARC files: paths, or s3://, gs://, hdfs://… with fsspec")
    p.add_argument("--inputs-from", metavar="FILE", help="a file of input paths, one a line")
    what = "the Parquet files of the links (a new directory)" if links else "where the rewritten files go"
    p.add_argument("--output", "-o", required=True, metavar="DIR", help=what)
    p.add_argument("--jobs", type=int, help="threads for each file's records (default 1: the tasks are the parallel work)")
    if not links:
        p.add_argument("--mode", default="conversion", choices=["conversion", "replace"])
        p.add_argument("--gzip-level", type=int, default=None, metavar="LEVEL", help="gzip level (1 fastest, the default, to 9) of the records written anew")
        p.add_argument("--zstd-level", type=int, default=None, metavar="LEVEL", help="zstd level (1-19, default 3) of the records written anew in a .warc.zst")
    p.add_argument("--standard", default="rfc1808", choices=["rfc1808", "rfc3986"])
    p.add_argument("--encoding", metavar="LABEL")
    p.add_argument("--keep-fragments", action="store_true")
    p.add_argument("--lazy", action="store_true")
    p.add_argument("--social", action="store_true")
    p.add_argument("--content-location", action="store_true")
    p.add_argument("--attr", action="append", default=[], metavar="ELEMENT:ATTRIBUTE[:KIND]")
    p.add_argument("--max-lookahead", metavar="SIZE", help="the most held while looking for <base href> (default 1M)")
    p.add_argument("--max-memory", metavar="SIZE",
                   help="the most each task's run holds at once (64M, 1G; default: a quarter of the executor's memory)")
    if not links:
        p.add_argument("--report", metavar="DIR", help="also write the rows as JSON Lines into DIR (Spark's writer)")
    return p.parse_args(argv)


def _session():
    """The command line's session. Unless told which Python the workers run
    (PYSPARK_PYTHON, spark.pyspark.python), they run this one: Spark would
    start `python3` from PATH, which from a virtual environment that is not
    activated is another Python, without htmlabs."""
    from pyspark import SparkConf
    from pyspark.sql import SparkSession

    if not os.environ.get("PYSPARK_PYTHON") and not SparkConf().contains("spark.pyspark.python"):
        os.environ["PYSPARK_PYTHON"] = sys.executable
    return SparkSession.builder.appName("htmlabs").getOrCreate()


def main(argv: list[str] | None = None, spark=None) -> int:
    """The command line; `spark` is a session to use (and leave running)
    instead of the one it makes. ``links`` first: list the links."""
    argv = sys.argv[1:] if argv is None else list(argv)
    links = argv[:1] == ["links"]
    args = _arguments(argv[1:] if links else argv, links)
    inputs = list(args.inputs)
    if args.inputs_from:
        with open(args.inputs_from) as f:
            inputs += [line.strip() for line in f if line.strip() and not line.startswith("#")]
    if not inputs:
        print("htmlabs.spark: error: no input", file=sys.stderr)
        return 2
    options = dict(
        jobs=args.jobs,
        standard=args.standard,
        encoding=args.encoding,
        keep_fragments=args.keep_fragments,
        lazy=args.lazy,
        social=args.social,
        content_location=args.content_location,
        attr=args.attr,
    )
    for name in ("max_lookahead", "max_memory"):
        if getattr(args, name) is not None:
            options[name] = getattr(args, name)
    if not links:
        options.update(mode=args.mode, gzip_level=args.gzip_level, zstd_level=args.zstd_level)
    own = spark is None
    if own:
        spark = _session()
    try:
        return (_run_links if links else _run)(spark, inputs, args, options)
    finally:
        if own:
            spark.stop()


def _run(spark, inputs: list[str], args: argparse.Namespace, options: dict[str, Any]) -> int:
    try:
        df = rewrite_warcs(spark, inputs, args.output, **options)
    except (htmlabs.Error, ValueError) as e:
        print(f"htmlabs.spark: error: {e}", file=sys.stderr)
        return 2
    rows = df.collect()
    if args.report:
        df.write.mode("overwrite").json(args.report)
    failed = 0
    for row in rows:
        if row.error:
            failed += 1
            print(f"htmlabs.spark: {row.path}: error: {row.error}", file=sys.stderr)
    print(
        f"htmlabs.spark: {len(rows)} files, {len(rows) - failed} rewritten, {failed} failed; "
        f"{sum(r.records or 0 for r in rows)} records, {sum(r.html_rewritten or 0 for r in rows)} HTML rewritten, "
        f"{sum(r.urls_rewritten or 0 for r in rows)} URLs rewritten",
        file=sys.stderr,
    )
    return 2 if failed else 0


def _run_links(spark, inputs: list[str], args: argparse.Namespace, options: dict[str, Any]) -> int:
    if _is_local(args.output) and os.path.lexists(_local(args.output)):
        print(f"htmlabs.spark: error: `{args.output}` exists: the links go into a new directory", file=sys.stderr)
        return 2
    try:
        df = extract_links(spark, inputs, **options)
    except (htmlabs.Error, ValueError) as e:
        print(f"htmlabs.spark: error: {e}", file=sys.stderr)
        return 2
    df.write.mode("errorifexists").parquet(args.output)
    # What was written, read back (the files are not read again).
    written = spark.read.parquet(args.output)
    failed = written.where("error is not null").select("path", "error").collect()
    links = written.where("error is null").count()
    for row in failed:
        print(f"htmlabs.spark: {row.path}: error: {row.error}", file=sys.stderr)
    print(
        f"htmlabs.spark: {len(inputs)} files, {len(inputs) - len({r.path for r in failed})} read whole, "
        f"{len(failed)} errors; {links} links, in {args.output}",
        file=sys.stderr,
    )
    return 2 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
