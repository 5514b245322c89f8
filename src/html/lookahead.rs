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
//!
//! A text handler has lol_html's lexer read the whole input, and the lexer
//! (3.0.3) ends a start tag whose last attribute has `=` and no value
//! (`<style media=>`) in the data state, where the HTML standard's tree
//! builder switches it to the element's raw text: what follows
//! `<style t=>` was read as markup, and a `<base href>` in the style's text
//! became the page's base (Chromium reads it as text). The tag scanner,
//! which the rewriter's element handlers run on, switches right. So the
//! probe's lexer reads the input as the scanner passes it on ([`Relay`]),
//! each such `=` read as a space: the same attribute, empty, and the same
//! offsets.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::VecDeque;
use std::ops::Range;
use std::rc::Rc;

use encoding_rs::Encoding;
use lol_html::html_content::{Element, TextChunk, TextType};
use lol_html::{AsciiCompatibleEncoding, HtmlRewriter, OutputSink, Settings, doc_text, element};

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

/// Where a start tag's last attribute ends in `=` and no value: from the
/// end of its name to the tag's `>` (white space, and that `=`).
type Fixes = Rc<RefCell<VecDeque<Range<usize>>>>;

/// The probe's lexer pass, ended by the probe once the scanner's has ended;
/// gone once it failed (its memory limit), or the probe is done.
type Reader = Rc<RefCell<Option<HtmlRewriter<'static, Discard>>>>;

/// The tag scanner's output (the input, a token at a time, once read) on to
/// the probe's lexer, each `=` of [`Fixes`] written as a space.
struct Relay {
    reader: Reader,
    fixes: Fixes,
    /// The offset of the next byte.
    at: usize,
}

impl OutputSink for Relay {
    fn handle_chunk(&mut self, chunk: &[u8]) {
        let start = self.at;
        self.at += chunk.len();
        let mut held = self.reader.borrow_mut();
        let Some(reader) = held.as_mut() else {
            return;
        };
        // The handler saw each tag before its bytes come out, so its fix is
        // known by now.
        let mut fixes = self.fixes.borrow_mut();
        let mut from = 0;
        let mut result = Ok(());
        while let Some(fix) = fixes.front().filter(|f| f.start < self.at).cloned() {
            let first = fix.start.max(start);
            let range = first - start..fix.end.clamp(first, self.at) - start;
            for i in range.filter(|&i| chunk[i] == b'=') {
                result = result
                    .and_then(|()| reader.write(&chunk[from..i]))
                    .and_then(|()| reader.write(b" "));
                from = i + 1;
            }
            if fix.end > self.at {
                break;
            }
            fixes.pop_front();
        }
        result = result.and_then(|()| reader.write(&chunk[from..]));
        if result.is_err() {
            *held = None;
        }
    }
}

/// lol_html's tag scanner over the input, handing it on to `reader` with
/// each start tag that ends in `=` and no value mended ([`Relay`]).
fn scanner(
    reader: &Reader,
    encoding: AsciiCompatibleEncoding,
    max_memory: usize,
) -> HtmlRewriter<'static, Relay> {
    let fixes = Fixes::default();
    let on_tag = {
        let fixes = Rc::clone(&fixes);
        move |el: &mut Element| {
            let attributes = el.attributes();
            let last = attributes
                .last()
                .filter(|a| a.value_source_location().is_none());
            if let Some(name) = last.and_then(|a| a.name_source_location()) {
                let tag = el.source_location().bytes();
                fixes.borrow_mut().push_back(name.bytes().end..tag.end - 1);
            }
            Ok(())
        }
    };
    let settings = Settings::new()
        .append_element_content_handler(element!("*", on_tag))
        .with_encoding(encoding)
        .with_memory_settings(memory_settings(max_memory))
        .with_strict(false);
    let relay = Relay {
        reader: Rc::clone(reader),
        fixes,
        at: 0,
    };
    HtmlRewriter::new(settings, relay)
}

pub struct Probe {
    /// The tag scanner's pass, which relays the input to the lexer's.
    rewriter: Option<HtmlRewriter<'static, Relay>>,
    reader: Reader,
    state: Rc<RefCell<State>>,
    limit: usize,
    meta_limit: usize,
    /// Every byte handed to it: read while it reads, and ignored once it is
    /// done.
    given: usize,
}

