//! The second source: a static site's whole tree, the last step of a
//! Hugo, Jekyll or Eleventy build or a `wget --mirror`. Every `.html`,
//! `.htm` and `.xhtml` file is a page, every `.css` file a stylesheet, and
//! every `.xml`, `.rss`, `.atom`, `.feed` and `.svg` file whose root is a
//! feed's, a sitemap's or SVG's an XML document (any other is left as it
//! is, and counted); each is a document whose retrieval URL (§3.3) is the
//! one a server gives it, rewritten in parallel, in place or into a copy of
//! the tree; each staged and put in its place whole, through no link, so
//! that a failure or an interruption leaves every file old or new and
//! nothing is written outside the tree.

mod tree;
mod url;

use std::borrow::Cow;
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

use crate::document::buffers::CHUNK;
use crate::document::config::Config;
use crate::document::links::{Heard, Link};
use crate::document::memory::{Allowance, Drawn, Memory};
use crate::document::report::{Report, Warning};
use crate::html::xhtml;
use crate::source::listener::{Document, Done, Listener, Passed, Progress, SourceWarning};
use crate::source::listing::{left_as_it_was, would_change};
use crate::source::names;
use crate::source::output::dir::Dir;
use crate::source::output::spool::{Held, Spool};
use crate::source::output::staging::Staging;
use crate::source::output::{SourceError, lowercase, quoted};
use crate::source::typing::{Clue, decide, read_first, sniff_limit};
use crate::typed::{Type, TypedRewriter};
use crate::url::{Layers, Standard};
pub use tree::Entry;
pub(crate) use tree::{Met, Walked, walk};
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
    /// fragment), rewritten in place, or into `out_dir` (which the run's
    /// plan, `source::plan`, refuses where it overlaps `dir`); files matching an exclude (a `.gitignore` glob) are left
    /// out. Refused with a one-line message before anything is read.
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

    /// Whether it is rewritten into a copy (`--out-dir`), not in place.
    pub fn copies(&self) -> bool {
        self.out_dir.is_some()
    }

    /// Its directory, as the user named it.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The copy's directory (`--out-dir`), as the user named it.
    pub fn out_dir(&self) -> Option<&Path> {
        self.out_dir.as_deref()
    }

    /// The URL a file of the site (by its path under the root) is served at.
    pub fn url_of(&self, relative: &Path) -> String {
        retrieval_url(&self.url, relative, self.pretty_urls)
    }
}

/// A file's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Did {
    Rewritten {
        urls: usize,
    },
    Unchanged,
    Failed,
    /// An XML file whose root is no vocabulary htmlabs reads: left as it
    /// is (copied as it is into `--out-dir`).
    Left,
    /// It outgrew a small share of the run's memory: to be done again,
    /// with the head's (nothing of it was written or told).
    Again,
}

/// What a site's run did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tally {
    /// Documents found: HTML, CSS and XML files (not those left).
    pub seen: usize,
    /// Of those, stylesheets, and XML documents (feeds, sitemaps, SVG).
    pub css: usize,
    pub xml: usize,
    /// XML files (by their extension) whose root is none of the
    /// vocabularies: left as they are.
    pub left: usize,
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
    /// With `--follow-links`, in place: documents reached through a link
    /// that lie outside the site, not written (each with a warning).
    pub outside: usize,
    /// Files that are not regular (FIFOs, sockets, devices), left out of
    /// `--out-dir` or, named like a document, left as they are in place
    /// (each with a warning).
    pub not_regular: usize,
    /// URL values rewritten (with `--check`: that would be), in all files.
    pub urls_rewritten: usize,
    pub warnings: usize,
    /// Values that would change, of the links heard.
    pub changes: usize,
    pub seconds: f64,
    /// A signal (Ctrl-C, SIGTERM) stopped it between files.
    pub interrupted: bool,
}

