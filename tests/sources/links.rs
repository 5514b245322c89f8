//! `--site --check-links`: every link of every document of a site whose URL
//! is the site's, checked against the files the host will serve, with no
//! regex and nothing fetched. Each broken link is one line in the
//! compilers' form; nothing is written; exit 1 when any is broken.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// A site, links of every kind, some broken (each named where it stands).
const SITE: &[(&str, &str)] = &[
    (
        "index.html",
        "<head><link rel=stylesheet href=/css/site.css><base href=\"https://example.com/docs/\"></head>\n\
         <a href=guide.html#install>under the base</a> <a href=/>home</a> <a href=\"/docs\">no slash</a>\n\
         <a href=\"https://www.example.com/about.html\">a twin</a> <a href=\"http://example.com/img/a%20b.png\">the other scheme</a>\n\
         <img src=\"/img/a%20b.png\" srcset=\"/img/a%20b.png 1x, /img/2x.png 2x, https://cdn.example/x.png 3x\">\n\
         <a href=\"gone.html\">broken under the base</a> <a href=\"mailto:a@example.com\">mail</a> <a href=/empty/>no index</a>\n\
         <a href=\"/About.html\">case</a> <a href=\"/about.html?lang=fr#top\">a query</a> <img src=\"\">\n\
         <p style=\"background:url(/img/bg.png)\">x</p><style>p{background:url(/img/a%20b.png)}</style>\n\
         <meta http-equiv=refresh content=\"5; url=/moved.html\">\n\
         <a href=\"/about.html#caf%C3%A9\">a fragment</a> <a href=\"/about.html#nowhere\">no such part</a> <a href=\"/img/a%20b.png#x\">not a page</a>",
    ),
    (
        "docs/guide.html",
        "<a href=\"../about.html\">up</a> <a href=\"#install\">here</a> <iframe src=\"frame.html\"></iframe>\n\
         <svg><image href=\"../img/icon.svg\"/></svg><h2 id=install>Install</h2> <a href=\"#gone\">here, gone</a>",
    ),
    ("docs/index.html", "<p>docs</p>"),
    ("about.html", "<p id=\"caf&eacute;\">about</p>"),
    (
        "css/site.css",
        "@import \"print.css\";\n@import url(/css/missing.css);\nbody{background:url(../img/a%20b.png)}",
    ),
    ("css/print.css", "p{}"),
    ("img/a b.png", "png"),
    (
        "img/icon.svg",
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\
         <a href=\"/about.html\"><image xlink:href=\"/img/none.png\"/></a></svg>",
    ),
    (
        "sitemap.xml",
        "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\
         <url><loc>https://example.com/about.html</loc></url><url><loc>https://example.com/old.html</loc></url></urlset>",
    ),
    ("empty/x.txt", "not a page"),
];

/// The broken links, as `--check-links` prints them (under `DIR`).
const BROKEN: &[&str] = &[
    "DIR/css/site.css:2:13: <css url> \"/css/missing.css\" -> \"https://example.com/css/missing.css\": not found",
    "DIR/docs/guide.html:1:73: <iframe src> \"frame.html\" -> \"https://example.com/docs/frame.html\": not found",
    "DIR/docs/guide.html:2:80: <a href> \"#gone\" -> \"https://example.com/docs/guide.html#gone\": fragment \"#gone\" not in docs/guide.html",
    "DIR/img/icon.svg:1:125: <svg/a/image xlink:href> \"/img/none.png\" -> \"https://example.com/img/none.png\": not found",
    "DIR/index.html:4:54: <img srcset> \"/img/2x.png\" -> \"https://example.com/img/2x.png\": not found",
    "DIR/index.html:5:10: <a href> \"gone.html\" -> \"https://example.com/docs/gone.html\": not found",
    "DIR/index.html:5:95: <a href> \"/empty/\" -> \"https://example.com/empty/\": not found",
    "DIR/index.html:6:10: <a href> \"/About.html\" -> \"https://example.com/About.html\": not found",
    "DIR/index.html:7:26: <p style> \"/img/bg.png\" -> \"https://example.com/img/bg.png\": not found",
    "DIR/index.html:8:42: <meta content> \"/moved.html\" -> \"https://example.com/moved.html\": not found",
    "DIR/index.html:9:57: <a href> \"/about.html#nowhere\" -> \"https://example.com/about.html#nowhere\": fragment \"#nowhere\" not in about.html",
    "DIR/sitemap.xml:1:123: <urlset/url/loc> \"https://example.com/old.html\" -> \"https://example.com/old.html\": not found",
];

fn make(root: &Path) {
    write(root, SITE);
}

/// Writes `files` (each a path under `root` and its text), with the
/// directories they need.
fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, bytes) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

/// A site of `files` in a new temporary directory: the directory (gone
/// when dropped) and the site's root, `site` in it.
fn site_of(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    fs::create_dir_all(&site).unwrap();
    write(&site, files);
    (dir, site)
}

/// Every file under `dir`, by its path under it.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(at) = stack.pop() {
        for entry in fs::read_dir(&at).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let under = path.strip_prefix(dir).unwrap().display().to_string();
                found.insert(under, fs::read(&path).unwrap());
            }
        }
    }
    found
}

