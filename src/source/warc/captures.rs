//! Every capture of every URL of an archive, by the URL's key, as the
//! archive's link check looks a link up: held in memory while they fit in
//! their share of the run's memory; past it, written out in runs sorted by
//! key to unnamed temporary files (`spool::temporary`: in `TMPDIR`, gone
//! when the run ends, however it ends), merged into one table sorted by
//! key, and found there through an index of one key in every few kilobytes
//! (an external sort, as sort(1) does past its buffer). The index and the
//! merge's buffers are what is held then: under a hundredth of what the
//! captures would hold, so an archive whose captures are many times the
//! memory limit is checked within it. Of one URL's captures, each lookup sees them in the
//! archive's order, held or spilled.

use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};

use crate::document::memory::Budget;
use crate::source::output::spool::temporary;
use crate::source::warc::capture::Capture;

/// One capture of a URL, as a link check needs it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    /// Its `WARC-Date` as written, and in seconds (none where it does not
    /// read).
    pub date: Box<str>,
    pub seconds: Option<i64>,
    pub status: u16,
    pub revisit: bool,
    /// A redirect's `Location`, resolved against its URL.
    pub location: Option<Box<str>>,
}

impl Seen {
    /// What it holds in memory beside its own size.
    fn heap(&self) -> usize {
        self.date.len() + self.location.as_ref().map_or(0, |l| l.len())
    }
}

/// The buffer of each file read or written: a run's reader in a merge, the
/// merge's writer, a lookup's reader.
const BUFFER: usize = 8 * 1024;

/// A table's index names the first key at or after every this many bytes.
const BLOCK: usize = 4 * 1024;

/// The most runs merged at once.
const FAN_IN: usize = 64;

/// The captures did not fit their share, even spilled: one capture is more
/// than it, or the index of the table is.
#[derive(Debug)]
pub(crate) enum Gather {
    Full,
    Io(io::Error),
}

impl From<io::Error> for Gather {
    fn from(e: io::Error) -> Self {
        Gather::Io(e)
    }
}

/// Every capture of an archive, by key: held, or spilled to a table.
pub(crate) struct Captures {
    table: Table,
}

enum Table {
    Held(HashMap<String, Vec<Seen>>),
    Spilled(Spilled),
}

/// The captures gathered so far: those held, the runs spilled, and what
/// they take of their share.
pub(crate) struct Gathering {
    held: HashMap<String, Vec<Seen>>,
    runs: Vec<File>,
    /// What `held` takes, until the runs are merged.
    budget: Budget,
    /// The most one capture holds decoded (its key and strings, and the
    /// slack of reading it): what a reader of a run or the table holds.
    largest: usize,
    /// The lookups that may run at once.
    jobs: usize,
}

impl Gathering {
    /// Gathers captures within `budget`, for a check of `jobs` jobs.
    pub fn new(budget: Budget, jobs: usize) -> Self {
        Gathering {
            held: HashMap::new(),
            runs: Vec::new(),
            budget,
            largest: 0,
            jobs: jobs.max(1),
        }
    }

    /// Adds `capture`, spilling what is held when it does not fit.
    pub fn add(&mut self, capture: Capture) -> Result<(), Gather> {
        let Some(key) = capture.key() else {
            return Ok(());
        };
        let seen = Seen {
            seconds: seconds(&capture.date),
            date: capture.date.into_boxed_str(),
            status: capture.status,
            revisit: capture.revisit.is_some(),
            location: capture.location.map(String::into_boxed_str),
        };
        self.largest = self.largest.max(decoded(&key, &seen));
        let mut size = std::mem::size_of::<Seen>() + seen.heap();
        if !self.held.contains_key(&key) {
            // The key, the map's entry and the list's, and its place in
            // a spill's sorted list.
            size += key.len() + 2 * std::mem::size_of::<Vec<Seen>>() + 16 + 8;
        }
        if self.budget.take(size).is_err() {
            if self.held.is_empty() {
                return Err(Gather::Full);
            }
            self.spill()?;
            self.budget.take(size).map_err(|_| Gather::Full)?;
        }
        self.held.entry(key).or_default().push(seen);
        Ok(())
    }

    /// Writes what is held to a run of its own, sorted by key, and gives
    /// back what it held.
    fn spill(&mut self) -> Result<(), Gather> {
        let held = std::mem::take(&mut self.held);
        let mut keys: Vec<&String> = held.keys().collect();
        keys.sort_unstable();
        let mut run = BufWriter::with_capacity(BUFFER, temporary()?);
        for key in keys {
            for seen in &held[key] {
                write_entry(&mut run, key, seen)?;
            }
        }
        let run = run.into_inner().map_err(io::IntoInnerError::into_error)?;
        drop(held);
        self.budget.give(self.budget.taken());
        self.runs.push(run);
        Ok(())
    }

