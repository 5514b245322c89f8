//! The rewriter: lol_html finds the URL attributes and the `<style>` and
//! `<noscript>` contents; a splicing output sink substitutes their bytes and
//! copies everything else as it came.
//!
//! lol_html's output is the input byte for byte as long as no handler changes
//! anything, and ours never do (`set_attribute` would re-serialize the whole
//! tag; a text handler would re-encode the text). So an offset in lol_html's
//! output is the same offset in the input, and the handlers only record byte
//! ranges; the sink, which sees the bytes of each range go by, decides what
//! to put there (see [`crate::edit`]). Until the base is known (see
//! [`crate::lookahead`]) the sink holds the output, and the ranges recorded
//! meanwhile are resolved when it lets go.

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::io::{self, BufWriter, Read, Write};
use std::ops::Range;
use std::rc::Rc;

use lol_html::errors::RewritingError;
use lol_html::html_content::Element;
use lol_html::{
    AsciiCompatibleEncoding, ElementContentHandlers, HtmlRewriter, MemorySettings, OutputSink,
    Settings, bail_out,
};
use smallvec::SmallVec;

use crate::attrs::{Kind, Row, Table, When};
use crate::base::{Base, Ignored, Layer, Layers};
use crate::buffers;
use crate::edit::{Context, Resolver};
use crate::encoding::{self, Chosen, Sniffer, Source};
use crate::lookahead::{Decision, Hold, Probe};
use crate::report::{Counts, Report, Warning};
use crate::value::{self, Decoded, Quote};
use crate::{BaseUrl, Standard};
use encoding_rs::{DecoderResult, Encoding, UTF_8, UTF_16BE, UTF_16LE};

pub use crate::buffers::CHUNK;

const SVG_NAMESPACE: &str = "http://www.w3.org/2000/svg";
pub(crate) const HTML_NAMESPACE: &str = "http://www.w3.org/1999/xhtml";

/// An open content range: its end is the start of the end tag, not yet seen.
const OPEN: usize = usize::MAX;

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
    /// The most memory lol_html's buffers, and ours for one value, may take;
    /// past it, the rest of the input passes through unchanged.
    pub max_memory: usize,
    /// `--encoding`: the document's encoding, unless a byte order mark says
    /// otherwise.
    pub encoding: Option<&'static Encoding>,
    /// What is rewritten.
    pub table: Table,
    /// Whether the document's own `<base href>` counts (§3.1); not for the
    /// contents of `<noscript>`, which are part of the page around them.
    pub embedded: bool,
    /// How deeply this document is nested in others (`srcdoc`).
    pub depth: u8,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            layers: Layers::default(),
            standard: Standard::default(),
            keep_fragments: false,
            max_lookahead: 1 << 20,
            max_memory: 64 << 20,
            encoding: None,
            table: Table::default(),
            embedded: true,
            depth: 0,
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
    #[error("{0}")]
    Encoding(String),
}

/// What a recorded range holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    /// An attribute value of the table. `svg`: the element is SVG's, where
    /// `#id` references stay. `codebase`: the element's, for `archive`.
    Attr {
        kind: Kind,
        svg: bool,
        codebase: Option<String>,
    },
    /// The href of the first `<base href>`: if it set the base, it becomes
    /// that base; if not, it is an href like another.
    BaseHref,
    /// The text of a `<style>` element.
    Style,
    /// The text of a `<noscript>` element.
    Noscript,
}

#[derive(Debug)]
struct Span {
    range: Range<usize>,
    role: Role,
}

/// A replacement made: the input range and its new bytes.
pub type Splice = (Range<usize>, Vec<u8>);

/// What the handlers and the sink share.
struct Shared {
    spans: VecDeque<Span>,
    /// The end of the `<style>` or `<noscript>` content the sink is
    /// collecting, once its end tag is seen.
    content_end: Option<usize>,
    /// `None` while the lookahead has not decided; with it, made ready for
    /// resolution.
    base: Option<(Base, BaseUrl)>,
    /// What ended the lookahead, once it has.
    decision: Option<Decision>,
    /// The output offset where rewriting stopped, once it did.
    stopped_at: Option<usize>,
    counts: Counts,
    warnings: Vec<Warning>,
}

