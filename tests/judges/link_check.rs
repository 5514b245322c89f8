//! `--check-links` judged by a browser: a site served by a local server
//! under each host's rules (`tests/http_server.py --site DIR --host H`,
//! the rules of `src/url/host.rs`), its links checked by htmlabs at the
//! server's URL, and every link the report checked asked of Chromium
//! (`tests/chromium/check_links.py`): found when its URL loads with a 2xx
//! status, redirects followed, and, for a page at a fragment, when the
//! browser finds the part the fragment indicates; not found when it does
//! not load; its fragment not found when the page loads without that
//! part. The checker and the browser must agree on every link, on each
//! host, but where Chromium finds an `<a name>` only by ignoring its case
//! in quirks mode, which the HTML standard and the checker do not
//! ([`Part::CaseOfAName`]): counted apart. Links the checker leaves to
//! other sites must be, to the browser, off the served site.
//!
//! The site: copies of real pages of `../shared/corpus/pages` (legacy
//! encodings, quirks mode, a `<base>` to their own site, `<noscript>`) at
//! several depths, with links planted in them, and pages, stylesheets, SVG
//! and images of ours with links of every kind, working and broken.

use crate::chromium::{SiteServer, ask_driver, browser, percent_decoded};
use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// Pages of the corpus and where the site holds their copies: each depth,
/// a directory's index, a name GitHub Pages serves without its `.html`.
const COPIES: &[(&str, &str)] = &[
    // Quirks mode, windows-1252, dozens of relative links.
    ("238-traf-love-hina.ch.0409.html", "news/0409.html"),
    // A `<base href>` to its own site: every relative link goes there.
    (
        "262-traf-rs-ingenieure.de.tragwerksplanung.html",
        "de/hochbau/leistungen/tragwerksplanung.html",
    ),
    // `<a name>`, `<noscript>`, relative links.
    (
        "221-traf-gregoryszorc.com.python3.html",
        "blog/2020/01/13/python-3/index.html",
    ),
    (
        "326-readability-mozilla-2.html",
        "en-US/firefox/firstrun/index.html",
    ),
    // GB2312 and Shift_JIS.
    ("317-jsoup-baidu-cn-home.html", "cn/index.html"),
    ("324-nokogiri-2ch-shift_jis.html", "jp/2ch.html"),
    (
        "203-traf-creativecommons.at.faircoin.html",
        "faircoin-hackathon.html",
    ),
    ("264-traf-sauvonsluniversite.com.spip.html", "fr/spip.html"),
];

/// The links planted in each copy, before its `</body>` (`{ID}`: ids of
/// the page's own, each in turn): its own parts and parts it lacks, the
/// site's pages by every path, a moved file, images.
const PLANTED: &str = r##"
<p id=planted><a href="#{ID1}">a part of this page</a> <a href="#{ID2}">another</a>
<a href="#no-such-part">a part it lacks</a> <a href="#top">its top</a> <a href="">itself</a>
<a href="/about.html#team">about's team</a> <a href="/about#team">without .html</a> <a href="/about.html#nowhere">a part about lacks</a>
<a href="/docs">docs, without its slash</a> <a href="/docs/#intro">docs' intro</a> <a href="/old/page.html">a moved file's old path</a> <a href="/new/page.html">its new one</a>
<a href="../">up</a> <a href="./">this directory</a> <a href="index.html">its index</a> <a href="/About.html">a name's case</a>
<img src="/img/a%20b.png" srcset="/img/a%20b.png 1x, /img/2x.png 2x" alt=""></p>
"##;

/// The `netlify.toml` of the build that publishes the site (`site`,
/// beside it): its rules follow `_redirects`'.
const NETLIFY_TOML: &str = r#"[build]
publish = "site"
command = "true"

[[redirects]]
from = "/toml-moved/*"
to = "/new/:splat"

[[redirects]]
from = "/toml-rewrite"
to = "/about.html"
status = 200

[[redirects]]
from = "/toml-fr"
to = "/about.html"
status = 200
conditions = { Language = ["fr"] }

[[redirects]]
from = "/old-path/*"
to = "/nowhere.html"
"#;

