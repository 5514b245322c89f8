//! The resolution context: what resolving a document's values needs, fixed
//! once its base and encoding are decided and built once, then shared by
//! every value.

use std::ops::Range;

use encoding_rs::Encoding;

use super::attrs::Table;
use super::config::Config;
use super::links::Link;
use super::report::Report;
use crate::url::{Base, BaseUrl, Standard};

/// A replacement made: the input range and its new bytes.
pub type Splice = (Range<usize>, Vec<u8>);

/// What a nested document's rewrite gives back: its report, its output, the
/// replacements made, and its links (when asked for).
pub type Nested = (Report, Vec<u8>, Vec<Splice>, Vec<Link>);

/// Runs a document nested in a value (`srcdoc`, the text of `<noscript>`)
/// through a rewriter of its own: its bytes, their encoding, whether its
/// own `<base href>` counts, and whether its links are listed. The rewriter
/// provides it, so that the code of values can start one without depending
/// on it.
pub type Nest = fn(&Resolution, &[u8], &'static Encoding, bool, bool) -> Option<Nested>;

pub struct Resolution {
    pub base: Base,
    /// The base, made ready for resolution.
    pub url: BaseUrl,
    /// The encoding the document's bytes are in (UTF-8 when UTF-16 was
    /// transcoded).
    pub encoding: &'static Encoding,
    pub standard: Standard,
    pub keep_fragments: bool,
    pub table: Table,
    /// How deeply this document is nested in others (`srcdoc`).
    pub depth: u8,
    pub nest: Nest,
}

impl Resolution {
    pub fn new(
        base: Base,
        encoding: &'static Encoding,
        config: &Config,
        depth: u8,
        nest: Nest,
    ) -> Self {
        Resolution {
            url: BaseUrl::new(config.standard, &base.url),
            base,
            encoding,
            standard: config.standard,
            keep_fragments: config.keep_fragments,
            table: config.table.clone(),
            depth,
            nest,
        }
    }
}
