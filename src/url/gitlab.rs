//! GitLab Pages's reading of a site's `_redirects` file (`--check-links
//! --host gitlab-pages`), as gitlab-pages's `internal/redirects` and the
//! Netlify-style parser it uses (github.com/tj/go-redirects) read it. A
//! line is `FROM TO [STATUS]`, `STATUS` 301 when not given. The whole file
//! is read or none of it: a line of one word, or a third word that is no
//! number, ends the reading with no rule at all, as does a file of over 64
//! KiB. Of the first 1,000 rules, each that GitLab Pages takes (`FROM` and
//! `TO` paths of this site, from `/`, with 25 slashes at most; 200, 301 or
//! 302; no `!`, no fourth word) is tried in order against the decoded path
//! no file answers: a `FROM` that is the path, a trailing slash aside,
//! when `TO` has nothing to fill in; else `FROM` as a pattern, in any
//! case, each segment after any number of slashes, `*` a segment for the
//! rest (`:splat`), `:name` a segment of its own, and any slashes at its
//! end. A redirect goes to `TO`'s path (its query and fragment dropped), a
//! rewrite (200) serves the file there.

use super::rfc3986::percent_decoded;
use super::target::{MAX_TARGET, UNREACHABLE};

/// The file's size past which GitLab Pages reads none of it.
const MAX_SIZE: usize = 64 * 1024;

/// How many of the file's rules are tried (the others are not).
const MAX_RULES: usize = 1000;

/// The most slashes a rule's path may have.
const MAX_SLASHES: usize = 25;

/// A rule GitLab Pages takes.
#[derive(Debug, Clone)]
pub(super) struct Rule {
    from: String,
    /// `FROM` as a pattern; `None` when it makes none.
    pattern: Option<Pattern>,
    to: String,
    /// `TO` has a splat or a placeholder to fill in.
    templated: bool,
    status: u16,
}

impl PartialEq for Rule {
    fn eq(&self, other: &Self) -> bool {
        (&self.from, &self.to, self.status) == (&other.from, &other.to, other.status)
    }
}

impl Eq for Rule {}

/// Why GitLab Pages reads no rule of a `_redirects` file that has some.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unread {
    /// It is larger than GitLab reads: its size, and the most it reads.
    TooLarge(usize, usize),
    /// Its parser stops at this line (its number, from 1, and its text):
    /// one word, or a third that is no number.
    Line(usize, String),
}

/// The rules GitLab Pages takes from `text`, a `_redirects` file, in
/// order; or why it takes none.
pub(super) fn parse(text: &str) -> Result<Vec<Rule>, Unread> {
    if text.len() > MAX_SIZE {
        return Err(Unread::TooLarge(text.len(), MAX_SIZE));
    }
    let mut rules = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (from, to) = match words[..] {
            [from, to, ..] => (from, to),
            // The parser stops, and what it read is dropped with it.
            _ => return Err(Unread::Line(n + 1, line.to_owned())),
        };
        let status = match words.get(2) {
            None => Some(301),
            Some(word) => match word.replace('!', "").parse::<i64>() {
                Ok(status) => {
                    let plain = !word.contains('!') && words.len() == 3;
                    u16::try_from(status).ok().filter(|_| plain)
                }
                Err(_) => return Err(Unread::Line(n + 1, line.to_owned())),
            },
        };
        rules.push(
            status
                .filter(|status| matches!(status, 200 | 301 | 302))
                .filter(|_| valid(from) && valid(to))
                .map(|status| Rule::new(from, to, status)),
        );
    }
    // The first thousand are tried, those GitLab Pages leaves out among
    // them.
    Ok(rules.into_iter().take(MAX_RULES).flatten().collect())
}

/// Whether a rule's `FROM` or `TO` is a path of this site GitLab Pages
/// takes: no scheme or host, from `/`, escapes that read, few slashes.
fn valid(url: &str) -> bool {
    let path = url.split(['?', '#']).next().unwrap_or_default();
    path.starts_with('/')
        && !path.starts_with("//")
        && path.matches('/').count() <= MAX_SLASHES
        && escapes_read(path)
        && !url.bytes().any(|b| b.is_ascii_control() || b == b' ')
}

