//! One saved response: its header blocks, then its body rewritten as the
//! document its type says (`--type`, its `Content-Type`, its first bytes:
//! [`decide`]) and written back in the coding it came in, the blocks
//! byte for byte (but a `Content-Length` that was true of the input and is
//! no longer).
//!
//! Two ways in, one way through: [`rewrite_parts`] takes a body held
//! whole (in memory or spilled: a WARC record's), and
//! [`ResponseRewriter`] takes a stream in writes of any size. The stream
//! goes straight through the document's rewriter when nothing that comes
//! first depends on what comes after (no coding holds, no
//! `Content-Length`); otherwise its body is held, within `--max-memory`
//! and spilled past it, and goes through [`rewrite_parts`] at its end.

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use super::coding::{self, Broken, Decision, PEEK, Plan, Planned, Starts};
use super::entity::{Entity, entity};
use super::head::{Edit, Head, HeadError, HeadReader, read_heads};
use super::media::MediaType;
use super::report::{Block, Body, ResponseReport, ResponseWarning};
use crate::html::config::Config;
use crate::html::error::Error as DocumentError;
use crate::html::links::Link;
use crate::html::report::Report as DocumentReport;
use crate::source::output::spool::{Held, Spool};
use crate::source::typing::{By, Clue, Decided, FIRST_BYTES, decide};
use crate::typed::{Type, TypedRewriter};
use crate::url::Layers;

/// What a response's run is asked to do, besides its document's [`Config`]
/// (whose retrieval URL is the URL first asked for).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// `Content-Location:` is a base (§3.2), after `Base:` and
    /// `Content-Base:`.
    pub content_location: bool,
    /// Write the body alone: no header blocks, no transfer or content
    /// coding.
    pub strip_headers: bool,
    /// The body's type (`--type`), whatever its `Content-Type` says;
    /// `None` lets it decide.
    pub kind: Option<Type>,
}

