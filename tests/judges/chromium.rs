//! The promise users care about, judged by a browser: a page rewritten by
//! htmlabs and moved elsewhere links where the original did.
//!
//! Every page of `shared/corpus/pages` (at its own URL, in both standards)
//! and every golden fixture with a `-r` (with its own flags) is loaded in
//! Debian's Chromium twice, by `tests/chromium/targets.py` (Playwright, scripts
//! off, nothing from the network): the original bytes at the page's URL, and
//! htmlabs's output at [`MOVED`], another host and path. For every element's
//! URL attribute, the URL Chromium makes of the value must be the same in
//! both; and the page must ask for the same subresources (images, style
//! sheets, frames, srcset candidates, CSS `url()`s: what the browser fetches).
//! A difference must be one of the classes of `fixtures/divergences/` (in
//! RFC 3986 mode only WHATWG normalizations), and the classes that occur are
//! listed in `fixtures/divergences/chromium.txt`: a ratchet, as for the url
//! crate (a new class fails, and so does a listed class that no longer
//! occurs). An empty value left as it is (`<img src="">`) is compared by the
//! requests: Chromium fetches nothing for it in either page.
//!
//! A moved stylesheet, likewise: a page and its stylesheets (real ones of
//! `fixtures/stylesheet/`, and an `@import`) served over HTTP from a local
//! origin, then the stylesheets rewritten by the stylesheet engine against
//! their own URLs and served with the page from another origin: Chromium
//! fetches the same images, fonts and imported stylesheet from the same URLs
//! (`tests/chromium/moved_css.py`; not in `../shared`, so it runs without it).
//!
//! Copies that open from the disk (`--relative`, an archive saved as a
//! tree), likewise: each page's original at its URL and its copy from
//! `file://` (`tests/chromium/from_disk.py`), every link of the copy
//! reaching the copy of the file the original's reached ([`judge_from_disk`]):
//! a small mirror, the wget crawl of `../shared`, a site served by a
//! local server (`tests/http_server.py --site`) that wget mirrors in the
//! test, whose originals come from that server, and the corpus pages laid
//! out as one site, served at its own URL ([`corpus_site`]).
//!
//! Needs Chromium (`HTMLABS_CHROMIUM`, else `/usr/bin/chromium`) and Python's
//! Playwright; `.ci/run` installs both. Under plain `cargo test` without them
//! the test skips with a one-line note; with `CI` set it fails. Run with
//! `--nocapture` for the figures (DEVELOPING.md, "How the promise is checked").

use crate::common;
use crate::divergences;

mod corpus_site;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use divergences::{Pair, classify, listed_classes};
use htmlabs::{Standard, UrlMap};
use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// Where the rewritten pages are loaded, after the original's scheme (an
/// https page fetches `http:` images upgraded, and blocks the rest): another
/// host and path than any original's.
const MOVED: &str = "moved.example/elsewhere/deeper/";

/// Golden fixtures made to show where htmlabs departs from browsers on
/// purpose, each warned about and in `docs/resolution.md`: left out.
const DEPARTURES: &[(&str, &str)] = &[
    // RFC 1808's appendix: the base is the first `<base href>` in the head.
    ("base-after-head", "a `<base>` after the head is ignored"),
    (
        "text-ends-the-head",
        "text ends the head, and a `<base>` after it is ignored",
    ),
    (
        "lookahead-limit",
        "a `<base>` past the lookahead limit is ignored",
    ),
    // The links agree (both refuse the base); the `<base href>`'s own
    // value, a relative path to RFC 1808, is made absolute.
    (
        "javascript-base-escaped",
        "a `<base href>` a browser reads as `javascript:` past C0 controls and tabs is a path to RFC 1808",
    ),
    // Chromium here runs with scripts off, and parses `<noscript>` as markup.
    (
        "noscript-and-srcdoc",
        "a `<base>` in `<noscript>` is no base, as with scripts on",
    ),
];

/// At most this many failures are shown for one kind.
const SHOWN: usize = 12;

/// Chromium and a Python with Playwright, or `None` with a one-line note
/// (a failure in CI, where `.ci/run` installs them).
pub(crate) fn browser() -> Option<PathBuf> {
    let chromium = std::env::var_os("HTMLABS_CHROMIUM")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/bin/chromium"));
    let playwright = Command::new("python3")
        .args(["-c", "import playwright.async_api"])
        .output()
        .is_ok_and(|o| o.status.success());
    let missing = match (chromium.is_file(), playwright) {
        (true, true) => return Some(chromium),
        (false, _) => format!("no Chromium at {}", chromium.display()),
        (true, false) => "python3 cannot import playwright".to_owned(),
    };
    assert!(
        std::env::var_os("CI").is_none(),
        "chromium: {missing} (.ci/run installs Debian's chromium and Playwright)"
    );
    common::skipped(&format!(
        "chromium skipped: {missing} (`apt-get install chromium`, `pip install playwright`)"
    ));
    None
}

/// One page to judge: the original at `url`, rewritten with `args`.
struct Page {
    name: String,
    url: String,
    args: Vec<String>,
    mode: Standard,
    input: Vec<u8>,
    /// Its `--map` rules.
    map: UrlMap,
}

impl Page {
    fn moved_url(&self) -> String {
        let scheme = if self.url.starts_with("https:") {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{MOVED}{}", self.name)
    }
}

/// The corpus pages in both standards, and the golden fixtures that have
/// a retrieval URL.
fn pages(shared: &Path) -> Vec<Page> {
    let mut pages = Vec::new();
    let dir = shared.join("corpus/pages");
    let tsv = std::fs::read_to_string(dir.join("urls.tsv")).expect("urls.tsv");
    for line in tsv.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut fields = line.split('\t');
        let (Some(file), Some(url)) = (fields.next(), fields.next()) else {
            panic!("urls.tsv: want a file name and a URL: {line:?}");
        };
        let input = std::fs::read(dir.join(file)).expect("a listed page");
        for mode in [Standard::Rfc1808, Standard::Rfc3986] {
            let mut args = vec!["-r".to_owned(), url.to_owned()];
            if mode == Standard::Rfc3986 {
                args.extend(["--standard".to_owned(), "rfc3986".to_owned()]);
            }
            pages.push(Page {
                name: file.to_owned(),
                url: url.to_owned(),
                args,
                mode,
                input: input.clone(),
                map: UrlMap::default(),
            });
        }
    }
    let golden = common::fixtures().join("filter");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&golden)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    cases.sort();
    for case in cases {
        let args: Vec<String> = std::fs::read_to_string(case.join("args"))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        let Some(at) = args
            .iter()
            .position(|a| a == "-r" || a == "--retrieved-from")
        else {
            continue;
        };
        let name = case.file_name().unwrap().to_string_lossy();
        if DEPARTURES.iter().any(|(case, _)| *case == name) {
            continue;
        }
        let mode = if args.iter().any(|a| a == "rfc3986") {
            Standard::Rfc3986
        } else {
            Standard::Rfc1808
        };
        let rules: Vec<String> = args
            .iter()
            .zip(args.iter().skip(1))
            .filter(|(flag, _)| *flag == "--map")
            .map(|(_, rule)| rule.clone())
            .collect();
        pages.push(Page {
            name: format!("{name}.html"),
            url: args[at + 1].clone(),
            mode,
            map: UrlMap::new(&rules, mode).unwrap(),
            args,
            input: std::fs::read(case.join("input.html")).unwrap(),
        });
    }
    pages
}

