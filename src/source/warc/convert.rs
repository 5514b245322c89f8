//! The run: records read in order, each HTML response or resource handed
//! to its [`work`] (at once, or on a pool of threads with
//! `--jobs`), and what each work gave written in input order.
//!
//! Conversion mode (the default): the archive comes out as it came, byte
//! for byte, and each HTML response or resource that was rewritten is
//! followed by a `conversion` record (ISO 28500 §6.8: "an alternative
//! version of another record's content") whose block is the rewritten page,
//! decoded of its transfer and content codings. Replace mode: the record
//! itself is replaced by one carrying the rewritten page. A `warcinfo`
//! record naming htmlabs comes before the first new record. Where the
//! input breaks (a malformed record, a gzip member or zstd frame cut
//! short), the rest is copied as it is and ends the output: no new record
//! follows it, not even one for a page read before the break in the
//! same unit.

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{self, Read, Write};
use std::sync::{Arc, Mutex, mpsc};

use super::digest::Digest;
use super::header::Header;
use super::input::{Inflating, PEEK, Stop, Units, not_archive};
use super::order::Front;
use super::report::{ArchiveTally, ArchiveWarning, Named};
use super::work::{self, Kind, Mode, RecordDone, Work};
use super::write::{self, Packing, Record, now, record_id};
use crate::document::config::Config;
use crate::document::memory::Memory;
use crate::source::listener::Checks;
use crate::source::listener::{self, Document, Listener, Progress, SourceWarning};
use crate::source::listing::{left_as_it_was, would_change};
use crate::source::output::behind::{Direct, Out, write_behind};
use crate::source::output::spool::Spool;
use crate::typed::Type;

/// What a WARC run is asked, besides its documents' [`Config`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Options {
    /// `Content-Location:` is a base too (`--content-location`).
    pub content_location: bool,
    /// The flags of the run, for the `warcinfo` record.
    pub flags: String,
    /// Conversion records added, or records replaced.
    pub mode: Mode,
    /// How many records are rewritten at once: 1 (the default) on the
    /// calling thread, more on a pool of that many threads.
    pub jobs: usize,
    /// gzip's level (1-9) for the records htmlabs writes, when the input
    /// is gzip; unchanged records are copied as they came. `None`: the
    /// default; one given for an input that is not gzip is refused.
    pub gzip_level: Option<u32>,
    /// zstd's level (1-19), when the input is zstd; likewise.
    pub zstd_level: Option<i32>,
    /// Whether the digests of the records read whole (the pages, their
    /// block's and their payload's) are checked: not by a listing of
    /// links (`--links`, `--check-links`), which writes no record and
    /// whose links do not depend on them; they were a seventh of its
    /// time, a SHA-1 pass over each page per digest. Every other record's
    /// block digest is checked as it streams by all the same: where an
    /// archive's framing is wrong, it tells whether a record is whole.
    pub page_digests: bool,
}

impl Options {
    /// With new records at gzip `level`, said among the `warcinfo`
    /// record's flags when it is not the default.
    pub fn with_gzip_level(mut self, level: u32) -> Self {
        self.gzip_level = Some(level);
        if level != super::write::LEVEL {
            self.say(&format!("--gzip-level {level}"));
        }
        self
    }

    /// With new records at zstd `level`, said among the flags likewise.
    pub fn with_zstd_level(mut self, level: i32) -> Self {
        self.zstd_level = Some(level);
        if level != super::write::ZSTD_LEVEL {
            self.say(&format!("--zstd-level {level}"));
        }
        self
    }

    /// `flag` added to the flags the `warcinfo` record names.
    fn say(&mut self, flag: &str) {
        self.flags = [self.flags.as_str(), flag].join(" ").trim().to_owned();
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            content_location: false,
            flags: String::new(),
            mode: Mode::Conversion,
            jobs: 1,
            gzip_level: None,
            page_digests: true,
            zstd_level: None,
        }
    }
}

/// How many records may wait for their work, per thread. Many, so that a
/// slow page at the front does not leave a thread without work while the
/// pages after it are done (with 4, `--jobs 2` on two cores was 4-7%
/// slower on the bench archive); what bounds memory is the run's memory,
/// which their blocks draw from (in temporary files past it).
const RECORDS_PER_JOB: usize = 16;

/// The records handed out and not yet settled (written out, in order):
/// no more than `records` of them; past it, the reading waits.
struct Window {
    records: usize,
    waiting: usize,
    /// It was full, and is not yet half empty.
    draining: bool,
}

