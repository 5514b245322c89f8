//! What a response's run did, on top of its document's [`ResponseReport`](crate::Report): the
//! header blocks, the codings, the body's fate; and the warnings of the
//! HTTP layer. The `Display` impls are the exact lines users read.

use std::fmt;

use crate::source::warned::Warned;

use super::head::Version;
use crate::document::report::{Report as DocumentReport, Warning as DocumentWarning};
use crate::source::names;
use crate::source::summary::plural;
use crate::typed::Type;

/// Something the user should know about a response, printed to standard
/// error as it happens.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ResponseWarning {
    /// The document's own (the engine's), unchanged.
    Document(DocumentWarning),
    /// An input read as HTML (no `--http`) starts like a saved response.
    LooksLikeResponse {
        /// Its first bytes (`HTTP/1.`), shown as every value from the
        /// input is.
        start: String,
    },
    /// An input read as HTML (no `--warc`) starts like a web archive.
    LooksLikeArchive {
        /// Its version line, and whether in gzip: `` `WARC/1.1`, in gzip ``.
        start: String,
    },
    /// A base field (`Base:`, `Content-Base:`, `Content-Location:`) that is
    /// not a URL: ignored, never guessed at.
    NotAUrl {
        field: &'static str,
        /// As it came, trimmed.
        value: Vec<u8>,
        offset: usize,
        why: String,
    },
    /// A redirect whose `Location:` cannot be followed: the retrieval URL
    /// is not known after it.
    Location {
        status: u16,
        /// As it came, trimmed.
        value: Vec<u8>,
        offset: usize,
        why: String,
    },
    /// A body that starts as its coding claims and then breaks: it is
    /// written as it came, and the run fails.
    Broken {
        /// `Content-Encoding: gzip`
        claim: String,
        /// Where, said as a place: `byte 812`, `byte 40 of the body once
        /// dechunked`.
        at: String,
        why: String,
    },
    /// A coding htmlabs does not decode, which the body holds (`zstd`, by
    /// its magic number) or may hold (a name it does not know): the body is
    /// written as it came, and the run fails.
    Undecodable { claim: String },
    /// A coding whose window (brotli's, as the body declares it: up to
    /// 16 MiB) would take more memory than the response's share of
    /// `--max-memory` leaves (`limit`): the body is written as it came, and
    /// the run fails.
    CodingTooLarge { claim: String, limit: usize },
    /// `Content-Length` fields that differ, or one that is no length: no
    /// rewrite could make them true, so the body is written as it came, and
    /// the run fails.
    Framing { why: String },
}

impl ResponseWarning {
    /// How many warnings it counts for in a summary.
    pub fn stands_for(&self) -> usize {
        match self {
            ResponseWarning::Document(w) => w.stands_for(),
            _ => 1,
        }
    }

    /// Whether the run failed to rewrite what it was given (exit status 2,
    /// the output complete): the memory limit, a broken or unknown coding.
    pub fn stops_rewriting(&self) -> bool {
        match self {
            ResponseWarning::Document(w) => w.stops_rewriting(),
            ResponseWarning::Broken { .. }
            | ResponseWarning::Undecodable { .. }
            | ResponseWarning::CodingTooLarge { .. }
            | ResponseWarning::Framing { .. } => true,
            ResponseWarning::NotAUrl { .. }
            | ResponseWarning::Location { .. }
            | ResponseWarning::LooksLikeResponse { .. }
            | ResponseWarning::LooksLikeArchive { .. } => false,
        }
    }
}

