//! A warning of any source, as a listener hears it: what a source warns
//! with needs to be [`Warned`] (a line to say, and whether rewriting
//! stopped there), nothing else of the run. Named by
//! [`listener`](crate::source::listener), which hears them.

use std::any::Any;
use std::fmt;

use crate::document::report::Warning as DocumentWarning;

/// A warning of any source, as it is found: the line it says (`Display`,
/// after `htmlabs: warning: `; a site's file's path comes before it) and
/// whether rewriting stopped there. Any type a source warns with, once it
/// is `Warned`; a listener that wants the type itself asks
/// [`get`](SourceWarning::get).
#[derive(Debug, Clone, Copy)]
pub struct SourceWarning<'a>(&'a dyn Warned);

/// What a source warns with: a line to say, and whether rewriting stopped
/// there. A new source's warnings need this and nothing else of the run.
pub(crate) trait Warned: fmt::Display + fmt::Debug + Sync {
    /// Whether rewriting stopped there: the output is complete, but not
    /// all of it is rewritten, and the run fails.
    fn stops_rewriting(&self) -> bool;

    /// Itself, for [`SourceWarning::get`].
    fn as_any(&self) -> &dyn Any;
}

impl<'a> SourceWarning<'a> {
    pub(crate) fn new(warning: &'a dyn Warned) -> Self {
        SourceWarning(warning)
    }

    /// Whether rewriting stopped there: the output is complete, but not
    /// all of it is rewritten, and the run fails.
    pub fn stops_rewriting(&self) -> bool {
        self.0.stops_rewriting()
    }

    /// The warning, when it is a `W` (the page engine's
    /// [`Warning`](crate::document::report::Warning) on a site's file, an
    /// archive's [`ArchiveWarning`](crate::source::archived::ArchiveWarning), …).
    pub fn get<W: 'static>(&self) -> Option<&'a W> {
        self.0.as_any().downcast_ref()
    }
}

impl fmt::Display for SourceWarning<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }
}

/// The page engine's, on a site's file.
impl Warned for DocumentWarning {
    fn stops_rewriting(&self) -> bool {
        DocumentWarning::stops_rewriting(self)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
