//! The general entities a document declares in its internal DTD subset
//! (XML 1.0 §4.2), read as a non-validating processor reads them: each
//! internal entity's replacement text (§4.5: its literal value with the
//! character references read), the first declaration binding; an external
//! one, or any declared after a parameter-entity reference (§5.1: such a
//! processor "MUST NOT process entity declarations ... encountered after a
//! reference to a parameter entity that is not read"), is not known.
//!
//! A reference is expanded where it stands (§4.4): in an attribute value
//! its white space becomes spaces (§3.3.3), and it may not hold a `<`; in
//! content a `<` is markup, which no value holds. Expansion is bounded,
//! so that entities defined by entities ("billion laughs") cannot make a
//! small document large: every expansion costs its replacement text's
//! length, and all of them together may cost no more than the document
//! has given so far (and [`FLOOR`]).

use std::collections::{HashMap, HashSet};

use encoding_rs::Encoding;

use crate::document::encoding::Decoded;

/// What expansions may cost whatever the document's size: a small
/// document may use its entities a few times over.
pub const FLOOR: usize = 64 << 10;

#[derive(Default)]
pub struct Entities {
    /// Each entity the internal subset declares: its replacement text, or
    /// `None` when it is external or cannot be read.
    declared: HashMap<Box<[u8]>, Option<Box<str>>>,
    /// What expansions have cost so far.
    spent: usize,
}

/// Why a reference to an entity is not expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unexpanded {
    /// Not declared in the internal subset (an external DTD's, an
    /// external entity, or not declared at all).
    Unknown,
    /// Its replacement text holds markup (`<`): in content, elements no
    /// value holds; in an attribute value, not well-formed.
    Markup,
    /// It refers to itself (§4.1, "No Recursion"): not well-formed.
    Recursive,
    /// Its replacement text holds a `&` that starts no reference (one a
    /// character reference made): not well-formed.
    Malformed,
    /// Expanding it would pass what the document has given so far.
    TooMuch,
}

impl Entities {
    /// Reads the entity declarations of a DOCTYPE (`doctype` is what stands
    /// between `<!DOCTYPE` and its `>`), in the document's `encoding`.
    pub fn declare(&mut self, doctype: &[u8], encoding: &'static Encoding) {
        let Some(open) = outside_literals(doctype, b'[') else {
            return;
        };
        let mut rest = &doctype[open + 1..];
        loop {
            rest = rest.trim_ascii_start();
            if rest.is_empty() || rest[0] == b']' {
                return;
            }
            if let Some(after) = rest.strip_prefix(b"<!--") {
                rest = after_marker(after, b"-->");
            } else if let Some(after) = rest.strip_prefix(b"<?") {
                rest = after_marker(after, b"?>");
            } else if let Some(after) = rest.strip_prefix(b"<!ENTITY") {
                let end = outside_literals(after, b'>').unwrap_or(after.len());
                self.entity(&after[..end], encoding);
                rest = &after[(end + 1).min(after.len())..];
            } else if rest[0] == b'<' {
                // `<!ELEMENT`, `<!ATTLIST`, `<!NOTATION`: nothing of ours.
                let end = outside_literals(rest, b'>').unwrap_or(rest.len());
                rest = &rest[(end + 1).min(rest.len())..];
            } else {
                // A parameter-entity reference, or what no declaration is:
                // nothing after it is read (§5.1).
                return;
            }
        }
    }

    /// One `<!ENTITY` declaration, after that keyword.
    fn entity(&mut self, decl: &[u8], encoding: &'static Encoding) {
        let decl = decl.trim_ascii_start();
        if decl.starts_with(b"%") {
            return;
        }
        let name_end = decl
            .iter()
            .position(u8::is_ascii_whitespace)
            .unwrap_or(decl.len());
        let (name, value) = (&decl[..name_end], decl[name_end..].trim_ascii());
        if name.is_empty() || self.declared.contains_key(name) || predefined(name).is_some() {
            return;
        }
        let text = match value.first() {
            Some(&quote @ (b'"' | b'\'')) if value.len() > 1 && value.ends_with(&[quote]) => {
                replacement_text(&value[1..value.len() - 1], encoding)
            }
            // `SYSTEM` or `PUBLIC`: external.
            _ => None,
        };
        self.declared.insert(name.into(), text);
    }