    /// The captures gathered, and what they hold of the budget: those held
    /// as they are; else every run merged into one table, its index held.
    pub fn finish(mut self) -> Result<(Captures, Budget), Gather> {
        if self.runs.is_empty() {
            let table = Table::Held(self.held);
            return Ok((Captures { table }, self.budget));
        }
        if !self.held.is_empty() {
            self.spill()?;
        }
        // Each reader of a merge holds a buffer and the capture it is at.
        let reader = BUFFER + 2 * self.largest;
        let fan_in = (self.budget.left().saturating_sub(BUFFER) / reader).min(FAN_IN);
        if fan_in < 2 {
            return Err(Gather::Full);
        }
        let mut runs = std::mem::take(&mut self.runs);
        while runs.len() > fan_in {
            let mut merged = Vec::new();
            let mut left = runs.into_iter();
            loop {
                let group: Vec<File> = left.by_ref().take(fan_in).collect();
                match group.len() {
                    0 => break,
                    1 => merged.extend(group),
                    _ => merged.push(self.merge(group, false)?.0),
                }
            }
            runs = merged;
        }
        let (file, index) = self.merge(runs, true)?;
        // What each lookup holds while it reads the table.
        let lookups = self.jobs * reader;
        self.budget.take(lookups).map_err(|_| Gather::Full)?;
        let len = file.metadata()?.len();
        let spilled = Spilled { file, len, index };
        let table = Table::Spilled(spilled);
        Ok((Captures { table }, self.budget))
    }

    /// Merges `runs` into one, their captures in key order, those of one
    /// key in the runs' order (the archive's); with `indexed`, with the
    /// index of the table it makes (taken from the budget).
    fn merge(&mut self, runs: Vec<File>, indexed: bool) -> Result<(File, Vec<Key>), Gather> {
        let buffers = BUFFER + runs.len() * (BUFFER + 2 * self.largest);
        self.budget.take(buffers).map_err(|_| Gather::Full)?;
        let mut readers = Vec::with_capacity(runs.len());
        for mut run in runs {
            run.rewind()?;
            let mut reader = BufReader::with_capacity(BUFFER, run);
            let first = read_entry(&mut reader)?;
            readers.push((reader, first));
        }
        let mut out = BufWriter::with_capacity(BUFFER, temporary()?);
        let mut at = 0u64;
        let mut index: Vec<Key> = Vec::new();
        let mut marked: Option<u64> = None;
        let mut last: Option<String> = None;
        loop {
            // The least key, of the first run that holds it.
            let mut least: Option<usize> = None;
            for (i, (_, entry)) in readers.iter().enumerate() {
                if let Some((key, _)) = entry {
                    let less = match least.and_then(|l| readers[l].1.as_ref()) {
                        Some((best, _)) => key < best,
                        None => true,
                    };
                    if less {
                        least = Some(i);
                    }
                }
            }
            let Some(i) = least else { break };
            let (reader, entry) = &mut readers[i];
            let next = read_entry(reader)?;
            let (key, seen) = std::mem::replace(entry, next).expect("the least is an entry");
            // A table's block starts where a key does, once the last one
            // is a block long: one key's captures are in one block.
            let new_key = last.as_deref() != Some(key.as_str());
            if indexed && new_key && marked.is_none_or(|m| at - m >= BLOCK as u64) {
                let mark = key.clone().into_boxed_str();
                // Its entry, and the room the index's growth leaves.
                let size = mark.len() + 2 * std::mem::size_of::<Key>();
                self.budget.take(size).map_err(|_| Gather::Full)?;
                index.push((mark, at));
                marked = Some(at);
            }
            at += write_entry(&mut out, &key, &seen)? as u64;
            if new_key {
                last = Some(key);
            }
        }
        drop(readers);
        self.budget.give(buffers);
        let file = out.into_inner().map_err(io::IntoInnerError::into_error)?;
        Ok((file, index))
    }
}

/// A table's index entry: the first key of a block and where it starts.
type Key = (Box<str>, u64);

/// The captures spilled: one table sorted by key, and its index.
struct Spilled {
    file: File,
    len: u64,
    index: Vec<Key>,
}