impl Window {
    fn new(jobs: usize) -> Self {
        Window {
            records: RECORDS_PER_JOB * jobs.max(1),
            waiting: 0,
            draining: false,
        }
    }

    fn full(&self) -> bool {
        self.waiting > self.records
    }

    /// Whether the reading waits for the records at the front: from when
    /// the window is full until it is half empty (waiting for one record
    /// at a time put the reading thread to sleep and woke it once a
    /// record, which cost it more than its reading).
    fn must_wait(&mut self) -> bool {
        if self.full() {
            self.draining = true;
        } else if self.waiting <= self.records / 2 {
            self.draining = false;
        }
        self.draining
    }

    fn handed_out(&mut self) {
        self.waiting += 1;
    }

    fn settled(&mut self) {
        self.waiting = self.waiting.saturating_sub(1);
    }
}

/// Rewrites the archive `input` gives into `output`, telling `listener`
/// what happens in input order (each record's warnings, its links, what
/// became of it; how far the run is, after each record); gives back the
/// tally and the output.
///
/// Fails when the input cannot be read or the output written, or when
/// it is not a WARC file (then before anything is written); a malformed
/// record is a warning, and the rest of the input comes out as it is.
pub fn convert<R: Read, W: Write + Send>(
    config: &Arc<Config>,
    options: &Options,
    input: R,
    output: W,
    listener: &dyn Listener,
) -> Result<(ArchiveTally, W), Error> {
    convert_to(config, options, input, output, listener, true, None)
}

/// An archive's link check's second pass: each page's links checked on
/// its worker with `checks`, in the `total` bytes of memory that the
/// captures leave (less than `--max-memory`, which messages still name).
#[derive(Clone, Copy)]
pub(crate) struct Checking<'a> {
    pub total: usize,
    pub checks: &'a dyn Checks,
}

/// [`convert`]; with `write` false the output goes nowhere (`--check`,
/// `--links`), and the new records are not made, only counted and told;
/// with `checking`, an archive's link check.
pub(crate) fn convert_to<R: Read, W: Write + Send>(
    config: &Arc<Config>,
    options: &Options,
    input: R,
    output: W,
    listener: &dyn Listener,
    write: bool,
    checking: Option<Checking<'_>>,
) -> Result<(ArchiveTally, W), Error> {
    // What is not a WARC file is refused before a byte is written: an
    // output would be the input under an archive's name.
    let mut first = Vec::new();
    let mut input = input;
    input
        .by_ref()
        .take(PEEK)
        .read_to_end(&mut first)
        .map_err(Error::Read)?;
    if let Some(why) = not_archive(&first) {
        return Err(Error::NotWarc(why));
    }
    let input = io::Cursor::new(first).chain(input);
    let checks = checking.map(|c| c.checks);
    let submit = |work, done: mpsc::Sender<RecordDone>| {
        let _ = done.send(work::work(config, options.content_location, checks, work));
    };
    let jobs = match options.jobs {
        0 | 1 => None,
        jobs => Some(jobs),
    };
    // The run's memory: `--max-memory`, for every record in flight and all
    // that waits between the threads.
    let memory = match checking {
        Some(Checking { total, .. }) => Memory::part_of(total, config.max_memory),
        None => Memory::new(config.max_memory),
    };
    let asked = RunSetup {
        options,
        listener,
        write,
        memory: memory.clone(),
        checked: checks.is_some(),
    };
    let Some(jobs) = jobs else {
        let read = read_through(&asked, input, Direct(output), None, &submit);
        return read.map(|(tally, out)| (tally, out.0));
    };
    let pool = pool(jobs).map_err(Error::Read)?;
    // The pool rewrites and, ahead of the reading, inflates; the reading
    // stays on this thread, and the writing has a thread of its own.
    let inflating = Inflating::new(Arc::clone(&pool), jobs, memory);
    let (read, written) = write_behind(output, |behind| {
        pool.in_place_scope(|scope| {
            let spawn = |work, done| scope.spawn(move |_| submit(work, done));
            read_through(&asked, input, behind, Some(inflating), &spawn).map(|(tally, _)| tally)
        })
    });
    let tally = read?;
    Ok((tally, written.map_err(Error::Write)?))
}

