//! The rewriter: lol_html finds the URL attributes; a splicing output sink
//! substitutes their value bytes and copies everything else as it came.
//!
//! lol_html's output is the input byte for byte as long as no handler changes
//! anything, and ours never do (`set_attribute` would re-serialize the whole
//! tag). So an offset in lol_html's output is the same offset in the input,
//! and the handlers only record each value's byte range; the sink, which sees
//! the bytes of the range go by, decides what to put there. Until the base is
//! known (see [`crate::lookahead`]) the sink holds the output, and the ranges
//! recorded meanwhile are resolved when it lets go.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::{self, BufWriter, Read, Write};
use std::ops::Range;
use std::rc::Rc;

use lol_html::html_content::Element;
use lol_html::{AsciiCompatibleEncoding, HtmlRewriter, OutputSink, Settings, element};

use crate::Standard;
use crate::attrs;
use crate::base::{Base, Ignored, Layer, Layers};
use crate::lookahead::{Decision, Probe};
use crate::report::{Counts, Report, Warning};
use crate::value::{self, Quote};

/// Reads and writes of this size keep system calls few.
pub const CHUNK: usize = 64 * 1024;

const SVG_NAMESPACE: &str = "http://www.w3.org/2000/svg";

/// Everything a run needs to know, validated.
#[derive(Debug, Clone)]
pub struct Config {
    /// §3.2 and §3.3; §3.1 comes from the document.
    pub layers: Layers,
    pub standard: Standard,
    /// Leave same-document references (`#top`, and `""`) as they are.
    pub keep_fragments: bool,
    /// How many bytes to hold at most while looking for `<base href>`.
    pub max_lookahead: usize,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            layers: Layers::default(),
            standard: Standard::default(),
            keep_fragments: false,
            max_lookahead: 1 << 20,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("cannot read the input: {0}")]
    Read(#[source] io::Error),
    #[error("cannot write the output: {0}")]
    Write(#[source] io::Error),
    #[error("cannot parse the input: {0}")]
    Parse(String),
}

/// Where a recorded value stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// A URL; `svg` is set inside SVG, where `#id` references stay.
    Url { svg: bool },
    /// The href of the `<base>` that set the base: it becomes that base.
    BaseHref,
}

#[derive(Debug)]
struct Span {
    range: Range<usize>,
    role: Role,
}

/// What the handlers and the sink share.
struct Shared {
    spans: VecDeque<Span>,
    /// `None` while the lookahead has not decided.
    base: Option<Base>,
    /// The value range of the `<base href>` that set the base, if one did.
    base_value: Option<Range<usize>>,
    decision: Option<Decision>,
    counts: Counts,
    warnings: Vec<Warning>,
}

/// A streaming rewriter that writes to `W`.
pub struct Rewriter<W: Write> {
    html: HtmlRewriter<'static, Sink<W>>,
    probe: Probe,
    shared: Rc<RefCell<Shared>>,
    splicer: Rc<RefCell<Splicer<W>>>,
    config: Config,
}

impl<W: Write> Rewriter<W> {
    pub fn new(config: Config, output: W) -> Self {
        let encoding =
            AsciiCompatibleEncoding::new(encoding_rs::UTF_8).expect("UTF-8 is ASCII-compatible");
        let shared = Rc::new(RefCell::new(Shared {
            spans: VecDeque::new(),
            base: None,
            base_value: None,
            decision: None,
            counts: Counts::default(),
            warnings: Vec::new(),
        }));
        let splicer = Rc::new(RefCell::new(Splicer {
            out: BufWriter::with_capacity(CHUNK, output),
            held: Some(Vec::new()),
            pos: 0,
            previous: 0,
            current: None,
            buffer: Vec::new(),
            error: None,
            shared: Rc::clone(&shared),
            standard: config.standard,
            keep_fragments: config.keep_fragments,
        }));
        let probe = Probe::new(encoding, config.max_lookahead);
        let on_element = {
            let shared = Rc::clone(&shared);
            let template_bases = probe.template_bases();
            move |el: &mut Element| {
                record(&mut shared.borrow_mut(), el, &template_bases.borrow());
                Ok(())
            }
        };
        let settings = Settings::new()
            .append_element_content_handler(element!(attrs::selector(), on_element))
            .with_encoding(encoding)
            .with_strict(false);
        Rewriter {
            html: HtmlRewriter::new(settings, Sink(Rc::clone(&splicer))),
            probe,
            shared,
            splicer,
            config,
        }
    }

