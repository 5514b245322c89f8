//! One construct of markup (a tag, a comment, a CDATA section, a
//! declaration), once it is whole, read by quick-xml: a fresh reader over
//! its bytes, which the document's loop hands it. A start tag's names are
//! resolved by namespace URI ([`Namespaces`]), its declarations' values
//! read as XML reads any attribute value (references, the entities the
//! document declares, white space).

use std::ops::Range;

use encoding_rs::Encoding;
use quick_xml::Reader;
use quick_xml::errors::{Error as XmlError, IllFormedError};
use quick_xml::events::attributes::AttrError;
use quick_xml::events::{BytesStart, Event};
use quick_xml::name::NamespaceError;

use super::entities::Entities;
use super::namespaces::{Namespaces, declared_prefix};
use super::text::{Piece, Text, Unreadable};
use super::vocabulary::{Name, Ns};
use crate::shown::shown;
use crate::syntax::xml_stylesheet;

/// What reading a construct needs of its document: its namespaces in
/// scope (a start tag's declarations are pushed), its entities, how much
/// of it has been read (what they may expand to) and its encoding.
pub struct Context<'a> {
    pub namespaces: &'a mut Namespaces,
    pub entities: &'a mut Entities,
    pub given: usize,
    pub encoding: &'static Encoding,
    /// What a value read may hold (the document's share left).
    pub room: usize,
}

/// A construct read by quick-xml, with what the loop needs of it.
pub enum Item {
    Start {
        name: Box<[u8]>,
        ns: Ns,
        local: usize,
        attributes: Vec<Attribute>,
        empty: bool,
        /// The bytes of its namespace declarations.
        declared: usize,
        /// Declarations whose value refers to an entity not read (at
        /// offsets of the input): their namespace is none the tables know.
        unread: Vec<(usize, String)>,
    },
    End {
        name: Box<[u8]>,
    },
    CData {
        content: Range<usize>,
    },
    Declaration {
        encoding: Option<Vec<u8>>,
    },
    /// A DOCTYPE: what stands between `<!DOCTYPE` and its `>`.
    DocType(Range<usize>),
    /// An `<?xml-stylesheet?>` processing instruction: the value of its
    /// `href` pseudo-attribute (at offsets of the input, between the
    /// quote), when a browser loads it ([`xml_stylesheet::href`]: its
    /// pseudo-attributes read as start tag attributes do, and it is a
    /// stylesheet of a type loaded, not an alternate one without a title).
    Stylesheet {
        href: Option<(Range<usize>, u8)>,
    },
    /// A comment, another processing instruction.
    Other,
}

pub struct Attribute {
    /// As written.
    pub name: Box<[u8]>,
    pub ns: Ns,
    pub local: usize,
    /// Its value, at offsets of the input, between quotes.
    pub value: Range<usize>,
    pub quote: u8,
}

impl Attribute {
    pub fn name(&self) -> Name<'_> {
        Name {
            ns: self.ns,
            local: &self.name[self.local..],
        }
    }
}

/// Why a construct could not be read yet, or at all.
pub enum Unparsed {
    /// It may go on in the input still to come; if not, this is why it
    /// is not well-formed.
    Incomplete(String),
    /// Why it is not well-formed, and where, `at` bytes into it.
    NotWellFormed { at: usize, why: String },
    /// Its references to entities would expand past what the document may
    /// take, `at` bytes into it.
    Expansion { at: usize },
    /// A value in it would hold more than the document's share of the
    /// run's memory has left, `at` bytes into it.
    Over { at: usize },
}

/// Parses the construct that `bytes` (at offset `at` of the input) start
/// with, with quick-xml: what it is, or why it is none, and how many bytes
/// quick-xml read of it (what holding it takes).
pub fn parse(bytes: &[u8], at: usize, cx: Context<'_>) -> (Result<Item, Unparsed>, usize) {
    let mut reader = Reader::from_reader(bytes);
    let config = reader.config_mut();
    // The loop matches end tags itself: the reader sees one construct.
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    config.expand_empty_elements = false;
    let event = reader.read_event();
    let len = usize::try_from(reader.buffer_position()).expect("within the bytes");
    let item = match event {
        Ok(event) => item(event, bytes, at, cx),
        Err(XmlError::Syntax(e)) => Err(Unparsed::Incomplete(e.to_string())),
        Err(e) => Err(Unparsed::NotWellFormed {
            at: 0,
            why: said(&e),
        }),
    };
    (item, len)
}

