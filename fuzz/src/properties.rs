//! What htmlabs must do on any input, checked from outside. One copy, used by
//! the fuzz targets (`fuzz/fuzz_targets/`), by the replay of their corpus
//! (`tests/engines/fuzz_corpus.rs`) and by the generated-HTML proptests
//! (`tests/engines/properties.rs`). Each check panics with what it found, which is
//! what libFuzzer and proptest both take as a failure.
//!
//! The rewriter's output is judged by the independent span lister of
//! `tests/spans` (a read-only lol_html pass that shares no code with the
//! rewriter): it says where the URL-bearing ranges are, in the input and in
//! the output, and every byte outside them must be the input's. The
//! stylesheet engine's, by the independent CSS reader of `tests/css_tokens`
//! (a tokenizer written from CSS Syntax), and the XML engine's by quick-xml.
#![allow(dead_code)] // each user takes its own part

#[path = "../../tests/spans/mod.rs"]
pub mod spans;

#[path = "../../tests/css_tokens/mod.rs"]
pub mod css_tokens;

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use htmlabs::internal::Table;
use htmlabs::{Config, Layer, Layers, Report, Rewriter, Standard, rfc1808, rfc3986};

// ------------------------------------------------------------------ resolve

/// A fuzz input for the resolvers: the base, a NUL, the reference (which
/// may hold further NULs). Bytes that are not UTF-8 become U+FFFD.
pub fn resolve_case(data: &[u8]) -> (String, String) {
    let (base, reference) = match data.iter().position(|&b| b == 0) {
        Some(at) => (&data[..at], &data[at + 1..]),
        None => (data, &[][..]),
    };
    (
        String::from_utf8_lossy(base).into_owned(),
        String::from_utf8_lossy(reference).into_owned(),
    )
}

/// The resolvers on one (base, reference): they do not panic, parsing loses
/// nothing, the two entry points agree, and an RFC 1808 answer with a scheme
/// resolves to itself (§4 step 2b).
pub fn check_resolve(base: &str, reference: &str) {
    for s in [base, reference] {
        assert_eq!(rfc1808::parse(s).to_string(), s, "rfc1808::parse({s:?})");
        assert_eq!(rfc3986::parse(s).to_string(), s, "rfc3986::parse({s:?})");
    }
    let answer = rfc1808::resolve(base, reference);
    assert_eq!(
        Standard::Rfc1808.resolve(base, reference),
        answer,
        "Standard::Rfc1808 and rfc1808::resolve disagree on {base:?} + {reference:?}"
    );
    assert_eq!(rfc1808::parse(&answer).to_string(), answer);
    if rfc1808::scheme_len(&answer).is_some() {
        assert_eq!(
            rfc1808::resolve(base, &answer),
            answer,
            "{base:?} + {reference:?} gives {answer:?}, which does not resolve to itself"
        );
    }
    // The shortcut the rewriter takes for the usual reference agrees.
    if let Some(prefix) = rfc1808::ParsedBase::new(base).prefix(reference) {
        assert_eq!(
            format!("{prefix}{reference}"),
            answer,
            "the prefix shortcut disagrees on {base:?} + {reference:?}"
        );
    }
    let answer = rfc3986::resolve(base, reference);
    assert_eq!(rfc3986::parse(&answer).to_string(), answer);
    if !base.is_empty() {
        assert_eq!(Standard::Rfc3986.resolve(base, reference), answer);
    }
    check_components_read_back(base, reference);
    // §3.4: with the empty base, every reference is taken as it is.
    for standard in [Standard::Rfc1808, Standard::Rfc3986] {
        assert_eq!(standard.resolve("", reference), reference, "{standard:?}");
    }
}

/// Each standard's answer, parsed again, has the components its resolution
/// assembled: no component reads back as another (a path as a net_loc, as
/// `news:comp.lang.misc` + `//` once gave `news://comp.lang.misc`). For an
/// absolute base, as both standards ask of a base (the empty one leaves the
/// reference as it is).
pub fn check_components_read_back(base: &str, reference: &str) {
    if rfc1808::scheme_len(base).is_some() {
        let parsed = rfc1808::ParsedBase::new(base);
        let answer = parsed.resolve(reference);
        match parsed.assemble(reference) {
            Some(assembled) => assert_eq!(
                rfc1808::parse(&answer),
                assembled.components(),
                "RFC 1808: {base:?} + {reference:?} gives {answer:?}, which reads back otherwise"
            ),
            None => assert_eq!(answer, reference, "RFC 1808: {base:?} + {reference:?}"),
        }
    }
    if rfc3986::scheme_len(base).is_some() {
        let target = rfc3986::transform(base, reference);
        let answer = rfc3986::resolve(base, reference);
        assert_eq!(
            rfc3986::parse(&answer),
            target.components(),
            "RFC 3986: {base:?} + {reference:?} gives {answer:?}, which reads back otherwise"
        );
    }
}

// ------------------------------------------------------------------ rewrite

/// One run of the rewriter to check: a document and how it is run.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Case {
    pub html: Vec<u8>,
    /// `--retrieved-from`; `None` for no retrieval layer.
    pub base: Option<String>,
    pub rfc3986: bool,
    pub keep_fragments: bool,
    pub lazy: bool,
    pub social: bool,
    /// Look for `<base href>` in the first [`SMALL_LOOKAHEAD`] bytes only.
    pub small_lookahead: bool,
    /// Cap lol_html's memory at [`SMALL_MEMORY`].
    pub small_memory: bool,
    /// Picks the sizes of the writes of the chunked run.
    pub chunks: u8,
    /// The page is served as XML (`application/xhtml+xml`): its
    /// `<?xml-stylesheet?>`s outside the root element are links.
    pub xml: bool,
}

