//! One stylesheet: held whole (its bytes, its decoded text and the URLs
//! found in it, within the document's share of `--max-memory`: past it,
//! what is held and the rest go out as they came), then read once its
//! encoding is known, its URLs found by the page engine's CSS scanner and
//! resolved against the stylesheet's own base, and each written in place
//! of its bytes as it is made (the new sheet is never held whole: one URL
//! at a time).

use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::{Encoding, UTF_8};

use super::charset;
use super::text::Text;
use crate::document::attrs::Kind;
use crate::document::config::Config;
use crate::document::decision::Decision;
use crate::document::edit::{Resolver, css_found};
use crate::document::encoding::{self, Chosen, EncodingSource};
use crate::document::error::Error;
use crate::document::front::{Engine, Output};
use crate::document::links::{At, Found, Hear, Lines, Link, Listener, NO_NAME, Outcome, Position};
use crate::document::memory::{Allowance, Budget, OverBudget};
use crate::document::report::{Counts, Report, Tell, Warning, Warnings};
use crate::document::resolution::Resolution;
use crate::html::rewriter::nest;
use crate::syntax::css;
use crate::url::Layers;

pub(crate) struct Sheet<W: Write> {
    config: Arc<Config>,
    layers: Layers,
    out: Output<W>,
    held: Vec<u8>,
    /// The encoding when the front transcoded UTF-16.
    transcoded: Option<Chosen>,
    /// Past the memory limit: the input goes through as it comes.
    through: bool,
    counts: Counts,
    warnings: Warnings,
    listener: Option<Listener>,
    allowance: Rc<Allowance>,
    /// What `held` takes of the allowance.
    budget: Budget,
}

impl<W: Write> Engine<W> for Sheet<W> {
    fn new(
        config: Arc<Config>,
        layers: Layers,
        output: Output<W>,
        transcoded: Option<Chosen>,
        allowance: Rc<Allowance>,
    ) -> Self {
        Sheet {
            budget: allowance.budget(),
            allowance,
            config,
            layers,
            out: output,
            held: Vec::new(),
            transcoded,
            through: false,
            counts: Counts::default(),
            warnings: Warnings::default(),
            listener: None,
        }
    }

    fn tell(&mut self, tell: Tell) {
        self.warnings.tell(tell);
    }

    fn listen(&mut self, hear: Hear) {
        self.listener = Some(Listener::new(hear));
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.through {
            return self.out.write_all(bytes).map_err(Error::Write);
        }
        let need = self.held.len() + bytes.len();
        if need > self.held.capacity() {
            // Doubled where the budget has room for it, else exactly what
            // is needed: whether the sheet fits must not depend on the
            // writes it comes in (`fitted` gives the surplus back).
            let doubled = need.max(2 * self.held.capacity());
            let room = self.budget.left() >= doubled - self.held.capacity();
            let capacity = if room { doubled } else { need };
            if self.budget.take(capacity - self.held.capacity()).is_err() {
                self.warnings.push(Warning::MemoryLimit {
                    limit: self.allowance.named(),
                    offset: 0,
                });
                self.through = true;
                let held = std::mem::take(&mut self.held);
                self.out.write_all(&held).map_err(Error::Write)?;
                return self.out.write_all(bytes).map_err(Error::Write);
            }
            self.held.reserve_exact(capacity - self.held.len());
        }
        self.held.extend_from_slice(bytes);
        Ok(())
    }

    fn stop(&mut self, warning: Warning) -> Result<(), Error> {
        if self.through {
            return Ok(());
        }
        // What came before is rewritten, as if the sheet ended there.
        let chosen = self.encoding();
        let held = self.fitted();
        let encoding = self.transcoded.map_or(chosen.encoding, |_| UTF_8);
        self.rewrite(&held, encoding)?;
        self.warnings.push(warning);
        self.through = true;
        Ok(())
    }

    fn end(mut self) -> Result<(Report, Output<W>), Error> {
        let chosen = self.encoding();
        let base = self.layers.outer();
        if base.is_empty() {
            self.warnings.push(Warning::NoStylesheetBase);
        }
        if !self.through {
            let held = self.fitted();
            let encoding = self.transcoded.map_or(chosen.encoding, |_| UTF_8);
            self.rewrite(&held, encoding)?;
        }
        let report = Report {
            base,
            layers: self.layers,
            decision: Decision::Stylesheet,
            encoding: chosen,
            counts: self.counts,
            warnings: self.warnings.into_vec(),
            anchors: None,
        };
        Ok((report, self.out))
    }
}

impl<W: Write> Sheet<W> {
    /// The sheet held, its surplus capacity given back: what is left for
    /// the rewrite is the same however the sheet was written.
    fn fitted(&mut self) -> Vec<u8> {
        let before = self.held.capacity();
        self.held.shrink_to_fit();
        self.budget.give(before - self.held.capacity());
        std::mem::take(&mut self.held)
    }

