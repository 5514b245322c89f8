//! The stylesheet engine: a whole CSS file, its `url()`, `@import` strings
//! and `image-set()` strings found by the page engine's own CSS scanner
//! (`syntax::css`, which knows comments, strings, escapes and bad urls) and
//! resolved against the stylesheet's own URL: its layers (`--retrieved-from`,
//! the file's URL in a site, headers and `WARC-Target-URI` in an archive),
//! never the page that links to it. Every other byte comes out as it came;
//! a second run changes nothing.
//!
//! Its own module, not a part of `syntax/css`: that scanner knows CSS text
//! and nothing of documents, while a stylesheet is a document (its
//! encoding, its base, its report and links), as the page and XML engines
//! are.
//!
//! A stylesheet is held whole, within `--max-memory` (past it, it goes out
//! as it came, with a warning, and the report is incomplete). Its encoding:
//! a byte order mark (UTF-16 transcoded, as pages), `--encoding`, the
//! transport layer's charset, `@charset`, else UTF-8; in UTF-8, a byte that
//! is not valid leaves only the URL that holds it as it is.
//!
//! A link's position is its line and column; its element and attribute
//! are empty (no element holds it).

mod charset;
mod sheet;
mod text;

use std::io::{Read, Write};
use std::sync::Arc;

use crate::document::buffers::CHUNK;
use crate::document::config::Config;
use crate::document::error::Error;
use crate::document::front::Front;
use crate::document::links::Hear;
use crate::document::memory::Allowance;
use crate::document::report::{Report, Tell};
use crate::url::Layers;
use sheet::Sheet;

/// A streaming rewriter of one stylesheet that writes to `W`, with the page
/// engine's shape ([`Rewriter`](crate::Rewriter)).
///
/// ```
/// use htmlabs::{Config, Layers, Standard};
///
/// let layers = Layers::default().with_retrieval(
///     Standard::Rfc1808,
///     "https://example.com/css/site.css",
///     "--retrieved-from",
/// )?;
/// let config = Config::default();
/// let mut rewriter = htmlabs::Rewriter::new(htmlabs::Type::Css, config, layers, Vec::new());
/// rewriter.write(b"@import 'reset.css';\nbody { background: url(../img/bg.png) }")?;
/// rewriter.write(b" /* url(not-this.png) */")?;
/// let (report, css) = rewriter.end()?;
/// assert_eq!(
///     String::from_utf8(css)?,
///     "@import 'https://example.com/css/reset.css';\n\
///      body { background: url(https://example.com/img/bg.png) } /* url(not-this.png) */"
/// );
/// assert_eq!(report.counts.rewritten, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Rewriter<W: Write> {
    front: Front<W, Sheet<W>>,
}

impl<W: Write> Rewriter<W> {
    /// A stylesheet read by the run's `config` with the §3 `layers` its
    /// source gives it, written to `output`.
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

    /// Lets `hear` hear each URL as it is resolved (the link report), at
    /// its line and column; its element and attribute are empty.
    pub fn on_link(mut self, hear: Hear) -> Self {
        self.front.on_link(hear);
        self
    }

    /// Takes the next bytes of the input, however it is split.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.front.write(chunk)
    }

    /// Takes all that `input` gives, reading 64 KiB at a time.
    pub fn read_from(&mut self, input: impl Read) -> Result<(), Error> {
        self.front.read_from(input)
    }

    /// Ends the input: rewrites the stylesheet, writes it, and gives back
    /// the report and the output.
    pub fn end(self) -> Result<(Report, W), Error> {
        self.front.end()
    }
}

/// Rewrites a stylesheet held in memory, as [`crate::rewrite_bytes`] does a
/// page.
///
/// ```
/// use htmlabs::{Config, Layers, Standard};
///
/// let layers = Layers::default().with_retrieval(
///     Standard::Rfc1808,
///     "https://example.com/a/b.css",
///     "WARC-Target-URI",
/// )?;
/// let config = Config::default();
/// let (out, _) = htmlabs::rewrite_bytes(
///     htmlabs::Type::Css, config, layers,
///     b"a { background-image: image-set('x.png' 1x, 'x2.png' 2x) }",
/// )?;
/// assert_eq!(
///     out,
///     b"a { background-image: image-set('https://example.com/a/x.png' 1x, 'https://example.com/a/x2.png' 2x) }"
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite_bytes(
    config: impl Into<Arc<Config>>,
    layers: Layers,
    css: &[u8],
) -> Result<(Vec<u8>, Report), Error> {
    let output = Vec::with_capacity(css.len() + css.len() / 8);
    let mut rewriter = Rewriter::new(config, layers, output);
    for chunk in css.chunks(CHUNK) {
        rewriter.write(chunk)?;
    }
    rewriter.end().map(|(report, output)| (output, report))
}
