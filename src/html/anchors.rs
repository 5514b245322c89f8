//! What a URL's fragment can name in a page (`--check-links`), as a
//! browser finds it (HTML §7.4.6.3, "find a potential indicated
//! element"): an element's `id`, anywhere in the document (SVG and MathML
//! too, and a `<template>`'s own), and an HTML `a` element's `name` (not
//! SVG's `a`). Not inside an HTML `<template>`, whose content is no part
//! of the document (SVG's `template` is an element like any), nor inside a
//! `<noscript>`, which a browser that runs script reads as text (as
//! lol_html does). A value is decoded as the tokenizer decodes it: the
//! page's encoding, then its character references. An `a` element's
//! `name` matches as written, in quirks mode too, as the standard says
//! (where Chromium ignores its case).

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashSet;
use std::ops::Range;
use std::rc::Rc;
use std::sync::LazyLock;

use encoding_rs::{Encoding, UTF_8};
use lol_html::html_content::{Attribute, Element};
use lol_html::{AsciiCompatibleEncoding, ElementContentHandlers, HtmlRewriter, Selector, Settings};

use super::encoding::{DETECTION, Sniffer};
use super::settings::memory_settings;
use crate::document::memory::Budget;
use crate::url::rfc3986::percent_decoded;

/// The HTML namespace, as lol_html names an element's.
const HTML: &str = "http://www.w3.org/1999/xhtml";

/// Every element: what [`Reader`] reads.
pub(crate) static EVERY: LazyLock<Selector> =
    LazyLock::new(|| "*".parse().expect("a selector lol_html reads"));

/// The names a fragment can name in `page` (its bytes, whole), read in
/// the encoding the HTML standard's sniffing chooses (`flag`:
/// `--encoding`; `retrieved_from`, its URL, lends its top-level domain to
/// the detector), lol_html holding no more than `limit`. `None` when the
/// page passes that limit.
pub(crate) fn anchors(
    page: &[u8],
    flag: Option<&'static Encoding>,
    retrieved_from: &str,
    limit: usize,
) -> Option<HashSet<String>> {
    let mut sniffer = Sniffer::new(flag, None, DETECTION, Some(retrieved_from));
    sniffer.push(page);
    let encoding = match sniffer.decide_now() {
        Some(chosen) => chosen.encoding,
        None => sniffer.end().encoding,
    };
    // UTF-16 is read as its UTF-8: lol_html reads ASCII-compatible bytes.
    let (bytes, encoding) = match AsciiCompatibleEncoding::new(encoding) {
        Some(_) => (Cow::Borrowed(page), encoding),
        None => {
            let (text, _) = encoding.decode_without_bom_handling(page);
            (Cow::Owned(text.into_owned().into_bytes()), UTF_8)
        }
    };
    let found = Found::new(None);
    let mut settings = Settings::new()
        .with_encoding(AsciiCompatibleEncoding::new(encoding)?)
        .with_memory_settings(memory_settings(limit))
        .with_strict(false);
    let reader = Reader::new(&found, |range: Range<usize>| {
        bytes.get(range).map(<[u8]>::to_vec)
    });
    let on_element = move |el: &mut Element| {
        let tag = el.tag_name().into_bytes();
        reader.element(el, (&tag, true), |a, name| a.name().as_bytes() == name);
        Ok(())
    };
    settings = settings.append_element_content_handler((
        Cow::Borrowed(&*EVERY),
        ElementContentHandlers::default().element(on_element),
    ));
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    let read = rewriter.write(&bytes).and_then(|()| rewriter.end());
    read.ok()?;
    Rc::into_inner(found)?.into_inner().names(encoding)
}

/// A page's anchors as its elements are read: each value's bytes as
/// written, decoded once the page's encoding is known ([`Found::names`]).
/// The page engine keeps them while it rewrites the page (`--check-links`:
/// a link to a part of the page itself then needs no second read), where
/// the tag of a value may have come in an earlier write than lol_html
/// read it in: such a value is taken as lol_html decoded it when it is
/// ASCII (the same in every encoding the engine reads), else it is lost,
/// and with it the set.
pub(crate) struct Found {
    raw: HashSet<Vec<u8>>,
    /// The HTML `<template>`s open around what is read.
    templates: usize,
    /// A value's bytes were not at hand, or did not fit `budget`: the
    /// names are not all known.
    lost: bool,
    /// What the values take, where they are held; `None`: as much as
    /// they are (the page is held whole already).
    budget: Option<(Budget, usize)>,
}

