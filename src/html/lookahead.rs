//! Finding the embedded base (RFC 1808 §3.1) before the first URL is written.
//!
//! `<base>` may follow `<link href>` in the head, so the output is held until
//! the first `<base href>` is seen or the head is over. The head is over at a
//! start tag other than those a head holds, at text that is not whitespace
//! outside title, script, style, noscript, noframes and template, or at the
//! end of input; the hold is also bounded by a byte limit.
//!
//! While the encoding is open, the probe also looks for the first `<meta>`
//! that declares one, past the head too (browsers act on it anywhere the
//! parser meets it while the encoding is tentative), within the detector's
//! window: a `<meta>` in the body that the prescan found in the first 1024
//! bytes is found again once rewritten URLs push it further.
//!
//! The probe is its own read-only lol_html pass, fed the same writes as the
//! rewriter, and dropped once it has decided: the rewriter itself must not
//! carry text handlers, because lol_html writes handled text back re-encoded
//! (invalid bytes would become U+FFFD). Heads are small, so the second pass
//! costs little.

use std::borrow::Cow;
use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;
use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{AsciiCompatibleEncoding, HtmlRewriter, Settings, doc_text, element};

use super::encoding;
use super::settings::{HTML_NAMESPACE, memory_settings};
use crate::document::buffers;
use crate::document::decision::Decision;

/// Start tags that leave the head open (the HTML standard's "in head"
/// insertion mode, plus `html` and `head` themselves).
const HEAD_ELEMENTS: &[&str] = &[
    "html", "head", "base", "basefont", "bgsound", "link", "meta", "noframes", "script", "style",
    "template", "title", "noscript",
];

/// How much of a write the probe reads at a time.
const SLICE: usize = 4096;

#[derive(Default)]
struct State {
    /// Open `<template>` elements: what is inside one does not count.
    template_depth: usize,
    decision: Option<Decision>,
    /// Offsets of the `<base>` tags passed over inside a `<template>`, so the
    /// rewriter can say why it ignores them, whatever the split of writes.
    template_bases: Rc<RefCell<Vec<usize>>>,
    /// The encoding the first `<meta>` that declares one declares, once met.
    meta: Option<&'static Encoding>,
}

/// The probe's output goes nowhere: the rewriter writes the document.
type Discard = fn(&[u8]);

pub struct Probe {
    rewriter: Option<HtmlRewriter<'static, Discard>>,
    state: Rc<RefCell<State>>,
    limit: usize,
    meta_limit: usize,
    fed: usize,
}

impl Probe {
    /// A probe that decides by byte `limit` at the latest, and looks for a
    /// `<meta>` up to byte `meta_limit`. Only tokens that end within the
    /// limits count, so what it finds does not depend on how the input is
    /// split into writes.
    /// `template_bases` is filled in as the probe reads: the offsets of the
    /// `<base>` tags inside a `<template>`, so the rewriter can say why it
    /// ignores them, whatever the split of writes.
    pub fn new(
        encoding: AsciiCompatibleEncoding,
        limit: usize,
        meta_limit: usize,
        max_memory: usize,
        template_bases: Rc<RefCell<Vec<usize>>>,
    ) -> Self {
        let state = Rc::new(RefCell::new(State {
            template_bases,
            ..State::default()
        }));
        let on_element = {
            let state = Rc::clone(&state);
            move |el: &mut Element| {
                on_start_tag(&state, el, limit, meta_limit);
                Ok(())
            }
        };
        let on_text = {
            let state = Rc::clone(&state);
            move |text: &mut TextChunk| {
                on_text(&mut state.borrow_mut(), text, limit);
                Ok(())
            }
        };
        let settings = Settings::new()
            .append_element_content_handler(element!("*", on_element))
            .append_document_content_handler(doc_text!(on_text))
            .with_encoding(encoding)
            .with_memory_settings(memory_settings(max_memory))
            .with_strict(false);
        let sink: Discard = |_| {};
        Probe {
            rewriter: Some(HtmlRewriter::new(settings, sink)),
            state,
            limit,
            meta_limit,
            fed: 0,
        }
    }

