//! A stylesheet's text, decoded whole, with a map back to its bytes. In
//! UTF-8 a byte that is not valid stands as U+FFFD and the text goes on
//! around it (a comment written in Latin-1 does not stop the rest); a URL
//! that holds one is left as it is. In any other encoding the text must
//! decode, or the stylesheet is left as it is.

use std::ops::Range;

use encoding_rs::{Encoding, UTF_8};

use crate::document::encoding::Decoded;

pub struct Text {
    pub text: String,
    map: Map,
}

enum Map {
    /// UTF-8: runs of valid text, offsets moving together, and the bytes
    /// that are not, each a U+FFFD.
    Utf8(Vec<Run>),
    Decoded(Decoded),
}

struct Run {
    text: Range<usize>,
    raw: Range<usize>,
    valid: bool,
}

impl Text {
    /// The most memory [`Text::decode`] takes for `raw`.
    pub fn cost(raw: &[u8], encoding: &'static Encoding) -> usize {
        if encoding != UTF_8 {
            // The decoded text, and its copy.
            return Decoded::cost(raw, encoding).saturating_mul(2);
        }
        let invalid = raw
            .utf8_chunks()
            .filter(|c| !c.invalid().is_empty())
            .count();
        let runs = (2 * invalid + 1) * std::mem::size_of::<Run>();
        raw.len() + 2 * invalid + runs
    }

    /// `None` when `raw` is not valid in `encoding`, other than UTF-8.
    pub fn decode(raw: &[u8], encoding: &'static Encoding) -> Option<Text> {
        if encoding != UTF_8 {
            let decoded = Decoded::new(raw, encoding)?;
            return Some(Text {
                text: decoded.text.clone(),
                map: Map::Decoded(decoded),
            });
        }
        let mut text = String::with_capacity(raw.len());
        let mut runs = Vec::new();
        let mut at = 0;
        for chunk in raw.utf8_chunks() {
            let valid = chunk.valid();
            if !valid.is_empty() {
                let start = text.len();
                text.push_str(valid);
                runs.push(Run {
                    text: start..text.len(),
                    raw: at..at + valid.len(),
                    valid: true,
                });
                at += valid.len();
            }
            let invalid = chunk.invalid();
            if !invalid.is_empty() {
                let start = text.len();
                text.push('\u{FFFD}');
                runs.push(Run {
                    text: start..text.len(),
                    raw: at..at + invalid.len(),
                    valid: false,
                });
                at += invalid.len();
            }
        }
        Some(Text {
            text,
            map: Map::Utf8(runs),
        })
    }

    /// The byte offset of `at` in the text, where a character starts (or
    /// the text ends).
    pub fn raw_offset(&self, at: usize) -> Option<usize> {
        match &self.map {
            Map::Decoded(decoded) => decoded.byte_offset(at),
            Map::Utf8(runs) => {
                if at == self.text.len() {
                    return Some(runs.last().map_or(0, |r| r.raw.end));
                }
                let run = &runs[runs.partition_point(|r| r.text.end <= at)];
                let within = at - run.text.start;
                match run.valid {
                    true => Some(run.raw.start + within),
                    false => (within == 0).then_some(run.raw.start),
                }
            }
        }
    }

    /// Whether the text at `range` stands for bytes that are not valid.
    pub fn holds_invalid(&self, range: &Range<usize>) -> bool {
        match &self.map {
            Map::Decoded(_) => false,
            Map::Utf8(runs) => runs
                .iter()
                .any(|r| !r.valid && r.text.start < range.end && range.start < r.text.end),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_bytes_stand_apart_and_the_rest_maps_back() {
        let raw = b"/* \xA9 2010 */ a { b: url(x\xE9.png) } c { d: url(y.png) }";
        let t = Text::decode(raw, UTF_8).unwrap();
        assert!(t.text.starts_with("/* \u{FFFD} 2010 */"));
        let y = t.text.find("y.png").unwrap();
        assert_eq!(t.raw_offset(y), Some(raw.len() - 8));
        let x = t.text.find("x\u{FFFD}").unwrap();
        assert!(t.holds_invalid(&(x..x + 8)));
        assert!(!t.holds_invalid(&(y..y + 5)));
        assert_eq!(t.raw_offset(t.text.len()), Some(raw.len()));
        // Inside a U+FFFD, no byte.
        assert_eq!(t.raw_offset(4), None);
    }

    #[test]
    fn other_encodings_decode_or_are_refused() {
        let t = Text::decode(b"a{b:url(\xE9.png)}", encoding_rs::WINDOWS_1252).unwrap();
        assert_eq!(t.text, "a{b:url(\u{e9}.png)}");
        assert_eq!(t.raw_offset(10), Some(9));
        assert!(Text::decode(b"\x82", encoding_rs::SHIFT_JIS).is_none());
    }
}
