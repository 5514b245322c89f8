//! An `<?xml-stylesheet?>` processing instruction read as XML reads it,
//! from its bytes whole (the W3C's "Associating Style Sheets with XML
//! documents"): its pseudo-attributes have the syntax of a start tag's
//! attributes, and its `href` is a URL. A browser that reads the document
//! as XML loads it, as Chromium does: a stylesheet of CSS (`type` absent,
//! empty or `text/css`) or of XSLT (`text/xsl` and the XML types), not an
//! alternate one without a title; any other instruction, or one whose
//! pseudo-attributes do not read as attributes, loads nothing.

use std::ops::Range;

use quick_xml::Reader;
use quick_xml::events::Event;

/// Where the `href` of an instruction stands in its bytes: its value,
/// between its quotes, and the quote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Href {
    pub value: Range<usize>,
    pub quote: u8,
}

/// The types of stylesheet Chromium loads, as written (no parameter, in
/// this case): CSS, and XSLT under each type it takes for it. Checked one
/// by one in Debian's Chromium 156; `TEXT/CSS`, `text/css ` and
/// `text/plain` load nothing.
const LOADED_TYPES: [&[u8]; 8] = [
    b"",
    b"text/css",
    b"text/xsl",
    b"text/xml",
    b"application/xml",
    b"application/xhtml+xml",
    b"application/rss+xml",
    b"application/atom+xml",
];

/// The `href` of `pi`, the bytes of one processing instruction from its
/// `<?` to its `?>`, when it is an `xml-stylesheet` a browser loads: its
/// pseudo-attributes read as attributes do (no duplicate, each quoted),
/// its `href` value as XML reads it ([`reads_as_xml`]), its `type` one a
/// browser loads ([`LOADED_TYPES`]), and it is no alternate stylesheet
/// (`alternate="yes"`) without a `title`; else `None`. Bytes of any
/// ASCII-compatible encoding.
pub fn href(pi: &[u8]) -> Option<Href> {
    let mut reader = Reader::from_reader(pi);
    let Ok(Event::PI(instruction)) = reader.read_event() else {
        return None;
    };
    // The instruction is the bytes whole: an HTML comment cut at a `>`
    // inside a value is none.
    if instruction.target() != b"xml-stylesheet" || reader.buffer_position() != pi.len() as u64 {
        return None;
    }
    let (mut href, mut loaded, mut alternate, mut titled) = (None, true, false, false);
    for attribute in instruction.attributes() {
        let attribute = attribute.ok()?;
        // The value as written: a slice of `pi`, past its opening quote.
        let value = &attribute.value;
        let unescaped = || quick_xml::escape::unescape(std::str::from_utf8(value).ok()?).ok();
        match attribute.key.as_ref() {
            b"href" => {
                let start = (value.as_ptr() as usize).checked_sub(pi.as_ptr() as usize)?;
                let quote = *pi.get(start.checked_sub(1)?)?;
                href = Some(Href {
                    value: start..start + value.len(),
                    quote,
                });
            }
            b"type" => {
                loaded = unescaped().is_some_and(|t| LOADED_TYPES.contains(&t.as_bytes()));
            }
            b"alternate" => alternate = unescaped().is_some_and(|a| a == "yes"),
            b"title" => titled = unescaped().is_some_and(|t| !t.is_empty()),
            _ => {}
        }
    }
    let loaded = loaded && (titled || !alternate);
    href.filter(|h| loaded && reads_as_xml(&pi[h.value.clone()]))
}

/// Whether XML reads `value`, an attribute value as written: no `<`, and
/// each `&` a reference to one of XML's five entities or a character
/// reference to a character XML allows. A character reference to a C1
/// control (U+0080 to U+009F) is refused too: HTML's decoding, which the
/// page engine's values go through, reads it as windows-1252 does.
pub fn reads_as_xml(value: &[u8]) -> bool {
    if value.contains(&b'<') {
        return false;
    }
    let mut rest = value;
    while let Some(amp) = memchr::memchr(b'&', rest) {
        let Some(end) = memchr::memchr(b';', &rest[amp..]) else {
            return false;
        };
        let name = &rest[amp + 1..amp + end];
        let known = match name {
            b"amp" | b"lt" | b"gt" | b"quot" | b"apos" => true,
            [b'#', b'x', hex @ ..] => character(hex, 16),
            [b'#', decimal @ ..] => character(decimal, 10),
            _ => false,
        };
        if !known {
            return false;
        }
        rest = &rest[amp + end + 1..];
    }
    true
}

