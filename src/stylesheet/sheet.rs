//! One stylesheet: held whole (within `--max-memory`: past it, what is held
//! and the rest go out as they came), then read once its encoding is known,
//! its URLs found by the page engine's CSS scanner and resolved against the
//! stylesheet's own base, and each written in place of its bytes.

use std::io::Write;
use std::sync::Arc;

use encoding_rs::{Encoding, UTF_8};

use super::charset;
use super::text::Text;
use crate::front::{Engine, Output};
use crate::html::attrs::Kind;
use crate::html::budget::{Budget, OverBudget};
use crate::html::config::Config;
use crate::html::edit::{Resolver, css_found};
use crate::html::encoding::{self, Chosen, Source};
use crate::html::error::Error;
use crate::html::links::{At, Found, Hear, Lines, Link, Listener, Outcome, Position};
use crate::html::lookahead::Decision;
use crate::html::report::{Counts, Report, Tell, Warning, Warnings};
use crate::html::resolution::Resolution;
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
}

impl<W: Write> Engine<W> for Sheet<W> {
    fn new(
        config: Arc<Config>,
        layers: Layers,
        output: Output<W>,
        transcoded: Option<Chosen>,
    ) -> Self {
        Sheet {
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
        self.held.extend_from_slice(bytes);
        let limit = self.config.max_memory;
        if self.held.len() > limit {
            self.warnings
                .push(Warning::MemoryLimit { limit, offset: 0 });
            self.through = true;
            let held = std::mem::take(&mut self.held);
            self.out.write_all(&held).map_err(Error::Write)?;
        }
        Ok(())
    }

    fn end(mut self) -> Result<(Report, Output<W>), Error> {
        let chosen = self.encoding();
        let base = self.layers.outer();
        if base.is_empty() {
            self.warnings.push(Warning::NoStylesheetBase);
        }
        if !self.through {
            let held = std::mem::take(&mut self.held);
            let encoding = self.transcoded.map_or(chosen.encoding, |_| UTF_8);
            let limit = self.config.max_memory;
            let new = self.rewrite(&held, encoding).unwrap_or_else(|OverBudget| {
                // The documented bail-out: the stylesheet as it came.
                self.warnings
                    .push(Warning::MemoryLimit { limit, offset: 0 });
                None
            });
            self.out
                .write_all(new.as_deref().unwrap_or(&held))
                .map_err(Error::Write)?;
        }
        let report = Report {
            base,
            layers: self.layers,
            decision: Decision::Stylesheet,
            encoding: chosen,
            counts: self.counts,
            warnings: self.warnings.into_vec(),
        };
        Ok((report, self.out))
    }
}

impl<W: Write> Sheet<W> {
    /// The stylesheet's encoding: a byte order mark (UTF-16 transcoded),
    /// `--encoding`, the transport layer's charset, `@charset`, else UTF-8
    /// (CSS Syntax §3.2, the referring document being unknown here).
    fn encoding(&self) -> Chosen {
        let (encoding, source) = if let Some(chosen) = self.transcoded {
            (chosen.encoding, chosen.source)
        } else if self.held.starts_with(b"\xEF\xBB\xBF") {
            (UTF_8, Source::Bom)
        } else if let Some(e) = self.config.encoding {
            (e, Source::Flag)
        } else if let Some(c) = self.layers.charset() {
            (c.encoding, Source::Transport { from: c.from })
        } else if let Some(e) = charset::declared(&self.held) {
            (e, Source::Charset)
        } else {
            (UTF_8, Source::Default)
        };
        Chosen { encoding, source }
    }

    /// The stylesheet's new bytes, or `None` to leave it as it is; `Err`
    /// when what rewriting it takes besides its bytes (what is found, the
    /// edits, the links heard) would exceed `--max-memory`.
    fn rewrite(
        &mut self,
        raw: &[u8],
        encoding: &'static Encoding,
    ) -> Result<Option<Vec<u8>>, OverBudget> {
        // A byte order mark is no text; offsets are the input's still.
        let bom = if raw.starts_with(b"\xEF\xBB\xBF") {
            3
        } else {
            0
        };
        let (head, body) = raw.split_at(bom);
        let Some(text) = Text::decode(body, encoding) else {
            self.warnings.push(Warning::Undecodable {
                offset: 0,
                encoding: encoding.name(),
            });
            return Ok(None);
        };
        let cx = Resolution::new(self.layers.outer(), encoding, &self.config, 0, nest);
        let mut budget = Budget::new(self.config.max_memory);
        let mut edits = Vec::new();
        for found in css_found(&text.text, &mut budget)? {
            if text.holds_invalid(&found.range) {
                self.undecodable(&text, &found, body, bom, &cx, encoding);
                continue;
            }
            let mut resolver = Resolver::new(
                &cx,
                &mut self.counts,
                &mut self.warnings,
                self.listener.as_mut(),
                &mut budget,
            );
            if cx.base.is_empty() {
                resolver.css_without_base(&text.text, &found)?;
            } else if let Some(edit) = resolver.css_url(&text.text, found, Kind::Css)? {
                // Owned: the edit outlives this resolver's borrows.
                edits.push(edit.into_owned());
            }
        }
        if let Some(listener) = &mut self.listener {
            let mut lines = Lines::new(encoding, Position::default());
            lines.advance(head);
            listener.value_done(lines.position(), body, encoding, ("", ""), |at| {
                text.raw_offset(at)
            });
        }
        if edits.is_empty() {
            return Ok(None);
        }
        let mut out =
            Vec::with_capacity(raw.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
        out.extend_from_slice(head);
        let mut copied = 0;
        for edit in &edits {
            // Every edit stands at characters of valid text.
            let (Some(start), Some(end)) = (
                text.raw_offset(edit.range.start),
                text.raw_offset(edit.range.end),
            ) else {
                continue;
            };
            out.extend_from_slice(&body[copied..start]);
            encoding::encode_onto(&edit.text, encoding, &mut out);
            copied = end;
        }
        out.extend_from_slice(&body[copied..]);
        Ok(Some(out))
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
                    element: String::new(),
                    attribute: String::new(),
                    kind: Kind::Css,
                    original: css::unescape(&text.text[found.range.clone()]).into_owned(),
                    raw: Some(raw.to_vec()),
                    absolute: None,
                    outcome: Outcome::Undecodable,
                    base: cx.base.clone(),
                },
            });
        }
    }
}
