//! Zstandard WARC files (`.warc.zst`, IIPC's "Zstandard Compression for
//! WARC Files 1.0"): an optional dictionary frame first, then zstd frames,
//! each holding one record or a part of one, with extension (skippable)
//! frames between them that readers ignore. Read here one frame at a time
//! over libzstd (the `zstd` crate), so that, as with gzip members, every
//! frame's raw bytes can be copied as they came and new records be put
//! between frames; new records are written as one frame each, with the
//! file's dictionary, their content size and checksum (both required).

use std::io::{self, BufRead, Read};
use std::sync::Arc;

use crate::document::memory::{Drawn, Memory};

use zstd::stream::raw::{Decoder, Operation};

/// A zstd frame's first bytes.
pub const FRAME_MAGIC: [u8; 4] = [0x28, 0xb5, 0x2f, 0xfd];
/// The dictionary frame's: a skippable frame's magic number, 0x184D2A5D.
pub const DICTIONARY_FRAME_MAGIC: [u8; 4] = [0x5d, 0x2a, 0x4d, 0x18];
/// A dictionary's own (RFC 8878 §5), uncompressed.
const DICTIONARY_MAGIC: [u8; 4] = [0x37, 0xa4, 0x30, 0xec];
/// The largest dictionary read, compressed or not: the specification asks
/// readers for 8 MiB; four times that, refused with a clear message past.
const MAX_DICTIONARY: usize = 32 << 20;
/// The largest window a frame may ask for (2^27, libzstd's own default
/// limit; the specification asks readers for 2^23): what one frame can
/// make the reader hold.
const WINDOW_LOG_MAX: u32 = 27;
/// The window every reader is asked to allow (2^23, 8 MiB): allowed under
/// any `--max-memory`.
const WINDOW_LOG_ASKED: u32 = 23;

/// Whether `first` (at least 4 bytes of the input) starts a zstd WARC.
pub fn starts(first: &[u8]) -> bool {
    first.starts_with(&FRAME_MAGIC) || first.starts_with(&DICTIONARY_FRAME_MAGIC)
}

/// The dictionary of a `.warc.zst`, decompressed: shared by the reader
/// and by every writer of a new record.
pub type Dictionary = Arc<Vec<u8>>;

/// Reads the dictionary frame that starts `input`, when it does: its bytes
/// are consumed (and so copied) like any other. The error says why the
/// dictionary cannot be had.
#[cfg(test)]
pub fn read_dictionary(input: &mut impl BufRead) -> io::Result<Result<Option<Dictionary>, String>> {
    read_dictionary_of(input, MAX_DICTIONARY)
}

/// A dictionary frame read, of `most` bytes at most, compressed or not.
pub fn read_dictionary_of(
    input: &mut impl BufRead,
    most: usize,
) -> io::Result<Result<Option<Dictionary>, String>> {
    let most = most.min(MAX_DICTIONARY);
    if !input.fill_buf()?.starts_with(&DICTIONARY_FRAME_MAGIC) {
        return Ok(Ok(None));
    }
    let mut head = [0u8; 8];
    if let Err(e) = input.read_exact(&mut head) {
        return match e.kind() {
            io::ErrorKind::UnexpectedEof => Ok(Err("the input ends within it".to_owned())),
            _ => Err(e),
        };
    }
    let size = u32::from_le_bytes([head[4], head[5], head[6], head[7]]) as usize;
    if size > most {
        return Ok(Err(format!(
            "its dictionary of {size} bytes is over the {most} read (a sixteenth of --max-memory, at most {MAX_DICTIONARY})"
        )));
    }
    let mut data = Vec::with_capacity(size);
    input.take(size as u64).read_to_end(&mut data)?;
    if data.len() < size {
        return Ok(Err(format!(
            "the input ends within it, after {} of its {size} bytes",
            data.len()
        )));
    }
    if data.starts_with(&FRAME_MAGIC) {
        // Compressed, as one frame without a dictionary.
        data = match zstd::bulk::decompress(&data, most) {
            Ok(data) => data,
            Err(e) => return Ok(Err(format!("its compressed dictionary breaks: {e}"))),
        };
    }
    if !data.starts_with(&DICTIONARY_MAGIC) {
        return Ok(Err("it holds no zstd dictionary".to_owned()));
    }
    Ok(Ok(Some(Arc::new(data))))
}

