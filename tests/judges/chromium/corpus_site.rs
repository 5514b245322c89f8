//! The corpus pages laid out as one site, served at its URL and made
//! relative, judged by Chromium from the disk (issue 39's "100% on the
//! corpus pages laid out as a site").
//!
//! Every page of `shared/corpus/pages` is put where its URL says, as `wget
//! --adjust-extension` saves it, under its host's directory, at every
//! depth the URLs have (one to six directories): a directory's URL as its
//! `index.html`, a name given `.html`, a query kept in the name before it
//! (`search?hl=en&q=ipod….html`), the escapes undone (`frühburgunder/`,
//! `mercurial's-journey…/`, Chinese).
//! Their own links mostly lead to their original hosts, so links among
//! the site's files are planted in each: relative, root-relative and
//! absolute, `srcset` candidates, `url()` in a `<style>` and in a linked
//! stylesheet and its `@import`, SVG, an iframe, a form, fragments, the
//! site's URL without its slash, a page the site lacks and one beside it
//! on the host. A home page lists every page by each of its URLs.
//!
//! The tree is served by `tests/http_server.py --site` at the site's own
//! URL, [`SITE`] (a host of its own, which Chromium resolves to the local
//! server, under a sub-path, as a project's pages are), each page at its
//! own URL's path and query under it (the server answers a name no file
//! has with the file wget saved it as), and made relative by `htmlabs
//! --site TREE --site-url SITE --relative --out-dir OUT`. Each
//! page is loaded from the server at its URL and opened from the disk
//! (`chromium::load_served`, `open_from_disk`); the server is asked every
//! URL of the site a link of the originals names, and its log says which
//! file it answered, redirects followed. [`judge_from_disk`] judges every
//! link: one that reached a file of the site from the server must reach
//! that file's copy from the disk, at the same fragment, and every other
//! must go where it went; [`judge_fetches`], every fetch (style sheets,
//! their `url()`s and `@import`s, images, the `srcset` candidate chosen,
//! frames): the copies of the files the original fetched, anything else
//! from the same URL. Zero disagreements, and a floor on what is judged.
//!
//! Needs `../shared`, Chromium and Playwright (`chromium::browser`): without
//! them it skips with a note, and fails in CI.

use super::{
    Answered, FromDisk, SiteServer, browser, judge_fetches, judge_from_disk, load_served,
    open_from_disk, percent_decoded, targets,
};
use crate::common;
use crate::link_check::{ids, planted};

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// The site's URL: a host of its own (Chromium resolves it to the local
/// server), and a sub-path of it, so that the host has pages that are not
/// the site's ([`OUTSIDE`]). [`PLANTED`] names both.
const SITE: &str = "http://corpus.example/site/";
const ORIGIN: &str = "http://corpus.example";

/// The directory served as the host's root holds the site under this.
const SUB_PATH: &str = "site";

/// A page of the host beside the site: found by the server, not the
/// site's, so it stays absolute.
const OUTSIDE: &str = "outside.html";

/// Every corpus page is laid out, linked and made relative; one in this
/// many, by their files' order (every depth, directories' `index.html` and
/// names alike), and every page whose URL escapes its name or holds a
/// query, is loaded in Chromium, twice (from the server and from the
/// disk), with the home page and the other files of ours: the corpus pages
/// are large (25 MB), and the judges share CI's two cores.
const ONE_IN: usize = 4;

