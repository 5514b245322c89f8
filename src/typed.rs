//! Documents of every type through one door: a page, a stylesheet or an XML
//! document, each to its engine, with the same promises, the same
//! [`Report`], [`Link`](crate::Link) and [`Warning`](crate::Warning) types,
//! the same [`Events`]. What decides a document's
//! type is here too, for the sources to share:
//! `--type`, the media type (`--http`, `--warc`), the file's extension
//! (`--site`), the first bytes.

use std::fmt;
use std::io::{Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use crate::document::config::Config;
use crate::document::error::Error;
use crate::document::events::Events;
use crate::document::links::Hear;
use crate::document::memory::Allowance;
use crate::document::report::{Report, Tell};
use crate::html;
use crate::stylesheet;
use crate::url::Layers;
use crate::xml::{self, XmlKind};

/// A document's type: which engine rewrites it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Type {
    Html,
    Css,
    Xml,
}

/// How many first bytes the sources read at first to tell a document's
/// type: the root element of a feed or a sitemap after a comment, a DOCTYPE
/// or a stylesheet instruction (a kilobyte tells nearly always). Where they
/// do not tell, a source reads on, up to `--max-lookahead`.
pub const FIRST_BYTES: usize = 4096;

/// As messages name it: `HTML`, `CSS`, `XML`.
impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Type::Html => "HTML",
            Type::Css => "CSS",
            Type::Xml => "XML",
        })
    }
}

impl Type {
    /// Its name for `--type` and the Python binding.
    pub fn name(self) -> &'static str {
        match self {
            Type::Html => "html",
            Type::Css => "css",
            Type::Xml => "xml",
        }
    }

    pub fn from_name(name: &str) -> Option<Type> {
        [Type::Html, Type::Css, Type::Xml]
            .into_iter()
            .find(|t| t.name() == name)
    }

    /// A document given alone, by its first bytes: XML when, after a byte
    /// order mark and white space, they are `<?xml` or the root element is
    /// one of the vocabularies (`xml::sniff`); anything else is HTML, an
    /// `html` root after `<?xml` too (XHTML, read as a page). A stylesheet
    /// is never told by its bytes: `--type css`.
    ///
    /// ```
    /// use htmlabs::Type;
    ///
    /// assert_eq!(Type::sniff(b"<?xml version='1.0'?><rss>"), Type::Xml);
    /// assert_eq!(Type::sniff(b"<!doctype html><p>"), Type::Html);
    /// ```
    pub fn sniff(first: &[u8]) -> Type {
        Type::sniffed(xml::sniff(first))
    }

    /// [`sniff`](Self::sniff), once the first bytes said what they say.
    pub(crate) fn sniffed(kind: Option<XmlKind>) -> Type {
        match kind {
            Some(_) => Type::Xml,
            None => Type::Html,
        }
    }

    /// A document by its media type (`Content-Type` without its
    /// parameters, any case) and its first bytes, for the sources that
    /// have one: `None` for a document no engine rewrites, and for
    /// `application/xml` or `text/xml` whose root is none of the
    /// vocabularies (left as it is).
    ///
    /// ```
    /// use htmlabs::Type;
    ///
    /// assert_eq!(Type::for_media_type("text/css", b"a{}"), Some(Type::Css));
    /// assert_eq!(Type::for_media_type("application/atom+xml", b"<feed>"), Some(Type::Xml));
    /// assert_eq!(Type::for_media_type("text/xml", b"<urlset>"), Some(Type::Xml));
    /// assert_eq!(Type::for_media_type("application/xml", b"<config/>"), None);
    /// assert_eq!(Type::for_media_type("image/png", b"\x89PNG"), None);
    /// ```
    pub fn for_media_type(media_type: &str, first: &[u8]) -> Option<Type> {
        Type::for_media_type_sniffed(media_type, xml::sniff(first))
    }

    /// [`for_media_type`](Self::for_media_type), once the first bytes said
    /// what they say.
    pub(crate) fn for_media_type_sniffed(media_type: &str, first: Option<XmlKind>) -> Option<Type> {
        let media_type = media_type.trim().to_ascii_lowercase();
        match media_type.as_str() {
            "text/html" | "application/xhtml+xml" => Some(Type::Html),
            "text/css" => Some(Type::Css),
            "application/rss+xml"
            | "application/atom+xml"
            | "application/rdf+xml"
            | "image/svg+xml" => Some(Type::Xml),
            "application/xml" | "text/xml" => vocabulary(first),
            _ => None,
        }
    }

    /// A file of a static site by its extension (any case) and its first
    /// bytes: `.html`, `.htm`, `.xhtml` are pages, `.css` stylesheets;
    /// `.xml`, `.rss`, `.atom`, `.feed`, `.svg` are XML when their root is
    /// one of the vocabularies; `None` for any other file, left as it is.
    ///
    /// ```
    /// use htmlabs::Type;
    ///
    /// assert_eq!(Type::for_extension("SVG", b"<svg xmlns='http://www.w3.org/2000/svg'/>"), Some(Type::Xml));
    /// assert_eq!(Type::for_extension("xml", b"<?xml version='1.0'?><project/>"), None);
    /// assert_eq!(Type::for_extension("css", b""), Some(Type::Css));
    /// ```
    pub fn for_extension(extension: &str, first: &[u8]) -> Option<Type> {
        Type::for_extension_sniffed(extension, xml::sniff(first))
    }

    /// [`for_extension`](Self::for_extension), once the first bytes said
    /// what they say.
    pub(crate) fn for_extension_sniffed(extension: &str, first: Option<XmlKind>) -> Option<Type> {
        match extension.to_ascii_lowercase().as_str() {
            "html" | "htm" | "xhtml" => Some(Type::Html),
            "css" => Some(Type::Css),
            "xml" | "rss" | "atom" | "feed" | "svg" => vocabulary(first),
            _ => None,
        }
    }
}