/// A streaming rewriter that writes to `W`. The first bytes decide how the
/// input is read: UTF-16 (by its byte order mark, or `--encoding`) is
/// transcoded as a whole; every other encoding goes through as bytes.
pub struct Rewriter<W: Write> {
    mode: Mode<W>,
    config: Config,
    record_splices: bool,
}

enum Mode<W: Write> {
    /// Fewer than three bytes seen: not yet known whether a BOM says UTF-16.
    Start {
        pending: Vec<u8>,
        output: W,
    },
    Bytes(Core<W>),
    Utf16(Utf16<W>),
    /// A write failed: nothing more can be done.
    Failed,
}

impl<W: Write> Rewriter<W> {
    pub fn new(config: Config, output: W) -> Self {
        Rewriter {
            mode: Mode::Start {
                pending: Vec::with_capacity(3),
                output,
            },
            config,
            record_splices: false,
        }
    }

    /// Keep a list of the replacements made, for [`Rewriter::end_with_splices`].
    pub fn record_splices(&mut self) {
        self.record_splices = true;
    }

    /// Rewrites the next bytes of the input, however it is split.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.write_chunk(Cow::Borrowed(chunk))
    }

    /// [`Rewriter::write`], of bytes that are borrowed, or handed over to be
    /// held without a copy; a failure ends the rewriter.
    fn write_chunk(&mut self, chunk: Cow<'_, [u8]>) -> Result<(), Error> {
        let result = self.write_inner(chunk, false);
        if result.is_err() {
            self.mode = Mode::Failed;
        }
        result
    }

    fn write_inner(&mut self, chunk: Cow<'_, [u8]>, end: bool) -> Result<(), Error> {
        if let Mode::Start { pending, .. } = &mut self.mode {
            if pending.is_empty() && chunk.len() >= 3 {
                // The usual first write: it goes on whole.
                let Mode::Start { output, .. } = std::mem::replace(&mut self.mode, Mode::Failed)
                else {
                    unreachable!("matched above")
                };
                self.mode = self.choose_mode(&chunk[..3], output)?;
                return self.write_inner(chunk, end);
            }
            let take = (3 - pending.len()).min(chunk.len());
            pending.extend_from_slice(&chunk[..take]);
            if pending.len() < 3 && !end {
                return Ok(());
            }
            let Mode::Start { pending, output } = std::mem::replace(&mut self.mode, Mode::Failed)
            else {
                unreachable!("matched above")
            };
            self.mode = self.choose_mode(&pending, output)?;
            self.write_inner(Cow::Owned(pending), end)?;
            return self.write_inner(Cow::Borrowed(&chunk[take..]), end);
        }
        match &mut self.mode {
            Mode::Bytes(core) => core.write(chunk),
            Mode::Utf16(utf16) => utf16.write(&chunk),
            Mode::Start { .. } | Mode::Failed => Err(Error::Write(io::Error::other(
                "the rewriter failed before and cannot go on",
            ))),
        }
    }

    fn choose_mode(&self, first: &[u8], mut output: W) -> Result<Mode<W>, Error> {
        let flag = self.config.encoding;
        let (utf16, bom) = match Encoding::for_bom(first) {
            Some((e, bom)) if e == UTF_16LE || e == UTF_16BE => (Some(e), bom),
            Some(_) => (None, 0),
            None => match flag {
                Some(e) if e == UTF_16LE || e == UTF_16BE => (Some(e), 0),
                _ => (None, 0),
            },
        };
        if let Some(encoding) = utf16 {
            // The byte order mark goes out as it came.
            output.write_all(&first[..bom]).map_err(Error::Write)?;
            let source = if bom > 0 { Source::Bom } else { Source::Flag };
            let chosen = Chosen { encoding, source };
            let mut core = Core::new(
                self.config.clone(),
                Utf16Writer::new(output, encoding),
                Some((chosen, UTF_8)),
            );
            if self.record_splices {
                core.record_splices();
            }
            return Ok(Mode::Utf16(Utf16 {
                decoder: encoding.new_decoder_without_bom_handling(),
                core,
                skip: bom,
                read: 0,
            }));
        }
        if let Some(e) =
            flag.filter(|e| Encoding::for_bom(first).is_none() && !e.is_ascii_compatible())
        {
            return Err(unsupported(e));
        }
        let mut core = Core::new(self.config.clone(), output, None);
        if self.record_splices {
            core.record_splices();
        }
        Ok(Mode::Bytes(core))
    }

    /// Ends the input: writes what is held, flushes, and gives back the report
    /// and the output.
    pub fn end(self) -> Result<(Report, W), Error> {
        self.end_with_splices()
            .map(|(report, output, _)| (report, output))
    }

    /// [`Rewriter::end`], and the replacements made, when recorded.
    pub fn end_with_splices(mut self) -> Result<(Report, W, Vec<Splice>), Error> {
        if matches!(self.mode, Mode::Start { .. }) {
            self.write_inner(Cow::Borrowed(&[]), true)?;
        }
        match self.mode {
            Mode::Bytes(core) => core.end(),
            Mode::Utf16(utf16) => utf16.end(),
            Mode::Start { .. } | Mode::Failed => Err(Error::Write(io::Error::other(
                "the rewriter failed before and cannot go on",
            ))),
        }
    }
}

