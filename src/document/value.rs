//! Attribute values as they stand in the source: quoting and character
//! references on the way in; edits spliced back into the source bytes, with
//! only what is new escaped, on the way out.

use std::borrow::Cow;
use std::ops::Range;

use encoding_rs::{Encoding, UTF_8};
use memchr::{memchr, memchr2};

use super::encoding;
use crate::document::memory::{Budget, OverBudget};
use crate::syntax::is_html_whitespace;

/// How the value was written: the byte before it tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    Double,
    Single,
    Unquoted,
    /// Not an attribute: the text of a raw-text element (`<style>`), where
    /// no character reference is read and none is written.
    Text,
}

impl Quote {
    /// From the byte just before the value: a quote opens a quoted value;
    /// anything else (`=`, whitespace) comes before an unquoted one.
    pub fn from_preceding(byte: u8) -> Self {
        match byte {
            b'"' => Quote::Double,
            b'\'' => Quote::Single,
            _ => Quote::Unquoted,
        }
    }
}

/// The range of `text` without the ASCII whitespace around it.
pub fn trimmed(text: &str) -> Range<usize> {
    let start = text.len() - text.trim_start_matches(is_html_whitespace).len();
    let end = text.trim_end_matches(is_html_whitespace).len().max(start);
    start..end
}

/// A raw value decoded: first with the document's encoding, then its
/// character references by the HTML rules for attribute values (a legacy
/// reference without `;` before an alphanumeric or `=` is not one:
/// `?a=1&timestamp=2` keeps its `&times`), with a map from offsets in the
/// decoded text back to the raw bytes.
#[derive(Debug)]
pub struct Decoded<'a> {
    raw: &'a [u8],
    encoding: &'static Encoding,
    /// The value in the document's encoding, decoded.
    source: ValueText<'a>,
    /// With its character references decoded; `None` when it has none: then
    /// it is `source`.
    text: Option<String>,
    /// One entry for each run of `source` that starts at a `&`: (decoded
    /// start, source start, decoded length, source length, length of the
    /// literal suffix the two share). Empty when the value has no `&`.
    segments: Vec<Segment>,
}

/// A UTF-8 value is text already: borrowed, its offsets those of the bytes.
/// Any other is decoded, with a map back to the bytes.
#[derive(Debug)]
enum ValueText<'a> {
    Utf8(&'a str),
    Decoded(encoding::Decoded),
}

impl<'a> ValueText<'a> {
    // Inlined into each value's decoding: called apart, it cost about 30
    // instructions a value (callgrind, 100,000 links).
    #[inline(always)]
    fn new(raw: &'a [u8], encoding: &'static Encoding) -> Option<Self> {
        if encoding == UTF_8 {
            return std::str::from_utf8(raw).ok().map(ValueText::Utf8);
        }
        encoding::Decoded::new(raw, encoding).map(ValueText::Decoded)
    }

    fn text(&self) -> &str {
        match self {
            ValueText::Utf8(text) => text,
            ValueText::Decoded(decoded) => &decoded.text,
        }
    }

    fn byte_offset(&self, at: usize) -> Option<usize> {
        match self {
            ValueText::Utf8(text) => (at <= text.len()).then_some(at),
            ValueText::Decoded(decoded) => decoded.byte_offset(at),
        }
    }
}

/// How long a value is, at most, for [`Decoded::cost`] to take its worst
/// case without looking.
const SHORT: usize = 256;

#[derive(Debug, Clone, Copy)]
struct Segment {
    decoded: usize,
    raw: usize,
    decoded_len: usize,
    raw_len: usize,
    literal_suffix: usize,
}

impl<'a> Decoded<'a> {
    /// The text of a raw-text element: decoded with the document's encoding
    /// only. `None` when `raw` is not valid in `encoding`.
    #[inline]
    pub fn text_only(raw: &'a [u8], encoding: &'static Encoding) -> Option<Self> {
        Some(Decoded {
            raw,
            encoding,
            source: ValueText::new(raw, encoding)?,
            text: None,
            segments: Vec::new(),
        })
    }

