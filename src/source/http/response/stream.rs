//! A response as a stream, in writes of any size: its blocks read as they
//! come, then its body straight through the document's rewriter when
//! nothing that comes first depends on what comes after, else held and
//! handed to [`held`](super::held) at its end.

use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::Encoding;

use crate::document::config::Config;
use crate::document::error::Error as DocumentError;
use crate::source::http::coding::{self, LayerDecision, Starts};
use crate::source::http::entity::{Entity, entity};
use crate::source::http::head::{Head, HeadReader};
use crate::source::http::media::MediaType;
use crate::source::http::report::{Body, ResponseReport};
use crate::source::output::spool::Spool;
use crate::source::typing::{self, Decided};
use crate::typed::{Rewriter, Type};
use crate::url::Layers;

use super::Response;
use super::held::{Parts, Run, coding_note, respond};
use super::shared::{
    Error, Options, Outcome, allowance, body_start, content_length, decided, document_rewriter,
    report, sniffing_encoding, type_note, warn, written,
};

/// Rewrites the response `input` gives into `output`, reading 64 KiB at a
/// time.
pub fn rewrite_response(
    config: impl Into<Arc<Config>>,
    given: Layers,
    options: Options,
    input: impl Read,
    output: impl Write,
) -> Result<ResponseReport, Error> {
    let mut response = Response::new(config, given, options, output);
    response.read_from(input)?;
    response.end().map(|(report, _)| report)
}

/// How a streamed body goes.
pub(super) enum State<W: Write> {
    /// Reading the header blocks.
    Heads { reader: HeadReader, output: W },
    /// Holding the body's first bytes, on which its claims are checked.
    First { held: Vec<u8>, output: W },
    /// No coding holds, and nothing in the blocks depends on the body:
    /// straight through the document's rewriter.
    Stream(Box<Rewriter<W>>),
    /// No document htmlabs reads, and nothing to decode: copied.
    Copy(W),
    /// Held to the end.
    Hold { body: Spool, output: W },
    /// A write failed: nothing more can be done.
    Failed,
}

/// The response so far: its blocks and what they say.
pub(super) struct Known {
    heads: Vec<Head>,
    entity: Entity,
    body_offset: usize,
}

impl<W: Write> Response<W> {
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
                crate::source::http::head::Read::More => return Ok(()),
                crate::source::http::head::Read::Body { held, rest } => {
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
        let encoding = self.sniffing_encoding();
        if let State::First { held, .. } = &mut self.state {
            held.extend_from_slice(bytes);
            if held.len() < self.first_wanted && !end {
                return Ok(());
            }
            // An XML prolog may be longer than that: on to its root, up to
            // the lookahead limit.
            if !end
                && held.len() < typing::sniff_limit(&self.config)
                && !typing::enough(held, encoding)
            {
                self.first_wanted = held.len().saturating_mul(2);
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

    /// The encoding the body's first bytes are read in to tell its type.
    fn sniffing_encoding(&self) -> Option<&'static Encoding> {
        let media = self.known.as_ref().and_then(|k| k.entity.media.as_ref());
        sniffing_encoding(&self.config, media)
    }

    /// The first bytes are in (`first`, all of them if fewer than
    /// [`PEEK`](crate::source::http::coding::PEEK)): how the body goes.
    fn start_body(&mut self, first: &[u8], mut output: W) -> Result<State<W>, Error> {
        let known = self.known.as_ref().expect("the heads are read");
        let last = known.heads.last().expect("a response has a final block");
        let (way, decided) = streams(
            &known.heads,
            known.entity.media.as_ref(),
            &self.options,
            first,
            self.sniffing_encoding(),
        );
        if way == Way::Hold {
            return Ok(State::Hold {
                body: Spool::new(allowance(&self.told, &self.config).memory()),
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
                decision: LayerDecision::AsDecoded(why.to_owned()),
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
                let xml = decided.as_ref().is_some_and(Decided::served_as_xml);
                State::Stream(Box::new(document_rewriter(
                    (kind, xml),
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
                let run = Run {
                    config: &self.config,
                    options: &self.options,
                    told: &told,
                    discard: self.discard,
                };
                let parts = Parts {
                    heads: &known.heads,
                    entity: &known.entity,
                    body: &mut body,
                    body_offset: known.body_offset,
                };
                let mut outcome = respond(&run, parts, &mut output)?;
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
pub(super) fn streams(
    heads: &[Head],
    media: Option<&MediaType>,
    options: &Options,
    first: &[u8],
    encoding: Option<&'static Encoding>,
) -> (Way, Option<Decided>) {
    let last = heads.last().expect("a response has a final block");
    let identity = coding::claims(last)
        .iter()
        .all(|c| matches!(coding::starts_as(c.coding, first), Starts::No(_)));
    // Without a type, the body is sniffed held whole, as a coded one is.
    if !identity || media.is_none() && options.kind.is_none() {
        return (Way::Hold, None);
    }
    let decided = decided(options, media, first, encoding);
    let way = match decided.kind {
        Some(kind) if options.strip_headers || content_length(last) == Ok(None) => {
            Way::Stream(kind)
        }
        Some(_) => Way::Hold,
        None => Way::Copy,
    };
    (way, Some(decided))
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Way {
    Stream(Type),
    Copy,
    Hold,
}