fn unsupported(encoding: &'static Encoding) -> Error {
    Error::Encoding(format!(
        "`{}` cannot be rewritten in place (its bytes are not ASCII-compatible); convert the page to UTF-8 first",
        encoding.name()
    ))
}

/// UTF-16 input: decoded to UTF-8 for the rewrite, and the output encoded
/// back. Valid UTF-16 goes there and back exactly; an unpaired surrogate
/// would not, so it is refused.
struct Utf16<W: Write> {
    decoder: encoding_rs::Decoder,
    core: Core<Utf16Writer<W>>,
    /// Bytes of the byte order mark still to skip.
    skip: usize,
    read: usize,
}

impl<W: Write> Utf16<W> {
    fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let skip = self.skip.min(chunk.len());
        self.skip -= skip;
        self.read += skip;
        self.decode(&chunk[skip..], false)
    }

    fn decode(&mut self, mut chunk: &[u8], last: bool) -> Result<(), Error> {
        let mut buf = [0u8; 8192];
        loop {
            let (result, read, written) = self
                .decoder
                .decode_to_utf8_without_replacement(chunk, &mut buf, last);
            self.core.write(Cow::Borrowed(&buf[..written]))?;
            self.read += read;
            chunk = &chunk[read..];
            match result {
                DecoderResult::InputEmpty => return Ok(()),
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(bad, after) => {
                    let at = self.read - usize::from(bad) - usize::from(after);
                    return Err(Error::Encoding(format!(
                        "not valid `{}` at byte {at}: an unpaired surrogate or a lone byte; it is refused rather than changed",
                        self.decoder.encoding().name(),
                    )));
                }
            }
        }
    }

    fn end(mut self) -> Result<(Report, W, Vec<Splice>), Error> {
        self.decode(&[], true)?;
        let (report, writer, splices) = self.core.end()?;
        Ok((report, writer.finish()?, splices))
    }
}

/// Takes UTF-8 and writes UTF-16 of the given byte order.
struct Utf16Writer<W: Write> {
    inner: W,
    big_endian: bool,
    /// The start of a character cut off at the end of the last write.
    partial: Vec<u8>,
}

impl<W: Write> Utf16Writer<W> {
    fn new(inner: W, encoding: &'static Encoding) -> Self {
        Utf16Writer {
            inner,
            big_endian: encoding == UTF_16BE,
            partial: Vec::new(),
        }
    }

