//! What is said of a site whose `_redirects` GitLab Pages reads no rule
//! of (`--check-links --host gitlab-pages`): its links are checked as GitLab
//! serves them, with no redirect, and this says why.

use std::any::Any;
use std::fmt;

use crate::shown::shown;
use crate::source::warned::Warned;
use crate::url::GitlabUnread;

/// Why GitLab Pages reads no rule of the site's `_redirects`.
#[derive(Debug)]
pub(crate) struct Unread(pub GitlabUnread);

impl fmt::Display for Unread {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            GitlabUnread::TooLarge(size, most) => write!(
                f,
                "GitLab Pages reads no rule of _redirects: it is {size} bytes, over the {most} it reads"
            ),
            GitlabUnread::Line(n, line) => write!(
                f,
                "GitLab Pages reads no rule of _redirects: its parser stops at its line {n}, `{}`, which is not `FROM TO [STATUS]`",
                shown(line.as_bytes())
            ),
        }
    }
}

impl Warned for Unread {
    fn stops_rewriting(&self) -> bool {
        false
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