/// `htmlabs --site DIR --site-url https://example.com/ --check-links ARGS`:
/// its status, its lines (`DIR` for the site's directory) and its
/// standard error.
fn check(site: &Path, args: &[&str]) -> (i32, BTreeSet<String>, String) {
    let run = Command::new(BIN)
        .args(["--site-url", "https://example.com/", "--check-links"])
        .args(args)
        .arg("--site")
        .arg(site)
        .output()
        .unwrap();
    let shown = site.display().to_string();
    let lines = String::from_utf8(run.stdout)
        .unwrap()
        .lines()
        .map(|line| line.replace(&shown, "DIR"))
        .collect();
    (
        run.status.code().unwrap_or(-1),
        lines,
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

/// The run's summary line up to the links to other sites (its time
/// aside): `N HTML files: … checked: … found, … broken; … not checked`.
fn link_counts(stderr: &str) -> String {
    let summary = stderr.lines().last().unwrap_or_default();
    summary.split("; ").take(2).collect::<Vec<_>>().join("; ")
}

#[test]
fn every_broken_link_of_every_kind_is_one_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    make(&site);
    let before = files(&site);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    let expected: BTreeSet<String> = BROKEN.iter().map(|l| l.to_string()).collect();
    assert_eq!(lines, expected, "{stderr}");
    assert!(
        stderr.contains(
            "31 links to the site's files checked: 19 found, 12 broken; 2 to other sites not checked"
        ),
        "{stderr}"
    );
    assert_eq!(files(&site), before, "a check writes nothing");
}

/// A link to another site, written plainly, is told without decoding or
/// resolving it; every other way of writing a URL is read in full: a
/// character reference, whitespace around it, a scheme or host in capitals,
/// a relative reference. Each is told as the page means it.
#[test]
fn absolute_links_are_told_the_same_however_they_are_written() {
    let page = concat!(
        "<a href=\"https://other.example/a\">1</a>\n",
        "<a href=\"https://other.example/b?x=1&amp;y=2\">2</a>\n",
        "<a href=\" https://other.example/c \">3</a>\n",
        "<a href=\"https:&#x2F;&#x2F;example.com/gone-by-reference.html\">4</a>\n",
        "<a href=\"HTTPS://EXAMPLE.COM/gone-in-capitals.html\">5</a>\n",
        "<a href=\"https://example.com/gone-plainly.html\">6</a>\n",
        "<a href=\"http://www.example.com/\">7</a>\n",
        "<a href=\"https://example.com.other.example/\">8</a>\n",
        "<a href=\"\tmailto:someone@example.com\">9</a>\n",
    );
    let (_dir, site) = site_of(&[("index.html", page)]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    let expected: BTreeSet<String> = [
        "DIR/index.html:4:10: <a href> \"https://example.com/gone-by-reference.html\" -> \"https://example.com/gone-by-reference.html\": not found",
        "DIR/index.html:5:10: <a href> \"HTTPS://EXAMPLE.COM/gone-in-capitals.html\" -> \"HTTPS://EXAMPLE.COM/gone-in-capitals.html\": not found",
        "DIR/index.html:6:10: <a href> \"https://example.com/gone-plainly.html\" -> \"https://example.com/gone-plainly.html\": not found",
    ]
    .iter()
    .map(|l| l.to_string())
    .collect();
    assert_eq!(lines, expected, "{stderr}");
    assert_eq!(
        link_counts(&stderr),
        "htmlabs: 1 HTML file: 4 links to the site's files checked: 1 found, 3 broken; 5 to other sites not checked",
        "{stderr}"
    );
}

/// The lines and the report come in the files' order, the same whatever
/// the jobs and whether the links of a file done before its turn waited
/// in memory or in a temporary file (`--max-memory` leaving no room for
/// them beside a file of 800 links): each file's links are checked on its
/// worker, and told in turn.
#[test]
fn the_check_says_the_same_at_every_jobs_and_memory() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    make(&site);
    for i in 0..6 {
        let links: String = (0..800)
            .map(|n| {
                // Half the files link to parts of the index, which lacks
                // them; half to their own, the one after each.
                let target = if i % 2 == 0 { "/index.html" } else { "" };
                format!("<a href=\"{target}#p{n}\">{i}</a><a id=p{n} href=nowhere{n}>x</a>\n")
            })
            .collect();
        fs::write(site.join(format!("many{i}.html")), links).unwrap();
    }
    let run = |args: &[&str]| {
        let run = Command::new(BIN)
            .args(["--site-url", "https://example.com/", "--check-links"])
            .args(["--report", "-"])
            .args(args)
            .arg("--site")
            .arg(&site)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(run.status.code(), Some(1), "{args:?}: {stderr}");
        (String::from_utf8(run.stdout).unwrap(), link_counts(&stderr))
    };
    let (expected, summary) = run(&["--jobs", "1"]);
    assert!(expected.lines().count() > 6 * 1600, "{summary}");
    // The site's own 12, each file's 800 pages that are not there, and
    // the 800 fragments the index lacks of half of them.
    let broken = 12 + 6 * 800 + 3 * 800;
    assert!(summary.contains(&format!(" {broken} broken")), "{summary}");
    for args in [
        &["--jobs", "2"][..],
        &["--jobs", "2", "--max-memory", "4000000"],
    ] {
        let (output, said) = run(args);
        assert!(output == expected, "{args:?}: the report differs");
        assert_eq!(said, summary, "{args:?}");
    }
}

#[test]
fn github_pages_serves_a_name_without_its_html() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    make(&site);
    fs::write(
        site.join("docs/pretty.html"),
        "<a href=/about>pretty</a> <a href=/about/>not with a slash</a> <a href=/docs/guide>guide</a>",
    )
    .unwrap();
    let line = |column: usize, value: &str| {
        format!(
            "DIR/docs/pretty.html:1:{column}: <a href> \"{value}\" -> \"https://example.com{value}\": not found"
        )
    };
    // A plain server has no `about` file.
    let (_, plain, _) = check(&site, &[]);
    for (column, value) in [(9, "/about"), (35, "/about/"), (72, "/docs/guide")] {
        assert!(plain.contains(&line(column, value)), "{plain:?}");
    }
    let (code, pages, stderr) = check(&site, &["--host", "github-pages"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(pages.contains(&line(35, "/about/")), "{pages:?}");
    assert!(!pages.contains(&line(9, "/about")), "{pages:?}");
    assert!(!pages.contains(&line(72, "/docs/guide")), "{pages:?}");
}

#[test]
fn only_the_site_url_itself_is_the_site_when_asked() {
    let (_dir, site) = site_of(&[(
        "index.html",
        "<a href=https://www.example.com/gone.html>www</a> <a href=http://example.com/gone.html>http</a>",
    )]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!((code, lines.len()), (1, 2), "{stderr}");
    let (code, lines, stderr) = check(&site, &["--site-url-only"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(lines.is_empty(), "{lines:?}");
    assert!(stderr.contains("2 to other sites not checked"), "{stderr}");
}

/// The site's URL without its slash is its root directory, which a server
/// redirects to its slash: checked, and found, for a site at a sub-path
/// (a path that only starts like it is another site's).
#[test]
fn the_sites_url_without_its_slash_is_its_root() {
    let (_dir, site) = site_of(&[
        ("index.html", "home"),
        (
            "post/index.html",
            "<a href=/blog>home</a> <a href=\"/blog?page=2\">page 2</a> <a href=/blogroll.html>another's</a>",
        ),
    ]);
    let run = Command::new(BIN)
        .args(["--site-url", "https://example.com/blog/", "--check-links"])
        .arg("--site")
        .arg(&site)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "2 links to the site's files checked: 2 found, 0 broken; 1 to other sites not checked"
        ),
        "{stderr}"
    );
}

#[test]
fn a_site_with_no_broken_link_passes_and_the_report_says_where_each_went() {
    let (dir, site) = site_of(&[
        (
            "index.html",
            "<a href=docs/>docs</a> <a href=https://other.example/>elsewhere</a>",
        ),
        ("docs/index.html", "<a href=../>home</a>"),
    ]);
    let report = dir.path().join("links.jsonl");
    let report_arg = report.display().to_string();
    let (code, lines, stderr) = check(&site, &["--report", &report_arg]);
    assert_eq!(code, 0, "{stderr}");
    assert!(lines.is_empty(), "{lines:?}");
    let report = fs::read_to_string(&report).unwrap();
    let statuses: Vec<(String, Option<String>)> = report
        .lines()
        .map(|line| {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            (
                v["status"].as_str().unwrap().to_owned(),
                v["served"].as_str().map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        [
            ("found".to_owned(), Some("index.html".to_owned())),
            ("found".to_owned(), Some("docs/index.html".to_owned())),
            ("off-site".to_owned(), None),
        ]
    );
}

#[test]
fn what_cannot_go_with_a_link_check_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    make(&site);
    for (args, says) in [
        (&["--relative"][..], "--relative"),
        (&["--out-dir", "x"][..], "--out-dir"),
        (&["--check"][..], "--check"),
    ] {
        let (code, _, stderr) = check(&site, args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(
            stderr.starts_with("htmlabs: error: ") && stderr.contains(says),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
    }
    let run = Command::new(BIN)
        .args([
            "--site-url",
            "https://example.com/",
            "--host",
            "github-pages",
            "--site",
        ])
        .arg(&site)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("--host needs --check-links"), "{stderr}");
}

/// The values of broken links' lines (`FILE:LINE:COLUMN: <a href> "VALUE" -> ...`).
fn values(lines: &BTreeSet<String>) -> BTreeSet<String> {
    lines
        .iter()
        .map(|line| line.split('"').nth(1).unwrap_or_default().to_owned())
        .collect()
}

/// A site with a `_redirects` file of Netlify's syntax: rules of every
/// kind, some over a file, some Netlify's alone (`!`, a condition, 404).
fn redirects_site(dir: &Path) -> PathBuf {
    let site = dir.join("site");
    for (path, bytes) in [
        (
            "_redirects",
            "# moved\n/old.html  /about.html  301\n/blog/*  /posts/:splat  302\n\
             /docs-old/:page  /docs/:page  200\n/gone  /404.html  404\n/loop  /loop  301\n\
             /away  https://other.example/  301\n/about.html  /nowhere.html  301\n\
             /forced.html  /nowhere.html  301!\n/fr/*  /fr/index.html  200  Language=fr\n",
        ),
        ("about.html", "about"),
        ("forced.html", "shadowed"),
        ("posts/x.html", "x"),
        ("docs/guide.html", "guide"),
        ("404.html", "not found"),
        (
            "index.html",
            "<a href=/old.html>1</a> <a href=/blog/x.html>2</a> <a href=/blog/y.html>3</a>\n\
             <a href=/docs-old/guide>4</a> <a href=/gone>5</a> <a href=/loop>6</a>\n\
             <a href=/away>7</a> <a href=/about.html>8</a> <a href=/forced.html>9</a>\n\
             <a href=/about/>10</a> <a href=/fr/page>11</a>",
        ),
    ] {
        let path = site.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
    site
}

/// Netlify serves `/about/` for `about.html` too, and the site's
/// `_redirects` rules over what no file answers (or any, with `!`): a
/// link that a redirect leads to a file is found, through rewrites,
/// splats and placeholders; one a rule answers 404, or a chain that never
/// ends, is broken.
#[test]
fn netlify_follows_the_sites_redirects() {
    let dir = tempfile::tempdir().unwrap();
    let site = redirects_site(dir.path());
    let broken = ["/blog/y.html", "/gone", "/loop", "/forced.html", "/fr/page"];
    let counts =
        "10 links to the site's files checked: 5 found, 5 broken; 1 to other sites not checked";
    broken_on(&site, "netlify", &broken, counts);
}

/// The check of `site` on `host`: it exits 1, its broken lines are those
/// of the values `broken`, its summary says `counts`. Its lines and its
/// standard error.
fn broken_on(site: &Path, host: &str, broken: &[&str], counts: &str) -> (BTreeSet<String>, String) {
    let (code, lines, stderr) = check(site, &["--host", host]);
    assert_eq!(code, 1, "{stderr}");
    let expected: BTreeSet<String> = broken.iter().map(|v| v.to_string()).collect();
    assert_eq!(values(&lines), expected, "{lines:?}");
    assert!(stderr.contains(counts), "{stderr}");
    (lines, stderr)
}

/// Cloudflare Pages reads the same file its own way: every rule over any
/// file (`/about.html` goes to `/nowhere.html`, and so does `/old.html`
/// after it), a line that is not `FROM TO [STATUS]` of a redirect's or
/// rewrite's status left out (`301!`, `404`, a condition: `/forced.html`
/// is its file, `/gone` and `/fr/page` nothing). A site without a
/// `404.html` is warned of: Cloudflare serves it as a single-page app.
#[test]
fn cloudflare_pages_follows_every_rule_it_reads() {
    let dir = tempfile::tempdir().unwrap();
    let site = redirects_site(dir.path());
    let broken = [
        "/old.html",
        "/blog/y.html",
        "/gone",
        "/loop",
        "/about.html",
        "/fr/page",
    ];
    let counts =
        "10 links to the site's files checked: 4 found, 6 broken; 1 to other sites not checked";
    let (lines, stderr) = broken_on(&site, "cloudflare-pages", &broken, counts);
    assert!(!stderr.contains("htmlabs: warning"), "{stderr}");
    // Without a 404.html, Cloudflare answers those links with the home
    // page: the same links, and a warning that says so.
    fs::remove_file(site.join("404.html")).unwrap();
    let (code, without, stderr) = check(&site, &["--host", "cloudflare-pages"]);
    assert_eq!((code, &without), (1, &lines), "{stderr}");
    assert!(
        stderr.contains(
            "htmlabs: warning: the site has no 404.html: Cloudflare Pages answers a path no file serves with the site's index.html"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("; 1 warning; "), "{stderr}");
}

/// Cloudflare Pages matches its rules as its code does (not as Netlify's
/// documentation says): `*` and `:name` anywhere in a path, and the path
/// whole, its trailing slash counting; both hosts, the path as a browser
/// sends it.
#[test]
fn cloudflare_pages_matches_its_patterns_as_its_code_does() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    for (path, bytes) in [
        (
            "_redirects",
            "/cf/*/end  /about.html  301\n/cf-slash  /about.html  301\n\
             /cf-:id.htm  /docs/guide/:id.html  301\n/caf%C3%A9  /about.html  301\n",
        ),
        ("about.html", "about"),
        ("docs/guide/step.html", "step"),
        ("404.html", "not found"),
        (
            "index.html",
            "<meta charset=utf-8><a href=/cf/x/end>1</a> <a href=/cf-slash/>2</a>\n\
             <a href=/cf-slash>3</a> <a href=/cf-step.htm>4</a>\n\
             <a href=/caf\u{e9}>5</a> <a href=/caf%C3%A9>6</a>",
        ),
    ] {
        let path = site.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
    let counts = |found, broken| {
        format!("6 links to the site's files checked: {found} found, {broken} broken;")
    };
    // Both match a rule's path as the browser sends it: `/café` is
    // `/caf%C3%A9`.
    broken_on(&site, "cloudflare-pages", &["/cf-slash/"], &counts(5, 1));
    broken_on(
        &site,
        "netlify",
        &["/cf/x/end", "/cf-step.htm"],
        &counts(4, 2),
    );
}

/// Past 32 KB, Cloudflare answers a URI with 414 before any rule: a link
/// that long is broken there, where a rule for it would lead on (and
/// Netlify follows it). A rule whose `TO` grows past it with the values
/// put in (`:x` four times) leads to the same 414.
#[test]
fn cloudflare_pages_answers_a_uri_past_its_limit_with_414() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let long = "x".repeat(32 * 1024);
    let quarter = "y".repeat(32 * 1024 / 4);
    for (path, bytes) in [
        (
            "_redirects",
            "/long/*  /about.html  301\n/grow/:x  /about.html?:x:x:x:x  301\n".to_owned(),
        ),
        ("about.html", "about".to_owned()),
        ("404.html", "not found".to_owned()),
        (
            "index.html",
            format!(
                "<a href=/long/short>1</a> <a href=/long/{long}>2</a>\n\
                 <a href=/grow/x>3</a> <a href=/grow/{quarter}>4</a>"
            ),
        ),
    ] {
        let path = site.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
    let counts = |found, broken| {
        format!("4 links to the site's files checked: {found} found, {broken} broken;")
    };
    let broken = [format!("/long/{long}"), format!("/grow/{quarter}")];
    let broken: Vec<&str> = broken.iter().map(String::as_str).collect();
    broken_on(&site, "cloudflare-pages", &broken, &counts(2, 2));
    let (code, _, stderr) = check(&site, &["--host", "netlify"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains(&counts(4, 0)), "{stderr}");
}

/// GitLab Pages reads the file its own way: a rule over no file alone
/// (`/about.html` and `/forced.html` are their files), of a path of the
/// site to another (`/away`, to another site, is left out, and broken),
/// 200, 301 or 302 (`404`, a condition: `/gone`, `/fr/page` nothing);
/// `/about/` serves `about.html`. A line its parser cannot read (a query's
/// condition) leaves it no rule at all; a directory comes before the page
/// of its name, with no index too.
#[test]
fn gitlab_pages_reads_its_redirects_whole_or_not_at_all() {
    let dir = tempfile::tempdir().unwrap();
    let site = redirects_site(dir.path());
    let broken = ["/blog/y.html", "/gone", "/loop", "/away", "/fr/page"];
    let counts =
        "11 links to the site's files checked: 6 found, 5 broken; 0 to other sites not checked";
    broken_on(&site, "gitlab-pages", &broken, counts);
    let mut rules = fs::read_to_string(site.join("_redirects")).unwrap();
    rules.push_str("/store  id=:id  /items/:id.html  301\n");
    fs::write(site.join("_redirects"), rules).unwrap();
    let broken = [
        "/old.html",
        "/blog/x.html",
        "/blog/y.html",
        "/docs-old/guide",
        "/gone",
        "/loop",
        "/away",
        "/fr/page",
    ];
    let counts =
        "11 links to the site's files checked: 3 found, 8 broken; 0 to other sites not checked";
    let (_, stderr) = broken_on(&site, "gitlab-pages", &broken, counts);
    assert!(
        stderr.contains(
            "htmlabs: warning: GitLab Pages reads no rule of _redirects: its parser stops at its line 11, `/store  id=:id  /items/:id.html  301`, which is not `FROM TO [STATUS]`"
        ),
        "{stderr}"
    );
    // Nor of a file of over 64 KiB.
    let rules = format!("/old.html  /about.html\n#{}\n", "x".repeat(64 * 1024));
    fs::write(site.join("_redirects"), &rules).unwrap();
    let (_, _, stderr) = check(&site, &["--host", "gitlab-pages"]);
    let size = rules.len();
    assert!(
        stderr.contains(&format!(
            "htmlabs: warning: GitLab Pages reads no rule of _redirects: it is {size} bytes, over the 65536 it reads"
        )),
        "{stderr}"
    );
    // `blog.html` beside a `blog/` with no index: the directory, and no
    // page.
    let (_dir, site) = site_of(&[
        ("blog.html", "blog"),
        ("blog/first.html", "first"),
        (
            "index.html",
            "<a href=/blog>1</a> <a href=/blog/>2</a> <a href=/blog/first>3</a>",
        ),
    ]);
    let counts =
        "3 links to the site's files checked: 1 found, 2 broken; 0 to other sites not checked";
    broken_on(&site, "gitlab-pages", &["/blog", "/blog/"], counts);
    // Netlify serves the page at both.
    let (code, lines, stderr) = check(&site, &["--host", "netlify"]);
    assert_eq!((code, lines.len()), (0, 0), "{stderr}");
    assert!(stderr.contains("3 found, 0 broken"), "{stderr}");
    // A project's site, under its path: GitLab matches a rule against the
    // URL's whole path, so only a rule with the project's prefix is taken.
    let (_dir, site) = site_of(&[
        (
            "_redirects",
            "/project/old  /project/about.html\n/new  /project/about.html\n",
        ),
        ("about.html", "about"),
        ("index.html", "<a href=old>1</a> <a href=new>2</a>"),
    ]);
    let run = Command::new(BIN)
        .args([
            "--site-url",
            "https://example.com/project/",
            "--check-links",
        ])
        .args(["--host", "gitlab-pages", "--site"])
        .arg(&site)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.contains("\"new\" -> \"https://example.com/project/new\": not found"),
        "{stdout}"
    );
}

/// Netlify answers `/.netlify/` itself, whatever the site holds: a link
/// to a function (directly, or through a rewrite such as `/api/*
/// /.netlify/functions/:splat 200`) is counted, not checked, where it was
/// a broken link; its image service's `url` is a file of the site, checked
/// (a remote image is the service's). Other hosts serve `/.netlify/` as
/// any path.
#[test]
fn netlify_answers_its_functions_and_images_itself() {
    let (_dir, site) = site_of(&[
        ("_redirects", "/api/*  /.netlify/functions/:splat  200\n"),
        ("img/a b.jpg", "jpg"),
        (
            "index.html",
            "<a href=/api/hello>1</a> <form action=/.netlify/functions/submit></form>\n\
             <img src=\"/.netlify/images?url=/img/a%20b.jpg&amp;w=300\">\n\
             <img src=\"/.netlify/images?w=30&amp;url=%2Fimg%2Fgone.jpg\">\n\
             <img src=\"/.netlify/images?url=https://cdn.example.org/x.jpg\">",
        ),
    ]);
    let (code, lines, stderr) = check(&site, &["--host", "netlify"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r#"DIR/index.html:3:11: <img src> "/.netlify/images?w=30&url=%2Fimg%2Fgone.jpg" -> "https://example.com/.netlify/images?w=30&url=%2Fimg%2Fgone.jpg": not found"#.to_owned()
        ]),
        "{stderr}"
    );
    let summary = stderr.lines().last().unwrap_or_default();
    assert!(
        summary.starts_with(
            "htmlabs: 1 HTML file: 2 links to the site's files checked: 1 found, 1 broken; 0 to other sites not checked; 3 to the host's services not checked; "
        ),
        "{stderr}"
    );
    // On GitHub Pages, a path like any: none of these is there.
    let (code, _, stderr) = check(&site, &["--host", "github-pages"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        link_counts(&stderr),
        "htmlabs: 1 HTML file: 5 links to the site's files checked: 0 found, 5 broken; 0 to other sites not checked",
    );
}

/// Netlify reads the redirects of `netlify.toml` too, after `_redirects`:
/// those of the file at or above the site that publishes it (its
/// `[build]`'s `publish`); a file that publishes another directory is
/// another site's; one that does not parse stops the run with a line
/// naming it.
#[test]
fn netlify_follows_the_redirects_of_the_netlify_toml_that_publishes_the_site() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("public");
    fs::create_dir_all(site.join("posts")).unwrap();
    fs::write(
        site.join("_redirects"),
        "/moved/first.html  /posts/x.html\n",
    )
    .unwrap();
    fs::write(site.join("posts/x.html"), "x").unwrap();
    fs::write(
        site.join("index.html"),
        "<a href=/moved/first.html>1</a> <a href=/moved/x.html>2</a> <a href=/moved/y.html>3</a>\n\
         <a href=/shop?item=x>4</a> <a href=/fr/x>5</a> <a href=/old-blog>6</a>",
    )
    .unwrap();
    let config = "[build]\npublish = \"public\"\n\n\
        [[redirects]]\nfrom = \"/moved/*\"\nto = \"/posts/:splat\"\nstatus = 301\n\n\
        [[redirects]]\nfrom = \"/shop\"\nto = \"/posts/:item.html\"\nquery = { item = \":item\" }\n\n\
        [[redirects]]\nfrom = \"/fr/*\"\nto = \"/posts/x.html\"\nstatus = 200\n\
        conditions = { Language = [\"fr\"] }\n\n\
        [[redirects]]\nfrom = \"/old-blog\"\nto = \"/posts/x.html\"\nforce = true\n";
    let toml = dir.path().join("netlify.toml");
    fs::write(&toml, config).unwrap();
    let (code, lines, stderr) = check(&site, &["--host", "netlify"]);
    assert_eq!(code, 1, "{stderr}");
    let expected: BTreeSet<String> = ["/moved/y.html", "/fr/x"].map(str::to_owned).into();
    assert_eq!(values(&lines), expected, "{lines:?}");

    // Another directory's file: only `_redirects` is read.
    fs::write(
        &toml,
        config.replace("publish = \"public\"", "publish = \"dist\""),
    )
    .unwrap();
    let (code, lines, stderr) = check(&site, &["--host", "netlify"]);
    assert_eq!(code, 1, "{stderr}");
    let expected: BTreeSet<String> = [
        "/moved/x.html",
        "/moved/y.html",
        "/shop?item=x",
        "/fr/x",
        "/old-blog",
    ]
    .map(str::to_owned)
    .into();
    assert_eq!(values(&lines), expected, "{lines:?}");

    // One that does not parse: a line, nothing checked.
    fs::write(&toml, "[build]\npublish = \"public\"\n[[redirects]\n").unwrap();
    let (code, lines, stderr) = check(&site, &["--host", "netlify"]);
    assert_eq!((code, lines.len()), (2, 0), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("htmlabs: error: cannot parse `") && stderr.contains("netlify.toml`: "),
        "{stderr}"
    );
}

/// Links to other sites are counted, and no line names them; without a
/// report they are not even made (only counted, as the page is read): the
/// counts are the same either way, and exact. Off the site: an absolute
/// link, a network-path reference, another scheme, a `srcset` candidate, a
/// CSS `url()`, a link in `<noscript>`; on it: a twin, a path with dot
/// segments, a relative link; neither: a `<base href>` to another site
/// (which the check leaves), and the links under it resolve off the site.
#[test]
fn links_to_other_sites_are_counted_alike_with_and_without_a_report() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    fs::create_dir_all(site.join("a")).unwrap();
    fs::write(
        site.join("index.html"),
        "<a href=\"https://other.example/x\">1</a> <a href=\"//cdn.example/y\">2</a>\n\
         <a href=\"mailto:a@example.com\">3</a> <img src=a/b.png srcset=\"a/b.png 1x, https://cdn.example/z.png 2x\">\n\
         <p style=\"background:url(https://img.example/bg.png)\">4</p> <a href=\"http://www.example.com/a/b.png\">twin</a>\n\
         <a href=\"https://example.com/a/../index.html\">dots</a> <a href=\"https://example.com/a/./gone.html\">gone</a>\n\
         <noscript><a href=\"https://other.example/ns\">5</a></noscript>",
    )
    .unwrap();
    fs::write(
        site.join("a/based.html"),
        "<head><base href=\"https://elsewhere.example/\"></head><a href=\"x.html\">6</a> <a href=/>7</a>",
    )
    .unwrap();
    fs::write(site.join("a/b.png"), "png").unwrap();
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            "DIR/index.html:4:65: <a href> \"https://example.com/a/./gone.html\" -> \"https://example.com/a/./gone.html\": not found".to_owned()
        ]),
        "{stderr}"
    );
    assert!(
        link_counts(&stderr).ends_with(
            "5 links to the site's files checked: 4 found, 1 broken; 8 to other sites not checked"
        ),
        "{stderr}"
    );
    let report = dir.path().join("report.jsonl");
    let report_arg = report.to_str().unwrap();
    for jobs in ["1", "2"] {
        let (_, with_report, reported) = check(&site, &["--report", report_arg, "--jobs", jobs]);
        assert_eq!(with_report, lines, "{reported}");
        assert_eq!(link_counts(&reported), link_counts(&stderr), "{reported}");
    }
    let off_site = fs::read_to_string(&report)
        .unwrap()
        .lines()
        .filter(|l| l.contains("\"status\":\"off-site\""))
        .count();
    assert_eq!(off_site, 8);
}

/// A value the check leaves (a relative `<base href>`, which a `--check`
/// line would name since the rewriting would make it absolute) is no
/// broken link: the output is the broken links, nothing else.
#[test]
fn a_base_the_check_leaves_prints_no_line() {
    let (_dir, site) = site_of(&[(
        "docs/index.html",
        "<head><base href=\"/docs/guide/\"></head><a href=\"../index.html\">here</a> <a href=\"gone.html\">gone</a>",
    )]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            "DIR/docs/index.html:1:82: <a href> \"gone.html\" -> \"https://example.com/docs/guide/gone.html\": not found".to_owned()
        ]),
        "{stderr}"
    );
}

