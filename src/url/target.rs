//! A redirect rule's target as its placeholders are put in: it may grow
//! with each (a value put in is searched by the next name), as long as the
//! link's path times the names' count. Past what a browser or the host
//! reads, it reaches nothing, so it is never made longer than that.

/// The longest target a rule's `TO` is made into (Netlify's, GitLab's): a
/// redirect to a longer one is more than Chromium reads of a response's
/// headers (256 KiB, or it fails the load with
/// `ERR_RESPONSE_HEADERS_TOO_BIG`), and a rewrite to a longer path names
/// no file of the tree.
pub(super) const MAX_TARGET: usize = 256 * 1024;

/// The status of a rule's answer that reaches nothing a browser loads: its
/// target would pass [`MAX_TARGET`].
pub(super) const UNREACHABLE: u16 = 0;

/// `to` with `name` put in as `value` wherever it stands, when the result
/// is no longer than `most`.
pub(super) fn put_in(to: &str, name: &str, value: &str, most: usize) -> Option<String> {
    let times = to.matches(name).count();
    let len = (to.len() - times * name.len()).checked_add(times.checked_mul(value.len())?)?;
    (len <= most).then(|| to.replace(name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_made_only_up_to_its_most() {
        assert_eq!(
            put_in("/a/:x/:x", ":x", "bc", 8).as_deref(),
            Some("/a/bc/bc")
        );
        assert_eq!(put_in("/a/:x/:x", ":x", "bcd", 8), None);
        assert_eq!(
            put_in("/a", ":x", &"y".repeat(100), 2).as_deref(),
            Some("/a")
        );
    }
}
