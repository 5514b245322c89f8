//! Feeds nobody here wrote (fixtures/feeds: feedparser's own relative-URI
//! and `xml:base` cases, and real feeds from node-feedparser's tests; their
//! README says where each comes from), rewritten by the XML engine with
//! `Standard::Rfc3986`, then read back by feedparser (tests/feed_check.py):
//! the original with feedparser's resolution of relative URIs on, the
//! output with all of it off. Every link it reports of the feed and of each
//! entry, and the href and src of the HTML of each text, must be the same.
//!
//! Where they differ, the difference must be explained by one of the named
//! classes below: the first whose predicate holds. Each is a way feedparser
//! and htmlabs part for a reason a user could read about, and its predicate
//! checks it narrowly. The classes that occur are listed in
//! `fixtures/divergences/feedparser.txt`: the test fails on a difference no
//! class explains, on a class that occurs but is not listed, and on a listed
//! class that no longer occurs. Run with `--nocapture` for the count of
//! each class.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

use htmlabs::{Config, Layers, Standard};

/// One feed: its name (its path in fixtures/feeds), its bytes, and the
/// layers it was retrieved with.
struct Feed {
    name: String,
    bytes: Vec<u8>,
    retrieval: String,
    content_location: Option<String>,
}

fn feeds() -> Vec<Feed> {
    let root = common::fixtures().join("feeds");
    let bases: BTreeMap<String, String> = std::fs::read_to_string(root.join("bases.tsv"))
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (name, url) = l.split_once('\t').expect("name, tab, URL");
            (name.to_owned(), url.to_owned())
        })
        .collect();
    let mut feeds = Vec::new();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    for dir in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e == "xml" || e == "atom" || e == "rss")
            })
            .collect();
        files.sort();
        for file in files {
            let name = file
                .strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let bytes = std::fs::read(&file).unwrap();
            let header = String::from_utf8_lossy(&bytes)
                .lines()
                .take_while(|l| !l.starts_with("-->"))
                .find_map(|l| l.strip_prefix("Header:"))
                .and_then(|h| h.trim().strip_prefix("Content-Location:"))
                .map(|url| url.trim().to_owned());
            let retrieval = bases
                .get(&name)
                .cloned()
                .unwrap_or_else(|| format!("http://127.0.0.1:8097/{name}"));
            feeds.push(Feed {
                name,
                bytes,
                retrieval,
                content_location: header,
            });
        }
    }
    feeds
}

/// The layers of a feed, as a source would give them: a Content-Location
/// that cannot be a base is passed over.
fn layers(feed: &Feed) -> Layers {
    let standard = Standard::Rfc3986;
    let layers = Layers::default()
        .with_retrieval(standard, &feed.retrieval, "--retrieved-from")
        .unwrap();
    match &feed.content_location {
        Some(url) => layers
            .clone()
            .with_encapsulating(standard, url, "Content-Location:")
            .unwrap_or(layers),
        None => layers,
    }
}

/// A value where the two part.
#[derive(Debug)]
struct Difference {
    feed: String,
    field: String,
    feedparser: Option<String>,
    htmlabs: Option<String>,
}

