//! How a name (a file's path, a WARC record's ID) is shown in a line of
//! output: by [`shown`], the one rule of every value from the input.

use std::path::Path;

pub use crate::shown::shown;

/// A path as a line shows it: [`shown`] on its bytes.
pub fn path(path: &Path) -> std::borrow::Cow<'_, str> {
    shown(path.as_os_str().as_encoded_bytes())
}

/// A path as a message names it: [`path`], in backticks.
pub fn quoted(path: &Path) -> String {
    format!("`{}`", self::path(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_in_a_message_is_shown_in_backticks() {
        assert_eq!(quoted(Path::new("s/a.html")), "`s/a.html`");
        assert_eq!(
            quoted(Path::new("s/a\nb.html")),
            "`\"s/a\\nb.html\"`",
            "in backticks, like any name in a message"
        );
    }
}
