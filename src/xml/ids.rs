//! The `id`s of an SVG file's elements: what the fragment of a link to the
//! file names (SVG 2 §17.2, "Linking into SVG content": a fragment is the
//! `id` of an element, which the browser shows, and `:target` matches), as
//! a browser finds them: in document order up to where the file stops
//! being well-formed XML, past which it shows no element of it.

use std::collections::HashSet;

use quick_xml::Reader;
use quick_xml::escape::unescape;
use quick_xml::events::Event;

/// The `id` values of the elements of the XML document `bytes`, with
/// their character and entity references decoded; `None` once they hold
/// more than `limit` bytes.
pub(crate) fn ids(bytes: &[u8], limit: usize) -> Option<HashSet<String>> {
    let mut reader = Reader::from_reader(bytes);
    let mut ids = HashSet::new();
    let mut held = 0;
    loop {
        let element = match reader.read_event() {
            Ok(Event::Start(element) | Event::Empty(element)) => element,
            // The end, or what a browser would stop at.
            Ok(Event::Eof) | Err(_) => return Some(ids),
            Ok(_) => continue,
        };
        for attribute in element.attributes() {
            let Ok(attribute) = attribute else {
                return Some(ids);
            };
            if attribute.key.as_ref() != b"id" {
                continue;
            }
            let raw = String::from_utf8_lossy(&attribute.value);
            let Ok(id) = unescape(&raw) else {
                return Some(ids);
            };
            held += id.len() + 32;
            if held > limit {
                return None;
            }
            ids.insert(id.into_owned());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_elements_id_up_to_where_the_xml_breaks() {
        let svg = br##"<svg xmlns="http://www.w3.org/2000/svg"><defs><symbol id="icon-a"/></defs>
<g id='caf&#xE9;'><rect id="a&amp;b"/></g><use href="#icon-a"/><text xml:id="x" name="n">t</text>
<g id="before"/><g id="unclosed"></svg><g id="after"/>"##;
        let found = ids(svg, 1 << 20).unwrap();
        let mut found: Vec<_> = found.into_iter().collect();
        found.sort();
        assert_eq!(found, ["a&b", "before", "café", "icon-a", "unclosed"]);
        assert_eq!(ids(svg, 40), None);
    }
}