/// A `<link rel=preconnect>` or `rel=dns-prefetch` names an origin: the
/// browser connects to it, or looks its name up, and fetches nothing, so
/// no file is looked for (a path on it is not missing), unless its `rel`
/// also has a type that fetches the URL. Its report line says `origin`.
#[test]
fn an_origin_a_link_names_is_no_file_to_check() {
    let (dir, site) = site_of(&[(
        "index.html",
        "<link rel=preconnect href=\"/no/such/path\">\n\
         <link rel=\"DNS-Prefetch\" href=\"//example.com/none\">\n\
         <link rel=\"preconnect unknown-type\" href=\"/none/either\">\n\
         <link rel=\"preconnect stylesheet\" href=\"/gone.css\">\n\
         <link rel=dns-prefetch href=\"https://cdn.example/\">\n",
    )]);
    let report = dir.path().join("links.jsonl");
    let (code, lines, stderr) = check(&site, &["--report", report.to_str().unwrap()]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r#"DIR/index.html:4:41: <link href> "/gone.css" -> "https://example.com/gone.css": not found"#.to_owned()
        ]),
        "{stderr}"
    );
    assert_eq!(
        link_counts(&stderr),
        "htmlabs: 1 HTML file: 1 link to the site's files checked: 0 found, 1 broken; 0 to other sites not checked",
    );
    let report = fs::read_to_string(report).unwrap();
    let kinds: Vec<(String, Option<String>)> = report
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .map(|l| {
            let status = l.get("status").map(|s| s.as_str().unwrap().to_owned());
            (l["kind"].as_str().unwrap().to_owned(), status)
        })
        .collect();
    let origin = ("origin".to_owned(), None);
    assert_eq!(
        kinds,
        [
            origin.clone(),
            origin.clone(),
            origin.clone(),
            ("url".to_owned(), Some("not-found".to_owned())),
            origin,
        ]
    );
}