pub const SMALL_LOOKAHEAD: usize = 64;
/// lol_html preallocates 1 KiB, which must fit under its limit.
pub const SMALL_MEMORY: usize = 2048;

/// A case's run: the run's config (shared by its runs, as a source shares
/// it between documents) and the document's §3 layers.
#[derive(Debug, Clone)]
pub struct Setup {
    pub config: Arc<Config>,
    pub layers: Layers,
    /// The page is served as XML.
    pub xml: bool,
}

const RFC3986: u8 = 1;
const KEEP_FRAGMENTS: u8 = 2;
const LAZY: u8 = 4;
const SOCIAL: u8 = 8;
const BASE: u8 = 16;
const SMALL_LOOKAHEAD_FLAG: u8 = 32;
const SMALL_MEMORY_FLAG: u8 = 64;
const XML: u8 = 128;

impl Case {
    /// A fuzz input for the rewriter: a byte of flags, a byte of chunking,
    /// the length of the base, the base, the document. Every input is a case.
    pub fn from_bytes(data: &[u8]) -> Case {
        let byte = |i: usize| data.get(i).copied().unwrap_or(0);
        let flags = byte(0);
        let base_end = (3 + usize::from(byte(2))).min(data.len());
        let base = (flags & BASE != 0).then(|| {
            let base = String::from_utf8_lossy(data.get(3..base_end).unwrap_or_default());
            // `Layers` refuses a base without a scheme, with a control
            // character, or of a script's scheme (`javascript:`), as the
            // command line does: escape the control characters and put an
            // `http` base in front of what is still refused, keeping the
            // other hostile bytes.
            let base: String = base
                .chars()
                .map(|c| match c {
                    c if c.is_control() && c.is_ascii() => format!("%{:02X}", c as u32),
                    c if c.is_control() => "%C2%80".to_owned(),
                    c => c.to_string(),
                })
                .collect();
            let standard = standard(flags & RFC3986 != 0);
            if Layers::default()
                .with_retrieval(standard, &base, "--retrieved-from")
                .is_ok()
            {
                base
            } else {
                format!("http://h/{base}")
            }
        });
        Case {
            html: data.get(base_end..).unwrap_or_default().to_vec(),
            base,
            rfc3986: flags & RFC3986 != 0,
            keep_fragments: flags & KEEP_FRAGMENTS != 0,
            lazy: flags & LAZY != 0,
            social: flags & SOCIAL != 0,
            small_lookahead: flags & SMALL_LOOKAHEAD_FLAG != 0,
            small_memory: flags & SMALL_MEMORY_FLAG != 0,
            chunks: byte(1),
            xml: flags & XML != 0,
        }
    }

    /// The fuzz input that [`Case::from_bytes`] reads back as this case (a
    /// base must have a scheme and at most 255 bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let flag = |on: bool, bit: u8| if on { bit } else { 0 };
        let base = self.base.as_deref().unwrap_or_default();
        assert!(base.len() <= 255, "a base of {} bytes", base.len());
        let mut out = vec![
            flag(self.rfc3986, RFC3986)
                | flag(self.keep_fragments, KEEP_FRAGMENTS)
                | flag(self.lazy, LAZY)
                | flag(self.social, SOCIAL)
                | flag(self.base.is_some(), BASE)
                | flag(self.small_lookahead, SMALL_LOOKAHEAD_FLAG)
                | flag(self.small_memory, SMALL_MEMORY_FLAG)
                | flag(self.xml, XML),
            self.chunks,
            base.len() as u8,
        ];
        out.extend_from_slice(base.as_bytes());
        out.extend_from_slice(&self.html);
        out
    }

    /// How the case is run: the run's config and the document's layers.
    pub fn config(&self) -> Setup {
        let layers = match &self.base {
            Some(base) => Layers::default()
                .with_retrieval(standard(self.rfc3986), base, "--retrieved-from")
                .expect("`from_bytes` gives a valid base"),
            None => Layers::default(),
        };
        let mut config = Config::default();
        config.standard = standard(self.rfc3986);
        config.keep_fragments = self.keep_fragments;
        if self.small_lookahead {
            config.max_lookahead = SMALL_LOOKAHEAD;
        }
        if self.small_memory {
            config.max_memory = SMALL_MEMORY;
        }
        config.table = Table::new(self.lazy, self.social, Vec::new());
        Setup {
            config: Arc::new(config),
            layers,
            xml: self.xml,
        }
    }

    /// The sizes of the writes of the chunked run: 1 to a maximum that the
    /// case picks, in a sequence it seeds.
    pub fn chunk_sizes(&self) -> impl FnMut() -> usize + use<> {
        let max = [1, 2, 3, 5, 8, 16, 64, 1000][usize::from(self.chunks % 8)];
        let mut x = u64::from(self.chunks).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % max as u64) as usize + 1
        }
    }
}

fn standard(rfc3986: bool) -> Standard {
    if rfc3986 {
        Standard::Rfc3986
    } else {
        Standard::Rfc1808
    }
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Case")
            .field("html", &Show(&self.html))
            .field("base", &self.base)
            .field("rfc3986", &self.rfc3986)
            .field("keep_fragments", &self.keep_fragments)
            .field("lazy", &self.lazy)
            .field("social", &self.social)
            .field("small_lookahead", &self.small_lookahead)
            .field("small_memory", &self.small_memory)
            .field("chunks", &self.chunks)
            .field("xml", &self.xml)
            .finish()
    }
}

/// Bytes as a Rust byte-string literal, to paste into a test.
#[derive(PartialEq, Eq)]
pub struct Show<'a>(pub &'a [u8]);

