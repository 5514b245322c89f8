//! The table of what is rewritten: (element, attribute, kind). Data, not
//! code: the rewriter's per-attribute decisions come from here, and
//! `docs/rewritten.md` lists the same rows (checked by `tests/house/readme.rs`).

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use lol_html::Selector;
use rustc_hash::FxHashMap;

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
    /// One URL of which only the origin is used (`<link rel=preconnect>`,
    /// `rel=dns-prefetch`): rewritten as a URL is, and no file to check.
    Origin,
}

impl Kind {
    /// Every kind, in order: `kind as usize` is its place.
    pub(crate) const ALL: [Kind; 7] = [
        Kind::Url,
        Kind::List,
        Kind::Srcset,
        Kind::Refresh,
        Kind::Css,
        Kind::Html,
        Kind::Origin,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Kind::Url => "url",
            Kind::List => "list",
            Kind::Srcset => "srcset",
            Kind::Refresh => "refresh",
            Kind::Css => "css",
            Kind::Html => "html",
            Kind::Origin => "origin",
        }
    }

    /// Whether the whole value is one URL (an origin's too).
    pub(crate) fn is_one_url(self) -> bool {
        matches!(self, Kind::Url | Kind::Origin)
    }

    /// The kinds a user may give to `--attr`.
    pub(crate) fn from_name(name: &str) -> Option<Kind> {
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
    /// The attribute's tokens (separated by ASCII whitespace) hold one of
    /// the first, and none of the second, ASCII case-insensitively
    /// (`<link rel>`, a set of tokens).
    Tokens(
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
    ),
}

impl When {
    /// Whether the condition holds, given the values of the element's
    /// attributes (`value(name)`, as written).
    pub(crate) fn holds<S: AsRef<str>>(self, value: impl Fn(&str) -> Option<S>) -> bool {
        let is = |v: &str, expected: &str| v.eq_ignore_ascii_case(expected);
        match self {
            When::Always => true,
            When::Equals(name, expected) => {
                value(name).is_some_and(|v| is(v.as_ref().trim(), expected))
            }
            When::OneOf(name, expected) => {
                value(name).is_some_and(|v| expected.iter().any(|e| is(v.as_ref().trim(), e)))
            }
            When::Tokens(name, any, none) => value(name).is_some_and(|v| {
                let has = |list: &[&str]| {
                    v.as_ref()
                        .split_ascii_whitespace()
                        .any(|token| list.iter().any(|e| is(token, e)))
                };
                has(any) && !has(none)
            }),
        }
    }
}

/// What an empty value (`""`, nothing between the quotes) names, by what the
/// HTML standard does with the attribute. Whitespace is no empty value: the
/// standard strips none before it looks (`src=" "` is the document's URL,
/// and fetched), so such a value is resolved like any other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Empty {
    /// The document itself (`<a href="">`, `<form action="">`): resolved
    /// like any reference (RFC 1808 §4 step 2a: the whole base).
    #[default]
    Document,
    /// No resource: the standard fetches nothing for an empty value
    /// (`<img src="">`, `<iframe src="">` shows `about:blank`, `<link
    /// rel=stylesheet href="">`): left as it is, where the document's URL
    /// would have the page fetch itself as an image, a script or a frame.
    Nothing,
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
    pub element: Cow<'static, str>,
    pub attribute: Cow<'static, str>,
    pub kind: Kind,
    pub when: When,
    pub group: Group,
    /// What an empty value names (for `url` values: the other kinds hold no
    /// URL when empty).
    pub empty: Empty,
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

type Static = (&'static str, &'static str, Kind, When, Group, Empty);

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

use Empty::{Document as Doc, Nothing};
use Group::{Default as D, Lazy, Social};
use Kind::{Css, Html, List, Origin, Refresh, Srcset, Url};
use When::Always as A;

/// The `<link rel>` types that name an origin, not a resource: the
/// browser looks its name up, or opens a connection to it, and fetches
/// nothing (HTML's link types `dns-prefetch` and `preconnect`).
const ORIGIN_TYPES: &[&str] = &["preconnect", "dns-prefetch"];