/// An `xml:base` is a base, as a `<base href>` is: what the links under
/// it resolve against, no link of its own (a directory with no index
/// file is no broken link there).
#[test]
fn an_xml_base_is_no_link_to_check() {
    let (_dir, site) = site_of(&[
        ("blog/post.html", "<p>post</p>"),
        (
            "feed.xml",
            "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"https://example.com/blog/\">\n\
             <link href=\"post.html\"/><entry xml:base=\"/blog/\"><link href=\"gone.html\"/></entry></feed>\n",
        ),
    ]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r#"DIR/feed.xml:2:62: <feed/entry/link href> "gone.html" -> "https://example.com/blog/gone.html": not found"#.to_owned()
        ]),
        "{stderr}"
    );
    assert_eq!(
        link_counts(&stderr),
        "htmlabs: 2 documents (1 HTML, 0 CSS, 1 XML): 2 links to the site's files checked: 1 found, 1 broken; 0 to other sites not checked",
    );
}

/// A podcast's feed: what a podcast app fetches is checked, the show's
/// cover and an episode's media (iTunes', Media RSS's) as its enclosure.
#[test]
fn a_podcasts_cover_and_media_are_checked() {
    let (_dir, site) = site_of(&[
        ("media/ep1.mp3", "mp3"),
        (
            "podcast.xml",
            "<rss version=\"2.0\" xmlns:itunes=\"http://www.itunes.com/dtds/podcast-1.0.dtd\" \
             xmlns:media=\"http://search.yahoo.com/mrss/\"><channel>\n\
             <itunes:image href=\"https://example.com/media/cover.jpg\"/>\n\
             <item><enclosure url=\"https://example.com/media/ep1.mp3\" type=\"audio/mpeg\"/>\
             <media:content url=\"/media/ep1.mp4\"/></item></channel></rss>\n",
        ),
    ]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r#"DIR/podcast.xml:2:21: <rss/channel/itunes:image href> "https://example.com/media/cover.jpg" -> "https://example.com/media/cover.jpg": not found"#.to_owned(),
            r#"DIR/podcast.xml:3:97: <rss/channel/item/media:content url> "/media/ep1.mp4" -> "https://example.com/media/ep1.mp4": not found"#.to_owned(),
        ]),
        "{stderr}"
    );
}

