//! An input that a caller who has gone stops: its next read fails, and the
//! run that reads it ends there (Python's listings, when the iterator is
//! dropped before its end).

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// `input`, read until `stop` is set.
pub struct Stoppable<R> {
    input: R,
    stop: Arc<AtomicBool>,
}

impl<R: Read> Stoppable<R> {
    pub fn new(input: R, stop: Arc<AtomicBool>) -> Self {
        Stoppable { input, stop }
    }
}

impl<R: Read> Read for Stoppable<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("the links are no longer read"));
        }
        self.input.read(buf)
    }
}