/// htmlabs's output for `page`.
fn rewrite(page: &Page) -> Result<Vec<u8>, String> {
    let out = assert_cmd::Command::new(BIN)
        .args(&page.args)
        .write_stdin(page.input.clone())
        .output()
        .map_err(|e| format!("cannot run htmlabs: {e}"))?;
    if out.status.code() != Some(0) {
        return Err(format!(
            "htmlabs {:?}: {:?}: {}",
            page.args,
            out.status,
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    Ok(out.stdout)
}

/// Loads every `(key, url, bytes)` in Chromium; the driver's answer by key.
fn load_all(chromium: &Path, loads: &[(String, String, Vec<u8>)]) -> BTreeMap<String, Value> {
    // A directory of its own: the Chromium tests run at once in one process.
    let tmp = tempfile::tempdir().unwrap();
    let mut list = Vec::new();
    for (i, (key, url, bytes)) in loads.iter().enumerate() {
        let file = tmp.path().join(format!("{i}.html"));
        std::fs::write(&file, bytes).unwrap();
        list.push(serde_json::json!({"key": key, "url": url, "file": file}));
    }
    run_driver(chromium, "targets.py", &list)
}

/// Loads every `(key, url)` in Chromium from a local server (it and what
/// it asks of that server come from it; nothing else from the network);
/// the driver's answer by key. The URLs are the server's own
/// (`http://127.0.0.1:PORT/…`), or, given its `port`, of a host that
/// Chromium resolves to it (`--host-resolver-rules`): a site served at
/// its own URL.
fn load_served(
    chromium: &Path,
    loads: &[(String, String)],
    port: Option<u16>,
) -> BTreeMap<String, Value> {
    let list: Vec<Value> = loads
        .iter()
        .map(|(key, url)| match port {
            Some(port) => {
                serde_json::json!({"key": key, "url": url, "server": format!("127.0.0.1:{port}")})
            }
            None => serde_json::json!({"key": key, "url": url}),
        })
        .collect();
    run_driver(chromium, "targets.py", &list)
}

/// Opens every page (an absolute path) from the disk in Chromium
/// (`tests/chromium/from_disk.py`); the driver's answer by path.
fn open_from_disk(chromium: &Path, files: &[String]) -> BTreeMap<String, Value> {
    let list: Vec<Value> = files.iter().map(|f| Value::from(f.as_str())).collect();
    run_driver(chromium, "from_disk.py", &list)
}

/// Runs the Chromium driver `tests/chromium/{driver}` on `list`, its
/// answer read back.
fn run_driver(chromium: &Path, driver: &str, list: &[Value]) -> BTreeMap<String, Value> {
    serde_json::from_value(ask_driver(chromium, driver, &Value::from(list))).unwrap()
}

/// Runs the Chromium driver `tests/chromium/{driver}` on what is `asked`
/// of it, its answer read back.
pub(crate) fn ask_driver(chromium: &Path, driver: &str, asked: &Value) -> Value {
    let tmp = tempfile::tempdir().unwrap();
    let (list_file, out_file) = (tmp.path().join("list.json"), tmp.path().join("out.json"));
    std::fs::write(&list_file, serde_json::to_vec(asked).unwrap()).unwrap();
    let driver = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/chromium")
        .join(driver);
    let status = Command::new("python3")
        .arg(driver)
        .args([chromium, &list_file, &out_file])
        .status()
        .expect("python3 runs");
    assert!(status.success(), "the Chromium driver failed: {status}");
    serde_json::from_slice(&std::fs::read(&out_file).unwrap()).unwrap()
}

/// One URL attribute as Chromium read it.
struct Link<'a> {
    tag: &'a str,
    name: &'a str,
    value: &'a str,
    target: &'a str,
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

/// Every element's URL attributes, in document order.
fn links(load: &Value) -> Vec<Link<'_>> {
    listed(load, "links")
}

/// Every element's URL attributes, then every URL of every `srcset`.
fn links_and_candidates(load: &Value) -> Vec<Link<'_>> {
    let mut all = listed(load, "links");
    all.extend(listed(load, "candidates"));
    all
}

/// Where every element's URL attribute and every URL of every `srcset`
/// go, as Chromium read them.
fn targets(load: &Value) -> impl Iterator<Item = &str> {
    links_and_candidates(load)
        .into_iter()
        .map(|link| link.target)
}

fn listed<'a>(load: &'a Value, key: &str) -> Vec<Link<'a>> {
    load[key]
        .as_array()
        .map(|links| {
            links
                .iter()
                .map(|l| Link {
                    tag: text(&l[0]),
                    name: text(&l[1]),
                    value: text(&l[2]),
                    target: text(&l[3]),
                })
                .collect()
        })
        .unwrap_or_default()
}

fn requests(load: &Value) -> BTreeSet<&str> {
    load["requests"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// What one mode's run found.
#[derive(Default)]
struct Tally {
    pages: usize,
    links: usize,
    agree: usize,
    /// Empty in both pages: Chromium's requests judge them.
    empty: usize,
    /// `#id` in both pages, left as it is (inside SVG): the same document's.
    same_document: usize,
    /// Not valid in the page's encoding: left as it is, with a warning.
    undecodable: usize,
    /// Requested against the page's URL, as a `<link>` before the `<base>`
    /// is fetched, where htmlabs resolves against the base (RFC 1808 §3.1).
    before_base: usize,
    requests: usize,
    by_class: BTreeMap<&'static str, Vec<String>>,
    failures: Vec<String>,
}

/// Compares one page's two loads.
fn compare(page: &Page, original: &Value, moved: &Value, tally: &mut Tally) {
    let name = &page.name;
    for (load, which) in [(original, "original"), (moved, "moved")] {
        if let Some(e) = load["error"].as_str() {
            tally
                .failures
                .push(format!("{name}: the {which} page: {e}"));
            return;
        }
    }
    tally.pages += 1;
    let (before, after) = (links(original), links(moved));
    if before.len() != after.len() {
        tally.failures.push(format!(
            "{name}: {} URL attributes in the original, {} moved",
            before.len(),
            after.len()
        ));
        return;
    }
    let base = original["base"].as_str().unwrap_or_default();
    // The targets of the differences a class explains, which may also be
    // requested by one page only.
    let mut explained = BTreeSet::new();
    for (o, m) in before.iter().zip(&after) {
        if (o.tag, o.name) != (m.tag, m.name) {
            tally.failures.push(format!(
                "{name}: <{} {}> in the original, <{} {}> moved",
                o.tag, o.name, m.tag, m.name
            ));
            return;
        }
        tally.links += 1;
        if o.value.is_empty() && m.value.is_empty() {
            tally.empty += 1;
            continue;
        }
        // `--map`: the original's target, mapped, is where the moved page
        // must go.
        let mapped = page.map.apply(o.target).map(|(url, _)| url);
        if mapped.as_deref().unwrap_or(o.target) == m.target {
            tally.agree += 1;
            continue;
        }
        if o.value == m.value && o.value.starts_with('#') {
            tally.same_document += 1;
            continue;
        }
        // A value not valid in the page's encoding is left as it is, with a
        // warning (docs/encodings.md); Chromium shows U+FFFD for it.
        if o.value == m.value && o.value.contains('\u{FFFD}') {
            tally.undecodable += 1;
            continue;
        }
        let reference = o.value.trim_matches(|c: char| c.is_ascii_whitespace());
        let ours = m.value.trim_matches(|c: char| c.is_ascii_whitespace());
        let modern = Standard::Rfc3986.resolve(base, reference);
        let theirs = Ok(o.target.to_owned());
        let pair = Pair {
            resolver: page.mode,
            base,
            reference,
            ours,
            modern: &modern,
            theirs: &theirs,
        };
        let example = format!(
            "{name}: <{} {}={reference:?}> against {base}: Chromium {}, moved {ours} ({})",
            o.tag, o.name, o.target, m.target
        );
        match classify(&pair) {
            Some(class) => {
                tally.by_class.entry(class).or_default().push(example);
                explained.insert(o.target);
                explained.insert(m.target);
            }
            None => tally
                .failures
                .push(format!("{example}: no class explains it")),
        }
    }
    if !page.map.is_empty() {
        // What a mapped page asks for is elsewhere on purpose: each of its
        // links was judged above, mapped.
        return;
    }
    let (asked, asked_moved) = (requests(original), requests(moved));
    tally.requests += asked.len();
    // What each link's value makes against the page's URL, ignoring the
    // `<base>` (with the url crate: Chromium's answers are the targets).
    let page_url = url::Url::parse(&page.url).ok();
    let mut before_base = BTreeMap::new();
    for (o, m) in before.iter().zip(&after) {
        if let Some(early) = page_url.as_ref().and_then(|u| u.join(o.value).ok()) {
            if early.as_str() != o.target {
                before_base.insert(early.to_string(), m.target);
            }
        }
    }
    let mut late = BTreeSet::new();
    for url in asked.difference(&asked_moved) {
        if let Some(moved) = before_base.get(*url).filter(|m| asked_moved.contains(**m)) {
            tally.before_base += 1;
            late.insert(*moved);
            explained.insert(url);
        }
    }
    for url in asked.symmetric_difference(&asked_moved) {
        if !explained.contains(url) && !late.contains(url) {
            let by = if asked.contains(url) {
                "the original only"
            } else {
                "the moved page only"
            };
            tally
                .failures
                .push(format!("{name}: {url} is requested by {by}"));
        }
    }
}

/// `fixtures/divergences/chromium.txt`: the classes that occur, by mode.
fn listed_in_chromium() -> BTreeSet<(String, String)> {
    let path = common::fixtures().join("divergences/chromium.txt");
    let text = std::fs::read_to_string(&path).unwrap();
    let mut listed = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let Some((mode, class)) = line.split_once('\t') else {
            panic!("divergences/chromium.txt:{}: want `mode<TAB>class`", i + 1);
        };
        let file = format!("{mode}.txt");
        assert!(
            listed_classes(&file).contains(class),
            "divergences/chromium.txt:{}: `{class}` is not a class of divergences/{file}",
            i + 1
        );
        listed.insert((mode.to_owned(), class.to_owned()));
    }
    listed
}

fn mode_name(mode: Standard) -> &'static str {
    match mode {
        Standard::Rfc1808 => "rfc1808",
        Standard::Rfc3986 => "rfc3986",
    }
}

