//! The named classes of the ways a resolution differs from what the WHATWG
//! URL Standard (browsers, the `url` crate) makes of the same pair, shared by
//! `tests/judges/url_crate.rs` (against url) and `tests/judges/chromium.rs` (against
//! Chromium). `fixtures/divergences/<mode>.txt` lists and describes them.

#![allow(dead_code)]

use std::collections::BTreeSet;

use htmlabs::{Standard, rfc1808, rfc3986};
use url::{ParseError, Url};

use super::common;

/// One disagreement, with everything a class may look at.
#[derive(Clone, Copy)]
pub struct Pair<'a> {
    /// The mode being classified, and the resolver WHATWG classes use for a
    /// rewritten reference.
    pub resolver: Standard,
    pub base: &'a str,
    pub reference: &'a str,
    /// Our answer in that mode.
    pub ours: &'a str,
    /// Our RFC 3986 answer, which the RFC 1808 classes lead to.
    pub modern: &'a str,
    /// url's answer, `as_str()`, or its error.
    pub theirs: &'a Result<String, ParseError>,
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
    // Step 7 writes a path that starts with `//` and has no net_loc after an
    // empty net_loc (`foo:/a/b` + `..//g` → `foo:////g`), which counts as
    // absent (src/url/rfc1808/mod.rs). RFC 3986 mode and url write `/.` in
    // front instead (`foo:/.//g`), a path RFC 1808 would not remove the `.`
    // of. Recognised by its shape: an empty net_loc before such a path.
    Rule {
        name: "empty-net-loc-before-double-slash-path",
        modernize: |p| {
            let ours = rfc1808::parse(p.ours);
            (ours.net_loc == Some("") && ours.path.starts_with("//")).then(|| {
                let path = format!("/.{}", ours.path);
                rfc1808::Components {
                    net_loc: None,
                    path: &path,
                    ..ours
                }
                .to_string()
            })
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

/// `c` with the path `path`, written as RFC 3986 mode writes a path: with
/// `/.` in front where it starts with `//` and there is no authority, which
/// would read it back as one (the decision of `src/url/rfc3986.rs`).
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
pub fn canonical(absolute: &str) -> Option<String> {
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
pub fn classify(pair: &Pair) -> Option<&'static str> {
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

/// The classes listed in `fixtures/divergences/<file>`: `name<TAB>description`
/// lines, `#` comments.
pub fn listed_classes(file: &str) -> BTreeSet<String> {
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
