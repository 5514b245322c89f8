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
        // Where the next `<` may start a tag: past the name read last (a
        // name may hold a `<`).
        let mut from = 0;
        // A `<` that ended the last write starts a tag if this write (not
        // an empty one) starts with a letter.
        if let Some(&first) = bytes.first().filter(|_| self.open) {
            self.open = false;
            if first.is_ascii_alphabetic() {
                self.within = Some(0);
            }
        }
        if let Some(so_far) = self.within {
            from = self.name(bytes, 0, so_far)?;
        }
        // One search for every `<` of the write: most of a page's bytes
        // are between tags.
        for lt in memchr::memchr_iter(b'<', bytes) {
            if self.within.is_some() {
                return Ok(());
            }
            if lt < from {
                continue;
            }
            match bytes.get(lt + 1) {
                None => self.open = true,
                Some(b) if b.is_ascii_alphabetic() => from = self.name(bytes, lt + 1, 0)?,
                Some(_) => {}
            }
        }
        Ok(())
    }

    /// Reads the name that starts at `start` in `bytes`, `so_far` bytes of
    /// it read before: counts what of it is long, and returns where it
    /// ends (the write's end, when it goes on into the next).
    fn name(&mut self, bytes: &[u8], start: usize, so_far: usize) -> Result<usize, OverBudget> {
        let end = bytes[start..]
            .iter()
            .position(|&b| ends_a_name(b))
            .map_or(bytes.len(), |i| start + i);
        let length = so_far + (end - start);
        // Counted as it goes: a long name is paid for before lol_html
        // reads it whole.
        self.count(length)?;
        if end == bytes.len() {
            self.within = Some(length);
        } else {
            self.within = None;
            self.paid = 0;
        }
        Ok(end)
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

    /// What is counted, told plainly: each start tag's name (`<` and a
    /// letter, up to what ends a name), past `LONG` bytes.
    fn expected(input: &[u8]) -> usize {
        let mut counted = 0;
        let mut at = 0;
        while let Some(lt) = input[at..].iter().position(|&b| b == b'<') {
            let start = at + lt + 1;
            at = start;
            if !input.get(start).is_some_and(u8::is_ascii_alphabetic) {
                continue;
            }
            let length = input[start..]
                .iter()
                .position(|&b| ends_a_name(b))
                .unwrap_or(input.len() - start);
            counted += length.saturating_sub(LONG);
            at = start + length;
        }
        counted
    }

    /// Names with a `<` in them, of `LONG` bytes and one more, cut at
    /// every place into two writes and three: each counted once.
    #[test]
    fn names_are_counted_once_wherever_a_write_ends() {
        let at = |n: usize| "a".repeat(n);
        let inputs = [
            format!("<{}><{}>", at(LONG), at(LONG + 1)),
            format!("<x<{}><{}<{}/>", at(40), at(20), at(20)),
            format!("<<{}< <{}\n", at(35), at(50)),
            format!("text<{}", at(70)),
            format!("<!{}><{}>", at(40), at(33)),
        ];
        for input in &inputs {
            let input = input.as_bytes();
            let want = expected(input);
            for cut in 0..=input.len() {
                for second in cut..=input.len() {
                    let allowance = Allowance::standalone(1 << 20);
                    let mut names = TagNames::new(&allowance);
                    names.read(&input[..cut]).unwrap();
                    names.read(&input[cut..second]).unwrap();
                    names.read(&input[second..]).unwrap();
                    let input = String::from_utf8_lossy(input);
                    assert_eq!(
                        names.counted.taken(),
                        want,
                        "{input:?} cut at {cut}, {second}"
                    );
                }
            }
        }
    }
}