/// The `<link rel>` types that use the whole URL: an external resource
/// fetched, or a hyperlink (the HTML standard's table of link types;
/// `apple-touch-icon` and `mask-icon`, which Safari fetches). One of them
/// beside an origin type makes the link a file's again (`rel="preconnect
/// stylesheet"`); any other token does nothing in a browser.
const URL_TYPES: &[&str] = &[
    "alternate",
    "canonical",
    "author",
    "expect",
    "help",
    "icon",
    "manifest",
    "modulepreload",
    "license",
    "next",
    "pingback",
    "prefetch",
    "preload",
    "prev",
    "privacy-policy",
    "search",
    "stylesheet",
    "terms-of-service",
    "apple-touch-icon",
    "apple-touch-icon-precomposed",
    "mask-icon",
];

/// The built-in rows. Elements of HTML, SVG and MathML alike: `*` rows apply
/// in every namespace.
pub const BUILT_IN: &[Static] = &[
    // An empty `<link href>` is no link at all, whatever its `rel`: an
    // external resource "If el's href attribute's value is the empty
    // string, then return", and a hyperlink (`rel=canonical`, `itemprop`)
    // "must be present and must contain a valid non-empty URL". Before the
    // row for every element. A `rel` of origins only: its URL's origin.
    (
        "link",
        "href",
        Origin,
        When::Tokens("rel", ORIGIN_TYPES, URL_TYPES),
        D,
        Nothing,
    ),
    ("link", "href", Url, A, D, Nothing),
    ("*", "href", Url, A, D, Doc),
    // Every element of HTML with a `src` fetches it, and nothing for an
    // empty one: `img` and `iframe` ("its value is not the empty string"),
    // `script`, media and `source` ("If src is the empty string"), `embed`,
    // `track`, `input type=image`, `frame`.
    ("*", "src", Url, A, D, Nothing),
    // SVG 1.1 and MathML links (`<use xlink:href>`, `<image xlink:href>`).
    ("*", "xlink:href", Url, A, D, Doc),
    ("*", "style", Css, A, D, Doc),
    ("*", "itemid", Url, A, D, Doc),
    ("*", "itemtype", List, A, D, Doc),
    ("form", "action", Url, A, D, Doc),
    ("button", "formaction", Url, A, D, Doc),
    ("input", "formaction", Url, A, D, Doc),
    // "If the poster attribute's value is the empty string ... there is no
    // poster frame".
    ("video", "poster", Url, A, D, Nothing),
    ("blockquote", "cite", Url, A, D, Doc),
    ("q", "cite", Url, A, D, Doc),
    ("del", "cite", Url, A, D, Doc),
    ("ins", "cite", Url, A, D, Doc),
    // "If the data attribute is present and its value is not the empty
    // string".
    ("object", "data", Url, A, D, Nothing),
    ("object", "codebase", Url, A, D, Doc),
    ("object", "classid", Url, A, D, Doc),
    // HTML 4: "a space-separated list of URIs ... relative to codebase".
    ("object", "archive", List, A, D, Doc),
    ("applet", "code", Url, A, D, Doc),
    ("applet", "codebase", Url, A, D, Doc),
    ("applet", "object", Url, A, D, Doc),
    ("applet", "archive", List, A, D, Doc),
    (
        "param",
        "value",
        Url,
        When::Equals("valuetype", "ref"),
        D,
        Doc,
    ),
    ("html", "manifest", Url, A, D, Doc),
    ("command", "icon", Url, A, D, Doc),
    ("menuitem", "icon", Url, A, D, Doc),
    ("img", "longdesc", Url, A, D, Doc),
    ("frame", "longdesc", Url, A, D, Doc),
    ("iframe", "longdesc", Url, A, D, Doc),
    ("img", "lowsrc", Url, A, D, Doc),
    ("img", "dynsrc", Url, A, D, Doc),
    // "a background attribute set to a non-empty value" (Rendering).
    ("body", "background", Url, A, D, Nothing),
    ("table", "background", Url, A, D, Nothing),
    ("thead", "background", Url, A, D, Nothing),
    ("tbody", "background", Url, A, D, Nothing),
    ("tfoot", "background", Url, A, D, Nothing),
    ("tr", "background", Url, A, D, Nothing),
    ("td", "background", Url, A, D, Nothing),
    ("th", "background", Url, A, D, Nothing),
    ("embed", "pluginspage", Url, A, D, Doc),
    ("a", "ping", List, A, D, Doc),
    ("area", "ping", List, A, D, Doc),
    ("head", "profile", List, A, D, Doc),
    ("img", "srcset", Srcset, A, D, Doc),
    ("source", "srcset", Srcset, A, D, Doc),
    ("link", "imagesrcset", Srcset, A, D, Doc),
    (
        "meta",
        "content",
        Refresh,
        When::Equals("http-equiv", "refresh"),
        D,
        Doc,
    ),
    ("iframe", "srcdoc", Html, A, D, Doc),
    // Lazy loading, as the common script libraries write it: each becomes a
    // `src` (or `srcset`) when the element is shown.
    ("*", "data-src", Url, A, Lazy, Nothing),
    ("*", "data-original", Url, A, Lazy, Nothing),
    ("*", "data-lazy-src", Url, A, Lazy, Nothing),
    ("*", "data-lazyload", Url, A, Lazy, Nothing),
    ("*", "data-hires", Url, A, Lazy, Nothing),
    ("*", "data-srcset", Srcset, A, Lazy, Doc),
    ("*", "data-lazy-srcset", Srcset, A, Lazy, Doc),
    (
        "meta",
        "content",
        Url,
        When::OneOf("property", SOCIAL_URLS),
        Social,
        Doc,
    ),
    (
        "meta",
        "content",
        Url,
        When::OneOf("name", SOCIAL_URLS),
        Social,
        Doc,
    ),
];

