//! `xml:base` (XML Base §4.2): the base of an element is the one its own
//! `xml:base` sets, resolved against its parent's, else its parent's; the
//! document's own (§3.2–§3.4 of RFC 1808, and an XHTML document's `<base
//! href>`, §3.1) is the outermost. Each base in scope is layer 3.1 for
//! what its element holds.
//!
//! What is held grows no faster than the input, however deep the bases
//! nest: a base is resolved only when a value needs it, and then kept as
//! what it changed of the one around it (a nested `xml:base="a/"` adds two
//! bytes, not a copy of all above it). Only the innermost base resolved is
//! whole, and only it is made ready for resolution.

use std::rc::Rc;

use crate::document::memory::Allowance;
use encoding_rs::Encoding;

use crate::document::config::Config;
use crate::document::resolution::{Nest, Resolution};
use crate::url::{Base, Ignored, Layer, Standard};

/// The bases in scope, outermost first: the document's (and an XHTML
/// document's `<base href>`), then one for each open element whose
/// `xml:base` set one.
pub struct Scopes {
    standard: Standard,
    levels: Vec<Level>,
    /// How many levels are the document's own, never popped.
    floor: usize,
    /// The URL of the innermost level resolved, `levels[resolved]`: the
    /// levels up to it hold what each changed of the one below it.
    url: String,
    resolved: usize,
    /// The innermost base, made ready for its values.
    ready: Option<Resolution>,
    /// The document's own base below an embedded one, made ready for the
    /// `<base href>` that set it.
    below: Option<Resolution>,
    /// Under `--relative`, the URL of the document's own file, when its
    /// links are made relative (SVG; a feed's and a sitemap's stay
    /// absolute, for their readers).
    document: Option<String>,
}

struct Level {
    layer: Layer,
    state: State,
}

enum State {
    /// A relative `xml:base`, not resolved yet: what it holds.
    Pending(Box<str>),
    /// An `xml:base` with a scheme, not resolved yet: its URL, which owes
    /// nothing to the bases below it.
    Absolute(Box<str>),
    /// Resolved: its URL is the one below it with `url[keep..]` replaced,
    /// and the one below it is its own with `url[keep..]` made `tail`.
    Resolved { keep: usize, tail: Box<str> },
}

impl Scopes {
    /// The document's base, from the layers below it, read by `standard`.
    pub fn new(document: Base, standard: Standard) -> Self {
        Scopes {
            standard,
            url: document.url.to_string(),
            levels: vec![Level {
                layer: document.layer,
                state: State::Resolved {
                    keep: 0,
                    tail: Box::default(),
                },
            }],
            floor: 1,
            resolved: 0,
            ready: None,
            below: None,
            document: None,
        }
    }

    /// An XHTML document's `<base href>` (§3.1): the document's base, in
    /// place of the layers below it. Given before any `xml:base`.
    pub fn embed(&mut self, base: Base) {
        debug_assert_eq!(self.levels.len(), self.floor);
        let tail = std::mem::replace(&mut self.url, base.url.to_string()).into_boxed_str();
        self.levels.push(Level {
            layer: base.layer,
            state: State::Resolved { keep: 0, tail },
        });
        self.floor += 1;
        self.resolved += 1;
        self.ready = None;
    }

    /// Whether no layer gives a base, nor any `xml:base` in scope.
    pub fn is_empty(&self) -> bool {
        self.levels.len() == 1 && self.url.is_empty()
    }

    /// The layer of the base in scope.
    pub fn layer(&self) -> Layer {
        self.levels.last().expect("never empty").layer
    }

    /// An `xml:base` holding `href` (stripped and decoded), at byte
    /// `offset`: its base, resolved against the one in scope, is in scope
    /// until [`pop`](Self::pop); or why it cannot be a base. One with a
    /// scheme is a base by the one rule of every layer (`unusable`); a
    /// relative one is whenever the base in scope is: resolved against
    /// it, it keeps its scheme and the `/` after it. Either is resolved
    /// when a value first needs it.
    pub fn push(&mut self, href: &str, offset: usize) -> Result<(), Ignored> {
        let layer = Layer::XmlBase { offset };
        let state = if self.standard.has_scheme(href) {
            // Resolution takes nothing of a base but that there is one
            // (§4 step 2b; RFC 3986 §5.2.2): any will do, but none.
            let against = Base {
                layer,
                url: if self.is_empty() { "" } else { "x:/" }.into(),
            };
            State::Absolute(
                against
                    .within(href, layer, self.standard)?
                    .url
                    .as_ref()
                    .into(),
            )
        } else if self.is_empty() {
            return Err(Ignored::Relative);
        } else {
            State::Pending(href.into())
        };
        self.levels.push(Level { layer, state });
        Ok(())
    }

