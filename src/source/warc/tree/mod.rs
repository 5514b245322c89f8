//! An archive made a browsable tree (`--warc ARCHIVE --out-dir DIR`): each
//! URL's latest capture saved as a file under `DIR`, named from its URL
//! (`url::saved`), its payload decoded of its transfer and content
//! codings, and every link of its pages, stylesheets and SVG to another
//! file saved made the relative reference a browser follows from the disk
//! (`file://`); links to what the archive lacks stay absolute (or as
//! written, `--missing as-written`); feeds and sitemaps keep theirs.
//!
//! Two passes over the archive: the first reads each record's header and
//! HTTP head (`captures`; a `resource` record's payload has none, and is
//! read as a 200 response's of its `Content-Type`): which capture of a URL
//! is saved (the latest),
//! where a redirect leads (the file its chain ends at), which response a
//! revisit is, and the file of each, every name checked against every
//! other before a file is written; the second writes each file, staged
//! whole before it takes its name, in a tree opened directory by
//! directory without following a link. What is not saved is told, with
//! why, as what is saved is: to the listener, URL by URL.

mod captures;
mod write;

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use captures::Captures;
use write::{RecordWritten, Workers, Writer};

use crate::document::config::Config;
use crate::document::memory::{Allowance, Memory};
use crate::source::archived::Named;
use crate::source::http;
use crate::source::listener::{Document, Done, Listener, Saved, SourceWarning};
use crate::source::names;
use crate::source::output::dir::Dir;
use crate::source::output::{SourceError, lowercase};
use crate::source::placeholder;
use crate::source::summary::{Summary, Tally, plural};
use crate::source::warc::capture;
use crate::source::warc::input::Inflating;
use crate::source::warc::records::{Broken, Found, Records};
use crate::url::{LocalTree, Missing};

/// What an archive made a tree did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TreeTally {
    /// Records read.
    pub records: u64,
    /// Files saved, and of those, documents whose links were rewritten.
    pub saved: usize,
    pub rewritten: usize,
    /// URLs that are redirects to a file saved.
    pub redirected: usize,
    /// URLs captured and not saved (each told, with why).
    pub unsaved: usize,
    /// Files that could not be written.
    pub failed: usize,
    /// URL values rewritten.
    pub urls: usize,
    pub warnings: usize,
    /// A warning stopped a document's rewriting, or the archive breaks.
    pub incomplete: bool,
}

impl TreeTally {
    fn line(&self, out: &Path, seconds: f64) -> String {
        format!(
            "{} record{}: {} file{} saved in {} ({} rewritten, {} URL{} made relative or absolute), {} redirect{} to them, {} URL{} not saved, {} failed; {} warning{}, {seconds:.2} s",
            self.records,
            plural(self.records),
            self.saved,
            plural(self.saved),
            names::quoted(out),
            self.rewritten,
            self.urls,
            plural(self.urls),
            self.redirected,
            plural(self.redirected),
            self.unsaved,
            plural(self.unsaved),
            self.failed,
            self.warnings,
            plural(self.warnings),
        )
    }
}

/// How an archive is saved as a tree, besides its documents' config.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Options {
    /// `--content-location`: a base in a response's header.
    pub content_location: bool,
    /// `--missing`: what becomes of a link to what the archive lacks.
    pub missing: Missing,
    /// `--at`: the capture of a URL closest to this time; the latest when
    /// `None`.
    pub at: Option<SystemTime>,
    /// `--jobs`: records written at once (each read whole first, where
    /// the memory of what waits between threads has room); 1 writes each
    /// as its block streams past.
    pub jobs: usize,
}

