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

# The link columns written with a dictionary in Parquet: those whose values
# repeat, row after row (a file, its records and pages, the names, the
# outcomes). Not the URLs (`original`, `raw`, `absolute`): nearly every one
# is new, so a dictionary is built only to be given up, which took a fifth
# of the writing's CPU, and the file came out larger (7.77 MB against 7.63
# for the corpus crawl thrice).
URL_COLUMNS = ("original", "raw", "absolute")
DICTIONARY_COLUMNS = [name for name, kind in LINK_COLUMNS if kind == "string" and name not in URL_COLUMNS]


# One row per capture (extract_captures): the WARC file, then the record's
# ID, the URL captured and its key (htmlabs.url_key: what a link's URL is
# joined by), the capture's date, its final status, whether it is a
# revisit, a redirect's Location resolved, whether a link to it reaches a
# capture (a 2xx response, or a revisit of one: `--check-links`'s
# "captured"), and `error` as for the links.
CAPTURE_COLUMNS = [
    ("path", "string"),
    ("record", "string"),
    ("target", "string"),
    ("key", "string"),
    ("date", "string"),
    ("status", "long"),
    ("revisit", "boolean"),
    ("location", "string"),
    ("captured", "boolean"),
    ("error", "string"),
]
CAPTURE_SCHEMA = ", ".join(f"`{name}` {kind}" for name, kind in CAPTURE_COLUMNS)


def arrow_schema():
    """LINK_COLUMNS as an Arrow schema (pyarrow imported only here: the
    rewriting job does without it)."""
    return _arrow(LINK_COLUMNS)


def capture_arrow_schema():
    """CAPTURE_COLUMNS as an Arrow schema."""
    return _arrow(CAPTURE_COLUMNS)


def _arrow(columns):
    import pyarrow as pa

    kinds = {"string": pa.string(), "long": pa.int64(), "boolean": pa.bool_()}
    return pa.schema([(name, kinds[kind]) for name, kind in columns])