/// The stylesheet a browser shows a feed, a sitemap or an SVG file with
/// (`<?xml-stylesheet?>`) is checked: the document's own, against its
/// URL (not its `xml:base`); one inside an element, one of a type no
/// browser loads, and an alternate one without a title load nothing.
#[test]
fn the_stylesheet_an_xml_document_is_shown_with_is_checked() {
    let (_dir, site) = site_of(&[
        ("feed.xsl", "<xsl:stylesheet/>"),
        (
            "blog/feed.xml",
            "<?xml-stylesheet type=\"text/xsl\" href=\"/feed.xsl\"?>\n\
             <?xml-stylesheet type=\"text/css\" href=\"feed.css\"?>\n\
             <?xml-stylesheet type=\"text/plain\" href=\"plain.css\"?><?xml-stylesheet href=\"alt.css\" alternate=\"yes\"?>\n\
             <feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"/\"><?xml-stylesheet href=\"inside.xsl\"?></feed>\n",
        ),
        (
            "img/icon.svg",
            "<?xml-stylesheet href='../css/icon.css'?><svg xmlns=\"http://www.w3.org/2000/svg\"/>",
        ),
    ]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r#"DIR/blog/feed.xml:2:40: <?xml-stylesheet href> "feed.css" -> "https://example.com/blog/feed.css": not found"#.to_owned(),
            r#"DIR/img/icon.svg:1:24: <?xml-stylesheet href> "../css/icon.css" -> "https://example.com/css/icon.css": not found"#.to_owned(),
        ]),
        "{stderr}"
    );
    assert_eq!(
        link_counts(&stderr),
        "htmlabs: 2 documents (0 HTML, 0 CSS, 2 XML): 3 links to the site's files checked: 1 found, 2 broken; 0 to other sites not checked",
    );
}

