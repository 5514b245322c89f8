//! Where each value starts, in lines and columns, for the link report. The
//! bytes gone by are counted a block at a time (lol_html hands them over a
//! token at a time, and counting each alone was a tenth of a link check),
//! and where a value starts is only marked: it is counted up to when a link
//! of the value is heard. Most values of a link check have none: their
//! links go to other sites.

use crate::document::links::{Lines, Position};

/// The most bytes that wait to be counted.
pub const BLOCK: usize = 4096;

pub struct Follow {
    lines: Lines,
    /// The bytes gone by since the last block was counted; `lines` counts
    /// those before `counted`. Without room (none was given), each piece is
    /// counted as it comes.
    block: Vec<u8>,
    counted: usize,
    /// Where the value being collected starts.
    start: Start,
}

#[derive(Clone, Copy)]
enum Start {
    /// At this offset of `block`, not yet counted.
    In(usize),
    At(Position),
}

impl Follow {
    /// Lines and columns followed from the start of the input, in blocks of
    /// `room` bytes (0: none).
    pub fn new(lines: Lines, room: usize) -> Self {
        Follow {
            lines,
            block: Vec::with_capacity(room),
            counted: 0,
            start: Start::At(Position::default()),
        }
    }

    /// `bytes` have gone by.
    pub fn advance(&mut self, bytes: &[u8]) {
        if self.block.len() + bytes.len() > self.block.capacity() {
            self.count_block();
        }
        match bytes.len() <= self.block.capacity() {
            true => self.block.extend_from_slice(bytes),
            false => self.lines.advance(bytes),
        }
    }

    /// A value starts at the next byte.
    pub fn value_starts(&mut self) {
        self.start = Start::In(self.block.len());
    }

    /// Where the value last started is.
    pub fn value_start(&mut self) -> Position {
        if let Start::In(at) = self.start {
            self.count_to(at);
            self.start = Start::At(self.lines.position());
        }
        match self.start {
            Start::At(position) => position,
            Start::In(_) => unreachable!("counted just now"),
        }
    }

    /// Counts what the block holds, marking where the value starts on the
    /// way, and empties it.
    fn count_block(&mut self) {
        self.value_start();
        self.count_to(self.block.len());
        self.block.clear();
        self.counted = 0;
    }

    fn count_to(&mut self, at: usize) {
        // A value's start is never before what is counted: it is marked at
        // the block's end, and counting up to it leaves it counted.
        self.lines.advance(&self.block[self.counted..at]);
        self.counted = at;
    }
}

#[cfg(test)]
mod tests {
    use encoding_rs::UTF_8;

    use super::*;
    use crate::document::links::after;

    /// A value's start is where counting every byte up to it puts it, with
    /// the block of any size, the bytes in pieces of any size, and values
    /// marked that are never asked for.
    #[test]
    fn a_value_starts_where_every_byte_before_it_puts_it() {
        let text = "ab\r\ncd\ré\n\nxyz\r\r\n".repeat(40);
        let bytes = text.as_bytes();
        // Values start every 7 bytes; every third is asked for.
        let starts: Vec<usize> = (0..bytes.len()).step_by(7).collect();
        for room in [0, 1, 5, 64, BLOCK] {
            for piece in [1, 3, 16, 100, 1000] {
                let mut follow = Follow::new(Lines::new(UTF_8, Position::default()), room);
                let mut at = 0;
                for (i, &start) in starts.iter().enumerate() {
                    while at < start {
                        let end = (at + piece).min(start);
                        follow.advance(&bytes[at..end]);
                        at = end;
                    }
                    follow.value_starts();
                    if i % 3 == 0 {
                        let expected = after(Position::default(), &bytes[..start], UTF_8);
                        assert_eq!(
                            follow.value_start(),
                            expected,
                            "room {room}, pieces of {piece}, start {start}"
                        );
                    }
                }
            }
        }
    }
}
