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

What the files captured, one row a capture (:func:`extract_captures`), to
join with the links by ``key`` (docs/python.md: the share of a crawl's
links it captured)::

    from htmlabs.spark import extract_captures
    extract_captures(spark, ["a.warc.gz", "b.warc.gz"]).write.parquet("captures/")

From the command line (``spark-submit`` of this file, ``python -m``, or
the ``htmlabs-spark`` script the package installs)::

    python -m htmlabs.spark a.warc.gz b.warc.gz --output out/ [--lazy ...]
    python -m htmlabs.spark links a.warc.gz b.warc.gz --output links/ [--lazy ...]

Its modules: :mod:`~htmlabs.spark.driver` (the jobs, started on the
driver), :mod:`~htmlabs.spark.tasks` (what each task runs in a Python
worker), :mod:`~htmlabs.spark.storage` (local and remote paths),
:mod:`~htmlabs.spark.schema` (the rows' columns) and
:mod:`~htmlabs.spark.cli` (the command line).
"""

# Absolute imports: spark-submit runs this file as a script (docs/python.md
# gives it `htmlabs.spark.__file__`), where a relative one has no package.
from htmlabs.spark.cli import main
from htmlabs.spark.driver import check_workers, extract_captures, extract_links, rewrite_warcs
from htmlabs.spark.schema import CAPTURE_COLUMNS, CAPTURE_SCHEMA, COLUMNS, LINK_COLUMNS, LINK_SCHEMA, SCHEMA
from htmlabs.spark.tasks import links_of, output_name, rewrite_one

__all__ = [
    "CAPTURE_COLUMNS",
    "CAPTURE_SCHEMA",
    "COLUMNS",
    "LINK_COLUMNS",
    "LINK_SCHEMA",
    "SCHEMA",
    "check_workers",
    "extract_captures",
    "extract_links",
    "links_of",
    "main",
    "output_name",
    "rewrite_one",
    "rewrite_warcs",
]

if __name__ == "__main__":
    import sys

    sys.exit(main())
