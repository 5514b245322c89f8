//! The splicing output sink. lol_html's output is the input byte for byte
//! (no handler changes anything), so an offset in it is the same offset in
//! the input: the sink copies it, collects the bytes of each range the
//! handler recorded as they go by, and writes each range rewritten or as it
//! was.

use std::borrow::Cow;
use std::cell::{Cell, OnceCell, RefCell};
use std::io::{self, BufWriter, Write};
use std::rc::Rc;

use lol_html::OutputSink;

use super::follow::{self, Follow};
use super::record::{OPEN, Role, Shared, Span};
use crate::document::attrs::Table;
use crate::document::config::Nesting;
use crate::document::edit::{Edited, Element, Resolver};
use crate::document::links::{At, Found, Lines, Link, Outcome, Position};
use crate::document::memory::{Allowance, Budget, OverBudget};
use crate::document::report::Warning;
use crate::document::resolution::{Resolution, Splices};
use crate::document::value::{self, Decoded, Quote};
use crate::syntax::xml_stylesheet::{self, Href};
use crate::url::Layer;

/// lol_html's output sink, shared with the document's rewriter.
pub struct Sink<W: Write>(pub Rc<RefCell<Splicer<W>>>);

impl<W: Write> OutputSink for Sink<W> {
    fn handle_chunk(&mut self, chunk: &[u8]) {
        let mut splicer = self.0.borrow_mut();
        if splicer.bailing.take() {
            // lol_html is bailing out at the memory limit: what it sends
            // from now on is what it held, unchanged.
            splicer.shared.borrow_mut().stopped_at = Some(splicer.pos);
        }
        splicer.splice(chunk);
    }
}

pub struct Splicer<W: Write> {
    out: BufWriter<W>,
    /// Offset of the next byte of lol_html's output, which is the input's.
    pos: usize,
    /// The byte before `pos`: before a value, it tells the quoting.
    previous: u8,
    /// The range being collected, and the byte before it.
    current: Option<(Span, u8)>,
    buffer: Vec<u8>,
    /// The new bytes of the range last rewritten, kept for the next.
    replacement: Vec<u8>,
    /// The first write error; later output is dropped.
    error: Option<io::Error>,
    /// Nothing is written: the output is not wanted.
    discard: bool,
    /// The replacements made, when asked for.
    splices: Option<Splices>,
    /// The range being collected grew past the memory limit: its bytes go
    /// through as they come.
    abandoned: bool,
    /// Lines and columns, when the link report is asked for: where each
    /// range starts. Its block's room is drawn from `held` once.
    follow: Option<Follow>,
    /// What its buffers take from (the range being collected, the
    /// replacement kept for the next, the replacements recorded), and a
    /// value's working copies.
    allowance: Rc<Allowance>,
    /// What its buffers hold: their capacity, and the replacements kept.
    held: Budget,
    /// The capacities of `buffer` and `replacement` that `held` counts.
    counted: usize,
    /// Rewriting stopped at the memory limit: everything goes out as it
    /// comes.
    stopped: bool,
    /// What ranges are resolved with, once the base is decided.
    resolution: Option<Resolution>,
    /// What an `<?xml-stylesheet?>` before the root element resolves with,
    /// when it differs (a page served as XML, with a `<base href>`).
    prolog: Option<Resolution>,
    /// The table whose rows name each attribute's element and attribute.
    table: Table,
    shared: Rc<RefCell<Shared>>,
    /// Set by lol_html's bail-out handler; taken at the next output.
    bailing: Rc<Cell<bool>>,
}

impl<W: Write> Splicer<W> {
    /// A sink writing to `output` through a buffer of `capacity` bytes (or
    /// nothing, when `nesting` discards it), the attributes named by
    /// `table`'s rows.
    pub fn new(
        output: W,
        capacity: usize,
        allowance: Rc<Allowance>,
        nesting: &Nesting,
        table: Table,
        shared: Rc<RefCell<Shared>>,
        bailing: Rc<Cell<bool>>,
    ) -> Self {
        Splicer {
            out: BufWriter::with_capacity(capacity, output),
            pos: 0,
            previous: 0,
            current: None,
            buffer: Vec::new(),
            replacement: Vec::new(),
            error: None,
            discard: nesting.discard,
            splices: nesting.record_splices.then(Splices::default),
            abandoned: false,
            follow: None,
            held: allowance.budget(),
            allowance,
            counted: 0,
            stopped: false,
            resolution: None,
            prolog: None,
            table,
            shared,
            bailing,
        }
    }