/// The time `text` says: RFC 3339 (`2024-05-01T10:00:00Z`), or a WARC
/// timestamp of 4 to 14 digits (`20240501`: what pywb's URLs hold), its
/// missing digits the start of the period they name.
pub(crate) fn date(text: &str) -> Option<SystemTime> {
    let text = text.trim();
    if (4..=14).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit()) {
        let d = format!("{text:0<14}");
        // A month or day of 0 (a padded `2024`) is the first.
        let (month, day) = (&d[4..6], &d[6..8]);
        let month = if month == "00" { "01" } else { month };
        let day = if day == "00" { "01" } else { day };
        let rfc3339 = format!(
            "{}-{month}-{day}T{}:{}:{}Z",
            &d[..4],
            &d[8..10],
            &d[10..12],
            &d[12..14]
        );
        return humantime::parse_rfc3339_weak(&rfc3339).ok();
    }
    humantime::parse_rfc3339_weak(text)
        .or_else(|_| humantime::parse_rfc3339(text))
        .ok()
}

/// Saves the archive at `input` as a tree under `out`, telling `listener`
/// what becomes of each URL.
pub(crate) fn run(
    config: &Arc<Config>,
    options: Options,
    input: &Path,
    out: &Path,
    listener: &dyn Listener,
) -> Result<Summary, SourceError> {
    let made = !out.exists();
    let run = saved(config, options, input, out, listener);
    if run.is_err() && made {
        // Refused before a file was written: no directory is left either
        // (one with files in it stays, with what was saved).
        let _ = std::fs::remove_dir(out);
    }
    run
}

