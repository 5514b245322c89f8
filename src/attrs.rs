//! The table of what is rewritten: (element, attribute, kind). Data, not
//! code: the rewriter's selector and its per-attribute decisions both come
//! from here, and the README lists the same rows.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use lol_html::Selector;

/// How an attribute's value holds URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The whole value is one URL.
    Url,
    /// URLs separated by ASCII whitespace (`ping`, `archive`).
    List,
    /// Image candidates: URLs with descriptors, separated by commas.
    Srcset,
    /// `<meta http-equiv=refresh content="5; url=…">`.
    Refresh,
    /// CSS declarations (`style`): `url(…)`, `image-set(…)`.
    Css,
    /// A whole HTML document (`<iframe srcdoc>`), rewritten with the same base.
    Html,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Url => "url",
            Kind::List => "list",
            Kind::Srcset => "srcset",
            Kind::Refresh => "refresh",
            Kind::Css => "css",
            Kind::Html => "html",
        }
    }

    /// The kinds a user may give to `--attr`.
    pub fn from_name(name: &str) -> Option<Kind> {
        [Kind::Url, Kind::List, Kind::Srcset, Kind::Css]
            .into_iter()
            .find(|k| k.name() == name)
    }
}

/// A condition on another attribute of the same element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    /// The attribute has this value, ASCII case-insensitively
    /// (`<param valuetype=ref>`, `<meta http-equiv=refresh>`).
    Equals(&'static str, &'static str),
    /// The attribute's value is one of these, ASCII case-insensitively
    /// (`<meta property=og:image>`).
    OneOf(&'static str, &'static [&'static str]),
}

/// Which rows a run uses: the default set, and the opt-in ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    Default,
    /// `--lazy`: lazy-loading attributes of script libraries.
    Lazy,
    /// `--social`: Open Graph and Twitter card `<meta content>` URLs.
    Social,
    /// Added with `--attr`.
    User,
}

/// One row: `element` is a lowercase tag name, or `*` for every element.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub element: String,
    pub attribute: String,
    pub kind: Kind,
    pub when: When,
    pub group: Group,
}

impl fmt::Display for Row {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}",
            self.element,
            self.attribute,
            self.kind.name()
        )
    }
}

type Static = (&'static str, &'static str, Kind, When, Group);

const SOCIAL_URLS: &[&str] = &[
    "og:url",
    "og:image",
    "og:image:url",
    "og:image:secure_url",
    "og:video",
    "og:video:url",
    "og:video:secure_url",
    "og:audio",
    "og:audio:url",
    "og:audio:secure_url",
    "twitter:image",
    "twitter:image:src",
    "twitter:player",
    "twitter:player:stream",
];

use Group::{Default as D, Lazy, Social};
use Kind::{Css, Html, List, Refresh, Srcset, Url};
use When::Always as A;

