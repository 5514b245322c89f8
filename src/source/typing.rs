//! The one place that decides a document's [`Type`] for every source, from
//! what the source knows of it: `--type` first; else the media
//! type (`--http`, `--warc`), the file's extension (`--site`), or, for a
//! document given alone, its first bytes. A source says what it knows as a
//! [`Clue`], and hands the [`Decided`] type to the engine dispatch
//! ([`Rewriter`](crate::Rewriter)); `-v` says what decided it.
//!
//! The first bytes are as many as tell the root element of an XML
//! document, whatever comments, processing instructions and DOCTYPE come
//! before it, up to `--max-lookahead` ([`read_first`], [`enough`]); they
//! are read in UTF-16 or UTF-32 by a byte order mark or XML 1.0 Appendix
//! F, or in the encoding the source knows (`--encoding`, a charset).

use std::fmt;
use std::io::{self, Read};

use encoding_rs::Encoding;

use crate::document::config::Config;
use crate::source::names;
use crate::typed::Type;
use crate::xml::{self, XmlKind};

/// How many first bytes a source reads at first to decide: the root
/// element of a feed or a sitemap after a comment, a DOCTYPE or a
/// stylesheet instruction. Where they do not tell, it reads on
/// ([`read_first`]).
pub const FIRST_BYTES: usize = crate::typed::FIRST_BYTES;

/// Whether `first` (all of the document, at its `end`) is enough to decide
/// its type: more bytes could tell no more. `encoding` is what the source
/// knows of it (`--encoding`, a charset), for UTF-16 without a byte order
/// mark.
///
/// ```
/// use htmlabs::internal::typing::enough;
///
/// assert!(enough(b"<?xml version='1.0'?><rss>", None));
/// assert!(!enough(b"<?xml version='1.0'?><!-- a licence as long as", None));
/// ```
pub fn enough(first: &[u8], encoding: Option<&'static Encoding>) -> bool {
    xml::sniff_in(first, encoding).complete
}

/// How far a document's first bytes are read to tell its type: the
/// lookahead's limit (`Config::lookahead`: `--max-lookahead`, within an
/// eighth of what a document may hold), and no less than [`FIRST_BYTES`].
pub fn sniff_limit(config: &Config) -> usize {
    config.lookahead().max(FIRST_BYTES)
}

/// Reads a document's first bytes from `input`: [`FIRST_BYTES`], then on
/// while they are not [`enough`], up to `limit` (`--max-lookahead`) or its
/// end. The caller gives them back in front of the rest.
pub fn read_first(
    input: &mut impl Read,
    encoding: Option<&'static Encoding>,
    limit: usize,
) -> io::Result<Vec<u8>> {
    let mut first = Vec::new();
    let mut want = FIRST_BYTES;
    loop {
        let had = first.len();
        input
            .by_ref()
            .take((want - had) as u64)
            .read_to_end(&mut first)?;
        let ended = first.len() < want;
        if ended || want >= limit || enough(&first, encoding) {
            return Ok(first);
        }
        want = want.saturating_mul(2).min(limit.max(FIRST_BYTES));
    }
}

/// What a source knows of a document, besides its first bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clue<'a> {
    /// One document given alone (a file, standard input): its first bytes
    /// decide, XML or else HTML.
    Alone,
    /// A response's body, by its `Content-Type` essence (lowercase), or
    /// `None` without one: then XML by its first bytes, else HTML when they
    /// start like HTML (the MIME Sniffing standard), else none.
    MediaType(Option<&'a str>),
    /// A file of a site, by its extension.
    Extension(&'a str),
    /// One document given alone by its file's name: by its extension where
    /// that names a type as a site's file's does (`.css`, `.html`, a feed's
    /// `.xml` or `.svg` whose root is one of the vocabularies), else by its
    /// first bytes as [`Clue::Alone`]. The one document the user gave is
    /// always read, whatever it is called.
    Named(&'a str),
}

/// What decided a document's type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum By {
    /// `--type` (the Python module's `type=`).
    Given,
    /// Its first bytes.
    FirstBytes,
    /// Its media type, as written in `Content-Type` (its essence).
    MediaType(String),
    /// Its extension, as the file's name has it.
    Extension(String),
}

/// A document's type, and what decided it; `kind` is `None` for a
/// document no engine reads (left as it is).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decided {
    pub kind: Option<Type>,
    pub by: By,
}