impl fmt::Debug for Show<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "b\"{}\"", self.0.escape_ascii())
    }
}

/// Whether the rewriter refuses the input as documented: UTF-16 (by its
/// byte order mark) that is not valid UTF-16. There is no output to check
/// then; any other error still fails.
fn refused(setup: &Setup, input: &[u8]) -> bool {
    let mut rewriter = page_rewriter(setup);
    let result = rewriter
        .write(input)
        .and_then(|()| rewriter.end().map(drop));
    match result {
        Err(htmlabs::Error::Encoding(_)) => {
            assert!(
                input.starts_with(b"\xff\xfe") || input.starts_with(b"\xfe\xff"),
                "refused input that is not UTF-16: {:?}",
                Show(input)
            );
            true
        }
        _ => false,
    }
}

/// The page rewriter of `setup`, into a `Vec`.
fn page_rewriter(setup: &Setup) -> Rewriter<Vec<u8>> {
    let rewriter = Rewriter::new(
        htmlabs::Type::Html,
        Arc::clone(&setup.config),
        setup.layers.clone(),
        Vec::new(),
    );
    match setup.xml {
        true => rewriter.served_as_xml(),
        false => rewriter,
    }
}

/// Runs `input` through the library in writes of the sizes `sizes` gives.
pub fn run(setup: &Setup, input: &[u8], mut sizes: impl FnMut() -> usize) -> (Vec<u8>, Report) {
    let mut rewriter = page_rewriter(setup);
    let mut rest = input;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(sizes().clamp(1, rest.len()));
        rewriter
            .write(chunk)
            .unwrap_or_else(|e| panic!("write: {e}"));
        rest = tail;
    }
    let (report, output) = rewriter.end().unwrap_or_else(|e| panic!("end: {e}"));
    (output, report)
}

/// All properties of the rewriter on one case:
///
/// 1. with no base (no retrieval layer and no usable `<base href>`), the
///    output is the input;
/// 2. every byte outside the URL-bearing ranges is the input's, and the
///    output has the same URL attributes, in the same order, with the same
///    names ([`check_outside_values`]): no URL breaks out of its attribute;
/// 3. the output is the same however the input is split into writes;
/// 4. a second run over the output changes nothing.
///
/// 3 and 4 are not asked of a run that stopped at the memory limit: where
/// lol_html reaches it depends on the writes.
pub fn check_rewrite(case: &Case) {
    let config = case.config();
    if refused(&config, &case.html) {
        return;
    }
    let (output, report) = run(&config, &case.html, || usize::MAX);
    if report.base.layer == Layer::Empty {
        assert!(
            output == case.html,
            "no base, yet the output differs from the input:\n  output: {:?}",
            Show(&output)
        );
    }
    if let Err(e) = check_outside_served(&case.html, &output, &config.config.table, case.xml) {
        panic!("{e}\n  output: {:?}", Show(&output));
    }
    if report.incomplete() {
        return;
    }
    let (chunked, chunked_report) = run(&config, &case.html, case.chunk_sizes());
    assert!(
        chunked_report.incomplete() || chunked == output,
        "the output depends on the writes:\n  whole:   {:?}\n  chunked: {:?}",
        Show(&output),
        Show(&chunked)
    );
    let (again, again_report) = run(&config, &output, || usize::MAX);
    // The encoding is read again from the output, and the HTML standard's
    // prescan is by position: a `<meta charset>` in the input's first 1024
    // bytes may be past the output's, its URLs longer (a browser reading
    // the output sniffs it anew the same way). Asked of the rest.
    let same_encoding = again_report.encoding.encoding == report.encoding.encoding;
    assert!(
        again_report.incomplete() || !same_encoding || again == output,
        "a second run changed the output:\n  once:  {:?}\n  twice: {:?}",
        Show(&output),
        Show(&again)
    );
}

/// Property 2: the span lister finds the same URL attributes (and
/// `<style>`/`<noscript>` texts) in `output` as in `input`, in the same
/// order, with the same names, elements and namespaces; and the bytes
/// between their values are the input's. An unquoted value that now needs
/// quotes may have gained them.
pub fn check_outside_values(input: &[u8], output: &[u8], table: &Table) -> Result<(), String> {
    check_outside_served(input, output, table, false)
}

/// [`check_outside_values`] of a page served as XML (`xml`) or as HTML:
/// served as XML, each comment outside the root element is a range that
/// may change (an `<?xml-stylesheet?>`, which HTML reads as a comment),
/// and the output must have the same such comments.
pub fn check_outside_served(
    input: &[u8],
    output: &[u8],
    table: &Table,
    xml: bool,
) -> Result<(), String> {
    let before = spans::list_served(input, table, xml);
    let after = spans::list_served(output, table, xml);
    let shape = |s: &spans::Span| {
        (
            s.name.clone(),
            s.tag.clone(),
            s.namespace,
            s.duplicate,
            s.value.is_some(),
        )
    };
    let (shape_in, shape_out): (Vec<_>, Vec<_>) = (
        before.iter().map(shape).collect(),
        after.iter().map(shape).collect(),
    );
    if shape_in != shape_out {
        return Err(format!(
            "the URL attributes changed:\n  input:  {shape_in:?}\n  output: {shape_out:?}"
        ));
    }
    let (mut previous_in, mut previous_out) = (0, 0);
    for (b, a) in before.iter().zip(&after) {
        let (Some(rb), Some(ra)) = (b.value.clone(), a.value.clone()) else {
            continue;
        };
        let quoted_now = rb.start > 0
            && !matches!(input[rb.start - 1], b'"' | b'\'')
            && ra.start > 0
            && output[ra.start - 1] == b'"'
            && output.get(ra.end) == Some(&b'"');
        let region: Range<usize> = if quoted_now {
            ra.start - 1..ra.end + 1
        } else {
            ra
        };
        if input[previous_in..rb.start] != output[previous_out..region.start] {
            return Err(format!(
                "bytes {previous_in}..{} of the input, before <{} {}>, changed: {:?} became {:?}",
                rb.start,
                b.tag,
                b.name,
                Show(&input[previous_in..rb.start]),
                Show(&output[previous_out..region.start]),
            ));
        }
        previous_in = rb.end;
        previous_out = region.end;
    }
    if input[previous_in..] != output[previous_out..] {
        return Err(format!(
            "the input after byte {previous_in} changed: {:?} became {:?}",
            Show(&input[previous_in..]),
            Show(&output[previous_out..]),
        ));
    }
    Ok(())
}

