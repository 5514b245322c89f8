//! The raw input, every byte copied to the output as it is consumed: an
//! unchanged unit comes out as it came, never recompressed.

use std::io::{self, BufRead, Read, Write};

use super::segments::Segments;
use crate::source::warc::order::Ordered;

/// The raw input, each byte handed to `copy` once it is consumed.
pub(super) struct Tee<R, W, D> {
    pub(super) inner: R,
    pub(super) copy: Ordered<W, D>,
    /// How many raw bytes were consumed.
    pub(super) at: u64,
    /// A write that failed inside `consume`, which cannot return it: the
    /// next read returns it.
    pub(super) failed: Option<io::Error>,
    /// Whether a write failed: the run's error is then the output's.
    pub(super) broke: bool,
}

impl<R: BufRead, W: Write, D> Read for Tee<R, W, D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(buf.len());
            buf[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead, W: Write, D> BufRead for Tee<R, W, D> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        if self.failed.is_none() {
            let written = match self.inner.fill_buf() {
                Ok(bytes) => {
                    let written = self.copy.raw(&bytes[..n]);
                    self.broke |= written.is_err();
                    written
                }
                Err(e) => Err(e),
            };
            if let Err(e) = written {
                self.failed = Some(e);
            }
        }
        self.inner.consume(n);
        self.at += n as u64;
    }
}

/// The input from its first byte (the bytes peeked at, then the rest).
pub(super) type Input<R> = io::Chain<io::Cursor<Vec<u8>>, R>;

/// The raw input: read as it comes, or (gzip, with jobs) cut into
/// segments inflated ahead ([`Segments`]), read as bytes where the reader
/// inflates itself. Either way it is handed on in the same pieces: see
/// [`BLOCK`].
pub(super) enum Raw<R> {
    Read(Aligned<Input<R>>),
    Cut(Box<Segments<Input<R>>>),
}

/// The raw input is handed to a decoder in pieces that end where a block
/// of this many bytes of the input ends (or the input does), however it
/// was read or cut. A decoder whose data breaks loses what it inflated in
/// the call that met the error (flate2 gives the error alone), so what a
/// reader gets before the error depends on the pieces: made the same,
/// the records read from a member that breaks are the same too.
pub(super) const BLOCK: u64 = 64 * 1024;

/// The input, in pieces that end at [`BLOCK`]s' ends.
pub(super) struct Aligned<R> {
    inner: R,
    buf: Vec<u8>,
    pos: usize,
    /// Where `buf[0]` is in the input.
    at: u64,
    /// A read that failed after some bytes of a piece: told after them.
    failed: Option<io::Error>,
}

impl<R: Read> Aligned<R> {
    pub(super) fn new(inner: R) -> Self {
        Aligned {
            inner,
            buf: Vec::with_capacity(BLOCK as usize),
            pos: 0,
            at: 0,
            failed: None,
        }
    }
}

impl<R: Read> Read for Aligned<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = {
            let available = self.fill_buf()?;
            let n = available.len().min(buf.len());
            buf[..n].copy_from_slice(&available[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for Aligned<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.pos == self.buf.len() {
            if let Some(e) = self.failed.take() {
                return Err(e);
            }
            self.at += self.buf.len() as u64;
            self.buf.clear();
            self.pos = 0;
            let want = BLOCK - self.at % BLOCK;
            if let Err(e) = (&mut self.inner).take(want).read_to_end(&mut self.buf) {
                match self.buf.is_empty() {
                    true => return Err(e),
                    false => self.failed = Some(e),
                }
            }
        }
        Ok(&self.buf[self.pos..])
    }

    fn consume(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }
}

impl<R: Read> Read for Raw<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Raw::Read(inner) => inner.read(buf),
            Raw::Cut(inner) => inner.read(buf),
        }
    }
}

impl<R: Read> BufRead for Raw<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        match self {
            Raw::Read(inner) => inner.fill_buf(),
            Raw::Cut(inner) => inner.fill_buf(),
        }
    }

    fn consume(&mut self, n: usize) {
        match self {
            Raw::Read(inner) => inner.consume(n),
            Raw::Cut(inner) => inner.consume(n),
        }
    }
}