fn saved(
    config: &Arc<Config>,
    options: Options,
    input: &Path,
    out: &Path,
    listener: &dyn Listener,
) -> Result<Summary, SourceError> {
    let Options {
        content_location,
        missing,
        at,
        jobs,
    } = options;
    let started = Instant::now();
    let memory = Memory::new(config.max_memory);
    let mut tally = TreeTally::default();
    let name = names::quoted(input);
    let read_error = |e: io::Error| SourceError::Read(name.clone(), lowercase(&e));
    let open = || File::open(input).map_err(read_error);

    // The first pass: every capture, and the tree.
    // The captures are the pass's one holder beside the reading: they take
    // the head share, what one document of a run may hold.
    let mut captures = Captures::at(at);
    let share = Allowance::new(memory.alone());
    let mut held = share.budget();
    // With jobs, gzip members are inflated ahead of the reading on a pool
    // of as many threads, in both passes (as `--warc` with jobs does).
    let inflating = || -> Result<Option<Inflating>, SourceError> {
        if jobs <= 1 {
            return Ok(None);
        }
        let pool = crate::source::warc::convert::pool(jobs).map_err(read_error)?;
        Ok(Some(Inflating::new(pool, jobs, memory.clone())))
    };
    let mut records = Records::new(open()?, &memory, inflating()?).map_err(read_error)?;
    let number = capture::each(
        &mut records,
        |broken| told(broken, listener, Some(&mut tally)).map_err(read_error),
        |header, capture| {
            let number = capture.record + 1;
            let size = captures.add(header, capture);
            held.take(size)
                .map_err(|_| capture::too_many(&name, config.max_memory, number))
        },
    )?;
    tally.records = number;
    std::fs::create_dir_all(out).map_err(|e| SourceError::Write(names::quoted(out), e))?;
    let fold_case = folds_case(out).map_err(|e| SourceError::Write(names::quoted(out), e))?;
    let mut tree = captures.tree(fold_case);
    // The tree the links are made relative within, drawn from what waits
    // between threads (a quarter) before the captures give back theirs.
    let local = LocalTree::saved(std::mem::take(&mut tree.names)).with_missing(missing);
    let mut tree_held = memory.drawn();
    if tree_held.grow(local.size()).is_err() {
        return Err(SourceError::Refused(format!(
            "the tree of {name} needs more than a quarter of the memory limit of {} bytes (--max-memory): give more",
            config.max_memory
        )));
    }
    drop((held, share));
    for (url, why) in &tree.unsaved {
        listener.saved(url, &Saved::Not(why));
    }
    tally.unsaved = tree.unsaved.len();
    tally.redirected = tree.redirects.len();

    // The second pass: each file written, its links made relative.
    let mut config = (**config).clone();
    config.local = Some(Arc::new(local));
    let config = Arc::new(config);
    let root = Dir::open(out).map_err(|e| SourceError::Write(names::quoted(out), e))?;
    if missing == Missing::Placeholder {
        placeholder::put(&root, out)?;
    }
    let response_options = http::Options {
        content_location,
        strip_headers: true,
        kind: None,
    };
    let writer = Writer {
        config: &config,
        options: response_options,
        root: &root,
    };
    let mut records = Records::new(open()?, &memory, inflating()?).map_err(read_error)?;
    let tell = |written: RecordWritten, tally: &mut TreeTally| {
        told_written(out, written, tally, listener);
    };
    if jobs <= 1 {
        second_pass(
            &mut records,
            &tree,
            &mut tally,
            |_, files, found, records, tally| {
                let named = Named::of(&found.header, found.at);
                let allowance = Allowance::new(memory.alone());
                let feed = |sink: &mut dyn Write| fed(found, records, sink);
                match writer.files(files, &allowance, feed, |_| true) {
                    Ok(written) => {
                        let files = written.unwrap_or_default();
                        tell(RecordWritten { named, files }, tally);
                        Ok(())
                    }
                    Err(broken) => Err(broken),
                }
            },
        )
        .map_err(read_error)?;
    } else {
        std::thread::scope(|scope| {
            let mut workers = Workers::start(scope, &writer, jobs);
            let read = second_pass(
                &mut records,
                &tree,
                &mut tally,
                |record, files, found, records, tally| {
                    let named = Named::of(&found.header, found.at);
                    let ticket = memory.enter(record);
                    let head = resource_head(found);
                    match write::draw(&memory, found.length + head.len() as u64) {
                        Some(drawn) => {
                            let mut block = Vec::with_capacity(drawn.bytes());
                            block.extend_from_slice(&head);
                            records.block(found, Some(&mut block as &mut dyn Write))?;
                            workers.give(write::Held {
                                record,
                                named,
                                files: files.to_vec(),
                                block,
                                ticket,
                                drawn,
                            });
                        }
                        // No room for it to wait: it streams past here, once
                        // the records before it are done.
                        None => {
                            let allowance = Allowance::new(ticket.head_share());
                            let feed = |sink: &mut dyn Write| fed(found, records, sink);
                            let written = writer.files(files, &allowance, feed, |_| true)?;
                            let files = written.unwrap_or_default();
                            workers.done_here(record, RecordWritten { named, files });
                        }
                    }
                    for written in workers.told(false) {
                        tell(written, tally);
                    }
                    Ok(())
                },
            );
            for written in workers.told(true) {
                tell(written, &mut tally);
            }
            read
        })
        .map_err(read_error)?;
    }
    // Each redirect named with the file it ends at.
    for (url, path) in &tree.redirects {
        listener.saved(url, &Saved::Redirect(&out.join(OsStr::from_bytes(path))));
    }
    drop(tree_held);
    let failed = tally.failed;
    let incomplete = tally.incomplete || failed > 0;
    let line = tally.line(out, started.elapsed().as_secs_f64());
    Ok(Summary {
        documents: tally.saved + failed,
        rewritten: tally.rewritten,
        unchanged: tally.saved - tally.rewritten,
        failed,
        urls: tally.urls,
        warnings: tally.warnings,
        changes: 0,
        incomplete,
        interrupted: false,
        line: Some(line),
        details: Vec::new(),
        tally: Tally::new(tally),
    })
}

/// Tells `broken` (a break of the archive, or a record not framed as its
/// header says) and counts it in `tally` (none: told already, in the
/// first pass): whether the records go on.
fn told(
    broken: Broken,
    listener: &dyn Listener,
    tally: Option<&mut TreeTally>,
) -> io::Result<bool> {
    match broken {
        Broken::Io(e) => Err(e),
        Broken::Told(warning, go_on) => {
            if let Some(tally) = tally {
                tally.warnings += 1;
                tally.incomplete |= warning.stops_rewriting();
                listener.warning(&Document::Run, &SourceWarning::new(&*warning));
            }
            Ok(go_on)
        }
    }
}

