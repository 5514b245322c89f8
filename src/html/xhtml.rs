//! Whether an XHTML document reads as HTML: the site source rewrites
//! `.xhtml` files with the HTML parser only where it does.

use std::cell::RefCell;
use std::io::Read;

use lol_html::{HtmlRewriter, Settings, doc_comments, element};

use super::settings::memory_settings;
use crate::document::buffers::CHUNK;
use crate::document::report::Warning;

/// The elements whose text HTML does not read as markup: in HTML their
/// start tag's `/>` is ignored, so a self-closed one (`<script src=a.js/>`,
/// which XML ends where it stands) makes everything after it their text.
const RAW_TEXT: &str = "script, style, title, textarea, iframe, noscript, noembed, noframes, xmp";

/// `None` when the document `input` gives reads as HTML as it does as
/// XML, as far as its links go; else the warning naming the first place
/// where the readings part: a self-closed raw-text element, after which an
/// HTML parser would see no more links, or an instruction or a CDATA
/// section that HTML ends early. Read in 64 KiB pieces.
pub fn reads_otherwise(mut input: impl Read, max_memory: usize) -> Option<Warning> {
    // The first place where the readings part: lol_html calls the handlers
    // in the input's order, so the first one set is the first there is.
    let first: RefCell<Option<Warning>> = RefCell::new(None);
    let settings = Settings::new()
        .append_element_content_handler(element!(RAW_TEXT, |el| {
            let mut first = first.borrow_mut();
            if el.is_self_closing() && first.is_none() {
                *first = Some(Warning::ReadsOtherwise {
                    offset: el.source_location().bytes().start,
                    element: el.tag_name(),
                });
            }
            Ok(())
        }))
        // HTML reads `<?…>` and `<![CDATA[…]>` (outside SVG and MathML) as
        // comments that end at the first `>`; XML reads on to `?>` and
        // `]]>`. A comment of either whose text does not end as XML's does
        // was cut short. (A comment handler makes lol_html's lexer read
        // everything, and it reads the text of `<style t=>` as markup: at
        // worst a page that is no XML at all is left as it is.)
        .append_document_content_handler(doc_comments!(|c| {
            let mut first = first.borrow_mut();
            if first.is_none() {
                let text = c.text();
                let construct = match () {
                    _ if text.starts_with('?') && (text.len() == 1 || !text.ends_with('?')) => {
                        Some("processing instruction")
                    }
                    _ if text.starts_with("[CDATA[") && !text.ends_with("]]") => {
                        Some("CDATA section")
                    }
                    _ => None,
                };
                *first = construct.map(|construct| Warning::EndsOtherwise {
                    offset: c.source_location().bytes().start,
                    construct,
                });
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
    first.into_inner()
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

    /// An instruction or a CDATA section that holds a `>` before its end
    /// is cut short by HTML: the rest of it would be read as text, or as
    /// markup. Whole, they read alike.
    #[test]
    fn an_instruction_or_a_cdata_section_that_html_ends_early_is_found() {
        let whole = b"<?xml version=\"1.0\"?><?xml-stylesheet href=\"s.css\"?><html><body><![CDATA[a < c &amp;]]><p>x</p></body></html>";
        assert_eq!(reads_otherwise(&whole[..], 1 << 20), None);
        let cases: [(&[u8], usize, &str); 5] = [
            (
                b"<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"s>t.css\"?><html/>",
                22,
                "processing instruction",
            ),
            (
                b"<html><?php echo 1 > 0; ?></html>",
                6,
                "processing instruction",
            ),
            (b"<html><?x></html>", 6, "processing instruction"),
            (b"<html><![CDATA[a > b]]></html>", 6, "CDATA section"),
            (
                b"<html><![CDATA[<a href=x>]]><script src=\"a.js\"/></html>",
                6,
                "CDATA section",
            ),
        ];
        for (xhtml, offset, construct) in cases {
            assert_eq!(
                reads_otherwise(xhtml, 1 << 20),
                Some(Warning::EndsOtherwise { offset, construct }),
                "{}",
                String::from_utf8_lossy(xhtml)
            );
        }
        // The first place where the readings part is named.
        let script_first = b"<html><script src=\"a.js\"/><?x a>b?></html>";
        assert!(matches!(
            reads_otherwise(&script_first[..], 1 << 20),
            Some(Warning::ReadsOtherwise { offset: 6, .. })
        ));
    }
}