impl Captures {
    /// Hands `seen` each capture of the URLs of key `key`, in the
    /// archive's order.
    pub fn each(&self, key: &str, mut seen: impl FnMut(&Seen)) -> io::Result<()> {
        match &self.table {
            Table::Held(map) => {
                map.get(key).into_iter().flatten().for_each(seen);
                Ok(())
            }
            Table::Spilled(table) => {
                // The block a key's captures are in: the last that starts
                // at or before it.
                let i = table.index.partition_point(|(first, _)| **first <= *key);
                let Some((_, start)) = i.checked_sub(1).map(|i| &table.index[i]) else {
                    return Ok(());
                };
                let end = table.index.get(i).map_or(table.len, |(_, at)| *at);
                let block = Block {
                    file: &table.file,
                    at: *start,
                    end,
                };
                let mut reader = BufReader::with_capacity(BUFFER, block);
                let mut read = Vec::new();
                while read_key(&mut reader, &mut read)? {
                    match read.as_slice().cmp(key.as_bytes()) {
                        std::cmp::Ordering::Less => {
                            read_seen(&mut reader)?;
                        }
                        std::cmp::Ordering::Equal => seen(&read_seen(&mut reader)?),
                        std::cmp::Ordering::Greater => break,
                    }
                }
                Ok(())
            }
        }
    }

    /// Whether they were spilled to disk.
    #[cfg(test)]
    fn spilled(&self) -> bool {
        matches!(self.table, Table::Spilled(_))
    }
}

/// A block of a table, read where it is (any thread reads the table at
/// once: positioned reads, no shared cursor).
struct Block<'a> {
    file: &'a File,
    at: u64,
    end: u64,
}

impl Read for Block<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = usize::try_from(self.end - self.at).unwrap_or(usize::MAX);
        let len = buf.len().min(left);
        let buf = &mut buf[..len];
        if buf.is_empty() {
            return Ok(0);
        }
        let n = read_at(self.file, buf, self.at)?;
        self.at += n as u64;
        Ok(n)
    }
}

#[cfg(unix)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::unix::fs::FileExt::read_at(file, buf, at)
}

#[cfg(windows)]
fn read_at(file: &File, buf: &mut [u8], at: u64) -> io::Result<usize> {
    std::os::windows::fs::FileExt::seek_read(file, buf, at)
}

/// What a capture holds decoded, with a reader's slack.
fn decoded(key: &str, seen: &Seen) -> usize {
    key.len() + seen.heap() + std::mem::size_of::<Seen>() + 64
}

/// A `WARC-Date` in seconds since the epoch.
pub(crate) fn seconds(date: &str) -> Option<i64> {
    let time = humantime::parse_rfc3339_weak(date.trim()).ok()?;
    match time.duration_since(std::time::UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_secs()).ok(),
        Err(before) => i64::try_from(before.duration().as_secs()).ok().map(|s| -s),
    }
}

// A capture on disk: its key, its date, what it has (seconds, a revisit,
// a location), its seconds, status and location; lengths as u32, numbers
// little-endian.
const HAS_SECONDS: u8 = 1;
const REVISIT: u8 = 2;
const HAS_LOCATION: u8 = 4;

/// Writes one capture; how many bytes.
fn write_entry(out: &mut impl Write, key: &str, seen: &Seen) -> io::Result<usize> {
    let mut n = put(out, key.as_bytes())? + put(out, seen.date.as_bytes())?;
    let flags = u8::from(seen.seconds.is_some()) * HAS_SECONDS
        + u8::from(seen.revisit) * REVISIT
        + u8::from(seen.location.is_some()) * HAS_LOCATION;
    out.write_all(&[flags])?;
    out.write_all(&seen.seconds.unwrap_or(0).to_le_bytes())?;
    out.write_all(&seen.status.to_le_bytes())?;
    n += 1 + 8 + 2;
    if let Some(location) = &seen.location {
        n += put(out, location.as_bytes())?;
    }
    Ok(n)
}

