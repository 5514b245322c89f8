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
//! head share of it (as an archive made a tree holds its captures), and the
//! second pass runs in what they leave: an archive whose captures need
//! more is refused, naming the limit.

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Instant, UNIX_EPOCH};

use crate::document::config::Config;
use crate::document::links::{Link, Outcome};
use crate::document::memory::{Allowance, Memory};
use crate::source::listener::{Checked, Checks, Document, Listener};
use crate::source::names;
use crate::source::output::{Input, Output, SourceError, lowercase};
use crate::source::summary::{Summary, Tally};
use crate::source::warc::capture::{self, Capture};
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
        let s = |n: u64| if n == 1 { "" } else { "s" };
        let a = &self.archive;
        format!(
            "{} record{}, {} page{}, {} link{} checked: {} captured, {} redirected to a capture, {} captured as an error, {} not captured; {} not checked, {} warning{}, {seconds:.2} s",
            a.records,
            s(a.records),
            a.pages,
            s(a.pages),
            a.links,
            s(a.links),
            self.captured,
            self.redirected,
            self.failed,
            self.not_captured,
            self.unchecked,
            a.warnings,
            s(a.warnings),
        )
    }
}

/// One capture of a URL, as a link check needs it.
struct Seen {
    /// Its `WARC-Date` as written, and in seconds (none where it does not
    /// read).
    date: Box<str>,
    seconds: Option<i64>,
    status: u16,
    revisit: bool,
    /// A redirect's `Location`, resolved against its URL.
    location: Option<Box<str>>,
}

/// What a capture is to a link.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Captured,
    Redirect,
    Failed,
}

impl Seen {
    fn class(&self) -> Class {
        if capture::captured(self.status, self.revisit) {
            return Class::Captured;
        }
        match self.status {
            300..=399 if self.location.is_some() => Class::Redirect,
            _ => Class::Failed,
        }
    }
}

/// Every capture of every URL of an archive, by the URL's key.
#[derive(Default)]
pub(crate) struct Captures {
    by_key: HashMap<String, Vec<Seen>>,
}

impl Captures {
    /// Adds `capture`: what it holds more, in bytes.
    fn add(&mut self, capture: Capture) -> usize {
        let Some(key) = capture.key() else {
            return 0;
        };
        let seen = Seen {
            seconds: seconds(&capture.date),
            date: capture.date.into_boxed_str(),
            status: capture.status,
            revisit: capture.revisit.is_some(),
            location: capture.location.map(String::into_boxed_str),
        };
        let size = std::mem::size_of::<Seen>()
            + seen.date.len()
            + seen.location.as_ref().map_or(0, |l| l.len());
        match self.by_key.get_mut(&key) {
            Some(list) => {
                list.push(seen);
                size
            }
            None => {
                // The key, the map's entry and the list's.
                let more = key.len() + 2 * std::mem::size_of::<Vec<Seen>>() + 16;
                self.by_key.insert(key, vec![seen]);
                size + more
            }
        }
    }

    /// What the archive answers `url` with (its fragment aside), for a
    /// document captured at `at` (seconds; none: the latest captures);
    /// `None` for a URL no capture can have (not `http:` or `https:`).
    pub fn served(&self, url: &str, at: Option<i64>) -> Option<Served> {
        let mut url = url.split_once('#').map_or(url, |(url, _)| url).to_owned();
        let mut key = saved::key(&url)?;
        let mut hops = 0;
        let ended = |hops: usize, url: String, end: Served| match hops {
            0 => end,
            _ => Served::Redirected(url, Box::new(end)),
        };
        let served = loop {
            let Some(list) = self.by_key.get(&key) else {
                break ended(hops, url, Served::NotCaptured);
            };
            if let Some(seen) = nearest(list, Class::Captured, at) {
                break ended(hops, url, Served::Captured(seen.date.to_string()));
            }
            if let Some(seen) = nearest(list, Class::Redirect, at) {
                if hops == MAX_REDIRECTS {
                    break ended(hops, url, Served::Looped);
                }
                hops += 1;
                url = seen.location.as_deref().unwrap_or_default().to_owned();
                match saved::key(&url) {
                    Some(next) => key = next,
                    None => break ended(hops, url, Served::NotCaptured),
                }
                continue;
            }
            let seen = nearest(list, Class::Failed, at).expect("a URL's list holds a capture");
            break ended(
                hops,
                url,
                Served::Failed {
                    status: seen.status,
                    date: seen.date.to_string(),
                },
            );
        };
        Some(served)
    }
}