    /// The stylesheet's encoding: a byte order mark (UTF-16 transcoded),
    /// `--encoding`, the transport layer's charset, `@charset`, else UTF-8
    /// (CSS Syntax §3.2, the referring document being unknown here).
    fn encoding(&self) -> Chosen {
        let (encoding, source) = if let Some(chosen) = self.transcoded {
            (chosen.encoding, chosen.source)
        } else if self.held.starts_with(b"\xEF\xBB\xBF") {
            (UTF_8, EncodingSource::Bom)
        } else if let Some(e) = self.config.encoding {
            (e, EncodingSource::Flag)
        } else if let Some(c) = self.layers.charset() {
            (c.encoding, EncodingSource::Transport { from: c.from })
        } else if let Some(e) = charset::declared(&self.held) {
            (e, EncodingSource::Charset)
        } else {
            (UTF_8, EncodingSource::Default)
        };
        Chosen { encoding, source }
    }

    /// Writes the stylesheet, each URL rewritten as it is made. Where what
    /// rewriting it takes besides its bytes (its text, what is found, the
    /// links heard) would pass the document's share, what was not yet
    /// written goes out as it came, with the warning.
    fn rewrite(&mut self, raw: &[u8], encoding: &'static Encoding) -> Result<(), Error> {
        // A byte order mark is no text; offsets are the input's still.
        let bom = if raw.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let (head, body) = raw.split_at(bom);
        let mut budget = self.allowance.budget();
        let text = match budget.take(Text::cost(body, encoding)) {
            Ok(()) => Text::decode(body, encoding),
            Err(OverBudget) => {
                self.over(0);
                return self.out.write_all(raw).map_err(Error::Write);
            }
        };
        let Some(text) = text else {
            self.warnings.push(Warning::Undecodable {
                offset: 0,
                encoding: encoding.name(),
            });
            return self.out.write_all(raw).map_err(Error::Write);
        };
        let cx = Resolution::new(
            self.layers.outer(),
            encoding,
            &self.config,
            0,
            nest,
            Rc::clone(&self.allowance),
        )
        .with_document(self.layers.own());
        self.out.write_all(head).map_err(Error::Write)?;
        // Up to where the input is written.
        let mut copied = 0;
        let found = match css_found(&text.text, &mut budget) {
            Ok(found) => found,
            Err(OverBudget) => {
                self.over(bom);
                return self.out.write_all(body).map_err(Error::Write);
            }
        };
        for found in found {
            if text.holds_invalid(&found.range) {
                self.undecodable(&text, &found, body, bom, &cx, encoding);
                continue;
            }
            let start = found.range.start;
            let mut resolver = Resolver::new(
                &cx,
                &mut self.counts,
                &mut self.warnings,
                self.listener.as_mut(),
                &mut budget,
            );
            let edit = if cx.base.is_empty() {
                resolver.css_without_base(&text.text, &found).map(|()| None)
            } else {
                resolver.css_url(&text.text, found, Kind::Css)
            };
            let edit = match edit {
                Ok(edit) => edit,
                Err(OverBudget) => {
                    let at = text.raw_offset(start).unwrap_or(copied);
                    self.over(bom + at.max(copied));
                    break;
                }
            };
            // Every edit stands at characters of valid text.
            let Some(edit) = edit else { continue };
            let (Some(start), Some(end)) = (
                text.raw_offset(edit.range.start),
                text.raw_offset(edit.range.end),
            ) else {
                continue;
            };
            self.out
                .write_all(&body[copied..start])
                .map_err(Error::Write)?;
            let mut new = Vec::new();
            encoding::encode_onto(&edit.text, encoding, &mut new);
            self.out.write_all(&new).map_err(Error::Write)?;
            copied = end;
        }
        self.out.write_all(&body[copied..]).map_err(Error::Write)?;
        if let Some(listener) = &mut self.listener {
            let mut lines = Lines::new(encoding, Position::default());
            lines.advance(head);
            listener.value_done(
                lines.position(),
                body,
                encoding,
                (&NO_NAME, &NO_NAME),
                |at| text.raw_offset(at),
            );
        }
        Ok(())
    }

    /// The document's share is reached at byte `offset`: rewriting stops
    /// there, and the rest goes out as it came.
    fn over(&mut self, offset: usize) {
        self.allowance.run_out();
        if let Some(listener) = &mut self.listener {
            listener.forget();
        }
        self.warnings.push(Warning::MemoryLimit {
            limit: self.allowance.named(),
            offset,
        });
    }

    /// A URL that holds bytes not valid in the stylesheet's encoding: left
    /// as it is, counted, warned of, and heard with its bytes.
    fn undecodable(
        &mut self,
        text: &Text,
        found: &css::Found,
        body: &[u8],
        bom: usize,
        cx: &Resolution,
        encoding: &'static Encoding,
    ) {
        self.counts.seen += 1;
        self.counts.undecodable += 1;
        let start = text.raw_offset(found.range.start).unwrap_or(0);
        let end = text.raw_offset(found.range.end).unwrap_or(start).max(start);
        self.warnings.push(Warning::Undecodable {
            offset: bom + start,
            encoding: encoding.name(),
        });
        if let Some(listener) = &mut self.listener {
            let raw = &body[start..end];
            listener.found(Found {
                at: At::Raw(start),
                link: Link {
                    position: Position::default(),
                    element: Default::default(),
                    attribute: Default::default(),
                    kind: Kind::Css,
                    original: css::unescape(&text.text[found.range.clone()]).into_owned(),
                    raw: Some(raw.to_vec()),
                    absolute: None,
                    outcome: Outcome::Undecodable,
                    base: cx.base.clone(),
                    mapped: None,
                },
            });
        }
    }
}
