//! An independent lister of URL attribute spans, for checking the program's
//! output from outside: a read-only lol_html pass that shares no code with
//! the rewriter's code path and changes nothing. It lists, in document order
//! with its value's byte range in the input, every attribute of the default
//! table (`htmlabs::internal::Table`, read as data; the conditions on other attributes
//! are evaluated here), and the contents of HTML `<style>` and `<noscript>`
//! (name [`CONTENT`]); for a page served as XML, every comment outside the
//! root element, whole (name [`INSTRUCTION`]: HTML reads an
//! `<?xml-stylesheet?>` as one). `href`, `src` and `xlink:href` ([`NAMES`])
//! are the ones checked value by value.
#![allow(dead_code)] // each test binary uses its own part of this module

use std::cell::RefCell;
use std::ops::Range;
use std::rc::Rc;

use htmlabs::internal::{Empty, Table, When};
use lol_html::html_content::Element;
use lol_html::{HtmlRewriter, Settings, element};

pub const SVG: &str = "http://www.w3.org/2000/svg";

/// The attributes checked value by value, as lol_html names them.
pub const NAMES: &[&str] = &["href", "src", "xlink:href"];

/// The name of a span that is the text of a `<style>` or `<noscript>`.
pub const CONTENT: &str = "#content";

/// The name of a span that is a comment outside the root element of a page
/// served as XML (where a browser reads an `<?xml-stylesheet?>`).
pub const INSTRUCTION: &str = "#instruction";

const HTML: &str = "http://www.w3.org/1999/xhtml";

/// One attribute of [`NAMES`] as it stands in the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    /// The attribute's name, lowercase.
    pub name: String,
    /// The value's byte range, quotes excluded; `None` for a valueless
    /// attribute (`<a href>`).
    pub value: Option<Range<usize>>,
    /// The element's tag name, lowercase.
    pub tag: String,
    /// The element's namespace URI.
    pub namespace: &'static str,
    /// The byte offset of the element's start tag.
    pub tag_start: usize,
    /// Whether an attribute of the same name came earlier in the same tag
    /// (HTML keeps only the first).
    pub duplicate: bool,
    /// What an empty value names, by the table's row.
    pub empty: Empty,
}

impl Span {
    /// The value's bytes in `html`, empty for a valueless attribute.
    pub fn bytes<'a>(&self, html: &'a [u8]) -> &'a [u8] {
        self.value.clone().map_or(&[][..], |r| &html[r])
    }
}

/// What an empty value of `name` on this element names, when the table
/// rewrites it.
fn in_table(table: &Table, tag: &str, name: &str, el: &Element) -> Option<Empty> {
    let value = |attribute: &str| {
        el.get_attribute(attribute)
            .map(|v| v.trim().to_ascii_lowercase())
    };
    table
        .find(tag, name, |when| match when {
            When::Always => true,
            When::Equals(attribute, expected) => value(attribute).is_some_and(|v| v == expected),
            When::OneOf(attribute, expected) => {
                value(attribute).is_some_and(|v| expected.contains(&v.as_str()))
            }
            When::Tokens(attribute, any, none) => value(attribute).is_some_and(|v| {
                let tokens: Vec<&str> = v.split_ascii_whitespace().collect();
                tokens.iter().any(|t| any.contains(t)) && !tokens.iter().any(|t| none.contains(t))
            }),
        })
        .map(|row| row.empty)
}

/// Every attribute of the default table in `html`, and every `<style>` and
/// `<noscript>` text, in order.
pub fn list(html: &[u8]) -> Vec<Span> {
    list_with(html, &Table::default())
}

/// [`list`] with the attributes of `table` (`--lazy`, `--social`). A
/// `<style>` or `<noscript>` that is never closed runs to the end of `html`.
pub fn list_with(html: &[u8], table: &Table) -> Vec<Span> {
    list_served(html, table, false)
}

