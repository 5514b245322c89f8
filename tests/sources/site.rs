//! `--site`: a whole tree, each file at the URL a server gives it, in
//! parallel, safely; `--check` and `--report` over it. Every file's output
//! is judged by the single-document filter run on it with its URL.

use crate::common;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");
const URL: &str = "https://example.com/site/";

fn htmlabs(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A site of every shape the issue names; (path under the root, URL) of
/// its documents that can be rewritten (its pages, and its stylesheet).
fn make_site(root: &Path) -> Vec<(PathBuf, String)> {
    let write = |path: &str, bytes: &[u8]| {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    };
    write(
        "index.html",
        b"<!doctype html>\n<link href=css/site.css>\n<a href=\"docs/\">Docs</a>\n<img src='img/logo.png' srcset='img/logo@2x.png 2x'>\n",
    );
    write(
        "docs/index.html",
        b"<a href=\"../\">up</a> <a href=\"guide/intro.htm\">intro</a>\n<a href=#top>top</a>",
    );
    write(
        "docs/guide/intro.htm",
        b"<p style=\"background:url(bg.png)\">\n<a href=\"../../index.html\">home</a></p>",
    );
    write("docs/guide/index.html", b"<a href=intro.htm>intro</a>");
    write("css/site.css", b"body { background: url(../img/bg.png) }");
    write("img/logo.png", b"\x89PNG not really");
    write(
        "based.html",
        b"<head><base href=\"https://cdn.example.net/x/\"></head><a href=y.html>y</a>",
    );
    write(
        "latin1.html",
        b"<meta charset=windows-1252><a href=\"caf\xe9.html\">caf\xe9</a>",
    );
    write("my page.html", b"<a href=\"other page.html\">o</a>");
    write("caf\u{e9}/men\u{fc}.html", b"<a href=\"./\">here</a>");
    write("x;y/page.html", b"<a href=z.html>z</a>");
    write(
        "absolute.html",
        b"<a href=\"https://example.org/\">elsewhere</a>",
    );
    // XHTML that reads as HTML (void elements self-closed): rewritten.
    write(
        "docs/page.xhtml",
        b"<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><link rel=\"stylesheet\" href=\"s.css\"/></head><body><img src=\"a.png\"/><a href=\"../\">up</a></body></html>",
    );
    let pages = [
        ("index.html", "https://example.com/site/"),
        ("docs/index.html", "https://example.com/site/docs/"),
        (
            "docs/guide/intro.htm",
            "https://example.com/site/docs/guide/intro.htm",
        ),
        (
            "docs/guide/index.html",
            "https://example.com/site/docs/guide/",
        ),
        ("based.html", "https://example.com/site/based.html"),
        ("latin1.html", "https://example.com/site/latin1.html"),
        ("my page.html", "https://example.com/site/my%20page.html"),
        (
            "caf\u{e9}/men\u{fc}.html",
            "https://example.com/site/caf%C3%A9/men%C3%BC.html",
        ),
        ("x;y/page.html", "https://example.com/site/x%3By/page.html"),
        ("absolute.html", "https://example.com/site/absolute.html"),
        (
            "docs/page.xhtml",
            "https://example.com/site/docs/page.xhtml",
        ),
        // A stylesheet, against its own URL.
        ("css/site.css", "https://example.com/site/css/site.css"),
    ];
    pages
        .into_iter()
        .map(|(p, u)| (PathBuf::from(p), u.to_owned()))
        .collect()
}

/// What the single-document filter makes of `file` retrieved from `url`
/// (a `.css` file read as a stylesheet).
fn filtered(file: &Path, url: &str) -> Vec<u8> {
    let css = file.extension().is_some_and(|e| e == "css");
    let out = Command::new(BIN)
        .args(["-q", "-r", url])
        .args(if css { &["--type", "css"][..] } else { &[] })
        .arg(file)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out.stdout
}

/// Every file of `root`, by its path under it.
fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let kind = fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_dir() {
                dirs.push(path);
            } else if kind.is_file() {
                let relative = path.strip_prefix(root).unwrap().to_path_buf();
                files.insert(relative, fs::read(&path).unwrap());
            }
        }
    }
    files
}

#[test]
fn every_file_is_what_the_filter_makes_of_it_at_its_url() {
    every_file_is_what_the_filter_makes(&[]);
}

#[test]
fn so_it_is_when_each_file_is_made_durable_before_its_rename() {
    every_file_is_what_the_filter_makes(&["--fsync"]);
}

