//! A document's encoding once chosen, whatever chose it: where it came
//! from, URL values decoded with it (only they are ever decoded) and what
//! is new in them encoded back. The HTML sniffing that chooses a page's is
//! the page engine's (`html::encoding`).

use std::fmt;

use encoding_rs::{DecoderResult, EncoderResult, Encoding, UTF_8};

/// Where the document's encoding came from, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum EncodingSource {
    /// A byte order mark.
    Bom,
    /// `--encoding`.
    Flag,
    /// The encapsulating entity's charset (`Content-Type: text/html;
    /// charset=…`), named by what gave it.
    Transport { from: &'static str },
    /// `<meta charset>` or `<meta http-equiv=Content-Type>` in the first 1024
    /// bytes.
    Meta,
    /// The same, past the first 1024 bytes and within the lookahead, in
    /// the head or the body: the parser "changes the encoding" when it
    /// meets one while the encoding is still tentative ("in body" handles
    /// `meta` by the "in head" rules).
    LaterMeta,
    /// chardetng's guess over the lookahead.
    Detected,
    /// No non-ASCII byte in the lookahead: UTF-8.
    Ascii,
    /// The XML declaration's `encoding`.
    Declaration,
    /// A stylesheet's `@charset` rule.
    Charset,
    /// Nothing said otherwise: UTF-8, the default of XML and of CSS.
    Default,
}

/// The document's encoding and where it came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chosen {
    pub encoding: &'static Encoding,
    pub source: EncodingSource,
}

impl fmt::Display for Chosen {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let source = match self.source {
            EncodingSource::Bom => "byte order mark",
            EncodingSource::Flag => "--encoding",
            EncodingSource::Transport { from } => from,
            EncodingSource::Meta => "<meta> in the first 1024 bytes",
            EncodingSource::LaterMeta => "<meta> past the first 1024 bytes",
            EncodingSource::Detected => "detected",
            EncodingSource::Ascii => "no byte above 0x7F in the lookahead",
            EncodingSource::Declaration => "XML declaration",
            EncodingSource::Charset => "@charset",
            EncodingSource::Default => "the default",
        };
        write!(f, "{} ({source})", self.encoding.name())
    }
}

/// The encoding a WHATWG label names (`latin1`, `sjis`, `gb2312`, …).
pub fn for_label(label: &str) -> Option<&'static Encoding> {
    Encoding::for_label(label.trim().as_bytes())
}

/// A value decoded with the document's encoding, with the byte offset of
/// each character, to map positions in the text back to the bytes.
#[derive(Debug)]
pub struct Decoded {
    pub text: String,
    /// (text offset, byte offset) where the two line up: at the start of
    /// each character that is not ASCII, after it, and at the start and the
    /// end. In between, ASCII, one byte a character, where they move
    /// together. Empty for UTF-8, where they are the same. (An entry at
    /// every character took 16 bytes for each byte of the value.)
    map: Vec<(usize, usize)>,
    len: usize,
}

impl Decoded {
    /// What it holds: its text and its map.
    pub fn size(&self) -> usize {
        self.text.capacity() + self.map.capacity() * std::mem::size_of::<(usize, usize)>()
    }

    /// `bytes` decoded strictly: `None` when they are not valid in
    /// `encoding`.
    pub fn new(bytes: &[u8], encoding: &'static Encoding) -> Option<Decoded> {
        if encoding == UTF_8 {
            return std::str::from_utf8(bytes).ok().map(|text| Decoded {
                text: text.to_owned(),
                map: Vec::new(),
                len: bytes.len(),
            });
        }
        if bytes.is_ascii() {
            return Some(Decoded {
                text: String::from_utf8(bytes.to_vec()).ok()?,
                map: Vec::new(),
                len: bytes.len(),
            });
        }
        // Byte by byte, so that every character's first byte is known: a
        // character comes out once its last byte is in.
        let mut decoder = encoding.new_decoder_without_bom_handling();
        let mut text = String::with_capacity(bytes.len());
        let mut map = vec![(0, 0)];
        let mut start = 0;
        for i in 0..bytes.len() {
            let before = text.len();
            text.reserve(8);
            let (result, _) = decoder.decode_to_string_without_replacement(
                &bytes[i..=i],
                &mut text,
                i + 1 == bytes.len(),
            );
            // Room was made for what one byte can complete, so the output
            // is never full.
            if result != DecoderResult::InputEmpty {
                return None;
            }
            if text.len() == before {
                continue;
            }
            // ASCII from one byte goes on a run; anything else is marked
            // at both ends.
            if !(text.len() == before + 1 && text.as_bytes()[before].is_ascii() && start == i) {
                if map.last() != Some(&(before, start)) {
                    map.push((before, start));
                }
                map.push((text.len(), i + 1));
            }
            start = i + 1;
        }
        if map.last() != Some(&(text.len(), bytes.len())) {
            map.push((text.len(), bytes.len()));
        }
        Some(Decoded {
            text,
            map,
            len: bytes.len(),
        })
    }

    /// The most memory [`Decoded::new`] takes for `bytes` (a byte of a
    /// legacy encoding is at most three of UTF-8; two entries of the map for
    /// each character that is not ASCII, whose first byte is not).
    pub fn cost(bytes: &[u8], encoding: &'static Encoding) -> usize {
        if encoding == UTF_8 || bytes.is_ascii() {
            return bytes.len();
        }
        let high = bytes.iter().filter(|b| !b.is_ascii()).count();
        let entry = std::mem::size_of::<(usize, usize)>();
        bytes.len().saturating_mul(3) + (2 * high + 3) * entry
    }

