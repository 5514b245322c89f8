//! The names of the elements lol_html keeps open. lol_html counts each
//! open element against its own limit, but not a copy of its name: a name
//! it cannot hash (more than 12 letters, or a `-`, as a custom element's)
//! is copied for as long as the element is open, and a page of elements
//! with megabyte names holds megabytes lol_html never counted. So the long
//! names are counted here, as the input goes to lol_html, from the
//! document's allowance: every start tag's name past [`LONG`] bytes, for
//! the rest of the document (an element's end is not followed: what is
//! counted is at least what lol_html holds); the shorter ones are paid for
//! with the parser's limit (a third more than it, a name of up to
//! [`LONG`] bytes being at most a third of what lol_html counts an element).

use std::rc::Rc;

use crate::document::memory::{Allowance, Budget, OverBudget};

/// Names up to this long are paid for with the parser's limit.
pub const LONG: usize = 32;

pub struct TagNames {
    counted: Budget,
    /// Within a start tag's name, this many bytes of it so far.
    within: Option<usize>,
    /// Of the name being read, the bytes past `LONG` counted already.
    paid: usize,
    /// The last byte read was a `<`.
    open: bool,
}

impl TagNames {
    pub fn new(allowance: &Rc<Allowance>) -> Self {
        TagNames {
            counted: allowance.budget(),
            within: None,
            paid: 0,
            open: false,
        }
    }

    /// Counts the long names of the start tags in `bytes`, the next bytes
    /// lol_html reads; `Err` when they pass what the allowance has left.
    pub fn read(&mut self, bytes: &[u8]) -> Result<(), OverBudget> {
        let mut at = 0;
        if self.open {
            self.open = false;
            if bytes.first().is_some_and(u8::is_ascii_alphabetic) {
                self.within = Some(0);
            }
        }
        loop {
            if let Some(so_far) = self.within {
                let end = bytes[at..]
                    .iter()
                    .position(|&b| ends_a_name(b))
                    .map_or(bytes.len(), |i| at + i);
                let length = so_far + (end - at);
                // Counted as it goes: a long name is paid for before
                // lol_html reads it whole.
                self.count(length)?;
                if end == bytes.len() {
                    self.within = Some(length);
                    return Ok(());
                }
                self.within = None;
                self.paid = 0;
                at = end;
            }
            let Some(lt) = memchr::memchr(b'<', &bytes[at..]) else {
                return Ok(());
            };
            let lt = at + lt;
            match bytes.get(lt + 1) {
                None => {
                    self.open = true;
                    return Ok(());
                }
                Some(b) if b.is_ascii_alphabetic() => {
                    self.within = Some(0);
                    at = lt + 1;
                }
                Some(_) => at = lt + 1,
            }
        }
    }

    /// A name of `length` bytes so far: what of it is long, and not yet
    /// counted, is.
    fn count(&mut self, length: usize) -> Result<(), OverBudget> {
        let long = length.saturating_sub(LONG);
        if long > self.paid {
            self.counted.take(long - self.paid)?;
            self.paid = long;
        }
        Ok(())
    }
}

/// Where a tag's name ends (HTML's tag name state).
fn ends_a_name(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0c' | b'\r' | b' ' | b'/' | b'>')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is counted: every start tag's name past `LONG` bytes, whatever
    /// the writes it comes in; end tags, `<!`, and short names, nothing.
    #[test]
    fn long_start_tag_names_are_counted_however_the_input_is_cut() {
        let long = "x-".to_owned() + &"a".repeat(100);
        let input = format!("<p><{long} a=b>text</{long}><!{long}><{long}/><br>");
        let expected = 2 * (long.len() - LONG);
        for cut in 0..=input.len() {
            let allowance = Allowance::standalone(1 << 20);
            let mut names = TagNames::new(&allowance);
            let (a, b) = input.as_bytes().split_at(cut);
            names.read(a).unwrap();
            names.read(b).unwrap();
            assert_eq!(names.counted.taken(), expected, "cut at {cut}");
        }
        let allowance = Allowance::standalone(1 << 20);
        let mut names = TagNames::new(&allowance);
        for byte in input.as_bytes() {
            names.read(std::slice::from_ref(byte)).unwrap();
        }
        assert_eq!(names.counted.taken(), expected, "a byte at a time");
        // Past what the allowance has: refused, as it is read.
        let allowance = Allowance::standalone(100);
        let mut names = TagNames::new(&allowance);
        assert_eq!(names.read(input.as_bytes()), Err(OverBudget));
        assert!(allowance.ran_out());
    }
}