impl Found {
    /// Nothing found yet; the values held within `budget`, of which they
    /// may take `room` bytes.
    pub(crate) fn new(budget: Option<(Budget, usize)>) -> Rc<RefCell<Found>> {
        Rc::new(RefCell::new(Found {
            raw: HashSet::new(),
            templates: 0,
            lost: false,
            budget,
        }))
    }

    fn keep(&mut self, value: Vec<u8>) {
        if let Some((budget, room)) = &mut self.budget {
            // Its bytes and what a set's slot and the allocator add.
            let size = value.len() + 32;
            if budget.taken() + size > *room || budget.take(size).is_err() {
                self.lose();
                return;
            }
        }
        self.raw.insert(value);
    }

    fn lose(&mut self) {
        self.lost = true;
        self.raw = HashSet::new();
        if let Some((budget, _)) = &mut self.budget {
            budget.give(budget.taken());
        }
    }

    /// The names, decoded from `encoding` as the tokenizer decodes them,
    /// then their character references; `None` when one was lost.
    pub(crate) fn names(self, encoding: &'static Encoding) -> Option<HashSet<String>> {
        if self.lost {
            return None;
        }
        let names = self.raw.iter().map(|raw| {
            let (text, _) = encoding.decode_without_bom_handling(raw);
            htmlize::unescape_attribute(&*text).into_owned()
        });
        Some(names.collect())
    }
}

/// Reads each element's anchors into `found`, `raw` giving the bytes of
/// the input at a range (`None` when they are not at hand). One handler,
/// on every element, beside the page engine's own: lol_html matches
/// selectors with attributes (`[id]`) against every start tag, which cost
/// it a tenth more than the elements alone.
pub(crate) struct Reader<R> {
    found: Rc<RefCell<Found>>,
    raw: R,
}

impl<R: Fn(Range<usize>) -> Option<Vec<u8>>> Reader<R> {
    pub(crate) fn new(found: &Rc<RefCell<Found>>, raw: R) -> Self {
        Reader {
            found: Rc::clone(found),
            raw,
        }
    }

    /// `el`'s anchors: its `id`, an HTML `a`'s `name`, then, for a
    /// `<template>`, that what follows is its content until its end tag (a
    /// `<template>`'s own id is the document's). `tag`: its name, ASCII
    /// lowercase; `attributes`: whether it has any; `is_named`: whether an
    /// attribute's name is the one given.
    pub(crate) fn element(
        &self,
        el: &mut Element,
        (tag, attributes): (&[u8], bool),
        is_named: impl Fn(&Attribute, &[u8]) -> bool,
    ) {
        let html = el.namespace_uri() == HTML;
        let mut found = self.found.borrow_mut();
        if attributes && !found.lost && found.templates == 0 {
            // The first of duplicate attributes counts, as in HTML.
            let attributes = el.attributes();
            let id = attributes.iter().find(|a| is_named(a, b"id"));
            self.keep(&mut found, id);
            if html && tag == b"a" {
                let name = attributes.iter().find(|a| is_named(a, b"name"));
                self.keep(&mut found, name);
            }
        }
        if !(html && tag == b"template") {
            return;
        }
        found.templates += 1;
        drop(found);
        let found = Rc::clone(&self.found);
        if let Some(handlers) = el.end_tag_handlers() {
            handlers.push(Box::new(move |_| {
                let mut found = found.borrow_mut();
                found.templates = found.templates.saturating_sub(1);
                Ok(())
            }));
        }
    }

    fn keep(&self, found: &mut Found, attr: Option<&Attribute>) {
        let Some((attr, range)) = attr.and_then(|a| Some((a, a.value_source_location()?))) else {
            return;
        };
        match (self.raw)(range.bytes()) {
            Some(value) => found.keep(value),
            None => {
                // lol_html has it, decoded as the encoding it reads in: as
                // it was written when it is ASCII.
                let value = attr.value();
                match value.is_ascii() {
                    true => found.keep(value.into_bytes()),
                    false => found.lose(),
                }
            }
        }
    }
}