/// [`list_with`], of a page served as XML (`xml`) or as HTML. Outside the
/// root element is before its start tag, and after its end tag when it has
/// one.
pub fn list_served(html: &[u8], table: &Table, xml: bool) -> Vec<Span> {
    let spans = Rc::new(RefCell::new(Vec::new()));
    // 0 before the root element, 1 in it, 2 after its end tag.
    let root = Rc::new(std::cell::Cell::new(0u8));
    let table = table.clone();
    let handler = {
        let spans = Rc::clone(&spans);
        let root = Rc::clone(&root);
        move |el: &mut Element| {
            if root.get() == 0 {
                root.set(1);
                let root = Rc::clone(&root);
                if let Some(handlers) = el.end_tag_handlers() {
                    handlers.push(Box::new(move |_| {
                        root.set(2);
                        Ok(())
                    }));
                }
            }
            let tag = el.tag_name();
            let namespace = el.namespace_uri();
            let location = el.source_location().bytes();
            let tag_start = location.start;
            let mut seen: Vec<String> = Vec::new();
            let mut list = spans.borrow_mut();
            for attr in el.attributes() {
                let name = attr.name();
                let Some(empty) = in_table(&table, &tag, &name, el) else {
                    continue;
                };
                let duplicate = seen.contains(&name);
                seen.push(name.clone());
                list.push(Span {
                    name,
                    value: attr.value_source_location().map(|l| l.bytes()),
                    tag: tag.clone(),
                    namespace,
                    tag_start,
                    duplicate,
                    empty,
                });
            }
            if matches!(tag.as_str(), "style" | "noscript") && namespace == HTML {
                // The text runs to the end tag; its end is filled in there,
                // or at the end of the input.
                let index = list.len();
                list.push(Span {
                    name: CONTENT.into(),
                    value: Some(location.end..usize::MAX),
                    tag,
                    namespace,
                    tag_start,
                    duplicate: false,
                    empty: Empty::Document,
                });
                let spans = Rc::clone(&spans);
                if let Some(handlers) = el.end_tag_handlers() {
                    handlers.push(Box::new(move |end| {
                        let at = end.source_location().bytes().start;
                        if let Some(range) = &mut spans.borrow_mut()[index].value {
                            range.end = at;
                        }
                        Ok(())
                    }));
                }
            }
            Ok(())
        }
    };
    let mut settings = Settings::new()
        .append_element_content_handler(element!("*", handler))
        .with_strict(false);
    // Only then, as the rewriter: a comment handler has lol_html's lexer
    // read everything, which reads a raw text element's start tag ending
    // in `=` and no value (`<style t=>`) otherwise than its tag scanner.
    if xml {
        let on_comment = {
            let spans = Rc::clone(&spans);
            move |c: &mut lol_html::html_content::Comment| {
                if root.get() != 1 {
                    spans.borrow_mut().push(Span {
                        name: INSTRUCTION.into(),
                        value: Some(c.source_location().bytes()),
                        tag: "!--".into(),
                        namespace: "",
                        tag_start: c.source_location().bytes().start,
                        duplicate: false,
                        empty: Empty::Document,
                    });
                }
                Ok(())
            }
        };
        settings = settings.append_document_content_handler(lol_html::doc_comments!(on_comment));
    }
    let mut rewriter = HtmlRewriter::new(settings, |_: &[u8]| {});
    rewriter.write(html).expect("lol_html lists the page");
    rewriter.end().expect("lol_html lists the page");
    let mut spans = Rc::try_unwrap(spans)
        .expect("the handler was dropped with the rewriter")
        .into_inner();
    for span in &mut spans {
        if let Some(range) = &mut span.value {
            range.end = range.end.min(html.len());
        }
    }
    spans
}

/// RFC 1808 §2.4.2: a value has a scheme if it starts with one or more of
/// `[A-Za-z0-9+.-]` followed by `:`.
pub fn has_scheme(value: &str) -> bool {
    match value.find(':') {
        Some(colon) => {
            colon > 0
                && value[..colon]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-'))
        }
        None => false,
    }
}

/// HTML's ASCII whitespace, stripped from around a URL value.
pub fn trim(value: &str) -> &str {
    value.trim_matches(|c| matches!(c, '\t' | '\n' | '\x0C' | '\r' | ' '))
}

/// A value as a browser reads it: character references decoded by the
/// attribute-value rules, then whitespace around it stripped.
pub fn decoded(raw: &str) -> String {
    trim(&htmlize::unescape_attribute(trim(raw))).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_names_ranges_tags_and_namespaces() {
        let html =
            b"<A HREF='x' src=y><p id=q><svg><use xlink:href=\"#i\" href></svg><a href=1 href=2>";
        let spans = list(html);
        let got: Vec<_> = spans
            .iter()
            .map(|s| {
                (
                    s.name.as_str(),
                    s.bytes(html),
                    s.tag.as_str(),
                    s.namespace == SVG,
                    s.duplicate,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("href", &b"x"[..], "a", false, false),
                ("src", b"y", "a", false, false),
                ("xlink:href", b"#i", "use", true, false),
                ("href", b"", "use", true, false),
                ("href", b"1", "a", false, false),
                ("href", b"2", "a", false, true),
            ]
        );
        assert_eq!(spans[3].value, None);
    }

    #[test]
    fn texts_run_to_their_end_tag_or_the_end_of_the_input() {
        let html = b"<style>a{}</style><noscript><a href=x></noscript><style>b";
        let texts: Vec<_> = list(html)
            .iter()
            .filter(|s| s.name == CONTENT)
            .map(|s| (s.tag.clone(), s.bytes(html).to_vec()))
            .collect();
        assert_eq!(
            texts,
            [
                ("style".into(), b"a{}".to_vec()),
                ("noscript".into(), b"<a href=x>".to_vec()),
                ("style".into(), b"b".to_vec()),
            ]
        );
    }

    #[test]
    fn lists_the_rows_of_the_table_it_is_given() {
        let html = b"<img data-src=x><meta property=og:image content=y>";
        let names = |table: &Table| -> Vec<String> {
            list_with(html, table).into_iter().map(|s| s.name).collect()
        };
        assert!(names(&Table::default()).is_empty());
        assert_eq!(names(&Table::new(true, false, Vec::new())), ["data-src"]);
        assert_eq!(names(&Table::new(false, true, Vec::new())), ["content"]);
    }

    #[test]
    fn schemes_by_rfc_1808() {
        assert!(has_scheme("http://h/"));
        assert!(has_scheme("mailto:x"));
        assert!(has_scheme("a+b.c-1:x"));
        assert!(has_scheme("1:x"));
        assert!(!has_scheme(":x"));
        assert!(!has_scheme("a/b:c"));
        assert!(!has_scheme("a b:c"));
        assert!(!has_scheme("//h/p"));
    }
}
