//! The second source: a static site's whole tree, the last step of a
//! Hugo, Jekyll or Eleventy build or a `wget --mirror`. Every `.html`,
//! `.htm` and `.xhtml` file is a page, every `.css` file a stylesheet, and
//! every `.xml`, `.rss`, `.atom`, `.feed` and `.svg` file whose root is a
//! feed's, a sitemap's or SVG's an XML document (any other is left as it
//! is, and counted); each is a document whose retrieval URL (§3.3) is the
//! one a server gives it, rewritten in parallel, in place or into a copy of
//! the tree; each staged and put in its place whole, through no link, so
//! that a failure or an interruption leaves every file old or new and
//! nothing is written outside the tree.
//!
//! The way through: `tree` (the walk, done once by the plan) → `pool` (each
//! file on the pool with its share of the run's memory, what is heard of it
//! passed on in the walk's order, the tally) → `file` (one file: read, its
//! type decided, rewritten, staged); `url` gives each file's retrieval URL.

mod check;
mod cloudflare;
mod file;
mod gitlab;
mod netlify;
mod pool;
mod tree;
mod url;

use std::fs;
use std::path::{Path, PathBuf};

use crate::source::output::{SourceError, lowercase, quoted};
use crate::url::{Host, Layers, LocalTree, Missing, Standard};
pub use check::LinkTally;
pub use pool::SiteTally;
pub(crate) use pool::run;
pub use tree::Entry;
pub(crate) use tree::{Met, Walked, walk};
pub use url::retrieval_url;

/// What the retrieval URLs of a site's files are said to come from.
const FROM: &str = "--site-url and the file's path";

/// A site to rewrite, checked: made by
/// [`Request::site`](crate::request::Request::site).
#[derive(Debug, Clone)]
pub struct Site {
    dir: PathBuf,
    /// The site's URL, ending with `/`.
    url: String,
    out_dir: Option<PathBuf>,
    /// `a/index.html` is served at `a/`.
    pub(crate) pretty_urls: bool,
    /// Follow symbolic links (files outside the root are still never
    /// written).
    pub(crate) follow_links: bool,
    /// Change nothing: only list what would change.
    pub(crate) check: bool,
    /// Worker threads ([`Request::jobs`](crate::request::Request::jobs)).
    pub(crate) jobs: usize,
    /// Each file's bytes on the disk before its rename (fsync).
    pub(crate) fsync: bool,
    /// `--relative`: links to the site's files made relative references
    /// from each page's and stylesheet's own file, for `file:`.
    pub(crate) relative: bool,
    /// `--missing`: under `--relative`, what becomes of a link to a page
    /// the tree lacks.
    pub(crate) missing: Missing,
    /// `--check-links`: change nothing, check each link to the site
    /// against the files this host serves.
    pub(crate) check_links: Option<Host>,
    /// Not `--site-url-only`: the URL's twins (the other scheme's, the
    /// `www.` name's) are the site's too.
    pub(crate) twins: bool,
    excludes: Vec<String>,
    standard: Standard,
}

impl Site {
    /// The site in `dir`, served at `url` (absolute, without a query or a
    /// fragment), rewritten in place, or into `out_dir` (which the run's
    /// plan, `source::plan`, refuses where it overlaps `dir`); files matching an exclude (a `.gitignore` glob) are left
    /// out. Refused with a one-line message before anything is read.
    pub(crate) fn new(
        dir: &Path,
        url: &str,
        standard: Standard,
        out_dir: Option<&Path>,
        excludes: &[String],
    ) -> Result<Site, SourceError> {
        let refused = |s: String| Err(SourceError::Refused(s));
        match fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return refused(format!(
                    "--site wants a directory: {} is not one",
                    quoted(dir)
                ));
            }
            Err(e) => {
                return refused(format!(
                    "--site: cannot open {}: {}",
                    quoted(dir),
                    lowercase(&e)
                ));
            }
        }
        Layers::default()
            .with_retrieval(standard, url, "--site-url")
            .map_err(|e| SourceError::Refused(e.to_string()))?;
        if url.contains(['?', '#']) {
            return refused(format!(
                "--site-url must not hold a query or a fragment: `{url}`"
            ));
        }
        tree::overrides(dir, excludes)?;
        let mut url = url.to_owned();
        if !url.ends_with('/') {
            url.push('/');
        }
        Ok(Site {
            dir: dir.to_owned(),
            url,
            out_dir: out_dir.map(Path::to_owned),
            pretty_urls: true,
            follow_links: false,
            check: false,
            jobs: 1,
            fsync: false,
            relative: false,
            missing: Missing::default(),
            check_links: None,
            twins: true,
            excludes: excludes.to_vec(),
            standard,
        })
    }

    /// Whether it is rewritten into a copy (`--out-dir`), not in place.
    pub(crate) fn copies(&self) -> bool {
        self.out_dir.is_some()
    }

    /// Its directory, as the user named it.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// The copy's directory (`--out-dir`), as the user named it.
    pub(crate) fn out_dir(&self) -> Option<&Path> {
        self.out_dir.as_deref()
    }

    /// The URL a file of the site (by its path under the root) is served
    /// at. A name holding `?` is the page a mirror saved for a URL's query
    /// (no generator names a file so, and Windows cannot), at that URL
    /// (`page.php?id=1.html`, not `page.php%3Fid=1.html`): a reference in
    /// it that changes only the query (`?id=2`) is read as on the site, in
    /// the absolute mode as in `--relative`.
    pub(crate) fn url_of(&self, relative: &Path) -> String {
        url::with_saved_query(retrieval_url(&self.url, relative, self.pretty_urls))
    }

    /// The tree of `entries` (every file the walk found) and of the files
    /// it left out but which are there (`excluded`), for `--relative`,
    /// `--missing` and `--check-links`.
    pub(crate) fn local_tree(&self, entries: &[Entry], excluded: &[PathBuf]) -> LocalTree {
        let paths = entries
            .iter()
            .map(|e| url::path_bytes(&e.relative))
            .chain(excluded.iter().map(|path| url::path_bytes(path)));
        let tree = LocalTree::new(&self.url, self.standard, paths).with_missing(self.missing);
        match self.twins {
            true => tree,
            false => tree.without_twins(),
        }
    }
}