#[test]
fn a_moved_page_links_where_the_original_did_in_chromium() {
    let Some(shared) = common::shared("chromium") else {
        return;
    };
    let Some(chromium) = browser() else {
        return;
    };
    let pages = pages(&shared);
    let mut loads = Vec::new();
    let mut originals = BTreeSet::new();
    let mut problems = String::new();
    let mut judged = Vec::new();
    for page in &pages {
        let original = format!("original/{}/{}", page.name, page.url);
        if originals.insert(original.clone()) {
            loads.push((original.clone(), page.url.clone(), page.input.clone()));
        }
        let moved = format!("{}/{}", mode_name(page.mode), page.name);
        match rewrite(page) {
            Ok(output) => {
                loads.push((moved.clone(), page.moved_url(), output));
                judged.push((page, original, moved));
            }
            Err(e) => {
                let _ = write!(problems, "\n{}: {e}", page.name);
            }
        }
    }
    let results = load_all(&chromium, &loads);
    let mut tallies: BTreeMap<&str, Tally> = BTreeMap::new();
    for (page, original, moved) in judged {
        let tally = tallies.entry(mode_name(page.mode)).or_default();
        compare(page, &results[&original], &results[&moved], tally);
    }

    let listed = listed_in_chromium();
    for (mode, tally) in &tallies {
        let differ: usize = tally.by_class.values().map(Vec::len).sum();
        println!(
            "{mode}: {} pages, {} links: {} agree, {} empty in both (not fetched), {} same-document `#id`, {} undecodable (warned), {} differ by a class; {} requests, {} fetched before the `<base>`",
            tally.pages,
            tally.links,
            tally.agree,
            tally.empty,
            tally.same_document,
            tally.undecodable,
            differ,
            tally.requests,
            tally.before_base
        );
        for (class, examples) in &tally.by_class {
            println!("  {class:<34} {:>6}   e.g. {}", examples.len(), examples[0]);
            if !listed.contains(&(mode.to_string(), class.to_string())) {
                let _ = write!(
                    problems,
                    "\n{mode}: class `{class}` occurs {} times but is not listed in divergences/chromium.txt:\n    {}",
                    examples.len(),
                    examples[..examples.len().min(SHOWN)].join("\n    ")
                );
            }
        }
        for failure in tally.failures.iter().take(SHOWN) {
            let _ = write!(problems, "\n{mode}: {failure}");
        }
        if tally.failures.len() > SHOWN {
            let _ = write!(
                problems,
                "\n{mode}: and {} more failures",
                tally.failures.len() - SHOWN
            );
        }
    }
    for (mode, class) in &listed {
        let occurs = tallies
            .get(mode.as_str())
            .is_some_and(|t| t.by_class.contains_key(class.as_str()));
        if !occurs {
            let _ = write!(
                problems,
                "\n{mode}: class `{class}` is listed in divergences/chromium.txt but no longer occurs: remove it"
            );
        }
    }
    assert!(problems.is_empty(), "in Chromium:{problems}");
}

// ------------------------------------------------------- a moved stylesheet

/// The page of [`a_moved_stylesheet_fetches_what_the_original_did_in_chromium`]:
/// ours, using what its stylesheets style, so that Chromium fetches their
/// images and fonts. No favicon is asked of its origin.
const CSS_PAGE: &str = r##"<!doctype html>
<html><head><meta charset="utf-8"><title>Moved stylesheets</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="../pywb/static/css/font-awesome.min.css">
<link rel="stylesheet" href="/console?__debugger__=yes&amp;cmd=resource&amp;f=style.css">
<link rel="stylesheet" href="../static/css/site.css">
</head><body>
<p class="brands">brands</p><p class="regular">regular</p><p class="solid">solid</p>
<pre class="console"><a class="toggle" href="#t">more</a> <a class="toggle open" href="#o">less</a></pre>
<div class="hero">hero</div><div class="logo">logo</div><span class="icon">icon</span>
</body></html>
"##;

/// The site's own stylesheet (ours): an `@import` of a stylesheet in
/// another directory, Font Awesome's families (whose `@font-face` rules are
/// the real stylesheet's), images by relative `url()` and `image-set()`.
const CSS_SITE: &str = r#"@import "../vendor/icons.css";
.brands { font-family: "Font Awesome 5 Brands"; font-weight: normal }
.regular { font-family: "Font Awesome 5 Free"; font-weight: 400 }
.solid { font-family: "Font Awesome 5 Free"; font-weight: 900 }
.hero { background: url(../img/hero.jpg) no-repeat; min-height: 10px }
.logo { background-image: image-set("../img/logo.png" 1x, "../img/logo-2x.png" 2x); min-height: 10px }
"#;

/// The stylesheet `CSS_SITE` imports, from its own directory.
const CSS_ICONS: &str =
    ".icon { background: url(icons/sprite.png); display: inline-block; min-width: 10px }\n";

/// A stylesheet served at a target (a path and a query) of its origin.
struct Served {
    target: &'static str,
    bytes: Vec<u8>,
    /// Linked from the page (rather than imported): moved with it.
    linked: bool,
}

/// The page's stylesheets: two real ones of `fixtures/stylesheet/` (its
/// README), Font Awesome's `@font-face` rules (fonts by `../fonts/…`) and
/// Werkzeug's debugger stylesheet (images by query-only references,
/// `url(?…&f=more.png)`), at the places they are served from, and the
/// site's own with its `@import`.
fn css_served() -> Vec<Served> {
    let fixture = |case: &str| {
        std::fs::read(
            common::fixtures()
                .join("stylesheet")
                .join(case)
                .join("input.css"),
        )
        .unwrap()
    };
    vec![
        Served {
            target: "/pywb/static/css/font-awesome.min.css",
            bytes: fixture("font-awesome-font-faces"),
            linked: true,
        },
        Served {
            target: "/console?__debugger__=yes&cmd=resource&f=style.css",
            bytes: fixture("werkzeug-debugger"),
            linked: true,
        },
        Served {
            target: "/static/css/site.css",
            bytes: CSS_SITE.into(),
            linked: true,
        },
        Served {
            target: "/static/vendor/icons.css",
            bytes: CSS_ICONS.into(),
            linked: false,
        },
    ]
}

const CSS_PAGE_TARGET: &str = "/site/index.html";

