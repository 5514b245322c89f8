//! One document over the bytes of an ASCII-compatible encoding: the input is
//! held until the lookahead has decided the base and the sniffer the
//! encoding, then lol_html reads it, the handler records the ranges of URL
//! values, and the sink splices them.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::{Encoding, UTF_8};
use lol_html::errors::RewritingError;
use lol_html::html_content::Element;
use lol_html::{AsciiCompatibleEncoding, ElementContentHandlers, HtmlRewriter, Settings, bail_out};

use super::anchors::{self, Found, Reader};
use super::encoding::{self, Sniffer};
use super::lookahead::{Hold, Probe};
use super::record::{self, Shared, Window, record};
use super::settings::memory_settings;
use super::splice::{Sink, Splicer};
use super::stylesheets;
use super::tag_names::TagNames;
use crate::document::buffers::CHUNK;
use crate::document::config::{Config, Nesting};
use crate::document::decision::Decision;
use crate::document::encoding::{Chosen, EncodingSource};
use crate::document::error::Error;
use crate::document::links::{Hear, Listener, Only};
use crate::document::memory::{Allowance, Budget};
use crate::document::report::{Report, Tell, Warning};
use crate::document::resolution::{Nest, Resolution, Splices};
use crate::document::value::{self, Decoded};
use crate::url::{Layer, Layers};

