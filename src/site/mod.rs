//! The second source: a static site's whole tree, the last step of a
//! Hugo, Jekyll or Eleventy build or a `wget --mirror`. Every `.html`,
//! `.htm` and `.xhtml` file is a document whose retrieval URL (§3.3) is the
//! one a server gives it, rewritten in parallel, in place or into a copy of
//! the tree; each staged and put in its place whole, through no link, so
//! that a failure or an interruption leaves every file old or new and
//! nothing is written outside the tree.

mod overlap;
mod tree;
mod url;

use std::cell::RefCell;
use std::fs::{self, File, Metadata};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::dir::Dir;
use crate::files::{SourceError, lowercase, quoted};
use crate::html::buffers::CHUNK;
use crate::html::config::Config;
use crate::html::report::Warning;
use crate::html::rewriter::Rewriter;
use crate::html::xhtml;
use crate::listing::{Listing, file_place};
use crate::names;
use crate::staging::Staging;
use crate::url::{Layers, Standard};
use overlap::Overlap;
pub use tree::Entry;
pub use url::retrieval_url;

/// What the retrieval URLs of a site's files are said to come from.
const FROM: &str = "--site-url and the file's path";

/// A site to rewrite, checked: see [`Site::new`].
#[derive(Debug, Clone)]
pub struct Site {
    dir: PathBuf,
    /// The site's URL, ending with `/`.
    url: String,
    out_dir: Option<PathBuf>,
    /// `a/index.html` is served at `a/`.
    pub pretty_urls: bool,
    /// Follow symbolic links (files outside the root are still never
    /// written).
    pub follow_links: bool,
    /// Change nothing: only list what would change.
    pub check: bool,
    /// Worker threads; all cores when `None`.
    pub jobs: Option<usize>,
    /// Each file's bytes on the disk before its rename (fsync).
    pub fsync: bool,
    excludes: Vec<String>,
}

impl Site {
    /// The site in `dir`, served at `url` (absolute, without a query or a
    /// fragment), rewritten in place, or into `out_dir` (which must not
    /// overlap `dir`, by where either really leads); files matching an
    /// exclude (a `.gitignore` glob) are left out. Refused with a one-line
    /// message before anything is read.
    pub fn new(
        dir: &Path,
        url: &str,
        standard: Standard,
        out_dir: Option<&Path>,
        excludes: &[String],
    ) -> Result<Site, SourceError> {
        let refused = |s: String| Err(SourceError::Refused(s));
        match fs::metadata(dir) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return refused(format!(
                    "--site wants a directory: {} is not one",
                    quoted(dir)
                ));
            }
            Err(e) => {
                return refused(format!(
                    "--site: cannot open {}: {}",
                    quoted(dir),
                    lowercase(&e)
                ));
            }
        }
        Layers::default()
            .with_retrieval(standard, url, "--site-url")
            .map_err(|e| SourceError::Refused(e.to_string()))?;
        if url.contains(['?', '#']) {
            return refused(format!(
                "--site-url must not hold a query or a fragment: `{url}`"
            ));
        }
        if let Some(out) = out_dir {
            let found = overlap::overlap(dir, out);
            let (out, dir) = (quoted(out), quoted(dir));
            let why = match found {
                Ok(None) => None,
                Ok(Some(Overlap::OutInside)) => Some(format!(
                    " is inside the site {dir}: the copy would be rewritten again"
                )),
                Ok(Some(Overlap::SiteInside)) => Some(format!(
                    " holds the site {dir}: the copy would be written over it"
                )),
                Ok(Some(Overlap::Same)) => Some(format!(
                    " is the site {dir}: the copy would be written over it (to rewrite in place, give no --out-dir)"
                )),
                // Not known to be apart: not written.
                Err(e) => Some(format!(
                    ": cannot tell whether it overlaps the site {dir}: {}",
                    lowercase(&e)
                )),
            };
            if let Some(why) = why {
                return refused(format!("--out-dir {out}{why}"));
            }
        }
        tree::overrides(dir, excludes)?;
        let mut url = url.to_owned();
        if !url.ends_with('/') {
            url.push('/');
        }
        Ok(Site {
            dir: dir.to_owned(),
            url,
            out_dir: out_dir.map(Path::to_owned),
            pretty_urls: true,
            follow_links: false,
            check: false,
            jobs: None,
            fsync: false,
            excludes: excludes.to_vec(),
        })
    }

    /// The URL a file of the site (by its path under the root) is served at.
    pub fn url_of(&self, relative: &Path) -> String {
        retrieval_url(&self.url, relative, self.pretty_urls)
    }
}

