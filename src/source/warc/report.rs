//! What a WARC run tells: each warning as it happens, naming the record
//! (its ID, target URI and place), and the tally at the end.

use std::time::Duration;

use rustix::time::{ClockId, clock_gettime};

use super::header::Header;
use super::input::Place;
pub use crate::source::archived::{ArchiveWarning, Named};
use crate::source::summary::{Summary, Tally, plural};

impl Named {
    /// The record whose header is `header`, at `at`.
    pub(crate) fn of(header: &Header, at: Place) -> Named {
        let id_bytes = header
            .raw("WARC-Record-ID")
            .map(|id| id.trim_ascii().to_vec())
            .unwrap_or_default();
        let target_bytes = header.target_uri_bytes().unwrap_or_default().to_vec();
        Named {
            id: String::from_utf8_lossy(&id_bytes).into_owned(),
            target: String::from_utf8_lossy(&target_bytes).into_owned(),
            date: header.date(),
            at,
            id_bytes,
            target_bytes,
        }
    }
}

/// What a run did, for the summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ArchiveTally {
    /// Records read whole.
    pub records: u64,
    /// Pages: HTML responses and resources read (each a document).
    pub pages: u64,
    /// Responses and resources rewritten, of every type.
    pub rewritten: u64,
    /// Of those, stylesheets and XML documents (feeds, sitemaps, SVG).
    pub rewritten_css: u64,
    pub rewritten_xml: u64,
    /// Pages kept as they are because they could not all be rewritten.
    pub failed: u64,
    /// URL values that would change, of the links heard.
    pub changes: u64,
    /// The links heard (when the listener hears links).
    pub links: u64,
    /// Conversion records added.
    pub conversions: u64,
    /// Records replaced by their rewritten version (replace mode).
    pub replaced: u64,
    /// Pages left as they are because the archive holds their conversion
    /// by htmlabs already, right after them (a second run).
    pub converted: u64,
    pub urls: u64,
    pub warnings: u64,
    /// Whether a warning said the run could not do all it was asked.
    pub incomplete: bool,
    /// Raw bytes read.
    pub bytes: u64,
}

impl ArchiveTally {
    /// The line printed at the end: `412 records, 181 HTML rewritten, …`
    /// (and `3 CSS rewritten, 2 XML rewritten, ` when there are any); for
    /// a check (`check`), which writes nothing, what would change:
    /// `412 records, 181 HTML would change, 9012 URLs would change, …`.
    pub fn line(&self, check: bool, elapsed: Duration) -> String {
        format!("{}, {}", self.figures(check), speed(self.bytes, elapsed))
    }

    /// [`line`](Self::line) without its speed: what the run did, which
    /// the Python module's summary says too.
    pub fn figures(&self, check: bool) -> String {
        let verb = if check { "would change" } else { "rewritten" };
        let mut others = String::new();
        for (n, name) in [(self.rewritten_css, "CSS"), (self.rewritten_xml, "XML")] {
            if n > 0 {
                others += &format!("{n} {name} {verb}, ");
            }
        }
        if self.converted > 0 {
            others += &format!("{} already converted, ", self.converted);
        }
        let added = match (check, self.replaced) {
            (true, _) => String::new(),
            (false, 0) => format!(
                "{} conversion{} added, ",
                self.conversions,
                plural(self.conversions)
            ),
            (false, replaced) => format!(
                "{replaced} replaced, {} conversion{} added, ",
                self.conversions,
                plural(self.conversions)
            ),
        };
        format!(
            "{} record{}, {} HTML {verb}, {others}{added}{} URL{} {verb}, {} warning{}",
            self.records,
            plural(self.records),
            self.rewritten - self.rewritten_css - self.rewritten_xml,
            self.urls,
            plural(self.urls),
            self.warnings,
            plural(self.warnings),
        )
    }
}

/// `67.1 MB/s`: bytes read over the time taken.
fn speed(bytes: u64, elapsed: Duration) -> String {
    let seconds = elapsed.as_secs_f64().max(1e-6);
    format!("{:.1} MB/s", bytes as f64 / 1e6 / seconds)
}

impl ArchiveTally {
    /// What the run did, for the run's end: a check's (`check`), that took
    /// `elapsed`; `details`, the lines of `-v`.
    pub(crate) fn summary(self, check: bool, elapsed: Duration, details: Vec<String>) -> Summary {
        let count = |n: u64| n as usize;
        Summary {
            documents: count(self.pages),
            rewritten: count(self.rewritten),
            unchanged: count(self.pages.saturating_sub(self.rewritten + self.failed)),
            failed: count(self.failed),
            urls: count(self.urls),
            warnings: count(self.warnings),
            changes: count(self.changes),
            incomplete: self.incomplete,
            interrupted: false,
            line: Some(self.line(check, elapsed)),
            details,
            tally: Tally::new(self),
        }
    }

    /// The line printed at the end of `--links`, which writes nothing:
    /// `412 records, 181 pages, 21034 links, …`.
    pub fn links_line(&self, elapsed: Duration) -> String {
        format!("{}, {}", self.links_figures(), speed(self.bytes, elapsed))
    }

    /// [`links_line`](Self::links_line) without its speed.
    pub fn links_figures(&self) -> String {
        format!(
            "{} record{}, {} page{}, {} link{}, {} warning{}",
            self.records,
            plural(self.records),
            self.pages,
            plural(self.pages),
            self.links,
            plural(self.links),
            self.warnings,
            plural(self.warnings),
        )
    }
}

/// A clock of CPU time: this thread's, or the process's (every thread's).
pub(crate) fn cpu(clock: ClockId) -> Duration {
    let t = clock_gettime(clock);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The `-v` line of an archive's run with jobs: the share of its CPU time
/// that the thread that reads the archive took (reading, framing and
/// settling the records in order; the jobs inflate and rewrite), and the
/// thread that writes the output. Each is one for all, so by Amdahl's law
/// no number of cores makes the run more than 1 ÷ the larger share faster
/// than one core.
pub(crate) fn reading_share(reading: Duration, writing: Duration, all: Duration) -> String {
    let all = all.as_secs_f64().max(1e-9);
    let (reading, writing) = (reading.as_secs_f64(), writing.as_secs_f64());
    let took = format!(
        "the reading thread took {reading:.3} of the run's {all:.2} CPU s ({:.1}%), the writing thread {writing:.3} ({:.1}%)",
        reading / all * 100.0,
        writing / all * 100.0,
    );
    let share = reading.max(writing) / all;
    match share > 0.0 {
        true => format!(
            "{took}: more cores make it at most {:.0}× as fast as one",
            1.0 / share
        ),
        false => took,
    }
}
