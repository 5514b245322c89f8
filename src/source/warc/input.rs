//! The input as it is read: plain, gzip one member at a time, or zstd one
//! frame at a time ([`zst`]), every raw byte handed to the output
//! ([`Ordered`]) as soon as it is read, and the records found in it, each
//! with its place.
//!
//! A unit is what new records may be put after, or put in place of,
//! without cutting anything: a gzip member (one record, as the standard
//! recommends, or several) or a zstd frame, or in a plain file the record
//! itself. When
//! records may be replaced, each unit's raw bytes are held from its start
//! until its first record's header says whether they may be.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};

use flate2::bufread::GzDecoder;

use super::header::{Header, MAX_HEADER};
use super::order::Ordered;
use super::zst::{self, Dictionary, Frames};

/// Where a record starts, in the input's bytes: what a user can seek to,
/// and what CDX indexes list (a gzip member's offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A plain file's byte.
    Byte(u64),
    /// A byte of the data of the gzip member that starts at `member`.
    Member { member: u64, within: u64 },
    /// A byte of the data of the zstd frame that starts at `frame`.
    Frame { frame: u64, within: u64 },
}

impl Place {
    /// What the input is read in here: what new records may be put after.
    pub fn unit(&self) -> &'static str {
        match self {
            Place::Byte(_) => "record",
            Place::Member { .. } => "gzip member",
            Place::Frame { .. } => "zstd frame",
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Byte(at) => write!(f, "byte {at}"),
            Place::Member { member, within: 0 } => write!(f, "the gzip member at byte {member}"),
            Place::Member { member, within } => {
                write!(f, "byte {within} of the gzip member at byte {member}")
            }
            Place::Frame { frame, within: 0 } => write!(f, "the zstd frame at byte {frame}"),
            Place::Frame { frame, within } => {
                write!(f, "byte {within} of the zstd frame at byte {frame}")
            }
        }
    }
}

/// The raw input, each byte handed to `copy` once it is consumed.
struct Tee<R, W, D> {
    inner: R,
    copy: Ordered<W, D>,
    /// How many raw bytes were consumed.
    at: u64,
    /// A write that failed inside `consume`, which cannot return it: the
    /// next read returns it.
    failed: Option<io::Error>,
    /// Whether a write failed: the run's error is then the output's.
    broke: bool,
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

type Raw<R> = BufReader<io::Chain<io::Cursor<Vec<u8>>, R>>;

enum Source<R, W, D> {
    Plain(Tee<Raw<R>, W, D>),
    Gzip(Box<GzDecoder<Tee<Raw<R>, W, D>>>),
    Zstd(Box<Frames<Tee<Raw<R>, W, D>>>),
    /// Between two members, for a moment.
    Taken,
}

/// Why the records stop before the input does.
#[derive(Debug)]
pub enum Stop {
    /// The input cannot be read, or the output written: the run fails.
    Io(io::Error),
    /// The input is not a record from here on (or its gzip breaks): the
    /// rest is copied as it is.
    Malformed { at: Place, why: String },
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop::Io(e)
    }
}

