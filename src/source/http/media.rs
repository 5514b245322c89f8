//! What the body is: the `Content-Type` of the final block, read as the
//! Fetch standard reads it ("extract a MIME type"), and, when there is none,
//! the MIME Sniffing standard's patterns for HTML.
//!
//! Written here rather than with the `mime` crate: it parses by RFC 7231's
//! grammar and refuses what servers send and browsers read
//! (`text/html ; charset=utf-8`, `text/html; charset=utf-8; foo`), which
//! would lose the charset of real pages; WHATWG's algorithm takes them.

use super::head::Head;

/// A parsed MIME type: its essence (`text/html`, lowercase) and charset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaType {
    pub essence: String,
    /// The `charset` parameter as written (its quotes removed).
    pub charset: Option<String>,
}

impl MediaType {
    /// Whether a document of this type is HTML (`text/html`, or XHTML,
    /// whose links are HTML's too).
    pub fn is_html(&self) -> bool {
        matches!(self.essence.as_str(), "text/html" | "application/xhtml+xml")
    }
}

/// HTTP whitespace: tab, line feed, carriage return, space.
fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | ' ')
}

/// An HTTP token code point.
fn is_token(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// An HTTP quoted-string token code point: tab, and U+0020 to U+00FF
/// but U+007F.
fn is_quoted_token(c: char) -> bool {
    c == '\t' || (' '..='\u{ff}').contains(&c) && c != '\u{7f}'
}

/// Fetch's "collect an HTTP quoted string" from `s` (which starts at its
/// `"`): the value with its escapes undone, and the rest after it.
fn quoted_string(s: &str) -> (String, &str) {
    let mut value = String::new();
    let mut chars = s[1..].char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return (value, &s[1 + i + 1..]),
            '\\' => match chars.next() {
                Some((_, escaped)) => value.push(escaped),
                None => {
                    value.push('\\');
                    return (value, "");
                }
            },
            c => value.push(c),
        }
    }
    (value, "")
}

/// The MIME Sniffing standard's "parse a MIME type".
pub fn parse(input: &str) -> Option<MediaType> {
    let input = input.trim_matches(is_whitespace);
    let (kind, rest) = input.split_once('/')?;
    if kind.is_empty() || !kind.chars().all(is_token) {
        return None;
    }
    let (subtype, mut rest) = rest.split_once(';').unwrap_or((rest, ""));
    let subtype = subtype.trim_end_matches(is_whitespace);
    if subtype.is_empty() || !subtype.chars().all(is_token) {
        return None;
    }
    let essence = format!("{}/{}", kind, subtype).to_ascii_lowercase();
    let mut charset = None;
    let mut names = Vec::new();
    while !rest.is_empty() {
        rest = rest.trim_start_matches(is_whitespace);
        let end = rest.find([';', '=']).unwrap_or(rest.len());
        let name = rest[..end].to_ascii_lowercase();
        rest = &rest[end..];
        if let Some(after) = rest.strip_prefix(';') {
            rest = after;
            continue;
        }
        let Some(after) = rest.strip_prefix('=') else {
            break;
        };
        rest = after;
        let value = if rest.starts_with('"') {
            let (value, after) = quoted_string(rest);
            rest = after.split_once(';').map_or("", |(_, after)| after);
            value
        } else {
            let (value, after) = rest.split_once(';').unwrap_or((rest, ""));
            rest = after;
            let value = value.trim_end_matches(is_whitespace);
            if value.is_empty() {
                continue;
            }
            value.to_owned()
        };
        if !name.is_empty()
            && name.chars().all(is_token)
            && value.chars().all(is_quoted_token)
            && !names.contains(&name)
        {
            if name == "charset" {
                charset = Some(value);
            }
            names.push(name);
        }
    }
    Some(MediaType { essence, charset })
}

/// Fetch's "getting, decoding, and splitting" of a field's values: split
/// at commas outside quoted strings, each value trimmed.
fn split(joined: &str) -> Vec<&str> {
    let mut values = Vec::new();
    let mut start = 0;
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in joined.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                values.push(joined[start..i].trim_matches(is_whitespace));
                start = i + 1;
            }
            _ => {}
        }
    }
    values.push(joined[start..].trim_matches(is_whitespace));
    values
}

