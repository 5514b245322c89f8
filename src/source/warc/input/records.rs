//! The records within the units: where one starts, its header, its block
//! and the line ends after it, each said as a [`Stop`] where it breaks;
//! and, past a record that is not framed as its header says, the next
//! record found.
//!
//! Lines are read as warcio and FastWARC read them: a record's header lines
//! may end in `\r\n` (the standard's), `\n` or `\r\r\n`; a block may be
//! followed by two CRLFs (the standard's), one (node-warc), any other run of
//! line ends, or none where its unit ends. What must follow them is the
//! end of the unit or of the input, or the next record's `WARC/`: else the
//! block's `Content-Length` is not its length, and the record is
//! [`Misframed`](Stop::Misframed).

use std::io::{self, Read, Write};

use super::{Place, Stop, Units};
use crate::source::output::behind::Out;
use crate::source::warc::header::{Header, MAX_HEADER, header_end};

/// How much of what is at hand is searched at a time for a header's end.
const HEADER_STEP: usize = 4096;

/// What a record starts with: its version line's first bytes.
const RECORD_START: &[u8] = b"WARC/";

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
        // Bytes that are no record are told at once, before a header is
        // looked for in them (its end might be the next record's).
        let first = match self.peek(16) {
            Ok(first) => first,
            Err(e) => return Err(self.stop(e, at)),
        };
        let line = first.split(|&b| b == b'\r' || b == b'\n').next();
        let line = line.unwrap_or_default();
        let line = &line[..line.len().min(40)];
        let cut = first.len() < RECORD_START.len() && RECORD_START.starts_with(first);
        if !first.starts_with(RECORD_START) && !cut {
            let shown = String::from_utf8_lossy(line).into_owned();
            return Err(Stop::Misframed {
                at,
                why: format!("`{shown}` is not a WARC version line"),
            });
        }
        let mut bytes: Vec<u8> = Vec::new();
        // Where the search for the empty line goes on from, in `bytes`.
        let mut from = 0;
        loop {
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
            let n = available.len();
            if bytes.is_empty() {
                // The header whole at hand (as it mostly is): copied once.
                match header_end(available) {
                    Ok(end) => {
                        bytes = available[..end].to_vec();
                        self.consume(end);
                        break;
                    }
                    Err(resume) => {
                        bytes.extend_from_slice(available);
                        from = resume;
                        self.consume(n);
                    }
                }
            } else {
                let old = bytes.len();
                bytes.extend_from_slice(available);
                match header_end(&bytes[from..]) {
                    Ok(end) => {
                        let end = from + end;
                        bytes.truncate(end);
                        self.consume(end - old);
                        break;
                    }
                    Err(resume) => {
                        from += resume;
                        self.consume(n);
                    }
                }
            }
            if bytes.len() > MAX_HEADER {
                return Err(Stop::Misframed {
                    at,
                    why: format!(
                        "no empty line ends the header within its first {MAX_HEADER} bytes"
                    ),
                });
            }
        }
        Header::parse(bytes).map_err(|why| Stop::Misframed { at, why })
    }

    /// Reads a block of `length` bytes into `sink` (when it is kept), then
    /// the line ends that end the record.
    pub fn block(
        &mut self,
        at: Place,
        length: u64,
        mut sink: Option<&mut dyn Write>,
    ) -> Result<(), Stop> {
        let mut left = length;
        while left > 0 {
            let available = self.filled(at)?;
            if available.is_empty() {
                if !self.next_unit()? {
                    return Err(Stop::Malformed {
                        at,
                        why: format!(
                            "the input ends within the record's block, after {} of its {length} bytes (`Content-Length`)",
                            length - left
                        ),
                    });
                }
                // A record may run on into the next unit, but not into
                // the record that starts it: that is the length's fault
                // (what a reader that reads a record a gzip member,
                // warcio, reads as two records).
                if self.starts_record(at)? {
                    return Err(Stop::Misframed {
                        at,
                        why: format!(
                            "its block runs on into a record that starts a new {}, after {} of its {length} bytes: `Content-Length` is not the block's length",
                            at.unit(),
                            length - left
                        ),
                    });
                }
                continue;
            }
            let n = available
                .len()
                .min(usize::try_from(left).unwrap_or(usize::MAX));
            if let Some(sink) = sink.as_deref_mut() {
                sink.write_all(&available[..n])?;
            }
            self.consume(n);
            left -= n as u64;
        }
        self.record_end(at, length)
    }

    /// After a block: the line ends that end its record (two CRLFs, as the
    /// standard writes them, or any others), then the end of the unit (of a
    /// plain input: of the input), or another record. Data that breaks
    /// there breaks after the record, which is whole: it is told at the
    /// next read, as it was before any look past a block.
    fn record_end(&mut self, at: Place, length: u64) -> Result<(), Stop> {
        match self.ends_record() {
            Ok(true) => Ok(()),
            Ok(false) => Err(Stop::Misframed {
                at,
                why: format!(
                    "no empty line after the block's {length} bytes: `Content-Length` is not the block's length"
                ),
            }),
            Err(e) if self.data_broke(&e) => {
                self.broke_after = Some((e.kind(), e.to_string()));
                Ok(())
            }
            Err(e) => Err(self.stop(e, at)),
        }
    }

    /// Consumes the line ends at hand; whether the unit ends after them,
    /// or a record starts.
    fn ends_record(&mut self) -> io::Result<bool> {
        loop {
            let available = self.fill()?;
            if available.is_empty() {
                return Ok(true);
            }
            let blank = available
                .iter()
                .take_while(|&&b| b == b'\r' || b == b'\n')
                .count();
            let more = blank < available.len();
            self.consume(blank);
            if more {
                return Ok(self.peek(RECORD_START.len())?.starts_with(RECORD_START));
            }
        }
    }

    /// Whether a record starts at the next byte of this unit.
    fn starts_record(&mut self, at: Place) -> Result<bool, Stop> {
        match self.peek(RECORD_START.len()) {
            Ok(bytes) => Ok(bytes.starts_with(RECORD_START)),
            Err(e) => Err(self.stop(e, at)),
        }
    }

    /// Past the record at `at`, which is misframed: consumes (and so
    /// copies as they are) the bytes up to the next line that starts with
    /// `WARC/` (a unit's first byte starts a line), as FastWARC's quirks
    /// mode does; where that record starts, or `None` at the end of the
    /// input. Where it stands is a line's start: after the header that is
    /// not one, at the bytes that are not a record's start (which do not
    /// start with `WARC/`), or at the unit the block ran on into.
    pub fn read_on(&mut self, at: Place) -> Result<Option<Place>, Stop> {
        let mut line_start = true;
        loop {
            if self.filled(at)?.is_empty() {
                if !self.next_unit()? {
                    return Ok(None);
                }
                line_start = true;
                continue;
            }
            if line_start && self.starts_record(at)? {
                return Ok(Some(self.place()));
            }
            let available = self.filled(at)?;
            let (n, ends_line) = match memchr::memchr(b'\n', available) {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            self.consume(n);
            line_start = ends_line;
        }
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
