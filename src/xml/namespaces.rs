//! The namespaces in scope (Namespaces in XML 1.0 §6): each prefix has a
//! stack of its own bindings, so that a name is resolved by one lookup
//! however deep the document nests and however many declarations are in
//! scope (quick-xml's `NamespaceResolver` walks them all, for each name).
//! What an element declared is undone at its end. Only what the tables
//! need is kept of a binding: the namespace it names ([`Ns`]), not its URI.
//!
//! What it holds grows with the declarations in scope, each one as many
//! bytes as its prefix: never more than the open start tags that declare
//! them.

use std::collections::HashMap;

use super::vocabulary::Ns;
use crate::shown::shown;

/// Where a prefix is reserved (§3): `xml` is bound to it, and no other
/// prefix may be.
const XML: &[u8] = b"http://www.w3.org/XML/1998/namespace";
/// `xmlns` is bound to it, and nothing may be bound to it.
const XMLNS: &[u8] = b"http://www.w3.org/2000/xmlns/";

#[derive(Default)]
pub struct Namespaces {
    /// The default namespace's bindings, innermost last: the one most
    /// names are in, looked up without hashing.
    default: Vec<Ns>,
    /// Each prefix bound in scope, and its bindings, innermost last.
    bound: HashMap<Box<[u8]>, Vec<Ns>>,
    /// The prefixes the open elements bound, in order.
    declared: Vec<Box<[u8]>>,
    /// Where each open element's own start in `declared`.
    marks: Vec<usize>,
}

/// Why a declaration is refused (§3, "Reserved Prefixes and Namespace
/// Names"), what it names [`shown`].
#[derive(Debug, PartialEq, Eq)]
pub struct Refused(pub String);

impl Namespaces {
    /// A start tag's namespace declarations, each its prefix (empty for
    /// `xmlns`) and its value (normalised, references read): in scope
    /// from that tag to its element's end ([`pop`](Self::pop)).
    pub fn push<'a>(
        &mut self,
        declarations: impl IntoIterator<Item = (&'a [u8], &'a [u8])>,
    ) -> Result<(), Refused> {
        self.marks.push(self.declared.len());
        for (prefix, uri) in declarations {
            let ns = match prefix {
                b"xml" if uri == XML => continue,
                b"xml" | b"xmlns" => {
                    return Err(Refused(format!(
                        "`xml` and `xmlns` cannot be bound to `{}`",
                        shown(uri)
                    )));
                }
                _ if uri == XML || uri == XMLNS => {
                    return Err(Refused(format!(
                        "the namespace prefix `{}` cannot be bound to the namespace of `xml` or `xmlns`",
                        shown(prefix)
                    )));
                }
                // `xmlns=""`: no default namespace.
                b"" if uri.is_empty() => Ns::None,
                // `xmlns:p=""` (XML 1.1's undeclaring): `p:` names no
                // namespace the tables know.
                _ if uri.is_empty() => Ns::Other,
                _ => Ns::of(Some(uri)),
            };
            if prefix.is_empty() {
                self.default.push(ns);
            } else if let Some(stack) = self.bound.get_mut(prefix) {
                stack.push(ns);
            } else {
                self.bound.insert(prefix.into(), vec![ns]);
            }
            self.declared.push(prefix.into());
        }
        Ok(())
    }

    /// The element whose start tag was pushed last has ended: what it
    /// declared goes out of scope.
    pub fn pop(&mut self) {
        let Some(mark) = self.marks.pop() else {
            return;
        };
        for prefix in self.declared.drain(mark..) {
            if prefix.is_empty() {
                self.default.pop();
            } else if let Some(stack) = self.bound.get_mut(&prefix) {
                stack.pop();
                if stack.is_empty() {
                    self.bound.remove(&prefix);
                }
            }
        }
    }

    /// An element's namespace, and where its local name starts in `qname`:
    /// an unprefixed name is in the default namespace.
    pub fn element(&self, qname: &[u8]) -> (Ns, usize) {
        self.resolve(qname, true)
    }

    /// An attribute's namespace, and where its local name starts: an
    /// unprefixed attribute is in none; a namespace declaration in a
    /// namespace no table names.
    pub fn attribute(&self, qname: &[u8]) -> (Ns, usize) {
        if is_declaration(qname) {
            return (Ns::Other, 0);
        }
        self.resolve(qname, false)
    }

    fn resolve(&self, qname: &[u8], default: bool) -> (Ns, usize) {
        let (prefix, local) = match memchr::memchr(b':', qname) {
            Some(colon) => (&qname[..colon], colon + 1),
            None if default => (&b""[..], 0),
            None => return (Ns::None, 0),
        };
        let ns = match prefix {
            // No default namespace: none.
            b"" => self.default.last().copied().unwrap_or(Ns::None),
            b"xml" => Ns::Xml,
            // An undeclared prefix: one no table names.
            _ => self
                .bound
                .get(prefix)
                .and_then(|stack| stack.last())
                .copied()
                .unwrap_or(Ns::Other),
        };
        (ns, local)
    }
}

/// The prefix a namespace declaration binds (empty for `xmlns`), if the
/// attribute named `qname` is one.
pub fn declared_prefix(qname: &[u8]) -> Option<&[u8]> {
    match qname {
        b"xmlns" => Some(b""),
        _ => qname.strip_prefix(b"xmlns:"),
    }
}

fn is_declaration(qname: &[u8]) -> bool {
    declared_prefix(qname).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_prefix_is_bound_innermost_first_and_undone_at_its_elements_end() {
        let mut ns = Namespaces::default();
        ns.push([
            (&b""[..], &b"http://www.w3.org/2005/Atom"[..]),
            (b"s", b"http://www.w3.org/2000/svg"),
        ])
        .unwrap();
        assert_eq!(ns.element(b"link"), (Ns::Atom, 0));
        assert_eq!(ns.element(b"s:use"), (Ns::Svg, 2));
        assert_eq!(ns.attribute(b"href"), (Ns::None, 0));
        assert_eq!(ns.attribute(b"xml:base"), (Ns::Xml, 4));
        assert_eq!(ns.attribute(b"xmlns:s"), (Ns::Other, 0));
        ns.push([(&b"s"[..], &b"urn:other"[..]), (b"", b"")])
            .unwrap();
        assert_eq!(ns.element(b"s:use"), (Ns::Other, 2));
        assert_eq!(ns.element(b"link"), (Ns::None, 0));
        assert_eq!(ns.element(b"q:link"), (Ns::Other, 2));
        ns.pop();
        assert_eq!(ns.element(b"s:use"), (Ns::Svg, 2));
        assert_eq!(ns.element(b"link"), (Ns::Atom, 0));
        ns.pop();
        assert_eq!(ns.element(b"link"), (Ns::None, 0));
        assert!(ns.bound.is_empty() && ns.default.is_empty() && ns.declared.is_empty());
        // One pop too many changes nothing.
        ns.pop();
    }

    #[test]
    fn reserved_prefixes_and_names_are_refused() {
        let mut ns = Namespaces::default();
        assert!(ns.push([(&b"xml"[..], XML)]).is_ok());
        for (prefix, uri) in [
            (&b"xml"[..], &b"urn:x"[..]),
            (b"xmlns", b"urn:x"),
            (b"x", XML),
            (b"x", XMLNS),
            (b"", XMLNS),
        ] {
            assert!(ns.push([(prefix, uri)]).is_err(), "{prefix:?} {uri:?}");
        }
    }
}
