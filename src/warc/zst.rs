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
pub fn read_dictionary(input: &mut impl BufRead) -> io::Result<Result<Option<Dictionary>, String>> {
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
    if size > MAX_DICTIONARY {
        return Ok(Err(format!(
            "its dictionary of {size} bytes is over the {MAX_DICTIONARY} read"
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
        data = match zstd::bulk::decompress(&data, MAX_DICTIONARY) {
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
    /// The current frame is over.
    over: bool,
    /// Some of the current frame was read.
    begun: bool,
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
            over: false,
            begun: false,
        })
    }

    /// On to the next frame (the same dictionary).
    pub fn next_frame(&mut self) -> io::Result<()> {
        self.decoder.reinit()?;
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
            let input = self.inner.fill_buf()?;
            if input.is_empty() {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the input ends within a zstd frame",
                ));
            }
            let status = self
                .decoder
                .run_on_buffers(input, buf)
                // What libzstd says of bad data: an unknown frame, a
                // checksum that fails, a window too large.
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
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
