//! The XML engine: feeds (RSS 2.0, RSS 1.0, Atom 1.0), sitemaps, SVG, and
//! XHTML wherever it stands, with the same promises as the page engine:
//! only the bytes of URL values change, a second run changes nothing, and
//! how the input is split into writes never matters.
//!
//! - **What is rewritten**: by namespace URI and local name, never by
//!   prefix (the table is in the `vocabulary` module; docs/feeds.md lists it).
//!   An `<?xml-stylesheet?>`'s `href` (outside the root) is a value, against
//!   the document's base; other processing instructions and vocabularies
//!   are left as they are.
//!   Namespaces are resolved by a stack per prefix (`namespaces`), a
//!   declaration's value read as any attribute's (`xmlns="&ns_svg;"`).
//! - **The base**: `xml:base` (XML Base), each resolved against the base in
//!   scope, is layer 3.1 for the element that bears it and all it holds;
//!   outside any, the document's base from its layers, or an XHTML
//!   document's `<base href>` (the first in its head, read ahead for as
//!   the page engine does: `head`). The first `xml:base` a reader could not
//!   resolve as htmlabs does (against the document's own layers, or under
//!   one that was ignored) is made absolute; one inside it that is
//!   relative stays as written, since it resolves to the same there. One
//!   that cannot be a base (relative with nothing below it, `javascript:`,
//!   `data:`) is ignored with a warning. A link's [`Base`](crate::Base)
//!   says which `xml:base` set it ([`Layer::XmlBase`](crate::Layer::XmlBase)).
//! - **HTML inside feeds** (RSS `description`, `content:encoded`, Atom
//!   texts of `type="html"`): read from the XML (its references, its CDATA
//!   sections), rewritten by the page engine itself with the base in scope
//!   as its retrieval layer, and written back as it came: only the changed
//!   characters are new, escaped for the piece they land in; `&lt;` stays
//!   `&lt;`, `&#60;` stays `&#60;`, CDATA stays CDATA (split where a value
//!   would hold `]]>`). `type="xhtml"` content is XHTML, read as the XML it
//!   is: its elements take the page engine's attribute table.
//! - **Entities**: those the internal DTD subset declares are read where
//!   they are used (`entities`), bounded by the document's own size; a
//!   reference to one declared elsewhere leaves its value as it is.
//! - **Encodings**: a byte order mark (or XML 1.0 Appendix F's first
//!   bytes), `--encoding`, the transport layer's charset, the XML
//!   declaration, else UTF-8; UTF-16 is transcoded as for pages, UTF-32 and
//!   an encoding whose bytes are not ASCII's (ISO-2022-JP) refused.
//! - **Memory**: flat in the document's size, and no faster than the input
//!   in its depth. What grows with the input: the open elements' names,
//!   the namespace declarations in scope (each its prefix), the bases in
//!   scope (each what it adds to the one around it, the innermost whole),
//!   the entities the DOCTYPE declares, and the head read ahead for an
//!   XHTML `<base href>` (up to `--max-lookahead`). A value that is an
//!   element's content (`<loc>`, the HTML of an entry) is held whole,
//!   within `--max-memory`; a value, a construct or a text held that would
//!   pass it stops rewriting there: the rest is copied unchanged, with a
//!   warning, and the report is incomplete.
//! - **Not well-formed**: rewritten up to the error; the rest is copied
//!   unchanged, with a warning, and the report is incomplete. Markup (tags,
//!   attributes, nesting) and the values read are checked; other text is
//!   copied unread.

mod base;
mod construct;
mod document;
mod entities;
mod feed_html;
mod head;
pub(crate) mod ids;
mod namespaces;
mod sniff;
pub(crate) mod text;
mod vocabulary;

use std::io::{Read, Write};
use std::sync::Arc;

pub use sniff::{XmlKind, sniff, sniff_in};

use crate::document::buffers::CHUNK;
use crate::document::config::Config;
use crate::document::error::Error;
use crate::document::front::Front;
use crate::document::links::Hear;
use crate::document::memory::Allowance;
use crate::document::report::{Report, Tell};
use crate::url::Layers;
use document::Document;

