//! Netlify's `_redirects` file (`--check-links --host netlify`): its rules,
//! and what the first that matches a path answers. A line is `FROM
//! [QUERY] TO [STATUS[!]] [CONDITIONS]`: `FROM` a path, whose last
//! segment may be `*` (the rest of the path, `:splat` in `TO`) and whose
//! segments may be `:name` placeholders (one segment each, `:name` in
//! `TO`); `QUERY`'s `key=value` must be in the URL's query (`id=:id` binds
//! `:id`); `STATUS` 301 when not given, 200 a rewrite (the file at `TO`
//! served at `FROM`), 3xx a redirect, any other that status (404: a page
//! that is not there); `!` forces the rule over a file at `FROM` (else the
//! file is served). Rules with conditions on the visitor (a country, a
//! language, a role, a cookie) answer only some visitors, and are not
//! taken; nor are rules for another domain (`https://old.example/*`).
//! Paths match as a browser sends them (escaped: `/café` is
//! `/caf%C3%A9`; case counts), a trailing slash aside, as Netlify matches
//! them. Cloudflare Pages reads the same
//! file (`--host cloudflare-pages`) its own way:
//! [`parse_cloudflare`](Redirects::parse_cloudflare); so does GitLab Pages
//! (`--host gitlab-pages`): [`parse_gitlab`](Redirects::parse_gitlab).

use super::target::{MAX_TARGET, UNREACHABLE, put_in};
use super::{cloudflare, gitlab};

/// The rules of a `_redirects` file, in order, as one host reads them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redirects {
    reading: Reading,
}

/// Whose reading of the file the rules are: each matches its own way.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Reading {
    /// Netlify's, and the `[[redirects]]` of a `netlify.toml` after them.
    Netlify(Vec<Rule>),
    /// GitLab Pages's; or why it reads none of the file.
    Gitlab(Result<Vec<gitlab::Rule>, gitlab::Unread>),
    /// Cloudflare Pages's.
    Cloudflare(cloudflare::Rules),
}

impl Default for Reading {
    fn default() -> Self {
        Reading::Netlify(Vec::new())
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Rule {
    from: Vec<Segment>,
    /// `FROM` ends with `*`.
    splat: bool,
    query: Vec<(String, Segment)>,
    to: String,
    status: u16,
    force: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    Literal(String),
    Placeholder(String),
}

/// What a rule answers a path with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// `TO`, its splat and placeholders filled in: a path of the site or
    /// a URL.
    pub to: String,
    pub status: u16,
    /// `!`: the rule is taken over a file at the path.
    pub force: bool,
}

impl Redirects {
    /// The rules of `text` (a `_redirects` file); lines that are no rule
    /// this reads are left out.
    pub fn parse(text: &str) -> Redirects {
        Redirects {
            reading: Reading::Netlify(text.lines().filter_map(rule).collect()),
        }
    }

    /// The rules of `text`, a `_redirects` file as GitLab Pages reads it
    /// (the module [`gitlab`]'s text says how): a rule is taken over
    /// no file, and answers the path decoded.
    pub fn parse_gitlab(text: &str) -> Redirects {
        Redirects {
            reading: Reading::Gitlab(gitlab::parse(text)),
        }
    }

    /// Why GitLab Pages reads no rule of the file, when it reads none.
    pub fn unread(&self) -> Option<&gitlab::Unread> {
        match &self.reading {
            Reading::Gitlab(Err(unread)) => Some(unread),
            _ => None,
        }
    }

    /// The rules of `text`, a `_redirects` file as Cloudflare Pages reads
    /// it (the module [`cloudflare`]'s text says how): every rule is taken
    /// over a file at `FROM`.
    pub fn parse_cloudflare(text: &str) -> Redirects {
        Redirects {
            reading: Reading::Cloudflare(cloudflare::parse(text)),
        }
    }

