//! Spare input buffers, kept per thread and reused from page to page.
//!
//! A page's input is read into buffers that the lookahead holds and lol_html
//! then reads, without copying. Freeing them after every page would give the
//! memory back to the system and fault it in again for the next page (about
//! a dozen page faults a page, by `perf stat -e page-faults`); a few spare
//! buffers avoid that, and bound what is kept.

use std::cell::RefCell;

/// The size of a read (and of the output's writes).
pub const CHUNK: usize = 64 * 1024;

/// At most this many spare buffers are kept: 2 MiB, a full lookahead's worth.
const SPARE: usize = 32;

thread_local! {
    static SPARES: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// An empty buffer with room for at least [`CHUNK`] bytes (a spare one when
/// there is one), to read into.
pub fn for_reading() -> Vec<u8> {
    let mut buffer = spare().unwrap_or_else(|| Vec::with_capacity(CHUNK));
    buffer.clear();
    buffer
}

/// `bytes`, copied into a buffer from [`for_reading`], so that more can
/// follow.
pub fn copy_of(bytes: &[u8]) -> Vec<u8> {
    let mut buffer = for_reading();
    buffer.extend_from_slice(bytes);
    buffer
}

/// Keeps `buffer` for reuse, unless enough are kept or it is an odd size
/// (a large write copied whole is not worth keeping).
pub fn give_back(buffer: Vec<u8>) {
    if (CHUNK..=2 * CHUNK).contains(&buffer.capacity()) {
        // A thread being torn down has no spares to keep; nothing is lost.
        let _ = SPARES.try_with(|spares| {
            let mut spares = spares.borrow_mut();
            if spares.len() < SPARE {
                spares.push(buffer);
            }
        });
    }
}

fn spare() -> Option<Vec<u8>> {
    SPARES
        .try_with(|spares| spares.borrow_mut().pop())
        .ok()
        .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_given_back_is_the_next_one_taken() {
        let buffer = for_reading();
        let at = buffer.as_ptr();
        give_back(buffer);
        let copy = copy_of(b"abc");
        assert_eq!((copy.as_slice(), copy.as_ptr()), (&b"abc"[..], at));
        give_back(copy);
        let again = for_reading();
        assert_eq!((again.len(), again.as_ptr()), (0, at));
        assert!(again.capacity() >= CHUNK);
    }

    #[test]
    fn the_spares_are_bounded_in_number_and_size() {
        let spares = || SPARES.with(|s| s.borrow().len());
        give_back(vec![0; 3 * CHUNK]);
        give_back(Vec::with_capacity(16));
        assert_eq!(spares(), 0, "odd sizes are not kept");
        let buffers: Vec<_> = (0..SPARE + 8).map(|_| for_reading()).collect();
        for buffer in buffers {
            give_back(buffer);
        }
        assert_eq!(spares(), SPARE);
    }
}
