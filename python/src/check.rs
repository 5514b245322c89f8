//! `check_links`: a site's links checked against the files its host will
//! serve (`htmlabs --site DIR --check-links`), or an archive's against its
//! captures (`htmlabs --warc ARCHIVE --check-links`), one `dict` a link as
//! the run's `--report` gives it, each with `status` and `broken`; the
//! figures at the end.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use htmlabs::internal::site::SiteTally;
use htmlabs::internal::warc::CaptureTally;
use htmlabs::run::{Host, Job, Summary};

use crate::links::Links;
use crate::{error, flags, source_error};

/// What `check_links` found, once every link has been given: the command
/// line's figures. Those of the other kind of source are `None`.
#[pyclass(name = "CheckSummary", module = "htmlabs", frozen, get_all)]
pub struct CheckSummary {
    /// `site` or `archive`.
    source: &'static str,
    /// Documents read: a site's pages, stylesheets, feeds and SVG files;
    /// an archive's pages.
    documents: u64,
    /// Links that lead nowhere, or to an error: what makes the command
    /// line exit 1.
    broken: u64,
    /// Values with nothing to check: empty, with no base, or not valid in
    /// their document's encoding (and, of an archive, of other schemes).
    unchecked: u64,
    /// A site's: links to its files that reach one (and the part their
    /// fragment names); links to other sites, counted, never fetched.
    found: Option<u64>,
    off_site: Option<u64>,
    /// A site's: links the host answers with a service of its own
    /// (Netlify's functions), not checked.
    service: Option<u64>,
    /// An archive's: links to a capture, to a redirect whose chain ends at
    /// one, to an error captured (4xx, 5xx), to nothing captured.
    captured: Option<u64>,
    redirected: Option<u64>,
    failed: Option<u64>,
    not_captured: Option<u64>,
    /// An archive's, with `seeds=True`: each URL not captured, once, in
    /// the order the links came (a patch crawl's seed list).
    seeds: Vec<String>,
    /// The warnings, as the command line prints them.
    warnings: Vec<String>,
    /// Whether the run could not do all it was asked (the command line's
    /// exit status 2): a file failed, a warning stopped a rewriting.
    incomplete: bool,
    /// The command line's summary line.
    line: String,
}

#[pymethods]
impl CheckSummary {
    fn __repr__(&self) -> String {
        format!("<htmlabs.CheckSummary: {}>", self.line)
    }
}

/// A site's check's figures.
fn site_summary(py: Python<'_>, summary: Summary, warnings: Vec<String>) -> PyResult<Py<PyAny>> {
    let tally = summary.tally.get::<SiteTally>();
    let Some((tally, links)) = tally.and_then(|t| Some((t, t.links.as_ref()?))) else {
        let why = "a site's check gave no check's figures";
        return Err(error(py, "Error", why.to_owned()));
    };
    let n = |n: usize| n as u64;
    let summary = CheckSummary {
        source: "site",
        documents: n(tally.seen),
        broken: n(links.broken),
        unchecked: n(links.unchecked),
        found: Some(n(links.found)),
        off_site: Some(n(links.off_site)),
        service: Some(n(links.service)),
        captured: None,
        redirected: None,
        failed: None,
        not_captured: None,
        seeds: Vec::new(),
        warnings,
        incomplete: summary.incomplete,
        line: summary.line.unwrap_or_default(),
    };
    Ok(Py::new(py, summary)?.into_any())
}

/// An archive's check's figures.
fn archive_summary(py: Python<'_>, summary: Summary, warnings: Vec<String>) -> PyResult<Py<PyAny>> {
    let Some(tally) = summary.tally.get::<CaptureTally>() else {
        let why = "an archive's check gave no check's figures";
        return Err(error(py, "Error", why.to_owned()));
    };
    let n = |n: usize| n as u64;
    let summary = CheckSummary {
        source: "archive",
        documents: tally.archive.pages,
        broken: n(tally.broken()),
        unchecked: n(tally.unchecked),
        found: None,
        off_site: None,
        service: None,
        captured: Some(n(tally.captured)),
        redirected: Some(n(tally.redirected)),
        failed: Some(n(tally.failed)),
        not_captured: Some(n(tally.not_captured)),
        seeds: tally.seeds.clone(),
        warnings,
        incomplete: summary.incomplete,
        line: summary.line.unwrap_or_default(),
    };
    Ok(Py::new(py, summary)?.into_any())
}

/// The links of a site (`src` a directory) checked against the files its
/// host serves, or of an archive (`src` a WARC file) against its
/// captures, as `htmlabs --check-links` checks them.
#[pyfunction]
#[pyo3(signature = (src, site_url=None, *, host=None, site_url_only=false,
                    follow_links=false, exclude=Vec::new(), seeds=false, jobs=None,
                    **options))]
#[allow(clippy::too_many_arguments)]
pub fn check_links(
    py: Python<'_>,
    src: PathBuf,
    site_url: Option<String>,
    host: Option<String>,
    site_url_only: bool,
    follow_links: bool,
    exclude: Vec<String>,
    seeds: bool,
    jobs: Option<usize>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Links> {
    let config_error = |message: String| error(py, "ConfigError", message);
    let mut request = flags(None, options)?;
    request.jobs = jobs;
    request.config().map_err(|e| config_error(e.to_string()))?;
    // The jobs in their range, as for an archive's run.
    request.warc().map_err(|e| config_error(e.to_string()))?;
    let stop = Arc::new(AtomicBool::new(false));
    if !src.is_dir() {
        // An archive: what only a site takes is refused, not ignored.
        let given = [
            ("site_url", site_url.is_some()),
            ("host", host.is_some()),
            ("site_url_only", site_url_only),
            ("follow_links", follow_links),
            ("exclude", !exclude.is_empty()),
        ];
        if let Some((name, _)) = given.iter().find(|(_, given)| *given) {
            return Err(config_error(format!(
                "`{name}` is for a site's check (src a directory), and `{}` is not one",
                src.display()
            )));
        }
        request.seeds = seeds;
        let job = Job::ArchiveLinks { archive: src };
        return Links::start(request, job, stop, true, archive_summary);
    }
    if seeds {
        return Err(config_error(
            "`seeds` is for an archive's check (src a WARC file), not a site's".to_owned(),
        ));
    }
    let Some(url) = site_url else {
        return Err(config_error(
            "a site's check needs `site_url`: the URL the site's root is served at".to_owned(),
        ));
    };
    let host = match host.as_deref() {
        None => Host::default(),
        Some(name) => Host::from_name(name).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown host: `{name}` (plain, github-pages, netlify, cloudflare-pages or gitlab-pages)"
            ))
        })?,
    };
    let site = &mut request.site;
    site.url = Some(url);
    site.check_links = Some(host);
    site.twins = !site_url_only;
    site.follow_links = follow_links;
    site.exclude = exclude;
    let site = request.site(&src).map_err(|e| source_error(py, &e))?;
    Links::start(request, Job::Site(site), stop, true, site_summary)
}
