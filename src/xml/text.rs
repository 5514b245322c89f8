//! A value as XML writes it: pieces of escaped text (an attribute value,
//! character data) and CDATA sections, with whatever stands between them
//! (comments, processing instructions) kept but not read. Read, it is one
//! text with a map back to its bytes; edited, only the edited characters
//! change, written for the piece they land in: references in escaped text
//! (`&amp;`, `&lt;`), a split where CDATA would hold `]]>`. Every other byte,
//! the author's own references included (`&#60;` stays `&#60;`), stays as
//! it came.

use std::ops::Range;

use encoding_rs::{EncoderResult, Encoding, UTF_8};

use super::entities::{self, Entities, Unexpanded};
use crate::document::encoding::{self, Decoded};
use crate::document::value::Edit;

/// One piece of a value, its range relative to the value's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Escaped text: an attribute value between this quote (`b'"'` or
    /// `b'\''`), or character data (`None`).
    Escaped {
        range: Range<usize>,
        quote: Option<u8>,
    },
    /// The contents of a CDATA section, between `<![CDATA[` and `]]>`.
    CData { range: Range<usize> },
}

impl Piece {
    pub fn range(&self) -> &Range<usize> {
        match self {
            Piece::Escaped { range, .. } | Piece::CData { range } => range,
        }
    }
}

/// Why a value cannot be read: it is then left as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Not valid in the document's encoding.
    Undecodable,
    /// A reference to an entity only a DTD declares (`&nbsp;`).
    Entity { at: usize, name: String },
    /// Not well-formed: a `&` that starts no reference, a reference to no
    /// character, a `<` in an attribute value.
    Malformed { at: usize, why: &'static str },
    /// Its references to entities would expand past what the document may
    /// take ([`Entities`]).
    Expansion { at: usize },
    /// Read, it would hold more than the document has left of its share of
    /// the run's memory (`--max-memory`), `at` bytes into it: a value of
    /// many short references holds far more than its bytes.
    Over { at: usize },
}

/// A value read: its text, and where each part of it stands in its bytes.
#[derive(Debug)]
pub struct Text {
    pub text: String,
    segments: Vec<Segment>,
}

#[derive(Debug)]
struct Segment {
    text: Range<usize>,
    raw: Range<usize>,
    piece: usize,
    /// Literal text: its characters' bytes; `None` in UTF-8, where the two
    /// offsets move together. A reference has no map: only its ends
    /// stand anywhere in the bytes.
    literal: Option<Literal>,
}

/// What a text being read holds beyond its string and its map.
#[derive(Default)]
struct Held {
    decoded: usize,
}

impl Held {
    fn of(&self, text: &str, segments: &Vec<Segment>) -> usize {
        text.len() + segments.capacity() * std::mem::size_of::<Segment>() + self.decoded
    }
}

#[derive(Debug)]
enum Literal {
    Utf8,
    Decoded(Decoded),
}

impl Text {
    /// Reads the value whose bytes are `raw`, in `pieces`, in `encoding`
    /// (ASCII-compatible: `&`, `;` and `<` are never part of a longer
    /// character), in a document that declares no entity.
    #[cfg(test)]
    pub fn read(
        raw: &[u8],
        pieces: &[Piece],
        encoding: &'static Encoding,
    ) -> Result<Text, Unreadable> {
        Text::read_with(
            raw,
            pieces,
            encoding,
            &mut Entities::default(),
            0,
            usize::MAX,
        )
    }