    /// Appends to `out` what the reference to `name` stands for, in an
    /// attribute value (`attribute`) or in content; `given` is how many
    /// bytes of the document have been read, what expansions may cost.
    pub fn expand(
        &mut self,
        name: &[u8],
        attribute: bool,
        given: usize,
        out: &mut String,
    ) -> Result<(), Unexpanded> {
        let allowed = given.saturating_add(FLOOR);
        let mut open: HashSet<&[u8]> = HashSet::new();
        // The replacement texts being read, innermost last: each the
        // entity's name and what is left of its text.
        let mut stack: Vec<(&[u8], &str)> = Vec::new();
        let mut next = name;
        loop {
            if let Some(c) = predefined(next) {
                out.push(c);
            } else {
                let text = self
                    .declared
                    .get(next)
                    .and_then(Option::as_deref)
                    .ok_or(Unexpanded::Unknown)?;
                if !open.insert(next) {
                    return Err(Unexpanded::Recursive);
                }
                self.spent += text.len() + 1;
                if self.spent > allowed {
                    return Err(Unexpanded::TooMuch);
                }
                stack.push((next, text));
            }
            // The next reference in the texts being read, their characters
            // before it appended.
            next = loop {
                let Some((entity, text)) = stack.last_mut() else {
                    return Ok(());
                };
                let Some(amp) = text.find(['&', '<']) else {
                    push_normalised(out, text, attribute);
                    open.remove(*entity);
                    stack.pop();
                    continue;
                };
                push_normalised(out, &text[..amp], attribute);
                if text.as_bytes()[amp] == b'<' {
                    return Err(Unexpanded::Markup);
                }
                // A reference in the replacement text is read where it
                // stands (one a character reference made, `&#38;#60;`, too).
                let after = &text[amp + 1..];
                let semicolon = after.find(';').ok_or(Unexpanded::Malformed)?;
                let reference = &after[..semicolon];
                *text = &after[semicolon + 1..];
                match reference.strip_prefix('#') {
                    Some(digits) => out.push(character(digits).ok_or(Unexpanded::Malformed)?),
                    None if is_name(reference.as_bytes()) => break reference.as_bytes(),
                    None => return Err(Unexpanded::Malformed),
                }
            };
        }
    }
}

/// What the five predefined entities stand for (§4.6).
fn predefined(name: &[u8]) -> Option<char> {
    Some(match name {
        b"lt" => '<',
        b"gt" => '>',
        b"amp" => '&',
        b"apos" => '\'',
        b"quot" => '"',
        _ => return None,
    })
}

/// `text` appended to `out`; in an attribute value, its white space as
/// spaces (§3.3.3).
fn push_normalised(out: &mut String, text: &str, attribute: bool) {
    if attribute {
        out.extend(text.chars().map(|c| {
            if matches!(c, '\t' | '\n' | '\r') {
                ' '
            } else {
                c
            }
        }));
    } else {
        out.push_str(text);
    }
}

/// The replacement text of an internal entity whose literal value (between
/// its quotes) is `literal` (§4.5): its character references read, its
/// entity references kept to be read where it is used; `None` when it holds
/// a parameter-entity reference (not allowed in the internal subset), a `&`
/// that starts no reference, or bytes not valid in `encoding`.
fn replacement_text(literal: &[u8], encoding: &'static Encoding) -> Option<Box<str>> {
    let literal = Decoded::new(literal, encoding)?.text;
    if literal.contains('%') {
        return None;
    }
    let mut text = String::with_capacity(literal.len());
    let mut rest = literal.as_str();
    while let Some(amp) = rest.find('&') {
        text.push_str(&rest[..amp]);
        let after = &rest[amp + 1..];
        let semicolon = after.find(';')?;
        let reference = &after[..semicolon];
        match reference.strip_prefix('#') {
            Some(digits) => text.push(character(digits)?),
            None if is_name(reference.as_bytes()) => {
                text.push('&');
                text.push_str(reference);
                text.push(';');
            }
            None => return None,
        }
        rest = &after[semicolon + 1..];
    }
    text.push_str(rest);
    Some(text.into())
}

/// The character a character reference's digits (after its `#`) name, if
/// XML allows it (`Char`).
pub fn character(digits: &str) -> Option<char> {
    let (digits, radix) = match digits.strip_prefix('x') {
        Some(hex) => (hex, 16),
        None => (digits, 10),
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let c = char::from_u32(u32::from_str_radix(digits, radix).ok()?)?;
    let allowed = matches!(c, '\t' | '\n' | '\r')
        || ('\u{20}'..='\u{D7FF}').contains(&c)
        || ('\u{E000}'..='\u{FFFD}').contains(&c)
        || c >= '\u{10000}';
    allowed.then_some(c)
}

/// An XML `Name`, loosely: a name start and name characters, any byte
/// past ASCII (in whatever encoding) taken as one.
pub fn is_name(name: &[u8]) -> bool {
    let start = |b: u8| b.is_ascii_alphabetic() || b == b'_' || b == b':' || b >= 0x80;
    match name.split_first() {
        Some((&first, rest)) => {
            start(first)
                && rest
                    .iter()
                    .all(|&b| start(b) || b.is_ascii_digit() || b == b'-' || b == b'.')
        }
        None => false,
    }
}

/// Where `byte` first stands in `bytes` outside quoted literals.
fn outside_literals(bytes: &[u8], byte: u8) -> Option<usize> {
    let mut quote = None;
    for (i, &b) in bytes.iter().enumerate() {
        match quote {
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == byte => return Some(i),
            None if b == b'"' || b == b'\'' => quote = Some(b),
            None => {}
        }
    }
    None
}

/// What follows the first `marker` in `bytes` (nothing, if none).
fn after_marker<'a>(bytes: &'a [u8], marker: &[u8]) -> &'a [u8] {
    match memchr::memmem::find(bytes, marker) {
        Some(at) => &bytes[at + marker.len()..],
        None => &[],
    }
}

