//! The records within the units: where one starts, its header, its block
//! and the empty line after it, each said as a [`Stop`] where it breaks.

use std::io::{Read, Write};
use std::sync::LazyLock;

use memchr::memmem;

use super::{Place, Stop, Units};
use crate::source::output::behind::Out;
use crate::source::warc::header::{Header, MAX_HEADER};

/// How much of what is at hand is searched at a time for a header's end.
const HEADER_STEP: usize = 4096;

/// The empty line that ends a header, searched for once built.
static HEADER_END: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(b"\r\n\r\n"));

impl<R: Read, W: Out, D> Units<R, W, D> {
    /// Whether the record whose header was just read is its unit's first.
    pub fn first_in_unit(&self) -> bool {
        self.records_in_unit == 1
    }

    /// Whether the record just read ran on into another unit (a zstd
    /// record in several frames; a gzip one in several members).
    pub fn spanned_units(&self) -> bool {
        self.records_in_unit == 0
    }

    /// Whether the unit is over once the record just read is (skipping
    /// the line ends some writers put after a record): always in a plain
    /// input; in gzip (zstd), when its member (frame) holds no other record.
    pub fn unit_over(&mut self, at: Place) -> Result<bool, Stop> {
        if !self.framed() {
            return Ok(true);
        }
        loop {
            match self.skip_line_ends(at)? {
                None => return Ok(true),
                Some(more) if more => return Ok(false),
                Some(_) => {}
            }
        }
    }

    /// Whether another record starts here: skips the line ends some
    /// writers put between records (they are copied, as all bytes are).
    pub fn more(&mut self) -> Result<bool, Stop> {
        loop {
            // Where a record would start: past a unit's end, the next
            // unit's first byte (what a unit that breaks at once is told
            // at).
            let at = self.place();
            if self.filled(at)?.is_empty() {
                if !self.next_unit()? {
                    return Ok(false);
                }
                continue;
            }
            if self.skip_line_ends(at)? == Some(true) {
                return Ok(true);
            }
        }
    }

    /// Consumes the line ends that start the bytes at hand in this unit;
    /// whether other bytes follow them there (`None`: the unit is over).
    pub(super) fn skip_line_ends(&mut self, at: Place) -> Result<Option<bool>, Stop> {
        let available = self.filled(at)?;
        if available.is_empty() {
            return Ok(None);
        }
        let blank = available
            .iter()
            .take_while(|&&b| b == b'\r' || b == b'\n')
            .count();
        let more = blank < available.len();
        self.consume(blank);
        Ok(Some(more))
    }

    /// Reads a record's header, at the place [`more`](Units::more) found.
    pub fn header(&mut self) -> Result<Header, Stop> {
        let at = self.place();
        if self.framed() {
            self.records_in_unit += 1;
        } else {
            // A plain input's unit is the record.
            self.records_in_unit = 1;
            if self.hold {
                self.tee()?.copy.hold();
            }
        }
        let mut bytes: Vec<u8> = Vec::new();
        loop {
            let searched = bytes.len().saturating_sub(3);
            if !self.available(at)? {
                return Err(Stop::Malformed {
                    at,
                    why: format!(
                        "the input ends within the record's header, after {} bytes",
                        bytes.len()
                    ),
                });
            }
            // A few KiB at a time: what is at hand may be a whole member's
            // data, and a header is short.
            let available = self.filled(at)?;
            let available = &available[..available.len().min(HEADER_STEP)];
            if bytes.is_empty() {
                // The header whole at hand (as it mostly is): copied once.
                if let Some(i) = HEADER_END.find(available) {
                    bytes = available[..i + 4].to_vec();
                    self.consume(i + 4);
                    break;
                }
            }
            let old = bytes.len();
            bytes.extend_from_slice(available);
            match HEADER_END.find(&bytes[searched..]) {
                Some(i) => {
                    let end = searched + i + 4;
                    bytes.truncate(end);
                    self.consume(end - old);
                    break;
                }
                None => {
                    let n = bytes.len() - old;
                    self.consume(n);
                }
            }
            if bytes.len() > MAX_HEADER {
                return Err(self.malformed(
                    at,
                    format!("no empty line ends the header within its first {MAX_HEADER} bytes"),
                ));
            }
        }
        Header::parse(bytes).map_err(|why| self.malformed(at, why))
    }

    /// Reads a block of `length` bytes into `sink` (when it is kept), then
    /// the empty line that ends the record.
    pub fn block(
        &mut self,
        at: Place,
        length: u64,
        mut sink: Option<&mut dyn Write>,
    ) -> Result<(), Stop> {
        let mut left = length;
        while left > 0 {
            if !self.available(at)? {
                return Err(Stop::Malformed {
                    at,
                    why: format!(
                        "the input ends within the record's block, after {} of its {length} bytes (`Content-Length`)",
                        length - left
                    ),
                });
            }
            let available = self.filled(at)?;
            let n = available
                .len()
                .min(usize::try_from(left).unwrap_or(usize::MAX));
            if let Some(sink) = sink.as_deref_mut() {
                sink.write_all(&available[..n])?;
            }
            self.consume(n);
            left -= n as u64;
        }
        let mut end = [0u8; 4];
        let mut got = 0;
        while got < 4 && self.available(at)? {
            let available = self.filled(at)?;
            let n = available.len().min(4 - got);
            end[got..got + n].copy_from_slice(&available[..n]);
            if end[..got + n] != b"\r\n\r\n"[..got + n] {
                return Err(self.malformed(
                    at,
                    format!(
                        "no empty line after the block's {length} bytes: `Content-Length` is not the block's length"
                    ),
                ));
            }
            self.consume(n);
            got += n;
        }
        if got < 4 {
            return Err(Stop::Malformed {
                at,
                why: format!(
                    "the input ends before the empty line after the block's {length} bytes"
                ),
            });
        }
        Ok(())
    }

    /// The record at `at` is malformed for `why`, as its bytes say; but
    /// where its gzip member (zstd frame) breaks further on, that is what
    /// is said. Bytes inflated from data that breaks may be anything, and
    /// how many of them come before the error depends on how the input
    /// came (its reads, where it was cut to be inflated ahead): the error
    /// does not.
    pub fn malformed(&mut self, at: Place, why: String) -> Stop {
        if self.framed() {
            loop {
                match self.fill() {
                    Ok([]) => break,
                    Ok(bytes) => {
                        let n = bytes.len();
                        self.consume(n);
                    }
                    Err(e) => return self.stop(e, at),
                }
            }
        }
        Stop::Malformed { at, why }
    }

    /// [`fill`](Units::fill), with an error said as what it means for the
    /// record at `at`.
    pub(super) fn filled(&mut self, at: Place) -> Result<&[u8], Stop> {
        if let Err(e) = self.fill() {
            return Err(self.stop(e, at));
        }
        // Held from the call above: no read, no error.
        self.fill().map_err(Stop::Io)
    }

    /// Whether more decoded bytes follow, in this unit or the next ones
    /// (moving to them); `false` at the end of the input.
    pub(super) fn available(&mut self, at: Place) -> Result<bool, Stop> {
        loop {
            if !self.filled(at)?.is_empty() {
                return Ok(true);
            }
            if !self.next_unit()? {
                return Ok(false);
            }
        }
    }
}