/// What stops a response's run. Nothing is written for a bad head.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error(transparent)]
    Head(#[from] HeadError),
    #[error(transparent)]
    Document(#[from] DocumentError),
}

/// What is told of each warning as it happens.
pub type Tell = Box<dyn FnMut(&ResponseWarning)>;

/// The warnings of a run: kept for its report and told as they happen.
#[derive(Default)]
struct Told {
    list: Vec<ResponseWarning>,
    tell: Option<Tell>,
    /// Hears each URL value of the document (the link report), when set.
    hear: Option<Rc<RefCell<Hear>>>,
}

/// What hears each URL value of the document.
pub type Hear = Box<dyn FnMut(&Link)>;

/// The document's rewriter, for its type, writing to `writer`: its warnings told and its
/// links heard as the run's are. `shift` is where the body starts in the
/// input (its byte, and the lines before it), when the document's bytes
/// are the body's: its links are then placed in the input.
fn document_rewriter<W: Write>(
    kind: Type,
    config: &Arc<Config>,
    layers: Layers,
    writer: W,
    told: &Shared,
    shift: Option<(usize, usize)>,
) -> TypedRewriter<W> {
    let told_here = Rc::clone(told);
    let mut rewriter = TypedRewriter::new(kind, Arc::clone(config), layers, writer)
        .on_warning(move |w| warn(&told_here, ResponseWarning::Document(w.clone())));
    if let Some(hear) = told.borrow().hear.clone() {
        rewriter = rewriter.on_link(move |link| match shift {
            Some((offset, lines)) => {
                let mut link = link.clone();
                link.position.offset += offset;
                link.position.line += lines;
                (hear.borrow_mut())(&link)
            }
            None => (hear.borrow_mut())(link),
        });
    }
    rewriter
}

/// Where the body after `heads` starts: its byte, and the lines before it.
fn body_start(heads: &[Head]) -> (usize, usize) {
    let last = heads.last().expect("a response has a final block");
    let lines = heads
        .iter()
        .map(|h| memchr::memchr_iter(b'\n', h.bytes()).count())
        .sum();
    (last.offset() + last.bytes().len(), lines)
}

type Shared = Rc<RefCell<Told>>;

fn warn(told: &Shared, warning: ResponseWarning) {
    let mut told = told.borrow_mut();
    if let Some(tell) = &mut told.tell {
        tell(&warning);
    }
    told.list.push(warning);
}

fn written(e: io::Error) -> Error {
    Error::Document(DocumentError::Write(e))
}

/// What the body's run gave, for the report.
struct Outcome {
    body: Body,
    notes: Vec<String>,
    document: Option<DocumentReport>,
    /// The type the document was read as, when it was.
    kind: Option<Type>,
    /// The body rewritten (in its codings, unless the headers are
    /// stripped), still to write after what was written: a spool, so that
    /// a caller that holds it anyway takes it as it is.
    rewritten: Option<Spool>,
}

impl Outcome {
    /// Writes what is still to write of it to `out`.
    fn finish(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        match self.rewritten.take() {
            Some(mut spool) => spool.copy_to(out).map(drop).map_err(written),
            None => Ok(()),
        }
    }
}

/// The `Content-Length` a block claims: every field of it (and every item
/// of a list in one) the same number; `Err` says why it claims none that a
/// rewrite could correct: fields that differ, or one that is no length,
/// which make the response's framing invalid (RFC 9112 §6.3, 5: "If a
/// message is received without Transfer-Encoding and with an invalid
/// Content-Length header field, then the message framing is invalid").
fn content_length(head: &Head) -> Result<Option<u64>, String> {
    let mut length: Option<(u64, String, usize)> = None;
    for (value, offset) in head.values("Content-Length") {
        let shown = String::from_utf8_lossy(&value).trim().to_owned();
        for item in value.split(|&b| b == b',') {
            let n: u64 = std::str::from_utf8(item.trim_ascii())
                .ok()
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| {
                    format!("`Content-Length: {shown}` at byte {offset} is no length")
                })?;
            match &length {
                Some((l, _, at)) if *l != n && *at == offset => {
                    return Err(format!(
                        "`Content-Length: {shown}` at byte {offset} holds lengths that differ"
                    ));
                }
                Some((l, first, at)) if *l != n => {
                    return Err(format!(
                        "`Content-Length: {first}` at byte {at} and `Content-Length: {shown}` at byte {offset} differ"
                    ));
                }
                Some(_) => {}
                None => length = Some((n, shown.clone(), offset)),
            }
        }
    }
    Ok(length.map(|(n, _, _)| n))
}

/// Writes the blocks as they came, and the body as it came: what a
/// response becomes when its body is not rewritten.
fn as_it_came(
    heads: &[Head],
    body: &mut dyn Held,
    options: &Options,
    out: &mut dyn Write,
) -> Result<(), Error> {
    if !options.strip_headers {
        for head in heads {
            out.write_all(head.bytes()).map_err(written)?;
        }
    }
    io::copy(&mut body.open().map_err(written)?, out).map_err(written)?;
    Ok(())
}

/// Where a break is, in the user's terms: a byte of the input when no
/// layer outside it was decoded.
fn place(plan: &Plan, broken: &Broken, body_offset: usize) -> String {
    let outer = plan.layers[..broken.layer]
        .iter()
        .rev()
        .find(|l| matches!(l.decision, Decision::Decode(_)));
    match outer {
        None => format!("byte {}", body_offset as u64 + broken.at),
        Some(outer) => format!(
            "byte {} of the body once its `{}` is decoded",
            broken.at, outer.claim
        ),
    }
}

/// The `-v` line of a layer.
fn coding_note(layer: &coding::Layer) -> String {
    match &layer.decision {
        Decision::Decode(_) => format!("coding: `{}`: decoded, and encoded again", layer.claim),
        Decision::AsDecoded(why) => format!(
            "coding: `{}`: {why} at the body's first byte: taken as already decoded",
            layer.claim
        ),
    }
}