/// XML, if its root is one of the vocabularies.
fn vocabulary(first: Option<XmlKind>) -> Option<Type> {
    first
        .filter(|kind| XmlKind::is_vocabulary(*kind))
        .map(|_| Type::Xml)
}

/// A streaming rewriter of a document of any [`Type`], writing to `W`: the
/// engine of its type behind one shape. Give it the input in writes of any
/// size, then [`end`](Rewriter::end) it for the [`Report`]; what it tells as
/// it reads (warnings, and the links when asked for) waits in its
/// [`events`](Rewriter::events).
///
/// ```
/// use htmlabs::{Config, Layers, Rewriter, Standard, Type};
///
/// let layers = Layers::default().with_retrieval(Standard::Rfc1808, "http://h/css/a.css", "-r")?;
/// let config = Config::default();
/// let mut rewriter = Rewriter::new(Type::Css, config, layers, Vec::new());
/// rewriter.write(b"a { background: url(b.png) }")?;
/// for warning in rewriter.events().take_warnings() {
///     eprintln!("warning: {warning}");
/// }
/// let (_, out) = rewriter.end()?;
/// assert_eq!(out, b"a { background: url(http://h/css/b.png) }");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Rewriter<W: Write> {
    engine: Engine<W>,
    events: Events,
}

enum Engine<W: Write> {
    // Boxed: the engines' rewriters are of sizes from hundreds of bytes to
    // kilobytes.
    Html(Box<html::Rewriter<W>>),
    Css(Box<stylesheet::Rewriter<W>>),
    Xml(Box<xml::Rewriter<W>>),
}

impl<W: Write> Engine<W> {
    fn new(kind: Type, config: Arc<Config>, layers: Layers, output: W, tell: Tell) -> Self {
        match kind {
            Type::Html => Engine::Html(Box::new(
                html::Rewriter::new(config, layers, output).on_warning(tell),
            )),
            Type::Css => Engine::Css(Box::new(
                stylesheet::Rewriter::new(config, layers, output).on_warning(tell),
            )),
            Type::Xml => Engine::Xml(Box::new(
                xml::Rewriter::new(config, layers, output).on_warning(tell),
            )),
        }
    }