impl Probe {
    /// A probe that decides by byte `limit` at the latest, and looks for a
    /// `<meta>` up to byte `meta_limit`. Only tokens that end within the
    /// limits count, so what it finds does not depend on how the input is
    /// split into writes.
    /// `template_bases` is filled in as the probe reads: the offsets of the
    /// `<base>` tags inside a `<template>`, so the rewriter can say why it
    /// ignores them, whatever the split of writes. Each of its two passes
    /// may hold `max_memory` bytes.
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
        let reader_settings = Settings::new()
            .append_element_content_handler(element!("*", on_element))
            .append_document_content_handler(doc_text!(on_text))
            .with_encoding(encoding)
            .with_memory_settings(memory_settings(max_memory))
            .with_strict(false);
        let discard: Discard = |_| {};
        let reader = Rc::new(RefCell::new(Some(HtmlRewriter::new(
            reader_settings,
            discard,
        ))));
        let scanner = scanner(&reader, encoding, max_memory);
        Probe {
            rewriter: Some(scanner),
            reader,
            state,
            limit,
            meta_limit,
            given: 0,
        }
    }

    /// The encoding declared by the first `<meta>` that declares one, once
    /// met.
    pub fn meta(&self) -> Option<&'static Encoding> {
        self.state.borrow().meta
    }

    /// How many bytes of the input it was handed: where its next write
    /// starts.
    pub fn given(&self) -> usize {
        self.given
    }

    /// Feeds the next bytes of the input; returns the decision once there is
    /// one. It reads on for a `<meta>` while one may still count, and then
    /// ignores its input.
    pub fn write(&mut self, chunk: &[u8]) -> Option<Decision> {
        let mut fed = self.given;
        self.given += chunk.len();
        // In small slices, so that the probe stops soon after it is done
        // instead of tokenizing the rest of a large write for nothing (what
        // it finds does not depend on how the input is split).
        for slice in chunk.chunks(SLICE) {
            let Some(rewriter) = self.rewriter.as_mut() else {
                break;
            };
            fed += slice.len();
            // A probe that fails (the memory limit) has nothing more to say:
            // the hold ends there, without an embedded base. Its reader
            // is gone while it reads only when it failed.
            let failed = rewriter.write(slice).is_err() || self.reader.borrow().is_none();
            let mut state = self.state.borrow_mut();
            if state.decision.is_none() && failed {
                state.decision = Some(Decision::Stopped);
            }
            if state.decision.is_none() && fed > self.limit {
                state.decision = Some(Decision::Limit);
            }
            let meta_done = state.meta.is_some() || fed > self.meta_limit;
            if failed || (state.decision.is_some() && meta_done) {
                drop(state);
                self.rewriter = None;
                self.reader.take();
            }
        }
        self.state.borrow().decision.clone()
    }

    /// The end of input decides whatever is still open.
    pub fn end(&mut self) -> Decision {
        if let Some(rewriter) = self.rewriter.take() {
            // What the scanner held goes on to the reader; text held back
            // at the end is flushed by the reader's `end`.
            let _ = rewriter.end();
            if let Some(reader) = self.reader.take() {
                let _ = reader.end();
            }
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
    base_at: Option<usize>,
    /// The last bytes held, for a `<base` split across writes.
    tail: Vec<u8>,
}

impl Hold {
    /// Holds `chunk`: kept as it is when owned, else copied.
    pub fn push(&mut self, chunk: Cow<'_, [u8]>) {
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

    /// The bytes held from `offset` on, a chunk at a time.
    pub fn from(&self, offset: usize) -> impl Iterator<Item = &[u8]> {
        let mut at = 0;
        self.chunks.iter().filter_map(move |chunk| {
            let start = offset.saturating_sub(at).min(chunk.len());
            at += chunk.len();
            Some(&chunk[start..]).filter(|rest| !rest.is_empty())
        })
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
            assert_eq!(
                hold.from(i).collect::<Vec<_>>().concat(),
                byte,
                "the newest write, alone"
            );
        }
        // A buffer for each 64 KiB, not an allocation for each byte.
        assert_eq!(hold.chunks().count(), 3);
        let given = vec![b'z'; 10];
        let at = given.as_ptr();
        hold.push(Cow::Owned(given));
        let newest: Vec<&[u8]> = hold.from(3 * CHUNK).collect();
        assert_eq!(newest.len(), 1);
        assert_eq!(newest[0].as_ptr(), at, "kept, not copied");
        hold.push(Cow::Borrowed(b"tail"));
        assert_eq!(
            hold.from(3 * CHUNK + 10).collect::<Vec<_>>().concat(),
            b"tail"
        );
        assert_eq!(
            hold.from(3 * CHUNK + 12).collect::<Vec<_>>().concat(),
            b"il",
            "from within a chunk"
        );
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

    /// A raw text element whose start tag ends in `=` and no value is raw
    /// text all the same (the HTML standard's tree builder switches to it
    /// whatever the tag's last attribute): a `<base href>` in its text is
    /// none, nor is its text the body's; the real base after it is found,
    /// however the input is split, and every other tag ends as before.
    #[test]
    fn a_base_in_raw_text_after_a_valueless_attribute_is_text() {
        let cases = [
            ("<style t=><base href=s></style><base href=b>", Some("b")),
            (
                "<title lang= >T<base href=s></title><base href=b>",
                Some("b"),
            ),
            (
                "<script a=b c=\n>'<base href=s>'</script><base href=b>",
                Some("b"),
            ),
            (
                "<noframes ==><base href=s></noframes><base href=b>",
                Some("b"),
            ),
            ("<STYLE T=\t\t>x</STYLE><p><base href=b>", None),
            // The `=` is a name's, or a value's own: nothing to mend.
            ("<style =><base href=s></style><base href=b>", Some("b")),
            (
                "<style t=\"=\"><base href=s></style><base href=b>",
                Some("b"),
            ),
            ("<base href=\"a=>b\">", Some("a=>b")),
            ("<base href==>", Some("=")),
            ("<base href=>", None),
        ];
        for (html, base) in cases {
            for size in 1..=html.len() {
                let mut probe = probe(1 << 20, 0);
                let mut decision = None;
                for chunk in html.as_bytes().chunks(size) {
                    decision = decision.or(probe.write(chunk));
                }
                let decision = decision.unwrap_or_else(|| probe.end());
                assert_eq!(
                    base_href(decision).as_deref(),
                    base,
                    "{html:?} in writes of {size}"
                );
            }
        }
    }

    /// Why the probe relays: lol_html's lexer, which a text handler makes
    /// read everything, reads the text of `<style t=>` as markup where its
    /// tag scanner does not. When this fails, lol_html reads it right, and
    /// the [`Relay`] can go.
    #[test]
    fn lol_html_s_lexer_still_reads_raw_text_after_a_valueless_attribute_as_markup() {
        let elements = |text: bool| {
            let found = Rc::new(RefCell::new(Vec::new()));
            let on_element = {
                let found = Rc::clone(&found);
                move |el: &mut Element| {
                    found.borrow_mut().push(el.tag_name());
                    Ok(())
                }
            };
            let mut settings =
                Settings::new().append_element_content_handler(element!("*", on_element));
            if text {
                settings = settings.append_document_content_handler(doc_text!(|_| Ok(())));
            }
            let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
            rewriter.write(b"<style t=><d></style>").unwrap();
            rewriter.end().unwrap();
            found.take()
        };
        assert_eq!(elements(false), ["style"]);
        assert_eq!(elements(true), ["style", "d"]);
    }

    /// The elements lol_html finds in `html` (name and start tag), by its
    /// tag scanner alone (an element handler), or by its lexer, which a text
    /// handler makes read everything, through the [`Relay`].
    fn elements(html: &[u8], relayed: bool, writes: usize) -> Vec<(String, Range<usize>)> {
        let found = Rc::new(RefCell::new(Vec::new()));
        let on_element = {
            let found = Rc::clone(&found);
            move |el: &mut Element| {
                let tag = (el.tag_name(), el.source_location().bytes());
                found.borrow_mut().push(tag);
                Ok(())
            }
        };
        let settings = Settings::new()
            .append_element_content_handler(element!("*", on_element))
            .with_strict(false);
        let discard: Discard = |_| {};
        if !relayed {
            let mut rewriter = HtmlRewriter::new(settings, discard);
            for chunk in html.chunks(writes) {
                rewriter.write(chunk).unwrap();
            }
            rewriter.end().unwrap();
            return found.take();
        }
        let settings = settings.append_document_content_handler(doc_text!(|_| Ok(())));
        let reader = Rc::new(RefCell::new(Some(HtmlRewriter::new(settings, discard))));
        let utf8 = encoding_rs::UTF_8.try_into().unwrap();
        let mut scanner = scanner(&reader, utf8, 1 << 20);
        for chunk in html.chunks(writes) {
            scanner.write(chunk).unwrap();
        }
        scanner.end().unwrap();
        reader
            .take()
            .expect("the reader did not fail")
            .end()
            .unwrap();
        found.take()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Through the relay, lol_html's lexer finds the elements its tag
        /// scanner finds (the rewriter's), in tag soup of raw text
        /// elements, foreign content, comments and valueless attributes,
        /// however the input is split.
        #[test]
        fn the_relayed_lexer_finds_the_elements_the_scanner_finds(
            pieces in proptest::collection::vec(proptest::sample::select(SOUP.to_vec()), 1..16),
            writes in 1usize..12,
        ) {
            let html = pieces.concat();
            let scanned = elements(html.as_bytes(), false, usize::MAX);
            proptest::prop_assert_eq!(&elements(html.as_bytes(), true, writes), &scanned);
        }
    }

    /// Pieces of tag soup: start tags of raw text, RCDATA, foreign and other
    /// elements, with attributes valueless or not, end tags, comments.
    const SOUP: &[&str] = &[
        "<style t=>",
        "<STYLE t= >",
        "<script a=b c=\n>",
        "<title ==>",
        "<textarea t=>",
        "<xmp t=>",
        "<iframe t=>",
        "<noembed t=>",
        "<noframes t=>",
        "<noscript t=>",
        "<plaintext t=>",
        "<template t=>",
        "<svg t=>",
        "<math t=>",
        "<desc t=>",
        "<foreignObject t=>",
        "<table t=>",
        "<select t=>",
        "<a t=>",
        "<p t=/>",
        "<p t>",
        "<base href=q>",
        "<meta charset=x>",
        "<a =>",
        "<b t=\"=\">",
        "</style>",
        "</script>",
        "</title>",
        "</textarea>",
        "</svg>",
        "</template>",
        "</p>",
        "<!--",
        "-->",
        "<!-- c -->",
        "<![CDATA[",
        "]]>",
        "<?x?>",
        "<!x>",
        "</",
        "<",
        ">",
        "=",
        "\"",
        "'",
        "text",
        " ",
        "\n",
        "&amp;",
    ];

    /// A probe that runs out of memory has nothing more to say, whichever
    /// of its passes ran out: the scanner's on a long tag, the reader's on
    /// a long tag that it is given in parts (the `=` mended on the way).
    #[test]
    fn a_probe_out_of_memory_stops_whichever_pass_ran_out() {
        let value = "v".repeat(1500);
        let cases = [
            (
                format!("<link href=\"{}\"><base href=b>", value.repeat(3)),
                "scanner",
            ),
            (
                format!("<style a=\"{value}\" t=><base href=s></style><base href=b>"),
                "reader",
            ),
        ];
        for (html, pass) in cases {
            let utf8 = encoding_rs::UTF_8.try_into().unwrap();
            let mut probe = Probe::new(utf8, 1 << 20, 0, 2560, Rc::default());
            let decision = probe.write(html.as_bytes()).unwrap_or_else(|| probe.end());
            assert_eq!(decision, Decision::Stopped, "the {pass} ran out");
        }
        // With room, each finds the base.
        let utf8 = encoding_rs::UTF_8.try_into().unwrap();
        let mut probe = Probe::new(utf8, 1 << 20, 0, 1 << 20, Rc::default());
        let html = format!("<style a=\"{value}\" t=><base href=s></style><base href=b>");
        assert_eq!(
            base_href(probe.write(html.as_bytes()).unwrap()).as_deref(),
            Some("b")
        );
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
