"""htmlabs: make every link in an HTML document absolute, by RFC 1808, byte
for byte, and every HTML page of a web archive (WARC) with it.

- :func:`rewrite` rewrites one document held in memory;
- :func:`rewrite_warc` rewrites a WARC file (a path or a binary file object);
- :func:`warc_links` lists a WARC file's links, as ``htmlabs --warc --links``;
- :mod:`htmlabs.spark` rewrites many WARC files on a Spark cluster.

Both functions release the GIL while they work: threads rewrite in
parallel. Their keywords are the command line's flags (``--keep-fragments``
is ``keep_fragments=True``), and their errors the command line's messages,
raised as :class:`Error` and its subclasses.
"""

from ._errors import ConfigError, Error, ReadError, WriteError
from ._htmlabs import Links, Result, Summary, __version__, rewrite, rewrite_warc, warc_links

__all__ = [
    "ConfigError",
    "Error",
    "Links",
    "ReadError",
    "Result",
    "Summary",
    "WriteError",
    "__version__",
    "rewrite",
    "rewrite_warc",
    "warc_links",
]
