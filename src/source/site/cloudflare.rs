//! What Cloudflare Pages does with a site that no file of its rules says
//! (`--check-links --host cloudflare-pages`; its `_redirects` file is read
//! by [`redirects_file`](super::netlify::redirects_file)).

use std::any::Any;
use std::fmt;
use std::path::Path;

use crate::source::warned::Warned;

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
