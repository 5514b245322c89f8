//! One XML document, read as it comes. The loop is ours, so that it can be
//! given the input in writes of any size: text runs to the next `<`, and a
//! construct from `<` to its `>` is parsed by quick-xml once it is whole
//! (`construct`: a fresh reader over its bytes; quick-xml's own `NsReader`
//! pulls from a `BufRead` and stops for good at the end of what it has,
//! where a write may have ended mid-tag).
//!
//! Only the bytes of URL values change. A start tag's values are rewritten
//! when the tag is whole; a value that is an element's content (`<loc>`, an
//! RSS `description`) is held from its start tag to its end tag (within
//! `--max-memory`), then rewritten. Everything else goes out as it came,
//! as soon as it is read.

use std::borrow::Cow;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

use super::base::Scopes;
use super::construct::{Attribute, Context, Item, Unparsed, parse};
use super::entities::Entities;
use super::feed_html;
use super::head::{self, Lookahead};
use super::namespaces::Namespaces;
use super::sniff::{Appendix, appendix_f};
use super::text::{Piece, Text, Unreadable};
use super::vocabulary::{self, Content, Name, Ns, Root};
use crate::document::attrs::{Empty, Kind};
use crate::document::buffers::CHUNK;
use crate::document::config::Config;
use crate::document::decision::Decision;
use crate::document::edit::{Element, Resolver};
use crate::document::encoding::{Chosen, EncodingSource};
use crate::document::error::Error;
use crate::document::front::{Engine, Output};
use crate::document::links::{At, Found, Hear, Lines, Link, Listener, Mapped, Outcome, Position};
use crate::document::memory::{Allowance, Budget, OverBudget};
use crate::document::report::{Counts, Report, Tell, Warning, Warnings};
use crate::html::rewriter::nest;
use crate::shown::shown;
use crate::url::Layers;

/// How deeply elements may nest. What each open element holds is counted
/// against `--max-memory` besides.
const MAX_DEPTH: usize = 60_000;

/// How many element names a value's path in the link report shows at most
/// at its start and at its end: a path as deep as its document would make
/// the report grow with the square of its depth.
const PATH_ENDS: (usize, usize) = (3, 4);

/// How many bytes of an element's name a path shows at most.
const PATH_NAME: usize = 64;

pub(crate) struct Document<W: Write> {
    config: Arc<Config>,
    /// The document's §3 layers below its `xml:base`s.
    layers: Layers,
    out: BufWriter<Output<W>>,
    write_error: Option<io::Error>,
    /// The input not yet written out: `held[head..]` starts at `emitted`.
    held: Vec<u8>,
    head: usize,
    emitted: usize,
    /// Where reading has got to: everything before is read.
    pos: usize,
    /// How far the input was searched for a `>` that may end the construct
    /// at `pos`: a construct in many writes is parsed once, when whole.
    searched: usize,
    /// The byte order mark is behind.
    begun: bool,
    /// The input began with UTF-8's byte order mark.
    bom: bool,
    chosen: Option<Chosen>,
    /// The encoding when the front transcoded UTF-16.
    transcoded: Option<Chosen>,
    elements: Vec<Open>,
    /// The bytes the element stack holds, counted against `--max-memory`.
    stack_bytes: usize,
    /// What its holders take from; what `held` and the element stack take;
    /// what the entities of its DOCTYPE take.
    allowance: Rc<Allowance>,
    holding: Budget,
    entities_held: Budget,
    namespaces: Namespaces,
    /// The general entities the DOCTYPE declares.
    entities: Entities,
    scopes: Scopes,
    /// For each open element that bears an `xml:base`, innermost last:
    /// whether a reader of the output finds the base htmlabs found there
    /// (it was made absolute, was so, or is relative to one that does).
    xml_bases: Vec<bool>,
    /// An XHTML document's reading ahead for its `<base href>`, and what
    /// it found.
    lookahead: Option<Lookahead>,
    embedded: Option<Decision>,
    /// The base it set, if it set one.
    embedded_base: Option<crate::url::Base>,
    /// Why the document cannot be rewritten, found once bytes were read.
    refused: Option<Error>,
    collecting: Option<Collect>,
    root: Option<Root>,
    root_ended: bool,
    stopped: bool,
    /// How many `xml:base` were used.
    bases: usize,
    counts: Counts,
    warnings: Warnings,
    listener: Option<Listener>,
    /// The line and column of `lines_at`, when links are heard.
    lines: Option<Lines>,
    lines_at: usize,
}

/// An open element.
struct Open {
    /// Its name as written, to match its end tag and name it.
    name: Box<[u8]>,
    ns: Ns,
    /// Where its local name starts in `name`.
    local: usize,
    /// Its `xml:base` set a base.
    based: bool,
    /// It bears an `xml:base`, whether it set a base or not.
    bears_base: bool,
    /// What keeping it open holds: its name, and the namespaces it declares
    /// (quick-xml's resolver keeps them while it is open).
    bytes: usize,
}

impl Open {
    fn name(&self) -> Name<'_> {
        Name {
            ns: self.ns,
            local: &self.name[self.local..],
        }
    }
}

/// An element whose content is a value, held until its end tag.
struct Collect {
    /// The depth of its element (the stack's length with it on).
    depth: usize,
    content: Content,
    /// Where its content starts.
    start: usize,
    /// Its text and CDATA sections, at offsets of the input.
    pieces: Vec<Piece>,
    svg: bool,
}

/// What an element's `xml:base` is, once its base is pushed or not.
enum XmlBase {
    /// No base: a value as any other, against the base around it.
    Value,
    /// A base, relative to one a reader finds too: left as written.
    Kept,
    /// A base, made the base it sets (or absolute already): its new bytes,
    /// if it changes, and what the link report hears of it.
    Made {
        new: Option<Vec<u8>>,
        heard: Option<Box<PlacedLink>>,
    },
}

/// A link, heard where its value stands among the element's others.
struct PlacedLink {
    link: Link,
    /// Where its URL starts in the value's text.
    at: usize,
    text: Text,
    raw: Vec<u8>,
}

/// Which base a value resolves against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scope {
    /// The one in scope.
    InScope,
    /// The document's layers, below its `<base href>`: that element's own
    /// value, made the base it sets.
    BelowEmbedded,
}

/// How a value is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// By the syntax of its kind (one URL, CSS, the page table's kinds).
    Syntax(Kind),
    /// As a page of its own, by the page engine (the HTML of a feed).
    Page,
}

