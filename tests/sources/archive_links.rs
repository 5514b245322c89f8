//! `--warc ARCHIVE --check-links`: each link of each captured document
//! classed by what the archive holds for its URL (captured, the capture
//! nearest in time named; redirected, followed to where the chain ends;
//! captured as an error; not captured); each broken one a line, the
//! report's `status` for every one, the summary's counts, exit 1 when any
//! is broken; the same at every `--jobs`; what cannot go with it refused.

use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use super::tree::{html, on_archive, record, response};

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// The page that links to every case, one link a line.
const PAGE: &str = "<a href=\"/about\">nearest of two</a>\n\
<a href=\"/old\">a redirect to a capture</a>\n\
<a href=\"/gone\">an error</a>\n\
<a href=\"/moved\">a redirect to nothing</a>\n\
<a href=\"/missing.html\">not captured</a>\n\
<a href=\"/loop\">a loop</a>\n\
<a href=\"mailto:x@example.com\">not checked</a>\n\
<a href=\"https://other.example/x\">another host, not captured</a>\n\
<link rel=stylesheet href=\"/style.css\">\n\
<a href=\"http://EXAMPLE.com:80/about#team\">the same URL</a>\n\
<img srcset=\"/img/a.png 1x, /img/b.png 2x\">\n\
<a href=\"\">empty</a>\n\
<link rel=preconnect href=\"/an-origin\">\n";

fn redirect(status: &str, to: &str) -> Vec<u8> {
    response(
        status,
        &format!("Location: {to}\r\nContent-Length: 0\r\n"),
        b"",
    )
}

/// The archive: the page, what it links to, and records that capture
/// nothing (a request, a warcinfo).
fn archive() -> Vec<u8> {
    let ok = |body: &str| {
        response(
            "200 OK",
            &format!(
                "Content-Type: text/plain\r\nContent-Length: {}\r\n",
                body.len()
            ),
            body.as_bytes(),
        )
    };
    let records: Vec<Vec<u8>> = vec![
        record(
            "warcinfo",
            "",
            "2024-05-01T09:00:00Z",
            "0",
            b"software: test\r\n",
            "",
        ),
        record(
            "request",
            "https://example.com/",
            "2024-05-01T10:00:00Z",
            "1",
            b"GET / HTTP/1.1\r\n\r\n",
            "",
        ),
        record(
            "response",
            "https://example.com/",
            "2024-05-01T10:00:00Z",
            "2",
            &html(PAGE),
            "",
        ),
        record(
            "response",
            "https://example.com/about",
            "2024-04-01T00:00:00Z",
            "3",
            &html(
                "<a href=\"/\">home</a> <a href=\"HTTP://EXAMPLE.COM/missing.html#x\">again</a> <a href=\"/with space\">a space</a>",
            ),
            "",
        ),
        record(
            "response",
            "https://example.com/about",
            "2024-05-02T00:00:00Z",
            "4",
            &ok("later"),
            "",
        ),
        record(
            "response",
            "https://example.com/old",
            "2024-05-01T10:00:01Z",
            "5",
            &redirect("301 Moved Permanently", "/about"),
            "",
        ),
        record(
            "response",
            "https://example.com/gone",
            "2024-05-01T10:00:01Z",
            "6",
            &response("404 Not Found", "Content-Length: 0\r\n", b""),
            "",
        ),
        record(
            "response",
            "https://example.com/moved",
            "2024-05-01T10:00:01Z",
            "7",
            &redirect("302 Found", "https://example.com/nowhere"),
            "",
        ),
        record(
            "response",
            "https://example.com/loop",
            "2024-05-01T10:00:01Z",
            "8",
            &redirect("301 Moved Permanently", "/loop"),
            "",
        ),
        record(
            "response",
            "https://example.com/img/a.png",
            "2024-05-01T10:00:01Z",
            "9",
            &ok("png"),
            "",
        ),
        record(
            "revisit",
            "https://example.com/style.css",
            "2024-05-01T10:00:02Z",
            "10",
            &response("200 OK", "Content-Type: text/css\r\n", b""),
            "WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\nWARC-Refers-To: <urn:uuid:9>\r\n",
        ),
    ];
    records.concat()
}

/// Runs the check on `warc`: its status, standard output and error.
fn check(dir: &Path, warc: &[u8], args: &[&str]) -> (i32, String, String) {
    on_archive(dir, warc, &[&["--check-links"], args].concat())
}

