"""The command line, ``python -m htmlabs.spark`` (or ``htmlabs-spark``):
rewrite WARC files on Spark, or with ``links`` first list their links into
Parquet, a line per failed file and a summary on standard error."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

import htmlabs

from htmlabs.spark import storage
from htmlabs.spark.driver import extract_links, rewrite_warcs


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
    p.add_argument("--map", action="append", default=[], metavar="OLD=NEW")
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
        map=args.map,
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
    if storage.is_local(args.output) and os.path.lexists(storage.local(args.output)):
        print(f"htmlabs.spark: error: `{args.output}` exists: the links go into a new directory", file=sys.stderr)
        return 2
    try:
        # Each task writes its file's links as Parquet itself.
        written = extract_links(spark, inputs, parquet=args.output, **options)
    except (htmlabs.Error, ValueError) as e:
        print(f"htmlabs.spark: error: {e}", file=sys.stderr)
        return 2
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
