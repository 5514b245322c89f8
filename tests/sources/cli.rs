//! The command line as users meet it: exit statuses, the exact text of
//! errors, warnings and `-v`, `-o`'s temporary file, standard input, and a
//! reader that goes away.
//!
//! Messages are snapshotted as literals: their wording is part of the
//! interface (DESIGN.md, "Error text is part of the interface").

use crate::common;

use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// The binary, with colours off whatever the environment says, so that
/// clap's messages are plain text.
fn htmlabs() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("CLICOLOR_FORCE").env("NO_COLOR", "1");
    cmd
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("UTF-8 output")
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

const PAGE: &str =
    "<head><link href=s.css></head>\n<a href=\"x?a=1&amp;b=2\">x</a> <img src='/i.png'>\n";
const PAGE_OUT: &str = "<head><link href=http://h/d/s.css></head>\n<a href=\"http://h/d/x?a=1&amp;b=2\">x</a> <img src='http://h/i.png'>\n";
const NO_BASE: &str = "htmlabs: warning: no base URL (no `<base href>`, no --retrieved-from): the output is the input, unchanged\n";

// ---------------------------------------------------------------- errors

#[cfg(unix)]
#[test]
fn missing_input_file_is_named_in_backticks() {
    let dir = tempfile::tempdir().unwrap();
    let out = htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/", "no-such-page.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: cannot open `no-such-page.html`: no such file or directory (os error 2)\n"
    );
}

#[test]
fn relative_retrieved_from_is_refused_with_its_value() {
    let out = htmlabs()
        .args(["-r", "docs/page.html"])
        .write_stdin(PAGE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "", "nothing is written on an error");
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: --retrieved-from must be an absolute URL, with a scheme: `docs/page.html`\n"
    );
}

#[test]
fn retrieved_from_with_a_newline_is_refused_on_one_line() {
    let out = htmlabs()
        .args(["-r", "http://h/a\nb"])
        .write_stdin(PAGE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    // The newline is shown escaped, so the message stays one line.
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: --retrieved-from holds a control character: `\"http://h/a\\nb\"`\n"
    );
}

/// Every error is one line, clap's too (issue 38, part 8): what is wrong,
/// the value the user gave in backticks, clap's "did you mean" kept as a
/// hint on the same line, and never a usage block.
#[test]
fn usage_errors_are_one_line_naming_the_value() {
    for (args, line) in [
        (
            &["--retreived-from", "http://h/"][..],
            "unknown flag `--retreived-from` (did you mean `--retrieved-from`?)",
        ),
        (&["--bogus"], "unknown flag `--bogus`; see htmlabs --help"),
        (&["-x"], "unknown flag `-x`; see htmlabs --help"),
        (
            &["--bogus\x1b[2K\n"],
            "unknown flag `\"--bogus\\033[2K\\n\"`; see htmlabs --help",
        ),
        (&["-r"], "--retrieved-from needs a value (URL)"),
        (&["--type"], "--type needs a value (`html`, `css` or `xml`)"),
        (
            &["--standard", "whatwg"],
            "invalid value `whatwg` for --standard: it takes `rfc1808` or `rfc3986`",
        ),
        (
            &["--standard", "rfc2396"],
            "invalid value `rfc2396` for --standard: it takes `rfc1808` or `rfc3986` (did you mean `rfc3986`?)",
        ),
        (
            &["--max-lookahead", "lots"],
            "invalid value `lots` for --max-lookahead: not a size (a number of bytes, or a number and a unit: 64M, 1G, 500KB)",
        ),
        (
            &["--max-lookahead", "0"],
            "invalid value `0` for --max-lookahead: a size is at least 1 byte",
        ),
        (
            &["--max-memory", "99999999999T"],
            "invalid value `99999999999T` for --max-memory: more bytes than this machine can hold",
        ),
        (
            &["--warc", "--gzip-level", "10"],
            "invalid value `10` for --gzip-level: not a whole number from 1 to 9",
        ),
        (
            &["--warc", "--zstd-level", "0"],
            "invalid value `0` for --zstd-level: not a whole number from 1 to 19",
        ),
        (
            &["--warc", "--jobs", "0"],
            "invalid value `0` for --jobs: not a whole number from 1 to 65535",
        ),
        (&["-v", "-q"], "--verbose cannot be used with --quiet"),
        (&["--warc", "--http"], "--warc cannot be used with --http"),
        (
            &["-o", "a.html", "-o", "b.html"],
            "--output is given twice: it takes one FILE",
        ),
        (&["--http=yes"], "--http takes no value: `yes`"),
        (
            &["--generate", "man", "-q"],
            "--generate cannot be used with the other flags given",
        ),
        (
            &["--site", "s"],
            "--site needs --site-url URL: the URL the site's root is served at",
        ),
    ] {
        let out = htmlabs().args(args).write_stdin(PAGE).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
        assert_eq!(
            text(&out.stderr),
            format!("htmlabs: error: {line}\n"),
            "{args:?}"
        );
    }
}

/// The common mistakes of a first hour (issue 38, part 8), each refused on
/// its one line with what to do instead: two files or a directory for
/// FILE, flags of a mode beside another, `--links` with `-o`, a URL
/// without its scheme, `--http` on a page.
#[test]
fn a_common_mistake_is_told_what_to_give_instead() {
    for (args, line) in [
        (
            &["a.html", "b.html"][..],
            "unexpected argument `b.html`: htmlabs reads one FILE; for the pages of a directory, give --site DIR --site-url URL",
        ),
        (
            &["--warc", "--links", "-o", "links.jsonl"],
            "--links writes no archive, only the link report (to standard output): give --report FILE to put it in a file, not -o",
        ),
        (
            &["--warc", "-o", "links.jsonl", "--links"],
            "--links writes no archive, only the link report (to standard output): give --report FILE to put it in a file, not -o",
        ),
        (
            &["--check", "-o", "out.html"],
            "--check changes nothing and writes no document, only its lines (to standard output): -o would do nothing",
        ),
        (
            &["--site", "s", "--site-url", "http://h/", "page.html"],
            "--site reads every page under its DIR: give no FILE beside it",
        ),
        (
            &["--site", "s", "--site-url", "http://h/", "-r", "http://h/"],
            "--site cannot be used with --retrieved-from: each file's URL follows from --site-url and its path",
        ),
        (
            &["--site", "s", "--site-url", "http://h/", "-o", "out"],
            "--site writes each file in place, or into --out-dir OUT: not to -o",
        ),
        // Before anything is read: a directory, a URL without its scheme.
        (
            &["-r", "http://h/", "s"],
            "`s` is a directory, and FILE is one document: for the pages under it, give --site `s` --site-url URL",
        ),
        (
            &["--http", "s"],
            "`s` is a directory, and FILE is one document: for the pages under it, give --site `s` --site-url URL",
        ),
        (
            &["-r", "example.com/docs/", "page.html"],
            "--retrieved-from must be an absolute URL, with a scheme: `example.com/docs/` (did you mean `https://example.com/docs/`?)",
        ),
        (
            &["--site", "s", "--site-url", "www.example.com/"],
            "--site-url must be an absolute URL, with a scheme: `www.example.com/` (did you mean `https://www.example.com/`?)",
        ),
        // A path stays a path: no host is guessed at.
        (
            &["-r", "docs/page.html", "page.html"],
            "--retrieved-from must be an absolute URL, with a scheme: `docs/page.html`",
        ),
        // A page is no saved response: its first line is no status line.
        (
            &["--http", "-r", "http://h/", "page.html"],
            "`page.html` is not a saved HTTP response (it starts with `<head><link href=s.css></head>`, not `HTTP/`): drop --http to read it as a document",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("s")).unwrap();
        fs::write(dir.path().join("page.html"), PAGE).unwrap();
        let out = htmlabs()
            .current_dir(dir.path())
            .args(args)
            .write_stdin(PAGE)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(text(&out.stdout), "", "{args:?}");
        assert_eq!(
            text(&out.stderr),
            format!("htmlabs: error: {line}\n"),
            "{args:?}"
        );
    }
}