    /// An attribute value. `None` when `raw` is not valid in `encoding`.
    pub fn new(raw: &'a [u8], encoding: &'static Encoding) -> Option<Self> {
        let mut decoded = Decoded::text_only(raw, encoding)?;
        // By bytes: `&` is ASCII, which no byte of a longer character can be.
        let src = decoded.source.text();
        if memchr(b'&', src.as_bytes()).is_none() {
            return Some(decoded);
        }
        // A character reference starts at a `&` and holds none, and whether
        // a legacy one counts looks only at the character after it, which a
        // `&` never is: so each run from one `&` to the next decodes alone,
        // and only at its start.
        let mut text = String::with_capacity(src.len());
        let mut segments = Vec::new();
        let mut start = 0;
        while start < src.len() {
            // By bytes: the run may start with a character longer than one.
            let end =
                memchr(b'&', &src.as_bytes()[start + 1..]).map_or(src.len(), |i| start + 1 + i);
            let run = &src[start..end];
            let decoded_start = text.len();
            let literal_suffix = match run.strip_prefix("&amp;") {
                // Most references in URLs (`?a=1&amp;b=2`), and this one's
                // decoding is known: `&`, then the rest as written.
                Some(rest) => {
                    text.push('&');
                    text.push_str(rest);
                    rest.len()
                }
                None => {
                    let unescaped = htmlize::unescape_attribute(run);
                    text.push_str(&unescaped);
                    let literal_suffix = common_suffix(run, &unescaped);
                    if unescaped == run {
                        literal_suffix
                    } else {
                        // The first decoded character is the reference's,
                        // even when it equals the raw text's (`&#59;` is `;`).
                        literal_suffix.min(unescaped.len().saturating_sub(1))
                    }
                }
            };
            segments.push(Segment {
                decoded: decoded_start,
                raw: start,
                decoded_len: text.len() - decoded_start,
                raw_len: run.len(),
                literal_suffix,
            });
            start = end;
        }
        decoded.text = Some(text);
        decoded.segments = segments;
        Some(decoded)
    }

    /// The most memory [`Decoded::new`] takes for `raw`: nothing for UTF-8
    /// without references (it borrows the bytes); else the text decoded
    /// (a reference may decode longer than it is written: `&nGt;` is six
    /// bytes of UTF-8), and a segment for each `&`.
    pub fn cost(raw: &[u8], encoding: &'static Encoding) -> usize {
        let source = if encoding == UTF_8 {
            0
        } else {
            encoding::Decoded::cost(raw, encoding)
        };
        // A short value is not counted: at its worst it is still small.
        let amps = if raw.len() <= SHORT {
            raw.len()
        } else {
            memchr::memchr_iter(b'&', raw).count()
        };
        if amps == 0 {
            return source;
        }
        let text = if encoding == UTF_8 { raw.len() } else { source };
        source + text.saturating_mul(2) + amps * std::mem::size_of::<Segment>()
    }

    /// The most memory [`Decoded::text_only`] takes for `raw`.
    pub fn text_only_cost(raw: &[u8], encoding: &'static Encoding) -> usize {
        if encoding == UTF_8 {
            0
        } else {
            encoding::Decoded::cost(raw, encoding)
        }
    }

    pub fn text(&self) -> &str {
        self.text.as_deref().unwrap_or(self.source.text())
    }

    /// The raw byte offset of a decoded offset, where the two line up: at the
    /// start of a run and anywhere in its literal part, not inside a decoded
    /// reference, nor inside a character.
    pub fn raw_offset(&self, at: usize) -> Option<usize> {
        let in_source = self.source_offset(at)?;
        self.source.byte_offset(in_source)
    }

    fn source_offset(&self, at: usize) -> Option<usize> {
        if self.segments.is_empty() {
            return Some(at);
        }
        if at == self.text().len() {
            return Some(self.source.text().len());
        }
        let i = self.segments.partition_point(|s| s.decoded <= at) - 1;
        let s = self.segments[i];
        let from_end = s.decoded + s.decoded_len - at;
        if at == s.decoded {
            Some(s.raw)
        } else if from_end <= s.literal_suffix {
            Some(s.raw + s.raw_len - from_end)
        } else {
            None
        }
    }
}

