//! The opt-in second standard: reference resolution by RFC 3986 §5.2
//! (`shared/spec/rfc3986-section5.txt`), which is what browsers and most
//! current libraries do for the cases where RFC 1808 parts ways with them:
//! `..` above the root is dropped, dot segments are removed from absolute
//! paths too, `;` is part of the path, and a query or fragment is undefined
//! only when its delimiter is missing.
//!
//! ```
//! use htmlabs::rfc3986::resolve;
//! assert_eq!(resolve("http://a/b/c/d;p?q", "../../../g"), "http://a/g");
//! assert_eq!(resolve("http://a/b/c/d;p?q", ";x"), "http://a/b/c/;x");
//! ```
//!
//! Decided here: the parser is the strict one (§5.2.2: `http:g` stays
//! `http:g`), and a scheme is what §3.1's grammar allows, `ALPHA *( ALPHA /
//! DIGIT / "+" / "-" / "." )`, followed by `:`; anything else before a colon
//! (`1a:b`, `a_b:c`) leaves the reference without a scheme, parsed by
//! Appendix B's expression.

use std::borrow::Cow;
use std::fmt;

/// The five components of RFC 3986 §3; `None` is "undefined" (§5.2.1: "A
/// component is undefined if its associated delimiter does not appear in the
/// URI reference; the path component is never undefined").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Components<'a> {
    pub scheme: Option<&'a str>,
    pub authority: Option<&'a str>,
    pub path: &'a str,
    pub query: Option<&'a str>,
    pub fragment: Option<&'a str>,
}

/// §3.1's scheme, at the start of `s`: its length, without the colon.
pub fn scheme_len(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    if !bytes.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = bytes
        .iter()
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')))?;
    (bytes[end] == b':').then_some(end)
}

/// Appendix B: `^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?`,
/// with the scheme group narrowed to §3.1's grammar.
pub fn parse(s: &str) -> Components<'_> {
    let mut rest = s;
    let scheme = scheme_len(rest).map(|end| {
        let scheme = &rest[..end];
        rest = &rest[end + 1..];
        scheme
    });
    let authority = rest.strip_prefix("//").map(|after| {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        rest = &after[end..];
        &after[..end]
    });
    let path_end = rest.find(['?', '#']).unwrap_or(rest.len());
    let path = &rest[..path_end];
    rest = &rest[path_end..];
    let (query, fragment) = match rest.find('#') {
        Some(hash) => (&rest[..hash], Some(&rest[hash + 1..])),
        None => (rest, None),
    };
    Components {
        scheme,
        authority,
        path,
        query: query.strip_prefix('?'),
        fragment,
    }
}

/// §5.3 Component Recomposition.
impl fmt::Display for Components<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // "if defined(scheme) then append scheme and ":" to result;"
        if let Some(scheme) = self.scheme {
            write!(f, "{scheme}:")?;
        }
        // "if defined(authority) then append "//" and authority to result;"
        if let Some(authority) = self.authority {
            write!(f, "//{authority}")?;
        }
        // "append path to result;"
        f.write_str(self.path)?;
        // "if defined(query) then append "?" and query to result;"
        if let Some(query) = self.query {
            write!(f, "?{query}")?;
        }
        // "if defined(fragment) then append "#" and fragment to result;"
        if let Some(fragment) = self.fragment {
            write!(f, "#{fragment}")?;
        }
        Ok(())
    }
}

/// §5.2.2 Transform References, strict, then §5.3 Component Recomposition.
/// A base that has no scheme is used as it is (§5.2.1 requires one; the
/// callers check).
pub fn resolve(base: &str, reference: &str) -> String {
    transform(base, reference).components().to_string()
}

