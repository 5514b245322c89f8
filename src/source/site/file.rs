//! One file of the site: read, its type decided, rewritten by the engine
//! of its type within its share, and staged in its place whole, or left
//! as it was when nothing changed.

use std::borrow::Cow;
use std::collections::HashSet;
use std::fs::{File, Metadata};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::sync::Mutex;

use super::check::SiteCheck;
use super::{Entry, FROM, Site};
use crate::document::buffers::CHUNK;
use crate::document::config::Config;
use crate::document::events::Events;
use crate::document::memory::Allowance;
use crate::document::report::{Report, Warning};
use crate::html::xhtml;
use crate::source::listener::{Document, Listener, SourceWarning};
use crate::source::names;
use crate::source::output::dir::Dir;
use crate::source::output::spool::{Held, Spool};
use crate::source::output::staging::Staging;
use crate::source::output::{SourceError, lowercase, quoted};
use crate::source::typing::{Clue, decide, read_first, sniff_limit};
use crate::typed::{Rewriter, Type};
use crate::url::Layers;

/// A file's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum FileOutcome {
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

/// What a file's attempt told, told to the run only once the attempt
/// stands (an attempt that outgrew its small share is done again).
#[derive(Default)]
pub(super) struct Attempt {
    told: Mutex<Vec<(PathBuf, Said)>>,
}

enum Said {
    Warning(Warning),
    Failure(String),
    Note(String),
}

impl Attempt {
    pub(super) fn tell(self, on: &dyn Listener) {
        for (path, said) in self.told.into_inner().expect("no worker panics") {
            let document = Document::File(&path);
            match said {
                Said::Warning(w) => on.warning(&document, &SourceWarning::new(&w)),
                Said::Failure(e) => on.failure(&document, &SourceError::Refused(e)),
                Said::Note(n) => on.note(&document, &n),
            }
        }
    }
}

impl Listener for Attempt {
    fn warning(&self, document: &Document<'_>, warning: &SourceWarning<'_>) {
        if let (Document::File(path), Some(w)) = (document, warning.get::<Warning>()) {
            let said = (path.to_path_buf(), Said::Warning(w.clone()));
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

/// A worker's buffers, kept from file to file (unless a long file made
/// them large).
#[derive(Default)]
pub(super) struct Buffers {
    input: Vec<u8>,
    output: Vec<u8>,
}

/// The most a buffer of [`Buffers`] keeps from one file to the next.
const KEPT: usize = 1 << 20;

/// What every file of a site's run goes by: the site, the tree it is
/// written into (`--out-dir`, or none: in place), the config, whether the
/// link report is asked for, and who is told.
#[derive(Clone, Copy)]
pub(super) struct FileRun<'a> {
    pub(super) site: &'a Site,
    pub(super) written: Option<&'a Dir>,
    pub(super) config: &'a Arc<Config>,
    pub(super) listening: bool,
    /// A link check that makes no link to another site (its listener
    /// tells none): its sieve keeps them from a page's links.
    pub(super) sieve: Option<&'a SiteCheck<'a>>,
    pub(super) on: &'a dyn Listener,
}

/// One document: rewritten, and written only if it changed. What became of
/// it, its warnings, the type it was read as, its links, and a page's
/// anchors when its links are checked (`--check-links`) and its read found
/// them all.
///
/// A file of up to an eighth of what its `allowance` has is read whole
/// (taken from it); a longer one streams from its file. Either way its
/// output is held in memory while the run's memory has room for it, and
/// in a temporary file past it (a file's output is compared with it before
/// it is written): a long file costs no more memory than a short one.
pub(super) fn page(
    run: FileRun<'_>,
    entry: &Entry,
    buffers: &mut Buffers,
    allowance: &Rc<Allowance>,
) -> (
    FileOutcome,
    usize,
    Option<Type>,
    Events,
    Option<HashSet<String>>,
) {
    let on = run.on;
    let path = &entry.path;
    let failed = |e: SourceError| {
        on.failure(&Document::File(path), &e);
        FileOutcome::Failed
    };
    let read_error = |e: io::Error| SourceError::Read(quoted(path), lowercase(&e));
    let (mut file, metadata) = match open(path) {
        Ok(opened) => opened,
        Err(e) => return (failed(e), 0, None, Events::default(), None),
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
            return (failed(read_error(e)), 0, None, Events::default(), None);
        }
    }
    let mut source = FileBytes {
        file: &mut file,
        whole: whole.then_some(&input[..]),
    };
    let mut kind = None;
    let mut events = Events::default();
    let mut anchors = None;
    let (did, warnings) = rewrite_page(
        run,
        entry,
        &mut source,
        &metadata,
        &mut buffers.output,
        (&mut kind, &mut events, &mut anchors),
        allowance,
    )
    .unwrap_or_else(|e| (failed(e), 0));
    buffers.input = kept(input);
    (did, warnings, kind, events, anchors)
}

/// A file's bytes: in memory when read whole, else in its file.
struct FileBytes<'a> {
    file: &'a mut File,
    whole: Option<&'a [u8]>,
}

