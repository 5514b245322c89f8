"""Type stubs of the native module; the package re-exports all of it."""

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import IO, Literal, Protocol, TypedDict

from typing_extensions import Unpack

__version__: str

class _BinaryReader(Protocol):
    def read(self, size: int, /) -> bytes: ...

class _BinaryWriter(Protocol):
    def write(self, data: bytes, /) -> int | None: ...

Standard = Literal["rfc1808", "rfc3986"]
Type = Literal["html", "css", "xml"]

class Options(TypedDict, total=False):
    """The keywords both functions take: each is the command line's flag
    of its name (``keep_fragments`` is ``--keep-fragments``), with its
    default."""

    standard: Standard  # "rfc1808"
    encoding: str | None  # a WHATWG label; None: BOM, headers' charset, <meta>, detection
    keep_fragments: bool  # False
    lazy: bool  # False
    social: bool  # False
    content_location: bool  # False: Content-Location is a base only when True
    attr: Sequence[str]  # (): each "ELEMENT:ATTRIBUTE[:KIND]"
    map: Mapping[str, str] | Sequence[str] | str  # (): {OLD: NEW}, or each "OLD=NEW"
    max_lookahead: int | str  # 1 << 20; bytes, or a size such as "1M"
    max_memory: int | str  # default: a quarter of the memory the process may use, at least 64 << 20; bytes, or "64M", "1G"

class Result:
    """What :func:`rewrite` gives: the document, and what its run found."""

    @property
    def html(self) -> bytes:
        """The rewritten document: byte for byte the input, but its URL values."""
    @property
    def base(self) -> str | None:
        """The base URL, or ``None`` when no layer of RFC 1808 §3 gave one."""
    @property
    def base_layer(self) -> Literal["embedded", "encapsulating", "retrieval", "none"]:
        """Which layer of RFC 1808 §3 gave the base."""
    @property
    def encoding(self) -> str:
        """The document's encoding, by its WHATWG name (``UTF-8``, ``windows-1252``)."""
    @property
    def links(self) -> list[dict[str, object]]:
        """Each URL value, as a line of the link report (``--report``) gives
        it: ``line``, ``column``, ``offset``, ``element``, ``attribute``,
        ``kind``, ``original``, ``absolute``, ``outcome``, ``base``,
        ``layer``, and ``raw`` for a value not valid in the encoding. Made
        when first read (a caller that does not read them does not pay for a
        ``dict`` a link with the GIL held), the same list after."""
    @property
    def warnings(self) -> list[str]:
        """The warnings, as the command line prints them after ``htmlabs: warning:``."""
    @property
    def rewritten(self) -> int:
        """How many URL values were rewritten."""
    @property
    def type(self) -> Type | None:
        """What the document was read as: ``type=``, else (with ``headers``)
        its ``Content-Type``, else its first bytes'. ``None``: a
        ``Content-Type`` no engine rewrites (``image/png``), the body left as
        it is, as ``--http`` leaves it."""

class Summary:
    """What :func:`rewrite_warc` gives: the command line's summary line."""

    @property
    def records(self) -> int:
        """Records read whole."""
    @property
    def rewritten(self) -> int:
        """Responses and resources rewritten, of every type (HTML, CSS, XML)."""
    @property
    def css_rewritten(self) -> int:
        """Of those, stylesheets (``text/css``)."""
    @property
    def xml_rewritten(self) -> int:
        """Of those, feeds, sitemaps and SVG."""
    @property
    def conversions(self) -> int:
        """Conversion records added (the ``warcinfo`` before them is not counted)."""
    @property
    def replaced(self) -> int:
        """Records replaced by their rewritten version (``mode="replace"``)."""
    @property
    def urls(self) -> int:
        """URL values rewritten."""
    @property
    def warnings(self) -> list[str]:
        """The warnings, each naming its record."""
    @property
    def incomplete(self) -> bool:
        """Whether a record could not be rewritten or the input was cut
        short (the command line exits 2); the output is complete all the same."""
    @property
    def converted(self) -> int:
        """Pages left as they were: the archive holds their conversion by
        htmlabs already, right after them (a second run)."""
    @property
    def line(self) -> str:
        """The command line's summary line but its speed (``412 records,
        181 HTML rewritten, 3 CSS rewritten, …``; for the links, ``412
        records, 181 pages, 21034 links, 0 warnings``); ``repr`` shows it."""
    @property
    def bytes(self) -> int:
        """Bytes read."""

