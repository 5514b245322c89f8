//! Our resolver against the `url` crate (the WHATWG URL Standard, what
//! browsers do), in both modes, with a ratchet on the ways they disagree.
//!
//! Every (base, reference) pair of the fixture tables and of a generated set is
//! resolved by us and by `Url::parse(base)?.join(reference)`. A pair where the
//! answers differ is a disagreement, and must be explained by one of the named
//! classes below: the first, in order, whose predicate holds. Each class is one
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

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use htmlabs::{Standard, rfc1808, rfc3986};
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

/// One disagreement, with everything a class may look at.
#[derive(Clone, Copy)]
struct Pair<'a> {
    /// The mode being classified, and the resolver WHATWG classes use for a
    /// rewritten reference.
    resolver: Standard,
    base: &'a str,
    reference: &'a str,
    /// Our answer in that mode.
    ours: &'a str,
    /// Our RFC 3986 answer, which the RFC 1808 classes lead to.
    modern: &'a str,
    /// url's answer, `as_str()`, or its error.
    theirs: &'a Result<String, ParseError>,
}

/// A named divergence class: `matches` is tried on a disagreement.
struct Class {
    name: &'static str,
    matches: fn(&Pair) -> bool,
}

/// WHATWG behaviours, in the order they are tried. They apply in both modes.
const WHATWG: &[Class] = &[
    // url resolves nothing but a fragment against a base whose path does not
    // start with `/` after the scheme (an "opaque path": `mailto:a@b`,
    // `news:x`). The RFCs resolve it (`mailto:a@b` + `g` → `mailto:g`).
    Class {
        name: "opaque-base-rejected",
        matches: |p| *p.theirs == Err(ParseError::RelativeUrlWithCannotBeABaseBase),
    },
    // url rejects a special URL (http, https, ftp, ws, wss, file) whose
    // authority it cannot parse: an empty host (`//`, `http:?y`, and `///h`,
    // where the URL Standard itself would read the host `h`), a port that is
    // not a number (`//h:x`), a host IDNA refuses. The RFCs copy the authority
    // as it is written. Recognised when url rejects our answer with the same
    // error, or our answer has an empty authority where url finds no host.
    Class {
        name: "authority-rejected",
        matches: |p| {
            let Err(e) = p.theirs else {
                return false;
            };
            let authority_error = matches!(
                e,
                ParseError::EmptyHost
                    | ParseError::InvalidPort
                    | ParseError::IdnaError
                    | ParseError::InvalidDomainCharacter
            );
            let empty_authority =
                *e == ParseError::EmptyHost && rfc3986::parse(p.ours).authority == Some("");
            authority_error && (Url::parse(p.ours).err() == Some(*e) || empty_authority)
        },
    },
    // url reads `http:g` against an http base as the relative `g` (the
    // "non-strict" parser RFC 3986 §5.2.2 mentions for backward
    // compatibility); the strict parser keeps `http:g`, and so does RFC 1808.
    Class {
        name: "same-scheme-relative",
        matches: |p| {
            let Some(rest) = same_special_scheme_rest(p.base, p.reference) else {
                return false;
            };
            if rest.starts_with("//") {
                return false;
            }
            // What follows the scheme is a relative reference; `./` keeps a
            // colon in its first segment from being read as a scheme.
            let relative = if rest.is_empty() || rest.starts_with(['/', '?', '#']) {
                rest.to_owned()
            } else {
                format!("./{rest}")
            };
            whatwg_agrees(p, &relative)
        },
    },
    // url writes every special URL with `//` and a host, whatever number of
    // slashes follows the scheme: `http:g`, `http:/g` and `http:///g` are
    // `http://g/` (against a base of another scheme), `file:/x` is
    // `file:///x`. The RFCs read `g` as a path, and `///g` as an empty
    // authority and the path `/g`.
    Class {
        name: "special-scheme-slashes",
        matches: |p| {
            // Such a reference names the host url will read, so it is
            // rewritten before resolving: the RFCs would remove dot segments
            // from it as from a path.
            let reference = match special_scheme_rest(p.reference) {
                Some(rest) if slashes_not_read_as_url_does(p.reference) => {
                    let scheme = &p.reference[..p.reference.len() - rest.len() - 1];
                    format!("{scheme}://{}", rest.trim_start_matches('/'))
                }
                _ => p.reference.to_owned(),
            };
            (slashes_not_read_as_url_does(p.reference) || slashes_not_read_as_url_does(p.ours))
                && whatwg_agrees(p, &reference)
        },
    },
    // url keeps dot segments in an opaque path (`foo:./g`, `x:..`); RFC 3986
    // §5.2.2 removes them from every absolute reference's path.
    Class {
        name: "opaque-path-dot-segments-kept",
        matches: |p| {
            let r = rfc3986::parse(p.reference);
            r.scheme.is_some_and(|s| !is_special(s))
                && r.authority.is_none()
                && !r.path.starts_with('/')
                && rfc3986::remove_dot_segments(r.path) != r.path
                && p.theirs.as_deref().ok() == canonical(p.reference).as_deref()
        },
    },
    // url reads `%2e` and `%2E` as `.` in a path segment, so `%2e%2e/` goes up
    // a level. To the RFCs `%2e` is a character like any other.
    Class {
        name: "percent-encoded-dot-segments",
        matches: |p| {
            decode_dot_segments(p.reference) != p.reference && whatwg_agrees(p, p.reference)
        },
    },
    // url gives a special URL with an authority and no path the path `/`:
    // `http://a` + `?y` → `http://a/?y`, `//h` → `http://h/`.
    Class {
        name: "special-empty-path-is-slash",
        matches: |p| {
            let c = rfc3986::parse(p.ours);
            c.scheme.is_some_and(is_special)
                && c.authority.is_some()
                && c.path.is_empty()
                && whatwg_agrees(p, p.reference)
        },
    },
    // url removes the empty segments at the start of a file URL's path
    // (`file://h//x` → `file://h/x`); the RFCs keep them.
    Class {
        name: "file-leading-empty-segments-removed",
        matches: |p| {
            let c = rfc3986::parse(p.ours);
            c.scheme.is_some_and(|s| s.eq_ignore_ascii_case("file"))
                && c.path.starts_with("//")
                && whatwg_agrees(p, p.reference)
        },
    },
    // url canonicalizes the host and port: lowercase, `%2e` decoded, IDNA
    // (`é` → `xn--9ca`), the scheme's default port dropped. The RFCs copy the
    // authority as it is written.
    Class {
        name: "host-canonicalized",
        matches: |p| {
            let Some(authority) = rfc3986::parse(p.ours).authority else {
                return false;
            };
            let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
            let url_host_port = Url::parse(p.ours).ok().map(|u| {
                let host = u.host_str().unwrap_or("").to_owned();
                match u.port() {
                    Some(port) => format!("{host}:{port}"),
                    None => host,
                }
            });
            url_host_port.is_some_and(|h| h != host_port) && whatwg_agrees(p, p.reference)
        },
    },
    // url percent-encodes what it does not allow in a path, query or fragment
    // (non-ASCII, space, `"<>` and a few more); the resolvers copy characters
    // as they are written.
    Class {
        name: "percent-encoded",
        matches: |p| {
            let c = rfc3986::parse(p.ours);
            [Some(c.path), c.query, c.fragment]
                .into_iter()
                .flatten()
                .any(|s| s.chars().any(url_encodes))
                && whatwg_agrees(p, p.reference)
        },
    },
];