/// The built-in rows. Elements of HTML, SVG and MathML alike: `*` rows apply
/// in every namespace.
pub const BUILT_IN: &[Static] = &[
    ("*", "href", Url, A, D),
    ("*", "src", Url, A, D),
    // SVG 1.1 and MathML links (`<use xlink:href>`, `<image xlink:href>`).
    ("*", "xlink:href", Url, A, D),
    ("*", "style", Css, A, D),
    ("*", "itemid", Url, A, D),
    ("*", "itemtype", List, A, D),
    ("form", "action", Url, A, D),
    ("button", "formaction", Url, A, D),
    ("input", "formaction", Url, A, D),
    ("video", "poster", Url, A, D),
    ("blockquote", "cite", Url, A, D),
    ("q", "cite", Url, A, D),
    ("del", "cite", Url, A, D),
    ("ins", "cite", Url, A, D),
    ("object", "data", Url, A, D),
    ("object", "codebase", Url, A, D),
    ("object", "classid", Url, A, D),
    // HTML 4: "a space-separated list of URIs ... relative to codebase".
    ("object", "archive", List, A, D),
    ("applet", "code", Url, A, D),
    ("applet", "codebase", Url, A, D),
    ("applet", "object", Url, A, D),
    ("applet", "archive", List, A, D),
    ("param", "value", Url, When::Equals("valuetype", "ref"), D),
    ("html", "manifest", Url, A, D),
    ("command", "icon", Url, A, D),
    ("menuitem", "icon", Url, A, D),
    ("img", "longdesc", Url, A, D),
    ("frame", "longdesc", Url, A, D),
    ("iframe", "longdesc", Url, A, D),
    ("img", "lowsrc", Url, A, D),
    ("img", "dynsrc", Url, A, D),
    ("body", "background", Url, A, D),
    ("table", "background", Url, A, D),
    ("thead", "background", Url, A, D),
    ("tbody", "background", Url, A, D),
    ("tfoot", "background", Url, A, D),
    ("tr", "background", Url, A, D),
    ("td", "background", Url, A, D),
    ("th", "background", Url, A, D),
    ("embed", "pluginspage", Url, A, D),
    ("a", "ping", List, A, D),
    ("area", "ping", List, A, D),
    ("head", "profile", List, A, D),
    ("img", "srcset", Srcset, A, D),
    ("source", "srcset", Srcset, A, D),
    ("link", "imagesrcset", Srcset, A, D),
    (
        "meta",
        "content",
        Refresh,
        When::Equals("http-equiv", "refresh"),
        D,
    ),
    ("iframe", "srcdoc", Html, A, D),
    // Lazy loading, as the common script libraries write it.
    ("*", "data-src", Url, A, Lazy),
    ("*", "data-original", Url, A, Lazy),
    ("*", "data-lazy-src", Url, A, Lazy),
    ("*", "data-lazyload", Url, A, Lazy),
    ("*", "data-hires", Url, A, Lazy),
    ("*", "data-srcset", Srcset, A, Lazy),
    ("*", "data-lazy-srcset", Srcset, A, Lazy),
    (
        "meta",
        "content",
        Url,
        When::OneOf("property", SOCIAL_URLS),
        Social,
    ),
    (
        "meta",
        "content",
        Url,
        When::OneOf("name", SOCIAL_URLS),
        Social,
    ),
];

/// The rows of a run: the defaults, the opt-in groups asked for, and the
/// user's own; indexed by attribute, with the rewriter's selector parsed
/// once. Cheap to clone: a nested document (`<noscript>`, `srcdoc`) shares
/// its page's rows, with a selector narrowed to its content
/// ([`Table::narrowed`]).
#[derive(Debug, Clone)]
pub struct Table {
    inner: Rc<Inner>,
    /// The selector the rewriter matches elements with: the whole table's,
    /// or a nested document's narrowed one.
    selector: Rc<Selector>,
}

#[derive(Debug)]
struct Inner {
    rows: Vec<Row>,
    by_attribute: HashMap<String, Vec<usize>>,
    selector: Rc<Selector>,
    /// Whether the texts of `<style>` and `<noscript>` are rewritten too.
    texts: bool,
    /// The selector's entries, by the index in `names` of their attribute.
    entries: Vec<(usize, String)>,
    /// The attributes of the rows, each once, in ASCII lowercase, then
    /// `<style` and `<noscript` when `texts`: what [`Table::narrowed`]
    /// looks for.
    names: Vec<String>,
    /// The first entry that names no element, kept in every narrowed
    /// selector; `None` when there is none, and then nothing is narrowed.
    anyway: Option<usize>,
    /// What [`Inner::found_in`] looks names up by.
    by_byte: Option<Box<[[u64; 256]; 3]>>,
    /// Narrowed selectors, by the set of `names` found.
    narrowed: RefCell<HashMap<Vec<u64>, Rc<Selector>>>,
}

/// How many narrowed selectors a table keeps.
const NARROWED_KEPT: usize = 256;

thread_local! {
    /// Built once per thread: a library user's `Config::default()` per page
    /// must not parse the selector again.
    static DEFAULT: Table = Table::new(false, false, Vec::new());
}

impl Default for Table {
    fn default() -> Self {
        DEFAULT.with(Table::clone)
    }
}

impl Table {
    /// Only the built-in rows for these attributes (`["href", "src"]`), and
    /// no element texts: to measure what the rest of the table costs, or to
    /// rewrite less.
    pub fn only(attributes: &[&str]) -> Self {
        let rows = Table::default()
            .rows()
            .iter()
            .filter(|r| attributes.contains(&r.attribute.as_str()))
            .cloned()
            .collect();
        Table::from_rows(rows, false)
    }

