//! RFC 1808 §4, "Resolving Relative URLs", steps 1 to 7.

use std::borrow::Cow;

use memchr::memchr;

use super::parse::{Components, is_scheme_char, parse};

/// Resolves `embedded` against `base` by RFC 1808 §4.
///
/// Borrows when the answer is the embedded URL unchanged (an empty base, an
/// absolute reference), so the common cases allocate nothing.
pub fn resolve<'a>(base: &str, embedded: &'a str) -> Cow<'a, str> {
    ParsedBase::new(base).resolve(embedded)
}

/// A base URL parsed once, for the many embedded URLs of a document that
/// resolve against it. It owns its parts, so that a rewriter can keep it for
/// the whole document.
#[derive(Debug, Clone, Default)]
pub struct ParsedBase {
    /// `None` for the empty string (unknown).
    parts: Option<Parts>,
}

#[derive(Debug, Clone)]
struct Parts {
    scheme: Option<String>,
    net_loc: Option<String>,
    path: String,
    params: Option<String>,
    query: Option<String>,
    fragment: Option<String>,
    /// `scheme:` and `//net_loc` as the base wrote them: how every reference
    /// that reaches step 6 starts.
    prefix: String,
    /// Step 6 up to the reference, done once: the root slash, then the
    /// segments of the base path's directory that its operations keep, each
    /// followed by `/`.
    directory: String,
    /// 1 when `directory` starts with the root slash, which is no segment.
    root: usize,
    /// `prefix` then `directory`: what step 6 puts before a relative path
    /// that has no dot segment.
    front: String,
}

impl Parts {
    fn components(&self) -> Components<'_> {
        Components {
            scheme: self.scheme.as_deref(),
            net_loc: self.net_loc.as_deref(),
            path: &self.path,
            params: self.params.as_deref(),
            query: self.query.as_deref(),
            fragment: self.fragment.as_deref(),
        }
    }
}

