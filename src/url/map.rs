//! URL mapping (`--map OLD=NEW`): after a value is resolved (RFC 1808 §4),
//! the absolute URL that starts with `OLD` has it replaced by `NEW`. A
//! domain move (`https://old.example/=https://new.example/`), a site
//! deployed under a sub-path, a staging host. Of several rules that match,
//! the longest `OLD` wins, whatever their order.
//!
//! `OLD`'s scheme and host are matched in any case (RFC 1808 §2.1 and
//! RFC 3986 §6.2.2.1: they are case-insensitive), the rest exactly, byte for
//! byte: this is a prefix of the URL as written, not of a URL normalised
//! (the path's case and escapes are the server's to judge).

use std::fmt;
use std::sync::Arc;

use super::layers::{Ignored, unusable};
use super::standard::Standard;

/// One rule: the prefix `from` becomes `to`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MapRule {
    pub from: String,
    pub to: String,
    /// How much of `from` is matched in any case: its scheme, and its
    /// authority when it has one (`https://Example.COM`).
    folded: usize,
    /// `to` starts with `from`: what it maps to, it would map again.
    nested: bool,
    /// [`folded`](Self::folded), of `to`.
    to_folded: usize,
}

impl fmt::Display for MapRule {
    /// As the user writes it: `OLD=NEW`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}={}", self.from, self.to)
    }
}

/// Why a rule cannot be used, said before anything is read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum MapError {
    #[error(
        "--map wants OLD=NEW, two absolute URLs (`https://old.example/=https://new.example/`): `{0}`"
    )]
    NotARule(String),
    /// `NEW` has a scheme whose URLs run script or are the document itself.
    #[error(
        "--map would make links `{scheme}:` URLs, which run script or replace the page: `{rule}`"
    )]
    Script { rule: String, scheme: String },
}

/// The rules of a run, the longest `from` first; none by default.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UrlMap {
    rules: Arc<[Arc<MapRule>]>,
}

