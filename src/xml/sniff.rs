//! Which documents are XML, by their first bytes: after a byte order mark
//! and white space, `<?xml`, or a root element that names one of the
//! vocabularies the engine knows (`rss`, `feed`, `rdf:RDF`, `urlset`,
//! `sitemapindex`, `svg`). Comments, processing instructions and a DOCTYPE
//! may come before the root, as long as they like: the caller reads on
//! while [`Sniffed::complete`] says more bytes could tell more. An `svg`
//! root is SVG's in its namespace (`xmlns="http://www.w3.org/2000/svg"`),
//! or after `<?xml`: HTML's inline `<svg>` needs none, and a page or a
//! fragment may start with one. An `html` root, after `<?xml` or not, is a
//! page (XHTML, nearly always served as `text/html`): the page engine
//! reads its `<base href>`, and goes on past what XML would stop at.
//!
//! The bytes are read in UTF-16 by a byte order mark, by XML 1.0 Appendix
//! F's first bytes (`<?` in UTF-16 with no mark), or as the caller says
//! (`--encoding`, a charset); in UTF-32 by its mark or Appendix F's, for
//! the engine to refuse by name.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE};
use quick_xml::Reader;
use quick_xml::errors::Error as XmlError;
use quick_xml::events::Event;

/// What an XML document is, by its root element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum XmlKind {
    /// `rss`: RSS 0.9x and 2.0.
    Rss,
    /// `feed`: Atom.
    Atom,
    /// `rdf:RDF`: RSS 1.0 and 0.90.
    Rdf,
    /// `urlset`: a sitemap.
    Sitemap,
    /// `sitemapindex`: a sitemap of sitemaps.
    SitemapIndex,
    /// `svg`.
    Svg,
    /// XML by its declaration, whose root is none of these (or is not in
    /// the bytes given).
    Other,
}

impl XmlKind {
    /// Whether the engine knows what is a URL in it: a source that finds
    /// documents by their names (`--site`) rewrites these, and leaves any
    /// other XML as it is.
    pub fn is_vocabulary(self) -> bool {
        self != XmlKind::Other
    }

    fn of_root(qname: &[u8]) -> Option<XmlKind> {
        Some(match qname {
            b"rss" => XmlKind::Rss,
            b"feed" => XmlKind::Atom,
            b"rdf:RDF" => XmlKind::Rdf,
            b"urlset" => XmlKind::Sitemap,
            b"sitemapindex" => XmlKind::SitemapIndex,
            b"svg" => XmlKind::Svg,
            _ => return None,
        })
    }
}

/// Whether a document that starts with `first` (its first bytes, as many
/// as the caller has) is XML, and what kind: `None` is HTML.
pub fn sniff(first: &[u8]) -> Option<XmlKind> {
    sniff_in(first, None).kind
}

/// What the first bytes say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sniffed {
    /// What [`sniff`] says.
    pub kind: Option<XmlKind>,
    /// Whether more bytes could not change it: the root element, or
    /// anything that is no XML prolog, is in them.
    pub complete: bool,
}

/// [`sniff`], with the bytes in `encoding` when the document says nothing
/// of its own (`--encoding`, a charset: UTF-16 without a byte order mark),
/// and whether more bytes could say more.
pub fn sniff_in(first: &[u8], encoding: Option<&'static Encoding>) -> Sniffed {
    let text = utf8(first, encoding);
    let start = text
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
        .unwrap_or(text.len());
    let text = &text[start..];
    let declared = text.starts_with(b"<?xml");
    let mut reader = Reader::from_reader(text);
    let config = reader.config_mut();
    config.check_end_names = false;
    let other = declared.then_some(XmlKind::Other);
    let (kind, complete) = loop {
        match reader.read_event() {
            Ok(Event::Start(root) | Event::Empty(root)) => {
                let name = root.name();
                let kind = XmlKind::of_root(name.as_ref());
                if kind == Some(XmlKind::Svg) && !declared && !in_namespace(&root, SVG) {
                    break (None, true);
                }
                if name.as_ref().eq_ignore_ascii_case(b"html")
                    && (in_namespace(&root, XHTML) || !declares_default(&root))
                {
                    break (None, true);
                }
                break (kind.or(other), true);
            }
            Ok(Event::Text(text)) if text.iter().all(u8::is_ascii_whitespace) => {}
            Ok(Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_)) => {}
            // The end of the bytes given, between constructs or inside one.
            Ok(Event::Eof) | Err(XmlError::Syntax(_)) => break (other, false),
            // Anything else before a root (text, an end tag), or what does
            // not parse.
            _ => break (other, true),
        }
    };
    Sniffed { kind, complete }
}