// --------------------------------------------------------------------- http

/// Runs `input` as a saved response (`--http`) in writes of the sizes
/// `sizes` gives: the output and report, or the error's message.
pub fn run_http(
    setup: &Setup,
    options: htmlabs::http::Options,
    input: &[u8],
    mut sizes: impl FnMut() -> usize,
) -> Result<(Vec<u8>, htmlabs::http::ResponseReport), String> {
    let mut rewriter = htmlabs::http::Response::new(
        Arc::clone(&setup.config),
        setup.layers.clone(),
        options,
        Vec::new(),
    );
    let mut rest = input;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(sizes().clamp(1, rest.len()));
        rewriter.write(chunk).map_err(|e| e.to_string())?;
        rest = tail;
    }
    let (report, output) = rewriter.end().map_err(|e| e.to_string())?;
    Ok((output, report))
}

/// The properties of `--http` on one case, whose document is the whole
/// response (header blocks, then the body); `--content-location` when the
/// chunking byte is odd:
///
/// 1. a run either fails (a bad head: the same error however the input is
///    split) or writes a response;
/// 2. the outcome is the same however the input is split into writes;
/// 3. a body that is not rewritten comes out as it came, blocks and all;
/// 4. a second run over the output changes nothing, when it reads the body
///    in the same encoding (one that nothing declares is detected again).
///
/// 5. no value is rewritten into a link that runs script or holds a page
///    (`javascript:`, `vbscript:`, `livescript:`, `data:`), whatever base a
///    header, a redirect or the page offers: no layer takes such a base.
///
/// 2 and 4 are not asked of a run that stopped rewriting (the memory
/// limit, a coding that breaks): that is where its output is the input's.
pub fn check_http(case: &Case) {
    let config = case.config();
    let options = {
        let mut options = htmlabs::http::Options::default();
        options.content_location = case.chunks % 2 == 1;
        options.strip_headers = false;
        options.kind = None;
        options
    };
    let whole = run_http(&config, options, &case.html, || usize::MAX);
    let chunked = run_http(&config, options, &case.html, case.chunk_sizes());
    let (output, report) = match (&whole, &chunked) {
        (Err(e), Err(c)) => {
            assert_eq!(e, c, "the error depends on the writes");
            return;
        }
        (Ok(w), Ok(c)) => {
            assert!(
                w.1.incomplete() || c.1.incomplete() || w.0 == c.0,
                "the output depends on the writes:\n  whole:   {:?}\n  chunked: {:?}",
                Show(&w.0),
                Show(&c.0)
            );
            w
        }
        _ => panic!(
            "the writes decide whether it fails: whole {:?}, chunked {:?}",
            whole.as_ref().err(),
            chunked.as_ref().err()
        ),
    };
    check_no_script_link(&config, options, &case.html);
    if report.body != htmlabs::http::Body::Rewritten {
        assert!(
            *output == case.html,
            "a body not rewritten ({:?}), yet the output differs:\n  output: {:?}",
            report.body,
            Show(output)
        );
    }
    if report.incomplete() {
        return;
    }
    let (again, again_report) = run_http(&config, options, output, || usize::MAX)
        .unwrap_or_else(|e| panic!("a second run fails: {e}"));
    // As of a page (`check_rewrite`): a body's encoding, when nothing
    // declares it, is detected again in the output, whose rewritten values
    // may tell the detector otherwise (a browser reading the output detects
    // it anew the same way). Asked of the rest.
    let encoding =
        |r: &htmlabs::http::ResponseReport| r.document.as_ref().map(|d| d.encoding.encoding);
    let same_encoding = encoding(&again_report) == encoding(report);
    assert!(
        again_report.incomplete() || !same_encoding || again == *output,
        "a second run changed the output:\n  once:  {:?}\n  twice: {:?}",
        Show(output),
        Show(&again)
    );
}

/// Property 5 of [`check_http`]: every value rewritten resolves against a
/// base of a scheme that runs no script.
fn check_no_script_link(setup: &Setup, options: htmlabs::http::Options, input: &[u8]) {
    let mut rewriter = htmlabs::http::Response::new(
        Arc::clone(&setup.config),
        setup.layers.clone(),
        options,
        Vec::new(),
    )
    .with_links();
    let events = rewriter.events();
    if rewriter.write(input).is_err() || rewriter.end().is_err() {
        return;
    }
    for link in events.take_links().iter() {
        if link.outcome != htmlabs::Outcome::Rewritten {
            continue;
        }
        let absolute = link.absolute.as_deref().unwrap_or_default();
        let scheme = absolute.split(':').next().unwrap_or_default();
        assert!(
            !["javascript", "vbscript", "livescript", "data"]
                .iter()
                .any(|never| scheme.trim().eq_ignore_ascii_case(never)),
            "`{}` was rewritten into `{absolute}` against the base `{}`",
            link.original,
            link.base.url
        );
    }
}