/// Rewrites the body of a response whose blocks are `heads` and whose body,
/// held whole, is `body`, into `out`; the warnings go to `told`. A body
/// that breaks its coding is written as it came, with a warning.
#[allow(clippy::too_many_arguments)]
fn respond(
    heads: &[Head],
    entity: &Entity,
    body: &mut dyn Held,
    body_offset: usize,
    config: &Arc<Config>,
    options: &Options,
    out: &mut dyn Write,
    told: &Shared,
) -> Result<Outcome, Error> {
    let mut notes = Vec::new();
    let (plan, broken) = match decoded(heads, entity, body, config, options, out, told, &mut notes)
    {
        Ok(outcome) => return Ok(outcome),
        Err(Stop::Failed(e)) => return Err(e),
        Err(Stop::Broke(plan, broken)) => (plan, broken),
    };
    warn(
        told,
        ResponseWarning::Broken {
            claim: plan.layers[broken.layer].claim.to_string(),
            at: place(&plan, &broken, body_offset),
            why: broken.why.clone(),
        },
    );
    as_it_came(heads, body, options, out)?;
    Ok(Outcome {
        body: Body::AsItCame,
        notes,
        document: None,
        kind: None,
        rewritten: None,
    })
}

/// What stops [`decoded`]: a body that breaks its coding (where, and in
/// which plan), or an error.
enum Stop {
    Broke(Plan, Broken),
    Failed(Error),
}

impl From<Error> for Stop {
    fn from(e: Error) -> Self {
        Stop::Failed(e)
    }
}

impl Stop {
    /// A read of the decoded body failed: a break, or the input's error.
    fn reading(plan: &Plan, e: &io::Error) -> Option<Stop> {
        Broken::of(e).map(|b| Stop::Broke(plan.clone(), b.clone()))
    }
}