/// The rows of a run: the defaults, the opt-in groups asked for, and the
/// user's own; indexed by attribute. Cheap to clone: a nested document
/// (`<noscript>`, `srcdoc`) shares its page's rows.
#[derive(Debug, Clone)]
pub struct Table {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    rows: Vec<Row>,
    /// Rows by attribute name, as bytes: names come from the input's bytes.
    by_attribute: FxHashMap<Box<[u8]>, Vec<usize>>,
    /// Whether the texts of `<style>` and `<noscript>` are rewritten too.
    texts: bool,
    /// The lengths of the rows' attribute names, as bits (63: that or more).
    name_lengths: u64,
    /// The same, by the name's first byte, in either case.
    by_first: Box<[u64; 256]>,
    /// See [`Table::element_selector`].
    selector: Selector,
}

/// Up to this many selector entries, the table's own selector is cheaper
/// for lol_html than `*` and a handler on every element.
const MAX_ENTRIES: usize = 4;

/// Built once: a library user's `Config::default()` per page must not
/// build the table again, nor a run that asks for the default table as
/// it checks its flags and again as it starts.
static DEFAULT: OnceLock<Table> = OnceLock::new();

impl Default for Table {
    fn default() -> Self {
        Table::new(false, false, Vec::new())
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
            .filter(|r| attributes.contains(&&*r.attribute))
            .cloned()
            .collect();
        Table::from_rows(rows, false)
    }

    pub fn new(lazy: bool, social: bool, user: Vec<Row>) -> Self {
        if !lazy && !social && user.is_empty() {
            return DEFAULT
                .get_or_init(|| Table::built(false, false, Vec::new()))
                .clone();
        }
        Table::built(lazy, social, user)
    }

    fn built(lazy: bool, social: bool, user: Vec<Row>) -> Self {
        // A user's row comes first, so it wins over a built-in one for the
        // same element and attribute.
        let mut rows: Vec<Row> = Vec::with_capacity(user.len() + BUILT_IN.len());
        rows.extend(user);
        rows.extend(
            BUILT_IN
                .iter()
                .filter(|(.., group, _)| match group {
                    Group::Default | Group::User => true,
                    Group::Lazy => lazy,
                    Group::Social => social,
                })
                .map(|&(element, attribute, kind, when, group, empty)| Row {
                    element: Cow::Borrowed(element),
                    attribute: Cow::Borrowed(attribute),
                    kind,
                    when,
                    group,
                    empty,
                }),
        );
        Table::from_rows(rows, true)
    }

