//! Which documents are XML, by their first bytes: after a byte order mark
//! and white space, `<?xml`, or a root element that names one of the
//! vocabularies the engine knows (`rss`, `feed`, `rdf:RDF`, `urlset`,
//! `sitemapindex`, `svg`). Comments, processing instructions and a DOCTYPE
//! may come before the root. An `svg` root is SVG's in its namespace
//! (`xmlns="http://www.w3.org/2000/svg"`), or after `<?xml`: HTML's inline
//! `<svg>` needs none, and a page or a fragment may start with one.

use std::borrow::Cow;

use encoding_rs::{Encoding, UTF_16BE, UTF_16LE};
use quick_xml::Reader;
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

/// Whether a document that starts with `first` (its first bytes, as many as
/// the caller has: a kilobyte tells nearly always) is XML, and what kind:
/// `None` is HTML.
///
/// ```
/// use htmlabs::xml::{XmlKind, sniff};
///
/// assert_eq!(sniff(b"\xEF\xBB\xBF\n<?xml version='1.0'?><feed/>"), Some(XmlKind::Atom));
/// assert_eq!(sniff(b"<!-- a sitemap --><urlset xmlns='x'>"), Some(XmlKind::Sitemap));
/// assert_eq!(sniff(b"<?xml version='1.0'?><config/>"), Some(XmlKind::Other));
/// assert_eq!(sniff(b"<!DOCTYPE html><html>"), None);
/// ```
pub fn sniff(first: &[u8]) -> Option<XmlKind> {
    let text = utf8(first);
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
    loop {
        match reader.read_event() {
            Ok(Event::Start(root) | Event::Empty(root)) => {
                let kind = XmlKind::of_root(root.name().as_ref());
                if kind == Some(XmlKind::Svg) && !declared && !in_svg_namespace(&root) {
                    return None;
                }
                return kind.or(other);
            }
            Ok(Event::Text(text)) if text.iter().all(u8::is_ascii_whitespace) => {}
            Ok(Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_)) => {}
            // Anything else before a root (text, an end tag), the end of
            // the bytes given, or what does not parse.
            _ => return other,
        }
    }
}

/// Whether a root element binds the default namespace to SVG's.
fn in_svg_namespace(root: &quick_xml::events::BytesStart<'_>) -> bool {
    root.attributes()
        .flatten()
        .any(|a| a.key.as_ref() == b"xmlns" && a.value.as_ref() == b"http://www.w3.org/2000/svg")
}

/// The first bytes as UTF-8: decoded from UTF-16 by a byte order mark, the
/// UTF-8 one skipped.
fn utf8(first: &[u8]) -> Cow<'_, [u8]> {
    match Encoding::for_bom(first) {
        Some((e, bom)) if e == UTF_16LE || e == UTF_16BE => {
            let (text, _) = e.decode_without_bom_handling(&first[bom..]);
            Cow::Owned(text.into_owned().into_bytes())
        }
        Some((_, bom)) => Cow::Borrowed(&first[bom..]),
        None => Cow::Borrowed(first),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            sniff(b"  <?xml version='1.0'?>\n<html>"),
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
