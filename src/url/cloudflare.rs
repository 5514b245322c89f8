//! Cloudflare Pages's reading of a site's `_redirects` file (`--check-links
//! --host cloudflare-pages`), as its own code reads it (workers-sdk's
//! `pages-shared`: `parseRedirects`, `createMetadataObject` and the asset
//! server's `generateRulesMatcher`), which its documentation only sketches.
//!
//! A line is `FROM TO [STATUS]`, `STATUS` 302 when not given, and 200,
//! 301, 302, 303, 307 or 308; a line of another shape, of another status,
//! of over 2,000 characters, or whose `FROM` is no path of the site, is
//! left out, as is a second rule for the same `FROM`. `FROM` is read as a
//! URL's path (its query and fragment dropped, its dot segments removed,
//! what a path cannot hold escaped). A rule is *static* while neither it
//! nor any rule above it has a `*` or a `:name` (a letter, then letters,
//! digits or `_`): 2,000 of them are read, each matching its path exactly;
//! the others are *dynamic*: 100 are read, and the 101st ends the reading
//! of the file. A dynamic `FROM` is a pattern of the whole path, `*`
//! anywhere any run of characters (`:splat`), `:name` anywhere a run of
//! one character or more but `/`, matched as a regex of JavaScript's
//! matches it (the first way, each part taking as much as it can), in
//! case, the trailing slash counting; one of two `*`, or of a name given
//! twice, makes no regex, and is no rule. Static rules answer first (they
//! are above every dynamic one), then the first dynamic rule that
//! matches; `TO`'s `:name`s are filled in, in their order in `FROM`. A
//! path and query past 32 KB as the browser sends them, or a `TO` that
//! grows past it, is answered with 414 ([`MAX_URI`]), as Cloudflare answers
//! such a URI.

use std::collections::HashMap;

use super::rfc3986::{percent_encoded_path, percent_encoded_query_len, remove_dot_segments};
use super::target::put_in;

/// The longest line read, in UTF-16 units (JavaScript's `length`).
const MAX_LINE: usize = 2000;
/// How many static rules are read.
const MAX_STATIC: usize = 2000;
/// How many dynamic rules are read: the next ends the reading.
const MAX_DYNAMIC: usize = 100;
/// The longest URI Cloudflare reads: past it, it answers 414 (URI Too
/// Long) and reads no rule (its documentation: "if the URI length exceeds
/// 32KB"). So a path past it, or a rule's `TO` that would grow past it,
/// reaches nothing, and no match is worked out on more.
pub(super) const MAX_URI: usize = 32 * 1024;
/// Cloudflare's answer past [`MAX_URI`].
pub(super) const URI_TOO_LONG: u16 = 414;

/// The rules Cloudflare Pages takes from a site's `_redirects` file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Rules {
    /// The static rules, by their path (a site moved from another host
    /// may have thousands, and every link of a check asks them).
    exact: HashMap<String, (String, u16)>,
    /// The dynamic rules, in order.
    dynamic: Vec<Rule>,
}

/// A dynamic rule.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    pattern: Vec<Token>,
    to: String,
    status: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Literal(String),
    /// `:name`: `[^/]+`.
    Name(String),
    /// `*`: `.*`, captured as `splat`.
    Splat,
}

