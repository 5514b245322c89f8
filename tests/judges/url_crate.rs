//! Our resolver against the `url` crate (the WHATWG URL Standard, what
//! browsers do), in both modes, with a ratchet on the ways they disagree.
//!
//! Every (base, reference) pair of the fixture tables and of a generated set is
//! resolved by us and by `Url::parse(base)?.join(reference)`. A pair where the
//! answers differ is a disagreement, and must be explained by one of the named
//! classes of `tests/divergences`: the first, in order, whose predicate holds. Each class is one
//! difference a user could read about, and its predicate checks it narrowly:
//! the difference it names must be there, and one specific normalization or
//! rewrite must turn our answer into url's (up to WHATWG normalizations).
//!
//! - In RFC 3986 mode only the [`WHATWG`] classes may explain a disagreement:
//!   our answer must be url's wherever no WHATWG normalization applies.
//! - In RFC 1808 mode the [`RFC1808`] classes are tried first: one RFC 1808
//!   rule must turn our answer into our RFC 3986 answer, and that one must
//!   agree with url up to a WHATWG class. Otherwise the WHATWG classes are
//!   tried, with the RFC 1808 resolver.
//!
//! The classes that occur are listed in `fixtures/divergences/<mode>.txt`. The
//! test fails on a disagreement no class explains, on a class that occurs but
//! is not listed, and on a listed class that no longer occurs; each failure
//! names examples. Run with `--nocapture` for the count of each class.

use crate::common;
use crate::divergences;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use divergences::{Pair, classify, listed_classes};
use htmlabs::Standard;
use url::{ParseError, Url};

/// References are all concatenations of one to three of these pieces, chosen
/// where the standards part ways: dot segments (also percent-encoded, in both
/// cases), `;params`, an empty or present query, fragment and net_loc, a
/// same-scheme prefix (`http:`), and a character url percent-encodes (`é`).
const PIECES: &[&str] = &[
    ".", "..", "g", ";x", "?y", "#s", "//h", "/", "", "%2e", "%2E%2e", "./", "../", "g/", "http:",
    "é",
];

/// Absolute bases, each with something the standards read differently.
const BASES: &[&str] = &[
    // RFC 1808's own base: path, params, query and fragment.
    "http://a/b/c/d;p?q#f",
    // No params, query or fragment; then a trailing slash.
    "http://a/b/c/d",
    "http://a/b/c/",
    // No path at all; and RFC 1808 §2.4.3 reads `a?q` as the net_loc.
    "http://a",
    "http://a?q",
    // An empty query, and a fragment only.
    "http://a/b?",
    "https://a/b/c#f",
    // Userinfo and port; an uppercase host and a default port.
    "http://u:pw@h:8080/a/b",
    "http://A.Example:80/b/c",
    // An empty net_loc; a non-special scheme with an authority.
    "file:///etc/passwd",
    "foo://h/a/b",
    // Paths that do not start with a slash (url calls them opaque).
    "mailto:user@host",
    "news:comp.lang",
    // An absolute path and no authority: a path starting with `//` cannot be
    // written as it is.
    "foo:/a/b",
    // RFC 1738's ftp type on the last segment.
    "ftp://h/d;type=d",
];

/// The references: every concatenation of one to three [`PIECES`], once each.
fn generated_references() -> BTreeSet<String> {
    let mut references = BTreeSet::new();
    for a in PIECES {
        references.insert(a.to_string());
        for b in PIECES {
            references.insert(format!("{a}{b}"));
            for c in PIECES {
                references.insert(format!("{a}{b}{c}"));
            }
        }
    }
    references
}

/// One (base, reference) pair resolved three ways.
struct Resolved {
    base: String,
    reference: String,
    rfc1808: String,
    rfc3986: String,
    theirs: Result<String, ParseError>,
}

impl Resolved {
    fn ours(&self, mode: Standard) -> &str {
        match mode {
            Standard::Rfc1808 => &self.rfc1808,
            Standard::Rfc3986 => &self.rfc3986,
        }
    }

    fn pair(&self, mode: Standard) -> Pair<'_> {
        Pair {
            resolver: mode,
            base: &self.base,
            reference: &self.reference,
            ours: self.ours(mode),
            modern: &self.rfc3986,
            theirs: &self.theirs,
        }
    }

    /// `base` + `reference`: ours `...`, url `...`, for failure messages.
    fn describe(&self, mode: Standard) -> String {
        let theirs = match &self.theirs {
            Ok(url) => format!("`{url}`"),
            Err(e) => format!("error `{e}`"),
        };
        format!(
            "`{}` + `{}`: ours `{}`, url {theirs}",
            self.base,
            self.reference,
            self.ours(mode)
        )
    }
}