    pub fn new(lazy: bool, social: bool, user: Vec<Row>) -> Self {
        let mut rows: Vec<Row> = BUILT_IN
            .iter()
            .filter(|(.., group)| match group {
                Group::Default | Group::User => true,
                Group::Lazy => lazy,
                Group::Social => social,
            })
            .map(|&(element, attribute, kind, when, group)| Row {
                element: element.into(),
                attribute: attribute.into(),
                kind,
                when,
                group,
            })
            .collect();
        // A user's row comes first, so it wins over a built-in one for the
        // same element and attribute.
        rows.splice(0..0, user);
        Table::from_rows(rows, true)
    }

    fn from_rows(rows: Vec<Row>, texts: bool) -> Self {
        let mut by_attribute: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, row) in rows.iter().enumerate() {
            by_attribute
                .entry(row.attribute.clone())
                .or_default()
                .push(i);
        }
        let mut names: Vec<String> = Vec::new();
        let mut entries = Vec::new();
        let mut index = |name: String| match names.iter().position(|n| *n == name) {
            Some(i) => i,
            None => {
                names.push(name);
                names.len() - 1
            }
        };
        for (name, text) in entries_of(&rows) {
            entries.push((index(name.to_ascii_lowercase()), text));
        }
        if texts {
            for element in ["style", "noscript"] {
                entries.push((index(format!("<{element}")), element.to_owned()));
            }
        }
        let anyway = entries.iter().position(|(_, text)| text.starts_with('['));
        let text: Vec<&str> = entries.iter().map(|(_, text)| text.as_str()).collect();
        let selector = Rc::new(parse(&text.join(",")));
        let by_byte = by_byte(&names);
        Table {
            selector: Rc::clone(&selector),
            inner: Rc::new(Inner {
                rows,
                by_attribute,
                selector,
                texts,
                entries,
                names,
                anyway,
                by_byte,
                narrowed: RefCell::new(HashMap::new()),
            }),
        }
    }

    pub fn rows(&self) -> &[Row] {
        &self.inner.rows
    }

    /// The rewriter's selector: every element with an attribute of the
    /// table, and `<style>` and `<noscript>`, whose texts it reads.
    pub fn element_selector(&self) -> &Selector {
        &self.selector
    }

    /// Whether the texts of `<style>` and `<noscript>` are rewritten.
    pub fn texts(&self) -> bool {
        self.inner.texts
    }

    /// The table with the whole selector: for a nested document whose
    /// bytes lol_html does not read as they are (UTF-16, transcoded first).
    pub fn whole(&self) -> Table {
        Table {
            inner: Rc::clone(&self.inner),
            selector: Rc::clone(&self.inner.selector),
        }
    }

    /// The table for a document of these `bytes`, read as they are (in an
    /// ASCII-compatible encoding): the same rows, and a selector of only
    /// the entries whose attribute's name is in `bytes`, ASCII
    /// case-insensitively, and `style` and `noscript` only if `<style` and
    /// `<noscript` are. An attribute's name is never written with character
    /// references, so an element can only have an attribute whose name is
    /// in the bytes: the narrowed selector matches the same elements, and
    /// lol_html calls the handler on the same elements, as the whole one
    /// would, at a fraction of the cost of compiling the whole one for each
    /// `<noscript>`. The first entry that names no element (`[href]`) stays
    /// whatever the bytes: with it, lol_html reads the attributes of every
    /// start tag, as with the whole selector, so that what counts against
    /// its memory limit does not change either.
    pub fn narrowed(&self, bytes: &[u8]) -> Table {
        let inner = &self.inner;
        let Some(anyway) = inner.anyway else {
            return self.whole();
        };
        let found = inner.found_in(bytes);
        if let Some(selector) = inner.narrowed.borrow().get(&found) {
            return Table {
                inner: Rc::clone(inner),
                selector: Rc::clone(selector),
            };
        }
        let selector = Rc::new(parse(&inner.narrowed_text(&found, anyway)));
        let mut narrowed = inner.narrowed.borrow_mut();
        if narrowed.len() < NARROWED_KEPT {
            narrowed.insert(found, Rc::clone(&selector));
        }
        Table {
            inner: Rc::clone(inner),
            selector,
        }
    }

    /// The row for `attribute` on `element` (both lowercase): the first
    /// whose condition `holds` on the element.
    pub fn find(
        &self,
        element: &str,
        attribute: &str,
        holds: impl Fn(When) -> bool,
    ) -> Option<&Row> {
        self.inner
            .by_attribute
            .get(attribute)?
            .iter()
            .map(|&i| &self.inner.rows[i])
            .find(|r| (r.element == "*" || r.element == element) && holds(r.when))
    }

    /// A CSS selector matching every element that has an attribute of the
    /// table, so that lol_html calls the handler for those elements only.
    pub fn selector(&self) -> String {
        selector_text(&self.inner.rows)
    }
}

