//! `--site --relative`: a mirror that opens from the disk. Each link to a
//! file of the tree becomes the relative reference from the document's own
//! file; the rest stays absolute. The whole of each file is compared: only
//! the URL values change, byte for byte.

use std::fs;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// A mirror as wget writes one (`wget --mirror` with a query-named page),
/// by (path, bytes in, bytes out under `--relative`).
const TREE: &[(&str, &str, &str)] = &[
    (
        "index.html",
        "<head><base href=\"https://example.com/docs/\"><link rel=stylesheet href=/css/site.css></head>\n\
         <a href=guide.html#install>guide</a> <a href=\"/\">home</a> <a href=https://example.com/>home again</a>\n\
         <img src=\"/img/a%20b.png\" srcset=\"/img/caf%C3%A9.png 1x, https://cdn.example/x.png 2x\">\n\
         <a href=\"/shop.php?id=1\">a saved query</a> <a href=\"/missing.html\">not mirrored</a> <a href=\"mailto:a@example.com\">mail</a>\n\
         <noscript><img src=\"/img/a%20b.png\"></noscript>",
        "<head><base href=\"\"><link rel=stylesheet href=css/site.css></head>\n\
         <a href=docs/guide.html#install>guide</a> <a href=\"index.html\">home</a> <a href=index.html>home again</a>\n\
         <img src=\"img/a%20b.png\" srcset=\"img/caf%C3%A9.png 1x, https://cdn.example/x.png 2x\">\n\
         <a href=\"shop.php%3Fid=1\">a saved query</a> <a href=\"https://example.com/missing.html\">not mirrored</a> <a href=\"mailto:a@example.com\">mail</a>\n\
         <noscript><img src=\"img/a%20b.png\"></noscript>",
    ),
    (
        "docs/guide.html",
        "<a href=\"#install\">here</a> <a href=\"./\">docs</a> <a href=\"../\">up</a>\n\
         <p style=\"background:url(/img/a%20b.png)\">x</p><style>p{background:url(../img/caf%C3%A9.png)}</style>\n\
         <svg><use href=\"#i\"/><image href=\"/img/a%20b.png\"/></svg>",
        "<a href=\"#install\">here</a> <a href=\"index.html\">docs</a> <a href=\"../index.html\">up</a>\n\
         <p style=\"background:url(../img/a%20b.png)\">x</p><style>p{background:url(../img/caf%C3%A9.png)}</style>\n\
         <svg><use href=\"#i\"/><image href=\"../img/a%20b.png\"/></svg>",
    ),
    (
        "docs/index.html",
        "<a href=guide.html>guide</a>",
        "<a href=guide.html>guide</a>",
    ),
    (
        "css/site.css",
        "@import \"/css/print.css\";\nbody{background:url(https://example.com/img/a%20b.png)}",
        "@import \"print.css\";\nbody{background:url(../img/a%20b.png)}",
    ),
    ("css/print.css", "p{}", "p{}"),
    ("img/a b.png", "png", "png"),
    ("img/café.png", "png", "png"),
    ("shop.php?id=1", "a page wget saved", "a page wget saved"),
    // An SVG file's links, as a page's; its stylesheet too.
    (
        "img/icons.svg",
        "<?xml-stylesheet href=\"/css/print.css\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><a href=\"/docs/\"><image href=\"https://example.com/img/a%20b.png\"/></a><use href=\"#i\"/></svg>",
        "<?xml-stylesheet href=\"../css/print.css\"?><svg xmlns=\"http://www.w3.org/2000/svg\"><a href=\"../docs/index.html\"><image href=\"a%20b.png\"/></a><use href=\"#i\"/></svg>",
    ),
    // A feed's readers need its links absolute; the stylesheet a browser
    // shows it with is the copy's.
    (
        "feed.xml",
        "<?xml-stylesheet type=\"text/xsl\" href=\"/feed.xsl\"?><rss version=\"2.0\"><channel><link>/docs/</link></channel></rss>",
        "<?xml-stylesheet type=\"text/xsl\" href=\"feed.xsl\"?><rss version=\"2.0\"><channel><link>https://example.com/docs/</link></channel></rss>",
    ),
    ("feed.xsl", "<xsl:stylesheet/>", "<xsl:stylesheet/>"),
];