    /// Rewrites the next bytes of the input, however it is split.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        // The probe goes first, so that the base is decided before the
        // rewriter's handlers meet the `<base>` element.
        if self.shared.borrow().decision.is_none() {
            if let Some(decision) = self.probe.write(chunk) {
                self.decide(decision);
            }
        }
        let result = self.html.write(chunk);
        self.check(result)
    }

    /// Ends the input: writes what is held, flushes, and gives back the report
    /// and the output.
    pub fn end(mut self) -> Result<(Report, W), Error> {
        if self.shared.borrow().decision.is_none() {
            let decision = self.probe.end();
            self.decide(decision);
        }
        let Rewriter {
            html,
            shared,
            splicer,
            ..
        } = self;
        // `end` drops lol_html and its handlers, so the sink and the handlers
        // give back their shares.
        let result = html.end();
        let splicer = Rc::try_unwrap(splicer)
            .ok()
            .expect("the sink was dropped with lol_html")
            .into_inner();
        if let Some(e) = splicer.error {
            return Err(Error::Write(e));
        }
        result.map_err(|e| Error::Parse(e.to_string()))?;
        let output = splicer
            .out
            .into_inner()
            .map_err(|e| Error::Write(e.into_error()))?;
        drop(splicer.shared);
        let shared = Rc::try_unwrap(shared)
            .ok()
            .expect("the handlers were dropped with lol_html")
            .into_inner();
        let report = Report {
            base: shared.base.expect("decided at the end at the latest"),
            decision: shared.decision.expect("decided at the end at the latest"),
            counts: shared.counts,
            warnings: shared.warnings,
        };
        Ok((report, output))
    }

    fn check(&self, result: Result<(), lol_html::errors::RewritingError>) -> Result<(), Error> {
        if let Some(e) = self.splicer.borrow_mut().error.take() {
            return Err(Error::Write(e));
        }
        result.map_err(|e| Error::Parse(e.to_string()))
    }

    /// The lookahead is over: establish the base and let the output go.
    fn decide(&mut self, decision: Decision) {
        let layers = &self.config.layers;
        let mut warnings = Vec::new();
        let mut base_value = None;
        let base = match &decision {
            Decision::Base {
                offset,
                href,
                value,
            } => {
                let href = value::decode(value::split_whitespace(href).core);
                match layers.embedded(&href, *offset, self.config.standard) {
                    Ok(base) => {
                        base_value = Some(value.clone());
                        base
                    }
                    Err(why) => {
                        warnings.push(Warning::BaseIgnored {
                            offset: *offset,
                            href: href.into_owned(),
                            why: match why {
                                Ignored::Relative => {
                                    "it is relative and nothing lies below it to resolve it against"
                                }
                                Ignored::Scheme => {
                                    "browsers ignore a `javascript:` or `data:` base"
                                }
                            },
                        });
                        layers.outer()
                    }
                }
            }
            Decision::Limit => {
                warnings.push(Warning::LookaheadLimit {
                    limit: self.config.max_lookahead,
                });
                layers.outer()
            }
            Decision::HeadOver { .. } | Decision::End => layers.outer(),
        };
        if base.layer == Layer::Empty {
            warnings.push(Warning::NoBase);
        }
        {
            let mut s = self.shared.borrow_mut();
            s.base = Some(base);
            s.base_value = base_value;
            s.decision = Some(decision);
            s.warnings.extend(warnings);
        }
        let mut splicer = self.splicer.borrow_mut();
        if let Some(held) = splicer.held.take() {
            splicer.splice(&held);
        }
    }
}

/// Rewrites all of `input` into `output`, reading 64 KiB at a time.
pub fn rewrite(config: Config, mut input: impl Read, output: impl Write) -> Result<Report, Error> {
    let mut rewriter = Rewriter::new(config, output);
    let mut buf = vec![0; CHUNK];
    loop {
        let n = match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::Read(e)),
        };
        rewriter.write(&buf[..n])?;
    }
    rewriter.end().map(|(report, _)| report)
}

/// The element handler: records the byte range of each URL value.
fn record(s: &mut Shared, el: &Element, template_bases: &[usize]) {
    let tag = el.tag_name();
    let svg = el.namespace_uri() == SVG_NAMESPACE;
    let tag_offset = el.source_location().bytes().start;
    // "Only the first of duplicate attributes counts", as in HTML.
    let mut done: Vec<&'static str> = Vec::new();
    for attr in el.attributes() {
        let name = attr.name();
        let Some(row) = attrs::lookup(&tag, &name) else {
            continue;
        };
        if done.contains(&row.attribute) {
            continue;
        }
        done.push(row.attribute);
        let Some(location) = attr.value_source_location() else {
            s.counts.valueless += 1;
            continue;
        };
        let range = location.bytes();
        let mut role = Role::Url { svg };
        if tag == "base" && row.attribute == "href" {
            let deciding =
                matches!(&s.decision, Some(Decision::Base { value, .. }) if *value == range);
            if s.base_value.as_ref() == Some(&range) {
                role = Role::BaseHref;
            } else if !deciding {
                // The deciding `<base>`, when ignored, was reported then.
                s.warnings.push(Warning::BaseIgnored {
                    offset: tag_offset,
                    href: attr.value(),
                    why: match s.decision {
                        _ if template_bases.contains(&tag_offset) => "it is inside a `<template>`",
                        // The probe reads ahead of the rewriter: an undecided
                        // base at this point can only be one it passed over.
                        None => "it is inside a `<template>`",
                        Some(Decision::Base { .. }) => "only the first `<base href>` counts",
                        Some(Decision::Limit) => "it comes after the lookahead limit",
                        Some(_) => "it comes after the head (browsers would use it)",
                    },
                });
            }
        }
        s.spans.push_back(Span { range, role });
    }
}