impl ParsedBase {
    pub fn new(base: &str) -> Self {
        if base.is_empty() {
            return ParsedBase { parts: None };
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
        let prefix = Components {
            scheme: components.scheme,
            net_loc: components.net_loc,
            ..Components::default()
        }
        .recombine();
        let owned = |c: Option<&str>| c.map(str::to_owned);
        let (directory, root) = directory(components.path);
        // A relative path with no dot segment follows the directory as it
        // is: where that starts with `//` and there is no net_loc, the front
        // has step 7's empty net_loc.
        let empty_net_loc = match (components.net_loc, net_loc_for(None, &directory)) {
            (None, Some(_)) => "//",
            _ => "",
        };
        let front = format!("{prefix}{empty_net_loc}{directory}");
        ParsedBase {
            parts: Some(Parts {
                scheme: owned(components.scheme),
                net_loc: owned(components.net_loc),
                path: components.path.to_owned(),
                params: owned(components.params),
                query: owned(components.query),
                fragment: owned(components.fragment),
                prefix,
                directory,
                root,
                front,
            }),
        }
    }

    /// What resolving `embedded` puts in front of it, when that is all it
    /// does: then `prefix + embedded` is [`resolve`](Self::resolve)'s answer,
    /// with no parsing beyond the reference's start and no allocation. `None`
    /// when resolution does anything else (or nothing: an absolute URL, an
    /// empty base).
    ///
    /// The cases, each a shortcut through §4 that leaves every component of
    /// the reference as written:
    /// - `//net_loc…`, the net_loc not empty: step 3 skips to step 7, which
    ///   puts the base's scheme (step 2c) in front;
    /// - `/path…`: step 4 skips to step 7, which puts the base's scheme and
    ///   net_loc in front;
    /// - a relative path with no dot segment: step 6 appends it to the
    ///   base's directory, and no operation a) to d) applies.
    ///
    /// An empty path (step 5) inherits parts of the base after the reference
    /// starts, and dot segments remove some of it: both take the long way.
    pub fn prefix(&self, embedded: &str) -> Option<&str> {
        let base = self.parts.as_ref()?;
        let scheme = base.scheme.as_deref()?;
        let bytes = embedded.as_bytes();
        if let Some(after) = bytes.strip_prefix(b"//") {
            // The net_loc runs to the next `/`; the fragment was split off
            // before (§2.4.1), so a `#` ends it too.
            let net_loc_empty = matches!(after.first(), None | Some(b'/' | b'#'));
            return (!net_loc_empty).then(|| &base.prefix[..=scheme.len()]);
        }
        if bytes.first() == Some(&b'/') {
            // Step 4 (no scheme starts with `/`).
            return Some(&base.prefix);
        }
        // One pass over the path, which runs to the fragment, query or params
        // (§2.4.1 to 2.4.5: with no net_loc, the first of the three ends it),
        // for what would take the long way: a scheme (§2.4.2: scheme
        // characters, then `:`) and a dot segment.
        let mut scheme_chars = true;
        let mut segment = 0;
        let mut end = bytes.len();
        for (at, &b) in bytes.iter().enumerate() {
            match b {
                b':' if scheme_chars && at > 0 => return None,
                b'#' | b'?' | b';' => {
                    end = at;
                    break;
                }
                b'/' => {
                    if is_dot_segment(&bytes[segment..at]) {
                        return None;
                    }
                    segment = at + 1;
                }
                _ => {}
            }
            scheme_chars &= is_scheme_char(b);
        }
        match &bytes[..end] {
            // Step 5: the base's path, params and query come after the
            // reference's start.
            [] => None,
            // Step 6, with nothing for a) to d) to do.
            path if is_dot_segment(&path[segment..]) => None,
            _ => Some(&base.front),
        }
    }

    /// Resolves `embedded` against this base by RFC 1808 §4.
    pub fn resolve<'e>(&self, embedded: &'e str) -> Cow<'e, str> {
        match self.assemble(embedded) {
            // Step 7: "The resulting URL components, including any inherited
            // from the base URL, are recombined to give the absolute form of
            // the embedded URL."
            Some(assembled) => Cow::Owned(assembled.components().recombine()),
            None => Cow::Borrowed(embedded),
        }
    }

    /// §4 steps 1 to 6: the components that step 7 recombines into the
    /// answer, which read back as themselves (see the module docs); `None`
    /// where the answer is `embedded` as it is (step 1, the empty base; step
    /// 2b, a scheme).
    pub fn assemble<'s>(&'s self, embedded: &'s str) -> Option<Assembled<'s>> {
        // Step 1: "If the base URL is the empty string (unknown), the embedded
        // URL is interpreted as an absolute URL and we are done."
        let base = self.parts.as_ref()?;

        // Step 2, for the embedded URL.
        let mut url = parse(embedded);

        //   a) "If the embedded URL is entirely empty, it inherits the entire
        //   base URL (i.e., is set equal to the base URL) and we are done."
        //   Entirely empty means zero-length: `#` is not empty.
        if embedded.is_empty() {
            return Some(Assembled::new(base.components(), None));
        }

        //   b) "If the embedded URL starts with a scheme name, it is
        //   interpreted as an absolute URL and we are done."
        if url.scheme.is_some() {
            return None;
        }

        //   c) "Otherwise, the embedded URL inherits the scheme of the base
        //   URL."
        url.scheme = base.scheme.as_deref();

        // Step 3: "If the embedded URL's <net_loc> is non-empty, we skip to
        // Step 7. Otherwise, the embedded URL inherits the <net_loc> (if any)
        // of the base URL."
        //
        // Whatever the base: `news:comp.lang.misc` + `//x` has the net_loc
        // `x` (§2.4.3: "the substring of characters after the double-slash
        // and up to ... the next slash"), so step 7 gives `news://x`, as
        // RFC 3986 §5.2.2 does ("if defined(R.authority) then T.authority
        // = R.authority"). `news:////x` is what `////x` gives (an empty
        // net_loc, then step 4 keeps the path `//x`) in both standards.
        if !is_empty(url.net_loc) {
            return Some(Assembled::new(url, None));
        }
        // Decided here (see the module docs): the base's net_loc, or none
        // when it has none, where the `//` written in the reference would
        // stand before whatever follows it and read back with some of it as
        // its net_loc (`news:comp.lang.misc` + `//` is not
        // `news://comp.lang.misc`).
        url.net_loc = base.net_loc.as_deref();

        // Step 4: "If the embedded URL path is preceded by a slash "/", the
        // path is not relative and we skip to Step 7."
        if url.path.starts_with('/') {
            return Some(Assembled::new(url, None));
        }

        if !url.path.is_empty() {
            // Step 6, onto the base's directory, done once.
            let mut path = String::with_capacity(base.directory.len() + url.path.len());
            path.push_str(&base.directory);
            merge_segments(&mut path, base.root, url.path);
            return Some(Assembled::new(url, Some(path)));
        }

        // Step 5: "If the embedded URL path is empty (and not preceded by a
        // slash), then the embedded URL inherits the base URL path, and
        url.path = &base.path;
        //   a) if the embedded URL's <params> is non-empty, we skip to step 7;
        //   otherwise, it inherits the <params> of the base URL (if any) and
        if is_empty(url.params) {
            url.params = inherit(url.params, base.params.as_deref());
            //   b) if the embedded URL's <query> is non-empty, we skip to step
            //   7; otherwise, it inherits the <query> of the base URL (if any)
            //   and we skip to step 7."
            if is_empty(url.query) {
                url.query = inherit(url.query, base.query.as_deref());
            }
        }
        Some(Assembled::new(url, None))
    }
}

