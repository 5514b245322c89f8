//! `--check-links`: each link of the site's documents checked against the
//! files the host will serve, as the run hears it, nothing written. A link
//! is its value resolved exactly (its `<base>`, each `srcset` candidate,
//! each `url()` of a style or a stylesheet, as the engines find them); one
//! whose URL is the site's (`--site-url`, or its twins) is found when the
//! host's rules ([`Host`]) reach a file of the tree, else broken; any other
//! is off the site: counted, never fetched. A `<base href>` or an
//! `xml:base` is no link, nor is the origin a `<link rel=preconnect>` names
//! (nothing is fetched).
//! A link to a page at a fragment is broken too where the page has no
//! part the fragment names (`html::anchors`): a page's links to parts of
//! itself are checked with the anchors the page engine found as it read
//! the page; another page's anchors are read once, when a link first
//! needs them, and kept while the run's memory has room.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use crate::document::links::Link;
use crate::document::memory::{Drawn, Memory};
use crate::html::anchors::{anchored, anchors, indicated_anywhere};
use crate::source::listener::{Checks, Document};
use crate::source::summary::plural;
use crate::url::{Host, LocalTree, Redirects, Served};
use crate::xml::ids::ids;

use super::Site;

/// What a site's link check found, link by link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LinkTally {
    /// Links to the site that reach a file.
    pub found: usize,
    /// Links to the site that reach none, or a page without the part its
    /// fragment names: each told.
    pub broken: usize,
    /// Links to other sites, or of other schemes (`mailto:`): not checked.
    pub off_site: usize,
    /// Links the host answers with a service of its own (Netlify's
    /// functions): not checked.
    pub service: usize,
    /// Values that name nothing to check: empty, with no base, or not
    /// valid in their document's encoding.
    pub unchecked: usize,
}

impl LinkTally {
    /// Its part of the run's line.
    pub(crate) fn line(&self) -> String {
        // The links checked, then of them, those found and those broken
        // (as an archive's check says it).
        let checked = self.found + self.broken;
        let mut line = format!(
            "{checked} link{} to the site's files checked: {} found, {} broken; {} to other sites not checked",
            plural(checked),
            self.found,
            self.broken,
            self.off_site
        );
        if self.service > 0 {
            line += &format!("; {} to the host's services not checked", self.service);
        }
        line
    }
}

/// A page's anchors, and what they hold of the run's memory.
struct Anchors {
    names: HashSet<String>,
    _drawn: Drawn,
}

/// A page's anchors once read (`None`: it could not be read, or held).
type Read = Arc<OnceLock<Option<Anchors>>>;

/// A site's link check: each link, what the host serves for it.
pub(crate) struct SiteCheck<'a> {
    tree: Arc<LocalTree>,
    host: Host,
    /// Under `--host netlify`, the site's `_redirects` rules.
    redirects: Redirects,
    site: &'a Site,
    /// `--encoding`, which a page's anchors are read in as it is rewritten.
    encoding: Option<&'static encoding_rs::Encoding>,
    memory: Memory,
    /// Each page's anchors asked for so far, with what they hold of the
    /// run's memory (`None`: the page could not be read, or held): each
    /// read once, outside the table's lock, by the first worker to ask
    /// (others asking for the same page wait for it, no one else).
    anchors: Mutex<HashMap<Vec<u8>, Read>>,
    found: AtomicUsize,
    broken: AtomicUsize,
    off_site: AtomicUsize,
    service: AtomicUsize,
    unchecked: AtomicUsize,
}

impl<'a> SiteCheck<'a> {
    /// Checks links against `tree` served under `host`'s rules, with
    /// `redirects` (Netlify's).
    pub fn new(
        site: &'a Site,
        tree: LocalTree,
        (host, redirects): (Host, Redirects),
        encoding: Option<&'static encoding_rs::Encoding>,
        memory: Memory,
    ) -> Self {
        SiteCheck {
            tree: Arc::new(tree),
            host,
            redirects,
            site,
            encoding,
            memory,
            anchors: Mutex::default(),
            found: AtomicUsize::new(0),
            broken: AtomicUsize::new(0),
            off_site: AtomicUsize::new(0),
            service: AtomicUsize::new(0),
            unchecked: AtomicUsize::new(0),
        }
    }

