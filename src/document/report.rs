//! What a run did: the base and where it came from, counts, warnings. The
//! `Display` impls are the exact lines `-v` and the warnings print.

use std::collections::HashSet;
use std::fmt;

use super::attrs::Kind;
use super::config::MAX_DEPTH;
use super::decision::Decision;
use super::encoding::Chosen;
use crate::shown::shown;
use crate::url::{Base, Below, Candidate, Layers};

/// URL values met, by outcome.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Counts {
    /// Values (attributes written with a value) of the attribute table.
    pub seen: usize,
    pub rewritten: usize,
    /// Left as they were because they already have a scheme.
    pub absolute: usize,
    /// `#id` inside SVG, or any same-document reference with
    /// `--keep-fragments`.
    pub same_document: usize,
    /// Empty, where the attribute's empty value names no resource (the
    /// table's [`Empty::Nothing`](super::attrs::Empty::Nothing)).
    pub empty: usize,
    /// Not valid in the document's encoding: left byte for byte.
    pub undecodable: usize,
    /// Left because no layer gave a base.
    pub no_base: usize,
    /// Resolved to themselves.
    pub unchanged: usize,
    /// Attributes written without a value (`<a href>`), not counted in `seen`.
    pub valueless: usize,
    /// `rewritten`, by the kind of value they stood in (`attrs::Kind as usize`;
    /// `<style>` counts as CSS, `<noscript>` as what is inside it).
    pub by_kind: [usize; Kind::ALL.len()],
}

impl Counts {
    pub fn left(&self) -> usize {
        self.seen - self.rewritten
    }

    /// Adds a nested document's counts.
    pub fn add(&mut self, other: &Counts) {
        self.seen += other.seen;
        self.rewritten += other.rewritten;
        self.absolute += other.absolute;
        self.same_document += other.same_document;
        self.empty += other.empty;
        self.undecodable += other.undecodable;
        self.no_base += other.no_base;
        self.unchanged += other.unchanged;
        self.valueless += other.valueless;
        for (mine, theirs) in self.by_kind.iter_mut().zip(other.by_kind) {
            *mine += theirs;
        }
    }
}

#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Report {
    pub base: Base,
    /// The layers below the document, as the run was given them.
    pub layers: Layers,
    /// What ended the lookahead for `<base href>`.
    pub decision: Decision,
    /// The document's encoding and where it came from.
    pub encoding: Chosen,
    pub counts: Counts,
    pub warnings: Vec<Warning>,
    /// A page's anchors, when they were asked for (`--check-links`) and
    /// each was read whole: what a fragment of a link to the page can
    /// name.
    pub(crate) anchors: Option<HashSet<String>>,
}

impl Report {
    /// Whether the run stopped rewriting before the end (the memory limit):
    /// the output is complete, but not all of it is rewritten.
    pub fn incomplete(&self) -> bool {
        self.warnings.iter().any(Warning::stops_rewriting)
    }

