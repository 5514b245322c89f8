//! `--warc ARCHIVE --check-links`: each link of each document the archive
//! captured, classed by what the archive holds for its URL, as a replay of
//! it answers: **captured** (a 2xx response, or a revisit of one; of
//! several, the capture nearest in time to the linking document's is
//! named), **redirected** (a 3xx with a `Location`, followed to where the
//! chain ends, each hop the capture nearest in time), **captured as an
//! error** (4xx, 5xx, or a response that does not read), or **not
//! captured**: what a crawl that would mend the archive starts from. Links
//! of other schemes (`mailto:`), empty ones and a `<base href>` are not
//! checked.
//!
//! Two passes over the archive, so a file: the first reads each record's
//! header and HTTP head (`capture`) and keeps every capture of every URL
//! by the URL's key (`url::saved::key`: the scheme, a default port and the
//! host's case aside, as a replay looks a URL up); the second is the
//! archive's `--links` run (in parallel with jobs), each link looked up as
//! it is heard. The captures are held in the run's memory, at most the
//! head share of it (as an archive made a tree holds its captures), and past
//! it on disk (`captures`: an external sort, an index held); the second
//! pass runs in what they leave.

use std::collections::HashSet;
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::document::config::Config;
use crate::document::links::Link;
use crate::document::memory::{Allowance, Memory};
use crate::source::listener::{Checked, Checks, Document, Listener};
use crate::source::names;
use crate::source::output::stoppable::Stoppable;
use crate::source::output::{Input, Output, SourceError, lowercase};
use crate::source::summary::{Summary, Tally, plural};
use crate::source::warc::capture;
use crate::source::warc::captures::{Captures, Gather, Gathering, Seen, seconds};
use crate::source::warc::convert::Checking;
use crate::source::warc::records::{Broken, Records};
use crate::source::warc::{ArchiveTally, Options};
use crate::url::Served;
use crate::url::saved;

/// How many redirects are followed to where their chain ends.
const MAX_REDIRECTS: usize = 20;

/// What an archive's link check found, link by link: each link counted
/// once, by where it leads (a redirect's, by where its chain ends).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct CaptureTally {
    /// The archive's `--links` run: its records, documents, links and
    /// warnings.
    pub archive: ArchiveTally,
    /// Links to a capture, directly.
    pub captured: usize,
    /// Links to a redirect whose chain ends at a capture.
    pub redirected: usize,
    /// Links to an error captured (4xx, 5xx, a response that does not
    /// read), directly or at a chain's end.
    pub failed: usize,
    /// Links to a URL the archive holds nothing for, directly or at a
    /// chain's end; and chains of more than 20 redirects.
    pub not_captured: usize,
    /// Links not checked: of other schemes (`mailto:`), empty, with no
    /// base, or not valid in their document's encoding.
    pub unchecked: usize,
    /// With `--seeds`: each URL not captured (where a redirect's chain
    /// ends, for one that leads there), once (by its key: `http://A/x`
    /// and `https://a/x` are one), its fragment aside, in the order the
    /// links came.
    pub seeds: Vec<String>,
}

impl CaptureTally {
    /// The links that lead to nothing the archive holds, or to an error:
    /// what makes the check exit 1.
    pub fn broken(&self) -> usize {
        self.failed + self.not_captured
    }

    /// The line said at the end.
    fn line(&self, seconds: f64) -> String {
        let a = &self.archive;
        format!(
            "{} record{}, {} page{}, {} link{} checked: {} captured, {} redirected to a capture, {} captured as an error, {} not captured; {} not checked, {} warning{}, {seconds:.2} s",
            a.records,
            plural(a.records),
            a.pages,
            plural(a.pages),
            a.links,
            plural(a.links),
            self.captured,
            self.redirected,
            self.failed,
            self.not_captured,
            self.unchecked,
            a.warnings,
            plural(a.warnings),
        )
    }
}

/// What a capture is to a link.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Captured,
    Redirect,
    Failed,
}

fn class(seen: &Seen) -> Class {
    if capture::captured(seen.status, seen.revisit) {
        return Class::Captured;
    }
    match seen.status {
        300..=399 if seen.location.is_some() => Class::Redirect,
        _ => Class::Failed,
    }
}