/// Of `list`'s captures of `class`, the one nearest in time to `at` (none:
/// the latest); of two as near, the later one, and of two alike, the later
/// record.
fn nearest(list: &[Seen], class: Class, at: Option<i64>) -> Option<&Seen> {
    let mut best: Option<&Seen> = None;
    for seen in list.iter().filter(|seen| seen.class() == class) {
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
            best = Some(seen);
        }
    }
    best
}

/// A `WARC-Date` in seconds since the epoch.
fn seconds(date: &str) -> Option<i64> {
    let time = humantime::parse_rfc3339_weak(date.trim()).ok()?;
    match time.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).ok(),
        Err(before) => i64::try_from(before.duration().as_secs()).ok().map(|s| -s),
    }
}

/// Checks the links of the archive `archive` against its captures,
/// telling `listener` each link with what the archive answers it with.
/// With `seeds`, it keeps each URL not captured.
pub(crate) fn run(
    config: &Arc<Config>,
    options: &Options,
    archive: &Path,
    seeds: bool,
    listener: &dyn Listener,
) -> Result<Summary, SourceError> {
    let started = Instant::now();
    let name = names::quoted(archive);
    let read_error = |e: io::Error| SourceError::Read(name.clone(), lowercase(&e));
    let memory = Memory::new(config.max_memory);

    // The first pass: every capture. They take the head share, what one
    // document of a run may hold.
    let share = Allowance::new(memory.alone());
    let mut held = share.budget();
    let mut captures = Captures::default();
    let file = File::open(archive).map_err(read_error)?;
    let mut records = Records::new(file, &memory, None).map_err(read_error)?;
    capture::each(
        &mut records,
        |broken| goes_on(broken).map_err(read_error),
        |_, capture| {
            let number = capture.record + 1;
            held.take(captures.add(capture))
                .map_err(|_| capture::too_many(&name, config.max_memory, number))
        },
    )?;
    drop(records);

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
    let input = Input::File(archive.to_owned());
    let discard = Output::Discard;
    // Each page's links checked on its worker, told in order.
    let checking = Checking {
        total: rest,
        checks: &checks,
    };
    let summary = super::run(config, options, input, discard, &checked, Some(checking))?;
    drop((held, share));
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
        if (link.element.as_str(), link.attribute.as_str()) == ("base", "href") {
            return None;
        }
        let url = match link.outcome {
            Outcome::Empty | Outcome::NoBase | Outcome::Undecodable => return None,
            _ => link.absolute.as_deref()?,
        };
        let at = match document {
            Document::Record(named) => seconds(&named.date),
            _ => None,
        };
        self.captures.served(url, at)
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
        let mut captures = Captures::default();
        for (url, seen) in list {
            let key = saved::key(url).unwrap();
            captures.by_key.entry(key).or_default().push(seen);
        }
        captures
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
            c.served("http://A.example:80/x#top", at).unwrap(),
            Served::Captured("2024-01-01T00:00:00Z".into())
        );
        assert_eq!(
            c.served("https://a.example/x", None).unwrap(),
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
            c.served("https://a.example/1", None).unwrap(),
            Served::Redirected(
                "https://a.example/3".into(),
                Box::new(Served::Failed {
                    status: 410,
                    date: "2024-01-01T00:00:00Z".into()
                })
            )
        );
        assert_eq!(
            c.served("https://a.example/loop", None).unwrap(),
            Served::Redirected("https://a.example/loop".into(), Box::new(Served::Looped))
        );
        assert_eq!(
            c.served("https://a.example/none", None).unwrap(),
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
            c.served("https://a.example/x", at).unwrap(),
            Served::Redirected(
                "https://a.example/y".into(),
                Box::new(Served::Captured("2024-01-01T00:00:00Z".into()))
            )
        );
        assert_eq!(
            c.served("https://a.example/z", at).unwrap(),
            Served::Captured("2024-01-05T00:00:00Z".into())
        );
    }
}