fn every_file_is_what_the_filter_makes(flags: &[&str]) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    let pages = make_site(&root);
    let expected: Vec<(PathBuf, Vec<u8>)> = pages
        .iter()
        .map(|(p, u)| (p.clone(), filtered(&root.join(p), u)))
        .collect();
    let before = snapshot(&root);
    let mut args = vec![
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        "https://example.com/site",
    ];
    args.extend_from_slice(flags);
    let out = htmlabs(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(
        text(&out.stderr).starts_with(
            "htmlabs: 12 documents (11 HTML, 1 CSS, 0 XML): 11 rewritten, 1 unchanged, 0 failed;"
        ),
        "{}",
        text(&out.stderr)
    );
    let after = snapshot(&root);
    for (path, bytes) in &expected {
        assert_eq!(text(&after[path]), text(bytes), "{}", path.display());
    }
    // Everything else as it was, and nothing added (no temporary file).
    for (path, bytes) in &before {
        if !expected.iter().any(|(p, _)| p == path) {
            assert_eq!(&after[path], bytes, "{}", path.display());
        }
    }
    assert_eq!(
        after.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    assert_eq!(
        text(&after[Path::new("docs/index.html")]),
        "<a href=\"https://example.com/site/\">up</a> <a href=\"https://example.com/site/docs/guide/intro.htm\">intro</a>\n<a href=https://example.com/site/docs/#top>top</a>"
    );
    // A second run changes nothing, and writes nothing.
    let again = htmlabs(&["--site", root.to_str().unwrap(), "--site-url", URL]);
    assert!(text(&again.stderr).contains(": 0 rewritten, 12 unchanged, 0 failed;"));
    assert_eq!(snapshot(&root), after);
}

#[test]
fn a_file_written_keeps_its_permissions_and_time_and_one_unchanged_is_not_touched() {
    use std::os::unix::fs::PermissionsExt;
    use std::time::{Duration, SystemTime};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.html"), "<a href=b.html>").unwrap();
    fs::write(root.join("c.html"), "<a href=\"https://x/\">").unwrap();
    let then = SystemTime::UNIX_EPOCH + Duration::from_secs(1_500_000_000);
    for name in ["a.html", "c.html"] {
        let file = fs::File::options()
            .write(true)
            .open(root.join(name))
            .unwrap();
        file.set_modified(then).unwrap();
        file.set_permissions(fs::Permissions::from_mode(0o640))
            .unwrap();
    }
    let inode =
        |name: &str| std::os::unix::fs::MetadataExt::ino(&fs::metadata(root.join(name)).unwrap());
    let c_before = inode("c.html");
    let out = htmlabs(&["--site", root.to_str().unwrap(), "--site-url", URL]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let a = fs::metadata(root.join("a.html")).unwrap();
    assert_eq!(
        fs::read_to_string(root.join("a.html")).unwrap(),
        "<a href=https://example.com/site/b.html>"
    );
    assert_eq!(a.permissions().mode() & 0o777, 0o640);
    assert_eq!(a.modified().unwrap(), then);
    assert_eq!(
        inode("c.html"),
        c_before,
        "an unchanged file is not replaced"
    );
}

/// A file longer than an eighth of what its share of `--max-memory` has
/// left is not read whole: it streams from its file, its output spills to
/// a temporary file (past the run's room for what waits, a quarter of 1
/// MiB), and it comes out as one read whole does; one whose output is its
/// input is not touched.
#[test]
fn a_file_longer_than_its_share_streams_and_comes_out_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let lorem = "<p>lorem ipsum dolor sit amet</p>\n".repeat(6000);
    let long = format!(
        "<a href=a.html>a</a>{lorem}<style>p {{ background: url(b.png) }}</style>{lorem}<img srcset=\"c.png 2x\">"
    );
    fs::write(root.join("long.html"), &long).unwrap();
    fs::write(
        root.join("same.html"),
        format!("{lorem}<a href=\"https://x/\">"),
    )
    .unwrap();
    let expected = filtered(
        &root.join("long.html"),
        "https://example.com/site/long.html",
    );
    let inode =
        |name: &str| std::os::unix::fs::MetadataExt::ino(&fs::metadata(root.join(name)).unwrap());
    let same_before = inode("same.html");
    let site = root.to_str().unwrap();
    let out = htmlabs(&["--site", site, "--site-url", URL, "--max-memory", "1M"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).starts_with("htmlabs: 2 HTML files: 1 rewritten, 1 unchanged, 0 failed;"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(
        text(&fs::read(root.join("long.html")).unwrap()),
        text(&expected)
    );
    assert_eq!(
        inode("same.html"),
        same_before,
        "an unchanged file is not replaced"
    );
}

#[test]
fn a_failing_file_is_left_as_it_was_and_the_others_finish() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.html"), "<a href=x>").unwrap();
    // UTF-16 with an unpaired surrogate: rewriting stops there, and the
    // file is left as it was.
    let mut bad = vec![0xFF, 0xFE];
    bad.extend("<a href=y>".encode_utf16().flat_map(u16::to_le_bytes));
    bad.extend([0x00, 0xD8]);
    fs::write(root.join("b.html"), &bad).unwrap();
    // A million open elements: past --max-memory.
    fs::write(
        root.join("c.html"),
        format!("<a href=z>{}", "<div>".repeat(200_000)),
    )
    .unwrap();
    fs::write(root.join("d.html"), "<img src=w>").unwrap();
    let c_before = fs::read(root.join("c.html")).unwrap();
    let out = htmlabs(&[
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        URL,
        "--max-memory",
        "500000",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "htmlabs: error: `{}`: left as it was: it is not valid in its encoding",
            root.join("b.html").display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!(
            "htmlabs: error: `{}`: left as it was: rewriting stopped at the memory limit",
            root.join("c.html").display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("4 HTML files: 2 rewritten, 0 unchanged, 2 failed;"),
        "{stderr}"
    );
    assert_eq!(fs::read(root.join("b.html")).unwrap(), bad);
    assert_eq!(fs::read(root.join("c.html")).unwrap(), c_before);
    assert_eq!(
        fs::read_to_string(root.join("a.html")).unwrap(),
        "<a href=https://example.com/site/x>"
    );
    assert_eq!(
        fs::read_to_string(root.join("d.html")).unwrap(),
        "<img src=https://example.com/site/w>"
    );
}

/// As root, permissions do not stop a read: the run drops to `nobody`.
/// A file whose links outgrow what a document may hold (half of
/// `--max-memory`) fails, in one line that says so: a report that lacked
/// the links past the limit would pass for whole. The others are reported
/// whole, at every `--jobs`.
#[test]
fn a_file_whose_links_outgrow_the_limit_fails_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join("a.html"), "<a href=x>x</a>".repeat(20_000)).unwrap();
    fs::write(root.join("b.html"), "<img src=w>").unwrap();
    let (a, site) = (root.join("a.html"), root.to_str().unwrap());
    for jobs in ["1", "2"] {
        let out = htmlabs(&[
            "--site",
            site,
            "--site-url",
            URL,
            "--check",
            "--report",
            "-",
            "--max-memory",
            "2000000",
            "--jobs",
            jobs,
        ]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--jobs {jobs}: {stderr}");
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| l.starts_with("htmlabs: error"))
            .collect();
        assert_eq!(
            errors,
            [format!(
                "htmlabs: error: `{}`: left as it was: its links do not fit the memory \
                 limit of 2000000 bytes (--max-memory)",
                a.display()
            )],
            "--jobs {jobs}"
        );
        let report: Vec<Value> = text(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let b: Vec<&Value> = report.iter().filter(|l| l["original"] == "w").collect();
        assert_eq!(b.len(), 1, "--jobs {jobs}");
        assert_eq!(b[0]["absolute"], format!("{URL}w"));
        let of_a = report.len() - 1;
        assert!(of_a > 0 && of_a < 20_000, "--jobs {jobs}: {of_a}");
        assert!(
            report
                .iter()
                .filter(|l| l["original"] == "x")
                .all(|l| l["outcome"] == "left"),
            "--jobs {jobs}"
        );
    }
}

#[test]
fn an_unreadable_file_is_reported_with_its_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    fs::create_dir(&root).unwrap();
    for path in [dir.path(), &root] {
        fs::set_permissions(path, fs::Permissions::from_mode(0o777)).unwrap();
    }
    fs::write(root.join("a.html"), "<a href=x>").unwrap();
    fs::write(root.join("secret.html"), "<a href=y>").unwrap();
    fs::set_permissions(root.join("a.html"), fs::Permissions::from_mode(0o666)).unwrap();
    fs::set_permissions(root.join("secret.html"), fs::Permissions::from_mode(0o000)).unwrap();
    let root_user = fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false);
    let mut command = if root_user {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", BIN]);
        c
    } else {
        Command::new(BIN)
    };
    let out = command
        .args(["--site", root.to_str().unwrap(), "--site-url", URL])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "htmlabs: error: cannot open `{}`: permission denied",
            root.join("secret.html").display()
        )),
        "{stderr}"
    );
    assert_eq!(
        fs::read_to_string(root.join("a.html")).unwrap(),
        "<a href=https://example.com/site/x>"
    );
}