#[cfg(test)]
mod tests {
    use encoding_rs::UTF_8;

    use super::*;

    fn declared(subset: &str) -> Entities {
        let mut entities = Entities::default();
        entities.declare(format!("svg [{subset}]").as_bytes(), UTF_8);
        entities
    }

    fn expand(entities: &mut Entities, name: &str, attribute: bool) -> Result<String, Unexpanded> {
        let mut out = String::new();
        entities
            .expand(name.as_bytes(), attribute, 0, &mut out)
            .map(|()| out)
    }

    #[test]
    fn internal_entities_are_read_and_the_first_declaration_binds() {
        let mut e = declared(
            "<!ENTITY ns_svg \"http://www.w3.org/2000/svg\">
             <!-- <!ENTITY hidden 'x'> -->
             <!ATTLIST svg x CDATA \"a>b\">
             <!ENTITY ns_svg 'second'>
             <!ENTITY a 'x&#10;y&#38;#60;'>
             <!ENTITY b \"[&a;]\">
             <!ENTITY ext SYSTEM \"http://example.com/e\">
             <!ENTITY % pe 'x'>",
        );
        assert_eq!(
            expand(&mut e, "ns_svg", true).unwrap(),
            "http://www.w3.org/2000/svg"
        );
        assert_eq!(expand(&mut e, "hidden", true), Err(Unexpanded::Unknown));
        // `&#10;` is a newline in the replacement text, which an attribute
        // value reads as a space; `&#38;#60;` is `&#60;`, read where used.
        assert_eq!(expand(&mut e, "b", true).unwrap(), "[x y<]");
        assert_eq!(expand(&mut e, "b", false).unwrap(), "[x\ny<]");
        assert_eq!(expand(&mut e, "ext", true), Err(Unexpanded::Unknown));
        assert_eq!(expand(&mut e, "pe", true), Err(Unexpanded::Unknown));
        assert_eq!(expand(&mut e, "amp", true).unwrap(), "&");
    }

    #[test]
    fn nothing_after_a_parameter_entity_reference_is_read() {
        let mut e = declared("<!ENTITY a 'x'> %ext; <!ENTITY b 'y'>");
        assert_eq!(expand(&mut e, "a", true).unwrap(), "x");
        assert_eq!(expand(&mut e, "b", true), Err(Unexpanded::Unknown));
    }

    #[test]
    fn markup_recursion_and_laughs_are_not_expanded() {
        let mut e = declared(
            "<!ENTITY tag '<b>x</b>'> <!ENTITY lt2 '&#38;#60;'>
             <!ENTITY r1 '&r2;'> <!ENTITY r2 '&r1;'>",
        );
        assert_eq!(expand(&mut e, "tag", false), Err(Unexpanded::Markup));
        assert_eq!(expand(&mut e, "lt2", true).unwrap(), "<");
        assert_eq!(expand(&mut e, "r1", true), Err(Unexpanded::Recursive));
        let mut e = declared("<!ENTITY amp2 '&#38;'> <!ENTITY bad '&#38;#xZZ;'>");
        assert_eq!(expand(&mut e, "amp2", true), Err(Unexpanded::Malformed));
        assert_eq!(expand(&mut e, "bad", true), Err(Unexpanded::Malformed));
        let mut laughs = String::from("<!ENTITY l0 'ha'>");
        for i in 1..=30 {
            let prev = format!("&l{};", i - 1);
            laughs.push_str(&format!("<!ENTITY l{i} '{}'>", prev.repeat(10)));
        }
        let mut e = declared(&laughs);
        let mut out = String::new();
        assert_eq!(
            e.expand(b"l30", true, 1000, &mut out),
            Err(Unexpanded::TooMuch)
        );
        assert!(out.len() <= 1000 + FLOOR, "{}", out.len());
        // An empty entity costs too: a billion of them is no faster.
        let mut empties = String::from("<!ENTITY e0 ''>");
        for i in 1..=30 {
            let prev = format!("&e{};", i - 1);
            empties.push_str(&format!("<!ENTITY e{i} '{}'>", prev.repeat(10)));
        }
        let mut e = declared(&empties);
        assert_eq!(
            e.expand(b"e30", true, 0, &mut String::new()),
            Err(Unexpanded::TooMuch)
        );
    }
}