pub struct Document<W: Write> {
    /// `None` once lol_html has bailed out at the memory limit.
    html: Option<HtmlRewriter<'static, Sink<W>>>,
    /// The input, while the lookahead has not decided: lol_html reads it
    /// once the base and the encoding are known.
    hold: Hold,
    /// What lol_html is reading, for the handlers to read names from.
    window: Rc<RefCell<Window>>,
    /// Started only when the head must be read: when the input holds
    /// `<base`, or the encoding may be declared further into the head.
    probe: Option<Probe>,
    template_bases: Rc<RefCell<Vec<usize>>>,
    /// The page's anchors, when they are kept (`Nesting::anchors`).
    anchors: Option<Rc<RefCell<Found>>>,
    sniffer: Option<Sniffer>,
    /// The document's encoding, and the one its bytes here are in (UTF-8
    /// when UTF-16 was transcoded).
    chosen: Option<(Chosen, &'static Encoding)>,
    /// Whether the hold was let go.
    released: bool,
    shared: Rc<RefCell<Shared>>,
    splicer: Rc<RefCell<Splicer<W>>>,
    config: Arc<Config>,
    /// The document's §3 layers below its own `<base href>`.
    layers: Layers,
    nesting: Nesting,
    nest: Nest,
    /// What its holders take from: the parser's limit, taken when it is
    /// made; the hold, as it grows; the probe's limit, while it reads.
    allowance: Rc<Allowance>,
    _parser: Budget,
    held: Budget,
    probe_limit: Budget,
    /// The long names of the elements lol_html keeps open.
    names: TagNames,
    /// The most lol_html reads at a time: a tag cut at the end of a write
    /// is held with all of the next write, so a small limit is read in
    /// small writes (what comes out does not depend on them).
    slice: usize,
}

impl<W: Write> Document<W> {
    /// A document read by `config` with its `layers`, standing where
    /// `nesting` says, written to `output`; `chosen` is its encoding when
    /// the first bytes told it (UTF-16), and `nest` runs the documents
    /// nested in its values.
    pub fn new(
        config: Arc<Config>,
        layers: Layers,
        nesting: Nesting,
        nest: Nest,
        output: W,
        chosen: Option<(Chosen, &'static Encoding)>,
        allowance: Rc<Allowance>,
    ) -> Self {
        // lol_html's limit (its buffer, for a tag and its attributes; the
        // elements open around it) is fixed when it is made: a fifth of
        // what the document has left, which leaves the rest for the values
        // it finds (a value's bytes, then its working copies); two fifths,
        // for a document nested in a value, which its page holds already.
        // A third more is taken for the short names of the elements open,
        // which lol_html does not count (`tag_names`).
        let mut parser = allowance.budget();
        let limit = match nesting.depth {
            0 => allowance.left() / 5,
            _ => allowance.left() * 2 / 5,
        };
        parser
            .take(limit + limit / 3)
            .expect("a part of what is left");
        let encoding =
            AsciiCompatibleEncoding::new(encoding_rs::UTF_8).expect("UTF-8 is ASCII-compatible");
        let shared = Rc::new(RefCell::new(Shared::default()));
        let bailing = Rc::new(Cell::new(false));
        let splicer = Rc::new(RefCell::new(Splicer::new(
            output,
            // Nested documents are small, and there may be many.
            if nesting.depth == 0 { CHUNK } else { 1024 },
            Rc::clone(&allowance),
            &nesting,
            config.table.clone(),
            Rc::clone(&shared),
            Rc::clone(&bailing),
        )));
        let template_bases = Rc::new(RefCell::new(Vec::new()));
        let window = Rc::new(RefCell::new(Window::default()));
        // The anchors' bytes as the write lol_html reads has them; they take
        // from the document's allowance, up to a sixteenth of what is left.
        let anchors = (nesting.anchors && nesting.depth == 0)
            .then(|| Found::new(Some((allowance.budget(), allowance.left() / 16))));
        let on_element = {
            let shared = Rc::clone(&shared);
            let window = Rc::clone(&window);
            let table = config.table.clone();
            let template_bases = Rc::clone(&template_bases);
            let reader = anchors.as_ref().map(|found| {
                let window = Rc::clone(&window);
                Reader::new(found, move |range| {
                    window.borrow().slice(range).map(<[u8]>::to_vec)
                })
            });
            move |el: &mut Element| {
                let window = window.borrow();
                let mut buffer = [0; 32];
                let (tag, attributes) = record::tag(el, &window, &mut buffer);
                let tag = (&*tag, attributes);
                record(&shared, &table, el, tag, &window, &template_bases.borrow());
                if let Some(reader) = &reader {
                    reader.element(el, tag, |a, name| window.is_named(a, name));
                }
                Ok(())
            }
        };
        // Anchors are on any element: the table's own entries would not
        // find them.
        let selector = match anchors {
            Some(_) => &*anchors::EVERY,
            None => config.table.element_selector(),
        };
        let mut settings = Settings::new()
            .append_element_content_handler((
                Cow::Borrowed(selector),
                ElementContentHandlers::default().element(on_element),
            ))
            .with_encoding(encoding)
            .with_memory_settings(memory_settings(limit))
            .append_bail_out_handler({
                let bailing = Rc::clone(&bailing);
                // Called at the bail-out point, before the unchanged flush.
                bail_out!(move |_, _| bailing.set(true))
            })
            .with_strict(false);
        if nesting.xml && nesting.depth == 0 {
            settings = stylesheets::handled(settings, &shared);
        }
        let sniffer = chosen.is_none().then(|| {
            let window = encoding::DETECTION.min(config.lookahead());
            Sniffer::new(
                config.encoding,
                layers.charset(),
                window,
                layers.retrieval().map(|r| r.url.as_str()),
            )
        });
        if !nesting.embedded {
            shared.borrow_mut().decision = Some(Decision::Skipped);
        }
        Document {
            html: Some(HtmlRewriter::new(settings, Sink(Rc::clone(&splicer)))),
            hold: Hold::default(),
            window,
            probe: None,
            template_bases,
            anchors,
            sniffer,
            chosen,
            released: false,
            shared,
            splicer,
            config,
            layers,
            nesting,
            nest,
            held: allowance.budget(),
            probe_limit: allowance.budget(),
            names: TagNames::new(&allowance),
            slice: (limit / 4).clamp(1 << 10, CHUNK),
            allowance,
            _parser: parser,
        }
    }

    /// From now on, tell each warning as it happens.
    pub fn tell(&mut self, tell: Tell) {
        self.shared.borrow_mut().warnings.tell(tell);
    }

    /// From now on, let `hear` hear each URL value (the link report), or
    /// those `only` wants.
    pub fn listen(&mut self, hear: Hear, only: Option<Only>) {
        self.shared.borrow_mut().listener = Some(Listener::new(hear).with_only(only));
    }

    /// Whether rewriting stopped at the memory limit, or a write failed:
    /// nothing more will change.
    pub fn stopped(&self) -> bool {
        self.shared.borrow().stopped
    }

    /// What was asked for before the document began.
    pub fn hand_over(&mut self, tell: Option<Tell>, hear: Option<Hear>, only: Option<Only>) {
        if let Some(tell) = tell {
            self.tell(tell);
        }
        if let Some(hear) = hear {
            self.listen(hear, only);
        }
    }

    pub fn write(&mut self, chunk: Cow<'_, [u8]>) -> Result<(), Error> {
        // A large write is read a piece at a time (a chunk, or less under a
        // small limit), so that what is held of it (the window lol_html
        // reads, the hold) is never more than a piece beyond what the
        // document's allowance took.
        if chunk.len() > self.slice {
            for piece in chunk.chunks(self.slice) {
                self.write(Cow::Borrowed(piece))?;
            }
            return Ok(());
        }
        if self.released {
            return self.feed(chunk);
        }
        if let Some(sniffer) = &mut self.sniffer {
            sniffer.push(&chunk);
        }
        // Its bytes: the room past them in the last buffer (a read's, at
        // most a chunk) is the thread's own, as the buffer read into is.
        if self.held.take(chunk.len()).is_err() {
            // The document does not fit its share before its base is
            // known: no value is rewritten, and the hold goes out as it is.
            self.hold.push(chunk);
            self.shared.borrow_mut().decision = Some(Decision::Stopped);
            self.html = None;
            self.splicer.borrow_mut().stop(0);
            self.release()?;
            return self.check(Ok(()));
        }
        self.hold.push(chunk);
        // The probe reads first, so that a `<meta>` it meets is known
        // before detection could decide, however the input is split.
        if self.shared.borrow().decision.is_none() || self.meta_open() {
            self.look();
        }
        if self.chosen.is_none() {
            let chosen = self.sniffer.as_mut().and_then(Sniffer::decide_now);
            self.chosen = chosen.map(|c| (c, c.encoding));
        }
        if self.shared.borrow().decision.is_some() && self.chosen.is_some() {
            self.release()?;
        }
        self.check(Ok(()))
    }

    /// Whether the prescan left the encoding open: a `<meta>` the parser
    /// meets further on, in the head or the body, may still declare it.
    fn meta_open(&self) -> bool {
        self.chosen.is_none() && self.sniffer.as_ref().is_some_and(Sniffer::prescan_failed)
    }

    /// The lookahead, over the input held so far.
    /// The input is read only when it matters: when `<base` occurs, or when
    /// the encoding is still open after the prescan (a `<meta>` further on
    /// declares it). Otherwise there is no base to find, and the hold ends
    /// at the lookahead limit or the end of input.
    fn look(&mut self) {
        if let Some(probe) = &mut self.probe {
            // Every byte held that it has not read: writes pass it by while
            // it has no reason to read (a base found, the prescan's verdict
            // not yet in), and a `<meta>` it then meets must be whole.
            let mut decision = None;
            for chunk in self.hold.from(probe.given()) {
                decision = probe.write(chunk);
            }
            self.probe_read(decision);
            return;
        }
        // Only a `<base` that starts within the lookahead limit counts, so
        // that the answer does not depend on how the input is split.
        let limit = self.config.lookahead();
        let undecided = self.shared.borrow().decision.is_none();
        let base = undecided && self.hold.base_at().is_some_and(|at| at < limit);
        if base || self.meta_open() {
            let encoding = AsciiCompatibleEncoding::new(UTF_8).expect("UTF-8 is ASCII-compatible");
            // The probe's two lol_html passes, while they read: each a
            // quarter of what is left, as the rewriter's (each may hold a
            // token of the whole lookahead).
            let probe_limit = self.allowance.left() / 4;
            self.probe_limit
                .take(2 * probe_limit)
                .expect("a half of what is left");
            let mut probe = Probe::new(
                encoding,
                limit,
                self.sniffer.as_ref().map_or(0, Sniffer::window),
                probe_limit,
                Rc::clone(&self.template_bases),
            );
            let mut decision = None;
            for chunk in self.hold.chunks() {
                decision = probe.write(chunk);
            }
            self.probe = Some(probe);
            self.probe_read(decision);
        } else if undecided && self.hold.len() >= limit + 4 {
            // A `<base` starting before the limit would be whole by now.
            self.decided(Decision::NoBase {
                bytes: limit,
                end: false,
            });
        }
    }

    /// The probe has read on: its decision counts if none was taken before
    /// (a probe started for a `<meta>` after the hold found no `<base`
    /// has none to give), and the sniffer hears of the `<meta>` it met.
    fn probe_read(&mut self, decision: Option<Decision>) {
        if let Some(decision) = decision
            && self.shared.borrow().decision.is_none()
        {
            self.decided(decision);
        }
        let meta = self.probe.as_ref().and_then(Probe::meta);
        if let (Some(sniffer), Some(meta)) = (&mut self.sniffer, meta) {
            sniffer.meta_met(meta);
        }
    }

    /// lol_html reads `bytes`, once the lookahead is over.
    fn feed(&mut self, bytes: Cow<'_, [u8]>) -> Result<(), Error> {
        if self.html.is_some() && self.names.read(&bytes).is_err() {
            // The names of the elements lol_html would keep open do not
            // fit: rewriting stops before it reads them, as at its own
            // limit.
            let offset = self.splicer.borrow().pos();
            let limit = self.allowance.named();
            self.stop_with(Warning::MemoryLimit { limit, offset })?;
        }
        let Some(html) = &mut self.html else {
            // Past the memory limit: the rest goes through as it is.
            self.splicer.borrow_mut().emit(&bytes);
            return self.check(Ok(()));
        };
        self.window.borrow_mut().next(bytes);
        let window = self.window.borrow();
        // Where in the write lol_html gave up: the slices after the one it
        // gave up in are not its.
        let mut given = window.bytes.len();
        let mut result = Ok(());
        for (i, slice) in window.bytes.chunks(self.slice).enumerate() {
            result = html.write(slice);
            if result.is_err() {
                given = ((i + 1) * self.slice).min(window.bytes.len());
                break;
            }
        }
        match result {
            Err(RewritingError::MemoryLimitExceeded(_)) => {
                // lol_html has flushed what it held, and the rest of the
                // slice, unchanged; from here on the input is copied (the
                // slices of this write after it first), so the output is
                // always complete.
                self.allowance.run_out();
                self.html = None;
                let mut splicer = self.splicer.borrow_mut();
                let stopped_at = self.shared.borrow().stopped_at;
                let offset = stopped_at.unwrap_or(splicer.pos());
                splicer.stop(offset);
                splicer.emit(&window.bytes[given..]);
                drop((splicer, window));
                self.check(Ok(()))
            }
            result => {
                drop(window);
                self.check(result)
            }
        }
    }

    /// A fault found late, after output went out (`warning` says which and
    /// where): what came before is rewritten as if the input ended there,
    /// and from here on everything goes out as it comes.
    pub fn stop_with(&mut self, warning: Warning) -> Result<(), Error> {
        if !self.released {
            let ended = self.probe.as_mut().map(Probe::end);
            let end = Decision::NoBase {
                bytes: self.hold.len(),
                end: true,
            };
            self.probe_read(Some(ended.unwrap_or(end)));
            self.release()?;
        }
        // lol_html writes out what it holds (a tag cut short goes out as
        // it came), and drops its handlers.
        let ended = self.html.take().map_or(Ok(()), HtmlRewriter::end);
        {
            let mut splicer = self.splicer.borrow_mut();
            splicer.close_content();
            splicer.stop_with(warning);
            // Out through the writer before it writes the input's own
            // bytes.
            splicer.flush();
        }
        self.check(ended)
    }

    pub fn end(mut self) -> Result<(Report, W, Splices), Error> {
        if !self.released {
            let ended = self.probe.as_mut().map(Probe::end);
            let end = Decision::NoBase {
                bytes: self.hold.len(),
                end: true,
            };
            self.probe_read(Some(ended.unwrap_or(end)));
        }
        self.release()?;
        let Document {
            html,
            shared,
            splicer,
            chosen,
            layers,
            anchors,
            ..
        } = self;
        // lol_html read the whole page: its anchors are all known.
        let read_whole = html.is_some();
        // `end` drops lol_html and its handlers, so the sink and the handlers
        // give back their shares.
        let result = html.map_or(Ok(()), HtmlRewriter::end);
        let mut splicer = Rc::try_unwrap(splicer)
            .ok()
            .expect("the sink was dropped with lol_html")
            .into_inner();
        // A `<style>` or `<noscript>` the input did not close ends with it.
        splicer.close_content();
        if let Some(e) = splicer.take_error() {
            return Err(Error::Write(e));
        }
        result.map_err(|e| Error::Parse(e.to_string()))?;
        let (output, splices, resolution) = splicer.into_parts().map_err(Error::Write)?;
        let shared = Rc::try_unwrap(shared)
            .ok()
            .expect("the handlers and the sink were dropped")
            .into_inner();
        let (chosen, bytes_encoding) = chosen.expect("decided at the end at the latest");
        let anchors = anchors
            .filter(|_| read_whole)
            .and_then(Rc::into_inner)
            .and_then(|found| found.into_inner().names(bytes_encoding));
        let report = Report {
            base: resolution.expect("decided at the end at the latest").base,
            layers,
            decision: shared.decision.expect("decided at the end at the latest"),
            encoding: chosen,
            counts: shared.counts,
            warnings: shared.warnings.into_vec(),
            anchors,
        };
        Ok((report, output, splices))
    }

    fn check(&self, result: Result<(), RewritingError>) -> Result<(), Error> {
        if let Some(e) = self.splicer.borrow_mut().take_error() {
            return Err(Error::Write(e));
        }
        result.map_err(|e| Error::Parse(e.to_string()))
    }

    /// The lookahead has decided: said at once, so that the warning comes
    /// in the order of the input.
    fn decided(&mut self, decision: Decision) {
        let mut s = self.shared.borrow_mut();
        if decision == Decision::Limit {
            s.warnings.push(Warning::LookaheadLimit {
                limit: self.config.lookahead(),
            });
        }
        s.decision = Some(decision);
    }

    /// The lookahead has decided: settle the encoding and the base, and let
    /// lol_html read the hold.
    fn release(&mut self) -> Result<(), Error> {
        if self.released {
            return Ok(());
        }
        self.released = true;
        let (_, bytes_encoding) = match self.chosen {
            Some(chosen) => chosen,
            None => {
                let c = self.sniffer.as_mut().map(Sniffer::end).unwrap_or(Chosen {
                    encoding: UTF_8,
                    source: EncodingSource::Ascii,
                });
                self.chosen = Some((c, c.encoding));
                (c, c.encoding)
            }
        };
        self.probe = None;
        let probe_limit = self.probe_limit.taken();
        self.probe_limit.give(probe_limit);
        self.sniffer = None;
        if !bytes_encoding.is_ascii_compatible() {
            return Err(Error::unsupported(bytes_encoding));
        }
        let decision = self.shared.borrow().decision.clone().expect("decided");
        let layers = &self.layers;
        let mut warnings = Vec::new();
        let base = match &decision {
            Decision::Base {
                offset,
                href,
                value,
            } => {
                // The href's own bytes, still held, decoded with the
                // document's encoding (the probe read it as UTF-8).
                let raw = self.hold.bytes(value.clone());
                let decoded = Decoded::new(&raw, bytes_encoding)
                    .or_else(|| Decoded::new(href.as_bytes(), UTF_8));
                let href = decoded
                    .as_ref()
                    .map_or("", |d| &d.text()[value::trimmed(d.text())]);
                match layers.embedded(href, *offset, self.config.standard) {
                    Ok(base) => base,
                    Err(why) => {
                        warnings.push(Warning::BaseIgnored {
                            offset: *offset,
                            href: href.to_owned(),
                            why: why.to_string(),
                        });
                        layers.outer()
                    }
                }
            }
            Decision::Limit
            | Decision::HeadOver { .. }
            | Decision::NoBase { .. }
            | Decision::End
            | Decision::Skipped
            | Decision::Stopped
            | Decision::XmlBase { .. }
            | Decision::Stylesheet => layers.outer(),
        };
        if base.layer == Layer::Empty {
            warnings.push(Warning::NoBase);
        }
        let resolution_with = |base| {
            Resolution::new(
                base,
                bytes_encoding,
                &self.config,
                self.nesting.depth,
                self.nest,
                Rc::clone(&self.allowance),
            )
            .with_document(self.layers.own())
        };
        // A page served as XML: the `<?xml-stylesheet?>`s before its root
        // resolve against the layers under its `<base href>`, which a
        // browser has not read when it loads them.
        let embedded = matches!(base.layer, Layer::Embedded { .. });
        let prolog = (self.nesting.xml && embedded).then(|| resolution_with(layers.outer()));
        let resolution = resolution_with(base);
        self.splicer.borrow_mut().resolve_with(resolution, prolog);
        {
            let mut s = self.shared.borrow_mut();
            for warning in warnings {
                s.warnings.push(warning);
            }
        }
        for chunk in self.hold.take() {
            self.feed(Cow::Owned(chunk))?;
        }
        let held = self.held.taken();
        self.held.give(held);
        Ok(())
    }
}