/// Fault 9 of issue 30: a file name with a line break, a quote or a byte
/// that is not UTF-8 is quoted C-style in every line (the check line, the
/// error), and kept exactly in the report.
#[cfg(unix)]
#[test]
fn odd_file_names_are_quoted_in_lines_and_kept_exactly_in_the_report() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    for (name, shown, raw) in [
        (&b"a\nb.html"[..], r#""a\nb.html""#, None),
        (b"q\"t.html", r#""q\"t.html""#, None),
        (b"\xff\tx.html", r#""\377\tx.html""#, Some("%FF%09x.html")),
    ] {
        let name = OsStr::from_bytes(name);
        fs::write(dir.path().join(name), "<a href=x>").unwrap();
        let out = htmlabs()
            .current_dir(dir.path())
            .args(["--check", "-r", "http://h/", "--report", "links.jsonl"])
            .arg(name)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            format!("{shown}:1:9: <a href> \"x\" -> \"http://h/x\"\n")
        );
        let report = fs::read_to_string(dir.path().join("links.jsonl")).unwrap();
        let v: serde_json::Value = serde_json::from_str(report.trim_end()).unwrap();
        assert_eq!(v["file"], name.to_string_lossy().as_ref());
        assert_eq!(v.get("file_raw").and_then(|r| r.as_str()), raw);
        // A missing file of that name: one line, naming it the same way.
        fs::remove_file(dir.path().join(name)).unwrap();
        let out = htmlabs()
            .current_dir(dir.path())
            .args(["-r", "http://h/"])
            .arg(name)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert_eq!(
            text(&out.stderr),
            format!(
                "htmlabs: error: cannot open `{shown}`: no such file or directory (os error 2)\n"
            )
        );
        // And an output that cannot be written.
        let out = htmlabs()
            .current_dir(dir.path())
            .args(["-r", "http://h/", "-o"])
            .arg(Path::new("no-such-dir").join(name))
            .write_stdin(PAGE)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        let shown_out = format!("\"no-such-dir/{}", &shown[1..]);
        assert_eq!(
            text(&out.stderr),
            format!(
                "htmlabs: error: cannot write `{shown_out}`: no such file or directory (os error 2)\n"
            )
        );
    }
}

// ---------------------------------------------------------------- -o

#[test]
fn output_file_gets_the_page_and_no_temporary_is_left() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.html"), PAGE).unwrap();
    let out = htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/d/p", "-o", "out.html", "in.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(text(&out.stderr), "");
    assert_eq!(
        fs::read_to_string(dir.path().join("out.html")).unwrap(),
        PAGE_OUT
    );
    assert_eq!(names(dir.path()), ["in.html", "out.html"]);
}

#[test]
fn output_through_a_symbolic_link_writes_the_file_it_names() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.html"), PAGE).unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink("real/out.html", dir.path().join("link.html")).unwrap();
    for report in [false, true] {
        let mut args = vec!["-r", "http://h/d/p", "-o", "link.html", "in.html"];
        if report {
            // The report through a link to the same kind of place.
            std::os::unix::fs::symlink("real/links.jsonl", dir.path().join("links")).unwrap();
            args.extend(["--report", "links"]);
        }
        let out = htmlabs()
            .current_dir(dir.path())
            .args(&args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert!(
            fs::symlink_metadata(dir.path().join("link.html"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("real/out.html")).unwrap(),
            PAGE_OUT
        );
        if report {
            assert!(
                fs::symlink_metadata(dir.path().join("links"))
                    .unwrap()
                    .file_type()
                    .is_symlink()
            );
            assert_eq!(
                fs::read_to_string(dir.path().join("real/links.jsonl"))
                    .unwrap()
                    .lines()
                    .count(),
                3
            );
        }
    }
    assert_eq!(names(&dir.path().join("real")), ["links.jsonl", "out.html"]);
}

/// The directories on the way to `-o`'s file are the user's own path:
/// links in it are followed, as the shell follows them.
#[test]
fn output_into_a_directory_named_through_a_symbolic_link_goes_where_it_leads() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.html"), PAGE).unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    std::os::unix::fs::symlink("real", dir.path().join("link")).unwrap();
    let out = htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/d/p", "-o", "link/out.html", "in.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fs::read_to_string(dir.path().join("real/out.html")).unwrap(),
        PAGE_OUT
    );
    assert_eq!(names(&dir.path().join("real")), ["out.html"]);
}

/// A FIFO, like `/dev/null` or any file that is not a regular one, is
/// written as it is: renamed over, it would become a regular file (run as
/// root, `-o /dev/null` replaced the device).
#[test]
fn output_into_a_fifo_is_written_into_it_and_it_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.html"), PAGE).unwrap();
    let fifo = dir.path().join("pipe");
    let made = StdCommand::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || fs::read_to_string(fifo).unwrap())
    };
    let out = htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/d/p", "-o", "pipe", "in.html"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(reader.join().unwrap(), PAGE_OUT);
    assert!(std::os::unix::fs::FileTypeExt::is_fifo(
        &fs::symlink_metadata(&fifo).unwrap().file_type()
    ));
    assert_eq!(names(dir.path()), ["in.html", "pipe"]);
}

/// `-o -` is standard output, as `-` is for the input and for `--report`
/// (it made a file named `-`); so the report cannot take standard output
/// beside it.
#[test]
fn output_dash_is_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.html"), PAGE).unwrap();
    htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/d/p", "-o", "-", "in.html"])
        .assert()
        .code(0)
        .stdout(PAGE_OUT)
        .stderr("");
    assert_eq!(names(dir.path()), ["in.html"]);
    htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/d/p", "-o", "-", "--report", "-", "in.html"])
        .assert()
        .code(2)
        .stdout("")
        .stderr("htmlabs: error: --report - would mix the links with the page on standard output: give -o FILE or --check\n");
    assert_eq!(names(dir.path()), ["in.html"]);
}

#[test]
fn output_file_may_be_the_input_file() {
    // The README's in-place example (`-o page.html page.html`).
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("index.html");
    fs::write(&page, PAGE).unwrap();
    htmlabs()
        .arg("-r")
        .arg("http://h/d/p")
        .arg("-o")
        .arg(&page)
        .arg(&page)
        .assert()
        .code(0)
        .stdout("")
        .stderr("");
    assert_eq!(fs::read_to_string(&page).unwrap(), PAGE_OUT);
    assert_eq!(names(dir.path()), ["index.html"]);
}

#[test]
fn output_into_a_missing_directory_fails_and_creates_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("missing").join("out.html");
    let out = htmlabs()
        .args(["-r", "http://h/"])
        .arg("-o")
        .arg(&target)
        .write_stdin(PAGE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    let stderr = text(&out.stderr);
    let expected_start = format!(
        "htmlabs: error: cannot write `{}`: no such file or directory",
        target.display()
    );
    assert!(stderr.starts_with(&expected_start), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!dir.path().join("missing").exists());
    assert!(names(dir.path()).is_empty());
}

#[cfg(unix)]
#[test]
fn output_into_a_missing_directory_message_is_exact() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("missing").join("out.html");
    let out = htmlabs()
        .args(["-r", "http://h/"])
        .arg("-o")
        .arg(&target)
        .write_stdin(PAGE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        format!(
            "htmlabs: error: cannot write `{}`: no such file or directory (os error 2)\n",
            target.display()
        )
    );
}

#[cfg(unix)]
#[test]
fn a_failed_run_leaves_no_file_and_the_old_file_as_it_was() {
    // A document the engine refuses once it reads it (UTF-32, by XML 1.0
    // Appendix F): the run fails after its output was staged. (A directory
    // is refused before, by the command line.)
    let dir = tempfile::tempdir().unwrap();
    let utf32: Vec<u8> = "<?xml version='1.0'?><rss/>"
        .bytes()
        .flat_map(|b| [b, 0, 0, 0])
        .collect();
    fs::write(dir.path().join("in.xml"), utf32).unwrap();
    let out = htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/", "-o", "new.xml", "in.xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: cannot rewrite `in.xml`: `UTF-32LE` (by its first bytes, XML 1.0 Appendix F) cannot be read: htmlabs reads UTF-8, UTF-16 and ASCII-compatible encodings; convert the document first\n"
    );
    assert_eq!(names(dir.path()), ["in.xml"]);

    fs::write(dir.path().join("old.xml"), "old").unwrap();
    let out = htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/", "-o", "old.xml", "in.xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        fs::read_to_string(dir.path().join("old.xml")).unwrap(),
        "old"
    );
    assert_eq!(names(dir.path()), ["in.xml", "old.xml"]);
}

#[cfg(unix)]
#[test]
fn output_onto_a_directory_fails_and_leaves_no_temporary() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("site")).unwrap();
    let out = htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/", "-o", "site"])
        .write_stdin(PAGE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(text(&out.stdout), "");
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: cannot write `site`: is a directory (os error 21)\n"
    );
    assert_eq!(names(dir.path()), ["site"]);
    assert!(names(&dir.path().join("site")).is_empty());
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_is_an_error_naming_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.html"), PAGE).unwrap();
    let full = fs::File::create("/dev/full").unwrap();
    let out = StdCommand::new(BIN)
        .current_dir(dir.path())
        .args(["-r", "http://h/", "in.html"])
        .stdin(Stdio::null())
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: cannot write standard output: no space left on device (os error 28)\n"
    );
}