    /// Adds the rule from `from` to `to` after those there (a
    /// `[[redirects]]` table of `netlify.toml`, whose rules come after the
    /// `_redirects` file's): `query` the conditions on the URL's query
    /// (`:name` binds a placeholder), `force` the table's `force`. A rule
    /// for another domain is not taken. Netlify's reading alone has them.
    pub fn add(&mut self, from: &str, query: &[(&str, &str)], to: &str, status: u16, force: bool) {
        if let Reading::Netlify(rules) = &mut self.reading {
            rules.extend(Rule::of(from, query, to, status, force));
        }
    }

    /// What the rules hold in memory beside the file's text, at most
    /// (GitLab's and Cloudflare's rules, made of it).
    pub fn size(&self) -> usize {
        match &self.reading {
            Reading::Netlify(_) | Reading::Gitlab(Err(_)) => 0,
            Reading::Gitlab(Ok(rules)) => gitlab::size(rules),
            Reading::Cloudflare(rules) => rules.size(),
        }
    }

    /// What matching one path against the rules takes at most, beside
    /// the path (Cloudflare's patterns: [`cloudflare`]'s rows): drawn for
    /// each worker that may match at once.
    pub fn matching_room(&self) -> usize {
        match &self.reading {
            Reading::Cloudflare(rules) => rules.matching_room(),
            Reading::Netlify(_) | Reading::Gitlab(_) => 0,
        }
    }

    /// How many rules there are.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        match &self.reading {
            Reading::Netlify(rules) => rules.len(),
            Reading::Gitlab(rules) => rules.as_ref().map_or(0, Vec::len),
            Reading::Cloudflare(rules) => rules.len(),
        }
    }

    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// What the first rule that matches `path` (the URL's path, from its
    /// `/`, as written) and `query` (after its `?`, if any) answers.
    pub fn answer(&self, path: &str, query: Option<&str>) -> Option<Answer> {
        let (to, status, force) = match &self.reading {
            Reading::Netlify(rules) => {
                let segments = segments(path);
                let pairs: Vec<(&str, &str)> = query
                    .unwrap_or_default()
                    .split('&')
                    .filter(|pair| !pair.is_empty())
                    .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
                    .collect();
                return rules.iter().find_map(|rule| rule.answer(&segments, &pairs));
            }
            // GitLab takes a rule over no file; Cloudflare over any.
            Reading::Gitlab(rules) => {
                let (to, status) = gitlab::answer(rules.as_ref().ok()?, path)?;
                (to, status, false)
            }
            Reading::Cloudflare(rules) => {
                let (to, status) = rules.answer(path, query)?;
                (to, status, true)
            }
        };
        Some(Answer { to, status, force })
    }
}

/// A line's rule, if it is one this reads.
fn rule(line: &str) -> Option<Rule> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let mut words = line.split_whitespace().peekable();
    let from = words.next()?;
    // The query's conditions stand between `FROM` and `TO`.
    let mut query = Vec::new();
    while let Some(word) = words.next_if(|w| !w.starts_with('/') && !w.contains("://")) {
        let (key, value) = word.split_once('=')?;
        query.push((key, value));
    }
    let to = words.next()?;
    let mut status = 301;
    let mut force = false;
    if let Some(word) = words.next_if(|w| w.trim_end_matches('!').parse::<u16>().is_ok()) {
        status = word.trim_end_matches('!').parse().ok()?;
        force = word.ends_with('!');
    }
    // What is left are conditions on the visitor (its country, language,
    // role, cookie): not every visitor's answer.
    if words.next().is_some() {
        return None;
    }
    Rule::of(from, &query, to, status, force)
}

impl Rule {
    /// The rule from `from` to `to` with its query's conditions
    /// (`key=value`, `:name` a placeholder), if it is one for this site.
    fn of(from: &str, query: &[(&str, &str)], to: &str, status: u16, force: bool) -> Option<Rule> {
        // A rule for a domain (`https://old.example/*`) answers another host.
        if !from.starts_with('/') {
            return None;
        }
        let segment = |value: &str| match value.strip_prefix(':') {
            Some(name) => Segment::Placeholder(name.to_owned()),
            None => Segment::Literal(value.to_owned()),
        };
        let query = query
            .iter()
            .map(|(key, value)| ((*key).to_owned(), segment(value)))
            .collect();
        let mut from = segments(from);
        let splat = from.last() == Some(&"*");
        if splat {
            from.pop();
        }
        Some(Rule {
            from: from.into_iter().map(segment).collect(),
            splat,
            query,
            to: to.to_owned(),
            status,
            force,
        })
    }
}