    /// The byte offset of a text offset, where a character starts there.
    pub fn byte_offset(&self, at: usize) -> Option<usize> {
        if self.map.is_empty() {
            return (at <= self.len).then_some(at);
        }
        let i = self
            .map
            .partition_point(|&(text, _)| text <= at)
            .checked_sub(1)?;
        let (text, byte) = self.map[i];
        if text == at {
            return Some(byte);
        }
        // Inside an ASCII run, which starts at an entry and ends at the next.
        self.text
            .as_bytes()
            .get(text)
            .is_some_and(u8::is_ascii)
            .then(|| byte + at - text)
    }
}

/// [`encode_into`], onto the end of `out`.
pub fn encode_onto(text: &str, encoding: &'static Encoding, out: &mut Vec<u8>) {
    let put = &mut |bytes: &[u8]| {
        out.extend_from_slice(bytes);
        Ok::<(), std::convert::Infallible>(())
    };
    match encode_into(text, encoding, put) {
        Ok(()) => {}
        Err(never) => match never {},
    }
}

/// `text` in `encoding`, given to `put` piece by piece; a character the
/// encoding cannot represent is percent-encoded as UTF-8, which is valid
/// wherever a URL stands (a numeric character reference would not be read
/// inside `<style>`).
pub fn encode_into<E>(
    text: &str,
    encoding: &'static Encoding,
    put: &mut impl FnMut(&[u8]) -> Result<(), E>,
) -> Result<(), E> {
    let encoding = encoding.output_encoding();
    if encoding == UTF_8 || text.is_ascii() {
        return put(text.as_bytes());
    }
    let mut encoder = encoding.new_encoder();
    let mut rest = text;
    loop {
        let mut buf = [0u8; 1024];
        let (result, read, written) =
            encoder.encode_from_utf8_without_replacement(rest, &mut buf, true);
        put(&buf[..written])?;
        rest = &rest[read..];
        match result {
            EncoderResult::InputEmpty => return Ok(()),
            EncoderResult::OutputFull => {}
            EncoderResult::Unmappable(c) => {
                for b in c.encode_utf8(&mut [0; 4]).bytes() {
                    put(format!("%{b:02X}").as_bytes())?;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{SHIFT_JIS, WINDOWS_1251};

    #[test]
    fn decoding_maps_characters_to_their_bytes() {
        // "テスト" in Shift_JIS: 0x83 0x65, 0x83 0x58, 0x83 0x67; 0x5C trail bytes too ("ソ" 0x83 0x5C).
        let bytes = b"a\x83\x65\x83\x5Cb";
        let d = Decoded::new(bytes, SHIFT_JIS).unwrap();
        assert_eq!(d.text, "aテソb");
        assert_eq!(d.byte_offset(0), Some(0));
        assert_eq!(d.byte_offset(1), Some(1));
        assert_eq!(d.byte_offset(4), Some(3));
        assert_eq!(d.byte_offset(7), Some(5));
        assert_eq!(d.byte_offset(8), Some(6));
        assert_eq!(d.byte_offset(2), None);
        assert!(Decoded::new(b"\x83", SHIFT_JIS).is_none());
        assert!(Decoded::new(b"caf\xe9", UTF_8).is_none());
    }

    /// The map marks only what is not ASCII, and says what a map of every
    /// character says: a text offset has a byte offset where the bytes
    /// before it decode to the text before it.
    #[test]
    fn the_map_is_small_and_exact() {
        let (sjis, _, _) = SHIFT_JIS.encode("aテソbc/日本ｱ-x");
        let big5 = b"a\x88\x62b\xa4\x40c".to_vec(); // 0x8862: two code points
        let (cyrillic, _, _) = WINDOWS_1251.encode("путь/к/файлу?q=1");
        let cases = [
            (SHIFT_JIS, sjis.into_owned()),
            (encoding_rs::BIG5, big5),
            (WINDOWS_1251, cyrillic.into_owned()),
            (encoding_rs::WINDOWS_1252, b"\xe9t\xe9 caf\xe9s/x".to_vec()),
        ];
        for (encoding, bytes) in cases {
            let d = Decoded::new(&bytes, encoding).unwrap();
            let mut expected = vec![None; d.text.len() + 1];
            for end in 0..=bytes.len() {
                let (text, malformed) = encoding.decode_without_bom_handling(&bytes[..end]);
                if !malformed && d.text.starts_with(&*text) {
                    expected[text.len()] = Some(end);
                }
            }
            let found: Vec<_> = (0..=d.text.len()).map(|at| d.byte_offset(at)).collect();
            assert_eq!(found, expected, "{} {:?}", encoding.name(), d.text);
            assert!(Decoded::cost(&bytes, encoding) >= d.text.len() + d.map.len() * 16);
        }
        let mut long = vec![b'a'; 100_000];
        long[500] = 0xE9;
        let d = Decoded::new(&long, encoding_rs::WINDOWS_1252).unwrap();
        assert_eq!(d.map, [(0, 0), (500, 500), (502, 501), (100_001, 100_000)]);
        assert_eq!(d.byte_offset(501), None);
        assert_eq!(d.byte_offset(60_001), Some(60_000));
    }

    #[test]
    fn unmappable_characters_are_percent_encoded() {
        let encoded = |text, encoding| {
            let mut out = Vec::new();
            encode_into::<()>(text, encoding, &mut |b| {
                out.extend_from_slice(b);
                Ok(())
            })
            .unwrap();
            out
        };
        assert_eq!(
            encoded("http://h/ü/€/日本", WINDOWS_1251),
            b"http://h/%C3%BC/\x88/%E6%97%A5%E6%9C%AC"
        );
        assert_eq!(
            encoded("http://h/日本", SHIFT_JIS),
            b"http://h/\x93\xfa\x96\x7b"
        );
    }
}