/// The outputs a size limit or a full disk meets: a page's (`-o`), the
/// link report, an archive's with its writing on the reading thread
/// (`--jobs 1`) and on a thread of its own (`--jobs 2`), a listing's
/// report. Each: its arguments, with `{dir}` where the file goes, and the
/// file its error names.
const WRITTEN: &[(&[&str], &str)] = &[
    (
        &["-r", "http://h/", "big.html", "-o", "{dir}out.html"],
        "{dir}out.html",
    ),
    (
        &[
            "-r",
            "http://h/",
            "big.html",
            "-o",
            "/dev/null",
            "--report",
            "{dir}r.json",
        ],
        "{dir}r.json",
    ),
    (
        &["--warc", "t.warc", "--jobs", "1", "-o", "{dir}out.warc"],
        "{dir}out.warc",
    ),
    (
        &["--warc", "t.warc", "--jobs", "2", "-o", "{dir}out.warc"],
        "{dir}out.warc",
    ),
    (
        &["--warc", "t.warc", "--links", "--report", "{dir}r.json"],
        "{dir}r.json",
    ),
];

/// A page of 200 KB and an archive whose output is 20 KB, in `dir`.
fn big_inputs(dir: &Path) {
    fs::write(dir.join("big.html"), "<a href=x>".repeat(20_000)).unwrap();
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/warc/shapes-1.0.warc");
    fs::copy(archive, dir.join("t.warc")).unwrap();
}

/// `ulimit -f` ended a run by SIGXFSZ, status 153 and not a word, and a
/// file staged under a hidden name stayed behind. Now a write past the
/// limit fails as on a full disk: one line naming the file, status 2,
/// nothing left (staged with no name, or under a hidden name).
#[test]
fn a_file_size_limit_is_one_error_and_leaves_nothing_behind() {
    for staging in ["unnamed", "named"] {
        for (args, file) in WRITTEN {
            let dir = tempfile::tempdir().unwrap();
            big_inputs(dir.path());
            let args: Vec<String> = args.iter().map(|a| a.replace("{dir}", "")).collect();
            let mut command = StdCommand::new("sh");
            // 16 blocks of 512 bytes: 8 KiB, the most a file may grow to.
            command
                .current_dir(dir.path())
                .args(["-c", "ulimit -f 16 && exec \"$0\" \"$@\"", BIN])
                .args(&args);
            if staging == "named" {
                command.env("HTMLABS_NAMED_STAGING", "1");
            }
            let out = command.stdin(Stdio::null()).output().unwrap();
            let file = file.replace("{dir}", "");
            assert_eq!(
                (out.status.code(), text(&out.stderr)),
                (
                    Some(2),
                    format!(
                        "htmlabs: error: cannot write `{file}`: file too large (os error 27): larger than this process may write (`ulimit -f`) or the filesystem holds\n"
                    )
                    .as_str()
                ),
                "{staging}: {args:?}"
            );
            assert_eq!(
                names(dir.path()),
                ["big.html", "t.warc"],
                "{staging}: {args:?}"
            );
        }
    }
}

/// The same on a full disk (a tmpfs of 64 KiB, in a mount namespace of
/// its own: `unshare -rm`, skipped with a note where the system allows
/// none): one line, status 2, nothing left on the disk.
#[test]
fn a_full_disk_is_one_error_and_leaves_nothing_behind() {
    let namespace = StdCommand::new("unshare").args(["-rm", "true"]).output();
    if !namespace.is_ok_and(|o| o.status.success()) {
        assert!(
            std::env::var_os("CI").is_none(),
            "`unshare -rm` cannot make a mount namespace, and CI must run this test"
        );
        common::skipped("a full disk skipped: `unshare -rm` cannot make a mount namespace here");
        return;
    }
    for staging in ["unnamed", "named"] {
        for (args, file) in WRITTEN {
            let dir = tempfile::tempdir().unwrap();
            big_inputs(dir.path());
            fs::create_dir(dir.path().join("full")).unwrap();
            // A 64 KiB disk, a file of 60 KiB on it: the run's output
            // finds it full. What is left on it is listed after the run.
            let script = "mount -t tmpfs -o size=64k tmpfs full \
                && head -c 61440 /dev/zero > full/filler \
                && { \"$0\" \"$@\"; status=$?; ls -A full; exit $status; }";
            let args: Vec<String> = args.iter().map(|a| a.replace("{dir}", "full/")).collect();
            let mut command = StdCommand::new("unshare");
            command
                .current_dir(dir.path())
                .args(["-rm", "sh", "-c", script, BIN])
                .args(&args);
            if staging == "named" {
                command.env("HTMLABS_NAMED_STAGING", "1");
            }
            let out = command.stdin(Stdio::null()).output().unwrap();
            let file = file.replace("{dir}", "full/");
            assert_eq!(
                (out.status.code(), text(&out.stderr)),
                (
                    Some(2),
                    format!(
                        "htmlabs: error: cannot write `{file}`: no space left on device (os error 28)\n"
                    )
                    .as_str()
                ),
                "{staging}: {args:?}"
            );
            assert_eq!(
                text(&out.stdout),
                "filler\n",
                "{staging}: {args:?}: left behind"
            );
        }
    }
}

/// A warning is printed when it is found, not after the run: here while
/// the input is still open.
#[test]
fn a_warning_is_printed_while_the_input_is_still_coming() {
    use std::io::{BufRead, BufReader, Write};
    use std::sync::mpsc;
    use std::time::Duration;
    let mut child = StdCommand::new(BIN)
        .args(["-r", "http://h/", "--encoding", "utf-8"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let (lines, heard) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let _ = lines.send(line.unwrap());
        }
    });
    let mut stdin = child.stdin.take().unwrap();
    // More than one 64 KiB read, so that the first is rewritten.
    stdin
        .write_all(b"<base href=d/><img src=\"\xff.png\">")
        .unwrap();
    stdin.write_all(&[b' '; 100 * 1024]).unwrap();
    stdin.flush().unwrap();
    let first = heard.recv_timeout(Duration::from_secs(60));
    drop(stdin);
    let status = child.wait().unwrap();
    assert_eq!(
        first.as_deref(),
        Ok("htmlabs: warning: URL value at byte 24 is not valid UTF-8: left as it is"),
        "the warning came before the input ended"
    );
    assert_eq!(status.code(), Some(0));
}

#[cfg(unix)]
#[test]
fn output_over_an_existing_file_keeps_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("out.html");
    fs::write(&target, "old").unwrap();
    fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
    htmlabs()
        .args(["-r", "http://h/d/p", "-o"])
        .arg(&target)
        .write_stdin(PAGE)
        .assert()
        .code(0)
        .stderr("");
    assert_eq!(fs::read_to_string(&target).unwrap(), PAGE_OUT);
    let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640, "mode {mode:o}");
}

#[cfg(unix)]
#[test]
fn a_new_output_file_gets_the_usual_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // What the umask makes of a new file, as a shell redirection would.
    let reference = dir.path().join("reference");
    fs::File::create(&reference).unwrap();
    let usual = fs::metadata(&reference).unwrap().permissions().mode() & 0o777;
    let target = dir.path().join("out.html");
    htmlabs()
        .args(["-r", "http://h/d/p", "-o"])
        .arg(&target)
        .write_stdin(PAGE)
        .assert()
        .code(0);
    let mode = fs::metadata(&target).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, usual, "mode {mode:o}, a new file here gets {usual:o}");
}

// ---------------------------------------------------------------- input

#[test]
fn dash_reads_standard_input() {
    htmlabs()
        .args(["-r", "http://h/d/p", "-"])
        .write_stdin(PAGE)
        .assert()
        .code(0)
        .stdout(PAGE_OUT)
        .stderr("");
}

#[test]
fn no_file_reads_standard_input_and_a_file_argument_is_read() {
    htmlabs()
        .args(["-r", "http://h/d/p"])
        .write_stdin(PAGE)
        .assert()
        .code(0)
        .stdout(PAGE_OUT)
        .stderr("");
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("in.html"), PAGE).unwrap();
    htmlabs()
        .current_dir(dir.path())
        .args(["-r", "http://h/d/p", "in.html"])
        .write_stdin("<a href=not-this>")
        .assert()
        .code(0)
        .stdout(PAGE_OUT)
        .stderr("");
}

