//! The first pass over an archive made a tree: each capture of each URL
//! (a response, a revisit of one), which one is saved (the latest), the
//! file it is saved as, and what is not saved and why: all known before a
//! file is written.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, SystemTime};

use crate::source::warc::capture::Capture;
use crate::source::warc::header::Header;
use crate::url::saved;
use crate::url::saved::Unsaved;

/// How many redirects are followed to the file they end at.
const MAX_REDIRECTS: usize = 20;

/// Every capture read, the latest of each URL kept.
#[derive(Default)]
pub(super) struct Captures {
    /// The capture of each URL kept: the latest, or the closest to `at`.
    latest: HashMap<String, Capture>,
    at: Option<SystemTime>,
    /// The 2xx responses, by record ID and by payload digest: what a
    /// revisit may name.
    by_id: HashMap<String, u64>,
    by_digest: HashMap<String, u64>,
    /// URLs that get no file, each with why.
    pub unsaved: Vec<(String, String)>,
}

impl Captures {
    /// Captures of which the one closest to `at` is kept (the latest when
    /// `None`).
    pub fn at(at: Option<SystemTime>) -> Self {
        Captures {
            at,
            ..Captures::default()
        }
    }

    /// Whether `capture` is kept over `kept`: the later, or the closer to
    /// `at`; of two alike, the later record.
    fn keeps(&self, kept: &Capture, capture: &Capture) -> bool {
        let Some(at) = self.at else {
            return kept.date <= capture.date;
        };
        let distance = |c: &Capture| {
            let date = humantime::parse_rfc3339_weak(c.date.trim()).ok();
            date.map_or(Duration::MAX, |d| {
                d.duration_since(at).unwrap_or_else(|e| e.duration())
            })
        };
        distance(capture) <= distance(kept)
    }

    /// Adds `capture` (of the record whose header is `header`), keeping
    /// the one of its URL [`keeps`](Self::keeps) says. What it holds more,
    /// in bytes.
    pub fn add(&mut self, header: &Header, capture: Capture) -> usize {
        let mut size = 0;
        if capture.revisit.is_none() && (200..300).contains(&capture.status) {
            if let Some(id) = header.get("WARC-Record-ID") {
                size += id.len() + 24;
                self.by_id.insert(id.trim().to_owned(), capture.record);
            }
            if let Some(digest) = header.get("WARC-Payload-Digest") {
                size += digest.len() + 24;
                self.by_digest
                    .insert(digest.trim().to_owned(), capture.record);
            }
        }
        let Some(key) = saved::key(&capture.url) else {
            self.unsaved
                .push((capture.url.clone(), Unsaved::NotHttp.to_string()));
            return size + capture.url.len();
        };
        size += capture.size();
        match self.latest.get(&key) {
            Some(kept) if !self.keeps(kept, &capture) => {}
            _ => {
                self.latest.insert(key, capture);
            }
        }
        size
    }

