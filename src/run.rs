//! The one way to run a source: a [`Job`] (which source, on what), the
//! user's [`Request`], a [`Listener`] that hears what happens, and a
//! [`Summary`] of the same kind for every source at the end.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::document::config::Config;
use crate::request::Request;
use crate::source::Job;
use crate::source::listener::Listener;
use crate::source::output::{Input, Output, SourceError};
use crate::source::plan::Plan;
pub use crate::source::summary::{Summary, Tally};
use crate::source::{http, page, site, warc};

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
            Ok(tally.summary(site.check, site.copies()))
        }
        Job::Warc { input, output: to } => {
            let options = request.warc().map_err(refused)?;
            warc::run(&config, &options, input, output(to), listener, None)
        }
        Job::ArchiveLinks { archive } => {
            let options = request.warc().map_err(refused)?;
            warc::check::run(&config, &options, &archive, request.seeds, listener)
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
