"""What runs in Spark's Python workers: one task's file rewritten, or its
links or its captures listed, never raising for the file's sake (what went
wrong is its row's `error`)."""

from __future__ import annotations

import array
import os
import posixpath
from collections.abc import Iterable, Iterator
from typing import Any

import htmlabs

from htmlabs.spark import storage
from htmlabs.spark.schema import COLUMNS, DICTIONARY_COLUMNS, LINK_COLUMNS, arrow_schema, capture_arrow_schema

# Rows a record batch at most: each batch crosses to the JVM whole, as Arrow.
BATCH_ROWS = 8192


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


def stopped(warnings: list[str]) -> str:
    """Why a run was incomplete: the warning that said so."""
    for warning in warnings:
        if "malformed record" in warning or "not rewritten" in warning or "memory limit" in warning:
            return warning
    return warnings[-1] if warnings else "incomplete"


def rewrite_one(path: str, output_dir: str, options: dict[str, Any]) -> dict[str, Any]:
    """Rewrites one WARC file into `output_dir`: its row. Never raises for
    the file's sake: what went wrong is the row's `error`."""
    final = storage.join(output_dir, output_name(path))
    temporary = storage.join(output_dir, f".{output_name(path)}.{_attempt()}.tmp")
    row: dict[str, Any] = {name: None for name, _ in COLUMNS}
    row["path"] = path
    try:
        if storage.is_local(path) and storage.is_local(output_dir):
            summary = htmlabs.rewrite_warc(storage.local(path), storage.local(temporary), **options)
        else:
            with storage.open_file(path, "rb") as src, storage.open_file(temporary, "wb") as dst:
                summary = htmlabs.rewrite_warc(src, dst, **options)
        storage.rename(temporary, final)
    except Exception as e:  # one file's failure is its row, not the job's
        row["error"] = str(e) if isinstance(e, htmlabs.Error) else f"{type(e).__name__}: {e}"
        storage.remove(temporary)
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
        row["error"] = stopped(summary.warnings)
    return row


def rewrite_partition(items: Iterable[str], output_dir: str, options: dict[str, Any]) -> Iterator[dict]:
    for path in items:
        yield rewrite_one(path, output_dir, options)


def repeated_text(pa, text: str, count: int):
    """`count` copies of `text`, an Arrow string column made from its
    buffers. Not ``pa.scalar``, ``pa.array`` nor ``from_pylist``: their
    first call imports pandas (to tell array-likes), 0.25 CPU s and 56 MB
    more in each Python worker, which needs none of it."""
    data = text.encode()
    size = len(data)
    offsets = array.array("i", range(0, (count + 1) * size, size) if size else bytes(4 * (count + 1)))
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data * count)]
    return pa.Array.from_buffers(pa.string(), count, buffers, null_count=0)


def arrow_column(pa, kind, values: list):
    """`values` (`str`, `int` or `bool`, or `None`) as an Arrow column of
    `kind` (`pa.string()`, `pa.int64()`, `pa.bool_()`), made from its
    buffers, for the reason :func:`repeated_text` gives."""
    count = len(values)
    valid = bits([value is not None for value in values])
    nulls = values.count(None)
    if kind == pa.string():
        data = [b"" if v is None else v.encode() for v in values]
        ends = array.array("i", [0])
        for item in data:
            ends.append(ends[-1] + len(item))
        buffers = [pa.py_buffer(valid), pa.py_buffer(ends), pa.py_buffer(b"".join(data))]
    elif kind == pa.int64():
        buffers = [pa.py_buffer(valid), pa.py_buffer(array.array("q", [v or 0 for v in values]))]
    else:
        buffers = [pa.py_buffer(valid), pa.py_buffer(bits([bool(v) for v in values]))]
    return pa.Array.from_buffers(kind, count, buffers, null_count=nulls)


