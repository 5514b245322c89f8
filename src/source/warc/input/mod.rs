//! The input as it is read: plain, gzip one member at a time, or zstd one
//! frame at a time ([`zst`](crate::source::warc::zst)), every raw byte handed to the output
//! ([`Ordered`](crate::source::warc::order::Ordered)) as soon as it is read, and the records found in it, each
//! with its place.
//!
//! A unit is what new records may be put after, or put in place of,
//! without cutting anything: a gzip member (one record, as the standard
//! recommends, or several) or a zstd frame, or in a plain file the record
//! itself. When records may be replaced, each unit's raw bytes are held
//! from its start until its first record's header says whether they may
//! be.
//!
//! Here: a record's [`Place`] and why the records [`Stop`]; the raw input
//! copied out as it is consumed (`tee`); the units, decompressed and
//! framed (`units`); a gzip input cut and inflated on the pool ahead of
//! the reading, with jobs (`segments`); the raw input handed to decoders
//! in the same pieces however it came (`aligned`); the records read from
//! them (`records`); and what an input's first bytes say it is (`sniff`).

use std::io;

use flate2::bufread::GzDecoder;

use super::zst::{Dictionary, Frames};
use segments::Inflated;
use tee::{Raw, Tee};

mod aligned;
mod records;
mod segments;
mod sniff;
mod tee;
mod units;

pub use crate::source::archived::Place;
pub use segments::Inflating;
pub use sniff::{PEEK, compression, not_archive, starts_like_archive};

enum Feed<R, W, D> {
    Plain(Tee<Raw<R>, W, D>),
    /// A gzip member inflated here, as it comes.
    Gzip(Box<GzDecoder<Tee<Raw<R>, W, D>>>),
    /// A gzip member inflated ahead, on the pool (its data in
    /// [`Units::buf`]).
    Ahead(Box<Ahead<R, W, D>>),
    /// A gzip input with no member to read: over, or to be copied as it
    /// is.
    Over(Tee<Raw<R>, W, D>),
    Zstd(Box<Frames<Tee<Raw<R>, W, D>>>),
    /// Between two members, for a moment.
    Taken,
}

/// The segment a member inflated ahead came from: the raw input, where
/// the member ends in the segment's raw bytes and in their data (which is
/// in [`Units::buf`] from its first member on), and the members after it.
struct Ahead<R, W, D> {
    tee: Tee<Raw<R>, W, D>,
    segment: Inflated,
    end: usize,
    data_end: usize,
}

/// Why the records stop before the input does.
#[derive(Debug)]
pub enum Stop {
    /// The input cannot be read, or the output written: the run fails.
    Io(io::Error),
    /// The input cannot be read on from here (its gzip or zstd data
    /// breaks, or it ends within a record): the rest is copied as it is.
    Malformed { at: Place, why: String },
    /// The record at `at` is not framed as its header says (its
    /// `Content-Length` is not its block's length), or is no record: it is
    /// copied as it is, and the records go on at the next line that starts
    /// with `WARC/` ([`Units::read_on`]).
    Misframed { at: Place, why: String },
}

impl From<io::Error> for Stop {
    fn from(e: io::Error) -> Self {
        Stop::Io(e)
    }
}

/// The decoded input, unit by unit; see the module's note.
pub struct Units<R, W, D> {
    source: Feed<R, W, D>,
    /// Decoded bytes of a gzip member or zstd frame not yet consumed (of a
    /// member inflated ahead: all its data).
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
    /// Data that broke right after a record, met while looking past it:
    /// given again as the next read's error, which is where it is told
    /// (the record itself is whole).
    broke_after: Option<(io::ErrorKind, String)>,
}

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

#[cfg(test)]
mod tests;
