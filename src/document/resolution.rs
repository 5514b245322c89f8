//! The resolution context: what resolving a document's values needs, fixed
//! once its base and encoding are decided and built once, then shared by
//! every value.

use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::Encoding;

use super::attrs::Table;
use super::config::Config;
use super::links::Link;
use super::report::Report;
use crate::document::memory::{Allowance, Budget, OverBudget};
use crate::url::{Base, BaseUrl, LocalTree, Standard, UrlMap};

/// The replacements a document made, in order: each input range and its
/// new bytes, which lie one after another in one buffer (not one allocation
/// each: a document may make millions).
#[derive(Debug, Default)]
pub struct Splices {
    /// Each input range, and where its new bytes end in `bytes`.
    ranges: Vec<(Range<usize>, usize)>,
    bytes: Vec<u8>,
}

impl Splices {
    pub fn push(&mut self, range: Range<usize>, new: &[u8]) {
        self.bytes.extend_from_slice(new);
        self.ranges.push((range, self.bytes.len()));
    }

    /// Each input range and its new bytes.
    pub fn iter(&self) -> impl Iterator<Item = (Range<usize>, &[u8])> {
        let mut start = 0;
        self.ranges.iter().map(move |(range, end)| {
            let new = &self.bytes[start..*end];
            start = *end;
            (range.clone(), new)
        })
    }

    /// The memory it holds.
    pub fn size(&self) -> usize {
        self.ranges.len() * std::mem::size_of::<(Range<usize>, usize)>() + self.bytes.len()
    }
}

/// What a nested document's rewrite gives back: its report, its output
/// (when it is kept), the replacements made (when they are recorded), and
/// its links (when asked for); what they hold stays taken from the
/// document's allowance while they are kept.
pub struct Nested {
    pub report: Report,
    pub output: Vec<u8>,
    pub splices: Splices,
    pub links: Vec<Link>,
    /// Given back when it is dropped.
    pub _held: Budget,
}

/// Runs a document nested in a value (`srcdoc`, the text of `<noscript>`)
/// through a rewriter of its own, within the page's allowance: its bytes,
/// their encoding, whether it is a document of its own (its own `<base
/// href>` counts, its replacements are what is kept; else its output), and
/// whether its links are listed. `Err` when it does not fit what is left.
/// The rewriter provides it, so that the code of values can start one
/// without depending on it.
pub type Nest =
    fn(&Resolution, &[u8], &'static Encoding, bool, bool) -> Result<Option<Nested>, OverBudget>;

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
    /// `--map`: what an absolute URL becomes once resolved.
    pub map: UrlMap,
    /// `--relative`: the tree whose files are reached by relative
    /// references, and the URL of the document's own file (its retrieval
    /// URL), from which they are made. Either missing: links stay absolute
    /// (a feed, a sitemap: their readers need them absolute).
    pub local: Option<Arc<LocalTree>>,
    pub document: Option<String>,
    /// The path of the document's own file in `local`, found once for all
    /// its values.
    document_file: Option<Vec<u8>>,
    /// The lookahead limit in force, for the documents nested in values.
    pub max_lookahead: usize,
    /// How deeply this document is nested in others (`srcdoc`).
    pub depth: u8,
    pub nest: Nest,
    /// What the document's holders take from: its values' working copies,
    /// the documents nested in them.
    pub allowance: Rc<Allowance>,
}

impl Resolution {
    /// The document's own URL, from which `--relative` makes references:
    /// its retrieval URL (§3.3), when it has one.
    pub fn with_document(mut self, document: Option<String>) -> Self {
        self.document_file = match (&self.local, &document) {
            (Some(tree), Some(document)) => tree.file_of(document),
            _ => None,
        };
        self.document = document;
        self
    }

    /// The tree and the path of the document's own file in it, under
    /// `--relative`.
    pub fn relative(&self) -> Option<(&LocalTree, &[u8])> {
        Some((self.local.as_deref()?, self.document_file.as_deref()?))
    }

    pub fn new(
        base: Base,
        encoding: &'static Encoding,
        config: &Config,
        depth: u8,
        nest: Nest,
        allowance: Rc<Allowance>,
    ) -> Self {
        Resolution {
            url: BaseUrl::new(config.standard, &base.url),
            base,
            encoding,
            standard: config.standard,
            keep_fragments: config.keep_fragments,
            table: config.table.clone(),
            map: config.map.clone(),
            local: config.local.clone(),
            document: None,
            document_file: None,
            max_lookahead: config.lookahead(),
            depth,
            nest,
            allowance,
        }
    }
}