fn put(out: &mut impl Write, bytes: &[u8]) -> io::Result<usize> {
    let len = u32::try_from(bytes.len()).map_err(|_| io::Error::other("a capture too long"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(bytes)?;
    Ok(4 + bytes.len())
}

/// Reads the next capture's key into `key`; false at the end.
fn read_key(input: &mut impl Read, key: &mut Vec<u8>) -> io::Result<bool> {
    let mut len = [0; 4];
    match input.read_exact(&mut len) {
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(false),
        other => other?,
    }
    fill(input, len, key)?;
    Ok(true)
}

/// Reads the `len` (little-endian) bytes after a length into `out`.
fn fill(input: &mut impl Read, len: [u8; 4], out: &mut Vec<u8>) -> io::Result<()> {
    out.clear();
    let len = u64::from(u32::from_le_bytes(len));
    if (&mut *input).take(len).read_to_end(out)? as u64 != len {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok(())
}

/// Reads the rest of a capture, after its key.
fn read_seen(input: &mut impl Read) -> io::Result<Seen> {
    let date = text(get(input)?)?;
    let mut fixed = [0; 11];
    input.read_exact(&mut fixed)?;
    let flags = fixed[0];
    let seconds = i64::from_le_bytes(fixed[1..9].try_into().expect("8 bytes"));
    let location = match flags & HAS_LOCATION {
        0 => None,
        _ => Some(text(get(input)?)?),
    };
    Ok(Seen {
        date,
        seconds: (flags & HAS_SECONDS != 0).then_some(seconds),
        status: u16::from_le_bytes([fixed[9], fixed[10]]),
        revisit: flags & REVISIT != 0,
        location,
    })
}

/// Reads a length and the bytes after it.
fn get(input: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut len = [0; 4];
    input.read_exact(&mut len)?;
    let mut bytes = Vec::new();
    fill(input, len, &mut bytes)?;
    Ok(bytes)
}

fn text(bytes: Vec<u8>) -> io::Result<Box<str>> {
    String::from_utf8(bytes)
        .map(String::into_boxed_str)
        .map_err(|_| io::Error::other("a capture spilled does not read back"))
}

/// Reads the next capture of a run; `None` at its end.
fn read_entry(input: &mut impl Read) -> io::Result<Option<(String, Seen)>> {
    let mut key = Vec::new();
    if !read_key(input, &mut key)? {
        return Ok(None);
    }
    let seen = read_seen(input)?;
    let key = text(key)?.into_string();
    Ok(Some((key, seen)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` captures of a few hundred URLs, each URL's captures spread over
    /// the archive (so over the runs), of every kind.
    fn archive(n: u64) -> Vec<Capture> {
        (0..n)
            .map(|record| {
                let url = format!("https://a.example/{}/page", (record * 7919) % 400);
                let day = 1 + record % 28;
                Capture {
                    record,
                    url,
                    date: match record % 50 {
                        0 => "not a date".into(),
                        _ => format!("2024-01-{day:02}T00:00:00Z"),
                    },
                    status: [200, 301, 404, 304][(record % 4) as usize],
                    essence: None,
                    location: (record % 4 == 1).then(|| format!("https://a.example/{record}")),
                    revisit: (record % 4 == 3).then_some((None, None)),
                }
            })
            .collect()
    }

    fn gather(captures: Vec<Capture>, budget: usize) -> Result<Captures, Gather> {
        let mut gathering = Gathering::new(Budget::new(budget), 2);
        for capture in captures {
            gathering.add(capture)?;
        }
        Ok(gathering.finish()?.0)
    }

    fn each(captures: &Captures, key: &str) -> Vec<Seen> {
        let mut all = Vec::new();
        captures.each(key, |seen| all.push(seen.clone())).unwrap();
        all
    }

    #[test]
    fn captures_spilled_to_disk_are_found_as_those_held() {
        let held = gather(archive(3000), 1 << 30).unwrap();
        // About a hundred captures a run, two runs merged at once: runs
        // of runs merged, then the table.
        let spilled = gather(archive(3000), 28 * 1024).unwrap();
        assert!(!held.spilled() && spilled.spilled());
        let mut keys: Vec<String> = (0..400)
            .map(|i| format!("a.example/{i}/page"))
            .chain(["", "a.example/", "a.example/1", "zzz", "a.example/99/page/"].map(Into::into))
            .collect();
        keys.sort();
        let mut found = 0;
        for key in &keys {
            let key = saved_key(key);
            let (a, b) = (each(&held, &key), each(&spilled, &key));
            assert_eq!(a, b, "{key}");
            found += a.len();
        }
        assert_eq!(found, 3000);
    }

    #[test]
    fn a_capture_past_the_whole_share_is_refused() {
        assert!(matches!(gather(archive(10), 100), Err(Gather::Full)));
        // Spilled, but too little left to merge the runs.
        assert!(matches!(
            gather(archive(3000), 12 * 1024),
            Err(Gather::Full)
        ));
    }

    /// The key of `https://` + `rest`, as a capture of it is kept by.
    fn saved_key(rest: &str) -> String {
        crate::url::saved::key(&format!("https://{rest}")).unwrap_or_default()
    }
}