/// [`respond`]'s way through the body's codings; nothing is written to
/// `out` before the body is known to decode.
#[allow(clippy::too_many_arguments)]
fn decoded(
    heads: &[Head],
    entity: &Entity,
    body: &mut dyn Held,
    config: &Arc<Config>,
    options: &Options,
    out: &mut dyn Write,
    told: &Shared,
    notes: &mut Vec<String>,
) -> Result<Outcome, Stop> {
    let last = heads.last().expect("a response has a final block");
    let plan = match coding::plan(&coding::claims(last), body).map_err(written)? {
        Planned::Plan(plan) => plan,
        Planned::Undecodable(claim) => {
            warn(
                told,
                ResponseWarning::Undecodable {
                    claim: claim.to_string(),
                },
            );
            as_it_came(heads, body, options, out)?;
            return Ok(Outcome {
                body: Body::AsItCame,
                notes: std::mem::take(notes),
                document: None,
                kind: None,
                rewritten: None,
            });
        }
        Planned::Broken(plan, broken) => {
            notes.extend(plan.layers.iter().map(coding_note));
            return Err(Stop::Broke(plan, broken));
        }
    };
    notes.extend(plan.layers.iter().map(coding_note));
    notes.extend(entity.notes.iter().cloned());

    // What the body is: `--type`, else its media type, or its first
    // bytes (decoded).
    let mut first = Vec::new();
    if options.kind.is_none() {
        let read = coding::decoder(&plan, body)
            .map_err(written)?
            .take(FIRST_BYTES as u64)
            .read_to_end(&mut first);
        if let Err(e) = read {
            return Err(Stop::reading(&plan, &e).unwrap_or(Stop::Failed(written(e))));
        }
    }
    let decided = decided(options, entity.media.as_ref(), &first);
    if entity.media.is_none() && decided.kind == Some(Type::Html) && decided.by != By::Given {
        notes.push("content type: none, and the body starts like HTML".to_owned());
    }
    notes.extend(type_note(&decided));
    let limit = config.max_memory / 2;
    let Some(kind) = decided.kind else {
        let not_read = Body::NotRead(entity.media.as_ref().map(|m| m.essence.clone()));
        if options.strip_headers
            && plan
                .layers
                .iter()
                .any(|l| matches!(l.decision, Decision::Decode(_)))
        {
            // The body alone, decoded: held, so that a break leaves it whole.
            let mut decoded = Spool::new(limit);
            let copied = io::copy(
                &mut coding::decoder(&plan, body).map_err(written)?,
                &mut decoded,
            );
            if let Err(e) = copied {
                return Err(Stop::reading(&plan, &e).unwrap_or(Stop::Failed(written(e))));
            }
            decoded.copy_to(out).map_err(written)?;
        } else {
            as_it_came(heads, body, options, out)?;
        }
        return Ok(Outcome {
            body: not_read,
            notes: std::mem::take(notes),
            document: None,
            kind: None,
            rewritten: None,
        });
    };

    // Length fields that no rewrite can make true: the body as it came.
    if !options.strip_headers {
        if let Err(why) = content_length(last) {
            warn(told, ResponseWarning::Framing { why });
            as_it_came(heads, body, options, out)?;
            return Ok(Outcome {
                body: Body::AsItCame,
                notes: std::mem::take(notes),
                document: None,
                kind: None,
                rewritten: None,
            });
        }
    }

    // The rewrite, into the body's codings (none with --strip-headers).
    let mut encoded = Spool::new(limit);
    let document = {
        let none = Plan::default();
        let writing = if options.strip_headers { &none } else { &plan };
        let writer = coding::encoder(writing, &mut encoded);
        // A decoded body's links are placed in the decoded body.
        let as_it_came = plan
            .layers
            .iter()
            .all(|l| matches!(l.decision, Decision::AsDecoded(_)));
        let shift = as_it_came.then(|| body_start(heads));
        let mut rewriter =
            document_rewriter(kind, config, entity.layers.clone(), writer, told, shift);
        let decoded = coding::decoder(&plan, body).map_err(written)?;
        if let Err(e) = rewriter.read_from(decoded) {
            return Err(match &e {
                DocumentError::Read(io) => Stop::reading(&plan, io),
                _ => None,
            }
            .unwrap_or(Stop::Failed(e.into())));
        }
        let (report, writer) = rewriter.end().map_err(Error::from)?;
        writer.finish().map_err(written)?;
        report
    };
    if document.counts.rewritten == 0 && !options.strip_headers {
        as_it_came(heads, body, options, out)?;
        if let Ok(Some(length)) = content_length(last) {
            notes.push(format!("content length: {length}, left as it is"));
        }
        return Ok(Outcome {
            body: Body::Unchanged,
            notes: std::mem::take(notes),
            document: Some(document),
            kind: Some(kind),
            rewritten: None,
        });
    }
    if !options.strip_headers {
        let (before, _) = heads.split_at(heads.len() - 1);
        for head in before {
            out.write_all(head.bytes()).map_err(written)?;
        }
        match content_length(last) {
            Ok(Some(length)) if length == body.len() => {
                let new = encoded.len().to_string();
                notes.push(format!(
                    "content length: {length} was true of the body: now {new}"
                ));
                let edited = last.edited(
                    |name, _| {
                        if name.eq_ignore_ascii_case(b"Content-Length") {
                            Edit::Value(new.clone().into_bytes())
                        } else {
                            Edit::Keep
                        }
                    },
                    &[],
                );
                out.write_all(&edited).map_err(written)?;
            }
            Ok(Some(length)) => {
                notes.push(format!(
                    "content length: {length} was not true of the body ({} bytes): left as it is",
                    body.len()
                ));
                out.write_all(last.bytes()).map_err(written)?;
            }
            Ok(None) | Err(_) => out.write_all(last.bytes()).map_err(written)?,
        }
    }
    Ok(Outcome {
        body: Body::Rewritten,
        notes: std::mem::take(notes),
        document: Some(document),
        kind: Some(kind),
        rewritten: Some(encoded),
    })
}