/// The pool of `jobs` threads: made the first time it is asked for and
/// kept for the process, each run's. A pool made for a run was dropped at
/// its end and its threads left to end on their own, still ending while
/// the next run began (a leak checker took what they held for leaks; a
/// library user paid the threads' start at each call).
pub(crate) fn pool(jobs: usize) -> io::Result<Arc<rayon::ThreadPool>> {
    static POOLS: Mutex<Vec<(usize, Arc<rayon::ThreadPool>)>> = Mutex::new(Vec::new());
    let mut pools = POOLS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((_, pool)) = pools.iter().find(|(n, _)| *n == jobs) {
        return Ok(Arc::clone(pool));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("htmlabs-warc-{i}"))
        .build()
        .map_err(io::Error::other)?;
    let pool = Arc::new(pool);
    pools.push((jobs, Arc::clone(&pool)));
    Ok(pool)
}

/// What a run is asked: its documents' setup, its options, who hears what
/// happens, whether new records are made.
struct RunSetup<'a> {
    options: &'a Options,
    listener: &'a dyn Listener,
    write: bool,
    memory: Memory,
    /// Whether each page's links come checked.
    checked: bool,
}

/// [`convert_to`], from the input's first bytes, into `out`; each work
/// given to `submit`.
fn read_through<R: Read, O: Out>(
    asked: &RunSetup<'_>,
    input: R,
    out: O,
    inflating: Option<Inflating>,
    submit: &Submit<'_>,
) -> Result<(ArchiveTally, O), Error> {
    let RunSetup {
        options,
        listener,
        write,
        ref memory,
        checked,
    } = *asked;
    let hold = options.mode == Mode::Replace;
    let units = Units::new(input, out, memory.clone(), hold, inflating).map_err(Error::Read)?;
    // A level for the other compression would do nothing: refused, before
    // anything is written.
    let is = if units.gzip() {
        "gzip"
    } else if units.zstd() {
        "zstd"
    } else {
        "not compressed"
    };
    if options.gzip_level.is_some() && !units.gzip() {
        return Err(Error::Level {
            flag: "--gzip-level",
            needs: "gzip",
            is,
        });
    }
    if options.zstd_level.is_some() && !units.zstd() {
        return Err(Error::Level {
            flag: "--zstd-level",
            needs: "zstd",
            is,
        });
    }
    let mut run = Run {
        options,
        packing: if units.gzip() {
            Packing::Gzip(options.gzip_level.unwrap_or(super::write::LEVEL))
        } else if units.zstd() {
            Packing::Zstd {
                level: options.zstd_level.unwrap_or(super::write::ZSTD_LEVEL),
                dictionary: units.dictionary().cloned(),
            }
        } else {
            Packing::Plain
        },
        digest: None,
        warcinfo: record_id(),
        warcinfo_written: false,
        broken: false,
        converted: Converted::default(),
        submitted: 0,
        settled: 0,
        window: Window::new(options.jobs),
        memory: memory.clone(),
        replaced: HashMap::new(),
        later: VecDeque::new(),
        tally: ArchiveTally::default(),
        listener,
        listening: listener.hears_links(),
        checked,
        write,
    };
    run.drive(units, submit)
}

/// Where an unchanged record's block goes as it streams by: its digest,
/// and a `warcinfo` record's first bytes.
struct Sinks<'a> {
    hasher: Option<&'a mut super::digest::Hasher>,
    start: Option<&'a mut Vec<u8>>,
}

impl Write for Sinks<'_> {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        if let Some(hasher) = &mut self.hasher {
            hasher.write_all(bytes)?;
        }
        if let Some(start) = &mut self.start {
            let n = bytes.len().min(64_usize.saturating_sub(start.len()));
            start.extend_from_slice(&bytes[..n]);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether a block that no record follows is whole all the same: its
/// `WARC-Block-Digest` is its digest. Then what follows it is bytes that
/// are no record, told on their own, and the record is read; else its
/// `Content-Length` may have cut it short, and it is copied as it is
/// (never rewritten from a guess). Hashed here, on the reading thread,
/// only then.
fn whole_by_digest(header: &Header, block: &mut Spool) -> io::Result<bool> {
    let Some(says) = header.get("WARC-Block-Digest") else {
        return Ok(false);
    };
    let Some(digest) = Digest::like(&says) else {
        return Ok(false);
    };
    let is = digest.of(&mut block.reader()?)?;
    Ok(is.eq_ignore_ascii_case(says.trim()))
}

/// What stops a run: the input cannot be read, or the output written, or
/// it is not a WARC file (why: what it starts with).
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    Read(io::Error),
    Write(io::Error),
    NotWarc(String),
    /// A compression level given for an archive of another compression.
    Level {
        flag: &'static str,
        needs: &'static str,
        is: &'static str,
    },
}

