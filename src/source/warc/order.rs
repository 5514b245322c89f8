//! The output, in input order, while some units wait for their fate: the
//! raw bytes of the input go straight out until a unit must be held (a
//! page being rewritten, whose record may be replaced or followed by a
//! conversion); from then on they wait in a queue, in memory while the
//! run's memory has room (drawn from it) and in temporary files past it,
//! until the work on the unit at the front is done, which says what takes
//! its place.
//!
//! A queue and not a write per record, because records are rewritten in
//! parallel (`--jobs`): the reader goes on while the pages before are
//! rewritten, and a slow page holds back only the output.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::mpsc::{Receiver, TryRecvError};

use crate::document::memory::{Drawn, Memory};
use crate::source::output::behind::{Out, Shared};
use crate::source::output::spool::Spool;

/// What waits in the queue.
enum Slot<D> {
    /// Raw bytes to copy as they are.
    Raw(Spool),
    /// Raw bytes, in a buffer the input was read into (not copied), and
    /// what its buffer draws of the run's memory (none for a piece of the
    /// buffer the slot before it draws for).
    Shared(Shared, Option<Drawn>),
    /// The raw bytes of a unit whose record may be replaced, until its
    /// header says whether it will be ([`Ordered::release`] when not).
    Held(Spool),
    /// A unit's raw bytes from where its first work starts (a replaced
    /// record's: the whole unit) to the unit's end, and the results of the
    /// works on its records, in order.
    Work {
        held: Spool,
        /// The unit is not over: its raw bytes go on into `held`.
        open: bool,
        done: VecDeque<Receiver<D>>,
        got: Vec<D>,
    },
}

/// The output `W`, behind the queue; `D` is what a unit's work gives.
pub struct Ordered<W, D> {
    out: W,
    queue: VecDeque<Slot<D>>,
    memory: Memory,
}

/// A unit whose works are done, at the front of the queue: its raw bytes
/// (from where the first work started), and what the works gave, in
/// order. Whatever the caller writes to [`Ordered::out`] now comes before
/// the rest of the queue.
pub struct Front<D> {
    pub held: Spool,
    pub done: Vec<D>,
}

impl<W: Out, D> Ordered<W, D> {
    /// A queue whose slots hold in memory what the run's `memory` has room
    /// for, all of them together (one slot each had a limit of its own: a
    /// slow page followed by many long records held many times the limit).
    pub fn new(out: W, memory: Memory) -> Self {
        Ordered {
            out,
            queue: VecDeque::new(),
            memory,
        }
    }

    /// Raw bytes of the input, in order, in a buffer shared with the
    /// reader: kept there while they wait, unless a slot that grows takes
    /// them.
    pub fn raw_shared(&mut self, piece: Shared) -> io::Result<()> {
        match self.queue.back_mut() {
            None => self.out.hand_shared(piece),
            Some(Slot::Raw(spool) | Slot::Held(spool)) => spool.write_all(piece.bytes()),
            Some(Slot::Work {
                held, open: true, ..
            }) => held.write_all(piece.bytes()),
            Some(Slot::Work { open: false, .. } | Slot::Shared(..)) => {
                // A piece of the buffer the slot before keeps is drawn for
                // already; a new buffer is drawn for, or copied to a spool
                // (which spills) when there is no room.
                let counted = matches!(
                    self.queue.back(),
                    Some(Slot::Shared(last, _)) if last.shares_with(&piece)
                );
                if counted {
                    self.queue.push_back(Slot::Shared(piece, None));
                    return Ok(());
                }
                match self.memory.draw(piece.keeps()) {
                    Ok(drawn) => self.queue.push_back(Slot::Shared(piece, Some(drawn))),
                    Err(_) => {
                        let mut spool = self.spool();
                        spool.write_all(piece.bytes())?;
                        self.queue.push_back(Slot::Raw(spool));
                    }
                }
                Ok(())
            }
        }
    }