/// An RFC 1808 rule that RFC 3986 (and url) replaced: `modernize` gives our
/// answer with that rule replaced by RFC 3986's, or `None` where the rule
/// plays no part.
struct Rule {
    name: &'static str,
    modernize: fn(&Pair) -> Option<String>,
}

/// The RFC 1808 rules, in the order they are tried.
const RFC1808: &[Rule] = &[
    // §2.4.3: the net_loc runs to the next `/`, so `http://a?q` has the
    // net_loc `a?q` and no query, and references inherit it
    // (`g` → `http://a?q/g`). RFC 3986 and url end the host at `?`.
    // Recognised by its shape: the answer inherited such a net_loc.
    Rule {
        name: "query-in-net-loc",
        modernize: |p| {
            let base = rfc1808::parse(p.base).net_loc;
            (base.is_some_and(|n| n.contains('?')) && rfc1808::parse(p.ours).net_loc == base)
                .then(|| p.modern.to_owned())
        },
    },
    // §2.4.2: a scheme is `1*( alpha | digit | "+" | "-" | "." )`, so `..g:h`
    // and `1a:b` are absolute. RFC 3986 and url need a letter first.
    Rule {
        name: "scheme-starts-with-non-letter",
        modernize: |p| {
            (rfc1808::scheme_len(p.reference).is_some()
                && rfc3986::scheme_len(p.reference).is_none()
                && p.ours == p.reference)
                .then(|| p.modern.to_owned())
        },
    },
    // §4 step 2a: the empty reference is the whole base, fragment included.
    // RFC 3986 and url drop the base's fragment.
    Rule {
        name: "empty-reference-keeps-fragment",
        modernize: |p| {
            let (without, _) = p.ours.split_once('#')?;
            p.reference.is_empty().then(|| without.to_owned())
        },
    },
    // §2.1: `;params` are a component of the last segment, not part of the
    // path: `;x` replaces the base's params (`d;p` → `d;x`), `..;x` is `..`
    // with params. RFC 3986 and url see `;` as a path character: resolved by
    // RFC 1808 with `;` hidden in a plain character. Only for a reference
    // that writes params, so that this rule cannot hide a fault elsewhere.
    Rule {
        name: "params-own-component",
        modernize: |p| {
            const HIDDEN: char = '\u{E000}';
            let hide = |s: &str| s.replace(';', "\u{E000}");
            let applies = p.reference.contains(';')
                && !p.base.contains(HIDDEN)
                && !p.reference.contains(HIDDEN);
            applies
                .then(|| rfc1808::resolve(&hide(p.base), &hide(p.reference)).replace(HIDDEN, ";"))
        },
    },
    // §2.4: a delimiter with nothing after it is an empty component, and an
    // empty component is inherited (§4 steps 3 and 5): `?` keeps the base's
    // query; `//` goes on to inherit the base's net_loc and path. RFC 3986 and
    // url take the empty query, and the empty authority with no path.
    Rule {
        name: "empty-component-inherited",
        modernize: |p| {
            let r = rfc1808::parse(p.reference);
            if r.net_loc == Some("") {
                // Recognised by its shape: RFC 3986 keeps nothing of the base
                // but the scheme.
                return Some(p.modern.to_owned());
            }
            let empty_query = rfc1808::Components {
                query: Some(""),
                ..rfc1808::parse(p.ours)
            };
            (r.query == Some("")).then(|| empty_query.to_string())
        },
    },
    // §4 step 6c and 6d remove `<segment>/..` only where there is such a
    // segment, so a `..` above the root stays (`../../../g` → `http://a/../g`).
    // RFC 3986 and url drop it.
    Rule {
        name: "dotdot-above-root-kept",
        modernize: |p| {
            // The path as RFC 3986 reads it, `;params` included, so that `..`
            // followed by params is the segment RFC 3986 sees.
            let ours = rfc3986::parse(p.ours);
            Some(with_path(ours, &drop_dotdot_above_root(ours.path)))
        },
    },
    // §4: only step 6, for a relative path, removes dot segments; a reference
    // with a scheme, a net_loc or a path starting with `/` keeps them
    // (`/./g` → `http://a/./g`). RFC 3986 removes them from every path.
    Rule {
        name: "dot-segments-kept-outside-step-6",
        modernize: |p| {
            let ours = rfc3986::parse(p.ours);
            Some(with_path(ours, &rfc3986::remove_dot_segments(ours.path)))
        },
    },
];