fn make(root: &Path) {
    for (path, bytes, _) in TREE {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

#[test]
fn links_to_the_trees_files_become_relative_and_the_rest_stays_absolute() {
    let dir = tempfile::tempdir().unwrap();
    let (site, out) = (dir.path().join("mirror"), dir.path().join("out"));
    make(&site);
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
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    for (path, _, expected) in TREE {
        let got = fs::read(out.join(path)).unwrap();
        assert_eq!(
            String::from_utf8_lossy(&got),
            *expected,
            "{path} under --relative"
        );
    }
    // A second run over its own output changes nothing.
    let again = Command::new(BIN)
        .args([
            "--site-url",
            "https://example.com/",
            "--relative",
            "--check",
            "--site",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stdout)
    );
}

#[test]
fn relative_is_a_flag_of_the_site() {
    let run = Command::new(BIN)
        .args(["-r", "https://example.com/", "--relative"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "htmlabs: error: --relative needs --site: without it, it would do nothing\n"
    );
}

/// The site's URL without its slash is its root directory's, as a server
/// answers it (a redirect to the slash): it leads to the root's
/// `index.html`, its query and fragment kept, for a site at a sub-path and
/// at a host's root alike; a path that only starts like it is another's.
/// (Found by Chromium, `tests/judges/chromium/corpus_site.rs`: `/site` stayed
/// absolute, to the live site.)
#[test]
fn the_sites_url_without_its_slash_leads_to_its_index() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    fs::create_dir_all(site.join("post")).unwrap();
    fs::write(site.join("index.html"), "home").unwrap();
    let page = "<a href=/blog>home</a> <a href=\"https://example.com/blog?page=2#top\">page 2</a> \
                <a href=HTTP://EXAMPLE.COM/blog#top>its top</a> <a href=/blogroll.html>another's</a> \
                <a href=https://example.com>the host</a>";
    for (url, expected) in [
        (
            "https://example.com/blog/",
            "<a href=../index.html>home</a> <a href=\"../index.html?page=2#top\">page 2</a> \
             <a href=../index.html#top>its top</a> <a href=https://example.com/blogroll.html>another's</a> \
             <a href=https://example.com>the host</a>",
        ),
        (
            "https://example.com/",
            "<a href=https://example.com/blog>home</a> <a href=\"https://example.com/blog?page=2#top\">page 2</a> \
             <a href=HTTP://EXAMPLE.COM/blog#top>its top</a> <a href=https://example.com/blogroll.html>another's</a> \
             <a href=../index.html>the host</a>",
        ),
    ] {
        fs::write(site.join("post/index.html"), page).unwrap();
        let run = Command::new(BIN)
            .args(["--site-url", url, "--relative", "--site"])
            .arg(&site)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(0), "{url}: {stderr}");
        assert_eq!(
            fs::read_to_string(site.join("post/index.html")).unwrap(),
            expected,
            "{url}"
        );
    }
}

/// The tree's paths are held for the run, from `--max-memory`: a site whose
/// paths alone would pass it is refused, and nothing is written.
#[test]
fn a_tree_past_the_memory_limit_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let (site, out) = (dir.path().join("site"), dir.path().join("out"));
    fs::create_dir(&site).unwrap();
    for i in 0..3000 {
        let name = format!("page-{i:04}-{}.html", "x".repeat(100));
        fs::write(site.join(name), "<a href=/>home</a>").unwrap();
    }
    let run = Command::new(BIN)
        .args([
            "--site-url",
            "https://example.com/",
            "--relative",
            "--max-memory",
            "100K",
        ])
        .arg("--out-dir")
        .arg(&out)
        .arg("--site")
        .arg(&site)
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "htmlabs: error: --relative: the paths of the site's 3000 files take more than --max-memory allows (102400 bytes)\n"
    );
    assert!(!out.exists(), "nothing is written");
}