/// §5.2.2 Transform References, strict: the target's components, which read
/// back as themselves. Decided here: a path that starts with `//` in a target
/// without an authority is written with `/.` in front (see
/// `url::unambiguous_path`), where §5.3 would write one that reads back with an
/// authority.
pub fn transform<'a>(base: &'a str, reference: &'a str) -> Target<'a> {
    let base = parse(base);
    let r = parse(reference);
    let (t, path) = if r.scheme.is_some() {
        // "if defined(R.scheme) then T.scheme = R.scheme; T.authority =
        // R.authority; T.path = remove_dot_segments(R.path); T.query = R.query;"
        (r, Cow::Owned(remove_dot_segments(r.path)))
    } else if r.authority.is_some() {
        // "if defined(R.authority) then T.authority = R.authority; T.path =
        // remove_dot_segments(R.path); T.query = R.query;" ... "T.scheme =
        // Base.scheme;"
        let t = Components {
            scheme: base.scheme,
            ..r
        };
        (t, Cow::Owned(remove_dot_segments(r.path)))
    } else if r.path.is_empty() {
        // "if (R.path == "") then T.path = Base.path; if defined(R.query) then
        // T.query = R.query; else T.query = Base.query;"
        let t = Components {
            scheme: base.scheme,
            authority: base.authority,
            path: base.path,
            query: r.query.or(base.query),
            fragment: r.fragment,
        };
        (t, Cow::Borrowed(base.path))
    } else {
        // "if (R.path starts-with "/") then T.path = remove_dot_segments(R.path);
        // else T.path = merge(Base.path, R.path); T.path =
        // remove_dot_segments(T.path);" ... "T.query = R.query;"
        let path = if r.path.starts_with('/') {
            remove_dot_segments(r.path)
        } else {
            remove_dot_segments(&merge(&base, r.path))
        };
        let t = Components {
            scheme: base.scheme,
            authority: base.authority,
            ..r
        };
        (t, Cow::Owned(path))
    };
    // "T.fragment = R.fragment;" is in each arm above.
    Target {
        path: unambiguous_path(t.authority.is_some(), path),
        parts: t,
    }
}

/// The target of [`transform`]: its components.
#[derive(Debug, Clone)]
pub struct Target<'a> {
    /// All but the path.
    parts: Components<'a>,
    path: Cow<'a, str>,
}

impl Target<'_> {
    pub fn components(&self) -> Components<'_> {
        Components {
            path: &self.path,
            ..self.parts
        }
    }
}

/// §5.2.3 Merge Paths.
fn merge(base: &Components<'_>, reference_path: &str) -> String {
    // "If the base URI has a defined authority component and an empty path,
    // then return a string consisting of "/" concatenated with the
    // reference's path; otherwise, return a string consisting of the
    // reference's path component appended to all but the last segment of the
    // base URI's path"
    let directory = if base.authority.is_some() && base.path.is_empty() {
        "/"
    } else {
        base.path.rfind('/').map_or("", |i| &base.path[..=i])
    };
    [directory, reference_path].concat()
}

/// §5.2.4 Remove Dot Segments, step by step, with the input buffer kept as a
/// slice (plus the "/" that rules B and C put back in front of it) so that
/// every step is constant time but for rule C's search of the output's last
/// segment, which that rule then removes: linear overall.
pub fn remove_dot_segments(path: &str) -> String {
    // "1. The input buffer is initialized with the now-appended path components
    // and the output buffer is initialized to the empty string."
    let mut output = String::with_capacity(path.len());
    let (mut slash, mut input) = match path.strip_prefix('/') {
        Some(rest) => (true, rest),
        None => (false, path),
    };

    // "2. While the input buffer is not empty, loop as follows:"
    while slash || !input.is_empty() {
        if !slash && (input.starts_with("../") || input.starts_with("./")) {
            // "A. If the input buffer begins with a prefix of "../" or "./",
            // then remove that prefix from the input buffer; otherwise,"
            input = &input[input.find('/').map_or(input.len(), |i| i + 1)..];
        } else if slash && (input.starts_with("./") || input == ".") {
            // "B. if the input buffer begins with a prefix of "/./" or "/.",
            // where "." is a complete path segment, then replace that prefix
            // with "/" in the input buffer; otherwise,"
            input = &input[1..];
            input = input.strip_prefix('/').unwrap_or(input);
        } else if slash && (input.starts_with("../") || input == "..") {
            // "C. if the input buffer begins with a prefix of "/../" or "/..",
            // where ".." is a complete path segment, then replace that prefix
            // with "/" in the input buffer and remove the last segment and its
            // preceding "/" (if any) from the output buffer; otherwise,"
            input = &input[2..];
            input = input.strip_prefix('/').unwrap_or(input);
            output.truncate(output.rfind('/').unwrap_or(0));
        } else if !slash && (input == "." || input == "..") {
            // "D. if the input buffer consists only of "." or "..", then remove
            // that from the input buffer; otherwise,"
            input = "";
        } else {
            // "E. move the first path segment in the input buffer to the end of
            // the output buffer, including the initial "/" character (if any)
            // and any subsequent characters up to, but not including, the next
            // "/" character or the end of the input buffer."
            if slash {
                output.push('/');
            }
            let end = input.find('/').unwrap_or(input.len());
            output.push_str(&input[..end]);
            slash = end < input.len();
            input = &input[(end + 1).min(input.len())..];
        }
    }

    // "3. Finally, the output buffer is returned as the result of
    // remove_dot_segments."
    output
}

