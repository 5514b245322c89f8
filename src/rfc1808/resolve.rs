//! RFC 1808 §4, "Resolving Relative URLs", steps 1 to 7.

use std::borrow::Cow;

use super::parse::{Components, parse};

/// Resolves `embedded` against `base` by RFC 1808 §4.
///
/// Borrows when the answer is the embedded URL unchanged (an empty base, an
/// absolute reference), so the common cases allocate nothing.
pub fn resolve<'a>(base: &'a str, embedded: &'a str) -> Cow<'a, str> {
    ParsedBase::new(base).resolve(embedded)
}

/// A base URL parsed once, for the many embedded URLs of a document that
/// resolve against it.
#[derive(Debug, Clone, Copy)]
pub struct ParsedBase<'a> {
    /// `None` for the empty string (unknown).
    components: Option<Components<'a>>,
}

impl<'a> ParsedBase<'a> {
    pub fn new(base: &'a str) -> Self {
        if base.is_empty() {
            return ParsedBase { components: None };
        }
        // Step 2, for the base: "Both the base and embedded URLs are parsed
        // into their component parts as described in Section 2.4."
        let mut components = parse(base);
        // Decided here (see the module docs): a base with a net_loc and an
        // empty path has the path "/" (the BNF's `net_path = "//" net_loc [
        // abs_path ]`), so that `https://example.com` + `g` is
        // `https://example.com/g`, not `https://example.comg`'s relative `g`
        // glued onto the host.
        if components.net_loc.is_some() && components.path.is_empty() {
            components.path = "/";
        }
        ParsedBase {
            components: Some(components),
        }
    }

    /// Resolves `embedded` against this base by RFC 1808 §4.
    pub fn resolve<'e>(&self, embedded: &'e str) -> Cow<'e, str> {
        // Step 1: "If the base URL is the empty string (unknown), the embedded
        // URL is interpreted as an absolute URL and we are done."
        let Some(base) = self.components else {
            return Cow::Borrowed(embedded);
        };

        // Step 2, for the embedded URL.
        let mut url = parse(embedded);

        //   a) "If the embedded URL is entirely empty, it inherits the entire
        //   base URL (i.e., is set equal to the base URL) and we are done."
        //   Entirely empty means zero-length: `#` is not empty.
        if embedded.is_empty() {
            return Cow::Owned(base.recombine());
        }

        //   b) "If the embedded URL starts with a scheme name, it is
        //   interpreted as an absolute URL and we are done."
        if url.scheme.is_some() {
            return Cow::Borrowed(embedded);
        }

        //   c) "Otherwise, the embedded URL inherits the scheme of the base
        //   URL."
        url.scheme = base.scheme;

        // Step 3: "If the embedded URL's <net_loc> is non-empty, we skip to
        // Step 7. Otherwise, the embedded URL inherits the <net_loc> (if any)
        // of the base URL."
        if is_empty(url.net_loc) {
            url.net_loc = inherit(url.net_loc, base.net_loc);

            // Step 4: "If the embedded URL path is preceded by a slash "/",
            // the path is not relative and we skip to Step 7."
            if !url.path.starts_with('/') {
                if url.path.is_empty() {
                    // Step 5: "If the embedded URL path is empty (and not
                    // preceded by a slash), then the embedded URL inherits the
                    // base URL path, and
                    url.path = base.path;
                    //   a) if the embedded URL's <params> is non-empty, we
                    //   skip to step 7; otherwise, it inherits the <params> of
                    //   the base URL (if any) and
                    if is_empty(url.params) {
                        url.params = inherit(url.params, base.params);
                        //   b) if the embedded URL's <query> is non-empty, we
                        //   skip to step 7; otherwise, it inherits the <query>
                        //   of the base URL (if any) and we skip to step 7."
                        if is_empty(url.query) {
                            url.query = inherit(url.query, base.query);
                        }
                    }
                } else {
                    // Step 6 builds a new path, which needs an owner.
                    let path = merge_paths(base.path, url.path);
                    return Cow::Owned(Components { path: &path, ..url }.recombine());
                }
            }
        }

        // Step 7: "The resulting URL components, including any inherited from
        // the base URL, are recombined to give the absolute form of the
        // embedded URL."
        Cow::Owned(url.recombine())
    }
}

/// §2.4: a component is "empty" both when its delimiter is absent and when
/// nothing follows it.
fn is_empty(component: Option<&str>) -> bool {
    component.is_none_or(str::is_empty)
}

