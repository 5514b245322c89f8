//! htmlabs makes every link in a web document absolute, by RFC 1808, and
//! changes nothing else: pages, stylesheets, feeds, sitemaps and SVG, one
//! at a time, in a static site, in saved HTTP responses or in web archives.
//!
//! The way of every document (ARCHITECTURE.md in the repository says it
//! at length):
//!
//! ```text
//! bytes in ─► its type ─► its encoding ─► its base (§3 layers) ─► rewrite URL values ─► bytes out
//!             (HTML, CSS,  (BOM, flag,     the document's own         through the RFC 1808
//!              XML)         transport,     (<base href>, xml:base)    resolver, splicing only
//!                           <meta>, …)     > encapsulating entity     the value bytes
//!                                          > retrieval URL > none
//! ```
//!
//! What a library user takes: the engines' door ([`rewrite`],
//! [`rewrite_bytes`], [`Rewriter`], by the document's [`Type`], with the
//! run's [`Config`] and the document's [`Layers`], giving a [`Report`]),
//! the URL layer ([`rfc1808`], [`rfc3986`], [`BaseUrl`]), saved
//! responses ([`http`]), and a run of any source as the command line
//! runs it ([`run`]: a site, an archive, its tree or its links). The
//! rest is the crate's own; what the command line and the Python binding
//! share of it beyond this is the hidden `internal`, which changes as
//! they do.
//!
//! Engines, one per type of document, sources of documents above them. A
//! source finds each document, its [`Type`] and its [`Layers`] (the
//! encapsulating entity's base and charset, the retrieval URL), calls the
//! engine of its type through the door above, and names the document in
//! what it reports. The folders say what their code knows, and imports
//! point down this list:
//!
//! - [`run`]: one run of any source, the way every source is run (the
//!   request made a config, the plan of what it writes, the job run), and
//!   summed up by one [`run::Summary`];
//! - `request`: what the user asks for, by the command line's names, made
//!   into a [`Config`], the user's [`Layers`] and each source's options
//!   (the command line's and the Python binding's alike);
//! - `source/`: the sources (`page`, one document, a file or standard
//!   input, over `http` for saved responses; `site`; `warc`), heard by one
//!   `Listener`; `names`: how a file or a record is named in a line of
//!   output;
//! - `typed`: a document's [`Type`] and the one door to the engine for it
//!   ([`Rewriter`], [`rewrite`], [`rewrite_bytes`]); the engines' modules
//!   below are private;
//! - `xml/`: one XML document (feeds, sitemaps, SVG, XHTML), HTML inside
//!   feeds handed to the page engine; `stylesheet/`: one CSS file;
//! - `html/`: one page: lol_html, the splicing sink, the lookahead, the
//!   HTML encoding sniffing;
//! - `document/`: what every engine shares: the [`Config`], the [`Report`],
//!   [`Link`]s and [`Warning`]s and the [`Events`] that queue them, the
//!   run's memory, the attribute table, one value's edit and bytes, the
//!   UTF-16 front;
//! - `syntax/`: URLs inside a value (CSS, `srcset`, meta refresh);
//! - `url/`: [`rfc1808`], [`rfc3986`], [`Standard`], [`BaseUrl`] and the §3
//!   [`Layers`]; nothing of documents;
//! - `shown`: the one rule every value from the input is shown by.

#![forbid(unsafe_code)]

pub(crate) mod document;
mod html;
mod request;
pub mod run;
mod shown;
mod source;
mod stylesheet;
mod syntax;
mod typed;
mod url;
mod xml;

pub use document::attrs::Kind;
pub use document::config::Config;
pub use document::decision::Decision;
pub use document::encoding::{Chosen, EncodingSource};
pub use document::error::Error;
pub use document::events::Events;
pub use document::links::{Link, Mapped, Outcome, Position};
pub use document::report::{Counts, Report, Warning};
pub use source::output::error::SourceError;
pub use typed::{Rewriter, Type, rewrite, rewrite_bytes};
pub use url::{
    Base, BaseUrl, Below, Candidate, Charset, Ignored, Layer, LayerError, Layers, MapError,
    MapRule, Standard, UrlMap, rfc1808, rfc3986,
};

/// Saved HTTP responses: the status line and header fields read, the
/// body decoded of its codings and rewritten by its media type as
/// `--http` does, the header block kept byte for byte but for what the
/// body's rewrite changes (`Content-Length`, a `Location` made absolute).
pub mod http {
    pub use crate::source::http::{
        Block, Body, Error, HeadError, Options, Response, ResponseReport, ResponseWarning, Version,
        body_type, rewrite_response, rewrite_response_bytes,
    };
}

/// What the command line and the Python binding take from the library
/// beyond its API: the attribute table their flags make (and the tests
/// read as data), the request's words, a run heard by a listener and its
/// sources' own figures, how the sources name documents and values in
/// their messages, the link report's fields, the plan of written paths,
/// how a document's type is decided, an entity's base. Not for other
/// users: it changes as they do.
#[doc(hidden)]
pub mod internal {
    pub use crate::document::attrs::{Empty, Group, Row, Table, When};
    /// The request's words, as the command line reads them.
    pub mod request {
        pub use crate::request::{
            DOCUMENT_OPTIONS, default_max_memory, kind, size, standard, warc_mode,
        };
    }
    pub use crate::run::{run_heard, run_planned};
    pub use crate::source::http::{body_codings, body_decided, entity};
    pub use crate::source::summary::Tally;
    pub use crate::source::{listener, listing, names, output, page, plan, site, typing, warc};
    pub use crate::url::Served;
}

/// The README's examples, compiled as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The library guide's examples (`docs/library.md`), compiled as doctests.
#[doc = include_str!("../docs/library.md")]
#[cfg(doctest)]
pub struct LibraryDoctests;
