//! Bytes held until they are complete: in memory while the run's memory
//! has room for them (its quarter for what waits between threads), in an
//! anonymous temporary file past it. What a source holds when something
//! that comes first (a `Content-Length`, a WARC record's digests) depends on
//! what comes after, or when the bytes as they came may still be needed.

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};

use crate::document::memory::{Drawn, Memory};

/// Bytes held whole, that can be read again from the start: a [`Spool`],
/// or a slice of a buffer in memory.
pub trait Held {
    /// A reader of all of it, from the first byte.
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>>;
    /// How many bytes it holds.
    fn len(&self) -> u64;
    /// Whether all of it is in memory (none spilled to a file).
    fn in_memory(&self) -> bool;

    /// All of it, when it lies in memory in one piece.
    fn bytes(&self) -> Option<&[u8]> {
        None
    }

    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Held for &[u8] {
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(&self[..]))
    }

    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }

    fn in_memory(&self) -> bool {
        true
    }

    fn bytes(&self) -> Option<&[u8]> {
        Some(self)
    }
}

impl Held for Spool {
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>> {
        self.reader()
    }

    fn len(&self) -> u64 {
        self.len
    }

    fn in_memory(&self) -> bool {
        !self.spilled()
    }

    fn bytes(&self) -> Option<&[u8]> {
        Spool::in_memory(self)
    }
}

/// How much of a spilled spool's file is written or read at a time.
const BUFFER: usize = 64 * 1024;

/// A buffer that spills to a temporary file once its memory has no more
/// room; write to it, then read it back from the start, as often as
/// needed.
#[derive(Debug)]
pub struct Spool {
    memory: Vec<u8>,
    /// Set once the bytes no longer fit in memory; it holds all of them.
    /// Written through a buffer: a page's output comes in small writes.
    file: Option<BufWriter<File>>,
    /// A reader moved the file's position from its end.
    moved: bool,
    len: u64,
    room: Room,
}

/// Where a spool's memory comes from.
#[derive(Debug)]
enum Room {
    /// Drawn from the run's memory as its buffer grows (its capacity).
    Drawn(Drawn),
    /// A fixed number of bytes of its own.
    Fixed(usize),
    /// None: what is written is counted, not kept.
    Discard,
}

impl Spool {
    /// A spool that keeps what the run's `memory` has room for.
    pub fn new(memory: &Memory) -> Self {
        Spool::with_room(Room::Drawn(memory.drawn()))
    }

    /// A spool that keeps up to `limit` bytes in memory, whatever the run
    /// holds (what is bounded elsewhere, and tests).
    pub fn with_limit(limit: usize) -> Self {
        Spool::with_room(Room::Fixed(limit))
    }

    /// A spool that keeps nothing and counts what is written to it: for
    /// a run whose output goes nowhere (a listing of links, a check), which
    /// would otherwise hold each document it rewrote, or write it to a
    /// temporary file, for nothing. It cannot be read back.
    pub fn discarding() -> Self {
        Spool::with_room(Room::Discard)
    }

    fn with_room(room: Room) -> Self {
        Spool {
            memory: Vec::new(),
            file: None,
            moved: false,
            len: 0,
            room,
        }
    }

    /// A spool that keeps what the run's `memory` has room for, in
    /// `buffer` (one kept from an earlier spool, emptied) when there is
    /// room for all of it.
    pub fn reusing(mut buffer: Vec<u8>, memory: &Memory) -> Self {
        let mut spool = Spool::new(memory);
        if spool.room(buffer.capacity()) {
            buffer.clear();
            spool.memory = buffer;
        }
        spool
    }

    /// Takes room for `bytes` more of capacity; `false` when there is none.
    fn room(&mut self, bytes: usize) -> bool {
        match &mut self.room {
            Room::Drawn(drawn) => drawn.grow(bytes).is_ok(),
            Room::Fixed(left) => match left.checked_sub(bytes) {
                Some(l) => {
                    *left = l;
                    true
                }
                None => false,
            },
            Room::Discard => false,
        }
    }

    /// Gives back all the room its buffer took.
    fn give_back(&mut self) {
        match &mut self.room {
            Room::Drawn(drawn) => drawn.shrink(drawn.bytes()),
            Room::Fixed(left) => *left += self.memory.capacity(),
            Room::Discard => {}
        }
    }

    /// Its buffer in memory, to reuse (empty once it spilled).
    pub fn into_memory(self) -> Vec<u8> {
        self.memory
    }

    /// How many bytes it holds.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it went to a temporary file.
    pub fn spilled(&self) -> bool {
        self.file.is_some()
    }