/// `--missing as-written`: a link to a page of the site the copy lacks is
/// left as the page wrote it (by either scheme); a link to another site is
/// absolute all the same. Without `--relative` the flag is refused.
#[test]
fn missing_pages_are_left_as_written_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    fs::create_dir_all(site.join("docs")).unwrap();
    fs::write(
        site.join("docs/page.html"),
        "<a href=next.html>next</a> <a href=http://example.com/docs/page.html#a>me</a> <a href=/gone/>gone</a>",
    )
    .unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args(["--site-url", "https://example.com/"])
            .args(args)
            .arg("--site")
            .arg(&site)
            .output()
            .unwrap()
    };
    let out = run(&["--relative", "--missing", "as-written"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        fs::read_to_string(site.join("docs/page.html")).unwrap(),
        "<a href=next.html>next</a> <a href=#a>me</a> <a href=/gone/>gone</a>"
    );
    let out = run(&["--missing", "as-written"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "htmlabs: error: --missing needs --relative (or --warc with --out-dir): without it, it would do nothing\n"
    );
}

/// `--missing placeholder`: a link to a page of the site the tree lacks
/// leads to a page the copy holds, the URL after its `#`; that page is
/// written once, in place or in the copy, and never over a file of the
/// site's own.
#[test]
fn missing_pages_lead_to_the_placeholder_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (site, out) = (dir.path().join("site"), dir.path().join("out"));
    fs::create_dir_all(site.join("docs")).unwrap();
    let page = "<a href=next.html>next</a> <a href=/gone/#x>gone</a> <a href=https://other.example/>other</a>";
    fs::write(site.join("docs/page.html"), page).unwrap();
    fs::write(site.join("docs/next.html"), "next").unwrap();
    let run = |args: &[&str]| {
        Command::new(BIN)
            .args([
                "--site-url",
                "https://example.com/",
                "--relative",
                "--missing",
                "placeholder",
            ])
            .args(args)
            .arg("--site")
            .arg(&site)
            .output()
            .unwrap()
    };
    let saved = "<a href=next.html>next</a> <a href=../_not-in-this-copy.html#https%3A%2F%2Fexample.com%2Fgone%2F%23x>gone</a> <a href=https://other.example/>other</a>";
    // Into a copy.
    let copy = run(&["--out-dir", out.to_str().unwrap()]);
    assert_eq!(
        copy.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&copy.stderr)
    );
    assert_eq!(
        fs::read_to_string(out.join("docs/page.html")).unwrap(),
        saved
    );
    let placeholder = fs::read_to_string(out.join("_not-in-this-copy.html")).unwrap();
    assert!(placeholder.contains("Not in this copy"), "{placeholder}");
    assert!(
        !site.join("_not-in-this-copy.html").exists(),
        "the site is read, not written"
    );
    // In place, twice: the second run finds the page its own.
    for _ in 0..2 {
        let in_place = run(&[]);
        assert_eq!(
            in_place.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&in_place.stderr)
        );
        assert_eq!(
            fs::read_to_string(site.join("docs/page.html")).unwrap(),
            saved
        );
        assert_eq!(
            fs::read_to_string(site.join("_not-in-this-copy.html")).unwrap(),
            placeholder
        );
    }
    // A file of the site's own by that name is never written over.
    fs::write(out.join("_not-in-this-copy.html"), "mine").unwrap();
    fs::write(out.join("docs/page.html"), page).unwrap();
    let refused = Command::new(BIN)
        .args([
            "--site-url",
            "https://example.com/",
            "--relative",
            "--missing",
            "placeholder",
            "--site",
        ])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        stderr.contains("is not htmlabs's page for what the copy lacks"),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(out.join("_not-in-this-copy.html")).unwrap(),
        "mine"
    );
    assert_eq!(
        fs::read_to_string(out.join("docs/page.html")).unwrap(),
        page,
        "nothing written"
    );
}