/// The rules Cloudflare Pages takes from `text`, a `_redirects` file.
pub(super) fn parse(text: &str) -> Rules {
    let mut rules = Rules::default();
    let mut seen = std::collections::HashSet::new();
    let (mut statics, mut dynamics) = (0, 0);
    let mut static_allowed = true;
    for line in text.split('\n') {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.encode_utf16().count() > MAX_LINE {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (from, to, status) = match words[..] {
            [from, to] => (from, to, "302"),
            [from, to, status] => (from, to, status),
            _ => continue,
        };
        let Some(from) = path(from) else {
            continue;
        };
        if static_allowed && !from.contains('*') && first_name(&from).is_none() {
            statics += 1;
            if statics > MAX_STATIC {
                continue;
            }
        } else {
            static_allowed = false;
            dynamics += 1;
            if dynamics > MAX_DYNAMIC {
                break;
            }
        }
        let status = match status.parse::<u16>() {
            Ok(status @ (200 | 301 | 302 | 303 | 307 | 308)) => status,
            _ => continue,
        };
        if !seen.insert(from.clone()) {
            continue;
        }
        let to = to.to_owned();
        if static_allowed {
            rules.exact.insert(from, (to, status));
        } else if let Some(pattern) = pattern(&from) {
            // A pattern that makes no regex is no rule.
            rules.dynamic.push(Rule {
                pattern,
                to,
                status,
            });
        }
    }
    rules
}

/// `FROM` as Cloudflare reads it, when it is a path of the site: its
/// path, its query and fragment dropped, dot segments removed, and escaped
/// as a browser escapes the path it asks for.
fn path(from: &str) -> Option<String> {
    if !from.starts_with('/') {
        return None;
    }
    let path = from.split(['?', '#']).next().unwrap_or_default();
    Some(percent_encoded_path(&remove_dot_segments(path)).into_owned())
}

/// Where the first `:name` of `text` is, and its name.
fn first_name(text: &str) -> Option<(usize, &str)> {
    text.match_indices(':').find_map(|(at, _)| {
        let rest = &text[at + 1..];
        rest.bytes().next().filter(u8::is_ascii_alphabetic)?;
        let word = |b: &u8| b.is_ascii_alphanumeric() || *b == b'_';
        let len = 1 + rest.bytes().skip(1).take_while(word).count();
        Some((at, &rest[..len]))
    })
}

/// The pattern of a dynamic `FROM`; `None` when Cloudflare makes no regex
/// of it: a group named twice. `*` is the group `splat` (so a second `*`,
/// or a `:splat`, names it twice); each `:name` is put in, as Cloudflare
/// puts it in, for every text `:name` of the pattern, in their order, so
/// that a name that begins a later one takes that one's place too and is
/// named twice.
fn pattern(from: &str) -> Option<Vec<Token>> {
    let mut tokens = Vec::new();
    // Each group so far: `None` for `*`, the name of a `:name`.
    let mut groups: Vec<Option<&str>> = Vec::new();
    let mut rest = from;
    loop {
        let splat = rest.find('*');
        let name = first_name(rest);
        let (at, group) = match (splat, name) {
            (Some(s), Some((n, _))) if s < n => (s, None),
            (Some(s), None) => (s, None),
            (_, Some((n, name))) => (n, Some(name)),
            (None, None) => break,
        };
        let named_twice = |earlier: &Option<&str>| match (group, *earlier) {
            (None, earlier) => earlier.is_none_or(|e| e == "splat"),
            (Some(name), None) => name == "splat",
            (Some(name), Some(earlier)) => name.starts_with(earlier),
        };
        if groups.iter().any(named_twice) {
            return None;
        }
        groups.push(group);
        let (token, len) = match group {
            None => (Token::Splat, 1),
            Some(name) => (Token::Name(name.to_owned()), 1 + name.len()),
        };
        if at > 0 {
            tokens.push(Token::Literal(rest[..at].to_owned()));
        }
        tokens.push(token);
        rest = &rest[at + len..];
    }
    if !rest.is_empty() {
        tokens.push(Token::Literal(rest.to_owned()));
    }
    Some(tokens)
}

impl Rules {
    /// What they hold in memory, at most.
    pub(super) fn size(&self) -> usize {
        let exact: usize = self
            .exact
            .iter()
            .map(|(from, (to, _))| 2 * (from.len() + to.len()) + 96)
            .sum();
        let dynamic: usize = self
            .dynamic
            .iter()
            .map(|rule| 2 * rule.to.len() + 64 + rule.pattern.len() * 48)
            .sum();
        exact + dynamic
    }

    /// How many there are.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.exact.len() + self.dynamic.len()
    }

    /// What the rule that answers `path` (the URL's path, as a browser
    /// asks for it) answers, `query` the URL's query: where it leads, and
    /// its status.
    pub(super) fn answer(&self, path: &str, query: Option<&str>) -> Option<(String, u16)> {
        // Past its limit, the URI as the browser sends it, Cloudflare
        // reads no rule: 414.
        if path.len() + query.map_or(0, |q| 1 + percent_encoded_query_len(q)) > MAX_URI {
            return Some((String::new(), URI_TOO_LONG));
        }
        if let Some(answer) = self.exact.get(path) {
            return Some(answer.clone());
        }
        self.dynamic.iter().find_map(|rule| {
            let found = captures(&rule.pattern, path)?;
            // Each group's value put in for every `:name` of `TO`, in the
            // groups' order (a value put in is searched by the next name).
            let mut to = rule.to.clone();
            for (value, at) in found {
                let name = match &rule.pattern[at] {
                    Token::Name(name) => name.as_str(),
                    _ => "splat",
                };
                // A `TO` that grows past what Cloudflare reads leads to its
                // 414: not made.
                match put_in(&to, &format!(":{name}"), value, MAX_URI) {
                    Some(put) => to = put,
                    None => return Some((String::new(), URI_TOO_LONG)),
                }
            }
            Some((to, rule.status))
        })
    }

    /// What matching a path takes at most beside it, for one link at a
    /// time: the rows of the dynamic rule with the most groups, for a path
    /// of [`MAX_URI`], and its `TO` as it is made (two at a time).
    pub(super) fn matching_room(&self) -> usize {
        let groups = |rule: &Rule| {
            rule.pattern
                .iter()
                .filter(|t| !matches!(t, Token::Literal(_)))
                .count()
        };
        self.dynamic
            .iter()
            .map(|rule| (groups(rule) + 2) * Places::bytes(MAX_URI) + 2 * MAX_URI)
            .max()
            .unwrap_or(0)
    }
}

