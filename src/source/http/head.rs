//! The header blocks in front of a saved response (`curl -i`, `curl -iL`,
//! `wget --save-headers`, the HTTP block of a WARC record): a status line,
//! RFC 9112 header fields, an empty line; one block, or several (each
//! redirect, `100 Continue`, then the final response).
//!
//! A block is parsed by httparse, with the leniency saved files need:
//! obsolete line folding, bare LF line ends, a space before the colon, a
//! field line that is not one (skipped, and kept). httparse reads HTTP/1.x
//! only; curl writes `HTTP/2 200` and `HTTP/3 200`, whose version is
//! handed to httparse as `HTTP/1.1` (the rest of the line is the same
//! grammar). The bytes of every block are kept as they came, for the
//! output.

use std::borrow::Cow;
use std::fmt;
use std::ops::Range;

use crate::source::names;

/// The header blocks must end within this many bytes of the input.
pub const MAX_HEADS: usize = 64 * 1024;

/// The protocol version of a status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    Http10,
    Http11,
    /// `HTTP/2` (or `HTTP/2.0`), as curl writes it.
    Http2,
    /// `HTTP/3` (or `HTTP/3.0`), as curl writes it.
    Http3,
}

/// One header block, as it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    /// Where it starts in the input.
    offset: usize,
    /// The block, through its empty line.
    bytes: Vec<u8>,
    version: Version,
    status: u16,
    fields: Vec<Field>,
    /// Lines that name a field and that httparse passed over (its
    /// `ignore_invalid_headers`): a value holding a byte no field value
    /// may hold (a control character but the tab, RFC 9110 §5.5). Their
    /// bytes are kept as they came with the rest; a source that reads a
    /// field must not take one for absent ([`Head::refused`]).
    refused: Vec<Field>,
}

/// A field line's name and value, as ranges of the block (the value
/// without the whitespace around it, obsolete folds included).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Field {
    name: Range<usize>,
    value: Range<usize>,
}

/// Why the header blocks cannot be read. Nothing is written then.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HeadError {
    #[error(
        "no empty line ends the header block at byte {offset} within the first {MAX_HEADS} bytes"
    )]
    NoEnd { offset: usize },
    #[error("the input is empty: no status line")]
    Empty,
    #[error("malformed status line at byte {offset}: `{line}`")]
    StatusLine {
        offset: usize,
        /// The line, escaped and shortened: the message stays one line.
        line: String,
    },
    /// The input does not start like a response at all (a page given as
    /// one): no status line, not a malformed one.
    #[error("no status line at byte {offset}: it starts with `{line}`, not `HTTP/`")]
    NotAResponse {
        offset: usize,
        /// Its first line, escaped and shortened, as [`StatusLine`]'s.
        ///
        /// [`StatusLine`]: HeadError::StatusLine
        line: String,
    },
    #[error("malformed header block at byte {offset}: {why}")]
    Block { offset: usize, why: String },
    #[error("no final response: the last header block, at byte {offset}, has the status {status}")]
    NoFinal { offset: usize, status: u16 },
}

/// What an edit does to a field of a block (see [`Head::edited`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Edit {
    Keep,
    /// The value replaced, the name and the spacing kept.
    Value(Vec<u8>),
    /// The name replaced (`X-Archive-Orig-Content-Length`), the rest kept.
    Rename(Vec<u8>),
    Remove,
}

/// Whether `bytes` start like a status line (`HTTP/1.`, `HTTP/2`,
/// `HTTP/3`); `None` while they are too few to tell.
pub fn starts_like_response(bytes: &[u8]) -> Option<bool> {
    const PREFIXES: [&[u8]; 3] = [b"HTTP/1.", b"HTTP/2", b"HTTP/3"];
    let mut undecided = false;
    for prefix in PREFIXES {
        let n = prefix.len().min(bytes.len());
        if bytes[..n] == prefix[..n] {
            if n == prefix.len() {
                return Some(true);
            }
            undecided = true;
        }
    }
    (!undecided).then_some(false)
}

