//! The run's memory: `--max-memory`, the most that the whole run holds at
//! once, whatever its documents, their types and its jobs. One [`Memory`]
//! is made for a run and every holder draws from it and gives back:
//!
//! - **half** is the share of the oldest document in flight (its place in
//!   the input: a site's files in the walk's order, an archive's records):
//!   the *head* share. One document holds it at a time, so the oldest
//!   never waits for memory and the run always moves on.
//! - **a quarter** is for the other documents in flight, a small share
//!   each (a sixty-fourth of the whole: sixteen of them at once). A worker
//!   that finds none free waits. A document that outgrows its small share
//!   is given up, not cut short: its worker waits until it is the oldest,
//!   and runs it again from the start with the head share. So what becomes
//!   of a document depends on `--max-memory` alone, never on `--jobs` or
//!   on what ran beside it.
//! - **a quarter** is for what waits between threads (records and pieces
//!   of an archive queued, responses' bodies held for their length): drawn
//!   as it grows, and where it does not fit it goes to disk or is done by
//!   the thread that would otherwise wait for it.
//!
//! Within a document's share, its holders (the parser's buffers, the
//! lookahead's hold, a value's bytes and working copies, a stylesheet, the
//! XML engine's bases in scope) take from one [`Allowance`] through
//! [`Budget`]s, on the document's own thread, without locks. What is past
//! the share stops the rewrite (the rest is copied unchanged, with a
//! warning) — or, for a small share, runs the document again with the
//! head's.

use std::cell::Cell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock};

/// `--max-memory` when none is given: a quarter of the memory this process
/// may use (its control group's limit where one is set, else the
/// machine's), and no less than 64 MiB. A container's limit is what its
/// runs are sized by.
pub fn default_total() -> usize {
    static TOTAL: OnceLock<usize> = OnceLock::new();
    *TOTAL.get_or_init(|| (usable().unwrap_or(4 << 30) / 4).max(64 << 20))
}

/// The memory this process may use, where the system says: the least of
/// the machine's and its control group's limit (v2, then v1).
fn usable() -> Option<usize> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let machine = machine_memory();
    // "max" (v2) and a huge number (v1) both say there is no limit.
    let group = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .into_iter()
    .find_map(|path| read(path)?.trim().parse::<usize>().ok())
    .filter(|&limit| limit < 1 << 60);
    match (machine, group) {
        (Some(m), Some(g)) => Some(m.min(g)),
        (m, g) => m.or(g),
    }
}

