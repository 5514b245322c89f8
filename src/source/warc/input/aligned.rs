//! The raw input as a decoder is handed it: in pieces that end at the
//! same places however the input was read (see [`BLOCK`]).

use std::io::{self, BufRead, Read};

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

impl<R: Read> Aligned<R> {
    /// Reads the next piece into the buffer after the bytes at hand (the
    /// piece then ends where the next block does, as every piece does);
    /// whether any bytes came. For a look at a few bytes past the end of a
    /// piece (of a plain input, whose pieces no decoder is handed).
    pub(super) fn fill_more(&mut self) -> io::Result<bool> {
        if self.failed.is_some() {
            // Told at the next fill, after the bytes before it.
            return Ok(false);
        }
        self.buf.drain(..self.pos);
        self.at += self.pos as u64;
        self.pos = 0;
        let before = self.buf.len();
        let want = BLOCK - (self.at + before as u64) % BLOCK;
        if let Err(e) = (&mut self.inner).take(want).read_to_end(&mut self.buf) {
            match self.buf.len() == before {
                true => return Err(e),
                false => self.failed = Some(e),
            }
        }
        Ok(self.buf.len() > before)
    }
}

impl<R: Read> Read for Aligned<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

/// `Read::read` for a reader whose bytes are read through its buffer
/// (the input's own readers: `Read` comes with `BufRead`).
pub(super) fn read_buffered(from: &mut impl BufRead, buf: &mut [u8]) -> io::Result<usize> {
    let available = from.fill_buf()?;
    let n = available.len().min(buf.len());
    buf[..n].copy_from_slice(&available[..n]);
    from.consume(n);
    Ok(n)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Gives at most `size` bytes a read.
    struct Trickle<'a>(&'a [u8], usize);

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let n = self.1.min(buf.len()).min(self.0.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn the_pieces_end_at_the_blocks_ends_however_the_input_is_read() {
        let input: Vec<u8> = (0..3 * BLOCK as usize + 1000).map(|i| i as u8).collect();
        for size in [1, 7, 4096, usize::MAX] {
            let mut aligned = Aligned::new(Trickle(&input, size));
            // Consumed unevenly: a piece ends at the next block's end.
            let mut at = 0;
            let mut ends = Vec::new();
            loop {
                let piece = aligned.fill_buf().unwrap();
                if piece.is_empty() {
                    break;
                }
                assert_eq!(piece, &input[at..at + piece.len()]);
                ends.push(at + piece.len());
                let n = piece.len().min(5000);
                aligned.consume(n);
                at += n;
            }
            assert_eq!(at, input.len());
            let block = BLOCK as usize;
            assert!(
                ends.iter()
                    .all(|&end| end % block == 0 || end == input.len()),
                "read {size} at a time: {ends:?}"
            );
        }
    }
}