impl<W: Write> Engine<W> for Document<W> {
    fn new(
        config: Arc<Config>,
        layers: Layers,
        output: Output<W>,
        transcoded: Option<Chosen>,
        allowance: Rc<Allowance>,
    ) -> Self {
        Document {
            scopes: Scopes::new(layers.outer(), config.standard),
            config,
            layers,
            out: BufWriter::with_capacity(CHUNK, output),
            write_error: None,
            held: Vec::new(),
            head: 0,
            emitted: 0,
            pos: 0,
            searched: 0,
            begun: false,
            bom: false,
            chosen: None,
            transcoded,
            elements: Vec::new(),
            stack_bytes: 0,
            holding: allowance.budget(),
            entities_held: allowance.budget(),
            allowance,
            namespaces: Namespaces::default(),
            entities: Entities::default(),
            xml_bases: Vec::new(),
            lookahead: None,
            embedded: None,
            embedded_base: None,
            refused: None,
            collecting: None,
            root: None,
            root_ended: false,
            stopped: false,
            bases: 0,
            counts: Counts::default(),
            warnings: Warnings::default(),
            listener: None,
            lines: None,
            lines_at: 0,
        }
    }

    /// XML 1.0 Appendix F: `<?` in UTF-16 with no byte order mark is
    /// UTF-16; UTF-32 (by its mark or its first bytes), UCS-4 and EBCDIC
    /// are refused by name, since encoding_rs reads none of them.
    fn by_first_bytes(first: &[u8]) -> Result<Option<&'static Encoding>, Error> {
        match appendix_f(first) {
            None => Ok(None),
            Some((Appendix::Utf16(encoding), _)) => Ok(Some(encoding)),
            Some((other, _)) => Err(Error::Encoding(format!(
                "`{}` (by its first bytes, XML 1.0 Appendix F) cannot be read: htmlabs reads UTF-8, UTF-16 and ASCII-compatible encodings; convert the document first",
                other.name()
            ))),
        }
    }

    fn tell(&mut self, tell: Tell) {
        self.warnings.tell(tell);
    }

    fn listen(&mut self, hear: Hear) {
        self.listener = Some(Listener::new(hear));
        // Lines are followed from the start, in UTF-8 until the encoding
        // is known: what comes before it is markup, ASCII in every encoding
        // the engine reads as bytes.
        self.lines = Some(Lines::new(UTF_8, Position::default()));
        self.lines_at = 0;
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        if self.stopped {
            self.emit(bytes);
            return self.check();
        }
        // What was written out goes, before more comes.
        if self.head > 0 {
            self.advance_lines(self.emitted);
            self.held.drain(..self.head);
            self.head = 0;
        }
        self.held.extend_from_slice(bytes);
        self.run(false);
        self.check()
    }

    fn stop(&mut self, warning: Warning) -> Result<(), Error> {
        if !self.stopped {
            self.stop(warning);
        }
        let to = self.held_end();
        self.emit_to(to);
        // Out through the writer before it writes the input's own bytes.
        if self.write_error.is_none()
            && let Err(e) = self.out.flush()
        {
            self.write_error = Some(e);
        }
        self.check()
    }

    fn end(mut self) -> Result<(Report, Output<W>), Error> {
        self.run(true);
        self.decide(None);
        if let Some(refused) = self.refused.take() {
            return Err(refused);
        }
        if !self.stopped {
            let end = self.held_end();
            if let Some(open) = self.elements.last() {
                let name = shown(&[b"<", &open.name[..], b">"].concat()).into_owned();
                self.stop(Warning::NotWellFormed {
                    offset: end,
                    why: format!("the input ends inside `{name}`"),
                });
            } else if self.root.is_none() {
                self.stop(Warning::NotWellFormed {
                    offset: end,
                    why: "no root element".to_owned(),
                });
            }
        }
        let rest = self.held.split_off(self.head);
        self.emit(&rest);
        self.check()?;
        let output = self
            .out
            .into_inner()
            .map_err(|e| Error::Write(e.into_error()))?;
        let base = self
            .embedded_base
            .take()
            .unwrap_or_else(|| self.layers.outer());
        let report = Report {
            base,
            layers: self.layers,
            decision: self
                .embedded
                .unwrap_or(Decision::XmlBase { bases: self.bases }),
            encoding: self.chosen.expect("decided"),
            counts: self.counts,
            warnings: self.warnings.into_vec(),
            anchors: None,
        };
        Ok((report, output))
    }
}

impl<W: Write> Document<W> {
    fn held_end(&self) -> usize {
        self.emitted - self.head + self.held.len()
    }

    /// The input held at `range` (offsets of the input).
    fn bytes(&self, range: Range<usize>) -> &[u8] {
        let held_at = self.emitted - self.head;
        &self.held[range.start - held_at..range.end - held_at]
    }

    fn check(&mut self) -> Result<(), Error> {
        if let Some(refused) = self.refused.take() {
            return Err(refused);
        }
        match self.write_error.take() {
            Some(e) => Err(Error::Write(e)),
            None => Ok(()),
        }
    }

    fn emit(&mut self, bytes: &[u8]) {
        if self.write_error.is_none()
            && self.refused.is_none()
            && let Err(e) = self.out.write_all(bytes)
        {
            self.write_error = Some(e);
        }
    }

    /// Writes out the input up to `to`.
    fn emit_to(&mut self, to: usize) {
        if to <= self.emitted {
            return;
        }
        let held_at = self.emitted - self.head;
        let (start, end) = (self.head, to - held_at);
        if self.write_error.is_none()
            && self.refused.is_none()
            && let Err(e) = self.out.write_all(&self.held[start..end])
        {
            self.write_error = Some(e);
        }
        self.head = end;
        self.emitted = to;
    }

    /// Writes out the input up to `range`, then `new` in its place.
    fn replace(&mut self, range: Range<usize>, new: &[u8]) {
        self.emit_to(range.start);
        self.emit(new);
        self.head += range.end - self.emitted;
        self.emitted = range.end;
    }

    /// Rewriting stops: the warning says why, and what is held and all
    /// that follows goes out as it came.
    fn stop(&mut self, warning: Warning) {
        self.warnings.push(warning);
        self.stopped = true;
        self.collecting = None;
    }

    /// The memory limit is passed if holding what is held up to `to`, and
    /// the element stack, needs more than the document's allowance has.
    fn over_limit(&mut self, to: usize) -> bool {
        let need = (to - self.emitted) + self.stack_bytes;
        let taken = self.holding.taken();
        if need <= taken {
            self.holding.give(taken - need);
            return false;
        }
        if self.holding.take(need - taken).is_ok() {
            return false;
        }
        self.stop(Warning::MemoryLimit {
            limit: self.allowance.named(),
            offset: self.emitted,
        });
        true
    }