/// The links planted in each corpus page, before its `</body>`: `{UP}` the
/// way up to the site's root, `{NEXT}` and `{FAR}` two other pages (their
/// URLs, from the site's), `{FAR_BARE}` the second
/// without a directory's slash, `{NEXT_ID}` an id of the first, `{ID1}`
/// one of the page's own.
const PLANTED: &str = r##"
<style>#planted { background: url("{UP}img/bg.png") } #planted .here { background-image: url(/site/img/wide.png) }</style>
<link rel=stylesheet href="{UP}css/site.css"><div id=planted>
<p><a href="{UP}{NEXT}#{NEXT_ID}">the next page, at a part</a> <a href="/site/{FAR}">a page further</a> <a href="/site/{FAR_BARE}">without a directory's slash</a> <a href="http://corpus.example/site/{NEXT}">the next, absolute</a>
<a href="#{ID1}" class=here>a part of this page</a> <a href="">itself</a> <a href="{UP}">home</a> <a href="{UP}index.html#pages">home's list</a> <a href="/site">the site, without its slash</a>
<a href="/outside.html">beside the site</a> <a href="{UP}missing.html">a page the site lacks</a> <a href="./">this directory</a> <a href="https://example.com/">another site</a>
<span class=sheet>styled</span> <span class=linked>linked</span> <span class=imported>imported</span>
<img src="{UP}img/a%20b.png" srcset="{UP}img/a%20b.png 1x, /site/img/caf%C3%A9.png 2x, http://corpus.example/site/img/2x.png 3x" alt="">
<picture><source srcset="{UP}img/wide.png 800w, {UP}img/2x.png 400w"><img src="{UP}img/bg.png" alt=""></picture>
<iframe src="{UP}frame.html#part"></iframe>
<svg><a href="{UP}{NEXT}"><circle r="1"/></a><image href="/site/img/logo.svg"/></svg>
<form action="{UP}{FAR}"><button formaction="/site/{NEXT}">go</button></form></p></div>
"##;

/// The site's files of ours, beside the pages and the home page.
const OURS: &[(&str, &str)] = &[
    (
        "frame.html",
        "<!doctype html><p id=part><a href=\"./\" target=_top>home</a> <img src=\"img/a%20b.png\" alt=\"\"></p>\n",
    ),
    // Each rule styles planted elements alone: one that styled the page's
    // own (its `body`) would make whether the page's own background is
    // fetched first a matter of which arrives first, the server's answer
    // or the disk's.
    (
        "css/site.css",
        r#"@import "print.css";
#planted .sheet { background: url("/site/img/caf%C3%A9.png") }
#planted .linked { background: url(../img/2x.png) }
"#,
    ),
    (
        "css/print.css",
        "#planted .imported { background: url(../img/a%20b.png) }\n",
    ),
    (
        "img/logo.svg",
        r##"<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
<rect id="mark" width="5" height="5"/>
<a href="../index.html#pages"><circle r="2"/></a>
<a xlink:href="../frame.html#part"><circle r="1"/></a>
<image href="a%20b.png" width="1" height="1"/>
<use href="#mark"/>
</svg>
"##,
    ),
    ("img/a b.png", "png"),
    ("img/café.png", "png"),
    ("img/bg.png", "png"),
    ("img/wide.png", "png"),
    ("img/2x.png", "png"),
];

/// Where the site holds the corpus page retrieved from `url`: under its
/// host's directory, at its path with its escapes undone, a directory's
/// URL as its `index.html`, a name without `.html` given it, a query kept
/// in the name before that (`spip.php?article8532.html`, as `wget
/// --adjust-extension` saves the page of a query).
fn laid_out(url: &str) -> String {
    let rest = url.split_once("://").expect("an absolute URL").1;
    let (path, query) = rest
        .split_once('?')
        .map_or((rest, None), |(path, query)| (path, Some(query)));
    let decoded = |s: &str| String::from_utf8(percent_decoded(s)).expect("UTF-8 escapes");
    let mut file = decoded(path);
    if file.ends_with('/') || !file.contains('/') {
        file = format!("{}/index.html", file.trim_end_matches('/'));
    }
    if let Some(query) = query {
        let _ = write!(file, "?{}", decoded(query));
    }
    if !file.ends_with(".html") && !file.ends_with(".htm") {
        file.push_str(".html");
    }
    file
}

/// The URL, from the site's, of `file`'s own name (a path under the
/// site): every byte a path cannot hold as it is escaped, `?` too; a
/// directory's `index.html` as the directory. The server answers it with
/// that file.
fn escaped(file: &str) -> String {
    let file = file.strip_suffix("index.html").unwrap_or(file);
    let mut url = String::new();
    for byte in file.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~!$&'()*+,=:@/".contains(&byte) {
            url.push(char::from(byte));
        } else {
            let _ = write!(url, "%{byte:02X}");
        }
    }
    url
}

