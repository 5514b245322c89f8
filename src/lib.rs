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
//! Engines, one per type of document, sources of documents above them. A
//! source finds each document, its [`Type`] and its [`Layers`] (the
//! encapsulating entity's base and charset, the retrieval URL), calls the
//! engine of its type through [`rewrite`] (a stream), [`rewrite_bytes`] (a
//! document in memory) or [`Rewriter`] (writes of any size, its [`Events`]
//! taken as it goes), and names the document in what it reports. The folders say what their
//! code knows, and imports point down this list:
//!
//! - [`run`]: one run of any source, the way every source is run (the
//!   request made a config, the plan of what it writes, the job run), and
//!   summed up by one [`run::Summary`];
//! - [`request`]: what the user asks for, by the command line's names, made
//!   into a [`Config`], the user's [`Layers`] and each source's options
//!   (the command line's and the Python binding's alike);
//! - [`source`]: the sources ([`source::page`], one document, a file or
//!   standard input, over [`source::http`] for saved responses; [`source::site`];
//!   [`source::warc`]), heard by one [`source::listener::Listener`];
//!   [`source::names`]: how a file or a record is named in a line of output;
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
pub mod request;
pub mod run;
mod shown;
pub mod source;
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
    Base, BaseUrl, Below, Candidate, Charset, Host, Ignored, Layer, LayerError, Layers, MapError,
    MapRule, Missing, Served, Standard, UrlMap, rfc1808, rfc3986,
};

/// What the command line and the Python binding take from the library
/// beyond its API: the attribute table their flags make (and the tests
/// read as data), how the sources name documents and values in their
/// messages, the link report's fields, the plan of written paths, how a
/// document's type is decided, an entity's base. Not for other users:
/// it changes as they do.
#[doc(hidden)]
pub mod internal {
    pub use crate::document::attrs::{Empty, Group, Row, Table, When};
    pub use crate::source::http::{body_codings, entity};
    pub use crate::source::{listing, names, plan, typing};
}

/// The README's examples, compiled as doctests so they stay true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// The library guide's examples (`docs/library.md`), compiled as doctests.
#[doc = include_str!("../docs/library.md")]
#[cfg(doctest)]
pub struct LibraryDoctests;