/// `c` with the path `path`, written as both resolvers write a path: with
/// `/.` in front where it starts with `//` and there is no authority, which
/// would read it back as one (the decision of `src/url/mod.rs`).
fn with_path(c: rfc3986::Components, path: &str) -> String {
    let path = match c.authority {
        None if path.starts_with("//") => format!("/.{path}"),
        _ => path.to_owned(),
    };
    rfc3986::Components { path: &path, ..c }.to_string()
}

/// The first RFC 1808 rule that leads from our answer to the RFC 3986 one,
/// alone or followed by `more` other rules (a pair may meet two rules, as
/// `../.;x` from `http://a` meets `;params` and `..` above the root).
fn rfc1808_rule(p: &Pair, more: usize) -> Option<&'static str> {
    let leads_to_modern = |rule: &&Rule| {
        (rule.modernize)(p).is_some_and(|answer| {
            answer != p.ours
                && (answer == p.modern
                    || more > 0
                        && rfc1808_rule(
                            &Pair {
                                ours: &answer,
                                ..*p
                            },
                            more - 1,
                        )
                        .is_some())
        })
    };
    RFC1808.iter().find(leads_to_modern).map(|rule| rule.name)
}

/// Whether url's answer is ours for `reference` (a WHATWG rewrite of the
/// pair's reference) up to WHATWG normalizations: the `%2e` segments read as
/// dot segments before resolving (after, a following `..` may already have
/// removed them), then whatever url does to an absolute URL it parses (empty
/// path, host, percent-encoding, slashes).
fn whatwg_agrees(p: &Pair, reference: &str) -> bool {
    let reference = decode_dot_segments(reference);
    let ours = p.resolver.resolve(p.base, &reference);
    p.theirs
        .as_deref()
        .ok()
        .is_some_and(|t| canonical(&ours).as_deref() == Some(t))
}

/// url's serialization of an absolute URL.
fn canonical(absolute: &str) -> Option<String> {
    Url::parse(absolute).ok().map(|u| u.as_str().to_owned())
}