impl UrlMap {
    /// The rules the user gave, each `OLD=NEW` as written. A rule splits at
    /// the first `=` that leaves an absolute URL on each side (a query may
    /// hold `=`). `NEW` may be no URL that links must never become (one
    /// that runs script, or `data:`: the rule every base is held to).
    pub fn new(given: &[String], standard: Standard) -> Result<UrlMap, MapError> {
        let mut rules = Vec::with_capacity(given.len());
        for rule in given {
            let (from, to) =
                split(rule, standard).ok_or_else(|| MapError::NotARule(shown(rule)))?;
            if let Some(Ignored::Scheme(scheme)) = unusable(to, standard) {
                return Err(MapError::Script {
                    rule: shown(rule),
                    scheme,
                });
            }
            let mut rule = MapRule {
                from: from.to_owned(),
                to: to.to_owned(),
                folded: folded(from, standard),
                nested: false,
                to_folded: folded(to, standard),
            };
            rule.nested = rule.matches(to);
            rules.push(Arc::new(rule));
        }
        // Longest first: the first that matches is the longest. (A stable
        // sort: of two rules of one `OLD`, the first given wins.)
        rules.sort_by_key(|r| std::cmp::Reverse(r.from.len()));
        Ok(UrlMap {
            rules: rules.into(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The rules, the longest `OLD` first.
    pub fn rules(&self) -> &[Arc<MapRule>] {
        &self.rules
    }

    /// `url` mapped by the longest rule that matches it, and the rule; `None`
    /// when none does. A rule whose `NEW` starts with its `OLD` (a site
    /// moved under a sub-path: `https://h/=https://h/blog/`) leaves a URL
    /// that starts with `NEW` already: a second run changes nothing.
    pub fn apply(&self, url: &str) -> Option<(String, &Arc<MapRule>)> {
        let rule = self.rules.iter().find(|r| r.matches(url))?;
        if rule.nested && rule.matches_to(url) {
            return None;
        }
        let mut mapped = String::with_capacity(rule.to.len() + url.len() - rule.from.len());
        mapped.push_str(&rule.to);
        mapped.push_str(&url[rule.from.len()..]);
        Some((mapped, rule))
    }
}

impl MapRule {
    /// Whether `url` starts with `from`: its folded part in any case.
    fn matches(&self, url: &str) -> bool {
        starts_with(url, &self.from, self.folded)
    }

    /// Whether `url` starts with `to`, as [`matches`](Self::matches) reads.
    fn matches_to(&self, url: &str) -> bool {
        starts_with(url, &self.to, self.to_folded)
    }
}

/// Whether `url` starts with `prefix`, its first `folded` bytes in any case,
/// and the rest of it starts on a character.
pub(super) fn starts_with(url: &str, prefix: &str, folded: usize) -> bool {
    // A character boundary of `url`: the rest of it is text (looked at
    // where it starts, not read through).
    let starts = url.is_char_boundary(prefix.len());
    let (prefix, url) = (prefix.as_bytes(), url.as_bytes());
    url.len() >= prefix.len()
        && url[..folded].eq_ignore_ascii_case(&prefix[..folded])
        && url[folded..prefix.len()] == prefix[folded..]
        && starts
}

/// `OLD` and `NEW` of `rule`: split at the first `=` with an absolute URL
/// on each side.
fn split(rule: &str, standard: Standard) -> Option<(&str, &str)> {
    rule.match_indices('=').find_map(|(at, _)| {
        let (from, to) = (&rule[..at], &rule[at + 1..]);
        (standard.has_scheme(from) && standard.has_scheme(to)).then_some((from, to))
    })
}

/// How much of `from` is its scheme and its authority (`scheme://host:port`),
/// matched in any case.
pub(super) fn folded(from: &str, standard: Standard) -> usize {
    let scheme = standard.scheme_len(from).unwrap_or(0);
    let rest = &from[scheme..];
    // `scheme_len` ends before the colon.
    let rest = rest.strip_prefix(':').unwrap_or(rest);
    let at = from.len() - rest.len();
    match rest.strip_prefix("//") {
        Some(authority) => {
            let end = authority
                .find(['/', '?', '#', ';'])
                .unwrap_or(authority.len());
            at + 2 + end
        }
        None => at,
    }
}

fn shown(value: &str) -> String {
    crate::shown::shown(value.as_bytes()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(rules: &[&str]) -> UrlMap {
        let rules: Vec<String> = rules.iter().map(|r| r.to_string()).collect();
        UrlMap::new(&rules, Standard::Rfc1808).unwrap()
    }

    fn mapped(map: &UrlMap, url: &str) -> Option<String> {
        map.apply(url).map(|(url, _)| url)
    }

    #[test]
    fn the_longest_prefix_wins_whatever_the_order() {
        let m = map(&[
            "https://old.example/=https://new.example/",
            "https://old.example/docs/=https://docs.example/",
        ]);
        assert_eq!(
            mapped(&m, "https://old.example/docs/a.html#x"),
            Some("https://docs.example/a.html#x".to_owned())
        );
        assert_eq!(
            mapped(&m, "https://old.example/blog/?p=1"),
            Some("https://new.example/blog/?p=1".to_owned())
        );
        assert_eq!(mapped(&m, "https://other.example/"), None);
        assert_eq!(mapped(&m, "http://old.example/"), None);
    }

    #[test]
    fn scheme_and_host_match_in_any_case_the_path_exactly() {
        let m = map(&["https://Old.Example/Docs/=https://new.example/"]);
        assert_eq!(
            mapped(&m, "HTTPS://old.example/Docs/a"),
            Some("https://new.example/a".to_owned())
        );
        assert_eq!(mapped(&m, "https://old.example/docs/a"), None);
    }

    #[test]
    fn a_move_under_a_sub_path_maps_once() {
        let m = map(&["https://h.example/=https://h.example/blog/"]);
        let once = mapped(&m, "https://h.example/a.html").unwrap();
        assert_eq!(once, "https://h.example/blog/a.html");
        assert_eq!(mapped(&m, &once), None);
    }

    #[test]
    fn a_rule_splits_where_both_sides_are_urls() {
        let m = map(&["https://a.example/?lang=en=https://b.example/en/"]);
        assert_eq!(m.rules()[0].from, "https://a.example/?lang=en");
        assert_eq!(m.rules()[0].to, "https://b.example/en/");
        assert_eq!(
            m.rules()[0].to_string(),
            "https://a.example/?lang=en=https://b.example/en/"
        );
    }

    #[test]
    fn what_is_no_rule_is_refused_naming_it() {
        let refused = |rule: &str| {
            UrlMap::new(&[rule.to_owned()], Standard::Rfc1808)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            refused("/old/=/new/"),
            "--map wants OLD=NEW, two absolute URLs (`https://old.example/=https://new.example/`): `/old/=/new/`"
        );
        assert_eq!(
            refused("https://a/"),
            "--map wants OLD=NEW, two absolute URLs (`https://old.example/=https://new.example/`): `https://a/`"
        );
        assert_eq!(
            refused("https://a/=javascript:alert(1)//"),
            "--map would make links `javascript:` URLs, which run script or replace the page: `https://a/=javascript:alert(1)//`"
        );
        assert!(refused("https://a/=DATA:text/html,x").contains("`data:` URLs"));
    }
}
