//! The site's files on the pool: each file's share of the run's memory,
//! its attempt again with the head share when it needs more, and what is
//! heard of it passed on in the order of the walk; the tally of the run.

use std::fs;
use std::path::Path;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Instant;

use rayon::prelude::*;

use super::check::{LinkTally, SiteCheck};
use super::file::{Attempt, Buffers, FileOutcome, FileRun, page};
use super::{Entry, Met, Site, Walked};
use super::{cloudflare, gitlab, netlify};
use crate::document::config::Config;
use crate::document::events::Events;
use crate::document::links::Link;
use crate::document::memory::{Allowance, Memory};
use crate::source::listener::{Checked, Document, Done, Listener, Passed, Progress, SourceWarning};
use crate::source::listing::{left_as_it_was, would_change};
use crate::source::names;
use crate::source::output::dir::Dir;
use crate::source::output::{SourceError, lowercase, quoted};
use crate::source::placeholder;
use crate::source::summary::{Summary, Tally, plural};
use crate::source::waiting::{Check, Waiting};
use crate::typed::Type;
use crate::url::{Host, Missing, Redirects, Served};

/// What a site's run did.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct SiteTally {
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
    /// With `--check-links`, what the links' check found.
    pub links: Option<LinkTally>,
}

impl SiteTally {
    /// What the run did, for the run's end: a check's (`check`) or a run
    /// into a copy's (`copy`).
    pub(crate) fn summary(self, check: bool, copy: bool) -> Summary {
        Summary {
            documents: self.seen,
            rewritten: self.rewritten,
            unchanged: self.unchanged,
            failed: self.failed,
            urls: self.urls_rewritten,
            warnings: self.warnings,
            changes: self.changes,
            incomplete: self.failed > 0 || self.errors > 0,
            interrupted: self.interrupted,
            line: Some(self.line(check, copy)),
            details: Vec::new(),
            tally: Tally::new(self),
        }
    }

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
            format!("{} HTML file{}", s.seen, plural(s.seen))
        } else {
            format!(
                "{} document{} ({} HTML, {} CSS, {} XML)",
                s.seen,
                plural(s.seen),
                s.seen - s.css - s.xml,
                s.css,
                s.xml
            )
        };
        let warnings = format!("{} warning{}", s.warnings, plural(s.warnings));
        let mut line = match &s.links {
            // A link check changes nothing: what it found.
            Some(links) => format!("{found}: {}; {} failed; {warnings}", links.line(), s.failed),
            None => format!(
                "{found}: {} {verb}, {} unchanged, {} failed; {} URL{} {urls}; {warnings}",
                s.rewritten,
                s.unchanged,
                s.failed,
                s.urls_rewritten,
                plural(s.urls_rewritten),
            ),
        };
        if s.left > 0 {
            line += &format!(
                "; {} other XML file{} left as {}",
                s.left,
                plural(s.left),
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
            let n = s.errors - s.failed;
            line += &format!("; {n} other error{}", plural(n));
        }
        if s.interrupted {
            line += "; interrupted";
        }
        line += &format!("; {:.2} s", s.seconds);
        line
    }
}

/// The links of the files done, told in the files' order as soon as all
/// before them are done. Each file's links are checked (`--check-links`)
/// on its own worker, side by side with the others'; only the telling is
/// in order. Those of a file done before its turn wait out of its share
/// ([`Waiting`]: drawn from the run's memory, or in a temporary file), and
/// its worker goes on to the next file.
struct Sequence<'a> {
    told: Mutex<Turns<'a>>,
    /// The run checks links: each link is told checked, whichever worker
    /// tells it (one stopped between files has no check of its own).
    checking: bool,
}

struct Turns<'a> {
    next: usize,
    waiting: std::collections::BTreeMap<usize, (&'a Path, Waiting)>,
    /// A worker is telling links, outside the lock: it tells those that
    /// come in meanwhile too, and their workers go on to their next file.
    telling: bool,
}

