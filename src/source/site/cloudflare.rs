//! The redirect rules Cloudflare Pages follows for a site (`--check-links
//! --host cloudflare-pages`): its `_redirects` file, in the directory it
//! serves, as Cloudflare reads it (no other file holds its rules). What
//! the rules hold is drawn from the run's memory.

use std::any::Any;
use std::fmt;
use std::path::Path;

use super::netlify::read;
use crate::document::memory::{Drawn, Memory};
use crate::source::output::SourceError;
use crate::source::warned::Warned;
use crate::url::Redirects;

/// The rules for the site served from `dir`, and what they hold of
/// `memory`.
pub(crate) fn redirects(dir: &Path, memory: &Memory) -> Result<(Redirects, Drawn), SourceError> {
    let mut drawn = memory.drawn();
    let rules = match read(&dir.join("_redirects"), &mut drawn, memory)? {
        // What is not text is no rule.
        Some(text) => Redirects::parse_cloudflare(&String::from_utf8_lossy(&text)),
        None => Redirects::default(),
    };
    Ok((rules, drawn))
}

/// What is said of a site with no `404.html` at its root, which Cloudflare
/// Pages serves as a single-page application's: a path no file serves is
/// answered with the site's `index.html` and 200. Its links to such paths
/// are reported broken all the same (they reach no file of their own):
/// this says what a visitor gets instead.
#[derive(Debug)]
pub(crate) struct SinglePage;

impl SinglePage {
    /// Whether the site served from `dir` is one.
    pub(crate) fn of(dir: &Path) -> bool {
        !dir.join("404.html").is_file()
    }
}

impl fmt::Display for SinglePage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "the site has no 404.html: Cloudflare Pages answers a path no file serves with the site's index.html (status 200, as for a single-page application), so a link reported not found shows the home page",
        )
    }
}

impl Warned for SinglePage {
    fn stops_rewriting(&self) -> bool {
        false
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
