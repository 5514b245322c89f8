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
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use crate::html::buffers::CHUNK;
use crate::html::config::Config;
use crate::html::report::Warning;
use crate::html::rewriter::Rewriter;
use crate::html::xhtml;
use crate::source::listing::{Listing, file_place};
use crate::source::names;
use crate::source::output::dir::Dir;
use crate::source::output::spool::{Held, Spool};
use crate::source::output::staging::Staging;
use crate::source::output::{SourceError, lowercase, quoted};
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
    /// Worker threads ([`Request::jobs`](crate::request::Request::jobs)).
    pub jobs: usize,
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
            jobs: 1,
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
    config: &Arc<Config>,
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
        .num_threads(site.jobs)
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

/// A worker's buffers, kept from file to file (unless a long file made
/// them large).
#[derive(Default)]
struct Buffers {
    input: Vec<u8>,
    output: Vec<u8>,
}

/// The most a buffer of [`Buffers`] keeps from one file to the next.
const KEPT: usize = 4 << 20;

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

/// One HTML file: rewritten, and written only if it changed. Its warnings
/// and how many of its values would change.
///
/// A file of up to half `--max-memory` is read whole; a longer one streams
/// from its file. Either way its output is held up to half the limit, and
/// in a temporary file past it (a file's output is compared with it before
/// it is written): a long file costs no more memory than a short one.
fn page(
    site: &Site,
    written: Option<&Dir>,
    config: &Arc<Config>,
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
    let read_error = |e: io::Error| SourceError::Read(quoted(path), lowercase(&e));
    let (mut file, metadata) = match open(path) {
        Ok(opened) => opened,
        Err(e) => return (failed(e), 0, 0),
    };
    let limit = config.max_memory / 2;
    let whole = metadata.len() <= limit as u64;
    let mut input = std::mem::take(&mut buffers.input);
    input.clear();
    if whole {
        if let Err(e) = file.read_to_end(&mut input) {
            return (failed(read_error(e)), 0, 0);
        }
    }
    let mut source = Source {
        file: &mut file,
        whole: whole.then_some(&input[..]),
    };
    let (did, warnings, changes) = rewrite_page(
        site,
        written,
        config,
        entry,
        &mut source,
        &metadata,
        &mut buffers.output,
        listing,
        on,
    )
    .unwrap_or_else(|e| (failed(e), 0, 0));
    buffers.input = kept(input);
    (did, warnings, changes)
}

/// A file's bytes: in memory when read whole, else in its file.
struct Source<'a> {
    file: &'a mut File,
    whole: Option<&'a [u8]>,
}

impl Source<'_> {
    /// A reader of all of it, from its first byte.
    fn reader(&mut self) -> io::Result<Box<dyn Read + '_>> {
        match self.whole {
            Some(bytes) => Ok(Box::new(bytes)),
            None => {
                self.file.seek(SeekFrom::Start(0))?;
                Ok(Box::new(io::BufReader::with_capacity(
                    CHUNK,
                    &mut *self.file,
                )))
            }
        }
    }
}

impl Held for Source<'_> {
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>> {
        self.reader()
    }

    fn len(&self) -> u64 {
        match self.whole {
            Some(bytes) => bytes.len() as u64,
            None => self.file.metadata().map_or(0, |m| m.len()),
        }
    }

    fn in_memory(&self) -> bool {
        self.whole.is_some()
    }

    fn bytes(&self) -> Option<&[u8]> {
        self.whole
    }
}