/// Our pages and files, `{ORIGIN}` the server's (`http://127.0.0.1:PORT`).
const SITE: &[(&str, &str)] = &[
    (
        "index.html",
        r##"<!doctype html><html><head><meta charset=utf-8><title>Home</title>
<link rel=stylesheet href="css/site.css"><link rel=icon href="data:,">
<style>@import "css/print.css"; @import url(/css/gone.css);
h1 { background: url("img/caf%C3%A9.png") } h2 { background: url(img/missing.png) }</style>
</head><body id=home>
<h1 id=heading>Home</h1>
<a href="docs/">docs</a> <a href="docs">docs, without its slash</a> <a href="/docs/#intro">its intro</a> <a href="docs#intro">without its slash, at a part</a>
<a href="empty/">a directory with no index</a> <a href="empty">without its slash</a> <a href="blog">a directory with no index beside blog.html</a> <a href="blog/">with its slash</a>
<a href="both#in-both-html">a page beside a directory of its name, with an index</a> <a href="both#in-both-index">the index's part</a> <a href="both/#in-both-index">with the slash</a> <a href="both/#in-both-html">the page's part</a>
<a href="about">about, without .html</a> <a href="about/">with a slash</a> <a href="about.html">about.html</a> <a href="About.html">a name's case</a> <a href="ABOUT">both</a>
<a href="docs/guide/step">a step, without .html</a> <a href="docs/guide/step.html">with it</a> <a href="docs/guide/step/">with a slash</a>
<a href="old/page.html">a moved file's old path</a> <a href="new/page.html">its new one</a> <a href="posts/first.html">another moved</a>
<a href="my%20notes.html">a space, escaped</a> <a href="my notes.html">a space</a> <a href="my+notes.html">a plus</a>
<a href="caf%C3%A9.html">é, escaped</a> <a href="café.html">é</a> <a href="caf%c3%a9.html">é, lowercase escape</a> <a href="CAF%C3%89.html">É</a> <a href="caf%E9.html">é in Latin-1</a>
<a href="100%25.html">a percent sign</a> <a href="100%.html">a bad escape</a> <a href="docs%2Findex.html">an escaped slash</a>
<a href="about.html?lang=fr">a query</a> <a href="docs/?page=2#intro">a query and a part</a> <a href="about.html?#team">an empty query</a>
<a href="../about.html">above the root</a> <a href="./about.html">this directory</a> <a href="docs/../about.html">a step back</a>
<a href="about.html#team">an id</a> <a href="about.html#history">an a name</a> <a href="about.html#caf%C3%A9">an escaped id</a> <a href="about.html#café">an id with é</a> <a href="about.html#a%20b">an id with a space</a>
<a href="about.html#top">top</a> <a href="about.html#TOP">TOP</a> <a href="about.html#">empty</a> <a href="about.html#Team">an id's case</a> <a href="about.html#nowhere">no such part</a>
<a href="about.html#in-template">in a template</a> <a href="about.html#the-template">a template's own id</a> <a href="about.html#in-noscript">in noscript</a>
<a href="about.html#in-svg">in SVG</a> <a href="about.html#svg-a-name">an SVG a's name</a> <a href="about.html#in-svg-template">in SVG's template</a>
<a href="about.html#in-noembed">in noembed</a> <a href="about.html#in-textarea">in a textarea</a> <a href="about.html#hidden-part">hidden</a> <a href="about.html#p-name">a p's name</a>
<a href="#home">this page's body</a> <a href="#heading">its heading</a> <a href="#missing">a part it lacks</a>
<a href="quirks.html#kapitel">an a name, in another case, in quirks mode</a> <a href="quirks.html#Kapitel">as written</a> <a href="quirks.html#intro">an id, in another case</a>
<a href="legacy.html#caf%C3%A9">an id with é in a windows-1252 page</a> <a href="legacy.html#caf%E9">its Latin-1 escape</a>
<img src="img/a%20b.png" srcset="img/a%20b.png 1x, img/2x.png 2x, img/caf%C3%A9.png 3x" alt="">
<picture><source srcset="img/wide.png 800w, img/narrow.png 400w"><img src="img/missing.png" alt=""></picture>
<div style="background:url(img/bg.png)">styled</div> <p style="background-image:url('img/none.png')">styled</p>
<iframe src="frame.html#part"></iframe> <iframe src="frames/gone.html"></iframe>
<svg><image href="img/logo.svg"/><a href="about.html#team"><circle r="1"/></a><a xlink:href="gone.svg"><circle r="1"/></a></svg>
<object data="img/logo.svg#mark"></object> <embed src="img/none.svg">
<a href="img/logo.svg#mark">an SVG file's element</a> <a href="img/logo.svg#gone">one it lacks</a> <svg><use href="img/logo.svg#in-defs"/><use href="img/logo.svg#Mark"/></svg>
<a href="http://other.example/x">another host</a> <a href="mailto:a@example.com">mail</a> <a href="//cdn.example/y.png">scheme-relative</a>
<a href="{ORIGIN}">the site, without its slash</a> <a href="{ORIGIN}/about.html">absolute</a> <a href="{ORIGIN}?q=1">the site with a query</a>
<a href="/old-path/guide/step.html">a splat redirect</a> <a href="/old-path/">the splat's root</a> <a href="/old-path/none.html">a splat to nothing</a> <a href="/old-path/guide/step.html#x">at a part it lacks</a>
<a href="/rewritten/x#team">a rewrite, at a part</a> <a href="/rewritten/x#nowhere">at a part it lacks</a> <a href="/gone-rule">a 404 rule</a> <a href="/forced.html">a forced rule over a file</a> <a href="/shadowed.html">a rule a file shadows</a>
<a href="/shop?id=step">a query's placeholder</a> <a href="/shop?id=none">to nothing</a> <a href="/shop">without its query</a> <a href="/loop-a">a loop</a> <a href="/fr/x">a rule for some visitors</a>
<a href="/news/2024/first">placeholders</a> <a href="/toml-moved/page.html">netlify.toml's rule</a> <a href="/toml-rewrite">netlify.toml's rewrite</a> <a href="/toml-fr">netlify.toml's rule for some visitors</a>
<a href="about/#team">a page's name with a slash, at a part</a> <a href="docs/guide/step/">another</a>
<a href="/cf/x/end">a splat inside a path</a> <a href="/cf-slash/">a rule's path with a slash</a> <a href="/cf-step.htm">a placeholder inside a segment</a>
<a href="/café-moved">a rule's escaped path, written as it reads</a>
</body></html>
"##,
    ),
    // Netlify's rules (`netlify.toml`, above the site, in `judge`).
    (
        "_redirects",
        "# moved\n/old-path/*  /docs/:splat  301\n/rewritten/*  /about.html  200\n\
         /gone-rule  /about.html  404\n/forced.html  /nowhere.html  301!\n/shadowed.html  /nowhere.html\n\
         /shop  id=:id  /docs/guide/:id.html  302\n/loop-a  /loop-b\n/loop-b  /loop-a\n\
         /fr/*  /about.html  200  Language=fr\n/news/:year/:slug  /new/:slug.html?y=:year\n\
         /cf/*/end  /about.html  301\n/cf-slash  /about.html  301\n/cf-:id.htm  /docs/guide/:id.html  301\n/caf%C3%A9-moved  /about.html  301\n",
    ),
    ("forced.html", "<!doctype html><title>Forced away</title>"),
    (
        "shadowed.html",
        "<!doctype html><title>Shadowing its rule</title>",
    ),
    ("new/first.html", "<!doctype html><title>First</title>"),
    (
        "about.html",
        r##"<!doctype html><html><head><meta charset=utf-8><title>About</title></head><body>
<h1 id=team>Team</h1><p><a name=history>History</a></p><p id="caf&eacute;">Café</p><p id="a b">a space</p><p name=p-name>a p's name</p>
<template><p id=in-template>not in the document</p></template><template id=the-template></template>
<noscript><p id=in-noscript>text, to a browser that runs scripts</p></noscript>
<svg><g id=in-svg></g><a name=svg-a-name></a><template><g id=in-svg-template></g></template></svg>
<noembed><p id=in-noembed></p></noembed><textarea><p id=in-textarea></p></textarea>
<div hidden><p id=hidden-part>hidden</p></div>
<a href="#history">here</a> <a href="">itself</a> <a href="index.html#heading">home</a>
</body></html>
"##,
    ),
    (
        "quirks.html",
        "<html><head><title>Quirks</title></head><body><a name=Kapitel>Kapitel</a><p id=Intro>intro</p>\n\
         <a href=\"#kapitel\">a name in another case</a> <a href=\"#Kapitel\">as written</a></body></html>\n",
    ),
    (
        // The base sends relative links elsewhere: into a directory with
        // no index, next to files that are not there.
        "docs/index.html",
        r##"<!doctype html><html><head><meta charset=utf-8><base href="/docs/guide/"><title>Docs</title></head>
<body><h1 id=intro>Docs</h1>
<a href="step.html#two">a step</a> <a href="step.html#three">a part it lacks</a> <a href="index.html">the base's index</a> <a href="../index.html">this page</a>
<a href="../../about.html">about</a> <a href="../about.html">not in docs</a> <a href="#intro">the base's, not this page's</a> <a href="">the base</a> <a href="?x=1">the base, a query</a>
<img src="../../img/a%20b.png" srcset="../../img/2x.png 2x, ../../img/bg.png 3x" alt="">
</body></html>
"##,
    ),
    (
        "docs/guide/step.html",
        r##"<!doctype html><meta charset=utf-8><h2 id=two>Two</h2>
<a href="../">docs</a> <a href="../../">home</a> <a href="/docs">docs, without its slash</a> <a href="step#two">itself, without .html</a> <a href="step/">with a slash</a>
<a href="../other.html">another base</a>
"##,
    ),
    (
        // A base on another host: its relative links are that host's.
        "docs/other.html",
        r##"<!doctype html><head><base href="http://other.example/docs/"></head>
<a href="about.html">another site's</a> <a href="{ORIGIN}/about.html">ours</a> <a href="/docs/guide/step.html">another site's</a>
"##,
    ),
    (
        "new/page.html",
        "<!doctype html><p id=moved>moved here</p>\n",
    ),
    ("posts/2nd.html", "<!doctype html><p>the second post</p>\n"),
    ("blog.html", "<!doctype html><p>the blog</p>\n"),
    // Cloudflare Pages answers a missing path with it, as 404, where a
    // site without it is answered with its index.html, as 200.
    ("404.html", "<!doctype html><title>Not here</title>\n"),
    (
        "both.html",
        "<!doctype html><p id=in-both-html>the page</p>\n",
    ),
    (
        "both/index.html",
        "<!doctype html><p id=in-both-index>the directory's index</p>\n",
    ),
    ("blog/first.html", "<!doctype html><p>the first post</p>\n"),
    ("empty/notes.txt", "no index here\n"),
    (
        "my notes.html",
        "<!doctype html><a href=\"100%25.html\">percent</a> <a href=\"./my%20notes.html#n\">itself</a>\n",
    ),
    (
        "café.html",
        "<!doctype html><meta charset=utf-8><a href=\"caf%C3%A9.html#x\">itself</a> <a href=\"index.html\">home</a>\n",
    ),
    (
        "100%.html",
        "<!doctype html><a href=\"my%20notes.html\">notes</a>\n",
    ),
    (
        "frame.html",
        "<!doctype html><p id=part><a href=\"docs/\" target=_top>docs</a> <img src=\"img/a%20b.png\" alt=\"\"></p>\n",
    ),
    (
        "css/site.css",
        r#"@import "print.css";
@import url(/css/gone.css);
body { background: url(../img/a%20b.png) }
.x { background: url("../img/none.png") }
.y { background: url(../img/logo.svg#mark) }
.z { background: url(../img/caf%C3%A9.png) }
"#,
    ),
    (
        "css/print.css",
        "p { background: url(../img/bg.png) }\nq { background: url(bg.png) }\n",
    ),
    (
        "img/logo.svg",
        r##"<?xml-stylesheet href="../css/print.css" type="text/css"?>
<?xml-stylesheet href="../css/gone-svg.css" type="text/css"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
<rect id="mark" width="5" height="5"/>
<defs><symbol id="in-defs"><rect width="1" height="1"/></symbol></defs>
<use href="#in-defs"/> <use href="#not-here"/>
<a href="../about.html#team"><circle r="2"/></a>
<a xlink:href="../gone.html"><circle r="1"/></a>
<image href="a%20b.png" width="1" height="1"/>
<image xlink:href="none.png" width="1" height="1"/>
<use href="#mark"/>
</svg>
"##,
    ),
    ("img/a b.png", "png"),
    ("img/café.png", "png"),
    ("img/bg.png", "png"),
    ("img/wide.png", "png"),
];

/// A page in windows-1252 (`é` is the byte E9), its id with `é`.
const LEGACY: &[u8] = b"<!doctype html><meta charset=windows-1252><p id=\"caf\xe9\">caf\xe9</p>\n";

/// Up to two ids of `page` (ASCII letters, digits, `-` and `_`), for the
/// planted links to its own parts.
pub(crate) fn ids(page: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(page);
    let mut found = Vec::new();
    for (at, _) in text.match_indices(" id=\"") {
        let rest = &text[at + 5..];
        let Some(end) = rest.find('"') else { continue };
        let id = &rest[..end];
        let plain = !id.is_empty()
            && id
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
        if plain && !found.iter().any(|f| f == id) {
            found.push(id.to_owned());
        }
        if found.len() == 2 {
            break;
        }
    }
    found
}

/// `page` with `links` before its last `</body>` (or at its end), `{ID1}`
/// and `{ID2}` in them the page's first two [`ids`] (`none` where it has
/// fewer).
pub(crate) fn planted(page: &[u8], links: &str) -> Vec<u8> {
    let ids = ids(page);
    let id = |i: usize| ids.get(i).map_or("none", String::as_str);
    let links = links.replace("{ID1}", id(0)).replace("{ID2}", id(1));
    let lower = page.to_ascii_lowercase();
    let at = lower
        .windows(7)
        .rposition(|w| w == b"</body>")
        .unwrap_or(page.len());
    [&page[..at], links.as_bytes(), &page[at..]].concat()
}

/// Writes the site under `root`, its absolute links at `origin`.
fn make(root: &Path, origin: &str, corpus: &Path) {
    let mut files: Vec<(String, Vec<u8>)> = SITE
        .iter()
        .map(|(path, text)| (path.to_string(), text.replace("{ORIGIN}", origin).into()))
        .collect();
    files.push(("legacy.html".to_owned(), LEGACY.to_vec()));
    for (page, path) in COPIES {
        let bytes = std::fs::read(corpus.join(page)).expect("a page of the corpus");
        files.push((path.to_string(), planted(&bytes, PLANTED)));
    }
    for (path, bytes) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

/// One link of the report that the checker checked or left to another
/// site.
struct Checked {
    /// Where it stands: `FILE:LINE:COLUMN: <tag attr> "value"`.
    place: String,
    /// The same without its column, which the server's port can move:
    /// the link on each host.
    link: String,
    absolute: String,
    status: String,
}

/// The report's checked links, by `--check-links --report` (`{ORIGIN}`
/// for the server's origin in their places, the same on each host).
fn checked(report: &str, site: &Path, origin: &str) -> Vec<Checked> {
    let shown = format!("{}/", site.display());
    report
        .lines()
        .filter_map(|line| {
            let v: Value = serde_json::from_str(line).unwrap();
            let status = v["status"].as_str()?.to_owned();
            let text = |key: &str| v[key].as_str().unwrap_or_default().to_owned();
            let file = text("file").replace(&shown, "");
            let value = format!(
                "<{} {}> {:?}",
                text("element"),
                text("attribute"),
                text("original").replace(origin, "{ORIGIN}")
            );
            Some(Checked {
                place: format!("{file}:{}:{}: {value}", v["line"], v["column"]),
                link: format!("{file}:{}: {value}", v["line"]),
                absolute: text("absolute"),
                status,
            })
        })
        .collect()
}

/// What one host's run found.
#[derive(Default)]
struct Tally {
    judged: usize,
    found: usize,
    broken: usize,
    fragments: usize,
    /// Fragments Chromium finds by a quirk only ([`Part::CaseOfAName`]).
    case_of_a_name: usize,
    off_site: usize,
    /// Each checked link and its status, in the report's order: the
    /// hosts compared.
    statuses: Vec<(String, String)>,
}

/// Serves the site as `host` does, checks its links with htmlabs and asks
/// Chromium about each; the disagreements go to `disagreements`.
fn judge(chromium: &Path, corpus: &Path, host: &str, disagreements: &mut Vec<String>) -> Tally {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    std::fs::create_dir(&site).unwrap();
    let server = SiteServer::host(&site, host);
    let origin = format!("http://127.0.0.1:{}", server.port);
    make(&site, &origin, corpus);
    if host == "gitlab-pages" {
        // GitLab's parser reads no rule of a file with a query's condition
        // (`/shop  id=:id  …`): the site's rules without it, to be read.
        let rules = std::fs::read_to_string(site.join("_redirects")).unwrap();
        let rules: Vec<&str> = rules.lines().filter(|l| !l.contains("id=:id")).collect();
        std::fs::write(site.join("_redirects"), rules.join("\n")).unwrap();
    }
    // Netlify's file of the build that publishes the site.
    std::fs::write(dir.path().join("netlify.toml"), NETLIFY_TOML).unwrap();
    let report = dir.path().join("links.jsonl");
    let run = Command::new(BIN)
        .arg("--site")
        .arg(&site)
        .args(["--site-url", &format!("{origin}/"), "--check-links"])
        .args(["--host", host, "--report"])
        .arg(&report)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{host}: {stderr}");
    let links = checked(&std::fs::read_to_string(&report).unwrap(), &site, &origin);
    // Ask Chromium about each URL once: loads without the fragment, pages
    // at a fragment, and where the other sites' links go.
    let mut urls = BTreeSet::new();
    let mut fragments = BTreeSet::new();
    let mut off_site = BTreeSet::new();
    for link in &links {
        if link.status == "off-site" {
            off_site.insert(link.absolute.as_str());
            continue;
        }
        let (url, fragment) = split(&link.absolute);
        urls.insert(url);
        if fragment.is_some() {
            fragments.insert(link.absolute.as_str());
        }
    }
    let asked = serde_json::json!({
        "origin": origin,
        "urls": urls,
        "fragments": fragments,
        "off_site": off_site,
    });
    let answer = ask_driver(chromium, "check_links.py", &asked);
    let mut tally = Tally::default();
    let on_site = format!("{origin}/");
    for link in &links {
        if link.status == "off-site" {
            tally.off_site += 1;
            let parsed = answer["parsed"][&link.absolute]
                .as_str()
                .unwrap_or_default();
            if parsed.starts_with(&on_site) {
                disagreements.push(format!(
                    "{host}: {} -> {:?}: off-site to the checker, {parsed} to Chromium",
                    link.place, link.absolute
                ));
            }
            continue;
        }
        tally.judged += 1;
        tally
            .statuses
            .push((link.link.clone(), link.status.clone()));
        match link.status.as_str() {
            "found" => tally.found += 1,
            _ => tally.broken += 1,
        }
        let (url, fragment) = split(&link.absolute);
        let fetched = &answer["fetched"][url];
        let loads = fetched["status"]
            .as_u64()
            .is_some_and(|s| (200..300).contains(&s));
        // The part the browser found for the fragment: `None` when it was
        // not asked (no fragment, or no page).
        let part = answer["fragments"].get(&link.absolute).map(|found| {
            tally.fragments += 1;
            let part = indicated(found, fragment.unwrap_or_default());
            if part == Ok(Part::CaseOfAName) {
                tally.case_of_a_name += 1;
            }
            part
        });
        let browser = match (loads, part) {
            (false, _) => Ok("not-found"),
            (true, Some(Ok(Part::None | Part::CaseOfAName))) => Ok("fragment-not-found"),
            (true, Some(Err(e))) => Err(e),
            (true, _) => Ok("found"),
        };
        if browser.as_deref() != Ok(link.status.as_str()) {
            let target = &answer["fragments"][&link.absolute]["target"];
            disagreements.push(format!(
                "{host}: {} -> {:?}: the checker says {}; Chromium: {} ({}){}",
                link.place,
                link.absolute,
                link.status,
                browser.map(str::to_owned).unwrap_or_else(|e| e),
                fetched,
                match target {
                    Value::Null => String::new(),
                    target => format!(", :target {target}"),
                },
            ));
        }
    }
    // Each broken link is one line of the run's output.
    let lines = String::from_utf8_lossy(&run.stdout).lines().count();
    assert_eq!(lines, tally.broken, "{host}: the lines of the broken links");
    drop(server);
    tally
}

/// What Chromium found in a page for a fragment.
#[derive(Debug, PartialEq, Eq)]
enum Part {
    /// An element, or the top of the page.
    Found,
    /// No part: `:target` matches nothing.
    None,
    /// Only an `a` element whose `name` is the fragment in another case,
    /// in quirks mode, where Chromium matches names ASCII
    /// case-insensitively. HTML §7.4.6.3 matches them as written, in every
    /// mode, and so does the checker (docs/sites.md): a quirk of one
    /// engine, which a link that works in every browser does not rely on,
    /// counted apart (and planted, so that a change in Chromium shows).
    CaseOfAName,
}

/// The part Chromium's answer `found` (`tests/chromium/check_links.py`)
/// says the page has for `fragment` (as the URL has it).
fn indicated(found: &Value, fragment: &str) -> Result<Part, String> {
    if let Some(e) = found.get("error") {
        return Err(format!("Chromium could not open it: {e}"));
    }
    let decoded = String::from_utf8_lossy(&percent_decoded(fragment)).into_owned();
    // HTML §7.4.6.3: an empty fragment and `top` (any case) indicate the
    // top of the page, no element.
    if fragment.is_empty() || decoded.eq_ignore_ascii_case("top") {
        return Ok(Part::Found);
    }
    let target = &found["target"];
    if target.is_null() {
        return Ok(Part::None);
    }
    let attribute = |name: &str| target[name].as_str().unwrap_or_default();
    let written = |value: &str| value == fragment || value == decoded;
    let by_case = found["quirks"] == true
        && target["tag"] == "a"
        && !written(attribute("id"))
        && !written(attribute("name"))
        && attribute("name").eq_ignore_ascii_case(&decoded);
    Ok(if by_case {
        Part::CaseOfAName
    } else {
        Part::Found
    })
}

/// A URL and its fragment (after the first `#`), apart.
fn split(url: &str) -> (&str, Option<&str>) {
    match url.split_once('#') {
        Some((url, fragment)) => (url, Some(fragment)),
        None => (url, None),
    }
}

/// On each host's rules, htmlabs's `--check-links` and Chromium agree on
/// every link of a site of real pages and ours: found, not found, or at a
/// fragment the page lacks; and what it leaves to other sites is, to the
/// browser, not on the site.
#[test]
fn chromium_agrees_with_the_link_checker_on_each_host() {
    let test = "chromium_agrees_with_the_link_checker_on_each_host";
    let Some(shared) = common::shared(test) else {
        return;
    };
    let Some(chromium) = browser() else {
        return;
    };
    let corpus = shared.join("corpus/pages");
    let mut disagreements = Vec::new();
    let mut tallies = BTreeMap::new();
    for host in [
        "plain",
        "github-pages",
        "netlify",
        "cloudflare-pages",
        "gitlab-pages",
    ] {
        let before = disagreements.len();
        let tally = judge(&chromium, &corpus, host, &mut disagreements);
        println!(
            "--check-links --host {host}, in Chromium: {} links judged ({} found, {} broken; {} at a fragment, {} of them found by Chromium's quirks-mode case of an `a` name), {} disagree; {} off the site",
            tally.judged,
            tally.found,
            tally.broken,
            tally.fragments,
            tally.case_of_a_name,
            disagreements.len() - before,
            tally.off_site
        );
        tallies.insert(host, tally);
    }
    assert!(
        disagreements.is_empty(),
        "Chromium and --check-links disagree on {} links:\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    for (host, tally) in &tallies {
        assert!(
            tally.judged >= 400
                && tally.broken >= 250
                && tally.fragments >= 80
                && tally.off_site >= 250,
            "{host}: too little judged"
        );
        // The planted ones (`quirks.html`): the quirk is still Chromium's.
        assert_eq!(tally.case_of_a_name, 2, "{host}");
    }
    // The hosts' rules are told apart: links found on one, broken on the
    // other.
    let (plain, pages, netlify, cloudflare) = (
        &tallies["plain"].statuses,
        &tallies["github-pages"].statuses,
        &tallies["netlify"].statuses,
        &tallies["cloudflare-pages"].statuses,
    );
    let links = |statuses: &[(String, String)]| -> Vec<String> {
        statuses.iter().map(|(link, _)| link.clone()).collect()
    };
    assert_eq!(links(plain), links(pages), "the same links on each host");
    assert_eq!(links(plain), links(netlify), "the same links on each host");
    assert_eq!(
        links(plain),
        links(cloudflare),
        "the same links on each host"
    );
    let gitlab = &tallies["gitlab-pages"].statuses;
    assert_eq!(links(plain), links(gitlab), "the same links on each host");
    let differ = plain.iter().zip(pages).filter(|(a, b)| a.1 != b.1).count();
    assert!(differ >= 10, "{differ} links differ between the hosts");
    // Netlify's redirects, rewrites and `/about/`: found there, not on
    // GitHub Pages, by the checker and the browser (which agree above);
    // Cloudflare's, of the lines it reads (`FROM TO [STATUS]`), taken over
    // any file, and no `netlify.toml`.
    let status = |value: &str| -> Vec<&str> {
        [pages, netlify, cloudflare]
            .map(|statuses| {
                let found = statuses.iter().find(|(link, _)| {
                    link.starts_with("index.html:") && link.ends_with(&format!("\"{value}\""))
                });
                found.map_or("none", |(_, status)| status.as_str())
            })
            .to_vec()
    };
    for (value, cloudflare) in [
        ("/old-path/guide/step.html", "found"),
        ("/old-path/", "found"),
        ("/rewritten/x#team", "found"),
        ("/shop?id=step", "not-found"),
        ("/news/2024/first", "found"),
        ("/toml-moved/page.html", "not-found"),
        ("/toml-rewrite", "not-found"),
        ("about/#team", "found"),
        ("docs/guide/step/", "found"),
    ] {
        assert_eq!(status(value), ["not-found", "found", cloudflare], "{value}");
    }
    for value in [
        "/old-path/none.html",
        "/gone-rule",
        "/shop?id=none",
        "/loop-a",
        "/fr/x",
        "/toml-fr",
    ] {
        assert_eq!(status(value), ["not-found"; 3], "{value}");
    }
    // A page and a directory of its name: GitHub Pages serves the page
    // at the name, the directory's index at the slash (and, without an
    // index, nothing); Netlify the page at both; Cloudflare Pages as
    // GitHub Pages, but the page at the slash where there is no index.
    assert_eq!(status("blog"), ["found"; 3]);
    assert_eq!(status("blog/"), ["not-found", "found", "found"]);
    assert_eq!(status("both#in-both-html"), ["found"; 3]);
    let index_part = ["found", "fragment-not-found", "found"];
    assert_eq!(status("both/#in-both-index"), index_part);
    let page_part = ["fragment-not-found", "found", "fragment-not-found"];
    assert_eq!(status("both/#in-both-html"), page_part);
    // `301!` is no status to Cloudflare: the line is left out, and the
    // file served; a rule without `!` is taken over a file there alone.
    assert_eq!(status("/forced.html"), ["found", "not-found", "found"]);
    assert_eq!(status("/shadowed.html"), ["found", "found", "not-found"]);
    assert_eq!(
        status("/rewritten/x#nowhere")[1..],
        ["fragment-not-found"; 2]
    );
    // Cloudflare's patterns, as its code reads them: `*` and `:name`
    // anywhere in a path (Netlify's a whole last segment, a whole
    // segment), and the path whole, its trailing slash counting.
    assert_eq!(status("/cf/x/end"), ["not-found", "not-found", "found"]);
    assert_eq!(status("/cf-slash/"), ["not-found", "found", "not-found"]);
    assert_eq!(status("/cf-step.htm"), ["not-found", "not-found", "found"]);
    // The path as the browser sends it, escaped, matches a rule written
    // escaped (GitLab matches it decoded, below).
    assert_eq!(status("/café-moved"), ["not-found", "found", "found"]);
    // GitLab Pages: a directory before the page of its name, `/about/`
    // its page, and the rules it reads (no `!`, no 404, no condition) over
    // no file, in any case; a redirect's query dropped.
    let on_gitlab = |value: &str| {
        let found = gitlab.iter().find(|(link, _)| {
            link.starts_with("index.html:") && link.ends_with(&format!("\"{value}\""))
        });
        found.map_or("none", |(_, status)| status.as_str())
    };
    for (value, expected) in [
        ("/old-path/guide/step.html", "found"),
        ("/rewritten/x#team", "found"),
        ("/rewritten/x#nowhere", "fragment-not-found"),
        ("/news/2024/first", "found"),
        ("/gone-rule", "not-found"),
        ("/forced.html", "found"),
        ("/shadowed.html", "found"),
        ("/loop-a", "not-found"),
        ("/fr/x", "not-found"),
        ("/shop?id=step", "not-found"),
        ("about/#team", "found"),
        ("docs/guide/step/", "found"),
        ("blog", "not-found"),
        ("blog/", "not-found"),
        ("both#in-both-html", "fragment-not-found"),
        ("both/#in-both-index", "found"),
        ("/cf/x/end", "found"),
        ("/cf-slash/", "found"),
        ("/cf-step.htm", "not-found"),
        ("/café-moved", "not-found"),
    ] {
        assert_eq!(on_gitlab(value), expected, "gitlab-pages: {value}");
    }
}
