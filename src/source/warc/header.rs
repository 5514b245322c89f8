//! A WARC record's header (ISO 28500 §4): its version line and named
//! fields, kept as the bytes they came in. A field is read by name (any
//! case), its folded lines joined; nothing is ever written back from the
//! parsed form, so order, case, spacing and repeated fields all survive.

use std::borrow::Cow;
use std::ops::Range;

use crate::source::names;

/// Where the first line ends: the content before its `\n` and the `\r`s
/// right before that (`\r\n`, as the standard writes it; `\n` alone or
/// `\r\r\n`, as some writers do and warcio reads), and where the next line
/// starts. A `\r` elsewhere is part of the line.
fn line(bytes: &[u8]) -> Option<(usize, usize)> {
    let lf = memchr::memchr(b'\n', bytes)?;
    let content = bytes[..lf]
        .iter()
        .rposition(|&b| b != b'\r')
        .map_or(0, |i| i + 1);
    Some((content, lf + 1))
}

/// Where the empty line that ends a header ends, in `bytes` (which start
/// at a header's first byte, or at a line end within it): the first line
/// end followed by one with nothing before it. Else how far the search
/// may go on from once more bytes come (a line end followed by `\r`s
/// only may yet be one).
pub fn header_end(bytes: &[u8]) -> Result<usize, usize> {
    for lf in memchr::memchr_iter(b'\n', bytes) {
        let after = &bytes[lf + 1..];
        let crs = after.iter().take_while(|&&b| b == b'\r').count();
        match after.get(crs) {
            Some(b'\n') => return Ok(lf + 1 + crs + 1),
            Some(_) => {}
            None => return Err(lf),
        }
    }
    Err(bytes.len())
}

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
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V1_0,
    V1_1,
}

impl Header {
    /// Parses a header: `bytes` runs from the version line through the
    /// empty line (`header_end`). The error says what is wrong, in the
    /// user's terms.
    pub fn parse(bytes: Vec<u8>) -> Result<Header, String> {
        let Some((version_end, mut at)) = line(&bytes) else {
            return Err("no line end after the version".to_owned());
        };
        let version = &bytes[..version_end];
        if !version.starts_with(b"WARC/") {
            let shown = names::shown(&version[..version.len().min(16)]);
            return Err(format!("`{shown}` is not a WARC version line"));
        }
        let mut fields: Vec<(Range<usize>, Range<usize>)> = Vec::new();
        while let Some((content, next)) = line(&bytes[at..]) {
            let line_end = at + content;
            let line = &bytes[at..line_end];
            if line.is_empty() {
                // The empty line: the header's last.
                break;
            }
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
                    let shown = names::shown(&line[..line.len().min(40)]);
                    return Err(format!("header line `{shown}` has no colon"));
                };
                let name = &line[..colon];
                if name.is_empty() || !name.iter().all(|&b| is_token(b)) {
                    let shown = names::shown(&name[..name.len().min(40)]);
                    return Err(format!("`{shown}` is not a field name"));
                }
                fields.push((at..at + colon, at + colon + 1..line_end));
            }
            at += next;
        }
        Ok(Header { bytes, fields })
    }

    /// The header as it came.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The version line's version, when it is one this reader knows.
    #[cfg(test)]
    pub fn version(&self) -> Option<Version> {
        match self.version_line() {
            b"WARC/1.0" => Some(Version::V1_0),
            b"WARC/1.1" => Some(Version::V1_1),
            _ => None,
        }
    }

    /// `WARC/1.1`, as it came.
    pub fn version_line(&self) -> &[u8] {
        let end = line(&self.bytes).map_or(self.bytes.len(), |(end, _)| end);
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
            // Checked first at memory speed: values are nearly always ASCII
            // (the lossy decoding walks them in chunks).
            return Some(match std::str::from_utf8(trimmed) {
                Ok(text) => Cow::Borrowed(text),
                Err(_) => String::from_utf8_lossy(trimmed),
            });
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
        value.parse().map_err(|_| {
            let raw = self.raw("Content-Length").unwrap_or_default();
            format!(
                "`Content-Length: {}` is not a length",
                names::shown(raw.trim_ascii())
            )
        })
    }

    /// `WARC-Type`, lowercased.
    pub fn record_type(&self) -> String {
        self.get("WARC-Type")
            .map(|t| t.to_ascii_lowercase())
            .unwrap_or_default()
    }

    /// `WARC-Record-ID` as written (`<urn:uuid:…>`), trimmed, with U+FFFD
    /// where its bytes are not UTF-8 (as the link report's `record`), or
    /// empty.
    pub fn record_id(&self) -> String {
        self.raw("WARC-Record-ID")
            .map(|id| String::from_utf8_lossy(id.trim_ascii()).into_owned())
            .unwrap_or_default()
    }

    /// `WARC-Date` as written, or empty.
    pub fn date(&self) -> String {
        self.get("WARC-Date")
            .map(Cow::into_owned)
            .unwrap_or_default()
    }

    /// `WARC-Target-URI` as its bytes came, trimmed, without the angle
    /// brackets WARC 1.0's grammar writes around it: the one a base is
    /// taken from, never decoded lossily.
    pub fn target_uri_bytes(&self) -> Option<&[u8]> {
        let value = self.raw("WARC-Target-URI")?.trim_ascii();
        let bare = value
            .strip_prefix(b"<")
            .and_then(|v| v.strip_suffix(b">"))
            .unwrap_or(value);
        Some(bare)
    }

    /// `WARC-Target-URI` without the angle brackets WARC 1.0's grammar
    /// writes around it (`<http://…>`, as wget does).
    #[cfg(test)]
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
    TOKEN[usize::from(b)]
}