/// A corpus page as the site holds it.
struct Laid {
    /// Its path under the site ([`laid_out`]).
    file: String,
    /// Its URL from the site's: its own URL's host, path and query, as
    /// `urls.tsv` writes them (a host's root with its slash).
    url: String,
}

/// Lays out every corpus page under `root`'s [`SUB_PATH`], links
/// [`PLANTED`] in each, a home page that lists them, the site's files of
/// ours, and a page beside the site; the pages, by file.
fn lay_out(corpus: &Path, root: &Path) -> Vec<Laid> {
    let tsv = std::fs::read_to_string(corpus.join("urls.tsv")).expect("urls.tsv");
    let mut pages: Vec<(Laid, Vec<u8>)> = Vec::new();
    for line in tsv.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let mut fields = line.split('\t');
        let (Some(name), Some(url)) = (fields.next(), fields.next()) else {
            panic!("urls.tsv: want a file name and a URL: {line:?}");
        };
        let bytes = std::fs::read(corpus.join(name)).expect("a listed page");
        let mut file = laid_out(url);
        let mut url = url.split_once("://").expect("an absolute URL").1.to_owned();
        if !url.split('?').next().unwrap_or_default().contains('/') {
            // A host's root, at its slash.
            url.insert(url.find('?').unwrap_or(url.len()), '/');
        }
        // Two pages of one URL: the second at a name of its own.
        if pages.iter().any(|(taken, _)| taken.file == file) {
            file = format!("{}-2.html", file.trim_end_matches(".html"));
            url = escaped(&file);
        }
        pages.push((Laid { file, url }, bytes));
    }
    pages.sort_by(|a, b| a.0.file.cmp(&b.0.file));
    let count = pages.len();
    let site = root.join(SUB_PATH);
    let mut home = String::from(
        "<!doctype html><html><head><meta charset=utf-8><title>The corpus as a site</title>\n\
         <link rel=stylesheet href=\"css/site.css\"><link rel=icon href=\"data:,\"></head>\n\
         <body><h1 id=pages>Pages</h1><ol>\n",
    );
    for (i, (page, bytes)) in pages.iter().enumerate() {
        let (next, far) = (&pages[(i + 1) % count], &pages[(i + 37) % count]);
        let next_id = ids(&next.1)
            .into_iter()
            .next()
            .unwrap_or_else(|| "none".to_owned());
        let links = PLANTED
            .replace("{UP}", &"../".repeat(page.file.matches('/').count()))
            .replace("{NEXT}", &next.0.url)
            .replace("{FAR_BARE}", far.0.url.trim_end_matches('/'))
            .replace("{FAR}", &far.0.url)
            .replace("{NEXT_ID}", &next_id);
        write_file(&site.join(&page.file), &planted(bytes, &links));
        // Each page by its URL, and by its file's name (`.html` after a
        // name without it, a query's `?` escaped, a letter past ASCII in
        // its UTF-8); a directory's also without its slash and by its
        // `index.html`.
        let (url, name) = (&page.url, escaped(&page.file));
        let _ = write!(home, "<li><a href=\"{url}\">{i}</a>");
        if name != *url {
            let _ = write!(home, " <a href=\"{name}\">its file</a>");
        }
        if let Some(bare) = url.strip_suffix('/') {
            let _ = write!(
                home,
                " <a href=\"{bare}\">without its slash</a> <a href=\"{url}index.html\">its index</a>"
            );
        }
        home.push('\n');
    }
    home.push_str(
        "</ol><img src=\"img/bg.png\" srcset=\"img/2x.png 2x, /site/img/wide.png 3x\" alt=\"\">\n\
         <iframe src=\"frame.html#part\"></iframe> <a href=\"img/logo.svg#mark\">the logo</a>\n\
         </body></html>\n",
    );
    write_file(&site.join("index.html"), home.as_bytes());
    for (file, text) in OURS {
        write_file(&site.join(file), text.as_bytes());
    }
    write_file(
        &root.join(OUTSIDE),
        b"<!doctype html><p>the host's, not the site's</p>\n",
    );
    pages.into_iter().map(|(page, _)| page).collect()
}

