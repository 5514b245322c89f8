//! A gzip input cut where its members may start and inflated on the
//! pool, ahead of the reading: what lets a run use more than one core for
//! inflating, the part of an archive that one thread did for all (about
//! 90% of what that thread did, on the bench archive).
//!
//! A gzip member says nowhere how long it is: its end is found by
//! inflating it. So the raw input is cut, without inflating, at each
//! place a member may start (`1f 8b 08`, reserved flags clear, an `XFL`
//! and an `OS` that writers use), a scan at memchr's speed; each piece, a
//! *segment*, is inflated on the pool, member after member while each
//! ends where the next begins. A place that only looks like a start (in
//! the middle of a member's compressed data, about once in 10⁹ bytes) or a
//! member longer than a segment may be leaves the member unfinished at the
//! segment's end: it is then inflated as it comes, by the reader
//! ([`Segments`] is also the raw input, byte by byte), until a member ends
//! where a segment starts. A member that inflates on the pool is the
//! member the reader would have inflated (the same bytes, from its first
//! to its last), and every other byte goes the reader's way: the records,
//! their places, the errors and the output do not depend on where the
//! input was cut.
//!
//! Memory: at most [`Inflating::ahead`] segments in flight, each at most
//! [`Inflating::cap`] raw bytes and [`Inflating::budget`] inflated ones,
//! drawn from the run's memory: where it has no room, no more are set
//! going until those in flight are read (one is always cut, for the
//! reader); what is past either is inflated by the reader, as it comes.

use std::collections::VecDeque;
use std::io::{self, BufRead, Read};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, LazyLock};

use flate2::bufread::GzDecoder;
use memchr::memmem;

use super::aligned::{BLOCK, read_buffered};
use crate::document::memory::{Drawn, Memory};

/// Where segments are inflated, and how far ahead of the reading.
#[derive(Clone)]
pub struct Inflating {
    pub(super) pool: Arc<rayon::ThreadPool>,
    /// How many segments may be in flight.
    pub(super) ahead: usize,
    /// A segment's least raw bytes, before the input is over: it ends at
    /// the first place a member may start past them (a segment a member
    /// was a task, a wakeup and a channel each for 10 KB of input, which
    /// the reading thread paid).
    pub(super) least: usize,
    /// A segment's most raw bytes: past them it is cut even where no
    /// member may start.
    pub(super) cap: usize,
    /// A segment's most inflated bytes: the members past them are
    /// inflated by the reader.
    pub(super) budget: usize,
    /// What segments in flight draw from.
    pub(super) memory: Memory,
}

impl Inflating {
    /// On `pool`, for a run of `jobs` threads within `memory`: up to four
    /// segments a thread in flight, as the run's memory has room for, of
    /// 256 KiB or more (half the most, if less), and at most a
    /// sixty-fourth of `--max-memory` each (64 KiB to 8 MiB), raw and
    /// inflated (a record's member longer is inflated by the reader).
    pub fn new(pool: Arc<rayon::ThreadPool>, jobs: usize, memory: Memory) -> Self {
        let share = (memory.total() / 64).clamp(64 << 10, 8 << 20);
        Inflating {
            pool,
            ahead: 4 * jobs.max(1),
            least: (share / 2).min(256 * 1024),
            cap: share,
            budget: share,
            memory,
        }
    }
}

/// A segment of the raw input, and the members inflated from its start.
pub(super) struct Inflated {
    /// Where its first byte is in the input.
    pub(super) at: u64,
    /// Its bytes, shared with the output while they wait there.
    pub(super) raw: Arc<Vec<u8>>,
    /// The members' data, one after another (one buffer a segment: one
    /// allocation made on the pool and freed by the reader, not one a
    /// member).
    pub(super) data: Vec<u8>,
    /// The members that inflated, one after another from the segment's
    /// first byte: where each ends in `raw` and in `data`. What is past
    /// the last one is inflated by the reader.
    pub(super) members: VecDeque<Member>,
    /// What it draws of the run's memory, while it is read.
    _drawn: Option<Drawn>,
}