/// A FILE's extension is a clue to its type, as a site's file's is (issue
/// 38, part 8: `site.css` came out unchanged, its first bytes taken for a
/// page's): a stylesheet's `url()` is made absolute, a feed's `.xml` and an
/// `.svg` go to the XML engine, by their extension as `-v` says; `--type`
/// still wins, standard input has no name, and a page named `.html` comes
/// out as it does from standard input.
#[test]
fn a_files_extension_tells_its_type() {
    let dir = tempfile::tempdir().unwrap();
    let sheet = "a { background: url(i.png) }\n";
    fs::write(dir.path().join("site.css"), sheet).unwrap();
    let run = |args: &[&str], stdin: &str| {
        let out = htmlabs()
            .current_dir(dir.path())
            .args(args)
            .write_stdin(stdin)
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        (text(&out.stdout).to_owned(), text(&out.stderr).to_owned())
    };
    let url = "https://example.com/css/site.css";
    assert_eq!(
        run(&["-r", url, "site.css"], "").0,
        "a { background: url(https://example.com/css/i.png) }\n"
    );
    let (_, said) = run(&["-v", "-r", url, "site.css"], "");
    assert_eq!(
        said.lines().next(),
        Some("htmlabs: type: CSS (its extension, `.css`)")
    );
    // `--type` wins; standard input has no name: its first bytes decide.
    assert_eq!(run(&["--type", "html", "-r", url, "site.css"], "").0, sheet);
    assert_eq!(run(&["-r", url], sheet).0, sheet);

    let feed = "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><link>a/</link><item><link>b.html</link></item></channel></rss>\n";
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"><image xlink:href=\"i.png\"/></svg>\n";
    fs::write(dir.path().join("feed.xml"), feed).unwrap();
    fs::write(dir.path().join("icon.svg"), svg).unwrap();
    for (file, url, out, line) in [
        (
            "feed.xml",
            "https://example.com/blog/feed.xml",
            "<?xml version=\"1.0\"?>\n<rss version=\"2.0\"><channel><link>https://example.com/blog/a/</link><item><link>https://example.com/blog/b.html</link></item></channel></rss>\n",
            "htmlabs: type: XML (its extension, `.xml`)",
        ),
        (
            "icon.svg",
            "https://example.com/img/icon.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"><image xlink:href=\"https://example.com/img/i.png\"/></svg>\n",
            "htmlabs: type: XML (its extension, `.svg`)",
        ),
    ] {
        let (written, said) = run(&["-v", "-r", url, file], "");
        assert_eq!(written, out, "{file}");
        assert_eq!(said.lines().next(), Some(line), "{file}");
    }

    // A page named `.html`: what standard input gives, `-v` lines too.
    fs::write(dir.path().join("page.html"), PAGE).unwrap();
    let named = run(&["-v", "-r", "http://h/d/p", "page.html"], "");
    let read = run(&["-v", "-r", "http://h/d/p"], PAGE);
    assert_eq!(named.0, PAGE_OUT);
    assert_eq!(named, read);
}

// ---------------------------------------------------------------- warnings, -q, -v

#[test]
fn no_base_passes_the_page_through_with_a_warning_on_stderr_only() {
    htmlabs()
        .write_stdin(PAGE)
        .assert()
        .code(0)
        .stdout(PAGE)
        .stderr(NO_BASE);
}

#[test]
fn quiet_silences_the_no_base_warning() {
    htmlabs()
        .arg("-q")
        .write_stdin(PAGE)
        .assert()
        .code(0)
        .stdout(PAGE)
        .stderr("");
}

#[test]
fn quiet_does_not_silence_errors() {
    htmlabs()
        .args(["-q", "-r", "page.html"])
        .write_stdin(PAGE)
        .assert()
        .code(2)
        .stdout("")
        .stderr(
            "htmlabs: error: --retrieved-from must be an absolute URL, with a scheme: `page.html`\n",
        );
}

/// A document tells and keeps its first hundred warnings, each value in
/// them clipped, then counts the rest in one line: a page of a million
/// ignored `<base href>` held them all, outside `--max-memory`. The summary
/// counts every one.
#[test]
fn a_document_tells_its_first_hundred_warnings_then_their_number() {
    let base = |i: usize| format!("<base href=\"javascript:{i}{}\">", "x".repeat(300));
    let page: String = (0..150).map(base).collect();
    let out = htmlabs()
        .args(["-r", "http://h/d/p"])
        .write_stdin(page.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, page.as_bytes(), "the page is unchanged");
    let lines: Vec<&str> = text(&out.stderr).lines().collect();
    assert_eq!(lines.len(), 101, "lines of standard error");
    let first = format!("javascript:0{}", "x".repeat(256 - "javascript:0".len()));
    assert_eq!(
        lines[0],
        format!(
            "htmlabs: warning: `<base href>` at byte 0 ignored: `{first}…`: a `javascript:` URL is never a base: links against it would run script or replace the page"
        )
    );
    assert!(lines[99].contains("`javascript:99xxx"), "{}", lines[99]);
    assert_eq!(
        lines[100],
        "htmlabs: warning: 50 more warnings not shown: a document tells its first 100"
    );
    // A site's summary counts them all, and tells each file's first 100.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.html"), &page).unwrap();
    let out = htmlabs()
        .args(["--site-url", "http://h/", "--check", "--site"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert_eq!(
        err.lines().filter(|l| l.contains("ignored")).count(),
        100,
        "{err}"
    );
    assert!(
        err.contains("a.html: 50 more warnings not shown"),
        "{}",
        err.lines().last().unwrap_or("")
    );
    assert!(
        err.contains("; 150 warnings;"),
        "{}",
        err.lines().last().unwrap_or("")
    );
}

/// `--map` in each source: a page (its check lines say what each value
/// becomes), a site moved to a new domain in place, a saved response; a
/// rule that is none is refused in one line.
#[test]
fn map_moves_every_link_in_every_source() {
    let map = "--map=https://old.example/=https://new.example/";
    let out = htmlabs()
        .args(["-r", "https://old.example/d/p.html", map, "--check"])
        .write_stdin("<a href=a.html>a</a> <a href=https://old.example/b>b</a> <a href=https://x.example/>x</a>")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stdout),
        "-:1:9: <a href> \"a.html\" -> \"https://new.example/d/a.html\"\n\
         -:1:30: <a href> \"https://old.example/b\" -> \"https://new.example/b\"\n"
    );
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("css")).unwrap();
    fs::write(
        dir.path().join("index.html"),
        "<link rel=stylesheet href=css/site.css><a href=/about/>about</a>",
    )
    .unwrap();
    fs::write(
        dir.path().join("css/site.css"),
        "p{background:url(../i.png)}",
    )
    .unwrap();
    let out = htmlabs()
        .args(["--site-url", "https://old.example/", map, "--site"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        fs::read_to_string(dir.path().join("index.html")).unwrap(),
        "<link rel=stylesheet href=https://new.example/css/site.css><a href=https://new.example/about/>about</a>"
    );
    assert_eq!(
        fs::read_to_string(dir.path().join("css/site.css")).unwrap(),
        "p{background:url(https://new.example/i.png)}"
    );
    let response = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<img src=i.png>";
    let out = htmlabs()
        .args(["--http", "-r", "https://old.example/", map])
        .write_stdin(response)
        .output()
        .unwrap();
    assert!(
        text(&out.stdout).ends_with("\r\n\r\n<img src=https://new.example/i.png>"),
        "{}",
        text(&out.stdout)
    );
    let out = htmlabs()
        .args(["-r", "https://old.example/", "--map", "old=new"])
        .write_stdin("<a href=a>")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: --map wants OLD=NEW, two absolute URLs (`https://old.example/=https://new.example/`): `old=new`\n"
    );
    assert_eq!(text(&out.stdout), "");
}