/// A page served as XML (an `.xhtml` file) is read by a browser as XML,
/// which loads each `<?xml-stylesheet?>` outside its root element: before
/// it against the page's URL, after it under its `<base href>`; one inside
/// loads nothing. An `.html` file, served as HTML, has comments there.
#[test]
fn the_stylesheets_of_a_page_served_as_xml_are_checked() {
    let page = "<?xml version=\"1.0\"?>\n\
        <?xml-stylesheet href=\"here.css\"?>\n\
        <?xml-stylesheet type=\"text/css\" href=\"gone.css\"?>\n\
        <html xmlns=\"http://www.w3.org/1999/xhtml\"><head><base href=\"/based/\"/></head><body>\n\
        <?xml-stylesheet href=\"inside.css\"?>\n\
        </body></html>\n\
        <?xml-stylesheet href=\"here.css\"?>\n";
    let (_dir, site) = site_of(&[
        ("docs/here.css", "p{}"),
        ("docs/page.xhtml", page),
        ("docs/page.html", page),
    ]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r#"DIR/docs/page.xhtml:3:40: <?xml-stylesheet href> "gone.css" -> "https://example.com/docs/gone.css": not found"#.to_owned(),
            r#"DIR/docs/page.xhtml:7:24: <?xml-stylesheet href> "here.css" -> "https://example.com/based/here.css": not found"#.to_owned(),
        ]),
        "{stderr}"
    );
    // The `.xhtml`'s three instructions (a `<base href>` is no link to
    // check).
    assert_eq!(
        link_counts(&stderr),
        "htmlabs: 3 documents (2 HTML, 1 CSS, 0 XML): 3 links to the site's files checked: 1 found, 2 broken; 0 to other sites not checked",
    );
}