/// A path's segments, a trailing slash aside (`/a/b/` is `a`, `b`).
fn segments(path: &str) -> Vec<&str> {
    path.trim_matches('/')
        .split('/')
        .filter(|segment| !segment.is_empty())
        .collect()
}

impl Rule {
    fn answer(&self, path: &[&str], query: &[(&str, &str)]) -> Option<Answer> {
        let fixed = self.from.len();
        if path.len() < fixed || (!self.splat && path.len() != fixed) {
            return None;
        }
        let mut bound: Vec<(&str, &str)> = Vec::new();
        for (segment, &given) in self.from.iter().zip(path) {
            match segment {
                Segment::Literal(literal) if literal == given => {}
                Segment::Literal(_) => return None,
                Segment::Placeholder(name) => bound.push((name, given)),
            }
        }
        for (key, value) in &self.query {
            let (_, given) = query.iter().find(|(k, _)| k == key)?;
            match value {
                Segment::Literal(literal) if literal == given => {}
                Segment::Literal(_) => return None,
                Segment::Placeholder(name) => bound.push((name, given)),
            }
        }
        let unreachable = Answer {
            to: String::new(),
            status: UNREACHABLE,
            force: self.force,
        };
        let splat = path[fixed..].join("/");
        let Some(mut to) = put_in(&self.to, ":splat", &splat, MAX_TARGET) else {
            return Some(unreachable);
        };
        // The longest names first: `:id` is no part of `:idx`. A value put
        // in is searched by the next name, so the target may grow with
        // each.
        bound.sort_by_key(|(name, _)| std::cmp::Reverse(name.len()));
        for (name, value) in bound {
            match put_in(&to, &format!(":{name}"), value, MAX_TARGET) {
                Some(put) => to = put,
                None => return Some(unreachable),
            }
        }
        Some(Answer {
            to,
            status: self.status,
            force: self.force,
        })
    }
}