    /// The encoding declared by the first `<meta>` that declares one, once
    /// met.
    pub fn meta(&self) -> Option<&'static Encoding> {
        self.state.borrow().meta
    }

    /// Feeds the next bytes of the input; returns the decision once there is
    /// one. It reads on for a `<meta>` while one may still count, and then
    /// ignores its input.
    pub fn write(&mut self, chunk: &[u8]) -> Option<Decision> {
        // In small slices, so that the probe stops soon after it is done
        // instead of tokenizing the rest of a large write for nothing (what
        // it finds does not depend on how the input is split).
        for slice in chunk.chunks(SLICE) {
            let Some(rewriter) = self.rewriter.as_mut() else {
                break;
            };
            self.fed += slice.len();
            // A probe that fails (the memory limit) has nothing more to say:
            // the hold ends there, without an embedded base.
            let failed = rewriter.write(slice).is_err();
            let mut state = self.state.borrow_mut();
            if state.decision.is_none() && failed {
                state.decision = Some(Decision::Stopped);
            }
            if state.decision.is_none() && self.fed > self.limit {
                state.decision = Some(Decision::Limit);
            }
            let meta_done = state.meta.is_some() || self.fed > self.meta_limit;
            if failed || (state.decision.is_some() && meta_done) {
                drop(state);
                self.rewriter = None;
            }
        }
        self.state.borrow().decision.clone()
    }

    /// The end of input decides whatever is still open.
    pub fn end(&mut self) -> Decision {
        if let Some(rewriter) = self.rewriter.take() {
            // Text held back at the end is flushed by `end`.
            let _ = rewriter.end();
        }
        let mut state = self.state.borrow_mut();
        state.decision.get_or_insert(Decision::End).clone()
    }
}

fn on_start_tag(state: &Rc<RefCell<State>>, el: &mut Element, limit: usize, meta_limit: usize) {
    let location = el.source_location().bytes();
    let mut s = state.borrow_mut();
    let base_open = s.decision.is_none() && location.end <= limit;
    let meta_open = s.meta.is_none() && location.end <= meta_limit;
    if !base_open && !meta_open {
        return;
    }
    let tag = el.tag_name();
    if tag == "template" {
        s.template_depth += 1;
        let state = Rc::clone(state);
        if let Some(handlers) = el.end_tag_handlers() {
            handlers.push(Box::new(move |_| {
                let mut s = state.borrow_mut();
                s.template_depth = s.template_depth.saturating_sub(1);
                Ok(())
            }));
        }
        return;
    }
    // "in template" processes `meta` by the "in head" rules, as the prescan
    // reads it, so one inside a `<template>` counts too.
    if tag == "meta" && meta_open && el.namespace_uri() == HTML_NAMESPACE {
        s.meta = encoding::meta_element(
            el.get_attribute("charset").as_deref(),
            el.get_attribute("http-equiv").as_deref(),
            el.get_attribute("content").as_deref(),
        );
    }
    if s.template_depth > 0 {
        if tag == "base" && base_open {
            s.template_bases.borrow_mut().push(location.start);
        }
        return;
    }
    if !base_open {
        return;
    }
    if tag == "base" {
        // "the first <base> element with an href": one without does not count.
        let href = el.attributes().iter().find(|a| a.name() == "href");
        if let Some((href, value)) =
            href.and_then(|a| Some((a.value(), a.value_source_location()?)))
        {
            s.decision = Some(Decision::Base {
                offset: location.start,
                href,
                value: value.bytes(),
            });
        }
    } else if !HEAD_ELEMENTS.contains(&tag.as_str()) {
        s.decision = Some(Decision::HeadOver {
            offset: location.start,
        });
    }
}

fn on_text(s: &mut State, text: &TextChunk, limit: usize) {
    if s.decision.is_some() || s.template_depth > 0 || text.text_type() != TextType::Data {
        return;
    }
    let start = text.source_location().bytes().start;
    let content = text.as_str();
    // A byte order mark at the very start is no text: the HTML standard
    // strips it before the tokenizer sees the input. (A character split
    // across writes is located at its last byte: the mark lies within the
    // first three bytes.)
    let bom = if start < 3 && content.starts_with('\u{FEFF}') {
        3
    } else {
        0
    };
    let text = &content[bom..];
    if let Some(i) = text.find(|c| !matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')) {
        let i = i + bom;
        // The offset is exact for UTF-8 input and close enough for a message
        // otherwise; it is checked against the limit like a tag's end.
        let offset = start + i;
        if offset < limit {
            s.decision = Some(Decision::HeadOver { offset });
        }
    }
}

/// The input held while the lookahead has not decided, and where `<base`
/// first occurs in it. Growing it never copies what it holds: a buffer handed
/// over is kept as it is, and small writes are gathered into buffers of 64
/// KiB (one allocation for each write of a few bytes would take many times
/// their size).
#[derive(Default)]
pub struct Hold {
    chunks: Vec<Vec<u8>>,
    len: usize,
    /// The length of the newest write, at the end of the last chunk.
    newest: usize,
    base_at: Option<usize>,
    /// The last bytes held, for a `<base` split across writes.
    tail: Vec<u8>,
}

