//! Writing on a thread of its own, behind the one that reads: what a run
//! writes is handed over (a spool whole, without a copy; small writes in
//! buffers of [`PIECE`] bytes; one at most waits) and written there, so that the reading
//! thread, which works for all the others, does not also wait on the
//! kernel's writes (a third of its time, writing an archive to a file).
//!
//! [`Out`] is what a source writes to when it hands spools on: the writer
//! itself, on the calling thread ([`Direct`]), or [`Behind`].

use std::io::{self, Write};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::time::{ClockId, clock_gettime};

use super::spool::Spool;

/// A writer that can also take a spool, or a piece of a shared buffer,
/// whole.
pub trait Out: Write {
    /// Writes all that `spool` holds.
    fn hand(&mut self, spool: Spool) -> io::Result<()>;

    /// Writes the bytes of `piece`.
    fn hand_shared(&mut self, piece: Shared) -> io::Result<()> {
        self.write_all(piece.bytes())
    }
}

impl<O: Out + ?Sized> Out for &mut O {
    fn hand(&mut self, spool: Spool) -> io::Result<()> {
        (**self).hand(spool)
    }

    fn hand_shared(&mut self, piece: Shared) -> io::Result<()> {
        (**self).hand_shared(piece)
    }
}

/// Some bytes of a buffer others hold too (a segment of the input, read
/// once): handed on without a copy.
#[derive(Clone)]
pub struct Shared {
    buffer: Arc<Vec<u8>>,
    range: Range<usize>,
}

impl Shared {
    pub fn new(buffer: Arc<Vec<u8>>, range: Range<usize>) -> Self {
        Shared { buffer, range }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.buffer[self.range.clone()]
    }

    /// What it keeps in memory: all of its buffer.
    pub fn keeps(&self) -> usize {
        self.buffer.len()
    }

    /// Whether it is a piece of the same buffer as `other`.
    pub fn shares_with(&self, other: &Shared) -> bool {
        Arc::ptr_eq(&self.buffer, &other.buffer)
    }
}

/// A writer, written on the calling thread.
pub struct Direct<W>(pub W);

impl<W: Write> Write for Direct<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl<W: Write> Out for Direct<W> {
    fn hand(&mut self, mut spool: Spool) -> io::Result<()> {
        write_spool(&mut self.0, &mut spool)
    }
}

/// What the writing thread is handed.
enum Piece {
    Bytes(Vec<u8>),
    Spool(Spool),
    Shared(Shared),
}

/// How many bytes of small writes are handed over at once.
const PIECE: usize = 256 * 1024;

/// How many batches may wait for the writing thread, beside the one it
/// writes: past it, the reading waits (a batch holds a spool up to its
/// limit, or less than two [`PIECE`]s: two of them at most, so that the
/// memory bound grows by two `--max-memory`, not more).
const WAITING: usize = 1;

/// The handle the reading thread writes to; see the module's note.
pub struct Behind {
    /// Pieces go over in batches of [`PIECE`] bytes or more (one a piece
    /// was a wake-up of the writing thread for each record).
    batches: SyncSender<Vec<Piece>>,
    /// Buffers the writing thread is done with, to fill again.
    spare: Receiver<Vec<u8>>,
    buf: Vec<u8>,
    batch: Vec<Piece>,
    batched: usize,
    /// The writing thread's error, once it stopped on one.
    failed: Arc<Mutex<Option<io::Error>>>,
}

impl Behind {
    fn send(&mut self, batch: Vec<Piece>) -> io::Result<()> {
        if self.batches.send(batch).is_ok() {
            return Ok(());
        }
        // It stopped on an error, which it left here before it went.
        let failed = self.failed.lock().ok().and_then(|mut e| e.take());
        Err(failed.unwrap_or_else(|| io::Error::other("the output stopped on an error")))
    }