/// The decoded bytes of one frame after another of `inner`, which it
/// consumes exactly: a read gives 0 at the end of a frame (an extension
/// frame is one that gives nothing), and [`Frames::next_frame`] goes on to
/// the next.
pub struct Frames<R> {
    inner: R,
    decoder: Decoder<'static>,
    /// Where the decoder is in the current frame.
    parts: Parts,
    /// The last call filled the output: the decoder may hold more of what
    /// it decoded, given out before it takes in more (see `Parts`).
    pending: bool,
    /// The current frame is over.
    over: bool,
    /// Some of the current frame was read.
    begun: bool,
    /// The dictionary's size: it is held twice (as read, and as the
    /// decoder prepared it).
    dictionary_len: usize,
    /// What its window and the dictionary draw of the run's memory.
    _drawn: Option<Drawn>,
}

impl<R: BufRead> Frames<R> {
    pub fn new(inner: R, dictionary: Option<&Dictionary>) -> io::Result<Self> {
        let mut decoder = match dictionary {
            Some(dictionary) => Decoder::with_dictionary(dictionary)?,
            None => Decoder::new()?,
        };
        decoder.set_parameter(zstd::stream::raw::DParameter::WindowLogMax(WINDOW_LOG_MAX))?;
        Ok(Frames {
            inner,
            decoder,
            parts: Parts::default(),
            pending: false,
            over: false,
            begun: false,
            dictionary_len: dictionary.map_or(0, |d| d.len()),
            _drawn: None,
        })
    }

    /// Frames whose window fits an eighth of the run's `memory`, or the 8
    /// MiB every reader is asked to allow (RFC 8878 §3.1.1.1.2) when that
    /// is more (a frame that asks for more is an error of the data, as one
    /// past libzstd's own limit is); the window and the dictionary drawn
    /// from it where there is room.
    pub fn within(mut self, memory: &Memory) -> io::Result<Self> {
        let eighth = (memory.total() / 8).max(1 << 10);
        let log =
            (usize::BITS - 1 - eighth.leading_zeros()).clamp(WINDOW_LOG_ASKED, WINDOW_LOG_MAX);
        self.decoder
            .set_parameter(zstd::stream::raw::DParameter::WindowLogMax(log))?;
        // Room there is, for a window of an eighth (the dictionary is at
        // most a sixteenth, twice) while nothing else is drawn yet; the 8
        // MiB asked of every reader are held whatever the room.
        self._drawn = memory.draw((1 << log) + 2 * self.dictionary_len).ok();
        Ok(self)
    }

    /// On to the next frame (the same dictionary).
    pub fn next_frame(&mut self) -> io::Result<()> {
        self.decoder.reinit()?;
        self.parts = Parts::default();
        self.pending = false;
        self.over = false;
        self.begun = false;
        Ok(())
    }

    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R: BufRead> Read for Frames<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.over || buf.is_empty() {
            return Ok(0);
        }
        loop {
            let input = match self.pending {
                true => &[][..],
                false => self.inner.fill_buf()?,
            };
            if input.is_empty() && !self.pending {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the input ends within a zstd frame",
                ));
            }
            // Not past the part of the frame the decoder is in (see
            // `Parts`).
            let input = &input[..input.len().min(self.parts.left().max(1))];
            let status = self
                .decoder
                .run_on_buffers(input, buf)
                // What libzstd says of bad data: an unknown frame, a
                // checksum that fails, a window too large.
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
            self.parts.went_through(&input[..status.bytes_read]);
            self.pending = status.bytes_written == buf.len();
            self.inner.consume(status.bytes_read);
            self.begun |= status.bytes_read > 0;
            // 0: the frame is decoded and flushed (libzstd stops there,
            // at its last byte).
            self.over = status.remaining == 0 && self.begun;
            if status.bytes_written > 0 || self.over {
                return Ok(status.bytes_written);
            }
        }
    }
}

