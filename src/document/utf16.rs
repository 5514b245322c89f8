//! UTF-16 decoded to UTF-8 and UTF-8 encoded back: the front of every
//! engine that reads UTF-16 (pages, XML, stylesheets), the one encoding
//! that is not ASCII-compatible and that htmlabs still rewrites.

use std::cell::Cell;
use std::io::{self, Write};
use std::rc::Rc;

use encoding_rs::{DecoderResult, Encoding, UTF_16BE, UTF_16LE};

use super::config::Config;
use super::encoding::EncodingSource;
use super::error::Error;
use crate::url::Layers;

/// Whether a document whose first bytes are `first` is read as UTF-16
/// (transcoded as a whole): its encoding, the length of its byte order
/// mark, and what said so. A UTF-16 byte order mark first, unless
/// `by_first_bytes` (an XML declaration's `<?` in UTF-16, which has none)
/// said before it; else `--encoding`, else the transport layer's charset.
/// A declared encoding that is neither ASCII-compatible nor UTF-16 is
/// refused: no engine reads it.
pub fn transcoded(
    first: &[u8],
    config: &Config,
    layers: &Layers,
    by_first_bytes: Option<&'static Encoding>,
) -> Result<Option<(&'static Encoding, usize, EncodingSource)>, Error> {
    let declared = config
        .encoding
        .map(|e| (e, EncodingSource::Flag))
        .or_else(|| {
            let charset = layers.charset()?;
            Some((
                charset.encoding,
                EncodingSource::Transport { from: charset.from },
            ))
        });
    let utf16 = |e| e == UTF_16LE || e == UTF_16BE;
    Ok(match (Encoding::for_bom(first), declared) {
        _ if let Some(e) = by_first_bytes => Some((e, 0, EncodingSource::Declaration)),
        (Some((e, bom)), _) if utf16(e) => Some((e, bom, EncodingSource::Bom)),
        (Some(_), _) => None,
        (None, Some((e, source))) if utf16(e) => Some((e, 0, source)),
        (None, Some((e, _))) if !e.is_ascii_compatible() => return Err(Error::unsupported(e)),
        (None, _) => None,
    })
}

/// What a write of UTF-16 gave: all of it decoded, or UTF-8 up to the
/// first sequence that is not valid, at byte `at` of the input, and the
/// input's bytes from there to the end of the write (`rest`), as they came.
#[derive(Debug, PartialEq, Eq)]
pub enum Utf16Decoded {
    Whole,
    Malformed { at: usize, rest: Vec<u8> },
}

/// UTF-16 input decoded to UTF-8, in writes of any size: the front of
/// every engine that reads UTF-16 (pages, XML, stylesheets).
pub struct Utf16Decoder {
    decoder: encoding_rs::Decoder,
    /// Bytes of the byte order mark still to skip.
    skip: usize,
    read: usize,
    /// The last bytes read (a sequence the decoder holds may have started
    /// in an earlier write), at most four.
    tail: Vec<u8>,
}

impl Utf16Decoder {
    /// Input in `encoding`, whose first `bom` bytes are its byte order mark.
    pub fn new(encoding: &'static Encoding, bom: usize) -> Self {
        Utf16Decoder {
            decoder: encoding.new_decoder_without_bom_handling(),
            skip: bom,
            read: 0,
            tail: Vec::new(),
        }
    }

    pub fn encoding(&self) -> &'static Encoding {
        self.decoder.encoding()
    }

    /// Decodes the next bytes of the input (the last ones when `last`),
    /// handing the UTF-8 to `sink` a part at a time, up to an unpaired
    /// surrogate or a lone byte: from there on the input is the caller's,
    /// as it came.
    pub fn decode(
        &mut self,
        chunk: &[u8],
        last: bool,
        mut sink: impl FnMut(&[u8]) -> Result<(), Error>,
    ) -> Result<Utf16Decoded, Error> {
        let skip = self.skip.min(chunk.len());
        self.skip -= skip;
        self.read += skip;
        let whole = &chunk[skip..];
        let start = self.read;
        let mut chunk = whole;
        let mut buf = [0u8; 8192];
        let result = loop {
            let (result, read, written) = self
                .decoder
                .decode_to_utf8_without_replacement(chunk, &mut buf, last);
            sink(&buf[..written])?;
            self.read += read;
            chunk = &chunk[read..];
            match result {
                DecoderResult::InputEmpty => break Utf16Decoded::Whole,
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(bad, after) => {
                    let at = self.read - usize::from(bad) - usize::from(after);
                    // From the tail of the writes before, where it started
                    // there, then the rest of this one.
                    let rest = match at.checked_sub(start) {
                        Some(i) => whole[i..].to_vec(),
                        None => {
                            let from = self.tail.len() - (start - at).min(self.tail.len());
                            [&self.tail[from..], whole].concat()
                        }
                    };
                    break Utf16Decoded::Malformed { at, rest };
                }
            }
        };
        let keep = whole.len().min(4);
        self.tail.extend_from_slice(&whole[whole.len() - keep..]);
        let over = self.tail.len().saturating_sub(4);
        self.tail.drain(..over);
        Ok(result)
    }
}