/// Serves each origin's files from local HTTP servers and loads each of
/// `loads` (key, origin, target) in Chromium (`tests/chromium/moved_css.py`):
/// by key, the requests the servers had, `(origin, target)`, in order.
fn serve_and_load(
    chromium: &Path,
    origins: &[&str],
    files: impl Fn(&BTreeMap<String, String>) -> Vec<(&'static str, String, Vec<u8>, &'static str)>,
    loads: &[(&str, &str, &str)],
) -> BTreeMap<String, Vec<(String, String)>> {
    use std::io::{BufRead, BufReader, Write as _};
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chromium/moved_css.py");
    let mut child = Command::new("python3")
        .arg(driver)
        .arg(chromium)
        .args(origins)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("python3 runs");
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    let mut line = String::new();
    stdout.read_line(&mut line).unwrap();
    let ports: BTreeMap<String, u16> = serde_json::from_str(&line)
        .unwrap_or_else(|e| panic!("the driver did not start ({e}): {line:?}"));
    let base: BTreeMap<String, String> = ports
        .iter()
        .map(|(origin, port)| (origin.clone(), format!("http://127.0.0.1:{port}")))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let mut routes: BTreeMap<&str, BTreeMap<String, Value>> = BTreeMap::new();
    for (i, (origin, target, bytes, media_type)) in files(&base).into_iter().enumerate() {
        let file = dir.path().join(i.to_string());
        std::fs::write(&file, bytes).unwrap();
        routes.entry(origin).or_default().insert(
            target,
            serde_json::json!({"file": file, "type": media_type}),
        );
    }
    let loads: Vec<Value> = loads
        .iter()
        .map(|(key, origin, target)| {
            serde_json::json!({"key": key, "url": format!("{}{target}", base[*origin])})
        })
        .collect();
    let asked = serde_json::json!({"routes": routes, "loads": loads});
    writeln!(stdin, "{asked}").unwrap();
    line.clear();
    stdout.read_line(&mut line).unwrap();
    assert!(
        child.wait().unwrap().success(),
        "the Chromium driver failed"
    );
    let results: BTreeMap<String, Value> = serde_json::from_str(&line).unwrap();
    results
        .into_iter()
        .map(|(key, result)| {
            if let Some(e) = result["error"].as_str() {
                panic!("{key}: Chromium: {e}");
            }
            let requests = result["requests"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (text(&r[0]).to_owned(), text(&r[1]).to_owned()))
                .collect();
            (key, requests)
        })
        .collect()
}

/// A page and its stylesheets on origin A; the page and its stylesheets,
/// rewritten by the stylesheet engine against their own URLs on A, moved
/// to origin B: from B, the page fetches every image, font and imported
/// stylesheet its stylesheets name from the very URLs on A that it fetches
/// them from on A. And the check can fail: stylesheets rewritten against
/// the page's URL instead (origin C) fetch other URLs.
#[test]
fn a_moved_stylesheet_fetches_what_the_original_did_in_chromium() {
    let Some(chromium) = browser() else {
        return;
    };
    let served = css_served();
    let files = |base: &BTreeMap<String, String>| {
        let a = &base["A"];
        let page_url = format!("{a}{CSS_PAGE_TARGET}");
        let mut files = Vec::new();
        for origin in ["A", "B", "C"] {
            files.push((
                origin,
                CSS_PAGE_TARGET.to_owned(),
                CSS_PAGE.into(),
                "text/html",
            ));
        }
        for sheet in &served {
            let target = sheet.target.to_owned();
            files.push(("A", target.clone(), sheet.bytes.clone(), "text/css"));
            if !sheet.linked {
                continue;
            }
            // Moved: made absolute against its own URL on A, as it
            // should be, and, to show the check fails it, against the
            // page's.
            let own = format!("{a}{}", sheet.target);
            for (origin, base) in [("B", &own), ("C", &page_url)] {
                let layers = htmlabs::Layers::default()
                    .with_retrieval(Standard::Rfc1808, base, "--retrieved-from")
                    .unwrap();
                let (moved, report) = htmlabs::rewrite_bytes(
                    htmlabs::Type::Css,
                    htmlabs::Config::default(),
                    layers,
                    &sheet.bytes,
                )
                .unwrap();
                assert!(
                    report.counts.rewritten > 0 && report.warnings.is_empty(),
                    "{}: {report:?}",
                    sheet.target
                );
                files.push((origin, target.clone(), moved, "text/css"));
            }
        }
        files
    };
    let results = serve_and_load(
        &chromium,
        &["A", "B", "C"],
        files,
        &[
            ("original", "A", CSS_PAGE_TARGET),
            ("moved", "B", CSS_PAGE_TARGET),
            ("against the page", "C", CSS_PAGE_TARGET),
        ],
    );
    // What each load asked for besides the page and the stylesheets it
    // links (which are on the origin it was loaded from).
    let own: BTreeSet<&str> = std::iter::once(CSS_PAGE_TARGET)
        .chain(served.iter().filter(|s| s.linked).map(|s| s.target))
        .collect();
    let fetched = |key: &str, origin: &str| -> BTreeSet<(String, String)> {
        let requests = &results[key];
        for target in &own {
            assert!(
                requests.contains(&(origin.to_owned(), target.to_string())),
                "{key}: {target} was not fetched from {origin}: {requests:?}"
            );
        }
        requests
            .iter()
            .filter(|(o, t)| !(o == origin && own.contains(t.as_str())))
            .cloned()
            .collect()
    };
    let original = fetched("original", "A");
    // What Chromium must fetch for this page, so that the comparison is
    // not of nothing: a font of each family's, both of Werkzeug's images,
    // the site's images and its import, and the import's image.
    for target in [
        "/pywb/static/fonts/font-awesome/fa-brands-400.woff2",
        "/pywb/static/fonts/font-awesome/fa-regular-400.woff2",
        "/pywb/static/fonts/font-awesome/fa-solid-900.woff2",
        "/console?__debugger__=yes&cmd=resource&f=more.png",
        "/console?__debugger__=yes&cmd=resource&f=less.png",
        "/static/img/hero.jpg",
        "/static/img/logo.png",
        "/static/vendor/icons.css",
        "/static/vendor/icons/sprite.png",
    ] {
        assert!(
            original.contains(&("A".to_owned(), target.to_owned())),
            "the original page did not fetch {target}: {original:?}"
        );
    }
    let moved = fetched("moved", "B");
    let only = |a: &BTreeSet<(String, String)>, b: &BTreeSet<(String, String)>| {
        a.difference(b).cloned().collect::<Vec<_>>()
    };
    assert!(
        moved == original,
        "the moved stylesheets fetch what the originals did not: {:?}; and not what they did: {:?}",
        only(&moved, &original),
        only(&original, &moved)
    );
    // Resolved against the page, each linked stylesheet's relative URLs go
    // elsewhere: what the check above would catch.
    let wrong = fetched("against the page", "C");
    for missed in [
        "/pywb/static/fonts/font-awesome/fa-solid-900.woff2",
        "/console?__debugger__=yes&cmd=resource&f=more.png",
        "/static/vendor/icons.css",
    ] {
        assert!(
            !wrong.contains(&("A".to_owned(), missed.to_owned())),
            "against the page's URL, {missed} is fetched still: {wrong:?}"
        );
    }
    println!(
        "a moved stylesheet: {} requests of the original page's stylesheets, the same from the moved ones; {} of them otherwise against the page's URL",
        original.len(),
        only(&original, &wrong).len()
    );
}

/// An XHTML page with `<?xml-stylesheet?>`s before its root (one with a
/// reference in its `href`, one from a directory above; one of a type and
/// an alternate one without a title, which load nothing), inside it and
/// after it, under a `<base href>`.
const XHTML_PAGE: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
<?xml-stylesheet href=\"a.css\" type=\"text/css\"?>\n\
<!-- a comment -->\n\
<?xml-stylesheet type=\"text/css\" href='../up/q.css?a=1&amp;b=2'?>\n\
<?xml-stylesheet type=\"text/plain\" href=\"plain.css\"?><?xml-stylesheet href=\"alt.css\" alternate=\"yes\"?>\n\
<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><base href=\"/based/\"/><title>t</title></head>\n\
<body><p>text</p>\n<?xml-stylesheet href=\"inside.css\"?>\n</body></html>\n\
<?xml-stylesheet href=\"after.css\" type=\"text/css\"?>\n";

