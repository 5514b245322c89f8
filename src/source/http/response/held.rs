//! A response whose body is held whole (in memory or spilled: a WARC
//! record's, or a stream's that must be): its codings undone, the
//! document rewritten, the codings redone, or the body as it came.

use std::io::{self, Write};
use std::sync::Arc;

use crate::document::config::Config;
use crate::document::error::Error as DocumentError;
use crate::source::http::coding::{self, Broken, LayerDecision, Plan, Planned};
use crate::source::http::entity::{Entity, entity};
use crate::source::http::head::{Edit, Head, read_heads};
use crate::source::http::report::{Body, ResponseReport, ResponseWarning};
use crate::source::output::spool::{Held, Spool};
use crate::source::typing::{By, read_first, sniff_limit};
use crate::typed::Type;
use crate::url::Layers;

use super::Response;
use super::shared::{
    Error, Options, Outcome, Shared, allowance, as_it_came, body_start, content_length, decided,
    document_rewriter, report, sniffing_encoding, type_note, warn, written,
};

/// Where a break is, in the user's terms: a byte of the input when no
/// layer outside it was decoded.
pub(super) fn place(plan: &Plan, broken: &Broken, body_offset: usize) -> String {
    let outer = plan.layers[..broken.layer]
        .iter()
        .rev()
        .find(|l| matches!(l.decision, LayerDecision::Decode(_)));
    match outer {
        None => format!("byte {}", body_offset as u64 + broken.at),
        Some(outer) => format!(
            "byte {} of the body once its `{}` is decoded",
            broken.at, outer.claim
        ),
    }
}

/// The `-v` line of a layer.
pub(super) fn coding_note(layer: &coding::Layer) -> String {
    match &layer.decision {
        LayerDecision::Decode(_) => {
            format!("coding: `{}`: decoded, and encoded again", layer.claim)
        }
        LayerDecision::AsDecoded(why) => format!(
            "coding: `{}`: {why} at the body's first byte: taken as already decoded",
            layer.claim
        ),
    }
}

/// A response whose blocks are read and whose body is held whole (in
/// memory or spilled), with what its blocks say.
pub(super) struct Parts<'a> {
    pub(super) heads: &'a [Head],
    pub(super) entity: &'a Entity,
    pub(super) body: &'a mut dyn Held,
    /// Where the body starts in the input.
    pub(super) body_offset: usize,
}

/// What a response's run goes by: the run's config, the response's
/// options, and its log.
pub(super) struct Run<'a> {
    pub(super) config: &'a Arc<Config>,
    pub(super) options: &'a Options,
    pub(super) told: &'a Shared,
    /// The rewritten body is counted, not kept (`discarding_body`).
    pub(super) discard: bool,
}