fn blocks(heads: &[Head]) -> Vec<Block> {
    heads
        .iter()
        .map(|h| Block {
            offset: h.offset(),
            version: h.version(),
            status: h.status(),
        })
        .collect()
}

/// Rewrites a response whose blocks are read (`heads`) and whose body is
/// held whole (`body`, which starts at `body_offset` of the input), into
/// `out`, telling each warning to `tell` as it happens and letting `hear`
/// hear each URL value: what a source that holds its responses calls (a
/// WARC record in memory or spilled).
#[allow(clippy::too_many_arguments)]
pub fn rewrite_parts(
    config: &Arc<Config>,
    given: &Layers,
    options: &Options,
    heads: &[Head],
    body: &mut dyn Held,
    body_offset: usize,
    out: &mut dyn Write,
    tell: Option<Tell>,
    hear: Option<Hear>,
) -> Result<ResponseReport, Error> {
    let told: Shared = Rc::new(RefCell::new(Told {
        list: Vec::new(),
        tell,
        hear: hear.map(|hear| Rc::new(RefCell::new(hear))),
    }));
    let entity = entity(heads, given, config.standard, options.content_location);
    for w in entity.warnings.iter().cloned() {
        warn(&told, w);
    }
    let mut outcome = respond(
        heads,
        &entity,
        body,
        body_offset,
        config,
        options,
        out,
        &told,
    )?;
    outcome.finish(out)?;
    Ok(report(heads, body_offset, body.len(), outcome, &told))
}

/// [`rewrite_parts`] with the headers stripped, for a caller that holds
/// the body it rewrote: the rewritten body comes back as the spool it was
/// written to (in memory up to half `--max-memory`, in a temporary file
/// past it), not copied to `out`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rewrite_parts_held(
    config: &Arc<Config>,
    given: &Layers,
    options: &Options,
    heads: &[Head],
    body: &mut dyn Held,
    body_offset: usize,
    out: &mut dyn Write,
    hear: Option<Hear>,
) -> Result<(ResponseReport, Option<Spool>), Error> {
    debug_assert!(options.strip_headers, "only the body is written");
    let told: Shared = Rc::new(RefCell::new(Told {
        list: Vec::new(),
        tell: None,
        hear: hear.map(|hear| Rc::new(RefCell::new(hear))),
    }));
    let entity = entity(heads, given, config.standard, options.content_location);
    for w in entity.warnings.iter().cloned() {
        warn(&told, w);
    }
    let mut outcome = respond(
        heads,
        &entity,
        body,
        body_offset,
        config,
        options,
        out,
        &told,
    )?;
    let rewritten = outcome.rewritten.take();
    Ok((
        report(heads, body_offset, body.len(), outcome, &told),
        rewritten,
    ))
}

fn report(
    heads: &[Head],
    body_offset: usize,
    body_len: u64,
    outcome: Outcome,
    told: &Shared,
) -> ResponseReport {
    ResponseReport {
        blocks: blocks(heads),
        body_offset,
        body_len,
        body: outcome.body,
        notes: outcome.notes,
        document: outcome.document,
        kind: outcome.kind,
        warnings: std::mem::take(&mut told.borrow_mut().list),
    }
}

/// Rewrites a response held in memory: its blocks, then its body; gives
/// back the new bytes and the report.
///
/// ```
/// use std::sync::Arc;
/// use htmlabs::source::http::{Options, rewrite_response_bytes};
/// use htmlabs::{Config, Layers, Standard};
///
/// let response = b"HTTP/1.1 301 Moved\r\nLocation: /docs/\r\n\r\n\
///     HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 19\r\n\r\n\
///     <a href=guide.html>";
/// let layers = Layers::default().with_retrieval(Standard::Rfc1808, "http://example.com/", "-r")?;
/// let config = Arc::new(Config::default());
/// let (out, report) = rewrite_response_bytes(&config, &layers, &Options::default(), response)?;
/// assert!(out.ends_with(
///     b"Content-Length: 43\r\n\r\n<a href=http://example.com/docs/guide.html>"
/// ));
/// assert_eq!(report.blocks.len(), 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn rewrite_response_bytes(
    config: &Arc<Config>,
    given: &Layers,
    options: &Options,
    input: &[u8],
) -> Result<(Vec<u8>, ResponseReport), Error> {
    let (heads, body_offset) = read_heads(input)?;
    let mut out = Vec::with_capacity(input.len() + input.len() / 8);
    let mut body = &input[body_offset..];
    let report = rewrite_parts(
        config,
        given,
        options,
        &heads,
        &mut body,
        body_offset,
        &mut out,
        None,
        None,
    )?;
    Ok((out, report))
}

