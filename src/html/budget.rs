//! The memory one value's rewrite may take besides its bytes as they came:
//! its decoded text, its edits, its new bytes, a document nested in it.
//! Each is taken from the value's budget (`--max-memory`) before it is
//! made, so that a value held many times over, or split into millions of
//! URLs, cannot take memory without bound; one that does not fit stops the
//! rewrite there (the rest of the input is copied unchanged).

/// A value's working copies would exceed its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OverBudget;

/// What a value's working copies may still take, in bytes.
#[derive(Debug)]
pub struct Budget {
    left: usize,
}

impl Budget {
    pub fn new(bytes: usize) -> Self {
        Budget { left: bytes }
    }

    /// Takes `bytes`, or fails with nothing taken when they do not fit.
    pub fn take(&mut self, bytes: usize) -> Result<(), OverBudget> {
        self.left = self.left.checked_sub(bytes).ok_or(OverBudget)?;
        Ok(())
    }

    /// Gives back `bytes` taken before (a copy that is gone).
    pub fn give(&mut self, bytes: usize) {
        self.left = self.left.saturating_add(bytes);
    }

    pub fn left(&self) -> usize {
        self.left
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