impl Decided {
    /// Whether the document is a page that a browser reads as XML: served
    /// as `application/xhtml+xml`, or an `.xhtml` file (the type every
    /// server gives it). Not when `--type` or its first bytes decided.
    ///
    /// ```
    /// use htmlabs::internal::typing::{Clue, decide};
    ///
    /// let page = b"<html xmlns='http://www.w3.org/1999/xhtml'>";
    /// assert!(decide(None, Clue::MediaType(Some("application/xhtml+xml")), page, None).served_as_xml());
    /// assert!(decide(None, Clue::Named("XHTML"), page, None).served_as_xml());
    /// assert!(!decide(None, Clue::MediaType(Some("text/html")), page, None).served_as_xml());
    /// assert!(!decide(None, Clue::Alone, page, None).served_as_xml());
    /// ```
    pub fn served_as_xml(&self) -> bool {
        self.kind == Some(Type::Html)
            && match &self.by {
                By::MediaType(essence) => {
                    essence.trim().eq_ignore_ascii_case("application/xhtml+xml")
                }
                By::Extension(extension) => extension.eq_ignore_ascii_case("xhtml"),
                By::Given | By::FirstBytes => false,
            }
    }
}

/// Decides the type of a document the source knows by `clue` (and the
/// user's `--type`, `given`), whose first bytes ([`read_first`], decoded
/// of any content coding) are `first`, in `encoding` if the source knows
/// it (`--encoding`, a charset) and the bytes do not say.
///
/// ```
/// use htmlabs::Type;
/// use htmlabs::internal::typing::{Clue, decide};
///
/// let rss = b"<?xml version='1.0'?><rss version='2.0'>";
/// assert_eq!(decide(None, Clue::Alone, rss, None).kind, Some(Type::Xml));
/// assert_eq!(decide(Some(Type::Html), Clue::Alone, rss, None).kind, Some(Type::Html));
/// assert_eq!(decide(None, Clue::MediaType(Some("text/css")), b"a{}", None).kind, Some(Type::Css));
/// assert_eq!(decide(None, Clue::MediaType(Some("application/xml")), b"<config/>", None).kind, None);
/// assert_eq!(decide(None, Clue::Extension("atom"), b"<feed>", None).kind, Some(Type::Xml));
/// assert_eq!(decide(None, Clue::Extension("xml"), b"<project/>", None).kind, None);
/// assert_eq!(decide(None, Clue::Named("css"), b"<p>a{}", None).kind, Some(Type::Css));
/// assert_eq!(decide(None, Clue::Named("xml"), b"<?xml version='1.0'?><project/>", None).kind, Some(Type::Xml));
/// assert_eq!(decide(None, Clue::Named("php"), b"<p>", None).kind, Some(Type::Html));
/// ```
pub fn decide(
    given: Option<Type>,
    clue: Clue<'_>,
    first: &[u8],
    encoding: Option<&'static Encoding>,
) -> Decided {
    if let Some(kind) = given {
        return Decided {
            kind: Some(kind),
            by: By::Given,
        };
    }
    let sniffed = xml::sniff_in(first, encoding).kind;
    match clue {
        Clue::Alone => Decided {
            kind: Some(Type::sniffed(sniffed)),
            by: By::FirstBytes,
        },
        Clue::MediaType(Some(essence)) => Decided {
            kind: Type::for_media_type_sniffed(essence, sniffed),
            by: By::MediaType(essence.to_owned()),
        },
        Clue::MediaType(None) => {
            // The MIME Sniffing standard takes `<?xml` for XML, whose
            // root then decides, as for `text/xml`.
            let kind = if sniffed.is_some_and(XmlKind::is_vocabulary) {
                Some(Type::Xml)
            } else if sniffs_as_html(first, true) == Some(true) {
                Some(Type::Html)
            } else {
                None
            };
            Decided {
                kind,
                by: By::FirstBytes,
            }
        }
        Clue::Extension(extension) => Decided {
            kind: Type::for_extension_sniffed(extension, sniffed),
            by: By::Extension(extension.to_owned()),
        },
        Clue::Named(extension) => match Type::for_extension_sniffed(extension, sniffed) {
            Some(kind) => Decided {
                kind: Some(kind),
                by: By::Extension(extension.to_owned()),
            },
            None => Decided {
                kind: Some(Type::sniffed(sniffed)),
                by: By::FirstBytes,
            },
        },
    }
}

