//! What the command line says as a run goes: warnings and failures on
//! standard error (under `-q` only those that fail the run), notes with
//! `-v`, above a progress bar when there is one; the check lines and the
//! link report through the library's [`Listing`].

use htmlabs::internal::Served;
use htmlabs::internal::listener::{Document, Done, Listener, Progress, Saved, SourceWarning};
use htmlabs::internal::listing::Listing;
use htmlabs::internal::names;
use htmlabs::{Link, SourceError};

use super::progress::Bar;

pub struct Said {
    pub quiet: bool,
    pub verbose: bool,
    pub bar: Bar,
    /// With `--check` or `--report`.
    pub listing: Option<Listing>,
}

impl Listener for Said {
    fn warning(&self, document: &Document<'_>, warning: &SourceWarning<'_>) {
        // Stopping at the memory limit fails the run: that one is said
        // even under -q; a site's file that stops there fails, and its
        // failure is said instead.
        let file = match document {
            Document::File(path) => Some(path),
            _ => None,
        };
        if self.quiet && (file.is_some() || !warning.stops_rewriting()) {
            return;
        }
        self.bar.say(match file {
            Some(path) => format!("htmlabs: warning: {}: {warning}", names::path(path)),
            None => format!("htmlabs: warning: {warning}"),
        });
    }

    fn failure(&self, _: &Document<'_>, error: &SourceError) {
        self.bar.say(format!("htmlabs: error: {error}"));
    }

    fn note(&self, document: &Document<'_>, note: &str) {
        if let (true, Document::File(path)) = (self.verbose, document) {
            self.bar
                .say(format!("htmlabs: {}: {note}", names::path(path)));
        }
    }

    fn hears_links(&self) -> bool {
        self.listing.is_some()
    }

    fn hears_off_site(&self) -> bool {
        self.listing.as_ref().is_some_and(|l| l.hears_off_site())
    }

    fn link(&self, document: &Document<'_>, link: Link) {
        if let Some(listing) = &self.listing {
            listing.link(document, link);
        }
    }

    fn checked(&self, document: &Document<'_>, link: Link, served: Option<Served>) {
        if let Some(listing) = &self.listing {
            listing.checked(document, link, served);
        }
    }

    fn progress(&self, progress: Progress) {
        self.bar.progress(progress);
    }

    fn done(&self, _: &Document<'_>, _: &Done) {
        self.bar.done();
    }

    /// An archive made a tree: a line for each URL on standard output, its
    /// fields apart by a tab, each shown as every value from the input
    /// is (`saved`, the URL, the file; `redirect`, the URL, the file it
    /// leads to; `not-saved`, the URL, why).
    fn saved(&self, url: &str, saved: &Saved<'_>) {
        use std::io::Write;
        let url = names::shown(url.as_bytes());
        let line = match saved {
            Saved::File(path) => format!("saved\t{url}\t{}", names::path(path)),
            Saved::Redirect(path) => format!("redirect\t{url}\t{}", names::path(path)),
            Saved::Not(why) => format!("not-saved\t{url}\t{why}"),
        };
        // A closed standard output loses the list, not the tree.
        let _ = writeln!(std::io::stdout().lock(), "{line}");
    }
}
