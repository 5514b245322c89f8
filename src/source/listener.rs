//! How every source is heard: one [`Listener`], called by the one page,
//! `--http`, a site's workers and an archive's run alike, with what
//! happens to each document as it happens.
//!
//! What it hears, and in what order: each warning as it is found, naming
//! the [`Document`] it concerns; each failure of a document (a site's file
//! left as it was); notes (a symbolic link passed over); each link of each
//! document, in document order and the documents in input order (a site's
//! files in the order of their paths, whatever the workers do; an
//! archive's records in the archive's order); how far the run is
//! ([`Progress`]); and what became of each document ([`Done`]).

use std::any::Any;
use std::fmt;
use std::path::Path;

use crate::document::links::Link;
use crate::source::archived::Named;
use crate::source::output::SourceError;
pub use crate::source::warned::SourceWarning;
pub(crate) use crate::source::warned::Warned;
use crate::url::Served;

/// Hears a run of any source. Every method does nothing unless it is
/// given; a site's workers call it from their threads (hence `Sync`).
///
/// ```
/// use std::sync::Mutex;
/// use htmlabs::internal::listener::{Document, Listener, SourceWarning};
///
/// /// Keeps the warnings, as the command line prints them.
/// #[derive(Default)]
/// struct Warnings(Mutex<Vec<String>>);
///
/// impl Listener for Warnings {
///     fn warning(&self, _: &Document<'_>, warning: &SourceWarning<'_>) {
///         self.0.lock().unwrap().push(warning.to_string());
///     }
/// }
/// ```
pub trait Listener: Sync {
    /// A warning, as it is found.
    fn warning(&self, document: &Document<'_>, warning: &SourceWarning<'_>) {
        let _ = (document, warning);
    }

    /// A document that failed: a site's file left as it was (or a path of
    /// the tree that could not be read or copied); the run goes on.
    fn failure(&self, document: &Document<'_>, error: &SourceError) {
        let _ = (document, error);
    }

    /// Something passed over, for `-v` (a symbolic link not followed).
    fn note(&self, document: &Document<'_>, note: &str) {
        let _ = (document, note);
    }

    /// Whether [`link`](Listener::link) is to be called: a source keeps
    /// no link for a listener that does not hear them.
    fn hears_links(&self) -> bool {
        false
    }

    /// Under a link check, whether it hears the links to other sites (a
    /// link report lists them; broken links' lines do not): for one that
    /// does not, a source need not make them, and only counts them.
    fn hears_off_site(&self) -> bool {
        self.hears_links()
    }

    /// A URL value of a document, in document order, the documents in
    /// input order: handed over, for the listener to keep if it would.
    fn link(&self, document: &Document<'_>, link: Link) {
        let _ = (document, link);
    }

    /// Under `--check-links`, a URL value with what the host serving the
    /// site answers its URL with (`None`: it names nothing to check), in
    /// place of [`link`](Listener::link), which it calls unless given.
    fn checked(&self, document: &Document<'_>, link: Link, served: Option<Served>) {
        let _ = served;
        self.link(document, link);
    }

    /// How far the run is.
    fn progress(&self, progress: Progress) {
        let _ = progress;
    }

    /// What became of a document, once it is done.
    fn done(&self, document: &Document<'_>, done: &Done) {
        let _ = (document, done);
    }

    /// What became of a URL of an archive made a tree (`--out-dir`): the
    /// file it was saved as, the file its redirect leads to, or why it was
    /// not saved.
    fn saved(&self, url: &str, saved: &Saved<'_>) {
        let _ = (url, saved);
    }
}

/// A link check (a site's, an archive's).
pub(crate) trait Checks: Sync {
    /// What `link` leads to, in the document it stands in; `None` for a
    /// value that names nothing to check. On any thread, in any order: a
    /// source may work it out on the document's worker.
    fn served(&self, document: &Document<'_>, link: &Link) -> Option<Served>;

    /// `link` told, with what it leads to, in the documents' order:
    /// counted (and what else is kept in order).
    fn told(&self, link: &Link, served: Option<&Served>);
}

/// The listener of a link check's run: each link it hears checked, and
/// told with what was found to `listener`, which hears all the rest as it
/// comes.
pub(crate) struct Checked<'a, C> {
    pub listener: &'a dyn Listener,
    pub checks: &'a C,
}

impl<C: Checks> Listener for Checked<'_, C> {
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

    fn hears_off_site(&self) -> bool {
        self.listener.hears_off_site()
    }

    fn link(&self, document: &Document<'_>, link: Link) {
        let served = self.checks.served(document, &link);
        self.checked(document, link, served);
    }

    /// A link whose check a source worked out already.
    fn checked(&self, document: &Document<'_>, link: Link, served: Option<Served>) {
        self.checks.told(&link, served.as_ref());
        if self.listener.hears_links() {
            self.listener.checked(document, link, served);
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

/// What became of a URL of an archive made a tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Saved<'a> {
    /// Saved as this file (as a message names it: under the tree).
    File(&'a Path),
    /// A redirect to the file saved here.
    Redirect(&'a Path),
    /// Not saved, and why.
    Not(&'a str),
}

/// A listener that hears nothing.
impl Listener for () {}

/// A file of the site's tree that the run passes over, with a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Passed {
    /// Reached through a symbolic link (`--follow-links`), it lies outside
    /// the site: in place, it is not written.
    Outside,
    /// Not a regular file (a FIFO, a socket, a device): never opened, so
    /// not copied into `--out-dir` (`copy`), nor rewritten in place.
    NotRegular { kind: &'static str, copy: bool },
}

impl fmt::Display for Passed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Passed::Outside => f.write_str(
                "it lies outside the site (reached through a link): not written in place",
            ),
            Passed::NotRegular { kind, copy: true } => {
                write!(f, "not a regular file ({kind}): left out of --out-dir")
            }
            Passed::NotRegular { kind, copy: false } => {
                write!(f, "not a regular file ({kind}): left as it is")
            }
        }
    }
}

/// The document a message is about.
#[derive(Debug, Clone, Copy)]
pub enum Document<'a> {
    /// The one document of a run (its path, or `-` for standard input):
    /// messages need not name it.
    Page(&'a Path),
    /// A file of a site, by its path.
    File(&'a Path),
    /// A record of an archive.
    Record(&'a Named),
    /// No one document: the run's input as a whole (an archive that is
    /// malformed from some place on).
    Run,
}

/// A site's: a file of its tree passed over.
impl Warned for Passed {
    fn stops_rewriting(&self) -> bool {
        false
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// How far a run is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A site's tree is walked: this many documents are to be done.
    Found(usize),
    /// An archive is read this far: raw bytes, and records read whole.
    /// Said after each record, from the thread that reads.
    Read { bytes: u64, records: u64 },
}

/// What became of a document (with `--check`, what would).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Done {
    /// Written with its URL values changed, this many.
    Rewritten { urls: usize },
    /// Nothing in it changed.
    Unchanged,
    /// Left as it was, or not all of it rewritten: the run fails.
    Failed,
}