/// The length of the block at the start of `bytes` (through its empty
/// line), if its end is there. `from` is where to resume a search that
/// found nothing before.
fn block_end(bytes: &[u8], from: usize) -> Option<usize> {
    let mut at = from.saturating_sub(2);
    while let Some(i) = memchr::memchr(b'\n', &bytes[at..]) {
        let lf = at + i;
        match bytes.get(lf + 1) {
            Some(b'\n') => return Some(lf + 2),
            Some(b'\r') if bytes.get(lf + 2) == Some(&b'\n') => return Some(lf + 3),
            _ => at = lf + 1,
        }
    }
    None
}

impl Head {
    /// Parses one whole block (`bytes` ends with its empty line), found at
    /// `offset` of the input.
    pub fn parse(bytes: Vec<u8>, offset: usize) -> Result<Head, HeadError> {
        let line_end = memchr::memchr(b'\n', &bytes).map_or(bytes.len(), |i| i + 1);
        let malformed = || HeadError::StatusLine {
            offset,
            line: shown(&bytes[..line_end]),
        };
        // httparse reads HTTP/1.x only: give it `HTTP/1.1` in place of
        // curl's `HTTP/2` and `HTTP/3`, and shift its ranges back.
        let (version, token) = match &bytes[..line_end.min(9)] {
            [b'H', b'T', b'T', b'P', b'/', b'2', b'.', b'0', ..] => (Some(Version::Http2), 8),
            [b'H', b'T', b'T', b'P', b'/', b'3', b'.', b'0', ..] => (Some(Version::Http3), 8),
            [b'H', b'T', b'T', b'P', b'/', b'2', ..] => (Some(Version::Http2), 6),
            [b'H', b'T', b'T', b'P', b'/', b'3', ..] => (Some(Version::Http3), 6),
            [b'H', b'T', b'T', b'P', b'/', b'1', b'.', ..] => (None, 0),
            _ => return Err(malformed()),
        };
        let renamed;
        let (parsed, shift): (&[u8], isize) = match version {
            Some(_) => {
                renamed = [&b"HTTP/1.1"[..], &bytes[token..]].concat();
                (&renamed, 8 - token as isize)
            }
            None => (&bytes, 0),
        };
        // At most one field a line.
        let lines = memchr::memchr_iter(b'\n', parsed).count();
        let mut headers = vec![httparse::EMPTY_HEADER; lines];
        let mut response = httparse::Response::new(&mut headers);
        let status = httparse::ParserConfig::default()
            .allow_obsolete_multiline_headers_in_responses(true)
            .allow_spaces_after_header_name_in_responses(true)
            .ignore_invalid_headers_in_responses(true)
            .allow_multiple_spaces_in_response_status_delimiters(true)
            .parse_response(&mut response, parsed);
        let len = match status {
            Ok(httparse::Status::Complete(len)) => len,
            Ok(httparse::Status::Partial) => {
                return Err(HeadError::Block {
                    offset,
                    why: "it does not end where its empty line is".to_owned(),
                });
            }
            Err(httparse::Error::Status | httparse::Error::Version) => return Err(malformed()),
            Err(e) => {
                return Err(HeadError::Block {
                    offset,
                    why: e.to_string().to_lowercase(),
                });
            }
        };
        if len != parsed.len() {
            return Err(HeadError::Block {
                offset,
                why: "it does not end where its empty line is".to_owned(),
            });
        }
        let version = version.unwrap_or(match response.version {
            Some(0) => Version::Http10,
            _ => Version::Http11,
        });
        let status = response.code.ok_or_else(malformed)?;
        let base = parsed.as_ptr() as usize;
        let range = |s: &[u8]| {
            let start = (s.as_ptr() as usize - base) as isize - shift;
            start as usize..start as usize + s.len()
        };
        let fields: Vec<Field> = response
            .headers
            .iter()
            .map(|h| Field {
                name: range(h.name.as_bytes()),
                value: range(h.value),
            })
            .collect();
        let refused = refused_lines(&bytes, &fields);
        Ok(Head {
            offset,
            bytes,
            version,
            status,
            fields,
            refused,
        })
    }

    /// Where the block starts in the input.
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The block as it came, through its empty line.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn version(&self) -> Version {
        self.version
    }

    pub fn status(&self) -> u16 {
        self.status
    }

    /// Each field's name and value as they came (the value without the
    /// whitespace around it; an obsolete fold kept).
    pub fn fields(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.fields
            .iter()
            .map(|f| (&self.bytes[f.name.clone()], &self.bytes[f.value.clone()]))
    }

