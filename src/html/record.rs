//! The element handler: lol_html finds the elements, and this records the
//! byte range of each URL value of the table, and of the contents of
//! `<style>` and `<noscript>`, for the sink to splice. It reads the tag and
//! attribute names from the bytes lol_html is reading, on the stack.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ops::Range;
use std::rc::Rc;

use lol_html::html_content::{Attribute, Element};
use smallvec::SmallVec;

use super::settings::{HTML_NAMESPACE, SVG_NAMESPACE};
use crate::document::attrs::{Empty, Kind, Row, Table, When};
use crate::document::buffers;
use crate::document::decision::Decision;
use crate::document::links::{Listener, NO_NAME};
use crate::document::report::{Counts, Warning, Warnings};

/// An open content range: its end is the start of the end tag, not yet seen.
pub const OPEN: usize = usize::MAX;

/// What a recorded range holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    /// An attribute value of the table. `svg`: the element is SVG's, where
    /// `#id` references stay. `codebase`: the element's, for `archive`.
    /// `empty`: what an empty value names, by the row.
    Attr {
        kind: Kind,
        svg: bool,
        codebase: Option<String>,
        empty: Empty,
    },
    /// The href of the first `<base href>`: if it set the base, it becomes
    /// that base; if not, it is an href like another.
    BaseHref,
    /// The href of any other `<base>`: an href like another, but under
    /// `--relative`, where every base is made the document's own.
    OtherBase,
    /// The text of a `<style>` element.
    Style,
    /// The text of a `<noscript>` element.
    Noscript,
    /// A comment of a page served as XML outside the root element, whole,
    /// which may be an `<?xml-stylesheet?>` (HTML reads an instruction as
    /// a comment): before the root (`prolog`), where no `<base href>` has
    /// been read yet, or after it.
    Stylesheet { prolog: bool },
}

impl Role {
    /// The syntax of what the range holds.
    pub fn kind(&self) -> Kind {
        match self {
            Role::Attr { kind, .. } => *kind,
            Role::BaseHref | Role::OtherBase | Role::Stylesheet { .. } => Kind::Url,
            Role::Style => Kind::Css,
            Role::Noscript => Kind::Html,
        }
    }

    /// The element and attribute of a range that is no attribute of the
    /// table's (an attribute's are recorded apart).
    pub fn names(&self) -> (&'static Cow<'static, str>, &'static Cow<'static, str>) {
        static BASE: Cow<'static, str> = Cow::Borrowed("base");
        static HREF: Cow<'static, str> = Cow::Borrowed("href");
        static STYLE: Cow<'static, str> = Cow::Borrowed("style");
        static NOSCRIPT: Cow<'static, str> = Cow::Borrowed("noscript");
        static STYLESHEET: Cow<'static, str> = Cow::Borrowed("?xml-stylesheet");
        match self {
            Role::Attr { .. } => (&NO_NAME, &NO_NAME),
            Role::BaseHref | Role::OtherBase => (&BASE, &HREF),
            Role::Style => (&STYLE, &NO_NAME),
            Role::Noscript => (&NOSCRIPT, &NO_NAME),
            Role::Stylesheet { .. } => (&STYLESHEET, &HREF),
        }
    }
}

#[derive(Debug)]
pub struct Span {
    pub range: Range<usize>,
    pub role: Role,
    /// An attribute's element and attribute names, for the link report
    /// alone.
    pub names: Option<Names>,
}

/// An attribute's element and attribute names: its row's, by the row's
/// place in the table, and the element's own when the row is on every
/// element (`*`). Nothing is copied for the others: most links of a check
/// go to other sites, and their names are never asked for.
#[derive(Debug)]
pub struct Names {
    pub row: usize,
    pub element: Option<Cow<'static, str>>,
}

impl Names {
    /// The element's name and the attribute's, by `table`'s rows.
    pub fn of<'a>(&'a self, table: &'a Table) -> (&'a Cow<'static, str>, &'a Cow<'static, str>) {
        let row = &table.rows()[self.row];
        (
            self.element.as_ref().unwrap_or(&row.element),
            &row.attribute,
        )
    }
}