/// What a dynamic rule's `tokens` capture in `path`, when they match it
/// whole: what a backtracking regex finds (each part as long as the rest
/// allows, the first first), found without backtracking. Where each part
/// may start is worked out first, from the last part back: a row of the
/// places in `path` from which the parts from it on match the rest of it
/// (`row`, made from the next part's, `next`). Each group then takes, from
/// the first on, the furthest end from which the rest match (the row kept
/// for it, `after`): the choice a backtracking engine comes to first.
/// So the work is the parts times the path's length (times a literal's,
/// for a literal), whatever the path: a backtracking engine's on
/// `/:a-:b-:c` and a long path of `-`s is that length cubed, and its memory
/// past the path's length was a bit for each part at each place, held
/// undrawn. The rows kept here, one for each group (what it chooses its
/// end by), are at most [`Rules::matching_room`] for a path of
/// [`MAX_URI`].
fn captures<'p>(tokens: &[Token], path: &'p str) -> Option<Vec<(&'p str, usize)>> {
    // Most rules are told from a path by how it begins or ends.
    fn literal(token: Option<&Token>) -> &str {
        match token {
            Some(Token::Literal(literal)) => literal,
            _ => "",
        }
    }
    if !path.starts_with(literal(tokens.first())) || !path.ends_with(literal(tokens.last())) {
        return None;
    }
    let n = path.len();
    let bytes = path.as_bytes();
    // Past the last part: the path's end alone.
    let mut next = Places::new(n);
    next.set(n);
    // For each group, the places its end may be chosen from.
    let mut after: Vec<Option<Places>> = vec![None; tokens.len()];
    for (t, token) in tokens.iter().enumerate().rev() {
        let mut row = Places::new(n);
        match token {
            Token::Literal(literal) => {
                // None where it would run past the path's end.
                let len = literal.len();
                for p in (0..=n).take_while(|p| p + len <= n) {
                    if next.get(p + len) && bytes[p..].starts_with(literal.as_bytes()) {
                        row.set(p);
                    }
                }
            }
            // `.*`: any end from here on.
            Token::Splat => {
                let mut any = false;
                for p in (0..=n).rev() {
                    any |= next.get(p);
                    if any && path.is_char_boundary(p) {
                        row.set(p);
                    }
                }
            }
            // `[^/]+`: an end past this character, up to the next `/`.
            Token::Name(_) => {
                let mut any = false;
                for p in (0..n).rev() {
                    if bytes[p] == b'/' {
                        any = false;
                        continue;
                    }
                    any |= next.get(p + 1);
                    if any && path.is_char_boundary(p) {
                        row.set(p);
                    }
                }
            }
        }
        if !matches!(token, Token::Literal(_)) {
            after[t] = Some(next);
        }
        next = row;
    }
    if !next.get(0) {
        return None;
    }
    let mut found = Vec::new();
    let mut p = 0;
    for (t, token) in tokens.iter().enumerate() {
        let (least, most) = match token {
            Token::Literal(literal) => {
                p += literal.len();
                continue;
            }
            Token::Splat => (p, n),
            Token::Name(_) => (p + 1, path[p..].find('/').map_or(n, |i| p + i)),
        };
        let rest = after[t].as_ref().expect("kept for each group");
        let end = (least..=most)
            .rev()
            .find(|&e| rest.get(e))
            .expect("the rows say the rest matches from some end");
        found.push((&path[p..end], t));
        p = end;
    }
    Some(found)
}