// --------------------------------------------------------------------- warc

/// A reader of `rest` in reads of the sizes `sizes` gives.
struct Reads<'a, F> {
    rest: &'a [u8],
    sizes: F,
}

impl<F: FnMut() -> usize> std::io::Read for Reads<'_, F> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = (self.sizes)()
            .clamp(1, buf.len().max(1))
            .min(self.rest.len());
        let (now, rest) = self.rest.split_at(n);
        buf[..n].copy_from_slice(now);
        self.rest = rest;
        Ok(n)
    }
}

/// One run of `--warc`: what it told and wrote.
pub struct WarcRun {
    pub summary: htmlabs::internal::warc::ArchiveTally,
    /// The warnings told, in order.
    pub warnings: Vec<String>,
    pub output: Vec<u8>,
    /// Where the unit in which the input breaks starts (a malformed
    /// record's gzip member, zstd frame, or in a plain archive the record):
    /// from there on the input is copied as it is.
    pub broke: Option<usize>,
}

/// Runs `input` as a web archive (`--warc`) in reads of the sizes `sizes`
/// gives; the error is why it is not a WARC file, when it is refused as
/// one (any other error fails the check).
pub fn run_warc(
    setup: &Setup,
    options: &htmlabs::internal::warc::Options,
    input: &[u8],
    sizes: impl FnMut() -> usize,
) -> Result<WarcRun, String> {
    use htmlabs::internal::listener::{Document, Listener, SourceWarning};
    use htmlabs::internal::warc::{ArchiveWarning, Error, Place};
    /// The warnings, and where the input breaks.
    #[derive(Default)]
    struct Told(std::sync::Mutex<(Vec<String>, Option<usize>)>);
    impl Listener for Told {
        fn warning(&self, _: &Document<'_>, warning: &SourceWarning<'_>) {
            let mut told = self.0.lock().unwrap();
            if let Some(ArchiveWarning::Malformed { at, .. }) = warning.get::<ArchiveWarning>() {
                let (Place::Byte(start)
                | Place::Member { member: start, .. }
                | Place::Frame { frame: start, .. }) = *at;
                told.1 = Some(start as usize);
            }
            told.0.push(warning.to_string());
        }
    }
    let told = Told::default();
    let reads = Reads { rest: input, sizes };
    let (summary, output) =
        htmlabs::internal::warc::convert(&setup.config, options, reads, Vec::new(), &told)
            .map_err(|e| match e {
                Error::NotWarc(why) => why,
                e => panic!("a run over bytes in memory fails: {e:?}"),
            })?;
    let (warnings, broke) = told.0.into_inner().unwrap();
    Ok(WarcRun {
        summary,
        warnings,
        output,
        broke,
    })
}

/// A plain archive's output with what htmlabs makes up for a new record
/// (its `WARC-Date`, its ID, its warcinfo's) blanked: the rest is what
/// must not depend on the reads. A field's name is matched in any case: a
/// new record keeps the original's spelling (`WARC-RecorD-ID`).
fn made_up_blanked(output: &[u8]) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = output.split(|&b| b == b'\n').collect();
    for line in &mut lines {
        for field in ["WARC-Date: ", "WARC-Record-ID: ", "WARC-Warcinfo-ID: "] {
            if line
                .get(..field.len())
                .is_some_and(|name| name.eq_ignore_ascii_case(field.as_bytes()))
            {
                *line = field.as_bytes();
            }
        }
    }
    lines.join(&b'\n')
}

/// The properties of `--warc` on one case, whose document is the archive
/// (plain, gzip or zstd); replace mode when the chunking byte is odd, two
/// jobs when its second bit is set:
///
/// 1. a run never fails: the input and the output are in memory, and what
///    is wrong with the input is a warning; but an input that does not
///    start like a WARC file is refused, whatever the reads;
/// 2. what it tells (the summary, the warnings in their order) does not
///    depend on how the input is split into reads, nor does a plain
///    archive's output, but for the values made up for new records; not
///    asked of a gzip archive whose records stop at a malformed one: a
///    deflate stream that breaks may give bytes before flate2 notices, and
///    how many of them reach the reader depends on the reads (a known
///    limit: see `fuzz/README.md`);
/// 3. an archive of which nothing is rewritten comes out as it came;
/// 4. in conversion mode, nothing is taken away: the output is at least
///    the input's length;
/// 5. where the input breaks, the unit it breaks in and all after it end
///    the output as they came: nothing new follows broken bytes (a reader
///    would take it for the rest of the broken unit);
/// 6. the archive cut short at each of its last 8 bytes (a gzip member's
///    trailer, a zstd frame's checksum, a record's empty line) and at a
///    place the case picks keeps 1, 3, 4 and 5.
pub fn check_warc(case: &Case) {
    let config = case.config();
    let mut options = htmlabs::internal::warc::Options::default();
    options.mode = if case.chunks % 2 == 1 {
        htmlabs::internal::warc::Mode::Replace
    } else {
        htmlabs::internal::warc::Mode::Conversion
    };
    options.jobs = if case.chunks & 2 != 0 { 2 } else { 1 };
    let input = &case.html;
    let len = input.len();
    let mut cuts: Vec<usize> = (len.saturating_sub(8)..len).collect();
    cuts.push(len * usize::from(case.chunks) / 256);
    for cut in cuts {
        let cut = &input[..cut];
        if let Ok(run) = run_warc(&config, &options, cut, || usize::MAX) {
            check_warc_run(&options, cut, &run);
        }
    }
    let whole = run_warc(&config, &options, input, || usize::MAX);
    let chunked = run_warc(&config, &options, input, case.chunk_sizes());
    let (whole, chunked) = match (whole, chunked) {
        (Ok(whole), Ok(chunked)) => (whole, chunked),
        (whole, chunked) => {
            assert_eq!(
                whole.err(),
                chunked.err(),
                "whether it is refused depends on the reads"
            );
            return;
        }
    };
    check_warc_run(&options, input, &whole);
    // Where a gzip member breaks too: the records before the break do not
    // depend on the reads.
    assert_eq!(
        whole.summary, chunked.summary,
        "the summary depends on the reads"
    );
    assert_eq!(
        whole.warnings, chunked.warnings,
        "the warnings depend on the reads"
    );
    // Nor on the jobs (with more than one, gzip is cut and inflated ahead
    // on the pool).
    let mut other = options.clone();
    other.jobs = 3 - options.jobs;
    if let Ok(other) = run_warc(&config, &other, input, || usize::MAX) {
        assert_eq!(
            (&whole.summary, &whole.warnings),
            (&other.summary, &other.warnings),
            "the summary or the warnings depend on the jobs"
        );
    }
    let gzip = input.starts_with(&[0x1f, 0x8b]);
    // A zstd frame's magic number, or the dictionary frame's (a skippable
    // frame's, 0x184D2A5D).
    let zstd = input.starts_with(&[0x28, 0xb5, 0x2f, 0xfd])
        || input.starts_with(&[0x5d, 0x2a, 0x4d, 0x18]);
    let compressed = gzip || zstd;
    if !compressed {
        assert!(
            made_up_blanked(&whole.output) == made_up_blanked(&chunked.output),
            "the output depends on the reads:\n  whole:   {:?}\n  chunked: {:?}",
            Show(&whole.output),
            Show(&chunked.output)
        );
    }
}

