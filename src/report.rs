//! What a run did: the base and where it came from, counts, warnings. The
//! `Display` impls are the exact lines `-v` and the warnings print.

use std::fmt;

use crate::base::Base;
use crate::lookahead::Decision;

/// URL values met, by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Values (attributes written with a value) of the attribute table.
    pub seen: usize,
    pub rewritten: usize,
    /// Left as they were because they already have a scheme.
    pub absolute: usize,
    /// `#id` inside SVG, or any same-document reference with
    /// `--keep-fragments`.
    pub same_document: usize,
    /// Not valid in the document's encoding: left byte for byte.
    pub undecodable: usize,
    /// Left because no layer gave a base.
    pub no_base: usize,
    /// Resolved to themselves.
    pub unchanged: usize,
    /// Attributes written without a value (`<a href>`), not counted in `seen`.
    pub valueless: usize,
}

impl Counts {
    pub fn left(&self) -> usize {
        self.seen - self.rewritten
    }
}

#[derive(Debug, Clone)]
pub struct Report {
    pub base: Base,
    /// What ended the lookahead for `<base href>`.
    pub decision: Decision,
    pub counts: Counts,
    pub warnings: Vec<Warning>,
}

impl Report {
    /// The lines of `-v`, without the program name.
    pub fn verbose_lines(&self) -> Vec<String> {
        let c = &self.counts;
        let lookahead = match &self.decision {
            Decision::Base { offset, .. } => format!("ended at the `<base href>` at byte {offset}"),
            Decision::HeadOver { offset } => format!("ended at the end of the head, byte {offset}"),
            Decision::Limit => "ended at the lookahead limit".to_owned(),
            Decision::End => "ended at the end of the input".to_owned(),
        };
        vec![
            format!("base: {}", self.base),
            format!("lookahead: {lookahead}"),
            format!(
                "values: {} seen, {} rewritten, {} left as they were",
                c.seen,
                c.rewritten,
                c.left()
            ),
            format!(
                "left: {} already absolute, {} same-document, {} undecodable, {} without a base, {} unchanged",
                c.absolute, c.same_document, c.undecodable, c.no_base, c.unchanged
            ),
            format!("valueless attributes: {}", c.valueless),
        ]
    }
}

/// Something the user should know, printed to standard error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Warning {
    /// No layer of RFC 1808 §3 gave a base.
    NoBase,
    BaseIgnored {
        offset: usize,
        href: String,
        why: &'static str,
    },
    LookaheadLimit {
        limit: usize,
    },
    Undecodable {
        offset: usize,
    },
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NoBase => f.write_str(
                "no base URL (no `<base href>`, no --retrieved-from): the output is the input, unchanged",
            ),
            Warning::BaseIgnored { offset, href, why } => {
                write!(f, "`<base href>` at byte {offset} ignored: `{href}`: {why}")
            }
            Warning::LookaheadLimit { limit } => write!(
                f,
                "no `<base href>` and no end of the head in the first {limit} bytes (--max-lookahead): going on without an embedded base"
            ),
            Warning::Undecodable { offset } => {
                write!(f, "URL value at byte {offset} is not valid UTF-8: left as it is")
            }
        }
    }
}
