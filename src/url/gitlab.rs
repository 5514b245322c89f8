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

use regex::{Regex, RegexBuilder};

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
    matcher: Matcher,
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

/// The most a rule's pattern may take, compiled and as it searches: a
/// pattern of the most segments a rule may have takes about half.
const PATTERN_LIMIT: usize = 64 * 1024;

/// How `FROM` is matched when it is not the path itself.
#[derive(Debug, Clone)]
enum Matcher {
    /// Its segments, each a name (lowercase): the path's own, in any case.
    Literal(Vec<String>),
    /// Its pattern, with `*` or a `:name`; `None` when it makes none (a
    /// name given twice).
    Pattern(Option<Regex>),
}

impl Rule {
    fn new(from: &str, to: &str, status: u16) -> Rule {
        let segments: Vec<&str> = from.split('/').filter(|s| !s.is_empty()).collect();
        let special = |s: &&str| *s == "*" || s.strip_prefix(':').is_some_and(is_name);
        let matcher = match segments.iter().any(special) {
            false => Matcher::Literal(segments.iter().map(|s| folded(s)).collect()),
            true => {
                // As gitlab-pages builds it: each segment after any number
                // of slashes, any slashes at the end, in any case.
                let mut pattern = String::from("(?i)^");
                for segment in &segments {
                    match segment.strip_prefix(':') {
                        _ if *segment == "*" => pattern.push_str("/*(?P<splat>.*)/*"),
                        Some(name) if is_name(name) => {
                            pattern.push_str(&format!("/+(?P<{name}>[^/]+)"));
                        }
                        _ => {
                            pattern.push_str("/+");
                            pattern.push_str(&regex::escape(segment));
                        }
                    }
                }
                pattern.push_str("/*$");
                let built = RegexBuilder::new(&pattern)
                    .size_limit(PATTERN_LIMIT)
                    .dfa_size_limit(PATTERN_LIMIT)
                    .build();
                Matcher::Pattern(built.ok())
            }
        };
        Rule {
            from: from.to_owned(),
            matcher,
            templated: to.contains('*') || placeholder(to).is_some(),
            to: to.to_owned(),
            status,
        }
    }

    /// What it holds in memory, at most.
    fn size(&self) -> usize {
        let pattern = match self.matcher {
            Matcher::Literal(_) => 0,
            Matcher::Pattern(_) => 2 * PATTERN_LIMIT,
        };
        2 * (self.from.len() + self.to.len()) + 128 + pattern
    }

    /// `TO`, filled in, when the rule matches `path` (decoded, from its
    /// `/`).
    fn matches(&self, path: &str) -> Option<String> {
        if !self.templated && with_slash(&self.from) == with_slash(path) {
            return Some(self.to.clone());
        }
        let captures = match &self.matcher {
            Matcher::Literal(segments) => {
                let given = path.split('/').filter(|s| !s.is_empty()).map(folded);
                if !given.eq(segments.iter().cloned()) {
                    return None;
                }
                None
            }
            Matcher::Pattern(pattern) => Some(pattern.as_ref()?.captures(path)?),
        };
        // `:name` becomes the part of the path its segment matched (none:
        // nothing), then runs of slashes one.
        let mut to = String::new();
        let mut rest = self.to.as_str();
        while let Some((at, name)) = placeholder(rest) {
            to.push_str(&rest[..at]);
            let value = captures.as_ref().and_then(|c| c.name(name));
            to.push_str(&escaped(value.map_or("", |m| m.as_str())));
            rest = &rest[at + 1 + name.len()..];
        }
        to.push_str(rest);
        let mut single = String::with_capacity(to.len());
        for c in to.chars() {
            if !(c == '/' && single.ends_with('/')) {
                single.push(c);
            }
        }
        Some(single)
    }
}

/// What `rules` hold in memory, at most.
pub(super) fn size(rules: &[Rule]) -> usize {
    rules.iter().map(Rule::size).sum()
}

/// A name as a pattern in any case matches it: each character's lowercase.
fn folded(name: &str) -> String {
    name.chars().flat_map(char::to_lowercase).collect()
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

/// What the first rule that matches `path` (decoded, from its `/`)
/// answers: where it leads (a path, its query and fragment dropped), and
/// its status.
pub(super) fn answer(rules: &[Rule], path: &str) -> Option<(String, u16)> {
    rules.iter().find_map(|rule| {
        let to = rule.matches(path)?;
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
        // A splat anywhere, escaped back into the path.
        assert_eq!(answer(&file, "/a/x y/z/end"), some("/b/x%20y/z", 301));
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
}
