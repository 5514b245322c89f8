//! The raw input, every byte copied to the output as it is consumed: an
//! unchanged unit comes out as it came, never recompressed.

use std::io::{self, BufRead, Read};

use super::aligned::{Aligned, read_buffered};
use super::segments::Segments;
use crate::source::output::behind::Out;
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

impl<R: BufRead, W: Out, D> Read for Tee<R, W, D> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl<R: BufRead, W: Out, D> BufRead for Tee<R, W, D> {
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
/// [`BLOCK`](super::aligned::BLOCK).
pub(super) enum Raw<R> {
    Read(Aligned<Input<R>>),
    Cut(Box<Segments<Input<R>>>),
}

impl<R: Read> Raw<R> {
    /// More of the input after the bytes at hand, kept with them; whether
    /// any came. Only a plain input is read so (a gzip one cut into
    /// segments is never plain).
    pub(super) fn fill_more(&mut self) -> io::Result<bool> {
        match self {
            Raw::Read(inner) => inner.fill_more(),
            Raw::Cut(_) => Ok(false),
        }
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
