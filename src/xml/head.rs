//! An XHTML document's `<base href>` (RFC 1808 §3.1, as the page engine
//! reads it: the first `base` with an `href` in the head), found before its
//! values are read, since `<link href>` may come before it in the head.
//! From the root element on, the input is read ahead, markup only, until
//! the head's first `base` with an `href`, the end of the head, the
//! lookahead limit (`--max-lookahead`) or the end of the input; then the
//! document is read from its root with that base. Where the reading ahead
//! ends depends on the bytes only, never on how they were split.

use std::ops::Range;

use encoding_rs::Encoding;

use super::construct::{Context, Item, Unparsed, parse};
use super::entities::Entities;
use super::namespaces::Namespaces;
use super::vocabulary::Ns;

/// The reading ahead, from the root element's start tag.
pub struct Lookahead {
    /// Where the root element starts.
    root: usize,
    /// Where the next construct to read starts.
    at: usize,
    /// How far it has read: what holding the input for it takes, which
    /// depends on the bytes alone.
    reached: usize,
    /// How many elements are open.
    depth: usize,
    in_head: bool,
    namespaces: Namespaces,
}

/// What the reading ahead found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Found {
    /// The head's first `base` with an `href`: its tag's offset, its
    /// value's range and quote.
    Base {
        offset: usize,
        value: Range<usize>,
        quote: u8,
    },
    /// The head ended at this offset (or there was none) without one.
    HeadOver { offset: usize },
    /// Nothing decided within the lookahead limit.
    Limit,
    /// The input ended first, or stopped being well-formed: the reading
    /// that follows says why.
    End,
}

impl Lookahead {
    /// Reading ahead from the root element's start tag, at `root`.
    pub fn new(root: usize) -> Self {
        Lookahead {
            root,
            at: root,
            reached: root,
            depth: 0,
            in_head: false,
            namespaces: Namespaces::default(),
        }
    }

    /// How far into the input it has read: while it has not decided, all
    /// that is held; once it has, up to what decided.
    pub fn reached(&self) -> usize {
        self.reached
    }

    /// Reads on in `held` (whose first byte is the input's `held_at`):
    /// what it found, or `None` until more input (unless this is its
    /// `end`). `limit` is `--max-lookahead`, counted from the root.
    pub fn read(
        &mut self,
        held: &[u8],
        held_at: usize,
        end: bool,
        limit: usize,
        entities: &mut Entities,
        encoding: &'static Encoding,
    ) -> Option<Found> {
        loop {
            if self.at - self.root >= limit {
                return Some(Found::Limit);
            }
            let rest = &held[self.at - held_at..];
            let Some(lt) = memchr::memchr(b'<', rest) else {
                self.reached = held_at + held.len();
                return end.then_some(Found::End);
            };
            let at = self.at + lt;
            self.reached = at;
            if at - self.root >= limit {
                return Some(Found::Limit);
            }
            let cx = Context {
                namespaces: &mut self.namespaces,
                entities,
                given: at,
                encoding,
                // The lookahead is at most a sixteenth of --max-memory:
                // what a value's map may hold, half of it, a document's
                // share.
                room: limit.saturating_mul(8),
            };
            let (item, len) = parse(&held[at - held_at..], at, cx);
            // What quick-xml read of it, as the reading that follows counts
            // a construct (while one is incomplete, it is all that is held).
            self.reached = at + len;
            let item = match item {
                Ok(item) => item,
                Err(Unparsed::Incomplete(_)) if !end => return None,
                Err(_) => return Some(Found::End),
            };
            self.at = at + len;
            match item {
                Item::Start {
                    ns,
                    local,
                    name,
                    attributes,
                    empty,
                    ..
                } => {
                    let local = &name[local..];
                    if self.in_head && self.depth == 2 && ns == Ns::Xhtml && local == b"base" {
                        let href = attributes
                            .iter()
                            .find(|a| a.ns == Ns::None && &*a.name == b"href");
                        if let Some(href) = href {
                            return Some(Found::Base {
                                offset: at,
                                value: href.value.clone(),
                                quote: href.quote,
                            });
                        }
                    }
                    if self.depth == 1 {
                        if ns != Ns::Xhtml || local != b"head" {
                            return Some(Found::HeadOver { offset: at });
                        }
                        self.in_head = true;
                    }
                    if empty {
                        self.namespaces.pop();
                        if self.depth == 1 {
                            // `<head/>`: a head with nothing in it.
                            return Some(Found::HeadOver { offset: self.at });
                        }
                    } else {
                        self.depth += 1;
                    }
                }
                Item::End { .. } => {
                    self.namespaces.pop();
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth <= 1 {
                        return Some(Found::HeadOver { offset: at });
                    }
                }
                _ => {}
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use encoding_rs::UTF_8;

    use super::*;

    fn found(document: &str, limit: usize) -> Option<Found> {
        let root = document.find("<html").unwrap();
        let mut lookahead = Lookahead::new(root);
        let mut entities = Entities::default();
        // Byte by byte: where it ends never depends on the writes.
        for end in root..document.len() {
            let found = lookahead.read(
                &document.as_bytes()[..end],
                0,
                false,
                limit,
                &mut entities,
                UTF_8,
            );
            if found.is_some() {
                return found;
            }
        }
        lookahead.read(document.as_bytes(), 0, true, limit, &mut entities, UTF_8)
    }

    const XHTML: &str = "<html xmlns=\"http://www.w3.org/1999/xhtml\">";

    #[test]
    fn the_heads_first_base_with_an_href_is_found() {
        let doc = format!(
            "<?xml version=\"1.0\"?>{XHTML}<head><link href=\"a.css\"/><base target=\"_top\"/><base href=\"http://cdn/sub/\"/></head>"
        );
        let offset = doc.find("<base href").unwrap();
        let value = doc.find("http://cdn").unwrap();
        assert_eq!(
            found(&doc, 1 << 20),
            Some(Found::Base {
                offset,
                value: value..value + 15,
                quote: b'"'
            })
        );
    }

    #[test]
    fn the_head_over_the_limit_or_the_end_decides_without_one() {
        let doc = format!("{XHTML}<head><title>t</title></head><body><base href=\"x\"/>");
        let offset = doc.find("</head>").unwrap();
        assert_eq!(found(&doc, 1 << 20), Some(Found::HeadOver { offset }));
        let doc = format!("{XHTML}<body><base href=\"x\"/>");
        let offset = doc.find("<body").unwrap();
        assert_eq!(found(&doc, 1 << 20), Some(Found::HeadOver { offset }));
        // A `base` of another namespace, or deeper than the head's children.
        let doc = format!(
            "{XHTML}<head><b:base xmlns:b=\"urn:x\" href=\"x\"/><noscript><base href=\"y\"/></noscript>"
        );
        assert_eq!(found(&doc, 1 << 20), Some(Found::End));
        let doc = format!(
            "{XHTML}<head><title>{}</title><base href=\"x\"/>",
            "t".repeat(100)
        );
        assert_eq!(found(&doc, 100), Some(Found::Limit));
    }
}