/// The components §4 assembled for step 7: those of the answer.
#[derive(Debug, Clone)]
pub struct Assembled<'a> {
    /// All but the path.
    parts: Components<'a>,
    path: Cow<'a, str>,
}

impl<'a> Assembled<'a> {
    /// `path`, or `parts.path` when it is `None`; a path that starts with
    /// `//` and has no net_loc before it gets an empty one ([`net_loc_for`]).
    fn new(mut parts: Components<'a>, path: Option<String>) -> Self {
        let path = path.map_or(Cow::Borrowed(parts.path), Cow::Owned);
        parts.net_loc = net_loc_for(parts.net_loc, &path);
        Assembled { path, parts }
    }

    pub fn components(&self) -> Components<'_> {
        Components {
            path: &self.path,
            ..self.parts
        }
    }
}

/// The net_loc step 7 writes before `path`: an empty one where there is
/// none and the path starts with `//`, which would otherwise read back as
/// a net_loc (§2.4.3: "If the parse string begins with a double-slash
/// "//", then the substring of characters after the double-slash and up
/// to, but not including, the next slash "/" character is the network
/// location/login"). Empty counts as absent (§2.4), so the URL reads back
/// with the components resolution assembled: `file:/etc/passwd` + `..//g`
/// is `file:////g` (net_loc empty, path `//g`). RFC 1808 removes no dot
/// segment from an absolute path, so the URL Standard's `file:/.//g` would
/// be another path here.
fn net_loc_for<'a>(net_loc: Option<&'a str>, path: &str) -> Option<&'a str> {
    match net_loc {
        None if path.starts_with("//") => Some(""),
        net_loc => net_loc,
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
/// merged"): linear in the length of the path. The stack is a string, each
/// segment followed by `/`, so that the result is the stack itself.
#[cfg(test)]
fn merge_paths(base_path: &str, embedded_path: &str) -> String {
    let (mut path, root) = directory(base_path);
    merge_segments(&mut path, root, embedded_path);
    path
}

/// The base's half of step 6: its directory, dot segments applied. None of
/// its segments is the path's last: the reference's path follows. With the
/// length of its root, 1 or 0.
fn directory(base_path: &str) -> (String, usize) {
    let directory = base_path.rfind('/').map_or("", |i| &base_path[..=i]);
    // The leading slash is not a segment separator: "the initial slash is not
    // part of the URL path" (§2.4.6). `/..` at the root therefore stays
    // (`../../../g` → `http://a/../g`): no segment precedes it.
    let (root, segments) = match directory.strip_prefix('/') {
        Some(rest) => ("/", rest),
        None => ("", directory),
    };
    let mut stack = String::with_capacity(directory.len());
    stack.push_str(root);
    for segment in segments.split_terminator('/') {
        push_segment(&mut stack, root.len(), segment, false);
    }
    (stack, root.len())
}

/// The reference's half of step 6: its segments pushed onto the stack that
/// is `out[floor..]`.
fn merge_segments(out: &mut String, floor: usize, embedded_path: &str) {
    let mut rest = embedded_path;
    // Leading `./` and `../`, the usual dot segments, one by one; what
    // follows them is mostly free of others, and then goes on the stack as
    // it is written.
    loop {
        if let Some(after) = rest.strip_prefix("./") {
            rest = after;
        } else if let Some(after) = rest.strip_prefix("../") {
            push_segment(out, floor, "..", false);
            rest = after;
        } else {
            break;
        }
    }
    if !has_dot_segment(rest) {
        out.push_str(rest);
        return;
    }
    while let Some(slash) = memchr(b'/', rest.as_bytes()) {
        push_segment(out, floor, &rest[..slash], false);
        rest = &rest[slash + 1..];
    }
    push_segment(out, floor, rest, true);
}

/// Whether `segment` is `.` or `..`.
fn is_dot_segment(segment: &[u8]) -> bool {
    matches!(segment, b"." | b"..")
}

/// Whether `path` has a `.` or `..` segment.
fn has_dot_segment(path: &str) -> bool {
    let bytes = path.as_bytes();
    memchr::memchr_iter(b'.', bytes).any(|at| {
        let starts = at == 0 || bytes[at - 1] == b'/';
        let ends = |i: usize| bytes.get(i).is_none_or(|&b| b == b'/');
        starts && (ends(at + 1) || (bytes[at + 1] == b'.' && ends(at + 2)))
    })
}

/// One segment onto the stack `out[floor..]`; `last`: the path's last one,
/// which is written without the `/` after it.
fn push_segment(out: &mut String, floor: usize, segment: &str, last: bool) {
    match segment {
        //   a) "All occurrences of "./", where "." is a complete path segment,
        //   are removed."
        //   b) "If the path ends with "." as a complete path segment, that "."
        //   is removed." What stays is the slash before it.
        "." => return,
        //   c) "All occurrences of "<segment>/../", where <segment> is a
        //   complete path segment not equal to "..", are removed. Removal of
        //   these path segments is performed iteratively, removing the
        //   leftmost matching pattern on each iteration, until no matching
        //   pattern remains." A `..` cancels the nearest segment kept before
        //   it, which is what the leftmost-first iteration reaches.
        //   d) "If the path ends with "<segment>/..", where <segment> is a
        //   complete path segment not equal to "..", that "<segment>/.." is
        //   removed." The slash before <segment> stays.
        ".." => {
            // The segment on top of the stack: from after the slash before
            // its own.
            let stack = &out[floor..];
            if let Some(body) = stack.strip_suffix('/') {
                let start = body.rfind('/').map_or(0, |i| i + 1);
                if &body[start..] != ".." {
                    out.truncate(floor + start);
                    return;
                }
            }
        }
        _ => {}
    }
    // Any other segment, and a `..` with nothing to cancel, stays.
    out.push_str(segment);
    if !last {
        out.push('/');
    }
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
    fn dot_segments_are_complete_segments() {
        for path in [
            ".", "..", "./g", "../g", "g/.", "g/..", "g/./h", "g/../h", "a//.",
        ] {
            assert!(has_dot_segment(path), "{path}");
        }
        for path in [
            "", "g", "g.", ".g", "..g", "g..", "g.h/i..j", "/...", "a/.../b",
        ] {
            assert!(!has_dot_segment(path), "{path}");
        }
    }

    #[test]
    fn borrowed_when_nothing_is_resolved() {
        assert!(matches!(resolve("", "g"), Cow::Borrowed("g")));
        assert!(matches!(resolve("http://a/", "https:x"), Cow::Borrowed(_)));
    }
}