/// The machine's memory: `MemTotal` of `/proc/meminfo`. On Linux, the
/// same count from sysinfo(2) (`totalram`, in units of `mem_unit`), which
/// costs a system call where reading `/proc/meminfo` has the kernel write
/// out every line of it (3% of a one-page run's CPU time).
#[cfg(any(target_os = "linux", target_os = "android"))]
fn machine_memory() -> Option<usize> {
    let info = rustix::system::sysinfo();
    usize::try_from(info.totalram)
        .ok()?
        .checked_mul(usize::try_from(info.mem_unit).ok()?)
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn machine_memory() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// A holder asked for more than its share has left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget;

/// The run's memory: `Clone` to hand to every thread (an `Arc`).
#[derive(Debug, Clone)]
pub struct Memory(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    total: usize,
    /// The limit messages name: `--max-memory`, of which `total` may be
    /// a part (what an archive's link check leaves beside its captures).
    named: usize,
    state: Mutex<State>,
    /// Told when a share or a draw is given back, and when a document
    /// leaves the flight (the next oldest may take the head share).
    changed: Condvar,
}

#[derive(Debug, Default)]
struct State {
    /// The documents in flight, by their place in the input (a place may be
    /// entered more than once).
    in_flight: BTreeMap<u64, usize>,
    /// The document holding the head share.
    head: Option<u64>,
    /// Small shares out.
    small: usize,
    /// Bytes drawn by what waits between threads.
    drawn: usize,
    /// The most held at once: the head share (when out), the small shares
    /// and the draws.
    peak: usize,
}

impl State {
    fn held(&self, memory: &Inner) -> usize {
        let head = if self.head.is_some() {
            memory.head()
        } else {
            0
        };
        head + self.small * memory.small() + self.drawn
    }
}

impl Inner {
    fn head(&self) -> usize {
        self.total / 2
    }

    fn small(&self) -> usize {
        self.total / 64
    }

    fn smalls(&self) -> usize {
        // A quarter, in shares of a sixty-fourth: sixteen.
        (self.total / 4) / self.small().max(1)
    }

    fn for_draws(&self) -> usize {
        self.total - self.head() - self.smalls() * self.small()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A holder that panicked gave back what it held on the way down
        // (Drop): the state is whole.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Memory {
    /// The memory of a run that may hold `total` bytes at once.
    pub fn new(total: usize) -> Self {
        Memory::part_of(total, total)
    }

    /// The memory of a run that may hold `total` bytes at once, the part
    /// of `--max-memory` (`named`, what messages say) that what else the
    /// run holds leaves.
    pub fn part_of(total: usize, named: usize) -> Self {
        Memory(Arc::new(Inner {
            total,
            named,
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        }))
    }

    /// What the run may hold at once (`--max-memory`, or the part of it
    /// it was given).
    pub fn total(&self) -> usize {
        self.0.total
    }

    /// `--max-memory`, as messages name it.
    pub fn named(&self) -> usize {
        self.0.named
    }

    /// The head share's size: what one document may hold at most.
    #[cfg(test)]
    pub fn head_size(&self) -> usize {
        self.0.head()
    }

    /// A small share's size.
    #[cfg(test)]
    pub fn small_size(&self) -> usize {
        self.0.small()
    }

    /// The most the run has held at once, by its accounts.
    #[cfg(test)]
    pub fn peak(&self) -> usize {
        self.0.lock().peak
    }

    /// The document at `place` in the input is in flight until the
    /// [`Ticket`] is dropped.
    pub fn enter(&self, place: u64) -> Ticket {
        *self.0.lock().in_flight.entry(place).or_default() += 1;
        Ticket {
            memory: self.clone(),
            place,
        }
    }

    /// The share of a document that is alone in its run (one page, one
    /// response): the head's.
    pub fn alone(&self) -> Share {
        self.enter(0).head_share()
    }

    /// Nothing drawn yet, for a holder to grow.
    pub fn drawn(&self) -> Drawn {
        Drawn {
            memory: self.clone(),
            bytes: 0,
        }
    }

    /// Draws `bytes` for what waits between threads, when they fit in its
    /// quarter; the [`Drawn`] gives them back when dropped.
    pub fn draw(&self, bytes: usize) -> Result<Drawn, OverBudget> {
        let mut drawn = Drawn {
            memory: self.clone(),
            bytes: 0,
        };
        drawn.grow(bytes)?;
        Ok(drawn)
    }

    fn give_back(&self, f: impl FnOnce(&mut State)) {
        let mut state = self.0.lock();
        f(&mut state);
        drop(state);
        self.0.changed.notify_all();
    }
}

/// A document in flight, by its place in the input.
#[derive(Debug)]
pub struct Ticket {
    memory: Memory,
    place: u64,
}

impl Ticket {
    /// The document's share: the head's when it is the oldest in flight
    /// and the head's is free, else a small one; waits while neither is.
    pub fn share(&self) -> Share {
        self.wait_for(true)
    }

    /// The head share, for a document that outgrew a small one: waits
    /// until it is the oldest in flight and the head's share is free.
    pub fn head_share(&self) -> Share {
        self.wait_for(false)
    }

    fn wait_for(&self, small: bool) -> Share {
        let inner = &self.memory.0;
        let mut state = inner.lock();
        loop {
            let oldest = state.in_flight.keys().next() == Some(&self.place);
            if oldest && state.head.is_none() {
                state.head = Some(self.place);
                return self.out(state, inner.head(), true);
            }
            if small && state.small < inner.smalls() {
                state.small += 1;
                return self.out(state, inner.small(), false);
            }
            state = inner.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    fn out(&self, mut state: MutexGuard<'_, State>, size: usize, head: bool) -> Share {
        state.peak = state.peak.max(state.held(&self.memory.0));
        Share {
            memory: self.memory.clone(),
            size,
            head,
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let place = self.place;
        self.memory.give_back(|state| {
            if let Some(n) = state.in_flight.get_mut(&place) {
                *n -= 1;
                if *n == 0 {
                    state.in_flight.remove(&place);
                }
            }
        });
    }
}

/// What one document may hold: a share of the run's memory, given back
/// when dropped. It can be sent to the thread that rewrites the document.
#[derive(Debug)]
pub struct Share {
    memory: Memory,
    size: usize,
    head: bool,
}

impl Share {
    /// A share of `size` bytes of a memory of its own (a document
    /// rewritten outside any run: the library's entry points, tests).
    #[cfg(test)]
    pub fn standalone(size: usize) -> Share {
        Share {
            memory: Memory::new(size.saturating_mul(2)),
            size,
            head: true,
        }
    }

    #[cfg(test)]
    pub fn size(&self) -> usize {
        self.size
    }

    /// Whether it is the head share (the most a document may hold), not a
    /// small one that a document outgrowing it gives up for the head's.
    #[cfg(test)]
    pub fn is_head(&self) -> bool {
        self.head
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        let head = self.head;
        self.memory.give_back(|state| {
            if head {
                state.head = None;
            } else {
                state.small -= 1;
            }
        });
    }
}

/// Bytes drawn for what waits between threads; given back when dropped.
#[derive(Debug)]
pub struct Drawn {
    memory: Memory,
    bytes: usize,
}

impl Drawn {
    /// Draws `bytes` more, when they fit.
    pub fn grow(&mut self, bytes: usize) -> Result<(), OverBudget> {
        let inner = &self.memory.0;
        let mut state = inner.lock();
        let drawn = state.drawn.checked_add(bytes).ok_or(OverBudget)?;
        if drawn > inner.for_draws() {
            return Err(OverBudget);
        }
        state.drawn = drawn;
        self.bytes += bytes;
        state.peak = state.peak.max(state.held(inner));
        Ok(())
    }

    /// Gives back `bytes` of those drawn.
    pub fn shrink(&mut self, bytes: usize) {
        let bytes = bytes.min(self.bytes);
        self.bytes -= bytes;
        self.memory.give_back(|state| state.drawn -= bytes);
    }

    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Drawn {
    fn drop(&mut self) {
        let bytes = std::mem::take(&mut self.bytes);
        if bytes > 0 {
            self.memory.give_back(|state| state.drawn -= bytes);
        }
    }
}

/// A document's share as its holders take from it, on its own thread:
/// shared by them (`Rc`), each taking through a [`Budget`].
#[derive(Debug)]
pub struct Allowance {
    left: Cell<usize>,
    /// A holder asked for more than was left: the document did not fit.
    ran_out: Cell<bool>,
    share: Share,
}

impl Allowance {
    pub fn new(share: Share) -> Rc<Allowance> {
        Rc::new(Allowance {
            left: Cell::new(share.size),
            ran_out: Cell::new(false),
            share,
        })
    }

    /// An allowance of `size` bytes of a memory of its own.
    #[cfg(test)]
    pub fn standalone(size: usize) -> Rc<Allowance> {
        Allowance::new(Share::standalone(size))
    }

    /// What the whole run may hold (`--max-memory`, or the part of it the
    /// run was given).
    pub fn total(&self) -> usize {
        self.share.memory.total()
    }

    /// `--max-memory`, as messages name it.
    pub fn named(&self) -> usize {
        self.share.memory.named()
    }

    /// The run's memory, for what the document's source holds beside it.
    pub fn memory(&self) -> &Memory {
        &self.share.memory
    }

    pub fn left(&self) -> usize {
        self.left.get()
    }

    pub fn is_head(&self) -> bool {
        self.share.head
    }

    /// Whether a holder asked for more than was left (the document was
    /// cut short, or given up).
    pub fn ran_out(&self) -> bool {
        self.ran_out.get()
    }

    /// Says that the document did not fit, when a holder that does not
    /// take through a [`Budget`] (lol_html, with a limit of its own) found
    /// so.
    pub fn run_out(&self) {
        self.ran_out.set(true);
    }

    /// A budget that takes from this allowance.
    pub fn budget(self: &Rc<Self>) -> Budget {
        Budget {
            allowance: Some(Rc::clone(self)),
            left: 0,
            taken: 0,
        }
    }
}

/// One holder's takings from its document's [`Allowance`]: what it takes
/// is given back when it is dropped (or before, by [`Budget::give`]).
#[derive(Debug)]
pub struct Budget {
    /// `None`: a budget of its own, `left` bytes (tests, and work whose
    /// copies are bounded elsewhere).
    allowance: Option<Rc<Allowance>>,
    left: usize,
    taken: usize,
}

impl Budget {
    /// A budget of `bytes` of its own, drawing on no allowance.
    pub fn new(bytes: usize) -> Self {
        Budget {
            allowance: None,
            left: bytes,
            taken: 0,
        }
    }

    /// Takes `bytes`, or fails with nothing taken when they do not fit.
    pub fn take(&mut self, bytes: usize) -> Result<(), OverBudget> {
        match &self.allowance {
            None => self.left = self.left.checked_sub(bytes).ok_or(OverBudget)?,
            Some(allowance) => match allowance.left.get().checked_sub(bytes) {
                Some(left) => allowance.left.set(left),
                None => {
                    allowance.ran_out.set(true);
                    return Err(OverBudget);
                }
            },
        }
        self.taken += bytes;
        Ok(())
    }

    /// Gives back `bytes` taken before (a copy that is gone).
    pub fn give(&mut self, bytes: usize) {
        let bytes = bytes.min(self.taken);
        self.taken -= bytes;
        match &self.allowance {
            None => self.left = self.left.saturating_add(bytes),
            Some(allowance) => allowance.left.set(allowance.left.get() + bytes),
        }
    }

    /// What may still be taken.
    pub fn left(&self) -> usize {
        match &self.allowance {
            None => self.left,
            Some(allowance) => allowance.left.get(),
        }
    }

    /// What this budget holds now.
    pub fn taken(&self) -> usize {
        self.taken
    }

    /// Holds what `other` took, as if this one had taken it (both take
    /// from the same allowance).
    pub fn absorb(&mut self, mut other: Budget) {
        debug_assert!(match (&self.allowance, &other.allowance) {
            (Some(a), Some(b)) => Rc::ptr_eq(a, b),
            _ => false,
        });
        self.taken += std::mem::take(&mut other.taken);
    }
}

impl Drop for Budget {
    fn drop(&mut self) {
        if let Some(allowance) = &self.allowance {
            allowance.left.set(allowance.left.get() + self.taken);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn what_does_not_fit_is_not_taken() {
        let mut budget = Budget::new(10);
        assert_eq!(budget.take(6), Ok(()));
        assert_eq!(budget.take(5), Err(OverBudget));
        assert_eq!(budget.left(), 4);
        budget.give(6);
        assert_eq!(budget.take(10), Ok(()));
        assert_eq!(budget.take(1), Err(OverBudget));
    }

    #[test]
    fn a_documents_holders_take_from_one_allowance_and_give_back_when_done() {
        let allowance = Allowance::standalone(100);
        let mut lol = allowance.budget();
        lol.take(25).unwrap();
        {
            let mut value = allowance.budget();
            value.take(70).unwrap();
            assert_eq!(allowance.left(), 5);
            assert_eq!(value.take(6), Err(OverBudget));
            assert!(allowance.ran_out());
        }
        assert_eq!(allowance.left(), 75, "the value's budget gave back on drop");
        lol.give(25);
        assert_eq!(allowance.left(), 100);
    }

    #[test]
    fn a_run_is_split_half_a_quarter_a_quarter() {
        let memory = Memory::new(64 << 20);
        assert_eq!(memory.head_size(), 32 << 20);
        assert_eq!(memory.small_size(), 1 << 20);
        let mut drawn = memory.draw(16 << 20).unwrap();
        assert_eq!(drawn.grow(1), Err(OverBudget), "the draws' quarter is full");
        drawn.shrink(1 << 20);
        drawn.grow(1 << 20).unwrap();
        let tickets: Vec<Ticket> = (0..20).map(|i| memory.enter(i)).collect();
        let head = tickets[0].share();
        assert!(head.is_head());
        let smalls: Vec<Share> = tickets[1..17].iter().map(Ticket::share).collect();
        assert!(smalls.iter().all(|s| !s.is_head() && s.size() == 1 << 20));
        assert_eq!(memory.peak(), 64 << 20, "all of it, and no more");
    }

    #[test]
    fn only_the_oldest_in_flight_takes_the_head_share_and_it_never_waits() {
        let memory = Memory::new(6400);
        let young = memory.enter(5);
        let old = memory.enter(2);
        // The younger one is not the oldest: a small share.
        assert!(!young.share().is_head());
        let head = old.share();
        assert!(head.is_head());
        drop(head);
        drop(old);
        // Now the younger one is the oldest.
        assert!(young.share().is_head());
    }

    /// Documents run on eight threads, each taking a share, some outgrowing
    /// a small one and waiting for the head's: all finish (no thread waits
    /// for ever), the head share is held by one at a time, and the run
    /// never holds more than its total.
    #[test]
    fn many_threads_all_finish_within_the_total() {
        let memory = Memory::new(64 * 100);
        let next = Arc::new(AtomicUsize::new(0));
        let heads = Arc::new(AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for _ in 0..8 {
                let (memory, next, heads) = (memory.clone(), Arc::clone(&next), Arc::clone(&heads));
                scope.spawn(move || {
                    loop {
                        let place = next.fetch_add(1, Ordering::SeqCst);
                        if place >= 200 {
                            return;
                        }
                        let ticket = memory.enter(place as u64);
                        let mut share = ticket.share();
                        if !share.is_head() && place % 7 == 0 {
                            // Outgrew it: again, with the head's.
                            drop(share);
                            share = ticket.head_share();
                        }
                        if share.is_head() {
                            assert_eq!(heads.fetch_add(1, Ordering::SeqCst), 0);
                            std::thread::sleep(Duration::from_micros(50));
                            heads.fetch_sub(1, Ordering::SeqCst);
                        }
                        let drawn = memory.draw(100);
                        std::thread::yield_now();
                        drop((share, drawn));
                    }
                });
            }
        });
        assert!(memory.peak() <= memory.total());
        assert_eq!(memory.0.lock().held(&memory.0), 0, "everything given back");
    }
}