/// The link report says what each value became: `relative` for a value
/// made a relative reference (`""` for the `<base href>` made the page's
/// own), `mapped` and `map` for one a `--map` rule matched, beside
/// `absolute`, what it resolves to.
#[test]
fn the_report_says_what_each_value_became() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    fs::create_dir_all(site.join("docs")).unwrap();
    fs::write(
        site.join("docs/page.html"),
        "<base href=/docs/><a href=../index.html>home</a> <a href=https://old.example/x>moved</a>",
    )
    .unwrap();
    fs::write(site.join("index.html"), "home").unwrap();
    let report = dir.path().join("links.jsonl");
    let run = Command::new(BIN)
        .args([
            "--site-url",
            "https://example.com/",
            "--relative",
            "--check",
        ])
        .args([
            "--map",
            "https://old.example/=https://new.example/",
            "--report",
        ])
        .arg(&report)
        .arg("--site")
        .arg(&site)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let lines: Vec<serde_json::Value> = fs::read_to_string(&report)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let field = |i: usize, key: &str| {
        lines[i]
            .get(key)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
    };
    assert_eq!(lines.len(), 3);
    assert_eq!(field(0, "element").as_deref(), Some("base"));
    assert_eq!(field(0, "relative").as_deref(), Some(""));
    assert_eq!(
        field(1, "absolute").as_deref(),
        Some("https://example.com/index.html")
    );
    assert_eq!(field(1, "relative").as_deref(), Some("../index.html"));
    assert_eq!(field(1, "mapped"), None);
    assert_eq!(
        field(2, "absolute").as_deref(),
        Some("https://old.example/x")
    );
    assert_eq!(field(2, "mapped").as_deref(), Some("https://new.example/x"));
    assert_eq!(
        field(2, "map").as_deref(),
        Some("https://old.example/=https://new.example/")
    );
    assert_eq!(field(2, "relative"), None);
    // The check lines say what would change, as it would be written (the
    // link that stays as it was written is no change).
    assert_eq!(field(1, "outcome").as_deref(), Some("unchanged"));
    assert_eq!(
        String::from_utf8_lossy(&run.stdout)
            .lines()
            .map(|l| l.split_once(": ").unwrap().1)
            .collect::<Vec<_>>(),
        [
            "<base href> \"/docs/\" -> \"\"",
            "<a href> \"https://old.example/x\" -> \"https://new.example/x\"",
        ]
    );
}

/// Each file of the tree made absolute (`--site --site-url` into `out`).
fn absolute(site: &Path, out: &Path) -> std::collections::BTreeMap<String, String> {
    let run = Command::new(BIN)
        .args(["-q", "--site-url", "https://example.com/", "--out-dir"])
        .arg(out)
        .arg("--site")
        .arg(site)
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    TREE.iter()
        .map(|(path, _, _)| {
            let bytes = fs::read(out.join(path)).unwrap();
            (path.to_string(), String::from_utf8(bytes).unwrap())
        })
        .collect()
}

/// The relative copy made absolute again is the original made absolute,
/// but for what a copy that opens from the disk must name otherwise: a
/// directory's `index.html`, a saved query's file name, and the `<base>`
/// made the page's own. Each such value is listed here, as it comes out
/// of each: nothing else differs, byte for byte.
#[test]
fn a_relative_copy_made_absolute_again_is_the_original_made_absolute_but_for_file_names() {
    let dir = tempfile::tempdir().unwrap();
    let (site, relative) = (dir.path().join("site"), dir.path().join("relative"));
    make(&site);
    let run = Command::new(BIN)
        .args([
            "-q",
            "--site-url",
            "https://example.com/",
            "--relative",
            "--out-dir",
        ])
        .arg(&relative)
        .arg("--site")
        .arg(&site)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let original = absolute(&site, &dir.path().join("a"));
    let again = absolute(&relative, &dir.path().join("b"));
    // Each value that differs: (file, as the original made absolute has
    // it, as the copy made absolute has it).
    let differ: &[(&str, &str, &str)] = &[
        // A directory is its `index.html` from the disk.
        (
            "index.html",
            "href=\"https://example.com/\"",
            "href=\"https://example.com/index.html\"",
        ),
        (
            "index.html",
            "href=https://example.com/>",
            "href=https://example.com/index.html>",
        ),
        (
            "docs/guide.html",
            "\"https://example.com/docs/\"",
            "\"https://example.com/docs/index.html\"",
        ),
        (
            "docs/guide.html",
            "\"https://example.com/\"",
            "\"https://example.com/index.html\"",
        ),
        (
            "img/icons.svg",
            "\"https://example.com/docs/\"",
            "\"https://example.com/docs/index.html\"",
        ),
        // A saved query is the file wget named after it.
        (
            "index.html",
            "https://example.com/shop.php?id=1",
            "https://example.com/shop.php%3Fid=1",
        ),
        // The base made the page's own (its file's URL, the site's root;
        // replaced last, as it ends as another value begins).
        (
            "index.html",
            "<base href=\"https://example.com/docs/\">",
            "<base href=\"https://example.com/\">",
        ),
    ];
    for (path, a) in &original {
        let mut expected = a.clone();
        for (_, from, to) in differ.iter().filter(|(p, _, _)| p == path) {
            assert_eq!(expected.matches(from).count(), 1, "{path}: {from}");
            expected = expected.replace(from, to);
        }
        assert_eq!(again[path], expected, "{path}");
    }
}