/// Whether each `%` of `path` comes before two hex digits.
fn escapes_read(path: &str) -> bool {
    let bytes = path.as_bytes();
    bytes.iter().enumerate().all(|(i, &b)| {
        b != b'%'
            || bytes
                .get(i + 1..i + 3)
                .is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    })
}

/// How `FROM` is matched when it is not the path itself: as the pattern
/// gitlab-pages builds of it, `(?i)^` then `/+SEGMENT` for each segment
/// (`/+(?P<name>[^/]+)` for `:name`, `/*(?P<splat>.*)/*` for `*`), then
/// `/*$`, in a regex of Go's leftmost-first kind. Its match is found here
/// without a regex engine (linking one costs every run's start): with one
/// `*` at most (two capture `splat` twice, and the pattern is no regex),
/// what comes before it is matched in one way only, and what comes after
/// it is the path's last segments.
#[derive(Debug, Clone)]
struct Pattern {
    /// The segments before `*`, or all of them.
    before: Vec<Segment>,
    /// The segments after `*`, when there is one.
    after: Option<Vec<Segment>>,
}

#[derive(Debug, Clone)]
enum Segment {
    /// Its characters, folded: the path's own in any case.
    Literal(Vec<char>),
    /// `:name`: one segment, captured.
    Name(String),
}

impl Pattern {
    /// What it holds in memory.
    fn size(&self) -> usize {
        let segments = self.before.iter().chain(self.after.iter().flatten());
        let size = |s: &Segment| match s {
            Segment::Literal(chars) => 4 * chars.len(),
            Segment::Name(name) => name.len(),
        };
        segments.map(|s| size(s) + 32).sum::<usize>() + 64
    }

    /// The pattern of `FROM`'s `segments`; `None` when a name is given
    /// twice (`splat` for `*`).
    fn new(segments: &[&str]) -> Option<Pattern> {
        let mut names: Vec<&str> = Vec::new();
        let mut before = Vec::new();
        let mut after: Option<Vec<Segment>> = None;
        for segment in segments {
            let name = match segment.strip_prefix(':') {
                _ if *segment == "*" => "splat",
                Some(name) if is_name(name) => name,
                _ => {
                    let literal = Segment::Literal(segment.chars().map(fold).collect());
                    after.as_mut().unwrap_or(&mut before).push(literal);
                    continue;
                }
            };
            if names.contains(&name) {
                return None;
            }
            names.push(name);
            match *segment == "*" {
                true => after = Some(Vec::new()),
                false => after
                    .as_mut()
                    .unwrap_or(&mut before)
                    .push(Segment::Name(name.to_owned())),
            }
        }
        Some(Pattern { before, after })
    }