    /// The tree: every file and the record its bytes come from, every
    /// URL's file by its key (a redirect's, the file it ends at), and what
    /// is not saved. `fold_case`: the filesystem takes names that differ
    /// only in case for one.
    pub fn tree(mut self, fold_case: bool) -> Tree {
        let mut tree = Tree {
            unsaved: std::mem::take(&mut self.unsaved),
            ..Tree::default()
        };
        let mut keys: Vec<String> = self.latest.keys().cloned().collect();
        keys.sort();
        let mut taken: HashMap<Vec<u8>, String> = HashMap::new();
        // The page for what the copy lacks (`--missing placeholder`).
        taken.insert(
            crate::url::PLACEHOLDER.as_bytes().to_vec(),
            "htmlabs's page for what the copy lacks".to_owned(),
        );
        let mut directories: HashSet<Vec<u8>> = HashSet::new();
        let folded = |p: &[u8]| match fold_case {
            true => p.to_ascii_lowercase(),
            false => p.to_vec(),
        };
        let mut redirects = Vec::new();
        for key in keys {
            let capture = &self.latest[&key];
            let (status, essence, from) = match &capture.revisit {
                None => (
                    capture.status,
                    capture.essence.clone(),
                    Some(capture.record),
                ),
                Some((id, digest)) => {
                    let from = id
                        .as_ref()
                        .and_then(|id| self.by_id.get(id))
                        .or_else(|| digest.as_ref().and_then(|d| self.by_digest.get(d)))
                        .copied();
                    (capture.status, capture.essence.clone(), from)
                }
            };
            if (300..400).contains(&status) && capture.revisit.is_none() {
                match &capture.location {
                    Some(location) => redirects.push((key, location.clone())),
                    None => tree.unsaved.push((
                        capture.url.clone(),
                        format!("captured as a redirect ({status}) with no `Location`"),
                    )),
                }
                continue;
            }
            // A revisit of a response not changed (304) is that response.
            if !(200..300).contains(&status) && status != 304 {
                let why = match status {
                    0 => "its HTTP response cannot be read".to_owned(),
                    status => format!("captured as {status}"),
                };
                tree.unsaved.push((capture.url.clone(), why));
                continue;
            }
            let Some(from) = from else {
                tree.unsaved.push((
                    capture.url.clone(),
                    "a revisit of a response the archive does not hold".to_owned(),
                ));
                continue;
            };
            let path = match saved::path(&capture.url, essence.as_deref()) {
                Ok(path) => path,
                Err(why) => {
                    tree.unsaved.push((capture.url.clone(), why.to_string()));
                    continue;
                }
            };
            if let Some(why) = clash(&path, &folded, &taken, &directories) {
                tree.unsaved.push((capture.url.clone(), why));
                continue;
            }
            taken.insert(folded(&path), capture.url.clone());
            let mut at = 0;
            while let Some(slash) = memchr::memchr(b'/', &path[at..]) {
                directories.insert(folded(&path[..at + slash]));
                at += slash + 1;
            }
            tree.files
                .entry(from)
                .or_default()
                .push((path.clone(), capture.url.clone()));
            tree.names.insert(key, path);
        }
        // A redirect's URL names the file its chain ends at.
        for (key, location) in redirects {
            let mut next = location;
            let mut found = None;
            for _ in 0..MAX_REDIRECTS {
                let Some(to) = saved::key(&next) else { break };
                if let Some(path) = tree.names.get(&to) {
                    found = Some(path.clone());
                    break;
                }
                match self.latest.get(&to).and_then(|c| c.location.clone()) {
                    Some(location) => next = location,
                    None => break,
                }
            }
            let url = self.latest[&key].url.clone();
            match found {
                Some(path) => {
                    tree.redirects.push((url, path.clone()));
                    tree.names.insert(key, path);
                }
                None => tree.unsaved.push((
                    url,
                    "a redirect to what the archive does not hold".to_owned(),
                )),
            }
        }
        tree
    }
}

/// Why `path` cannot be written beside the files taken: it is one of
/// them, or a directory one of them needs, or one of them is a directory
/// it needs.
fn clash(
    path: &[u8],
    folded: &impl Fn(&[u8]) -> Vec<u8>,
    taken: &HashMap<Vec<u8>, String>,
    directories: &HashSet<Vec<u8>>,
) -> Option<String> {
    use crate::source::names::shown;
    if let Some(other) = taken.get(&folded(path)) {
        return Some(format!(
            "its file, `{}`, is that of `{}`",
            shown(path),
            shown(other.as_bytes())
        ));
    }
    if directories.contains(&folded(path)) {
        return Some(format!(
            "its file, `{}`, is a directory of other files",
            shown(path)
        ));
    }
    let mut at = 0;
    while let Some(slash) = memchr::memchr(b'/', &path[at..]) {
        if let Some(other) = taken.get(&folded(&path[..at + slash])) {
            return Some(format!(
                "its file, `{}`, would be under the file of `{}`",
                shown(path),
                shown(other.as_bytes())
            ));
        }
        at += slash + 1;
    }
    None
}

/// The tree an archive is saved as.
#[derive(Debug, Default)]
pub(super) struct Tree {
    /// By record: each file its payload is saved as, with the URL it was
    /// captured at.
    pub files: BTreeMap<u64, Vec<(Vec<u8>, String)>>,
    /// Each URL's file, by its key.
    pub names: HashMap<String, Vec<u8>>,
    /// URLs that are redirects to a file saved, with its path.
    pub redirects: Vec<(String, Vec<u8>)>,
    pub unsaved: Vec<(String, String)>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::warc::capture::capture;

