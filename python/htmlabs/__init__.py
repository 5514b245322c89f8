"""htmlabs: make every link in an HTML document absolute, by RFC 1808, byte
for byte, and every HTML page of a web archive (WARC) with it.

- :func:`rewrite` rewrites one document held in memory;
- :func:`rewrite_warc` rewrites a WARC file (a path or a binary file object);
- :func:`warc_links` lists a WARC file's links, as ``htmlabs --warc --links``;
- :func:`check_links` checks a site's links against the files its host
  serves, or an archive's against its captures, as ``htmlabs --check-links``;
- :func:`warc_captures` lists what a WARC file captured, and :func:`url_key`
  is what a link's URL finds a capture by (a crawl's links joined with its
  captures in Spark: :mod:`htmlabs.spark`);
- :mod:`htmlabs.spark` rewrites many WARC files on a Spark cluster.

They release the GIL while they work: threads rewrite in
parallel. Their keywords are the command line's flags (``--keep-fragments``
is ``keep_fragments=True``), and their errors the command line's messages,
raised as :class:`Error` and its subclasses.
"""

from ._errors import ConfigError, Error, ReadError, WriteError
from ._htmlabs import (
    Captures,
    CheckSummary,
    Links,
    Result,
    Summary,
    __version__,
    check_links,
    rewrite,
    rewrite_warc,
    url_key,
    warc_captures,
    warc_links,
)

__all__ = [
    "Captures",
    "CheckSummary",
    "ConfigError",
    "Error",
    "Links",
    "ReadError",
    "Result",
    "Summary",
    "WriteError",
    "__version__",
    "check_links",
    "rewrite",
    "rewrite_warc",
    "url_key",
    "warc_captures",
    "warc_links",
]