/// Every fixture row, then every generated pair; each (base, reference) once.
/// Returns the pairs and how many came from each source.
fn resolve_all() -> (Vec<Resolved>, usize, usize) {
    let mut seen = BTreeSet::new();
    let mut inputs = Vec::new();
    for dir in ["rfc1808", "rfc3986"] {
        for case in common::load_table(dir) {
            if seen.insert((case.base.clone(), case.reference.clone())) {
                inputs.push((case.base, case.reference));
            }
        }
    }
    let from_fixtures = inputs.len();
    let references = generated_references();
    for base in BASES {
        for reference in &references {
            if seen.insert((base.to_string(), reference.clone())) {
                inputs.push((base.to_string(), reference.clone()));
            }
        }
    }
    let generated = inputs.len() - from_fixtures;

    let mut parsed_bases: BTreeMap<String, Result<Url, ParseError>> = BTreeMap::new();
    let resolved = inputs
        .into_iter()
        .map(|(base, reference)| {
            let parsed = parsed_bases
                .entry(base.clone())
                .or_insert_with(|| Url::parse(&base));
            let theirs = parsed
                .as_ref()
                .map_err(|e| *e)
                .and_then(|b| b.join(&reference))
                .map(|u| u.as_str().to_owned());
            Resolved {
                rfc1808: Standard::Rfc1808.resolve(&base, &reference).into_owned(),
                rfc3986: Standard::Rfc3986.resolve(&base, &reference).into_owned(),
                base,
                reference,
                theirs,
            }
        })
        .collect();
    (resolved, from_fixtures, generated)
}

/// How many examples of a failing group a message shows.
const SHOWN: usize = 10;

/// The `n` cases with the shortest references, the easiest to read; fixture
/// rows first among equals.
fn simplest<'r>(cases: &[&'r Resolved], n: usize) -> Vec<&'r Resolved> {
    let mut cases = cases.to_vec();
    cases.sort_by_key(|r| r.reference.chars().count());
    cases.truncate(n);
    cases
}

fn ratchet(mode: Standard, file: &str) {
    let (resolved, from_fixtures, generated) = resolve_all();
    assert!(
        generated >= 10_000,
        "only {generated} generated pairs: the pieces or bases were cut"
    );
    let listed = listed_classes(file);

    let mut by_class: BTreeMap<&str, Vec<&Resolved>> = BTreeMap::new();
    let mut unexplained = Vec::new();
    for r in &resolved {
        if r.theirs.as_deref() == Ok(r.ours(mode)) {
            continue;
        }
        match classify(&r.pair(mode)) {
            Some(class) => by_class.entry(class).or_default().push(r),
            None => unexplained.push(r),
        }
    }

    let disagreements = by_class.values().map(Vec::len).sum::<usize>() + unexplained.len();
    println!(
        "{mode:?}: {} pairs ({from_fixtures} from fixtures, {generated} generated), {disagreements} disagreements with url",
        resolved.len()
    );
    for (class, cases) in &by_class {
        let example = simplest(cases, 1).pop().unwrap();
        println!(
            "  {class:<34} {:>6}   e.g. {}",
            cases.len(),
            example.describe(mode)
        );
    }
    if !unexplained.is_empty() {
        println!("  {:<34} {:>6}", "(no class)", unexplained.len());
    }

    let mut problems = String::new();
    let examples = |cases: &[&Resolved]| -> String {
        simplest(cases, SHOWN)
            .iter()
            .map(|r| format!("\n    {}", r.describe(mode)))
            .collect()
    };
    if !unexplained.is_empty() {
        let _ = write!(
            problems,
            "\n{} disagreements match no class (a resolver bug, or a class to add):{}",
            unexplained.len(),
            examples(&unexplained)
        );
    }
    for (class, cases) in &by_class {
        if !listed.contains(*class) {
            let _ = write!(
                problems,
                "\nclass `{class}` occurs {} times but is not listed in fixtures/divergences/{file}:{}",
                cases.len(),
                examples(cases)
            );
        }
    }
    for class in &listed {
        if !by_class.contains_key(class.as_str()) {
            let _ = write!(
                problems,
                "\nclass `{class}` is listed in fixtures/divergences/{file} but no longer occurs: remove it"
            );
        }
    }
    assert!(problems.is_empty(), "{mode:?} against url:{problems}");
}

#[test]
fn rfc1808_divergences_from_url_are_listed() {
    ratchet(Standard::Rfc1808, "rfc1808.txt");
}

#[test]
fn rfc3986_divergences_from_url_are_whatwg_normalizations_listed() {
    ratchet(Standard::Rfc3986, "rfc3986.txt");
}