    /// Raw bytes of the input, in order.
    pub fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        match self.queue.back_mut() {
            None => self.out.write_all(bytes),
            Some(Slot::Raw(spool) | Slot::Held(spool)) => spool.write_all(bytes),
            Some(Slot::Work {
                held, open: true, ..
            }) => held.write_all(bytes),
            Some(Slot::Work { open: false, .. } | Slot::Shared(..)) => {
                let mut spool = self.spool();
                spool.write_all(bytes)?;
                self.queue.push_back(Slot::Raw(spool));
                Ok(())
            }
        }
    }

    /// A unit starts whose raw bytes are held until its first record's
    /// header is read.
    pub fn hold(&mut self) {
        let spool = self.spool();
        self.queue.push_back(Slot::Held(spool));
    }

    /// The unit held is not replaced: its bytes are copied as they came.
    pub fn release(&mut self) -> io::Result<()> {
        if let Some(Slot::Held(_)) = self.queue.back() {
            if let Some(Slot::Held(spool)) = self.queue.pop_back() {
                self.queue.push_back(Slot::Raw(spool));
            }
        }
        self.write_raw_front()
    }

    /// Work starts on a record of the unit being read: the unit's bytes
    /// held so far (when `whole`: the unit from its start, else from
    /// here; or from an earlier work on the same unit) and the rest of the
    /// unit's wait for `done`.
    pub fn work(&mut self, whole: bool, done: Receiver<D>) {
        match self.queue.back_mut() {
            Some(Slot::Work {
                open: true,
                done: works,
                ..
            }) => {
                works.push_back(done);
                return;
            }
            Some(Slot::Held(_)) if whole => {
                let Some(Slot::Held(held)) = self.queue.pop_back() else {
                    unreachable!("matched above")
                };
                self.queue.push_back(Slot::Work {
                    held,
                    open: true,
                    done: VecDeque::from([done]),
                    got: Vec::new(),
                });
                return;
            }
            Some(Slot::Held(_)) => {
                let Some(Slot::Held(held)) = self.queue.pop_back() else {
                    unreachable!("matched above")
                };
                self.queue.push_back(Slot::Raw(held));
            }
            _ => {}
        }
        let held = self.spool();
        self.queue.push_back(Slot::Work {
            held,
            open: true,
            done: VecDeque::from([done]),
            got: Vec::new(),
        });
    }

    /// The unit being read is over.
    pub fn unit_end(&mut self) -> io::Result<()> {
        match self.queue.back_mut() {
            Some(Slot::Work { open, .. }) => *open = false,
            Some(Slot::Held(_)) => return self.release(),
            _ => {}
        }
        Ok(())
    }

    /// A spool for a slot at the back, the only one that grows.
    fn spool(&self) -> Spool {
        Spool::new(&self.memory)
    }

    /// The bytes its slots hold in memory: a buffer that pieces share,
    /// once (its pieces wait one after another: a segment's members).
    #[cfg(test)]
    fn in_memory(&self) -> usize {
        let mut last: Option<&Shared> = None;
        self.queue
            .iter()
            .map(|slot| match slot {
                Slot::Raw(spool) | Slot::Held(spool) | Slot::Work { held: spool, .. } => {
                    spool.in_memory().map_or(0, <[u8]>::len)
                }
                Slot::Shared(piece, _) => {
                    let counted = last.is_some_and(|last| last.shares_with(piece));
                    last = Some(piece);
                    if counted { 0 } else { piece.keeps() }
                }
            })
            .sum()
    }

    /// Writes out the raw bytes at the front; gives the first unit whose
    /// works are done (when `wait`, waits for them), once it is over. A
    /// work that went away without a result is an error.
    pub fn front(&mut self, wait: bool) -> io::Result<Option<Front<D>>> {
        self.write_raw_front()?;
        let Some(Slot::Work {
            open: false,
            done,
            got,
            ..
        }) = self.queue.front_mut()
        else {
            return Ok(None);
        };
        while let Some(work) = done.front() {
            let result = if wait {
                work.recv().map_err(|_| gone())?
            } else {
                match work.try_recv() {
                    Ok(result) => result,
                    Err(TryRecvError::Empty) => return Ok(None),
                    Err(TryRecvError::Disconnected) => return Err(gone()),
                }
            };
            got.push(result);
            done.pop_front();
        }
        let Some(Slot::Work { held, got, .. }) = self.queue.pop_front() else {
            unreachable!("matched above")
        };
        Ok(Some(Front { held, done: got }))
    }

    /// Writes out the raw bytes at the front; how many works the unit at
    /// the front has, if one waits there.
    pub fn front_works(&mut self) -> io::Result<Option<usize>> {
        self.write_raw_front()?;
        Ok(match self.queue.front() {
            Some(Slot::Work { done, got, .. }) => Some(done.len() + got.len()),
            _ => None,
        })
    }

    fn write_raw_front(&mut self) -> io::Result<()> {
        while let Some(Slot::Raw(_) | Slot::Shared(..)) = self.queue.front() {
            match self.queue.pop_front() {
                Some(Slot::Raw(spool)) => self.out.hand(spool)?,
                Some(Slot::Shared(piece, _drawn)) => self.out.hand_shared(piece)?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Where the bytes of the unit at the front go.
    pub fn out(&mut self) -> &mut W {
        &mut self.out
    }

    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.queue.is_empty()
    }

    /// The end of the input: every unit is over; gives back the output
    /// once [`front`](Ordered::front) has emptied the queue.
    pub fn close(&mut self) -> io::Result<()> {
        for slot in &mut self.queue {
            if let Slot::Work { open, .. } = slot {
                *open = false;
            }
            if let Slot::Held(spool) = slot {
                *slot = Slot::Raw(std::mem::replace(spool, Spool::with_limit(0)));
            }
        }
        self.write_raw_front()
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

/// A work that ended without a result: its thread panicked.
fn gone() -> io::Error {
    io::Error::other("a record's work ended without a result")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::output::behind::Direct;
    use std::sync::mpsc;

    /// Slots waiting behind a unit at work hold in memory what the run's
    /// memory has room for in all (a quarter of it), and come out in order.
    #[test]
    fn the_queue_holds_its_room_in_memory_in_all() {
        let memory = Memory::new(400);
        let mut ordered: Ordered<Direct<Vec<u8>>, u8> = Ordered::new(Direct(Vec::new()), memory);
        let (done, result) = mpsc::channel();
        ordered.work(false, result);
        ordered.raw(&[b'a'; 60]).unwrap();
        ordered.unit_end().unwrap();
        for byte in [b'b', b'c', b'd'] {
            ordered.raw(&[byte; 60]).unwrap();
            ordered.hold();
            ordered.raw(&[byte; 10]).unwrap();
            ordered.release().unwrap();
            assert!(ordered.in_memory() <= 100, "{}", ordered.in_memory());
        }
        assert!(ordered.front(false).unwrap().is_none());
        done.send(7).unwrap();
        let front = ordered.front(true).unwrap().expect("done");
        assert_eq!(front.done, [7]);
        let mut held = front.held;
        held.copy_to(ordered.out()).unwrap();
        ordered.close().unwrap();
        let expected: Vec<u8> =
            [[b'a'; 60].as_slice(), &[b'b'; 70], &[b'c'; 70], &[b'd'; 70]].concat();
        assert_eq!(ordered.into_inner().0, expected);
    }

    #[test]
    fn pieces_of_one_buffer_wait_counted_once_and_come_out_in_order() {
        use crate::source::output::behind::Shared;
        use std::sync::Arc;
        let memory = Memory::new(4000);
        let mut ordered: Ordered<Direct<Vec<u8>>, u8> =
            Ordered::new(Direct(Vec::new()), memory.clone());
        let one = Arc::new(vec![b'a'; 300]);
        let two = Arc::new(vec![b'b'; 200]);
        let (done, result) = mpsc::channel();
        ordered.work(false, result);
        ordered.unit_end().unwrap();
        // Three members of one segment, then one of the next.
        for range in [0..100, 100..250, 250..300] {
            ordered
                .raw_shared(Shared::new(Arc::clone(&one), range))
                .unwrap();
        }
        ordered
            .raw_shared(Shared::new(Arc::clone(&two), 0..200))
            .unwrap();
        assert_eq!(ordered.in_memory(), 300 + 200);
        assert_eq!(
            memory.peak(),
            300 + 200,
            "drawn from the run, each buffer once"
        );
        done.send(1).unwrap();
        let front = ordered.front(true).unwrap().expect("done");
        assert_eq!(front.done, [1]);
        ordered.close().unwrap();
        let expected = [vec![b'a'; 300], vec![b'b'; 200]].concat();
        assert_eq!(ordered.into_inner().0, expected);
    }
}