impl Hold {
    /// Holds `chunk`: kept as it is when owned, else copied.
    pub fn push(&mut self, chunk: Cow<'_, [u8]>) {
        self.newest = chunk.len();
        if self.base_at.is_none() {
            let mut seam = std::mem::take(&mut self.tail);
            let before = seam.len();
            seam.extend_from_slice(&chunk[..chunk.len().min(4)]);
            self.base_at = find_base(&seam)
                .filter(|&at| at < before)
                .map(|at| self.len - before + at)
                .or_else(|| find_base(&chunk).map(|at| self.len + at));
            if chunk.len() >= 4 {
                seam.clear();
                seam.extend_from_slice(&chunk[chunk.len() - 4..]);
            }
            seam.drain(..seam.len().saturating_sub(4));
            self.tail = seam;
        }
        self.len += chunk.len();
        match chunk {
            Cow::Owned(chunk) => self.chunks.push(chunk),
            Cow::Borrowed(chunk) => match self.chunks.last_mut() {
                Some(last) if last.capacity() - last.len() >= chunk.len() => {
                    last.extend_from_slice(chunk);
                }
                _ => self.chunks.push(buffers::copy_of(chunk)),
            },
        }
    }

    /// The newest write held.
    pub fn last(&self) -> &[u8] {
        self.chunks
            .last()
            .map_or(&[], |last| &last[last.len() - self.newest..])
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Where the first `<base` (in any case) starts.
    pub fn base_at(&self) -> Option<usize> {
        self.base_at
    }

    pub fn chunks(&self) -> impl Iterator<Item = &[u8]> {
        self.chunks.iter().map(Vec::as_slice)
    }

    /// The bytes held at `range` (empty where nothing is held).
    pub fn bytes(&self, range: Range<usize>) -> Vec<u8> {
        let mut bytes = Vec::with_capacity(range.len());
        let mut at = 0;
        for chunk in &self.chunks {
            let (start, end) = (range.start.max(at), range.end.min(at + chunk.len()));
            if start < end {
                bytes.extend_from_slice(&chunk[start - at..end - at]);
            }
            at += chunk.len();
        }
        bytes
    }

    /// Lets go of what is held.
    pub fn take(&mut self) -> Vec<Vec<u8>> {
        self.len = 0;
        self.newest = 0;
        std::mem::take(&mut self.chunks)
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        self.chunks.drain(..).for_each(buffers::give_back);
    }
}

/// Where `bytes` first hold `<base`, in any case. (Two searches for `<b`
/// and `<B` skip through a page far faster than one stop at every `<`.)
fn find_base(bytes: &[u8]) -> Option<usize> {
    let is_base = |at: &usize| {
        bytes
            .get(at + 2..at + 5)
            .is_some_and(|b| b.eq_ignore_ascii_case(b"ase"))
    };
    let lower = memchr::memmem::find_iter(bytes, b"<b").find(is_base);
    let upper = memchr::memmem::find_iter(bytes, b"<B").find(is_base);
    lower.into_iter().chain(upper).min()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::buffers::CHUNK;

    fn probe(limit: usize, meta_limit: usize) -> Probe {
        let utf8 = encoding_rs::UTF_8.try_into().unwrap();
        Probe::new(utf8, limit, meta_limit, 1 << 20, Rc::default())
    }

    fn decide(html: &str, limit: usize) -> Decision {
        let mut probe = probe(limit, 0);
        probe.write(html.as_bytes()).unwrap_or_else(|| probe.end())
    }

    fn decide_bytewise(html: &str, limit: usize) -> Decision {
        let mut probe = probe(limit, 0);
        for b in html.as_bytes() {
            if let Some(d) = probe.write(std::slice::from_ref(b)) {
                return d;
            }
        }
        probe.end()
    }

    fn base_href(d: Decision) -> Option<String> {
        match d {
            Decision::Base { href, .. } => Some(href),
            _ => None,
        }
    }

    #[test]
    fn the_hold_finds_base_in_any_case_however_split() {
        let html = b"<a href=x><BaSe href=y><base>";
        for size in 1..html.len() {
            let mut hold = Hold::default();
            for chunk in html.chunks(size) {
                hold.push(Cow::Borrowed(chunk));
            }
            assert_eq!(hold.base_at(), Some(10), "writes of {size}");
            assert_eq!(hold.len(), html.len());
            assert_eq!(hold.chunks().collect::<Vec<_>>().concat(), html);
            assert_eq!(hold.bytes(8..20), &html[8..20]);
        }
        let mut hold = Hold::default();
        hold.push(Cow::Borrowed(b"<bas"));
        hold.push(Cow::Borrowed(b"e"));
        assert_eq!(hold.base_at(), Some(0));
        let mut hold = Hold::default();
        hold.push(Cow::Borrowed(b"<a>base <bas></bas>"));
        assert_eq!(hold.base_at(), None);
    }

    #[test]
    fn the_hold_gathers_small_writes_and_keeps_buffers_handed_over() {
        let mut hold = Hold::default();
        let mut written = Vec::new();
        for i in 0..3 * CHUNK {
            let byte = [b'a' + (i % 26) as u8];
            hold.push(Cow::Borrowed(&byte));
            written.push(byte[0]);
            assert_eq!(hold.last(), byte, "the newest write, alone");
        }
        // A buffer for each 64 KiB, not an allocation for each byte.
        assert_eq!(hold.chunks().count(), 3);
        let given = vec![b'z'; 10];
        let at = given.as_ptr();
        hold.push(Cow::Owned(given));
        assert_eq!(hold.last().as_ptr(), at, "kept, not copied");
        hold.push(Cow::Borrowed(b"tail"));
        assert_eq!(hold.last(), b"tail");
        written.extend_from_slice(b"zzzzzzzzzztail");
        assert_eq!(hold.chunks().collect::<Vec<_>>().concat(), written);
        assert_eq!(hold.len(), written.len());
    }

    /// The encoding the probe's first `<meta>` declares, over `html` in
    /// writes of `size` bytes, with its ending as the document drives it.
    fn meta_met(html: &[u8], meta_limit: usize, size: usize) -> Option<&'static Encoding> {
        let mut probe = probe(1 << 20, meta_limit);
        for chunk in html.chunks(size) {
            probe.write(chunk);
        }
        probe.end();
        probe.meta()
    }