    fn on_link(self, hear: Hear) -> Self {
        match self {
            Engine::Html(r) => Engine::Html(Box::new(r.on_link(hear))),
            Engine::Css(r) => Engine::Css(Box::new(r.on_link(hear))),
            Engine::Xml(r) => Engine::Xml(Box::new(r.on_link(hear))),
        }
    }
}

impl<W: Write> Rewriter<W> {
    /// A document of type `kind`, read by the run's `config` (shared by
    /// every document of a run: an `Arc<Config>`, or a `Config` of its
    /// own) with the §3 `layers` its source gives it, written to `output`.
    pub fn new(kind: Type, config: impl Into<Arc<Config>>, layers: Layers, output: W) -> Self {
        let events = Events::default();
        let tell = events.teller();
        Rewriter {
            engine: Engine::new(kind, config.into(), layers, output, tell),
            events,
        }
    }

    /// A document inside an engine of its own (an HTTP response's body),
    /// which queues what it is told as its own: each warning told to `tell`,
    /// each link to `hear` when the link report is asked for.
    pub(crate) fn inside(
        kind: Type,
        config: Arc<Config>,
        layers: Layers,
        output: W,
        tell: Tell,
        hear: Option<Hear>,
    ) -> Self {
        let mut engine = Engine::new(kind, config, layers, output, tell);
        if let Some(hear) = hear {
            engine = engine.on_link(hear);
        }
        Rewriter {
            engine,
            events: Events::default(),
        }
    }

    /// Takes what the engine holds from `allowance` (a document's share of
    /// its run's memory), given before the first write; the links queued
    /// take from it too.
    pub(crate) fn with_allowance(self, allowance: Rc<Allowance>) -> Self {
        self.events.charge(&allowance);
        let engine = match self.engine {
            Engine::Html(r) => Engine::Html(Box::new(r.with_allowance(allowance))),
            Engine::Css(r) => Engine::Css(Box::new(r.with_allowance(allowance))),
            Engine::Xml(r) => Engine::Xml(Box::new(r.with_allowance(allowance))),
        };
        Rewriter { engine, ..self }
    }

    /// Keeps a page's anchors as it reads them (the report's, when each was
    /// read whole): what a link check needs of the page it checks, without
    /// reading it again. Nothing for a stylesheet or an XML document.
    pub(crate) fn with_anchors(self) -> Self {
        let engine = match self.engine {
            Engine::Html(r) => Engine::Html(Box::new(r.with_anchors())),
            engine => engine,
        };
        Rewriter { engine, ..self }
    }

    /// Reads a page as one a browser reads as XML (served as
    /// `application/xhtml+xml`, an `.xhtml` file): the `href` of each
    /// `<?xml-stylesheet?>` outside its root element is a link too, where
    /// HTML reads a comment. Nothing for a stylesheet or an XML document.
    pub fn served_as_xml(self) -> Self {
        let engine = match self.engine {
            Engine::Html(r) => Engine::Html(Box::new(r.served_as_xml())),
            engine => engine,
        };
        Rewriter { engine, ..self }
    }

    /// Writes nothing: the document is read for its links alone (a listing,
    /// a link check). A page copies none of its bytes to the output; a
    /// stylesheet or an XML document writes as it would, to an output that
    /// keeps nothing.
    pub(crate) fn discarding(self) -> Self {
        let engine = match self.engine {
            Engine::Html(r) => Engine::Html(Box::new(r.discarding())),
            engine => engine,
        };
        Rewriter { engine, ..self }
    }

    /// Asks for the link report: each URL value, once its place is known,
    /// is queued in the [`events`](Self::events): where it stands, what it
    /// says, what it resolves to, and what was done with it. Without it,
    /// nothing of this is computed.
    pub fn with_links(self) -> Self {
        let hear = self.events.hearer();
        Rewriter {
            engine: self.engine.on_link(hear),
            ..self
        }
    }