/// Rewrites the response `input` gives into `output`, reading 64 KiB at a
/// time.
pub fn rewrite_response(
    config: impl Into<Arc<Config>>,
    given: Layers,
    options: Options,
    input: impl Read,
    output: impl Write,
) -> Result<ResponseReport, Error> {
    let mut rewriter = ResponseRewriter::new(config, given, options, output);
    rewriter.read_from(input)?;
    rewriter.end().map(|(report, _)| report)
}

/// How a streamed body goes.
enum State<W: Write> {
    /// Reading the header blocks.
    Heads { reader: HeadReader, output: W },
    /// Holding the body's first bytes, on which its claims are checked.
    First { held: Vec<u8>, output: W },
    /// No coding holds, and nothing in the blocks depends on the body:
    /// straight through the document's rewriter.
    Stream(Box<TypedRewriter<W>>),
    /// No document htmlabs reads, and nothing to decode: copied.
    Copy(W),
    /// Held to the end.
    Hold { body: Spool, output: W },
    /// A write failed: nothing more can be done.
    Failed,
}

/// The response so far: its blocks and what they say.
struct Known {
    heads: Vec<Head>,
    entity: Entity,
    body_offset: usize,
}

/// A streaming rewriter of a response that writes to `W`: give it the
/// input in writes of any size, then [`end`](ResponseRewriter::end) it.
pub struct ResponseRewriter<W: Write> {
    state: State<W>,
    config: Arc<Config>,
    /// The layers the user gave (`--retrieved-from`), below the entity's.
    given: Layers,
    options: Options,
    told: Shared,
    known: Option<Known>,
    body_len: u64,
    notes: Vec<String>,
}

impl<W: Write> ResponseRewriter<W> {
    /// A response read by the run's `config`, with the layers the user
    /// `given` below what its header blocks say, written to `output`.
    pub fn new(config: impl Into<Arc<Config>>, given: Layers, options: Options, output: W) -> Self {
        ResponseRewriter {
            state: State::Heads {
                reader: HeadReader::new(),
                output,
            },
            config: config.into(),
            given,
            options,
            told: Rc::default(),
            known: None,
            body_len: 0,
            notes: Vec::new(),
        }
    }

    /// Tells each warning to `tell` as it happens; the report still lists
    /// them all.
    pub fn on_warning(self, tell: impl FnMut(&ResponseWarning) + 'static) -> Self {
        self.told.borrow_mut().tell = Some(Box::new(tell));
        self
    }

    /// Lets `hear` hear each URL value of the document as it is resolved
    /// (the link report), as [`TypedRewriter::on_link`] does. A body that breaks
    /// its coding halfway is written as it came, yet its values before the
    /// break were heard.
    pub fn on_link(self, hear: impl FnMut(&Link) + 'static) -> Self {
        self.told.borrow_mut().hear = Some(Rc::new(RefCell::new(Box::new(hear))));
        self
    }