impl Tally {
    /// The line said at the end: `412 HTML files: 12 rewritten, …` (`415
    /// documents (412 HTML, 2 CSS, 1 XML): …` when there are others), for
    /// a check (`check`) or a run into a copy (`copy`).
    pub fn line(&self, check: bool, copy: bool) -> String {
        let s = self;
        let (verb, urls) = if check {
            ("would change", "would change")
        } else {
            ("rewritten", "rewritten")
        };
        let found = if s.css + s.xml + s.left == 0 {
            format!("{} HTML files", s.seen)
        } else {
            format!(
                "{} documents ({} HTML, {} CSS, {} XML)",
                s.seen,
                s.seen - s.css - s.xml,
                s.css,
                s.xml
            )
        };
        let mut line = format!(
            "{found}: {} {verb}, {} unchanged, {} failed; {} URLs {urls}; {} warnings",
            s.rewritten, s.unchanged, s.failed, s.urls_rewritten, s.warnings
        );
        if s.left > 0 {
            line += &format!(
                "; {} other XML file{} left as {}",
                s.left,
                if s.left == 1 { "" } else { "s" },
                if s.left == 1 { "it is" } else { "they are" }
            );
        }
        if copy && !check {
            line += &format!(
                "; other files: {} hard-linked, {} copied",
                s.linked, s.copied
            );
        }
        let files = |n: usize| if n == 1 { "file" } else { "files" };
        if s.outside > 0 {
            let n = s.outside;
            line += &format!("; {n} {} outside the site not written", files(n));
        }
        if s.not_regular > 0 {
            let n = s.not_regular;
            let left = match (copy, n) {
                (true, _) => "left out",
                (false, 1) => "left as it is",
                (false, _) => "left as they are",
            };
            line += &format!("; {n} non-regular {} {left}", files(n));
        }
        if s.errors > s.failed {
            line += &format!("; {} other errors", s.errors - s.failed);
        }
        if s.interrupted {
            line += "; interrupted";
        }
        line += &format!("; {:.2} s", s.seconds);
        line
    }
}

/// The links of the files done, told in the files' order as soon as all
/// before them are done. Those of a file done before its turn wait,
/// drawn from the run's memory; where there is no room, its worker waits
/// for its turn (the files start in order, so the one whose turn it is is
/// being done, and never waits).
struct Sequence<'a> {
    told: Mutex<Told<'a>>,
    turn: std::sync::Condvar,
}

struct Told<'a> {
    next: usize,
    waiting: std::collections::BTreeMap<usize, (&'a Path, Vec<Link>, Option<Drawn>)>,
}

impl<'a> Sequence<'a> {
    fn new() -> Self {
        Sequence {
            told: Mutex::new(Told {
                next: 0,
                waiting: Default::default(),
            }),
            turn: std::sync::Condvar::new(),
        }
    }

    fn done(&self, index: usize, path: &'a Path, links: Heard, memory: &Memory, on: &dyn Listener) {
        let mut told = self.told.lock().expect("no worker panics");
        if index == told.next {
            let (links, _) = links.take();
            told.waiting.insert(index, (path, links, None));
        } else {
            match links.draw(memory) {
                Ok((links, drawn)) => {
                    told.waiting.insert(index, (path, links, Some(drawn)));
                }
                Err((links, _)) => {
                    while told.next != index {
                        told = self.turn.wait(told).expect("no worker panics");
                    }
                    told.waiting.insert(index, (path, links, None));
                }
            }
        }
        let Told { next, waiting } = &mut *told;
        while let Some((path, links, _drawn)) = waiting.remove(next) {
            *next += 1;
            let document = Document::File(path);
            for link in &links {
                on.link(&document, link);
            }
        }
        drop(told);
        self.turn.notify_all();
    }
}

/// What a file's attempt told, told to the run only once the attempt
/// stands (an attempt that outgrew its small share is done again).
#[derive(Default)]
struct Attempt {
    told: Mutex<Vec<(PathBuf, Said)>>,
}

enum Said {
    Warning(Warning),
    Failure(String),
    Note(String),
}

impl Attempt {
    fn tell(self, on: &dyn Listener) {
        for (path, said) in self.told.into_inner().expect("no worker panics") {
            let document = Document::File(&path);
            match said {
                Said::Warning(w) => on.warning(&document, &SourceWarning::Document(&w)),
                Said::Failure(e) => on.failure(&document, &SourceError::Refused(e)),
                Said::Note(n) => on.note(&document, &n),
            }
        }
    }
}

impl Listener for Attempt {
    fn warning(&self, document: &Document<'_>, warning: &SourceWarning<'_>) {
        if let (Document::File(path), SourceWarning::Document(w)) = (document, warning) {
            let said = (path.to_path_buf(), Said::Warning((*w).clone()));
            self.told.lock().expect("no worker panics").push(said);
        }
    }

    fn failure(&self, document: &Document<'_>, error: &SourceError) {
        if let Document::File(path) = document {
            let said = (path.to_path_buf(), Said::Failure(error.to_string()));
            self.told.lock().expect("no worker panics").push(said);
        }
    }

    fn note(&self, document: &Document<'_>, note: &str) {
        if let Document::File(path) = document {
            let said = (path.to_path_buf(), Said::Note(note.to_owned()));
            self.told.lock().expect("no worker panics").push(said);
        }
    }
}