/// The one page's, or its response's (`--http`).
impl Warned for ResponseWarning {
    fn stops_rewriting(&self) -> bool {
        ResponseWarning::stops_rewriting(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl fmt::Display for ResponseWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ResponseWarning::Document(w) => w.fmt(f),
            ResponseWarning::LooksLikeResponse { start } => write!(
                f,
                "the input starts like a saved HTTP response (`{start}`), and is read as HTML: --http reads its header blocks"
            ),
            ResponseWarning::LooksLikeArchive { start } => write!(
                f,
                "the input starts like a web archive ({start}), and is read as HTML: --warc reads its records"
            ),
            ResponseWarning::NotAUrl {
                field,
                value,
                offset,
                why,
            } => write!(
                f,
                "`{field} {}` at byte {offset} is not a base URL ({why}): ignored",
                names::shown(value)
            ),
            ResponseWarning::Location {
                status,
                value,
                offset,
                why,
            } => write!(
                f,
                "`Location: {}` of the {status} at byte {offset} cannot be followed ({why}): the retrieval URL is not known after it",
                names::shown(value)
            ),
            ResponseWarning::Broken { claim, at, why } => write!(
                f,
                "the body breaks its `{claim}` at {at} ({why}): it is written as it came"
            ),
            ResponseWarning::Undecodable { claim } => write!(
                f,
                "the body's `{claim}` is not a coding htmlabs can decode: it is written as it came"
            ),
            ResponseWarning::CodingTooLarge { claim, limit } => write!(
                f,
                "the body's `{claim}` declares a window that needs more than the memory limit of {limit} bytes (--max-memory) leaves: it is written as it came"
            ),
            ResponseWarning::Framing { why } => write!(
                f,
                "{why}: the response's framing is invalid (RFC 9112 §6.3), and no length a rewrite writes would be true: the body is written as it came"
            ),
        }
    }
}

/// One header block, as `-v` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    pub offset: usize,
    pub version: Version,
    pub status: u16,
}

/// What became of the body.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Body {
    /// Rewritten, and written in the coding it came in.
    Rewritten,
    /// A document with nothing to change: written as it came, byte for byte.
    Unchanged,
    /// Of no type htmlabs reads (not HTML, CSS, a feed, a sitemap or SVG):
    /// written as it came. The type, or `None` when there was no
    /// `Content-Type` and the body starts like none of them.
    NotRead(Option<String>),
    /// Its coding broke, or cannot be decoded: written as it came.
    AsItCame,
}

/// A response's run: its header blocks, what became of its body, the lines
/// `-v` prints for the HTTP layer, and the document's own report when the
/// body was read by an engine (as HTML, CSS or XML).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ResponseReport {
    pub blocks: Vec<Block>,
    /// Where the body starts in the input, and its length as it came.
    pub body_offset: usize,
    pub body_len: u64,
    pub body: Body,
    /// The lines of `-v` for the HTTP layer (codings, type, length), in
    /// order, without the program name.
    pub notes: Vec<String>,
    pub document: Option<DocumentReport>,
    /// The type the body was read as ([`document`](ResponseReport::document)'s).
    pub kind: Option<Type>,
    pub warnings: Vec<ResponseWarning>,
}

impl ResponseReport {
    /// Whether the run failed to rewrite all it was given: the output is
    /// complete, and the exit status is 2.
    pub fn incomplete(&self) -> bool {
        self.warnings.iter().any(ResponseWarning::stops_rewriting)
    }

    /// The lines of `-v`, without the program name: the HTTP layer's, then
    /// the document's.
    pub fn verbose_lines(&self) -> Vec<String> {
        let blocks: Vec<String> = self
            .blocks
            .iter()
            .map(|b| format!("{} {} at byte {}", b.version, b.status, b.offset))
            .collect();
        let mut lines = vec![format!(
            "response: {} header block{} ({}); the body, {} bytes, at byte {}",
            blocks.len(),
            plural(blocks.len()),
            blocks.join(", "),
            self.body_len,
            self.body_offset
        )];
        lines.extend(self.notes.iter().cloned());
        lines.push(format!(
            "body: {}",
            match &self.body {
                Body::Rewritten => "rewritten".to_owned(),
                Body::Unchanged => "nothing to change: written as it came".to_owned(),
                Body::NotRead(Some(essence)) => format!(
                    "not a type htmlabs reads (`{}`): written as it came",
                    names::shown(essence.as_bytes())
                ),
                Body::NotRead(None) =>
                    "no Content-Type, and it starts like no document htmlabs reads: written as it came"
                        .to_owned(),
                Body::AsItCame => "written as it came (see the warning)".to_owned(),
            }
        ));
        if let Some(document) = &self.document {
            lines.extend(document.verbose_lines());
        }
        lines
    }
}