    /// The bytes, when they are in memory.
    pub fn in_memory(&self) -> Option<&[u8]> {
        let kept = self.file.is_none() && !self.discards();
        kept.then_some(&self.memory[..])
    }

    /// Whether it keeps nothing ([`Spool::discarding`]).
    fn discards(&self) -> bool {
        matches!(self.room, Room::Discard)
    }

    /// A reader of everything it holds, from the first byte.
    pub fn reader(&mut self) -> io::Result<Box<dyn Read + '_>> {
        if self.discards() {
            return Err(io::Error::other("a spool that keeps nothing is not read"));
        }
        match &mut self.file {
            None => Ok(Box::new(&self.memory[..])),
            Some(file) => {
                file.flush()?;
                let file = file.get_mut();
                file.seek(SeekFrom::Start(0))?;
                self.moved = true;
                Ok(Box::new(BufReader::with_capacity(
                    BUFFER,
                    file.take(self.len),
                )))
            }
        }
    }

    /// Copies everything it holds to `out`.
    pub fn copy_to(&mut self, out: &mut dyn Write) -> io::Result<u64> {
        io::copy(&mut self.reader()?, out)
    }
}

impl Write for Spool {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.discards() {
            self.len += buf.len() as u64;
            return Ok(buf.len());
        }
        let need = self.memory.len() + buf.len();
        if self.file.is_none() && need > self.memory.capacity() {
            let capacity = need.max(2 * self.memory.capacity());
            if self.room(capacity - self.memory.capacity()) {
                self.memory.reserve_exact(capacity - self.memory.len());
            } else {
                let mut file = BufWriter::with_capacity(BUFFER, temporary()?);
                file.write_all(&self.memory)?;
                self.give_back();
                self.memory = Vec::new();
                self.file = Some(file);
            }
        }
        match &mut self.file {
            None => self.memory.extend_from_slice(buf),
            Some(file) => {
                if self.moved {
                    // Back to the end, where a reader moved it from.
                    file.seek(SeekFrom::End(0))?;
                    self.moved = false;
                }
                file.write_all(buf)?;
            }
        }
        self.len += buf.len() as u64;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// An unnamed temporary file in `TMPDIR` (gone once closed, however the
/// run ends); one that cannot be made says where it was asked for, so
/// that the message it ends in does not seem to be about the input.
pub fn temporary() -> io::Result<File> {
    tempfile::tempfile().map_err(|e| {
        let dir = crate::source::output::quoted(&std::env::temp_dir());
        let said = crate::source::output::lowercase(&e);
        io::Error::new(
            e.kind(),
            format!("cannot make a temporary file in {dir} (TMPDIR): {said}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_spills_past_its_limit_and_reads_back_whole_again_and_again() {
        let mut spool = Spool::with_limit(10);
        spool.write_all(b"0123456789").unwrap();
        assert!(!spool.spilled());
        assert_eq!(spool.in_memory(), Some(&b"0123456789"[..]));
        spool.write_all(b"abc").unwrap();
        assert!(spool.spilled());
        assert_eq!(spool.in_memory(), None);
        for _ in 0..2 {
            let mut back = Vec::new();
            spool.reader().unwrap().read_to_end(&mut back).unwrap();
            assert_eq!(back, b"0123456789abc");
        }
        spool.write_all(b"de").unwrap();
        let mut out = Vec::new();
        assert_eq!(spool.copy_to(&mut out).unwrap(), 15);
        assert_eq!(out, b"0123456789abcde");
        assert_eq!(spool.len(), 15);
    }

    #[test]
    fn a_discarding_spool_counts_what_is_written_and_keeps_none_of_it() {
        let memory = Memory::new(4000);
        let mut spool = Spool::discarding();
        spool.write_all(&[1; 3000]).unwrap();
        assert_eq!((spool.len(), spool.spilled()), (3000, false));
        assert_eq!(spool.in_memory(), None);
        assert!(spool.reader().is_err());
        assert_eq!(memory.peak(), 0);
    }

    #[test]
    fn what_it_keeps_in_memory_is_drawn_from_the_run_and_given_back() {
        // A quarter of 4,000 bytes for what waits between threads.
        let memory = Memory::new(4000);
        let mut a = Spool::new(&memory);
        a.write_all(&[1; 600]).unwrap();
        assert!(!a.spilled());
        let mut b = Spool::new(&memory);
        b.write_all(&[2; 600]).unwrap();
        assert!(b.spilled(), "no room left beside the first");
        drop(a);
        let mut c = Spool::new(&memory);
        c.write_all(&[3; 600]).unwrap();
        assert!(!c.spilled(), "the first gave its room back");
        let mut back = Vec::new();
        b.reader().unwrap().read_to_end(&mut back).unwrap();
        assert_eq!(back, [2; 600]);
    }
}