const SVG: &[u8] = b"http://www.w3.org/2000/svg";
const XHTML: &[u8] = b"http://www.w3.org/1999/xhtml";

/// Whether a root element binds the default namespace to `namespace`.
fn in_namespace(root: &quick_xml::events::BytesStart<'_>, namespace: &[u8]) -> bool {
    root.attributes()
        .flatten()
        .any(|a| a.key.as_ref() == b"xmlns" && a.value.as_ref() == namespace)
}

/// Whether a root element binds the default namespace.
fn declares_default(root: &quick_xml::events::BytesStart<'_>) -> bool {
    root.attributes()
        .flatten()
        .any(|a| a.key.as_ref() == b"xmlns")
}

/// The encoding XML 1.0 Appendix F tells by a document's first four bytes
/// when it has no byte order mark (`<?` in UTF-16, `<` in UTF-32), or by
/// UTF-32's byte order mark (which [`Encoding::for_bom`] would take for
/// UTF-16's followed by a NUL); and how long the mark is.
pub(crate) fn appendix_f(first: &[u8]) -> Option<(Appendix, usize)> {
    Some(match first.get(..4)? {
        [0, 0, 0xFE, 0xFF] => (Appendix::Utf32Be, 4),
        [0xFF, 0xFE, 0, 0] => (Appendix::Utf32Le, 4),
        [0, 0, 0, b'<'] => (Appendix::Utf32Be, 0),
        [b'<', 0, 0, 0] => (Appendix::Utf32Le, 0),
        [0, 0, b'<', 0] | [0, b'<', 0, 0] => (Appendix::Ucs4Unusual, 0),
        [0, b'<', 0, b'?'] => (Appendix::Utf16(UTF_16BE), 0),
        [b'<', 0, b'?', 0] => (Appendix::Utf16(UTF_16LE), 0),
        [0x4C, 0x6F, 0xA7, 0x94] => (Appendix::Ebcdic, 0),
        _ => return None,
    })
}

/// An encoding Appendix F tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Appendix {
    Utf16(&'static Encoding),
    Utf32Be,
    Utf32Le,
    /// UCS-4 in the octet orders 2143 or 3412.
    Ucs4Unusual,
    Ebcdic,
}

impl Appendix {
    /// Its name, as a refusal says it.
    pub fn name(self) -> &'static str {
        match self {
            Appendix::Utf16(e) => e.name(),
            Appendix::Utf32Be => "UTF-32BE",
            Appendix::Utf32Le => "UTF-32LE",
            Appendix::Ucs4Unusual => "UCS-4 (octet order 2143 or 3412)",
            Appendix::Ebcdic => "EBCDIC",
        }
    }
}

/// The first bytes as UTF-8: decoded from UTF-16 or UTF-32 by a byte order
/// mark or Appendix F, else from UTF-16 when `encoding` says so; the UTF-8
/// mark skipped.
fn utf8<'a>(first: &'a [u8], encoding: Option<&'static Encoding>) -> Cow<'a, [u8]> {
    let utf16 = |e: &'static Encoding, from: &[u8]| {
        let (text, _) = e.decode_without_bom_handling(from);
        Cow::Owned(text.into_owned().into_bytes())
    };
    match appendix_f(first) {
        Some((Appendix::Utf16(e), _)) => return utf16(e, first),
        Some((Appendix::Utf32Be, mark)) => return utf32(&first[mark..], u32::from_be_bytes),
        Some((Appendix::Utf32Le, mark)) => return utf32(&first[mark..], u32::from_le_bytes),
        _ => {}
    }
    match Encoding::for_bom(first) {
        Some((e, bom)) if e == UTF_16LE || e == UTF_16BE => utf16(e, &first[bom..]),
        Some((_, bom)) => Cow::Borrowed(&first[bom..]),
        None => match encoding {
            Some(e) if e == UTF_16LE || e == UTF_16BE => utf16(e, first),
            _ => Cow::Borrowed(first),
        },
    }
}