/// What the archive answers `url` with (its fragment aside), for a
/// document captured at `at` (seconds; none: the latest captures);
/// `None` for a URL no capture can have (not `http:` or `https:`).
fn served(captures: &Captures, url: &str, at: Option<i64>) -> io::Result<Option<Served>> {
    let mut url = url.split_once('#').map_or(url, |(url, _)| url).to_owned();
    let Some(mut key) = saved::key(&url) else {
        return Ok(None);
    };
    let mut hops = 0;
    let ended = |hops: usize, url: String, end: Served| match hops {
        0 => end,
        _ => Served::Redirected(url, Box::new(end)),
    };
    let served = loop {
        let mut nearest = Nearest::default();
        captures.each(&key, |seen| nearest.offer(seen, at))?;
        if let Some(seen) = nearest.captured {
            break ended(hops, url, Served::Captured(seen.date.into()));
        }
        if let Some(seen) = nearest.redirect {
            if hops == MAX_REDIRECTS {
                break ended(hops, url, Served::Looped);
            }
            hops += 1;
            url = seen.location.unwrap_or_default().into();
            match saved::key(&url) {
                Some(next) => key = next,
                None => break ended(hops, url, Served::NotCaptured),
            }
            continue;
        }
        break match nearest.failed {
            Some(seen) => ended(
                hops,
                url,
                Served::Failed {
                    status: seen.status,
                    date: seen.date.into(),
                },
            ),
            None => ended(hops, url, Served::NotCaptured),
        };
    };
    Ok(Some(served))
}

/// Of a URL's captures of each class, the one nearest in time to `at`
/// (none: the latest); of two as near, the later one, and of two alike,
/// the later record.
#[derive(Default)]
struct Nearest {
    captured: Option<Seen>,
    redirect: Option<Seen>,
    failed: Option<Seen>,
}

impl Nearest {
    fn offer(&mut self, seen: &Seen, at: Option<i64>) {
        let best = match class(seen) {
            Class::Captured => &mut self.captured,
            Class::Redirect => &mut self.redirect,
            Class::Failed => &mut self.failed,
        };
        let better = match best {
            None => true,
            Some(best) => match (at, seen.seconds, best.seconds) {
                (Some(at), Some(this), Some(that)) => {
                    let (this_far, that_far) = (this.abs_diff(at), that.abs_diff(at));
                    this_far < that_far || (this_far == that_far && this >= that)
                }
                (_, Some(_), None) => true,
                (_, None, Some(_)) => false,
                (None, Some(this), Some(that)) => this >= that,
                (_, None, None) => true,
            },
        };
        if better {
            *best = Some(seen.clone());
        }
    }
}

/// Checks the links of the archive `archive` against its captures,
/// telling `listener` each link with what the archive answers it with.
/// With `seeds`, it keeps each URL not captured. Once `stop` is set (the
/// caller has gone), the archive's next read fails: the run ends there.
pub(crate) fn run(
    config: &Arc<Config>,
    options: &Options,
    archive: &Path,
    seeds: bool,
    listener: &dyn Listener,
    stop: &Arc<AtomicBool>,
) -> Result<Summary, SourceError> {
    let started = Instant::now();
    let name = names::quoted(archive);
    let read_error = |e: io::Error| SourceError::Read(name.clone(), lowercase(&e));
    let memory = Memory::new(config.max_memory);

    // The first pass: every capture. They take the head share, what one
    // document of a run may hold; past it they go to disk.
    let share = Allowance::new(memory.alone());
    let spill_error =
        |e: io::Error| SourceError::Write(format!("the captures of {name} to disk"), e);
    let gathered = |e: Gather, number: u64| match e {
        Gather::Full => capture::too_many(&name, config.max_memory, number),
        Gather::Io(e) => spill_error(e),
    };
    let mut gathering = Gathering::new(share.budget(), options.jobs);
    let open = || {
        let file = File::open(archive).map_err(read_error)?;
        Ok::<_, SourceError>(Stoppable::new(file, Arc::clone(stop)))
    };
    let mut records = Records::new(open()?, &memory, None).map_err(read_error)?;
    let number = capture::each(
        &mut records,
        |broken| goes_on(broken).map_err(read_error),
        |_, capture| {
            let number = capture.record + 1;
            gathering.add(capture).map_err(|e| gathered(e, number))
        },
    )?;
    drop(records);
    let (captures, held) = gathering.finish().map_err(|e| gathered(e, number))?;

    // The seeds may hold a quarter of the run's memory; the second pass
    // runs in what they and the captures leave.
    let seeds_share = if seeds { config.max_memory / 4 } else { 0 };
    let rest = config
        .max_memory
        .saturating_sub(held.taken() + seeds_share)
        .max(1);
    let checks = ArchiveCheck {
        captures: &captures,
        counts: Default::default(),
        unread: Mutex::new(None),
        seeds: seeds.then(|| {
            Mutex::new(Seeds {
                keys: HashSet::new(),
                urls: Vec::new(),
                left: seeds_share,
                over: false,
            })
        }),
    };
    let checked = Checked {
        listener,
        checks: &checks,
    };
    let input = Input::Reader {
        reader: Box::new(open()?),
        name: name.clone(),
    };
    let discard = Output::Discard;
    // Each page's links checked on its worker, told in order.
    let checking = Checking {
        total: rest,
        checks: &checks,
    };
    let summary = super::run(config, options, input, discard, &checked, Some(checking))?;
    drop((held, share));
    if let Some(e) = checks
        .unread
        .into_inner()
        .unwrap_or_else(|e| e.into_inner())
    {
        return Err(spill_error(e));
    }
    let archive_tally = summary
        .tally
        .get::<ArchiveTally>()
        .cloned()
        .unwrap_or_default();
    let n = |i: usize| checks.counts[i].load(Ordering::Relaxed);
    let seeds = match checks
        .seeds
        .map(|s| s.into_inner().unwrap_or_else(|e| e.into_inner()))
    {
        Some(seeds) if seeds.over => {
            return Err(SourceError::Refused(format!(
                "the URLs {name} did not capture need more than a quarter of the memory limit of {} bytes (--max-memory) as seeds: give more",
                config.max_memory
            )));
        }
        Some(seeds) => seeds.urls,
        None => Vec::new(),
    };
    let tally = CaptureTally {
        archive: archive_tally,
        captured: n(CAPTURED),
        redirected: n(REDIRECTED),
        failed: n(FAILED),
        not_captured: n(NOT_CAPTURED),
        unchecked: n(UNCHECKED),
        seeds,
    };
    Ok(Summary {
        line: Some(tally.line(started.elapsed().as_secs_f64())),
        details: Vec::new(),
        tally: Tally::new(tally),
        ..summary
    })
}

