//! The units, one after another: a plain input's bytes, or a gzip member
//! (zstd frame) at a time, decoded; where the next byte is; the output
//! told where each unit ends.

use std::io::{self, BufRead, BufReader, Read, Write};

use flate2::bufread::GzDecoder;

use super::{GZIP_MAGIC, Place, Raw, Source, Stop, Tee, Units};
use crate::source::warc::order::Ordered;
use crate::source::warc::zst::{self, Dictionary, Frames};

impl<R: Read, W: Write, D> Units<R, W, D> {
    /// Reads the first bytes to tell gzip from plain; what waits for the
    /// output is kept in memory up to `limit` bytes a unit, in temporary
    /// files past it. With `hold`, each unit is held from its start (see
    /// [`Ordered::hold`]).
    pub fn new(mut input: R, out: W, limit: usize, hold: bool) -> io::Result<Self> {
        let mut first = Vec::with_capacity(4);
        (&mut input).take(4).read_to_end(&mut first)?;
        let gzip = first.starts_with(&GZIP_MAGIC);
        let zstd = zst::starts(&first);
        let raw = BufReader::with_capacity(64 * 1024, io::Cursor::new(first).chain(input));
        let mut tee = Tee {
            inner: raw,
            copy: Ordered::new(out, limit),
            at: 0,
            failed: None,
            broke: false,
        };
        // The dictionary frame, copied as it comes, before any unit.
        let (dictionary, broken) = match zstd {
            true => match zst::read_dictionary(&mut tee)? {
                Ok(dictionary) => (dictionary, None),
                Err(why) => (None, Some(format!("its dictionary frame breaks: {why}"))),
            },
            false => (None, None),
        };
        if let Some(e) = tee.failed.take() {
            return Err(e);
        }
        if (gzip || zstd) && hold {
            tee.copy.hold();
        }
        let member = tee.at;
        let source = if gzip {
            Source::Gzip(Box::new(GzDecoder::new(tee)))
        } else if zstd {
            Source::Zstd(Box::new(Frames::new(tee, dictionary.as_ref())?))
        } else {
            Source::Plain(tee)
        };
        Ok(Units {
            source,
            buf: vec![0; if gzip || zstd { 64 * 1024 } else { 0 }],
            pos: 0,
            end: 0,
            ended: false,
            member,
            within: 0,
            hold,
            records_in_unit: 0,
            dictionary,
            broken,
        })
    }

    /// Whether writing the output failed (an error is then the output's,
    /// not the input's).
    pub fn write_broke(&mut self) -> bool {
        self.tee().is_ok_and(|tee| tee.broke)
    }

    pub fn gzip(&self) -> bool {
        matches!(self.source, Source::Gzip(_))
    }

    pub fn zstd(&self) -> bool {
        matches!(self.source, Source::Zstd(_))
    }

    /// A zstd input's dictionary, for its new records.
    pub fn dictionary(&self) -> Option<&Dictionary> {
        self.dictionary.as_ref()
    }

    /// Whether units are compressed members or frames (else records).
    pub(super) fn framed(&self) -> bool {
        !matches!(self.source, Source::Plain(_))
    }

    /// Raw bytes read so far.
    pub fn raw_offset(&mut self) -> u64 {
        self.tee().map_or(0, |tee| tee.at)
    }

    /// Where the next decoded byte is.
    pub fn place(&self) -> Place {
        match self.source {
            Source::Plain(_) => Place::Byte(self.within),
            Source::Zstd(_) => Place::Frame {
                frame: self.member,
                within: self.within,
            },
            Source::Gzip(_) | Source::Taken => Place::Member {
                member: self.member,
                within: self.within,
            },
        }
    }

    /// The output, behind its queue.
    pub fn output(&mut self) -> io::Result<&mut Ordered<W, D>> {
        Ok(&mut self.tee()?.copy)
    }

    pub(super) fn tee(&mut self) -> io::Result<&mut Tee<Raw<R>, W, D>> {
        match &mut self.source {
            Source::Plain(tee) => Ok(tee),
            Source::Gzip(decoder) => Ok(decoder.get_mut()),
            Source::Zstd(frames) => Ok(frames.get_mut()),
            Source::Taken => Err(lost()),
        }
    }

