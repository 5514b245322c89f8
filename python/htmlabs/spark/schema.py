"""The rows the jobs give: their columns, as Spark's DDL and as Arrow's."""

# One row per input file (rewrite_warcs).
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


def arrow_schema():
    """LINK_COLUMNS as an Arrow schema (pyarrow imported only here: the
    rewriting job does without it)."""
    import pyarrow as pa

    kinds = {"string": pa.string(), "long": pa.int64()}
    return pa.schema([(name, kinds[kind]) for name, kind in LINK_COLUMNS])
