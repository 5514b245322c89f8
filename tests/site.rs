//! `--site`: a whole tree, each file at the URL a server gives it, in
//! parallel, safely; `--check` and `--report` over it. Every file's output
//! is judged by the single-document filter run on it with its URL.

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
/// its HTML files that can be rewritten.
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
    ];
    pages
        .into_iter()
        .map(|(p, u)| (PathBuf::from(p), u.to_owned()))
        .collect()
}

/// What the single-document filter makes of `file` retrieved from `url`.
fn filtered(file: &Path, url: &str) -> Vec<u8> {
    let out = Command::new(BIN)
        .args(["-q", "-r", url])
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
        text(&out.stderr)
            .starts_with("htmlabs: 11 HTML files: 10 rewritten, 1 unchanged, 0 failed;"),
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
    assert!(text(&again.stderr).contains(": 0 rewritten, 11 unchanged, 0 failed;"));
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

/// A file longer than half of `--max-memory` is not read whole: it streams
/// from its file, its output spills to a temporary file, and it comes out
/// as one read whole does; one whose output is its input is not touched.
#[test]
fn a_file_longer_than_half_the_memory_limit_streams_and_comes_out_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let lorem = "<p>lorem ipsum dolor sit amet</p>\n".repeat(100);
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
    let out = htmlabs(&["--site", site, "--site-url", URL, "--max-memory", "4096"]);
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
    // UTF-16 with an unpaired surrogate: refused rather than changed.
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
            "htmlabs: error: cannot rewrite `{}`: not valid `UTF-16LE`",
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
        stderr.contains("other files: 2 hard-linked, 0 copied"),
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
        inode(&root.join("css/site.css")),
        inode(&out.join("css/site.css")),
        "hard-linked"
    );
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
    assert_eq!(outcomes["rewritten"], 18, "{report}");
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
        (vec!["--site", r, "--site-url", "example.com/"], "htmlabs: error: --site-url must be an absolute URL, with a scheme: `example.com/`\n".into()),
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

/// Ctrl-C in the middle of a tree: every file is either as it was or as the
/// run makes it, and no temporary file is left.
#[test]
fn an_interrupted_run_leaves_every_file_old_or_new() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
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
    for i in 0..count {
        let dir = root.join(format!("d{}", i % 30));
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(format!("p{i}.html")), page(i)).unwrap();
    }
    let child = Command::new(BIN)
        .args([
            "--site",
            root.to_str().unwrap(),
            "--site-url",
            URL,
            "--jobs",
            "2",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Once some files are written, not all.
    let written = |i: usize| {
        fs::read_to_string(root.join(format!("d{}/p{i}.html", i % 30)))
            .is_ok_and(|t| t.contains("https://"))
    };
    while !(0..count).any(written) {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("; interrupted;"), "{stderr}");
    let (mut old, mut new) = (0, 0);
    for i in 0..count {
        let relative = format!("d{}/p{i}.html", i % 30);
        let now = fs::read(root.join(&relative)).unwrap();
        let url = htmlabs::site::retrieval_url(URL, Path::new(&relative), true);
        let config = htmlabs::Config {
            layers: htmlabs::Layers::default()
                .with_retrieval(htmlabs::Standard::Rfc1808, &url, "-r")
                .unwrap(),
            ..htmlabs::Config::default()
        };
        let (rewritten, _) = htmlabs::rewrite_bytes(config, page(i).as_bytes()).unwrap();
        if now == page(i).as_bytes() {
            old += 1;
        } else {
            assert_eq!(
                text(&now),
                text(&rewritten),
                "{relative} is neither old nor new"
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
    assert!(leftovers.is_empty(), "{leftovers:?}");
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
        stderr.contains("1 HTML files: 0 rewritten, 1 unchanged, 0 failed;"),
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
