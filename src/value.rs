//! Attribute values as they stand in the source: quoting, surrounding
//! whitespace and character references on the way in, and escaping for the
//! same place on the way out.

use std::borrow::Cow;

/// How the value was written: the byte before it tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Quote {
    Double,
    Single,
    Unquoted,
}

impl Quote {
    /// From the byte just before the value: a quote opens a quoted value;
    /// anything else (`=`, whitespace) comes before an unquoted one.
    pub fn from_preceding(byte: u8) -> Self {
        match byte {
            b'"' => Quote::Double,
            b'\'' => Quote::Single,
            _ => Quote::Unquoted,
        }
    }
}

/// HTML's ASCII whitespace: what a URL-valued attribute is stripped of.
fn is_html_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' ')
}

/// A value split into the whitespace around it and its core, as raw text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parts<'a> {
    pub lead: &'a str,
    pub core: &'a str,
    pub trail: &'a str,
}

pub fn split_whitespace(raw: &str) -> Parts<'_> {
    let core = raw.trim_matches(is_html_whitespace);
    let lead = raw.len() - raw.trim_start_matches(is_html_whitespace).len();
    Parts {
        lead: &raw[..lead],
        core,
        trail: &raw[lead + core.len()..],
    }
}

/// Decodes character references by the HTML standard's rules for attribute
/// values (a legacy reference without `;` before an alphanumeric or `=` is
/// not one: `?a=1&timestamp=2` keeps its `&times`), then strips whitespace
/// that references wrote (`&#32;`), as a browser does before parsing a URL.
pub fn decode(core: &str) -> Cow<'_, str> {
    match htmlize::unescape_attribute(core) {
        Cow::Borrowed(s) => Cow::Borrowed(s),
        Cow::Owned(s) => {
            let trimmed = s.trim_matches(is_html_whitespace);
            if trimmed.len() == s.len() {
                Cow::Owned(s)
            } else {
                Cow::Owned(trimmed.to_owned())
            }
        }
    }
}

/// Writes `resolved`, the new value of the core `raw_core` (which decoded to
/// `decoded`), escaped for the place it stands in, into `out`.
///
/// Where resolution only put something in front of the reference (the common
/// case: `page?a=1&amp;b=2` → `https://h/page?a=1&amp;b=2`), the reference's
/// own bytes are kept as the author wrote them and only the new prefix is
/// escaped; otherwise the whole URL is escaped.
pub fn encode(raw_core: &str, decoded: &str, resolved: &str, quote: Quote, out: &mut Vec<u8>) {
    let (prefix, tail) = match resolved.strip_suffix(decoded) {
        Some(prefix) if htmlize::unescape_attribute(raw_core) == decoded => (prefix, raw_core),
        _ => (resolved, ""),
    };
    match quote {
        Quote::Double | Quote::Single => {
            escape(prefix, quote, out);
            out.extend_from_slice(tail.as_bytes());
        }
        Quote::Unquoted if !needs_quotes(prefix) && !needs_quotes(tail) && !resolved.is_empty() => {
            escape(prefix, quote, out);
            out.extend_from_slice(tail.as_bytes());
        }
        Quote::Unquoted => {
            // The value now needs quotes; the range being replaced is the bare
            // value, so they go inside it. The raw tail may hold a `"` (a
            // parse error the tokenizer keeps), so then escape it all.
            out.push(b'"');
            if tail.contains('"') {
                escape(resolved, Quote::Double, out);
            } else {
                escape(prefix, Quote::Double, out);
                out.extend_from_slice(tail.as_bytes());
            }
            out.push(b'"');
        }
    }
}

/// What ends an unquoted attribute value (whitespace, `>`), or is a parse
/// error in one (quotes, `<`, `` ` ``). `=` is a parse error only as the
/// first character, and a resolved URL starts with its scheme: queries
/// (`?a=1`) stay unquoted.
fn needs_quotes(s: &str) -> bool {
    s.chars()
        .any(|c| is_html_whitespace(c) || matches!(c, '"' | '\'' | '<' | '>' | '`'))
}