/// UTF-32 bytes as UTF-8, as far as they are characters.
fn utf32(bytes: &[u8], unit: fn([u8; 4]) -> u32) -> Cow<'_, [u8]> {
    let text: String = bytes
        .chunks_exact(4)
        .map_while(|c| char::from_u32(unit([c[0], c[1], c[2], c[3]])))
        .collect();
    Cow::Owned(text.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_root_tells_the_kind_past_a_prolog() {
        assert_eq!(
            sniff(b"\xEF\xBB\xBF\n<?xml version='1.0'?><feed/>"),
            Some(XmlKind::Atom)
        );
        assert_eq!(
            sniff(b"<!-- a sitemap --><urlset xmlns='x'>"),
            Some(XmlKind::Sitemap)
        );
        assert_eq!(
            sniff(b"<?xml version='1.0'?><config/>"),
            Some(XmlKind::Other)
        );
        assert_eq!(
            sniff(b"<?xml version='1.0'?><html xmlns='http://www.w3.org/1999/xhtml'>"),
            None
        );
        assert_eq!(sniff(b"<!DOCTYPE html><html>"), None);
        let utf16: Vec<u8> = "<rss>".encode_utf16().flat_map(u16::to_le_bytes).collect();
        let sniffed = sniff_in(&utf16, Some(encoding_rs::UTF_16LE));
        assert_eq!(sniffed.kind, Some(XmlKind::Rss));
        assert!(!sniff_in(b"<?xml version='1.0'?><!-- a long licence", None).complete);
    }

    #[test]
    fn each_root_and_the_declaration_say_xml() {
        for (root, kind) in [
            ("rss", XmlKind::Rss),
            ("feed", XmlKind::Atom),
            ("rdf:RDF", XmlKind::Rdf),
            ("urlset", XmlKind::Sitemap),
            ("sitemapindex", XmlKind::SitemapIndex),
            ("svg xmlns='http://www.w3.org/2000/svg'", XmlKind::Svg),
        ] {
            let doc = format!("<!DOCTYPE x [<!ENTITY a 'b'>]>\n<?pi x?><{root} a='1'>");
            assert_eq!(sniff(doc.as_bytes()), Some(kind), "{root}");
        }
        assert_eq!(
            sniff(b"  <?xml version='1.0'?>\n<project>"),
            Some(XmlKind::Other)
        );
        // The root cut off by the end of the bytes given.
        assert_eq!(
            sniff(b"<?xml version='1.0'?><!-- long"),
            Some(XmlKind::Other)
        );
        assert_eq!(sniff(b"<?xml version='1.0'?><fe"), Some(XmlKind::Other));
        // By the root, whatever the DOCTYPE says.
        assert_eq!(
            sniff(b"<!DOCTYPE html><svg xmlns=\"http://www.w3.org/2000/svg\">"),
            Some(XmlKind::Svg)
        );
        // An `svg` root without SVG's namespace is SVG's after `<?xml`.
        assert_eq!(sniff(b"<?xml version='1.0'?><svg>"), Some(XmlKind::Svg));
    }

    #[test]
    fn pages_are_not_xml() {
        for page in [
            &b"<!DOCTYPE html><html><body><svg>"[..],
            b"<html>",
            b"text <rss>",
            b"",
            b"<p>feed</p>",
            b"<feedx>",
            b"<svg:svg>",
            // HTML's inline SVG, which needs no namespace.
            b"<svg><use href='#i'/></svg><a href=x>",
            b"<!DOCTYPE html><svg>",
            b"<svg xmlns='http://example.com/not-svg'>",
        ] {
            assert_eq!(sniff(page), None, "{}", String::from_utf8_lossy(page));
        }
    }

    #[test]
    fn a_prolog_of_any_length_is_read_past() {
        let licence = format!("<!-- {} -->", "licence text ".repeat(1000));
        let doctype = format!("<!DOCTYPE rss [<!ENTITY a '{}'>]>", "x".repeat(8000));
        for prolog in [licence, doctype] {
            let sitemap = format!(
                "<?xml version='1.0'?>\n{prolog}\n<urlset xmlns='http://www.sitemaps.org/schemas/sitemap/0.9'>"
            );
            let cut = &sitemap.as_bytes()[..4096];
            assert_eq!(sniff_in(cut, None).kind, Some(XmlKind::Other));
            assert!(!sniff_in(cut, None).complete);
            let whole = sniff_in(sitemap.as_bytes(), None);
            assert_eq!(whole.kind, Some(XmlKind::Sitemap));
            assert!(whole.complete);
            // Without `<?xml`, the root alone tells: HTML until it comes.
            let feed = format!("{prolog}<feed xmlns='http://www.w3.org/2005/Atom'>");
            assert_eq!(sniff_in(&feed.as_bytes()[..4096], None).kind, None);
            assert_eq!(sniff(feed.as_bytes()), Some(XmlKind::Atom));
        }
        assert!(sniff_in(b"<!DOCTYPE html><p>", None).complete);
        assert!(sniff_in(b"text", None).complete);
    }

    #[test]
    fn an_html_root_is_a_page_after_the_declaration_too() {
        for page in [
            &b"<?xml version='1.0' encoding='utf-8'?>\n<html xmlns='http://www.w3.org/1999/xhtml'><head><base href='http://cdn.example/sub/'/>"[..],
            b"<?xml version='1.0'?><!DOCTYPE html PUBLIC '-//W3C//DTD XHTML 1.0 Strict//EN' 'x'><html>",
            b"<?xml version='1.0'?><HTML>",
        ] {
            assert_eq!(sniff(page), None, "{}", String::from_utf8_lossy(page));
        }
        // An `html` root of another vocabulary is no page's.
        assert_eq!(
            sniff(b"<?xml version='1.0'?><html xmlns='urn:x'>"),
            Some(XmlKind::Other)
        );
    }

    #[test]
    fn utf_16_and_32_are_told_by_appendix_f_and_by_the_encoding_given() {
        let utf16le: Vec<u8> = "<?xml version='1.0' encoding='UTF-16'?><rss>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        let utf16be: Vec<u8> = "<?xml version='1.0'?><feed>"
            .encode_utf16()
            .flat_map(u16::to_be_bytes)
            .collect();
        assert_eq!(sniff(&utf16le), Some(XmlKind::Rss));
        assert_eq!(sniff(&utf16be), Some(XmlKind::Atom));
        // No declaration: only the encoding given tells.
        let bare: Vec<u8> = "<urlset>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(sniff(&bare), None);
        assert_eq!(sniff_in(&bare, Some(UTF_16LE)).kind, Some(XmlKind::Sitemap));
        let utf32 = |text: &str, bom: bool, be: bool| -> Vec<u8> {
            let mut bytes = Vec::new();
            for c in bom.then_some('\u{feff}').into_iter().chain(text.chars()) {
                let c = c as u32;
                bytes.extend(if be { c.to_be_bytes() } else { c.to_le_bytes() });
            }
            bytes
        };
        for (bom, be) in [(true, true), (true, false), (false, true), (false, false)] {
            let doc = utf32("<svg xmlns='http://www.w3.org/2000/svg'/>", bom, be);
            assert_eq!(sniff(&doc), Some(XmlKind::Svg), "bom {bom}, be {be}");
        }
        assert_eq!(
            appendix_f(&utf32("<a", true, false)),
            Some((Appendix::Utf32Le, 4))
        );
        assert_eq!(appendix_f(b"\xFF\xFE<\0"), None);
    }

    #[test]
    fn a_byte_order_mark_is_read() {
        let utf16: Vec<u8> = "\u{feff}<?xml version='1.0'?><rss>"
            .encode_utf16()
            .flat_map(u16::to_le_bytes)
            .collect();
        assert_eq!(sniff(&utf16), Some(XmlKind::Rss));
        assert_eq!(
            sniff(b"\xEF\xBB\xBF<svg xmlns='http://www.w3.org/2000/svg'/>"),
            Some(XmlKind::Svg)
        );
    }
}