/// lol_html's output sink, shared with the [`Rewriter`].
struct Sink<W: Write>(Rc<RefCell<Splicer<W>>>);

impl<W: Write> OutputSink for Sink<W> {
    fn handle_chunk(&mut self, chunk: &[u8]) {
        let mut splicer = self.0.borrow_mut();
        match &mut splicer.held {
            Some(held) => held.extend_from_slice(chunk),
            None => splicer.splice(chunk),
        }
    }
}

struct Splicer<W: Write> {
    out: BufWriter<W>,
    /// The output while the base is undecided.
    held: Option<Vec<u8>>,
    /// Offset of the next byte of lol_html's output, which is the input's.
    pos: usize,
    /// The byte before `pos`: before a value, it tells the quoting.
    previous: u8,
    /// The value being collected, and the byte before it.
    current: Option<(Span, u8)>,
    buffer: Vec<u8>,
    /// The first write error; later output is dropped.
    error: Option<io::Error>,
    shared: Rc<RefCell<Shared>>,
    standard: Standard,
    keep_fragments: bool,
}

impl<W: Write> Splicer<W> {
    fn splice(&mut self, mut chunk: &[u8]) {
        while !chunk.is_empty() || self.current_ends_here() {
            if let Some((span, _)) = &self.current {
                let take = (span.range.end - self.pos).min(chunk.len());
                self.buffer.extend_from_slice(&chunk[..take]);
                self.advance(&chunk[..take]);
                chunk = &chunk[take..];
                if self.current_ends_here() {
                    self.finish_value();
                }
                continue;
            }
            let next_start = self.shared.borrow().spans.front().map(|s| s.range.start);
            match next_start {
                // A range behind the output cannot happen while lol_html's
                // output is its input; were it to, the value stays as it is.
                Some(start) if start < self.pos => {
                    self.shared.borrow_mut().spans.pop_front();
                }
                Some(start) if start <= self.pos + chunk.len() => {
                    let (before, rest) = chunk.split_at(start - self.pos);
                    self.emit(before);
                    self.advance(before);
                    chunk = rest;
                    let span = self.shared.borrow_mut().spans.pop_front().expect("peeked");
                    self.current = Some((span, self.previous));
                    self.buffer.clear();
                }
                _ => {
                    self.emit(chunk);
                    self.advance(chunk);
                    chunk = &[];
                }
            }
        }
    }

    fn current_ends_here(&self) -> bool {
        self.current
            .as_ref()
            .is_some_and(|(span, _)| span.range.end == self.pos)
    }

    fn advance(&mut self, bytes: &[u8]) {
        self.pos += bytes.len();
        if let Some(&last) = bytes.last() {
            self.previous = last;
        }
    }

    fn emit(&mut self, bytes: &[u8]) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    /// The whole value has gone by: write it, rewritten or as it was.
    fn finish_value(&mut self) {
        let (span, before) = self.current.take().expect("a value is being collected");
        let raw = std::mem::take(&mut self.buffer);
        let replacement = self.rewrite_value(&span, Quote::from_preceding(before), &raw);
        self.emit(replacement.as_deref().unwrap_or(&raw));
        self.buffer = raw;
    }

    /// The new bytes for a value, or `None` to leave it as it is.
    fn rewrite_value(&self, span: &Span, quote: Quote, raw: &[u8]) -> Option<Vec<u8>> {
        let mut shared = self.shared.borrow_mut();
        let Shared {
            base,
            counts,
            warnings,
            ..
        } = &mut *shared;
        counts.seen += 1;
        let base = base
            .as_ref()
            .expect("values are written once the base is known");
        if base.is_empty() {
            counts.no_base += 1;
            return None;
        }
        let Ok(raw) = std::str::from_utf8(raw) else {
            counts.undecodable += 1;
            warnings.push(Warning::Undecodable {
                offset: span.range.start,
            });
            return None;
        };
        let parts = value::split_whitespace(raw);
        let decoded = value::decode(parts.core);
        let resolved = match span.role {
            Role::BaseHref => base.url.as_str().into(),
            Role::Url { svg } => {
                let same_document = decoded.starts_with('#') || decoded.is_empty();
                if same_document && (self.keep_fragments || (svg && !decoded.is_empty())) {
                    counts.same_document += 1;
                    return None;
                }
                if self.standard.has_scheme(&decoded) {
                    counts.absolute += 1;
                    return None;
                }
                self.standard.resolve(&base.url, &decoded)
            }
        };
        if resolved == decoded {
            counts.unchanged += 1;
            return None;
        }
        counts.rewritten += 1;
        let mut out = Vec::with_capacity(raw.len() + resolved.len() + 2);
        out.extend_from_slice(parts.lead.as_bytes());
        value::encode(parts.core, &decoded, &resolved, quote, &mut out);
        out.extend_from_slice(parts.trail.as_bytes());
        Some(out)
    }
}
