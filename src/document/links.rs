//! The link report: each URL value met, where it stands (byte offset, and
//! line and column in the document's characters, as editors show them), what
//! it says and what it resolves to, and what was done with it. Heard only
//! when asked for ([`Rewriter::with_links`](crate::Rewriter::with_links)):
//! otherwise nothing of this runs.

use encoding_rs::{Decoder, Encoding, UTF_8};

use super::attrs::Kind;
use std::borrow::Cow;
use std::sync::Arc;

use crate::url::{Base, MapRule};

/// What was done with a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Outcome {
    /// Made absolute.
    Rewritten,
    /// Left: it has a scheme already.
    Absolute,
    /// Left: a same-document reference (`#id` in SVG, or any with
    /// `--keep-fragments`).
    SameDocument,
    /// Left: it resolves to itself.
    Unchanged,
    /// Left: no layer gave a base.
    NoBase,
    /// Left byte for byte: not valid in the document's encoding.
    Undecodable,
    /// Left: empty, where the HTML standard fetches nothing for it
    /// (`<img src="">`; the attribute table's `Empty::Nothing`).
    Empty,
    /// Left: it would have been made absolute, but its document was left
    /// as it was (a site's file or an archive's record that failed, whose
    /// failure says why): nothing of it was written. Never said by an
    /// engine; a source says it of a document it did not write.
    Left,
}

impl Outcome {
    /// Every outcome, in order: `outcome as usize` is its place.
    pub(crate) const ALL: [Outcome; 8] = [
        Outcome::Rewritten,
        Outcome::Absolute,
        Outcome::SameDocument,
        Outcome::Unchanged,
        Outcome::NoBase,
        Outcome::Undecodable,
        Outcome::Empty,
        Outcome::Left,
    ];

    /// Its name in the link report.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Rewritten => "rewritten",
            Outcome::Absolute => "absolute",
            Outcome::SameDocument => "same-document",
            Outcome::Unchanged => "unchanged",
            Outcome::NoBase => "no-base",
            Outcome::Undecodable => "undecodable",
            Outcome::Empty => "empty",
            Outcome::Left => "left",
        }
    }
}

/// Where a character stands: its byte offset in the input, and its line and
/// column, 1-based, counted in the document's characters (a tab is one;
/// LF, CR LF and a lone CR each end a line).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Position {
    pub offset: usize,
    pub line: usize,
    pub column: usize,
}

impl Default for Position {
    fn default() -> Self {
        Position {
            offset: 0,
            line: 1,
            column: 1,
        }
    }
}

/// One URL of the document.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Link {
    pub position: Position,
    /// The element, lowercase (`img`; `style` for the text of `<style>`).
    /// Borrowed where the name is one of htmlabs's own: a link's names
    /// are made for each link heard, and most are `a`/`href`.
    pub element: Cow<'static, str>,
    /// The attribute, lowercase; empty for the text of `<style>`.
    pub attribute: Cow<'static, str>,
    /// The syntax of the value it stands in.
    pub kind: Kind,
    /// The URL as the document says it (its value decoded, its syntax's
    /// escapes undone); not valid text when [`Outcome::Undecodable`], where
    /// it holds U+FFFD for what did not decode and `raw` the bytes.
    pub original: String,
    /// The value's bytes, when they are not valid in the document's
    /// encoding.
    pub raw: Option<Vec<u8>>,
    /// What it resolves to against the base, rewritten or not; `None`
    /// without a base or when undecodable.
    pub absolute: Option<String>,
    pub outcome: Outcome,
    /// The document's base, and its layer.
    pub base: Base,
    /// What was written in its place when it was not its absolute URL: a
    /// `--map` rule matched it, or `--relative` made it a relative
    /// reference. (Boxed: most links have none, and a link's size counts
    /// against the memory limit.)
    pub mapped: Option<Box<Mapped>>,
}

/// What a URL became besides its absolute URL.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Mapped {
    /// The absolute URL, mapped when `rule` matched it.
    pub url: String,
    /// The `--map` rule that matched, if one did.
    pub rule: Option<Arc<MapRule>>,
    /// Under `--relative`, the relative reference written, when `url`
    /// names a file of the tree.
    pub relative: Option<String>,
}

impl Mapped {
    /// What was written: the relative reference, else the URL.
    pub fn written(&self) -> &str {
        self.relative.as_deref().unwrap_or(&self.url)
    }
}