    fn from_rows(rows: Vec<Row>, texts: bool) -> Self {
        let mut by_attribute: FxHashMap<Box<[u8]>, Vec<usize>> =
            FxHashMap::with_capacity_and_hasher(rows.len(), Default::default());
        for (i, row) in rows.iter().enumerate() {
            by_attribute
                .entry(row.attribute.as_bytes().into())
                .or_default()
                .push(i);
        }
        // Past MAX_ENTRIES the entries are not needed, only that there are
        // more: they are not all made.
        let mut entries = entries_of(&rows, MAX_ENTRIES + 1);
        if texts {
            entries.extend(["style".to_owned(), "noscript".to_owned()]);
        }
        let selector = match entries.len() {
            1..=MAX_ENTRIES => entries.join(","),
            _ => "*".to_owned(),
        };
        let selector = selector
            .parse()
            .expect("names are escaped, so the selector parses");
        let mut name_lengths = 0;
        let mut by_first = Box::new([0u64; 256]);
        for name in rows.iter().map(|r| r.attribute.as_bytes()) {
            let bit = 1 << name.len().min(63);
            name_lengths |= bit;
            if let Some(&b) = name.first() {
                by_first[usize::from(b.to_ascii_lowercase())] |= bit;
                by_first[usize::from(b.to_ascii_uppercase())] |= bit;
            }
        }
        Table {
            inner: Arc::new(Inner {
                rows,
                by_attribute,
                texts,
                name_lengths,
                by_first,
                selector,
            }),
        }
    }

    pub fn rows(&self) -> &[Row] {
        &self.inner.rows
    }

    /// The rewriter's selector: the table's own entries (`[href],[src]`)
    /// when it has few, else `*`, every element, and the handler looks each
    /// attribute up by its name. lol_html tries every entry against every
    /// start tag, so that one entry per row (`a[ping]`, `td[background]`:
    /// 50 for the default table) costs it more than the rest of the rewrite.
    /// On the corpus (callgrind, instructions): lol_html with no handler
    /// 165M; with an empty handler, on `*` 517M, on `[href],[src]` 563M, on
    /// the default table's entries 954M. htmlabs with the default table:
    /// 933M on `*`, 1,445M on its entries (each `<noscript>` compiles them
    /// again); with `href` and `src` only: 790M on its two entries, 824M on
    /// `*`. On `*`, lol_html reads the attributes of every start tag for the
    /// handler, as the entry `[href]` made it do: what counts against its
    /// memory limit is as before.
    pub fn element_selector(&self) -> &Selector {
        &self.inner.selector
    }

    /// Whether the texts of `<style>` and `<noscript>` are rewritten.
    pub fn texts(&self) -> bool {
        self.inner.texts
    }

    /// Whether a row may have an attribute of this length that starts with
    /// this byte (as written, in any case; `None`: unknown): the many names
    /// for which it cannot are not looked up, nor read.
    pub fn may_have(&self, first: Option<u8>, len: usize) -> bool {
        let bit = 1 << len.min(63);
        match first {
            Some(b) => self.inner.by_first[usize::from(b)] & bit != 0,
            None => self.inner.name_lengths & bit != 0,
        }
    }

    /// The row for `attribute` on `element` (both lowercase): the first
    /// whose condition `holds` on the element.
    pub fn find(
        &self,
        element: impl AsRef<[u8]>,
        attribute: impl AsRef<[u8]>,
        holds: impl Fn(When) -> bool,
    ) -> Option<&Row> {
        self.find_at(element.as_ref(), attribute.as_ref(), holds)
            .map(|(_, row)| row)
    }

    /// [`Table::find`], with the row's place in [`Table::rows`].
    pub(crate) fn find_at(
        &self,
        element: &[u8],
        attribute: &[u8],
        holds: impl Fn(When) -> bool,
    ) -> Option<(usize, &Row)> {
        self.inner
            .by_attribute
            .get(attribute)?
            .iter()
            .map(|&i| (i, &self.inner.rows[i]))
            .find(|(_, r)| (r.element == "*" || r.element.as_bytes() == element) && holds(r.when))
    }
}