    /// The document's encoding, once what could declare it is read: a byte
    /// order mark (or UTF-16, transcoded), `--encoding`, the transport
    /// layer's charset, the XML declaration, else UTF-8.
    fn decide(&mut self, declared: Option<&[u8]>) {
        if self.chosen.is_some() {
            return;
        }
        let declared = declared
            .and_then(|label| Encoding::for_label(label.trim_ascii()))
            // The declaration was read as ASCII: a UTF-16 one is wrong
            // (UTF-16 is told by its first bytes), and the bytes are
            // UTF-8's, as HTML reads `<meta charset=utf-16>`.
            .map(|e| {
                if e == UTF_16LE || e == UTF_16BE {
                    UTF_8
                } else {
                    e
                }
            });
        let (encoding, source) = if let Some(chosen) = self.transcoded {
            (chosen.encoding, chosen.source)
        } else if self.bom {
            (UTF_8, EncodingSource::Bom)
        } else if let Some(e) = self.config.encoding {
            (e, EncodingSource::Flag)
        } else if let Some(c) = self.layers.charset() {
            (c.encoding, EncodingSource::Transport { from: c.from })
        } else if let Some(e) = declared {
            (e, EncodingSource::Declaration)
        } else {
            (UTF_8, EncodingSource::Default)
        };
        if self.transcoded.is_none() && !encoding.is_ascii_compatible() {
            // ISO-2022-JP: its bytes are not read as ASCII, and what is
            // decoded could not be written back as it came. The page
            // engine refuses it too; nothing is written.
            self.refused = Some(Error::unsupported(encoding));
            self.stopped = true;
            self.chosen = Some(Chosen { encoding, source });
            return;
        }
        self.chosen = Some(Chosen { encoding, source });
        if self.lines.is_some() {
            let here = self.position(self.pos);
            self.lines = Some(Lines::new(self.encoding(), here));
        }
    }