    /// Whether a page's link to `absolute` is to be made and checked, for
    /// a run that tells no link to another site (no link report): the
    /// others are counted by [`passed`](Self::passed), not made.
    pub(crate) fn sieve(&self) -> impl FnMut(&str) -> bool + 'static {
        let tree = Arc::clone(&self.tree);
        move |absolute| !tree.off_site(absolute)
    }

    /// `n` links to other sites, which a page's sieve let pass.
    pub(crate) fn passed(&self, n: usize) {
        self.off_site.fetch_add(n, Ordering::Relaxed);
    }

    /// The host's redirect rules, as it read them.
    pub(crate) fn redirects(&self) -> &Redirects {
        &self.redirects
    }

    /// What it found.
    pub fn tally(&self) -> LinkTally {
        let n = |count: &AtomicUsize| count.load(Ordering::Relaxed);
        LinkTally {
            found: n(&self.found),
            broken: n(&self.broken),
            off_site: n(&self.off_site),
            service: n(&self.service),
            unchecked: n(&self.unchecked),
        }
    }

    /// The page at `path` (under the site's root) as its links are
    /// checked: its own `anchors`, when its read found them all, drawn
    /// from the run's memory while they are held (not kept: a link from
    /// another page reads them again).
    pub(crate) fn page<'p>(
        &'p self,
        path: &'p Path,
        anchors: Option<HashSet<String>>,
    ) -> OwnPage<'p> {
        let own = anchors.and_then(|names| {
            let size: usize = names.iter().map(|a| a.len() + 32).sum();
            let drawn = self.memory.draw(size).ok()?;
            Some(Anchors {
                names,
                _drawn: drawn,
            })
        });
        OwnPage {
            check: self,
            path: path.as_os_str().as_bytes(),
            own,
        }
    }

    /// What the host answers `link` with; `None` for a value that names
    /// nothing to check. `own`: the page it stands in, and its anchors.
    fn reached(&self, link: &Link, own: Option<(&[u8], &Anchors)>) -> Option<Served> {
        let url = link.reached()?;
        let served = self.tree.served(url, self.host, &self.redirects);
        let (Served::File(path), Some((_, fragment))) = (&served, url.split_once('#')) else {
            return Some(served);
        };
        match self.indicates(path, fragment, own) {
            Some(false) => Some(Served::NoFragment(path.clone())),
            _ => Some(served),
        }
    }

    /// Whether the page at `path` (under the site's root) has the part
    /// `fragment` names, or the SVG file an element of that `id`; `None`
    /// when that is not checked: neither (an image, a PDF), or its anchors
    /// could not be read or held.
    fn indicates(
        &self,
        path: &[u8],
        fragment: &str,
        own: Option<(&[u8], &Anchors)>,
    ) -> Option<bool> {
        if indicated_anywhere(fragment) {
            return Some(true);
        }
        let page = Path::new(OsStr::from_bytes(path));
        let extension = page.extension()?.as_bytes();
        let is = |name: &str| extension.eq_ignore_ascii_case(name.as_bytes());
        let svg = match () {
            _ if is("html") || is("htm") || is("xhtml") => false,
            _ if is("svg") => true,
            _ => return None,
        };
        if let Some((_, anchors)) = own.filter(|(own, _)| *own == path) {
            return Some(anchored(&anchors.names, fragment));
        }
        let known = {
            let mut known = self.anchors.lock().unwrap_or_else(|e| e.into_inner());
            // Its path copied for the table only the first time.
            match known.get(path) {
                Some(read) => Arc::clone(read),
                None => Arc::clone(known.entry(path.to_vec()).or_default()),
            }
        };
        let anchors = known.get_or_init(|| self.read(page, svg)).as_ref()?;
        Some(anchored(&anchors.names, fragment))
    }

    /// The anchors of the page at `page` (of an SVG file, `svg`: its
    /// elements' ids), read whole (drawn from the run's memory while it is
    /// read, and they while they are kept).
    fn read(&self, page: &Path, svg: bool) -> Option<Anchors> {
        let file = self.site.dir().join(page);
        let length = std::fs::metadata(&file).ok()?.len();
        let mut drawn = self.memory.draw(usize::try_from(length).ok()?).ok()?;
        let bytes = std::fs::read(&file).ok()?;
        let limit = (self.memory.total() / 64).max(1 << 16);
        let anchors = match svg {
            true => ids(&bytes, limit)?,
            // Its URL lends its top-level domain to the encoding's guess.
            false => anchors(&bytes, self.encoding, &self.site.url_of(page), limit)?,
        };
        drop(bytes);
        let size: usize = anchors.iter().map(|a| a.len() + 32).sum();
        drawn.shrink(drawn.bytes());
        drawn.grow(size).ok()?;
        Some(Anchors {
            names: anchors,
            _drawn: drawn,
        })
    }
}

impl Checks for SiteCheck<'_> {
    fn served(&self, _: &Document<'_>, link: &Link) -> Option<Served> {
        self.reached(link, None)
    }

    fn told(&self, _: &Link, served: Option<&Served>) {
        let count = match served {
            None => &self.unchecked,
            Some(Served::OffSite) => &self.off_site,
            Some(Served::Service) => &self.service,
            Some(served) if served.broken() => &self.broken,
            Some(_) => &self.found,
        };
        count.fetch_add(1, Ordering::Relaxed);
    }
}

/// A page's own links as they are checked (made by [`SiteCheck::page`]):
/// a link to a part of the page itself is checked with the anchors the
/// page's own read found.
pub(crate) struct OwnPage<'p> {
    check: &'p SiteCheck<'p>,
    /// The page's path under the site's root.
    path: &'p [u8],
    own: Option<Anchors>,
}

impl Checks for OwnPage<'_> {
    fn served(&self, _: &Document<'_>, link: &Link) -> Option<Served> {
        let own = self.own.as_ref().map(|anchors| (self.path, anchors));
        self.check.reached(link, own)
    }

    fn told(&self, link: &Link, served: Option<&Served>) {
        self.check.told(link, served);
    }
}
