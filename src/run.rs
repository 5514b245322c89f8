//! Runs of the sources, the way the command line runs them: what the
//! user asks for by the command line's names ([`Request`]), which source
//! on what ([`Job`]), and a [`Summary`] of the same kind for every
//! source at the end. Each run is planned first: an output that is an
//! input or another output is refused before anything is read or
//! written.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::document::config::Config;
pub use crate::request::{ConfigError, Request, SiteRequest};
pub use crate::source::Job;
use crate::source::listener::Listener;
use crate::source::output::SourceError;
pub use crate::source::output::{Input, Output};
use crate::source::plan::Plan;
pub use crate::source::site::Site;
pub use crate::source::summary::Summary;
pub use crate::source::warc::Mode as WarcMode;
use crate::source::{http, page, site, warc};
pub use crate::url::{Host, Missing};

/// Runs `job` as `request` asks, and sums it up; what it finds on the
/// way (warnings, each document's fate) is counted in the [`Summary`]
/// and said in its [`line`](Summary::line) and
/// [`details`](Summary::details).
///
/// With `--check` ([`Request::check`]) nothing is written: pages go
/// nowhere, a site's files stay as they are, and the summary counts what
/// would change; a page with no base at all cannot be judged, and is
/// refused.
///
/// ```
/// use htmlabs::run::{Input, Job, Output, Request, run};
///
/// let dir = tempfile::tempdir()?;
/// let page = dir.path().join("page.html");
/// std::fs::write(&page, r#"<a href="b/c.html">"#)?;
/// let mut request = Request::default();
/// request.retrieved_from = Some("https://example.com/a/".into());
/// let job = Job::Page {
///     input: Input::File(page.clone()),
///     output: Output::File(page.clone()),
/// };
/// let summary = run(&request, job)?;
/// assert_eq!((summary.rewritten, summary.urls), (1, 1));
/// assert_eq!(
///     std::fs::read_to_string(&page)?,
///     r#"<a href="https://example.com/a/b/c.html">"#
/// );
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(request: &Request, job: Job) -> Result<Summary, SourceError> {
    run_heard(request, job, &(), &Arc::new(AtomicBool::new(false)))
}

/// [`run`], telling `listener` what happens (warnings, failures, each
/// link, progress, what became of each document); a site stops between
/// files once `stop` is set. For the command line and Python
/// (`htmlabs::internal`).
#[doc(hidden)]
pub fn run_heard(
    request: &Request,
    job: Job,
    listener: &dyn Listener,
    stop: &Arc<AtomicBool>,
) -> Result<Summary, SourceError> {
    run_planned(request, Plan::new(job, request.check)?, listener, stop)
}

/// [`run_heard`], its plan made already (with the link report in it:
/// what the command line does).
#[doc(hidden)]
pub fn run_planned(
    request: &Request,
    plan: Plan,
    listener: &dyn Listener,
    stop: &Arc<AtomicBool>,
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
            Ok(tally.summary(site.check, site.copies()))
        }
        Job::Warc { input, output: to } => {
            let options = request.warc().map_err(refused)?;
            warc::run(&config, &options, input, output(to), listener, None)
        }
        Job::ArchiveLinks { archive } => {
            let mut options = request.warc().map_err(refused)?;
            // A listing of links: no page's digest is needed.
            options.page_digests = false;
            warc::check::run(&config, &options, &archive, request.seeds, listener, stop)
        }
        Job::Tree { archive, out_dir } => {
            let options = request.tree().map_err(refused)?;
            warc::tree::run(&config, options, &archive, &out_dir, listener)
        }
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
    tally.summary(request.check, &name)
}