impl Inner {
    /// The entries of the names `found`, and the one kept `anyway`.
    fn narrowed_text(&self, found: &[u64], anyway: usize) -> String {
        let has = |name: usize| found[name / 64] & (1 << (name % 64)) != 0;
        let text: Vec<&str> = self
            .entries
            .iter()
            .enumerate()
            .filter(|&(i, &(name, _))| i == anyway || has(name))
            .map(|(_, (_, text))| text.as_str())
            .collect();
        text.join(",")
    }

    /// Which of `names` are in `bytes`, ASCII case-insensitively: a set of
    /// their indexes.
    fn found_in(&self, bytes: &[u8]) -> Vec<u64> {
        let Some(by_byte) = &self.by_byte else {
            return self.found_slowly(bytes);
        };
        // Lowercase, and two bytes past the end for the windows of three.
        let mut lower = Vec::with_capacity(bytes.len() + 2);
        lower.extend(bytes.iter().map(u8::to_ascii_lowercase));
        lower.extend_from_slice(&[0, 0]);
        let [first, second, third] = &**by_byte;
        let all = u64::MAX
            .checked_shr(64 - self.names.len() as u32)
            .unwrap_or(0);
        let mut found = 0u64;
        for (at, window) in lower.windows(3).enumerate() {
            let maybe = first[usize::from(window[0])] & !found;
            if maybe == 0 {
                continue;
            }
            // The names whose first three bytes these are: few, and rarely.
            let mut maybe = maybe & second[usize::from(window[1])] & third[usize::from(window[2])];
            while maybe != 0 {
                let i = maybe.trailing_zeros() as usize;
                maybe &= maybe - 1;
                if lower[at..].starts_with(self.names[i].as_bytes()) {
                    found |= 1 << i;
                    if found == all {
                        return vec![found];
                    }
                }
            }
        }
        vec![found]
    }

    /// [`Inner::found_in`] for more than 64 names, or names not ASCII (which
    /// count as found: not narrowed away).
    fn found_slowly(&self, bytes: &[u8]) -> Vec<u64> {
        let lower = bytes.to_ascii_lowercase();
        let mut found = vec![0u64; self.names.len().div_ceil(64)];
        for (i, name) in self.names.iter().enumerate() {
            let name = name.as_bytes();
            if !name.is_ascii() || name.is_empty() || lower.windows(name.len()).any(|w| w == name) {
                found[i / 64] |= 1 << (i % 64);
            }
        }
        found
    }
}

/// For each of the first three bytes of a name, the set of names (by index)
/// that can have each lowercase byte there: its own byte, or any byte past
/// its end. `None` when the names do not fit in a set, or one is not ASCII.
fn by_byte(names: &[String]) -> Option<Box<[[u64; 256]; 3]>> {
    if names.len() > 64 || names.iter().any(|n| !n.is_ascii() || n.is_empty()) {
        return None;
    }
    let mut by_byte = Box::new([[0u64; 256]; 3]);
    for (i, name) in names.iter().enumerate() {
        for (k, sets) in by_byte.iter_mut().enumerate() {
            match name.as_bytes().get(k) {
                Some(&b) => sets[usize::from(b)] |= 1 << i,
                None => sets.iter_mut().for_each(|set| *set |= 1 << i),
            }
        }
    }
    Some(by_byte)
}

fn parse(selector: &str) -> Selector {
    selector
        .parse()
        .expect("names are escaped, so the selector parses")
}