/// What happens as a site is rewritten, for a progress bar and messages.
pub enum Event<'a> {
    /// The tree is walked: this many HTML files are to be done.
    Found(usize),
    /// A warning on a file, as it happens.
    Warning(&'a Path, &'a Warning),
    /// A file was left as it was, for this reason.
    Failed(&'a Path, &'a SourceError),
    /// A file, or something in the tree, was passed over (a symbolic link).
    Note(&'a Path, &'a str),
    /// An HTML file is done.
    Done(&'a Path),
}

/// What a site's run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    /// HTML files found.
    pub seen: usize,
    /// Written (with `--check`: to be written), because a URL in them
    /// changed.
    pub rewritten: usize,
    /// Not written: nothing in them changed.
    pub unchanged: usize,
    /// Left as they were because of an error.
    pub failed: usize,
    /// Errors told, each named on standard error: those of the `failed`
    /// files, and any other (a path the walk could not read, a link that
    /// leads nowhere or back up the tree, a file not copied into
    /// `--out-dir`). Any fails the run.
    pub errors: usize,
    /// With `--out-dir`: other files copied, and hard-linked.
    pub copied: usize,
    pub linked: usize,
    /// URL values rewritten (with `--check`: that would be), in all files.
    pub urls_rewritten: usize,
    pub warnings: usize,
    /// With `--check`: values that would change.
    pub changes: usize,
    pub seconds: f64,
    /// A signal (Ctrl-C, SIGTERM) stopped it between files.
    pub interrupted: bool,
}

/// Where the site's links go: `--check` lines to standard output, the
/// `--report` to its writer, each file's lines together and in the order
/// of the files.
pub struct Outputs {
    pub check: Option<Box<dyn Write + Send>>,
    pub report: Option<(Box<dyn Write + Send>, String)>,
}

/// The lines of the files done, written in the files' order as soon as all
/// before them are done.
struct Sequence {
    next: usize,
    waiting: std::collections::BTreeMap<usize, (Vec<u8>, Vec<u8>)>,
    outputs: Outputs,
    error: Option<SourceError>,
}

impl Sequence {
    fn done(&mut self, index: usize, check: Vec<u8>, report: Vec<u8>) {
        self.waiting.insert(index, (check, report));
        while let Some((check, report)) = self.waiting.remove(&self.next) {
            self.next += 1;
            if self.error.is_some() {
                continue;
            }
            if let Some(out) = &mut self.outputs.check {
                if let Err(e) = out.write_all(&check) {
                    self.error = Some(SourceError::Write("standard output".into(), e));
                }
            }
            if let Some((out, name)) = &mut self.outputs.report {
                if let Err(e) = out.write_all(&report) {
                    self.error = Some(SourceError::Write(name.clone(), e));
                }
            }
        }
    }

    fn finish(mut self) -> Result<(), SourceError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if let Some(out) = &mut self.outputs.check {
            out.flush()
                .map_err(|e| SourceError::Write("standard output".into(), e))?;
        }
        if let Some((out, name)) = &mut self.outputs.report {
            out.flush()
                .map_err(|e| SourceError::Write(name.clone(), e))?;
        }
        Ok(())
    }
}

/// A file's result.
enum Did {
    Rewritten { urls: usize },
    Unchanged,
    Failed,
}