    /// Rewrites all that `input` gives, 64 KiB at a time.
    pub fn read_from(&mut self, mut input: impl Read) -> Result<(), Error> {
        let mut buf = vec![0; 64 * 1024];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.state = State::Failed;
                    return Err(DocumentError::Read(e).into());
                }
            };
            self.write(&buf[..n])?;
        }
    }

    /// Reads the next bytes of the input, however it is split.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let result = self.write_inner(chunk);
        if result.is_err() {
            self.state = State::Failed;
        }
        result
    }

    fn write_inner(&mut self, chunk: &[u8]) -> Result<(), Error> {
        if let State::Heads { reader, .. } = &mut self.state {
            match reader.write(chunk)? {
                super::head::Read::More => return Ok(()),
                super::head::Read::Body { held, rest } => {
                    self.heads_over()?;
                    self.body(&held, false)?;
                    return self.body(&chunk[rest..], false);
                }
            }
        }
        self.body(chunk, false)
    }

    /// The blocks are read: what they say decides how the body goes.
    fn heads_over(&mut self) -> Result<(), Error> {
        let State::Heads { reader, output } = std::mem::replace(&mut self.state, State::Failed)
        else {
            unreachable!("called at the end of the heads")
        };
        let heads = reader.into_heads();
        let body_offset = heads.last().map_or(0, |h| h.offset() + h.bytes().len());
        let entity = entity(
            &heads,
            &self.given,
            self.config.standard,
            self.options.content_location,
        );
        for w in entity.warnings.iter().cloned() {
            warn(&self.told, w);
        }
        self.known = Some(Known {
            heads,
            entity,
            body_offset,
        });
        self.state = State::First {
            held: Vec::new(),
            output,
        };
        Ok(())
    }

    /// The next bytes of the body (`end`: there are no more).
    fn body(&mut self, bytes: &[u8], end: bool) -> Result<(), Error> {
        self.body_len += bytes.len() as u64;
        if let State::First { held, .. } = &mut self.state {
            held.extend_from_slice(bytes);
            if held.len() < PEEK && !end {
                return Ok(());
            }
            let State::First { held, output } = std::mem::replace(&mut self.state, State::Failed)
            else {
                unreachable!("matched above")
            };
            self.state = self.start_body(&held, output)?;
            self.body_len -= held.len() as u64;
            return self.body(&held, end);
        }
        match &mut self.state {
            State::Stream(rewriter) => rewriter.write(bytes)?,
            State::Copy(output) => output.write_all(bytes).map_err(written)?,
            State::Hold { body, .. } => body.write_all(bytes).map_err(written)?,
            State::Heads { .. } | State::First { .. } | State::Failed => {
                return Err(DocumentError::failed_before().into());
            }
        }
        Ok(())
    }

    /// The first bytes are in (`first`, all of them if fewer than
    /// [`PEEK`]): how the body goes.
    fn start_body(&mut self, first: &[u8], mut output: W) -> Result<State<W>, Error> {
        let known = self.known.as_ref().expect("the heads are read");
        let last = known.heads.last().expect("a response has a final block");
        let (way, decided) = streams(
            &known.heads,
            known.entity.media.as_ref(),
            &self.options,
            first,
        );
        if way == Way::Hold {
            return Ok(State::Hold {
                body: Spool::new(self.config.max_memory / 2),
                output,
            });
        }
        // Every claim was taken as already decoded.
        for claim in coding::claims(last).into_iter().rev() {
            let Starts::No(why) = coding::starts_as(claim.coding, first) else {
                unreachable!("no claim holds")
            };
            let layer = coding::Layer {
                claim,
                decision: Decision::AsDecoded(why.to_owned()),
            };
            self.notes.push(coding_note(&layer));
        }
        self.notes.extend(known.entity.notes.iter().cloned());
        self.notes.extend(decided.as_ref().and_then(type_note));
        if !self.options.strip_headers {
            for head in &known.heads {
                output.write_all(head.bytes()).map_err(written)?;
            }
        }
        Ok(match way {
            Way::Copy => State::Copy(output),
            Way::Hold => unreachable!("held above"),
            Way::Stream(kind) => {
                let shift = Some(body_start(&known.heads));
                State::Stream(Box::new(document_rewriter(
                    kind,
                    &self.config,
                    known.entity.layers.clone(),
                    output,
                    &self.told,
                    shift,
                )))
            }
        })
    }

    /// Ends the input: gives back the report and the output.
    pub fn end(mut self) -> Result<(ResponseReport, W), Error> {
        if let State::Heads { reader, .. } = &mut self.state {
            let held = reader.end()?;
            self.heads_over()?;
            self.body(&held, true)?;
        } else if matches!(self.state, State::First { .. }) {
            self.body(&[], true)?;
        }
        let known = self.known.take().expect("the heads are read");
        let told = Rc::clone(&self.told);
        let (outcome, output) = match std::mem::replace(&mut self.state, State::Failed) {
            State::Stream(rewriter) => {
                let kind = rewriter.kind();
                let (document, output) = rewriter.end()?;
                let body = if document.counts.rewritten == 0 {
                    Body::Unchanged
                } else {
                    Body::Rewritten
                };
                let outcome = Outcome {
                    body,
                    notes: std::mem::take(&mut self.notes),
                    document: Some(document),
                    kind: Some(kind),
                    rewritten: None,
                };
                (outcome, output)
            }
            State::Copy(mut output) => {
                output.flush().map_err(written)?;
                let essence = known
                    .entity
                    .media
                    .as_ref()
                    .map(|m: &MediaType| m.essence.clone());
                let outcome = Outcome {
                    body: Body::NotRead(essence),
                    notes: std::mem::take(&mut self.notes),
                    document: None,
                    kind: None,
                    rewritten: None,
                };
                (outcome, output)
            }
            State::Hold {
                mut body,
                mut output,
            } => {
                let mut outcome = respond(
                    &known.heads,
                    &known.entity,
                    &mut body,
                    known.body_offset,
                    &self.config,
                    &self.options,
                    &mut output,
                    &told,
                )?;
                outcome.finish(&mut output)?;
                output.flush().map_err(written)?;
                (outcome, output)
            }
            State::Heads { .. } | State::First { .. } | State::Failed => {
                return Err(DocumentError::failed_before().into());
            }
        };
        let report = report(
            &known.heads,
            known.body_offset,
            self.body_len,
            outcome,
            &told,
        );
        Ok((report, output))
    }
}