pub(super) struct Member {
    pub(super) end: usize,
    pub(super) data_end: usize,
}

/// The raw input as segments inflated ahead, and as bytes (`BufRead`)
/// for what the reader inflates itself.
pub(super) struct Segments<R> {
    input: R,
    inflating: Inflating,
    /// Bytes read and not yet cut: the next segment's, and maybe some of
    /// the one after (read into where they stay: a segment is not copied).
    pending: Vec<u8>,
    /// Where the scan for the segment's end goes on from.
    searched: usize,
    /// Where `pending[0]` is in the input.
    at: u64,
    /// The input ended (or failed: `failed` says how, once what was read
    /// before is consumed).
    ended: bool,
    failed: Option<io::Error>,
    in_flight: VecDeque<Receiver<Inflated>>,
    /// The segment being read as bytes, and how far; its members are
    /// whole as long as none of it is read.
    current: Option<(Inflated, usize)>,
    /// Bytes of a block ([`BLOCK`]) that runs over the ends of segments,
    /// joined to be handed on in one piece, and how far they are read.
    stage: Vec<u8>,
    staged: usize,
}

/// How much is read at a time past a segment's `least` bytes, looking for
/// its end.
const SEARCH: usize = 32 * 1024;

/// A gzip member's header is 10 bytes, before its optional fields.
const HEADER: usize = 10;

/// A member's magic and method, its searcher built once.
static MAGIC: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new(&[0x1f, 0x8b, 0x08]));

impl<R: Read> Segments<R> {
    pub(super) fn new(input: R, inflating: Inflating) -> Self {
        Segments {
            input,
            inflating,
            pending: Vec::new(),
            searched: 0,
            at: 0,
            ended: false,
            failed: None,
            in_flight: VecDeque::new(),
            current: None,
            stage: Vec::new(),
            staged: 0,
        }
    }

    /// Whether the next raw byte is the first of a segment (or the input
    /// is over): the only place a member inflated ahead may start.
    pub(super) fn at_boundary(&self) -> bool {
        self.staged == self.stage.len()
            && match &self.current {
                None => true,
                Some((segment, read)) => *read == 0 || *read == segment.raw.len(),
            }
    }

    /// At a boundary: the segment that starts here, its members whole;
    /// `None` at the end of the input.
    pub(super) fn next_segment(&mut self) -> io::Result<Option<Inflated>> {
        match self.current.take() {
            Some((segment, 0)) => return Ok(Some(segment)),
            Some((segment, read)) if read < segment.raw.len() => {
                self.current = Some((segment, read));
                return Err(io::Error::other(
                    "a gzip segment was asked for within another one",
                ));
            }
            _ => {}
        }
        self.pull()
    }

    /// `segment`'s raw bytes from `from` on, to be read as bytes (its
    /// members are the reader's from there).
    pub(super) fn put_back(&mut self, mut segment: Inflated, from: usize) {
        segment.members.clear();
        self.current = Some((segment, from));
    }

    /// The next segment in input order, once inflated; the segments after
    /// it set going.
    fn pull(&mut self) -> io::Result<Option<Inflated>> {
        self.top_up();
        match self.in_flight.pop_front() {
            Some(inflated) => {
                let segment = inflated.recv().map_err(|_| {
                    io::Error::other("a gzip segment was lost while it was inflated")
                })?;
                self.top_up();
                Ok(Some(segment))
            }
            None => match self.failed.take() {
                Some(e) => Err(e),
                None => Ok(None),
            },
        }
    }

    /// Cuts segments and sets them inflating, until `ahead` are in flight
    /// or the input is over.
    fn top_up(&mut self) {
        while self.in_flight.len() < self.inflating.ahead {
            // Its raw bytes and what they inflate to (a buffer that grows
            // by doubling), drawn before it is cut; one is cut whatever the
            // draw says: the reader reads it, and inflates it itself.
            let most = self.inflating.cap + 2 * self.inflating.budget;
            let drawn = self.inflating.memory.draw(most).ok();
            if drawn.is_none() && !self.in_flight.is_empty() {
                return;
            }
            let Some(segment) = self.cut() else {
                return;
            };
            let (sender, receiver) = mpsc::channel();
            let budget = match drawn {
                Some(_) => self.inflating.budget,
                None => 0,
            };
            self.inflating.pool.spawn(move || {
                let mut inflated = inflate(segment, budget);
                inflated._drawn = drawn;
                let _ = sender.send(inflated);
            });
            self.in_flight.push_back(receiver);
        }
    }

