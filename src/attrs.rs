//! The table of what is rewritten: (element, attribute, kind). Data, not
//! code: the rewriter's selector and its per-attribute decisions both come
//! from here, and the README lists the same rows.

/// How an attribute's value holds URLs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The whole value is one URL.
    Url,
}

/// One row: `element` is a lowercase tag name, or `*` for every element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub element: &'static str,
    pub attribute: &'static str,
    pub kind: Kind,
}

const fn row(element: &'static str, attribute: &'static str, kind: Kind) -> Row {
    Row {
        element,
        attribute,
        kind,
    }
}

pub const TABLE: &[Row] = &[
    row("*", "href", Kind::Url),
    row("*", "src", Kind::Url),
    // SVG 1.1's link attribute (`<use xlink:href>`, `<image xlink:href>`).
    row("*", "xlink:href", Kind::Url),
];

/// The row for `attribute` on `element` (both lowercase), if it is rewritten.
pub fn lookup(element: &str, attribute: &str) -> Option<&'static Row> {
    TABLE
        .iter()
        .find(|r| r.attribute == attribute && (r.element == "*" || r.element == element))
}

/// A CSS selector matching every element that has an attribute of the table,
/// so that lol_html calls the handler for those elements only.
pub fn selector() -> String {
    let mut selectors: Vec<String> = TABLE
        .iter()
        .map(|r| {
            // `:` must be escaped in a CSS attribute name.
            let attribute = r.attribute.replace(':', "\\:");
            match r.element {
                "*" => format!("[{attribute}]"),
                element => format!("{element}[{attribute}]"),
            }
        })
        .collect();
    selectors.dedup();
    selectors.join(",")
}