#[test]
fn symbolic_links_are_not_followed_and_nothing_outside_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("site");
    fs::create_dir(&root).unwrap();
    let outside = dir.path().join("outside.html");
    fs::write(&outside, "<a href=o>").unwrap();
    fs::write(root.join("a.html"), "<a href=x>").unwrap();
    std::os::unix::fs::symlink(&outside, root.join("out.html")).unwrap();
    std::os::unix::fs::symlink("a.html", root.join("in.html")).unwrap();
    for follow in [false, true] {
        let mut args = vec!["--site", root.to_str().unwrap(), "--site-url", URL];
        if follow {
            args.push("--follow-links");
        }
        let out = htmlabs(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(fs::read_to_string(&outside).unwrap(), "<a href=o>");
        assert!(
            fs::symlink_metadata(root.join("out.html"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            fs::symlink_metadata(root.join("in.html"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }
    assert_eq!(
        fs::read_to_string(root.join("a.html")).unwrap(),
        "<a href=https://example.com/site/x>"
    );
}

#[test]
fn out_dir_writes_a_rewritten_copy_of_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    let out = dir.path().join("out");
    let pages = make_site(&root);
    let before = snapshot(&root);
    let run = htmlabs(&[
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        URL,
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    let stderr = text(&run.stderr);
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("other files: 1 hard-linked, 0 copied"),
        "{stderr}"
    );
    assert_eq!(snapshot(&root), before, "the site is left as it was");
    let copy = snapshot(&out);
    assert_eq!(
        copy.keys().collect::<Vec<_>>(),
        before.keys().collect::<Vec<_>>()
    );
    for (path, url) in &pages {
        assert_eq!(
            text(&copy[path]),
            text(&filtered(&root.join(path), url)),
            "{}",
            path.display()
        );
    }
    assert_eq!(
        copy[Path::new("img/logo.png")],
        before[Path::new("img/logo.png")]
    );
    let inode = |p: &Path| std::os::unix::fs::MetadataExt::ino(&fs::metadata(p).unwrap());
    assert_eq!(
        inode(&root.join("img/logo.png")),
        inode(&out.join("img/logo.png")),
        "hard-linked"
    );
}

/// Every path under `root` that is a symbolic link.
fn links(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let kind = fs::symlink_metadata(&path).unwrap().file_type();
            if kind.is_symlink() {
                found.push(path.strip_prefix(root).unwrap().to_path_buf());
            } else if kind.is_dir() {
                dirs.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `htmlabs --site ROOT --site-url URL --out-dir OUT`, which must succeed.
fn copy_site(root: &Path, out: &Path) {
    let run = htmlabs(&[
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        URL,
        "--out-dir",
        out.to_str().unwrap(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
}

/// Links in OUT where the copy puts a page, another file or a directory,
/// pointing outside both trees or nowhere: none is written through; each
/// is replaced by what the copy puts there, as in a copy made afresh.
#[test]
fn links_in_out_dir_are_replaced_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    make_site(&root);
    let fresh = dir.path().join("fresh");
    copy_site(&root, &fresh);
    let outside = dir.path().join("outside");
    fs::create_dir_all(outside.join("dir")).unwrap();
    fs::write(outside.join("page.html"), "<a href=o>").unwrap();
    fs::write(outside.join("logo.png"), "outside").unwrap();
    let out = dir.path().join("out");
    fs::create_dir_all(out.join("img")).unwrap();
    let link = |to: &Path, at: &str| std::os::unix::fs::symlink(to, out.join(at)).unwrap();
    // A page, a hard-linked file, a dangling link where a page goes, and
    // directories where pages (docs) and other files (css) go.
    link(&outside.join("page.html"), "index.html");
    link(&outside.join("logo.png"), "img/logo.png");
    link(&outside.join("new.html"), "based.html");
    link(&outside.join("dir"), "docs");
    link(&outside.join("dir"), "css");
    let before = snapshot(&outside);
    copy_site(&root, &out);
    assert_eq!(snapshot(&outside), before, "nothing outside is written");
    assert!(!outside.join("new.html").exists());
    assert_eq!(links(&out), Vec::<PathBuf>::new());
    assert_eq!(snapshot(&out), snapshot(&fresh));
}

/// OUT itself, as the user names it, may be a link to a directory: the
/// copy goes where it leads (the links refused are those in the tree).
#[test]
fn an_out_dir_named_through_a_link_is_written_where_it_leads() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    make_site(&root);
    let fresh = dir.path().join("fresh");
    copy_site(&root, &fresh);
    fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink("real", dir.path().join("out")).unwrap();
    copy_site(&root, &dir.path().join("out"));
    assert_eq!(snapshot(&dir.path().join("real")), snapshot(&fresh));
}

/// A run copies the site's links into OUT as links; when the site then
/// has a page and a directory where they were, the next run replaces
/// them and writes nothing through them.
#[test]
fn links_one_run_copied_into_out_dir_are_not_written_through_by_the_next() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    let out = dir.path().join("out");
    // Relative links: from OUT, beside the site, they name the same places.
    let outside = dir.path().join("outside");
    fs::create_dir_all(outside.join("dir")).unwrap();
    fs::write(outside.join("page.html"), "<a href=o>").unwrap();
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("index.html"), "<a href=x>").unwrap();
    std::os::unix::fs::symlink("../outside/page.html", root.join("page.html")).unwrap();
    std::os::unix::fs::symlink("../outside/dir", root.join("docs")).unwrap();
    copy_site(&root, &out);
    assert_eq!(
        links(&out),
        [PathBuf::from("docs"), PathBuf::from("page.html")]
    );
    let before = snapshot(&outside);
    // The site now has a page and a directory there.
    fs::remove_file(root.join("page.html")).unwrap();
    fs::remove_file(root.join("docs")).unwrap();
    fs::write(root.join("page.html"), "<a href=y>").unwrap();
    fs::create_dir(root.join("docs")).unwrap();
    fs::write(root.join("docs/index.html"), "<a href=z>").unwrap();
    fs::write(root.join("docs/style.css"), "p {}").unwrap();
    copy_site(&root, &out);
    assert_eq!(snapshot(&outside), before, "nothing outside is written");
    assert_eq!(links(&out), Vec::<PathBuf>::new());
    let copy = snapshot(&out);
    assert_eq!(
        text(&copy[Path::new("page.html")]),
        "<a href=https://example.com/site/y>"
    );
    assert_eq!(
        text(&copy[Path::new("docs/index.html")]),
        "<a href=https://example.com/site/docs/z>"
    );
    assert_eq!(text(&copy[Path::new("docs/style.css")]), "p {}");
}

/// A directory of the site swapped for a link to elsewhere after the walk
/// (the run's first event), as another process could: in place, the file
/// under it is not written, through the link or anywhere; into a copy,
/// the link planted in OUT is replaced.
#[test]
fn a_directory_swapped_for_a_link_during_a_run_is_not_written_through() {
    use htmlabs::SourceError;
    use htmlabs::internal::listener::{Document, Listener, Progress};
    use std::sync::atomic::AtomicBool;
    /// Swaps the directory once the tree is walked; keeps the failures.
    struct Swapping<F> {
        swap: F,
        failed: std::sync::Mutex<Vec<String>>,
    }
    impl<F: Fn() + Sync> Listener for Swapping<F> {
        fn progress(&self, progress: Progress) {
            if let Progress::Found(_) = progress {
                (self.swap)();
            }
        }
        fn failure(&self, _: &Document<'_>, error: &SourceError) {
            self.failed.lock().unwrap().push(error.to_string());
        }
    }
    for copy in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("public");
        let out = dir.path().join("out");
        let outside = dir.path().join("outside");
        fs::create_dir_all(root.join("sub")).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(root.join("a.html"), "<a href=x>").unwrap();
        fs::write(root.join("sub/b.html"), "<a href=y>").unwrap();
        fs::write(outside.join("b.html"), "<a href=o>").unwrap();
        let swap = || {
            if copy {
                fs::create_dir_all(&out).unwrap();
                std::os::unix::fs::symlink(&outside, out.join("sub")).unwrap();
            } else {
                fs::rename(root.join("sub"), dir.path().join("moved")).unwrap();
                std::os::unix::fs::symlink(&outside, root.join("sub")).unwrap();
            }
        };
        let on = Swapping {
            swap,
            failed: Default::default(),
        };
        let mut request = htmlabs::run::Request::default();
        request.jobs = Some(1);
        request.site.url = Some(URL.to_owned());
        request.site.out_dir = copy.then(|| out.clone());
        let job = htmlabs::run::Job::Site(request.site(&root).unwrap());
        let summary = htmlabs::internal::run_heard(
            &request,
            job,
            &on,
            &std::sync::Arc::new(AtomicBool::new(false)),
        )
        .unwrap();
        assert_eq!(
            fs::read_to_string(outside.join("b.html")).unwrap(),
            "<a href=o>"
        );
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
        let failed = on.failed.into_inner().unwrap();
        if copy {
            assert_eq!(failed, Vec::<String>::new());
            assert_eq!(links(&out), Vec::<PathBuf>::new());
            assert_eq!(
                fs::read_to_string(out.join("sub/b.html")).unwrap(),
                "<a href=https://example.com/site/sub/y>"
            );
        } else {
            assert_eq!(
                failed,
                [format!(
                    "cannot write `{}`: `{}` is a symbolic link: not written through",
                    root.join("sub/b.html").display(),
                    root.join("sub").display()
                )]
            );
            assert_eq!(summary.failed, 1);
            assert_eq!(
                fs::read_to_string(dir.path().join("moved/b.html")).unwrap(),
                "<a href=y>"
            );
        }
        assert_eq!(
            fs::read_to_string(if copy {
                out.join("a.html")
            } else {
                root.join("a.html")
            })
            .unwrap(),
            "<a href=https://example.com/site/x>"
        );
    }
}

/// What a link planted in OUT points to.
#[derive(Debug, Clone, Copy)]
enum Planted {
    /// A file outside both trees.
    File,
    /// A directory outside both trees.
    Dir,
    /// Nothing: a name in the outside directory that does not exist.
    Dangling,
    /// A link outside that names the outside file.
    Chain,
    /// Itself.
    Loop,
    /// Another place in OUT.
    Inside,
}

/// Any links, anywhere in OUT where the copy of a small site puts a file
/// or a directory, whatever they point to: the run succeeds, nothing
/// outside both trees changes, and OUT comes out as a copy made afresh,
/// without a link left.
#[test]
fn any_links_planted_in_out_dir_are_never_written_through() {
    use proptest::prelude::*;
    use proptest::test_runner::{Config, TestRunner};
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    let files = [
        ("a.html", "<a href=a>"),
        ("d/b.html", "<a href=b>"),
        ("d/e/c.htm", "<img src=c>"),
        ("d/x.css", "p {}"),
        ("f.png", "png"),
        ("g/h.txt", "txt"),
    ];
    for (path, bytes) in files {
        fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
        fs::write(root.join(path), bytes).unwrap();
    }
    let fresh = dir.path().join("fresh");
    copy_site(&root, &fresh);
    let expected = snapshot(&fresh);
    // Every place the copy puts something, parents first.
    let places = [
        "a.html",
        "d",
        "d/b.html",
        "d/e",
        "d/e/c.htm",
        "d/x.css",
        "f.png",
        "g",
        "g/h.txt",
    ];
    let kind = prop_oneof![
        Just(None),
        Just(Some(Planted::File)),
        Just(Some(Planted::Dir)),
        Just(Some(Planted::Dangling)),
        Just(Some(Planted::Chain)),
        Just(Some(Planted::Loop)),
        Just(Some(Planted::Inside)),
    ];
    let mut runner = TestRunner::new(Config {
        cases: 48,
        failure_persistence: None,
        ..Config::default()
    });
    let case = std::cell::Cell::new(0);
    runner
        .run(&proptest::collection::vec(kind, places.len()), |planted| {
            case.set(case.get() + 1);
            let here = dir.path().join(format!("case{}", case.get()));
            let outside = here.join("outside");
            fs::create_dir_all(outside.join("dir")).unwrap();
            fs::write(outside.join("file.html"), "<a href=o>").unwrap();
            std::os::unix::fs::symlink(outside.join("file.html"), outside.join("chain")).unwrap();
            let out = here.join("out");
            fs::create_dir_all(&out).unwrap();
            for (place, planted) in places.iter().zip(&planted) {
                let at = out.join(place);
                // Under a link planted already, nothing more is planted.
                let parent = at.parent().unwrap();
                let under_a_link = parent
                    .ancestors()
                    .take_while(|a| *a != out)
                    .any(|a| fs::symlink_metadata(a).is_ok_and(|m| m.file_type().is_symlink()));
                if under_a_link {
                    continue;
                }
                fs::create_dir_all(parent).unwrap();
                let to = match planted {
                    None => continue,
                    Some(Planted::File) => outside.join("file.html"),
                    Some(Planted::Dir) => outside.join("dir"),
                    Some(Planted::Dangling) => outside.join("dir/nothing"),
                    Some(Planted::Chain) => outside.join("chain"),
                    Some(Planted::Loop) => at.clone(),
                    Some(Planted::Inside) => out.join("a.html"),
                };
                std::os::unix::fs::symlink(to, &at).unwrap();
            }
            let before = snapshot(&outside);
            copy_site(&root, &out);
            prop_assert_eq!(snapshot(&outside), before);
            prop_assert_eq!(fs::read_dir(outside.join("dir")).unwrap().count(), 0);
            prop_assert_eq!(links(&out), Vec::<PathBuf>::new());
            prop_assert_eq!(snapshot(&out), expected.clone());
            Ok(())
        })
        .unwrap();
}

#[test]
fn check_lists_each_change_and_exits_1_changing_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    make_site(root);
    let before = snapshot(root);
    let run = |jobs: &str| {
        htmlabs(&[
            "--site",
            root.to_str().unwrap(),
            "--site-url",
            URL,
            "--check",
            "--jobs",
            jobs,
        ])
    };
    let out = run("2");
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(snapshot(root), before);
    let lines = text(&out.stdout);
    let index = root.join("index.html").display().to_string();
    // In the order of the paths: absolute.html has nothing to change.
    assert!(
        lines.starts_with(&format!("{}:1:62: ", root.join("based.html").display())),
        "{lines}"
    );
    assert!(lines.contains(&format!("{index}:2:12: <link href> \"css/site.css\" -> \"https://example.com/site/css/site.css\"\n")), "{lines}");
    assert!(lines.contains(&format!("{index}:4:33: <img srcset> \"img/logo@2x.png\" -> \"https://example.com/site/img/logo@2x.png\"\n")), "{lines}");
    assert_eq!(
        out.stdout,
        run("1").stdout,
        "the same lines whatever the order of the work"
    );
    // Once rewritten, nothing would change.
    htmlabs(&["--site", root.to_str().unwrap(), "--site-url", URL]);
    let out = run("2");
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty());
    // One document too.
    let page = root.join("page.html");
    fs::write(&page, "<a href=x>\n <img src=y>").unwrap();
    let out = htmlabs(&["--check", "-r", "http://h/d/", page.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{p}:1:9: <a href> \"x\" -> \"http://h/d/x\"\n{p}:2:11: <img src> \"y\" -> \"http://h/d/y\"\n",
            p = page.display()
        )
    );
    assert_eq!(
        fs::read_to_string(&page).unwrap(),
        "<a href=x>\n <img src=y>"
    );
}

#[test]
fn each_report_line_names_a_value_where_it_stands() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("s");
    make_site(&root);
    let originals = snapshot(&root);
    let report = dir.path().join("links.jsonl");
    let out = htmlabs(&[
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        URL,
        "--report",
        report.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let report = fs::read_to_string(report).unwrap();
    let mut outcomes = BTreeMap::new();
    for line in report.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = PathBuf::from(v["file"].as_str().unwrap());
        let relative = file.strip_prefix(&root).unwrap();
        let bytes = &originals[relative];
        let offset = v["offset"].as_u64().unwrap() as usize;
        let original = v["original"].as_str().unwrap();
        let encoding = if relative == Path::new("latin1.html") {
            encoding_rs::WINDOWS_1252
        } else {
            encoding_rs::UTF_8
        };
        let (before, _, _) = encoding.decode(&bytes[..offset]);
        let (at, _, _) = encoding.decode(&bytes[offset..]);
        assert!(at.starts_with(original), "{line}");
        let line_no = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap().chars().count() + 1;
        assert_eq!(v["line"], line_no, "{line}");
        assert_eq!(v["column"], column, "{line}");
        *outcomes
            .entry(v["outcome"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    assert_eq!(outcomes["rewritten"], 19, "{report}");
    assert_eq!(outcomes["absolute"], 1);
    assert_eq!(outcomes["unchanged"], 1, "the <base href>");
}

#[test]
fn bad_values_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("s");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("a.html"), "<a href=x>").unwrap();
    let r = root.to_str().unwrap();
    let file = root.join("a.html");
    let copy = format!("{r}/copy");
    let cases: Vec<(Vec<&str>, String)> = vec![
        (vec!["--site", "/no/such/dir", "--site-url", URL], "htmlabs: error: --site: cannot open `/no/such/dir`: no such file or directory (os error 2)\n".into()),
        (vec!["--site", file.to_str().unwrap(), "--site-url", URL], format!("htmlabs: error: --site wants a directory: `{}` is not one\n", file.display())),
        (vec!["--site", r, "--site-url", "example.com/"], "htmlabs: error: --site-url must be an absolute URL, with a scheme: `example.com/` (did you mean `https://example.com/`?)\n".into()),
        (vec!["--site", r, "--site-url", "https://e/?q=1"], "htmlabs: error: --site-url must not hold a query or a fragment: `https://e/?q=1`\n".into()),
        (vec!["--site", r, "--site-url", "https://e/#top"], "htmlabs: error: --site-url must not hold a query or a fragment: `https://e/#top`\n".into()),
        (vec!["--site", r, "--site-url", URL, "--out-dir", &copy], format!("htmlabs: error: --out-dir `{r}/copy` is inside the site `{r}`: the copy would be rewritten again\n")),
        (vec!["--site", r, "--site-url", URL, "--exclude", "a[.html"], "htmlabs: error: --exclude is not a glob: `a[.html`: ".into()),
    ];
    for (args, message) in cases {
        let out = htmlabs(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).starts_with(&message),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            fs::read_to_string(root.join("a.html")).unwrap(),
            "<a href=x>"
        );
        assert!(!root.join("copy").exists());
    }
}

#[test]
fn excluded_files_are_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::create_dir_all(root.join("drafts")).unwrap();
    fs::write(root.join("a.html"), "<a href=x>").unwrap();
    fs::write(root.join("drafts/b.html"), "<a href=x>").unwrap();
    fs::write(root.join("c.htm"), "<a href=x>").unwrap();
    let out = htmlabs(&[
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        URL,
        "--exclude",
        "drafts/",
        "--exclude",
        "*.htm",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fs::read_to_string(root.join("drafts/b.html")).unwrap(),
        "<a href=x>"
    );
    assert_eq!(
        fs::read_to_string(root.join("c.htm")).unwrap(),
        "<a href=x>"
    );
    assert_eq!(
        fs::read_to_string(root.join("a.html")).unwrap(),
        "<a href=https://example.com/site/x>"
    );
}

/// Ctrl-C (SIGINT) or SIGTERM in the middle of a tree: the run stops
/// between files with 130 or 143, every file is either as it was or as the
/// run makes it, and no temporary file is left, whether output is staged
/// unnamed or named.
#[test]
fn an_interrupted_run_leaves_every_file_old_or_new() {
    let page = |i: usize| {
        format!(
            "<!doctype html><title>{i}</title>{}",
            (0..200)
                .map(|j| format!(
                    "<p><a href=\"../p{j}.html\">link {j}</a> <img src=img/{i}-{j}.png>\n"
                ))
                .collect::<String>()
        )
    };
    let count = 800;
    let relative = |i: usize| format!("d{}/p{i}.html", i % 30);
    let rewritten: Vec<Vec<u8>> = (0..count)
        .map(|i| {
            let url = htmlabs::internal::site::retrieval_url(URL, Path::new(&relative(i)), true);
            let layers = htmlabs::Layers::default()
                .with_retrieval(htmlabs::Standard::Rfc1808, &url, "-r")
                .unwrap();
            htmlabs::rewrite_bytes(
                htmlabs::Type::Html,
                htmlabs::Config::default(),
                layers,
                page(i).as_bytes(),
            )
            .unwrap()
            .0
        })
        .collect();
    for (signal, code, named) in [(libc::SIGINT, 130, false), (libc::SIGTERM, 143, true)] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for i in 0..count {
            fs::create_dir_all(root.join(format!("d{}", i % 30))).unwrap();
            fs::write(root.join(relative(i)), page(i)).unwrap();
        }
        let mut command = Command::new(BIN);
        command
            .args([
                "--site",
                root.to_str().unwrap(),
                "--site-url",
                URL,
                "--jobs",
                "2",
            ])
            .stderr(std::process::Stdio::piped());
        if named {
            command.env("HTMLABS_NAMED_STAGING", "1");
        }
        let child = command.spawn().unwrap();
        // Once some files are written, not all.
        let written = |i: usize| {
            fs::read_to_string(root.join(relative(i))).is_ok_and(|t| t.contains("https://"))
        };
        while !(0..count).any(written) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "signal {signal}: {stderr}");
        assert!(stderr.contains("; interrupted;"), "{stderr}");
        let (mut old, mut new) = (0, 0);
        for (i, rewritten) in rewritten.iter().enumerate() {
            let now = fs::read(root.join(relative(i))).unwrap();
            if now == page(i).as_bytes() {
                old += 1;
            } else {
                assert_eq!(
                    text(&now),
                    text(rewritten),
                    "{} is neither old nor new",
                    relative(i)
                );
                new += 1;
            }
        }
        assert!(
            old > 0 && new > 0,
            "{old} old, {new} new: not interrupted mid-tree"
        );
        let leftovers: Vec<_> = snapshot(root)
            .into_keys()
            .filter(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(".htmlabs-")
            })
            .collect();
        assert!(leftovers.is_empty(), "signal {signal}: {leftovers:?}");
    }
}