    /// The base is decided: the ranges are resolved with `resolution` from
    /// now on (none goes out before), the `<?xml-stylesheet?>`s before the
    /// root element with `prolog`, when given.
    pub fn resolve_with(&mut self, resolution: Resolution, prolog: Option<Resolution>) {
        if self.shared.borrow().listener.is_some() {
            let room = match self.held.take(follow::BLOCK) {
                Ok(()) => follow::BLOCK,
                Err(OverBudget) => 0,
            };
            let lines = Lines::new(resolution.encoding, Position::default());
            self.follow = Some(Follow::new(lines, room));
        }
        self.resolution = Some(resolution);
        self.prolog = prolog;
    }

    /// Where lol_html's output has got to.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The first write error, once.
    pub fn take_error(&mut self) -> Option<io::Error> {
        self.error.take()
    }

    /// The output, written out, with the replacements made (when recorded)
    /// and what the ranges were resolved with.
    pub fn into_parts(self) -> Result<(W, Splices, Option<Resolution>), io::Error> {
        let output = self.out.into_inner().map_err(|e| e.into_error())?;
        Ok((output, self.splices.unwrap_or_default(), self.resolution))
    }

    fn splice(&mut self, mut chunk: &[u8]) {
        if self.stopped {
            self.emit(chunk);
            self.advance(chunk);
            return;
        }
        loop {
            if let Some((span, _)) = &mut self.current {
                if span.range.end == OPEN {
                    if let Some(end) = self.shared.borrow_mut().content_end.take() {
                        span.range.end = end.max(span.range.start);
                    }
                }
                let (end, start) = (span.range.end, span.range.start);
                let take = end.saturating_sub(self.pos).min(chunk.len());
                if self.abandoned {
                    self.emit(&chunk[..take]);
                } else if self.room(take).is_ok() {
                    self.buffer.extend_from_slice(&chunk[..take]);
                } else {
                    // Too large to hold (a huge `<style>`): what came goes
                    // out as it was, and the rest as it comes.
                    let held = std::mem::take(&mut self.buffer);
                    self.emit(&held);
                    self.buffer = held;
                    self.buffer.clear();
                    self.abandoned = true;
                    self.shared.borrow_mut().warnings.push(Warning::TooLarge {
                        offset: start,
                        limit: self.allowance.named(),
                    });
                    self.emit(&chunk[..take]);
                }
                self.advance(&chunk[..take]);
                chunk = &chunk[take..];
                if self.pos >= end {
                    self.finish();
                    continue;
                }
                if chunk.is_empty() {
                    return;
                }
                continue;
            }
            let next_start = self.shared.borrow().spans.front().map(|s| s.range.start);
            match next_start {
                // A range behind the output cannot happen while lol_html's
                // output is its input; were it to, it stays as it is.
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
                    if let Some(follow) = &mut self.follow {
                        follow.value_starts();
                    }
                }
                _ => {
                    self.emit(chunk);
                    self.advance(chunk);
                    return;
                }
            }
        }
    }

    fn advance(&mut self, bytes: &[u8]) {
        if let Some(follow) = &mut self.follow {
            follow.advance(bytes);
        }
        self.pos += bytes.len();
        if let Some(&last) = bytes.last() {
            self.previous = last;
        }
    }

    pub fn emit(&mut self, bytes: &[u8]) {
        if self.error.is_none() && !self.discard {
            if let Err(e) = self.out.write_all(bytes) {
                self.error = Some(e);
            }
        }
    }

    /// The memory limit is reached (lol_html's buffers, or a value's working
    /// copies, which start at `offset`): what is being collected is written
    /// as it was, and from here on everything goes out as it comes, with
    /// the warning (once).
    pub fn stop(&mut self, offset: usize) {
        let limit = self.allowance.named();
        self.stop_with(Warning::MemoryLimit { limit, offset });
    }

    /// Rewriting stops, for the reason `warning` says: what is being
    /// collected is written as it was, and from here on everything goes
    /// out as it comes, with the warning (once).
    pub fn stop_with(&mut self, warning: Warning) {
        if self.current.take().is_some() {
            let raw = std::mem::take(&mut self.buffer);
            self.emit(&raw);
        }
        self.abandoned = false;
        let mut shared = self.shared.borrow_mut();
        shared.spans.clear();
        if let Some(listener) = &mut shared.listener {
            listener.forget();
        }
        if !std::mem::replace(&mut self.stopped, true) {
            shared.stopped = true;
            shared.warnings.push(warning);
        }
    }

    /// Writes out what its buffer holds (before the writer under it
    /// changes how it writes).
    pub fn flush(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.error = Some(e);
        }
    }

    /// At the end of input: an open content range ends here.
    pub fn close_content(&mut self) {
        if self.current.is_some() {
            self.finish();
        }
    }

    /// The whole range has gone by: write it, rewritten or as it was.
    fn finish(&mut self) {
        let (mut span, before) = self.current.take().expect("a range is being collected");
        if std::mem::take(&mut self.abandoned) {
            return;
        }
        span.range.end = self.pos;
        let raw = std::mem::take(&mut self.buffer);
        let mut new = std::mem::take(&mut self.replacement);
        new.clear();
        let mut budget = self.allowance.budget();
        let mut follow = self.follow.take();
        let rewritten = self.rewrite(
            &mut span,
            Quote::from_preceding(before),
            &raw,
            &mut new,
            &mut budget,
            follow.as_mut(),
        );
        self.follow = follow;
        match rewritten {
            Ok(true) => {
                self.emit(&new);
                // The working copies are gone; the replacements recorded
                // are kept to the end.
                drop(budget);
                if let Some(splices) = &mut self.splices {
                    let size = splices.size();
                    splices.push(span.range.clone(), &new);
                    if self.held.take(splices.size() - size).is_err() {
                        self.stop(span.range.start);
                    }
                }
            }
            Ok(false) => self.emit(&raw),
            Err(OverBudget) => {
                self.emit(&raw);
                self.stop(span.range.start);
            }
        }
        // What one long value needed is not kept for the next ones.
        self.buffer = kept(raw);
        self.replacement = kept(new);
        self.count_buffers();
    }

    /// Room for `more` bytes in the range being collected, taken from the
    /// allowance before it is made.
    fn room(&mut self, more: usize) -> Result<(), OverBudget> {
        let need = self.buffer.len() + more;
        if need > self.buffer.capacity() {
            let capacity = need.max(2 * self.buffer.capacity());
            self.held.take(capacity - self.buffer.capacity())?;
            self.counted += capacity - self.buffer.capacity();
            self.buffer.reserve_exact(capacity - self.buffer.len());
        }
        Ok(())
    }

    /// Counts in `held` the buffers kept for the next value as they are now
    /// (the replacement grew within the value's own budget, given back).
    fn count_buffers(&mut self) {
        let now = self.buffer.capacity() + self.replacement.capacity();
        if now > self.counted && self.held.take(now - self.counted).is_err() {
            // Not kept: the next value starts from nothing.
            self.buffer = Vec::new();
            self.replacement = Vec::new();
            self.held.give(self.counted);
            self.counted = 0;
            return;
        }
        if now < self.counted {
            self.held.give(self.counted - now);
        }
        self.counted = now;
    }

    /// Writes the new bytes for a range into `out`, or says to leave it as
    /// it is; its working copies from `budget`.
    fn rewrite(
        &self,
        span: &mut Span,
        quote: Quote,
        raw: &[u8],
        out: &mut Vec<u8>,
        budget: &mut Budget,
        follow: Option<&mut Follow>,
    ) -> Edited {
        let start = span.range.start;
        let mut shared = self.shared.borrow_mut();
        let Shared {
            counts,
            warnings,
            listener,
            ..
        } = &mut *shared;
        let cx = self
            .resolution
            .as_ref()
            .expect("ranges are written once the base is known");
        let cx = match (&span.role, &self.prolog) {
            (Role::Stylesheet { prolog: true }, Some(prolog)) => prolog,
            _ => cx,
        };
        // An instruction is read once, here: a comment that is none holds
        // no value, and stays as it is.
        let instruction = match span.role {
            Role::Stylesheet { .. } => match xml_stylesheet::href(raw) {
                Some(href) => Some(href),
                None => return Ok(false),
            },
            _ => None,
        };
        // Its links stand in its `href`'s value.
        let (value, value_at) = instruction
            .as_ref()
            .map_or((raw, 0), |h| (&raw[h.value.clone()], h.value.start));
        // A value given up counts as none of its URLs.
        let counted = *counts;
        let rewritten = if cx.base.is_empty() {
            // Without a base nothing is resolved, nor parsed: the link
            // report has the value whole.
            counts.seen += 1;
            counts.no_base += 1;
            match listener {
                Some(listener) => {
                    let (text, _) = cx.encoding.decode_without_bom_handling(value);
                    let at = value::trimmed(&text);
                    let link = Link {
                        position: Position::default(),
                        element: Cow::Borrowed(""),
                        attribute: Cow::Borrowed(""),
                        kind: span.role.kind(),
                        original: text[at.clone()].to_owned(),
                        raw: None,
                        absolute: None,
                        outcome: Outcome::NoBase,
                        base: cx.base.clone(),
                        mapped: None,
                    };
                    budget.take(link.size()).map(|()| {
                        listener.found(Found {
                            at: At::Decoded(at.start),
                            link,
                        });
                        false
                    })
                }
                None => Ok(false),
            }
        } else {
            if let Some(listener) = listener.as_mut() {
                listener.sift(!matches!(span.role, Role::BaseHref | Role::OtherBase));
            }
            let mut resolver = Resolver::new(cx, counts, warnings, listener.as_mut(), budget);
            let role = (&span.role, instruction.as_ref());
            resolve(&mut resolver, cx, role, quote, raw, start, out)
        };
        if rewritten.is_err() {
            *counts = counted;
        }
        // Where the value starts is only counted up to when a link of it
        // is heard (lines are followed whenever there is a listener).
        if let (Some(listener), Some(follow)) = (
            listener
                .as_mut()
                .filter(|l| rewritten.is_ok() && l.heard_any()),
            follow,
        ) {
            let encoding = cx.encoding;
            // Decoded once, when a link stands in its decoded text.
            let decoded = OnceCell::new();
            let decoded_at = |at| {
                let at = decoded
                    .get_or_init(|| match span.role {
                        Role::Style => Decoded::text_only(value, encoding),
                        _ => Decoded::new(value, encoding),
                    })
                    .as_ref()?
                    .raw_offset(at)?;
                Some(value_at + at)
            };
            let names = match &span.names {
                Some(names) => names.of(&self.table),
                None => span.role.names(),
            };
            listener.value_done(follow.value_start(), raw, encoding, names, decoded_at);
        }
        rewritten
    }
}