/// Where the decoder is in a frame's parts (RFC 8878 §3.1: its header,
/// its blocks each after a header of its own, its checksum; a skippable
/// frame's size and data), so that no call to libzstd is given bytes past
/// the end of the part at hand. A call that fails gives back nothing of
/// what it decoded (zstd-safe vouches only for a call that succeeds): were
/// a call given several blocks, the good ones before a bad one would be
/// lost with it, more or fewer as the input came in reads; so would what
/// a call decoded but could not give out for want of room, were the next
/// one given more input. Part by part, and all given out before more is
/// taken in, a frame that breaks gives the same bytes before it does
/// however it is read, as a gzip member does; and libzstd never decodes a
/// whole frame in one call before its checksum is checked.
#[derive(Debug, Default)]
struct Parts {
    /// The header being read: the frame's, a block's.
    head: Vec<u8>,
    part: Part,
    /// The frame ends with a checksum.
    checksum: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
enum Part {
    #[default]
    FrameHeader,
    BlockHeader,
    /// Bytes left of a block's content, and whether it is the last.
    Block(u64, bool),
    /// Bytes left of the checksum, or of a skippable frame's data.
    Tail(u64),
    Over,
}

impl Parts {
    /// How many bytes the part at hand has left (0: the frame is over).
    fn left(&self) -> usize {
        match self.part {
            Part::FrameHeader => frame_header_length(&self.head) - self.head.len(),
            Part::BlockHeader => 3 - self.head.len(),
            Part::Block(left, _) | Part::Tail(left) => usize::try_from(left).unwrap_or(usize::MAX),
            Part::Over => 0,
        }
    }

    /// The decoder took in `bytes`.
    fn went_through(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() && self.part != Part::Over {
            let n = bytes.len().min(self.left());
            let (now, rest) = bytes.split_at(n);
            bytes = rest;
            match &mut self.part {
                Part::FrameHeader | Part::BlockHeader => self.head.extend_from_slice(now),
                Part::Block(left, _) | Part::Tail(left) => *left -= n as u64,
                Part::Over => {}
            }
            if self.left() == 0 {
                self.next_part();
            }
        }
    }

    /// The part after the one just over.
    fn next_part(&mut self) {
        let head = std::mem::take(&mut self.head);
        self.part = match self.part {
            Part::FrameHeader if skippable(&head) => Part::Tail(u64::from(u32::from_le_bytes([
                head[4], head[5], head[6], head[7],
            ]))),
            Part::FrameHeader => {
                self.checksum = head.get(4).is_some_and(|d| d & 0b100 != 0);
                Part::BlockHeader
            }
            Part::BlockHeader => {
                let header = u32::from_le_bytes([head[0], head[1], head[2], 0]);
                let last = header & 1 == 1;
                // An RLE block's content is one byte.
                let size = if (header >> 1) & 3 == 1 {
                    1
                } else {
                    header >> 3
                };
                Part::Block(u64::from(size), last)
            }
            Part::Block(_, true) if self.checksum => Part::Tail(4),
            Part::Block(_, true) | Part::Tail(_) | Part::Over => Part::Over,
            Part::Block(_, false) => Part::BlockHeader,
        };
        if self.part != Part::Over && self.left() == 0 {
            self.next_part();
        }
    }
}

fn skippable(head: &[u8]) -> bool {
    // 0x184D2A50 to 0x184D2A5F.
    head.len() >= 4 && head[1..4] == [0x2a, 0x4d, 0x18] && head[0] & 0xf0 == 0x50
}

/// How long the header of a frame that starts with `head` is, as far as
/// `head` tells (RFC 8878 §3.1.1.1: the descriptor byte after the magic
/// number says which fields follow); past a magic number that is neither,
/// what libzstd refuses at once.
fn frame_header_length(head: &[u8]) -> usize {
    if head.len() < 4 {
        return 4;
    }
    if skippable(head) {
        return 8;
    }
    let Some(&descriptor) = head.get(4).filter(|_| head[..4] == FRAME_MAGIC) else {
        return head.len().max(5);
    };
    let single_segment = descriptor & 0b10_0000 != 0;
    let window = usize::from(!single_segment);
    let dictionary_id = [0, 1, 2, 4][usize::from(descriptor & 0b11)];
    let content_size = match descriptor >> 6 {
        0 => usize::from(single_segment),
        1 => 2,
        2 => 4,
        _ => 8,
    };
    5 + window + dictionary_id + content_size
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(data: &[u8]) -> Vec<u8> {
        zstd::bulk::compress(data, 3).unwrap()
    }

    fn frames_of(input: &[u8]) -> Vec<Vec<u8>> {
        let mut frames = Frames::new(input, None).unwrap();
        let mut out = Vec::new();
        loop {
            let mut one = Vec::new();
            frames.read_to_end(&mut one).unwrap();
            out.push(one);
            if frames.get_mut().is_empty() {
                return out;
            }
            frames.next_frame().unwrap();
        }
    }

    #[test]
    fn each_frame_is_read_to_its_end_and_no_further() {
        let skippable = [&[0x50, 0x2a, 0x4d, 0x18, 3, 0, 0, 0][..], b"abc"].concat();
        let input = [frame(b"first"), skippable, frame(b""), frame(b"second")].concat();
        assert_eq!(
            frames_of(&input),
            [&b"first"[..], b"", b"", b"second"].map(<[u8]>::to_vec)
        );
    }

    #[test]
    fn a_cut_frame_and_junk_are_errors_of_the_data() {
        let whole = frame(b"some bytes to compress, some bytes to compress");
        for input in [&whole[..whole.len() - 3], b"WARC/1.1\r\n"] {
            let e = Frames::new(input, None)
                .unwrap()
                .read_to_end(&mut Vec::new())
                .unwrap_err();
            assert!(
                matches!(
                    e.kind(),
                    io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidData
                ),
                "{e}"
            );
        }
    }

    /// What a frame gives before it breaks, and the error, read through a
    /// buffer of `capacity` bytes into one of `room`.
    fn given(input: &[u8], capacity: usize, room: usize) -> (Vec<u8>, Option<io::ErrorKind>) {
        let mut frames = Frames::new(io::BufReader::with_capacity(capacity, input), None).unwrap();
        let mut out = Vec::new();
        let mut buf = vec![0u8; room];
        loop {
            match frames.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => return (out, Some(e.kind())),
            }
        }
    }

