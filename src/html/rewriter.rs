//! The rewriter of one document: the streaming front of the engine. Its
//! first bytes decide how the input is read: UTF-16 (by its byte order mark,
//! `--encoding` or the transport layer's charset) is transcoded as a whole;
//! every other encoding goes through as bytes.

use std::borrow::Cow;
use std::io::{Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::{Encoding, UTF_8};

use super::document::Document;
use super::utf16::Utf16;
use crate::document::buffers::{self, CHUNK};
use crate::document::config::{Config, Nesting};
use crate::document::encoding::Chosen;
use crate::document::error::Error;
use crate::document::events::Events;
use crate::document::links::{Hear, Only};
use crate::document::memory::{Allowance, Budget, OverBudget};
use crate::document::report::{Report, Tell, Warning};
use crate::document::resolution::{Nested, Resolution, Splices};
use crate::document::utf16::Utf16Writer;
use crate::url::Layers;

/// A streaming rewriter that writes to `W`: give it the input in writes of
/// any size, then [`end`](Rewriter::end) it for the [`Report`].
///
/// ```
/// use htmlabs::{Config, Layers, Rewriter, Standard, Type};
///
/// let layers = Layers::default().with_retrieval(
///     Standard::Rfc1808,
///     "https://example.com/a/b.html",
///     "--retrieved-from",
/// )?;
/// let config = Config::default();
/// let mut rewriter = Rewriter::new(Type::Html, config, layers, Vec::new());
/// rewriter.write(b"<a href=c.html>")?;
/// rewriter.write(b"</a><img src=/d.png>")?;
/// let (report, html) = rewriter.end()?;
/// assert_eq!(
///     html,
///     b"<a href=https://example.com/a/c.html></a><img src=https://example.com/d.png>"
/// );
/// assert_eq!(report.counts.rewritten, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Rewriter<W: Write> {
    mode: Mode<W>,
}

enum Mode<W: Write> {
    /// Fewer than three bytes seen: not yet known whether a BOM says UTF-16.
    Start(Start<W>),
    Bytes(Document<W>),
    Utf16(Utf16<W>),
    /// A write failed: nothing more can be done.
    Failed,
}

struct Start<W: Write> {
    pending: Vec<u8>,
    output: W,
    config: Arc<Config>,
    layers: Layers,
    nesting: Nesting,
    tell: Option<Tell>,
    hear: Option<Hear>,
    /// Which links `hear` wants
    /// ([`Listener::with_only`](crate::document::links::Listener::with_only)).
    only: Option<Only>,
    /// What its holders take from: a share of a run's memory, else one of
    /// its own (half of `--max-memory`, as the oldest document of a run).
    allowance: Option<Rc<Allowance>>,
}

impl<W: Write> Rewriter<W> {
    /// A page read by the run's `config` (shared by every document of a
    /// run: an `Arc<Config>`, or a `Config` of its own), with the §3
    /// `layers` its source gives it, written to `output`.
    pub fn new(config: impl Into<Arc<Config>>, layers: Layers, output: W) -> Self {
        Self::nested(config.into(), layers, Nesting::PAGE, output)
    }

    /// A rewriter for a document that stands where `nesting` says.
    pub(crate) fn nested(config: Arc<Config>, layers: Layers, nesting: Nesting, output: W) -> Self {
        Rewriter {
            mode: Mode::Start(Start {
                pending: Vec::with_capacity(3),
                output,
                config,
                layers,
                nesting,
                tell: None,
                hear: None,
                only: None,
                allowance: None,
            }),
        }
    }

    /// Takes what it holds from `allowance` (a document's share of its
    /// run's memory), given before the first write.
    pub(crate) fn with_allowance(mut self, allowance: Rc<Allowance>) -> Self {
        if let Mode::Start(start) = &mut self.mode {
            start.allowance = Some(allowance);
        }
        self
    }

    /// Keeps the page's anchors as it reads them, for [`Report::anchors`]
    /// (given before the first write).
    pub(crate) fn with_anchors(mut self) -> Self {
        if let Mode::Start(start) = &mut self.mode {
            start.nesting.anchors = true;
        }
        self
    }