impl Link {
    /// The URL a link check follows: its absolute URL, where it names
    /// something to reach. Not where it names nothing (empty, with no base,
    /// undecodable); not a `<base href>` or an `xml:base`, which are bases
    /// (what the links resolve against) and no links; not an origin
    /// (`<link rel=preconnect>`), of which the browser fetches nothing.
    pub(crate) fn reached(&self) -> Option<&str> {
        if (&*self.element, &*self.attribute) == ("base", "href")
            || self.attribute == "xml:base"
            || self.kind == Kind::Origin
        {
            return None;
        }
        match self.outcome {
            Outcome::Empty | Outcome::NoBase | Outcome::Undecodable => None,
            _ => self.absolute.as_deref(),
        }
    }

    /// The memory it holds (a value may hold millions of links, each held
    /// until the value is done): its slot in a list that grows by
    /// doubling (as many again free, at most), and each of its strings as
    /// the allocator holds it (with its header, rounded up). Counted as
    /// it is held, not as its bytes: a link's strings are short, and what
    /// the allocator adds to each is most of it.
    #[doc(hidden)]
    pub fn size(&self) -> usize {
        // A name borrowed is htmlabs's own, held by no link.
        let name = |name: &Cow<'_, str>| match name {
            Cow::Owned(name) => block(name.capacity()),
            Cow::Borrowed(_) => 0,
        };
        2 * std::mem::size_of::<Found>()
            + name(&self.element)
            + name(&self.attribute)
            + block(self.original.capacity())
            // Shared with the document's other links, and counted for
            // each as if it were its own: a link may outlive the document.
            + block(self.base.url.len())
            + self.absolute.as_ref().map_or(0, |s| block(s.capacity()))
            + self.mapped.as_ref().map_or(0, |m| {
                block(std::mem::size_of::<Mapped>())
                    + block(m.url.capacity())
                    + m.relative.as_ref().map_or(0, |s| block(s.capacity()))
            })
            + self.raw.as_ref().map_or(0, |r| block(r.capacity()))
    }
}

/// What an allocation of `bytes` holds: none for nothing, else the bytes
/// and a header of 8, rounded up to 16, 32 at least (glibc's malloc; the
/// others round alike or coarser).
pub(crate) fn block(bytes: usize) -> usize {
    match bytes {
        0 => 0,
        n => (n + 8).next_multiple_of(16).max(32),
    }
}

/// Follows the line and column through the bytes of a document.
pub(crate) struct Lines {
    position: Position,
    /// The last character ended a line with CR: an LF next is the same end.
    after_cr: bool,
    /// For encodings whose characters may take more than one byte, other
    /// than UTF-8 (counted by its lead bytes): they are decoded to count.
    decoder: Option<Decoder>,
    /// A single-byte encoding: each byte is a character.
    each_byte: bool,
}

impl Lines {
    pub fn new(encoding: &'static Encoding, at: Position) -> Self {
        let counted_by_bytes = encoding == UTF_8 || encoding.is_single_byte();
        Lines {
            position: at,
            after_cr: false,
            decoder: (!counted_by_bytes).then(|| encoding.new_decoder_without_bom_handling()),
            each_byte: encoding.is_single_byte(),
        }
    }

    pub fn position(&self) -> Position {
        self.position
    }

    /// The position after `bytes`, which follow.
    pub fn advance(&mut self, bytes: &[u8]) {
        // A byte order mark at the start is no character an editor shows.
        if self.position.offset == 0 && bytes.starts_with(b"\xEF\xBB\xBF") {
            self.position.column -= 1;
        }
        self.position.offset += bytes.len();
        let Some(decoder) = &mut self.decoder else {
            let each_byte = self.each_byte;
            count(&mut self.position, &mut self.after_cr, bytes, each_byte);
            return;
        };
        let mut rest = bytes;
        let mut out = [0u8; 1024];
        loop {
            let (_, read, written, _) = decoder.decode_to_utf8(rest, &mut out, false);
            rest = &rest[read..];
            count(
                &mut self.position,
                &mut self.after_cr,
                &out[..written],
                false,
            );
            if rest.is_empty() {
                return;
            }
        }
    }
}