/// Rewrites the body of a response held whole (`parts`) into `out`; the
/// warnings go to the run's log. A body that breaks its coding is written
/// as it came, with a warning.
pub(super) fn respond(
    run: &Run<'_>,
    parts: Parts<'_>,
    out: &mut dyn Write,
) -> Result<Outcome, Error> {
    let Parts {
        heads,
        entity,
        body,
        body_offset,
    } = parts;
    let (options, told) = (run.options, run.told);
    let mut notes = Vec::new();
    let (plan, broken) = match decoded(run, heads, entity, body, out, &mut notes) {
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
pub(super) enum Stop {
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
fn decoded(
    run: &Run<'_>,
    heads: &[Head],
    entity: &Entity,
    body: &mut dyn Held,
    out: &mut dyn Write,
    notes: &mut Vec<String>,
) -> Result<Outcome, Stop> {
    let Run {
        config,
        options,
        told,
        discard,
    } = *run;
    let last = heads.last().expect("a response has a final block");
    // What its codings hold while the body is read and written again
    // (brotli's window, as the body declares it, decoding and encoding),
    // taken from the response's allowance, before any is decoded.
    let allowance = allowance(told, config);
    let plan = match coding::plan(&coding::claims(last), body, allowance.left()).map_err(written)? {
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
        Planned::TooLarge(claim) => {
            warn(
                told,
                ResponseWarning::CodingTooLarge {
                    claim: claim.to_string(),
                    limit: allowance.named(),
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
    // Held while the body is decoded and written again (the plan fits).
    let mut codings = allowance.budget();
    let held: usize = plan.layers.iter().map(coding::memory).sum();
    codings.take(held).expect("the plan fits what was left");

    // What the body is: `--type`, else its media type, or its first
    // bytes (decoded).
    let mut first = Vec::new();
    let encoding = sniffing_encoding(config, entity.media.as_ref());
    if options.kind.is_none() {
        let read = read_first(
            &mut coding::decoder(&plan, body).map_err(written)?,
            encoding,
            sniff_limit(config),
        );
        match read {
            Ok(read) => first = read,
            Err(e) => {
                return Err(Stop::reading(&plan, &e).unwrap_or(Stop::Failed(written(e))));
            }
        }
    }
    let decided = decided(options, entity.media.as_ref(), &first, encoding);
    if entity.media.is_none() && decided.kind == Some(Type::Html) && decided.by != By::Given {
        notes.push("content type: none, and the body starts like HTML".to_owned());
    }
    notes.extend(type_note(&decided));
    let memory = allowance.memory().clone();
    let Some(kind) = decided.kind else {
        let not_read = Body::NotRead(entity.media.as_ref().map(|m| m.essence.clone()));
        if options.strip_headers
            && plan
                .layers
                .iter()
                .any(|l| matches!(l.decision, LayerDecision::Decode(_)))
        {
            // The body alone, decoded: held, so that a break leaves it whole.
            let mut decoded = Spool::new(&memory);
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
    let mut encoded = match discard {
        true => Spool::discarding(),
        false => Spool::new(&memory),
    };
    let document = {
        let none = Plan::default();
        let writing = if options.strip_headers { &none } else { &plan };
        let writer = coding::encoder(writing, &mut encoded);
        // A decoded body's links are placed in the decoded body.
        let as_it_came = plan
            .layers
            .iter()
            .all(|l| matches!(l.decision, LayerDecision::AsDecoded(_)));
        let shift = as_it_came.then(|| body_start(heads));
        let mut rewriter = document_rewriter(
            (kind, decided.served_as_xml()),
            config,
            entity.layers.clone(),
            writer,
            told,
            shift,
        );
        if discard {
            rewriter = rewriter.discarding();
        }
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
impl<W: Write> Response<W> {
    /// The held way: the response whose blocks are read (`heads`) and whose
    /// body is held whole (`body`, which starts at `body_offset` of the
    /// input), rewritten into the output: what a source that holds its
    /// responses calls (a WARC record in memory or spilled).
    pub(crate) fn end_held(
        self,
        heads: &[Head],
        body: &mut dyn Held,
        body_offset: usize,
    ) -> Result<(ResponseReport, W), Error> {
        let (report, rewritten, mut output) = self.held(heads, body, body_offset)?;
        if let Some(mut rewritten) = rewritten {
            rewritten.copy_to(&mut output).map_err(written)?;
        }
        Ok((report, output))
    }

    /// [`end_held`](Self::end_held) with the headers stripped, for a caller
    /// that holds the body it rewrote: the rewritten body comes back as the
    /// spool it was written to (in memory up to half `--max-memory`, in a
    /// temporary file past it), not copied to the output.
    pub(crate) fn end_held_keeping(
        self,
        heads: &[Head],
        body: &mut dyn Held,
        body_offset: usize,
    ) -> Result<(ResponseReport, Option<Spool>), Error> {
        debug_assert!(self.options.strip_headers, "only the body is written");
        let (report, rewritten, _) = self.held(heads, body, body_offset)?;
        Ok((report, rewritten))
    }

    /// The entity of the blocks (its warnings told first), then the body
    /// through [`respond`]; the body rewritten, not yet written.
    fn held(
        mut self,
        heads: &[Head],
        body: &mut dyn Held,
        body_offset: usize,
    ) -> Result<(ResponseReport, Option<Spool>, W), Error> {
        let entity = entity(
            heads,
            &self.given,
            self.config.standard,
            self.options.content_location,
        );
        for w in entity.warnings.iter().cloned() {
            warn(&self.told, w);
        }
        let mut output = self.output()?;
        let run = Run {
            config: &self.config,
            options: &self.options,
            told: &self.told,
            discard: self.discard,
        };
        let len = body.len();
        let parts = Parts {
            heads,
            entity: &entity,
            body,
            body_offset,
        };
        let mut outcome = respond(&run, parts, &mut output)?;
        let rewritten = outcome.rewritten.take();
        Ok((
            report(heads, body_offset, len, outcome, &self.told),
            rewritten,
            output,
        ))
    }
}

/// Rewrites a response held in memory: its blocks, then its body; gives
/// back the new bytes and the report.
///
/// ```
/// use std::sync::Arc;
/// use htmlabs::http::{Options, rewrite_response_bytes};
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
    let out = Vec::with_capacity(input.len() + input.len() / 8);
    let mut body = &input[body_offset..];
    let response = Response::new(Arc::clone(config), given.clone(), *options, out);
    let (report, out) = response.end_held(&heads, &mut body, body_offset)?;
    Ok((out, report))
}