/// An instruction with a `>` in it ends there to HTML, at its `?>` to
/// XML, which a browser given an `.xhtml` file reads: the page engine would
/// not see the stylesheet's link, and would read the rest of the
/// instruction as text. The file is left as it is, with a warning, and the
/// next file is rewritten.
#[test]
fn xhtml_with_an_instruction_that_html_ends_early_is_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    fs::create_dir_all(&root).unwrap();
    let xhtml = b"<?xml version=\"1.0\"?>\n<?xml-stylesheet type=\"text/css\" href=\"s>t.css\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><a href=\"x.html\">x</a></body></html>";
    fs::write(root.join("app.xhtml"), xhtml).unwrap();
    fs::write(root.join("b.html"), "<a href=\"x.html\">x</a>").unwrap();
    let out = htmlabs(&["--site", root.to_str().unwrap(), "--site-url", URL]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(fs::read(root.join("app.xhtml")).unwrap(), xhtml);
    assert_eq!(
        fs::read_to_string(root.join("b.html")).unwrap(),
        format!("<a href=\"{URL}x.html\">x</a>")
    );
    assert!(
        stderr.contains(&format!(
            "htmlabs: warning: {}: the processing instruction at byte 22 holds a `>` before its end: HTML ends it there, XML does not, and would read the rest otherwise: the file is left as it is",
            root.join("app.xhtml").display()
        )),
        "{stderr}"
    );
    // A check cannot pass it: its links are not read as a browser reads
    // them. It fails, exit status 2; the other page is checked.
    let out = htmlabs(&[
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        URL,
        "--check-links",
    ]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "htmlabs: error: `{}`: not checked: the processing instruction at byte 22 holds a `>`",
            root.join("app.xhtml").display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 link to the site's files checked: 0 found, 1 broken;")
            && stderr.contains("1 failed;"),
        "{stderr}"
    );
}