/// The selector's entries, with the attribute each is for, in the order of
/// the rows: `[attribute]` for a row on every element, and
/// `element[attribute]` for the others, but none for an attribute that a
/// row has on every element. Nothing else is merged: `[background]` for the
/// eight `element[background]` would be fewer entries for lol_html to try
/// on every element (a tenth fewer instructions on the corpus), but it
/// would match `<br background>` too, and though the handler leaves such an
/// element as it is, lol_html writes out a matched start tag at once,
/// which moves where a stop at its memory limit is said to be: with
/// `[formaction]`, `<br formaction=f><del cite=d>…` under a 2 KiB limit
/// warns of a stop at byte 17, not 0.
fn entries_of(rows: &[Row]) -> Vec<(&str, String)> {
    let everywhere = |name: &str| rows.iter().any(|r| r.element == "*" && r.attribute == name);
    let mut entries: Vec<(&str, String)> = Vec::new();
    for row in rows {
        let name = row.attribute.as_str();
        // Anything but letters, digits, `-` and `_` is escaped in a CSS name
        // (`xlink\:href`), so that every name the table holds parses.
        let attribute: String = name
            .chars()
            .flat_map(|c| {
                let escape = !(c.is_ascii_alphanumeric() || c == '-' || c == '_');
                escape.then_some('\\').into_iter().chain([c])
            })
            .collect();
        let entry = if everywhere(name) {
            format!("[{attribute}]")
        } else {
            format!("{}[{attribute}]", row.element)
        };
        if !entries.iter().any(|(_, e)| *e == entry) {
            entries.push((name, entry));
        }
    }
    entries
}

fn selector_text(rows: &[Row]) -> String {
    let entries = entries_of(rows);
    let texts: Vec<&str> = entries.iter().map(|(_, text)| text.as_str()).collect();
    texts.join(",")
}