#[test]
fn feedparser_reads_the_links_it_resolves_itself() {
    let Some(python) = common::python_with(
        &["feedparser"],
        "feedparser_reads_the_links_it_resolves_itself",
    ) else {
        return;
    };
    let feeds = feeds();
    assert!(
        feeds.len() >= 100,
        "fixtures/feeds holds {} feeds",
        feeds.len()
    );
    let (compared, found, unexplained) = check(&python, &feeds);
    // Most of what feedparser reads agrees: the check reads something.
    assert!(compared >= 400, "{compared} values compared");
    let listed = listed_classes();
    let mut failures = Vec::new();
    if !unexplained.is_empty() {
        failures.push(format!(
            "differences no class explains:\n  {}",
            unexplained.join("\n  ")
        ));
    }
    for (class, examples) in &found {
        if !listed.contains(*class) {
            failures.push(format!(
                "class `{class}` occurs but is not listed in fixtures/divergences/feedparser.txt, e.g. {}",
                examples[0]
            ));
        }
    }
    for class in &listed {
        if !found.contains_key(class.as_str()) {
            failures.push(format!(
                "class `{class}` is listed in fixtures/divergences/feedparser.txt but no longer occurs"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The feeds among the XML engine's golden cases (fixtures/xml: nested
/// `xml:base`s, some left relative to an outer one made absolute; RSS in
/// UserLand's namespace; entities), which were written here: feedparser
/// reads in each what it resolves in the original, with no difference at
/// all.
#[test]
fn feedparser_reads_the_golden_feeds_as_it_resolves_them() {
    let Some(python) = common::python_with(
        &["feedparser"],
        "feedparser_reads_the_golden_feeds_as_it_resolves_them",
    ) else {
        return;
    };
    let root = common::fixtures().join("xml");
    let mut feeds = Vec::new();
    for case in [
        "xml-base",
        "xml-base-nested",
        "xml-base-white-space",
        "rss2-userland-namespace",
    ] {
        let args = std::fs::read_to_string(root.join(case).join("args")).unwrap();
        let args: Vec<&str> = args.lines().collect();
        assert_eq!(args[0], "-r", "{case}/args");
        feeds.push(Feed {
            name: format!("xml/{case}"),
            bytes: std::fs::read(root.join(case).join("input.xml")).unwrap(),
            retrieval: args[1].to_owned(),
            content_location: None,
        });
    }
    let (compared, _, unexplained) = check(&python, &feeds);
    assert!(compared >= 30, "{compared} values compared");
    assert!(
        unexplained.is_empty(),
        "differences:\n  {}",
        unexplained.join("\n  ")
    );
}

/// A named class and the differences it explains.
type Found = BTreeMap<&'static str, Vec<String>>;

/// Rewrites each feed (RFC 3986, as feedparser resolves) and has
/// feed_check.py read both: how many values it compared, the differences
/// each class explains, and those none does.
fn check(python: &Path, feeds: &[Feed]) -> (u64, Found, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    let mut originals = BTreeMap::new();
    for (i, feed) in feeds.iter().enumerate() {
        let layers = layers(feed);
        let base = layers.outer().url.to_string();
        let config = {
            let mut config = Config::default();
            config.standard = Standard::Rfc3986;
            config
        };
        let (output, _) =
            htmlabs::rewrite_bytes(htmlabs::Type::Xml, config, layers, &feed.bytes).unwrap();
        let original = dir.path().join(format!("{i}.in"));
        let rewritten = dir.path().join(format!("{i}.out"));
        std::fs::write(&original, &feed.bytes).unwrap();
        std::fs::write(&rewritten, &output).unwrap();
        cases.push(serde_json::json!({
            "name": feed.name,
            "original": original,
            "output": rewritten,
            "base": base,
        }));
        originals.insert(feed.name.clone(), (feed, base));
    }
    let list = dir.path().join("cases.json");
    std::fs::write(&list, serde_json::to_vec(&cases).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/feed_check.py");
    let run = Command::new(python)
        .arg(script)
        .arg(&list)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "feed_check.py: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut compared = 0;
    let mut differences = Vec::new();
    for line in String::from_utf8(run.stdout).unwrap().lines() {
        let value: serde_json::Value = serde_json::from_str(line).unwrap();
        if let Some(n) = value["compared"].as_u64() {
            compared += n;
            continue;
        }
        differences.push(Difference {
            feed: value["name"].as_str().unwrap().to_owned(),
            field: value["field"].as_str().unwrap().to_owned(),
            feedparser: value["feedparser"].as_str().map(String::from),
            htmlabs: value["htmlabs"].as_str().map(String::from),
        });
    }
    let mut found: Found = BTreeMap::new();
    let mut unexplained = Vec::new();
    for d in &differences {
        let (feed, _) = &originals[&d.feed];
        let original = String::from_utf8_lossy(&feed.bytes);
        let case = Case {
            difference: d,
            original: &original,
        };
        let example = format!(
            "{} {}: feedparser {:?}, htmlabs {:?}",
            d.feed, d.field, d.feedparser, d.htmlabs
        );
        match CLASSES.iter().find(|class| (class.matches)(&case)) {
            Some(class) => found.entry(class.name).or_default().push(example),
            None => unexplained.push(example),
        }
    }
    for (class, examples) in &found {
        println!("{class}: {}", examples.len());
    }
    println!("{compared} values compared, {} differ", differences.len());
    (compared, found, unexplained)
}

/// A difference, and the feed it is of.
struct Case<'a> {
    difference: &'a Difference,
    original: &'a str,
}

impl Case<'_> {
    /// htmlabs left the value as the feed says it, and it is relative.
    fn left_relative(&self) -> bool {
        self.difference.htmlabs.as_deref().is_some_and(|ours| {
            let ours = ours.trim();
            !ours.is_empty() && !Standard::Rfc3986.has_scheme(ours) && self.original.contains(ours)
        })
    }

    /// feedparser made the value absolute.
    fn resolved_by_feedparser(&self) -> bool {
        self.difference
            .feedparser
            .as_deref()
            .is_some_and(|theirs| Standard::Rfc3986.has_scheme(theirs))
    }

    /// A vocabulary feedparser reads and htmlabs does not: the value stays.
    fn other_vocabulary(&self, found: bool) -> bool {
        found && self.left_relative() && self.resolved_by_feedparser()
    }
}

/// A named class of difference: `matches` is tried on each.
struct Class {
    name: &'static str,
    matches: fn(&Case) -> bool,
}

/// The classes, in the order they are tried.
const CLASSES: &[Class] = &[
    // feedparser leaves an RSS enclosure's `url` as written (it resolves
    // no enclosure), where htmlabs makes it absolute (issue 33's rows).
    Class {
        name: "feedparser-leaves-enclosures-relative",
        matches: |c| {
            let (Some(theirs), Some(ours)) = (&c.difference.feedparser, &c.difference.htmlabs)
            else {
                return false;
            };
            !Standard::Rfc3986.has_scheme(theirs)
                && ours.ends_with(theirs.as_str())
                && c.original.contains(&format!("<enclosure url=\"{theirs}\""))
        },
    },
    // Atom 0.3 (2003), which RFC 4287 replaced: feedparser still reads it,
    // htmlabs rewrites Atom 1.0 only (issue 33), so its links stay.
    Class {
        name: "atom-0.3-not-a-vocabulary",
        matches: |c| c.other_vocabulary(c.original.contains("xmlns=\"http://purl.org/atom/ns#\"")),
    },
    // Microsoft's CDF (1997): feedparser reads its `HREF` and `BASE`.
    Class {
        name: "cdf-not-a-vocabulary",
        matches: |c| c.other_vocabulary(c.original.contains("<CHANNEL")),
    },
    // The comment API's `wfw:comment` and `wfw:commentRss`, an extension
    // issue 33 leaves as it is.
    Class {
        name: "wfw-extension-left",
        matches: |c| {
            let field = &c.difference.field;
            c.other_vocabulary(
                field.ends_with(".wfw_comment") || field.ends_with(".wfw_commentrss"),
            )
        },
    },
    // An RSS item's `<body>` (no namespace) and `<fullitem>`: feedparser
    // reads them as content; no RSS specification has them.
    Class {
        name: "rss-body-and-fullitem-not-rss",
        matches: |c| {
            c.other_vocabulary(
                c.difference.field.contains(".content[")
                    && (c.original.contains("<body>") || c.original.contains("<fullitem>")),
            )
        },
    },
    // feedparser removes the slashes after a scheme's `//` before it
    // resolves (its `_urifixer`: `http:///x` is `http://x` to it); RFC 3986
    // keeps an empty authority and the path `/x`.
    Class {
        name: "feedparser-collapses-slashes-after-scheme",
        matches: |c| {
            let (Some(theirs), Some(ours)) = (&c.difference.feedparser, &c.difference.htmlabs)
            else {
                return false;
            };
            ours.contains(":///") && ours.replacen(":///", "://", 1) == *theirs
        },
    },
    // Python's urljoin refuses a URL whose host has a `[` that opens no
    // IPv6 literal (ValueError), and feedparser then gives "" for it;
    // htmlabs leaves the absolute URL as it is.
    Class {
        name: "feedparser-drops-what-urllib-refuses",
        matches: |c| {
            let (Some(theirs), Some(ours)) = (&c.difference.feedparser, &c.difference.htmlabs)
            else {
                return false;
            };
            let authority = htmlabs::rfc3986::parse(ours).authority.unwrap_or_default();
            theirs.is_empty()
                && Standard::Rfc3986.has_scheme(ours)
                && authority.contains('[')
                && !authority.starts_with('[')
                && c.original.contains(ours.as_str())
        },
    },
];

/// The classes `fixtures/divergences/feedparser.txt` lists.
fn listed_classes() -> BTreeSet<String> {
    let path = common::fixtures().join("divergences/feedparser.txt");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| l.split('\t').next().unwrap().to_owned())
        .collect()
}