#[test]
fn warnings_go_to_stderr_and_never_into_the_output() {
    // (flags, input, output, stderr)
    type Case<'a> = (&'a [&'a str], &'a [u8], &'a [u8], &'a str);
    let cases: &[Case] = &[
        (
            &["-r", "http://h/d/p"],
            b"<head><base href=\"javascript:x\"></head><a href=y>",
            b"<head><base href=\"javascript:x\"></head><a href=http://h/d/y>",
            "htmlabs: warning: `<base href>` at byte 6 ignored: `javascript:x`: a `javascript:` URL is never a base: links against it would run script or replace the page\n",
        ),
        (
            &["-r", "http://h/d/p"],
            b"<head></head><body><base href=\"http://b/\"><a href=y>",
            b"<head></head><body><base href=\"http://b/\"><a href=http://h/d/y>",
            "htmlabs: warning: `<base href>` at byte 19 ignored: `http://b/`: it comes after the head (browsers would use it)\n",
        ),
        (
            &["-r", "http://h/d/p", "--max-lookahead", "10"],
            b"<head><title>t</title><link href=a.css><base href=http://b/></head><a href=y>",
            b"<head><title>t</title><link href=http://h/d/a.css><base href=http://b/></head><a href=http://h/d/y>",
            // No `<base` starts within the limit: nothing is looked for.
            "htmlabs: warning: `<base href>` at byte 39 ignored: `http://b/`: it comes after the lookahead limit\n",
        ),
        (
            &["-r", "http://h/d/p", "--encoding", "utf-8"],
            b"<a href=\"\xff.html\">x</a><a href=y>",
            b"<a href=\"\xff.html\">x</a><a href=http://h/d/y>",
            "htmlabs: warning: URL value at byte 9 is not valid UTF-8: left as it is\n",
        ),
        (&[], b"<a href=y>", b"<a href=y>", NO_BASE),
    ];
    for (args, input, expected, warning) in cases {
        let out = htmlabs().args(*args).write_stdin(*input).output().unwrap();
        let name = String::from_utf8_lossy(input);
        assert_eq!(out.status.code(), Some(0), "{name}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(expected),
            "{name}"
        );
        assert_eq!(out.stdout, *expected, "{name}");
        assert_eq!(text(&out.stderr), *warning, "{name}");
        assert!(!out.stdout.windows(8).any(|w| w == b"htmlabs:"), "{name}");

        let quiet = htmlabs()
            .arg("-q")
            .args(*args)
            .write_stdin(*input)
            .output()
            .unwrap();
        assert_eq!(quiet.status.code(), Some(0), "-q {name}");
        assert_eq!(quiet.stdout, *expected, "-q {name}");
        assert_eq!(text(&quiet.stderr), "", "-q {name}");
    }
}