fn common_suffix(a: &str, b: &str) -> usize {
    let n = a
        .bytes()
        .rev()
        .zip(b.bytes().rev())
        .take_while(|(x, y)| x == y)
        .count();
    // On a character boundary of both, so that offsets stay valid.
    (0..=n)
        .rev()
        .find(|&k| a.is_char_boundary(a.len() - k) && b.is_char_boundary(b.len() - k))
        .unwrap_or(0)
}

/// Replace `range` of the decoded text with `text`, which is already escaped
/// for the syntax it stands in (CSS, srcset, …) but not for HTML. Borrowed
/// when it is the base's own text (the usual prefix), so that it costs no
/// allocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit<'a> {
    pub range: Range<usize>,
    pub text: Cow<'a, str>,
}

impl Edit<'_> {
    /// The same edit, with a text of its own.
    pub fn into_owned(self) -> Edit<'static> {
        Edit {
            range: self.range,
            text: Cow::Owned(self.text.into_owned()),
        }
    }
}

/// The new raw value: `edits` (in order, not overlapping) applied. Where each
/// edit's range maps back to the raw bytes, those bytes are replaced and every
/// other byte stays as the author wrote it (entities and all); otherwise the
/// whole edited text is escaped anew. An unquoted value that now needs quotes
/// gets double quotes.
#[cfg(test)]
pub fn apply(decoded: &Decoded<'_>, edits: &[Edit<'_>], quote: Quote) -> Vec<u8> {
    let mut out = Vec::new();
    apply_into(
        decoded,
        edits,
        quote,
        &mut out,
        &mut Budget::new(usize::MAX),
    )
    .expect("no limit");
    out
}

/// The value's edits applied onto the end of `out` (a buffer the caller keeps), each byte
/// written, and each byte of a copy made on the way, taken from `budget`.
pub fn apply_into(
    decoded: &Decoded<'_>,
    edits: &[Edit<'_>],
    quote: Quote,
    out: &mut Vec<u8>,
    budget: &mut Budget,
) -> Result<(), OverBudget> {
    let encoding = decoded.encoding;
    let raw = decoded.raw;
    let raw_range = |e: &Edit<'_>| {
        let offset = |at| decoded.raw_offset(at).expect("mapped before");
        offset(e.range.start)..offset(e.range.end)
    };
    let mut out = Out {
        bytes: out,
        budget,
        took: 0,
    };
    // The usual case, one URL in a value that stays as quoted as it was: its
    // new text in place of its bytes. Where the value holds references, only
    // at its start: no reference before the new text can reach into it.
    if let [edit] = edits
        && !(quote == Quote::Unquoted && needs_quotes(&edit.text))
        && let (Some(start), Some(end)) = (
            decoded.raw_offset(edit.range.start),
            decoded.raw_offset(edit.range.end),
        )
        && (decoded.segments.is_empty() || start == 0)
    {
        return splice(
            raw,
            edits,
            std::iter::once(start..end),
            quote,
            encoding,
            &mut out,
        );
    }
    let maps = edits.iter().all(|e| {
        decoded.raw_offset(e.range.start).is_some() && decoded.raw_offset(e.range.end).is_some()
    });
    // Only an unquoted value can come to need quotes.
    let needs_new_quotes = quote == Quote::Unquoted && edits.iter().any(|e| needs_quotes(&e.text));
    // Splicing next to a character reference written without its `;` could
    // extend it (`&quot` + `h…` is no longer `"h…`): where the value holds
    // references, the spliced bytes must read back as the edited text.
    let spliced = maps && (decoded.segments.is_empty() || reads_back(decoded, edits, out.budget)?);
    match spliced {
        true if !needs_new_quotes => {
            let ranges = edits.iter().map(raw_range);
            splice(raw, edits, ranges, quote, encoding, &mut out)
        }
        // Quotes are added around the raw bytes, which then must not hold
        // the double quote themselves (an unquoted value may: a parse error
        // that the tokenizer keeps).
        true if !raw.contains(&b'"') => {
            out.put(b"\"")?;
            let ranges = edits.iter().map(raw_range);
            splice(raw, edits, ranges, Quote::Double, encoding, &mut out)?;
            out.put(b"\"")
        }
        _ => {
            let len = edited_len(decoded.text(), edits);
            out.budget.take(len)?;
            let edited = edited_text(decoded.text(), edits);
            let written =
                if quote == Quote::Unquoted && (needs_quotes(&edited) || edited.is_empty()) {
                    out.put(b"\"")
                        .and_then(|()| escape(&edited, Quote::Double, encoding, &mut out))
                        .and_then(|()| out.put(b"\""))
                } else {
                    escape(&edited, quote, encoding, &mut out)
                };
            out.budget.give(len);
            written
        }
    }
}