    /// The encoding the bytes here are in: UTF-8 when UTF-16 was
    /// transcoded.
    fn encoding(&self) -> &'static Encoding {
        match (self.transcoded, self.chosen) {
            (Some(_), _) | (None, None) => UTF_8,
            (None, Some(chosen)) => chosen.encoding,
        }
    }

    /// Follows the line and column to `to`, which is held (or just
    /// written out).
    fn advance_lines(&mut self, to: usize) {
        let Some(lines) = &mut self.lines else {
            return;
        };
        if to <= self.lines_at {
            return;
        }
        let held_at = self.emitted - self.head;
        let from = self.lines_at.max(held_at);
        lines.advance(&self.held[from - held_at..to - held_at]);
        self.lines_at = to;
    }

    /// The line and column of `at`, which is held.
    fn position(&mut self, at: usize) -> Position {
        self.advance_lines(at);
        self.lines
            .as_ref()
            .map_or_else(Position::default, Lines::position)
    }

    /// Reads all that can be read of what is held; at the `end` of input,
    /// all of it. Once rewriting has stopped, what is held goes out, before
    /// anything that comes after it.
    fn run(&mut self, end: bool) {
        self.read(end);
        if self.stopped && self.refused.is_none() {
            let to = self.held_end();
            self.emit_to(to);
        }
    }

    fn read(&mut self, end: bool) {
        loop {
            if self.stopped {
                return;
            }
            let held_at = self.emitted - self.head;
            let i = self.pos - held_at;
            if i >= self.held.len() {
                return;
            }
            if !self.begun {
                let rest = &self.held[i..];
                const BOM: &[u8] = b"\xEF\xBB\xBF";
                if rest.len() < 3 && BOM.starts_with(rest) && !end {
                    return;
                }
                self.begun = true;
                if rest.starts_with(BOM) {
                    self.bom = true;
                    self.pos += 3;
                    self.emit_to(self.pos);
                }
                continue;
            }
            if self.held[i] == b'<' {
                if !self.construct(end) {
                    return;
                }
            } else {
                self.text(i);
            }
        }
    }

    /// Character data, from `held[i]` to the next `<` or what is held.
    fn text(&mut self, i: usize) {
        let rest = &self.held[i..];
        let n = memchr::memchr(b'<', rest).unwrap_or(rest.len());
        let start = self.pos;
        let end = start + n;
        if self.elements.is_empty() {
            let stray = rest[..n]
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
            if let Some(at) = stray {
                self.decide(None);
                let why = if self.root_ended {
                    "text after the root element"
                } else {
                    "text before the root element"
                };
                self.stop(Warning::NotWellFormed {
                    offset: start + at,
                    why: why.to_owned(),
                });
                return;
            }
        }
        self.pos = end;
        match &mut self.collecting {
            Some(collect) => {
                match collect.pieces.last_mut() {
                    Some(Piece::Escaped { range, quote: None }) if range.end == start => {
                        range.end = end;
                    }
                    _ => collect.pieces.push(Piece::Escaped {
                        range: start..end,
                        quote: None,
                    }),
                }
                self.over_limit(end);
            }
            None => self.emit_to(end),
        }
    }

    /// The construct at `pos`, once it is whole: false when it is not yet.
    fn construct(&mut self, end: bool) -> bool {
        let held_at = self.emitted - self.head;
        let i = self.pos - held_at;
        // Every construct ends with a `>`: none new, none whole.
        let from = self.searched.max(self.pos + 1);
        if !end && memchr::memchr(b'>', &self.held[from - held_at..]).is_none() {
            self.searched = self.held_end();
            let to = self.held_end();
            self.over_limit(to);
            return false;
        }
        let encoding = self.encoding();
        let parsed = {
            let Document {
                held,
                namespaces,
                entities,
                pos,
                allowance,
                ..
            } = &mut *self;
            let cx = Context {
                namespaces,
                entities,
                given: *pos,
                encoding,
                room: allowance.total(),
            };
            parse(&held[i..], *pos, cx)
        };
        let (parsed, len) = parsed;
        // What holding the construct takes counts first, whatever it is:
        // where the limit stops rewriting never depends on the writes.
        if !matches!(parsed, Err(Unparsed::Incomplete(_))) && self.over_limit(self.pos + len) {
            return true;
        }
        let item = match parsed {
            Ok(item) => item,
            Err(Unparsed::Incomplete(_)) if !end => {
                self.searched = self.held_end();
                let to = self.held_end();
                self.over_limit(to);
                return false;
            }
            Err(Unparsed::Incomplete(why)) => {
                self.decide(None);
                self.stop(Warning::NotWellFormed {
                    offset: self.pos,
                    why,
                });
                return true;
            }
            Err(Unparsed::NotWellFormed { at, why }) => {
                self.decide(None);
                self.stop(Warning::NotWellFormed {
                    offset: self.pos + at,
                    why,
                });
                return true;
            }
            Err(Unparsed::Expansion { at }) => {
                self.decide(None);
                self.stop(Warning::EntityExpansion {
                    offset: self.pos + at,
                });
                return true;
            }
            Err(Unparsed::Over { at }) => {
                self.decide(None);
                self.stop(Warning::MemoryLimit {
                    limit: self.allowance.named(),
                    offset: self.pos + at,
                });
                return true;
            }
        };
        if !self.base_decided(&item, end) {
            // Read again, whole, once the reading ahead has decided.
            self.namespaces.pop();
            self.searched = self.held_end();
            let to = self.held_end();
            self.over_limit(to);
            return false;
        }
        if self.stopped {
            return true;
        }
        self.searched = 0;
        let at = self.pos;
        self.handle(item, at, len);
        true
    }

    /// Whether an XHTML document's `<base href>` is decided, if `item` is
    /// its root element's start tag: its values wait for it.
    fn base_decided(&mut self, item: &Item, end: bool) -> bool {
        if self.root.is_some() || self.stopped {
            return true;
        }
        let Item::Start {
            ns: Ns::Xhtml,
            name,
            local,
            ..
        } = item
        else {
            return true;
        };
        if name[*local..] != *b"html" {
            return true;
        }
        self.decide(None);
        let encoding = self.encoding();
        let held_at = self.emitted - self.head;
        let lookahead = self
            .lookahead
            .get_or_insert_with(|| Lookahead::new(self.pos));
        let Some(found) = lookahead.read(
            &self.held[self.pos - held_at..],
            self.pos,
            end,
            self.config.lookahead(),
            &mut self.entities,
            encoding,
        ) else {
            return false;
        };
        // Holding what it read counts before what it found: while it read,
        // the input held was counted as it came (in small writes), so the
        // limit stops it here whether the input came whole or not.
        let reached = lookahead.reached();
        self.lookahead = None;
        if self.over_limit(reached) {
            return true;
        }
        let decision = match found {
            head::Found::Base {
                offset,
                value,
                quote,
            } => {
                let raw = &self.held[value.start - held_at..value.end - held_at];
                let pieces = [Piece::Escaped {
                    range: 0..raw.len(),
                    quote: Some(quote),
                }];
                let room = self.allowance.left();
                let read = Text::read_with(
                    raw,
                    &pieces,
                    encoding,
                    &mut self.entities,
                    value.start,
                    room,
                );
                let href = match &read {
                    Ok(text) => text.text.trim_matches(is_xml_space).to_owned(),
                    Err(_) => String::from_utf8_lossy(raw).into_owned(),
                };
                let base = match read {
                    Ok(_) => self
                        .layers
                        .embedded(&href, offset, self.config.standard)
                        .map_err(|why| why.to_string()),
                    Err(_) => Err("its value cannot be read".to_owned()),
                };
                match base {
                    Ok(base) => {
                        self.scopes.embed(base.clone());
                        self.embedded_base = Some(base);
                    }
                    Err(why) => self.warnings.push(Warning::BaseIgnored {
                        offset,
                        href: href.clone(),
                        why,
                    }),
                }
                Decision::Base {
                    offset,
                    href,
                    value,
                }
            }
            head::Found::HeadOver { offset } => Decision::HeadOver { offset },
            head::Found::Limit => {
                self.warnings.push(Warning::LookaheadLimit {
                    limit: self.config.lookahead(),
                });
                Decision::Limit
            }
            head::Found::End => Decision::End,
        };
        self.embedded = Some(decision);
        true
    }

    fn handle(&mut self, item: Item, at: usize, len: usize) {
        let first = self.chosen.is_none();
        match item {
            Item::Declaration { encoding } if first && self.root.is_none() => {
                self.decide(encoding.as_deref());
            }
            Item::Declaration { .. } | Item::Other => self.decide(None),
            Item::Stylesheet { href } => {
                self.decide(None);
                // Only the document's own: one inside an element loads
                // nothing.
                if let Some((value, quote)) = href
                    && self.elements.is_empty()
                {
                    self.stylesheet(value, quote);
                }
            }
            Item::DocType(range) => {
                self.decide(None);
                let encoding = self.encoding();
                let doctype = &self.held[range.start - (self.emitted - self.head)
                    ..range.end - (self.emitted - self.head)];
                // The entities it declares are kept to the end: their
                // names and texts, at most its own bytes, and each entry's.
                let kept = 2 * doctype.len() + 4096;
                self.entities.declare(doctype, encoding);
                if self.entities_held.take(kept).is_err() {
                    let limit = self.allowance.named();
                    self.stop(Warning::MemoryLimit {
                        limit,
                        offset: range.start,
                    });
                }
            }
            Item::CData { content } => {
                self.decide(None);
                if let Some(collect) = &mut self.collecting {
                    collect.pieces.push(Piece::CData { range: content });
                } else if self.elements.is_empty() {
                    self.stop(Warning::NotWellFormed {
                        offset: at,
                        why: "a CDATA section outside the root element".to_owned(),
                    });
                    return;
                }
            }
            Item::Start {
                name,
                ns,
                local,
                attributes,
                empty,
                declared,
                unread,
            } => {
                self.decide(None);
                self.pos = at + len;
                for (offset, name) in unread {
                    self.warnings.push(Warning::Entity { offset, name });
                }
                let open = Open {
                    // Its name, the namespaces it declares (their bytes,
                    // and each prefix's stack slot, twice as much), and
                    // what follows each open element (its mark among the
                    // namespaces in scope, whether it bears an
                    // `xml:base`).
                    bytes: name.len() + 2 * declared + std::mem::size_of::<Open>() + 16,
                    name,
                    ns,
                    local,
                    based: false,
                    bears_base: false,
                };
                self.start(at, open, attributes, empty);
                if !self.stopped && empty {
                    self.end_element(at);
                }
                if !self.stopped && self.collecting.is_none() {
                    self.emit_to(self.pos);
                }
                return;
            }
            Item::End { name } => {
                self.decide(None);
                let matches = self.elements.last().is_some_and(|open| open.name == name);
                if !matches {
                    let tag = |open: &[u8], name: &[u8], close: &[u8]| {
                        shown(&[open, name, close].concat()).into_owned()
                    };
                    let end = tag(b"</", &name, b">");
                    let why = match self.elements.last() {
                        Some(open) => format!("`{end}` ends `{}`", tag(b"<", &open.name, b">")),
                        None => format!("`{end}` ends no element"),
                    };
                    self.stop(Warning::NotWellFormed { offset: at, why });
                    return;
                }
                self.pos = at + len;
                self.end_element(at);
                if !self.stopped && self.collecting.is_none() {
                    self.emit_to(self.pos);
                }
                return;
            }
        }
        self.pos = at + len;
        if self.collecting.is_none() {
            self.emit_to(self.pos);
        }
    }

    /// A start tag at `at`, whose end is `pos`.
    fn start(&mut self, at: usize, mut open: Open, attributes: Vec<Attribute>, empty: bool) {
        if self.root_ended {
            self.stop(Warning::NotWellFormed {
                offset: at,
                why: "a second root element".to_owned(),
            });
            return;
        }
        if self.elements.len() >= MAX_DEPTH {
            self.stop(Warning::XmlDepth {
                offset: at,
                limit: MAX_DEPTH,
            });
            return;
        }
        // Markup inside a value: it is no value (mixed content), and stays
        // as it is.
        self.collecting = None;
        let ns = open.ns;
        let element = open.name();
        if self.root.is_none() && self.scopes.is_empty() {
            self.warnings.push(Warning::NoXmlBase);
        }
        if self.root.is_none()
            && ns == Ns::Svg
            && element.local == b"svg"
            && self.config.local.is_some()
        {
            // An SVG file's links, under `--relative`, as a page's.
            self.scopes.in_file(self.layers.own());
        }
        let root = *self.root.get_or_insert(Root::of(ns, element.local));
        let parent = self.elements.last().map(Open::name);
        // An attribute's value as written, for the rows' conditions.
        let held_at = self.emitted - self.head;
        let value_of = |name: &str| {
            attributes
                .iter()
                .find(|a| &*a.name == name.as_bytes())
                .map(|a| {
                    String::from_utf8_lossy(
                        &self.held[a.value.start - held_at..a.value.end - held_at],
                    )
                    .into_owned()
                })
        };
        let content = vocabulary::content(root, element, parent, value_of);
        let mut values = Vec::new();
        let mut xml_base = None;
        for (i, a) in attributes.iter().enumerate() {
            if a.ns == Ns::Xml && a.name().local == b"base" {
                xml_base = Some(i);
                continue;
            }
            let found = vocabulary::attribute(
                &self.config.table,
                root,
                element,
                a.name(),
                &a.name,
                value_of,
            );
            if let Some(value) = found {
                values.push((i, value));
            }
        }
        let svg = ns == Ns::Svg;
        let depth = self.elements.len() + 1;
        let path = self.listener.is_some().then(|| self.path(&open.name));
        // The values of an XHTML document's `<base>` elements: the first
        // in the head set the base, and resolves against the layers below
        // it; any other is said to be ignored.
        let base_element = ns == Ns::Xhtml
            && element.local == b"base"
            && !matches!(self.embedded, None | Some(Decision::XmlBase { .. }));
        let deciding_value = match &self.embedded {
            Some(Decision::Base { value, .. }) if base_element => Some(value.clone()),
            _ => None,
        };
        let deciding = |a: &Attribute| deciding_value.as_ref() == Some(&a.value);
        if base_element {
            for a in attributes.iter().filter(|a| &*a.name == b"href") {
                if deciding(a) {
                    continue;
                }
                let why = match self.embedded {
                    Some(Decision::Base { .. }) => "only the first `<base href>` counts",
                    Some(Decision::Limit) => "it comes after the lookahead limit",
                    _ => "it comes after the head (browsers would use it)",
                };
                let raw = self.bytes(a.value.clone());
                self.warnings.push(Warning::BaseIgnored {
                    offset: at,
                    href: String::from_utf8_lossy(raw).into_owned(),
                    why: why.to_owned(),
                });
            }
        }
        // The element's own `xml:base` is in scope for its other values.
        let mut base = None;
        if let Some(i) = xml_base {
            match self.xml_base(&attributes[i], path.is_some()) {
                Ok(made) => {
                    open.based = !matches!(made, XmlBase::Value);
                    open.bears_base = true;
                    // Its level of the bases in scope, while it is open:
                    // the href, or what it changed of the base around it
                    // (at most as long), and a level's own fields.
                    open.bytes += 2 * attributes[i].value.len() + 64;
                    self.xml_bases.push(open.based);
                    values.push((i, vocabulary::Value::XML_BASE));
                    values.sort_by_key(|(i, _)| *i);
                    base = Some(made);
                }
                Err(stop) => {
                    self.stop(stop);
                    return;
                }
            }
        }
        // Each value in turn, so that the report hears them in order.
        for (i, value) in values {
            let a = &attributes[i];
            if Some(i) == xml_base {
                match base.take().expect("made above") {
                    XmlBase::Kept => continue,
                    XmlBase::Made { new, heard } => {
                        if let (Some(heard), Some(path)) = (heard, &path) {
                            let start = self.position(a.value.start);
                            let encoding = self.encoding();
                            let attribute = String::from_utf8_lossy(&a.name);
                            if let Some(listener) = &mut self.listener {
                                listener.found(Found {
                                    at: At::Decoded(heard.at),
                                    link: heard.link,
                                });
                                listener.value_done(
                                    start,
                                    &heard.raw,
                                    encoding,
                                    (&path.clone().into(), &attribute.into_owned().into()),
                                    |at| heard.text.raw_offset(at),
                                );
                            }
                        }
                        if let Some(new) = new {
                            self.replace(a.value.clone(), &new);
                        }
                        continue;
                    }
                    // Not a base: a value against the base around it, which
                    // is the one in scope.
                    XmlBase::Value => {}
                }
            }
            let pieces = vec![Piece::Escaped {
                range: 0..a.value.len(),
                quote: Some(a.quote),
            }];
            let element = Element {
                svg: value.svg,
                codebase: None,
                empty: value.empty,
            };
            let names = path.as_ref().map(|p| {
                (
                    p.clone().into(),
                    String::from_utf8_lossy(&a.name).into_owned().into(),
                )
            });
            let scope = if deciding(a) {
                Scope::BelowEmbedded
            } else {
                Scope::InScope
            };
            match self.value(
                a.value.clone(),
                &pieces,
                Reading::Syntax(value.kind),
                element,
                scope,
                names,
            ) {
                Ok(Some(new)) => self.replace(a.value.clone(), &new),
                Ok(None) => {}
                Err(stop) => {
                    self.stop(stop);
                    return;
                }
            }
        }
        self.stack_bytes += open.bytes;
        self.elements.push(open);
        // An empty element holds no value, and none can be put in it.
        if let Some(content) = content.filter(|_| !empty) {
            self.collecting = Some(Collect {
                depth,
                content,
                start: self.pos,
                pieces: Vec::new(),
                svg,
            });
        }
    }

    /// The `href` of an `<?xml-stylesheet?>` that is the document's own
    /// (outside its root element), its value at `value` between `quote`:
    /// resolved against the document's base (XML Base: the base of a
    /// processing instruction outside the root is the document's, not an
    /// `xml:base`, nor an XHTML `<base href>`, which come after it). Under
    /// `--relative` it is made relative from the file, whatever the root:
    /// a browser that opens the copy reads it, a feed reader ignores it.
    fn stylesheet(&mut self, value: Range<usize>, quote: u8) {
        if self.stopped {
            return;
        }
        let own = self.config.local.is_some().then(|| self.layers.own());
        let before = self.scopes.in_file(own.flatten());
        let pieces = [Piece::Escaped {
            range: 0..value.len(),
            quote: Some(quote),
        }];
        // Its pseudo-attributes hold character references and XML's five
        // entities, no other: a value that refers to one (or is not
        // well-formed) loads nothing, and is left as it is.
        let raw = self.bytes(value.clone());
        let plain = Text::read_with(
            raw,
            &pieces,
            self.encoding(),
            &mut Entities::default(),
            0,
            room(&self.allowance, raw),
        );
        let names = Some((Cow::Borrowed("?xml-stylesheet"), Cow::Borrowed("href")));
        // `#id` names a stylesheet in the document itself (the
        // Recommendation's embedded stylesheets), which stays; empty, it
        // loads nothing.
        let element = Element {
            svg: true,
            codebase: None,
            empty: Empty::Nothing,
        };
        let rewritten = match plain {
            Ok(_) => self.value(
                value.clone(),
                &pieces,
                Reading::Syntax(Kind::Url),
                element,
                Scope::BelowEmbedded,
                names,
            ),
            Err(_) => Ok(None),
        };
        self.scopes.in_file(before);
        match rewritten {
            // A `>` written as `&gt;`: after a `?`, it would end the
            // instruction.
            Ok(Some(new)) => {
                let mut escaped = Vec::with_capacity(new.len());
                for &b in &new {
                    match b {
                        b'>' => escaped.extend_from_slice(b"&gt;"),
                        b => escaped.push(b),
                    }
                }
                self.replace(value, &escaped);
            }
            Ok(None) => {}
            Err(stop) => self.stop(stop),
        }
    }

    /// An element's `xml:base` attribute `a`: its base is pushed, and the
    /// value is made that base where a reader of the output would not find
    /// it otherwise. Relative to a base that a reader finds too (an outer
    /// `xml:base` made absolute), it stays as written: it resolves to the
    /// same there, and the output does not grow with the depth of nested
    /// bases. One that has a scheme stays; one that cannot be a base is a
    /// value as any other.
    fn xml_base(&mut self, a: &Attribute, listen: bool) -> Result<XmlBase, Warning> {
        let encoding = self.encoding();
        let raw = self.bytes(a.value.clone()).to_vec();
        let pieces = [Piece::Escaped {
            range: 0..raw.len(),
            quote: Some(a.quote),
        }];
        let room = room(&self.allowance, &raw);
        let read = Text::read_with(&raw, &pieces, encoding, &mut self.entities, self.pos, room);
        let text = match read {
            Ok(text) => text,
            Err(Unreadable::Expansion { at }) => {
                return Err(Warning::EntityExpansion {
                    offset: a.value.start + at,
                });
            }
            Err(Unreadable::Over { at }) => {
                return Err(Warning::MemoryLimit {
                    limit: self.allowance.named(),
                    offset: a.value.start + at,
                });
            }
            // Left as it is, with what reading it as a value says of it.
            Err(_) => return Ok(XmlBase::Value),
        };
        let core = crate::document::value::trimmed(&text.text);
        let href = text.text[core.clone()].to_owned();
        let absolute = self.config.standard.has_scheme(&href);
        // Relative to a base a reader finds too: it stays, and is no value.
        let kept = !absolute && self.xml_bases.last().copied().unwrap_or(false);
        // The base it resolves against, for the link report (whose line
        // holds it: resolving it costs what writing it does).
        let around = (listen && !kept).then(|| {
            self.scopes
                .resolution(encoding, &self.config, nest, &self.allowance)
                .base
                .clone()
        });
        if let Err(why) = self.scopes.push(&href, a.value.start) {
            self.warnings.push(Warning::XmlBaseIgnored {
                offset: a.value.start,
                href,
                why: why.to_string(),
            });
            return Ok(XmlBase::Value);
        }
        self.bases += 1;
        if kept {
            return Ok(XmlBase::Kept);
        }
        // Made the base it sets, as a `<base href>` is (mapped, as what
        // resolves against it is).
        let url = match absolute {
            true => href.clone(),
            false => self
                .scopes
                .resolution(encoding, &self.config, nest, &self.allowance)
                .base
                .url
                .to_string(),
        };
        let resolved = url.clone();
        let (url, mapped) = match self.config.map.apply(&url) {
            Some((mapped, rule)) => {
                let rule = std::sync::Arc::clone(rule);
                (
                    mapped.clone(),
                    Some(Box::new(Mapped {
                        url: mapped,
                        rule: Some(rule),
                        relative: None,
                    })),
                )
            }
            None => (url, None),
        };
        self.counts.seen += 1;
        let outcome = if url == href && absolute {
            self.counts.absolute += 1;
            Outcome::Absolute
        } else if url == href {
            self.counts.unchanged += 1;
            Outcome::Unchanged
        } else {
            self.counts.rewritten += 1;
            self.counts.by_kind[Kind::Url as usize] += 1;
            Outcome::Rewritten
        };
        let link = around.map(|base| Link {
            position: Position::default(),
            element: Cow::Borrowed(""),
            attribute: Cow::Borrowed(""),
            kind: Kind::Url,
            original: href.clone(),
            raw: None,
            absolute: Some(resolved),
            outcome,
            base,
            mapped,
        });
        let new = (outcome == Outcome::Rewritten).then(|| {
            let edit = crate::document::value::Edit {
                range: core.clone(),
                text: std::borrow::Cow::Owned(url),
            };
            text.apply(&raw, &pieces, &[edit], encoding)
        });
        Ok(XmlBase::Made {
            new,
            heard: link.map(|link| {
                Box::new(PlacedLink {
                    link,
                    at: core.start,
                    text,
                    raw,
                })
            }),
        })
    }

    /// The end of the innermost element, whose end tag is at `at` (or
    /// which is empty).
    fn end_element(&mut self, at: usize) {
        if self
            .collecting
            .as_ref()
            .is_some_and(|c| c.depth == self.elements.len())
        {
            let collect = self.collecting.take().expect("checked");
            let span = collect.start..at.max(collect.start);
            let pieces: Vec<Piece> = collect
                .pieces
                .into_iter()
                .map(|p| match p {
                    Piece::Escaped { range, quote } => Piece::Escaped {
                        range: range.start - span.start..range.end - span.start,
                        quote,
                    },
                    Piece::CData { range } => Piece::CData {
                        range: range.start - span.start..range.end - span.start,
                    },
                })
                .collect();
            let reading = match collect.content {
                Content::Url => Reading::Syntax(Kind::Url),
                Content::Css => Reading::Syntax(Kind::Css),
                Content::Html => Reading::Page,
            };
            // Empty content is no value: no element names its document
            // with nothing, and `<link></link>` is none.
            let element = Element {
                svg: collect.svg,
                codebase: None,
                empty: Empty::Nothing,
            };
            let names = self
                .listener
                .is_some()
                .then(|| (self.path(b"").into(), Cow::Borrowed("")));
            match self.value(
                span.clone(),
                &pieces,
                reading,
                element,
                Scope::InScope,
                names,
            ) {
                Ok(Some(new)) => self.replace(span, &new),
                Ok(None) => {}
                Err(stop) => {
                    self.stop(stop);
                    return;
                }
            }
        }
        let open = self.elements.pop().expect("an element is open");
        self.stack_bytes -= open.bytes;
        self.namespaces.pop();
        if open.based {
            self.scopes.pop();
        }
        if open.bears_base {
            self.xml_bases.pop();
        }
        if self.elements.is_empty() {
            self.root_ended = true;
        }
    }

    /// The element path of a value, for the link report: the open
    /// elements' names as written, and `last` after them. Bounded, so that
    /// the report grows no faster than the document: past
    /// [`PATH_ENDS`] names at either end, the names between are one `…`,
    /// and a name longer than [`PATH_NAME`] bytes is cut, with a `…`.
    fn path(&self, last: &[u8]) -> String {
        let count = self.elements.len() + usize::from(!last.is_empty());
        let name = |i: usize| match self.elements.get(i) {
            Some(open) => &*open.name,
            None => last,
        };
        let (first, end) = PATH_ENDS;
        let cut = count > first + end + 1;
        let shown = match cut {
            true => (0..first).chain(count - end..count),
            false => (0..count).chain(0..0),
        };
        let mut path = String::new();
        for i in shown {
            if cut && i == count - end {
                path.push_str("…/");
            }
            let name = name(i);
            if name.len() > PATH_NAME {
                let cut = String::from_utf8_lossy(&name[..PATH_NAME]);
                path.push_str(cut.trim_end_matches('\u{FFFD}'));
                path.push('…');
            } else {
                path.push_str(&String::from_utf8_lossy(name));
            }
            path.push('/');
        }
        path.pop();
        path
    }

    /// Reads the value at `span` (its `pieces` at offsets of it), as
    /// `reading` says, against the base at `scope`: its new bytes, or `None` to leave it. A value that is not
    /// well-formed stops rewriting there.
    fn value(
        &mut self,
        span: Range<usize>,
        pieces: &[Piece],
        reading: Reading,
        element: Element<'_>,
        scope: Scope,
        names: Option<(Cow<'static, str>, Cow<'static, str>)>,
    ) -> Result<Option<Vec<u8>>, Warning> {
        let kind = match reading {
            Reading::Syntax(kind) => kind,
            Reading::Page => Kind::Html,
        };
        let start = if self.listener.is_some() {
            self.position(span.start)
        } else {
            Position::default()
        };
        let encoding = self.encoding();
        let held_at = self.emitted - self.head;
        let given = self.pos;
        let Document {
            held,
            config,
            scopes,
            entities,
            counts,
            warnings,
            listener,
            allowance,
            ..
        } = self;
        let raw = &held[span.start - held_at..span.end - held_at];
        let read = Text::read_with(raw, pieces, encoding, entities, given, room(allowance, raw));
        if let Ok(text) = &read
            && matches!(reading, Reading::Syntax(kind) if kind.is_one_url())
            && listener.is_none()
            && config.map.is_empty()
            && config.local.is_none()
            && !scopes.is_empty()
            && config
                .standard
                .has_scheme(text.text.trim_matches(is_xml_space))
        {
            // Most values are absolute: they need no base, which may be
            // long and not yet resolved (the page engine's rule too).
            counts.seen += 1;
            counts.absolute += 1;
            return Ok(None);
        }
        let cx = match scope {
            Scope::InScope => scopes.resolution(encoding, config, nest, allowance),
            Scope::BelowEmbedded => scopes.below_embedded(encoding, config, nest, allowance),
        };
        // What the value's working copies may take; past it, rewriting
        // stops at the value, as the page engine's does.
        let mut budget = allowance.budget();
        let over = |OverBudget| Warning::MemoryLimit {
            limit: allowance.named(),
            offset: span.start,
        };
        let text = match read {
            Ok(text) => text,
            Err(Unreadable::Over { at }) => {
                return Err(Warning::MemoryLimit {
                    limit: allowance.named(),
                    offset: span.start + at,
                });
            }
            Err(Unreadable::Malformed { at, why }) => {
                return Err(Warning::NotWellFormed {
                    offset: span.start + at,
                    why: why.to_owned(),
                });
            }
            Err(Unreadable::Expansion { at }) => {
                return Err(Warning::EntityExpansion {
                    offset: span.start + at,
                });
            }
            Err(unreadable) => {
                let mut resolver =
                    Resolver::new(cx, counts, warnings, listener.as_mut(), &mut budget);
                let entity = match unreadable {
                    Unreadable::Entity { at, name } => {
                        resolver.unread(raw, kind).map_err(over)?;
                        Some(Warning::Entity {
                            offset: span.start + at,
                            name,
                        })
                    }
                    _ => {
                        resolver.undecodable(raw, span.start, kind).map_err(over)?;
                        None
                    }
                };
                if let Some(entity) = entity {
                    warnings.push(entity);
                }
                if let (Some(listener), Some((element, attribute))) = (listener, &names) {
                    listener.value_done(start, raw, encoding, (element, attribute), Some);
                }
                return Ok(None);
            }
        };
        let edits = if reading == Reading::Page {
            let mut done =
                feed_html::rewrite(&text.text, &cx.base, config, listener.is_some(), allowance);
            // Its edits stay taken while they are written.
            budget.absorb(std::mem::replace(&mut done.held, allowance.budget()));
            counts.add(&done.counts);
            let to_raw = |at: usize| span.start + text.raw_offset(at).unwrap_or(0);
            for warning in done.warnings {
                warnings.push(warning.mapped(to_raw));
            }
            if let (Some(listener), Some((path, _))) = (listener.as_mut(), &names) {
                for mut link in done.links {
                    if let crate::url::Layer::Embedded { offset } = &mut link.base.layer {
                        *offset = to_raw(*offset);
                    }
                    link.element = format!("{path}/{}", link.element).into();
                    listener.found(Found {
                        at: At::Decoded(link.position.offset),
                        link,
                    });
                }
            }
            done.edits
        } else if cx.base.is_empty() {
            // No base: nothing is resolved, nor parsed.
            Resolver::new(cx, counts, warnings, listener.as_mut(), &mut budget)
                .without_base(&text.text, kind)
                .map_err(over)?;
            Vec::new()
        } else {
            let mut resolver = Resolver::new(cx, counts, warnings, listener.as_mut(), &mut budget);
            // Content of white space only is empty too.
            let empty =
                element.empty == Empty::Nothing && text.text.trim_matches(is_xml_space).is_empty();
            let value = if empty { "" } else { &text.text };
            resolver
                .decoded(kind, element, value, span.start)
                .map_err(over)?
                .into_iter()
                .map(|e| e.into_owned())
                .collect()
        };
        if let (Some(listener), Some((element, attribute))) = (listener.as_mut(), &names) {
            listener.value_done(start, raw, encoding, (element, attribute), |at| {
                text.raw_offset(at)
            });
        }
        if edits.is_empty() {
            return Ok(None);
        }
        Ok(Some(text.apply(raw, pieces, &edits, encoding)))
    }
}