def bits(flags: list[bool]) -> bytearray:
    """`flags` as Arrow packs them (a validity bitmap, a boolean column's
    values): one bit each, least significant first."""
    packed = bytearray((len(flags) + 7) // 8)
    for i, flag in enumerate(flags):
        if flag:
            packed[i // 8] |= 1 << (i % 8)
    return packed


def error_row(path: str, error: str) -> tuple:
    """A file's row with its error, its other columns null."""
    return (path,) + (None,) * (len(LINK_COLUMNS) - 2) + (error,)


def links_of(path: str, options: dict[str, Any]) -> Iterator[tuple]:
    """The links of one WARC file, as rows of :data:`LINK_COLUMNS`
    (tuples), streamed; then, when the file could not be read whole, a
    row with its error. Never raises for the file's sake."""
    for batch in file_batches(path, options):
        yield from zip(*(column.to_pylist() for column in batch.columns))


def file_batches(path: str, options: dict[str, Any], rows: int = BATCH_ROWS, **limits: int):
    """The links of one WARC file as Arrow record batches of
    :data:`LINK_COLUMNS`, streamed; then, when the file could not be read
    whole, a batch of one row with its error. Never raises for the file's
    sake. The columns are built by the Rust side, in Arrow's layout
    (``Links._arrow_columns``): no link is a Python object on its way, which
    was most of a task's CPU in Python (a ``dict``, a tuple, then
    ``pa.array`` of each column's values)."""
    import pyarrow as pa

    schema = arrow_schema()
    types = [f.type for f in schema][1:-1]

    def error_batch(error):
        row = error_row(path, error)
        arrays = [arrow_column(pa, f.type, [v]) for v, f in zip(row, schema)]
        return pa.RecordBatch.from_arrays(arrays, schema=schema)

    def array(kind, count, column):
        if kind == pa.int64():
            return pa.Array.from_buffers(kind, count, [None, pa.py_buffer(column)], null_count=0)
        valid, offsets, data, nulls = column
        buffers = [valid and pa.py_buffer(valid), pa.py_buffer(offsets), pa.py_buffer(data)]
        return pa.Array.from_buffers(kind, count, buffers, null_count=nulls)

    try:
        if storage.is_local(path):
            src = None
            links = htmlabs.warc_links(storage.local(path), **options)
        else:
            src = storage.open_file(path, "rb")
            links = htmlabs.warc_links(src, **options)
        try:
            while (got := links._arrow_columns(rows, **limits)) is not None:
                count, columns = got
                arrays = [repeated_text(pa, path, count)]
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
        yield error_batch(stopped(summary.warnings))


def links_batches(batches, options: dict[str, Any]):
    """mapInArrow's function: the paths of its partition (one file) in,
    their links out as Arrow record batches of LINK_COLUMNS. Arrow, not
    pickled rows: the JVM reads the columns as they are, instead of
    unpickling a row at a time (most of the job's CPU on rows of 17
    fields)."""
    for paths in batches:
        for path in paths.column(0).to_pylist():
            yield from file_batches(path, options)


def write_links_file(index: int, path: str, output_dir: str, options: dict[str, Any]) -> dict[str, Any]:
    """Writes the links of one WARC file (:func:`file_batches`, its error
    row included) as a Parquet file of its own in `output_dir`, written by
    pyarrow here in the task, under a name unique to the task attempt and
    renamed into place once whole: one row for the driver (``path``,
    ``output``, ``links``, ``error``). No link crosses to the JVM."""
    import pyarrow.parquet as pq

    name = f"part-{index:05d}-{output_name(path)}.parquet"
    final = storage.join(output_dir, name)
    temporary = storage.join(output_dir, f".{name}.{_attempt()}.tmp")
    links, error = 0, None
    try:
        with storage.open_file(temporary, "wb") as out:
            with pq.ParquetWriter(out, arrow_schema(), use_dictionary=DICTIONARY_COLUMNS) as writer:
                for batch in file_batches(path, options):
                    errors = batch.column(len(LINK_COLUMNS) - 1)
                    if errors.null_count < len(batch):
                        error = next(e for e in errors.to_pylist() if e is not None)
                    links += errors.null_count
                    writer.write_batch(batch)
        storage.rename(temporary, final)
    except Exception as e:  # not the file's links: where they go failed
        storage.remove(temporary)
        return {"path": path, "output": None, "links": links,
                "error": f"cannot write `{final}`: {type(e).__name__}: {e}"}
    return {"path": path, "output": final, "links": links, "error": error}


def write_links_partition(items: Iterable[tuple[int, str]], output_dir: str, options: dict[str, Any]):
    for index, path in items:
        yield write_links_file(index, path, output_dir, options)


def capture_batches(path: str, options: dict[str, Any], rows: int = BATCH_ROWS):
    """The captures of one WARC file as Arrow record batches of
    :data:`CAPTURE_COLUMNS`, read as they are given (a file's captures
    need not fit in memory); then, when a record broke or the file could
    not be read to its end, a batch of one row with the reason. Never
    raises for the file's sake."""
    import pyarrow as pa

    schema = capture_arrow_schema()
    names = [f.name for f in schema]

    def batch(items):
        columns = [arrow_column(pa, f.type, [item[f.name] for item in items]) for f in schema]
        return pa.RecordBatch.from_arrays(columns, schema=schema)

    def error_row(error):
        return {**{name: None for name in names}, "path": path, "error": error}

    def batches(listed):
        chunk = []
        for capture in listed:
            chunk.append({**capture, "path": path, "error": None})
            if len(chunk) == rows:
                yield batch(chunk)
                chunk = []
        if chunk:
            yield batch(chunk)
        if listed.incomplete:
            yield batch([error_row(stopped(listed.warnings))])

    try:
        if storage.is_local(path):
            yield from batches(htmlabs.warc_captures(storage.local(path), **options))
        else:
            with storage.open_file(path, "rb") as src:
                yield from batches(htmlabs.warc_captures(src, **options))
    except Exception as e:  # one file's failure is its row, not the job's
        yield batch([error_row(str(e) if isinstance(e, htmlabs.Error) else f"{type(e).__name__}: {e}")])


def captures_batches(batches, options: dict[str, Any]):
    """mapInArrow's function: the paths of its partition (one file) in,
    their captures out as Arrow record batches of CAPTURE_COLUMNS."""
    for paths in batches:
        for path in paths.column(0).to_pylist():
            yield from capture_batches(path, options)


def imported(items: Iterable[Any]) -> Iterator[str]:
    """The probe's task: its htmlabs's version. Unpickled in a Python
    worker, it imports htmlabs there: what the probe tries."""
    yield htmlabs.__version__
