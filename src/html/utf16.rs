//! UTF-16 input, the one encoding that is not ASCII-compatible and that
//! htmlabs still rewrites: decoded to UTF-8 for the rewrite, and the output
//! encoded back.

use std::borrow::Cow;
use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;

use encoding_rs::Encoding;

use super::document::Document;
use crate::document::error::Error;
use crate::document::report::{Report, Warning};
use crate::document::resolution::Splices;
use crate::document::utf16::{Utf16Decoded, Utf16Decoder, Utf16Writer};

/// UTF-16 input: decoded to UTF-8 for the rewrite, and the output encoded
/// back. Valid UTF-16 goes there and back exactly; an unpaired surrogate
/// would not: rewriting stops there, and from there on the input goes out
/// as it came (what came before is out already: nothing is refused after
/// output went out).
pub struct Utf16<W: Write> {
    input: Utf16Decoder,
    document: Document<Utf16Writer<W>>,
    /// The output's writer writes bytes as they come, not UTF-8 to encode.
    raw: Rc<Cell<bool>>,
}

impl<W: Write> Utf16<W> {
    /// Input in `encoding`, whose first `bom` bytes are its byte order
    /// mark, for `document`, which writes through a [`Utf16Writer`].
    pub fn new(
        encoding: &'static Encoding,
        bom: usize,
        document: Document<Utf16Writer<W>>,
        raw: Rc<Cell<bool>>,
    ) -> Self {
        Utf16 {
            input: Utf16Decoder::new(encoding, bom),
            document,
            raw,
        }
    }

    pub fn document_mut(&mut self) -> &mut Document<Utf16Writer<W>> {
        &mut self.document
    }

    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        self.decode(chunk, false)
    }

    fn decode(&mut self, chunk: &[u8], last: bool) -> Result<(), Error> {
        if self.raw.get() {
            return self.document.write(Cow::Borrowed(chunk));
        }
        let document = &mut self.document;
        let decoded = self
            .input
            .decode(chunk, last, |utf8| document.write(Cow::Borrowed(utf8)))?;
        if let Utf16Decoded::Malformed { at, rest } = decoded {
            self.document.stop_with(Warning::Malformed {
                offset: at,
                encoding: self.input.encoding().name(),
            })?;
            self.raw.set(true);
            self.document.write(Cow::Owned(rest))?;
        }
        Ok(())
    }

    pub fn end(mut self) -> Result<(Report, W, Splices), Error> {
        self.decode(&[], true)?;
        let (report, writer, splices) = self.document.end()?;
        Ok((report, writer.finish()?, splices))
    }
}
