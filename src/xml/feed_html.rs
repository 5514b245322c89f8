//! HTML inside a feed (an RSS `description`, `content:encoded`, an Atom
//! text of `type="html"`): its text, read from the XML, is a document of its
//! own for the page engine itself (the attribute table, `srcset`, CSS, a
//! `<base href>` of its own), whose base is the one in scope, the
//! `xml:base` or the feed's, as its retrieval layer. What the engine
//! replaced comes back as edits of that text, cut to the characters that
//! changed, for the XML engine to write back the way the text came.

use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::UTF_8;

use crate::document::config::{Config, Nesting};
use crate::document::events::Events;
use crate::document::links::Link;
use crate::document::memory::{Allowance, Budget};
use crate::document::report::{Counts, Warning};
use crate::document::value::Edit;
use crate::html::rewriter::Rewriter;
use crate::url::{Base, Layer, Layers};

/// What the layer of the HTML's base is called while the page engine has
/// it: its links are given the base in scope again.
const FEED: &str = "the feed around it";

/// What the page engine made of the HTML.
pub struct Rewritten {
    pub edits: Vec<Edit<'static>>,
    pub counts: Counts,
    /// Its warnings, at offsets of the text.
    pub warnings: Vec<Warning>,
    /// Its links, at offsets of the text, their element as the HTML names it.
    pub links: Vec<Link>,
    /// What the edits and the links take of the feed's allowance, while
    /// they are kept.
    pub held: Budget,
}

/// Runs `html` through the page engine with `base` (the base in scope) as
/// its retrieval layer, within the feed's `allowance`; `listen` says
/// whether its links are wanted.
pub fn rewrite(
    html: &str,
    base: &Base,
    config: &Config,
    listen: bool,
    allowance: &Rc<Allowance>,
) -> Rewritten {
    let layers = if base.is_empty() {
        Layers::default()
    } else {
        Layers::default()
            .with_retrieval(config.standard, &base.url, FEED)
            .unwrap_or_default()
    };
    let config = Config {
        encoding: Some(UTF_8),
        ..config.clone()
    };
    let nesting = Nesting {
        embedded: true,
        depth: 1,
        record_splices: true,
        anchors: false,
        discard: false,
        xml: false,
    };
    let mut rewriter = Rewriter::nested(Arc::new(config), layers, nesting, Vec::new())
        .with_allowance(Rc::clone(allowance));
    // Past what is left, the links are not kept: the document is over its
    // share, and its rewriting stops.
    let events = Events::<Warning>::default();
    events.charge(allowance);
    if listen {
        rewriter = rewriter.on_link(events.hearer());
    }
    let done = rewriter
        .write(html.as_bytes())
        .and_then(|()| rewriter.end_with_splices());
    // Into a `Vec`, from a `&str`: a page engine that fails has changed
    // nothing.
    let (links, mut held) = events.take_held();
    let Ok((report, _, splices)) = done else {
        return Rewritten {
            edits: Vec::new(),
            counts: Counts::default(),
            warnings: Vec::new(),
            links: Vec::new(),
            held,
        };
    };
    // The edits are kept as the replacements were (the page engine gave
    // those back with its splicer).
    if held.take(splices.size()).is_err() {
        allowance.run_out();
    }
    let edits = splices
        .iter()
        .filter_map(|(range, new)| {
            let new = String::from_utf8(new.to_vec()).ok()?;
            Some(narrowed(html, range, new))
        })
        .collect();
    let links = links
        .into_iter()
        .map(|mut link| {
            if link.base.layer == (Layer::Retrieval { from: FEED }) {
                link.base = base.clone();
            }
            link
        })
        .collect();
    Rewritten {
        edits,
        counts: report.counts,
        warnings: report
            .warnings
            .into_iter()
            .filter(|w| *w != Warning::NoBase)
            .collect(),
        links,
        held,
    }
}

/// The edit that makes `html[range]` say `new`, cut to what differs: the
/// page engine writes a whole value anew, and the bytes it kept (the
/// author's references in the value) should stay as they came in the XML.
fn narrowed(html: &str, range: std::ops::Range<usize>, new: String) -> Edit<'static> {
    let old = &html[range.clone()];
    let boundary = |s: &str, i| s.is_char_boundary(i);
    let mut prefix = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !(boundary(old, prefix) && boundary(&new, prefix)) {
        prefix -= 1;
    }
    let mut suffix = old[prefix..]
        .bytes()
        .rev()
        .zip(new[prefix..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !(boundary(old, old.len() - suffix) && boundary(&new, new.len() - suffix)) {
        suffix -= 1;
    }
    Edit {
        range: range.start + prefix..range.end - suffix,
        text: Cow::Owned(new[prefix..new.len() - suffix].to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::Standard;

    fn base(url: &str) -> Base {
        Layers::default()
            .with_retrieval(Standard::Rfc1808, url, "-r")
            .unwrap()
            .outer()
    }

    #[test]
    fn the_page_engine_rewrites_the_html_and_only_what_changed_comes_back() {
        let html = "<p><a href=\"/x?a=1&amp;b=2\">x</a><img src=y.png srcset=\"z.png 2x\"></p>";
        let done = rewrite(
            html,
            &base("http://h/d/feed"),
            &Config::default(),
            false,
            &Allowance::standalone(1 << 30),
        );
        let edits: Vec<(usize, &str)> = done
            .edits
            .iter()
            .map(|e| {
                assert!(e.range.is_empty(), "{e:?}");
                (e.range.start, &*e.text)
            })
            .collect();
        assert_eq!(
            edits,
            [(12, "http://h"), (42, "http://h/d/"), (56, "http://h/d/")]
        );
        assert_eq!(done.counts.rewritten, 3);
    }

    #[test]
    fn a_base_of_its_own_counts() {
        let html = "<base href=\"/b/\"><a href=\"x\">";
        let feed = base("http://h/d/feed");
        let done = rewrite(
            html,
            &feed,
            &Config::default(),
            true,
            &Allowance::standalone(1 << 30),
        );
        let bases: Vec<(String, Option<String>)> = done
            .links
            .iter()
            .map(|l| (l.base.url.to_string(), l.absolute.clone()))
            .collect();
        // The `<base href>` is made the base it sets, as in a page.
        assert_eq!(
            bases,
            [
                ("http://h/b/".to_owned(), Some("http://h/b/".to_owned())),
                ("http://h/b/".to_owned(), Some("http://h/b/x".to_owned()))
            ]
        );
        // Without one, a link's base is the one in scope around the HTML,
        // named as its layer names it.
        let done = rewrite(
            "<a href=\"x\">",
            &feed,
            &Config::default(),
            true,
            &Allowance::standalone(1 << 30),
        );
        assert_eq!(done.links[0].base, feed);
    }

    #[test]
    fn an_edit_is_cut_at_characters() {
        let edit = narrowed("a\u{e9}b", 0..4, "a\u{e8}b".to_owned());
        assert_eq!((edit.range, &*edit.text), (1..3, "\u{e8}"));
        let edit = narrowed("x", 0..1, "x".to_owned());
        assert_eq!((edit.range, &*edit.text), (1..1, ""));
    }
}
