//! A WARC record's header (ISO 28500 §4): its version line and named
//! fields, kept as the bytes they came in. A field is read by name (any
//! case), its folded lines joined; nothing is ever written back from the
//! parsed form, so order, case, spacing and repeated fields all survive.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::LazyLock;

use memchr::memmem;

/// A line's end, its searcher built once (built for each line, it cost
/// more than the search).
static CRLF: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new(b"\r\n"));

/// The most a header may take, blank line included; past it the record is
/// malformed (real headers are well under 4 KiB).
pub const MAX_HEADER: usize = 1 << 20;

/// A record's header, byte for byte.
#[derive(Debug, Clone)]
pub struct Header {
    /// From `WARC/` through the blank line that ends it.
    bytes: Vec<u8>,
    /// Each field's name and value (folded lines included, the line end
    /// of its last line not), as ranges of `bytes`.
    fields: Vec<(Range<usize>, Range<usize>)>,
}

/// The WARC versions this reader knows; another is read alike, and named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1_0,
    V1_1,
}

impl Header {
    /// Parses a header: `bytes` runs from the version line through the
    /// empty line (`\r\n\r\n`). The error says what is wrong, in the
    /// user's terms.
    pub fn parse(bytes: Vec<u8>) -> Result<Header, String> {
        let Some(version_end) = CRLF.find(&bytes) else {
            return Err("no line end after the version".to_owned());
        };
        let version = &bytes[..version_end];
        if !version.starts_with(b"WARC/") {
            let shown = String::from_utf8_lossy(&version[..version.len().min(16)]).into_owned();
            return Err(format!("`{shown}` is not a WARC version line"));
        }
        let mut fields: Vec<(Range<usize>, Range<usize>)> = Vec::new();
        let mut at = version_end + 2;
        // The last two bytes are the empty line's.
        let end = bytes.len() - 2;
        while at < end {
            let line_end = CRLF.find(&bytes[at..]).map_or(end, |i| at + i);
            let line = &bytes[at..line_end];
            if matches!(line.first(), Some(b' ' | b'\t')) {
                // A folded line (§4, as in RFC 2616's LWS) goes on the
                // value above it.
                let Some((_, value)) = fields.last_mut() else {
                    return Err(format!(
                        "a folded line at byte {at} of the header has no field"
                    ));
                };
                value.end = line_end;
            } else {
                let Some(colon) = memchr::memchr(b':', line) else {
                    let shown = String::from_utf8_lossy(&line[..line.len().min(40)]).into_owned();
                    return Err(format!("header line `{shown}` has no colon"));
                };
                let name = &line[..colon];
                if name.is_empty() || !name.iter().all(|&b| is_token(b)) {
                    let shown = String::from_utf8_lossy(&name[..name.len().min(40)]).into_owned();
                    return Err(format!("`{shown}` is not a field name"));
                }
                fields.push((at..at + colon, at + colon + 1..line_end));
            }
            at = line_end + 2;
        }
        Ok(Header { bytes, fields })
    }

    /// The header as it came.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The version line's version, when it is one this reader knows.
    pub fn version(&self) -> Option<Version> {
        match self.version_line() {
            b"WARC/1.0" => Some(Version::V1_0),
            b"WARC/1.1" => Some(Version::V1_1),
            _ => None,
        }
    }

    /// `WARC/1.1`, as it came.
    pub fn version_line(&self) -> &[u8] {
        let end = CRLF.find(&self.bytes).unwrap_or(self.bytes.len());
        &self.bytes[..end]
    }

    /// Every field in order, names and values as they came (a value's
    /// folded lines included, its leading space too).
    pub fn fields(&self) -> impl Iterator<Item = (&[u8], &[u8])> {
        self.fields
            .iter()
            .map(|(name, value)| (&self.bytes[name.clone()], &self.bytes[value.clone()]))
    }

    /// The raw value of the first field named `name` (any case).
    pub fn raw(&self, name: &str) -> Option<&[u8]> {
        self.fields()
            .find(|(n, _)| n.eq_ignore_ascii_case(name.as_bytes()))
            .map(|(_, v)| v)
    }