/// How a streamed body goes, from its blocks and its first bytes: held
/// when a coding may hold, when a `Content-Length` may need correcting, or
/// when its type must be sniffed; else straight through, or copied. The
/// type, when its first bytes decided it.
fn streams(
    heads: &[Head],
    media: Option<&MediaType>,
    options: &Options,
    first: &[u8],
) -> (Way, Option<Decided>) {
    let last = heads.last().expect("a response has a final block");
    let identity = coding::claims(last)
        .iter()
        .all(|c| matches!(coding::starts_as(c.coding, first), Starts::No(_)));
    // Without a type, the body is sniffed held whole, as a coded one is.
    if !identity || media.is_none() && options.kind.is_none() {
        return (Way::Hold, None);
    }
    let decided = decided(options, media, first);
    let way = match decided.kind {
        Some(kind) if options.strip_headers || content_length(last) == Ok(None) => {
            Way::Stream(kind)
        }
        Some(_) => Way::Hold,
        None => Way::Copy,
    };
    (way, Some(decided))
}

/// The body's type: `--type`, else its media type, else its first bytes.
fn decided(options: &Options, media: Option<&MediaType>, first: &[u8]) -> Decided {
    let essence = media.map(|m| m.essence.as_str());
    decide(options.kind, Clue::MediaType(essence), first)
}

/// The `-v` line of the body's type, unless it is HTML by its media type
/// or its first bytes (as it was said before other types were read).
fn type_note(decided: &Decided) -> Option<String> {
    let html = decided.kind == Some(Type::Html) && decided.by != By::Given;
    (decided.kind.is_some() && !html).then(|| decided.to_string())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    Stream(Type),
    Copy,
    Hold,
}
