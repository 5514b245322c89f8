//! The syntaxes that hold URLs inside one value: CSS (`url()`,
//! `image-set()`, `@import`), `srcset`, a meta refresh's `content`,
//! whitespace-separated lists, and an `<?xml-stylesheet?>`'s `href`. Each finds its URLs in a text and escapes a
//! new URL for where it stands; they know URLs, not documents.

use std::borrow::Cow;
use std::ops::Range;

pub mod css;
pub mod refresh;
pub mod srcset;
pub mod xml_stylesheet;

/// How a URL is escaped for the syntax around it, before HTML's escaping.
#[derive(Debug, Clone, Copy)]
pub enum Syntax {
    Plain,
    /// In a whitespace-separated list: whitespace would split the URL.
    List,
    Srcset,
    Refresh(Option<char>),
    Css(css::Context),
}

impl Syntax {
    /// `url` escaped, or `None` when it needs no escaping.
    // Inlined into each URL's edit, where `Plain` (most) costs nothing:
    // called apart, about 24 instructions a URL (callgrind).
    #[inline(always)]
    pub fn escape(self, url: &str) -> Option<String> {
        let escaped = match self {
            Syntax::Plain => return None,
            Syntax::List => percent_encode(url, |_, b| b.is_ascii_whitespace()),
            Syntax::Srcset => srcset::escape(url),
            Syntax::Refresh(quote) => refresh::escape(url, quote),
            Syntax::Css(context) => css::escape(url, context),
        };
        match escaped {
            Cow::Owned(escaped) => Some(escaped),
            Cow::Borrowed(_) => None,
        }
    }
}

/// HTML's ASCII whitespace: space, tab, LF, FF, CR.
pub fn is_html_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\x0C' | '\r')
}

/// The ranges of the ASCII-whitespace-separated tokens of a list (`ping`,
/// `archive`).
pub fn tokens(text: &str) -> impl Iterator<Item = Range<usize>> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        let rest = &text[at..];
        let start = at + rest.len() - rest.trim_start_matches(is_html_whitespace).len();
        let len = text[start..]
            .find(is_html_whitespace)
            .unwrap_or(text.len() - start);
        at = start + len;
        (len > 0).then_some(start..start + len)
    })
}

/// `url` with the ASCII bytes that `escape` picks (by their offset and
/// value) percent-encoded: what keeps a URL whole in a syntax that splits on
/// them (whitespace in lists and srcset, an edge comma in srcset).
pub fn percent_encode(url: &str, escape: impl Fn(usize, u8) -> bool) -> Cow<'_, str> {
    if !url.bytes().enumerate().any(|(i, b)| escape(i, b)) {
        return Cow::Borrowed(url);
    }
    let mut out = String::with_capacity(url.len() + 6);
    for (i, c) in url.char_indices() {
        match u8::try_from(c) {
            Ok(b) if b.is_ascii() && escape(i, b) => out.push_str(&format!("%{b:02X}")),
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_split_on_ascii_whitespace() {
        let text = "  a.jar\tb.jar\n c.jar ";
        let found: Vec<&str> = tokens(text).map(|r| &text[r]).collect();
        assert_eq!(found, ["a.jar", "b.jar", "c.jar"]);
        assert_eq!(tokens("   ").count(), 0);
        assert_eq!(tokens("").count(), 0);
    }
}