    /// `piece` (of `bytes` bytes) after those before it: in the batch, or
    /// alone when it is large (so that a batch holds little in memory).
    fn queue(&mut self, piece: Piece, bytes: usize) -> io::Result<()> {
        if bytes >= PIECE {
            self.ship()?;
            return self.send(vec![piece]);
        }
        self.batch.push(piece);
        self.batched += bytes;
        match self.batched >= PIECE {
            true => self.ship(),
            false => Ok(()),
        }
    }

    /// The batch, handed over.
    fn ship(&mut self) -> io::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        self.batched = 0;
        let batch = std::mem::take(&mut self.batch);
        self.send(batch)
    }

    /// The bytes written so far, into the batch.
    fn send_buf(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let spare = self
            .spare
            .try_recv()
            .unwrap_or_else(|_| Vec::with_capacity(PIECE));
        let full = std::mem::replace(&mut self.buf, spare);
        let bytes = full.len();
        self.queue(Piece::Bytes(full), bytes)
    }
}

impl Write for Behind {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.buf.len() + buf.len() > PIECE {
            self.send_buf()?;
        }
        self.buf.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// Hands over what is buffered and batched (the writing thread
    /// flushes the writer at the end).
    fn flush(&mut self) -> io::Result<()> {
        self.send_buf()?;
        self.ship()
    }
}

impl Out for Behind {
    fn hand(&mut self, spool: Spool) -> io::Result<()> {
        if spool.len() < 4096 {
            // Small: with the writes around it, in one piece.
            let mut spool = spool;
            return write_spool(self, &mut spool);
        }
        self.send_buf()?;
        let bytes = usize::try_from(spool.len()).unwrap_or(usize::MAX);
        self.queue(Piece::Spool(spool), bytes)
    }

    fn hand_shared(&mut self, piece: Shared) -> io::Result<()> {
        if piece.range.len() < 4096 {
            return self.write_all(piece.bytes());
        }
        self.send_buf()?;
        let bytes = piece.range.len();
        self.queue(Piece::Shared(piece), bytes)
    }
}

/// Runs `work` with a [`Behind`] whose pieces a thread of its own writes
/// to `out`; gives back what `work` gave and `out` (flushed), or the first
/// error writing it met.
pub fn write_behind<W: Write + Send, T>(
    out: W,
    work: impl FnOnce(&mut Behind) -> T,
) -> (T, io::Result<W>) {
    std::thread::scope(|scope| {
        let (pieces, waiting) = mpsc::sync_channel(WAITING);
        let (spare, spares) = mpsc::channel();
        let failed = Arc::new(Mutex::new(None));
        let told = Arc::clone(&failed);
        let writer = std::thread::Builder::new()
            .name("htmlabs-write".to_owned())
            .spawn_scoped(scope, move || write_pieces(out, waiting, spare, told));
        let writer = match writer {
            Ok(writer) => writer,
            Err(e) => {
                // No thread to be had: nothing is written.
                let (dead, _) = mpsc::sync_channel(0);
                let mut behind = Behind {
                    batches: dead,
                    spare: spares,
                    buf: Vec::new(),
                    batch: Vec::new(),
                    batched: 0,
                    failed: Arc::new(Mutex::new(Some(e))),
                };
                let failed = io::Error::other("no thread could be started to write the output");
                return (work(&mut behind), Err(failed));
            }
        };
        let mut behind = Behind {
            batches: pieces,
            spare: spares,
            buf: Vec::with_capacity(PIECE),
            batch: Vec::new(),
            batched: 0,
            failed,
        };
        let done = work(&mut behind);
        let sent = behind.flush();
        // The end of the pieces: the writing thread flushes and returns.
        drop(behind);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the thread writing the output failed")));
        (done, sent.and(written))
    })
}

/// The CPU time the writing threads took, all of them since the process
/// started (`-v` says it beside the reading thread's).
pub fn writing_cpu() -> Duration {
    Duration::from_nanos(WRITING.load(Ordering::Relaxed))
}

static WRITING: AtomicU64 = AtomicU64::new(0);