    /// What its names capture in `path`, when the pattern matches it.
    fn captures<'p>(&self, path: &'p str) -> Option<Vec<(&str, &'p str)>> {
        let mut captures = Vec::new();
        // Before `*`: each `/+` takes every slash (a segment follows it),
        // and each `:name` its whole segment (a slash, the end or `*`'s
        // `/*(.*)`, which takes what it would leave, follows it).
        let mut at = 0;
        for segment in &self.before {
            let start = past_slashes(path, at);
            if start == at {
                return None;
            }
            at = match segment {
                Segment::Literal(chars) => literal_end(path, start, chars)?,
                Segment::Name(name) => {
                    let end = segment_end(path, start);
                    if end == start {
                        return None;
                    }
                    captures.push((name.as_str(), &path[start..end]));
                    end
                }
            };
        }
        let Some(after) = &self.after else {
            // `/*$`.
            return past_slashes(path, at).eq(&path.len()).then_some(captures);
        };
        // After `*`: its segments are the path's last ones, each after
        // one slash or more (the pattern's `/*/+` before the first).
        let mut ends = path.len();
        let mut first = path.len();
        for segment in after.iter().rev() {
            let end = before_slashes(path, ends);
            let start = path[..end].rfind('/').map_or(0, |i| i + 1);
            if start <= at || start == end {
                return None;
            }
            match segment {
                Segment::Literal(chars) if literal_end(path, start, chars) != Some(end) => {
                    return None;
                }
                Segment::Literal(_) => {}
                Segment::Name(name) => captures.push((name.as_str(), &path[start..end])),
            }
            ends = start;
            first = start;
        }
        // Where `*`'s `.*` may end, at most, the rest matching: the slash
        // before the last segments (all of them when there are none), and
        // no line's end (`.` takes none); from as few of the slashes
        // before it as the rest allows (the regex's first choice).
        let (least, most) = match after.is_empty() {
            true => (before_slashes(path, path.len()), path.len()),
            false => (before_slashes(path, first), first - 1),
        };
        let from = past_slashes(path, at);
        let line_end = path[from..].find('\n').map_or(path.len(), |i| from + i);
        let end = most.min(line_end);
        let splat = match end >= least.max(from) {
            true => &path[from..end],
            false if most.min(from.saturating_sub(1)) >= least.max(at) && from > at => "",
            false => return None,
        };
        captures.push(("splat", splat));
        Some(captures)
    }
}

/// Where the run of slashes from `at` in `path` ends.
fn past_slashes(path: &str, at: usize) -> usize {
    at + path[at..].bytes().take_while(|&b| b == b'/').count()
}

/// Where the run of slashes that ends at `end` in `path` starts.
fn before_slashes(path: &str, end: usize) -> usize {
    end - path[..end].bytes().rev().take_while(|&b| b == b'/').count()
}

/// Where the segment from `at` in `path` ends: the next slash, or the end.
fn segment_end(path: &str, at: usize) -> usize {
    path[at..].find('/').map_or(path.len(), |i| at + i)
}

/// Where `chars` (folded) end in `path` from `at`, when they are there in
/// any case.
fn literal_end(path: &str, at: usize, chars: &[char]) -> Option<usize> {
    let mut given = path[at..].char_indices();
    for &c in chars {
        let (_, g) = given.next()?;
        if fold(g) != c {
            return None;
        }
    }
    Some(given.next().map_or(path.len(), |(i, _)| at + i))
}

/// A character as any of its cases: the lowercase of its uppercase (`ſ`,
/// `S` and `s` are one), a case of more than one character left as it is.
fn fold(c: char) -> char {
    fn one(mut cases: impl Iterator<Item = char>, or: char) -> char {
        match (cases.next(), cases.next()) {
            (Some(one), None) => one,
            _ => or,
        }
    }
    let lower = one(c.to_lowercase(), c);
    one(one(lower.to_uppercase(), lower).to_lowercase(), lower)
}

impl Rule {
    fn new(from: &str, to: &str, status: u16) -> Rule {
        let segments: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
        Rule {
            from: from.to_owned(),
            pattern: Pattern::new(&segments),
            templated: to.contains('*') || placeholder(to).is_some(),
            to: to.to_owned(),
            status,
        }
    }

    /// What it holds in memory, at most.
    fn size(&self) -> usize {
        let pattern = self.pattern.as_ref().map_or(0, Pattern::size);
        2 * (self.from.len() + self.to.len()) + 128 + pattern
    }