/// [`is_token`] for each byte, made once.
const TOKEN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        let mut separator = false;
        let mut i = 0;
        while i < SEPARATORS.len() {
            separator |= SEPARATORS[i] == byte;
            i += 1;
        }
        table[b] = byte.is_ascii_graphic() && !separator;
        b += 1;
    }
    table
};

/// RFC 2616's separators (its token is any visible character but these).
const SEPARATORS: &[u8] = b"()<>@,;:\\\"/[]?={}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_any_visible_character_but_the_separators() {
        for b in 0..=255u8 {
            let visible = (0x21..0x7f).contains(&b);
            let separator = b"()<>@,;:\\\"/[]?={}".contains(&b);
            assert_eq!(is_token(b), visible && !separator, "{b:#04x}");
        }
    }

    #[test]
    fn a_line_ends_at_its_lf_without_the_crs_before_it() {
        assert_eq!(line(b"a\nb\r\nc\r\n"), Some((1, 2)));
        assert_eq!(line(b"ab\r\nc"), Some((2, 4)));
        assert_eq!(line(b"ab\r\r\n"), Some((2, 5)));
        assert_eq!(line(b"a\rb\n"), Some((3, 4)));
        assert_eq!(line(b"\r\n"), Some((0, 2)));
        assert_eq!(line(b"x\r"), None);
    }

    #[test]
    fn a_header_ends_at_its_first_empty_line_however_its_lines_end() {
        for (bytes, end) in [
            (&b"WARC/1.1\r\nA: b\r\n\r\nHTTP/1.1 200\r\n\r\n"[..], Ok(18)),
            (
                b"WARC/1.1\r\r\nA: b\r\r\n\r\r\nHTTP/1.1 200\r\n\r\n",
                Ok(21),
            ),
            (b"WARC/1.1\nA: b\n\nx\r\n\r\n", Ok(15)),
            (b"WARC/1.1\r\nA: b\n\r\nx", Ok(17)),
            // Not yet: the bytes after the last line end may be `\r`s of
            // an empty line.
            (b"WARC/1.1\r\nA: b\r\n\r", Err(15)),
            (b"WARC/1.1\r\nA: b\r\nC", Err(17)),
            (b"WARC/1.1", Err(8)),
        ] {
            assert_eq!(
                header_end(bytes),
                end,
                "{:?}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

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
    fn lines_in_cr_cr_lf_or_lf_alone_read_as_lines_in_crlf() {
        let crlf = header(
            "WARC/1.0\r\nWARC-Type: response\r\nX-Note: a\r\n b\r\nContent-Length: 5\r\n\r\n",
        );
        for text in [
            "WARC/1.0\r\r\nWARC-Type: response\r\r\nX-Note: a\r\r\n b\r\r\nContent-Length: 5\r\r\n\r\r\n",
            "WARC/1.0\nWARC-Type: response\nX-Note: a\n b\nContent-Length: 5\n\n",
        ] {
            let h = header(text);
            assert_eq!(h.version_line(), b"WARC/1.0");
            assert_eq!(h.record_type(), "response");
            assert_eq!(h.get("X-Note"), crlf.get("X-Note"));
            assert_eq!(h.content_length(), Ok(5));
            let names: Vec<&[u8]> = h.fields().map(|(name, _)| name).collect();
            assert_eq!(names, [&b"WARC-Type"[..], b"X-Note", b"Content-Length"]);
            assert_eq!(h.raw("WARC-Type"), Some(&b" response"[..]));
        }
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