/// What the construct quick-xml read as `event` is.
fn item(event: Event<'_>, bytes: &[u8], at: usize, cx: Context<'_>) -> Result<Item, Unparsed> {
    let offset = |inner: &[u8]| at + (inner.as_ptr() as usize - bytes.as_ptr() as usize);
    let item = match &event {
        Event::Start(start) | Event::Empty(start) => {
            if start.name().as_ref().is_empty() {
                return Err(Unparsed::NotWellFormed {
                    at: 1,
                    why: "a tag without a name".to_owned(),
                });
            }
            start_item(start, matches!(event, Event::Empty(_)), bytes, at, cx)?
        }
        Event::End(end) => Item::End {
            name: end.name().as_ref().into(),
        },
        Event::CData(cdata) => {
            let content = offset(cdata);
            Item::CData {
                content: content..content + cdata.len(),
            }
        }
        Event::Decl(decl) => Item::Declaration {
            encoding: decl.encoding().and_then(Result::ok).map(|e| e.into_owned()),
        },
        Event::DocType(doctype) => {
            let start = offset(doctype);
            Item::DocType(start..start + doctype.len())
        }
        Event::PI(pi) if pi.target() == b"xml-stylesheet" => {
            // The instruction whole, `<?` to `?>`, read as the page engine
            // reads one: an `href` a browser loads, or none.
            let end = offset(pi) - at + pi.len() + "?>".len();
            let href = bytes.get(..end).and_then(xml_stylesheet::href);
            Item::Stylesheet {
                href: href.map(|h| (at + h.value.start..at + h.value.end, h.quote)),
            }
        }
        Event::Eof => {
            return Err(Unparsed::Incomplete(
                "the input ends inside markup".to_owned(),
            ));
        }
        _ => Item::Other,
    };
    Ok(item)
}

/// Where an attribute's `value` (a part of `bytes`, the construct's, at
/// offset `at` of the input) stands in the input, and its quote: the byte
/// before it.
fn quoted_value(value: &[u8], bytes: &[u8], at: usize) -> (Range<usize>, u8) {
    let start = value.as_ptr() as usize - bytes.as_ptr() as usize;
    (at + start..at + start + value.len(), bytes[start - 1])
}