    /// A line for each layer of §3, innermost first: its candidate, and
    /// whether it gave the base (the innermost defined one does) or why not.
    fn layer_lines(&self) -> Vec<String> {
        let winner = self.base.layer.section();
        let won = |section: &str| {
            if section == winner {
                "used".to_owned()
            } else {
                format!("passed over: layer {winner} gives the base")
            }
        };
        let embedded = match &self.decision {
            Decision::Base { offset, .. } => {
                let ignored = self.warnings.iter().find_map(|w| match w {
                    Warning::BaseIgnored {
                        offset: at, why, ..
                    } if at == offset => Some(why),
                    _ => None,
                });
                match ignored {
                    Some(why) => format!("`<base href>` at byte {offset}, ignored: {why}"),
                    None => format!("`<base href>` at byte {offset}, {}", won("3.1")),
                }
            }
            Decision::XmlBase { bases: 0 } => "none (no `xml:base` was used)".to_owned(),
            Decision::XmlBase { bases } => format!(
                "`xml:base` on {bases} element{}, each for what it holds",
                if *bases == 1 { "" } else { "s" }
            ),
            Decision::Stylesheet => "none (a stylesheet has no base of its own)".to_owned(),
            _ => "none".to_owned(),
        };
        let below = |candidate: Option<&Candidate>, section| match candidate {
            Some(c) => format!(
                "`{}` from {}, {}",
                shown(c.url.as_bytes()),
                c.from,
                won(section)
            ),
            None => "none".to_owned(),
        };
        // A source's notes on a layer follow its line, named the same way.
        let noted = |name: &str, layer| {
            self.layers
                .notes(layer)
                .map(|note| format!("{name}: {note}"))
                .collect::<Vec<_>>()
        };
        let encapsulating = "layer 3.2 (encapsulating entity)";
        let retrieval = "layer 3.3 (retrieval URL)";
        [
            vec![
                format!("layer 3.1 (embedded): {embedded}"),
                format!(
                    "{encapsulating}: {}",
                    below(self.layers.encapsulating(), "3.2")
                ),
            ],
            noted(encapsulating, Below::Encapsulating),
            vec![format!(
                "{retrieval}: {}",
                below(self.layers.retrieval(), "3.3")
            )],
            noted(retrieval, Below::Retrieval),
            vec![format!(
                "layer 3.4 (default): the empty base, {}",
                won("3.4")
            )],
        ]
        .concat()
    }

    /// The lines of `-v`, without the program name.
    pub fn verbose_lines(&self) -> Vec<String> {
        let c = &self.counts;
        let lookahead = match &self.decision {
            Decision::Base { offset, .. } => format!("ended at the `<base href>` at byte {offset}"),
            Decision::HeadOver { offset } => format!("ended at the end of the head, byte {offset}"),
            Decision::Limit => "ended at the lookahead limit".to_owned(),
            Decision::NoBase { end: true, .. } => "not needed: no `<base` in the input".to_owned(),
            Decision::NoBase { bytes, .. } => {
                format!("not needed: no `<base` in the first {bytes} bytes")
            }
            Decision::End => "ended at the end of the input".to_owned(),
            Decision::Skipped => "none (nested content)".to_owned(),
            Decision::Stopped => "ended where the memory limit stopped rewriting".to_owned(),
            Decision::XmlBase { .. } => "none (XML: `xml:base` is read where it stands)".to_owned(),
            Decision::Stylesheet => "none (a stylesheet)".to_owned(),
        };
        let by_kind: Vec<String> = Kind::ALL
            .into_iter()
            .map(|k| format!("{} {}", k.name(), c.by_kind[k as usize]))
            .collect();
        vec![
            format!("encoding: {}", self.encoding),
            format!("base: {}", self.base),
        ]
        .into_iter()
        .chain(self.layer_lines())
        .chain([
            format!("lookahead: {lookahead}"),
            format!(
                "urls: {} seen, {} rewritten, {} left as they were",
                c.seen,
                c.rewritten,
                c.left()
            ),
            format!(
                "left: {} already absolute, {} same-document, {} empty (no resource), {} undecodable, {} without a base, {} unchanged",
                c.absolute, c.same_document, c.empty, c.undecodable, c.no_base, c.unchanged
            ),
            format!("rewritten by kind: {}", by_kind.join(", ")),
            format!("valueless attributes: {}", c.valueless),
        ])
        .collect()
    }
}

