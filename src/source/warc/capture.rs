//! What a record says of a capture of its URL: a response, a revisit of
//! one, or a resource record; read from its header and its HTTP head
//! alone. An archive made a tree and an archive's link check read each
//! record so in their first pass, and a list of an archive's captures (for
//! a join of a crawl's links with its captures, `htmlabs.spark`) is that
//! pass alone.

use std::io::{self, Read, Write};

use crate::document::memory::Memory;
use crate::source::http::head::read_heads;
use crate::source::http::media;
use crate::source::output::SourceError;
use crate::source::warc::header::Header;
use crate::source::warc::records::{Broken, Records};
use crate::source::warc::work::holds_http_response;
use crate::url::{Standard, saved};

/// One capture of a URL: a response record, a revisit of one, or a
/// resource record (a payload with no HTTP head, as warcit and
/// Browsertrix write them).
#[derive(Debug, Clone)]
pub(crate) struct Capture {
    /// Its record's place among the archive's records, from 0.
    pub record: u64,
    pub url: String,
    pub date: String,
    /// Its final response's status; 0 when it has none that reads.
    pub status: u16,
    /// Its `Content-Type`'s essence.
    pub essence: Option<String>,
    /// A redirect's `Location`, resolved against its URL.
    pub location: Option<String>,
    /// A revisit: the record it names (`WARC-Refers-To`) and its payload's
    /// digest.
    pub revisit: Option<(Option<String>, Option<String>)>,
}

impl Capture {
    /// The key a link's URL finds it by (`url::saved::key`); `None` for a
    /// URL no link can name so (not `http:` or `https:`).
    pub fn key(&self) -> Option<String> {
        saved::key(&self.url)
    }

    /// What it holds in memory.
    pub fn size(&self) -> usize {
        let strings = self.url.len()
            + self.date.len()
            + self.essence.as_ref().map_or(0, String::len)
            + self.location.as_ref().map_or(0, String::len);
        std::mem::size_of::<Capture>() + strings + 2 * self.url.len()
    }
}

/// What a record says of a capture, from its header and its HTTP head.
pub(crate) fn capture(header: &Header, record: u64, head: &[u8]) -> Option<Capture> {
    let revisit = match header.record_type().as_str() {
        "resource" => return resource(header, record),
        "response" => None,
        "revisit" => Some((
            header.get("WARC-Refers-To").map(|v| v.trim().to_owned()),
            header
                .get("WARC-Payload-Digest")
                .map(|v| v.trim().to_owned()),
        )),
        _ => return None,
    };
    // A segment is not the whole payload.
    let content_type = header.get("Content-Type").unwrap_or_default();
    if !holds_http_response(&content_type) || header.get("WARC-Segment-Number").is_some() {
        return None;
    }
    let url = std::str::from_utf8(header.target_uri_bytes()?)
        .ok()?
        .to_owned();
    let heads = read_heads(head).ok().map(|(heads, _)| heads);
    let last = heads.as_ref().and_then(|h| h.last());
    let status = last.map_or(0, |h| h.status());
    let essence = last
        .and_then(media::content_type)
        .map(|m| m.essence.to_ascii_lowercase());
    let location = last
        .and_then(|h| h.values("Location").next())
        .and_then(|(v, _)| String::from_utf8(v.trim_ascii().to_vec()).ok())
        .filter(|_| (300..400).contains(&status))
        .map(|l| Standard::Rfc3986.resolve(&url, &l).into_owned());
    Some(Capture {
        record,
        url,
        date: header.date(),
        status,
        essence,
        location,
        revisit,
    })
}

/// A resource record's capture: its block is the payload, of the type its
/// header's `Content-Type` says, as a 200 response's would be.
fn resource(header: &Header, record: u64) -> Option<Capture> {
    if header.get("WARC-Segment-Number").is_some() {
        return None;
    }
    let url = std::str::from_utf8(header.target_uri_bytes()?)
        .ok()?
        .to_owned();
    let essence = header.get("Content-Type").map(|t| {
        let essence = t.split(';').next().unwrap_or_default();
        essence.trim().to_ascii_lowercase()
    });
    Some(Capture {
        record,
        url,
        date: header.date(),
        status: 200,
        essence: essence.filter(|e| !e.is_empty()),
        location: None,
        revisit: None,
    })
}

/// The HTTP head a resource record's payload is read behind, so that it is
/// typed and rewritten as a response's body is: its `Content-Type`, if
/// that can be a header's value.
pub(crate) fn resource_head(header: &Header) -> Vec<u8> {
    let mut head = b"HTTP/1.1 200 OK\r\n".to_vec();
    if let Some(content_type) = header.get("Content-Type") {
        let value = content_type.trim();
        if !value.is_empty() && !value.bytes().any(|b| b == b'\r' || b == b'\n') {
            head.extend_from_slice(b"Content-Type: ");
            head.extend_from_slice(value.as_bytes());
            head.extend_from_slice(b"\r\n");
        }
    }
    head.extend_from_slice(b"\r\n");
    head
}

