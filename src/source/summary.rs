//! What a run of any source did: the counts every source has, and its own
//! figures ([`Tally`]), which each source makes of its run. Named by
//! [`run`](crate::run), which hands it back.

use std::any::Any;
use std::fmt;
use std::sync::Arc;

/// What a run did, in the counts every source has, and its own.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Summary {
    /// Documents read: the one document, a site's documents (pages,
    /// stylesheets, feeds, sitemaps, SVG), an archive's (responses and
    /// resources of those types).
    pub documents: usize,
    /// Documents written with URL values changed (with `--check`: that
    /// would be).
    pub rewritten: usize,
    /// Documents in which nothing changed.
    pub unchanged: usize,
    /// Documents left as they were, or not all rewritten.
    pub failed: usize,
    /// URL values rewritten (with `--check`: that would be).
    pub urls: usize,
    pub warnings: usize,
    /// Of the links the listener heard, those that would change: what
    /// makes `--check` exit 1.
    pub changes: usize,
    /// The run failed to do all it was asked (exit status 2): a document
    /// failed, a warning stopped its rewriting, or an error was told.
    pub incomplete: bool,
    /// A signal stopped it between documents (a site).
    pub interrupted: bool,
    /// The source's summary line, said unless `-q` (a site's, an
    /// archive's).
    pub line: Option<String>,
    /// The lines of `-v` (the one page's: which layer set the base, the
    /// values by outcome).
    pub details: Vec<String>,
    /// The source's own figures (for the command line and Python).
    #[doc(hidden)]
    pub tally: Tally,
}

/// A source's own figures, asked for by their type: the one page's
/// [`PageReport`](crate::source::page::PageReport), a site's
/// [`SiteTally`](crate::source::site::SiteTally), an archive's
/// [`ArchiveTally`](crate::source::warc::ArchiveTally). A new source's are
/// any type of its own.
///
/// ```
/// use htmlabs::internal::page::PageReport;
/// use htmlabs::internal::warc::ArchiveTally;
/// use htmlabs::run::{Input, Job, Output, Request};
///
/// let job = Job::Page {
///     input: Input::Reader { name: "page".into(), reader: Box::new(&b"<a href=x>"[..]) },
///     output: Output::Discard,
/// };
/// let summary = htmlabs::run::run(&Request::default(), job)?;
/// assert!(summary.tally.get::<PageReport>().is_some());
/// assert!(summary.tally.get::<ArchiveTally>().is_none());
/// # Ok::<(), htmlabs::SourceError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Tally(Arc<dyn Figures>);

/// What a tally may be: anything a run can hand back across threads.
pub(crate) trait Figures: fmt::Debug + Send + Sync + 'static {
    fn as_any(&self) -> &dyn Any;
}

impl<T: fmt::Debug + Send + Sync + 'static> Figures for T {
    fn as_any(&self) -> &dyn Any {
        self
    }
}

impl Tally {
    pub(crate) fn new(figures: impl Figures) -> Self {
        Tally(Arc::new(figures))
    }

    /// The figures, when they are a `T`.
    pub fn get<T: 'static>(&self) -> Option<&T> {
        // The figures, not the `Arc` (itself `Figures`, as any such type is).
        (*self.0).as_any().downcast_ref()
    }
}

/// The `s` of a count's noun in a line said at a run's end: none for one
/// (`1 warning`, `2 warnings`).
pub(crate) fn plural<N: PartialEq + From<u8>>(n: N) -> &'static str {
    if n == N::from(1) { "" } else { "s" }
}