def rewrite(
    html: bytes,
    retrieved_from: str | None = None,
    *,
    headers: Mapping[str, str] | Iterable[tuple[str, str]] | None = None,
    type: Type | None = None,
    **options: Unpack[Options],
) -> Result:
    """Makes every link in one document absolute, by RFC 1808.

    ``type`` (``--type``) says what the document is: ``"html"`` (a page),
    ``"css"`` (a stylesheet) or ``"xml"`` (an RSS or Atom feed, a sitemap,
    SVG). ``None`` lets its first bytes decide: XML when, after a byte order
    mark and white space, they are ``<?xml`` or the root element is ``rss``,
    ``feed``, ``rdf:RDF``, ``urlset``, ``sitemapindex`` or ``svg`` (in SVG's
    namespace); else
    HTML (a stylesheet is never told by its bytes).

    The base is, in RFC 1808 §3's order: the document's ``<base href>``,
    else the encapsulating entity's (``headers``: ``Base``, ``Content-Base``,
    and ``Content-Location`` with ``content_location=True``), else
    ``retrieved_from``, else none. ``headers``' ``Content-Type`` charset is
    the transport layer's encoding. ``headers`` is read as the final header
    block of a response (``HTTP/1.1 200 OK`` and the fields in their order),
    as ``htmlabs --http`` reads one.

    The other keywords (:class:`Options`) are the command line's flags:
    ``encoding`` is ``--encoding``, ``attr`` is ``--attr`` (each
    ``ELEMENT:ATTRIBUTE[:KIND]``), ``map`` is ``--map`` (``{OLD: NEW}``, or
    each ``OLD=NEW``).

    Raises :class:`ConfigError` for a value that cannot be used, with the
    command line's message, ``ValueError`` for an unknown ``standard`` or
    ``type``, and
    ``TypeError`` for a keyword it does not know or a value of the wrong type.
    The GIL is released while the document is rewritten.
    """

def rewrite_warc(
    src: str | os.PathLike[str] | _BinaryReader | IO[bytes],
    dst: str | os.PathLike[str] | _BinaryWriter | IO[bytes],
    *,
    mode: Literal["conversion", "replace"] = "conversion",
    jobs: int | None = None,
    gzip_level: int | None = None,
    zstd_level: int | None = None,
    **options: Unpack[Options],
) -> Summary:
    """Rewrites a web archive (WARC 1.0 or 1.1, plain, gzip or zstd), as
    ``htmlabs --warc SRC -o DST`` does.

    With ``mode="conversion"`` (``--warc-mode``), the archive comes out
    whole, byte for byte, and each response or resource rewritten (HTML,
    a stylesheet, a feed, a sitemap or SVG, by its media type) is
    followed by a ``conversion`` record; with ``mode="replace"``, a new
    record takes its place. ``jobs`` (``--jobs``) is how many records are
    rewritten at once, all cores when ``None``; the output is the same
    whatever it is. ``gzip_level`` (``--gzip-level``, 1 to 9; 1 when ``None``)
    is the level of the records written anew in a gzip archive, ``zstd_level``
    (``--zstd-level``, 1 to 19; 3 when ``None``) in a ``.warc.zst``; one given
    for an archive of the other compression is refused, as on the command
    line. ``src`` and ``dst`` are paths or
    binary file objects; a ``dst`` path is written through a temporary file
    renamed into place at the end, so it is complete or untouched.

    Raises :class:`ReadError`, :class:`WriteError` or :class:`ConfigError`
    with the command line's message. A malformed record is not an error: the
    rest of the input is copied as it is, with a warning, and
    ``Summary.incomplete`` is true. The GIL is released while it runs
    (a file object's calls take it back, one read or write at a time).
    """