// Whether `fragment` (as the URL has it, after its `#`) names a part of a
// page, as a browser scrolls to it (HTML §7.4.6.3, "the indicated part of
// the document"), is two questions: `indicated_anywhere`, on any page (it
// needs no page read), else `anchored`, one of the page's `anchors`. A
// text fragment's directive (`:~:text=…`) is no part of it.

/// Whether `fragment` indicates a part of any page, whatever its anchors:
/// it is empty (`#`, a text fragment's directive alone) or `top` in any
/// case, as written or percent-decoded.
pub(crate) fn indicated_anywhere(fragment: &str) -> bool {
    let fragment = without_directive(fragment);
    fragment.is_empty()
        || String::from_utf8_lossy(&percent_decoded(fragment)).eq_ignore_ascii_case("top")
}

/// Whether `fragment` names one of `anchors`, as written or
/// percent-decoded.
pub(crate) fn anchored(anchors: &HashSet<String>, fragment: &str) -> bool {
    let fragment = without_directive(fragment);
    anchors.contains(fragment)
        || anchors.contains(&*String::from_utf8_lossy(&percent_decoded(fragment)))
}

/// `fragment` without a text fragment's directive.
fn without_directive(fragment: &str) -> &str {
    fragment.split(":~:").next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(page: &[u8]) -> Vec<String> {
        let mut found: Vec<String> = anchors(page, None, "https://example.com/", 1 << 20)
            .unwrap()
            .into_iter()
            .collect();
        found.sort();
        found
    }

    #[test]
    fn ids_anywhere_and_names_of_a_elements_are_anchors() {
        let page = b"<h2 id=intro>x</h2><a name=old></a><div name=not-a></div>\
            <svg><g id=\"icon\"/></svg><p id=\"caf&eacute;\" id=second></p>\
            <template><p id=in-template></p></template>\
            <noscript><p id=in-noscript></p></noscript><p id=\"\"></p>\
            <template id=own><template id=nested></template></template>\
            <svg><a name=svg-a></a><template><g id=in-svg-template /></template></svg>\
            <DIV ID=Upper Id=twice></DIV><A NAME=Caps name=again></A>";
        assert_eq!(
            of(page),
            [
                "",
                "Caps",
                "Upper",
                "café",
                "icon",
                "in-svg-template",
                "intro",
                "old",
                "own"
            ]
        );
    }

    #[test]
    fn a_legacy_page_is_read_in_its_encoding() {
        let page = b"<meta charset=windows-1252><p id=\"caf\xe9\">";
        assert_eq!(of(page), ["café"]);
        let utf16: Vec<u8> = "\u{feff}<p id=\"é\">"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(of(&utf16), ["é"]);
    }

    /// Whether `fragment` indicates a part of a page of `anchors`.
    fn indicates(anchors: &HashSet<String>, fragment: &str) -> bool {
        indicated_anywhere(fragment) || anchored(anchors, fragment)
    }

    #[test]
    fn a_fragment_indicates_as_a_browser_scrolls() {
        let anchors: HashSet<String> = ["intro", "café", "a b"].map(str::to_owned).into();
        for (fragment, indicated) in [
            ("", true),
            ("intro", true),
            ("Intro", false),
            ("caf%C3%A9", true),
            ("a%20b", true),
            ("top", true),
            ("TOP", true),
            ("intro:~:text=hello", true),
            (":~:text=hello", true),
            ("missing", false),
            ("missing:~:text=x", false),
        ] {
            assert_eq!(indicates(&anchors, fragment), indicated, "#{fragment}");
        }
    }

    /// The anchors the page engine keeps as it rewrites `page` in writes
    /// of `size` bytes.
    fn kept(page: &[u8], size: usize) -> Option<Vec<String>> {
        kept_with(page, size, crate::Config::default())
    }

    fn kept_with(page: &[u8], size: usize, config: crate::Config) -> Option<Vec<String>> {
        use crate::{Layers, Type, typed::Rewriter};
        let layers = Layers::default()
            .with_retrieval(crate::Standard::Rfc1808, "https://example.com/", "test")
            .unwrap();
        let mut rewriter = Rewriter::new(Type::Html, config, layers, Vec::new()).with_anchors();
        for chunk in page.chunks(size) {
            rewriter.write(chunk).unwrap();
        }
        let (report, _) = rewriter.end().unwrap();
        let mut found: Vec<String> = report.anchors?.into_iter().collect();
        found.sort();
        Some(found)
    }

    #[test]
    fn the_page_engine_keeps_the_anchors_a_read_finds_or_none() {
        let long = format!("<p id=\"{}\">", "x".repeat(5000));
        let pages: [&[u8]; 5] = [
            b"<h2 id=intro>x</h2><a name=old></a><div name=not-a></div>\
              <svg><g id=\"icon\"/></svg><p id=\"caf&eacute;\" id=second></p>\
              <template><p id=in-template></p></template>\
              <noscript><p id=in-noscript></p></noscript><p id=\"\"></p>\
              <template id=own><template id=nested></template></template>\
              <svg><a name=svg-a></a><template><g id=in-svg-template /></template></svg>\
              <DIV ID=Upper Id=twice></DIV><A NAME=Caps name=again></A>",
            b"<meta charset=windows-1252><p id=\"caf\xe9\"><a name=\"na\xefve\">",
            b"\xff\xfe<\x00p\x00 \x00i\x00d\x00=\x00\xe9\x00>\x00",
            b"<base href=/x/><p id=a><a href=b id=c>",
            long.as_bytes(),
        ];
        for page in pages {
            let read = of(page);
            // Whole, its anchors are all known, and they are the read's.
            assert_eq!(kept(page, page.len()).as_ref(), Some(&read));
            // In writes that cut tags, a value cut off from its write is
            // lost, and with it the set: never another set.
            for size in [1, 2, 7, 64, 1000] {
                if let Some(found) = kept(page, size) {
                    assert_eq!(found, read, "writes of {size}");
                }
            }
        }
        // A table of few rows, whose own selector names no other element:
        // the anchors are every element's still.
        let config = crate::Config {
            table: crate::document::attrs::Table::only(&["href"]),
            ..crate::Config::default()
        };
        let page = pages[0];
        assert_eq!(kept_with(page, page.len(), config), Some(of(page)));
        // Asked for nothing, the report has none.
        let (_, report) = crate::rewrite_bytes(
            crate::Type::Html,
            crate::Config::default(),
            crate::Layers::default(),
            b"<p id=a>",
        )
        .unwrap();
        assert_eq!(report.anchors, None);
    }

    #[test]
    fn a_page_past_the_room_for_its_anchors_keeps_none() {
        use crate::{Config, Layers, Type, typed::Rewriter};
        let page: String = (0..20_000).map(|i| format!("<br id=anchor-{i}>")).collect();
        let read = |max_memory: usize| {
            let config = Config {
                max_memory,
                ..Config::default()
            };
            let mut rewriter =
                Rewriter::new(Type::Html, config, Layers::default(), Vec::new()).with_anchors();
            rewriter.write(page.as_bytes()).unwrap();
            let (report, out) = rewriter.end().unwrap();
            assert!(!report.incomplete(), "{max_memory}: {:?}", report.warnings);
            assert_eq!(out, page.as_bytes());
            report.anchors.map(|names| names.len())
        };
        // About 900 KB of anchors: past a sixteenth of a 4 MB run's page,
        // within a 64 MB one's.
        assert_eq!(read(4 << 20), None);
        assert_eq!(read(64 << 20), Some(20_000));
    }

    #[test]
    fn none_and_top_are_indicated_on_any_page_and_nothing_else_is() {
        let none = HashSet::new();
        for fragment in ["", "top", "TOP", "%74op", ":~:text=x", "top:~:text=x"] {
            assert!(indicated_anywhere(fragment), "#{fragment}");
            assert!(indicates(&none, fragment), "#{fragment}");
        }
        for fragment in ["intro", "topmost", "to", "intro:~:text=x", "%20"] {
            assert!(!indicated_anywhere(fragment), "#{fragment}");
        }
    }
}
