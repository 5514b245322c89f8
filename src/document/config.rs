//! What a document's rewrite is asked to do.

use std::rc::Rc;

use encoding_rs::Encoding;

use super::attrs::Table;
use super::memory::{Allowance, Memory};
use std::sync::Arc;

use crate::url::{LocalTree, Standard, UrlMap};

/// What a run asks of every document, validated: run-wide, it holds none
/// of a document's own (its §3 layers come with the document), and it is
/// shared, not copied, from document to document (`Arc<Config>`).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Config {
    pub standard: Standard,
    /// Leave same-document references (`#top`, and `""`) as they are.
    pub keep_fragments: bool,
    /// How many bytes to hold at most while looking for `<base href>`.
    pub max_lookahead: usize,
    /// `--max-memory`: the most the whole run holds at once. A document may
    /// hold half of it (the oldest in flight; one beside it a small share,
    /// and again with half when it needs more); past that, the rest of the
    /// document passes through unchanged. Default: a quarter of the memory
    /// this process may use, at least 64 MiB
    /// (`document::memory::default_total`).
    pub max_memory: usize,
    /// `--encoding`: the document's encoding, unless a byte order mark says
    /// otherwise.
    pub encoding: Option<&'static Encoding>,
    /// What is rewritten: the command line's `--only`, `--lazy` and
    /// `--attribute` made a table (`request::Request::config`).
    #[doc(hidden)]
    pub table: Table,
    /// `--map OLD=NEW`: what an absolute URL becomes once resolved.
    pub map: UrlMap,
    /// `--relative`: the tree whose files a page's and a stylesheet's links
    /// reach by relative references, from the document's own file (a
    /// site's run sets it, once its files are known).
    pub(crate) local: Option<Arc<LocalTree>>,
}

impl Config {
    /// The allowance of a document rewritten outside any run: the head
    /// share of a memory of its own, `--max-memory` as the config says.
    pub(crate) fn own_allowance(&self) -> Rc<Allowance> {
        Allowance::new(Memory::new(self.max_memory).alone())
    }

    /// How far the lookahead holds the input, and reads to tell a type:
    /// `--max-lookahead`, and no more than a sixteenth of `--max-memory`
    /// (an eighth of what a document may hold, whatever its share), at
    /// least 4 KiB.
    pub(crate) fn lookahead(&self) -> usize {
        self.max_lookahead.min((self.max_memory / 16).max(4 << 10))
    }
}

impl Default for Config {
    fn default() -> Self {
        Config {
            standard: Standard::default(),
            keep_fragments: false,
            max_lookahead: 1 << 20,
            max_memory: crate::document::memory::default_total(),
            encoding: None,
            table: Table::default(),
            map: UrlMap::default(),
            local: None,
        }
    }
}

/// How deep `srcdoc` documents may nest inside each other.
pub const MAX_DEPTH: u8 = 8;

/// Where a document stands: a page, or a document inside a page's value.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Nesting {
    /// Whether the document's own `<base href>` counts (§3.1); not for the
    /// contents of `<noscript>`, which are part of the page around them.
    pub embedded: bool,
    /// How deeply this document is nested in others (`srcdoc`).
    pub depth: u8,
    /// Whether the replacements made are kept, for the page around it.
    pub record_splices: bool,
    /// Whether the page's anchors are kept as it is read (`--check-links`:
    /// a link to a part of the page itself then needs no second read).
    pub anchors: bool,
    /// Whether its output is wanted: not for a listing or a link check,
    /// which read the document for its links and write nothing, so no
    /// byte of it is copied out.
    pub discard: bool,
    /// Whether the page is served as XML (an `.xhtml` file): a browser
    /// then reads it as XML, and loads the `href` of each
    /// `<?xml-stylesheet?>` outside its root element, which HTML reads as
    /// a comment.
    pub xml: bool,
}

impl Nesting {
    /// A page of its own.
    pub const PAGE: Nesting = Nesting {
        embedded: true,
        depth: 0,
        record_splices: false,
        anchors: false,
        discard: false,
        xml: false,
    };
}