/// `--attr ELEMENT:ATTRIBUTE[:KIND]`, `*` for every element.
pub fn parse_user_row(spec: &str) -> Result<Row, String> {
    let parts: Vec<&str> = spec.split(':').collect();
    // `xlink:href`-style names hold a colon: the kind is the last part only
    // when it names a kind.
    let (element, attribute, kind) = match parts.as_slice() {
        [element, rest @ .., last] if !rest.is_empty() && Kind::from_name(last).is_some() => (
            *element,
            rest.join(":"),
            Kind::from_name(last).unwrap_or(Kind::Url),
        ),
        [element, rest @ ..] if !rest.is_empty() => (*element, rest.join(":"), Kind::Url),
        _ => return Err(format!("--attr wants ELEMENT:ATTRIBUTE[:KIND]: `{spec}`")),
    };
    let valid_name = |s: &str| {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b':' | b'.'))
    };
    if !(element == "*" || valid_name(element)) || !valid_name(&attribute) {
        return Err(format!("--attr wants ELEMENT:ATTRIBUTE[:KIND]: `{spec}`"));
    }
    Ok(Row {
        element: element.to_ascii_lowercase(),
        attribute: attribute.to_ascii_lowercase(),
        kind,
        when: When::Always,
        group: Group::User,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_rows_parse_with_or_without_a_kind() {
        let row = parse_user_row("img:data-hires").unwrap();
        assert_eq!(row.to_string(), "img:data-hires:url");
        assert_eq!(
            parse_user_row("IMG:Data-Set:srcset").unwrap().to_string(),
            "img:data-set:srcset"
        );
        assert_eq!(
            parse_user_row("*:xlink:role").unwrap().to_string(),
            "*:xlink:role:url"
        );
        assert_eq!(
            parse_user_row("svg:xlink:href:list").unwrap().to_string(),
            "svg:xlink:href:list"
        );
        for bad in ["img", "img:", ":src", "img:a b", "img:src:refresh-ish:x y"] {
            assert!(parse_user_row(bad).is_err(), "{bad}");
        }
        // Names with `.` and `:` make a selector that parses.
        let row = parse_user_row("img:data.hi-res:x").unwrap();
        let table = Table::new(false, false, vec![row]);
        assert!(table.selector().starts_with("img[data\\.hi-res\\:x],"));
    }

    #[test]
    fn opt_in_groups_only_when_asked() {
        let has = |t: &Table, a: &str| t.rows().iter().any(|r| r.attribute == a);
        assert!(!has(&Table::default(), "data-src"));
        assert!(has(&Table::new(true, false, vec![]), "data-src"));
        let social = Table::new(false, true, vec![]);
        assert_eq!(Table::only(&["href", "src"]).selector(), "[href],[src]");
        assert!(!Table::only(&["href", "src"]).texts() && Table::default().texts());
        let og = |w| w == When::Always || matches!(w, When::OneOf("property", _));
        assert_eq!(
            social.find("meta", "content", og).map(|r| r.group),
            Some(Group::Social)
        );
        assert_eq!(Table::default().find("meta", "content", og), None);
    }

    #[test]
    fn selector_has_an_entry_for_each_element_and_attribute() {
        // As the rows say it, each once: the selector matches exactly the
        // elements that have an attribute of a row for them.
        for table in [Table::default(), Table::new(true, true, Vec::new())] {
            let mut expected: Vec<String> = Vec::new();
            for row in table.rows() {
                let attribute = row.attribute.replace(':', "\\:");
                let entry = match row.element.as_str() {
                    "*" => format!("[{attribute}]"),
                    element => format!("{element}[{attribute}]"),
                };
                if !expected.contains(&entry) {
                    expected.push(entry);
                }
            }
            assert_eq!(table.selector(), expected.join(","));
        }
        let selector = Table::default().selector();
        assert_eq!(selector.split(',').count(), 48);
        assert!(selector.contains(",td[background],") && !selector.contains(",[background]"));
        // An element's entry is left out only where `[attribute]` matches
        // all it would.
        let user = ["img:src", "div:data-src", "li:value"].map(|r| parse_user_row(r).unwrap());
        let selector = Table::new(true, false, user.into()).selector();
        assert!(
            selector.starts_with("[src],[data-src],li[value],[href],"),
            "{selector}"
        );
        assert!(!selector.contains("img[src]") && !selector.contains("div[data-src]"));
    }

    #[test]
    fn selector_lists_each_attribute_once() {
        let selector = Table::default().selector();
        assert!(selector.starts_with("[href],[src],[xlink\\:href],[style]"));
        assert_eq!(selector.matches("[href]").count(), 1);
    }
}

#[cfg(test)]
mod narrowed_tests {
    use super::*;
    use crate::base::Layers;
    use crate::rewrite::{Config, Rewriter};
    use proptest::prelude::*;

    fn text(table: &Table, bytes: &[u8]) -> String {
        let inner = &table.inner;
        inner.narrowed_text(&inner.found_in(bytes), inner.anyway.unwrap())
    }

    #[test]
    fn narrowed_to_the_names_in_the_bytes() {
        let table = Table::default();
        // `[href]` stays, whatever the bytes.
        assert_eq!(text(&table, b""), "[href]");
        assert_eq!(text(&table, b"<p>hello</p>"), "[href]");
        assert_eq!(
            text(&table, b"<IMG SRC=a Style=b><td BACKGROUND=x>"),
            "[href],[src],[style],body[background],table[background],thead[background],\
             tbody[background],tfoot[background],tr[background],td[background],th[background]"
        );
        // Wherever the name is: a superset of the attributes.
        assert_eq!(
            text(&table, b"<p>srcset</p>"),
            "[href],[src],img[srcset],source[srcset]"
        );
        assert_eq!(
            text(&table, b"<svg><use XLINK:HREF=a>"),
            "[href],[xlink\\:href]"
        );
        assert_eq!(
            text(&table, b"<Param value=a><meta CONTENT=b>"),
            "[href],param[value],meta[content]"
        );
        assert_eq!(
            text(&table, b"<noscript><STYLE>a{}</style>"),
            "[href],[style],style,noscript"
        );
        // At the very end, and split by nothing else.
        assert_eq!(text(&table, b"ping"), "[href],a[ping],area[ping]");
        assert_eq!(text(&table, b"pin"), "[href]");
        // Not ASCII, not a name.
        assert_eq!(text(&table, "sr\u{0441}".as_bytes()), "[href]");
    }

    #[test]
    fn narrowed_selectors_are_kept_and_shared() {
        let table = Table::default();
        let a = table.narrowed(b"<img src=a>");
        let b = table.narrowed(b"<script src=b></script>");
        assert!(std::ptr::eq(a.element_selector(), b.element_selector()));
        assert!(std::ptr::eq(a.rows(), table.rows()));
        assert!(!std::ptr::eq(
            a.element_selector(),
            table.element_selector()
        ));
        // The whole selector again, from a narrowed table.
        assert!(std::ptr::eq(
            a.whole().element_selector(),
            table.element_selector()
        ));
        // Nothing that names no element: nothing to keep, nothing narrowed.
        let poster = Table::only(&["poster"]);
        assert_eq!(poster.selector(), "video[poster]");
        assert!(std::ptr::eq(
            poster.narrowed(b"").element_selector(),
            poster.element_selector()
        ));
    }

    #[test]
    fn many_names_are_looked_for_slowly() {
        let user: Vec<Row> = (0..70)
            .map(|i| parse_user_row(&format!("*:data-n{i}")).unwrap())
            .collect();
        let table = Table::new(false, false, user);
        assert!(table.inner.by_byte.is_none());
        let found = text(&table, b"<a DATA-N7=x data-n69=y>");
        // The user's rows come first, and `data-n6` is in `data-n69`.
        assert_eq!(
            found,
            "[data-n0],[data-n6],[data-n7],[data-n69],object[data]"
        );
    }

    /// Bytes made of names, their pieces and their neighbours.
    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(vec![
            "src",
            "SRC",
            "sr",
            "c",
            "srcset",
            "SrcDoc",
            "href",
            "hre",
            "f",
            "xlink:",
            "xlink:href",
            "style",
            "<style",
            "<STYLE",
            "<",
            "noscript",
            "<noscript",
            "background",
            "back",
            "ground",
            "value",
            "content",
            "con",
            "cite",
            "ping",
            "ite",
            "itemid",
            "itemtype",
            "code",
            "codebase",
            "<img ",
            " ",
            "=",
            "\"",
            "\0",
            "\u{e9}",
            "imagesrcset",
            "formaction",
            "action",
            "data",
            "longdesc",
            "lowsrc",
            "dynsrc",
            "icon",
            "manifest",
            "object",
            "classid",
            "archive",
            "poster",
            "pluginspage",
            "profile",
            "xyz",
        ]);
        prop::collection::vec(piece, 0..16).prop_map(|p| p.concat().into_bytes())
    }

    fn run(table: Table, html: &[u8], max_memory: usize) -> String {
        let config = Config {
            layers: Layers {
                encapsulating: Some("http://h/a/b".into()),
                retrieval: None,
            },
            max_memory,
            table,
            encoding: Some(encoding_rs::UTF_8),
            embedded: false,
            depth: 1,
            ..Config::default()
        };
        let mut rewriter = Rewriter::new(config, Vec::new());
        rewriter.record_splices();
        let write = rewriter.write(html);
        let end = rewriter.end_with_splices();
        format!("{write:?} {end:?}")
    }

    proptest! {
        #[test]
        fn found_fast_is_found_slowly(bytes in bytes()) {
            for table in [Table::default(), Table::new(true, true, Vec::new())] {
                let inner = &table.inner;
                prop_assert_eq!(inner.found_in(&bytes), inner.found_slowly(&bytes));
            }
        }

        /// A nested document comes out the same, and with the same report,
        /// with the narrowed selector as with the whole one.
        #[test]
        fn narrowed_rewrites_as_whole(pieces in prop::collection::vec(prop::sample::select(vec![
            "<img src=a.png>", "<IMG SRC='b.png' style='background:url(c)'>", "<td background=t>",
            "<div background=d>", "<q cite=q>", "<span cite=s>", "<a href=x ping='p q'>",
            "<object data=o codebase=cb/ archive='a b'>", "<param valuetype=ref value=v>",
            "<input value=v>", "<meta http-equiv=refresh content='0; url=r'>",
            "<iframe srcdoc=\"<img src=s>\">", "<style>a{b:url(x)}</style>", "<noscript>",
            "</noscript>", "<svg><use xlink:href=u /></svg>", "<base href=b/>", "x", " ",
            "<div itemtype='t u'>", "<img srcset='a 1x'>", "<video poster=p>", "\0", "<",
        ]), 0..12)) {
            let html = pieces.concat();
            let table = Table::default();
            let narrowed = table.narrowed(html.as_bytes());
            prop_assert_eq!(
                run(narrowed, html.as_bytes(), 1 << 20),
                run(table.whole(), html.as_bytes(), 1 << 20)
            );
        }
    }

    /// A tag with many attributes, none of the table's: lol_html reads them
    /// all with the whole selector (it has `[href]`), and counts them
    /// against its memory limit; so it does with the narrowed one.
    #[test]
    fn narrowed_counts_the_same_memory() {
        let mut html = b"<p".to_vec();
        for _ in 0..40_000 {
            html.extend_from_slice(b" a");
        }
        html.extend_from_slice(b"><form action=f>");
        let table = Table::default();
        let narrowed = table.narrowed(&html);
        let whole = run(table.whole(), &html, 1 << 20);
        assert!(whole.contains("MemoryLimit"), "{whole}");
        assert_eq!(run(narrowed, &html, 1 << 20), whole);
        // Without `[href]` it would not: `form[action]` alone reads the
        // attributes of `<form>`s only.
        let mut only_form = Table::default().narrowed(&html);
        only_form.selector = Rc::new(parse("form[action]"));
        assert!(!run(only_form, &html, 1 << 20).contains("MemoryLimit"));
    }
}
