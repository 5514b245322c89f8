//! UTF-16 input, the one encoding that is not ASCII-compatible and that
//! htmlabs still rewrites: decoded to UTF-8 for the rewrite, and the output
//! encoded back.

use std::borrow::Cow;
use std::io::{self, Write};

use encoding_rs::{DecoderResult, Encoding, UTF_16BE};

use super::document::Document;
use super::error::Error;
use super::report::Report;
use super::resolution::Splices;

/// UTF-16 input: decoded to UTF-8 for the rewrite, and the output encoded
/// back. Valid UTF-16 goes there and back exactly; an unpaired surrogate
/// would not, so it is refused.
pub struct Utf16<W: Write> {
    input: Utf16Decoder,
    document: Document<Utf16Writer<W>>,
}

impl<W: Write> Utf16<W> {
    /// Input in `encoding`, whose first `bom` bytes are its byte order
    /// mark, for `document`, which writes through a [`Utf16Writer`].
    pub fn new(
        encoding: &'static Encoding,
        bom: usize,
        document: Document<Utf16Writer<W>>,
    ) -> Self {
        Utf16 {
            input: Utf16Decoder::new(encoding, bom),
            document,
        }
    }

    pub fn document_mut(&mut self) -> &mut Document<Utf16Writer<W>> {
        &mut self.document
    }

    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let document = &mut self.document;
        self.input
            .decode(chunk, false, |utf8| document.write(Cow::Borrowed(utf8)))
    }

    pub fn end(mut self) -> Result<(Report, W, Splices), Error> {
        let document = &mut self.document;
        self.input
            .decode(&[], true, |utf8| document.write(Cow::Borrowed(utf8)))?;
        let (report, writer, splices) = self.document.end()?;
        Ok((report, writer.finish()?, splices))
    }
}

/// UTF-16 input decoded to UTF-8, in writes of any size: the front of
/// every engine that reads UTF-16 (pages, XML, stylesheets).
pub struct Utf16Decoder {
    decoder: encoding_rs::Decoder,
    /// Bytes of the byte order mark still to skip.
    skip: usize,
    read: usize,
}

impl Utf16Decoder {
    /// Input in `encoding`, whose first `bom` bytes are its byte order mark.
    pub fn new(encoding: &'static Encoding, bom: usize) -> Self {
        Utf16Decoder {
            decoder: encoding.new_decoder_without_bom_handling(),
            skip: bom,
            read: 0,
        }
    }

    /// Decodes the next bytes of the input (the last ones when `last`),
    /// handing the UTF-8 to `sink` a part at a time; an unpaired surrogate
    /// or a lone byte is refused, naming where it stands.
    pub fn decode(
        &mut self,
        chunk: &[u8],
        last: bool,
        mut sink: impl FnMut(&[u8]) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let skip = self.skip.min(chunk.len());
        self.skip -= skip;
        self.read += skip;
        let mut chunk = &chunk[skip..];
        let mut buf = [0u8; 8192];
        loop {
            let (result, read, written) = self
                .decoder
                .decode_to_utf8_without_replacement(chunk, &mut buf, last);
            sink(&buf[..written])?;
            self.read += read;
            chunk = &chunk[read..];
            match result {
                DecoderResult::InputEmpty => return Ok(()),
                DecoderResult::OutputFull => {}
                DecoderResult::Malformed(bad, after) => {
                    let at = self.read - usize::from(bad) - usize::from(after);
                    return Err(Error::Encoding(format!(
                        "not valid `{}` at byte {at}: an unpaired surrogate or a lone byte; it is refused rather than changed",
                        self.decoder.encoding().name(),
                    )));
                }
            }
        }
    }
}

/// Takes UTF-8 and writes UTF-16 of the given byte order.
pub struct Utf16Writer<W: Write> {
    inner: W,
    big_endian: bool,
    /// The start of a character cut off at the end of the last write.
    partial: Vec<u8>,
}

impl<W: Write> Utf16Writer<W> {
    pub fn new(inner: W, encoding: &'static Encoding) -> Self {
        Utf16Writer {
            inner,
            big_endian: encoding == UTF_16BE,
            partial: Vec::new(),
        }
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