/// The run's listener, counting the errors told, whoever tells them.
struct Counting<'a> {
    listener: &'a dyn Listener,
    errors: AtomicUsize,
}

impl Listener for Counting<'_> {
    fn warning(&self, document: &Document<'_>, warning: &SourceWarning<'_>) {
        self.listener.warning(document, warning);
    }

    fn failure(&self, document: &Document<'_>, error: &SourceError) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        self.listener.failure(document, error);
    }

    fn note(&self, document: &Document<'_>, note: &str) {
        self.listener.note(document, note);
    }

    fn hears_links(&self) -> bool {
        self.listener.hears_links()
    }

    fn link(&self, document: &Document<'_>, link: &Link) {
        self.listener.link(document, link);
    }

    fn progress(&self, progress: Progress) {
        self.listener.progress(progress);
    }

    fn done(&self, document: &Document<'_>, done: &Done) {
        self.listener.done(document, done);
    }
}

/// Rewrites the site, its tree as the plan walked it: each document with
/// `config`, at its own retrieval URL, telling `listener` what happens
/// (what the walk met first, then each file's links together, the files
/// in the order of their paths). Stops between files once `stop` is set.
pub(crate) fn run(
    site: &Site,
    walked: Walked,
    config: &Arc<Config>,
    listener: &dyn Listener,
    stop: &AtomicBool,
) -> Result<Tally, SourceError> {
    let started = Instant::now();
    let on = &Counting {
        listener,
        errors: AtomicUsize::new(0),
    };
    let mut summary = Tally::default();
    for met in walked.met {
        match met {
            Met::Failure(path, e) => on.failure(&Document::File(&path), &e),
            Met::Note(path, note) => on.note(&Document::File(&path), note),
            Met::Passed(path, passed) => {
                on.warning(&Document::File(&path), &SourceWarning::Site(&passed));
                summary.warnings += 1;
                match passed {
                    Passed::Outside => summary.outside += 1,
                    Passed::NotRegular { .. } => summary.not_regular += 1,
                }
            }
        }
    }
    let entries = walked.entries;
    let written = written(site)?;
    let pages: Vec<&Entry> = entries.iter().filter(|e| e.document).collect();
    summary.seen = pages.len();
    on.progress(Progress::Found(pages.len()));
    if let (Some(copy), Some(_)) = (&written, &site.out_dir) {
        let (copied, linked) = tree::copy_others(site, copy, &entries, stop, on);
        summary.copied = copied;
        summary.linked = linked;
    }
    let listening = on.hears_links();
    let sequence = Sequence::new();
    // The run's memory: `--max-memory`, for every file in flight.
    let memory = Memory::new(config.max_memory);
    let totals = Mutex::new(Tally::default());
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(site.jobs)
        .build()
        .map_err(|e| SourceError::Refused(format!("cannot start the workers: {e}")))?;
    pool.install(|| {
        pages.iter().enumerate().par_bridge().for_each_init(
            Buffers::default,
            |buffers, (index, entry)| {
                let path = entry.path.as_path();
                if stop.load(Ordering::Relaxed) {
                    let none = Heard::new(&Allowance::standalone(0));
                    sequence.done(index, path, none, &memory, on);
                    return;
                }
                // A share of the run's memory: a small one beside the
                // others, the head's for the oldest in flight; a file that
                // outgrows a small one is done again with the head's,
                // nothing of the first attempt told.
                let ticket = memory.enter(index as u64);
                let mut share = ticket.share();
                let (did, warnings, kind, heard, attempt) = loop {
                    let allowance = Allowance::new(share);
                    let heard = Heard::new(&allowance);
                    let attempt = Attempt::default();
                    let (did, warnings, kind) = page(
                        site,
                        written.as_ref(),
                        config,
                        entry,
                        buffers,
                        listening.then_some(&heard),
                        &attempt,
                        &allowance,
                    );
                    // Only a small share is outgrown: the head's is the most
                    // a document may hold, and past it the document fails.
                    if did == Did::Again && !allowance.is_head() {
                        drop((heard, allowance));
                        share = ticket.head_share();
                        continue;
                    }
                    break (did, warnings, kind, heard, attempt);
                };
                drop(ticket);
                attempt.tell(on);
                if matches!(did, Did::Failed) {
                    heard.edit(|links| left_as_it_was(links));
                }
                let changes = heard.count(would_change);
                // Its links go on, in order; its share with them.
                sequence.done(index, path, heard, &memory, on);
                let mut t = totals.lock().expect("no worker panics");
                t.warnings += warnings;
                t.changes += changes;
                match kind {
                    Some(Type::Css) => t.css += 1,
                    Some(Type::Xml) => t.xml += 1,
                    Some(Type::Html) | None => {}
                }
                let done = match did {
                    Did::Rewritten { urls } => {
                        t.rewritten += 1;
                        t.urls_rewritten += urls;
                        Done::Rewritten { urls }
                    }
                    Did::Unchanged => {
                        t.unchanged += 1;
                        Done::Unchanged
                    }
                    Did::Failed => {
                        t.failed += 1;
                        Done::Failed
                    }
                    Did::Left => {
                        t.left += 1;
                        Done::Unchanged
                    }
                    // The head share outgrown: `page` says it failed.
                    Did::Again => {
                        t.failed += 1;
                        Done::Failed
                    }
                };
                drop(t);
                on.done(&Document::File(path), &done);
            },
        );
    });
    let t = totals.into_inner().expect("no worker panics");
    summary.seen -= t.left;
    summary.css = t.css;
    summary.xml = t.xml;
    summary.left = t.left;
    summary.rewritten = t.rewritten;
    summary.unchanged = t.unchanged;
    summary.failed = t.failed;
    summary.errors = on.errors.load(Ordering::Relaxed);
    summary.urls_rewritten = t.urls_rewritten;
    summary.warnings += t.warnings;
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
            .map_err(|e| SourceError::Open(names::path(&site.dir).into_owned(), lowercase(&e)))?,
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
const KEPT: usize = 1 << 20;

/// One document: rewritten, and written only if it changed. What became of
/// it, its warnings, and the type it was read as.
///
/// A file of up to an eighth of what its `allowance` has is read whole
/// (taken from it); a longer one streams from its file. Either way its
/// output is held in memory while the run's memory has room for it, and
/// in a temporary file past it (a file's output is compared with it before
/// it is written): a long file costs no more memory than a short one.
#[allow(clippy::too_many_arguments)]
fn page(
    site: &Site,
    written: Option<&Dir>,
    config: &Arc<Config>,
    entry: &Entry,
    buffers: &mut Buffers,
    heard: Option<&Heard>,
    on: &dyn Listener,
    allowance: &Rc<Allowance>,
) -> (Did, usize, Option<Type>) {
    let path = &entry.path;
    let failed = |e: SourceError| {
        on.failure(&Document::File(path), &e);
        Did::Failed
    };
    let read_error = |e: io::Error| SourceError::Read(quoted(path), lowercase(&e));
    let (mut file, metadata) = match open(path) {
        Ok(opened) => opened,
        Err(e) => return (failed(e), 0, None),
    };
    let mut input = std::mem::take(&mut buffers.input);
    input.clear();
    let mut whole_held = allowance.budget();
    let whole = metadata.len() <= (allowance.left() / 8) as u64
        && whole_held
            .take(input.capacity().max(metadata.len() as usize))
            .is_ok();
    if whole {
        if let Err(e) = file.read_to_end(&mut input) {
            return (failed(read_error(e)), 0, None);
        }
    }
    let mut source = Source {
        file: &mut file,
        whole: whole.then_some(&input[..]),
    };
    let mut kind = None;
    let (did, warnings) = rewrite_page(
        site,
        written,
        config,
        entry,
        &mut source,
        &metadata,
        &mut buffers.output,
        heard,
        &mut kind,
        on,
        allowance,
    )
    .unwrap_or_else(|e| (failed(e), 0));
    buffers.input = kept(input);
    (did, warnings, kind)
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

/// [`page`], once the file is open (and read, when whole): its type
/// (`kind`) decided by its extension and its first bytes.
#[allow(clippy::too_many_arguments)]
fn rewrite_page(
    site: &Site,
    written: Option<&Dir>,
    config: &Arc<Config>,
    entry: &Entry,
    source: &mut Source<'_>,
    metadata: &Metadata,
    output: &mut Vec<u8>,
    heard: Option<&Heard>,
    kind: &mut Option<Type>,
    on: &dyn Listener,
    allowance: &Rc<Allowance>,
) -> Result<(Did, usize), SourceError> {
    let path = &entry.path;
    let document = Document::File(path);
    let read_error = |e: io::Error| SourceError::Read(quoted(path), lowercase(&e));
    if entry.xhtml {
        let reader = source.reader().map_err(read_error)?;
        // Its parser's limit, as the page engine's: a quarter of what is
        // left.
        let mut limit = allowance.budget();
        let quarter = allowance.left() / 4;
        limit.take(quarter).expect("a quarter of what is left");
        if let Some(warning) = xhtml::reads_otherwise(reader, quarter) {
            on.warning(&document, &SourceWarning::Document(&warning));
            return Ok((put(site, written, entry, source, metadata, true, 0)?, 1));
        }
    }
    let extension = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    // As many first bytes as tell an XML file's root, up to the lookahead
    // (taken from the file's share as they are read, for as long as it is
    // done).
    let limit = sniff_limit(config);
    let mut sniffed = allowance.budget();
    let first: Cow<'_, [u8]> = match source.whole {
        Some(bytes) => Cow::Borrowed(&bytes[..bytes.len().min(limit)]),
        None => {
            let first = read_first(
                &mut source.reader().map_err(read_error)?,
                config.encoding,
                limit,
            )
            .map_err(read_error)?;
            if sniffed.take(first.len()).is_err() {
                if !allowance.is_head() {
                    return Ok((Did::Again, 0));
                }
                let e = SourceError::Refused(format!(
                    "{}: left as it was: its type cannot be told within the memory limit (--max-memory)",
                    quoted(path)
                ));
                on.failure(&document, &e);
                return Ok((Did::Failed, 0));
            }
            Cow::Owned(first)
        }
    };
    let Some(of_type) = decide(None, Clue::Extension(extension), &first, config.encoding).kind
    else {
        // Any other XML: as it is (into the copy too).
        put(site, written, entry, source, metadata, true, 0)?;
        return Ok((Did::Left, 0));
    };
    *kind = Some(of_type);
    let url = site.url_of(&entry.relative);
    let layers = Layers::default()
        .with_retrieval(config.standard, &url, FROM)
        .map_err(|e| SourceError::Refused(e.to_string()))?;
    let mut spool = Spool::reusing(std::mem::take(output), allowance.memory());
    // The rewriter's hooks live as long as it does, longer than `on` is
    // known to: warnings are gathered and told after each write.
    let told = Rc::new(RefCell::new(Vec::new()));
    let mut rewriter = TypedRewriter::new(of_type, Arc::clone(config), layers, &mut spool)
        .with_allowance(Rc::clone(allowance))
        .on_warning({
            let told = Rc::clone(&told);
            move |w| told.borrow_mut().push(w.clone())
        });
    if let Some(heard) = heard {
        rewriter = rewriter.on_link(heard.hook());
    }
    let mut warnings = 0;
    let mut tell = || {
        for warning in told.take() {
            warnings += 1;
            on.warning(&document, &SourceWarning::Document(&warning));
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
            let mut fed = || -> io::Result<()> {
                let mut reader = source.reader()?;
                let mut chunk = vec![0; CHUNK];
                loop {
                    match read_up_to(&mut reader, &mut chunk)? {
                        0 => return Ok(()),
                        n if !write(&chunk[..n]) => return Ok(()),
                        _ => {}
                    }
                }
            };
            if let Err(e) = fed() {
                // The links heard before are the file's all the same.
                return Err(read_error(e));
            }
        }
    }
    let ended = result.and_then(|()| rewriter.end());
    tell();
    // Past a small share: again, with the head's, before anything is
    // written.
    if allowance.ran_out() && !allowance.is_head() {
        return Ok((Did::Again, warnings));
    }
    let report = match ended {
        Ok((report, _)) => report,
        Err(e) => {
            let name = quoted(path);
            let e = SourceError::of(e, &name, &name);
            on.failure(&document, &e);
            return Ok((Did::Failed, warnings));
        }
    };
    if report.incomplete() || heard.is_some_and(Heard::over) {
        let why = match report.incomplete() {
            true => stopped(&report),
            false => "its links do not fit the memory limit (--max-memory)",
        };
        let e = SourceError::Refused(format!("{}: left as it was: {why}", quoted(path)));
        on.failure(&document, &e);
        return Ok((Did::Failed, warnings));
    }
    let unchanged = same(&mut spool, source).map_err(read_error)?;
    let urls = report.counts.rewritten;
    let did = put(site, written, entry, &mut spool, metadata, unchanged, urls);
    *output = kept(spool.into_memory());
    Ok((did?, warnings))
}

/// Why a file's rewriting stopped, as its failure says it.
fn stopped(report: &Report) -> &'static str {
    match report.warnings.iter().find(|w| w.stops_rewriting()) {
        Some(Warning::NotWellFormed { .. }) => "it is not well-formed XML",
        Some(Warning::XmlDepth { .. }) => "its elements nest deeper than htmlabs follows",
        Some(Warning::TooLarge { .. }) => "a text in it is past the memory limit (--max-memory)",
        Some(Warning::Malformed { .. }) => {
            "it is not valid in its encoding (an unpaired surrogate or a lone byte)"
        }
        _ => "rewriting stopped at the memory limit (--max-memory)",
    }
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
