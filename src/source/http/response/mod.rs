//! One saved response: its header blocks, then its body rewritten as the
//! document its type says (`--type`, its `Content-Type`, its first bytes:
//! [`decide`](crate::source::typing::decide)) and written back in the coding it came in, the blocks
//! byte for byte (but a `Content-Length` that was true of the input and is
//! no longer).
//!
//! One type, [`Response`], two ways in, one way through: as a stream in
//! writes of any size (`write`, `end`), or held whole, its blocks read (a
//! WARC record's, in memory or spilled: `end_held`). The stream goes
//! straight through the document's rewriter when nothing that comes first
//! depends on what comes after (no coding holds, no `Content-Length`);
//! otherwise its body is held, within `--max-memory` and spilled past it,
//! and goes the held way at its end.
//!
//! Here: the response and what both ways share (`shared`), the held body
//! (`held`), the stream (`stream`).

mod held;
mod shared;
mod stream;

use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;

use crate::document::config::Config;
use crate::document::events::Events;
use crate::document::memory::Allowance;
use crate::source::http::coding::PEEK;
use crate::source::http::head::HeadReader;
use crate::source::http::report::ResponseWarning;
use crate::url::Layers;

pub use held::rewrite_response_bytes;
pub use shared::{Error, Options, body_decided, body_type};
pub use stream::rewrite_response;

use shared::Shared;
use stream::{Known, State};

/// A saved response rewritten, written to `W`: its header blocks, then its
/// body as the document its type says. Give it the input in writes of any
/// size, then [`end`](Response::end) it for the
/// [`ResponseReport`](crate::source::http::ResponseReport).
///
/// ```
/// use htmlabs::http::{Options, Response};
/// use htmlabs::{Config, Layers, Standard};
///
/// let layers = Layers::default().with_retrieval(Standard::Rfc1808, "http://example.com/", "-r")?;
/// let mut response = Response::new(Config::default(), layers, Options::default(), Vec::new());
/// response.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n")?;
/// response.write(b"<a href=docs/>")?;
/// let (report, out) = response.end()?;
/// assert!(out.ends_with(b"\r\n\r\n<a href=http://example.com/docs/>"));
/// assert_eq!(report.blocks.len(), 1);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Response<W: Write> {
    state: State<W>,
    config: Arc<Config>,
    /// The layers the user gave (`--retrieved-from`), below the entity's.
    given: Layers,
    options: Options,
    told: Shared,
    known: Option<Known>,
    body_len: u64,
    notes: Vec<String>,
    /// How many of the body's first bytes are held before they are asked
    /// again whether they are enough to tell its type (twice as many each
    /// time, so that asking costs what reading does).
    first_wanted: usize,
    /// The rewritten body is counted, not kept.
    discard: bool,
}

impl<W: Write> Response<W> {
    /// A response read by the run's `config`, with the layers the user
    /// `given` below what its header blocks say, written to `output`.
    pub fn new(config: impl Into<Arc<Config>>, given: Layers, options: Options, output: W) -> Self {
        Response {
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
            first_wanted: PEEK,
            discard: false,
        }
    }

    /// The rewritten body is not wanted (a listing of its links, a check):
    /// it is counted, not held nor spilled to a file, and the spool
    /// [`end_held_keeping`](Self::end_held_keeping) gives cannot be read.
    pub(crate) fn discarding_body(mut self) -> Self {
        self.discard = true;
        self
    }

    /// Asks for the link report: each URL value of the document, once its
    /// place in the input is known, is queued in the [`events`](Self::events),
    /// as [`Rewriter::with_links`](crate::Rewriter::with_links) does. A body
    /// that breaks its coding halfway is written as it came, yet its values
    /// before the break were heard.
    pub fn with_links(self) -> Self {
        self.told.borrow_mut().listening = true;
        self
    }

    /// What it told as it read, not yet taken (its warnings, and its
    /// links when asked for): a handle that outlives it. The report still
    /// lists every warning.
    pub fn events(&self) -> Events<ResponseWarning> {
        self.told.borrow().events.clone()
    }

    /// Queues what it tells in `events`, a queue of the caller's (an
    /// archive's record, whose links wait for their turn).
    pub(crate) fn with_events(self, events: Events<ResponseWarning>) -> Self {
        self.told.borrow_mut().events = events;
        self
    }

    /// Takes what its document and its codings hold from `allowance` (a
    /// share of the run's memory) rather than from one of its own.
    pub(crate) fn with_allowance(self, allowance: Rc<Allowance>) -> Self {
        self.told.borrow_mut().allowance = Some(allowance);
        self
    }

    /// The output, before anything is read: the held way's.
    fn output(&mut self) -> Result<W, Error> {
        match std::mem::replace(&mut self.state, State::Failed) {
            State::Heads { output, .. } => Ok(output),
            _ => Err(crate::document::error::Error::failed_before().into()),
        }
    }
}