/// A page served as XML (an `.xhtml` file) loads the stylesheets of its
/// `<?xml-stylesheet?>`s outside its root element, each against the base
/// in force where it stands. The page on origin A, and its copy that
/// `--site` made (`--site-url` A) moved to origin B: from B, the copy
/// fetches from A each stylesheet the original fetched there. Served as
/// HTML (`.html`: origin C), the same instructions are comments: the copy
/// keeps them as they were, and a browser fetches none.
#[test]
fn a_page_served_as_xml_loads_the_stylesheets_its_copy_names_in_chromium() {
    let Some(chromium) = browser() else {
        return;
    };
    const TARGET: &str = "/docs/page.xhtml";
    const HTML_TARGET: &str = "/docs/page.html";
    let copies = |base: &BTreeMap<String, String>| {
        let dir = tempfile::tempdir().unwrap();
        let (site, out) = (dir.path().join("site"), dir.path().join("out"));
        std::fs::create_dir_all(site.join("docs")).unwrap();
        std::fs::write(site.join("docs/page.xhtml"), XHTML_PAGE).unwrap();
        std::fs::write(site.join("docs/page.html"), XHTML_PAGE).unwrap();
        let run = Command::new(BIN)
            .args(["--site-url", &format!("{}/", base["A"]), "-q", "--site"])
            .arg(&site)
            .arg("--out-dir")
            .arg(&out)
            .output()
            .unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        let read = |name: &str| std::fs::read(out.join(name)).unwrap();
        (read("docs/page.xhtml"), read("docs/page.html"))
    };
    let files = |base: &BTreeMap<String, String>| {
        let (xhtml, html) = copies(base);
        // The HTML copy is the page as it was, but for its `<base href>`.
        let html_text = String::from_utf8(html.clone()).unwrap();
        assert_eq!(
            html_text.replace(&format!("\"{}/based/\"", base["A"]), "\"/based/\""),
            XHTML_PAGE
        );
        let mut files = vec![
            (
                "A",
                TARGET.to_owned(),
                XHTML_PAGE.into(),
                "application/xhtml+xml",
            ),
            ("B", TARGET.to_owned(), xhtml, "application/xhtml+xml"),
            ("C", HTML_TARGET.to_owned(), html, "text/html"),
        ];
        for sheet in [
            "/docs/a.css",
            "/up/q.css?a=1&b=2",
            "/based/after.css",
            "/docs/inside.css",
            "/based/inside.css",
            "/docs/plain.css",
            "/docs/alt.css",
        ] {
            files.push((
                "A",
                sheet.to_owned(),
                b"p { color: red }".to_vec(),
                "text/css",
            ));
        }
        files
    };
    let results = serve_and_load(
        &chromium,
        &["A", "B", "C"],
        files,
        &[
            ("original", "A", TARGET),
            ("copy", "B", TARGET),
            ("served as HTML", "C", HTML_TARGET),
        ],
    );
    // What each load fetched, but the icon a browser asks of every origin.
    let set = |key: &str| -> BTreeSet<(String, String)> {
        results[key]
            .iter()
            .filter(|(_, target)| target != "/favicon.ico")
            .cloned()
            .collect()
    };
    let sheets: BTreeSet<(String, String)> =
        ["/docs/a.css", "/up/q.css?a=1&b=2", "/based/after.css"]
            .iter()
            .map(|t| ("A".to_owned(), t.to_string()))
            .collect();
    let with_page = |origin: &str, target: &str| {
        let mut all = sheets.clone();
        all.insert((origin.to_owned(), target.to_owned()));
        all
    };
    // The comparison is of something: the original fetches those three,
    // none inside its root.
    assert_eq!(set("original"), with_page("A", TARGET));
    assert_eq!(set("copy"), with_page("B", TARGET));
    assert_eq!(
        set("served as HTML"),
        BTreeSet::from([("C".to_owned(), HTML_TARGET.to_owned())])
    );
    println!(
        "a page served as XML: its copy fetches the {} stylesheets the original fetched",
        sheets.len()
    );
}

/// The site of [`a_relative_mirror_opens_from_the_disk_as_the_site_did_in_chromium`]:
/// (path, bytes), its pages and what they link to.
const MIRROR: &[(&str, &str)] = &[
    (
        "index.html",
        "<!doctype html><head><base href=\"https://example.com/docs/\"><link rel=stylesheet href=/css/site.css></head>\
         <a href=guide.html#install>guide</a> <a href=\"/\">home</a> <a href=\"./\">docs</a> <a href=../about>about</a>\
         <img src=\"/img/a%20b.png\" srcset=\"/img/caf%C3%A9.png 1x, https://cdn.example/x.png 2x\">\
         <a href=\"/shop.php?id=1\">saved</a> <a href=\"/shop.php?id=2\">not saved</a> <a href=\"/missing.html\">missing</a>\
         <a href=\"mailto:a@example.com\">mail</a> <a href=\"//example.com/img/a%20b.png#x\">scheme-relative</a>",
    ),
    (
        "docs/guide.html",
        "<!doctype html><a href=\"#install\">here</a> <a href=\"./\">docs</a> <a href=\"../\">up</a>\
         <a href=\"/about/#team\">team</a> <a href=https://example.com/docs/guide.html>itself</a>\
         <iframe src=\"../img/a%20b.png\"></iframe><svg><image href=\"/img/a%20b.png\"/></svg>",
    ),
    (
        "docs/index.html",
        "<!doctype html><a href=guide.html>guide</a> <a href=/>home</a>",
    ),
    (
        "about/index.html",
        "<!doctype html><a href=\"../docs/guide.html\">guide</a>",
    ),
    ("css/site.css", "body{background:url(/img/a%20b.png)}"),
    ("img/a b.png", "png"),
    ("img/café.png", "png"),
    ("shop.php?id=1", "<!doctype html>a page wget saved"),
];

/// The file of the mirror at `root` that a URL of the site (without a
/// fragment) names, as `--relative` promises: its path (escapes undone), a
/// directory's `index.html`, a query's saved page.
fn mirrored(root: &Path, url: &str) -> Option<PathBuf> {
    let rest = url.strip_prefix("https://example.com/")?;
    let (path, query) = match rest.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (rest, None),
    };
    let decoded =
        |s: &str| String::from_utf8(percent_decoded(s)).expect("the mirror's names are UTF-8");
    if let Some(query) = query {
        let saved = root.join(format!("{}?{}", decoded(path), decoded(query)));
        if saved.is_file() {
            return Some(saved);
        }
    }
    let mut file = root.join(decoded(path));
    if path.is_empty() || path.ends_with('/') || file.is_dir() {
        file = file.join("index.html");
    }
    file.is_file().then_some(file)
}

/// The file a `file:` URL under `root` names, and the fragment.
fn on_disk(root: &Path, url: &str) -> Option<(PathBuf, Option<String>)> {
    let prefix = format!("file://{}/", root.display());
    let (rest, fragment) = split_fragment(url.strip_prefix(&prefix)?);
    // A query a `file:` URL holds is not part of the file's name.
    let path = rest.split_once('?').map_or(rest, |(path, _)| path);
    let path = String::from_utf8(percent_decoded(path)).ok()?;
    Some((root.join(path), fragment))
}

/// A URL and its fragment, apart.
fn split_fragment(url: &str) -> (&str, Option<String>) {
    match url.split_once('#') {
        Some((url, fragment)) => (url, Some(fragment.to_owned())),
        None => (url, None),
    }
}

/// What [`judge_from_disk`] counted: links that reached a copy of a file
/// of the site from the disk, and the others, which went where they went.
#[derive(Default)]
struct FromDisk {
    local: usize,
    others: usize,
}