/// Properties 3, 4 and 5 of [`check_warc`] on one run over `input`.
fn check_warc_run(options: &htmlabs::internal::warc::Options, input: &[u8], run: &WarcRun) {
    let WarcRun {
        summary, output, ..
    } = run;
    if summary.rewritten == 0 {
        assert!(
            output == input,
            "nothing rewritten ({summary:?}), yet the output differs:\n  output: {:?}",
            Show(output)
        );
    }
    if options.mode == htmlabs::internal::warc::Mode::Conversion {
        assert!(
            output.len() >= input.len(),
            "conversion mode took bytes away"
        );
    }
    if let Some(start) = run.broke {
        assert!(
            output.ends_with(&input[start..]),
            "the input breaks in the unit at byte {start}, and something new follows it:\n  output: {:?}",
            Show(output)
        );
    }
}

// ---------------------------------------------------------------------- xml

/// Runs `input` through the XML engine in writes of the sizes `sizes` gives:
/// the output and report, or the error's message (UTF-16 that is not
/// valid UTF-16 is refused).
pub fn run_xml(
    setup: &Setup,
    input: &[u8],
    mut sizes: impl FnMut() -> usize,
) -> Result<(Vec<u8>, Report), String> {
    let mut rewriter = htmlabs::Rewriter::new(
        htmlabs::Type::Xml,
        Arc::clone(&setup.config),
        setup.layers.clone(),
        Vec::new(),
    );
    let mut rest = input;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(sizes().clamp(1, rest.len()));
        rewriter.write(chunk).map_err(|e| e.to_string())?;
        rest = tail;
    }
    let (report, output) = rewriter.end().map_err(|e| e.to_string())?;
    Ok((output, report))
}

/// The properties of the XML engine on one case, whose document is any
/// bytes as XML:
///
/// 1. a run either writes the document or refuses it (UTF-16 that is not
///    valid UTF-16, by its byte order mark), the same however the input is
///    split;
/// 2. with no base (no retrieval layer), an input in which nothing can set
///    one (no `base` in any case, for `xml:base` and an HTML `<base>`, and
///    no numeric reference, that could spell one) comes out as it came;
/// 3. every byte outside values is the input's ([`check_xml_outside_values`]);
/// 4. the output and the warnings are the same however the input is split
///    into writes (the memory limit included: where it stops depends on
///    what is held, never on the writes);
/// 5. a second run over the output changes nothing (but for a run that
///    stopped rewriting: the rest was copied as it came).
pub fn check_xml(case: &Case) {
    let config = case.config();
    let whole = run_xml(&config, &case.html, || usize::MAX);
    let chunked = run_xml(&config, &case.html, case.chunk_sizes());
    let (output, report) = match (whole, chunked) {
        (Err(e), Err(c)) => {
            assert_eq!(e, c, "the error depends on the writes");
            assert!(
                case.html.starts_with(b"\xff\xfe")
                    || case.html.starts_with(b"\xfe\xff")
                    || appendix_f(&case.html)
                    || declares_non_ascii(&case.html, &e),
                "refused input that is not UTF-16, is no encoding XML 1.0 Appendix F tells, and declares none whose bytes are not ASCII's: {e}"
            );
            return;
        }
        (Ok(whole), Ok(chunked)) => {
            assert!(
                whole.0 == chunked.0,
                "the output depends on the writes:\n  whole:   {:?}\n  chunked: {:?}",
                Show(&whole.0),
                Show(&chunked.0)
            );
            assert_eq!(
                whole.1.warnings, chunked.1.warnings,
                "the warnings depend on the writes"
            );
            whole
        }
        (whole, chunked) => panic!(
            "the writes decide whether it fails: whole {:?}, chunked {:?}",
            whole.err(),
            chunked.err()
        ),
    };
    let lower = case.html.to_ascii_lowercase();
    let settable = lower.windows(4).any(|w| w == b"base") || lower.windows(2).any(|w| w == b"&#");
    if case.base.is_none() && !settable {
        assert!(
            output == case.html,
            "no base, yet the output differs from the input:\n  output: {:?}",
            Show(&output)
        );
    }
    if let Err(e) = check_xml_outside_values(&case.html, &output) {
        panic!("{e}\n  output: {:?}", Show(&output));
    }
    if report.incomplete() {
        return;
    }
    let (again, _) = run_xml(&config, &output, || usize::MAX)
        .unwrap_or_else(|e| panic!("a second run fails: {e}"));
    assert!(
        again == output,
        "a second run changed the output:\n  once:  {:?}\n  twice: {:?}",
        Show(&output),
        Show(&again)
    );
}