impl<'a> Sequence<'a> {
    fn new(checking: bool) -> Self {
        Sequence {
            told: Mutex::new(Turns {
                next: 0,
                waiting: Default::default(),
                telling: false,
            }),
            checking,
        }
    }

    fn done(
        &self,
        index: usize,
        path: &'a Path,
        links: Events,
        check: Option<Check<'_>>,
        memory: &Memory,
        on: &dyn Listener,
    ) {
        // Its turn, with no one telling: it tells its own links at once
        // (nothing drawn for them: its worker takes no other file first).
        let claimed = {
            let mut told = self.told.lock().expect("no worker panics");
            let claimed = told.next == index && !told.telling;
            told.telling |= claimed;
            claimed
        };
        let waiting = match claimed {
            true => Waiting::now(links.take_links(), check),
            false => Waiting::of(&links, memory, check).unwrap_or_else(|e| {
                on.failure(&Document::File(path), &unheard(path, e));
                Waiting::default()
            }),
        };
        // Its share given back before the turns are taken.
        drop(links);
        let mut told = self.told.lock().expect("no worker panics");
        told.waiting.insert(index, (path, waiting));
        if !claimed {
            if told.telling {
                return;
            }
            told.telling = true;
        }
        // Each file's links told outside the lock, so that the other
        // workers only leave theirs as they pass.
        loop {
            let next = told.next;
            let Some((path, links)) = told.waiting.remove(&next) else {
                told.telling = false;
                return;
            };
            told.next += 1;
            drop(told);
            let document = Document::File(path);
            let heard = links.each(|link, verdict| match self.checking {
                true => on.checked(&document, link, verdict),
                false => on.link(&document, link),
            });
            if let Err(e) = heard {
                on.failure(&document, &unheard(path, e));
            }
            told = self.told.lock().expect("no worker panics");
        }
    }
}