/// Places in a path (`0..=len`), as bits.
#[derive(Clone)]
struct Places(Vec<u64>);

impl Places {
    fn new(len: usize) -> Self {
        Places(vec![0; (len + 1).div_ceil(64)])
    }

    fn bytes(len: usize) -> usize {
        (len + 1).div_ceil(64) * 8
    }

    fn set(&mut self, at: usize) {
        self.0[at / 64] |= 1 << (at % 64);
    }

    fn get(&self, at: usize) -> bool {
        self.0[at / 64] & (1 << (at % 64)) != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::redirects::FILE;

    fn answer(text: &str, path: &str) -> Option<(String, u16)> {
        parse(text).answer(path, None)
    }

    fn some(to: &str, status: u16) -> Option<(String, u16)> {
        Some((to.to_owned(), status))
    }

    #[test]
    fn cloudflare_takes_its_own_lines() {
        assert_eq!(answer(FILE, "/old.html"), some("/new.html", 302));
        assert_eq!(answer(FILE, "/blog/a/b.html"), some("/posts/a/b.html", 302));
        assert_eq!(
            answer(FILE, "/news/2024/05"),
            some("/archive/2024-05.html", 200)
        );
        // A `!`, a query's or a visitor's condition, a 404, another host.
        for path in ["/shop", "/gone", "/fr/page", "/store"] {
            assert_eq!(answer(FILE, path), None, "{path}");
        }
        assert_eq!(parse(FILE).len(), 3);
    }

    #[test]
    fn the_path_matches_whole_and_in_case() {
        // The trailing slash counts, in a static rule and in a pattern.
        assert_eq!(answer(FILE, "/old.html/"), None);
        assert_eq!(answer(FILE, "/news/2024/05/"), None);
        assert_eq!(answer(FILE, "/Old.html"), None);
        // `/blog/*` is `/blog/` and more: not `/blog`.
        assert_eq!(answer(FILE, "/blog"), None);
        assert_eq!(answer(FILE, "/blog/"), some("/posts/", 302));
    }

    #[test]
    fn a_splat_and_names_anywhere() {
        let text = "/a/*/end /b/:splat 301\n/p-:id.html /q/:id 301\n/:x-:y /z/:x/:y 308\n";
        assert_eq!(answer(text, "/a/x/y/end"), some("/b/x/y", 301));
        assert_eq!(answer(text, "/a//end"), some("/b/", 301));
        assert_eq!(answer(text, "/p-7.html"), some("/q/7", 301));
        // Each as long as the rest allows, the first first.
        assert_eq!(answer(text, "/a-b-c"), some("/z/a-b/c", 308));
        assert_eq!(answer(text, "/a-b/c"), None);
    }

    #[test]
    fn rules_cloudflare_makes_no_regex_of_are_none() {
        // Two splats, a name twice, a name that begins a later one.
        let text = "/a/*/* /b 301\n/c/:x/:x /d 301\n/e/:x/:xy /f 301\n/g/:xy/:x /h/:xy/:x 301\n";
        assert_eq!(answer(text, "/a/1/2"), None);
        assert_eq!(answer(text, "/c/1/2"), None);
        assert_eq!(answer(text, "/e/1/2"), None);
        assert_eq!(answer(text, "/g/1/2"), some("/h/1/2", 301));
        // `*` names `splat`; a `:splat` beginning a later name names it
        // twice too.
        let text = "/i/:splat/* /j 301\n/k/:splat/:splatx /l 301\n/m/:splatx/* /n 301\n";
        assert_eq!(answer(text, "/i/1/2"), None);
        assert_eq!(answer(text, "/k/1/2"), None);
        assert_eq!(answer(text, "/m/1/2"), some("/n", 301));
    }

    #[test]
    fn static_rules_come_first_and_each_kind_has_its_count() {
        // A static rule below a dynamic one is dynamic: it answers in its
        // turn.
        let text = "/x/* /first 301\n/x/y /second 301\n";
        assert_eq!(answer(text, "/x/y"), some("/first", 301));
        // The second rule for a path is left out; its `FROM` is read as a
        // path.
        let text = "/a/./b?q=1 /one 301\n/a/b /two 301\n";
        assert_eq!(answer(text, "/a/b"), some("/one", 301));
        let text = "/caf\u{e9} /c 301\n";
        assert_eq!(answer(text, "/caf%C3%A9"), some("/c", 301));
        // The 101st dynamic rule ends the reading; the 2,001st static rule
        // is left out, the others read on.
        let mut text: String = (0..MAX_DYNAMIC)
            .map(|i| format!("/d{i}/* /x 301\n"))
            .collect();
        text.push_str("/last/* /y 301\n/after /z 301\n");
        assert_eq!(answer(&text, "/d99/1"), some("/x", 301));
        assert_eq!(answer(&text, "/last/1"), None);
        assert_eq!(answer(&text, "/after"), None);
        let mut text: String = (0..MAX_STATIC).map(|i| format!("/s{i} /x 301\n")).collect();
        text.push_str("/over /y 301\n/p/* /z 301\n");
        assert_eq!(answer(&text, "/over"), None);
        assert_eq!(answer(&text, "/p/1"), some("/z", 301));
        // A line over 2,000 characters is left out.
        let long = format!("/{} /w 301\n/long/* /v 301\n", "l".repeat(MAX_LINE));
        assert_eq!(parse(&long).len(), 1);
    }

    #[test]
    fn past_the_longest_uri_cloudflare_answers_414() {
        let text = "/a/* /b/:splat 301\n/c/:x /d/:x:x:x:x 301\n/e/:x /f/:y/:x 301\n";
        let at_most = format!("/a/{}", "x".repeat(MAX_URI - 3));
        assert_eq!(
            answer(text, &at_most),
            some(&format!("/b/{}", "x".repeat(MAX_URI - 3)), 301)
        );
        let past = format!("/a/{}", "x".repeat(MAX_URI - 2));
        assert_eq!(answer(text, &past), some("", URI_TOO_LONG));
        // The query counts, as it is sent: a space is `%20`.
        let rules = parse(text);
        let query = "q".repeat(MAX_URI - 5);
        assert_eq!(rules.answer("/a/b", Some(&query)), some("/b/b", 301));
        let spaced = format!("{} ", &query[1..]);
        assert_eq!(rules.answer("/a/b", Some(&spaced)), some("", URI_TOO_LONG));
        // A `TO` that would grow past it, by a value put in for each name
        // (the value itself searched by the next name).
        let value = "x".repeat(MAX_URI / 4);
        assert_eq!(answer(text, &format!("/c/{value}")), some("", URI_TOO_LONG));
        assert_eq!(
            answer(text, &format!("/c/{}", &value[1..])).map(|(to, _)| to.len()),
            Some(3 + 4 * (MAX_URI / 4 - 1))
        );
        let names = ":y".repeat(MAX_URI / 8);
        assert_eq!(answer(text, "/e/:y"), some("/f/:y/:y", 301));
        assert_eq!(
            answer(text, &format!("/e/{names}")).map(|(to, _)| to.len()),
            Some(4 + 2 + 2 * MAX_URI / 8)
        );
    }

    /// A literal longer than the path, between groups, matches nowhere
    /// (and is looked for nowhere past the path's end).
    #[test]
    fn a_literal_longer_than_the_path_matches_nowhere() {
        let long = "l".repeat(200);
        let text = format!("/:a/{long}/:b /c 301\n/*x /d 301\n");
        assert_eq!(answer(&text, "/x/yx"), some("/d", 301));
        assert_eq!(answer(&text, &format!("/x/{long}/y")), some("/c", 301));
    }

    /// A pattern whose groups a backtracking engine tries at every place,
    /// on a long path that it matches only at its end, and on one that it
    /// does not match: answered as the regex answers, the work the groups
    /// times the path's length (a backtracking engine's is its cube: on
    /// this path, some 10^12 steps).
    #[test]
    fn long_paths_are_matched_in_one_pass_for_each_group() {
        let text = "/:a-:b-:c/end /to/:a/:b/:c 301\n/*-:d /to2/:d 302\n";
        let middle = "x-".repeat(MAX_URI / 2 - 4);
        let path = format!("/{middle}x/end");
        let (to, status) = answer(text, &path).expect("it matches");
        let tokens = pattern("/:a-:b-:c/end").unwrap();
        let regex = regex(&tokens);
        let c = regex.captures(&path).unwrap();
        assert_eq!(to, format!("/to/{}/{}/{}", &c["a"], &c["b"], &c["c"]));
        assert_eq!(status, 301);
        // `/end` missing: no match by the first; the second's splat takes
        // all but the last `-x`.
        let path = format!("/{middle}x");
        assert_eq!(answer(text, &path), some("/to2/x", 302));
    }

    const LONG_LITERAL: &str =
        "-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-";

    /// The regex Cloudflare makes of a pattern, in Rust's kind.
    fn regex(tokens: &[Token]) -> regex::Regex {
        let mut pattern = String::from("^");
        for token in tokens {
            match token {
                Token::Literal(literal) => pattern.push_str(&regex::escape(literal)),
                Token::Name(name) => pattern.push_str(&format!("(?P<{name}>[^/]+)")),
                Token::Splat => pattern.push_str("(?P<splat>.*)"),
            }
        }
        pattern.push('$');
        regex::Regex::new(&pattern).expect("a pattern of names given once")
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn patterns_match_as_a_regex_matches_them(
            from in proptest::collection::vec(
                // A literal longer than a word of places: past any path.
                proptest::sample::select(vec![
                    "/", "/", "a", "-", "*", ":x", ":y", "\u{e9}", ".", LONG_LITERAL,
                ]),
                1..7,
            ),
            path in proptest::collection::vec(
                proptest::sample::select(vec!["/", "/", "a", "b", "-", "-", "\u{e9}", "."]),
                0..9,
            ),
        ) {
            let from = format!("/{}", from.concat());
            let path = path.concat();
            let Some(tokens) = pattern(&from) else {
                return Ok(());
            };
            let ours = captures(&tokens, &path).map(|found| {
                found.iter().map(|(value, _)| value.to_string()).collect::<Vec<_>>()
            });
            let regex = regex(&tokens);
            let theirs = regex.captures(&path).map(|c| {
                c.iter().skip(1).flatten().map(|m| m.as_str().to_owned()).collect::<Vec<_>>()
            });
            proptest::prop_assert_eq!(ours, theirs, "{:?} on {:?}", from, path);
        }
    }
}