    /// Reads the page as served as XML (an `.xhtml` file): the `href` of
    /// each `<?xml-stylesheet?>` outside its root element is a link too
    /// (given before the first write).
    pub(crate) fn served_as_xml(mut self) -> Self {
        if let Mode::Start(start) = &mut self.mode {
            start.nesting.xml = true;
        }
        self
    }

    /// Writes nothing: the page is read for its links alone (a listing, a
    /// link check), so none of its bytes is copied to the output (given
    /// before the first write).
    pub(crate) fn discarding(mut self) -> Self {
        if let Mode::Start(start) = &mut self.mode {
            start.nesting.discard = true;
        }
        self
    }

    /// Hears only the links `only` wants (given before the first write,
    /// with [`on_link`](Self::on_link)).
    pub(crate) fn hearing_only(mut self, only: Only) -> Self {
        if let Mode::Start(start) = &mut self.mode {
            start.only = Some(only);
        }
        self
    }

    /// Tells each warning to `tell` as it happens (a long stream, a site or
    /// an archive can print it at once, with its document's name); the
    /// report still lists them all at the end.
    pub fn on_warning(mut self, tell: Tell) -> Self {
        match &mut self.mode {
            Mode::Start(start) => start.tell = Some(tell),
            Mode::Bytes(document) => document.tell(tell),
            Mode::Utf16(utf16) => utf16.document_mut().tell(tell),
            Mode::Failed => {}
        }
        self
    }

    /// Lets `hear` hear each URL value as it is resolved: where it stands,
    /// what it says, what it resolves to, and what was done with it (the
    /// link report). Without it, nothing of this is computed.
    pub fn on_link(mut self, hear: Hear) -> Self {
        match &mut self.mode {
            Mode::Start(start) => start.hear = Some(hear),
            Mode::Bytes(document) => document.listen(hear, None),
            Mode::Utf16(utf16) => utf16.document_mut().listen(hear, None),
            Mode::Failed => {}
        }
        self
    }

    /// Rewrites the next bytes of the input, however it is split.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.write_chunk(Cow::Borrowed(chunk))
    }

    /// Rewrites all that `input` gives, reading 64 KiB at a time: a read
    /// waits for 64 KiB or the end of input, as a buffered filter does.
    pub fn read_from(&mut self, mut input: impl Read) -> Result<(), Error> {
        loop {
            // Each read goes to a buffer of its own, which the lookahead
            // holds and lol_html reads, not to a copy of it. `read_to_end`
            // fills the buffer's spare room without zeroing it first (for
            // files, pipes and slices), which a reused buffer would need for
            // `read`.
            let mut buf = buffers::for_reading();
            if let Err(e) = (&mut input).take(CHUNK as u64).read_to_end(&mut buf) {
                buffers::give_back(buf);
                self.mode = Mode::Failed;
                return Err(Error::Read(e));
            }
            let n = buf.len();
            if n == 0 {
                buffers::give_back(buf);
                return Ok(());
            }
            self.write_chunk(Cow::Owned(buf))?;
            // Short of 64 KiB: the input has ended.
            if n < CHUNK {
                return Ok(());
            }
        }
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
        if let Mode::Start(start) = &mut self.mode {
            if start.pending.is_empty() && chunk.len() >= 3 {
                // The usual first write: it goes on whole.
                let Mode::Start(start) = std::mem::replace(&mut self.mode, Mode::Failed) else {
                    unreachable!("matched above")
                };
                self.mode = choose_mode(&chunk[..3], start)?;
                return self.write_inner(chunk, end);
            }
            let take = (3 - start.pending.len()).min(chunk.len());
            start.pending.extend_from_slice(&chunk[..take]);
            if start.pending.len() < 3 && !end {
                return Ok(());
            }
            let Mode::Start(mut start) = std::mem::replace(&mut self.mode, Mode::Failed) else {
                unreachable!("matched above")
            };
            let pending = std::mem::take(&mut start.pending);
            self.mode = choose_mode(&pending, start)?;
            self.write_inner(Cow::Owned(pending), end)?;
            return self.write_inner(Cow::Borrowed(&chunk[take..]), end);
        }
        match &mut self.mode {
            Mode::Bytes(document) => document.write(chunk),
            Mode::Utf16(utf16) => utf16.write(&chunk),
            Mode::Start(_) | Mode::Failed => Err(Error::failed_before()),
        }
    }

    /// Whether rewriting stopped at the memory limit: the rest of the input
    /// goes through unchanged.
    pub(crate) fn stopped(&mut self) -> bool {
        match &mut self.mode {
            Mode::Bytes(document) => document.stopped(),
            Mode::Utf16(utf16) => utf16.document_mut().stopped(),
            Mode::Start(_) | Mode::Failed => false,
        }
    }

    /// Ends the input: writes what is held, flushes, and gives back the report
    /// and the output.
    pub fn end(self) -> Result<(Report, W), Error> {
        self.end_with_splices()
            .map(|(report, output, _)| (report, output))
    }

    /// [`Rewriter::end`], and the replacements made, when recorded.
    pub(crate) fn end_with_splices(mut self) -> Result<(Report, W, Splices), Error> {
        if matches!(self.mode, Mode::Start(_)) {
            self.write_inner(Cow::Borrowed(&[]), true)?;
        }
        match self.mode {
            Mode::Bytes(document) => document.end(),
            Mode::Utf16(utf16) => utf16.end(),
            Mode::Start(_) | Mode::Failed => Err(Error::failed_before()),
        }
    }
}