#[test]
fn xhtml_that_an_html_parser_reads_otherwise_is_left_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("public");
    fs::create_dir_all(&root).unwrap();
    // In XML the script ends where it stands; in HTML the rest of the file
    // would be its text, and the link after it would be left half-done.
    let xhtml = b"<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><script src=\"a.js\"/><link href=\"s.css\"/></head></html>";
    fs::write(root.join("app.xhtml"), xhtml).unwrap();
    let out = htmlabs(&["--site", root.to_str().unwrap(), "--site-url", URL]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(fs::read(root.join("app.xhtml")).unwrap(), xhtml);
    assert!(
        stderr.contains(&format!(
            "htmlabs: warning: {}: the self-closed `<script/>` at byte 49 ends there in XHTML, not in HTML",
            root.join("app.xhtml").display()
        )),
        "{stderr}"
    );
    assert!(
        stderr.contains("1 HTML file: 0 rewritten, 1 unchanged, 0 failed;"),
        "{stderr}"
    );
    // Into a copy, it is copied as it is.
    let copy = dir.path().join("copy");
    let out = htmlabs(&[
        "--site",
        root.to_str().unwrap(),
        "--site-url",
        URL,
        "--out-dir",
        copy.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(fs::read(copy.join("app.xhtml")).unwrap(), xhtml);
}

/// `htmlabs ARGS` run in `dir`, so that paths and messages are short and
/// the same on every machine.
fn htmlabs_in(dir: &Path, args: &[&std::ffi::OsStr]) -> Output {
    Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap()
}

fn os(args: &[&str]) -> Vec<std::ffi::OsString> {
    args.iter().map(Into::into).collect()
}

/// Every directory of `root` (links not followed), by its path under it.
fn directories(root: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![root.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if fs::symlink_metadata(&path).unwrap().is_dir() {
                found.push(path.strip_prefix(root).unwrap().to_path_buf());
                dirs.push(path);
            }
        }
    }
    found.sort();
    found
}

/// `ov/a` whose copy into `ov` would put the copy of `ov/a/a/*` over
/// `ov/a/*`, non-HTML files included; `alias` is a symbolic link to `ov`.
fn overlapping_tree(top: &Path) {
    fs::create_dir_all(top.join("ov/a/a")).unwrap();
    fs::create_dir_all(top.join("ov/b")).unwrap();
    fs::write(top.join("ov/a/index.html"), "<a href=x>").unwrap();
    fs::write(top.join("ov/a/logo.png"), "the site's logo").unwrap();
    fs::write(top.join("ov/a/a/index.html"), "<a href=y>").unwrap();
    fs::write(top.join("ov/a/a/logo.png"), "another logo").unwrap();
    std::os::unix::fs::symlink("ov", top.join("alias")).unwrap();
}

const HOLDS: &str = "htmlabs: error: --out-dir `{out}` holds the site `{site}`: the copy would be written over it\n";
const IS: &str = "htmlabs: error: --out-dir `{out}` is the site `{site}`: the copy would be written over it (to rewrite in place, give no --out-dir)\n";
const INSIDE: &str = "htmlabs: error: --out-dir `{out}` is inside the site `{site}`: the copy would be rewritten again\n";
const UNKNOWN: &str = "htmlabs: error: --out-dir `{out}`: cannot tell whether it overlaps the site `{site}`: not a directory (os error 20)\n";

/// Runs `--site SITE --out-dir OUT` in `top` and asserts it is refused with
/// `message` (its `{out}` and `{site}` filled in), nothing written.
fn refused_overlap(
    top: &Path,
    site: &str,
    out: &str,
    message: &str,
    run: impl Fn(&[&str]) -> Output,
) {
    let files = snapshot(top);
    let dirs = directories(top);
    let args = ["--site", site, "--site-url", URL, "--out-dir", out];
    let output = run(&args);
    let expected = message.replace("{out}", out).replace("{site}", site);
    assert_eq!(text(&output.stderr), expected, "{args:?}");
    assert_eq!(output.status.code(), Some(2), "{args:?}");
    assert!(output.stdout.is_empty());
    assert_eq!(snapshot(top), files, "{args:?}: a file was written");
    assert_eq!(directories(top), dirs, "{args:?}: a directory was made");
}

/// Fault 1 of issue 30: `--site ov/a --out-dir ov` wrote the copy of
/// `ov/a/a/*` over `ov/a/*`. The two trees may not overlap in any
/// direction, however the paths reach them (`..`, a symbolic link, a
/// directory yet to be made).
#[test]
fn out_dir_and_site_that_overlap_are_refused_however_they_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    overlapping_tree(top);
    let run = |args: &[&str]| {
        htmlabs_in(
            top,
            &os(args).iter().map(|a| a.as_os_str()).collect::<Vec<_>>(),
        )
    };
    let cases = [
        ("ov/a", "ov", HOLDS),
        ("ov/a", "ov/", HOLDS),
        ("ov/a", ".", HOLDS),
        ("ov/a", "ov/a/..", HOLDS),
        ("ov/a", "ov/b/..", HOLDS),
        ("ov/a", "ov/a/new/../..", HOLDS),
        ("ov/a", "alias", HOLDS),
        ("alias/a", "ov", HOLDS),
        ("ov/a/a", "alias/a", HOLDS),
        ("ov/a", "ov/a", IS),
        ("ov/a", "ov/./a/", IS),
        ("ov/a", "alias/a", IS),
        ("ov/a/a/..", "ov/a", IS),
        ("ov/a", "ov/a/new", INSIDE),
        ("ov/a", "ov/a/new/deeper/../x", INSIDE),
        ("ov/a", "ov/b/../a/new", INSIDE),
        ("ov/a", "alias/a/a", INSIDE),
        ("alias/a", "ov/a/a", INSIDE),
        // Where the path cannot be followed, it is not known to be apart.
        ("ov/a", "ov/a/logo.png/x", UNKNOWN),
    ];
    for (site, out, message) in cases {
        refused_overlap(top, site, out, message, run);
    }
    // Beside the site, and a name that only starts like it: written.
    for out in ["ov/b/copy", "ov/a-copy"] {
        let output = run(&["--site", "ov/a", "--site-url", URL, "--out-dir", out]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert_eq!(
            fs::read_to_string(top.join(out).join("index.html")).unwrap(),
            "<a href=https://example.com/site/x>"
        );
        assert_eq!(
            fs::read_to_string(top.join("ov/a/logo.png")).unwrap(),
            "the site's logo"
        );
    }
}

/// The same directory by another mount (`mount --bind`): its path says
/// nothing, its device and inode do. Run in a mount namespace of its own
/// (`unshare -rm`), where it can be made without privileges; skipped with a
/// note where the system allows none.
#[test]
fn out_dir_and_site_that_overlap_through_a_bind_mount_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    overlapping_tree(top);
    fs::create_dir(top.join("mounted")).unwrap();
    let namespace = Command::new("unshare").args(["-rm", "true"]).output();
    if !namespace.is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "`unshare -rm` cannot make a mount namespace, and CI must run this test"
        );
        common::skipped("bind mounts skipped: `unshare -rm` cannot make a mount namespace here");
        return;
    }
    let run = |args: &[&str]| {
        Command::new("unshare")
            .current_dir(top)
            .args([
                "-rm",
                "sh",
                "-c",
                "mount --bind ov mounted && exec \"$0\" \"$@\"",
                BIN,
            ])
            .args(args)
            .output()
            .unwrap()
    };
    for (site, out, message) in [
        ("ov/a", "mounted", HOLDS),
        ("mounted/a", "ov", HOLDS),
        ("mounted/a", "ov/a", IS),
        ("ov/a", "mounted/a/new", INSIDE),
        ("mounted/a", "ov/a/a", INSIDE),
    ] {
        refused_overlap(top, site, out, message, run);
    }
}

