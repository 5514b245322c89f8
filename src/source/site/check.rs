//! `--check-links`: each link of the site's documents checked against the
//! files the host will serve, as the run hears it, nothing written. A link
//! is its value resolved exactly (its `<base>`, each `srcset` candidate,
//! each `url()` of a style or a stylesheet, as the engines find them); one
//! whose URL is the site's (`--site-url`, or its twins) is found when the
//! host's rules ([`Host`]) reach a file of the tree, else broken; any other
//! is off the site: counted, never fetched. A `<base href>` is no link.

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::document::links::{Link, Outcome};
use crate::source::listener::{Document, Done, Listener, Progress, Saved, SourceWarning};
use crate::source::output::SourceError;
use crate::url::{Host, LocalTree, Served};

/// What a site's link check found, link by link.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct LinkTally {
    /// Links to the site that reach a file.
    pub found: usize,
    /// Links to the site that reach none: each told.
    pub broken: usize,
    /// Links to other sites, or of other schemes (`mailto:`): not checked.
    pub off_site: usize,
    /// Values that name nothing to check: empty, with no base, or not
    /// valid in their document's encoding.
    pub unchecked: usize,
}

impl LinkTally {
    /// Its part of the run's line.
    pub(crate) fn line(&self) -> String {
        let s = |n: usize| if n == 1 { "" } else { "s" };
        format!(
            "{} link{} to the site's files found, {} broken; {} to other sites not checked",
            self.found,
            s(self.found),
            self.broken,
            self.off_site
        )
    }
}

/// The run's listener, hearing each link with what the host serves for
/// it.
pub(crate) struct Checking<'a> {
    listener: &'a dyn Listener,
    tree: LocalTree,
    host: Host,
    found: AtomicUsize,
    broken: AtomicUsize,
    off_site: AtomicUsize,
    unchecked: AtomicUsize,
}

impl<'a> Checking<'a> {
    /// Checks links against `tree` served under `host`'s rules, telling
    /// `listener`.
    pub fn new(listener: &'a dyn Listener, tree: LocalTree, host: Host) -> Self {
        Checking {
            listener,
            tree,
            host,
            found: AtomicUsize::new(0),
            broken: AtomicUsize::new(0),
            off_site: AtomicUsize::new(0),
            unchecked: AtomicUsize::new(0),
        }
    }

    /// What it found.
    pub fn tally(&self) -> LinkTally {
        let n = |count: &AtomicUsize| count.load(Ordering::Relaxed);
        LinkTally {
            found: n(&self.found),
            broken: n(&self.broken),
            off_site: n(&self.off_site),
            unchecked: n(&self.unchecked),
        }
    }

    /// What the host answers `link` with; `None` for a value that names
    /// nothing to check.
    fn served(&self, link: &Link) -> Option<Served> {
        if (link.element.as_str(), link.attribute.as_str()) == ("base", "href") {
            return None;
        }
        match link.outcome {
            Outcome::Empty | Outcome::NoBase | Outcome::Undecodable => None,
            _ => Some(self.tree.served(link.absolute.as_deref()?, self.host)),
        }
    }
}

impl Listener for Checking<'_> {
    fn warning(&self, document: &Document<'_>, warning: &SourceWarning<'_>) {
        self.listener.warning(document, warning);
    }

    fn failure(&self, document: &Document<'_>, error: &SourceError) {
        self.listener.failure(document, error);
    }

    fn note(&self, document: &Document<'_>, note: &str) {
        self.listener.note(document, note);
    }

    fn hears_links(&self) -> bool {
        true
    }

    fn link(&self, document: &Document<'_>, link: &Link) {
        let Some(served) = self.served(link) else {
            self.unchecked.fetch_add(1, Ordering::Relaxed);
            if self.listener.hears_links() {
                self.listener.link(document, link);
            }
            return;
        };
        let count = match served {
            Served::File(_) => &self.found,
            Served::NotFound => &self.broken,
            Served::OffSite => &self.off_site,
        };
        count.fetch_add(1, Ordering::Relaxed);
        if self.listener.hears_links() {
            let mut link = link.clone();
            link.served = Some(Box::new(served));
            self.listener.link(document, &link);
        }
    }

    fn progress(&self, progress: Progress) {
        self.listener.progress(progress);
    }

    fn done(&self, document: &Document<'_>, done: &Done) {
        self.listener.done(document, done);
    }

    fn saved(&self, url: &str, saved: &Saved<'_>) {
        self.listener.saved(url, saved);
    }
}