/// The first bytes are in: UTF-16 by its byte order mark, or as declared
/// (`--encoding`, then the transport layer's charset), is transcoded; any
/// other encoding that is not ASCII-compatible is refused.
fn choose_mode<W: Write>(first: &[u8], start: Start<W>) -> Result<Mode<W>, Error> {
    let Start {
        mut output,
        config,
        layers,
        nesting,
        tell,
        hear,
        only,
        allowance,
        ..
    } = start;
    let allowance = allowance.unwrap_or_else(|| config.own_allowance());
    let transcoded = crate::document::utf16::transcoded(first, &config, &layers, None)?;
    let mut document = match transcoded {
        Some((encoding, bom, source)) => {
            // The byte order mark goes out as it came.
            output.write_all(&first[..bom]).map_err(Error::Write)?;
            let chosen = Chosen { encoding, source };
            let writer = Utf16Writer::new(output, encoding);
            let raw = writer.raw();
            let document = Document::new(
                config,
                layers,
                nesting,
                nest,
                writer,
                Some((chosen, UTF_8)),
                allowance,
            );
            let mut utf16 = Utf16::new(encoding, bom, document, raw);
            utf16.document_mut().hand_over(tell, hear, only);
            return Ok(Mode::Utf16(utf16));
        }
        None => Document::new(config, layers, nesting, nest, output, None, allowance),
    };
    document.hand_over(tell, hear, only);
    Ok(Mode::Bytes(document))
}