    /// The first field named `name` (any case): folded lines joined by a
    /// space, trimmed, decoded as UTF-8 (lossily: WARC 1.1 says UTF-8).
    pub fn get(&self, name: &str) -> Option<Cow<'_, str>> {
        let raw = self.raw(name)?;
        let trimmed = raw.trim_ascii();
        if !trimmed.contains(&b'\n') {
            return Some(String::from_utf8_lossy(trimmed));
        }
        let joined: Vec<&[u8]> = trimmed
            .split(|&b| b == b'\n')
            .map(|line| line.trim_ascii())
            .collect();
        Some(Cow::Owned(
            String::from_utf8_lossy(&joined.join(&b' ')).into_owned(),
        ))
    }

    /// `Content-Length`: the block's length, which must be there and be a
    /// number.
    pub fn content_length(&self) -> Result<u64, String> {
        let value = self
            .get("Content-Length")
            .ok_or_else(|| "no `Content-Length` field".to_owned())?;
        value
            .parse()
            .map_err(|_| format!("`Content-Length: {value}` is not a length"))
    }

    /// `WARC-Type`, lowercased.
    pub fn record_type(&self) -> String {
        self.get("WARC-Type")
            .map(|t| t.to_ascii_lowercase())
            .unwrap_or_default()
    }

    /// `WARC-Record-ID` as written (`<urn:uuid:…>`), or empty.
    pub fn record_id(&self) -> String {
        self.get("WARC-Record-ID")
            .map(Cow::into_owned)
            .unwrap_or_default()
    }

    /// `WARC-Date` as written, or empty.
    pub fn date(&self) -> String {
        self.get("WARC-Date")
            .map(Cow::into_owned)
            .unwrap_or_default()
    }

    /// `WARC-Target-URI` without the angle brackets WARC 1.0's grammar
    /// writes around it (`<http://…>`, as wget does).
    pub fn target_uri(&self) -> Option<String> {
        let value = self.get("WARC-Target-URI")?;
        let value = value.trim();
        let bare = value
            .strip_prefix('<')
            .and_then(|v| v.strip_suffix('>'))
            .unwrap_or(value);
        Some(bare.to_owned())
    }
}

/// RFC 2616's token characters: what a field name is made of.
fn is_token(b: u8) -> bool {
    b.is_ascii_graphic() && !b"()<>@,;:\\\"/[]?={}".contains(&b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> Header {
        Header::parse(text.as_bytes().to_vec()).unwrap()
    }

    #[test]
    fn fields_keep_their_order_case_repeats_and_folded_lines() {
        let h = header(
            "WARC/1.0\r\nwarc-type: response\r\nX-Note: a\r\n  b\r\nX-Note: c\r\nContent-Length: 5\r\n\r\n",
        );
        let fields: Vec<(&[u8], &[u8])> = h.fields().collect();
        assert_eq!(
            fields,
            vec![
                (&b"warc-type"[..], &b" response"[..]),
                (b"X-Note", b" a\r\n  b"),
                (b"X-Note", b" c"),
                (b"Content-Length", b" 5"),
            ]
        );
        assert_eq!(h.record_type(), "response");
        assert_eq!(h.get("x-note").unwrap(), "a b");
        assert_eq!(h.content_length(), Ok(5));
        assert_eq!(h.version(), Some(Version::V1_0));
    }

    #[test]
    fn a_target_uri_in_angle_brackets_is_read_without_them() {
        let h = header("WARC/1.0\r\nWARC-Target-URI: <http://a/b?c>\r\n\r\n");
        assert_eq!(h.target_uri().as_deref(), Some("http://a/b?c"));
        let h = header("WARC/1.1\r\nWARC-Target-URI: http://a/b\r\n\r\n");
        assert_eq!(h.target_uri().as_deref(), Some("http://a/b"));
        assert_eq!(h.version(), Some(Version::V1_1));
    }

    #[test]
    fn bad_headers_say_what_is_wrong() {
        let bad = |text: &str| Header::parse(text.as_bytes().to_vec()).unwrap_err();
        assert_eq!(
            bad("HTTP/1.1 200 OK\r\n\r\n"),
            "`HTTP/1.1 200 OK` is not a WARC version line"
        );
        assert_eq!(
            bad("WARC/1.0\r\nno colon\r\n\r\n"),
            "header line `no colon` has no colon"
        );
        assert_eq!(
            bad("WARC/1.0\r\n folded\r\n\r\n"),
            "a folded line at byte 10 of the header has no field"
        );
        assert_eq!(
            header("WARC/1.0\r\nContent-Length: x1\r\n\r\n").content_length(),
            Err("`Content-Length: x1` is not a length".to_owned())
        );
    }
}