/// The links of the file at `path` could not wait in a temporary file.
fn unheard(path: &Path, e: std::io::Error) -> SourceError {
    SourceError::Write(
        format!("a temporary file of the links of {}", quoted(path)),
        e,
    )
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

    fn hears_off_site(&self) -> bool {
        self.listener.hears_off_site()
    }

    fn link(&self, document: &Document<'_>, link: Link) {
        self.listener.link(document, link);
    }

    fn checked(&self, document: &Document<'_>, link: Link, served: Option<Served>) {
        self.listener.checked(document, link, served);
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
) -> Result<SiteTally, SourceError> {
    let started = Instant::now();
    let Walked {
        entries,
        met,
        excluded,
    } = walked;
    // The run's memory: `--max-memory`, for every file in flight.
    let memory = Memory::new(config.max_memory);
    // `--relative` and `--check-links`: the tree of every file found, held
    // for the run.
    let tree = |what: &str| -> Result<_, SourceError> {
        let tree = site.local_tree(&entries, &excluded);
        let drawn = memory.draw(tree.size()).map_err(|_| {
            SourceError::Refused(format!(
                "{what}: the paths of the site's {} files take more than --max-memory allows ({} bytes)",
                entries.len(),
                config.max_memory
            ))
        })?;
        Ok((tree, drawn))
    };
    let (checks, _check_drawn) = match site.check_links {
        Some(host) => {
            let (tree, drawn) = tree("--check-links")?;
            let (redirects, rules_drawn) = match host {
                Host::Netlify => netlify::redirects(site.dir(), &memory)?,
                Host::CloudflarePages => netlify::redirects_file(
                    site.dir(),
                    &memory,
                    Redirects::parse_cloudflare,
                    site.jobs,
                )?,
                Host::GitlabPages => netlify::redirects_file(
                    site.dir(),
                    &memory,
                    Redirects::parse_gitlab,
                    site.jobs,
                )?,
                _ => (Redirects::default(), memory.drawn()),
            };
            let encoding = config.encoding;
            let served = (host, redirects);
            let checks = SiteCheck::new(site, tree, served, encoding, memory.clone());
            (Some(checks), Some((drawn, rules_drawn)))
        }
        None => (None, None),
    };
    let checked = checks.as_ref().map(|checks| Checked { listener, checks });
    let on = &Counting {
        listener: match &checked {
            Some(checked) => checked,
            None => listener,
        },
        errors: AtomicUsize::new(0),
    };
    let mut summary = SiteTally::default();
    if site.check_links == Some(Host::CloudflarePages) && cloudflare::SinglePage::of(site.dir()) {
        on.warning(&Document::Run, &SourceWarning::new(&cloudflare::SinglePage));
        summary.warnings += 1;
    }
    if let Some(unread) = checks.as_ref().and_then(|c| c.redirects().unread()) {
        let unread = gitlab::Unread(unread.clone());
        on.warning(&Document::Run, &SourceWarning::new(&unread));
        summary.warnings += 1;
    }
    for met in met {
        match met {
            Met::Failure(path, e) => on.failure(&Document::File(&path), &e),
            Met::Note(path, note) => on.note(&Document::File(&path), note),
            Met::Passed(path, passed) => {
                on.warning(&Document::File(&path), &SourceWarning::new(&passed));
                summary.warnings += 1;
                match passed {
                    Passed::Outside => summary.outside += 1,
                    Passed::NotRegular { .. } => summary.not_regular += 1,
                }
            }
        }
    }
    let (config, _tree_drawn) = match site.relative {
        true => {
            let (tree, drawn) = tree("--relative")?;
            let mut relative = Config::clone(config);
            relative.local = Some(Arc::new(tree));
            (Arc::new(relative), Some(drawn))
        }
        false => (Arc::clone(config), None),
    };
    let config = &config;
    let written = written(site)?;
    if let (true, Missing::Placeholder, Some(dir)) = (site.relative, site.missing, &written) {
        placeholder::put(dir, site.out_dir.as_deref().unwrap_or(&site.dir))?;
    }
    let pages: Vec<&Entry> = entries.iter().filter(|e| e.document).collect();
    summary.seen = pages.len();
    on.progress(Progress::Found(pages.len()));
    if let (Some(copy), Some(_)) = (&written, &site.out_dir) {
        let (copied, linked) = super::tree::copy_others(site, copy, &entries, stop, on);
        summary.copied = copied;
        summary.linked = linked;
    }
    let listening = on.hears_links();
    // A check whose listener tells no link to another site: those are
    // counted, and no link is made of them.
    let sieve = checks.as_ref().filter(|_| !on.hears_off_site());
    let sequence = Sequence::new(checks.is_some());
    let totals = Mutex::new(SiteTally::default());
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
                    sequence.done(index, path, Events::default(), None, &memory, on);
                    return;
                }
                // A share of the run's memory: a small one beside the
                // others, the head's for the oldest in flight; a file that
                // outgrows a small one is done again with the head's,
                // nothing of the first attempt told.
                let ticket = memory.enter(index as u64);
                let mut share = ticket.share();
                let (did, warnings, kind, heard, anchors, attempt) = loop {
                    let allowance = Allowance::new(share);
                    let attempt = Attempt::default();
                    let run = FileRun {
                        site,
                        written: written.as_ref(),
                        config,
                        listening,
                        sieve,
                        on: &attempt,
                    };
                    let (did, warnings, kind, heard, anchors) =
                        page(run, entry, buffers, &allowance);
                    // Only a small share is outgrown: the head's is the most
                    // a document may hold, and past it the document fails.
                    if did == FileOutcome::Again && !allowance.is_head() {
                        drop((heard, allowance));
                        share = ticket.head_share();
                        continue;
                    }
                    break (did, warnings, kind, heard, anchors, attempt);
                };
                drop(ticket);
                attempt.tell(on);
                if matches!(did, FileOutcome::Failed) {
                    heard.edit(|links| left_as_it_was(links));
                }
                let changes = heard.count(would_change);
                if let Some(checks) = &checks {
                    checks.passed(heard.passed());
                }
                // Its links go on, checked, in order; its share with them.
                let page = checks
                    .as_ref()
                    .map(|checks| checks.page(&entry.relative, anchors));
                let check = page.as_ref().map(|page| Check {
                    checks: page,
                    document: Document::File(path),
                });
                sequence.done(index, path, heard, check, &memory, on);
                let mut t = totals.lock().expect("no worker panics");
                t.warnings += warnings;
                t.changes += changes;
                match kind {
                    Some(Type::Css) => t.css += 1,
                    Some(Type::Xml) => t.xml += 1,
                    Some(Type::Html) | None => {}
                }
                let done = match did {
                    FileOutcome::Rewritten { urls } => {
                        t.rewritten += 1;
                        t.urls_rewritten += urls;
                        Done::Rewritten { urls }
                    }
                    FileOutcome::Unchanged => {
                        t.unchanged += 1;
                        Done::Unchanged
                    }
                    FileOutcome::Failed => {
                        t.failed += 1;
                        Done::Failed
                    }
                    FileOutcome::Left => {
                        t.left += 1;
                        Done::Unchanged
                    }
                    // The head share outgrown: `page` says it failed.
                    FileOutcome::Again => {
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
    summary.links = checks.map(|checks| checks.tally());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rewriter;
    use crate::url::Layers;

    /// What a listener was told of each link: its value, and whether it
    /// came checked.
    #[derive(Default)]
    struct Told(Mutex<Vec<(String, bool)>>);

    impl Listener for Told {
        fn hears_links(&self) -> bool {
            true
        }

        fn link(&self, _: &Document<'_>, link: Link) {
            self.0.lock().unwrap().push((link.original, false));
        }

        fn checked(&self, _: &Document<'_>, link: Link, _: Option<Served>) {
            self.0.lock().unwrap().push((link.original, true));
        }
    }

    /// Every link leads to a file.
    struct Every;

    impl crate::source::listener::Checks for Every {
        fn served(&self, _: &Document<'_>, _: &Link) -> Option<Served> {
            Some(Served::File(b"found.html".to_vec()))
        }

        fn told(&self, _: &Link, _: Option<&Served>) {}
    }

    fn events(page: &str) -> Events {
        let config = Arc::new(Config::default());
        let layers = Layers::default()
            .with_retrieval(config.standard, "https://example.com/", "--site-url")
            .unwrap();
        let mut rewriter = Rewriter::new(Type::Html, config, layers, Vec::new()).with_links();
        let events = rewriter.events();
        rewriter.write(page.as_bytes()).unwrap();
        rewriter.end().unwrap();
        events
    }

    /// A worker stopped (Ctrl-C) before its file whose turn comes first
    /// tells the files after it that wait: their links are told checked,
    /// as their own workers checked them (the stopped worker has no check
    /// of its own, and they were told unchecked).
    #[test]
    fn a_stopped_worker_tells_the_links_waiting_after_it_checked() {
        let memory = Memory::new(1 << 20);
        let told = Told::default();
        let sequence = Sequence::new(true);
        let (first, second) = (Path::new("a.html"), Path::new("b.html"));
        let check = Check {
            checks: &Every,
            document: Document::File(second),
        };
        // The second file is done first: it waits for the first.
        sequence.done(
            1,
            second,
            events("<a href=c.html>c</a>"),
            Some(check),
            &memory,
            &told,
        );
        assert!(told.0.lock().unwrap().is_empty());
        // The first file's worker was stopped before reading it.
        sequence.done(0, first, Events::default(), None, &memory, &told);
        assert_eq!(*told.0.lock().unwrap(), [("c.html".to_owned(), true)]);
    }
}