    fn finish(mut self) -> Result<W, Error> {
        if !self.partial.is_empty() {
            return Err(Error::Write(io::Error::other(
                "output ended inside a character",
            )));
        }
        self.inner.flush().map_err(Error::Write)?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for Utf16Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.partial.extend_from_slice(buf);
        let valid = match std::str::from_utf8(&self.partial) {
            Ok(s) => s.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
        };
        let text = std::str::from_utf8(&self.partial[..valid]).expect("checked");
        let mut out = Vec::with_capacity(valid * 2);
        for unit in text.encode_utf16() {
            let bytes = if self.big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            };
            out.extend_from_slice(&bytes);
        }
        self.inner.write_all(&out)?;
        self.partial.drain(..valid);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The rewriter over bytes of an ASCII-compatible encoding.
struct Core<W: Write> {
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
    sniffer: Option<Sniffer>,
    /// The document's encoding, and the one its bytes here are in (UTF-8
    /// when UTF-16 was transcoded).
    chosen: Option<(Chosen, &'static Encoding)>,
    /// Whether the hold was let go.
    released: bool,
    shared: Rc<RefCell<Shared>>,
    splicer: Rc<RefCell<Splicer<W>>>,
    config: Config,
}

impl<W: Write> Core<W> {
    fn new(config: Config, output: W, chosen: Option<(Chosen, &'static Encoding)>) -> Self {
        let encoding =
            AsciiCompatibleEncoding::new(encoding_rs::UTF_8).expect("UTF-8 is ASCII-compatible");
        let shared = Rc::new(RefCell::new(Shared {
            spans: VecDeque::new(),
            content_end: None,
            base: None,
            decision: None,
            stopped_at: None,
            counts: Counts::default(),
            warnings: Vec::new(),
        }));
        let bailing = Rc::new(Cell::new(false));
        let splicer = Rc::new(RefCell::new(Splicer {
            // Nested documents are small, and there may be many.
            out: BufWriter::with_capacity(if config.depth == 0 { CHUNK } else { 1024 }, output),
            pos: 0,
            previous: 0,
            current: None,
            buffer: Vec::new(),
            replacement: Vec::new(),
            error: None,
            splices: None,
            abandoned: false,
            encoding: UTF_8,
            shared: Rc::clone(&shared),
            bailing: Rc::clone(&bailing),
            config: config.clone(),
        }));
        let template_bases = Rc::new(RefCell::new(Vec::new()));
        let window = Rc::new(RefCell::new(Window::default()));
        let on_element = {
            let shared = Rc::clone(&shared);
            let window = Rc::clone(&window);
            let table = config.table.clone();
            let template_bases = Rc::clone(&template_bases);
            move |el: &mut Element| {
                record(
                    &shared,
                    &table,
                    el,
                    &window.borrow(),
                    &template_bases.borrow(),
                );
                Ok(())
            }
        };
        let settings = Settings::new()
            .append_element_content_handler((
                Cow::Borrowed(config.table.element_selector()),
                ElementContentHandlers::default().element(on_element),
            ))
            .with_encoding(encoding)
            .with_memory_settings(memory_settings(config.max_memory))
            .append_bail_out_handler({
                let bailing = Rc::clone(&bailing);
                // Called at the bail-out point, before the unchanged flush.
                bail_out!(move |_, _| bailing.set(true))
            })
            .with_strict(false);
        let sniffer = chosen.is_none().then(|| {
            let window = encoding::DETECTION.min(config.max_lookahead);
            Sniffer::new(config.encoding, window, config.layers.retrieval.as_deref())
        });
        let core = Core {
            html: Some(HtmlRewriter::new(settings, Sink(Rc::clone(&splicer)))),
            hold: Hold::default(),
            window,
            probe: None,
            template_bases,
            sniffer,
            chosen,
            released: false,
            shared,
            splicer,
            config,
        };
        if !core.config.embedded {
            core.shared.borrow_mut().decision = Some(Decision::Skipped);
        }
        core
    }

    fn record_splices(&mut self) {
        self.splicer.borrow_mut().splices = Some(Vec::new());
    }

    fn write(&mut self, chunk: Cow<'_, [u8]>) -> Result<(), Error> {
        if self.released {
            return self.feed(chunk);
        }
        if let Some(sniffer) = &mut self.sniffer {
            sniffer.push(&chunk);
        }
        self.hold.push(chunk);
        // The probe reads first, so that a `<meta>` it meets in the head is
        // known before detection could decide, however the input is split.
        if self.shared.borrow().decision.is_none() {
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

    /// The lookahead, over the input held so far.
    /// The head is read only when it matters: when `<base` occurs, or when
    /// the encoding is still open after the prescan (a `<meta>` further into
    /// the head declares it). Otherwise there is no base to find, and the
    /// hold ends at the lookahead limit or the end of input.
    fn look(&mut self) {
        if let Some(probe) = &mut self.probe {
            if let Some(decision) = probe.write(self.hold.last()) {
                self.decided(decision);
            }
            return;
        }
        // Only a `<base` that starts within the lookahead limit counts, so
        // that the answer does not depend on how the input is split.
        let limit = self.config.max_lookahead;
        let base = self.hold.base_at().is_some_and(|at| at < limit);
        let needs_head =
            self.chosen.is_none() && self.sniffer.as_ref().is_some_and(Sniffer::prescan_failed);
        if base || needs_head {
            let encoding = AsciiCompatibleEncoding::new(UTF_8).expect("UTF-8 is ASCII-compatible");
            let mut probe = Probe::new(
                encoding,
                self.config.max_lookahead,
                self.config.max_memory,
                Rc::clone(&self.template_bases),
            );
            let decision = self.hold.chunks().find_map(|c| probe.write(c));
            self.probe = Some(probe);
            if let Some(decision) = decision {
                self.decided(decision);
            }
        } else if self.hold.len() >= limit + 4 {
            // A `<base` starting before the limit would be whole by now.
            self.decided(Decision::NoBase {
                bytes: limit,
                end: false,
            });
        }
    }

    /// lol_html reads `bytes`, once the lookahead is over.
    fn feed(&mut self, bytes: Cow<'_, [u8]>) -> Result<(), Error> {
        let Some(html) = &mut self.html else {
            // Past the memory limit: the rest goes through as it is.
            self.splicer.borrow_mut().emit(&bytes);
            return self.check(Ok(()));
        };
        self.window.borrow_mut().next(bytes);
        let window = self.window.borrow();
        let result = html.write(&window.bytes);
        drop(window);
        match result {
            Err(RewritingError::MemoryLimitExceeded(_)) => {
                // lol_html has flushed what it held, unchanged; from here on
                // the input is copied, so the output is always complete.
                self.html = None;
                let mut splicer = self.splicer.borrow_mut();
                let offset = splicer.shared.borrow().stopped_at.unwrap_or(splicer.pos);
                splicer.pass_through();
                drop(splicer);
                self.shared
                    .borrow_mut()
                    .warnings
                    .push(Warning::MemoryLimit {
                        limit: self.config.max_memory,
                        offset,
                    });
                self.check(Ok(()))
            }
            result => self.check(result),
        }
    }

    fn end(mut self) -> Result<(Report, W, Vec<Splice>), Error> {
        if self.shared.borrow().decision.is_none() {
            let decision = match &mut self.probe {
                Some(probe) => probe.end(),
                None => Decision::NoBase {
                    bytes: self.hold.len(),
                    end: true,
                },
            };
            self.decided(decision);
        }
        self.release()?;
        let Core {
            html,
            shared,
            splicer,
            chosen,
            ..
        } = self;
        // `end` drops lol_html and its handlers, so the sink and the handlers
        // give back their shares.
        let result = html.map_or(Ok(()), HtmlRewriter::end);
        let mut splicer = Rc::try_unwrap(splicer)
            .ok()
            .expect("the sink was dropped with lol_html")
            .into_inner();
        // A `<style>` or `<noscript>` the input did not close ends with it.
        splicer.close_content();
        if let Some(e) = splicer.error {
            return Err(Error::Write(e));
        }
        result.map_err(|e| Error::Parse(e.to_string()))?;
        let output = splicer
            .out
            .into_inner()
            .map_err(|e| Error::Write(e.into_error()))?;
        let splices = splicer.splices.unwrap_or_default();
        drop(splicer.shared);
        let shared = Rc::try_unwrap(shared)
            .ok()
            .expect("the handlers were dropped with lol_html")
            .into_inner();
        let report = Report {
            base: shared.base.expect("decided at the end at the latest").0,
            decision: shared.decision.expect("decided at the end at the latest"),
            encoding: chosen.expect("decided at the end at the latest").0,
            counts: shared.counts,
            warnings: shared.warnings,
        };
        Ok((report, output, splices))
    }

    fn check(&self, result: Result<(), RewritingError>) -> Result<(), Error> {
        if let Some(e) = self.splicer.borrow_mut().error.take() {
            return Err(Error::Write(e));
        }
        result.map_err(|e| Error::Parse(e.to_string()))
    }

    /// The lookahead has decided: said at once, so that the warning comes
    /// in the order of the input. A `<meta>` the probe met in the head
    /// tells the sniffer, before detection could decide.
    fn decided(&mut self, decision: Decision) {
        let mut s = self.shared.borrow_mut();
        if decision == Decision::Limit {
            s.warnings.push(Warning::LookaheadLimit {
                limit: self.config.max_lookahead,
            });
        }
        s.decision = Some(decision);
        if let (Some(sniffer), Some(probe)) = (&mut self.sniffer, &self.probe) {
            sniffer.head_read(probe.meta());
        }
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
                    source: Source::Ascii,
                });
                self.chosen = Some((c, c.encoding));
                (c, c.encoding)
            }
        };
        self.probe = None;
        self.sniffer = None;
        if !bytes_encoding.is_ascii_compatible() {
            return Err(unsupported(bytes_encoding));
        }
        let decision = self.shared.borrow().decision.clone().expect("decided");
        self.splicer.borrow_mut().encoding = bytes_encoding;
        let layers = &self.config.layers;
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
            Decision::Limit
            | Decision::HeadOver { .. }
            | Decision::NoBase { .. }
            | Decision::End
            | Decision::Skipped
            | Decision::Stopped => layers.outer(),
        };
        if base.layer == Layer::Empty {
            warnings.push(Warning::NoBase);
        }
        {
            let mut s = self.shared.borrow_mut();
            let base_url = BaseUrl::new(self.config.standard, &base.url);
            s.base = Some((base, base_url));
            s.warnings.extend(warnings);
        }
        for chunk in self.hold.take() {
            self.feed(Cow::Owned(chunk))?;
        }
        Ok(())
    }
}