/// Rewrites the site: each HTML file with `config` (whose layers give way
/// to the file's own retrieval URL), telling `on` what happens. Stops
/// between files once `stop` is set.
pub fn run(
    site: &Site,
    config: &Config,
    outputs: Outputs,
    stop: &AtomicBool,
    on: &(dyn Fn(Event<'_>) + Sync),
) -> Result<Summary, SourceError> {
    let started = Instant::now();
    // Every error told is counted, whoever tells it.
    let errors = AtomicUsize::new(0);
    let on = &|event: Event<'_>| {
        if let Event::Failed(..) = event {
            errors.fetch_add(1, Ordering::Relaxed);
        }
        on(event)
    };
    let written = written(site)?;
    let entries = tree::walk(site, on)?;
    let mut summary = Summary::default();
    let pages: Vec<&Entry> = entries.iter().filter(|e| e.html).collect();
    summary.seen = pages.len();
    on(Event::Found(pages.len()));
    if let (Some(copy), Some(_)) = (&written, &site.out_dir) {
        let (copied, linked) = tree::copy_others(site, copy, &entries, stop, on);
        summary.copied = copied;
        summary.linked = linked;
    }
    let listing = outputs.check.is_some() || outputs.report.is_some();
    let want_check = outputs.check.is_some();
    let want_report = outputs.report.is_some();
    let sequence = Mutex::new(Sequence {
        next: 0,
        waiting: Default::default(),
        outputs,
        error: None,
    });
    let totals = Mutex::new(Summary::default());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(site.jobs.unwrap_or(0))
        .build()
        .map_err(|e| SourceError::Refused(format!("cannot start the workers: {e}")))?;
    pool.install(|| {
        pages.iter().enumerate().par_bridge().for_each_init(
            Buffers::default,
            |buffers, (index, entry)| {
                if stop.load(Ordering::Relaxed) {
                    sequence
                        .lock()
                        .expect("no worker panics")
                        .done(index, Vec::new(), Vec::new());
                    return;
                }
                let (check, report) = (
                    Rc::new(RefCell::new(Vec::new())),
                    Rc::new(RefCell::new(Vec::new())),
                );
                let listing = listing.then(|| {
                    Listing::new(
                        entry.path.as_os_str().as_encoded_bytes().to_vec(),
                        file_place(&entry.path),
                        want_check.then(|| Box::new(Shared(Rc::clone(&check))) as Box<dyn Write>),
                        want_report.then(|| {
                            (
                                Box::new(Shared(Rc::clone(&report))) as Box<dyn Write>,
                                String::new(),
                            )
                        }),
                    )
                });
                let (did, warnings, changes) =
                    page(site, written.as_ref(), config, entry, buffers, listing, on);
                sequence
                    .lock()
                    .expect("no worker panics")
                    .done(index, check.take(), report.take());
                let mut t = totals.lock().expect("no worker panics");
                t.warnings += warnings;
                t.changes += changes;
                match did {
                    Did::Rewritten { urls } => {
                        t.rewritten += 1;
                        t.urls_rewritten += urls;
                    }
                    Did::Unchanged => t.unchanged += 1,
                    Did::Failed => t.failed += 1,
                }
                drop(t);
                on(Event::Done(&entry.path));
            },
        );
    });
    sequence.into_inner().expect("no worker panics").finish()?;
    let t = totals.into_inner().expect("no worker panics");
    summary.rewritten = t.rewritten;
    summary.unchanged = t.unchanged;
    summary.failed = t.failed;
    summary.errors = errors.into_inner();
    summary.urls_rewritten = t.urls_rewritten;
    summary.warnings = t.warnings;
    summary.changes = t.changes;
    summary.interrupted = stop.load(Ordering::Relaxed);
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// The tree the run writes, opened once: the copy (made first), or the
/// site itself; none in check mode.
fn written(site: &Site) -> Result<Option<Dir>, SourceError> {
    if site.check {
        return Ok(None);
    }
    let dir = match &site.out_dir {
        Some(out) => {
            fs::create_dir_all(out).map_err(|e| SourceError::Write(quoted(out), e))?;
            Dir::open(out).map_err(|e| SourceError::Write(quoted(out), e))?
        }
        None => Dir::open(&site.dir)
            .map_err(|e| SourceError::Open(site.dir.display().to_string(), lowercase(&e)))?,
    };
    Ok(Some(dir))
}

/// A worker's buffers, kept from file to file.
#[derive(Default)]
struct Buffers {
    input: Vec<u8>,
    output: Vec<u8>,
}

/// A writer into a buffer that the file's listing shares with its worker.
struct Shared(Rc<RefCell<Vec<u8>>>);

impl Write for Shared {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One HTML file: read, rewritten in memory, and written only if it
/// changed. Its warnings and how many of its values would change.
fn page(
    site: &Site,
    written: Option<&Dir>,
    config: &Config,
    entry: &Entry,
    buffers: &mut Buffers,
    listing: Option<Listing>,
    on: &(dyn Fn(Event<'_>) + Sync),
) -> (Did, usize, usize) {
    let path = &entry.path;
    let failed = |e: SourceError| {
        on(Event::Failed(path, &e));
        Did::Failed
    };
    let metadata = match read(path, &mut buffers.input) {
        Ok(metadata) => metadata,
        Err(e) => return (failed(e), 0, 0),
    };
    if entry.xhtml {
        if let Some(warning) = xhtml::reads_otherwise(&buffers.input, config.max_memory) {
            on(Event::Warning(path, &warning));
            return match put(site, written, entry, &buffers.input, &metadata, true, 0) {
                Ok(did) => (did, 1, 0),
                Err(e) => (failed(e), 1, 0),
            };
        }
    }
    let url = site.url_of(&entry.relative);
    let layers = match config
        .layers
        .clone()
        .with_retrieval(config.standard, &url, FROM)
    {
        Ok(layers) => layers,
        Err(e) => return (failed(SourceError::Refused(e.to_string())), 0, 0),
    };
    let config = Config {
        layers,
        ..config.clone()
    };
    let listing = listing.map(|l| Rc::new(RefCell::new(l)));
    buffers.output.clear();
    // The rewriter's hooks live as long as it does, longer than `on` is
    // known to: warnings are gathered and told after each write.
    let told = Rc::new(RefCell::new(Vec::new()));
    let mut rewriter = Rewriter::new(config, &mut buffers.output).on_warning({
        let told = Rc::clone(&told);
        move |w| told.borrow_mut().push(w.clone())
    });
    if let Some(listing) = &listing {
        let listing = Rc::clone(listing);
        rewriter = rewriter.on_link(move |link| listing.borrow_mut().hear(link));
    }
    let mut warnings = 0;
    let mut tell = || {
        for warning in told.take() {
            warnings += 1;
            on(Event::Warning(path, &warning));
        }
    };
    let mut result = Ok(());
    for chunk in buffers.input.chunks(CHUNK) {
        result = rewriter.write(chunk);
        tell();
        if result.is_err() {
            break;
        }
    }
    let ended = result.and_then(|()| rewriter.end());
    tell();
    let changes = listing.as_ref().map_or(0, |l| l.borrow().changes);
    let report = match ended {
        Ok((report, _)) => report,
        Err(e) => {
            let name = quoted(path);
            return (failed(SourceError::of(e, &name, &name)), warnings, changes);
        }
    };
    if report.incomplete() {
        let e = SourceError::Refused(format!(
            "{}: left as it was: rewriting stopped at the memory limit (--max-memory)",
            quoted(path)
        ));
        return (failed(e), warnings, changes);
    }
    let unchanged = buffers.output == buffers.input;
    let urls = report.counts.rewritten;
    match put(
        site,
        written,
        entry,
        &buffers.output,
        &metadata,
        unchanged,
        urls,
    ) {
        Ok(did) => (did, warnings, changes),
        Err(e) => (failed(e), warnings, changes),
    }
}

/// Puts a page's output where it goes: over the file in place (unless it
/// is unchanged), or into the copy; nowhere in check mode.
fn put(
    site: &Site,
    written: Option<&Dir>,
    entry: &Entry,
    output: &[u8],
    metadata: &Metadata,
    unchanged: bool,
    urls: usize,
) -> Result<Did, SourceError> {
    let did = if unchanged {
        Did::Unchanged
    } else {
        Did::Rewritten { urls }
    };
    let Some(tree) = written else {
        return Ok(did);
    };
    match &site.out_dir {
        Some(out) => write(
            tree,
            &entry.relative,
            true,
            &out.join(&entry.relative),
            output,
            metadata,
            site.fsync,
        )?,
        None if unchanged => {}
        None => write(
            tree,
            &entry.place,
            false,
            &entry.path,
            output,
            metadata,
            site.fsync,
        )?,
    }
    Ok(did)
}

/// Reads `path` whole into `buffer`; its metadata.
fn read(path: &Path, buffer: &mut Vec<u8>) -> Result<Metadata, SourceError> {
    let open = |e: io::Error| SourceError::Open(names::path(path).into_owned(), lowercase(&e));
    let mut file = File::open(path).map_err(open)?;
    let metadata = file.metadata().map_err(open)?;
    buffer.clear();
    file.read_to_end(buffer)
        .map_err(|e| SourceError::Read(quoted(path), lowercase(&e)))?;
    Ok(metadata)
}

/// Writes `bytes` at `relative` in `tree` (named `target` in messages),
/// staged in its directory and put in its place, with the permissions and
/// modification time of the file it came from. No link on the way is
/// followed: in a copy (`copy`), directories are made where missing and a
/// link where one goes is replaced; in place, a link there is an error.
fn write(
    tree: &Dir,
    relative: &Path,
    copy: bool,
    target: &Path,
    bytes: &[u8],
    from: &Metadata,
    durable: bool,
) -> Result<(), SourceError> {
    let fail = |e| SourceError::Write(quoted(target), e);
    let (Some(name), Some(parent)) = (relative.file_name(), relative.parent()) else {
        return Err(fail(rustix::io::Errno::ISDIR.into()));
    };
    let dir = if copy {
        tree.made(parent)
    } else {
        tree.existing(parent)
    }
    .map_err(fail)?;
    let mut staging = Staging::new(&dir, name).map_err(fail)?;
    staging.file_mut().write_all(bytes).map_err(fail)?;
    staging
        .file()
        .set_permissions(from.permissions())
        .map_err(fail)?;
    staging.commit(from.modified().ok(), durable).map_err(fail)
}