    fn header(kind: &str, url: &str, date: &str) -> Header {
        let text = format!(
            "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Target-URI: {url}\r\nWARC-Date: {date}\r\n\
             Content-Type: application/http; msgtype=response\r\nContent-Length: 0\r\n\r\n"
        );
        Header::parse(text.into_bytes()).unwrap()
    }

    /// The tree of captures of `urls`, each a page (200, `text/html`).
    fn tree(urls: &[&str], fold_case: bool) -> Tree {
        let mut captures = Captures::default();
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
        for (record, url) in urls.iter().enumerate() {
            let header = header("response", url, "2024-01-01T00:00:00Z");
            let capture = capture(&header, record as u64, head).unwrap();
            captures.add(&header, capture);
        }
        captures.tree(fold_case)
    }

    fn unsaved(tree: &Tree) -> Vec<(&str, &str)> {
        tree.unsaved
            .iter()
            .map(|(url, why)| (url.as_str(), why.as_str()))
            .collect()
    }

    #[test]
    fn a_response_record_that_holds_a_request_is_no_capture() {
        let text = "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: https://example.com/\r\n\
             WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Type: application/http; msgtype=request\r\n\
             Content-Length: 0\r\n\r\n";
        let header = Header::parse(text.as_bytes().to_vec()).unwrap();
        let head = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";
        assert!(capture(&header, 0, head).is_none());
        let response = self::header("response", "https://example.com/", "2024-01-01T00:00:00Z");
        assert!(capture(&response, 0, head).is_some());
    }

    #[test]
    fn names_that_differ_in_case_are_one_where_the_filesystem_folds_case() {
        let urls = ["https://example.com/A.html", "https://example.com/a.html"];
        assert!(tree(&urls, false).unsaved.is_empty());
        let folded = tree(&urls, true);
        assert_eq!(
            unsaved(&folded),
            [(
                "https://example.com/a.html",
                "its file, `example.com/a.html`, is that of `https://example.com/A.html`"
            )]
        );
        assert_eq!(folded.files.len(), 1);
    }

    #[test]
    fn a_file_is_not_saved_where_another_needs_a_directory() {
        let t = tree(
            &[
                "https://example.com/a.html",
                "https://example.com/a.html/b.html",
            ],
            false,
        );
        assert_eq!(
            unsaved(&t),
            [(
                "https://example.com/a.html/b.html",
                "its file, `example.com/a.html/b.html`, would be under the file of `https://example.com/a.html`"
            )]
        );
        let t = tree(
            &[
                "https://example.com/a.html/b.html",
                "https://example.com/a.html",
            ],
            false,
        );
        assert_eq!(t.unsaved.len(), 1, "whichever comes first by its key");
    }

    #[test]
    fn two_urls_of_one_name_save_one_file() {
        // `%41` is `A`: one name, two keys.
        let t = tree(
            &["https://example.com/%41.html", "https://example.com/A.html"],
            false,
        );
        assert_eq!(t.files.len(), 1);
        assert_eq!(t.unsaved.len(), 1);
    }

    #[test]
    fn a_redirect_chain_leads_to_the_file_it_ends_at() {
        let mut captures = Captures::default();
        let moved = |to: &str| format!("HTTP/1.1 301 Moved\r\nLocation: {to}\r\n\r\n");
        let cases = [
            ("https://example.com/a", moved("/b")),
            ("https://example.com/b", moved("https://EXAMPLE.com/c.html")),
            (
                "https://example.com/c.html",
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n".to_owned(),
            ),
            ("https://example.com/loop", moved("/loop")),
        ];
        for (record, (url, head)) in cases.iter().enumerate() {
            let header = header("response", url, "2024-01-01T00:00:00Z");
            let capture = capture(&header, record as u64, head.as_bytes()).unwrap();
            captures.add(&header, capture);
        }
        let t = captures.tree(false);
        let to = |url: &str| t.names.get(&saved::key(url).unwrap()).cloned();
        assert_eq!(
            to("https://example.com/a"),
            Some(b"example.com/c.html".to_vec())
        );
        assert_eq!(
            to("https://example.com/b"),
            Some(b"example.com/c.html".to_vec())
        );
        assert_eq!(to("https://example.com/loop"), None);
        assert_eq!(
            unsaved(&t),
            [(
                "https://example.com/loop",
                "a redirect to what the archive does not hold"
            )]
        );
    }
}