/// A streaming rewriter of one XML document that writes to `W`: give it the
/// input in writes of any size, then [`end`](Rewriter::end) it for the
/// [`Report`]. The same shape as the page engine's
/// [`Rewriter`](crate::Rewriter).
///
/// ```
/// use htmlabs::{Config, Layers, Standard};
///
/// let layers = Layers::default().with_retrieval(
///     Standard::Rfc1808,
///     "https://example.com/blog/feed.xml",
///     "--retrieved-from",
/// )?;
/// let config = Config::default();
/// let mut rewriter = htmlabs::Rewriter::new(htmlabs::Type::Xml, config, layers, Vec::new());
/// rewriter.write(b"<rss version='2.0'><channel><item><link>posts/1</link>")?;
/// rewriter.write(b"<description>&lt;img src=\"a.png\"&gt;</description></item></channel></rss>")?;
/// let (report, xml) = rewriter.end()?;
/// assert_eq!(
///     String::from_utf8(xml)?,
///     "<rss version='2.0'><channel><item><link>https://example.com/blog/posts/1</link>\
///      <description>&lt;img src=\"https://example.com/blog/a.png\"&gt;</description></item></channel></rss>"
/// );
/// assert_eq!(report.counts.rewritten, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Rewriter<W: Write> {
    front: Front<W, Document<W>>,
}

impl<W: Write> Rewriter<W> {
    /// An XML document read by the run's `config` with the §3 `layers`
    /// its source gives it, written to `output`.
    pub fn new(config: impl Into<Arc<Config>>, layers: Layers, output: W) -> Self {
        Rewriter {
            front: Front::new(config.into(), layers, output),
        }
    }

    /// Takes what it holds from `allowance` (a document's share of its
    /// run's memory), given before the first write.
    pub(crate) fn with_allowance(mut self, allowance: std::rc::Rc<Allowance>) -> Self {
        self.front.with_allowance(allowance);
        self
    }

    /// Tells each warning to `tell` as it happens; the report still lists
    /// them all at the end.
    pub fn on_warning(mut self, tell: Tell) -> Self {
        self.front.on_warning(tell);
        self
    }

    /// Lets `hear` hear each URL value as it is resolved (the link report):
    /// its element is the path of element names as written
    /// (`rss/channel/item/link`, and on into the HTML of an entry:
    /// `feed/entry/content/a`), past seven names its first three, `…` and
    /// its last four, each cut at 64 bytes; its attribute the name as
    /// written, empty for an element's content.
    pub fn on_link(mut self, hear: Hear) -> Self {
        self.front.on_link(hear);
        self
    }

    /// Rewrites the next bytes of the input, however it is split.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.front.write(chunk)
    }

    /// Rewrites all that `input` gives, reading 64 KiB at a time.
    pub fn read_from(&mut self, input: impl Read) -> Result<(), Error> {
        self.front.read_from(input)
    }

    /// Ends the input: writes what is held, flushes, and gives back the
    /// report and the output.
    pub fn end(self) -> Result<(Report, W), Error> {
        self.front.end()
    }
}

/// Rewrites an XML document held in memory, as [`crate::rewrite_bytes`]
/// does a page.
///
/// ```
/// use htmlabs::{Config, Layers, Standard};
///
/// let layers = Layers::default().with_retrieval(
///     Standard::Rfc1808,
///     "https://example.com/icons/sprite.svg",
///     "WARC-Target-URI",
/// )?;
/// let config = Config::default();
/// let svg = b"<svg xmlns='http://www.w3.org/2000/svg' xmlns:x='http://www.w3.org/1999/xlink'>\
///             <use x:href='#a'/><image href='a.png'/></svg>";
/// let (out, report) = htmlabs::rewrite_bytes(htmlabs::Type::Xml, config, layers, svg)?;
/// assert_eq!(
///     String::from_utf8(out)?,
///     "<svg xmlns='http://www.w3.org/2000/svg' xmlns:x='http://www.w3.org/1999/xlink'>\
///      <use x:href='#a'/><image href='https://example.com/icons/a.png'/></svg>"
/// );
/// assert_eq!(report.counts.same_document, 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite_bytes(
    config: impl Into<Arc<Config>>,
    layers: Layers,
    xml: &[u8],
) -> Result<(Vec<u8>, Report), Error> {
    let output = Vec::with_capacity(xml.len() + xml.len() / 8);
    let mut rewriter = Rewriter::new(config, layers, output);
    for chunk in xml.chunks(CHUNK) {
        rewriter.write(chunk)?;
    }
    rewriter.end().map(|(report, output)| (output, report))
}