/// Something the user should know, printed to standard error.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Warning {
    /// No layer of RFC 1808 §3 gave a base.
    NoBase,
    BaseIgnored {
        offset: usize,
        href: String,
        why: String,
    },
    LookaheadLimit {
        limit: usize,
    },
    Undecodable {
        offset: usize,
        encoding: &'static str,
    },
    /// A rewritten URL would have closed its raw-text element early.
    WouldClose {
        element: &'static str,
    },
    /// `srcdoc` documents nested deeper than we follow.
    TooDeep {
        offset: usize,
    },
    /// lol_html's memory limit was hit: rewriting stopped at this offset.
    MemoryLimit {
        limit: usize,
        offset: usize,
    },
    /// A `<style>` or `<noscript>` text larger than the memory limit.
    TooLarge {
        offset: usize,
        limit: usize,
    },
    /// An XHTML document that an HTML parser reads otherwise: left as it is.
    ReadsOtherwise {
        offset: usize,
        element: String,
    },
    /// An XHTML document with an instruction or a CDATA section (`construct`)
    /// that holds a `>` before its end: HTML ends it at that `>`, XML at its
    /// own end, and reads what is between otherwise. Left as it is.
    EndsOtherwise {
        offset: usize,
        construct: &'static str,
    },
    /// An XML document without a base from any layer below it: only what an
    /// absolute `xml:base` holds is rewritten.
    NoXmlBase,
    /// A stylesheet without a base: it is left as it is.
    NoStylesheetBase,
    /// An `xml:base` that cannot be a base (§3.1's rule): the one in scope
    /// stays.
    XmlBaseIgnored {
        offset: usize,
        href: String,
        why: String,
    },
    /// The XML document is not well-formed here: rewriting stopped, and the
    /// rest is copied unchanged.
    NotWellFormed {
        offset: usize,
        /// Said by the engine; a name from the input in it is
        /// `shown`.
        why: String,
    },
    /// XML elements nested deeper than the engine follows: rewriting
    /// stopped there, and the rest is copied unchanged.
    XmlDepth {
        offset: usize,
        limit: usize,
    },
    /// A value refers to an entity htmlabs cannot read (`&nbsp;` in XML):
    /// one the document's internal DTD subset does not declare (an external
    /// DTD's), or one that holds markup. It is left as it is.
    Entity {
        offset: usize,
        name: String,
    },
    /// The input is not valid in its encoding at this byte of the input (an
    /// unpaired surrogate in UTF-16), found after output went out:
    /// rewriting stopped there, and the rest is copied unchanged.
    Malformed {
        offset: usize,
        encoding: &'static str,
    },
    /// The XML document's entities would expand past its own size here
    /// ("billion laughs"): rewriting stopped there, and the rest is copied
    /// unchanged.
    EntityExpansion {
        offset: usize,
    },
    /// More warnings than a document keeps ([`Warning::KEPT`]): these
    /// were neither told nor kept, only counted. Always the last.
    Omitted {
        count: usize,
    },
}

impl Warning {
    /// The warnings a document tells and keeps, besides those that stop
    /// rewriting (one at most): past them, only their number. A page of a
    /// million ignored `<base href>` would otherwise hold a million
    /// warnings, outside any limit.
    pub const KEPT: usize = 100;

    /// The most of a value from the input a warning keeps, in bytes (a
    /// `<base href>` may be megabytes long).
    pub const CLIPPED: usize = 256;

    /// How many warnings this one counts for in a summary: those it says
    /// were [`Omitted`](Warning::Omitted), or itself.
    pub fn stands_for(&self) -> usize {
        match self {
            Warning::Omitted { count } => *count,
            _ => 1,
        }
    }

    /// The warning with each value from the input in it cut to
    /// [`CLIPPED`](Self::CLIPPED) bytes, a `…` after what was cut.
    fn clipped(self) -> Warning {
        fn clip(mut value: String) -> String {
            if value.len() > Warning::CLIPPED {
                let mut end = Warning::CLIPPED;
                while !value.is_char_boundary(end) {
                    end -= 1;
                }
                value.truncate(end);
                value.push('…');
                // What it held past the cut is given back.
                value.shrink_to_fit();
            }
            value
        }
        match self {
            Warning::BaseIgnored { offset, href, why } => Warning::BaseIgnored {
                offset,
                href: clip(href),
                why: clip(why),
            },
            Warning::XmlBaseIgnored { offset, href, why } => Warning::XmlBaseIgnored {
                offset,
                href: clip(href),
                why: clip(why),
            },
            Warning::ReadsOtherwise { offset, element } => Warning::ReadsOtherwise {
                offset,
                element: clip(element),
            },
            Warning::NotWellFormed { offset, why } => Warning::NotWellFormed {
                offset,
                why: clip(why),
            },
            Warning::Entity { offset, name } => Warning::Entity {
                offset,
                name: clip(name),
            },
            other => other,
        }
    }

