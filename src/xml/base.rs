//! `xml:base` (XML Base §4.2): the base of an element is the one its own
//! `xml:base` sets, resolved against its parent's, else its parent's; the
//! document's own (§3.2–§3.4 of RFC 1808) is the outermost. Each base in
//! scope is layer 3.1 for what its element holds, and is made ready for
//! resolution once, when a value first needs it.

use std::rc::Rc;

use crate::document::memory::Allowance;
use encoding_rs::Encoding;

use crate::html::config::Config;
use crate::html::resolution::{Nest, Resolution};
use crate::url::{Base, Ignored, Layer};

/// The bases in scope, outermost first: the document's, then one for each
/// open element whose `xml:base` set one.
pub struct Scopes {
    scopes: Vec<Scope>,
}

struct Scope {
    base: Base,
    /// Built when a value first needs it.
    resolution: Option<Resolution>,
}

impl Scopes {
    /// The document's base, from the layers below it.
    pub fn new(document: Base) -> Self {
        Scopes {
            scopes: vec![Scope {
                base: document,
                resolution: None,
            }],
        }
    }

    /// The innermost base: the one in scope.
    pub fn current(&self) -> &Base {
        &self
            .scopes
            .last()
            .expect("the document's base is never popped")
            .base
    }

    /// An `xml:base` holding `href`, at byte `offset`: its base, resolved
    /// against the one in scope, is in scope until [`pop`](Self::pop); or
    /// why it cannot be a base.
    pub fn push(&mut self, href: &str, offset: usize, config: &Config) -> Result<(), Ignored> {
        let base = self
            .current()
            .within(href, Layer::XmlBase { offset }, config.standard)?;
        self.scopes.push(Scope {
            base,
            resolution: None,
        });
        Ok(())
    }

    /// The element whose `xml:base` was pushed last has ended.
    pub fn pop(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// How many bases are in scope: the index of the innermost is one less.
    pub fn len(&self) -> usize {
        self.scopes.len()
    }

    /// The base at `index` (the innermost is at `len() - 1`), made ready for
    /// the values it holds.
    pub fn resolution(
        &mut self,
        index: usize,
        encoding: &'static Encoding,
        config: &Config,
        nest: Nest,
        allowance: &Rc<Allowance>,
    ) -> &Resolution {
        let scope = &mut self.scopes[index];
        let base = &scope.base;
        scope.resolution.get_or_insert_with(|| {
            Resolution::new(
                base.clone(),
                encoding,
                config,
                0,
                nest,
                Rc::clone(allowance),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{Layers, Standard};

    #[test]
    fn each_base_resolves_against_the_one_in_scope_and_ends_with_its_element() {
        let config = Config::default();
        let document = Layers::default()
            .with_retrieval(Standard::Rfc1808, "http://h/a/feed.xml", "-r")
            .unwrap()
            .outer();
        let mut scopes = Scopes::new(document);
        scopes.push("entries/", 10, &config).unwrap();
        scopes.push("../x/", 40, &config).unwrap();
        assert_eq!(scopes.current().url, "http://h/a/x/");
        assert_eq!(scopes.current().layer, Layer::XmlBase { offset: 40 });
        assert_eq!(
            scopes.push("javascript:alert(1)", 60, &config),
            Err(Ignored::Scheme("javascript".into()))
        );
        assert_eq!(scopes.current().url, "http://h/a/x/");
        scopes.pop();
        assert_eq!(scopes.current().url, "http://h/a/entries/");
        scopes.pop();
        scopes.pop();
        assert_eq!(scopes.current().url, "http://h/a/feed.xml");
    }
}
