//! Whether an XHTML document reads as HTML: the site source rewrites
//! `.xhtml` files with the HTML parser only where it does.

use std::io::Read;

use lol_html::{HtmlRewriter, Settings, element};

use super::settings::memory_settings;
use crate::document::buffers::CHUNK;
use crate::document::report::Warning;

/// The elements whose text HTML does not read as markup: in HTML their
/// start tag's `/>` is ignored, so a self-closed one (`<script src=a.js/>`,
/// which XML ends where it stands) makes everything after it their text.
const RAW_TEXT: &str = "script, style, title, textarea, iframe, noscript, noembed, noframes, xmp";

/// `None` when the document `input` gives reads as HTML as it does as
/// XML, as far as its links go; else the warning naming the first
/// self-closed raw-text element, after which an HTML parser would see no
/// more links. Read in 64 KiB pieces.
pub fn reads_otherwise(mut input: impl Read, max_memory: usize) -> Option<Warning> {
    let mut found: Option<(usize, String)> = None;
    let settings = Settings::new()
        .append_element_content_handler(element!(RAW_TEXT, |el| {
            if el.is_self_closing() && found.is_none() {
                found = Some((el.source_location().bytes().start, el.tag_name()));
            }
            Ok(())
        }))
        .with_memory_settings(memory_settings(max_memory))
        .with_strict(false);
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    // An error (the memory limit, a read) only ends the search early: the
    // document is then rewritten as any other, which reports its own.
    let mut chunk = vec![0; CHUNK];
    loop {
        match input.read(&mut chunk) {
            Ok(0) => {
                let _ = rewriter.end();
                break;
            }
            Ok(n) if rewriter.write(&chunk[..n]).is_ok() => {}
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            _ => {
                drop(rewriter);
                break;
            }
        }
    }
    found.map(|(offset, element)| Warning::ReadsOtherwise { offset, element })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_self_closed_script_or_style_is_found_and_a_void_element_is_not() {
        let xhtml = b"<html><head><link href=\"s.css\"/><meta charset=\"utf-8\"/></head><body><br/><img src=\"a.png\"/></body></html>";
        assert_eq!(reads_otherwise(&xhtml[..], 1 << 20), None);
        let script =
            b"<head><link href=\"s.css\"/><script src=\"a.js\"/><link href=\"t.css\"/></head>";
        assert_eq!(
            reads_otherwise(&script[..], 1 << 20),
            Some(Warning::ReadsOtherwise {
                offset: 26,
                element: "script".to_owned()
            })
        );
        assert_eq!(
            reads_otherwise(&b"<style/><title/>"[..], 1 << 20),
            Some(Warning::ReadsOtherwise {
                offset: 0,
                element: "style".to_owned()
            })
        );
    }
}