    /// Reads the value in a document that declares `entities`, of
    /// which `given` bytes have been read (what expanding them may cost),
    /// holding at most `room` bytes (its text and its map).
    /// An attribute value is read as XML normalises it (§3.3.3): its
    /// literal white space as spaces, a CR LF as one.
    pub fn read_with(
        raw: &[u8],
        pieces: &[Piece],
        encoding: &'static Encoding,
        entities: &mut Entities,
        given: usize,
        room: usize,
    ) -> Result<Text, Unreadable> {
        let mut text = String::new();
        let mut segments = Vec::new();
        let mut held = Held::default();
        for (index, piece) in pieces.iter().enumerate() {
            let range = piece.range().clone();
            let escaped = match piece {
                Piece::Escaped { quote, .. } => Some(quote.is_some()),
                Piece::CData { .. } => None,
            };
            let mut at = range.start;
            while at < range.end {
                if held.of(&text, &segments) > room {
                    return Err(Unreadable::Over { at });
                }
                let bytes = &raw[at..range.end];
                let literal_end = match escaped {
                    Some(_) => memchr::memchr(b'&', bytes).unwrap_or(bytes.len()),
                    None => bytes.len(),
                };
                if escaped == Some(true)
                    && let Some(lt) = memchr::memchr(b'<', &bytes[..literal_end])
                {
                    return Err(Unreadable::Malformed {
                        at: at + lt,
                        why: "`<` in an attribute value",
                    });
                }
                let attribute = escaped == Some(true);
                let mut run_end = literal_end;
                let crlf = || {
                    let run = &bytes[..literal_end];
                    memchr::memchr_iter(b'\r', run).find(|&cr| run.get(cr + 1) == Some(&b'\n'))
                };
                if attribute && let Some(crlf) = crlf() {
                    if crlf == 0 {
                        // One space for two bytes: mapped as a reference is.
                        segments.push(Segment {
                            text: text.len()..text.len() + 1,
                            raw: at..at + 2,
                            piece: index,
                            literal: None,
                        });
                        text.push(' ');
                        at += 2;
                        continue;
                    }
                    run_end = crlf;
                }
                if run_end > 0 {
                    let run = &bytes[..run_end];
                    let start = text.len();
                    let literal = if encoding == UTF_8 || run.is_ascii() {
                        let run = std::str::from_utf8(run).map_err(|_| Unreadable::Undecodable)?;
                        push_literal(&mut text, run, attribute);
                        Literal::Utf8
                    } else {
                        let decoded = Decoded::new(run, encoding).ok_or(Unreadable::Undecodable)?;
                        push_literal(&mut text, &decoded.text, attribute);
                        held.decoded += decoded.size();
                        Literal::Decoded(decoded)
                    };
                    segments.push(Segment {
                        text: start..text.len(),
                        raw: at..at + run_end,
                        piece: index,
                        literal: Some(literal),
                    });
                    at += run_end;
                    continue;
                }
                // A reference, from `&` to `;`.
                let (reference, len) = reference(bytes).map_err(|e| match e {
                    Unreadable::Malformed { why, .. } => Unreadable::Malformed { at, why },
                    other => other,
                })?;
                let start = text.len();
                match reference {
                    Reference::Character(c) => text.push(c),
                    Reference::Entity(name) => {
                        let unread = |why| Unreadable::Malformed { at, why };
                        match entities.expand(name, attribute, given, &mut text) {
                            Ok(()) => {}
                            // Not read, or elements in content: left.
                            Err(Unexpanded::Unknown) | Err(Unexpanded::Markup) if !attribute => {
                                return Err(Unreadable::Entity {
                                    at,
                                    name: String::from_utf8_lossy(name).into_owned(),
                                });
                            }
                            Err(Unexpanded::Unknown) => {
                                return Err(Unreadable::Entity {
                                    at,
                                    name: String::from_utf8_lossy(name).into_owned(),
                                });
                            }
                            Err(Unexpanded::Markup) => {
                                return Err(unread("`<` in an attribute value, from an entity"));
                            }
                            Err(Unexpanded::Recursive) => {
                                return Err(unread("an entity that refers to itself"));
                            }
                            Err(Unexpanded::Malformed) => {
                                return Err(unread("an entity whose text is not well-formed"));
                            }
                            Err(Unexpanded::TooMuch) => return Err(Unreadable::Expansion { at }),
                        }
                    }
                }
                segments.push(Segment {
                    text: start..text.len(),
                    raw: at..at + len,
                    piece: index,
                    literal: None,
                });
                at += len;
            }
        }
        if held.of(&text, &segments) > room {
            return Err(Unreadable::Over { at: raw.len() });
        }
        Ok(Text { text, segments })
    }