#[test]
fn verbose_lines_are_exact() {
    // One value of each outcome: rewritten (the link, the anchors, the empty
    // one too: it names the document; the base href itself is
    // "unchanged"), absolute, valueless, same-document in SVG, undecodable,
    // empty where that names no resource.
    let input: &[u8] = b"<head><link href=s.css><base href=\"http://h/d/\"></head>\n\
        <a href=x>1</a> <a href=\"mailto:m\">2</a> <a href>3</a>\n\
        <svg><use href=\"#i\"/></svg><img src=\"\xff.png\">\n\
        <img src=\"\"> <a href=\"\">4</a>\n";
    let expected: &[u8] = b"<head><link href=http://h/d/s.css><base href=\"http://h/d/\"></head>\n\
        <a href=http://h/d/x>1</a> <a href=\"mailto:m\">2</a> <a href>3</a>\n\
        <svg><use href=\"#i\"/></svg><img src=\"\xff.png\">\n\
        <img src=\"\"> <a href=\"http://h/d/\">4</a>\n";
    let out = htmlabs()
        .args(["-v", "-r", "http://r/p", "--encoding", "utf-8"])
        .write_stdin(input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(out.stdout, expected);
    assert_eq!(
        text(&out.stderr),
        "htmlabs: warning: URL value at byte 148 is not valid UTF-8: left as it is\n\
         htmlabs: encoding: UTF-8 (--encoding)\n\
         htmlabs: base: `http://h/d/` (embedded <base href> at byte 23)\n\
         htmlabs: layer 3.1 (embedded): `<base href>` at byte 23, used\n\
         htmlabs: layer 3.2 (encapsulating entity): none\n\
         htmlabs: layer 3.3 (retrieval URL): `http://r/p` from --retrieved-from, passed over: layer 3.1 gives the base\n\
         htmlabs: layer 3.4 (default): the empty base, passed over: layer 3.1 gives the base\n\
         htmlabs: lookahead: ended at the `<base href>` at byte 23\n\
         htmlabs: urls: 8 seen, 3 rewritten, 5 left as they were\n\
         htmlabs: left: 1 already absolute, 1 same-document, 1 empty (no resource), 1 undecodable, 0 without a base, 1 unchanged\n\
         htmlabs: rewritten by kind: url 3, list 0, srcset 0, refresh 0, css 0, html 0, origin 0\n\
         htmlabs: valueless attributes: 1\n"
    );
}

#[test]
fn verbose_lines_without_a_base() {
    htmlabs()
        .arg("-v")
        .write_stdin(PAGE)
        .assert()
        .code(0)
        .stdout(PAGE)
        .stderr(
            "htmlabs: warning: no base URL (no `<base href>`, no --retrieved-from): the output is the input, unchanged\n\
             htmlabs: encoding: UTF-8 (no byte above 0x7F in the lookahead)\n\
             htmlabs: base: none: every URL is left as it is\n\
             htmlabs: layer 3.1 (embedded): none\n\
             htmlabs: layer 3.2 (encapsulating entity): none\n\
             htmlabs: layer 3.3 (retrieval URL): none\n\
             htmlabs: layer 3.4 (default): the empty base, used\n\
             htmlabs: lookahead: not needed: no `<base` in the input\n\
             htmlabs: urls: 3 seen, 0 rewritten, 3 left as they were\n\
             htmlabs: left: 0 already absolute, 0 same-document, 0 empty (no resource), 0 undecodable, 3 without a base, 0 unchanged\n\
             htmlabs: rewritten by kind: url 0, list 0, srcset 0, refresh 0, css 0, html 0, origin 0\n\
             htmlabs: valueless attributes: 0\n",
        );
}

// ---------------------------------------------------------------- a terminal

/// A pseudo-terminal (libc's `openpty`): its leader, which reads what is
/// written to its follower, a terminal.
#[cfg(target_os = "linux")]
fn terminal() -> (fs::File, fs::File) {
    use std::os::fd::FromRawFd;
    let (mut leader, mut follower) = (0, 0);
    // SAFETY: two out-pointers to ints; no name, no termios, no size.
    let made = unsafe {
        libc::openpty(
            &mut leader,
            &mut follower,
            std::ptr::null_mut(),
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    assert_eq!(made, 0, "openpty: {}", std::io::Error::last_os_error());
    // SAFETY: both descriptors are new, and owned here alone.
    unsafe {
        (
            fs::File::from_raw_fd(leader),
            fs::File::from_raw_fd(follower),
        )
    }
}

/// Where a run's standard input comes from.
#[cfg(target_os = "linux")]
enum In<'a> {
    Nothing,
    File(&'a Path),
    Pipe(&'a Path),
}

/// Runs htmlabs with its standard output a terminal: its exit status, its
/// standard error, and what the terminal got.
#[cfg(target_os = "linux")]
fn on_a_terminal(args: &[&str], dir: &Path, stdin: In<'_>) -> (Option<i32>, String, Vec<u8>) {
    let (mut leader, follower) = terminal();
    let mut command = StdCommand::new(BIN);
    command
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .stdout(Stdio::from(follower))
        .stderr(Stdio::piped())
        .stdin(match stdin {
            In::Nothing => Stdio::null(),
            In::File(path) => Stdio::from(fs::File::open(path).unwrap()),
            In::Pipe(_) => Stdio::piped(),
        });
    let mut child = command.spawn().unwrap();
    // Its copy of the follower closed: the leader ends with the child.
    drop(command);
    let feeding = child.stdin.take().map(|mut pipe| {
        let In::Pipe(path) = stdin else {
            unreachable!("only a pipe is piped")
        };
        let bytes = fs::read(path).unwrap();
        std::thread::spawn(move || {
            use std::io::Write;
            // A refusal reads nothing and closes it.
            let _ = pipe.write_all(&bytes);
        })
    });
    let reading = std::thread::spawn(move || {
        let mut got = Vec::new();
        // EIO once the follower is closed: what came before is kept.
        let _ = leader.read_to_end(&mut got);
        got
    });
    let out = child.wait_with_output().unwrap();
    if let Some(feeding) = feeding {
        feeding.join().unwrap();
    }
    let got = reading.join().unwrap();
    (out.status.code(), text(&out.stderr).to_owned(), got)
}

/// Compressed bytes are not written to a terminal, as gzip refuses to
/// (issue 38, part 8: `htmlabs --warc x.warc.gz` wrote gzip to it, the
/// progress bar mixed in): refused before anything is read, one line,
/// status 2, with what to do instead, whether the archive is a file, a
/// redirected file or a pipe. A plain archive, one written to `-o`, and the
/// lines of `--links` and `--check` go to the terminal as before.
#[cfg(target_os = "linux")]
#[test]
fn compressed_output_is_not_written_to_a_terminal() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/warc");
    let gzip = fixtures.join("one-member.warc.gz");
    let zstd = fixtures.join("shapes.warc.zst");
    let plain = fixtures.join("shapes-1.0.warc");
    let dir = tempfile::tempdir().unwrap();
    let gz = gzip.to_str().unwrap();
    let refused = |from: &str, compression: &str, extension: &str| {
        format!(
            "htmlabs: error: compressed data not written to a terminal: the archive from {from} comes out in {compression}: give -o FILE, or redirect standard output (`> out.warc.{extension}`)\n"
        )
    };
    for (args, stdin, line) in [
        (
            &["--warc", gz][..],
            In::Nothing,
            refused(&format!("`{gz}`"), "gzip", "gz"),
        ),
        (
            &["--warc"],
            In::File(&zstd),
            refused("standard input", "zstd", "zst"),
        ),
        (
            &["--warc", "-"],
            In::Pipe(&gzip),
            refused("standard input", "gzip", "gz"),
        ),
    ] {
        let (code, said, got) = on_a_terminal(args, dir.path(), stdin);
        assert_eq!(code, Some(2), "{args:?}");
        assert_eq!(said, line, "{args:?}");
        assert_eq!(got, b"", "{args:?}: nothing reaches the terminal");
    }

    // What is no compressed data goes on: the records a pipe gets.
    let p = plain.to_str().unwrap();
    let records = |bytes: &[u8]| bytes.windows(9).filter(|w| w == b"WARC/1.0\r").count();
    let piped = htmlabs().args(["--warc", "-q", p]).output().unwrap();
    assert!(records(&piped.stdout) > 20, "every record and conversion");
    for (args, stdin) in [
        (&["--warc", "-q", p][..], In::Nothing),
        (&["--warc", "-q"], In::Pipe(&plain)),
    ] {
        let (code, said, got) = on_a_terminal(args, dir.path(), stdin);
        assert_eq!((code, said.as_str()), (Some(0), ""), "{args:?}");
        assert_eq!(records(&got), records(&piped.stdout), "{args:?}");
    }
    let (code, said, got) = on_a_terminal(
        &["--warc", "-q", "-o", "out.warc.gz", gz],
        dir.path(),
        In::Nothing,
    );
    assert_eq!((code, said.as_str(), &got[..]), (Some(0), "", &b""[..]));
    assert!(dir.path().join("out.warc.gz").is_file());
    let (code, said, got) = on_a_terminal(&["--warc", "--links", gz], dir.path(), In::Nothing);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        got.starts_with(b"{\"record\":"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    let (code, said, got) =
        on_a_terminal(&["--warc", "--check", "-q", gz], dir.path(), In::Nothing);
    assert_eq!((code, said.as_str()), (Some(1), ""));
    assert!(
        got.starts_with(b"<urn:uuid:"),
        "{}",
        String::from_utf8_lossy(&got)
    );
}

/// A saved response whose body comes out in its coding (`--http` writes
/// it back gzip) is refused on a terminal too, with what to do instead;
/// with `--strip-headers` the document comes out decoded, to the terminal
/// as any page; a response whose body is text goes on.
#[cfg(target_os = "linux")]
#[test]
fn a_response_whose_body_comes_out_compressed_is_not_written_to_a_terminal() {
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/http");
    let gzip = fixtures.join("curl-i-raw-chunked-gzip.http");
    let text = fixtures.join("curl-iL.http");
    let dir = tempfile::tempdir().unwrap();
    let gz = gzip.to_str().unwrap();
    let (code, said, got) = on_a_terminal(&["--http", gz], dir.path(), In::Nothing);
    assert_eq!(code, Some(2));
    assert_eq!(
        said,
        format!(
            "htmlabs: error: compressed data not written to a terminal: the body of the response in `{gz}` comes out in its coding, `gzip`: give --strip-headers for the document decoded, -o FILE, or redirect standard output\n"
        )
    );
    assert_eq!(got, b"", "nothing reaches the terminal");
    let (code, said, got) = on_a_terminal(&["--http"], dir.path(), In::Pipe(&gzip));
    assert_eq!(code, Some(2), "{said}");
    assert_eq!(got, b"");
    let (code, said, got) = on_a_terminal(
        &["--http", "-q", "--strip-headers", gz],
        dir.path(),
        In::Nothing,
    );
    assert_eq!((code, said.as_str()), (Some(0), ""));
    assert!(
        got.starts_with(b"<!doctype html>"),
        "{}",
        String::from_utf8_lossy(&got)
    );
    let t = text.to_str().unwrap();
    let (code, said, got) = on_a_terminal(&["--http", "-q", t], dir.path(), In::Nothing);
    assert_eq!((code, said.as_str()), (Some(0), ""));
    assert!(
        got.starts_with(b"HTTP/1.1 302"),
        "{}",
        String::from_utf8_lossy(&got)
    );
}

// ---------------------------------------------------------------- --help, --version

#[test]
fn help_shows_examples() {
    let out = htmlabs().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stderr), "");
    let help = text(&out.stdout);
    assert!(help.contains("Usage: htmlabs [OPTIONS] [FILE]"), "{help}");
    assert!(help.contains("\nExamples:\n"), "{help}");
    assert!(
        help.contains(
            "\n  htmlabs --retrieved-from https://example.com/docs/page.html < page.html > out.html\n"
        ),
        "{help}"
    );
    for flag in [
        "--retrieved-from",
        "--output",
        "--standard",
        "--keep-fragments",
        "--max-lookahead",
        "--verbose",
        "--quiet",
    ] {
        assert!(help.contains(flag), "{flag} is not in --help");
    }
}

#[test]
fn version_prints_name_and_version() {
    htmlabs()
        .arg("--version")
        .assert()
        .code(0)
        .stdout(format!("htmlabs {}\n", env!("CARGO_PKG_VERSION")))
        .stderr("");
}

// ---------------------------------------------------------------- broken pipe

#[test]
fn a_reader_that_goes_away_is_not_an_error() {
    // 20 MB: far more than a pipe holds, so the program is still writing
    // when the reader goes away.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.html");
    fs::write(&big, "<a href=x>\n".repeat(20_000_000 / 11)).unwrap();
    let mut child = StdCommand::new(BIN)
        .args(["-r", "http://h/"])
        .arg(&big)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut start = [0; 20];
    stdout.read_exact(&mut start).unwrap();
    assert_eq!(&start, b"<a href=http://h/x>\n");
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    assert_eq!(text(&out.stderr), "", "no message, no panic");
    assert_eq!(out.status.code(), Some(0), "{:?}", out.status);
}

// ---------------------------------------------------------------- encodings

#[test]
fn an_unknown_encoding_label_is_refused_with_its_name() {
    htmlabs()
        .args(["--encoding", "klingon"])
        .write_stdin("<a href=x>")
        .assert()
        .code(2)
        .stdout("")
        .stderr("htmlabs: error: unknown encoding label: `klingon`\n");
}

const ISO_2022_JP: &str = "htmlabs: error: cannot rewrite standard input: `ISO-2022-JP` cannot be rewritten in place (its bytes are not ASCII-compatible); convert the page to UTF-8 first\n";

#[test]
fn iso_2022_jp_is_refused_by_flag_or_by_meta() {
    htmlabs()
        .args(["-r", "http://h/", "--encoding", "csISO2022JP"])
        .write_stdin("<a href=x>")
        .assert()
        .code(2)
        .stdout("")
        .stderr(ISO_2022_JP);
    htmlabs()
        .args(["-r", "http://h/"])
        .write_stdin("<meta charset=iso-2022-jp><a href=x>")
        .assert()
        .code(2)
        .stdout("")
        .stderr(ISO_2022_JP);
}

/// An unpaired surrogate in UTF-16, found after output went out (it was
/// refused then, after megabytes of the page had been written): what came
/// before is rewritten, the rest copied as it came, with the warning and
/// exit status 2; the output complete.
#[test]
fn utf16_with_an_unpaired_surrogate_stops_rewriting_there_and_copies_the_rest() {
    let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
    let links = "<a href=x>".repeat(200_000);
    // BOM, two megabytes of links, a lone high surrogate (00 D8), a link.
    let mut input = [&b"\xff\xfe"[..], &utf16(&links)].concat();
    let at = input.len();
    input.extend([0x00, 0xd8]);
    input.extend(utf16("<a href=y>"));
    let expected = [
        &b"\xff\xfe"[..],
        &utf16(&"<a href=http://h/x>".repeat(200_000)),
        &input[at..],
    ]
    .concat();
    htmlabs()
        .args(["-r", "http://h/"])
        .write_stdin(input)
        .assert()
        .code(2)
        .stdout(expected)
        .stderr(format!("htmlabs: warning: not valid `UTF-16LE` at byte {at} (an unpaired surrogate or a lone byte): rewriting stopped there, the rest is copied unchanged\n"));
}

#[test]
fn a_legacy_page_is_rewritten_in_its_own_encoding() {
    // windows-1251, declared: "новости" stays in its bytes, the base's "ж" is
    // written in windows-1251, its "ü" (not in it) percent-encoded as UTF-8.
    let input = b"<meta charset=windows-1251><a href=\"\xed\xee\xe2\xee\xf1\xf2\xe8/\">x</a>";
    let expected = b"<meta charset=windows-1251><a href=\"http://h/%C3%BC/\xe6/\xed\xee\xe2\xee\xf1\xf2\xe8/\">x</a>";
    htmlabs()
        .args(["-v", "-r", "http://h/ü/ж/p"])
        .write_stdin(&input[..])
        .assert()
        .code(0)
        .stdout(&expected[..])
        .stderr(predicates::str::starts_with(
            "htmlabs: encoding: windows-1251 (<meta> in the first 1024 bytes)\n",
        ));
}

// ---------------------------------------------------------------- interruption

/// The environment variable that makes htmlabs stage its output under a
/// hidden name, as where `O_TMPFILE` is not supported, so that both ways
/// are tried here.
#[cfg(target_os = "linux")]
const NAMED_STAGING: &str = "HTMLABS_NAMED_STAGING";

/// Whether the process `pid` holds a file open in `dir`: its staged
/// output, named (`.htmlabs-…`) or not (`/dir/#123 (deleted)`).
#[cfg(target_os = "linux")]
fn holds_a_file_in(pid: u32, dir: &Path) -> bool {
    fs::read_dir(format!("/proc/{pid}/fd"))
        .into_iter()
        .flatten()
        .flatten()
        .any(|fd| fs::read_link(fd.path()).is_ok_and(|to| to.starts_with(dir)))
}

/// Starts `htmlabs ARGS -o out.html` in `dir` over `out.html` holding
/// `old`, with `first` on its standard input and the input held open, and
/// sends `signal` once the run is writing its output. Its exit status and
/// standard error.
#[cfg(target_os = "linux")]
fn interrupted(
    dir: &Path,
    args: &[&str],
    first: &[u8],
    named: bool,
    signal: i32,
) -> (Option<i32>, String) {
    use std::io::Write;
    let mut command = StdCommand::new(BIN);
    command
        .current_dir(dir)
        .args(args)
        .args(["-o", "out.html"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if named {
        command.env(NAMED_STAGING, "1");
    }
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(first).unwrap();
    stdin.flush().unwrap();
    let mut waited = 0;
    while !holds_a_file_in(child.id(), dir) {
        if let Some(status) = child.try_wait().unwrap() {
            let out = child.wait_with_output().unwrap();
            panic!("ended before the signal: {status:?} {}", text(&out.stderr));
        }
        waited += 1;
        assert!(waited < 60_000, "the run never opened its output");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // SAFETY: kill(2) on our own child.
    unsafe { libc::kill(child.id() as i32, signal) };
    let out = child.wait_with_output().unwrap();
    drop(stdin);
    (out.status.code(), String::from_utf8(out.stderr).unwrap())
}

/// SIGINT (Ctrl-C) or SIGTERM while `-o` is being written: the run ends at
/// once with 130 or 143, the target keeps its old bytes, and no temporary
/// file is left, whether the output was staged unnamed or named.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_ends_a_page_run_leaving_the_target_as_it_was_and_no_file() {
    let page = format!("<a href=x>{}", " ".repeat(200 * 1024));
    for named in [false, true] {
        for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
            let dir = tempfile::tempdir().unwrap();
            let dir = dir.path().canonicalize().unwrap();
            fs::write(dir.join("out.html"), "old").unwrap();
            let (status, stderr) =
                interrupted(&dir, &["-r", "http://h/"], page.as_bytes(), named, signal);
            let case = format!("signal {signal}, named {named}");
            assert_eq!(status, Some(code), "{case}: {stderr}");
            assert_eq!(stderr, "", "{case}");
            assert_eq!(names(&dir), ["out.html"], "{case}");
            assert_eq!(fs::read_to_string(dir.join("out.html")).unwrap(), "old");
        }
    }
}

/// The start of a WARC record whose page is still coming: the record says
/// more than comes, and the rest never does.
#[cfg(target_os = "linux")]
fn record_still_coming() -> String {
    let block = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=x>{}",
        " ".repeat(200 * 1024)
    );
    format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\nWARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: http://h/\r\nContent-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}",
        block.len() * 2
    )
}

/// The same for `--warc -o`: a record is coming when the signal comes.
#[cfg(target_os = "linux")]
#[test]
fn a_signal_ends_an_archive_run_leaving_the_target_as_it_was_and_no_file() {
    let record = record_still_coming();
    for named in [false, true] {
        for (signal, code) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
            let dir = tempfile::tempdir().unwrap();
            let dir = dir.path().canonicalize().unwrap();
            fs::write(dir.join("out.html"), "old").unwrap();
            let (status, stderr) =
                interrupted(&dir, &["--warc", "-q"], record.as_bytes(), named, signal);
            let case = format!("signal {signal}, named {named}");
            assert_eq!(status, Some(code), "{case}: {stderr}");
            assert_eq!(stderr, "", "{case}");
            assert_eq!(names(&dir), ["out.html"], "{case}");
            assert_eq!(fs::read_to_string(dir.join("out.html")).unwrap(), "old");
        }
    }
}