/// Moves `position` over `text`: UTF-8, whose characters start at each
/// byte that is not 0b10xxxxxx, or with `each_byte` a single-byte
/// encoding's, where every byte is one. Line ends are counted and
/// characters counted in bulk: a byte at a time, this was half of
/// `--check`'s instructions.
fn count(position: &mut Position, after_cr: &mut bool, text: &[u8], each_byte: bool) {
    let Some(&last) = text.last() else {
        return;
    };
    let characters = |bytes: &[u8]| {
        if each_byte {
            bytes.len()
        } else {
            utf8_characters(bytes)
        }
    };
    // Most text has no CR: its lines are its LFs, counted in bulk, not
    // found one at a time.
    if memchr::memchr(b'\r', text).is_none() {
        let mut ends = memchr::memchr_iter(b'\n', text).count();
        // The LF of a CR LF split between two pieces ends no second line.
        if *after_cr && text[0] == b'\n' {
            ends -= 1;
        }
        position.line += ends;
        match memchr::memrchr(b'\n', text) {
            Some(end) => position.column = 1 + characters(&text[end + 1..]),
            None => position.column += characters(text),
        }
        *after_cr = false;
        return;
    }
    let mut line_start = None;
    for i in memchr::memchr2_iter(b'\n', b'\r', text) {
        let previous_cr = if i == 0 {
            *after_cr
        } else {
            text[i - 1] == b'\r'
        };
        // The LF of a CR LF ends no second line.
        if !(text[i] == b'\n' && previous_cr) {
            position.line += 1;
        }
        line_start = Some(i + 1);
    }
    match line_start {
        Some(start) => position.column = 1 + characters(&text[start..]),
        None => position.column += characters(text),
    }
    *after_cr = last == b'\r';
}

/// How many UTF-8 characters start in `bytes`: the bytes that are not
/// 0b10xxxxxx. Counted in blocks of at most 255 into a byte, a loop the
/// compiler makes vector code of (a `filter().count()` into a `usize` it
/// did not).
fn utf8_characters(bytes: &[u8]) -> usize {
    bytes
        .chunks(255)
        .map(|block| {
            block
                .iter()
                .fold(0u8, |n, &b| n + u8::from((b as i8) >= -0x40)) as usize
        })
        .sum()
}

/// The position `bytes` further than `from`, where `bytes` start at a
/// character boundary (a value, the text of an element).
#[cfg(test)]
pub(crate) fn after(from: Position, bytes: &[u8], encoding: &'static Encoding) -> Position {
    let mut lines = Lines::new(encoding, from);
    lines.advance(bytes);
    lines.position()
}

/// No name: the element or attribute of a value that is none of an
/// element's (a stylesheet's text), before its own are given.
pub(crate) static NO_NAME: Cow<'static, str> = Cow::Borrowed("");

/// What hears each link, given it: the engine keeps none.
pub(crate) type Hear = Box<dyn FnMut(Link)>;

/// Which links a hearer wants, by their absolute URL: the others are told
/// to it by their URL alone, and no link is made of them (a link check has
/// no use for a link to another site but to count it).
pub(crate) type Only = Box<dyn FnMut(&str) -> bool>;

/// The link report of a document being rewritten: what hears it, and the
/// URLs of the value being resolved, whose places are known once the value
/// is done.
pub(crate) struct Listener {
    hear: Hear,
    found: Vec<Found>,
    only: Option<Only>,
    /// Whether `only` is asked about the value being resolved.
    sifting: bool,
}

/// A URL of the value being resolved, where it stands in it.
pub(crate) struct Found {
    pub at: At,
    /// Its position, element and attribute not yet filled in (a nested
    /// document's links have their own element and attribute).
    pub link: Link,
}

/// Where a URL stands in its value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum At {
    /// At this offset of the value's decoded text.
    Decoded(usize),
    /// At this offset of the value's bytes.
    Raw(usize),
}

impl Listener {
    pub fn new(hear: Hear) -> Self {
        Listener {
            hear,
            found: Vec::new(),
            only: None,
            sifting: false,
        }
    }

    /// Hears only the links `only` wants.
    pub fn with_only(self, only: Option<Only>) -> Self {
        Listener {
            sifting: only.is_some(),
            only,
            ..self
        }
    }

    /// Whether `only` is asked about the values resolved from now on (not
    /// about a `<base href>`, which a check leaves whatever its URL).
    pub fn sift(&mut self, on: bool) {
        self.sifting = on && self.only.is_some();
    }