/// [`page`], once the file is open (and read, when whole).
#[allow(clippy::too_many_arguments)]
fn rewrite_page(
    site: &Site,
    written: Option<&Dir>,
    config: &Arc<Config>,
    entry: &Entry,
    source: &mut Source<'_>,
    metadata: &Metadata,
    output: &mut Vec<u8>,
    listing: Option<Listing>,
    on: &(dyn Fn(Event<'_>) + Sync),
) -> Result<(Did, usize, usize), SourceError> {
    let path = &entry.path;
    let read_error = |e: io::Error| SourceError::Read(quoted(path), lowercase(&e));
    if entry.xhtml {
        let reader = source.reader().map_err(read_error)?;
        if let Some(warning) = xhtml::reads_otherwise(reader, config.max_memory) {
            on(Event::Warning(path, &warning));
            return Ok((put(site, written, entry, source, metadata, true, 0)?, 1, 0));
        }
    }
    let url = site.url_of(&entry.relative);
    let layers = Layers::default()
        .with_retrieval(config.standard, &url, FROM)
        .map_err(|e| SourceError::Refused(e.to_string()))?;
    let listing = listing.map(|l| Rc::new(RefCell::new(l)));
    let mut spool = Spool::reusing(std::mem::take(output), config.max_memory / 2);
    // The rewriter's hooks live as long as it does, longer than `on` is
    // known to: warnings are gathered and told after each write.
    let told = Rc::new(RefCell::new(Vec::new()));
    let mut rewriter = Rewriter::new(Arc::clone(config), layers, &mut spool).on_warning({
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
    let mut write = |chunk: &[u8]| {
        result = rewriter.write(chunk);
        tell();
        result.is_ok()
    };
    match source.whole {
        Some(bytes) => {
            for chunk in bytes.chunks(CHUNK) {
                if !write(chunk) {
                    break;
                }
            }
        }
        None => {
            let mut reader = source.reader().map_err(read_error)?;
            let mut chunk = vec![0; CHUNK];
            loop {
                match read_up_to(&mut reader, &mut chunk).map_err(read_error)? {
                    0 => break,
                    n if !write(&chunk[..n]) => break,
                    _ => {}
                }
            }
        }
    }
    let ended = result.and_then(|()| rewriter.end());
    tell();
    let changes = listing.as_ref().map_or(0, |l| l.borrow().changes);
    let report = match ended {
        Ok((report, _)) => report,
        Err(e) => {
            let name = quoted(path);
            let e = SourceError::of(e, &name, &name);
            on(Event::Failed(path, &e));
            return Ok((Did::Failed, warnings, changes));
        }
    };
    if report.incomplete() {
        let e = SourceError::Refused(format!(
            "{}: left as it was: rewriting stopped at the memory limit (--max-memory)",
            quoted(path)
        ));
        on(Event::Failed(path, &e));
        return Ok((Did::Failed, warnings, changes));
    }
    let unchanged = same(&mut spool, source).map_err(read_error)?;
    let urls = report.counts.rewritten;
    let did = put(site, written, entry, &mut spool, metadata, unchanged, urls);
    *output = kept(spool.into_memory());
    Ok((did?, warnings, changes))
}

/// A buffer to keep for the next file, unless a long file made it large.
fn kept(buffer: Vec<u8>) -> Vec<u8> {
    if buffer.capacity() > KEPT {
        Vec::new()
    } else {
        buffer
    }
}

/// Whether the output is the file's bytes, compared a piece at a time.
fn same(output: &mut Spool, source: &mut Source<'_>) -> io::Result<bool> {
    if output.len() != source.len() {
        return Ok(false);
    }
    if let (Some(a), Some(b)) = (output.in_memory(), source.whole) {
        return Ok(a == b);
    }
    let (mut a, mut b) = (output.reader()?, source.reader()?);
    let (mut x, mut y) = (vec![0; CHUNK], vec![0; CHUNK]);
    loop {
        let n = read_up_to(&mut a, &mut x)?;
        if n == 0 {
            return Ok(true);
        }
        if read_up_to(&mut b, &mut y[..n])? != n || x[..n] != y[..n] {
            return Ok(false);
        }
    }
}

/// Fills `buf` as far as the reader goes; how much it filled.
fn read_up_to(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match reader.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

/// Puts a page's output where it goes: over the file in place (unless it
/// is unchanged), or into the copy; nowhere in check mode.
fn put(
    site: &Site,
    written: Option<&Dir>,
    entry: &Entry,
    output: &mut dyn Held,
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

/// Opens `path`; its metadata.
fn open(path: &Path) -> Result<(File, Metadata), SourceError> {
    let open = |e: io::Error| SourceError::Open(names::path(path).into_owned(), lowercase(&e));
    let file = File::open(path).map_err(open)?;
    let metadata = file.metadata().map_err(open)?;
    Ok((file, metadata))
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
    bytes: &mut dyn Held,
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
    let file = staging.file_mut();
    match bytes.bytes() {
        // The usual page, in one write.
        Some(bytes) => file.write_all(bytes).map_err(fail)?,
        None => {
            let mut reader = bytes.open().map_err(fail)?;
            let mut chunk = vec![0; CHUNK];
            loop {
                match read_up_to(&mut reader, &mut chunk).map_err(fail)? {
                    0 => break,
                    n => file.write_all(&chunk[..n]).map_err(fail)?,
                }
            }
        }
    }
    staging
        .file()
        .set_permissions(from.permissions())
        .map_err(fail)?;
    staging.commit(from.modified().ok(), durable).map_err(fail)
}