#[test]
fn each_link_is_classed_by_what_the_archive_holds_and_each_broken_one_is_a_line() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = check(
        dir.path(),
        &archive(),
        &["--report", "links.jsonl", "--seeds", "seeds.txt"],
    );
    assert_eq!(code, 1, "{err}");
    // Each URL not captured once, where a redirect leads for one, in the
    // order the links came, a space percent-encoded.
    assert_eq!(
        fs::read_to_string(dir.path().join("seeds.txt")).unwrap(),
        "https://example.com/nowhere\nhttps://example.com/missing.html\nhttps://other.example/x\n\
         https://example.com/img/b.png\nhttps://example.com/with%20space\n"
    );
    // Lines and columns are the record block's, its HTTP head (four
    // lines) included, as `--warc --check` places a value.
    let expected = [
        r#"https://example.com/:7:10: <a href> "/gone" -> "https://example.com/gone": captured 2024-05-01T10:00:01Z as 404"#,
        r#"https://example.com/:8:10: <a href> "/moved" -> "https://example.com/moved": redirected to "https://example.com/nowhere", not captured"#,
        r#"https://example.com/:9:10: <a href> "/missing.html" -> "https://example.com/missing.html": not captured"#,
        r#"https://example.com/:10:10: <a href> "/loop" -> "https://example.com/loop": redirected to "https://example.com/loop", more than 20 redirects"#,
        r#"https://example.com/:12:10: <a href> "https://other.example/x" -> "https://other.example/x": not captured"#,
        r#"https://example.com/:15:29: <img srcset> "/img/b.png" -> "https://example.com/img/b.png": not captured"#,
        r##"https://example.com/about:5:31: <a href> "HTTP://EXAMPLE.COM/missing.html#x" -> "HTTP://EXAMPLE.COM/missing.html#x": not captured"##,
        r#"https://example.com/about:5:85: <a href> "/with space" -> "https://example.com/with space": not captured"#,
    ];
    assert_eq!(out.lines().collect::<Vec<_>>(), expected, "{err}");
    assert!(
        err.contains(
            "17 links checked: 6 captured, 1 redirected to a capture, 1 captured as an error, 7 not captured; 2 not checked"
        ),
        "{err}"
    );

    // The report: every link with what the archive answers.
    let report = fs::read_to_string(dir.path().join("links.jsonl")).unwrap();
    let lines: Vec<Value> = report
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let of = |original: &str| {
        lines
            .iter()
            .find(|l| l["original"] == original && l["target"] == "https://example.com/")
            .unwrap_or_else(|| panic!("no line for {original}"))
    };
    let about = of("/about");
    assert_eq!(
        (&about["status"], &about["capture"]),
        (
            &Value::from("captured"),
            &Value::from("2024-05-02T00:00:00Z")
        ),
        "the capture nearest in time to the page's"
    );
    let old = of("/old");
    assert_eq!(old["status"], "redirected");
    assert_eq!(old["redirect"], "https://example.com/about");
    assert_eq!(old["end"], "captured");
    let gone = of("/gone");
    assert_eq!(
        (&gone["status"], &gone["http"]),
        (&Value::from("failed"), &Value::from(404))
    );
    assert_eq!(of("/missing.html")["status"], "not-captured");
    assert_eq!(of("/loop")["end"], "redirect-loop");
    assert_eq!(
        of("/style.css")["status"],
        "captured",
        "a revisit of a response"
    );
    assert_eq!(of("http://EXAMPLE.com:80/about#team")["status"], "captured");
    assert!(of("mailto:x@example.com").get("status").is_none());
    // A `<link rel=preconnect>` names an origin: no capture is looked for.
    let origin = of("/an-origin");
    assert_eq!(origin["kind"], "origin");
    assert!(origin.get("status").is_none(), "{origin}");
    // An empty reference is the document itself.
    assert_eq!(of("")["status"], "captured");
    // The second page's link, from a capture a month before.
    let home = lines
        .iter()
        .find(|l| l["target"] == "https://example.com/about")
        .unwrap();
    assert_eq!(
        (&home["status"], &home["capture"]),
        (
            &Value::from("captured"),
            &Value::from("2024-05-01T10:00:00Z")
        )
    );
}