    /// [`with_links`](Self::with_links), but a page's links `only` does not
    /// want are told to it by their absolute URL alone, and not queued (a
    /// link check's links to other sites, which it only counts). A
    /// stylesheet or an XML document queues every link.
    /// The links passed over are counted in the events
    /// ([`Events::passed`]).
    pub(crate) fn with_links_only(self, only: impl FnMut(&str) -> bool + 'static) -> Self {
        let Rewriter { engine, events } = self.with_links();
        let engine = match engine {
            Engine::Html(r) => Engine::Html(Box::new(r.hearing_only(events.sieve(only)))),
            engine => engine,
        };
        Rewriter { engine, events }
    }

    /// What it told as it read, not yet taken: a handle that outlives the
    /// rewriter (what its [`end`](Self::end) tells is taken after it). The
    /// [`Report`] still lists every warning.
    pub fn events(&self) -> Events {
        self.events.clone()
    }

    pub fn kind(&self) -> Type {
        match self.engine {
            Engine::Html(_) => Type::Html,
            Engine::Css(_) => Type::Css,
            Engine::Xml(_) => Type::Xml,
        }
    }

    /// The next bytes of the input, however it is split.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        match &mut self.engine {
            Engine::Html(r) => r.write(chunk),
            Engine::Css(r) => r.write(chunk),
            Engine::Xml(r) => r.write(chunk),
        }
    }

    /// All that `input` gives, 64 KiB at a time.
    pub fn read_from(&mut self, input: impl Read) -> Result<(), Error> {
        match &mut self.engine {
            Engine::Html(r) => r.read_from(input),
            Engine::Css(r) => r.read_from(input),
            Engine::Xml(r) => r.read_from(input),
        }
    }

    /// Ends the input: the report and the output.
    pub fn end(self) -> Result<(Report, W), Error> {
        match self.engine {
            Engine::Html(r) => r.end(),
            Engine::Css(r) => r.end(),
            Engine::Xml(r) => r.end(),
        }
    }
}

/// Rewrites a whole document of type `kind` from `input` to `output`.
///
/// ```
/// use htmlabs::{Config, Layers, Standard, Type};
///
/// let layers = Layers::default().with_retrieval(Standard::Rfc1808, "http://h/feed.xml", "-r")?;
/// let config = Config::default();
/// let feed = &b"<feed xmlns='http://www.w3.org/2005/Atom'><link href='a'/></feed>"[..];
/// let mut out = Vec::new();
/// htmlabs::rewrite(Type::sniff(feed), config, layers, feed, &mut out)?;
/// assert_eq!(out, b"<feed xmlns='http://www.w3.org/2005/Atom'><link href='http://h/a'/></feed>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite(
    kind: Type,
    config: impl Into<Arc<Config>>,
    layers: Layers,
    input: impl Read,
    output: impl Write,
) -> Result<Report, Error> {
    let mut rewriter = Rewriter::new(kind, config, layers, output);
    rewriter.read_from(input)?;
    rewriter.end().map(|(report, _)| report)
}

/// Rewrites a document of type `kind` held in memory: the new bytes and the
/// report.
///
/// ```
/// use htmlabs::{Config, Layers, Standard, Type};
///
/// let layers = Layers::default().with_retrieval(Standard::Rfc1808, "http://h/a/", "-r")?;
/// let config = Config::default();
/// let (out, _) = htmlabs::rewrite_bytes(Type::Html, config, layers, b"<img src=x.png>")?;
/// assert_eq!(out, b"<img src=http://h/a/x.png>");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite_bytes(
    kind: Type,
    config: impl Into<Arc<Config>>,
    layers: Layers,
    bytes: &[u8],
) -> Result<(Vec<u8>, Report), Error> {
    match kind {
        Type::Html => html::rewrite_bytes(config, layers, bytes),
        Type::Css => stylesheet::rewrite_bytes(config, layers, bytes),
        Type::Xml => xml::rewrite_bytes(config, layers, bytes),
    }
}