/// The second pass: each record that has files handed to `write` (which
/// reads its block), every other record's block passed over; a record
/// whose block is not whole saves nothing (the archive changed since the
/// first pass, which told where).
fn second_pass<R: std::io::Read>(
    records: &mut Records<R>,
    tree: &captures::Tree,
    tally: &mut TreeTally,
    mut write: impl FnMut(
        u64,
        &[write::FileOf],
        &Found,
        &mut Records<R>,
        &mut TreeTally,
    ) -> Result<(), Broken>,
) -> io::Result<()> {
    let mut number = 0;
    loop {
        let found = match records.next() {
            Ok(Some(found)) => found,
            Ok(None) => return Ok(()),
            // Told in the first pass.
            Err(broken) => match told(broken, &(), None)? {
                true => continue,
                false => return Ok(()),
            },
        };
        let record = number;
        number += 1;
        let written = match tree.files.get(&record) {
            Some(files) => {
                write(record, files, &found, records, tally).map_err(|b| (b, files.len()))
            }
            None => records.block(&found, None).map_err(|b| (b, 0)),
        };
        if let Err((broken, files)) = written {
            tally.failed += files;
            tally.incomplete |= files > 0;
            if !told(broken, &(), None)? {
                return Ok(());
            }
        }
    }
}

/// Writes a record's block into `sink`: a resource record's behind the
/// HTTP head it is read with.
fn fed<R: std::io::Read>(
    found: &Found,
    records: &mut Records<R>,
    sink: &mut dyn Write,
) -> Result<(), Broken> {
    let head = resource_head(found);
    sink.write_all(&head).map_err(Broken::Io)?;
    records.block(found, Some(sink))
}

/// The head a record's block is read behind: none but a resource
/// record's.
fn resource_head(found: &Found) -> Vec<u8> {
    match found.header.record_type() == "resource" {
        true => capture::resource_head(&found.header),
        false => Vec::new(),
    }
}

/// Tells what became of a record's files, and counts it.
fn told_written(
    out: &Path,
    written: RecordWritten,
    tally: &mut TreeTally,
    listener: &dyn Listener,
) {
    let document = Document::Record(&written.named);
    for file in written.files {
        match file {
            write::Written::Failed { path, error } => {
                tally.failed += 1;
                listener.failure(
                    &document,
                    &SourceError::Write(shown_path(out, &path), error),
                );
            }
            write::Written::Saved { path, url, report } => {
                for warning in &report.warnings {
                    tally.warnings += warning.stands_for();
                    tally.incomplete |= warning.stops_rewriting();
                    listener.warning(&document, &SourceWarning::new(warning));
                }
                let urls = report.document.as_ref().map_or(0, |d| d.counts.rewritten);
                tally.saved += 1;
                tally.urls += urls;
                if urls > 0 {
                    tally.rewritten += 1;
                }
                let file = out.join(OsStr::from_bytes(&path));
                listener.saved(&url, &Saved::File(&file));
                let done = match (report.incomplete(), urls) {
                    (true, _) => Done::Failed,
                    (false, 0) => Done::Unchanged,
                    (false, urls) => Done::Rewritten { urls },
                };
                listener.done(&document, &done);
            }
        }
    }
}

/// A file of the tree as a message names it: its path under `out`.
fn shown_path(out: &Path, path: &[u8]) -> String {
    names::quoted(&out.join(OsStr::from_bytes(path)))
}

/// Whether the filesystem of `dir` takes names that differ only in case
/// for one (macOS's and Windows's by default): a file made there is found
/// by its name in capitals.
fn folds_case(dir: &Path) -> io::Result<bool> {
    let probe = tempfile::Builder::new()
        .prefix(".htmlabs-case-")
        .tempfile_in(dir)?;
    let name = probe.path().file_name().unwrap_or_default();
    let upper = name.to_string_lossy().to_ascii_uppercase();
    Ok(dir.join(upper).symlink_metadata().is_ok())
}