/// Runs a document nested in a value (`srcdoc`, the text of `<noscript>`):
/// its base is the page's (RFC 1808 §3.2: the encapsulating entity), its
/// `<base href>` counts when `embedded`, and only its replacements matter
/// then (else its output). It takes from the page's allowance, as the page
/// does (its parser's buffers, its hold, its values, its output or its
/// replacements, its links when listened to); `Err` when any of them finds
/// too little left (the value it stands in does not fit).
pub(crate) fn nest(
    cx: &Resolution,
    bytes: &[u8],
    encoding: &'static Encoding,
    embedded: bool,
    listen: bool,
) -> Result<Option<Nested>, OverBudget> {
    // Every field, so that no default table is built for each one.
    let config = Config {
        standard: cx.standard,
        keep_fragments: cx.keep_fragments,
        max_lookahead: cx.max_lookahead,
        max_memory: cx.allowance.total(),
        encoding: Some(encoding),
        table: cx.table.clone(),
        map: cx.map.clone(),
        local: cx.local.clone(),
    };
    let nesting = Nesting {
        embedded,
        depth: cx.depth + 1,
        record_splices: embedded,
        anchors: false,
        discard: false,
        xml: false,
    };
    // A `srcdoc`'s output is not needed (its replacements are), a
    // `<noscript>`'s is.
    let output = Capped {
        bytes: Vec::new(),
        keep: !embedded,
        budget: cx.allowance.budget(),
    };
    let allowance = Rc::clone(&cx.allowance);
    let layers = Layers::around(&cx.base).in_file(cx.document.clone());
    let mut rewriter = Rewriter::nested(Arc::new(config), layers, nesting, output)
        .with_allowance(Rc::clone(&allowance));
    let events = Events::<Warning>::default();
    events.charge(&allowance);
    if listen {
        rewriter = rewriter.on_link(events.hearer());
    }
    // In the writes a page is read in, so that a part past what is left is
    // known soon, not after all of a long value.
    for chunk in bytes.chunks(CHUNK) {
        match rewriter.write(chunk) {
            Err(Error::Write(_)) => return Err(OverBudget),
            Err(_) => return Ok(None),
            Ok(()) if rewriter.stopped() => return Err(OverBudget),
            Ok(()) => {}
        }
    }
    let written = rewriter.end_with_splices();
    let (report, output, splices) = match written {
        Ok(done) => done,
        Err(Error::Write(_)) => return Err(OverBudget),
        Err(_) => return Ok(None),
    };
    let over = events.over();
    let (links, links_held) = events.take_held();
    let limited = report
        .warnings
        .iter()
        .any(|w| matches!(w, Warning::MemoryLimit { .. } | Warning::TooLarge { .. }));
    if over || limited {
        return Err(OverBudget);
    }
    // What is kept stays taken: the output and the links as they were
    // taken, the replacements again (the nested splicer gave them back).
    let mut held = output.budget;
    held.absorb(links_held);
    held.take(splices.size())?;
    Ok(Some(Nested {
        report,
        output: output.bytes,
        splices,
        links,
        _held: held,
    }))
}