/// Where the output is staged with no name (`O_TMPFILE`), even SIGKILL,
/// which no program can catch, leaves nothing behind.
#[cfg(target_os = "linux")]
#[test]
fn sigkill_leaves_no_file_where_the_output_has_no_name_until_the_end() {
    let page = format!("<a href=x>{}", " ".repeat(200 * 1024));
    let record = record_still_coming();
    for (args, first) in [
        (&["-r", "http://h/"][..], &page),
        (&["--warc", "-q"], &record),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let dir = dir.path().canonicalize().unwrap();
        fs::write(dir.join("out.html"), "old").unwrap();
        let (status, _) = interrupted(&dir, args, first.as_bytes(), false, libc::SIGKILL);
        assert_eq!(status, None, "{args:?}: killed");
        assert_eq!(names(&dir), ["out.html"], "{args:?}");
        assert_eq!(fs::read_to_string(dir.join("out.html")).unwrap(), "old");
    }
}

/// A flag that belongs to one mode is refused outside it, with one line
/// that names the mode, before anything is read (issue: `--warc-mode
/// replace`, `--zstd-level`, `--site-url` and `--jobs` without their mode
/// were silently ignored; clap's `requires` does not see a flag with a
/// default value).
#[test]
fn a_flag_outside_its_mode_is_refused_naming_the_mode() {
    for (args, needs) in [
        (&["--warc-mode", "replace"][..], "--warc-mode needs --warc"),
        (&["--warc-mode", "conversion"], "--warc-mode needs --warc"),
        (&["--gzip-level", "6"], "--gzip-level needs --warc"),
        (&["--zstd-level", "3"], "--zstd-level needs --warc"),
        (
            &["--content-location"],
            "--content-location needs --http or --warc",
        ),
        (&["--strip-headers"], "--strip-headers needs --http"),
        (&["--site-url", "http://h/"], "--site-url needs --site"),
        (&["--out-dir", "out"], "--out-dir needs --site or --warc"),
        (&["--no-pretty-urls"], "--no-pretty-urls needs --site"),
        (&["--exclude", "*.x"], "--exclude needs --site"),
        (&["--follow-links"], "--follow-links needs --site"),
        (&["--fsync"], "--fsync needs --site"),
        (&["--jobs", "2"], "--jobs needs --site or --warc"),
        (&["--links"], "--links needs --warc"),
        (
            &["--http", "--zstd-level", "3"],
            "--zstd-level needs --warc",
        ),
    ] {
        let out = htmlabs()
            .args(["-r", "http://h/"])
            .args(args)
            .write_stdin(PAGE)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(out.stdout, b"", "{args:?}");
        assert_eq!(
            text(&out.stderr),
            format!("htmlabs: error: {needs}: without it, it would do nothing\n"),
            "{args:?}"
        );
    }
    // In their modes they are taken.
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("a.html"), PAGE).unwrap();
    htmlabs()
        .args([
            "--site",
            dir.path().to_str().unwrap(),
            "--site-url",
            "http://h/",
        ])
        .args(["--jobs", "2", "--fsync", "--no-pretty-urls", "-q"])
        .assert()
        .success();
}