/// Whether the records go on past `broken`; told by the second pass.
fn goes_on(broken: Broken) -> io::Result<bool> {
    match broken {
        Broken::Io(e) => Err(e),
        Broken::Told(_, go_on) => Ok(go_on),
    }
}

/// The counts, by where a link leads.
const CAPTURED: usize = 0;
const REDIRECTED: usize = 1;
const FAILED: usize = 2;
const NOT_CAPTURED: usize = 3;
const UNCHECKED: usize = 4;

/// The second pass's check: each link heard looked up in the captures.
struct ArchiveCheck<'a> {
    captures: &'a Captures,
    counts: [AtomicUsize; 5],
    /// What went wrong reading the captures spilled, if anything did (the
    /// link it was looked up for is not checked, and the run fails).
    unread: Mutex<Option<io::Error>>,
    /// With `--seeds`, the URLs not captured so far, and the memory they
    /// may hold.
    seeds: Option<Mutex<Seeds>>,
}

/// The URLs not captured, each once, and what they hold of their share.
struct Seeds {
    keys: HashSet<String>,
    urls: Vec<String>,
    left: usize,
    /// They outgrew their share: the list is not whole.
    over: bool,
}

impl Seeds {
    /// Keeps `url` (its fragment aside) unless a URL of its key is kept.
    fn add(&mut self, url: &str) {
        let url = url.split_once('#').map_or(url, |(url, _)| url);
        let Some(key) = saved::key(url) else { return };
        if self.over || self.keys.contains(&key) {
            return;
        }
        let size = 2 * (key.len() + url.len()) + 64;
        match self.left.checked_sub(size) {
            Some(left) => self.left = left,
            None => {
                self.over = true;
                return;
            }
        }
        self.keys.insert(key);
        self.urls.push(url.to_owned());
    }
}

impl ArchiveCheck<'_> {
    /// What the archive answers `link` with, for `document`; `None` for a
    /// value that names nothing to check.
    fn answer(&self, document: &Document<'_>, link: &Link) -> Option<Served> {
        let url = link.reached()?;
        let at = match document {
            Document::Record(named) => seconds(&named.date),
            _ => None,
        };
        served(self.captures, url, at).unwrap_or_else(|e| {
            let mut unread = self.unread.lock().unwrap_or_else(|e| e.into_inner());
            unread.get_or_insert(e);
            None
        })
    }
}