/// The path a resolved URL is written with: a path that starts with `//`
/// cannot be written in a URL without an authority, where it would read
/// back as one (§3.3: "the path cannot begin with two slash characters");
/// remove_dot_segments makes such a path from a base that has none
/// (`foo:/a/b` + `..//g`). It is written with `/.` in front, as the URL
/// Standard writes it (`foo:/.//g`): the same path once dot segments are
/// removed (§6.2.2.3), and the URL a browser makes of the reference. (RFC
/// 1808 removes no dot segment from an absolute path, and writes an empty
/// net_loc instead: `rfc1808` module docs.)
fn unambiguous_path(has_authority: bool, path: Cow<'_, str>) -> Cow<'_, str> {
    if has_authority || !path.starts_with("//") {
        return path;
    }
    Cow::Owned(format!("/.{path}"))
}

/// `path` as a browser sends it: each byte the URL Standard's path
/// percent-encode set holds (controls, space, `"`, `<`, `>`, `` ` ``, `{`,
/// `}`, and every byte past ASCII) as `%` and two hex digits (§2.1), the
/// others (`%` among them) as they are. Hosts match their redirect rules
/// against it, as they get it.
pub(crate) fn percent_encoded_path(path: &str) -> Cow<'_, str> {
    let escaped = |b: u8| matches!(b, 0..=0x20 | b'"' | b'<' | b'>' | b'`' | b'{' | b'}' | 0x7f..);
    if !path.bytes().any(escaped) {
        return Cow::Borrowed(path);
    }
    let mut out = String::with_capacity(path.len() + 8);
    for b in path.bytes() {
        match escaped(b) {
            true => out.push_str(&format!("%{b:02X}")),
            false => out.push(char::from(b)),
        }
    }
    Cow::Owned(out)
}

/// The length of `query` as a browser sends it in an `http:` or `https:`
/// URL, beside [`percent_encoded_path`]: each byte the URL Standard's
/// special-query percent-encode set holds (controls, space, `"`, `#`, `<`,
/// `>`, `'`, and every byte past ASCII) three bytes for one.
pub(crate) fn percent_encoded_query_len(query: &str) -> usize {
    let escaped =
        |b: &u8| !(0x21..0x7f).contains(b) || matches!(b, b'"' | b'#' | b'<' | b'>' | b'\'');
    query.len() + 2 * query.bytes().filter(escaped).count()
}

/// `text` with each `%` and two hex digits the byte they name (§2.1); a
/// `%` without them stays.
pub(crate) fn percent_decoded(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(b)) if hex.is_some_and(|h| h.bytes().all(|c| c.is_ascii_hexdigit())) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remove_dot_segments_examples_of_section_5_2_4() {
        // The two worked examples that follow §5.2.4 in the full RFC.
        assert_eq!(remove_dot_segments("/a/b/c/./../../g"), "/a/g");
        assert_eq!(remove_dot_segments("mid/content=5/../6"), "mid/6");
    }

    #[test]
    fn remove_dot_segments_edges() {
        assert_eq!(remove_dot_segments(""), "");
        assert_eq!(remove_dot_segments("/"), "/");
        assert_eq!(remove_dot_segments("/."), "/");
        assert_eq!(remove_dot_segments("/.."), "/");
        assert_eq!(remove_dot_segments("/a/.."), "/");
        assert_eq!(remove_dot_segments("/a/b/.."), "/a/");
        assert_eq!(remove_dot_segments("."), "");
        assert_eq!(remove_dot_segments("../a"), "a");
        // Rule C removes "the last segment and its preceding "/" (if any)", and
        // the next segment is then moved with its slash.
        assert_eq!(remove_dot_segments("a/../b"), "/b");
        assert_eq!(remove_dot_segments("/a//../b"), "/a/b");
        assert_eq!(remove_dot_segments("/.a/..b/"), "/.a/..b/");
    }

    #[test]
    fn parse_is_appendix_b() {
        let c = parse("http://a/b/c/d;p?q#f");
        assert_eq!(
            (c.scheme, c.authority, c.path, c.query, c.fragment),
            (Some("http"), Some("a"), "/b/c/d;p", Some("q"), Some("f"))
        );
        let c = parse("//a?q#f");
        assert_eq!((c.authority, c.path), (Some("a"), ""));
        assert_eq!(parse("1a:b").scheme, None);
        for s in ["", "#", "?", "//", "a:", "http://a?q", "g;x?y#s", "1a:b"] {
            assert_eq!(parse(s).to_string(), s);
        }
    }
}