/// A `_redirects` file of Netlify's every kind of line, for the tests of
/// each reading.
#[cfg(test)]
pub(super) const FILE: &str = "# moved pages\n\
        /old.html  /new.html\n\
        /blog/*    /posts/:splat  302\n\
        /news/:year/:month  /archive/:year-:month.html  200\n\
        /shop  /store  301!\n\
        /gone  /404.html  404\n\
        /fr/*  /fr/index.html  200  Language=fr\n\
        /store  id=:id  /items/:id.html  301\n\
        https://old.example/*  https://example.com/:splat  301\n\
        not a rule\n";

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(path: &str, query: Option<&str>) -> Option<(String, u16, bool)> {
        Redirects::parse(FILE)
            .answer(path, query)
            .map(|a| (a.to, a.status, a.force))
    }

    /// A `TO` that its splat and placeholders would grow past the longest
    /// target reaches nothing: Netlify's and GitLab's readings answer so,
    /// and make no such target (a value put in is searched by the next
    /// name, so it may grow with each).
    #[test]
    fn a_target_past_the_longest_reaches_nothing() {
        let text = "/big/*  /x/:splat:splat:splat:splat:splat  301\n\
                    /two/:a/:b  /y/:a:a:a:a/:b  302\n";
        let netlify = Redirects::parse(text);
        let gitlab = Redirects::parse_gitlab(text);
        let fits = "z".repeat((MAX_TARGET - 3) / 5);
        let past = "z".repeat((MAX_TARGET - 3) / 5 + 1);
        for rules in [&netlify, &gitlab] {
            let to = |path: &str| rules.answer(path, None).map(|a| (a.to.len(), a.status));
            assert_eq!(to(&format!("/big/{fits}")), Some((3 + 5 * fits.len(), 301)));
            assert_eq!(to(&format!("/big/{past}")), Some((0, UNREACHABLE)));
        }
        // Netlify's: `:a`'s value holds `:b` four times over, and each is
        // put in.
        let held = ":b".repeat(4);
        let value = "w".repeat(MAX_TARGET / 16);
        let answer = netlify
            .answer(&format!("/two/{held}/{value}"), None)
            .unwrap();
        assert_eq!(answer.status, UNREACHABLE);
        let answer = netlify.answer(&format!("/two/{held}/v"), None).unwrap();
        assert_eq!(answer.to, format!("/y/{}/v", "v".repeat(16)));
    }

    #[test]
    fn the_first_rule_that_matches_answers() {
        let some = |to: &str, status, force| Some((to.to_owned(), status, force));
        assert_eq!(answer("/old.html", None), some("/new.html", 301, false));
        assert_eq!(answer("/old.html/", None), some("/new.html", 301, false));
        assert_eq!(
            answer("/blog/2024/a.html", None),
            some("/posts/2024/a.html", 302, false)
        );
        assert_eq!(answer("/blog", None), some("/posts/", 302, false));
        assert_eq!(
            answer("/news/2024/05", None),
            some("/archive/2024-05.html", 200, false)
        );
        assert_eq!(answer("/news/2024", None), None);
        assert_eq!(answer("/shop", None), some("/store", 301, true));
        assert_eq!(answer("/gone", None), some("/404.html", 404, false));
        assert_eq!(
            answer("/store", Some("id=7&x=1")),
            some("/items/7.html", 301, false)
        );
        assert_eq!(answer("/store", None), None);
        assert_eq!(answer("/Old.html", None), None, "case counts");
        // Only some visitors' rules, and another domain's, are not taken.
        assert_eq!(answer("/fr/page", None), None);
        assert_eq!(Redirects::parse(FILE).len(), 6);
    }

    // Files of rule-like lines (patterns, placeholders, long literals,
    // statuses and conditions) and paths of their pieces: no reading
    // panics, whatever it takes or leaves. (5 million such cases ran clean
    // in release; the code before 2bf2b43 panicked within a few.)
    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]
        #[test]
        fn no_reading_of_any_file_panics_on_any_path(
            lines in proptest::collection::vec(
                (
                    proptest::collection::vec(proptest::sample::select(FROM_PIECES.to_vec()), 0..8),
                    proptest::collection::vec(proptest::sample::select(TO_PIECES.to_vec()), 0..6),
                    proptest::sample::select(vec!["", " 301", " 200", " 302!", " 404", " 301 a=:a", " x"]),
                ),
                0..6,
            ),
            path in proptest::collection::vec(proptest::sample::select(PATH_PIECES.to_vec()), 0..14),
            query in proptest::option::of("[a-z=&:%]{0,8}"),
        ) {
            let text: String = lines
                .iter()
                .map(|(from, to, status)| format!("/{} /{}{status}\n", from.concat(), to.concat()))
                .collect();
            let path = format!("/{}", path.concat());
            let readings = [
                Redirects::parse(&text),
                Redirects::parse_cloudflare(&text),
                Redirects::parse_gitlab(&text),
            ];
            for rules in readings {
                rules.answer(&path, query.as_deref());
                rules.size();
                rules.matching_room();
            }
        }
    }

    const FROM_PIECES: [&str; 15] = [
        "/",
        "*",
        ":a",
        ":b",
        ":splat",
        "x",
        "-",
        "\u{e9}",
        "%2",
        "%C3%A9",
        ".",
        "..",
        "?q=1",
        "https://e.com/",
        "-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa-",
    ];
    const TO_PIECES: [&str; 10] = [
        "/",
        ":a",
        ":b",
        ":splat",
        "x",
        "?y=:a",
        "#f",
        "https://o.com/",
        "..",
        ":a:a:a:a",
    ];
    const PATH_PIECES: [&str; 13] = [
        "/", "x", "-", "\u{e9}", "%2F", "%C3%A9", ".", "..", ":a", "aaaa", "a", "?", "=",
    ];
}