    /// Whether rewriting stopped there (the memory limit), or a text past
    /// what a document may hold was left as it is: the output is complete,
    /// but not all of it is rewritten, and the run fails.
    pub fn stops_rewriting(&self) -> bool {
        matches!(
            self,
            Warning::MemoryLimit { .. }
                | Warning::TooLarge { .. }
                | Warning::NotWellFormed { .. }
                | Warning::XmlDepth { .. }
                | Warning::Malformed { .. }
                | Warning::EntityExpansion { .. }
        )
    }

    /// The warning of a nested document, with its offsets made the outer
    /// document's (exact inside `<noscript>`; the start of the attribute
    /// value plus an offset in the decoded `srcdoc`).
    pub(crate) fn shifted(self, by: usize) -> Warning {
        match self {
            Warning::BaseIgnored { .. } | Warning::Undecodable { .. } | Warning::TooDeep { .. } => {
                self.mapped(|offset| offset + by)
            }
            other => other,
        }
    }

    /// The warning of a nested document, with its offsets mapped to the
    /// outer document's by `map` (the HTML inside a feed: its text's
    /// offsets to the bytes that write it).
    pub(crate) fn mapped(self, map: impl Fn(usize) -> usize) -> Warning {
        match self {
            Warning::BaseIgnored { offset, href, why } => Warning::BaseIgnored {
                offset: map(offset),
                href,
                why,
            },
            Warning::Undecodable { offset, encoding } => Warning::Undecodable {
                offset: map(offset),
                encoding,
            },
            Warning::TooDeep { offset } => Warning::TooDeep {
                offset: map(offset),
            },
            Warning::MemoryLimit { limit, offset } => Warning::MemoryLimit {
                limit,
                offset: map(offset),
            },
            Warning::TooLarge { offset, limit } => Warning::TooLarge {
                offset: map(offset),
                limit,
            },
            other => other,
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Warning::NoBase => f.write_str(
                "no base URL (no `<base href>`, no --retrieved-from): the output is the input, unchanged",
            ),
            Warning::BaseIgnored { offset, href, why } => {
                let href = shown(href.as_bytes());
                write!(f, "`<base href>` at byte {offset} ignored: `{href}`: {why}")
            }
            Warning::LookaheadLimit { limit } => write!(
                f,
                "no `<base href>` and no end of the head in the first {limit} bytes (--max-lookahead, at most a sixteenth of --max-memory): going on without an embedded base"
            ),
            Warning::Undecodable { offset, encoding } => {
                write!(f, "URL value at byte {offset} is not valid {encoding}: left as it is")
            }
            Warning::Malformed { offset, encoding } => write!(
                f,
                "not valid `{encoding}` at byte {offset} (an unpaired surrogate or a lone byte): rewriting stopped there, the rest is copied unchanged"
            ),
            Warning::WouldClose { element } => write!(
                f,
                "a rewritten URL would close `<{element}>` early: its contents are left as they are"
            ),
            Warning::TooDeep { offset } => write!(
                f,
                "`srcdoc` at byte {offset} nests documents deeper than {MAX_DEPTH}: left as it is"
            ),
            Warning::MemoryLimit { limit, offset } => write!(
                f,
                "memory limit of {limit} bytes (--max-memory) reached: rewriting stopped at byte {offset}, the rest is copied unchanged"
            ),
            Warning::TooLarge { offset, limit } => write!(
                f,
                "the text at byte {offset} is larger than the memory limit of {limit} bytes (--max-memory): left as it is"
            ),
            Warning::ReadsOtherwise { offset, element } => write!(
                f,
                "the self-closed `<{}/>` at byte {offset} ends there in XHTML, not in HTML, where the rest would be its text: the file is left as it is",
                shown(element.as_bytes())
            ),
            Warning::EndsOtherwise { offset, construct } => write!(
                f,
                "the {construct} at byte {offset} holds a `>` before its end: HTML ends it there, XML does not, and would read the rest otherwise: the file is left as it is"
            ),
            Warning::NoXmlBase => f.write_str(
                "no base URL (no --retrieved-from): only what an absolute `xml:base` holds is rewritten",
            ),
            Warning::NoStylesheetBase => f.write_str(
                "no base URL (no --retrieved-from): the stylesheet is left as it is",
            ),
            Warning::XmlBaseIgnored { offset, href, why } => {
                let href = shown(href.as_bytes());
                write!(f, "`xml:base` at byte {offset} ignored: `{href}`: {why}")
            }
            Warning::NotWellFormed { offset, why } => write!(
                f,
                "not well-formed XML at byte {offset}: {why}: rewriting stopped there, the rest is copied unchanged"
            ),
            Warning::XmlDepth { offset, limit } => write!(
                f,
                "elements nested deeper than {limit} at byte {offset}: rewriting stopped there, the rest is copied unchanged"
            ),
            Warning::Entity { offset, name } => write!(
                f,
                "the value at byte {offset} refers to `&{};`, an entity htmlabs cannot read (declared outside the document, or holding markup): left as it is",
                shown(name.as_bytes())
            ),
            Warning::EntityExpansion { offset } => write!(
                f,
                "entity references at byte {offset} expand past the document's own size: rewriting stopped there, the rest is copied unchanged"
            ),
            Warning::Omitted { count } => write!(
                f,
                "{count} more warning{} not shown: a document tells its first {}",
                if *count == 1 { "" } else { "s" },
                Warning::KEPT
            ),
        }
    }
}