/// Judges pages opened from the disk against their originals, link by link
/// (every element's URL attribute and every URL of a `srcset`): `pages`
/// are (key, file) pairs, the original's answer in `originals` under the
/// key, the copy's in `copies` under its file. A link whose target (its
/// fragment aside) was a file of the site must reach, from the disk, one of
/// the copies `files` gives for that target (under `out`), at the same
/// fragment; `files` gives none for any other link, which must go where it
/// went. The `<base href>` of a copy is made its own (empty); an SVG `#id`
/// is the document's own whatever the base, kept as written. Every page
/// is judged, and every failure told.
fn judge_from_disk(
    pages: &[(String, String)],
    originals: &BTreeMap<String, Value>,
    copies: &BTreeMap<String, Value>,
    out: &Path,
    files: impl Fn(&str) -> Vec<PathBuf>,
) -> FromDisk {
    let mut judged = FromDisk::default();
    let mut failures = Vec::new();
    for (key, file) in pages {
        let (original, copy) = (&originals[key], &copies[file]);
        assert!(original.get("error").is_none(), "{key}: {original}");
        assert!(copy.get("error").is_none(), "{file}: {copy}");
        let (before, after) = (links_and_candidates(original), links_and_candidates(copy));
        assert_eq!(before.len(), after.len(), "{key}: the same elements");
        for (b, a) in before.iter().zip(&after) {
            if b.tag == "base" {
                if !a.value.is_empty() {
                    failures.push(format!(
                        "{key}: <base href> is {:?}, not the file's own",
                        a.value
                    ));
                }
                continue;
            }
            if b.value.starts_with('#') && a.value == b.value && b.tag != "a" {
                continue;
            }
            let link = format!("{key}: <{} {}> {:?}", b.tag, b.name, b.value);
            if b.target.is_empty() {
                failures.push(format!("{link}: Chromium made no URL of it"));
                continue;
            }
            let (target, fragment) = split_fragment(b.target);
            let want = files(target);
            if want.is_empty() {
                judged.others += 1;
                if a.target != b.target {
                    failures.push(format!(
                        "{link} went to {}; from the disk {:?} goes to {}",
                        b.target, a.value, a.target
                    ));
                }
                continue;
            }
            judged.local += 1;
            let reached = on_disk(out, a.target);
            if !reached.is_some_and(|(file, f)| want.contains(&file) && f == fragment) {
                failures.push(format!(
                    "{link} went to {}; from the disk {:?} goes to {}, not to {}",
                    b.target,
                    a.value,
                    a.target,
                    want.iter()
                        .map(|w| w.display().to_string())
                        .collect::<Vec<_>>()
                        .join(" or ")
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "from the disk, {} links go elsewhere than the originals did:\n{}",
        failures.len(),
        failures.join("\n")
    );
    judged
}

/// Judges what pages opened from the disk fetch (style sheets and their
/// `url()`s and `@import`s, images, the `srcset` candidate chosen, frames)
/// against what their originals fetched, page by page (`pages`,
/// `originals` and `copies` as for [`judge_from_disk`]): each original's
/// fetch of a file of the site that has a copy (`site_file` names it) is
/// a fetch of a copy of it (`copy_of` names the file of the site a path
/// under `out` copies), and every other fetch is of the same URL. Every
/// failure is told; the fetches judged are counted.
fn judge_fetches(
    pages: &[(String, String)],
    originals: &BTreeMap<String, Value>,
    copies: &BTreeMap<String, Value>,
    out: &Path,
    site_file: impl Fn(&str) -> Option<String>,
    copy_of: impl Fn(&Path) -> Option<String>,
) -> usize {
    let mut fetched = 0;
    let mut failures = Vec::new();
    for (key, copy) in pages {
        let of_original: BTreeSet<String> = requests(&originals[key])
            .into_iter()
            .map(|url| match site_file(split_fragment(url).0) {
                Some(file) => format!("the site's {file}"),
                None => split_fragment(url).0.to_owned(),
            })
            .collect();
        let of_copy: BTreeSet<String> = requests(&copies[copy])
            .into_iter()
            .map(|url| match on_disk(out, url) {
                Some((path, _)) => match copy_of(&path) {
                    Some(file) => format!("the site's {file}"),
                    None => format!("{url}, no copy of a file of the site"),
                },
                None => url.to_owned(),
            })
            .collect();
        fetched += of_original.len();
        if of_original != of_copy {
            failures.push(format!(
                "{key}: the original fetched {of_original:?}; from the disk, {of_copy:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "from the disk, {} pages fetch other than the originals did:\n{}",
        failures.len(),
        failures.join("\n")
    );
    fetched
}

pub(crate) fn percent_decoded(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match (bytes[i], bytes.get(i + 1..i + 3)) {
            (b'%', Some(hex)) if hex.iter().all(u8::is_ascii_hexdigit) => {
                out.push(u8::from_str_radix(std::str::from_utf8(hex).unwrap(), 16).unwrap());
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}

/// A mirror made with `--site --relative`, opened from the disk in
/// Chromium: every link that went to a file of the site (Chromium's
/// reading of the original page at its URL) goes to that file's copy on
/// the disk, at the same fragment, and every other link where it went.
#[test]
fn a_relative_mirror_opens_from_the_disk_as_the_site_did_in_chromium() {
    let Some(chromium) = browser() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (site, out) = (dir.path().join("site"), dir.path().join("out"));
    for (path, bytes) in MIRROR {
        let path = site.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    let run = Command::new(BIN)
        .args([
            "--site-url",
            "https://example.com/",
            "--relative",
            "--out-dir",
        ])
        .arg(&out)
        .arg("--site")
        .arg(&site)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let pages: Vec<&str> = MIRROR
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| path.ends_with(".html"))
        .collect();
    // The originals, at their URLs.
    let loads: Vec<(String, String, Vec<u8>)> = pages
        .iter()
        .map(|path| {
            let url = format!(
                "https://example.com/{}",
                path.trim_end_matches("index.html")
            );
            let bytes = std::fs::read(site.join(path)).unwrap();
            (path.to_string(), url, bytes)
        })
        .collect();
    let originals = load_all(&chromium, &loads);
    // The copies, from the disk.
    let pages: Vec<(String, String)> = pages
        .iter()
        .map(|path| (path.to_string(), out.join(path).display().to_string()))
        .collect();
    let files: Vec<String> = pages.iter().map(|(_, file)| file.clone()).collect();
    let copies = open_from_disk(&chromium, &files);
    let FromDisk { local, others } = judge_from_disk(&pages, &originals, &copies, &out, |url| {
        mirrored(&site, url)
            .map(|file| out.join(file.strip_prefix(&site).unwrap()))
            .into_iter()
            .collect()
    });
    println!(
        "a relative mirror in Chromium: {local} links to the site's files reached from the disk, {others} others where they went"
    );
    assert!(local >= 15 && others >= 3, "{local} local, {others} others");
}

#[test]
fn an_archive_saved_as_a_tree_opens_from_the_disk_as_it_was_captured_in_chromium() {
    let test = "an_archive_saved_as_a_tree_opens_from_the_disk";
    let Some(chromium) = browser() else {
        return;
    };
    let (Some(shared), Some(python)) = (common::shared(test), common::warc_python(test)) else {
        return;
    };
    let archive = shared.join("corpus/warc/corpus-wget.warc.gz");
    let dir = tempfile::tempdir().unwrap();
    let (out, originals_dir) = (dir.path().join("out"), dir.path().join("originals"));
    std::fs::create_dir(&originals_dir).unwrap();
    let run = Command::new(BIN)
        .arg("--warc")
        .arg(&archive)
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // What was saved where, by URL, as the run lists it.
    let list = String::from_utf8(run.stdout).unwrap();
    let saved: BTreeMap<&str, PathBuf> = list
        .lines()
        .filter_map(|line| {
            let mut fields = line.split('\t');
            match (fields.next(), fields.next(), fields.next()) {
                (Some("saved" | "redirect"), Some(url), Some(file)) => {
                    Some((url, PathBuf::from(file)))
                }
                _ => None,
            }
        })
        .collect();
    // The pages as captured, by warcio, at their URLs.
    let driver = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/chromium/payloads.py");
    let status = Command::new(&python)
        .arg(driver)
        .arg(&archive)
        .arg(&originals_dir)
        .status()
        .expect("python runs");
    assert!(status.success(), "warcio failed: {status}");
    let pages: BTreeMap<String, String> =
        serde_json::from_slice(&std::fs::read(originals_dir.join("pages.json")).unwrap()).unwrap();
    // The index (which links to every page) and every third page: each
    // page is loaded twice, and CI has two cores for all the judges.
    let pages: BTreeMap<String, String> = pages
        .into_iter()
        .enumerate()
        .filter(|(i, (url, _))| i % 3 == 0 || url.ends_with("/index.html"))
        .map(|(_, page)| page)
        .collect();
    let loads: Vec<(String, String, Vec<u8>)> = pages
        .iter()
        .map(|(url, file)| (url.clone(), url.clone(), std::fs::read(file).unwrap()))
        .collect();
    let originals = load_all(&chromium, &loads);
    // The files saved, from the disk.
    let pages: Vec<(String, String)> = pages
        .keys()
        .map(|url| (url.clone(), saved[url.as_str()].display().to_string()))
        .collect();
    let files: Vec<String> = pages.iter().map(|(_, file)| file.clone()).collect();
    let copies = open_from_disk(&chromium, &files);
    let FromDisk { local, others } = judge_from_disk(&pages, &originals, &copies, &out, |url| {
        saved.get(url).cloned().into_iter().collect()
    });
    println!(
        "an archive saved as a tree in Chromium: {} pages of the crawl's, {local} links to files saved reached from the disk, {others} others where they went",
        pages.len()
    );
    assert!(
        pages.len() >= 50 && local >= 150 && others >= 1000,
        "{} pages, {local} local, {others} others",
        pages.len()
    );
}

// ------------------------------------------------ a wget mirror made relative

/// The site of [`a_wget_mirror_made_relative_opens_from_the_disk_as_its_server_served_it_in_chromium`],
/// (path, text), served by `tests/http_server.py --site` at `{ORIGIN}`
/// (`http://127.0.0.1:PORT`): directory URLs (`docs/`, and `docs` without
/// its slash, which the server redirects), pages a script makes for a
/// query (a file named after the whole target, `page.php?id=1`, which
/// wget saves as `page.php?id=1.html`), a page at a query-only reference
/// (`?print=1`, the page's own file served), a `.php` page (saved as
/// `about.php.html`), a stylesheet asked with a query (`site.css?v=2`,
/// saved as `site.css?v=2.css`) with `url()` and `@import`, `srcset` and
/// `<picture>`, a `<style>` and a `style`, an SVG with links, an iframe, a
/// form and its `formaction`, fragments, a `<base href>`, names with a
/// space, a `%` and a non-ASCII letter, a directory with no index, a
/// missing page, and other hosts.
const WGET_SITE: &[(&str, &str)] = &[
    (
        "index.html",
        r##"<!doctype html><html><head><meta charset=utf-8><title>Home</title>
<link rel=stylesheet href="css/site.css?v=2"><link rel=icon href="data:,">
</head><body>
<a href="docs/">docs</a> <a href="docs">docs, without its slash</a> <a href="docs/#intro">intro</a>
<a href="docs/guide/">a directory with no index</a>
<a href="page.php?id=1">page 1</a> <a href="page.php?id=1#top">page 1, its top</a>
<a href="about.php">about</a> <a href="missing.html">missing</a>
<a href="my%20notes.html">notes</a> <a href="100%25.html">percent</a> <a href="caf%C3%A9.html">café</a>
<img src="img/a%20b.png" srcset="img/a%20b.png 1x, img/100%25.png 2x, https://cdn.example/x.png 3x" alt="">
<img src="img/logo.svg" alt=""> <a href="img/logo.svg#mark">the logo</a>
<iframe src="frame.html#part"></iframe>
<form action="search.php"><input type=image src="img/go.png" formaction="about.php" alt=go></form>
<a href="http://other.example/elsewhere">another host</a> <a href="mailto:a@example.com">mail</a>
<h1>Home</h1><p>A paragraph.</p><div style="background:url(img/bg.png)">styled</div>
</body></html>
"##,
    ),
    (
        // wget saves this page twice: as `docs/index.html`, and again as
        // `docs.html`, named after the link without the slash that the
        // server redirected (without `--trust-server-names`, wget names a
        // file after the URL it asked for). Its `<base href>` is absolute,
        // so its links resolve alike wherever the file is.
        "docs/index.html",
        r##"<!doctype html><html><head><base href="{ORIGIN}/docs/guide/"><link rel=stylesheet href="../../css/print.css"></head>
<body id=intro><a href="../">docs</a> <a href="step.html#two">a step</a> <a href="/">home</a> <a href="../../page.php?id=2">page 2</a>
<picture><source srcset="../../img/a%20b.png 1x, ../../img/100%25.png 2x"><img src="../../img/bg.png" alt=""></picture>
<p>A paragraph.</p></body></html>
"##,
    ),
    (
        "docs/guide/step.html",
        r##"<!doctype html><h2 id=two>Two</h2><a href="../">docs</a> <a href="../../">home</a> <a href="/docs">docs</a> <a href="?print=1">print</a>
"##,
    ),
    (
        "page.php?id=1",
        r##"<!doctype html><h1 id=top>Page 1</h1><a href="?id=2">next</a> <a href="#top">top</a> <a href="">itself</a>
<a href="page.php?id=1#top">itself, its top</a> <a href="docs/guide/step.html">a step</a>
"##,
    ),
    (
        "page.php?id=2",
        r##"<!doctype html><h1 id=top>Page 2</h1><a href="?id=1">previous</a> <a href="page.php?id=1&amp;sort=up">sorted</a> <a href="./">home</a>
"##,
    ),
    (
        "page.php?id=1&sort=up",
        r##"<!doctype html><a href="?id=2#top">page 2</a>
"##,
    ),
    (
        "about.php",
        r##"<!doctype html><style>p { background: url(img/go.png) }</style>
<p><a href="/">home</a> <a href="docs/">docs</a> <a href="about.php#team">the team</a></p>
"##,
    ),
    (
        "frame.html",
        r##"<!doctype html><p id=part><a href="docs/" target=_top>docs</a> <img src="img/a%20b.png" alt=""></p>
"##,
    ),
    (
        "my notes.html",
        r##"<!doctype html><a href="100%25.html">percent</a> <a href="./my%20notes.html#n">itself</a>
"##,
    ),
    (
        "100%.html",
        r##"<!doctype html><a href="my%20notes.html">notes</a>
"##,
    ),
    (
        "café.html",
        r##"<!doctype html><meta charset=utf-8><a href="caf%C3%A9.html#x">itself</a> <a href="index.html">the index</a>
"##,
    ),
    (
        "css/site.css",
        r##"@import url("print.css");
body { background: url("../img/body.png") }
h1 { background-image: url(../img/h%201.png) }
"##,
    ),
    (
        "css/print.css",
        "p { background: url(../img/100%25.png) }\n",
    ),
    (
        "img/logo.svg",
        r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
<a href="../docs/"><rect id="mark" width="5" height="5"/></a>
<a xlink:href="../page.php?id=2#top"><circle r="2"/></a>
<image href="a%20b.png" width="1" height="1"/>
<use href="#mark"/>
</svg>
"##,
    ),
    ("img/a b.png", "png"),
    ("img/100%.png", "png"),
    ("img/bg.png", "png"),
    ("img/go.png", "png"),
    ("img/body.png", "png"),
    ("img/h 1.png", "png"),
];

/// `tests/http_server.py --site`, serving a directory until dropped.
pub(crate) struct SiteServer {
    child: std::process::Child,
    pub(crate) port: u16,
}

impl SiteServer {
    /// Serves `dir`, each answer a line of `log`.
    fn start(dir: &Path, log: &Path) -> SiteServer {
        SiteServer::spawn(&[dir.as_os_str(), log.as_os_str()])
    }

    /// Serves `dir` as the host `host` (`plain`, `github-pages`) does, by
    /// the rules of `--check-links --host`.
    pub(crate) fn host(dir: &Path, host: &str) -> SiteServer {
        SiteServer::spawn(&[dir.as_os_str(), "--host".as_ref(), host.as_ref()])
    }

    /// Asks the server for each of `urls` (`http://HOST/…`, no fragment),
    /// as `HOST` (a site it serves at its own URL), on one connection: its
    /// log says what it answered each ([`Answered`]).
    fn ask<'a>(&self, urls: impl IntoIterator<Item = &'a str>) {
        use std::io::{BufRead, BufReader, Read, Write};
        let stream = std::net::TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        // Each request one write, sent at once: not held for the last
        // answer's acknowledgement.
        stream.set_nodelay(true).unwrap();
        let mut answers = BufReader::new(stream.try_clone().unwrap());
        let mut asks = stream;
        for url in urls {
            let rest = url.strip_prefix("http://").expect("an http: URL");
            let (host, target) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
            let target = if target.is_empty() { "/" } else { target };
            let request = format!("GET {target} HTTP/1.1\r\nHost: {host}\r\n\r\n");
            asks.write_all(request.as_bytes()).unwrap();
            // The status line and the fields, then the body, read past.
            let mut length = 0;
            loop {
                let mut line = String::new();
                answers.read_line(&mut line).unwrap();
                if line.trim_end().is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(':') {
                    if name.eq_ignore_ascii_case("content-length") {
                        length = value.trim().parse().unwrap();
                    }
                }
            }
            std::io::copy(&mut answers.by_ref().take(length), &mut std::io::sink()).unwrap();
        }
    }

    /// `tests/http_server.py --site ARGS`, once it has said its port.
    fn spawn(args: &[&std::ffi::OsStr]) -> SiteServer {
        use std::io::BufRead;
        let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/http_server.py");
        let mut child = Command::new("python3")
            .arg(server)
            .arg("--site")
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("python3 runs tests/http_server.py");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().expect("the server prints its port");
        SiteServer { child, port }
    }
}

impl Drop for SiteServer {
    /// The server ends when its standard input closes.
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// What a [`SiteServer`] answered each URL it was asked, by its log.
struct Answered(BTreeMap<String, Option<(u16, String)>>);

impl Answered {
    /// The server's `log`, its targets on `origin`: for each URL, the file
    /// it served (its path under the directory served) or where it
    /// redirected; `None` for a 404.
    fn read(log: &Path, origin: &str) -> Answered {
        let log = std::fs::read_to_string(log).unwrap();
        Answered(
            log.lines()
                .map(|line| {
                    let mut fields = line.split('\t');
                    let (Some(status), Some(target), Some(note)) =
                        (fields.next(), fields.next(), fields.next())
                    else {
                        panic!("the server's log: {line:?}");
                    };
                    let status: u16 = status.parse().unwrap();
                    let answer = (status != 404).then(|| (status, note.to_owned()));
                    (format!("{origin}{target}"), answer)
                })
                .collect(),
        )
    }

    /// The file the server served for `url` (no fragment), redirects
    /// followed; `None` for a 404, or a URL it was never asked.
    fn file(&self, url: &str) -> Option<String> {
        let mut url = url.to_owned();
        for _ in 0..10 {
            match self.0.get(&url)?.as_ref()? {
                (200, file) => return Some(file.clone()),
                (_, location) => url = location.clone(),
            }
        }
        None
    }
}

/// What wget saved, by its log (`--no-verbose`): each file (its path under
/// the mirror's root, `host:port/`) and the URL it was saved from, the
/// first one for a file saved twice.
fn wget_saved(log: &str, host: &str) -> BTreeMap<String, String> {
    let mut saved = BTreeMap::new();
    for line in log.lines() {
        // `2026-01-01 12:00:00 URL:http://127.0.0.1:PORT/ [971/971] -> "127.0.0.1:PORT/index.html" [1]`
        let Some((_, rest)) = line.split_once(" URL:") else {
            continue;
        };
        let (Some((url, _)), Some((_, file))) = (rest.split_once(" ["), rest.split_once(" -> \""))
        else {
            panic!("wget's log: {line:?}");
        };
        let file = file
            .rsplit_once("\" [")
            .expect("wget's log names the file")
            .0;
        let file = file
            .strip_prefix(host)
            .and_then(|f| f.strip_prefix('/'))
            .unwrap_or_else(|| panic!("wget saved {file:?} outside {host}/"));
        saved
            .entry(file.to_owned())
            .or_insert_with(|| url.to_owned());
    }
    saved
}

/// A site served over HTTP by a local server, mirrored by wget as users do
/// (`--mirror --page-requisites --adjust-extension`, no `-k`), made
/// relative by htmlabs (`--site --relative --out-dir`), and judged by
/// Chromium: every page wget saved (HTML and SVG) is loaded from the live
/// server at its URL, and its copy from the disk; every link of the
/// original (each element's URL attribute, each `srcset` URL) that reached
/// a file the server served and wget saved must reach, from the disk, a
/// copy of a file wget saved of that very file (by the server's log), at
/// the same fragment, and every other link must go where it went; and
/// each copy must fetch (style sheets and their `url()`s and `@import`s,
/// images, the `srcset` candidate chosen, frames) the copies of the files
/// the original fetched from the server, and anything else as it did.
#[test]
fn a_wget_mirror_made_relative_opens_from_the_disk_as_its_server_served_it_in_chromium() {
    let test = "a_wget_mirror_made_relative_opens_from_the_disk";
    let Some(chromium) = browser() else {
        return;
    };
    let Some(wget) = common::tool("wget", test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (site, mirror, out) = (
        dir.path().join("site"),
        dir.path().join("mirror"),
        dir.path().join("out"),
    );
    let (server_log, wget_log) = (dir.path().join("server.log"), dir.path().join("wget.log"));
    std::fs::create_dir_all(&mirror).unwrap();
    std::fs::create_dir_all(&site).unwrap();
    let server = SiteServer::start(&site, &server_log);
    let host = format!("127.0.0.1:{}", server.port);
    let origin = format!("http://{host}");
    // Written once the port is known: a `<base href>` names it.
    for (path, text) in WGET_SITE {
        let path = site.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text.replace("{ORIGIN}", &origin)).unwrap();
    }
    // Into `127.0.0.1:PORT/`, the host's directory, as users' mirrors are
    // (docs/mirrors.md); the user's wgetrc aside.
    let run = Command::new(&wget)
        .current_dir(&mirror)
        .args(["--no-config", "--no-verbose", "--output-file"])
        .arg(&wget_log)
        .args(["--mirror", "--page-requisites", "--adjust-extension"])
        .arg(format!("{origin}/"))
        .status()
        .unwrap();
    // 8: the server answered an error (the missing page's 404).
    assert!(
        matches!(run.code(), Some(0 | 8)),
        "wget: {run}: {}",
        std::fs::read_to_string(&wget_log).unwrap_or_default()
    );
    let saved = wget_saved(&std::fs::read_to_string(&wget_log).unwrap(), &host);
    let run = Command::new(BIN)
        .arg("--site")
        .arg(mirror.join(&host))
        .args([
            "--site-url",
            &format!("{origin}/"),
            "--relative",
            "--out-dir",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    // Every page wget saved: the original from the server, at the URL wget
    // saved it from; the copy from the disk.
    let pages: Vec<(String, String)> = saved
        .keys()
        .filter(|file| file.ends_with(".html") || file.ends_with(".svg"))
        .map(|file| (file.clone(), out.join(file).display().to_string()))
        .collect();
    let loads: Vec<(String, String)> = pages
        .iter()
        .map(|(file, _)| (file.clone(), saved[file].clone()))
        .collect();
    let originals = load_served(&chromium, &loads, None);
    let files: Vec<String> = pages.iter().map(|(_, file)| file.clone()).collect();
    let copies = open_from_disk(&chromium, &files);
    // The file of the site the server served for a URL (redirects
    // followed), by its log, where wget asked for it or Chromium did.
    let answered = Answered::read(&server_log, &origin);
    let served = |url: &str| answered.file(url);
    // Each copy (under `out`) by the file of the site that wget saved in it.
    let mut copies_of: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    let mut file_of_copy: BTreeMap<PathBuf, String> = BTreeMap::new();
    for (file, url) in &saved {
        let served =
            served(url).unwrap_or_else(|| panic!("wget saved {file} of {url}, never served"));
        copies_of
            .entry(served.clone())
            .or_default()
            .push(out.join(file));
        file_of_copy.insert(out.join(file), served);
    }
    let reached = |url: &str| -> Vec<PathBuf> {
        served(url)
            .and_then(|file| copies_of.get(&file).cloned())
            .unwrap_or_default()
    };
    let FromDisk { local, others } = judge_from_disk(&pages, &originals, &copies, &out, reached);
    let fetched = judge_fetches(
        &pages,
        &originals,
        &copies,
        &out,
        |url| served(url).filter(|f| copies_of.contains_key(f)),
        |copy| file_of_copy.get(copy).cloned(),
    );
    println!(
        "a wget mirror made relative, in Chromium: {} files saved, {} pages; {local} links to mirrored files reached from the disk, {others} others where they went; {fetched} fetches alike",
        saved.len(),
        pages.len()
    );
    assert!(
        pages.len() >= 12 && local >= 50 && others >= 6 && fetched >= 15,
        "{} pages, {local} local, {others} others, {fetched} fetches",
        pages.len()
    );
}