/// A nested document's output: kept or not, each byte kept taken from
/// the page's allowance (a write fails past it).
struct Capped {
    bytes: Vec<u8>,
    keep: bool,
    budget: Budget,
}

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.keep {
            let grown = self.bytes.len() + buf.len();
            if grown > self.bytes.capacity() {
                let capacity = grown.max(2 * self.bytes.capacity());
                self.budget
                    .take(capacity - self.bytes.capacity())
                    .map_err(|OverBudget| std::io::Error::other("past the memory limit"))?;
                self.bytes.reserve_exact(capacity - self.bytes.len());
            }
            self.bytes.extend_from_slice(buf);
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Rewrites a document held in memory, and gives back its new bytes and the
/// report: what a source calls for each document it holds whole (a WARC
/// record, a Python `bytes`).
///
/// ```
/// use htmlabs::{Config, Layers, Standard};
///
/// let layers = Layers::default().with_retrieval(
///     Standard::Rfc1808,
///     "http://a/b/c/d;p?q",
///     "WARC-Target-URI",
/// )?;
/// let config = Config::default();
/// let (html, report) = htmlabs::rewrite_bytes(htmlabs::Type::Html, config, layers, b"<a href='../g'>g</a>")?;
/// assert_eq!(html, b"<a href='http://a/b/g'>g</a>");
/// assert_eq!(report.base.to_string(), "`http://a/b/c/d;p?q` (WARC-Target-URI)");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite_bytes(
    config: impl Into<Arc<Config>>,
    layers: Layers,
    html: &[u8],
) -> Result<(Vec<u8>, Report), Error> {
    // A little room for what the URLs grow by.
    let output = Vec::with_capacity(html.len() + html.len() / 8);
    let mut rewriter = Rewriter::new(config, layers, output);
    // In the writes `rewrite` makes, so that both hold the same.
    for chunk in html.chunks(CHUNK) {
        rewriter.write(chunk)?;
    }
    rewriter.end().map(|(report, output)| (output, report))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Type;
    use encoding_rs::UTF_16LE;
    use std::io;

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
        let config = Arc::new(Config::default());
        let layers = || {
            Layers::default()
                .with_retrieval(crate::Standard::Rfc1808, "https://example.com/a/b", "-r")
                .unwrap()
        };
        // Links in the first read, across the 64 KiB seams, and at the end.
        let text = "t".repeat(CHUNK - 20);
        let page = format!("<a href=x>{text}<img src=y>{text}<a href=z>{text}</a>");
        let mut whole = Rewriter::new(Arc::clone(&config), layers(), Vec::new());
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
            crate::rewrite(Type::Html, Arc::clone(&config), layers(), reader, &mut out).unwrap();
            assert!(out == expected, "reads of {step} bytes");
        }
        let reader = Trickle {
            bytes: page.as_bytes(),
            step: 1000,
            fail_at: CHUNK + 5,
        };
        let result = crate::rewrite(Type::Html, config, layers(), reader, Vec::new());
        assert!(
            matches!(&result, Err(Error::Read(e)) if e.to_string() == "the disk is gone"),
            "{result:?}"
        );
    }

    #[test]
    fn warnings_are_told_as_they_happen_and_kept_for_the_report() {
        let config = Config {
            encoding: Some(UTF_8),
            ..Config::default()
        };
        let layers = Layers::default()
            .with_retrieval(crate::Standard::Rfc1808, "http://h/", "-r")
            .unwrap();
        let mut rewriter = crate::Rewriter::new(Type::Html, config, layers, Vec::new());
        let events = rewriter.events();
        let take = |told: &mut Vec<String>| {
            told.extend(events.take_warnings().iter().map(ToString::to_string))
        };
        let mut told = Vec::new();
        rewriter
            .write(b"<base href=d/><img src=\"\xff.png\"><p>")
            .unwrap();
        rewriter.write(&[b' '; 100]).unwrap();
        take(&mut told);
        let expected = "URL value at byte 24 is not valid UTF-8: left as it is";
        assert_eq!(told, [expected], "told before the end");
        rewriter.write(b"<img src=\"\xfe.png\">").unwrap();
        let (report, _) = rewriter.end().unwrap();
        take(&mut told);
        let kept: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(kept, told);
        assert_eq!(kept.len(), 2);
    }

    #[test]
    fn a_config_and_a_report_cross_threads() {
        fn crosses<T: Send + Sync + 'static>() {}
        crosses::<Config>();
        crosses::<Report>();
        crosses::<Error>();
    }

    /// The transport layer's charset decides how the bytes are read: UTF-16
    /// without a byte order mark is transcoded, and it outranks `<meta>`.
    #[test]
    fn the_transport_charset_reads_the_document() {
        let layers = |charset| {
            Layers::default()
                .with_retrieval(crate::Standard::Rfc1808, "http://h/d/", "-r")
                .unwrap()
                .with_charset(charset, "Content-Type:")
        };
        let utf16: Vec<u8> = "<img src=\u{e9}.png>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let (out, report) = rewrite_bytes(Config::default(), layers(UTF_16LE), &utf16).unwrap();
        let expected: Vec<u8> = "<img src=http://h/d/\u{e9}.png>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(out, expected);
        assert_eq!(report.encoding.to_string(), "UTF-16LE (Content-Type:)");
        // A `<meta>` that says otherwise does not count; the value is read
        // in the header's encoding (é is 0xE9 in windows-1252, not UTF-8).
        let page = b"<meta charset=utf-8><img src=\"\xE9 x.png\">";
        let (out, report) =
            rewrite_bytes(Config::default(), layers(encoding_rs::WINDOWS_1252), page).unwrap();
        assert_eq!(report.warnings, []);
        assert_eq!(
            out,
            b"<meta charset=utf-8><img src=\"http://h/d/\xE9 x.png\">"
        );
    }
}