class Link(TypedDict, total=False):
    """A link of an archive: a line of ``htmlabs --warc --links``."""

    record: str  # WARC-Record-ID, as written: "<urn:uuid:…>"
    target: str  # WARC-Target-URI: the page's URL
    date: str  # WARC-Date, as written
    line: int  # where the value stands in the record's HTTP message
    column: int
    offset: int
    element: str  # "a", "img", "style" (for a <style>'s text)…
    attribute: str  # "href", "srcset"…; "" for a <style>'s text
    kind: Literal["url", "list", "srcset", "css", "refresh", "html", "origin"]
    original: str  # the URL as the page says it (its entities decoded)
    raw: str  # only for a value not valid in the page's encoding: its bytes, percent-encoded
    absolute: str | None  # what it resolves to; None without a base
    outcome: str  # "rewritten", "absolute", "same-document", "unchanged", "no-base", "undecodable", "empty"
    base: str | None
    layer: Literal["embedded", "encapsulating", "retrieval", "none"]
    mapped: str  # only when a ``map`` rule matched ``absolute``: what was written
    map: str  # with ``mapped``: the rule, "OLD=NEW"

class CheckedLink(Link, total=False):
    """A link :func:`check_links` checked: a line of its ``--report``
    (with ``file`` for a site's, ``record``, ``target`` and ``date`` for
    an archive's), and ``broken``."""

    file: str  # a site's file, as walked under the directory given
    file_raw: str  # only for a name that is not UTF-8: its bytes, percent-encoded
    # None for a value with nothing to check (empty, no base, of an
    # archive another scheme)
    status: Literal[
        "found", "not-found", "fragment-not-found", "off-site", "service",
        "captured", "redirected", "failed", "not-captured", "redirect-loop",
    ] | None
    served: str  # the file reached (found, fragment-not-found): its path under the site
    capture: str  # the capture's WARC-Date (captured, failed)
    http: int  # the status an error was captured with (failed)
    redirect: str  # where a redirect's chain ends (redirected)
    end: str  # what is there: a status as above
    broken: bool  # leads nowhere, or to an error: what makes the command line exit 1

class CheckSummary:
    """What :func:`check_links` found: the command line's figures. Those of
    the other kind of source are ``None``."""

    source: Literal["site", "archive"]
    documents: int  # a site's documents; an archive's pages
    broken: int
    unchecked: int  # values with nothing to check
    found: int | None  # a site's links to its files that reach one
    off_site: int | None  # a site's links to other sites: counted, never fetched
    service: int | None  # a site's links the host answers itself (Netlify's functions): not checked
    captured: int | None  # an archive's links to a capture (or a revisit of one)
    redirected: int | None  # to a redirect whose chain ends at a capture
    failed: int | None  # to an error captured (4xx, 5xx)
    not_captured: int | None  # to nothing captured (directly or at a chain's end)
    seeds: list[str]  # with seeds=True: each URL not captured, once
    warnings: list[str]
    incomplete: bool  # the command line's exit status 2
    line: str  # the command line's summary line

class Links:
    """What :func:`warc_links` and :func:`check_links` give: an iterator
    of :class:`Link` (:class:`CheckedLink`)."""

    def __iter__(self) -> Links: ...
    def __next__(self) -> Link: ...
    @property
    def summary(self) -> Summary | CheckSummary | None:
        """The run's summary (its warnings, whether it was ``incomplete``;
        a :class:`CheckSummary` for :func:`check_links`) once every link
        has been given; ``None`` before."""