fn write_file(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The corpus pages laid out as a site (every depth, directories'
/// `index.html`, query-named pages, escaped names), links among them
/// planted, served at the site's URL and made `--relative`: from the disk,
/// in Chromium, every link reaches the copy of the file it reached from
/// the server, every other link goes where it went, and every fetch is of
/// the same file or URL.
#[test]
fn the_corpus_laid_out_as_a_site_opens_from_the_disk_as_its_server_served_it_in_chromium() {
    let test = "the_corpus_laid_out_as_a_site_opens_from_the_disk";
    let Some(shared) = common::shared(test) else {
        return;
    };
    let Some(chromium) = browser() else {
        return;
    };
    let started = std::time::Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let (root, out, log) = (
        dir.path().join("host"),
        dir.path().join("out"),
        dir.path().join("server.log"),
    );
    let laid = lay_out(&shared.join("corpus/pages"), &root);
    let site = root.join(SUB_PATH);
    let run = Command::new(BIN)
        .arg("--site")
        .arg(&site)
        .args(["--site-url", SITE, "--relative", "--out-dir"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let server = SiteServer::start(&root, &log);
    // The corpus pages of [`ONE_IN`] and ours: each key a file of the
    // site, its original at the URL the server serves it at.
    let ours = ["index.html", "frame.html", "img/logo.svg"];
    let loads: Vec<(String, String)> = laid
        .iter()
        .enumerate()
        .filter(|(i, page)| {
            i % ONE_IN == 0 || page.url.contains('?') || escaped(&page.file).contains('%')
        })
        .map(|(_, page)| (page.file.clone(), page.url.clone()))
        .chain(ours.iter().map(|file| (file.to_string(), escaped(file))))
        .map(|(file, url)| (file, format!("{SITE}{url}")))
        .collect();
    let originals = load_served(&chromium, &loads, Some(server.port));
    let pages: Vec<(String, String)> = loads
        .iter()
        .map(|(file, _)| (file.clone(), out.join(file).display().to_string()))
        .collect();
    let opened: Vec<String> = pages.iter().map(|(_, copy)| copy.clone()).collect();
    let copies = open_from_disk(&chromium, &opened);
    // What the server answers every URL of its host the originals link to.
    let asked: BTreeSet<&str> = originals
        .values()
        .flat_map(targets)
        .map(|target| target.split_once('#').map_or(target, |(url, _)| url))
        .filter(|url| url.starts_with(&format!("{ORIGIN}/")))
        .collect();
    server.ask(asked.iter().copied());
    drop(server);
    let answered = Answered::read(&log, ORIGIN);
    // A file of the site (under `site/` of the host's root), by its path
    // under the site.
    let site_file = |url: &str| {
        answered.file(url).and_then(|file| {
            file.strip_prefix(&format!("{SUB_PATH}/")[..])
                .map(String::from)
        })
    };
    let FromDisk { local, others } = judge_from_disk(&pages, &originals, &copies, &out, |url| {
        site_file(url)
            .map(|file| out.join(file))
            .into_iter()
            .collect()
    });
    let fetched = judge_fetches(&pages, &originals, &copies, &out, site_file, |copy| {
        copy.strip_prefix(&out)
            .ok()
            .map(|file| file.to_string_lossy().into_owned())
    });
    println!(
        "the corpus laid out as a site, in Chromium: {} pages of {} laid out and {} of ours, from the server and from the disk; {local} links to the site's files reached from the disk, {others} others where they went; {fetched} fetches alike; {} URLs of the host asked of the server; {:.0?}",
        pages.len() - ours.len(),
        laid.len(),
        ours.len(),
        asked.len(),
        started.elapsed()
    );
    assert!(
        pages.len() >= 45 && local >= 1600 && others >= 8500 && fetched >= 1000,
        "{} pages, {local} local, {others} others, {fetched} fetches",
        pages.len()
    );
}
