//! How a document's own base was looked for: the page engine's lookahead
//! over the head, or an engine that has no lookahead, and what ended it.
//! The report says it, whatever the engine.

use std::ops::Range;

/// What ended the hold (the page engine's lookahead), or why there was none.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// The first `<base>` with an `href` in the head: its tag's byte offset,
    /// its value as lol_html read it (as UTF-8), and the value's byte range
    /// (whose bytes are decoded once the encoding is known).
    Base {
        offset: usize,
        href: String,
        value: Range<usize>,
    },
    /// The head ended at this byte offset with no `<base href>`.
    HeadOver { offset: usize },
    /// Nothing decided within the lookahead limit.
    Limit,
    /// No `<base`, in any case, in the first `bytes` of the input (all of
    /// it, if `end`), and the encoding known without the head: there is no
    /// base to find, so the head was not read.
    NoBase { bytes: usize, end: bool },
    /// The input ended first.
    End,
    /// Not looked for: the contents of `<noscript>` have no base of their own.
    Skipped,
    /// The memory limit stopped rewriting before the lookahead decided.
    Stopped,
    /// No lookahead: an XML document, whose `xml:base` attributes set layer
    /// 3.1 element by element, for what each one holds; `bases` of them
    /// were used.
    XmlBase { bases: usize },
    /// No lookahead: a stylesheet has no base of its own.
    Stylesheet,
}