    /// `TO`, filled in, when the rule matches `path` (decoded, from its
    /// `/`); `Some(None)` when it would grow past [`MAX_TARGET`] as it is
    /// filled in (before its runs of slashes are made one).
    fn matches(&self, path: &str) -> Option<Option<String>> {
        if !self.templated && with_slash(&self.from) == with_slash(path) {
            return Some(Some(self.to.clone()));
        }
        let captures = self.pattern.as_ref()?.captures(path)?;
        // `:name` becomes the part of the path its segment matched (none:
        // nothing), then runs of slashes one.
        // One that would grow past the longest target reaches nothing: not
        // made.
        let mut to = String::new();
        let mut rest = self.to.as_str();
        while let Some((at, name)) = placeholder(rest) {
            to.push_str(&rest[..at]);
            let value = captures.iter().find(|(n, _)| *n == name);
            let value = escaped(value.map_or("", |(_, value)| value));
            if to.len() + value.len() > MAX_TARGET {
                return Some(None);
            }
            to.push_str(&value);
            rest = &rest[at + 1 + name.len()..];
        }
        to.push_str(rest);
        let mut single = String::with_capacity(to.len());
        for c in to.chars() {
            if !(c == '/' && single.ends_with('/')) {
                single.push(c);
            }
        }
        Some(Some(single))
    }
}

/// What `rules` hold in memory, at most.
pub(super) fn size(rules: &[Rule]) -> usize {
    rules.iter().map(Rule::size).sum()
}

/// Where the first `:name` of `text` is, and its name (ASCII letters).
fn placeholder(text: &str) -> Option<(usize, &str)> {
    text.match_indices(':').find_map(|(at, _)| {
        let name = &text[at + 1..];
        let len = name.bytes().take_while(u8::is_ascii_alphabetic).count();
        (len > 0).then(|| (at, &name[..len]))
    })
}

fn is_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphabetic())
}

/// `path` with one trailing slash.
fn with_slash(path: &str) -> String {
    format!("{}/", path.strip_suffix('/').unwrap_or(path))
}

/// A part of a decoded path put back in a URL: `%` and what a path cannot
/// hold as it is escaped.
fn escaped(decoded: &str) -> String {
    let mut out = String::with_capacity(decoded.len());
    for &b in decoded.as_bytes() {
        match b {
            b'%' | b'?' | b'#' | b' ' | 0..=0x1f | 0x7f.. => out.push_str(&format!("%{b:02X}")),
            _ => out.push(char::from(b)),
        }
    }
    out
}