/// Inheritance for an empty component: the base's, with the delimiter as the
/// base wrote it (`http://a/b?` + `#s` → `http://a/b?#s`); when the base has
/// none, the reference keeps its own delimiter (`g?` → `http://a/b/c/g?`).
fn inherit<'a>(embedded: Option<&'a str>, base: Option<&'a str>) -> Option<&'a str> {
    base.or(embedded)
}

/// Step 6: "The last segment of the base URL's path (anything following the
/// rightmost slash "/", or the entire path if no slash is present) is removed
/// and the embedded URL's path is appended in its place. The following
/// operations are then applied, in order, to the new path: ..."
///
/// The four string rewrites (a to d) are done in one left-to-right pass over a
/// stack of segments, as the RFC itself suggests ("some systems may find it
/// more efficient to implement Step 6 as a pair of segment stacks being
/// merged"): linear in the length of the path.
fn merge_paths(base_path: &str, embedded_path: &str) -> String {
    let directory = base_path.rfind('/').map_or("", |i| &base_path[..=i]);
    // The leading slash is not a segment separator: "the initial slash is not
    // part of the URL path" (§2.4.6). `/..` at the root therefore stays
    // (`../../../g` → `http://a/../g`): no segment precedes it.
    let (root, directory) = match directory.strip_prefix('/') {
        Some(rest) => ("/", rest),
        None => ("", directory),
    };

    let segments = directory
        .split_terminator('/')
        .chain(embedded_path.split('/'));
    let count = directory.split_terminator('/').count() + embedded_path.split('/').count();

    let mut stack: Vec<&str> = Vec::with_capacity(count);
    for (i, segment) in segments.enumerate() {
        let last = i + 1 == count;
        match (segment, last) {
            //   a) "All occurrences of "./", where "." is a complete path
            //   segment, are removed."
            (".", false) => {}
            //   b) "If the path ends with "." as a complete path segment, that
            //   "." is removed." What stays is the slash before it.
            (".", true) => stack.push(""),
            //   c) "All occurrences of "<segment>/../", where <segment> is a
            //   complete path segment not equal to "..", are removed. Removal
            //   of these path segments is performed iteratively, removing the
            //   leftmost matching pattern on each iteration, until no matching
            //   pattern remains." A `..` cancels the nearest segment kept
            //   before it, which is what the leftmost-first iteration reaches.
            ("..", false) if stack.last().is_some_and(|s| *s != "..") => {
                stack.pop();
            }
            //   d) "If the path ends with "<segment>/..", where <segment> is a
            //   complete path segment not equal to "..", that "<segment>/.."
            //   is removed." The slash before <segment> stays.
            ("..", true) if stack.last().is_some_and(|s| *s != "..") => {
                stack.pop();
                stack.push("");
            }
            // Any other segment, and a `..` with nothing to cancel, stays.
            _ => stack.push(segment),
        }
    }

    let mut path = String::with_capacity(root.len() + directory.len() + embedded_path.len());
    path.push_str(root);
    for (i, segment) in stack.iter().enumerate() {
        if i > 0 {
            path.push('/');
        }
        path.push_str(segment);
    }
    path
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn step_6_on_paths_without_a_leading_slash() {
        assert_eq!(merge_paths("a/b", "../../g"), "../g");
        assert_eq!(merge_paths("", "./g"), "g");
        assert_eq!(merge_paths("", "."), "");
        assert_eq!(merge_paths("d", ".."), "..");
    }

    #[test]
    fn step_6_keeps_empty_segments_as_segments() {
        // `<segment>` is `*pchar`, so an empty segment is one, and `..` cancels it.
        assert_eq!(merge_paths("/x", "a//../c"), "/a/c");
        assert_eq!(merge_paths("/x", "a//.."), "/a/");
        assert_eq!(merge_paths("/x", "a//b/../c"), "/a//c");
    }

    #[test]
    fn step_6_on_a_reference_of_100_000_segments() {
        // Quadratic rewriting would take minutes here; the stack takes one pass.
        let reference = "../".repeat(100_000) + "g";
        let expected = format!("/{}g", "../".repeat(99_998));
        assert_eq!(merge_paths("/b/c/d", &reference), expected);
    }

    #[test]
    fn borrowed_when_nothing_is_resolved() {
        assert!(matches!(resolve("", "g"), Cow::Borrowed("g")));
        assert!(matches!(resolve("http://a/", "https:x"), Cow::Borrowed(_)));
    }
}
