//! The `<?xml-stylesheet?>`s of a page served as XML (an `.xhtml` file).
//! A browser reads such a page as XML, and loads the `href` of each one
//! outside the root element: Chromium, before the root, against the
//! document's URL (no `<base href>` is read yet); after it, against the
//! base then in force; inside it, none. HTML reads an instruction as a
//! comment, so these handlers record each comment outside the root, whole,
//! for the sink to read as XML reads an instruction and splice (most pages
//! have none or few there).

use std::borrow::Cow;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

use lol_html::html_content::{Comment, Element};
use lol_html::{DocumentContentHandlers, ElementContentHandlers, HandlerResult, Settings};

use super::anchors::EVERY;
use super::record::{Role, Shared, Span};

/// Where the page's reading is, by its root element.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Root {
    Before,
    In,
    After,
}

/// `settings` with the handlers that record the instructions outside the
/// root element into `shared`'s ranges.
pub fn handled<'h, 's>(
    settings: Settings<'h, 's>,
    shared: &Rc<RefCell<Shared>>,
) -> Settings<'h, 's> {
    let root = Rc::new(Cell::new(Root::Before));
    let on_element = {
        let root = Rc::clone(&root);
        move |el: &mut Element| -> HandlerResult {
            if root.get() != Root::Before {
                return Ok(());
            }
            root.set(Root::In);
            // A root that never ends (`<html/>`, or no end tag) leaves
            // nothing after it outside.
            if let Some(handlers) = el.end_tag_handlers() {
                let root = Rc::clone(&root);
                handlers.push(Box::new(move |_| {
                    root.set(Root::After);
                    Ok(())
                }));
            }
            Ok(())
        }
    };
    let on_comment = {
        let shared = Rc::clone(shared);
        move |comment: &mut Comment| -> HandlerResult {
            let prolog = match root.get() {
                Root::Before => true,
                Root::After => false,
                Root::In => return Ok(()),
            };
            // Its bytes are not read here (lol_html's text would be a copy
            // no budget counts): the sink collects them, within its own,
            // and reads an instruction where there is one.
            let mut s = shared.borrow_mut();
            if !s.stopped {
                s.spans.push_back(Span {
                    range: comment.source_location().bytes(),
                    role: Role::Stylesheet { prolog },
                    names: None,
                });
            }
            Ok(())
        }
    };
    settings
        .append_element_content_handler((
            Cow::Borrowed(&*EVERY),
            ElementContentHandlers::default().element(on_element),
        ))
        .append_document_content_handler(DocumentContentHandlers::default().comments(on_comment))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use encoding_rs::WINDOWS_1252;

    use crate::document::config::Config;
    use crate::html::Rewriter;
    use crate::url::Layers;

    /// `page` rewritten from `https://example.com/dir/page.xhtml`, served
    /// as XML or not, in writes of the sizes `writes` gives (the rest
    /// whole).
    fn rewritten(page: &[u8], xml: bool, config: &Arc<Config>, writes: &[usize]) -> Vec<u8> {
        let layers = Layers::default()
            .with_retrieval(
                crate::Standard::Rfc1808,
                "https://example.com/dir/page.xhtml",
                "-r",
            )
            .unwrap();
        let mut rewriter = Rewriter::new(Arc::clone(config), layers, Vec::new());
        if xml {
            rewriter = rewriter.served_as_xml();
        }
        let mut rest = page;
        for &n in writes.iter().cycle() {
            if rest.is_empty() {
                break;
            }
            let (write, after) = rest.split_at(n.min(rest.len()));
            rewriter.write(write).unwrap();
            rest = after;
        }
        rewriter.write(rest).unwrap();
        rewriter.end().unwrap().1
    }

    /// Each page, and what it becomes served as XML: its instructions
    /// outside the root resolved, before it against the page's URL, after
    /// it against its `<base href>`; inside it, and any other instruction
    /// or comment, as they were. Served as HTML, every instruction stays.
    #[test]
    fn the_instructions_outside_the_root_are_links_of_a_page_served_as_xml() {
        let cases: &[(&str, &[u8], &[u8])] = &[
            (
                "before, inside and after the root, under a base",
                b"<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"a.css\" type=\"text/css\"?>\n<!-- <?xml-stylesheet href=\"c.css\"?> -->\n<?xml-stylesheet type='text/xsl' href='x.xsl?a=1&amp;b=2'?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><base href=\"/based/\"/></head><body>\n<?xml-stylesheet href=\"in.css\"?>\n</body></html>\n<?xml-stylesheet href=\"after.css\"?>\n",
                b"<?xml version=\"1.0\"?>\n<?xml-stylesheet href=\"https://example.com/dir/a.css\" type=\"text/css\"?>\n<!-- <?xml-stylesheet href=\"c.css\"?> -->\n<?xml-stylesheet type='text/xsl' href='https://example.com/dir/x.xsl?a=1&amp;b=2'?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><base href=\"https://example.com/based/\"/></head><body>\n<?xml-stylesheet href=\"in.css\"?>\n</body></html>\n<?xml-stylesheet href=\"https://example.com/based/after.css\"?>\n",
            ),
            (
                "no base: both against the page's URL (a reference kept as written); `#id` and XML's refusals stay",
                b"<?xml-stylesheet href=\"#style\"?><?xml-stylesheet href=\"a&nbsp;b.css\"?><?xml-stylesheet href=\"&#x61;.css\"?><html><body></body></html><?xml-stylesheet href=\"../up.css\"?>",
                b"<?xml-stylesheet href=\"#style\"?><?xml-stylesheet href=\"a&nbsp;b.css\"?><?xml-stylesheet href=\"https://example.com/dir/&#x61;.css\"?><html><body></body></html><?xml-stylesheet href=\"https://example.com/up.css\"?>",
            ),
            (
                "a new `>` or `<` escaped: HTML would end the comment there",
                b"<html><head><base href=\"https://example.com/a>b<c/\"></head></html><?xml-stylesheet href=\"s.css\"?>",
                b"<html><head><base href=\"https://example.com/a>b<c/\"></head></html><?xml-stylesheet href=\"https://example.com/a&gt;b&lt;c/s.css\"?>",
            ),
        ];
        let config = Arc::new(Config::default());
        for (name, page, expected) in cases {
            let whole = rewritten(page, true, &config, &[]);
            assert_eq!(
                String::from_utf8_lossy(&whole),
                String::from_utf8_lossy(expected),
                "{name}"
            );
            for writes in [&[1][..], &[3, 1, 7, 2], &[17, 5, 64]] {
                let cut = rewritten(page, true, &config, writes);
                assert!(cut == whole, "{name}: writes of {writes:?}");
            }
            // Served as HTML, the instructions are comments.
            let as_html = rewritten(page, false, &config, &[]);
            let kept = |page: &[u8]| {
                let text = String::from_utf8_lossy(page).into_owned();
                text.split("<?")
                    .skip(1)
                    .map(|pi| pi.split('>').next().unwrap_or("").to_owned())
                    .collect::<Vec<_>>()
            };
            assert_eq!(kept(&as_html), kept(page), "{name}: served as HTML");
        }
    }

    /// Without a base, an instruction's `href` is a value without one, and
    /// a comment beside it none.
    #[test]
    fn without_a_base_an_instruction_is_a_value_and_a_comment_none() {
        let page = b"<!-- a.css --><?xml-stylesheet href=\"s.css\"?><html></html><!-- -->";
        let rewriter = Rewriter::new(Config::default(), Layers::default(), Vec::new());
        let mut rewriter = rewriter.served_as_xml();
        rewriter.write(page).unwrap();
        let (report, out) = rewriter.end().unwrap();
        assert_eq!(out, page);
        assert_eq!((report.counts.seen, report.counts.no_base), (1, 1));
    }

    // Pages of instruction-like pieces (hrefs with references, quotes, `<`
    // and `>`; comments, roots, bases, text), read served as XML: whatever
    // the writes, the same output; read again, the same; and what it
    // writes of an instruction reads back as one, its `href` the URL it
    // was resolved to.
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]
        #[test]
        fn a_page_served_as_xml_comes_out_the_same_however_it_is_written(
            pieces in proptest::collection::vec(proptest::sample::select(PIECES.to_vec()), 0..12),
            writes in proptest::collection::vec(1usize..9, 1..5),
        ) {
            let page = pieces.concat();
            let config = Arc::new(Config::default());
            let whole = rewritten(page.as_bytes(), true, &config, &[]);
            let cut = rewritten(page.as_bytes(), true, &config, &writes);
            proptest::prop_assert_eq!(&cut, &whole);
            let again = rewritten(&whole, true, &config, &[]);
            proptest::prop_assert_eq!(&again, &whole);
            let text = String::from_utf8_lossy(&whole);
            for (at, _) in text.match_indices("<?xml-stylesheet") {
                let end = text[at..].find('>').map_or(text.len(), |e| at + e + 1);
                if let Some(href) = crate::syntax::xml_stylesheet::href(&whole[at..end]) {
                    let value = &text[at + href.value.start..at + href.value.end];
                    proptest::prop_assert!(!value.contains(['<', '>']), "{}", value);
                }
            }
        }
    }

    const PIECES: [&str; 16] = [
        "<?xml-stylesheet href=\"a.css\"?>",
        "<?xml-stylesheet type='text/xsl' href='b.xsl?x=1&amp;y=2'?>",
        "<?xml-stylesheet href=\"&#x61;&lt;.css\"?>",
        "<?xml-stylesheet href=\"a&nbsp;.css\"?>",
        "<?xml-stylesheet href=\"q\"uote.css\"?>",
        "<?xml-stylesheet href=\"../up>.css\"?>",
        "<?xml-stylesheet href=\"#id\"?>",
        "<?xml-stylesheet href=\"\"?>",
        "<?xml-stylesheet",
        "<!-- <?xml-stylesheet href=\"c.css\"?> -->",
        "<html xmlns=\"http://www.w3.org/1999/xhtml\">",
        "</html>",
        "<head><base href=\"https://o.example/a>b/\"/></head>",
        "<base href=\"/based/\">",
        "<a href=\"x.html\">x</a>",
        "\n",
    ];

    /// In another encoding, the value is read and written in it.
    #[test]
    fn an_instruction_is_read_and_written_in_the_pages_encoding() {
        let config = Arc::new(Config {
            encoding: Some(WINDOWS_1252),
            ..Config::default()
        });
        let page = b"<?xml-stylesheet href=\"caf\xe9.css\"?><html></html>";
        let expected =
            b"<?xml-stylesheet href=\"https://example.com/dir/caf\xe9.css\"?><html></html>";
        assert_eq!(rewritten(page, true, &config, &[]), expected);
        assert_eq!(rewritten(page, true, &config, &[1]), expected);
    }
}