    #[test]
    fn a_frame_that_breaks_gives_the_same_bytes_before_it_however_it_is_read() {
        // Four blocks of 128 KiB and a checksum.
        let data: Vec<u8> = (0u32..500_000)
            .map(|i| b"abcdefgh"[(i.wrapping_mul(2_654_435_761) >> 29) as usize])
            .collect();
        let mut compressor = zstd::bulk::Compressor::new(3).unwrap();
        compressor
            .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
            .unwrap();
        let whole = compressor.compress(&data).unwrap();
        let mut bad_checksum = whole.clone();
        *bad_checksum.last_mut().unwrap() ^= 1;
        let mut bad_block = whole.clone();
        let at = whole.len() - 50;
        bad_block[at] ^= 0x55;
        // Into a small buffer and into one that holds the whole frame (a
        // call given it all would decode the good blocks and lose them
        // with the bad one).
        for room in [4096, 1 << 20] {
            assert_eq!(given(&whole, 1 << 20, room), (data.clone(), None));
            for input in [&bad_checksum, &bad_block] {
                let at_once = given(input, 1 << 20, room);
                assert_eq!(at_once.1, Some(io::ErrorKind::InvalidData));
                for capacity in [1, 7, 4096, 131_075] {
                    assert!(
                        given(input, capacity, room) == at_once,
                        "in reads of {capacity} into {room}"
                    );
                }
            }
            // The three blocks before the bad one are given.
            assert!(given(&bad_block, 1 << 20, room).0.len() >= 3 << 17);
            // The checksum is checked after every byte was given.
            assert_eq!(given(&bad_checksum, 1 << 20, room).0, data);
        }
    }

    #[test]
    fn a_dictionary_frame_is_read_compressed_or_not() {
        let dictionary = [&DICTIONARY_MAGIC[..], &[7; 60]].concat();
        for user in [dictionary.clone(), frame(&dictionary)] {
            let size = (user.len() as u32).to_le_bytes();
            let input = [&DICTIONARY_FRAME_MAGIC[..], &size, &user, b"rest"].concat();
            let mut reader = &input[..];
            let read = read_dictionary(&mut reader).unwrap().unwrap().unwrap();
            assert_eq!(*read, dictionary);
            assert_eq!(reader, b"rest");
        }
        let input = [&DICTIONARY_FRAME_MAGIC[..], &[4, 0, 0, 0], b"junk"].concat();
        assert_eq!(
            read_dictionary(&mut &input[..]).unwrap(),
            Err("it holds no zstd dictionary".to_owned())
        );
        assert_eq!(read_dictionary(&mut &b"WARC/1.1"[..]).unwrap(), Ok(None));
    }
}