/// The element name `tag` for a link of a `*` row (`a href`, `img src`):
/// borrowed for the elements that carry most links, copied for any other.
fn element_name(tag: &[u8]) -> Cow<'static, str> {
    const COMMON: [&str; 16] = [
        "a", "img", "script", "link", "iframe", "source", "video", "audio", "embed", "input",
        "track", "area", "use", "image", "div", "span",
    ];
    match COMMON.iter().find(|name| name.as_bytes() == tag) {
        Some(name) => Cow::Borrowed(name),
        None => Cow::Owned(String::from_utf8_lossy(tag).into_owned()),
    }
}

/// What the handlers and the sink share.
#[derive(Default)]
pub struct Shared {
    pub spans: VecDeque<Span>,
    /// The end of the `<style>` or `<noscript>` content the sink is
    /// collecting, once its end tag is seen.
    pub content_end: Option<usize>,
    /// What ended the lookahead, once it has.
    pub decision: Option<Decision>,
    /// The output offset where lol_html's bail-out began, once it did.
    pub stopped_at: Option<usize>,
    /// Rewriting stopped at the memory limit: nothing more is recorded.
    pub stopped: bool,
    pub counts: Counts,
    pub warnings: Warnings,
    /// The link report, when asked for.
    pub listener: Option<Listener>,
}

/// An element's name, ASCII lowercase, and whether its start tag holds
/// attributes. Read from the bytes of the write lol_html is reading, on
/// the stack (in `buffer`): lol_html's own `tag_name()` allocates.
pub fn tag<'b>(el: &Element, window: &Window, buffer: &'b mut [u8; 32]) -> (Cow<'b, [u8]>, bool) {
    let location = el.source_location().bytes();
    match window.name(location.start + 1..location.end, buffer) {
        Some((tag, rest)) => (Cow::Borrowed(tag), has_attributes(rest)),
        None => (Cow::Owned(el.tag_name().into_bytes()), true),
    }
}