/// Whether a media type (its essence, lowercase) may be of a document an
/// engine reads, before its first bytes are known: a source that holds
/// nothing for the others passes them over unread.
///
/// ```
/// use htmlabs::internal::typing::may_be_read;
///
/// assert!(may_be_read("application/xml"));
/// assert!(!may_be_read("image/png"));
/// ```
pub fn may_be_read(essence: &str) -> bool {
    Type::for_media_type(essence, b"<rss>").is_some()
}

/// The media type a rewritten document is named by when its own is not
/// known (a conversion record of a body without `Content-Type`).
pub fn media_type_of(kind: Type) -> &'static str {
    match kind {
        Type::Html => "text/html",
        Type::Css => "text/css",
        Type::Xml => "application/xml",
    }
}

/// The line of `-v`, without the program name: `type: XML
/// (`application/rss+xml`)`.
impl fmt::Display for Decided {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Some(kind) => write!(f, "type: {kind}")?,
            None => f.write_str("type: none that htmlabs reads")?,
        }
        match &self.by {
            By::Given => f.write_str(" (--type)"),
            By::FirstBytes => f.write_str(" (by its first bytes)"),
            By::MediaType(essence) => write!(
                f,
                " (its Content-Type, `{}`)",
                names::shown(essence.as_bytes())
            ),
            By::Extension(extension) => write!(f, " (its extension, `.{extension}`)"),
        }
    }
}

