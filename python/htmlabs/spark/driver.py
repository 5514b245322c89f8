"""What a user calls on the driver: the jobs, one Spark task per file, their
options and the workers checked before any task starts."""

from __future__ import annotations

import io
import os
from typing import Any

import htmlabs

from htmlabs.spark import storage
from htmlabs.spark.schema import CAPTURE_SCHEMA, COLUMNS, LINK_SCHEMA, SCHEMA
from htmlabs.spark.tasks import (
    captures_batches,
    imported,
    links_batches,
    output_name,
    rewrite_partition,
    write_links_partition,
)


def extract_links(spark, inputs: list[str], parquet: str | None = None, **options: Any):
    """The links of every HTML page of each WARC file of `inputs`: a
    DataFrame of :data:`LINK_COLUMNS`, one row per URL value, as ``htmlabs
    --warc --links`` lists them (``path`` is the file's; ``record``,
    ``target`` and ``date`` its record's ID, URL and ``WARC-Date``), one
    Spark task per file. A file that cannot be opened or read whole gives
    one row more, with ``error`` (null on every link's row).

    `options` are :func:`htmlabs.warc_links`'s keywords (``lazy=True``,
    ``standard=``, …), checked here before any task starts, and so is that
    the workers can import htmlabs (:func:`check_workers`).

    Without `parquet`, nothing is read until the DataFrame is: write it
    once (``.write.parquet(DIR)``), or cache it, since each action reads
    the files again. With ``parquet=DIR`` (a new directory, or an empty
    one), each task writes its file's links into DIR as a Parquet file of
    its own (``part-NNNNN-NAME.parquet``, renamed into place once whole),
    with pyarrow, so that no link passes through Spark's JVM; the job is
    done when this returns, and the DataFrame is DIR read back, lazily.
    """
    inputs = list(inputs)
    options = dict(options)
    if options.get("jobs") is None:
        options["jobs"] = 1
    # The options are checked once, here, on an empty archive.
    for _ in htmlabs.warc_links(io.BytesIO(), **options):
        pass
    if parquet is not None:
        return _links_as_parquet(spark, inputs, parquet, options)
    return _each_file(spark, inputs, lambda batches: links_batches(batches, options), LINK_SCHEMA)


def _links_as_parquet(spark, inputs: list[str], output_dir: str, options: dict[str, Any]):
    """extract_links(parquet=…): one task a file, each writing its own
    Parquet file; the rows Spark collects are one a file."""
    if storage.is_local(output_dir) and os.path.isdir(storage.local(output_dir)) \
            and os.listdir(storage.local(output_dir)):
        raise htmlabs.ConfigError(f"`{output_dir}` is not empty: the links go into a new directory")
    storage.makedirs(output_dir)
    if not inputs:
        return spark.createDataFrame([], LINK_SCHEMA)
    check_workers(spark)
    items = list(enumerate(inputs))
    rdd = spark.sparkContext.parallelize(items, numSlices=len(items))
    done = rdd.mapPartitions(lambda items: write_links_partition(items, output_dir, options)).collect()
    unwritten = [row for row in done if row["output"] is None]
    if unwritten:
        raise htmlabs.WriteError(unwritten[0]["error"])
    return spark.read.schema(LINK_SCHEMA).parquet(output_dir)


def extract_captures(spark, inputs: list[str], **options: Any):
    """What each WARC file of `inputs` captured: a DataFrame of
    :data:`CAPTURE_COLUMNS`, one row per response, revisit or resource
    record (``key`` is what a link's URL finds it by: join
    :func:`extract_links`'s ``absolute``, made a key by
    :func:`htmlabs.url_key`, with it), one Spark task per file; a file
    that cannot be read whole gives one row more, with ``error``. With
    the links of the same files, the classes of ``htmlabs --check-links``
    across a crawl too large for one machine (docs/python.md).

    `options` are :func:`htmlabs.warc_captures`'s (``max_memory=``).
    Nothing is read until the DataFrame is.
    """
    inputs = list(inputs)
    options = dict(options)
    # The options are checked once, here, on an empty archive.
    htmlabs.warc_captures(io.BytesIO(), **options)
    return _each_file(spark, inputs, lambda batches: captures_batches(batches, options), CAPTURE_SCHEMA)


def _each_file(spark, inputs: list[str], task, schema: str):
    """A DataFrame of `schema`: `task` (mapInArrow's function) over the
    paths of `inputs`, one Spark task a file, once the workers are
    checked."""
    if not inputs:
        return spark.createDataFrame([], schema)
    check_workers(spark)
    # One partition a file (parallelize keeps them apart; a DataFrame's
    # repartition would hash them together).
    rdd = spark.sparkContext.parallelize([(p,) for p in inputs], numSlices=len(inputs))
    paths = spark.createDataFrame(rdd, "path string")
    return paths.mapInArrow(task, schema)


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
        context.parallelize([0], 1).mapPartitions(imported).collect()
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
    storage.makedirs(output_dir)
    from pyspark.sql import Row

    if not inputs:
        return spark.createDataFrame([], SCHEMA)
    check_workers(spark)
    rdd = spark.sparkContext.parallelize(inputs, numSlices=len(inputs))
    rows = rdd.mapPartitions(lambda items: rewrite_partition(items, output_dir, options)).collect()
    return spark.createDataFrame([Row(**{n: r[n] for n, _ in COLUMNS}) for r in rows], SCHEMA)