/// The writing thread: each piece written, in order; at the first error,
/// it is left for the reading thread and the writing stops.
fn write_pieces<W: Write>(
    mut out: W,
    pieces: Receiver<Vec<Piece>>,
    spare: Sender<Vec<u8>>,
    failed: Arc<Mutex<Option<io::Error>>>,
) -> io::Result<W> {
    let mut written = Ok(());
    for piece in pieces.iter().flatten() {
        written = match piece {
            Piece::Bytes(mut bytes) => {
                let written = out.write_all(&bytes);
                bytes.clear();
                let _ = spare.send(bytes);
                written
            }
            Piece::Spool(mut spool) => write_spool(&mut out, &mut spool),
            Piece::Shared(piece) => out.write_all(piece.bytes()),
        };
        if written.is_err() {
            break;
        }
    }
    let written = written.and_then(|()| out.flush());
    let took = clock_gettime(ClockId::ThreadCPUTime);
    let took = took.tv_sec as u64 * 1_000_000_000 + took.tv_nsec as u64;
    WRITING.fetch_add(took, Ordering::Relaxed);
    match written {
        Ok(()) => Ok(out),
        Err(e) => {
            // A copy for the thread's end, the system's error as it came.
            let copy = match e.raw_os_error() {
                Some(code) => io::Error::from_raw_os_error(code),
                None => io::Error::new(e.kind(), e.to_string()),
            };
            if let Ok(mut failed) = failed.lock() {
                *failed = Some(e);
            }
            // Dropping the receiver (on return) makes the next send fail,
            // which then takes the error above.
            Err(copy)
        }
    }
}

/// A spool's bytes to `out`: in one write when they are in memory.
fn write_spool(out: &mut dyn Write, spool: &mut Spool) -> io::Result<()> {
    match spool.in_memory() {
        Some(bytes) => out.write_all(bytes),
        None => spool.copy_to(out).map(|_| ()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spool(bytes: &[u8], limit: usize) -> Spool {
        let mut spool = Spool::with_limit(limit);
        spool.write_all(bytes).unwrap();
        spool
    }

    #[test]
    fn what_is_written_and_handed_comes_out_in_order() {
        let shared: Arc<Vec<u8>> = Arc::new((0..9000u32).map(|i| (i % 251) as u8).collect());
        let (_, out) = write_behind(Vec::new(), |behind| {
            for i in 0..3000u32 {
                match i % 4 {
                    0 => behind.write_all(&i.to_be_bytes()).unwrap(),
                    1 => behind.hand(spool(&[b'a'; 5000], 1 << 20)).unwrap(),
                    // Spilled to a file, read back there.
                    2 => behind.hand(spool(&[b'b'; 300], 100)).unwrap(),
                    _ => behind
                        .hand_shared(Shared::new(
                            Arc::clone(&shared),
                            i as usize..i as usize + 5000,
                        ))
                        .unwrap(),
                }
            }
        });
        let mut expected = Vec::new();
        for i in 0..3000u32 {
            match i % 4 {
                0 => expected.extend(i.to_be_bytes()),
                1 => expected.extend([b'a'; 5000]),
                2 => expected.extend([b'b'; 300]),
                _ => expected.extend(&shared[i as usize..i as usize + 5000]),
            }
        }
        assert!(out.unwrap() == expected);
    }

    /// Fails after `left` bytes.
    struct Full {
        left: usize,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.left == 0 {
                return Err(io::Error::from_raw_os_error(28));
            }
            let n = buf.len().min(self.left);
            self.left -= n;
            Ok(n)
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_writers_error_reaches_the_reading_thread_as_it_was() {
        let (failed, out) = write_behind(Full { left: 1 << 20 }, |behind| {
            for _ in 0..1000 {
                if let Err(e) = behind.hand(spool(&[0; 10_000], 1 << 20)) {
                    return Some(e);
                }
            }
            None
        });
        let failed = failed.expect("a write failed");
        assert_eq!(failed.raw_os_error(), Some(28), "{failed}");
        let out = out.err().expect("the output failed");
        assert_eq!(out.to_string(), failed.to_string());
    }
}