/// The selector's entries, in the order of the rows: `[attribute]` for a
/// row on every element, `element[attribute]` for the others, each once,
/// and none for an element whose attribute `[attribute]` matches anyway;
/// the first `most` of them.
fn entries_of(rows: &[Row], most: usize) -> Vec<String> {
    let everywhere = |name: &str| rows.iter().any(|r| r.element == "*" && r.attribute == name);
    let mut entries: Vec<String> = Vec::new();
    for row in rows {
        if entries.len() == most {
            break;
        }
        // Anything but letters, digits, `-` and `_` is escaped in a CSS name
        // (`xlink\:href`), so that every name the table holds parses.
        let attribute: String = row
            .attribute
            .chars()
            .flat_map(|c| {
                let escape = !(c.is_ascii_alphanumeric() || c == '-' || c == '_');
                escape.then_some('\\').into_iter().chain([c])
            })
            .collect();
        let entry = if everywhere(&row.attribute) {
            format!("[{attribute}]")
        } else {
            format!("{}[{attribute}]", row.element)
        };
        if !entries.contains(&entry) {
            entries.push(entry);
        }
    }
    entries
}

impl Row {
    /// A user's row, `ELEMENT:ATTRIBUTE[:KIND]` as `--attr` takes it, `*`
    /// for every element; the error is a one-line message.
    pub fn user(spec: &str) -> Result<Row, String> {
        parse_user_row(spec)
    }
}

/// `--attr ELEMENT:ATTRIBUTE[:KIND]`, `*` for every element.
fn parse_user_row(spec: &str) -> Result<Row, String> {
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
        element: Cow::Owned(element.to_ascii_lowercase()),
        attribute: Cow::Owned(attribute.to_ascii_lowercase()),
        kind,
        when: When::Always,
        group: Group::User,
        empty: Empty::Document,
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
        // Names with `.` and `:` make a selector that parses, and are
        // found by their name.
        let row = parse_user_row("img:data.hi-res:x").unwrap();
        let entries = entries_of(std::slice::from_ref(&row), usize::MAX);
        assert_eq!(entries, ["img[data\\.hi-res\\:x]"]);
        assert!(entries[0].parse::<Selector>().is_ok());
        let table = Table::new(false, false, vec![row]);
        assert!(table.find("img", "data.hi-res:x", |_| true).is_some());
        assert!(table.may_have(Some(b'D'), "data.hi-res:x".len()));
    }

    #[test]
    fn selector_entries_name_each_element_and_attribute_once() {
        let entries = entries_of(Table::default().rows(), usize::MAX);
        assert_eq!(entries.len(), 48);
        assert!(
            entries
                .starts_with(&["[href]", "[src]", "[xlink\\:href]", "[style]"].map(String::from))
        );
        assert!(entries.contains(&"td[background]".to_owned()));
        // An element's entry is left out where `[attribute]` matches all it
        // would.
        let user = ["img:src", "div:data-src", "li:value"].map(|r| parse_user_row(r).unwrap());
        let entries = entries_of(&user, usize::MAX);
        assert_eq!(entries, ["img[src]", "div[data-src]", "li[value]"]);
        assert_eq!(entries_of(&user, 2), ["img[src]", "div[data-src]"]);
        let mut rows = user.to_vec();
        rows.push(parse_user_row("*:src").unwrap());
        assert_eq!(
            entries_of(&rows, usize::MAX),
            ["[src]", "div[data-src]", "li[value]"]
        );
    }

    #[test]
    fn opt_in_groups_only_when_asked() {
        let has = |t: &Table, a: &str| t.rows().iter().any(|r| r.attribute == a);
        assert!(!has(&Table::default(), "data-src"));
        assert!(has(&Table::new(true, false, vec![]), "data-src"));
        let social = Table::new(false, true, vec![]);
        let only = Table::only(&["href", "src"]);
        assert!(
            only.rows()
                .iter()
                .all(|r| ["href", "src"].contains(&&*r.attribute))
        );
        assert!(only.may_have(Some(b'S'), 3) && only.may_have(Some(b'h'), 4));
        assert!(!only.may_have(Some(b'h'), 3) && !only.may_have(Some(b'c'), 5));
        assert!(only.may_have(None, 3) && !only.may_have(None, 5));
        assert!(!Table::only(&["href", "src"]).texts() && Table::default().texts());
        let og = |w| w == When::Always || matches!(w, When::OneOf("property", _));
        assert_eq!(
            social.find("meta", "content", og).map(|r| r.group),
            Some(Group::Social)
        );
        assert_eq!(Table::default().find("meta", "content", og), None);
    }
}