impl Checks for ArchiveCheck<'_> {
    fn served(&self, document: &Document<'_>, link: &Link) -> Option<Served> {
        self.answer(document, link)
    }

    fn told(&self, link: &Link, served: Option<&Served>) {
        let count = match served {
            None => UNCHECKED,
            Some(Served::Captured(_)) => CAPTURED,
            Some(Served::Redirected(_, end)) if !end.broken() => REDIRECTED,
            Some(Served::Failed { .. }) => FAILED,
            Some(Served::Redirected(_, end)) if matches!(**end, Served::Failed { .. }) => FAILED,
            Some(_) => NOT_CAPTURED,
        };
        self.counts[count].fetch_add(1, Ordering::Relaxed);
        if let (Some(seeds), Some(served)) = (&self.seeds, served) {
            let seed = match served {
                Served::NotCaptured => link.absolute.as_deref(),
                Served::Redirected(to, end) if **end == Served::NotCaptured => Some(to.as_str()),
                _ => None,
            };
            if let Some(seed) = seed {
                seeds.lock().unwrap_or_else(|e| e.into_inner()).add(seed);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::memory::Budget;
    use crate::source::warc::capture::Capture;

    fn seen(date: &str, status: u16, location: Option<&str>) -> Seen {
        Seen {
            date: date.into(),
            seconds: seconds(date),
            status,
            revisit: false,
            location: location.map(Into::into),
        }
    }

    fn captures(list: Vec<(&str, Seen)>) -> Captures {
        let mut gathering = Gathering::new(Budget::new(1 << 20), 1);
        for (record, (url, seen)) in (0..).zip(list) {
            let capture = Capture {
                record,
                url: url.into(),
                date: seen.date.into(),
                status: seen.status,
                essence: None,
                location: seen.location.map(Into::into),
                revisit: seen.revisit.then_some((None, None)),
            };
            gathering.add(capture).unwrap();
        }
        gathering.finish().unwrap().0
    }

    #[test]
    fn of_several_captures_the_nearest_in_time_is_named() {
        let c = captures(vec![
            (
                "https://a.example/x",
                seen("2024-01-01T00:00:00Z", 200, None),
            ),
            (
                "https://a.example/x",
                seen("2024-06-01T00:00:00Z", 200, None),
            ),
            (
                "https://a.example/x",
                seen("2024-03-01T00:00:00Z", 404, None),
            ),
        ]);
        let at = seconds("2024-02-01T00:00:00Z");
        assert_eq!(
            served(&c, "http://A.example:80/x#top", at)
                .unwrap()
                .unwrap(),
            Served::Captured("2024-01-01T00:00:00Z".into())
        );
        assert_eq!(
            served(&c, "https://a.example/x", None).unwrap().unwrap(),
            Served::Captured("2024-06-01T00:00:00Z".into())
        );
    }

    #[test]
    fn a_redirect_chain_is_followed_to_where_it_ends() {
        let c = captures(vec![
            (
                "https://a.example/1",
                seen("2024-01-01T00:00:00Z", 301, Some("https://a.example/2")),
            ),
            (
                "https://a.example/2",
                seen("2024-01-01T00:00:00Z", 302, Some("https://a.example/3")),
            ),
            (
                "https://a.example/3",
                seen("2024-01-01T00:00:00Z", 410, None),
            ),
            (
                "https://a.example/loop",
                seen("2024-01-01T00:00:00Z", 301, Some("https://a.example/loop")),
            ),
        ]);
        assert_eq!(
            served(&c, "https://a.example/1", None).unwrap().unwrap(),
            Served::Redirected(
                "https://a.example/3".into(),
                Box::new(Served::Failed {
                    status: 410,
                    date: "2024-01-01T00:00:00Z".into()
                })
            )
        );
        assert_eq!(
            served(&c, "https://a.example/loop", None).unwrap().unwrap(),
            Served::Redirected("https://a.example/loop".into(), Box::new(Served::Looped))
        );
        assert_eq!(
            served(&c, "https://a.example/none", None).unwrap().unwrap(),
            Served::NotCaptured
        );
    }

    #[test]
    fn a_capture_is_taken_over_a_redirect_and_a_redirect_over_an_error() {
        let c = captures(vec![
            (
                "https://a.example/x",
                seen("2024-01-01T00:00:00Z", 500, None),
            ),
            (
                "https://a.example/x",
                seen("2024-01-02T00:00:00Z", 301, Some("https://a.example/y")),
            ),
            (
                "https://a.example/y",
                seen("2024-01-01T00:00:00Z", 200, None),
            ),
            (
                "https://a.example/z",
                seen("2024-01-01T00:00:00Z", 503, None),
            ),
            (
                "https://a.example/z",
                seen("2024-01-05T00:00:00Z", 200, None),
            ),
        ]);
        let at = seconds("2024-01-01T00:00:00Z");
        assert_eq!(
            served(&c, "https://a.example/x", at).unwrap().unwrap(),
            Served::Redirected(
                "https://a.example/y".into(),
                Box::new(Served::Captured("2024-01-01T00:00:00Z".into()))
            )
        );
        assert_eq!(
            served(&c, "https://a.example/z", at).unwrap().unwrap(),
            Served::Captured("2024-01-05T00:00:00Z".into())
        );
    }
}