/// Fault 8 of issue 30: with `--follow-links`, a link loop and a link to
/// nothing were told as errors, yet the summary said `0 failed` and the
/// exit status was 0. An error told is an error counted.
#[test]
fn with_follow_links_a_link_loop_and_a_link_to_nothing_fail_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    fs::create_dir_all(top.join("s/sub")).unwrap();
    fs::write(top.join("s/a.html"), "<a href=x>").unwrap();
    std::os::unix::fs::symlink("../sub", top.join("s/sub/loop")).unwrap();
    std::os::unix::fs::symlink("nowhere.html", top.join("s/dangling.html")).unwrap();
    let errors = [
        "htmlabs: error: cannot read `s/dangling.html`: no such file or directory (os error 2)",
        "htmlabs: error: cannot read `s/sub/loop`: a file system loop: it leads back to `s/sub`",
    ];
    for (flags, code, summary) in [
        (
            &[][..],
            2,
            "htmlabs: 1 HTML file: 1 rewritten, 0 unchanged, 0 failed; 1 URL rewritten; 0 warnings; 2 other errors; ",
        ),
        (
            &["--check"],
            2,
            "htmlabs: 1 HTML file: 0 would change, 1 unchanged, 0 failed; 0 URLs would change; 0 warnings; 2 other errors; ",
        ),
        (
            &["--out-dir", "copy"],
            2,
            "htmlabs: 1 HTML file: 0 rewritten, 1 unchanged, 0 failed; 0 URLs rewritten; 0 warnings; other files: 0 hard-linked, 0 copied; 2 other errors; ",
        ),
    ] {
        let mut args = vec!["--site", "s", "--site-url", URL, "--follow-links"];
        args.extend_from_slice(flags);
        let args = os(&args);
        let out = htmlabs_in(top, &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{flags:?}: {stderr}");
        let mut lines: Vec<&str> = stderr.lines().collect();
        let last = lines.pop().unwrap();
        assert!(last.starts_with(summary), "{flags:?}: {stderr}");
        lines.sort();
        assert_eq!(lines, errors, "{flags:?}");
    }
}