/// The element handler: records the byte range of each URL value, and of the
/// contents of `<style>` and `<noscript>`. `tag` and `attributes`: the
/// element's, by [`tag`].
pub fn record(
    shared: &Rc<RefCell<Shared>>,
    table: &Table,
    el: &mut Element,
    (tag, attributes): (&[u8], bool),
    window: &Window,
    template_bases: &[usize],
) {
    // Attribute names from the bytes of the write lol_html is reading,
    // lowercased on the stack: lol_html's own `name()` allocates.
    let mut name_buffer = [0; 32];
    let tag_location = el.source_location().bytes();
    let mut s = shared.borrow_mut();
    if s.stopped {
        return;
    }
    let namespace = el.namespace_uri();
    let svg = namespace == SVG_NAMESPACE;
    // "Only the first of duplicate attributes counts", as in HTML. A name
    // always finds the same row on an element, so the rows found so far
    // tell the duplicates (without keeping the names).
    let mut done: SmallVec<[&Row; 4]> = SmallVec::new();
    // Most start tags have no attribute: lol_html's list of them, which it
    // builds when asked, is not needed.
    let attributes = if attributes { el.attributes() } else { &[] };
    for attr in attributes {
        // An attribute that no row's name can be, by its length and first
        // byte, needs no name (which lol_html would allocate).
        let location = attr.name_source_location().map(|l| l.bytes());
        if location
            .as_ref()
            .is_some_and(|l| !table.may_have(window.byte(l.start), l.len()))
        {
            continue;
        }
        let name = match location.and_then(|l| window.name(l, &mut name_buffer)) {
            Some((name, _)) => Cow::Borrowed(name),
            None => Cow::Owned(attr.name().into_bytes()),
        };
        let Some((at, row)) = table.find_at(tag, &name, |when| holds(when, el)) else {
            continue;
        };
        if done.iter().any(|r| std::ptr::eq(*r, row)) {
            continue;
        }
        done.push(row);
        let Some(location) = attr.value_source_location() else {
            s.counts.valueless += 1;
            continue;
        };
        let range = location.bytes();
        let mut role = Role::Attr {
            kind: row.kind,
            svg,
            codebase: (row.attribute == "archive")
                .then(|| el.get_attribute("codebase"))
                .flatten(),
            empty: row.empty,
        };
        let names = s.listener.is_some().then(|| Names {
            row: at,
            element: (row.element == "*").then(|| element_name(tag)),
        });
        if tag == b"base" && row.attribute == "href" {
            let deciding =
                matches!(&s.decision, Some(Decision::Base { value, .. }) if *value == range);
            if deciding {
                // Whether it is used is known once the encoding is: then,
                // if it is, it becomes the base.
                role = Role::BaseHref;
            } else {
                role = Role::OtherBase;
                // The deciding `<base>`, when ignored, was reported then.
                let why = match s.decision {
                    _ if template_bases.contains(&tag_location.start) => {
                        "it is inside a `<template>`"
                    }
                    // The probe reads ahead of the rewriter: an undecided
                    // base at this point can only be one it passed over.
                    None => "it is inside a `<template>`",
                    Some(Decision::Base { .. }) => "only the first `<base href>` counts",
                    Some(Decision::Limit | Decision::NoBase { .. }) => {
                        "it comes after the lookahead limit"
                    }
                    Some(Decision::Skipped) => "it is inside a `<noscript>`",
                    Some(_) => "it comes after the head (browsers would use it)",
                };
                s.warnings.push(Warning::BaseIgnored {
                    offset: tag_location.start,
                    href: attr.value(),
                    why: why.to_owned(),
                });
            }
        }
        s.spans.push_back(Span { range, role, names });
    }
    // Raw text to lol_html: no handler sees inside, so the sink takes the
    // bytes between the tags. Only HTML's own: in SVG, `<style>` has markup.
    let content = match tag {
        b"style" if table.texts() => Role::Style,
        b"noscript" if table.texts() => Role::Noscript,
        _ => return,
    };
    if namespace != HTML_NAMESPACE {
        return;
    }
    if let Some(handlers) = el.end_tag_handlers() {
        s.spans.push_back(Span {
            range: tag_location.end..OPEN,
            role: content,
            names: None,
        });
        let shared = Rc::clone(shared);
        handlers.push(Box::new(move |end| {
            let at = end.source_location().bytes().start;
            let mut s = shared.borrow_mut();
            // Raw text holds no elements, so the open range is the last one
            // recorded: still queued (the output may be held, and later
            // `<style>`s queued behind it), or else the one the sink collects.
            match s.spans.back_mut() {
                Some(span) if span.range.end == OPEN => span.range.end = at,
                _ => s.content_end = Some(at),
            }
            Ok(())
        }));
    }
}

/// The bytes of the write lol_html is reading, and where they start in the
/// input (lol_html's output offsets are the input's).
#[derive(Default)]
pub struct Window {
    pub bytes: Vec<u8>,
    at: usize,
}

impl Drop for Window {
    fn drop(&mut self) {
        buffers::give_back(std::mem::take(&mut self.bytes));
    }
}

impl Window {
    pub fn next(&mut self, bytes: Cow<'_, [u8]>) {
        self.at += self.bytes.len();
        match bytes {
            Cow::Owned(bytes) => buffers::give_back(std::mem::replace(&mut self.bytes, bytes)),
            Cow::Borrowed(bytes) => {
                self.bytes.clear();
                self.bytes.extend_from_slice(bytes);
            }
        }
    }

    /// The bytes at `range`, when they are all in this write.
    pub fn slice(&self, range: Range<usize>) -> Option<&[u8]> {
        let start = range.start.checked_sub(self.at)?;
        self.bytes.get(start..range.end.checked_sub(self.at)?)
    }

    /// The byte at `offset`, when it is in this write.
    fn byte(&self, offset: usize) -> Option<u8> {
        self.bytes.get(offset.checked_sub(self.at)?).copied()
    }

