//! The units, one after another: a plain input's bytes, or a gzip member
//! (zstd frame) at a time, decoded; where the next byte is; the output
//! told where each unit ends.

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use flate2::bufread::GzDecoder;

use super::aligned::Aligned;
use super::segments::{Inflating, Segments};
use super::{Ahead, Feed, GZIP_MAGIC, Place, Raw, Stop, Tee, Units};
use crate::document::memory::Memory;
use crate::source::output::behind::{Out, Shared};
use crate::source::warc::order::Ordered;
use crate::source::warc::zst::{self, Dictionary, Frames};

impl<R: Read, W: Out, D> Units<R, W, D> {
    /// Reads the first bytes to tell gzip from plain; what waits for the
    /// output is kept in memory while the run's `memory` has room, in
    /// temporary files past it. With `hold`, each unit is held from its start (see
    /// [`Ordered::hold`]).
    pub fn new(
        mut input: R,
        out: W,
        memory: Memory,
        hold: bool,
        inflating: Option<Inflating>,
    ) -> io::Result<Self> {
        let mut first = Vec::with_capacity(4);
        (&mut input).take(4).read_to_end(&mut first)?;
        let gzip = first.starts_with(&GZIP_MAGIC);
        let zstd = zst::starts(&first);
        let input = io::Cursor::new(first).chain(input);
        let raw = match inflating {
            Some(inflating) if gzip => Raw::Cut(Box::new(Segments::new(input, inflating))),
            _ => Raw::Read(Aligned::new(input)),
        };
        let memory_total = memory.total();
        let mut tee = Tee {
            inner: raw,
            copy: Ordered::new(out, memory.clone()),
            at: 0,
            failed: None,
            broke: false,
        };
        // The dictionary frame, copied as it comes, before any unit.
        let (dictionary, broken) = match zstd {
            true => match zst::read_dictionary_of(&mut tee, memory_total / 16)? {
                Ok(dictionary) => (dictionary, None),
                Err(why) => (None, Some(format!("its dictionary frame breaks: {why}"))),
            },
            false => (None, None),
        };
        if let Some(e) = tee.failed.take() {
            return Err(e);
        }
        if zstd && hold {
            tee.copy.hold();
        }
        let member = tee.at;
        let (source, first_member) = if zstd {
            let frames = Frames::new(tee, dictionary.as_ref())?.within(&memory)?;
            (Feed::Zstd(Box::new(frames)), None)
        } else if gzip {
            // Set by the first member, below (a decoder made here would
            // read its header).
            (Feed::Taken, Some(tee))
        } else {
            (Feed::Plain(tee), None)
        };
        let mut units = Units {
            source,
            buf: vec![0; if gzip || zstd { BUF } else { 0 }],
            pos: 0,
            end: 0,
            ended: false,
            member,
            within: 0,
            hold,
            records_in_unit: 0,
            dictionary,
            broken,
            broke_after: None,
        };
        if let Some(tee) = first_member {
            units.start_member(tee)?;
        }
        Ok(units)
    }

    /// Whether writing the output failed (an error is then the output's,
    /// not the input's).
    pub fn write_broke(&mut self) -> bool {
        self.tee().is_ok_and(|tee| tee.broke)
    }

    pub fn gzip(&self) -> bool {
        matches!(self.source, Feed::Gzip(_) | Feed::Ahead(_) | Feed::Over(_))
    }

    pub fn zstd(&self) -> bool {
        matches!(self.source, Feed::Zstd(_))
    }

    /// A zstd input's dictionary, for its new records.
    pub fn dictionary(&self) -> Option<&Dictionary> {
        self.dictionary.as_ref()
    }

    /// Whether units are compressed members or frames (else records).
    pub(super) fn framed(&self) -> bool {
        !matches!(self.source, Feed::Plain(_))
    }

    /// Raw bytes read so far.
    pub fn raw_offset(&mut self) -> u64 {
        self.tee().map_or(0, |tee| tee.at)
    }

    /// Whether nothing of the current gzip member or zstd frame was read
    /// yet (never in a plain input, whose unit is a record).
    pub fn at_unit_start(&self) -> bool {
        self.framed() && self.within == 0
    }