/// Whether a document's first four bytes are an encoding XML 1.0 Appendix
/// F tells without a byte order mark (UTF-16's `<?`, UCS-4's `<`, EBCDIC),
/// or UTF-32's byte order mark: the engine reads UTF-16, refuses the rest.
fn appendix_f(document: &[u8]) -> bool {
    matches!(
        document.get(..4),
        Some(
            [0, 0, 0xFE, 0xFF]
                | [0xFF, 0xFE, 0, 0]
                | [0, 0, 0, b'<']
                | [b'<', 0, 0, 0]
                | [0, 0, b'<', 0]
                | [0, b'<', 0, 0]
                | [0, b'<', 0, b'?']
                | [b'<', 0, b'?', 0]
                | [0x4C, 0x6F, 0xA7, 0x94]
        )
    )
}

/// Whether the refusal `error` names an encoding whose bytes are not
/// ASCII's, which the document's XML declaration (at its start, after a
/// byte order mark) names.
fn declares_non_ascii(document: &[u8], error: &str) -> bool {
    let named = error
        .split('`')
        .nth(1)
        .and_then(|name| encoding_rs::Encoding::for_label(name.as_bytes()));
    let start = document.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(document);
    named.is_some_and(|e| !e.is_ascii_compatible())
        && start.trim_ascii_start().starts_with(b"<?xml")
}

/// One construct of markup of an XML document as quick-xml reads the whole
/// of it (a reader of its own, sharing nothing with the engine): its byte
/// range, its bytes with every attribute value taken out, and whether
/// character data (text, references, CDATA sections) comes before it, after
/// the markup before. Character data is value: it may change, a CDATA
/// section may be split where a new value would hold `]]>`, and a piece of
/// a value (text after a comment inside `<link>`) may be left empty.
#[derive(Debug, PartialEq, Eq)]
struct Construct {
    range: Range<usize>,
    markup: Vec<u8>,
    text_before: bool,
}

/// The constructs of markup of `bytes`, up to the end or the first
/// construct quick-xml cannot read; where that one starts; and whether
/// character data comes after the last.
fn constructs(bytes: &[u8]) -> (Vec<Construct>, usize, bool) {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(bytes);
    let config = reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.allow_dangling_amp = true;
    let mut out: Vec<Construct> = Vec::new();
    let mut text = false;
    loop {
        let start = reader.buffer_position() as usize;
        let event = match reader.read_event() {
            Ok(Event::Eof) => return (out, bytes.len(), text),
            Ok(event) => event,
            // Past a construct it cannot read, quick-xml reads no more.
            Err(_) => return (out, start, text),
        };
        let end = reader.buffer_position() as usize;
        if matches!(
            event,
            Event::Text(_) | Event::CData(_) | Event::GeneralRef(_)
        ) {
            text |= end > start;
            continue;
        }
        // A tag's attributes, and an `<?xml-stylesheet?>`'s
        // pseudo-attributes (its `href` is a value).
        let attributes = match &event {
            Event::Start(tag) | Event::Empty(tag) => Some(tag.attributes()),
            Event::PI(pi) if pi.target() == b"xml-stylesheet" => Some(pi.attributes()),
            _ => None,
        };
        let markup = match attributes {
            Some(mut attributes) => {
                // The construct's bytes without its attribute values.
                let mut markup = Vec::new();
                let mut at = start;
                for attribute in attributes.with_checks(false).flatten() {
                    // A value is a part of the input (one that is not, or
                    // that comes before what was taken, is no value: an
                    // attribute written without one).
                    let value =
                        (attribute.value.as_ptr() as usize).wrapping_sub(bytes.as_ptr() as usize);
                    if value < at || value + attribute.value.len() > end {
                        continue;
                    }
                    markup.extend_from_slice(&bytes[at..value]);
                    at = value + attribute.value.len();
                }
                markup.extend_from_slice(&bytes[at..end]);
                markup
            }
            None => bytes[start..end].to_vec(),
        };
        out.push(Construct {
            range: start..end,
            markup,
            text_before: std::mem::take(&mut text),
        });
    }
}

/// Property 3 of [`check_xml`]: quick-xml, reading the input and the output
/// whole, finds the same constructs of markup in both, in the same order,
/// the same bytes but for attribute values, with character data between
/// them in the output only where the input has some; and where it stops
/// reading the input, the rest of the output is the rest of the input (the
/// engine copies what follows a place it cannot read).
pub fn check_xml_outside_values(input: &[u8], output: &[u8]) -> Result<(), String> {
    // UTF-16, by its byte order mark, is read as the engine reads it:
    // decoded (and the check is of the characters).
    let utf16 = |bytes: &[u8]| {
        let (encoding, bom) = match bytes.get(..4) {
            // Appendix F's `<?` in UTF-16, with no byte order mark.
            Some([b'<', 0, b'?', 0]) => (encoding_rs::UTF_16LE, 0),
            Some([0, b'<', 0, b'?']) => (encoding_rs::UTF_16BE, 0),
            _ => encoding_rs::Encoding::for_bom(bytes)?,
        };
        (encoding != encoding_rs::UTF_8).then(|| {
            encoding
                .decode_without_bom_handling(&bytes[bom..])
                .0
                .into_owned()
                .into_bytes()
        })
    };
    if let (Some(input), Some(output)) = (utf16(input), utf16(output)) {
        return same_constructs(&input, &output);
    }
    // quick-xml skips UTF-8's byte order mark and counts from after it.
    const BOM: &[u8] = b"\xEF\xBB\xBF";
    if let (Some(input), Some(output)) = (input.strip_prefix(BOM), output.strip_prefix(BOM)) {
        return same_constructs(input, output);
    }
    same_constructs(input, output)
}