    /// Whether `attr`'s name is `name` (ASCII lowercase), read from this
    /// write when it is here (lol_html's `name()` allocates).
    pub fn is_named(&self, attr: &Attribute, name: &[u8]) -> bool {
        // Most names are of another length: told by it alone.
        match attr.name_source_location().map(|l| l.bytes()) {
            Some(l) if l.len() != name.len() => false,
            Some(l) => match self.slice(l) {
                Some(bytes) => bytes.eq_ignore_ascii_case(name),
                None => attr.name().as_bytes() == name,
            },
            None => attr.name().as_bytes() == name,
        }
    }

    /// The tag or attribute name that starts at `range.start`, ASCII
    /// lowercase, when the range lies in this write, and the name is ASCII
    /// and fits `buffer` (else the caller asks lol_html); with the rest of
    /// the range. A name ends where the tokenizer ends it: at whitespace, `/`
    /// or `>` (or the range's end).
    fn name<'b, 'w>(
        &'w self,
        range: Range<usize>,
        buffer: &'b mut [u8; 32],
    ) -> Option<(&'b [u8], &'w [u8])> {
        let bytes = self.slice(range)?;
        let mut len = 0;
        for &b in bytes {
            if ends_name(b) {
                break;
            }
            if !b.is_ascii() || len == buffer.len() {
                return None;
            }
            buffer[len] = b.to_ascii_lowercase();
            len += 1;
        }
        Some((&buffer[..len], &bytes[len..]))
    }
}

/// Whether the tokenizer ends a tag or attribute name at `b`: HTML's
/// whitespace (Rust's ASCII whitespace is the same five bytes), `/`, `>`.
fn ends_name(b: u8) -> bool {
    b.is_ascii_whitespace() || b == b'/' || b == b'>'
}

/// Whether what follows a tag's name holds an attribute: anything but what
/// ends a name (lol_html reads `<p/x>` as having the attribute `x`).
fn has_attributes(rest: &[u8]) -> bool {
    !rest.iter().all(|&b| ends_name(b))
}

/// Whether a row's condition holds on the element.
fn holds(when: When, el: &Element) -> bool {
    when.holds(|name| el.get_attribute(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_read_from_the_write_or_left_to_lol_html() {
        let mut window = Window::default();
        window.next(Cow::Borrowed(b"xx"));
        window.next(Cow::Borrowed(b"<IMG\tSrC=a><x\xC3\xA9 y>"));
        let mut buffer = [0; 32];
        let mut name = |range| window.name(range, &mut buffer).map(|(n, _)| n.to_owned());
        // The tag's range runs from after `<` to its end; the name stops at
        // whitespace.
        assert_eq!(name(3..13).as_deref(), Some(&b"img"[..]));
        assert_eq!(name(7..10).as_deref(), Some(&b"src"[..]));
        assert_eq!(name(14..20), None, "not ASCII");
        assert_eq!(name(1..4), None, "before the write");
        assert_eq!(name(20..30), None, "after it");
        window.next(Cow::Owned(format!("<{}>", "a".repeat(40)).into_bytes()));
        let mut name = |range| window.name(range, &mut buffer).map(|(n, _)| n.to_owned());
        assert_eq!(name(21..62), None, "too long");
        assert_eq!(name(21..63), None, "past the write");
        assert_eq!(name(23..40).as_deref(), Some(&[b'a'; 17][..]));
        assert_eq!(
            name(29..62).as_deref(),
            Some(&[b'a'; 32][..]),
            "as long as fits"
        );
    }

    #[test]
    fn a_tag_has_attributes_unless_only_its_end_follows_its_name() {
        let mut window = Window::default();
        window.next(Cow::Borrowed(b"<p><br/><HR \n/ ><p/x><a\thref=x><i\t>"));
        let mut buffer = [0; 32];
        let mut rest = |range| {
            window
                .name(range, &mut buffer)
                .map(|(_, r)| has_attributes(r))
        };
        assert_eq!(rest(1..3), Some(false));
        assert_eq!(rest(4..8), Some(false));
        assert_eq!(rest(9..16), Some(false));
        assert_eq!(rest(17..21), Some(true), "`x` is an attribute");
        assert_eq!(rest(22..31), Some(true));
        assert_eq!(rest(32..35), Some(false));
    }
}