    /// The next segment's raw bytes: from here to the next place a member
    /// may start past `least` bytes, to `cap` bytes, or to the end of the
    /// input.
    fn cut(&mut self) -> Option<(u64, Vec<u8>)> {
        loop {
            let from = self.searched.max(self.inflating.least.max(1));
            if from < self.pending.len() {
                match find_start(&self.pending[from..], self.ended) {
                    Found::At(i) => return Some(self.take(from + i)),
                    Found::Not(searched) => self.searched = from + searched,
                }
            }
            if self.pending.len() >= self.inflating.cap {
                return Some(self.take(self.inflating.cap));
            }
            if self.ended {
                return (!self.pending.is_empty()).then(|| self.take(self.pending.len()));
            }
            self.read();
        }
    }

    /// `pending[..end]`, as a segment; what follows it starts the next.
    fn take(&mut self, end: usize) -> (u64, Vec<u8>) {
        let mut next = Vec::with_capacity(self.inflating.least + 2 * SEARCH);
        next.extend_from_slice(&self.pending[end..]);
        self.pending.truncate(end);
        let raw = std::mem::replace(&mut self.pending, next);
        let at = self.at;
        self.at += raw.len() as u64;
        self.searched = 0;
        (at, raw)
    }

    /// More of the input into `pending`: a lot while the segment is short
    /// of `least`, then a little at a time (what is read past its end is
    /// copied to start the next); at its end or an error, `ended`.
    fn read(&mut self) {
        let want = match self.pending.len() < self.inflating.least {
            true => self.inflating.least - self.pending.len(),
            false => SEARCH,
        };
        // `read_to_end` leaves the new bytes' room unwritten until read
        // into (`resize` wrote zeros first).
        match (&mut self.input)
            .take(want as u64)
            .read_to_end(&mut self.pending)
        {
            Ok(n) => self.ended = n < want,
            Err(e) => {
                // What was read before the error is kept.
                self.ended = true;
                self.failed = Some(e);
            }
        }
    }
}

impl<R: Read> Read for Segments<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        read_buffered(self, buf)
    }
}

impl<R: Read> BufRead for Segments<R> {
    /// The bytes to the end of the block ([`BLOCK`]) the next one is in,
    /// as [`Aligned`](super::aligned::Aligned) hands them on: joined from the
    /// segments after this one where it ends first.
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.staged < self.stage.len() {
            return Ok(&self.stage[self.staged..]);
        }
        let over = match &self.current {
            None => true,
            Some((segment, read)) => *read == segment.raw.len(),
        };
        if over {
            self.current = None;
            match self.pull()? {
                Some(segment) => self.current = Some((segment, 0)),
                None => return Ok(&[]),
            }
        }
        let Some((segment, read)) = &mut self.current else {
            return Ok(&[]);
        };
        let at = segment.at + *read as u64;
        let want = (BLOCK - at % BLOCK) as usize;
        if segment.raw.len() - *read >= want {
            let (segment, read) = self.current.as_ref().expect("matched above");
            return Ok(&segment.raw[*read..*read + want]);
        }
        self.stage.clear();
        self.staged = 0;
        self.stage.extend_from_slice(&segment.raw[*read..]);
        self.current = None;
        while self.stage.len() < want {
            let Some(mut next) = self.pull()? else {
                break;
            };
            let take = (want - self.stage.len()).min(next.raw.len());
            self.stage.extend_from_slice(&next.raw[..take]);
            next.members.clear();
            if take < next.raw.len() {
                self.current = Some((next, take));
                break;
            }
        }
        Ok(&self.stage[..])
    }

    fn consume(&mut self, n: usize) {
        if self.staged < self.stage.len() {
            self.staged = (self.staged + n).min(self.stage.len());
            return;
        }
        if let Some((segment, read)) = &mut self.current {
            if n > 0 {
                // Read as bytes: its members are the reader's now.
                segment.members.clear();
            }
            *read += n;
        }
    }
}