#[test]
fn the_check_says_the_same_at_every_jobs() {
    let dir = tempfile::tempdir().unwrap();
    let one = check(
        dir.path(),
        &archive(),
        &["--jobs", "1", "--report", "1.jsonl"],
    );
    let two = check(
        dir.path(),
        &archive(),
        &["--jobs", "2", "--report", "2.jsonl"],
    );
    assert_eq!((one.0, &one.1), (two.0, &two.1));
    assert_eq!(
        fs::read(dir.path().join("1.jsonl")).unwrap(),
        fs::read(dir.path().join("2.jsonl")).unwrap()
    );
    // The report on standard output, as a site's check gives it: the
    // broken links' lines go to standard error (nothing else is written).
    let (code, out, err) = check(dir.path(), &archive(), &["--report", "-", "-q"]);
    assert_eq!(code, one.0, "{err}");
    assert_eq!(out, fs::read_to_string(dir.path().join("1.jsonl")).unwrap());
    assert_eq!(err, one.1);
}

#[test]
fn an_archive_whose_links_are_all_captured_passes() {
    let dir = tempfile::tempdir().unwrap();
    let warc = [
        record(
            "response",
            "https://example.com/",
            "2024-05-01T10:00:00Z",
            "1",
            &html("<a href=/a>a</a> <a href=#top>top</a>"),
            "",
        ),
        record(
            "response",
            "https://example.com/a",
            "2024-05-01T10:00:00Z",
            "2",
            &html("<a href=/>home</a>"),
            "",
        ),
    ]
    .concat();
    let (code, out, err) = check(dir.path(), &warc, &[]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
    assert!(err.contains("3 links checked: 3 captured"), "{err}");
}

#[test]
fn what_cannot_go_with_an_archive_check_is_refused_before_anything_is_read() {
    let dir = tempfile::tempdir().unwrap();
    for (args, message) in [
        (
            &["-o", "out.warc"][..],
            "-o says how an archive is written, and --check-links writes none",
        ),
        (
            &["--warc-mode", "replace"][..],
            "--warc-mode says how an archive is written",
        ),
        (&["--host", "netlify"][..], "--host needs --site"),
        (&["--seeds", "in.warc"][..], "in.warc"),
    ] {
        let (code, out, err) = check(dir.path(), &archive(), args);
        assert_eq!((code, out.as_str()), (2, ""), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
        assert!(!dir.path().join("out.warc").exists());
    }
    // Read twice: a file, not standard input.
    let run = Command::new(BIN)
        .args(["--warc", "-", "--check-links"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("give it as FILE, not on standard input")
    );
}

/// An archive of 6,000 captures (a sixth of them redirects to the next)
/// and a page that links to every 37th of them and past them.
fn many_captures() -> Vec<u8> {
    let page: String = (0..6500)
        .step_by(37)
        .map(|i| format!("<a href=\"/p/{i}\">{i}</a>\n"))
        .collect();
    let mut records = vec![record(
        "response",
        "https://example.com/",
        "2024-05-01T10:00:00Z",
        "page",
        &html(&page),
        "",
    )];
    for i in 0..6000 {
        let block = match i % 5 {
            0 => redirect("301 Moved Permanently", &format!("/p/{}", i + 1)),
            _ => response("200 OK", "Content-Length: 0\r\n", b""),
        };
        let date = format!("2024-05-01T1{}:{:02}:{:02}Z", i / 3600, i / 60 % 60, i % 60);
        let url = format!("https://example.com/p/{i}");
        records.push(record(
            "response",
            &url,
            &date,
            &format!("r{i}"),
            &block,
            "",
        ));
    }
    records.concat()
}

/// Runs the check on `warc` with `TMPDIR` at `tmp`.
fn check_with_tmp(dir: &Path, warc: &[u8], tmp: &Path, args: &[&str]) -> (i32, String, String) {
    let input = dir.join("in.warc");
    fs::write(&input, warc).unwrap();
    let run = Command::new(BIN)
        .arg("--warc")
        .arg(&input)
        .arg("--check-links")
        .args(args)
        .env("TMPDIR", tmp)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        run.status.code().unwrap_or(-1),
        text(&run.stdout),
        text(&run.stderr),
    )
}

#[test]
fn captures_past_their_share_of_the_memory_limit_go_to_disk_and_check_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let tmp = dir.path().join("tmp");
    fs::create_dir(&tmp).unwrap();
    let warc = many_captures();
    // Their captures hold more than half of 512 KB, and the archive is
    // three times it.
    assert!(warc.len() > 3 * 512_000);
    let with = |jobs: &str, memory: &str, name: &str| {
        let (report, seeds) = (format!("{name}.jsonl"), format!("{name}.txt"));
        let args = ["--jobs", jobs, "--report", &report, "--seeds", &seeds];
        let args = [&args[..], &["--max-memory", memory]].concat();
        let (code, out, err) = check_with_tmp(dir.path(), &warc, &tmp, &args);
        let read = |f: &str| fs::read_to_string(dir.path().join(f)).unwrap();
        // The summary's counts, its time aside.
        let line = err.lines().last().unwrap_or_default();
        let counts = line.rsplit_once(", ").map_or(line, |(c, _)| c).to_owned();
        (code, out, counts, read(&report), read(&seeds))
    };
    let held = with("1", "1GB", "held");
    assert_eq!(held.0, 1, "{}", held.2);
    assert!(
        held.2.ends_with(
            "176 links checked: 130 captured, 33 redirected to a capture, 0 captured as an error, 13 not captured; 0 not checked, 0 warnings"
        ),
        "{}",
        held.2
    );
    for jobs in ["1", "2"] {
        let spilled = with(jobs, "512KB", &format!("spilled-{jobs}"));
        assert_eq!(spilled, held, "--jobs {jobs}");
    }
    // Nothing is left behind.
    assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);

    // Where they cannot go, a line says where, and nothing is checked.
    let (code, out, err) = check_with_tmp(
        dir.path(),
        &warc,
        &dir.path().join("none"),
        &["--max-memory", "512KB"],
    );
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("htmlabs: error: cannot write the captures of `")
            && err.contains("in.warc` to disk: cannot make a temporary file in `")
            && err.contains("none` (TMPDIR): no such file or directory"),
        "{err}"
    );
}