fn escape(s: &str, quote: Quote, out: &mut Vec<u8>) {
    for c in s.chars() {
        match (c, quote) {
            ('&', _) => out.extend_from_slice(b"&amp;"),
            ('"', Quote::Double) => out.extend_from_slice(b"&quot;"),
            ('\'', Quote::Single) => out.extend_from_slice(b"&#39;"),
            _ => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encoded(raw_core: &str, resolved: &str, quote: Quote) -> String {
        let mut out = Vec::new();
        encode(raw_core, &decode(raw_core), resolved, quote, &mut out);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn whitespace_around_is_split_off() {
        let p = split_whitespace(" \n\tpage.html \r");
        assert_eq!((p.lead, p.core, p.trail), (" \n\t", "page.html", " \r"));
        let p = split_whitespace("   ");
        assert_eq!((p.lead, p.core, p.trail), ("   ", "", ""));
        // U+00A0 is not ASCII whitespace.
        assert_eq!(split_whitespace("\u{a0}x").core, "\u{a0}x");
    }

    #[test]
    fn decode_follows_the_attribute_value_rules() {
        assert_eq!(decode("a?x=1&amp;y=2"), "a?x=1&y=2");
        assert_eq!(decode("a?x=1&timestamp=2"), "a?x=1&timestamp=2");
        assert_eq!(decode("a?x=1&copy=2"), "a?x=1&copy=2");
        assert_eq!(decode("&copy;"), "\u{a9}");
        assert_eq!(decode("&copy"), "\u{a9}");
        assert_eq!(decode("&#x2F;g&#47;h"), "/g/h");
        assert_eq!(decode("&#32;g&#9;"), "g");
    }

    #[test]
    fn the_authors_bytes_are_kept_after_a_new_prefix() {
        assert_eq!(
            encoded("page?a=1&amp;b=2", "https://h/page?a=1&b=2", Quote::Double),
            "https://h/page?a=1&amp;b=2"
        );
        assert_eq!(
            encoded("page?a=1&b=2", "https://h/page?a=1&b=2", Quote::Double),
            "https://h/page?a=1&b=2"
        );
    }

    #[test]
    fn the_whole_url_is_escaped_when_the_reference_changed() {
        assert_eq!(
            encoded("../x?a=1&amp;b=2", "https://h/x?a=1&b=2", Quote::Double),
            "https://h/x?a=1&amp;b=2"
        );
    }

    #[test]
    fn quotes_in_the_base_are_escaped_for_the_attribute() {
        assert_eq!(
            encoded("g", "http://h/\"/g", Quote::Double),
            "http://h/&quot;/g"
        );
        assert_eq!(
            encoded("g", "http://h/'/g", Quote::Single),
            "http://h/&#39;/g"
        );
        assert_eq!(encoded("g", "http://h/'/g", Quote::Double), "http://h/'/g");
    }

    #[test]
    fn unquoted_values_get_quotes_only_when_they_need_them() {
        assert_eq!(encoded("g", "http://h/g", Quote::Unquoted), "http://h/g");
        assert_eq!(
            encoded("g?a=1", "http://h/g?a=1", Quote::Unquoted),
            "http://h/g?a=1"
        );
        assert_eq!(
            encoded("../g?a=1", "http://g?a=1", Quote::Unquoted),
            "http://g?a=1"
        );
        assert_eq!(
            encoded("g", "http://h/a b/g", Quote::Unquoted),
            "\"http://h/a b/g\""
        );
        assert_eq!(
            encoded("g", "http://h/>/g", Quote::Unquoted),
            "\"http://h/>/g\""
        );
        assert_eq!(
            encoded("a\"b", "http://h /a\"b", Quote::Unquoted),
            "\"http://h /a&quot;b\""
        );
    }
}