enum Found {
    /// A member may start this many bytes in.
    At(usize),
    /// None in the bytes searched; the scan goes on from this many bytes
    /// in when more are read.
    Not(usize),
}

/// The first place in `bytes` where a gzip member may start: its magic
/// and method (RFC 1952 §2.3.1: `1f 8b 08`), no reserved flag set, an
/// `XFL` of 0, 2 or 4 and an `OS` of 0 to 13 or 255. A place that is
/// not one of them and starts a member all the same is only found by the
/// member before it inflating to it; `ended`: no more bytes come, so a
/// magic without a whole header after it is no start.
fn find_start(bytes: &[u8], ended: bool) -> Found {
    let mut from = 0;
    while let Some(i) = MAGIC.find(&bytes[from..]) {
        let at = from + i;
        let Some(header) = bytes.get(at..at + HEADER) else {
            return match ended {
                true => Found::Not(bytes.len()),
                false => Found::Not(at),
            };
        };
        let (flags, xfl, os) = (header[3], header[8], header[9]);
        if flags & 0xe0 == 0 && matches!(xfl, 0 | 2 | 4) && (os <= 13 || os == 255) {
            return Found::At(at);
        }
        from = at + 1;
    }
    // The last two bytes may begin a magic that the next read ends.
    Found::Not(bytes.len().saturating_sub(2))
}

/// The members that inflate from the segment's first byte, one after
/// another, until one does not (it breaks, or runs past the segment: the
/// reader's then) or they come to `budget` inflated bytes.
fn inflate((at, raw): (u64, Vec<u8>), budget: usize) -> Inflated {
    let mut members = VecDeque::new();
    let mut data = Vec::new();
    let mut start = 0;
    while start < raw.len() {
        let before = data.len();
        let left = budget.saturating_sub(before);
        let mut decoder = GzDecoder::new(&raw[start..]);
        let read = (&mut decoder).take(left as u64 + 1).read_to_end(&mut data);
        if read.is_err() || data.len() - before > left {
            data.truncate(before);
            break;
        }
        let end = raw.len() - decoder.into_inner().len();
        members.push_back(Member {
            end,
            data_end: data.len(),
        });
        start = end;
    }
    Inflated {
        at,
        raw: Arc::new(raw),
        data,
        members,
        _drawn: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_may_start_only_at_a_whole_header_writers_use() {
        let header = |flags: u8, xfl: u8, os: u8| [0x1f, 0x8b, 8, flags, 0, 0, 0, 0, xfl, os];
        let at = |bytes: &[u8], ended| match find_start(bytes, ended) {
            Found::At(i) => Some(i),
            Found::Not(_) => None,
        };
        for (flags, xfl, os) in [(0, 0, 3), (0x1f, 2, 255), (8, 4, 0), (0, 0, 13)] {
            let bytes = [&b"xy"[..], &header(flags, xfl, os)].concat();
            assert_eq!(at(&bytes, false), Some(2), "{flags} {xfl} {os}");
        }
        for (flags, xfl, os) in [(0x20, 0, 3), (0, 1, 3), (0, 0, 14), (0x80, 0, 255)] {
            let bytes = [&b"xy"[..], &header(flags, xfl, os)].concat();
            assert_eq!(at(&bytes, true), None, "{flags} {xfl} {os}");
        }
        // A header cut short: more may come, and the scan goes on from its
        // magic; or none will.
        let cut = [&b"abc"[..], &header(0, 0, 3)[..7]].concat();
        assert!(matches!(find_start(&cut, false), Found::Not(3)));
        assert!(matches!(find_start(&cut, true), Found::Not(10)));
        // A magic's first bytes at the end: searched again with what comes.
        assert!(matches!(find_start(b"abcd\x1f\x8b", false), Found::Not(4)));
    }
}