/// New bytes, the room for them taken from the value's budget before it
/// is made.
struct Out<'o> {
    bytes: &'o mut Vec<u8>,
    budget: &'o mut Budget,
    /// What it took.
    took: usize,
}

impl Out<'_> {
    fn put(&mut self, bytes: &[u8]) -> Result<(), OverBudget> {
        let need = self.bytes.len() + bytes.len();
        if need > self.bytes.capacity() {
            let capacity = need.max(2 * self.bytes.capacity());
            let more = capacity - self.bytes.capacity();
            self.budget.take(more)?;
            self.took += more;
            self.bytes.reserve_exact(capacity - self.bytes.len());
        }
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }
}

/// Whether `edits` spliced into the raw bytes read back as the edited
/// text; the copies this takes are given back to `budget` after.
fn reads_back(
    decoded: &Decoded<'_>,
    edits: &[Edit<'_>],
    budget: &mut Budget,
) -> Result<bool, OverBudget> {
    let encoding = decoded.encoding;
    let raw_range = |e: &Edit<'_>| {
        let offset = |at| decoded.raw_offset(at).expect("mapped before");
        offset(e.range.start)..offset(e.range.end)
    };
    let mut bytes = Vec::new();
    let mut spliced = Out {
        bytes: &mut bytes,
        budget,
        took: 0,
    };
    let ranges = edits.iter().map(raw_range);
    let result = splice(
        decoded.raw,
        edits,
        ranges,
        Quote::Text,
        encoding,
        &mut spliced,
    );
    let taken = spliced.took;
    let cost = Decoded::cost(&bytes, encoding);
    let same = result.and_then(|()| budget.take(cost)).map(|()| {
        let same = Decoded::new(&bytes, encoding)
            .is_some_and(|d| is_edited(d.text(), decoded.text(), edits));
        budget.give(cost);
        same
    });
    budget.give(taken);
    same
}

/// The length of `text` with `edits` applied.
fn edited_len(text: &str, edits: &[Edit<'_>]) -> usize {
    edits
        .iter()
        .fold(text.len(), |len, e| len - e.range.len() + e.text.len())
}

/// The pieces of `text` with `edits` applied, in order.
fn edited_pieces<'t>(text: &'t str, edits: &'t [Edit<'_>]) -> impl Iterator<Item = &'t str> {
    let mut at = 0;
    edits
        .iter()
        .flat_map(move |e| {
            let before = &text[at..e.range.start];
            at = e.range.end;
            [before, &*e.text]
        })
        .chain(std::iter::once_with(move || {
            let last = edits.last().map_or(0, |e| e.range.end);
            &text[last..]
        }))
}