fn same_constructs(input: &[u8], output: &[u8]) -> Result<(), String> {
    let (before, stop_in, text_in) = constructs(input);
    let (after, stop_out, text_out) = constructs(output);
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        if b.markup != a.markup {
            return Err(format!(
                "construct {i} changed outside its values: {:?} became {:?}",
                Show(&input[b.range.clone()]),
                Show(&output[a.range.clone()])
            ));
        }
        if a.text_before && !b.text_before {
            return Err(format!(
                "character data came from nothing before construct {i}: {:?}",
                Show(&output[a.range.clone()])
            ));
        }
    }
    if text_out && !text_in && before.len() == after.len() {
        return Err("character data came from nothing at the end".to_owned());
    }
    if before.len() != after.len() {
        return Err(format!(
            "{} constructs became {}",
            before.len(),
            after.len()
        ));
    }
    if input[stop_in..] != output[stop_out..] {
        return Err(format!(
            "the input after byte {stop_in}, which quick-xml does not read, changed: {:?} became {:?}",
            Show(&input[stop_in..]),
            Show(&output[stop_out..])
        ));
    }
    Ok(())
}

// --------------------------------------------------------------- stylesheet

/// Runs `input` through the stylesheet engine in writes of the sizes `sizes`
/// gives: the output and report, or the error's message (UTF-16 that is not
/// valid UTF-16 is refused).
pub fn run_stylesheet(
    setup: &Setup,
    input: &[u8],
    mut sizes: impl FnMut() -> usize,
) -> Result<(Vec<u8>, Report), String> {
    let mut rewriter = htmlabs::Rewriter::new(
        htmlabs::Type::Css,
        Arc::clone(&setup.config),
        setup.layers.clone(),
        Vec::new(),
    );
    let mut rest = input;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(sizes().clamp(1, rest.len()));
        rewriter.write(chunk).map_err(|e| e.to_string())?;
        rest = tail;
    }
    let (report, output) = rewriter.end().map_err(|e| e.to_string())?;
    Ok((output, report))
}

/// The properties of the stylesheet engine on one case, whose document is
/// any bytes as a stylesheet:
///
/// 1. a run either writes the stylesheet or refuses it (UTF-16 that is not
///    valid UTF-16, by its byte order mark), the same however the input is
///    split, and the output and the warnings are the same however it is
///    split;
/// 2. with no base (no retrieval layer: nothing in a stylesheet sets one),
///    the output is the input;
/// 3. read by the independent CSS reader of `tests/css_tokens`, the output
///    has the input's tokens, the same text but for URLs (a url token, the
///    string of `url(`, after `@import`, at an option of `image-set(`),
///    which stay of their kind; and a run that rewrote nothing wrote the
///    input;
/// 4. a second run over the output changes nothing (not asked of a run that
///    stopped at the memory limit: the stylesheet went out as it came).
pub fn check_stylesheet(case: &Case) {
    let config = case.config();
    let whole = run_stylesheet(&config, &case.html, || usize::MAX);
    let chunked = run_stylesheet(&config, &case.html, case.chunk_sizes());
    let (output, report) = match (whole, chunked) {
        (Err(e), Err(c)) => {
            assert_eq!(e, c, "the error depends on the writes");
            assert!(
                case.html.starts_with(b"\xff\xfe")
                    || case.html.starts_with(b"\xfe\xff")
                    || appendix_f(&case.html)
                    || declares_non_ascii(&case.html, &e),
                "refused input that is not UTF-16, is no encoding XML 1.0 Appendix F tells, and declares none whose bytes are not ASCII's: {e}"
            );
            return;
        }
        (Ok(whole), Ok(chunked)) => {
            assert!(
                whole.0 == chunked.0,
                "the output depends on the writes:\n  whole:   {:?}\n  chunked: {:?}",
                Show(&whole.0),
                Show(&chunked.0)
            );
            assert_eq!(
                whole.1.warnings, chunked.1.warnings,
                "the warnings depend on the writes"
            );
            whole
        }
        (whole, chunked) => panic!(
            "the writes decide whether it fails: whole {:?}, chunked {:?}",
            whole.err(),
            chunked.err()
        ),
    };
    if case.base.is_none() || report.counts.rewritten == 0 {
        assert!(
            output == case.html,
            "nothing rewritten, yet the output differs from the input:\n  output: {:?}",
            Show(&output)
        );
    }
    if let Err(e) = css_tokens::same_but_urls(&case.html, &output) {
        panic!("{e}\n  output: {:?}", Show(&output));
    }
    if report.incomplete() {
        return;
    }
    let (again, _) = run_stylesheet(&config, &output, || usize::MAX)
        .unwrap_or_else(|e| panic!("a second run fails: {e}"));
    assert!(
        again == output,
        "a second run changed the output:\n  once:  {:?}\n  twice: {:?}",
        Show(&output),
        Show(&again)
    );
}