/// What a run passes over is said and counted, never skipped in silence:
/// with `--follow-links`, a page reached through a link that lies outside
/// the site is not written in place (it was a `-v` note, uncounted); a FIFO
/// is never opened, so it is left out of `--out-dir` and, named like a
/// page, left as it is in place (both were skipped without a word). A
/// warning each, naming it, and a count in the summary; nothing fails.
#[test]
fn files_passed_over_are_each_said_and_counted() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    fs::create_dir_all(top.join("s")).unwrap();
    fs::create_dir_all(top.join("ext")).unwrap();
    fs::write(top.join("s/a.html"), "<a href=x>").unwrap();
    fs::write(top.join("ext/e.html"), "<a href=e>").unwrap();
    std::os::unix::fs::symlink("../ext", top.join("s/ext")).unwrap();
    for fifo in ["s/pipe", "s/pipe.html"] {
        let made = Command::new("mkfifo").arg(top.join(fifo)).status().unwrap();
        assert!(made.success());
    }
    let site = ["--site", "s", "--site-url", URL];
    for (flags, said) in [
        (
            &["--follow-links"][..],
            "htmlabs: warning: s/ext/e.html: it lies outside the site (reached through a link): not written in place\n\
             htmlabs: warning: s/pipe.html: not a regular file (a FIFO): left as it is\n\
             htmlabs: 1 HTML file: 1 rewritten, 0 unchanged, 0 failed; 1 URL rewritten; 2 warnings; \
             1 file outside the site not written; 1 non-regular file left as it is; ",
        ),
        (
            &["--out-dir", "copy"],
            "htmlabs: warning: s/pipe: not a regular file (a FIFO): left out of --out-dir\n\
             htmlabs: warning: s/pipe.html: not a regular file (a FIFO): left out of --out-dir\n\
             htmlabs: 1 HTML file: 0 rewritten, 1 unchanged, 0 failed; 0 URLs rewritten; 2 warnings; \
             other files: 0 hard-linked, 1 copied; 2 non-regular files left out; ",
        ),
    ] {
        let args = os(&[&site[..], flags].concat());
        let out = htmlabs_in(top, &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{flags:?}: {stderr}");
        assert!(stderr.starts_with(said), "{flags:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 3, "{flags:?}: {stderr}");
    }
    assert_eq!(
        fs::read_to_string(top.join("ext/e.html")).unwrap(),
        "<a href=e>"
    );
    let mut copied: Vec<_> = fs::read_dir(top.join("copy"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    copied.sort();
    assert_eq!(copied, ["a.html", "ext"]);
}

/// A file that cannot be put into `--out-dir` (a directory stands where it
/// goes) is told, counted, and fails the run.
#[test]
fn a_file_that_cannot_be_copied_into_out_dir_fails_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    fs::create_dir_all(top.join("s")).unwrap();
    fs::create_dir_all(top.join("copy/logo.png")).unwrap();
    fs::write(top.join("s/a.html"), "<a href=x>").unwrap();
    fs::write(top.join("s/logo.png"), "png").unwrap();
    fs::write(top.join("s/style.css"), "css").unwrap();
    let args = os(&["--site", "s", "--site-url", URL, "--out-dir", "copy"]);
    let out = htmlabs_in(top, &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(
        lines[0].starts_with("htmlabs: error: cannot write `copy/logo.png`: "),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with("htmlabs: 2 documents (1 HTML, 1 CSS, 0 XML): 1 rewritten, 1 unchanged, 0 failed; 1 URL rewritten; 0 warnings; other files: 0 hard-linked, 0 copied; 1 other error; "),
        "{stderr}"
    );
}

/// Names with a line break, a tab, an escape, a quote, a backslash, a byte
/// that is not UTF-8: made in `dir`, each holding `bytes`.
#[cfg(unix)]
fn odd_names(dir: &Path, bytes: &[u8]) -> Vec<PathBuf> {
    use std::os::unix::ffi::OsStrExt;
    fs::create_dir_all(dir).unwrap();
    let names: [&[u8]; 7] = [
        b"a\nb.html",
        b"back\\slash.html",
        b"e\x1b[2Kx.html",
        b"plain.html",
        b"q\"uote.html",
        b"tab\there.html",
        b"\xff.html",
    ];
    names
        .iter()
        .map(|name| {
            let path = dir.join(std::ffi::OsStr::from_bytes(name));
            fs::write(&path, bytes).unwrap();
            path
        })
        .collect()
}

/// How the odd names are shown in a line, under `s/` (C-style, as
/// `ls --quoting-style=c` and git do; a plain name as it is).
const SHOWN: [&str; 7] = [
    r#""s/a\nb.html""#,
    r#""s/back\\slash.html""#,
    r#""s/e\033[2Kx.html""#,
    "s/plain.html",
    r#""s/q\"uote.html""#,
    r#""s/tab\there.html""#,
    r#""s/\377.html""#,
];

/// `%XX` undone.
fn percent_decoded(s: &str) -> Vec<u8> {
    let bytes = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

/// Fault 9 of issue 30: a name holding a line break split a check line or
/// an error line, so that a crafted name could forge a finding or a
/// summary in a CI log. Such names are quoted, one way, in every line; the
/// report keeps every name exactly.
#[cfg(unix)]
#[test]
fn odd_file_names_are_quoted_in_every_line_and_kept_exactly_in_the_report() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    let paths = odd_names(&top.join("s"), b"<a href=x>");
    let args = os(&[
        "--site",
        "s",
        "--site-url",
        URL,
        "--check",
        "--report",
        "links.jsonl",
    ]);
    let out = htmlabs_in(top, &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let expected: String = SHOWN
        .iter()
        .map(|name| format!("{name}:1:9: <a href> \"x\" -> \"https://example.com/site/x\"\n"))
        .collect();
    assert_eq!(text(&out.stdout), expected);
    // The report: each name back exactly, from `file`, or from `file_raw`
    // where it is not UTF-8.
    let report = fs::read_to_string(top.join("links.jsonl")).unwrap();
    let mut names = Vec::new();
    for line in report.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let file = v["file"].as_str().unwrap();
        let name = match v.get("file_raw") {
            Some(raw) => {
                assert_eq!(
                    file,
                    String::from_utf8_lossy(&percent_decoded(raw.as_str().unwrap()))
                );
                percent_decoded(raw.as_str().unwrap())
            }
            None => file.as_bytes().to_vec(),
        };
        names.push(name);
    }
    let made: Vec<Vec<u8>> = paths
        .iter()
        .map(|p| p.strip_prefix(top).unwrap().as_os_str().as_bytes().to_vec())
        .collect();
    assert_eq!(names, made, "{report}");
    assert_eq!(
        report
            .lines()
            .filter(|l| l.contains("\"file_raw\""))
            .count(),
        1,
        "only the name that is not UTF-8 has `file_raw`: {report}"
    );
}

/// The same names in error, warning and `-v` lines.
#[cfg(unix)]
#[test]
fn odd_file_names_are_quoted_in_errors_warnings_and_notes() {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    // UTF-16 with an unpaired surrogate: each file fails.
    odd_names(&top.join("s"), b"\xff\xfe<\x00a\x00\x00\xd8");
    let args = os(&["--site", "s", "--site-url", URL]);
    let out = htmlabs_in(top, &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let mut lines: Vec<&str> = stderr.lines().collect();
    let summary = lines.pop().unwrap();
    assert!(
        summary.starts_with("htmlabs: 7 HTML files: 0 rewritten, 0 unchanged, 7 failed;"),
        "{stderr}"
    );
    lines.sort();
    let mut expected: Vec<String> = SHOWN
        .iter()
        .flat_map(|name| [
            format!("htmlabs: error: `{name}`: left as it was: it is not valid in its encoding (an unpaired surrogate or a lone byte)"),
            format!("htmlabs: warning: {name}: not valid `UTF-16LE` at byte 6 (an unpaired surrogate or a lone byte): rewriting stopped there, the rest is copied unchanged"),
        ])
        .collect();
    expected.sort();
    assert_eq!(lines, expected);
    // A warning, and a note of -v.
    fs::create_dir(top.join("w")).unwrap();
    fs::write(
        top.join("w/x\ny.xhtml"),
        "<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><script src=\"a.js\"/></head></html>",
    )
    .unwrap();
    std::os::unix::fs::symlink("x\ny.xhtml", top.join("w/l\tk.html")).unwrap();
    let args = os(&["--site", "w", "--site-url", URL, "-v"]);
    let out = htmlabs_in(top, &args.iter().map(|a| a.as_os_str()).collect::<Vec<_>>());
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 3, "{stderr}");
    assert_eq!(
        lines[0],
        r#"htmlabs: "w/l\tk.html": a symbolic link: not followed (--follow-links)"#
    );
    assert_eq!(
        lines[1],
        r#"htmlabs: warning: "w/x\ny.xhtml": the self-closed `<script/>` at byte 49 ends there in XHTML, not in HTML, where the rest would be its text: the file is left as it is"#
    );
    assert!(lines[2].starts_with("htmlabs: 1 HTML file: 0 rewritten, 1 unchanged, 0 failed;"));
}

/// A file left as it was (a feed that is not well-formed, a page past the
/// memory limit) has no `rewritten` line: its report lines said
/// `rewritten` with an absolute URL that no file holds, and its check
/// lines named changes that would not be made. Its values that would have
/// been rewritten are `left`; the run fails (exit 2) and its report is
/// written whole all the same, every line true (docs/sites.md).
#[test]
fn a_file_left_as_it_was_has_no_rewritten_lines_and_its_failed_run_a_true_report() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("s");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join("a.html"), "<a href=x>").unwrap();
    let feed = "<rss><channel><link>a.html</link><item></channel></rss>";
    fs::write(root.join("feed.rss"), feed).unwrap();
    let big = format!("<a href=z><a href=http://o/>{}", "<div>".repeat(200_000));
    fs::write(root.join("big.html"), &big).unwrap();
    let before = snapshot(&root);
    let site = ["--site", root.to_str().unwrap(), "--site-url", URL];
    let limit = ["--max-memory", "500000"];
    // The check first: the run writes `a.html`.
    for check in [true, false] {
        let report = dir.path().join(format!("links-{check}.jsonl"));
        let mut args = [
            &site[..],
            &limit[..],
            &["--report", report.to_str().unwrap()],
        ]
        .concat();
        if check {
            args.push("--check");
        }
        let out = htmlabs(&args);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(
            stderr.contains("3 HTML files") || stderr.contains("3 documents"),
            "{stderr}"
        );
        let report = fs::read_to_string(&report).expect("a failed run's report is written");
        let mut lines = BTreeMap::new();
        for line in report.lines() {
            let v: Value = serde_json::from_str(line).unwrap();
            let file = PathBuf::from(v["file"].as_str().unwrap());
            let name = file.file_name().unwrap().to_string_lossy().into_owned();
            let said = format!(
                "{} {} {}",
                v["original"].as_str().unwrap(),
                v["outcome"].as_str().unwrap(),
                v["absolute"]
            );
            lines.entry(name).or_insert_with(Vec::new).push(said);
        }
        assert_eq!(
            lines,
            BTreeMap::from([
                ("a.html".to_owned(), vec![format!("x rewritten \"{URL}x\"")]),
                (
                    "big.html".to_owned(),
                    vec![
                        format!("z left \"{URL}z\""),
                        "http://o/ absolute \"http://o/\"".to_owned()
                    ]
                ),
                (
                    "feed.rss".to_owned(),
                    vec![format!("a.html left \"{URL}a.html\"")]
                ),
            ]),
            "check: {check}: {report}"
        );
        // Check lines name only what would change.
        let check_lines: Vec<String> = text(&out.stdout).lines().map(String::from).collect();
        if check {
            assert_eq!(
                check_lines,
                [format!(
                    "{}:1:9: <a href> \"x\" -> \"{URL}x\"",
                    root.join("a.html").display()
                )]
            );
        } else {
            assert_eq!(check_lines, Vec::<String>::new());
        }
    }
    let after = snapshot(&root);
    for name in ["feed.rss", "big.html"] {
        assert_eq!(after[Path::new(name)], before[Path::new(name)], "{name}");
    }
}

/// A page wget saved for a URL with a query (`page.php?id=1.html`, with
/// `--adjust-extension`) is read at that URL: its `?id=2` is page 2 of
/// the site, as it was there (not `page.php%3Fid=1.html?id=2`).
#[test]
fn a_page_saved_for_a_query_is_read_at_its_url() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("mirror");
    fs::create_dir_all(&site).unwrap();
    fs::write(
        site.join("page.php?id=1.html"),
        "<a href=\"?id=2\">next</a> <a href=\"other.php\">other</a>",
    )
    .unwrap();
    let out = dir.path().join("out");
    let run = Command::new(BIN)
        .args(["-q", "--site-url", "https://example.com/", "--out-dir"])
        .arg(&out)
        .arg("--site")
        .arg(&site)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert_eq!(
        fs::read_to_string(out.join("page.php?id=1.html")).unwrap(),
        "<a href=\"https://example.com/page.php?id=2\">next</a> <a href=\"https://example.com/other.php\">other</a>"
    );
}
