//! An archive's records in order, read and not written: their headers and,
//! for those asked for, their blocks. Each pass over an archive made a
//! tree, and each of a link check, reads it so, and finds the same records
//! at the same places.

use std::io::{self, Read, Write};

use crate::document::memory::Memory;
use crate::source::archived::{ArchiveWarning, Place};
use crate::source::output::behind::Direct;
use crate::source::warc::header::Header;
use crate::source::warc::input::{Inflating, Stop, Units};

/// The records of an archive, one after the other.
pub(crate) struct Records<R: Read> {
    units: Units<R, Direct<io::Sink>, ()>,
}

/// A record's header, where it starts, and its block's length.
pub(crate) struct Found {
    pub header: Header,
    pub at: Place,
    pub length: u64,
}

/// Where the records stop short: the archive breaks from here on (the
/// records after are not read), or one record is not framed as its header
/// says (the records go on after it).
pub(crate) enum Broken {
    Io(io::Error),
    /// The warning, and whether the records go on.
    Told(Box<ArchiveWarning>, bool),
}

impl<R: Read> Records<R> {
    /// The records of `input`, its gzip members inflated ahead on
    /// `inflating`'s pool when given (as `--warc` with jobs inflates them).
    pub fn new(input: R, memory: &Memory, inflating: Option<Inflating>) -> io::Result<Self> {
        let units = Units::new(input, Direct(io::sink()), memory.clone(), false, inflating)?;
        Ok(Records { units })
    }

    /// The next record, `None` at the input's end.
    pub fn next(&mut self) -> Result<Option<Found>, Broken> {
        let found = (|| {
            if !self.units.more()? {
                return Ok(None);
            }
            let at = self.units.place();
            let header = self.units.header()?;
            let length = header
                .content_length()
                .map_err(|why| Stop::Misframed { at, why })?;
            Ok(Some(Found { header, at, length }))
        })();
        found.map_err(|stop| self.broken(stop))
    }

    /// Reads the block of the record `found` into `sink` (none: passed
    /// over).
    pub fn block(&mut self, found: &Found, sink: Option<&mut dyn Write>) -> Result<(), Broken> {
        let read = (|| {
            self.units.block(found.at, found.length, sink)?;
            self.units.output()?.release()?;
            self.units.record_ended()?;
            Ok(())
        })();
        read.map_err(|stop| self.broken(stop))
    }

    /// What stops the records, told: past a record that is not framed as
    /// its header says, the next one is looked for.
    fn broken(&mut self, stop: Stop) -> Broken {
        match stop {
            Stop::Io(e) => Broken::Io(e),
            Stop::Malformed { at, why } => {
                Broken::Told(Box::new(ArchiveWarning::Malformed { at, why }), false)
            }
            Stop::Misframed { at, why } => match self.units.read_on(at) {
                Ok(next) => {
                    let _ = self.units.record_ended();
                    Broken::Told(Box::new(ArchiveWarning::Misframed { at, why, next }), true)
                }
                Err(stop) => self.broken(stop),
            },
        }
    }
}