/// Keeps the first bytes of a block: its HTTP head.
struct First(Vec<u8>);

/// The most of a block that is kept for its head.
const HEAD: usize = 64 * 1024;

impl Write for First {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let room = HEAD.saturating_sub(self.0.len());
        self.0.extend_from_slice(&bytes[..room.min(bytes.len())]);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The refusal of an archive whose captures outgrow their share of the
/// run's memory (half of `max_memory`) by its `record`th record.
pub(crate) fn too_many(name: &str, max_memory: usize, record: u64) -> SourceError {
    SourceError::Refused(format!(
        "the captures of {name} need more than half the memory limit of {max_memory} bytes (--max-memory), by record {record}: give more"
    ))
}

/// The first pass over `records`: each record's capture handed to `add`
/// with its header, in the archive's order; where the records break,
/// `told` says whether they go on. How many records were read.
pub(crate) fn each<R: Read, E>(
    records: &mut Records<R>,
    mut told: impl FnMut(Broken) -> Result<bool, E>,
    mut add: impl FnMut(&Header, Capture) -> Result<(), E>,
) -> Result<u64, E> {
    let mut number = 0;
    loop {
        let found = match records.next() {
            Ok(Some(found)) => found,
            Ok(None) => return Ok(number),
            Err(broken) => match told(broken)? {
                true => continue,
                false => return Ok(number),
            },
        };
        let record = number;
        number += 1;
        let mut head = First(Vec::new());
        let kind = found.header.record_type();
        let keep = matches!(kind.as_str(), "response" | "revisit");
        let sink: Option<&mut dyn Write> = if keep { Some(&mut head) } else { None };
        if let Err(broken) = records.block(&found, sink) {
            match told(broken)? {
                true => continue,
                false => return Ok(number),
            }
        }
        if let Some(capture) = capture(&found.header, record, &head.0) {
            add(&found.header, capture)?;
        }
    }
}

/// A capture as a list of an archive's captures gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Listed {
    /// `WARC-Record-ID` as written (`<urn:uuid:…>`).
    pub record: String,
    /// `WARC-Target-URI`: the URL captured.
    pub target: String,
    /// What a link's URL finds it by: its key as the archive's link
    /// check keys it (that of [`url_key`] for a target without a
    /// fragment).
    pub key: Option<String>,
    /// `WARC-Date` as written.
    pub date: String,
    /// Its final response's status (a resource record's: 200); 0 when it
    /// has none that reads.
    pub status: u16,
    /// A revisit record (of a response not changed, when `status` is 304).
    pub revisit: bool,
    /// A redirect's `Location`, resolved against `target`.
    pub location: Option<String>,
}

impl Listed {
    /// Whether a link to its URL reaches a capture, as `--check-links`
    /// has it: a 2xx response, or a revisit of one.
    pub fn captured(&self) -> bool {
        captured(self.status, self.revisit)
    }
}

/// Whether a capture of final status `status` is what a link to its URL
/// reaches: a 2xx response, or a revisit (`revisit`) of one not changed
/// (304).
pub(crate) fn captured(status: u16, revisit: bool) -> bool {
    (200..300).contains(&status) || (status == 304 && revisit)
}

/// The key a link's URL `url` finds a capture by, its fragment aside: its
/// host (lowercase, no default port), path (without dot segments) and
/// query, `http:` and `https:` alike. `None` for a URL that is not
/// `http:` or `https:`. An archive's link check and a join of links with
/// captures match by it.
pub fn url_key(url: &str) -> Option<String> {
    saved::key(url.split_once('#').map_or(url, |(url, _)| url))
}

/// Each capture of the archive `input` (plain, gzip or zstd), in its
/// order, to `listed`; each warning of the records that break, to
/// `warned`, the records read on past it where they can be. How many
/// records were read. `max_memory` bounds what a record's reading holds.
pub fn list<R: Read>(
    input: R,
    max_memory: usize,
    mut warned: impl FnMut(String),
    mut listed: impl FnMut(Listed),
) -> io::Result<u64> {
    let memory = Memory::new(max_memory);
    let mut records = Records::new(input, &memory, None)?;
    let told = |broken: Broken| match broken {
        Broken::Io(e) => Err(e),
        Broken::Told(warning, go_on) => {
            warned(warning.to_string());
            Ok(go_on)
        }
    };
    each(&mut records, told, |header, capture| {
        listed(Listed {
            record: header.record_id(),
            key: capture.key(),
            target: capture.url,
            date: capture.date,
            status: capture.status,
            revisit: capture.revisit.is_some(),
            location: capture.location,
        });
        Ok(())
    })
}