/// Whether `digits` in `radix` name a character XML allows (its `Char`
/// production) that is no C1 control.
fn character(digits: &[u8], radix: u32) -> bool {
    let Some(code) = std::str::from_utf8(digits)
        .ok()
        .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_hexdigit()))
        .and_then(|d| u32::from_str_radix(d, radix).ok())
    else {
        return false;
    };
    matches!(code, 0x9 | 0xA | 0xD | 0x20..=0x7F | 0xA0..=0xD7FF | 0xE000..=0xFFFD | 0x10000..=0x10FFFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each instruction and where its `href` stands, or that it has none
    /// a browser would load.
    #[test]
    fn an_instruction_has_its_href_where_xml_reads_it() {
        let cases: &[(&str, Option<&str>)] = &[
            (r#"<?xml-stylesheet href="a.css"?>"#, Some("a.css")),
            (
                r#"<?xml-stylesheet type="text/css" href='b.css' ?>"#,
                Some("b.css"),
            ),
            ("<?xml-stylesheet\n  href = \"c.css\"\n?>", Some("c.css")),
            (
                r#"<?xml-stylesheet href="d.css?a=1&amp;b=2"?>"#,
                Some("d.css?a=1&amp;b=2"),
            ),
            (
                r#"<?xml-stylesheet href="&#x65;.css"?>"#,
                Some("&#x65;.css"),
            ),
            (r#"<?xml-stylesheet href=""?>"#, Some("")),
            // No `href`, another target, not the instruction whole.
            (r#"<?xml-stylesheet type="text/css"?>"#, None),
            (r#"<?xml-stylesheets href="a.css"?>"#, None),
            (r#"<?xml version="1.0"?>"#, None),
            (r#"<?php echo "a.css"; ?>"#, None),
            (r#"<?xml-stylesheet href="a"#, None),
            (r#"<?xml-stylesheet href="a.css"?> "#, None),
            (r#"<!--?xml-stylesheet href="a.css"?-->"#, None),
            // Pseudo-attributes XML does not read: unquoted, doubled.
            (r#"<?xml-stylesheet href=a.css?>"#, None),
            (r#"<?xml-stylesheet href="a.css" href="b.css"?>"#, None),
            // A value XML does not read: an entity of HTML's, a bare `&`,
            // a `<`, a reference to no character.
            (r#"<?xml-stylesheet href="a&nbsp;.css"?>"#, None),
            (r#"<?xml-stylesheet href="a&b.css"?>"#, None),
            (r#"<?xml-stylesheet href="a<b.css"?>"#, None),
            (r#"<?xml-stylesheet href="&#0;.css"?>"#, None),
            (r#"<?xml-stylesheet href="&#x;.css"?>"#, None),
            (r#"<?xml-stylesheet href="&#x85;.css"?>"#, None),
            // What Chromium loads, by type and by alternate: a stylesheet
            // of CSS or XSLT, not an alternate one without a title.
            (r#"<?xml-stylesheet href="a.css" type=""?>"#, Some("a.css")),
            (
                r#"<?xml-stylesheet href="a.xsl" type="application/rss+xml"?>"#,
                Some("a.xsl"),
            ),
            (
                r#"<?xml-stylesheet href="a.xsl" type="text&#x2F;xsl"?>"#,
                Some("a.xsl"),
            ),
            (r#"<?xml-stylesheet href="a.css" type="text/plain"?>"#, None),
            (r#"<?xml-stylesheet href="a.css" type="TEXT/CSS"?>"#, None),
            (
                r#"<?xml-stylesheet href="a.css" type="text/css; charset=utf-8"?>"#,
                None,
            ),
            (r#"<?xml-stylesheet href="a.css" type="text/css "?>"#, None),
            (r#"<?xml-stylesheet href="a.css" alternate="yes"?>"#, None),
            (
                r#"<?xml-stylesheet href="a.css" alternate="yes" title=""?>"#,
                None,
            ),
            (
                r#"<?xml-stylesheet href="a.css" alternate="yes" title="print"?>"#,
                Some("a.css"),
            ),
            (
                r#"<?xml-stylesheet href="a.css" alternate="YES"?>"#,
                Some("a.css"),
            ),
            (
                r#"<?xml-stylesheet href="a.css" alternate="no" media="print"?>"#,
                Some("a.css"),
            ),
        ];
        for (pi, expected) in cases {
            let found = href(pi.as_bytes());
            let value = found.as_ref().map(|h| &pi[h.value.clone()]);
            assert_eq!(value, *expected, "{pi}");
            if let Some(h) = found {
                assert!(matches!(h.quote, b'"' | b'\''), "{pi}");
                assert_eq!(pi.as_bytes()[h.value.start - 1], h.quote, "{pi}");
                assert_eq!(pi.as_bytes()[h.value.end], h.quote, "{pi}");
            }
        }
    }
}
