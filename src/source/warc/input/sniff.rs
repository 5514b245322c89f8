//! What an input's first bytes say it is: a WARC file (plain, gzip,
//! zstd) or not, before anything is written.

use std::io::Read;

use super::GZIP_MAGIC;
use crate::source::names;
use crate::source::warc::zst::{self, Frames};

/// How many first bytes [`starts_like_archive`] needs: enough for a
/// gzip member's or zstd frame's first block to give its first bytes.
pub const PEEK: u64 = 1024;

/// Whether an input's first bytes are a WARC record's, plain or in gzip:
/// its version line as the user would see it (`` `WARC/1.1`, in gzip ``).
pub fn starts_like_archive(first: &[u8]) -> Option<String> {
    let version = |bytes: &[u8]| {
        let line = bytes.split(|&b| b == b'\r').next()?;
        (line.starts_with(b"WARC/") && line.len() <= 12).then(|| names::shown(line).into_owned())
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

/// The compression of an archive whose first bytes are `first` (at least
/// four, or all there are), and so of the archive a run writes from it:
/// `gzip`, `zstd`, or `None` when it is not compressed.
///
/// ```
/// use htmlabs::internal::warc::compression;
///
/// assert_eq!(compression(&[0x1f, 0x8b, 8, 0]), Some("gzip"));
/// assert_eq!(compression(&[0x28, 0xb5, 0x2f, 0xfd]), Some("zstd"));
/// assert_eq!(compression(b"WARC/1.1"), None);
/// ```
pub fn compression(first: &[u8]) -> Option<&'static str> {
    if first.starts_with(&GZIP_MAGIC) {
        Some("gzip")
    } else if zst::starts(first) {
        Some("zstd")
    } else {
        None
    }
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
    let mut shown = names::shown(&line[..line.len().min(40)]).into_owned();
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