    /// Where the next decoded byte is.
    pub fn place(&self) -> Place {
        match self.source {
            Feed::Plain(_) => Place::Byte(self.within),
            Feed::Zstd(_) => Place::Frame {
                frame: self.member,
                within: self.within,
            },
            Feed::Gzip(_) | Feed::Ahead(_) | Feed::Over(_) | Feed::Taken => Place::Member {
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
            Feed::Plain(tee) => Ok(tee),
            Feed::Gzip(decoder) => Ok(decoder.get_mut()),
            Feed::Ahead(ahead) => Ok(&mut ahead.tee),
            Feed::Over(tee) => Ok(tee),
            Feed::Zstd(frames) => Ok(frames.get_mut()),
            Feed::Taken => Err(lost()),
        }
    }

    /// The next decoded bytes of this unit; empty at its end (of a plain
    /// input: at the end of the input).
    pub(super) fn fill(&mut self) -> io::Result<&[u8]> {
        if let Some(why) = &self.broken {
            return Err(io::Error::new(io::ErrorKind::InvalidData, why.clone()));
        }
        if let Some((kind, why)) = &self.broke_after {
            return Err(io::Error::new(*kind, why.clone()));
        }
        let decoder: &mut dyn Read = match &mut self.source {
            Feed::Plain(tee) => return tee.fill_buf(),
            Feed::Gzip(decoder) => decoder,
            Feed::Zstd(frames) => frames,
            // All its data is in `buf`.
            Feed::Ahead(_) => return Ok(&self.buf[self.pos..self.end]),
            Feed::Over(_) => return Ok(&[]),
            Feed::Taken => return Err(lost()),
        };
        if self.pos == self.end && !self.ended {
            self.pos = 0;
            self.end = decoder.read(&mut self.buf)?;
            self.ended = self.end == 0;
        }
        Ok(&self.buf[self.pos..self.end])
    }

    /// At least `n` decoded bytes of this unit at hand, when it has them
    /// (a plain input: when the input has them), for a look at what starts
    /// there before it is consumed: the bytes at hand moved to the front of
    /// the buffer and more decoded after them, in the rare case that too
    /// few are left of it.
    pub(super) fn peek(&mut self, n: usize) -> io::Result<&[u8]> {
        while self.fill()?.len() < n {
            let more = match &mut self.source {
                Feed::Plain(tee) => tee.inner.fill_more()?,
                Feed::Gzip(_) | Feed::Zstd(_) if !self.ended => {
                    self.buf.copy_within(self.pos..self.end, 0);
                    self.end -= self.pos;
                    self.pos = 0;
                    let decoder: &mut dyn Read = match &mut self.source {
                        Feed::Gzip(decoder) => decoder,
                        Feed::Zstd(frames) => frames,
                        _ => unreachable!("matched above"),
                    };
                    let read = decoder.read(&mut self.buf[self.end..])?;
                    self.end += read;
                    self.ended = read == 0;
                    read > 0
                }
                _ => false,
            };
            if !more {
                break;
            }
        }
        self.fill()
    }

    pub(super) fn consume(&mut self, n: usize) {
        match &mut self.source {
            Feed::Plain(tee) => tee.consume(n),
            Feed::Gzip(_) | Feed::Ahead(_) | Feed::Over(_) | Feed::Zstd(_) | Feed::Taken => {
                self.pos += n
            }
        }
        self.within += n as u64;
    }

    /// At the end of a unit: says so to the output, and moves to the next
    /// gzip member or zstd frame; `false` at the end of the input.
    pub(super) fn next_unit(&mut self) -> io::Result<bool> {
        self.unit_end()?;
        if !self.framed() {
            return Ok(false);
        }
        match std::mem::replace(&mut self.source, Feed::Taken) {
            // The decoder of one member is done; the next starts where it
            // stopped (flate2's bufread decoder consumes exactly its
            // member).
            Feed::Gzip(decoder) => self.start_member(decoder.into_inner()),
            Feed::Ahead(ahead) if !ahead.segment.members.is_empty() => self.enter(ahead),
            Feed::Ahead(ahead) => self.start_member(ahead.rest()),
            Feed::Zstd(frames) => {
                self.source = Feed::Zstd(frames);
                self.next_frame()
            }
            other => {
                self.source = other;
                Ok(false)
            }
        }
    }

    /// The next zstd frame (libzstd's decoder consumes exactly its frame).
    fn next_frame(&mut self) -> io::Result<bool> {
        if self.tee()?.fill_buf()?.is_empty() {
            return Ok(false);
        }
        let Feed::Zstd(frames) = &mut self.source else {
            return Ok(false);
        };
        frames.next_frame()?;
        let tee = frames.get_mut();
        if self.hold {
            tee.copy.hold();
        }
        let at = tee.at;
        self.unit_started(at);
        Ok(true)
    }

    /// The gzip member that starts at the next raw byte: inflated ahead
    /// when it was (it starts a segment), else inflated here as it comes;
    /// `false` at the end of the input.
    fn start_member(&mut self, mut tee: Tee<Raw<R>, W, D>) -> io::Result<bool> {
        let mut segment = None;
        if let Raw::Cut(segments) = &mut tee.inner {
            if segments.at_boundary() {
                match segments.next_segment() {
                    Ok(Some(next)) if next.members.is_empty() => segments.put_back(next, 0),
                    Ok(Some(next)) => segment = Some(next),
                    Ok(None) => {
                        self.source = Feed::Over(tee);
                        return Ok(false);
                    }
                    Err(e) => {
                        self.source = Feed::Over(tee);
                        return Err(e);
                    }
                }
            }
        }
        if let Some(segment) = segment {
            return self.enter(Box::new(Ahead {
                tee,
                segment,
                end: 0,
                data_end: 0,
            }));
        }
        let more = tee.fill_buf().map(|rest| !rest.is_empty());
        if !matches!(more, Ok(true)) {
            self.source = Feed::Over(tee);
            return more;
        }
        if self.hold {
            tee.copy.hold();
        }
        let at = tee.at;
        self.source = Feed::Gzip(Box::new(GzDecoder::new(tee)));
        if self.buf.len() < BUF {
            self.buf = vec![0; BUF];
        }
        self.unit_started(at);
        Ok(true)
    }

    /// The next member inflated ahead: its raw bytes to the output, its
    /// data to be read.
    fn enter(&mut self, mut ahead: Box<Ahead<R, W, D>>) -> io::Result<bool> {
        let Some(member) = ahead.segment.members.pop_front() else {
            return self.start_member(ahead.rest());
        };
        let start = ahead.end;
        let at = ahead.segment.at + start as u64;
        debug_assert_eq!(ahead.tee.at, at, "every raw byte before it is out");
        let tee = &mut ahead.tee;
        if self.hold {
            tee.copy.hold();
        }
        let raw = Shared::new(Arc::clone(&ahead.segment.raw), start..member.end);
        let written = tee.copy.raw_shared(raw);
        tee.broke |= written.is_err();
        tee.at += (member.end - start) as u64;
        ahead.end = member.end;
        if start == 0 {
            // The segment's first member: its data is read where it lies.
            self.buf = std::mem::take(&mut ahead.segment.data);
        }
        let data = ahead.data_end..member.data_end;
        ahead.data_end = member.data_end;
        self.source = Feed::Ahead(ahead);
        written?;
        self.unit_started(at);
        (self.pos, self.end) = (data.start, data.end);
        // Nothing more to inflate: at its end, the member is over.
        self.ended = true;
        Ok(true)
    }

    /// A unit starts at raw byte `at`, nothing of it read yet.
    fn unit_started(&mut self, at: u64) {
        self.records_in_unit = 0;
        self.member = at;
        self.within = 0;
        self.ended = false;
        self.pos = 0;
        self.end = 0;
    }

    /// A record ended: in a plain input that ends a unit.
    pub fn record_ended(&mut self) -> io::Result<()> {
        match self.source {
            Feed::Plain(_) => self.unit_end(),
            Feed::Gzip(_) | Feed::Ahead(_) | Feed::Over(_) | Feed::Zstd(_) | Feed::Taken => Ok(()),
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
        if self.data_broke(&e) {
            let format = if self.zstd() { "zstd" } else { "gzip" };
            Stop::Malformed {
                at,
                why: format!("its {format} data breaks: {e}"),
            }
        } else {
            Stop::Io(e)
        }
    }

    /// Whether `e` says that the gzip (zstd) data breaks, not that the input
    /// cannot be read or the output written.
    pub(super) fn data_broke(&mut self, e: &io::Error) -> bool {
        let broken = matches!(
            e.kind(),
            io::ErrorKind::InvalidData | io::ErrorKind::InvalidInput | io::ErrorKind::UnexpectedEof
        );
        broken && self.framed() && !self.write_broke()
    }

    /// After a malformed record: the rest of the raw input, as it is.
    pub fn copy_rest(&mut self) -> io::Result<()> {
        // What was inflated ahead and not yet read goes out as bytes.
        self.source = match std::mem::replace(&mut self.source, Feed::Taken) {
            Feed::Ahead(ahead) => Feed::Over(ahead.rest()),
            other => other,
        };
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
            Feed::Plain(tee) => tee,
            Feed::Gzip(decoder) => decoder.into_inner(),
            Feed::Ahead(ahead) => ahead.rest(),
            Feed::Over(tee) => tee,
            Feed::Zstd(frames) => frames.into_inner(),
            Feed::Taken => return Err(lost()),
        };
        if let Some(e) = tee.failed.take() {
            return Err(e);
        }
        tee.copy.close()?;
        Ok(tee.copy)
    }
}

impl<R: Read, W: Out, D> Ahead<R, W, D> {
    /// The raw input, with what is left of the segment (past the member
    /// read, the members not read) back in it, to be read as bytes.
    fn rest(self) -> Tee<Raw<R>, W, D> {
        let Ahead {
            mut tee,
            segment,
            end,
            ..
        } = self;
        if let Raw::Cut(segments) = &mut tee.inner {
            segments.put_back(segment, end);
        }
        tee
    }
}

/// How many decoded bytes are read at a time.
const BUF: usize = 64 * 1024;

/// Never met: the source is only taken between two members, within one
/// call.
fn lost() -> io::Error {
    io::Error::other("the input was lost between two gzip members")
}