#[test]
fn files_left_out_by_exclude_are_there_all_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    fs::create_dir_all(site.join("drafts")).unwrap();
    fs::create_dir_all(site.join("vendor")).unwrap();
    fs::write(site.join("drafts/x.html"), "<p id=here>").unwrap();
    fs::write(site.join("vendor/lib.js"), "var a").unwrap();
    fs::write(
        site.join("index.html"),
        "<a href=drafts/x.html>x</a> <a href=drafts/x.html#here>y</a> <a href=drafts/x.html#gone>z</a> <script src=/vendor/lib.js></script> <a href=gone.html>g</a>",
    )
    .unwrap();
    // Not read nor written, but served: a link to one is not broken, and
    // its fragments are checked as any page's.
    let (code, lines, stderr) = check(&site, &["--exclude", "drafts/", "--exclude", "*.js"]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r##"DIR/index.html:1:70: <a href> "drafts/x.html#gone" -> "https://example.com/drafts/x.html#gone": fragment "#gone" not in drafts/x.html"##.to_owned(),
            r#"DIR/index.html:1:140: <a href> "gone.html" -> "https://example.com/gone.html": not found"#.to_owned(),
        ])
    );
    // Made relative in place, where they are; not in a copy, which has
    // none of them.
    let relative = |out: Option<&Path>| {
        let mut command = Command::new(BIN);
        command
            .args(["--site-url", "https://example.com/", "--relative", "-q"])
            .args(["--exclude", "drafts/", "--site"])
            .arg(&site);
        if let Some(out) = out {
            command.arg("--out-dir").arg(out);
        }
        let run = command.output().unwrap();
        assert_eq!(
            run.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        fs::read_to_string(out.unwrap_or(&site).join("index.html")).unwrap()
    };
    let copied = relative(Some(&dir.path().join("copy")));
    assert!(
        copied.starts_with("<a href=https://example.com/drafts/x.html>"),
        "{copied}"
    );
    let in_place = relative(None);
    assert!(in_place.starts_with("<a href=drafts/x.html>"), "{in_place}");
}

#[test]
fn a_link_into_an_svg_file_is_checked_against_its_ids() {
    let (_dir, site) = site_of(&[
        (
            "img/icons.svg",
            r##"<svg xmlns="http://www.w3.org/2000/svg"><symbol id="menu"/><use href="#menu"/><use href="#Menu"/></svg>"##,
        ),
        (
            "index.html",
            r#"<svg><use href="img/icons.svg#menu"/><use href="img/icons.svg#close"/></svg><img src="img/icons.svg#top">"#,
        ),
    ]);
    let (code, lines, stderr) = check(&site, &[]);
    assert_eq!(code, 1, "{stderr}");
    assert_eq!(
        lines,
        BTreeSet::from([
            r##"DIR/img/icons.svg:1:90: <svg/use href> "#Menu" -> "https://example.com/img/icons.svg#Menu": fragment "#Menu" not in img/icons.svg"##.to_owned(),
            r##"DIR/index.html:1:49: <use href> "img/icons.svg#close" -> "https://example.com/img/icons.svg#close": fragment "#close" not in img/icons.svg"##.to_owned(),
        ])
    );
}