    /// The values of the fields named `name` (any case), in order, each
    /// with its obsolete folds made spaces (RFC 9112 §5.2), and where it
    /// stands in the input.
    pub fn values<'h>(&'h self, name: &'h str) -> impl Iterator<Item = (Cow<'h, [u8]>, usize)> {
        self.fields
            .iter()
            .filter(move |f| self.bytes[f.name.clone()].eq_ignore_ascii_case(name.as_bytes()))
            .map(|f| {
                let raw = &self.bytes[f.value.clone()];
                let value = if raw.iter().any(|&b| b == b'\r' || b == b'\n') {
                    Cow::Owned(
                        raw.iter()
                            .map(|&b| if b == b'\r' || b == b'\n' { b' ' } else { b })
                            .collect(),
                    )
                } else {
                    Cow::Borrowed(raw)
                };
                (value, self.offset + f.name.start)
            })
    }

    /// The lines that name a field `name` (any case) and that could not be
    /// read as one: their value holds a control character (other than the
    /// tab). Each value as it came, trimmed, and where its line stands in
    /// the input. Never a value to use; a field a source reads is passed
    /// over with a warning naming it.
    pub fn refused<'h>(&'h self, name: &'h str) -> impl Iterator<Item = (&'h [u8], usize)> {
        self.refused
            .iter()
            .filter(move |f| self.bytes[f.name.clone()].eq_ignore_ascii_case(name.as_bytes()))
            .map(|f| (&self.bytes[f.value.clone()], self.offset + f.name.start))
    }

    /// The block with each field edited as `edit` says (given its name and
    /// value) and `added` fields put before its empty line; every other
    /// byte as it came.
    pub fn edited(&self, edit: impl Fn(&[u8], &[u8]) -> Edit, added: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.bytes.len() + 64);
        let mut at = 0;
        for f in &self.fields {
            let name = &self.bytes[f.name.clone()];
            match edit(name, &self.bytes[f.value.clone()]) {
                Edit::Keep => {}
                Edit::Value(value) => {
                    out.extend_from_slice(&self.bytes[at..f.value.start]);
                    out.extend_from_slice(&value);
                    at = f.value.end;
                }
                Edit::Rename(new) => {
                    out.extend_from_slice(&self.bytes[at..f.name.start]);
                    out.extend_from_slice(&new);
                    at = f.name.end;
                }
                Edit::Remove => {
                    out.extend_from_slice(&self.bytes[at..f.name.start]);
                    // Through the end of its line (after a fold too).
                    at = memchr::memchr(b'\n', &self.bytes[f.value.end..])
                        .map_or(self.bytes.len(), |i| f.value.end + i + 1);
                }
            }
        }
        if added.is_empty() {
            out.extend_from_slice(&self.bytes[at..]);
            return out;
        }
        // The empty line: `\r\n` or `\n`, as the block ends.
        let empty = if self.bytes.ends_with(b"\r\n") { 2 } else { 1 };
        let end = self.bytes.len() - empty;
        out.extend_from_slice(&self.bytes[at.min(end)..end]);
        let eol: &[u8] = &self.bytes[end..];
        for (name, value) in added {
            out.extend_from_slice(name.as_bytes());
            out.extend_from_slice(b": ");
            out.extend_from_slice(value);
            out.extend_from_slice(eol);
        }
        out.extend_from_slice(eol);
        out
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Version::Http10 => "HTTP/1.0",
            Version::Http11 => "HTTP/1.1",
            Version::Http2 => "HTTP/2",
            Version::Http3 => "HTTP/3",
        })
    }
}