/// The warnings of a run: kept for its report, and told as they happen to
/// whoever asked (a long stream, a site or an archive prints each one at
/// once, with the name of its document). At most [`Warning::KEPT`], and
/// those that stop rewriting, each value in them clipped: what a document
/// holds of its warnings is bounded, whatever it holds.
#[derive(Default)]
pub(crate) struct Warnings {
    list: Vec<Warning>,
    tell: Option<Tell>,
    /// Those kept that do not stop rewriting.
    kept: usize,
    /// Those past [`Warning::KEPT`], counted.
    omitted: usize,
}

/// What is told of each warning as it happens.
pub(crate) type Tell = Box<dyn FnMut(&Warning)>;

impl Warnings {
    pub fn push(&mut self, warning: Warning) {
        if let Warning::Omitted { count } = warning {
            // A nested document's own count.
            self.omitted += count;
            return;
        }
        if !warning.stops_rewriting() {
            if self.kept == Warning::KEPT {
                self.omitted += 1;
                return;
            }
            self.kept += 1;
        }
        let warning = warning.clipped();
        if let Some(tell) = &mut self.tell {
            tell(&warning);
        }
        self.list.push(warning);
    }

    /// From now on, tell each warning as it happens.
    pub fn tell(&mut self, tell: Tell) {
        self.tell = Some(tell);
    }

    /// The warnings kept, and the number of the others last.
    pub fn into_vec(mut self) -> Vec<Warning> {
        if self.omitted > 0 {
            let omitted = Warning::Omitted {
                count: self.omitted,
            };
            if let Some(tell) = &mut self.tell {
                tell(&omitted);
            }
            self.list.push(omitted);
        }
        self.list
    }
}