/// XML's white space (`S`): what is stripped around a URL.
fn is_xml_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// What reading the value `raw` may hold, its text and its map: the
/// document's share less the value's own bytes, which it holds already.
/// Of the share, not of what is left of it: what is left depends on how
/// the input was split into writes, and where rewriting stops must not.
fn room(allowance: &Allowance, raw: &[u8]) -> usize {
    allowance.total().saturating_sub(raw.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::Standard;

    fn layers() -> Layers {
        Layers::default()
            .with_retrieval(Standard::Rfc1808, "http://h/feed/", "-r")
            .unwrap()
    }

    /// What is held never grows with the document: a feed of 4 MB in
    /// writes of 4 KiB holds at most a write and an entry's value.
    #[test]
    fn what_is_held_stays_flat_in_the_documents_size() {
        let mut document: Document<Vec<u8>> = Engine::new(
            Arc::default(),
            layers(),
            Output::Bytes(Vec::new()),
            None,
            crate::document::memory::Allowance::standalone(64 << 20),
        );
        let item = "<item><link>a.html</link><description>&lt;a href=\"b.html\"&gt;b&lt;/a&gt; \
                    text text text text text text text text text text</description></item>\n";
        let mut feed = String::from("<rss version='2.0'><channel>\n");
        let mut items = 0;
        while feed.len() < 4 << 20 {
            feed.push_str(item);
            items += 1;
        }
        feed.push_str("</channel></rss>\n");
        let mut most = 0;
        for chunk in feed.as_bytes().chunks(4096) {
            document.write(chunk).unwrap();
            most = most.max(document.held.capacity());
        }
        assert!(most <= 16 << 10, "held up to {most} bytes");
        let (report, output) = document.end().unwrap();
        let Output::Bytes(output) = output else {
            unreachable!()
        };
        assert_eq!(report.counts.rewritten, 2 * items);
        assert_eq!(output.len(), feed.len() + report.counts.rewritten * 14);
    }

    /// The namespaces open elements declare are held while they are open,
    /// and count against the limit.
    #[test]
    fn namespaces_in_scope_count_against_the_memory_limit() {
        let declare = format!("<a xmlns:p='urn:{}'>", "x".repeat(100));
        let document = format!(
            "<feed xmlns='http://www.w3.org/2005/Atom'>{}",
            declare.repeat(20)
        );
        let config = Config {
            max_memory: 1000,
            ..Config::default()
        };
        let (out, report) =
            crate::xml::rewrite_bytes(config, layers(), document.as_bytes()).unwrap();
        assert_eq!(out, document.as_bytes());
        assert!(
            matches!(
                report.warnings.last(),
                Some(Warning::MemoryLimit { limit: 1000, .. })
            ),
            "{:?}",
            report.warnings
        );
    }

    /// Elements nested deeper than quick-xml's namespace scopes count stop
    /// rewriting there, with a warning; the rest is copied.
    #[test]
    fn elements_nested_too_deep_stop_rewriting_there() {
        let open = "<a>".repeat(MAX_DEPTH + 1);
        let document = format!(
            "<feed xmlns='http://www.w3.org/2005/Atom'><link href='x'/>{open}<link href='y'/>"
        );
        let (out, report) =
            crate::xml::rewrite_bytes(Config::default(), layers(), document.as_bytes()).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.starts_with(
            "<feed xmlns='http://www.w3.org/2005/Atom'><link href='http://h/feed/x'/>"
        ));
        assert!(out.ends_with("<link href='y'/>"));
        assert!(report.incomplete());
        let offset = "<feed xmlns='http://www.w3.org/2005/Atom'><link href='x'/>".len()
            + 3 * (MAX_DEPTH - 1);
        assert_eq!(
            report.warnings.last().unwrap().to_string(),
            format!(
                "elements nested deeper than 60000 at byte {offset}: rewriting stopped there, the rest is copied unchanged"
            )
        );
    }
}