/// The decoded input, unit by unit; see the module's note.
pub struct Units<R, W, D> {
    source: Source<R, W, D>,
    /// Decoded bytes of a gzip member or zstd frame not yet consumed.
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    /// The current gzip member is over.
    ended: bool,
    /// Where the current member starts in the raw input.
    member: u64,
    /// How many decoded bytes of the current member (of a plain input:
    /// of the input) were consumed.
    within: u64,
    /// Each unit is held until its first record's header is read.
    hold: bool,
    /// Records whose header was read in this unit.
    records_in_unit: u32,
    /// A zstd input's dictionary.
    dictionary: Option<Dictionary>,
    /// Why a zstd input's dictionary frame cannot be read: nothing after
    /// it can be decoded.
    broken: Option<String>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

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
    fn framed(&self) -> bool {
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

    /// Whether the record whose header was just read is its unit's first.
    pub fn first_in_unit(&self) -> bool {
        self.records_in_unit == 1
    }

    /// Whether the record just read ran on into another unit (a zstd
    /// record in several frames; a gzip one in several members).
    pub fn spanned_units(&self) -> bool {
        self.records_in_unit == 0
    }

    fn tee(&mut self) -> io::Result<&mut Tee<Raw<R>, W, D>> {
        match &mut self.source {
            Source::Plain(tee) => Ok(tee),
            Source::Gzip(decoder) => Ok(decoder.get_mut()),
            Source::Zstd(frames) => Ok(frames.get_mut()),
            Source::Taken => Err(lost()),
        }
    }

    /// The next decoded bytes of this unit; empty at its end (of a plain
    /// input: at the end of the input).
    fn fill(&mut self) -> io::Result<&[u8]> {
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

    fn consume(&mut self, n: usize) {
        match &mut self.source {
            Source::Plain(tee) => tee.consume(n),
            Source::Gzip(_) | Source::Zstd(_) | Source::Taken => self.pos += n,
        }
        self.within += n as u64;
    }

    /// At the end of a unit: says so to the output, and moves to the next
    /// gzip member or zstd frame; `false` at the end of the input.
    fn next_unit(&mut self) -> io::Result<bool> {
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

    fn unit_end(&mut self) -> io::Result<()> {
        let tee = self.tee()?;
        if let Some(e) = tee.failed.take() {
            return Err(e);
        }
        let ended = tee.copy.unit_end();
        tee.broke |= ended.is_err();
        ended
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
    fn skip_line_ends(&mut self, at: Place) -> Result<Option<bool>, Stop> {
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
            let available = self.filled(at)?;
            let old = bytes.len();
            bytes.extend_from_slice(available);
            match memchr::memmem::find(&bytes[searched..], b"\r\n\r\n") {
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
                return Err(Stop::Malformed {
                    at,
                    why: format!(
                        "no empty line ends the header within its first {MAX_HEADER} bytes"
                    ),
                });
            }
        }
        Header::parse(bytes).map_err(|why| Stop::Malformed { at, why })
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
                return Err(Stop::Malformed {
                    at,
                    why: format!(
                        "no empty line after the block's {length} bytes: `Content-Length` is not the block's length"
                    ),
                });
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

    /// [`fill`](Units::fill), with an error said as what it means for the
    /// record at `at`.
    fn filled(&mut self, at: Place) -> Result<&[u8], Stop> {
        if let Err(e) = self.fill() {
            return Err(self.stop(e, at));
        }
        // Held from the call above: no read, no error.
        self.fill().map_err(Stop::Io)
    }

    /// Whether more decoded bytes follow, in this unit or the next ones
    /// (moving to them); `false` at the end of the input.
    fn available(&mut self, at: Place) -> Result<bool, Stop> {
        loop {
            if !self.filled(at)?.is_empty() {
                return Ok(true);
            }
            if !self.next_unit()? {
                return Ok(false);
            }
        }
    }

    /// What an error met while reading the record at `at` means: gzip
    /// data that breaks (a bad header, deflate stream or check, a member
    /// cut short: what flate2 says of them) or zstd data (libzstd's) makes
    /// the record malformed; a failed read or write stops the run.
    fn stop(&mut self, e: io::Error, at: Place) -> Stop {
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

/// How many first bytes [`starts_like_archive`] needs: enough for a
/// gzip member's or zstd frame's first block to give its first bytes.
pub const PEEK: u64 = 1024;

/// Whether an input's first bytes are a WARC record's, plain or in gzip:
/// its version line as the user would see it (`` `WARC/1.1`, in gzip ``).
pub fn starts_like_archive(first: &[u8]) -> Option<String> {
    let version = |bytes: &[u8]| {
        let line = bytes.split(|&b| b == b'\r').next()?;
        (line.starts_with(b"WARC/") && line.len() <= 12)
            .then(|| String::from_utf8_lossy(line).into_owned())
    };
    if first.starts_with(&GZIP_MAGIC) {
        let decoded = first_decoded(flate2::read::GzDecoder::new(first));
        return version(&decoded).map(|v| format!("`{v}`, in gzip"));
    }
    if first.starts_with(&zst::DICTIONARY_FRAME_MAGIC) {
        // Its dictionary (often larger than what is peeked at) comes
        // first: the magic number is the WARC zstd specification's own.
        return Some("a WARC zstd dictionary frame".to_owned());
    }
    if first.starts_with(&zst::FRAME_MAGIC) {
        let decoded = first_zstd(first);
        return version(&decoded).map(|v| format!("`{v}`, in zstd"));
    }
    version(first).map(|v| format!("`{v}`"))
}

/// Why an input is not a WARC file, if it is not, from its first
/// [`PEEK`] bytes: what it starts with (decoded of gzip or zstd, after the
/// line ends the reader skips) is not `WARC/`, the start of a record's
/// version line. Said of what is there only: an empty input is an archive
/// of no records, one that starts with `WAR` a cut one (the run tells
/// where it breaks), one whose gzip or zstd data breaks before a byte of
/// it is decoded an archive that breaks (the same), and one that starts
/// with a dictionary frame a `.warc.zst` by the specification's magic.
pub fn not_archive(first: &[u8]) -> Option<String> {
    const VERSION: &[u8] = b"WARC/";
    let (what, decoded) = if first.starts_with(&GZIP_MAGIC) {
        (
            "its gzip data",
            first_decoded(flate2::read::GzDecoder::new(first)),
        )
    } else if first.starts_with(&zst::FRAME_MAGIC) {
        ("its zstd data", first_zstd(first))
    } else if first.starts_with(&zst::DICTIONARY_FRAME_MAGIC) {
        return None;
    } else {
        ("it", first.to_vec())
    };
    let start = &decoded[decoded
        .iter()
        .position(|&b| b != b'\r' && b != b'\n')
        .unwrap_or(decoded.len())..];
    let n = start.len().min(VERSION.len());
    if start[..n] == VERSION[..n] {
        return None;
    }
    let line = start
        .split(|&b| b == b'\r' || b == b'\n')
        .next()
        .unwrap_or_default();
    let mut shown: String = line
        .iter()
        .take(40)
        .map(|&b| match b {
            b' '..=b'~' => char::from(b).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect();
    if line.len() > 40 {
        shown.push('…');
    }
    Some(format!("{what} starts with `{shown}`, not `WARC/`"))
}

/// The first bytes a zstd frame (of what is peeked at) gives.
fn first_zstd(first: &[u8]) -> Vec<u8> {
    Frames::new(first, None)
        .map(first_decoded)
        .unwrap_or_default()
}

/// The first bytes `decoder` gives of what is peeked at, up to 64 (a cut
/// stream ends in an error: what came before it).
fn first_decoded(mut decoder: impl Read) -> Vec<u8> {
    let mut decoded = Vec::new();
    let mut buf = [0u8; 64];
    while decoded.len() < 64 {
        match decoder.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => decoded.extend_from_slice(&buf[..n]),
        }
    }
    decoded
}

/// Never met: the source is only taken between two members, within one
/// call.
fn lost() -> io::Error {
    io::Error::other("the input was lost between two gzip members")
}