/// Whether a body without a `Content-Type` starts like HTML, by the MIME
/// Sniffing standard's "rules for identifying an unknown MIME type": after
/// whitespace, one of its HTML patterns (any case) and then a space or `>`.
/// `None` while `bytes` are too few to tell and more may come.
pub fn sniffs_as_html(bytes: &[u8], end: bool) -> Option<bool> {
    /// The standard reads at most this many bytes of a resource.
    const HEADER: usize = 1445;
    const PATTERNS: [&[u8]; 17] = [
        b"<!DOCTYPE HTML",
        b"<HTML",
        b"<HEAD",
        b"<SCRIPT",
        b"<IFRAME",
        b"<H1",
        b"<DIV",
        b"<FONT",
        b"<TABLE",
        b"<A",
        b"<STYLE",
        b"<TITLE",
        b"<B",
        b"<BODY",
        b"<BR",
        b"<P",
        b"<!--",
    ];
    let end = end || bytes.len() >= HEADER;
    let bytes = &bytes[..bytes.len().min(HEADER)];
    let Some(start) = bytes
        .iter()
        .position(|b| !matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' '))
    else {
        return end.then_some(false);
    };
    let rest = &bytes[start..];
    let mut undecided = false;
    for pattern in PATTERNS {
        let n = pattern.len().min(rest.len());
        if !rest[..n].eq_ignore_ascii_case(&pattern[..n]) {
            continue;
        }
        // `<!--` needs no tag-terminating byte after it.
        match rest.get(pattern.len()) {
            _ if n < pattern.len() => undecided = true,
            _ if pattern == b"<!--" => return Some(true),
            Some(b' ' | b'>') => return Some(true),
            Some(_) => {}
            None => undecided = true,
        }
    }
    if undecided && !end { None } else { Some(false) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xml_by_its_media_type_is_read_only_when_its_root_is_a_vocabulary() {
        let sitemap =
            b"<?xml version='1.0'?>\n<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>";
        for essence in ["application/xml", "text/xml"] {
            let clue = Clue::MediaType(Some(essence));
            assert_eq!(decide(None, clue, sitemap, None).kind, Some(Type::Xml));
            assert_eq!(
                decide(None, clue, b"<?xml version='1.0'?><pom/>", None).kind,
                None
            );
        }
        for essence in [
            "application/rss+xml",
            "application/atom+xml",
            "application/rdf+xml",
            "image/svg+xml",
        ] {
            // The media type says it, whatever the bytes.
            let decided = decide(None, Clue::MediaType(Some(essence)), b"", None);
            assert_eq!(decided.kind, Some(Type::Xml), "{essence}");
        }
        assert_eq!(
            decide(None, Clue::MediaType(Some("text/plain")), b"<rss>", None).kind,
            None
        );
    }

    #[test]
    fn a_body_without_a_media_type_is_xml_html_or_none_by_its_first_bytes() {
        let clue = Clue::MediaType(None);
        assert_eq!(
            decide(None, clue, b"  <feed xmlns='x'>", None).kind,
            Some(Type::Xml)
        );
        assert_eq!(
            decide(None, clue, b"<!doctype html>", None).kind,
            Some(Type::Html)
        );
        assert_eq!(decide(None, clue, b"{\"a\": 1}", None).kind, None);
        assert_eq!(
            decide(Some(Type::Css), clue, b"{}", None).kind,
            Some(Type::Css)
        );
    }

    #[test]
    fn a_named_document_is_of_its_extensions_type_else_of_its_first_bytes() {
        let named = |extension, first: &[u8]| decide(None, Clue::Named(extension), first, None);
        let rss = b"<?xml version='1.0'?><rss version='2.0'>";
        for (extension, first, kind, by_extension) in [
            ("css", &b"<!-- a sheet -->a{}"[..], Type::Css, true),
            ("CSS", b"", Type::Css, true),
            ("html", rss, Type::Html, true),
            ("xml", rss, Type::Xml, true),
            (
                "svg",
                b"<svg xmlns='http://www.w3.org/2000/svg'/>",
                Type::Xml,
                true,
            ),
            // What its extension does not decide, its first bytes do.
            ("xml", b"<?xml version='1.0'?><project/>", Type::Xml, false),
            ("svg", b"<svg><a href=x></svg>", Type::Html, false),
            ("php", b"<p>", Type::Html, false),
            ("txt", rss, Type::Xml, false),
        ] {
            let decided = named(extension, first);
            assert_eq!(decided.kind, Some(kind), "{extension}");
            let by = match by_extension {
                true => By::Extension(extension.to_owned()),
                false => By::FirstBytes,
            };
            assert_eq!(decided.by, by, "{extension}");
        }
        assert_eq!(
            decide(Some(Type::Html), Clue::Named("css"), b"", None).kind,
            Some(Type::Html),
            "--type wins"
        );
    }

    #[test]
    fn the_verbose_line_says_what_decided() {
        let line = |given, clue, first: &[u8]| decide(given, clue, first, None).to_string();
        assert_eq!(
            line(Some(Type::Css), Clue::Alone, b""),
            "type: CSS (--type)"
        );
        assert_eq!(
            line(None, Clue::Alone, b"<rss>"),
            "type: XML (by its first bytes)"
        );
        assert_eq!(
            line(None, Clue::MediaType(Some("application/atom+xml")), b""),
            "type: XML (its Content-Type, `application/atom+xml`)"
        );
        assert_eq!(
            line(None, Clue::Extension("xml"), b"<project/>"),
            "type: none that htmlabs reads (its extension, `.xml`)"
        );
    }

    #[test]
    fn a_body_sniffs_as_html_by_the_standards_patterns() {
        assert_eq!(sniffs_as_html(b"  \n<!doctype html>", true), Some(true));
        assert_eq!(sniffs_as_html(b"<html>", true), Some(true));
        assert_eq!(sniffs_as_html(b"<p class=x>", true), Some(true));
        assert_eq!(sniffs_as_html(b"<!-- x -->", true), Some(true));
        assert_eq!(sniffs_as_html(b"<pre>", true), Some(false));
        assert_eq!(sniffs_as_html(b"{\"a\": 1}", true), Some(false));
        assert_eq!(sniffs_as_html(b"\x89PNG", true), Some(false));
        assert_eq!(sniffs_as_html(b"", true), Some(false));
        // More may come: `<htm` may be `<html>`, `<p` may be `<pre>`.
        assert_eq!(sniffs_as_html(b"<htm", false), None);
        assert_eq!(sniffs_as_html(b"<p", false), None);
        assert_eq!(sniffs_as_html(b"   ", false), None);
        assert_eq!(sniffs_as_html(b"<p", true), Some(false));
        assert_eq!(sniffs_as_html(&[b' '; 2000], false), Some(false));
    }
}