    /// The offset in the value's bytes of `at` in its text, where the two
    /// line up: at a character of literal text, at the start of a reference.
    pub fn raw_offset(&self, at: usize) -> Option<usize> {
        if at == self.text.len() {
            return Some(self.segments.last().map_or(0, |s| s.raw.end));
        }
        let s = self.segment_at(at)?;
        let within = at - s.text.start;
        match &s.literal {
            None => (within == 0).then_some(s.raw.start),
            Some(Literal::Utf8) => Some(s.raw.start + within),
            Some(Literal::Decoded(d)) => d.byte_offset(within).map(|b| s.raw.start + b),
        }
    }

    /// The segment that holds the character at `at`.
    fn segment_at(&self, at: usize) -> Option<&Segment> {
        let i = self.segments.partition_point(|s| s.text.end <= at);
        self.segments.get(i).filter(|s| s.text.start <= at)
    }

    /// The value's new bytes: `raw` with `edits` (in order, of this text)
    /// made. An edit that starts or ends inside a reference takes the whole
    /// reference, written anew; bytes between the pieces stay.
    pub fn apply(
        &self,
        raw: &[u8],
        pieces: &[Piece],
        edits: &[Edit<'_>],
        encoding: &'static Encoding,
    ) -> Vec<u8> {
        let mut out =
            Vec::with_capacity(raw.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
        // Each edit widened to places that stand in the bytes; edits that
        // widening made meet are one.
        let mut groups: Vec<(Range<usize>, Vec<&Edit<'_>>)> = Vec::with_capacity(edits.len());
        // Each edit cut to the characters that change: a URL written anew
        // whole (`./x` made `http://h/x`) keeps what it shares with the old,
        // and with it the pieces that hold only that.
        let narrowed: Vec<Edit<'_>> = edits.iter().map(|e| narrowed(&self.text, e)).collect();
        for edit in &narrowed {
            let (mut a, mut b) = (edit.range.start, edit.range.end);
            while self.raw_offset(a).is_none() {
                a = self.segment_at(a).map_or(0, |s| s.text.start);
            }
            while self.raw_offset(b).is_none() {
                b = self.segment_at(b).map_or(self.text.len(), |s| s.text.end);
            }
            match groups.last_mut() {
                Some((range, group)) if range.end > a => {
                    range.end = range.end.max(b);
                    group.push(edit);
                }
                _ => groups.push((a..b, vec![edit])),
            }
        }
        let mut copied = 0;
        for (range, group) in &groups {
            let mut new = String::new();
            let mut cursor = range.start;
            for edit in group {
                new.push_str(&self.text[cursor..edit.range.start]);
                new.push_str(&edit.text);
                cursor = edit.range.end;
            }
            new.push_str(&self.text[cursor..range.end]);
            let (start, piece) = self.start_of(range.start, pieces);
            let end = if range.is_empty() {
                start
            } else {
                self.end_of(range.end)
            };
            out.extend_from_slice(&raw[copied..start]);
            // Up to two bytes either side, in the same piece: what new text
            // could make `]]>` with.
            let within = pieces
                .get(piece)
                .map_or(0..raw.len(), |p| p.range().clone());
            let before = &raw[within.start.max(start.saturating_sub(2))..start];
            let after = if end <= within.end {
                &raw[end..(end + 2).min(within.end)]
            } else {
                &[][..]
            };
            match pieces.get(piece) {
                Some(Piece::CData { .. }) => cdata(&new, before, after, encoding, &mut out),
                Some(Piece::Escaped { quote, .. }) => {
                    escaped(&new, *quote, after, encoding, &mut out)
                }
                None => escaped(&new, None, after, encoding, &mut out),
            }
            // What lies between the pieces the edit spans stays.
            let mut at = start;
            for r in pieces.iter().map(Piece::range) {
                if r.end <= at || r.start >= end {
                    continue;
                }
                if r.start > at {
                    out.extend_from_slice(&raw[at..r.start]);
                }
                at = r.end.min(end);
            }
            if at < end {
                out.extend_from_slice(&raw[at..end]);
            }
            copied = end;
        }
        out.extend_from_slice(&raw[copied..]);
        out
    }

    /// Where text offset `at` (a place [`raw_offset`](Self::raw_offset)
    /// maps) starts in the bytes, and the piece it is in: the piece of the
    /// character there, or of the last one at the end.
    fn start_of(&self, at: usize, pieces: &[Piece]) -> (usize, usize) {
        match self.segment_at(at) {
            Some(s) => (
                self.raw_offset(at).expect("widened to a mapped place"),
                s.piece,
            ),
            None => match self.segments.last() {
                Some(s) => (s.raw.end, s.piece),
                // Nothing read: an empty value, whose first piece takes
                // what is new.
                None => (pieces.first().map_or(0, |p| p.range().start), 0),
            },
        }
    }

    /// Where text offset `at` (> 0, mapped) ends a deletion in the bytes:
    /// the end of the character before it.
    fn end_of(&self, at: usize) -> usize {
        let s = self
            .segment_at(at - 1)
            .expect("a deletion ends after a character");
        if at == s.text.end {
            s.raw.end
        } else {
            self.raw_offset(at).expect("widened to a mapped place")
        }
    }
}

/// `edit` of `text`, without the characters it leaves as they are at
/// either end (on character boundaries of both).
fn narrowed<'e>(text: &str, edit: &Edit<'e>) -> Edit<'e> {
    let old = &text[edit.range.clone()];
    let new: &str = &edit.text;
    let boundary = |s: &str, i| s.is_char_boundary(i);
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !(boundary(old, prefix) && boundary(new, prefix)) {
        prefix -= 1;
    }
    let mut suffix = old[prefix..]
        .bytes()
        .rev()
        .zip(new[prefix..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !(boundary(old, old.len() - suffix) && boundary(new, new.len() - suffix)) {
        suffix -= 1;
    }
    if prefix == 0 && suffix == 0 {
        return edit.clone();
    }
    Edit {
        range: edit.range.start + prefix..edit.range.end - suffix,
        text: std::borrow::Cow::Owned(new[prefix..new.len() - suffix].to_owned()),
    }
}

/// What a reference stands for.
enum Reference<'a> {
    /// A character reference, or a predefined entity's (§4.6).
    Character(char),
    /// An entity's, by its name.
    Entity(&'a [u8]),
}

/// The reference at the start of `bytes`, and its length in bytes.
fn reference(bytes: &[u8]) -> Result<(Reference<'_>, usize), Unreadable> {
    let malformed = |why| Unreadable::Malformed { at: 0, why };
    let semicolon = bytes
        .iter()
        .take(64)
        .position(|&b| b == b';')
        .ok_or_else(|| malformed("a `&` that starts no reference"))?;
    let name = &bytes[1..semicolon];
    let reference = match name {
        b"lt" => Reference::Character('<'),
        b"gt" => Reference::Character('>'),
        b"amp" => Reference::Character('&'),
        b"apos" => Reference::Character('\''),
        b"quot" => Reference::Character('"'),
        [b'#', digits @ ..] => std::str::from_utf8(digits)
            .ok()
            .and_then(entities::character)
            .map(Reference::Character)
            .ok_or_else(|| malformed("a reference to no character"))?,
        _ if entities::is_name(name) => Reference::Entity(name),
        _ => return Err(malformed("a `&` that starts no reference")),
    };
    Ok((reference, semicolon + 1))
}

/// A run of literal characters appended to `text`: in an attribute value,
/// its white space as spaces (one byte for one, so its map stays).
fn push_literal(text: &mut String, run: &str, attribute: bool) {
    if attribute && run.contains(['\t', '\n', '\r']) {
        text.extend(run.chars().map(|c| {
            if matches!(c, '\t' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        }));
    } else {
        text.push_str(run);
    }
}

/// `new` written into escaped text (`quote: None`) or an attribute value
/// between `quote`: the characters that would be read otherwise as
/// references, and a `]]>` that character data may not hold (`after` is
/// what follows the insertion); then in the document's encoding, a
/// character it lacks as a reference.
fn escaped(
    new: &str,
    quote: Option<u8>,
    after: &[u8],
    encoding: &'static Encoding,
    out: &mut Vec<u8>,
) {
    let mut text = String::with_capacity(new.len() + 8);
    for c in new.chars() {
        match c {
            '&' => text.push_str("&amp;"),
            '<' => text.push_str("&lt;"),
            '>' if quote.is_none() => text.push_str("&gt;"),
            '"' if quote == Some(b'"') => text.push_str("&quot;"),
            '\'' if quote == Some(b'\'') => text.push_str("&apos;"),
            // Read as a space in an attribute value, and CR as LF in text
            // (XML 1.0 §2.11, §3.3.3): written as references, they stay.
            '\t' | '\n' if quote.is_some() => text.push_str(&format!("&#{};", c as u32)),
            '\r' => text.push_str("&#13;"),
            c => text.push(c),
        }
    }
    // Character data may not hold `]]>`: a `]` that would make one with
    // what follows is written as a reference.
    if quote.is_none() && text.ends_with(']') {
        let pair = text.ends_with("]]");
        if after.starts_with(b"]>") || (pair && after.starts_with(b">")) {
            text.pop();
            text.push_str("&#93;");
        }
    }
    encode(&text, encoding, true, out);
}

/// `new` written into a CDATA section, between `before` and `after` (up
/// to two bytes each of the same section): where `]]>` would stand, the
/// section ends and a new one starts, as XML requires.
fn cdata(new: &str, before: &[u8], after: &[u8], encoding: &'static Encoding, out: &mut Vec<u8>) {
    let mut bytes = Vec::with_capacity(new.len());
    encode(new, encoding, false, &mut bytes);
    let mut context = before.to_vec();
    context.extend_from_slice(&bytes);
    context.extend_from_slice(after);
    let (lb, li) = (before.len(), bytes.len());
    // The places in `bytes` where a section ends and starts again: between
    // the `]]` and the `>` of each `]]>` that takes a new byte, or between
    // its two `]` when the `>` is not new.
    let mut splits = Vec::new();
    for i in memchr::memmem::find_iter(&context, b"]]>") {
        if i + 3 <= lb || i >= lb + li {
            continue;
        }
        let split = if (lb..=lb + li).contains(&(i + 2)) {
            i + 2
        } else {
            i + 1
        };
        splits.push(split - lb);
    }
    let mut at = 0;
    for split in splits {
        out.extend_from_slice(&bytes[at..split]);
        out.extend_from_slice(b"]]><![CDATA[");
        at = split;
    }
    out.extend_from_slice(&bytes[at..]);
}

/// `text` in `encoding`: a character it lacks as a character reference
/// where references are read, else percent-encoded as UTF-8 (a URL's own
/// escape), as the page engine writes it.
fn encode(text: &str, encoding: &'static Encoding, references: bool, out: &mut Vec<u8>) {
    let output = encoding.output_encoding();
    if !references || output == UTF_8 || text.is_ascii() {
        encoding::encode_onto(text, encoding, out);
        return;
    }
    let mut encoder = output.new_encoder();
    let mut rest = text;
    loop {
        let mut buf = [0u8; 1024];
        let (result, read, written) =
            encoder.encode_from_utf8_without_replacement(rest, &mut buf, true);
        out.extend_from_slice(&buf[..written]);
        rest = &rest[read..];
        match result {
            EncoderResult::InputEmpty => return,
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(c) => {
                out.extend_from_slice(format!("&#x{:X};", c as u32).as_bytes())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use super::*;

    fn text_piece(raw: &[u8]) -> Vec<Piece> {
        vec![Piece::Escaped {
            range: 0..raw.len(),
            quote: None,
        }]
    }

    fn insert(at: usize, new: &str) -> Edit<'static> {
        Edit {
            range: at..at,
            text: Cow::Owned(new.to_owned()),
        }
    }

    #[test]
    fn references_are_read_and_offsets_map_outside_them() {
        let raw = b"&lt;a href=&quot;x&#47;y&quot;>";
        let t = Text::read(raw, &text_piece(raw), UTF_8).unwrap();
        assert_eq!(t.text, "<a href=\"x/y\">");
        assert_eq!(t.raw_offset(0), Some(0));
        assert_eq!(t.raw_offset(1), Some(4));
        assert_eq!(t.raw_offset(8), Some(11));
        assert_eq!(t.raw_offset(9), Some(17));
        assert_eq!(t.raw_offset(10), Some(18));
        assert_eq!(t.raw_offset(t.text.len()), Some(raw.len()));
    }

    #[test]
    fn what_cannot_be_read_says_why_and_where() {
        let read = |raw: &[u8]| Text::read(raw, &text_piece(raw), UTF_8).map(|t| t.text);
        assert_eq!(
            read(b"a&nbsp;b"),
            Err(Unreadable::Entity {
                at: 1,
                name: "nbsp".into()
            })
        );
        assert!(matches!(
            read(b"AT&T"),
            Err(Unreadable::Malformed { at: 2, .. })
        ));
        assert!(matches!(read(b"&#0;"), Err(Unreadable::Malformed { .. })));
        assert!(matches!(
            read(b"&#xD800;"),
            Err(Unreadable::Malformed { .. })
        ));
        assert_eq!(read(b"\xff"), Err(Unreadable::Undecodable));
        assert_eq!(read(b"&#x1F600;&#9;").unwrap(), "\u{1F600}\t");
        let attribute = [Piece::Escaped {
            range: 0..3,
            quote: Some(b'"'),
        }];
        assert!(matches!(
            Text::read(b"a<b", &attribute, UTF_8),
            Err(Unreadable::Malformed { at: 1, .. })
        ));
    }

    #[test]
    fn new_text_is_escaped_for_its_piece_and_the_rest_stays() {
        let raw = b"&#60;a href=\"/x?a=1&amp;amp;b\">";
        let pieces = text_piece(raw);
        let t = Text::read(raw, &pieces, UTF_8).unwrap();
        assert_eq!(t.text, "<a href=\"/x?a=1&amp;b\">");
        let out = t.apply(raw, &pieces, &[insert(9, "http://h/a&b<c>")], UTF_8);
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "&#60;a href=\"http://h/a&amp;b&lt;c&gt;/x?a=1&amp;amp;b\">"
        );
        let attribute = vec![Piece::Escaped {
            range: 0..4,
            quote: Some(b'\''),
        }];
        let t = Text::read(b"a'b\"", &attribute, UTF_8).unwrap();
        let out = t.apply(b"a'b\"", &attribute, &[insert(0, "'\"\n")], UTF_8);
        assert_eq!(out, b"&apos;\"&#10;a'b\"");
    }

    #[test]
    fn an_edit_inside_a_reference_takes_it_whole() {
        let raw = b"&#46;&#46;/g";
        let pieces = text_piece(raw);
        let t = Text::read(raw, &pieces, UTF_8).unwrap();
        assert_eq!(t.text, "../g");
        let edit = Edit {
            range: 1..4,
            text: Cow::Borrowed("X"),
        };
        // The first reference is not edited: it stays as it came.
        assert_eq!(t.apply(raw, &pieces, &[edit], UTF_8), b"&#46;X");
        let edit = Edit {
            range: 0..4,
            text: Cow::Borrowed("http://h/g"),
        };
        assert_eq!(t.apply(raw, &pieces, &[edit], UTF_8), b"http://h/g");
    }

    #[test]
    fn cdata_stays_cdata_and_never_holds_a_new_end() {
        // `<![CDATA[a]]><!-- c --><![CDATA[b]]>`, the pieces `a` and `b`.
        let raw = b"<![CDATA[a]]><!-- c --><![CDATA[b]]>";
        let pieces = vec![
            Piece::CData { range: 9..10 },
            Piece::CData { range: 32..33 },
        ];
        let t = Text::read(raw, &pieces, UTF_8).unwrap();
        assert_eq!(t.text, "ab");
        // A deletion across the comment keeps it; the new text goes in the
        // first section, unescaped.
        let edit = Edit {
            range: 0..2,
            text: Cow::Borrowed("x&<y"),
        };
        assert_eq!(
            t.apply(raw, &pieces, &[edit], UTF_8),
            b"<![CDATA[x&<y]]><!-- c --><![CDATA[]]>"
        );
        // New text goes where the character after it is: `b`'s section.
        let out = t.apply(raw, &pieces, &[insert(1, "]]>")], UTF_8);
        assert_eq!(out, b"<![CDATA[a]]><!-- c --><![CDATA[]]]]><![CDATA[>b]]>");
        // A `]]` that the text after ends with `>`.
        let raw = b"<![CDATA[>]]>";
        let pieces = vec![Piece::CData { range: 9..10 }];
        let t = Text::read(raw, &pieces, UTF_8).unwrap();
        let out = t.apply(raw, &pieces, &[insert(0, "x]]")], UTF_8);
        assert_eq!(out, b"<![CDATA[x]]]]><![CDATA[>]]>");
        let out = t.apply(raw, &pieces, &[insert(0, "x]")], UTF_8);
        assert_eq!(out, b"<![CDATA[x]>]]>");
    }

    #[test]
    fn escaped_text_never_makes_an_end_of_cdata() {
        let raw = b"]>";
        let pieces = text_piece(raw);
        let t = Text::read(raw, &pieces, UTF_8).unwrap();
        assert_eq!(
            t.apply(raw, &pieces, &[insert(0, "a]")], UTF_8),
            b"a&#93;]>"
        );
        let raw = b">";
        let t = Text::read(raw, &text_piece(raw), UTF_8).unwrap();
        assert_eq!(
            t.apply(raw, &text_piece(raw), &[insert(0, "]]")], UTF_8),
            b"]&#93;>"
        );
    }

    /// A URL written anew whole keeps what it shares with the old: the
    /// text after a processing instruction in it stays where it was.
    #[test]
    fn an_edit_changes_only_what_differs() {
        let raw = b"./c<?pi?>d";
        let pieces = vec![
            Piece::Escaped {
                range: 0..3,
                quote: None,
            },
            Piece::Escaped {
                range: 9..10,
                quote: None,
            },
        ];
        let t = Text::read(raw, &pieces, UTF_8).unwrap();
        assert_eq!(t.text, "./cd");
        let edit = Edit {
            range: 0..4,
            text: Cow::Borrowed("http://h/cd"),
        };
        assert_eq!(t.apply(raw, &pieces, &[edit], UTF_8), b"http://h/c<?pi?>d");
    }

    #[test]
    fn an_empty_value_takes_new_text_in_its_piece() {
        let raw = b"\"\"";
        let pieces = vec![Piece::Escaped {
            range: 1..1,
            quote: Some(b'"'),
        }];
        let t = Text::read(raw, &pieces, UTF_8).unwrap();
        assert_eq!(
            t.apply(raw, &pieces, &[insert(0, "http://h/")], UTF_8),
            b"\"http://h/\""
        );
    }

    #[test]
    fn other_encodings_map_by_character_and_write_what_they_lack_as_references() {
        let raw = b"\xE9&amp;/x";
        let pieces = text_piece(raw);
        let t = Text::read(raw, &pieces, encoding_rs::WINDOWS_1252).unwrap();
        assert_eq!(t.text, "\u{e9}&/x");
        assert_eq!(t.raw_offset(2), Some(1));
        assert_eq!(t.raw_offset(3), Some(6));
        let out = t.apply(
            raw,
            &pieces,
            &[insert(3, "\u{e8}\u{4e00}")],
            encoding_rs::WINDOWS_1252,
        );
        assert_eq!(out, b"\xE9&amp;\xE8&#x4E00;/x");
    }
}