/// lol_html's limit, with the bail-out that flushes what it holds unchanged.
pub(crate) fn memory_settings(max_memory: usize) -> MemorySettings {
    MemorySettings::new()
        // lol_html preallocates 1 KiB, which must fit in the limit.
        .with_preallocated_parsing_buffer_size(max_memory.min(1024))
        .with_max_allowed_memory_usage(max_memory)
        .with_graceful_bail_out_on_memory_limit_exceeded(true)
}

/// Rewrites all of `input` into `output`, reading 64 KiB at a time: a read
/// waits for 64 KiB or the end of input, as a buffered filter does.
pub fn rewrite(config: Config, mut input: impl Read, output: impl Write) -> Result<Report, Error> {
    let mut rewriter = Rewriter::new(config, output);
    loop {
        // Each read goes to a buffer of its own, which the lookahead holds
        // and lol_html reads, not to a copy of it. `read_to_end` fills the
        // buffer's spare room without zeroing it first (for files, pipes and
        // slices), which a reused buffer would need for `read`.
        let mut buf = buffers::for_reading();
        if let Err(e) = (&mut input).take(CHUNK as u64).read_to_end(&mut buf) {
            buffers::give_back(buf);
            return Err(Error::Read(e));
        }
        let n = buf.len();
        if n == 0 {
            buffers::give_back(buf);
            break;
        }
        rewriter.write_chunk(Cow::Owned(buf))?;
        // Short of 64 KiB: the input has ended.
        if n < CHUNK {
            break;
        }
    }
    rewriter.end().map(|(report, _)| report)
}