/// A buffer kept from value to value, unless one long value made it large.
fn kept(buffer: Vec<u8>) -> Vec<u8> {
    if buffer.capacity() > KEPT {
        Vec::new()
    } else {
        buffer
    }
}

/// The most a buffer of the splicer keeps from one value to the next.
const KEPT: usize = 1 << 20;

/// Writes the new bytes for a range of `role` into `out`, or says to leave
/// it as it is; an instruction's, by its `href` read already.
#[inline(always)]
fn resolve(
    resolver: &mut Resolver<'_>,
    cx: &Resolution,
    (role, instruction): (&Role, Option<&Href>),
    quote: Quote,
    raw: &[u8],
    start: usize,
    out: &mut Vec<u8>,
) -> Edited {
    let embedded = matches!(cx.base.layer, Layer::Embedded { .. });
    match role {
        Role::Attr {
            kind,
            svg,
            codebase,
            empty,
        } => {
            let element = Element {
                svg: *svg,
                codebase: codebase.as_deref(),
                empty: *empty,
            };
            resolver.attribute(*kind, element, raw, quote, start, out)
        }
        Role::BaseHref if !embedded => resolver.other_base(raw, quote, start, out),
        Role::OtherBase => resolver.other_base(raw, quote, start, out),
        Role::BaseHref => resolver.base_href(raw, quote, start, out),
        Role::Style => resolver.style_text(raw, start, out),
        Role::Noscript => resolver.noscript(raw, start, out),
        Role::Stylesheet { .. } => instruction.map_or(Ok(false), |href| {
            resolver.stylesheet_pi(raw, href, start, out)
        }),
    }
}