def warc_links(
    src: str | os.PathLike[str] | _BinaryReader | IO[bytes],
    *,
    jobs: int | None = None,
    **options: Unpack[Options],
) -> Links:
    """The links of every HTML page of a web archive, as ``htmlabs --warc
    SRC --links`` lists them: each a :class:`Link` (a line of its report
    as a ``dict``), the pages in the archive's order. No archive is written.

    The archive is read on a thread of its own with the GIL released, and
    its links come a few records ahead of the caller: memory stays flat in
    the file's size, and an iterator dropped early stops the reading.
    ``jobs`` (``--jobs``) is how many pages are read at once, all cores
    when ``None``. Raises :class:`ConfigError` for an option it cannot use
    at once, :class:`ReadError` for a file it cannot open, and from the
    iteration, with the command line's messages, for an archive that is
    not one. A malformed record is not an error: the links before it are
    given, and ``summary.incomplete`` is true.
    """

def check_links(
    src: str | os.PathLike[str],
    site_url: str | None = None,
    *,
    host: Literal["plain", "github-pages", "netlify", "cloudflare-pages", "gitlab-pages"]
    | None = None,
    site_url_only: bool = False,
    follow_links: bool = False,
    exclude: list[str] = ...,
    seeds: bool = False,
    jobs: int | None = None,
    **options: Unpack[Options],
) -> Links:
    """The links of a site or an archive, checked offline as
    ``htmlabs --check-links`` checks them: each a :class:`CheckedLink`, the
    documents in the run's order, and at the end ``summary``, a
    :class:`CheckSummary`. Nothing is written, nothing fetched.

    ``src`` a directory is a site served at ``site_url`` by ``host``'s
    rules (``--host``: ``plain`` when ``None``), its twins (``http:`` and
    ``https:``, ``www.``) the site's too unless ``site_url_only``;
    ``follow_links`` and ``exclude`` are ``--follow-links`` and
    ``--exclude``. ``src`` a file is a WARC whose pages' links are classed
    by its captures; ``seeds=True`` keeps each URL not captured in
    ``summary.seeds``. A keyword of the other kind is refused
    (:class:`ConfigError`). The run is on a thread of its own with the GIL
    released, a few documents ahead of the caller; an iterator dropped
    early stops it.
    """

class Capture(TypedDict):
    """A capture of a web archive: a response, revisit or resource record."""

    record: str  # WARC-Record-ID, as written
    target: str  # WARC-Target-URI: the URL captured
    key: str | None  # what a link's URL finds it by, as --check-links keys the capture (url_key(target) for a target without a fragment)
    date: str  # WARC-Date, as written
    status: int  # its final response's status (a resource: 200); 0 when none reads
    revisit: bool
    location: str | None  # a redirect's Location, resolved against target
    captured: bool  # a link to it reaches a capture: a 2xx response, or a revisit of one

class Captures(Iterator[Capture]):
    """What :func:`warc_captures` gives: the captures, in the archive's
    order, read as they are asked for; once all are given, the figures
    below (``None`` before)."""

    records: int | None  # records read
    warnings: list[str] | None  # of records that break, as the command line prints them
    incomplete: bool | None  # a record broke: a capture after it may be missing
    def __iter__(self) -> Captures: ...
    def __next__(self) -> Capture: ...

def warc_captures(
    src: str | os.PathLike[str] | _BinaryReader | IO[bytes],
    *,
    max_memory: int | str | None = None,
) -> Captures:
    """What a web archive captured, record by record, as ``htmlabs --warc
    ARCHIVE --check-links`` reads it before its links: each response,
    revisit (of a response) or resource record. Read on a thread of its
    own with the GIL released, a few batches ahead of the caller, so an
    archive of any size is listed within ``max_memory`` (what a record's
    reading holds and the batches on their way); an iterator dropped
    early stops it. Raises :class:`ReadError` for a file it cannot open,
    or, after the captures before it, one it cannot read; a record that
    breaks is a warning, and the records after it are read where they can
    be."""

def url_key(url: str) -> str | None:
    """The key a link's URL finds a capture by, as ``--check-links``
    matches them: the host (lowercase, no default port), the path without
    dot segments and the query; ``http:`` and ``https:`` alike, the
    fragment aside. ``None`` for a URL that is not ``http:`` or
    ``https:``."""