/// A start tag's name and attributes, their namespaces resolved (its own
/// declarations pushed first: they are in scope on it). `bytes` are the
/// construct's, at offset `at` of the input.
fn start_item(
    start: &BytesStart<'_>,
    empty: bool,
    bytes: &[u8],
    at: usize,
    cx: Context<'_>,
) -> Result<Item, Unparsed> {
    let mut attributes = Vec::new();
    for attribute in start.attributes() {
        let attribute = attribute.map_err(attribute_error)?;
        let (value, quote) = quoted_value(&attribute.value, bytes, at);
        let name: Box<[u8]> = attribute.key.as_ref().into();
        attributes.push((name, value, quote));
    }
    // Each declaration's value, read: `xmlns="&ns_svg;"` is SVG's.
    let mut declarations = Vec::new();
    let mut unread = Vec::new();
    let mut declared = 0;
    for (name, value, quote) in &attributes {
        let Some(prefix) = declared_prefix(name) else {
            continue;
        };
        let raw = &bytes[value.start - at..value.end - at];
        declared += name.len() + raw.len();
        let pieces = [Piece::Escaped {
            range: 0..raw.len(),
            quote: Some(*quote),
        }];
        let uri = match Text::read_with(raw, &pieces, cx.encoding, cx.entities, cx.given, cx.room) {
            Ok(text) => text.text.into_bytes(),
            Err(Unreadable::Entity { at: i, name }) => {
                unread.push((value.start + i, name));
                // A namespace no table names.
                b"urn:htmlabs:unread".to_vec()
            }
            Err(Unreadable::Expansion { at: i }) => {
                return Err(Unparsed::Expansion {
                    at: value.start + i - at,
                });
            }
            Err(Unreadable::Over { at: i }) => {
                return Err(Unparsed::Over {
                    at: value.start + i - at,
                });
            }
            Err(Unreadable::Malformed { at: i, why }) => {
                return Err(Unparsed::NotWellFormed {
                    at: value.start + i - at,
                    why: why.to_owned(),
                });
            }
            // Not in the document's encoding: no namespace a table names is.
            Err(Unreadable::Undecodable) => raw.to_vec(),
        };
        declarations.push((prefix, uri));
    }
    cx.namespaces
        .push(
            declarations
                .iter()
                .map(|(prefix, uri)| (*prefix, uri.as_slice())),
        )
        .map_err(|refused| Unparsed::NotWellFormed {
            at: 0,
            why: refused.0,
        })?;
    let name = start.name();
    let (ns, local) = cx.namespaces.element(name.as_ref());
    let attributes = attributes
        .into_iter()
        .map(|(name, value, quote)| {
            let (ns, local) = cx.namespaces.attribute(&name);
            Attribute {
                name,
                ns,
                local,
                quote,
                value,
            }
        })
        .collect();
    Ok(Item::Start {
        name: name.as_ref().into(),
        ns,
        local,
        attributes,
        empty,
        declared,
        unread,
    })
}

/// What quick-xml found wrong, each name or value of the input in it
/// [`shown`] (quick-xml writes some as they came, others in its own
/// escapes): nothing else of the input is printed.
fn said(e: &XmlError) -> String {
    let name = |bytes: &[u8]| format!("`{}`", shown(bytes));
    match e {
        XmlError::IllFormed(IllFormedError::MissingDeclVersion(Some(attribute))) => format!(
            "an XML declaration must start with its `version`, not {}",
            name(attribute.as_bytes())
        ),
        XmlError::IllFormed(IllFormedError::MismatchedEndTag { expected, found }) => format!(
            "{} ends {}",
            name(format!("</{found}>").as_bytes()),
            name(format!("<{expected}>").as_bytes())
        ),
        XmlError::IllFormed(
            IllFormedError::MissingEndTag(tag) | IllFormedError::UnmatchedEndTag(tag),
        ) => format!("{} is not closed as it opened", name(tag.as_bytes())),
        XmlError::Namespace(NamespaceError::UnknownPrefix(prefix)) => {
            format!("the namespace prefix {} is not declared", name(prefix))
        }
        XmlError::Namespace(
            NamespaceError::InvalidXmlPrefixBind(uri) | NamespaceError::InvalidXmlnsPrefixBind(uri),
        ) => format!("`xml` and `xmlns` cannot be bound to {}", name(uri)),
        XmlError::Namespace(
            NamespaceError::InvalidPrefixForXml(prefix)
            | NamespaceError::InvalidPrefixForXmlns(prefix),
        ) => format!(
            "the namespace prefix {} cannot be bound to the namespace of `xml` or `xmlns`",
            name(prefix)
        ),
        // The rest say no name; should one hold a byte of the input that
        // `shown` would escape, the whole text is shown.
        other => shown(other.to_string().as_bytes()).into_owned(),
    }
}

/// What is wrong with an attribute, and where in its tag.
fn attribute_error(e: AttrError) -> Unparsed {
    // quick-xml counts from the byte after the `<`.
    let (at, why) = match e {
        AttrError::ExpectedEq(at) => (at, "an attribute without `=`"),
        AttrError::ExpectedValue(at) => (at, "an attribute without a value"),
        AttrError::UnquotedValue(at) => (at, "an attribute value without quotes"),
        AttrError::ExpectedQuote(at, _) => (at, "an attribute value not closed"),
        AttrError::Duplicated(at, _) => (at, "an attribute given twice"),
    };
    Unparsed::NotWellFormed {
        at: at + 1,
        why: why.to_owned(),
    }
}