/// `--links` writes no archive: the flags that only say how one is
/// written are refused beside it, one line naming both, before anything
/// is read; so are `-o` (with what to give instead) and `--check`.
#[test]
fn links_refuses_the_flags_of_an_archive_written() {
    for (args, flag) in [
        (&["--warc-mode", "replace"][..], "--warc-mode"),
        (&["--gzip-level", "6"], "--gzip-level"),
        (&["--zstd-level", "3"], "--zstd-level"),
    ] {
        let out = htmlabs()
            .args(["--warc", "--links"])
            .args(args)
            .write_stdin("")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(out.stdout, b"", "{args:?}");
        assert_eq!(
            text(&out.stderr),
            format!(
                "htmlabs: error: {flag} says how an archive is written, and --links writes none: it would do nothing\n"
            ),
            "{args:?}"
        );
    }
    for (args, line) in [
        (
            &["-o", "out.warc"][..],
            "--links writes no archive, only the link report (to standard output): give --report FILE to put it in a file, not -o",
        ),
        (&["--check"], "--links cannot be used with --check"),
    ] {
        let out = htmlabs()
            .args(["--warc", "--links"])
            .args(args)
            .write_stdin("")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            text(&out.stderr),
            format!("htmlabs: error: {line}\n"),
            "{args:?}"
        );
    }
    // `--report -` beside an archive on standard output names it too.
    let out = htmlabs()
        .args(["--warc", "--report", "-"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: --report - would mix the links with the archive on standard output: give -o FILE, --check or --links\n"
    );
    // An empty archive has no links, and that is no error.
    let out = htmlabs()
        .args(["--warc", "--links", "-q"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(out.stdout, b"");
}

/// `--generate` prints the man page and the completions of bash, zsh and
/// fish, from the flags' own definition: every flag is in each.
#[test]
fn generate_prints_the_man_page_and_completions_naming_every_flag() {
    for (what, start) in [
        ("man", ".ie \\n(.g .ds Aq"),
        ("complete-bash", "_htmlabs() {"),
        ("complete-zsh", "#compdef htmlabs"),
        ("complete-fish", ""),
    ] {
        let out = htmlabs().args(["--generate", what]).output().unwrap();
        assert!(out.status.success(), "{what}");
        let text = text(&out.stdout);
        assert!(
            text.starts_with(start),
            "{what}: {}",
            &text[..80.min(text.len())]
        );
        // roff escapes a flag's hyphens.
        let text = text.replace("\\-", "-");
        for flag in [
            "retrieved-from",
            "warc-mode",
            "site-url",
            "zstd-level",
            "generate",
        ] {
            assert!(text.contains(flag), "{what} lacks {flag}");
        }
    }
    // A man page's sections: EXIT STATUS with each status main.rs gives,
    // and EXAMPLES as typed, not filled into justified prose.
    let out = htmlabs().args(["--generate", "man"]).output().unwrap();
    let man = text(&out.stdout).to_string();
    let exit = man
        .split(".SH \"EXIT STATUS\"\n")
        .nth(1)
        .expect("the man page has EXIT STATUS");
    for status in ["0", "1", "2", "130, 143"] {
        assert!(
            exit.contains(&format!(".TP\n.B {status}\n")),
            "EXIT STATUS lacks {status}"
        );
    }
    let examples = man
        .split(".SH EXAMPLES\n")
        .nth(1)
        .expect("the man page has EXAMPLES");
    assert!(
        examples.starts_with(".nf\n.RS 4\nhtmlabs \\-\\-retrieved\\-from https://example.com/docs/page.html < page.html > out.html\n"),
        "{}",
        &examples[..200.min(examples.len())]
    );
    // Alone: with anything else it is a usage error.
    let out = htmlabs()
        .args(["--generate", "man", "-r", "http://h/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// `--check --report -`: the findings as JSON on standard output, the
/// check lines on standard error, status 1 (it was refused, and so was the
/// `--check` that `--report -`'s own message suggests).
#[test]
fn check_with_the_report_on_standard_output_puts_the_check_lines_on_standard_error() {
    let out = htmlabs()
        .args(["-r", "http://h/d/", "--check", "--report", "-"])
        .write_stdin(PAGE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(report.len(), 3);
    assert_eq!(report[1]["absolute"], "http://h/d/x?a=1&b=2");
    let checks: Vec<&str> = text(&out.stderr).lines().collect();
    assert_eq!(checks.len(), 3, "{checks:?}");
    assert_eq!(
        checks[0],
        "-:1:18: <link href> \"s.css\" -> \"http://h/d/s.css\""
    );
    // --report - beside the page on standard output stays refused.
    let out = htmlabs()
        .args(["-r", "http://h/d/", "--report", "-"])
        .write_stdin(PAGE)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: --report - would mix the links with the page on standard output: give -o FILE or --check\n"
    );
}

/// A check that cannot judge does not pass: a page with no base at all (no
/// `-r`, no `<base href>`) exits 2 saying why, not 0.
#[test]
fn check_on_a_page_with_no_base_fails_saying_why() {
    let out = htmlabs().arg("--check").write_stdin(PAGE).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stdout, b"");
    assert!(
        text(&out.stderr).ends_with(
            "htmlabs: error: cannot check standard input: it has no base URL (no `<base href>`, no --retrieved-from), so no link can be judged: give -r URL\n"
        ),
        "{}",
        text(&out.stderr)
    );
    // With a base of its own it is judged.
    let out = htmlabs()
        .arg("--check")
        .write_stdin(format!("<base href=http://h/>{PAGE}"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// An archive's output written on a thread of its own (`--jobs 2`) fails
/// as it does on the reading thread: one line naming it, status 2.
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_stops_an_archive_the_same_whatever_the_jobs() {
    let archive =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/warc/shapes.warc.gz");
    for jobs in ["1", "2", "3"] {
        let full = fs::File::create("/dev/full").unwrap();
        let out = StdCommand::new(BIN)
            .args(["--warc"])
            .arg(&archive)
            .args(["--jobs", jobs])
            .stdin(Stdio::null())
            .stdout(full)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--jobs {jobs}");
        assert_eq!(
            text(&out.stderr),
            "htmlabs: error: cannot write standard output: no space left on device (os error 28)\n",
            "--jobs {jobs}"
        );
    }
}

/// `-h` is short: the common flags, and where the rest is; `--help` has
/// every flag `-h` leaves out, and the examples.
#[test]
fn h_is_short_and_help_is_long() {
    let short = htmlabs().arg("-h").output().unwrap();
    let long = htmlabs().arg("--help").output().unwrap();
    assert!(short.status.success() && long.status.success());
    let (short, long) = (text(&short.stdout), text(&long.stdout));
    assert!(
        short.lines().count() * 4 < long.lines().count() * 3,
        "-h has {} lines, --help {}",
        short.lines().count(),
        long.lines().count()
    );
    for flag in [
        "--retrieved-from",
        "--output",
        "--http",
        "--warc",
        "--site",
        "--check",
        "--report",
    ] {
        assert!(short.contains(flag), "-h lacks {flag}");
    }
    for flag in [
        "--gzip-level",
        "--zstd-level",
        "--content-location",
        "--fsync",
        "--max-lookahead",
    ] {
        assert!(!short.contains(&format!("{flag} ")), "-h has {flag}");
        assert!(long.contains(flag), "--help lacks {flag}");
    }
    assert!(short.contains("--help has every flag") && !short.contains("Examples:"));
    assert!(long.contains("Examples:\n  htmlabs --retrieved-from"));
}

/// One page to standard output stages nothing: a signal ends it as it
/// ends `cat` (a shell's loop over pages stops on Ctrl-C), and no thread
/// was started to listen for one.
#[cfg(target_os = "linux")]
#[test]
fn a_page_to_standard_output_dies_of_a_signal_and_starts_no_thread() {
    use std::io::Write;
    use std::os::unix::process::{CommandExt, ExitStatusExt};
    for signal in [libc::SIGINT, libc::SIGTERM] {
        let mut command = StdCommand::new(BIN);
        command
            .args(["-r", "http://h/"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // As from a terminal: a shell's background job (as CI runs) has
        // SIGINT ignored, and an ignored signal stays ignored across exec.
        // SAFETY: signal(2) only, between fork and exec.
        unsafe {
            command.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGTERM, libc::SIG_DFL);
                Ok(())
            });
        }
        let mut child = command.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"<a href=x>").unwrap();
        // Sleeping in its read of standard input for a while: started.
        let stat = format!("/proc/{}/stat", child.id());
        let mut asleep = 0;
        for _ in 0..10_000 {
            let state = fs::read_to_string(&stat).unwrap_or_default();
            let state = state.rsplit(") ").next().unwrap_or("").chars().next();
            asleep = if state == Some('S') { asleep + 1 } else { 0 };
            if asleep == 50 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(asleep, 50, "the run never waited for its input");
        let status = fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
        assert!(status.contains("\nThreads:\t1\n"), "{status}");
        // SAFETY: kill(2) on our own child.
        unsafe { libc::kill(child.id() as i32, signal) };
        // Its input closed: were it alive, it would end rather than hang.
        drop(stdin);
        let out = child.wait_with_output().unwrap();
        assert_eq!(out.status.signal(), Some(signal), "{:?}", out.status);
    }
}
