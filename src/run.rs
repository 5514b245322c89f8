//! The one way to run a source: a [`Job`] (which source, on what), the
//! user's [`Request`], a [`Listener`] that hears what happens, and a
//! [`Summary`] of the same kind for every source at the end.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use rustix::time::{ClockId, clock_gettime};

use crate::document::config::Config;
use crate::request::Request;
use crate::source::Job;
use crate::source::listener::{Done, Listener};
use crate::source::output::behind::writing_cpu;
use crate::source::output::{Input, Output, SourceError};
use crate::source::plan::Plan;
use crate::source::site;
use crate::source::{http, page, warc};

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
    /// The source's own figures.
    pub tally: Tally,
}

/// A source's own figures.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Tally {
    Page(Box<page::PageReport>),
    Site(site::SiteTally),
    Warc(warc::ArchiveTally),
}

/// Runs `job` as `request` asks, telling `listener` what happens; a site
/// stops between files once `stop` is set. Its [`Plan`] first: an output
/// that is an input or another output is refused before anything is read
/// or written.
///
/// With `--check` ([`Request::check`]) nothing is written: pages go
/// nowhere, a site's files stay as they are, and the listener hears what
/// would change; a page with no base at all cannot be judged, and is
/// refused.
///
/// ```
/// use std::sync::atomic::AtomicBool;
/// use htmlabs::request::Request;
/// use htmlabs::run;
/// use htmlabs::source::Job;
/// use htmlabs::source::output::{Input, Output};
///
/// let dir = tempfile::tempdir()?;
/// let page = dir.path().join("page.html");
/// std::fs::write(&page, r#"<a href="b/c.html">"#)?;
/// let request = Request {
///     retrieved_from: Some("https://example.com/a/".into()),
///     ..Request::default()
/// };
/// let job = Job::Page {
///     input: Input::File(page.clone()),
///     output: Output::File(page.clone()),
/// };
/// // `()` hears nothing.
/// let summary = run::run(&request, job, &(), &AtomicBool::new(false))?;
/// assert_eq!((summary.rewritten, summary.urls), (1, 1));
/// assert_eq!(
///     std::fs::read_to_string(&page)?,
///     r#"<a href="https://example.com/a/b/c.html">"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(
    request: &Request,
    job: Job,
    listener: &dyn Listener,
    stop: &AtomicBool,
) -> Result<Summary, SourceError> {
    run_planned(request, Plan::new(job, request.check)?, listener, stop)
}

/// [`run`], its plan made already (with the link report in it: what the
/// command line does).
#[doc(hidden)]
pub fn run_planned(
    request: &Request,
    plan: Plan,
    listener: &dyn Listener,
    stop: &AtomicBool,
) -> Result<Summary, SourceError> {
    let refused = |e: crate::request::ConfigError| SourceError::Refused(e.to_string());
    let config = Arc::new(request.config().map_err(refused)?);
    let (job, walked) = plan.into_parts();
    // A check writes nothing.
    let output = |output: Output| {
        if request.check {
            Output::Discard
        } else {
            output
        }
    };
    match job {
        Job::Page { input, output: to } => {
            page_run(request, config, None, input, output(to), listener)
        }
        Job::Http { input, output: to } => {
            let http = Some(request.http());
            page_run(request, config, http, input, output(to), listener)
        }
        Job::Site(site) => {
            let tally = site::run(&site, walked.unwrap_or_default(), &config, listener, stop)?;
            Ok(Summary {
                documents: tally.seen,
                rewritten: tally.rewritten,
                unchanged: tally.unchanged,
                failed: tally.failed,
                urls: tally.urls_rewritten,
                warnings: tally.warnings,
                changes: tally.changes,
                incomplete: tally.failed > 0 || tally.errors > 0,
                interrupted: tally.interrupted,
                line: Some(tally.line(site.check, site.copies())),
                details: Vec::new(),
                tally: Tally::Site(tally),
            })
        }
        Job::Warc { input, output: to } => {
            let options = request.warc().map_err(refused)?;
            let started = Instant::now();
            let before = (
                cpu(ClockId::ThreadCPUTime),
                cpu(ClockId::ProcessCPUTime),
                writing_cpu(),
            );
            let tally = warc::run(&config, &options, input, output(to), listener)?;
            let mut details = Vec::new();
            if options.jobs > 1 {
                details.push(reading_share(
                    cpu(ClockId::ThreadCPUTime) - before.0,
                    writing_cpu() - before.2,
                    cpu(ClockId::ProcessCPUTime) - before.1,
                ));
            }
            let count = |n: u64| n as usize;
            Ok(Summary {
                documents: count(tally.pages),
                rewritten: count(tally.rewritten),
                unchanged: count(tally.pages.saturating_sub(tally.rewritten + tally.failed)),
                failed: count(tally.failed),
                urls: count(tally.urls),
                warnings: count(tally.warnings),
                changes: count(tally.changes),
                incomplete: tally.incomplete,
                interrupted: false,
                line: Some(tally.line(request.check, started.elapsed())),
                details,
                tally: Tally::Warc(tally),
            })
        }
    }
}

/// A clock of CPU time: this thread's, or the process's (every thread's).
fn cpu(clock: ClockId) -> Duration {
    let t = clock_gettime(clock);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The `-v` line of an archive's run with jobs: the share of its CPU time
/// that the thread that reads the archive took (reading, framing and
/// settling the records in order; the jobs inflate and rewrite), and the
/// thread that writes the output. Each is one for all, so by Amdahl's law
/// no number of cores makes the run more than 1 ÷ the larger share faster
/// than one core.
fn reading_share(reading: Duration, writing: Duration, all: Duration) -> String {
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

/// The one page, or the response around it.
fn page_run(
    request: &Request,
    config: Arc<Config>,
    http: Option<http::Options>,
    input: Input,
    output: Output,
    listener: &dyn Listener,
) -> Result<Summary, SourceError> {
    let refused = |e: crate::request::ConfigError| SourceError::Refused(e.to_string());
    let layers = request.layers().map_err(refused)?;
    let name = input.name();
    let kind = http.is_none().then_some(request.kind).flatten();
    let tally = page::run(config, layers, http, kind, input, output, listener)?;
    if request.check && tally.report.has_no_base() {
        // A check that cannot judge does not pass.
        return Err(SourceError::Refused(format!(
            "cannot check {name}: it has no base URL (no `<base href>`, no --retrieved-from), so no link can be judged: give -r URL"
        )));
    }
    let done = tally.done();
    let (rewritten, unchanged, failed, urls) = match done {
        Done::Rewritten { urls } => (1, 0, 0, urls),
        Done::Unchanged => (0, 1, 0, 0),
        Done::Failed => (0, 0, 1, 0),
    };
    Ok(Summary {
        documents: 1,
        rewritten,
        unchanged,
        failed,
        urls,
        warnings: tally.warnings,
        changes: tally.changes,
        incomplete: tally.report.incomplete(),
        interrupted: false,
        line: None,
        details: tally.report.verbose_lines(),
        tally: Tally::Page(Box::new(tally.report)),
    })
}
