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

use std::cell::{Cell, RefCell};
use std::collections::HashSet;
use std::rc::Rc;

use encoding_rs::{Encoding, UTF_8};
use lol_html::html_content::Element;
use lol_html::{AsciiCompatibleEncoding, HtmlRewriter, Settings, element};

use super::encoding::{DETECTION, Sniffer};
use super::settings::memory_settings;

/// The HTML namespace, as lol_html names an element's.
const HTML: &str = "http://www.w3.org/1999/xhtml";

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
        Some(_) => (std::borrow::Cow::Borrowed(page), encoding),
        None => {
            let (text, _) = encoding.decode_without_bom_handling(page);
            (
                std::borrow::Cow::Owned(text.into_owned().into_bytes()),
                UTF_8,
            )
        }
    };
    let found = Rc::new(RefCell::new(HashSet::new()));
    let templates = Rc::new(Cell::new(0usize));
    let named = |attribute: &'static str| {
        let (found, templates, bytes) = (Rc::clone(&found), Rc::clone(&templates), &bytes);
        move |el: &mut Element| {
            if templates.get() > 0 || (attribute == "name" && el.namespace_uri() != HTML) {
                return Ok(());
            }
            // The first of duplicate attributes counts, as in HTML.
            let attr = el.attributes().iter().find(|a| a.name() == attribute);
            if let Some(range) = attr.and_then(|a| a.value_source_location()) {
                let raw = &bytes[range.bytes()];
                let (text, _) = encoding.decode_without_bom_handling(raw);
                let value = htmlize::unescape_attribute(&*text).into_owned();
                found.borrow_mut().insert(value);
            }
            Ok(())
        }
    };
    let template = {
        let templates = Rc::clone(&templates);
        move |el: &mut Element| {
            if el.namespace_uri() != HTML {
                return Ok(());
            }
            templates.set(templates.get() + 1);
            let templates = Rc::clone(&templates);
            if let Some(handlers) = el.end_tag_handlers() {
                handlers.push(Box::new(move |_| {
                    templates.set(templates.get().saturating_sub(1));
                    Ok(())
                }));
            }
            Ok(())
        }
    };
    // An element's handlers run in the order they are added: a
    // `<template>`'s own id is read before its content is counted out.
    let settings = Settings::new()
        .append_element_content_handler(element!("[id]", named("id")))
        .append_element_content_handler(element!("a[name]", named("name")))
        .append_element_content_handler(element!("template", template))
        .with_encoding(AsciiCompatibleEncoding::new(encoding)?)
        .with_memory_settings(memory_settings(limit))
        .with_strict(false);
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    let read = rewriter.write(&bytes).and_then(|()| rewriter.end());
    drop(bytes);
    read.ok()?;
    Rc::into_inner(found).map(RefCell::into_inner)
}

/// Whether `fragment` (as the URL has it, after its `#`) names a part of
/// a page whose [`anchors`] are `anchors`, as a browser scrolls to it
/// (HTML §7.4.6.3, "the indicated part of the document"): empty, an
/// anchor as it is or percent-decoded, or `top` in any case. A text
/// fragment's directive (`:~:text=…`) is no part of it.
pub(crate) fn indicates(anchors: &HashSet<String>, fragment: &str) -> bool {
    let fragment = fragment.split(":~:").next().unwrap_or_default();
    if fragment.is_empty() || anchors.contains(fragment) {
        return true;
    }
    let decoded = percent_decoded(fragment);
    let decoded = String::from_utf8_lossy(&decoded);
    anchors.contains(&*decoded) || decoded.eq_ignore_ascii_case("top")
}

/// `text` with each `%` and two hex digits the byte they name.
fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) if hex.is_some_and(|h| h.bytes().all(|c| c.is_ascii_hexdigit())) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
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
            <svg><a name=svg-a></a><template><g id=in-svg-template /></template></svg>";
        assert_eq!(
            of(page),
            ["", "café", "icon", "in-svg-template", "intro", "old", "own"]
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
}