/// The lines of `block` after its status line that look like a field (a
/// name, a colon) and are not one of `fields`: httparse passed them over.
/// A line that starts with a space or a tab goes on the one above it.
fn refused_lines(block: &[u8], fields: &[Field]) -> Vec<Field> {
    let mut refused = Vec::new();
    let Some(first) = memchr::memchr(b'\n', block) else {
        return refused;
    };
    let mut at = first + 1;
    while at < block.len() {
        let end = memchr::memchr(b'\n', &block[at..]).map_or(block.len(), |i| at + i);
        let line = &block[at..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let read = fields.iter().any(|f| f.name.start == at);
        if !read && !matches!(line.first(), None | Some(b' ' | b'\t')) {
            if let Some(colon) = memchr::memchr(b':', line) {
                let name = line[..colon].trim_ascii_end();
                let value = line[colon + 1..].trim_ascii();
                let value_start = at
                    + colon
                    + 1
                    + (line[colon + 1..].len() - line[colon + 1..].trim_ascii_start().len());
                refused.push(Field {
                    name: at..at + name.len(),
                    value: value_start..value_start + value.len(),
                });
            }
        }
        at = end + 1;
    }
    refused
}

/// A line for a message: without its line end, shown as every value from
/// the input is, its first 80 bytes.
fn shown(line: &[u8]) -> String {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    match line.get(..80) {
        Some(cut) if cut.len() < line.len() => format!("{}…", names::shown(cut)),
        _ => names::shown(line).into_owned(),
    }
}

/// The header blocks of an input, read as its bytes come, in writes of
/// any size: the blocks, and where the body starts, are the same however
/// the input is split.
#[derive(Debug)]
pub struct HeadReader {
    /// The bytes of the block being read, or those after a block that do
    /// not yet say whether another one follows.
    held: Vec<u8>,
    /// Where `held` starts in the input.
    start: usize,
    /// How far `held` was searched for the end of its block.
    searched: usize,
    /// Whether `held` is a block (else: what follows one).
    in_block: bool,
    /// Whether the status line of the block being read was checked.
    checked: bool,
    heads: Vec<Head>,
}

/// What a write to a [`HeadReader`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Read {
    /// The heads go on: give more.
    More,
    /// The heads are over: the body starts with `held` and goes on with
    /// the write's bytes from `rest` on.
    Body { held: Vec<u8>, rest: usize },
}

impl Default for HeadReader {
    fn default() -> Self {
        HeadReader {
            held: Vec::new(),
            start: 0,
            searched: 0,
            in_block: true,
            checked: false,
            heads: Vec::new(),
        }
    }
}

impl HeadReader {
    pub fn new() -> Self {
        HeadReader::default()
    }

    /// Reads the next bytes of the input.
    pub fn write(&mut self, chunk: &[u8]) -> Result<Read, HeadError> {
        // Never more than the heads may take, and the first bytes of a
        // status line after them.
        let room = (MAX_HEADS + 8).saturating_sub(self.start + self.held.len());
        let taken = room.min(chunk.len());
        self.held.extend_from_slice(&chunk[..taken]);
        Ok(match self.advance(false)? {
            Some(held) => Read::Body { held, rest: taken },
            None => Read::More,
        })
    }

    /// The input is over: the first bytes of the body (what is held after
    /// the last block).
    pub fn end(&mut self) -> Result<Vec<u8>, HeadError> {
        Ok(self.advance(true)?.unwrap_or_default())
    }

    pub fn into_heads(self) -> Vec<Head> {
        self.heads
    }

    /// Steps through what is held; `Some(body)` once the heads are over.
    fn advance(&mut self, end: bool) -> Result<Option<Vec<u8>>, HeadError> {
        loop {
            if !self.in_block {
                match starts_like_response(&self.held) {
                    Some(true) => {
                        self.in_block = true;
                        self.checked = false;
                    }
                    Some(false) => return self.over(),
                    None if end => return self.over(),
                    None => return Ok(None),
                }
            }
            if end && self.held.is_empty() {
                return Err(HeadError::Empty);
            }
            // Not a status line: said once the line is whole, so that the
            // message does not depend on how the input was split.
            if self.heads.is_empty()
                && starts_like_response(&self.held) == Some(false)
                && (end || self.held.contains(&b'\n') || self.held.len() > MAX_HEADS)
            {
                return Err(HeadError::NotAResponse {
                    offset: self.start,
                    line: shown(line(&self.held)),
                });
            }
            // A status line is checked as soon as it is whole, so that a
            // malformed one is not taken for a block without an end.
            if !self.checked {
                if let Some(i) = memchr::memchr(b'\n', &self.held) {
                    let alone = [&self.held[..=i], b"\r\n"].concat();
                    if let Err(e @ HeadError::StatusLine { .. }) = Head::parse(alone, self.start) {
                        return Err(e);
                    }
                    self.checked = true;
                }
            }
            match block_end(&self.held, self.searched) {
                Some(len) => {
                    let rest = self.held.split_off(len);
                    let block = std::mem::replace(&mut self.held, rest);
                    self.heads.push(Head::parse(block, self.start)?);
                    self.start += len;
                    self.searched = 0;
                    self.in_block = false;
                }
                None => {
                    self.searched = self.held.len();
                    if end || self.start + self.held.len() > MAX_HEADS {
                        if starts_like_response(&self.held) == Some(true) {
                            return Err(HeadError::NoEnd { offset: self.start });
                        }
                        return Err(self.malformed());
                    }
                    return Ok(None);
                }
            }
        }
    }