    #[test]
    fn a_meta_counts_past_the_head_within_its_limit_however_split() {
        use encoding_rs::{KOI8_R, SHIFT_JIS};
        let body = b"<title>t</title><p>text<meta charset=koi8-r><meta charset=sjis>";
        // "in template" handles `meta` by the "in head" rules, and a `meta`
        // start tag breaks out of foreign content: both are HTML metas.
        let in_template = b"<template><meta charset=sjis></template><meta charset=koi8-r>";
        let in_svg = b"<svg><meta charset=sjis></svg><meta charset=koi8-r>";
        for size in 1..=body.len() {
            assert_eq!(
                meta_met(body, 1 << 20, size),
                Some(KOI8_R),
                "writes of {size}"
            );
            assert_eq!(meta_met(in_template, 1 << 20, size), Some(SHIFT_JIS));
            assert_eq!(meta_met(in_svg, 1 << 20, size), Some(SHIFT_JIS));
            // One that ends past the limit does not count.
            let end = body.len() - b"<meta charset=sjis>".len() - 1;
            assert_eq!(meta_met(body, end, size), None, "writes of {size}");
            assert_eq!(meta_met(body, end + 1, size), Some(KOI8_R));
        }
        // After the base is decided too.
        let after_base = b"<base href=http://b/><p><meta charset=sjis>";
        assert_eq!(meta_met(after_base, 1 << 20, 7), Some(SHIFT_JIS));
    }

    #[test]
    fn base_after_links_title_and_script_is_found() {
        let html = "<html><head><link href=a.css><title>T</title><script>x</script>\n<BASE HREF='http://b/'><a href=x>";
        assert_eq!(
            base_href(decide(html, 1 << 20)).as_deref(),
            Some("http://b/")
        );
    }

    #[test]
    fn a_byte_order_mark_is_not_text() {
        let html = "\u{FEFF}<link href=a><base href=\"http://b/\">";
        assert_eq!(
            base_href(decide(html, 1 << 20)).as_deref(),
            Some("http://b/")
        );
        assert_eq!(
            base_href(decide_bytewise(html, 1 << 20)).as_deref(),
            Some("http://b/")
        );
        assert_eq!(
            decide("x\u{FEFF}", 1 << 20),
            Decision::HeadOver { offset: 0 }
        );
    }

    #[test]
    fn head_is_over_at_body_content() {
        assert_eq!(
            decide("<head><title>x</title></head><body><base href=x>", 1 << 20),
            Decision::HeadOver { offset: 29 }
        );
        assert_eq!(
            decide("<meta charset=utf-8>\n  hello<base href=x>", 1 << 20),
            Decision::HeadOver { offset: 23 }
        );
        assert_eq!(decide("<title>a</title>", 1 << 20), Decision::End);
    }

    #[test]
    fn base_without_href_and_base_in_template_do_not_count() {
        let html = "<base target=_top><template><base href=t><p>x</p></template><base href=h>";
        assert_eq!(base_href(decide(html, 1 << 20)).as_deref(), Some("h"));
    }

    #[test]
    fn limit_counts_whole_tokens_however_the_input_is_split() {
        let html = "<head><base href=\"http://b/\"><a>";
        let end_of_base = html.find("><a>").unwrap() + 1;
        for limit in [end_of_base - 1, end_of_base, end_of_base + 1] {
            assert_eq!(
                decide(html, limit),
                decide_bytewise(html, limit),
                "limit {limit}"
            );
        }
        assert_eq!(decide(html, end_of_base - 1), Decision::Limit);
        assert!(base_href(decide(html, end_of_base)).is_some());
    }
}