/// Takes UTF-8 and writes UTF-16 of the given byte order; once `raw` is
/// set, the input's own bytes as they come.
pub struct Utf16Writer<W: Write> {
    inner: W,
    big_endian: bool,
    /// The start of a character cut off at the end of the last write.
    partial: Vec<u8>,
    raw: Rc<Cell<bool>>,
}

impl<W: Write> Utf16Writer<W> {
    pub fn new(inner: W, encoding: &'static Encoding) -> Self {
        Utf16Writer {
            inner,
            big_endian: encoding == UTF_16BE,
            partial: Vec::new(),
            raw: Rc::default(),
        }
    }

    /// What says it writes bytes as they come, from when it is set.
    pub fn raw(&self) -> Rc<Cell<bool>> {
        Rc::clone(&self.raw)
    }

    /// The output, once all is written: UTF-16 ends at a character.
    pub fn finish(mut self) -> Result<W, Error> {
        if !self.partial.is_empty() {
            return Err(Error::Write(io::Error::other(
                "output ended inside a character",
            )));
        }
        self.inner.flush().map_err(Error::Write)?;
        Ok(self.inner)
    }
}

impl<W: Write> Write for Utf16Writer<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.raw.get() && self.partial.is_empty() {
            self.inner.write_all(buf)?;
            return Ok(buf.len());
        }
        self.partial.extend_from_slice(buf);
        let valid = match std::str::from_utf8(&self.partial) {
            Ok(s) => s.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(io::Error::new(io::ErrorKind::InvalidData, e)),
        };
        let text = std::str::from_utf8(&self.partial[..valid]).expect("checked");
        let mut out = Vec::with_capacity(valid * 2);
        for unit in text.encode_utf16() {
            let bytes = if self.big_endian {
                unit.to_be_bytes()
            } else {
                unit.to_le_bytes()
            };
            out.extend_from_slice(&bytes);
        }
        self.inner.write_all(&out)?;
        self.partial.drain(..valid);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::UTF_16LE;

    /// The text before the fault, its place, and the input's bytes from it
    /// on, whatever the writes the input comes in.
    #[test]
    fn a_fault_is_placed_and_the_rest_given_back_however_the_input_is_cut() {
        let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        // A high surrogate with no low one after it, a low one alone, and a
        // lone byte at the end.
        for (fault, after) in [
            (&[0x00, 0xd8][..], "<b>"),
            (&[0x00, 0xdc], "<b>"),
            (&[0x41], ""),
        ] {
            let input = [&b"\xff\xfe"[..], &utf16("<a href=x>"), fault, &utf16(after)].concat();
            let at = 2 + utf16("<a href=x>").len();
            let mut cuts: Vec<Vec<usize>> = (0..=input.len()).map(|i| vec![i]).collect();
            cuts.push((1..input.len()).collect());
            for cut in cuts {
                let mut decoder = Utf16Decoder::new(UTF_16LE, 2);
                let (mut text, mut rest, mut from) = (Vec::new(), None::<Vec<u8>>, 0);
                for end in cut.iter().copied().chain([input.len()]) {
                    let chunk = &input[from..end.max(from)];
                    from = end.max(from);
                    if let Some(rest) = &mut rest {
                        rest.extend_from_slice(chunk);
                        continue;
                    }
                    let last = from == input.len();
                    let decoded = decoder
                        .decode(chunk, last, |utf8| {
                            text.extend_from_slice(utf8);
                            Ok(())
                        })
                        .unwrap();
                    if let Utf16Decoded::Malformed { at: found, rest: r } = decoded {
                        assert_eq!(found, at, "{fault:?} cut at {cut:?}");
                        rest = Some(r);
                    }
                }
                assert_eq!(text, b"<a href=x>", "{fault:?} cut at {cut:?}");
                assert_eq!(
                    rest.as_deref(),
                    Some(&input[at..]),
                    "{fault:?} cut at {cut:?}"
                );
            }
        }
    }
}