#[test]
fn captures_past_the_memory_limit_are_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out, err) = check(dir.path(), &archive(), &["--max-memory", "2KB"]);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.contains("need more than half the memory limit of 2000 bytes (--max-memory)"),
        "{err}"
    );
}

/// A caller that goes (a Python iterator dropped) stops the check: the
/// archive's next read fails, in either pass, and the run ends there.
#[test]
fn a_check_whose_caller_has_gone_stops_at_its_next_read() {
    use htmlabs::internal::Served;
    use htmlabs::internal::listener::{Document, Listener};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    /// Hears links, and says the caller has gone after `after` of them.
    struct Going {
        stop: Arc<AtomicBool>,
        heard: AtomicUsize,
        after: usize,
    }
    impl Listener for Going {
        fn hears_links(&self) -> bool {
            true
        }
        fn checked(&self, _: &Document<'_>, _: htmlabs::Link, _: Option<Served>) {
            if self.heard.fetch_add(1, Ordering::SeqCst) + 1 == self.after {
                self.stop.store(true, Ordering::SeqCst);
            }
        }
    }
    let dir = tempfile::tempdir().unwrap();
    // 2,000 pages of 20 links each.
    let page: String = (0..20).map(|i| format!("<a href=/p/{i}>")).collect();
    let warc: Vec<u8> = (0..2000)
        .flat_map(|i| {
            let url = format!("https://example.com/p/{i}");
            record(
                "response",
                &url,
                "2024-05-01T10:00:00Z",
                &i.to_string(),
                &html(&page),
                "",
            )
        })
        .collect();
    let archive = dir.path().join("in.warc");
    fs::write(&archive, warc).unwrap();
    let run = |after: usize, stopped: bool| {
        let going = Going {
            stop: Arc::new(AtomicBool::new(stopped)),
            heard: AtomicUsize::new(0),
            after,
        };
        let mut request = htmlabs::run::Request::default();
        request.jobs = Some(2);
        let job = htmlabs::run::Job::ArchiveLinks {
            archive: archive.clone(),
        };
        let result = htmlabs::internal::run_heard(&request, job, &going, &going.stop);
        (result.map(|s| s.line), going.heard.into_inner())
    };
    let (whole, all) = run(usize::MAX, false);
    assert!(whole.is_ok(), "{whole:?}");
    assert_eq!(all, 40_000);
    // Gone after the first link: the second pass stops a few records on.
    let (ended, heard) = run(1, false);
    let said = ended.unwrap_err().to_string();
    assert!(said.contains("the links are no longer read"), "{said}");
    assert!(heard < all / 10, "{heard} links heard of {all}");
    // Gone before the first: the first pass stops, and no link is heard.
    let (ended, heard) = run(usize::MAX, true);
    assert!(ended.is_err(), "{ended:?}");
    assert_eq!(heard, 0);
}