    /// Whether a link to `absolute` in the value being resolved is to be
    /// made and heard.
    pub fn wants(&mut self, absolute: &str) -> bool {
        match &mut self.only {
            Some(only) if self.sifting => only(absolute),
            _ => true,
        }
    }

    pub fn found(&mut self, found: Found) {
        self.found.push(found);
    }

    /// Whether a link of the value being resolved was heard: a value with
    /// none need not be placed.
    pub fn heard_any(&self) -> bool {
        !self.found.is_empty()
    }

    /// The value that starts at `start`, whose bytes are `raw`, on
    /// `element`'s `attribute`, is done: each URL found in it is heard, in
    /// place. `decoded_at` maps an offset of its decoded text to its bytes.
    pub fn value_done(
        &mut self,
        start: Position,
        raw: &[u8],
        encoding: &'static Encoding,
        names: (&Cow<'static, str>, &Cow<'static, str>),
        decoded_at: impl Fn(usize) -> Option<usize>,
    ) {
        // Lines and columns followed from one link to the next (links come
        // in order, but for a nested document's among the others): a value
        // may hold millions.
        let mut lines = Lines::new(encoding, start);
        let mut done = 0;
        for Found { at, mut link } in self.found.drain(..) {
            let within = match at {
                At::Decoded(at) => decoded_at(at).unwrap_or(0),
                At::Raw(at) => at,
            }
            .min(raw.len());
            if within < done {
                lines = Lines::new(encoding, start);
                done = 0;
            }
            lines.advance(&raw[done..within]);
            done = within;
            link.position = lines.position();
            if link.element.is_empty() {
                link.element = names.0.clone();
                link.attribute = names.1.clone();
            }
            (self.hear)(link);
        }
    }

    /// The value being resolved is given up: its links are not heard.
    pub fn forget(&mut self) {
        self.found.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(offset: usize, line: usize, column: usize) -> Position {
        Position {
            offset,
            line,
            column,
        }
    }

    #[test]
    fn lines_end_at_lf_crlf_and_cr_and_columns_count_characters() {
        let start = Position::default();
        assert_eq!(after(start, b"ab", UTF_8), at(2, 1, 3));
        assert_eq!(after(start, b"a\nb", UTF_8), at(3, 2, 2));
        assert_eq!(after(start, b"a\r\nb", UTF_8), at(4, 2, 2));
        assert_eq!(after(start, b"a\r\rb", UTF_8), at(4, 3, 2));
        assert_eq!(after(start, "é\tü".as_bytes(), UTF_8), at(5, 1, 4));
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("日本\n語x");
        assert_eq!(after(start, &sjis, encoding_rs::SHIFT_JIS), at(8, 2, 3));
        assert_eq!(
            after(start, b"\xE9\xE8", encoding_rs::WINDOWS_1252),
            at(2, 1, 3)
        );
        // In a single-byte encoding, 0x80-0xBF are characters too (`©`,
        // a no-break space), not UTF-8's continuation bytes.
        assert_eq!(
            after(start, b"\xA9\xA0x\r\n\xBF", encoding_rs::WINDOWS_1252),
            at(6, 2, 2)
        );
        assert_eq!(
            after(start, b"\xA9\xA0x", encoding_rs::ISO_8859_2),
            at(3, 1, 4)
        );
    }

    #[test]
    fn a_split_anywhere_counts_the_same() {
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("日本\r\n語x\r");
        for encoding in [encoding_rs::SHIFT_JIS, UTF_8, encoding_rs::WINDOWS_1252] {
            let bytes: Vec<u8> = if encoding == UTF_8 {
                "日本\r\n語x\r\n\r\r\né".into()
            } else if encoding == encoding_rs::WINDOWS_1252 {
                b"\xA9\r\n\xBFx\r\r\n\n\xE9".to_vec()
            } else {
                sjis.to_vec()
            };
            let whole = after(Position::default(), &bytes, encoding);
            for split in 0..=bytes.len() {
                let mut lines = Lines::new(encoding, Position::default());
                lines.advance(&bytes[..split]);
                lines.advance(&bytes[split..]);
                assert_eq!(lines.position(), whole, "{} at {split}", encoding.name());
            }
        }
    }
}