    /// The element whose `xml:base` was pushed last has ended.
    pub fn pop(&mut self) {
        if self.levels.len() == self.floor {
            return;
        }
        let level = self.levels.pop().expect("above the floor");
        if self.resolved == self.levels.len() {
            let State::Resolved { keep, tail } = level.state else {
                unreachable!("the levels up to the innermost resolved are resolved")
            };
            self.url.truncate(keep);
            self.url.push_str(&tail);
            self.resolved -= 1;
            self.ready = None;
        }
    }

    /// The base in scope, made ready for the values it holds.
    pub fn resolution(
        &mut self,
        encoding: &'static Encoding,
        config: &Config,
        nest: Nest,
        allowance: &Rc<Allowance>,
    ) -> &Resolution {
        self.resolve_all();
        let layer = self.layer();
        let url = &self.url;
        let document = self.document.clone();
        self.ready.get_or_insert_with(|| {
            let base = Base {
                layer,
                url: url.as_str().into(),
            };
            Resolution::new(base, encoding, config, 0, nest, Rc::clone(allowance))
                .with_document(document)
        })
    }

    /// Under `--relative`, its links are made relative from the file at
    /// `own` (an SVG file's, a stylesheet instruction's): what was, is
    /// returned.
    pub fn in_file(&mut self, own: Option<String>) -> Option<String> {
        self.ready = None;
        self.below = None;
        std::mem::replace(&mut self.document, own)
    }

    /// The document's base below its `<base href>` (the layers'), made
    /// ready for that `<base href>`'s own value, which resolves against
    /// them; the base in scope when there is none.
    pub fn below_embedded(
        &mut self,
        encoding: &'static Encoding,
        config: &Config,
        nest: Nest,
        allowance: &Rc<Allowance>,
    ) -> &Resolution {
        if self.floor == 1 {
            return self.resolution(encoding, config, nest, allowance);
        }
        let State::Resolved { tail, .. } = &self.levels[1].state else {
            unreachable!("the embedded base is resolved")
        };
        let layer = self.levels[0].layer;
        let document = self.document.clone();
        self.below.get_or_insert_with(|| {
            let base = Base {
                layer,
                url: (**tail).into(),
            };
            Resolution::new(base, encoding, config, 0, nest, Rc::clone(allowance))
                .with_document(document)
        })
    }

    /// Resolves every level not resolved yet, outermost first, each kept
    /// as what it changed of the one below it.
    fn resolve_all(&mut self) {
        while self.resolved + 1 < self.levels.len() {
            let next = self.resolved + 1;
            let url = match &self.levels[next].state {
                State::Pending(href) => self.standard.resolve(&self.url, href).into_owned(),
                State::Absolute(url) => url.to_string(),
                State::Resolved { .. } => unreachable!("above the innermost resolved"),
            };
            let keep = common_prefix(&self.url, &url);
            let tail = self.url[keep..].into();
            self.url.truncate(keep);
            self.url.push_str(&url[keep..]);
            self.levels[next].state = State::Resolved { keep, tail };
            self.resolved = next;
            self.ready = None;
        }
    }
}