/// `text` with `edits` applied.
fn edited_text(text: &str, edits: &[Edit<'_>]) -> String {
    let mut edited = String::with_capacity(edited_len(text, edits));
    edited_pieces(text, edits).for_each(|piece| edited.push_str(piece));
    edited
}

/// Whether `candidate` is `text` with `edits` applied (compared piece by
/// piece, with no copy).
fn is_edited(candidate: &str, text: &str, edits: &[Edit<'_>]) -> bool {
    let mut rest = candidate.as_bytes();
    for piece in edited_pieces(text, edits) {
        match rest.strip_prefix(piece.as_bytes()) {
            Some(after) => rest = after,
            None => return false,
        }
    }
    rest.is_empty()
}

/// The raw bytes with each edit's text, escaped, in place of its range of
/// them (`ranges`, one for each edit).
fn splice(
    raw: &[u8],
    edits: &[Edit<'_>],
    ranges: impl IntoIterator<Item = Range<usize>>,
    quote: Quote,
    encoding: &'static Encoding,
    out: &mut Out<'_>,
) -> Result<(), OverBudget> {
    let mut at = 0;
    for (edit, range) in edits.iter().zip(ranges) {
        out.put(&raw[at..range.start])?;
        escape(&edit.text, quote, encoding, out)?;
        at = range.end;
    }
    out.put(&raw[at..])
}

/// What ends an unquoted attribute value (whitespace, `>`), or is a parse
/// error in one (quotes, `<`, `` ` ``). `=` is a parse error only as the
/// first character, and a resolved URL starts with its scheme: queries
/// (`?a=1`) stay unquoted.
fn needs_quotes(s: &str) -> bool {
    // By bytes: all of them are ASCII. Rust's ASCII whitespace is HTML's.
    s.bytes()
        .any(|b| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'<' | b'>' | b'`'))
}

/// `&` as `&amp;`, so that nothing new reads as a character reference, and
/// the attribute's own quote; then in the document's encoding. Written
/// piece by piece: the escapes are ASCII, the same bytes in every encoding
/// a document's bytes are in.
fn escape(
    s: &str,
    quote: Quote,
    encoding: &'static Encoding,
    out: &mut Out<'_>,
) -> Result<(), OverBudget> {
    // The next byte to escape. Each is ASCII, which no byte of a longer
    // character can be.
    let next = |s: &str| match quote {
        Quote::Double => memchr2(b'&', b'"', s.as_bytes()),
        Quote::Single => memchr2(b'&', b'\'', s.as_bytes()),
        Quote::Unquoted => memchr(b'&', s.as_bytes()),
        Quote::Text => None,
    };
    let mut put = |bytes: &[u8]| out.put(bytes);
    let mut rest = s;
    while let Some(at) = next(rest) {
        encoding::encode_into(&rest[..at], encoding, &mut put)?;
        put(match rest.as_bytes()[at] {
            b'&' => b"&amp;",
            b'"' => b"&quot;",
            _ => b"&#39;",
        })?;
        rest = &rest[at + 1..];
    }
    encoding::encode_into(rest, encoding, &mut put)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One URL in a value: `resolved` put in place of the trimmed text, the
    /// way the rewriter does for a single-URL attribute (prefix inserted when
    /// the reference ends the resolved URL).
    fn rewritten(raw: &str, resolved: &str, quote: Quote) -> String {
        let decoded = Decoded::new(raw.as_bytes(), encoding_rs::UTF_8).unwrap();
        let core = trimmed(decoded.text());
        let reference = &decoded.text()[core.clone()];
        let edit = match resolved.strip_suffix(reference) {
            Some(prefix) => Edit {
                range: core.start..core.start,
                text: Cow::Borrowed(prefix),
            },
            None => Edit {
                range: core,
                text: Cow::Borrowed(resolved),
            },
        };
        String::from_utf8(apply(&decoded, &[edit], quote)).unwrap()
    }

    /// The room for every byte written comes from the budget first: a budget one byte
    /// short writes no more than it has.
    #[test]
    fn the_new_bytes_come_from_the_budget() {
        let decoded = Decoded::new(b"a b c", encoding_rs::UTF_8).unwrap();
        let edit = |at: usize| Edit {
            range: at..at,
            text: Cow::Borrowed("http://h/"),
        };
        for (edits, quote) in [
            (vec![edit(0)], Quote::Double),
            (vec![edit(0), edit(2)], Quote::Double),
            (vec![edit(0), edit(2)], Quote::Unquoted),
        ] {
            let need = apply(&decoded, &edits, quote).len();
            let mut out = Vec::new();
            let mut budget = Budget::new(usize::MAX);
            assert_eq!(
                apply_into(&decoded, &edits, quote, &mut out, &mut budget),
                Ok(())
            );
            assert_eq!(out.len(), need);
            // Every byte of room made for them, not only those written.
            assert!(budget.taken() >= out.capacity(), "{quote:?}");
            let mut short = Budget::new(need - 1);
            let mut out = Vec::new();
            assert_eq!(
                apply_into(&decoded, &edits, quote, &mut out, &mut short),
                Err(OverBudget)
            );
            assert!(out.len() < need);
        }
    }

    #[test]
    fn decoding_follows_the_attribute_value_rules() {
        let text = |raw: &str| {
            Decoded::new(raw.as_bytes(), encoding_rs::UTF_8)
                .unwrap()
                .text()
                .to_owned()
        };
        assert_eq!(text("a?x=1&amp;y=2"), "a?x=1&y=2");
        assert_eq!(text("a?x=1&timestamp=2"), "a?x=1&timestamp=2");
        assert_eq!(text("a?x=1&copy=2"), "a?x=1&copy=2");
        assert_eq!(text("&copy;&copy"), "\u{a9}\u{a9}");
        assert_eq!(text("&amp&lt;"), "&<");
        assert_eq!(text("&#x2F;g&#47;h"), "/g/h");
    }

    #[test]
    fn offsets_map_back_outside_references_only() {
        let d = Decoded::new(b"x&amp;yz&#47;w", encoding_rs::UTF_8).unwrap();
        assert_eq!(d.text(), "x&yz/w");
        let raw: Vec<Option<usize>> = (0..=d.text().len()).map(|i| d.raw_offset(i)).collect();
        // x | & | y z | / | w
        assert_eq!(
            raw,
            [
                Some(0),
                Some(1),
                Some(6),
                Some(7),
                Some(8),
                Some(13),
                Some(14)
            ]
        );
        let d = Decoded::new(b"&amp;", encoding_rs::UTF_8).unwrap();
        assert_eq!(d.raw_offset(0), Some(0));
        assert_eq!(d.raw_offset(1), Some(5));
    }

    #[test]
    fn the_authors_bytes_are_kept_around_an_edit() {
        assert_eq!(
            rewritten("page?a=1&amp;b=2", "https://h/page?a=1&b=2", Quote::Double),
            "https://h/page?a=1&amp;b=2"
        );
        assert_eq!(
            rewritten("page?a=1&b=2", "https://h/page?a=1&b=2", Quote::Double),
            "https://h/page?a=1&b=2"
        );
        assert_eq!(
            rewritten(" \n g ", "http://h/g", Quote::Double),
            " \n http://h/g "
        );
        assert_eq!(
            rewritten("&#32;g", "http://h/g", Quote::Double),
            "&#32;http://h/g"
        );
    }

    #[test]
    fn a_changed_reference_is_escaped_whole() {
        assert_eq!(
            rewritten("../x?a=1&amp;b=2", "https://h/x?a=1&b=2", Quote::Double),
            "https://h/x?a=1&amp;b=2"
        );
    }

    #[test]
    fn an_edit_inside_a_reference_escapes_the_whole_value() {
        // `&#x2E;&#x2E;/up`: the reference is written with references, and the
        // resolved URL does not end with it.
        assert_eq!(
            rewritten("&#x2E;&#x2E;/up", "http://h/up", Quote::Single),
            "http://h/up"
        );
    }

    #[test]
    fn quotes_in_new_text_are_escaped_for_the_attribute() {
        assert_eq!(
            rewritten("g", "http://h/\"/g", Quote::Double),
            "http://h/&quot;/g"
        );
        assert_eq!(
            rewritten("g", "http://h/'/g", Quote::Single),
            "http://h/&#39;/g"
        );
        assert_eq!(
            rewritten("g", "http://h/'/g", Quote::Double),
            "http://h/'/g"
        );
    }

    #[test]
    fn unquoted_values_get_quotes_only_when_they_need_them() {
        assert_eq!(rewritten("g", "http://h/g", Quote::Unquoted), "http://h/g");
        assert_eq!(
            rewritten("g?a=1", "http://h/g?a=1", Quote::Unquoted),
            "http://h/g?a=1"
        );
        assert_eq!(
            rewritten("g", "http://h/a b/g", Quote::Unquoted),
            "\"http://h/a b/g\""
        );
        assert_eq!(
            rewritten("g", "http://h/>/g", Quote::Unquoted),
            "\"http://h/>/g\""
        );
        // The raw part holds a `"`: the whole value is escaped.
        assert_eq!(
            rewritten("a\"b", "http://h /a\"b", Quote::Unquoted),
            "\"http://h /a&quot;b\""
        );
    }
}