    fn malformed(&self) -> HeadError {
        HeadError::StatusLine {
            offset: self.start,
            line: shown(line(&self.held)),
        }
    }

    /// The heads are over: the last block must be a final response.
    fn over(&mut self) -> Result<Option<Vec<u8>>, HeadError> {
        let last = self.heads.last().expect("a block was read before");
        if (100..200).contains(&last.status) {
            return Err(HeadError::NoFinal {
                offset: last.offset,
                status: last.status,
            });
        }
        Ok(Some(std::mem::take(&mut self.held)))
    }
}

/// The first line of `bytes`, or all of them.
fn line(bytes: &[u8]) -> &[u8] {
    memchr::memchr(b'\n', bytes).map_or(bytes, |i| &bytes[..=i])
}

/// The header blocks at the start of `bytes`, and where its body starts.
pub fn read_heads(bytes: &[u8]) -> Result<(Vec<Head>, usize), HeadError> {
    let mut reader = HeadReader::new();
    let body = match reader.write(bytes)? {
        Read::Body { held, rest } => rest - held.len(),
        Read::More => bytes.len() - reader.end()?.len(),
    };
    Ok((reader.into_heads(), body))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks and the body's start, read in writes of `sizes` (cycled).
    fn read_in(input: &[u8], sizes: &[usize]) -> Result<(Vec<Head>, Vec<u8>), HeadError> {
        let mut reader = HeadReader::new();
        let mut at = 0;
        let mut i = 0;
        while at < input.len() {
            let n = sizes[i % sizes.len()].min(input.len() - at);
            i += 1;
            if let Read::Body { held, rest } = reader.write(&input[at..at + n])? {
                let body = [&held[..], &input[at + rest..]].concat();
                return Ok((reader.into_heads(), body));
            }
            at += n;
        }
        let body = reader.end()?;
        Ok((reader.into_heads(), body))
    }

    /// The same outcome whole, in 1-byte writes and in uneven ones.
    fn read(input: &[u8]) -> Result<(Vec<Head>, Vec<u8>), HeadError> {
        let whole = read_in(input, &[input.len().max(1)]);
        for sizes in [&[1][..], &[2, 7, 1, 13, 3], &[5, 64, 1]] {
            assert_eq!(read_in(input, sizes), whole, "writes of {sizes:?}");
        }
        whole
    }

    #[test]
    fn blocks_are_read_as_curl_and_wget_write_them() {
        let input = b"HTTP/1.1 100 Continue\r\n\r\n\
            HTTP/1.1 301 Moved Permanently\r\nLocation: /b/\r\n\r\n\
            HTTP/2 200 \r\ncontent-type: text/html\r\nBase: <URL:http://h/\r\n  x/>\r\n\r\n\
            <p>HTTP/1.1 in the body";
        let (heads, body) = read(input).unwrap();
        let status: Vec<(Version, u16, usize)> = heads
            .iter()
            .map(|h| (h.version(), h.status(), h.offset()))
            .collect();
        assert_eq!(
            status,
            [
                (Version::Http11, 100, 0),
                (Version::Http11, 301, 25),
                (Version::Http2, 200, 74)
            ]
        );
        assert_eq!(body, b"<p>HTTP/1.1 in the body");
        let concat: Vec<u8> = heads.iter().flat_map(|h| h.bytes().to_vec()).collect();
        assert_eq!([&concat[..], &body].concat(), input);
        let base: Vec<_> = heads[2]
            .values("base")
            .map(|(v, _)| v.into_owned())
            .collect();
        assert_eq!(base, [b"<URL:http://h/    x/>".to_vec()]);
        assert_eq!(
            heads[2].values("Content-Type").next().unwrap().1,
            74 + 13,
            "where the field stands in the input"
        );
    }

    #[test]
    fn bare_line_feeds_http_1_0_and_http_3_are_read_too() {
        let (heads, body) = read(b"HTTP/1.0 200 OK\nServer: x\n\n<html>").unwrap();
        assert_eq!(
            (heads[0].version(), heads[0].status()),
            (Version::Http10, 200)
        );
        assert_eq!(body, b"<html>");
        let (heads, body) = read(b"HTTP/3 404\r\nx: y\r\n\r\n").unwrap();
        assert_eq!(
            (heads[0].version(), heads[0].status()),
            (Version::Http3, 404)
        );
        assert_eq!(body, b"");
    }

    #[test]
    fn bad_heads_are_named_with_where_they_are() {
        let message = |input: &[u8]| read(input).unwrap_err().to_string();
        assert_eq!(message(b""), "the input is empty: no status line");
        assert_eq!(
            message(b"<html>HTTP/1.1 200 OK\r\n\r\n"),
            "no status line at byte 0: it starts with `<html>HTTP/1.1 200 OK`, not `HTTP/`"
        );
        assert_eq!(
            message(b"HTTP/1.1 2x0 OK\r\n\r\n"),
            "malformed status line at byte 0: `HTTP/1.1 2x0 OK`"
        );
        assert_eq!(
            message(b"HTTP/1.1 200 OK\r\nServer: x\r\n"),
            "no empty line ends the header block at byte 0 within the first 65536 bytes"
        );
        assert_eq!(
            message(b"HTTP/1.1 100 Continue\r\n\r\n"),
            "no final response: the last header block, at byte 0, has the status 100"
        );
        let mut long = b"HTTP/1.1 200 OK\r\n".to_vec();
        long.extend(std::iter::repeat_n(b"X-Pad: 0123456789\r\n".to_vec(), 4000).flatten());
        long.extend_from_slice(b"\r\n<html>");
        assert_eq!(
            message(&long),
            "no empty line ends the header block at byte 0 within the first 65536 bytes"
        );
    }

    /// httparse passes over a field whose value holds a control character;
    /// the block keeps its bytes, and `refused` names it.
    #[test]
    fn a_field_with_a_control_character_is_refused_not_lost() {
        let input = b"HTTP/1.1 301 Moved\r\nLocation: http://o/a\x01b/\r\nX: 1\r\nBASE :\t\x1b[2K \r\nDel: a\x7fb\r\nTab: a\tb\r\n\r\n";
        let (heads, body) = read(input).unwrap();
        assert_eq!(body, b"");
        let head = &heads[0];
        assert_eq!(head.bytes(), input);
        assert_eq!(head.values("Location").count(), 0);
        let refused: Vec<(&[u8], usize)> = head.refused("location").collect();
        assert_eq!(refused, [(&b"http://o/a\x01b/"[..], 20)]);
        assert_eq!(
            head.refused("Base").collect::<Vec<_>>(),
            [(&b"\x1b[2K"[..], 51)]
        );
        assert_eq!(head.refused("Del").count(), 1);
        // A tab is a value's own; `X` was read.
        assert_eq!(head.refused("Tab").count(), 0);
        assert_eq!(head.refused("X").count(), 0);
        assert_eq!(&*head.values("Tab").next().unwrap().0, b"a\tb");
    }

    #[test]
    fn edits_keep_every_other_byte() {
        let head = Head::parse(
            b"HTTP/1.1 200 OK\r\nContent-Length:  19\r\nX-A: a\r\n b\r\n\r\n".to_vec(),
            0,
        )
        .unwrap();
        let edited = head.edited(
            |name, _| match name {
                b"Content-Length" => Edit::Value(b"43".to_vec()),
                b"X-A" => Edit::Remove,
                _ => Edit::Keep,
            },
            &[("X-New", b"1")],
        );
        assert_eq!(
            edited,
            b"HTTP/1.1 200 OK\r\nContent-Length:  43\r\nX-New: 1\r\n\r\n"
        );
    }
}