type RecordUnits<R, W> = Units<R, W, RecordDone>;

/// Hands a record's work to whoever does it, with where its result goes.
type Submit<'a> = dyn Fn(Work, mpsc::Sender<RecordDone>) + 'a;

/// What is told once the records before it are settled (so that the
/// warnings come in input order whatever the jobs).
struct Deferred {
    /// How many works were handed out before it.
    after: u64,
    what: DeferredNote,
}

enum DeferredNote {
    /// A warning about a record that was only copied.
    Warning(ArchiveWarning),
    /// A revisit read in replace mode: told if it names a record replaced.
    Revisit {
        named: Named,
        digest: Option<String>,
        refers_to: Option<String>,
    },
}

/// What tells that a page was converted by an earlier run: the records
/// after its unit. htmlabs writes a page's conversion after the unit that
/// holds the page (the `warcinfo` naming htmlabs before the first); a
/// second run over its output finds it there, tied to the page by its
/// fields: the conversion's `WARC-Refers-To` is the page's `WARC-Record-ID`,
/// its `WARC-Target-URI` the page's, and its `WARC-Warcinfo-ID` names a
/// `warcinfo` record of this archive whose block says `software:
/// htmlabs/`. Such a page gets no new record: a second run adds nothing.
///
/// Until the records after its unit say, a page's work waits to be
/// settled (it is done meanwhile): a few records (its conversion and that
/// `warcinfo`), whose bytes wait behind it.
#[derive(Default)]
struct Converted {
    /// The `warcinfo` records of htmlabs read so far, by ID.
    infos: HashSet<Vec<u8>>,
    /// The pages read since the last record that was none of theirs, in
    /// order.
    pending: Vec<Pending>,
    /// A `warcinfo` record was read since then: another one decides.
    info_read: bool,
    /// The works whose new record is not written: their page is converted.
    skip: HashSet<u64>,
}

struct Pending {
    /// Its `WARC-Record-ID` and `WARC-Target-URI`, as written.
    id: Vec<u8>,
    target: Vec<u8>,
    /// Which work it is, in the order they were handed out.
    work: u64,
    converted: bool,
}

impl Converted {
    /// The record whose header is `header` is read, the first of its
    /// unit when `starts_unit`.
    fn read(&mut self, header: &Header, starts_unit: bool) {
        if self.pending.is_empty() {
            return;
        }
        let field = |name| header.raw(name).map(<[u8]>::trim_ascii);
        match header.record_type().as_str() {
            "conversion" if field("WARC-Warcinfo-ID").is_some_and(|id| self.infos.contains(id)) => {
                let page = self.pending.iter_mut().find(|page| {
                    field("WARC-Refers-To") == Some(&page.id)
                        && field("WARC-Target-URI") == Some(&page.target)
                });
                if let Some(page) = page {
                    page.converted = true;
                    return;
                }
            }
            "warcinfo" if !self.info_read => {
                self.info_read = true;
                return;
            }
            _ => {}
        }
        if starts_unit {
            self.decide();
        }
    }

    /// A `warcinfo` record of htmlabs, its block starting with `start`.
    fn info(&mut self, header: &Header, start: &[u8]) {
        if start.starts_with(b"software: htmlabs/") {
            if let Some(id) = header.raw("WARC-Record-ID") {
                self.infos.insert(id.trim_ascii().to_vec());
            }
        }
    }

    /// A page read, and handed out as work `work`.
    fn page(&mut self, header: &Header, work: u64) {
        let field = |name| header.raw(name).map(<[u8]>::trim_ascii).unwrap_or_default();
        self.pending.push(Pending {
            id: field("WARC-Record-ID").to_vec(),
            target: field("WARC-Target-URI").to_vec(),
            work,
            converted: false,
        });
    }

    /// The records after the pages' units are not theirs (or there are
    /// none): the pages' fate is known.
    fn decide(&mut self) {
        for page in self.pending.drain(..) {
            if page.converted {
                self.skip.insert(page.work);
            }
        }
        self.info_read = false;
    }

    /// The first work whose fate is not yet known.
    fn first_pending(&self) -> Option<u64> {
        self.pending.first().map(|page| page.work)
    }
}