/// The WHATWG reading of `%2e`: a path segment that is `.` or `..` once its
/// `%2e`/`%2E` are decoded is that dot segment. A reference with a scheme and
/// no authority is left alone: url may read its first segment as a host or
/// an opaque path.
fn decode_dot_segments(reference: &str) -> String {
    let c = rfc3986::parse(reference);
    if c.scheme.is_some() && c.authority.is_none() {
        return reference.to_owned();
    }
    let path: Vec<String> = c
        .path
        .split('/')
        .map(|segment| {
            let decoded = segment.replace("%2e", ".").replace("%2E", ".");
            if decoded == "." || decoded == ".." {
                decoded
            } else {
                segment.to_owned()
            }
        })
        .collect();
    let path = path.join("/");
    rfc3986::Components { path: &path, ..c }.to_string()
}

/// The special schemes of the URL Standard, which url parses with a host.
fn is_special(scheme: &str) -> bool {
    ["http", "https", "ftp", "ws", "wss", "file"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(scheme))
}

/// What follows the colon of `s`, if `s` starts with a special scheme.
fn special_scheme_rest(s: &str) -> Option<&str> {
    let scheme = rfc3986::parse(s).scheme.filter(|s| is_special(s))?;
    Some(&s[scheme.len() + 1..])
}

/// Whether `s` has a special scheme that RFC 3986 reads with no authority
/// (`http:g`, `file:/x`) or an empty one that url skips (`http:///g`), where
/// url reads a host after any number of slashes. `file:///x` is not one:
/// url keeps its empty host.
fn slashes_not_read_as_url_does(s: &str) -> bool {
    let c = rfc3986::parse(s);
    let Some(scheme) = c.scheme.filter(|s| is_special(s)) else {
        return false;
    };
    match c.authority {
        None => true,
        Some("") => !scheme.eq_ignore_ascii_case("file"),
        Some(_) => false,
    }
}

/// What follows the scheme of `reference`, if its scheme is the base's and
/// special.
fn same_special_scheme_rest<'r>(base: &str, reference: &'r str) -> Option<&'r str> {
    let scheme = rfc3986::parse(reference).scheme?;
    let base_scheme = rfc3986::parse(base).scheme?;
    (is_special(scheme) && scheme.eq_ignore_ascii_case(base_scheme))
        .then(|| &reference[scheme.len() + 1..])
}

/// Characters url percent-encodes in at least one of path, query, fragment.
fn url_encodes(c: char) -> bool {
    !c.is_ascii() || c.is_ascii_control() || matches!(c, ' ' | '"' | '<' | '>' | '`' | '{' | '}')
}

/// RFC 3986's rule C at the root: `..` segments that have nothing to remove
/// are dropped (`/../g` → `/g`, `/..` → `/`, `../g` → `g`).
fn drop_dotdot_above_root(path: &str) -> String {
    let (root, mut rest) = match path.strip_prefix('/') {
        Some(rest) => ("/", rest),
        None => ("", path),
    };
    loop {
        if let Some(after) = rest.strip_prefix("../") {
            rest = after;
        } else if rest == ".." {
            rest = "";
        } else {
            break;
        }
    }
    format!("{root}{rest}")
}

/// The class of a disagreement, or `None` if no class explains it.
fn classify(pair: &Pair) -> Option<&'static str> {
    let whatwg = |p: &Pair| WHATWG.iter().find(|c| (c.matches)(p)).map(|c| c.name);
    if pair.resolver == Standard::Rfc3986 || pair.ours == pair.modern {
        // WHATWG classes only. Where the RFCs agree, RFC 1808 played no part,
        // and a rewritten reference is resolved by RFC 3986 so that it does
        // not run into an RFC 1808 rule.
        return whatwg(&Pair {
            resolver: Standard::Rfc3986,
            ..*pair
        });
    }
    // RFC 1808 made the difference: one of its rules (or two) must lead from
    // our answer to the RFC 3986 one, which must be url's up to a WHATWG class.
    let modern = Pair {
        resolver: Standard::Rfc3986,
        ours: pair.modern,
        ..*pair
    };
    if pair.theirs.as_deref() == Ok(pair.modern) || whatwg(&modern).is_some() {
        if let Some(rule) = rfc1808_rule(pair, 1) {
            return Some(rule);
        }
    }
    // Or RFC 1808's answer is nearer url's than RFC 3986's is (`http://a` +
    // `#sé`: RFC 1808 and url both give the empty path `/`).
    whatwg(pair)
}

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

/// The classes listed in `fixtures/divergences/<file>`: `name<TAB>description`
/// lines, `#` comments.
fn listed_classes(file: &str) -> BTreeSet<String> {
    let path = common::fixtures().join("divergences").join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut names = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let Some((name, description)) = line.split_once('\t') else {
            panic!("divergences/{file}:{}: want `name<TAB>description`", i + 1);
        };
        assert!(
            !description.trim().is_empty(),
            "divergences/{file}:{}: `{name}` has no description",
            i + 1
        );
        assert!(
            names.insert(name.to_owned()),
            "divergences/{file}:{}: `{name}` is listed twice",
            i + 1
        );
    }
    names
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