/// Fetch's "extract a MIME type" from a block's `Content-Type` fields:
/// the last valid type, with the charset of an earlier field of the same
/// essence when it has none. `None` when there is no such field, or no
/// valid type in it.
pub fn content_type(head: &Head) -> Option<MediaType> {
    // Field values are bytes; Fetch decodes them isomorphically.
    let joined: Vec<String> = head
        .values("Content-Type")
        .map(|(value, _)| value.iter().map(|&b| char::from(b)).collect())
        .collect();
    if joined.is_empty() {
        return None;
    }
    let joined = joined.join(", ");
    let mut found: Option<MediaType> = None;
    let mut charset: Option<String> = None;
    for value in split(&joined) {
        let Some(mut media) = parse(value) else {
            continue;
        };
        if media.essence == "*/*" {
            continue;
        }
        if found.as_ref().map(|m| &m.essence) != Some(&media.essence) {
            charset = media.charset.clone();
        } else if media.charset.is_none() {
            media.charset = charset.clone();
        }
        found = Some(media);
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn essence_and_charset(s: &str) -> Option<(String, Option<String>)> {
        parse(s).map(|m| (m.essence, m.charset))
    }

    #[test]
    fn types_parse_as_browsers_read_them() {
        let html =
            |charset: Option<&str>| Some(("text/html".to_owned(), charset.map(String::from)));
        assert_eq!(essence_and_charset("text/html"), html(None));
        assert_eq!(
            essence_and_charset("TEXT/HTML; Charset=Shift_JIS"),
            html(Some("Shift_JIS"))
        );
        assert_eq!(
            essence_and_charset("text/html;charset=UTF-8;"),
            html(Some("UTF-8"))
        );
        // What the `mime` crate refuses.
        assert_eq!(
            essence_and_charset("text/html ; charset=utf-8"),
            html(Some("utf-8"))
        );
        assert_eq!(
            essence_and_charset("text/html; charset=utf-8; foo"),
            html(Some("utf-8"))
        );
        assert_eq!(
            essence_and_charset("text/html; charset=utf-8 "),
            html(Some("utf-8"))
        );
        assert_eq!(
            essence_and_charset("text/html; charset=\"utf\\-8\"; x=1"),
            html(Some("utf-8"))
        );
        assert_eq!(essence_and_charset("text/html; charset="), html(None));
        // The first of a repeated parameter counts.
        assert_eq!(
            essence_and_charset("text/html; charset=gbk; charset=utf-8"),
            html(Some("gbk"))
        );
        assert_eq!(essence_and_charset("text/"), None);
        assert_eq!(essence_and_charset("html"), None);
        assert_eq!(essence_and_charset("te xt/html"), None);
    }

    fn head(fields: &str) -> Head {
        let block = format!("HTTP/1.1 200 OK\r\n{fields}\r\n");
        Head::parse(block.into_bytes(), 0).unwrap()
    }

    #[test]
    fn the_content_type_is_extracted_as_fetch_does() {
        let extracted = |fields| content_type(&head(fields)).map(|m| (m.essence, m.charset));
        assert_eq!(extracted("Server: x\r\n"), None);
        assert_eq!(
            extracted("Content-Type: text/plain\r\nContent-Type: text/html;charset=gbk\r\n"),
            Some(("text/html".to_owned(), Some("gbk".to_owned())))
        );
        // A later field of the same essence keeps the charset.
        assert_eq!(
            extracted("Content-Type: text/html;charset=gbk, text/html\r\n"),
            Some(("text/html".to_owned(), Some("gbk".to_owned())))
        );
        assert_eq!(
            extracted("Content-Type: text/html, */*\r\n"),
            Some(("text/html".to_owned(), None))
        );
        assert_eq!(
            extracted("Content-Type: text/html; x=\"a,b\"\r\n"),
            Some(("text/html".to_owned(), None))
        );
        assert_eq!(extracted("Content-Type: nonsense\r\n"), None);
    }
}