/// How many bytes `a` and `b` share at their start, on a character
/// boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    let mut n = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    while !a.is_char_boundary(n) {
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::Layers;

    fn scopes(standard: Standard) -> Scopes {
        let document = Layers::default()
            .with_retrieval(standard, "http://h/a/feed.xml", "-r")
            .unwrap()
            .outer();
        Scopes::new(document, standard)
    }

    fn current(scopes: &mut Scopes) -> String {
        let config = Config::default();
        let nest = crate::html::rewriter::nest;
        scopes
            .resolution(
                encoding_rs::UTF_8,
                &config,
                nest,
                &crate::document::memory::Allowance::standalone(1 << 20),
            )
            .base
            .url
            .to_string()
    }

    #[test]
    fn each_base_resolves_against_the_one_in_scope_and_ends_with_its_element() {
        let mut scopes = scopes(Standard::Rfc1808);
        scopes.push("entries/", 10).unwrap();
        scopes.push("../x/", 40).unwrap();
        assert_eq!(current(&mut scopes), "http://h/a/x/");
        assert_eq!(scopes.layer(), Layer::XmlBase { offset: 40 });
        assert_eq!(
            scopes.push("javascript:alert(1)", 60),
            Err(Ignored::Scheme("javascript".into()))
        );
        assert_eq!(current(&mut scopes), "http://h/a/x/");
        scopes.pop();
        assert_eq!(current(&mut scopes), "http://h/a/entries/");
        scopes.pop();
        scopes.pop();
        assert_eq!(current(&mut scopes), "http://h/a/feed.xml");
        assert_eq!(scopes.layer(), Layer::Retrieval { from: "-r" });
    }

    /// Whether levels are resolved as they come or when a value needs
    /// them, each is what resolving it against the whole base below gives.
    #[test]
    fn resolved_late_or_early_each_base_is_the_same() {
        for standard in [Standard::Rfc1808, Standard::Rfc3986] {
            let hrefs = [
                "a/",
                "../../b/c",
                "HTTP://o/x/../y/",
                ";p?q#f",
                "//n/m/",
                "",
                "../..",
                "http://h/a/./b/../",
                "?z",
            ];
            let mut early = scopes(standard);
            let mut late = scopes(standard);
            let mut expected = vec!["http://h/a/feed.xml".to_owned()];
            for (i, href) in hrefs.iter().enumerate() {
                let whole = standard
                    .resolve(expected.last().unwrap(), href)
                    .into_owned();
                expected.push(whole);
                early.push(href, i).unwrap();
                late.push(href, i).unwrap();
                assert_eq!(current(&mut early), *expected.last().unwrap(), "{href}");
            }
            assert_eq!(current(&mut late), *expected.last().unwrap());
            for _ in hrefs {
                expected.pop();
                early.pop();
                late.pop();
                assert_eq!(current(&mut early), *expected.last().unwrap());
                assert_eq!(current(&mut late), *expected.last().unwrap());
            }
        }
    }

    /// Nested bases hold what each adds, not a copy of all above it.
    #[test]
    fn nested_bases_hold_no_more_than_their_hrefs() {
        let mut scopes = scopes(Standard::Rfc1808);
        for i in 0..10_000 {
            scopes.push("a/", i).unwrap();
        }
        assert_eq!(current(&mut scopes).len(), "http://h/a/".len() + 20_000);
        let held: usize = scopes
            .levels
            .iter()
            .map(|l| match &l.state {
                State::Pending(s) | State::Absolute(s) => s.len(),
                State::Resolved { tail, .. } => tail.len(),
            })
            .sum();
        // The document's `feed.xml`, the only bytes a base took away.
        assert!(held <= "feed.xml".len(), "{held}");
    }

    #[test]
    fn a_base_href_is_the_documents_and_its_own_value_resolves_below_it() {
        let mut scopes = scopes(Standard::Rfc1808);
        scopes.embed(Base {
            layer: Layer::Embedded { offset: 5 },
            url: "http://cdn/sub/".into(),
        });
        scopes.push("x/", 9).unwrap();
        assert_eq!(current(&mut scopes), "http://cdn/sub/x/");
        scopes.pop();
        scopes.pop();
        assert_eq!(current(&mut scopes), "http://cdn/sub/");
        let config = Config::default();
        let below = scopes.below_embedded(
            encoding_rs::UTF_8,
            &config,
            crate::html::rewriter::nest,
            &crate::document::memory::Allowance::standalone(1 << 20),
        );
        assert_eq!(&*below.base.url, "http://h/a/feed.xml");
        assert_eq!(scopes.push("../", 1), Ok(()));
    }

    #[test]
    fn a_relative_base_with_nothing_below_is_ignored() {
        let mut scopes = Scopes::new(Layers::default().outer(), Standard::Rfc1808);
        assert!(scopes.is_empty());
        assert_eq!(scopes.push("a/", 0), Err(Ignored::Relative));
        scopes.push("http://h/", 3).unwrap();
        assert!(!scopes.is_empty());
        scopes.push("a/", 9).unwrap();
        assert_eq!(current(&mut scopes), "http://h/a/");
    }
}