impl FileBytes<'_> {
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

impl Held for FileBytes<'_> {
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
/// (`kind`) decided by its extension and its first bytes; its rewriter's
/// `events` (its links, when `listening`) kept for the run.
fn rewrite_page(
    run: FileRun<'_>,
    entry: &Entry,
    source: &mut FileBytes<'_>,
    metadata: &Metadata,
    output: &mut Vec<u8>,
    (kind, events, anchors): (&mut Option<Type>, &mut Events, &mut Option<HashSet<String>>),
    allowance: &Rc<Allowance>,
) -> Result<(FileOutcome, usize), SourceError> {
    let FileRun {
        site,
        written,
        config,
        listening,
        sieve,
        on,
    } = run;
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
            // A check cannot pass a page whose links it cannot read as a
            // browser does: it fails, as a page past the memory limit does.
            if site.check_links.is_some() {
                let e = SourceError::Refused(format!("{}: not checked: {warning}", quoted(path)));
                on.failure(&document, &e);
                return Ok((FileOutcome::Failed, 0));
            }
            on.warning(&document, &SourceWarning::new(&warning));
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
                    return Ok((FileOutcome::Again, 0));
                }
                let e = SourceError::Refused(format!(
                    "{}: left as it was: its type cannot be told within the memory limit (--max-memory)",
                    quoted(path)
                ));
                on.failure(&document, &e);
                return Ok((FileOutcome::Failed, 0));
            }
            Cow::Owned(first)
        }
    };
    let decided = decide(None, Clue::Extension(extension), &first, config.encoding);
    let Some(of_type) = decided.kind else {
        // Any other XML: as it is (into the copy too).
        put(site, written, entry, source, metadata, true, 0)?;
        return Ok((FileOutcome::Left, 0));
    };
    *kind = Some(of_type);
    let url = site.url_of(&entry.relative);
    let layers = Layers::default()
        .with_retrieval(config.standard, &url, FROM)
        .map_err(|e| SourceError::Refused(e.to_string()))?;
    // A link check writes nothing and tells no file as changed: the page
    // is read for its links, and none of it is kept.
    let checking = site.check_links.is_some();
    let mut spool = match checking {
        true => Spool::discarding(),
        false => Spool::reusing(std::mem::take(output), allowance.memory()),
    };
    // Warnings are told after each write; links are kept (taken from the
    // file's share) to be told in the files' order.
    let mut rewriter = Rewriter::new(of_type, Arc::clone(config), layers, &mut spool)
        .with_allowance(Rc::clone(allowance));
    rewriter = match (listening, sieve) {
        (true, Some(check)) => rewriter.with_links_only(check.sieve()),
        (true, None) => rewriter.with_links(),
        (false, _) => rewriter,
    };
    if checking {
        rewriter = rewriter.with_anchors().discarding();
    }
    if decided.served_as_xml() {
        rewriter = rewriter.served_as_xml();
    }
    *events = rewriter.events();
    let told = rewriter.events();
    let mut warnings = 0;
    let mut tell = || {
        for warning in told.take_warnings() {
            warnings += warning.stands_for();
            on.warning(&document, &SourceWarning::new(&warning));
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
        return Ok((FileOutcome::Again, warnings));
    }
    let mut report = match ended {
        Ok((report, _)) => report,
        Err(e) => {
            let name = quoted(path);
            let e = SourceError::of(e, &name, &name);
            on.failure(&document, &e);
            return Ok((FileOutcome::Failed, warnings));
        }
    };
    if report.incomplete() || events.over() {
        let why = match report.incomplete() {
            true => stopped(&report).to_owned(),
            false => format!(
                "its links do not fit the memory limit of {} bytes (--max-memory)",
                config.max_memory
            ),
        };
        let e = SourceError::Refused(format!("{}: left as it was: {why}", quoted(path)));
        on.failure(&document, &e);
        return Ok((FileOutcome::Failed, warnings));
    }
    *anchors = report.anchors.take();
    let urls = report.counts.rewritten;
    // Not compared when nothing was kept (a link check, which does not
    // tell the files it would change).
    let unchanged = match checking {
        true => urls == 0,
        false => same(&mut spool, source).map_err(read_error)?,
    };
    let did = put(site, written, entry, &mut spool, metadata, unchanged, urls);
    if !checking {
        *output = kept(spool.into_memory());
    }
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
fn same(output: &mut Spool, source: &mut FileBytes<'_>) -> io::Result<bool> {
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
) -> Result<FileOutcome, SourceError> {
    let did = if unchanged {
        FileOutcome::Unchanged
    } else {
        FileOutcome::Rewritten { urls }
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