/// The element handler: records the byte range of each URL value, and of the
/// contents of `<style>` and `<noscript>`.
fn record(
    shared: &Rc<RefCell<Shared>>,
    table: &Table,
    el: &mut Element,
    window: &Window,
    template_bases: &[usize],
) {
    // Names from the bytes of the write lol_html is reading, lowercased on
    // the stack: lol_html's own `tag_name()` and `name()` allocate.
    let (mut tag_buffer, mut name_buffer) = ([0; 32], [0; 32]);
    let tag_location = el.source_location().bytes();
    let (tag, attributes) =
        match window.name(tag_location.start + 1..tag_location.end, &mut tag_buffer) {
            Some((tag, rest)) => (Cow::Borrowed(tag), has_attributes(rest)),
            None => (Cow::Owned(el.tag_name().into_bytes()), true),
        };
    let namespace = el.namespace_uri();
    let svg = namespace == SVG_NAMESPACE;
    let mut s = shared.borrow_mut();
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
        let Some(row) = table.find(&*tag, &*name, |when| holds(when, el)) else {
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
        };
        if *tag == *b"base" && row.attribute == "href" {
            let deciding =
                matches!(&s.decision, Some(Decision::Base { value, .. }) if *value == range);
            if deciding {
                // Whether it is used is known once the encoding is: then,
                // if it is, it becomes the base.
                role = Role::BaseHref;
            } else {
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
                    why,
                });
            }
        }
        s.spans.push_back(Span { range, role });
    }
    // Raw text to lol_html: no handler sees inside, so the sink takes the
    // bytes between the tags. Only HTML's own: in SVG, `<style>` has markup.
    let content = match &*tag {
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
struct Window {
    bytes: Vec<u8>,
    at: usize,
}

impl Drop for Window {
    fn drop(&mut self) {
        buffers::give_back(std::mem::take(&mut self.bytes));
    }
}

impl Window {
    fn next(&mut self, bytes: Cow<'_, [u8]>) {
        self.at += self.bytes.len();
        match bytes {
            Cow::Owned(bytes) => buffers::give_back(std::mem::replace(&mut self.bytes, bytes)),
            Cow::Borrowed(bytes) => {
                self.bytes.clear();
                self.bytes.extend_from_slice(bytes);
            }
        }
    }

    /// The byte at `offset`, when it is in this write.
    fn byte(&self, offset: usize) -> Option<u8> {
        self.bytes.get(offset.checked_sub(self.at)?).copied()
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
        let start = range.start.checked_sub(self.at)?;
        let bytes = self.bytes.get(start..range.end.checked_sub(self.at)?)?;
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
    let value = |name| {
        el.get_attribute(name)
            .map(|v| v.trim().to_ascii_lowercase())
    };
    match when {
        When::Always => true,
        When::Equals(name, expected) => value(name).is_some_and(|v| v == expected),
        When::OneOf(name, expected) => value(name).is_some_and(|v| expected.contains(&v.as_str())),
    }
}

/// lol_html's output sink, shared with the [`Rewriter`].
struct Sink<W: Write>(Rc<RefCell<Splicer<W>>>);

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

struct Splicer<W: Write> {
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
    /// The replacements made, when asked for.
    splices: Option<Vec<Splice>>,
    /// The range being collected grew past the memory limit: its bytes go
    /// through as they come.
    abandoned: bool,
    /// The encoding the bytes are in, once known.
    encoding: &'static Encoding,
    shared: Rc<RefCell<Shared>>,
    /// Set by lol_html's bail-out handler; taken at the next output.
    bailing: Rc<Cell<bool>>,
    config: Config,
}

impl<W: Write> Splicer<W> {
    fn splice(&mut self, mut chunk: &[u8]) {
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
                } else {
                    self.buffer.extend_from_slice(&chunk[..take]);
                    if self.buffer.len() > self.config.max_memory {
                        // Too large to hold (a huge `<style>`): what came
                        // goes out as it was, and the rest as it comes.
                        let held = std::mem::take(&mut self.buffer);
                        self.emit(&held);
                        self.abandoned = true;
                        self.shared.borrow_mut().warnings.push(Warning::TooLarge {
                            offset: start,
                            limit: self.config.max_memory,
                        });
                    }
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

    /// After lol_html's bail-out: what is being collected is written as it
    /// was, and no more ranges are rewritten.
    fn pass_through(&mut self) {
        if self.current.take().is_some() {
            let raw = std::mem::take(&mut self.buffer);
            self.emit(&raw);
        }
        self.abandoned = false;
        self.shared.borrow_mut().spans.clear();
    }

    /// At the end of input: an open content range ends here.
    fn close_content(&mut self) {
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
        if self.rewrite(&span, Quote::from_preceding(before), &raw, &mut new) {
            self.emit(&new);
            if let Some(splices) = &mut self.splices {
                splices.push((span.range, new.clone()));
            }
        } else {
            self.emit(&raw);
        }
        self.buffer = raw;
        self.replacement = new;
    }

    /// Writes the new bytes for a range into `out`, or returns `false` to
    /// leave it as it is.
    fn rewrite(&self, span: &Span, quote: Quote, raw: &[u8], out: &mut Vec<u8>) -> bool {
        let start = span.range.start;
        let mut shared = self.shared.borrow_mut();
        let Shared {
            base,
            counts,
            warnings,
            ..
        } = &mut *shared;
        let (base, base_url) = base
            .as_ref()
            .expect("ranges are written once the base is known");
        if base.is_empty() {
            counts.seen += 1;
            counts.no_base += 1;
            return false;
        }
        let embedded = matches!(base.layer, Layer::Embedded { .. });
        let mut resolver = Resolver {
            base: base_url,
            encoding: self.encoding,
            standard: self.config.standard,
            keep_fragments: self.config.keep_fragments,
            table: &self.config.table,
            depth: self.config.depth,
            counts,
            warnings,
        };
        let replaced = match &span.role {
            Role::Attr {
                kind,
                svg,
                codebase,
            } => {
                let element = Context {
                    svg: *svg,
                    codebase: codebase.as_deref(),
                };
                return resolver.attribute(*kind, element, raw, quote, start, out);
            }
            Role::BaseHref if !embedded => {
                let element = Context::default();
                return resolver.attribute(Kind::Url, element, raw, quote, start, out);
            }
            Role::BaseHref => resolver.base_href(raw, quote, start),
            Role::Style => resolver.style_text(raw, start),
            Role::Noscript => resolver.noscript(raw, start),
        };
        // Texts are large and rare: theirs is taken as it is, not copied.
        match replaced {
            Some(new) => {
                *out = new;
                true
            }
            None => false,
        }
    }
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

    /// A reader that gives at most `step` bytes a read, and fails once it
    /// has given `fail_at`.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
        fail_at: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.fail_at == 0 {
                return Err(io::Error::other("the disk is gone"));
            }
            let n = buf.len().min(self.step).min(self.fail_at);
            let n = self.bytes.len().min(n);
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            self.fail_at -= n;
            Ok(n)
        }
    }

    #[test]
    fn rewrite_reads_the_whole_input_however_the_reader_splits_it() {
        let config = || Config {
            layers: Layers {
                retrieval: Some("https://example.com/a/b".into()),
                ..Layers::default()
            },
            ..Config::default()
        };
        // Links in the first read, across the 64 KiB seams, and at the end.
        let text = "t".repeat(CHUNK - 20);
        let page = format!("<a href=x>{text}<img src=y>{text}<a href=z>{text}</a>");
        let mut whole = Rewriter::new(config(), Vec::new());
        whole.write(page.as_bytes()).unwrap();
        let (_, expected) = whole.end().unwrap();
        let expected_text = String::from_utf8_lossy(&expected);
        for link in [
            "=https://example.com/a/x>",
            "=https://example.com/a/y>",
            "=https://example.com/a/z>",
        ] {
            assert!(expected_text.contains(link), "{link}");
        }
        for step in [1, 7, CHUNK - 1, CHUNK, CHUNK + 1, usize::MAX] {
            let mut out = Vec::new();
            let reader = Trickle {
                bytes: page.as_bytes(),
                step,
                fail_at: usize::MAX,
            };
            rewrite(config(), reader, &mut out).unwrap();
            assert!(out == expected, "reads of {step} bytes");
        }
        let reader = Trickle {
            bytes: page.as_bytes(),
            step: 1000,
            fail_at: CHUNK + 5,
        };
        let result = rewrite(config(), reader, Vec::new());
        assert!(
            matches!(&result, Err(Error::Read(e)) if e.to_string() == "the disk is gone"),
            "{result:?}"
        );
    }
}