    /// The next decoded bytes of this unit; empty at its end (of a plain
    /// input: at the end of the input).
    pub(super) fn fill(&mut self) -> io::Result<&[u8]> {
        if let Some(why) = &self.broken {
            return Err(io::Error::new(io::ErrorKind::InvalidData, why.clone()));
        }
        let decoder: &mut dyn Read = match &mut self.source {
            Source::Plain(tee) => return tee.fill_buf(),
            Source::Gzip(decoder) => decoder,
            Source::Zstd(frames) => frames,
            Source::Taken => return Err(lost()),
        };
        if self.pos == self.end && !self.ended {
            self.pos = 0;
            self.end = decoder.read(&mut self.buf)?;
            self.ended = self.end == 0;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    pub(super) fn consume(&mut self, n: usize) {
        match &mut self.source {
            Source::Plain(tee) => tee.consume(n),
            Source::Gzip(_) | Source::Zstd(_) | Source::Taken => self.pos += n,
        }
        self.within += n as u64;
    }

    /// At the end of a unit: says so to the output, and moves to the next
    /// gzip member or zstd frame; `false` at the end of the input.
    pub(super) fn next_unit(&mut self) -> io::Result<bool> {
        self.unit_end()?;
        if !self.framed() || self.tee()?.fill_buf()?.is_empty() {
            return Ok(false);
        }
        let hold = self.hold;
        // The decoder of one member is done; the next starts where it
        // stopped (flate2's bufread decoder consumes exactly its member,
        // libzstd its frame).
        let at = match std::mem::replace(&mut self.source, Source::Taken) {
            Source::Gzip(decoder) => {
                let mut tee = decoder.into_inner();
                if hold {
                    tee.copy.hold();
                }
                let at = tee.at;
                self.source = Source::Gzip(Box::new(GzDecoder::new(tee)));
                at
            }
            Source::Zstd(mut frames) => {
                frames.next_frame()?;
                let tee = frames.get_mut();
                if hold {
                    tee.copy.hold();
                }
                let at = tee.at;
                self.source = Source::Zstd(frames);
                at
            }
            other => {
                self.source = other;
                return Ok(false);
            }
        };
        self.records_in_unit = 0;
        self.member = at;
        self.within = 0;
        self.ended = false;
        self.pos = 0;
        self.end = 0;
        Ok(true)
    }

    /// A record ended: in a plain input that ends a unit.
    pub fn record_ended(&mut self) -> io::Result<()> {
        match self.source {
            Source::Plain(_) => self.unit_end(),
            Source::Gzip(_) | Source::Zstd(_) | Source::Taken => Ok(()),
        }
    }

    pub(super) fn unit_end(&mut self) -> io::Result<()> {
        let tee = self.tee()?;
        if let Some(e) = tee.failed.take() {
            return Err(e);
        }
        let ended = tee.copy.unit_end();
        tee.broke |= ended.is_err();
        ended
    }

    /// What an error met while reading the record at `at` means: gzip
    /// data that breaks (a bad header, deflate stream or check, a member
    /// cut short: what flate2 says of them) or zstd data (libzstd's) makes
    /// the record malformed; a failed read or write stops the run.
    pub(super) fn stop(&mut self, e: io::Error, at: Place) -> Stop {
        let broken = matches!(
            e.kind(),
            io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::UnexpectedEof
        );
        if broken && self.framed() && !self.write_broke() {
            let format = if self.zstd() { "zstd" } else { "gzip" };
            Stop::Malformed {
                at,
                why: format!("its {format} data breaks: {e}"),
            }
        } else {
            Stop::Io(e)
        }
    }

    /// After a malformed record: the rest of the raw input, as it is.
    pub fn copy_rest(&mut self) -> io::Result<()> {
        let tee = self.tee()?;
        loop {
            let n = tee.fill_buf()?.len();
            if n == 0 {
                break;
            }
            tee.consume(n);
        }
        if let Some(e) = tee.failed.take() {
            return Err(e);
        }
        Ok(())
    }

    /// The end of the input: every unit is over, and the output is given
    /// back with what still waits in its queue.
    pub fn finish(self) -> io::Result<Ordered<W, D>> {
        let mut tee = match self.source {
            Source::Plain(tee) => tee,
            Source::Gzip(decoder) => decoder.into_inner(),
            Source::Zstd(frames) => frames.into_inner(),
            Source::Taken => return Err(lost()),
        };
        if let Some(e) = tee.failed.take() {
            return Err(e);
        }
        tee.copy.close()?;
        Ok(tee.copy)
    }
}

/// Never met: the source is only taken between two members, within one
/// call.
fn lost() -> io::Error {
    io::Error::other("the input was lost between two gzip members")
}
