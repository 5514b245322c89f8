//! What both ways through a response share: the options and errors, the
//! warnings told as they happen, the document's rewriter, the blocks
//! written as they came, and the report.

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::Encoding;

use crate::document::config::Config;
use crate::document::error::Error as DocumentError;
use crate::document::events::Events;
use crate::document::links::Hear;
use crate::document::links::Link;
use crate::document::memory::Allowance;
use crate::document::report::Report as DocumentReport;
use crate::document::report::Tell;
use crate::source::http::head::{Head, HeadError};
use crate::source::http::media::MediaType;
use crate::source::http::report::{Block, Body, ResponseReport, ResponseWarning};
use crate::source::names;
use crate::source::output::spool::{Held, Spool};
use crate::source::typing::{By, Clue, Decided, decide};
use crate::typed::{Rewriter, Type};
use crate::url::Layers;

/// What a response's run is asked to do, besides its document's [`Config`]
/// (whose retrieval URL is the URL first asked for).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
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
#[non_exhaustive]
pub enum Error {
    #[error(transparent)]
    Head(#[from] HeadError),
    #[error(transparent)]
    Document(#[from] DocumentError),
}

/// The warnings of a run: kept for its report and queued as they happen.
#[derive(Default)]
pub(super) struct ResponseLog {
    pub(super) list: Vec<ResponseWarning>,
    /// The response's events: its warnings, and each URL value of its
    /// document (the link report) when `listening`.
    pub(super) events: Events<ResponseWarning>,
    pub(super) listening: bool,
    /// What the document and the body held for its codings take from: a
    /// share of the run's memory (made of the config's own when none is
    /// given).
    pub(super) allowance: Option<Rc<Allowance>>,
}

/// The response's allowance: the one given, else one of its own, made once.
pub(super) fn allowance(told: &Shared, config: &Config) -> Rc<Allowance> {
    Rc::clone(
        told.borrow_mut()
            .allowance
            .get_or_insert_with(|| config.own_allowance()),
    )
}

/// The document's rewriter, for its type, writing to `writer`: its warnings told and its
/// links heard as the run's are. `shift` is where the body starts in the
/// input (its byte, and the lines before it), when the document's bytes
/// are the body's: its links are then placed in the input. `xml`: the
/// body is a page served as XML ([`Decided::served_as_xml`]).
pub(super) fn document_rewriter<W: Write>(
    (kind, xml): (Type, bool),
    config: &Arc<Config>,
    layers: Layers,
    writer: W,
    told: &Shared,
    shift: Option<(usize, usize)>,
) -> Rewriter<W> {
    let told_here = Rc::clone(told);
    let tell: Tell = Box::new(move |w| warn(&told_here, ResponseWarning::Document(w.clone())));
    let hear = {
        let told = told.borrow();
        told.listening.then(|| {
            let events = told.events.clone();
            Box::new(move |mut link: Link| {
                if let Some((offset, lines)) = shift {
                    link.position.offset += offset;
                    link.position.line += lines;
                }
                events.hear(link);
            }) as Hear
        })
    };
    let rewriter = Rewriter::inside(kind, Arc::clone(config), layers, writer, tell, hear)
        .with_allowance(allowance(told, config));
    match xml {
        true => rewriter.served_as_xml(),
        false => rewriter,
    }
}

/// Where the body after `heads` starts: its byte, and the lines before it.
pub(super) fn body_start(heads: &[Head]) -> (usize, usize) {
    let last = heads.last().expect("a response has a final block");
    let lines = heads
        .iter()
        .map(|h| memchr::memchr_iter(b'\n', h.bytes()).count())
        .sum();
    (last.offset() + last.bytes().len(), lines)
}

pub(super) type Shared = Rc<RefCell<ResponseLog>>;

pub(super) fn warn(told: &Shared, warning: ResponseWarning) {
    let mut told = told.borrow_mut();
    told.events.warn(warning.clone());
    told.list.push(warning);
}

pub(super) fn written(e: io::Error) -> Error {
    Error::Document(DocumentError::Write(e))
}

/// What the body's run gave, for the report.
pub(super) struct Outcome {
    pub(super) body: Body,
    pub(super) notes: Vec<String>,
    pub(super) document: Option<DocumentReport>,
    /// The type the document was read as, when it was.
    pub(super) kind: Option<Type>,
    /// The body rewritten (in its codings, unless the headers are
    /// stripped), still to write after what was written: a spool, so that
    /// a caller that holds it anyway takes it as it is.
    pub(super) rewritten: Option<Spool>,
}

impl Outcome {
    /// Writes what is still to write of it to `out`.
    pub(super) fn finish(&mut self, out: &mut dyn Write) -> Result<(), Error> {
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
pub(super) fn content_length(head: &Head) -> Result<Option<u64>, String> {
    let mut length: Option<(u64, String, usize)> = None;
    for (value, offset) in head.values("Content-Length") {
        let shown = names::shown(value.trim_ascii()).into_owned();
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
pub(super) fn as_it_came(
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
pub(super) fn blocks(heads: &[Head]) -> Vec<Block> {
    heads
        .iter()
        .map(|h| Block {
            offset: h.offset(),
            version: h.version(),
            status: h.status(),
        })
        .collect()
}
pub(super) fn report(
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
/// The body's type: `--type`, else its media type, else its first bytes
/// (in `encoding` where they do not say theirs).
pub(super) fn decided(
    options: &Options,
    media: Option<&MediaType>,
    first: &[u8],
    encoding: Option<&'static Encoding>,
) -> Decided {
    let essence = media.map(|m| m.essence.as_str());
    decide(options.kind, Clue::MediaType(essence), first, encoding)
}

/// A body's type as `--http` decides it, for a caller that read its block
/// itself (the Python module's `rewrite(headers=…)`): `given` (`--type`),
/// else the block's media type, else its first bytes; `None` for a type
/// no engine rewrites (the body is left as it is).
pub fn body_type(
    given: Option<Type>,
    config: &Config,
    media: Option<&MediaType>,
    first: &[u8],
) -> Option<Type> {
    body_decided(given, config, media, first).kind
}

/// [`body_type`], with what decided it (a page served as XML is read as
/// one: [`Decided::served_as_xml`]).
pub fn body_decided(
    given: Option<Type>,
    config: &Config,
    media: Option<&MediaType>,
    first: &[u8],
) -> Decided {
    let essence = media.map(|m| m.essence.as_str());
    let encoding = sniffing_encoding(config, media);
    decide(given, Clue::MediaType(essence), first, encoding)
}

/// The encoding the body's first bytes are read in to tell its type where
/// they do not say theirs: `--encoding`, else its media type's charset.
pub(super) fn sniffing_encoding(
    config: &Config,
    media: Option<&MediaType>,
) -> Option<&'static Encoding> {
    config.encoding.or_else(|| {
        let charset = media?.charset.as_deref()?;
        crate::document::encoding::for_label(charset)
    })
}

/// The `-v` line of the body's type, unless it is HTML by its media type
/// or its first bytes (as it was said before other types were read).
pub(super) fn type_note(decided: &Decided) -> Option<String> {
    let html = decided.kind == Some(Type::Html) && decided.by != By::Given;
    (decided.kind.is_some() && !html).then(|| decided.to_string())
}