/// What the first rule that matches `path` (the URL's whole path, as
/// written) answers: where it leads (a path, its query and fragment
/// dropped), and its status. GitLab Pages matches the path decoded (Go's
/// `URL.Path`).
pub(super) fn answer(rules: &[Rule], path: &str) -> Option<(String, u16)> {
    let decoded = percent_decoded(path);
    let path = String::from_utf8_lossy(&decoded);
    rules.iter().find_map(|rule| {
        let Some(to) = rule.matches(&path)? else {
            return Some((String::new(), UNREACHABLE));
        };
        let to = to.split(['?', '#']).next().unwrap_or_default().to_owned();
        Some((to, rule.status))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::redirects::FILE;

    /// Netlify's file with neither its query's condition nor its line of
    /// three words, which GitLab's parser cannot read, and lines of
    /// GitLab's own.
    fn file() -> String {
        let kept = FILE
            .lines()
            .filter(|l| !l.contains("id=:id") && *l != "not a rule");
        let mut text: String = kept.map(|l| format!("{l}\n")).collect();
        text.push_str(
            "/a/*/end  /b/:splat  301\n/moved  /new?x=1#part\n/out  https://other.example/\n",
        );
        text
    }

    fn answer(text: &str, path: &str) -> Option<(String, u16)> {
        super::answer(&parse(text).unwrap_or_default(), path)
    }

    #[test]
    fn the_first_rule_gitlab_takes_answers() {
        let file = file();
        let some = |to: &str, status| Some((to.to_owned(), status));
        assert_eq!(answer(&file, "/old.html"), some("/new.html", 301));
        assert_eq!(answer(&file, "/old.html/"), some("/new.html", 301));
        // A pattern matches in any case, and with slashes doubled.
        assert_eq!(answer(&file, "/OLD.html"), some("/new.html", 301));
        assert_eq!(answer(&file, "//old.html//"), some("/new.html", 301));
        assert_eq!(
            answer(&file, "/blog/2024/a.html"),
            some("/posts/2024/a.html", 302)
        );
        assert_eq!(answer(&file, "/blog"), some("/posts/", 302));
        assert_eq!(
            answer(&file, "/news/2024/05"),
            some("/archive/2024-05.html", 200)
        );
        assert_eq!(answer(&file, "/news/2024"), None);
        // A splat anywhere, escaped back into the path; the path matched
        // decoded.
        assert_eq!(answer(&file, "/a/x%20y/z/end"), some("/b/x%20y/z", 301));
        assert_eq!(answer(&file, "/old%2Ehtml"), some("/new.html", 301));
        // A redirect's query and fragment are dropped.
        assert_eq!(answer(&file, "/moved"), some("/new", 301));
        // `!`, a status GitLab does not take, a condition, another host,
        // another site: left out.
        for path in ["/shop", "/gone", "/fr/page", "/out"] {
            assert_eq!(answer(&file, path), None, "{path}");
        }
        assert_eq!(parse(&file).map(|rules| rules.len()), Ok(5));
    }

    #[test]
    fn a_line_the_parser_cannot_read_leaves_no_rule() {
        assert_eq!(
            parse(FILE),
            Err(Unread::Line(
                8,
                "/store  id=:id  /items/:id.html  301".to_owned()
            ))
        );
        for line in ["/lonely", "/store id=:id /items/:id 301", "/a /b three"] {
            let text = format!("/old.html /new.html\n{line}\n");
            assert_eq!(parse(&text), Err(Unread::Line(2, line.to_owned())));
        }
        let large = format!("/old.html /new.html\n#{}\n", "x".repeat(MAX_SIZE));
        assert_eq!(parse(&large), Err(Unread::TooLarge(large.len(), MAX_SIZE)));
        // Past the thousandth rule, none is tried, those left out counted.
        let mut text = "/x https://other.example/\n".repeat(MAX_RULES);
        text.push_str("/old.html /new.html\n");
        assert_eq!(parse(&text), Ok(Vec::new()));
    }

    /// The pattern gitlab-pages builds of `segments`, as a regex.
    fn regex(segments: &[&str]) -> Option<regex::Regex> {
        let mut pattern = String::from("(?i)^");
        for segment in segments {
            match segment.strip_prefix(':') {
                _ if *segment == "*" => pattern.push_str("/*(?P<splat>.*)/*"),
                Some(name) if is_name(name) => {
                    pattern.push_str(&format!("/+(?P<{name}>[^/]+)"));
                }
                _ => pattern.push_str(&format!("/+{}", regex::escape(segment))),
            }
        }
        pattern.push_str("/*$");
        regex::Regex::new(&pattern).ok()
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn patterns_match_as_a_regex_matches_them(
            segments in proptest::collection::vec(
                proptest::sample::select(vec![
                    "a", "b", "B", "\u{17f}", "K", "*", "*", ":x", ":y", ":splat", "\u{e9}",
                ]),
                0..5,
            ),
            path in proptest::collection::vec(
                proptest::sample::select(vec![
                    "/", "/", "//", "a", "A", "b", "S", "k", "\n", "\u{c9}", "x",
                ]),
                0..9,
            ),
        ) {
            let path: String = path.concat();
            let ours = Pattern::new(&segments).and_then(|p| {
                let mut captures: Vec<(String, String)> = p
                    .captures(&path)?
                    .into_iter()
                    .map(|(n, v)| (n.to_owned(), v.to_owned()))
                    .collect();
                captures.sort();
                Some(captures)
            });
            let theirs = regex(&segments).and_then(|regex| {
                let found = regex.captures(&path)?;
                let mut captures: Vec<(String, String)> = regex
                    .capture_names()
                    .flatten()
                    .filter_map(|name| Some((name.to_owned(), found.name(name)?.as_str().to_owned())))
                    .collect();
                captures.sort();
                Some(captures)
            });
            proptest::prop_assert_eq!(ours, theirs, "{:?} on {:?}", segments, path);
        }
    }
}