struct Run<'a> {
    options: &'a Options,
    /// How new records are compressed: as the input's.
    packing: Packing,
    /// How the input writes its digests, from the first one met.
    digest: Option<Digest>,
    /// The ID of the `warcinfo` record added before the first new record.
    warcinfo: Vec<u8>,
    warcinfo_written: bool,
    /// The input broke: the bytes of the unit where it did are copied as
    /// they are, and end the output. Nothing new may follow them (a
    /// reader would take it for the rest of the broken unit, and lose the
    /// records before it), so nothing new is written from then on.
    broken: bool,
    /// The pages whose conversion may already follow them.
    converted: Converted,
    /// Works handed out, and settled (written out, in order).
    submitted: u64,
    settled: u64,
    window: Window,
    /// In replace mode, the records replaced: by their payload digest
    /// (lowercased) and by their ID.
    replaced: HashMap<String, Named>,
    later: VecDeque<Deferred>,
    tally: ArchiveTally,
    listener: &'a dyn Listener,
    /// Whether the listener hears links: each page's are kept for it.
    listening: bool,
    /// Whether they come checked, each with what it leads to.
    checked: bool,
    /// Whether new records are made (else the output goes nowhere).
    write: bool,
    memory: Memory,
}

impl Run<'_> {
    fn warn(&mut self, warning: ArchiveWarning) {
        self.tally.warnings += warning.stands_for() as u64;
        self.tally.incomplete |= warning.stops_rewriting();
        let document = match &warning {
            ArchiveWarning::Record { record, .. }
            | ArchiveWarning::NotRewritten { record, .. }
            | ArchiveWarning::Digest { record, .. }
            | ArchiveWarning::NotReplaced { record, .. }
            | ArchiveWarning::Revisit { record, .. }
            | ArchiveWarning::Truncated { record, .. }
            | ArchiveWarning::AfterBreak { record } => Document::Record(record),
            ArchiveWarning::Malformed { .. } | ArchiveWarning::Misframed { .. } => Document::Run,
        };
        self.listener
            .warning(&document, &SourceWarning::new(&warning));
    }

    fn drive<R: Read, W: Out>(
        &mut self,
        mut units: RecordUnits<R, W>,
        submit: &Submit<'_>,
    ) -> Result<(ArchiveTally, W), Error> {
        let failed = |units: &mut RecordUnits<R, W>, e| {
            if units.write_broke() {
                Error::Write(e)
            } else {
                Error::Read(e)
            }
        };
        loop {
            let mut stop = match self.record(&mut units, submit) {
                Ok(true) => None,
                Ok(false) => break,
                Err(stop) => Some(stop),
            };
            if stop.is_some() {
                // No conversion follows the pages before.
                self.converted.decide();
            }
            if let Some(Stop::Misframed { at, why }) = stop {
                // The record is copied as it came (its unit held for
                // nothing, in replace mode: unless the unit is a new one,
                // its block having run on into it), and so is what follows
                // it up to the next record; told after the records before.
                if !units.at_unit_start() {
                    let output = units.output().map_err(Error::Write)?;
                    output.release().map_err(Error::Write)?;
                }
                stop = match units.read_on(at) {
                    Ok(next) => {
                        self.later.push_back(Deferred {
                            after: self.submitted,
                            what: DeferredNote::Warning(ArchiveWarning::Misframed {
                                at,
                                why,
                                next,
                            }),
                        });
                        if let Err(e) = units.record_ended() {
                            return Err(failed(&mut units, e));
                        }
                        None
                    }
                    Err(stop) => Some(stop),
                };
            }
            match stop {
                None | Some(Stop::Misframed { .. }) => {}
                Some(Stop::Io(e)) => return Err(failed(&mut units, e)),
                Some(Stop::Malformed { at, why }) => {
                    // What comes before is told first, whatever the jobs;
                    // the units over are written out with their new
                    // records, all but the one that breaks.
                    let output = units.output().map_err(Error::Write)?;
                    self.settle(output, true)?;
                    self.broken = true;
                    self.warn(ArchiveWarning::Malformed { at, why });
                    if let Err(e) = units.copy_rest() {
                        return Err(failed(&mut units, e));
                    }
                    break;
                }
            }
            self.listener.progress(Progress::Read {
                bytes: units.raw_offset(),
                records: self.tally.records,
            });
            let output = units.output().map_err(Error::Write)?;
            self.settle(output, false)?;
        }
        self.converted.decide();
        self.tally.bytes = units.raw_offset();
        let mut output = units.finish().map_err(Error::Write)?;
        self.settle(&mut output, true)?;
        self.tell_later(true);
        debug_assert!(output.is_empty());
        Ok((std::mem::take(&mut self.tally), output.into_inner()))
    }

    /// Writes out what is done at the front of the output; with `all`,
    /// waits for every work whose unit is over, else only while the
    /// window is full.
    fn settle<W: Out>(
        &mut self,
        output: &mut super::order::Ordered<W, RecordDone>,
        all: bool,
    ) -> Result<(), Error> {
        loop {
            let wait = all || self.window.must_wait();
            // Not a unit with a page whose fate is not yet known.
            if let Some(first) = self.converted.first_pending() {
                let works = output.front_works().map_err(Error::Write)?;
                if works.is_some_and(|n| self.settled + n as u64 > first) {
                    self.tell_later(false);
                    return Ok(());
                }
            }
            let Some(front) = output.front(wait).map_err(Error::Write)? else {
                self.tell_later(false);
                return Ok(());
            };
            self.settled_one(front, output.out())?;
        }
    }

    /// The unit at the front, its works done: their warnings told, and
    /// its bytes written (a new record in its place, or its bytes as they
    /// came and a conversion after them for each page rewritten).
    fn settled_one(&mut self, front: Front<RecordDone>, out: &mut dyn Out) -> Result<(), Error> {
        let Front { held, done } = front;
        let skip: Vec<bool> = (self.settled..)
            .take(done.len())
            .map(|work| self.converted.skip.remove(&work))
            .collect();
        let replaces = !self.broken && done.iter().zip(&skip).any(|(d, &s)| d.replaces && !s);
        if !replaces {
            out.hand(held).map_err(Error::Write)?;
        }
        for (done, converted) in done.into_iter().zip(skip) {
            self.settled += 1;
            self.window.settled();
            self.settled_work(done, converted, out)?;
            self.tell_later(false);
        }
        Ok(())
    }

    /// A work settled: what it tells, told, and its new record written,
    /// unless its page is `converted` already.
    fn settled_work(
        &mut self,
        mut done: RecordDone,
        converted: bool,
        out: &mut dyn Out,
    ) -> Result<(), Error> {
        if let Some(e) = done.failed {
            return Err(Error::Write(e));
        }
        if converted && done.changed {
            // Nothing is added after it.
            done.warnings
                .retain(|w| !matches!(w, ArchiveWarning::NotReplaced { .. }));
        }
        let mut failed = done.warnings.iter().any(ArchiveWarning::stops_rewriting);
        for warning in std::mem::take(&mut done.warnings) {
            self.warn(warning);
        }
        // A record kept as it is, its page's new record not made (it
        // failed) or not written (after a break): its links say so.
        let left = !done.changed || self.broken;
        let document = Document::Record(&done.named);
        let (tally, listener, checked) = (&mut self.tally, self.listener, self.checked);
        std::mem::take(&mut done.links)
            .each(|mut link, served| {
                if left {
                    left_as_it_was(std::slice::from_mut(&mut link));
                }
                tally.links += 1;
                tally.changes += u64::from(would_change(&link));
                match checked {
                    true => listener.checked(&document, link, served),
                    false => listener.link(&document, link),
                }
            })
            .map_err(Error::Write)?;
        if !done.changed {
            self.tally.urls += done.urls;
            self.page_done(done.page, &done.named, failed, None);
            return Ok(());
        }
        if converted {
            self.tally.converted += 1;
            self.page_done(done.page, &done.named, failed, None);
            return Ok(());
        }
        if self.broken {
            self.warn(ArchiveWarning::AfterBreak {
                record: done.named.clone(),
            });
            failed = true;
            self.page_done(done.page, &done.named, failed, None);
            return Ok(());
        }
        self.tally.urls += done.urls;
        if let Some(record) = done.record {
            if !self.warcinfo_written {
                self.write_warcinfo(&done.version, out)
                    .map_err(Error::Write)?;
                self.warcinfo_written = true;
            }
            out.hand(record).map_err(Error::Write)?;
        }
        self.tally.rewritten += 1;
        match done.kind {
            Some(Type::Css) => self.tally.rewritten_css += 1,
            Some(Type::Xml) => self.tally.rewritten_xml += 1,
            Some(Type::Html) | None => {}
        }
        self.page_done(done.page, &done.named, failed, Some(done.urls));
        if !done.replaces {
            self.tally.conversions += 1;
            return Ok(());
        }
        self.tally.replaced += 1;
        if let Some(digest) = &done.payload_digest {
            self.replaced
                .insert(digest.trim().to_ascii_lowercase(), done.named.clone());
        }
        self.replaced.insert(done.named.id.clone(), done.named);
        Ok(())
    }

    /// A record's page is done (when it has one): told, and counted.
    fn page_done(&mut self, page: bool, named: &Named, failed: bool, written: Option<u64>) {
        if !page {
            return;
        }
        self.tally.pages += 1;
        let done = match written {
            Some(urls) => listener::Done::Rewritten {
                urls: urls as usize,
            },
            None if failed => {
                self.tally.failed += 1;
                listener::Done::Failed
            }
            None => listener::Done::Unchanged,
        };
        self.listener.done(&Document::Record(named), &done);
    }

    /// Tells what waits for the records now settled; with `all`,
    /// everything.
    fn tell_later(&mut self, all: bool) {
        while let Some(later) = self.later.front() {
            if !all && later.after > self.settled {
                return;
            }
            let later = self.later.pop_front().expect("seen above");
            let (named, digest, refers_to) = match later.what {
                DeferredNote::Warning(warning) => {
                    self.warn(warning);
                    continue;
                }
                DeferredNote::Revisit {
                    named,
                    digest,
                    refers_to,
                } => (named, digest, refers_to),
            };
            let replaced = digest
                .as_deref()
                .and_then(|d| self.replaced.get(&d.trim().to_ascii_lowercase()))
                .or_else(|| self.replaced.get(refers_to.as_deref()?.trim()))
                .cloned();
            if let Some(replaced) = replaced {
                self.warn(ArchiveWarning::Revisit {
                    record: named,
                    replaced,
                });
            }
        }
    }

    /// Reads one record and hands out its work; `false` at the end.
    fn record<R: Read, W: Out>(
        &mut self,
        units: &mut RecordUnits<R, W>,
        submit: &Submit<'_>,
    ) -> Result<bool, Stop> {
        if !units.more()? {
            return Ok(false);
        }
        let at = units.place();
        let header = units.header()?;
        self.converted.read(&header, units.first_in_unit());
        let length = header
            .content_length()
            .map_err(|why| Stop::Misframed { at, why })?;
        if self.digest.is_none() {
            self.digest = ["WARC-Block-Digest", "WARC-Payload-Digest"]
                .iter()
                .find_map(|name| Digest::like(&header.get(name)?));
        }
        let kind = work::kind(&header);
        let named = || Named::of(&header, at);
        if kind == Kind::Other {
            units.output()?.release()?;
            if self.options.mode == Mode::Replace && header.record_type() == "revisit" {
                self.later.push_back(Deferred {
                    after: self.submitted,
                    what: DeferredNote::Revisit {
                        named: named(),
                        digest: header.get("WARC-Payload-Digest").map(|d| d.into_owned()),
                        refers_to: header.get("WARC-Refers-To").map(|d| d.into_owned()),
                    },
                });
            }
            // Its block digest checked as it streams by: it covers every
            // byte of the record (its payload digest is not checked: that
            // would need its HTTP head read, and where the two disagree it
            // is over what the payload is, not over the bytes).
            let says = header.get("WARC-Block-Digest");
            let mut hasher = says.as_deref().and_then(Digest::like).map(|d| d.hasher());
            // A `warcinfo`'s first bytes: whether htmlabs wrote it.
            let mut start = (header.record_type() == "warcinfo").then(Vec::new);
            let mut sinks = Sinks {
                hasher: hasher.as_mut(),
                start: start.as_mut(),
            };
            let read = units.block(at, length, Some(&mut sinks));
            if let Some(start) = start {
                self.converted.info(&header, &start);
            }
            if let (Some(says), Some(hasher)) = (says, hasher) {
                let is = hasher.value();
                let whole = is.eq_ignore_ascii_case(says.trim());
                // Not followed by a record, and yet whole (see
                // `whole_by_digest`): what follows it is told on its own.
                match read {
                    Err(Stop::Misframed { .. }) if whole => {}
                    read => read?,
                }
                if !whole {
                    self.later.push_back(Deferred {
                        after: self.submitted,
                        what: DeferredNote::Warning(ArchiveWarning::Digest {
                            record: named(),
                            field: "WARC-Block-Digest",
                            says: says.trim().to_owned(),
                            is,
                            or: None,
                        }),
                    });
                }
            } else {
                read?;
            }
            self.tally.records += 1;
            units.record_ended()?;
            return Ok(true);
        }
        let first = units.first_in_unit();
        let mut block = Spool::new(&self.memory);
        match units.block(at, length, Some(&mut block)) {
            Err(Stop::Misframed { at, why }) if !whole_by_digest(&header, &mut block)? => {
                return Err(Stop::Misframed { at, why });
            }
            Err(Stop::Misframed { .. }) | Ok(()) => {}
            Err(stop) => return Err(stop),
        }
        self.tally.records += 1;
        let asked = self.options.mode == Mode::Replace;
        let spans = units.spanned_units();
        // A unit that breaks after the record is found here in replace
        // mode, in conversion mode when the next record is looked for: in
        // both, the record's work is done, and its new record not written.
        let mut breaks = None;
        let alone = asked
            && first
            && !spans
            && match units.unit_over(units.place()) {
                Err(stop @ Stop::Malformed { .. }) => {
                    breaks = Some(stop);
                    false
                }
                over => over?,
            };
        self.converted.page(&header, self.submitted);
        let work = Work {
            header,
            block,
            kind,
            at,
            replace: alone,
            not_alone: (asked && !alone && breaks.is_none()).then_some(spans),
            digest: self.digest.clone().unwrap_or_default(),
            packing: self.packing.clone(),
            warcinfo: self.warcinfo.clone(),
            listen: self.listening,
            write: self.write,
            digests: self.options.page_digests,
            memory: self.memory.clone(),
            place: self.submitted,
        };
        let (sender, receiver) = mpsc::channel();
        units.output()?.work(alone, receiver);
        self.submitted += 1;
        self.window.handed_out();
        submit(work, sender);
        if let Some(stop) = breaks {
            return Err(stop);
        }
        units.record_ended()?;
        Ok(true)
    }

    /// The `warcinfo` record that says who added or changed the records
    /// that name it, and how.
    fn write_warcinfo(&mut self, version: &[u8], out: &mut dyn Write) -> io::Result<()> {
        let digest = self.digest.clone().unwrap_or_default();
        let format = if version == b"WARC/1.0" {
            "WARC File Format 1.0"
        } else {
            "WARC File Format 1.1"
        };
        let (description, mode) = match self.options.mode {
            Mode::Conversion => (
                "each HTML response rewritten with every link absolute (RFC 1808), as a conversion record after it",
                "conversion",
            ),
            Mode::Replace => (
                "each HTML response rewritten with every link absolute (RFC 1808), in a new record in place of the original",
                "replace",
            ),
        };
        let mut block = format!(
            "software: htmlabs/{}\r\nformat: {format}\r\ndescription: {description}\r\nhtmlabs-mode: {mode}\r\n",
            env!("CARGO_PKG_VERSION"),
        );
        if !self.options.flags.is_empty() {
            block.push_str(&format!("htmlabs-flags: {}\r\n", self.options.flags));
        }
        let mut block = block.as_bytes();
        let sum = digest.of(&mut &block[..])?.into_bytes();
        let fields = [
            ("WARC-Type", b"warcinfo".to_vec()),
            ("WARC-Date", now()),
            ("WARC-Record-ID", self.warcinfo.clone()),
            ("Content-Type", b"application/warc-fields".to_vec()),
            ("WARC-Block-Digest", sum),
            ("Content-Length", block.len().to_string().into_bytes()),
        ];
        Record {
            head: write::head(version, &fields),
            block: &mut block,
        }
        .write(&self.packing, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_full_past_its_records() {
        // Two jobs: 32 records.
        let mut window = Window::new(2);
        for _ in 0..32 {
            window.handed_out();
        }
        assert!(!window.full());
        window.handed_out();
        assert!(window.full(), "33 records");
        window.settled();
        assert!(!window.full());
    }

    #[test]
    fn runs_with_the_same_jobs_share_one_pool_kept_for_the_process() {
        let (a, b, c) = (pool(2).unwrap(), pool(2).unwrap(), pool(3).unwrap());
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&a, &c));
        assert_eq!((a.current_num_threads(), c.current_num_threads()), (2, 3));
    }

    #[test]
    fn once_full_the_window_is_waited_on_until_half_empty() {
        let mut window = Window::new(1);
        for _ in 0..16 {
            window.handed_out();
            assert!(!window.must_wait());
        }
        window.handed_out();
        assert!(window.must_wait(), "17 records: full");
        for left in (9..17).rev() {
            window.settled();
            assert!(window.must_wait(), "{left} records: still draining");
        }
        window.settled();
        assert!(!window.must_wait(), "8 records: half empty");
        window.handed_out();
        assert!(!window.must_wait(), "9 records, not full: reading on");
    }
}
