//! `--warc ARCHIVE --out-dir DIR`: an archive made a tree of files that
//! opens from the disk. Each URL's latest capture is a file named from its
//! URL, its payload decoded; its links to other files saved are relative,
//! the rest absolute; redirects lead to their target's file, a revisit is
//! the response it names; what is not saved is listed with why; no name
//! leaves the tree. The whole of each file is compared.

use std::collections::BTreeMap;
use std::fs;
use std::io::Write;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// A WARC record: its type, target, date, ID and block, and more fields.
pub(crate) fn record(
    kind: &str,
    uri: &str,
    date: &str,
    id: &str,
    block: &[u8],
    more: &str,
) -> Vec<u8> {
    let content_type = "application/http; msgtype=response";
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:{id}>\r\nWARC-Date: {date}\r\n\
         WARC-Target-URI: {uri}\r\nContent-Type: {content_type}\r\n{more}Content-Length: {}\r\n\r\n",
        block.len()
    )
    .into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

pub(crate) fn response(status: &str, fields: &str, body: &[u8]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status}\r\n{fields}\r\n").into_bytes();
    out.extend_from_slice(body);
    out
}

pub(crate) fn html(body: &str) -> Vec<u8> {
    response(
        "200 OK",
        &format!(
            "Content-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n",
            body.len()
        ),
        body.as_bytes(),
    )
}

const INDEX: &str = "<link rel=stylesheet href=\"style.css?v=2\">\n\
    <a href=\"/about\">about</a> <a href=\"/about#team\">team</a> <a href=\"/old\">moved</a>\n\
    <img src=\"img/logo.png\"> <img src=\"/img/logo-copy.png\">\n\
    <a href=\"/missing.html\">gone</a> <a href=\"https://other.example/x\">elsewhere</a>\n\
    <a href=\"/%2e%2e/evil.html\">dots</a> <a href=\"http://EXAMPLE.com/news.html\">news</a>";

const INDEX_SAVED: &str = "<link rel=stylesheet href=\"style.css%3Fv=2.css\">\n\
    <a href=\"about.html\">about</a> <a href=\"about.html#team\">team</a> <a href=\"about.html\">moved</a>\n\
    <img src=\"img/logo.png\"> <img src=\"img/logo-copy.png\">\n\
    <a href=\"https://example.com/missing.html\">gone</a> <a href=\"https://other.example/x\">elsewhere</a>\n\
    <a href=\"%252e%252e/evil.html\">dots</a> <a href=\"news.html\">news</a>";

const PNG: &[u8] = b"\x89PNG\r\n\x1a\nnot much of an image";

/// The archive: every case, in the order a crawler might write them.
fn archive() -> Vec<u8> {
    let mut about = Vec::new();
    {
        let mut gz = flate2::write::GzEncoder::new(&mut about, flate2::Compression::default());
        gz.write_all(b"<a href=\"/\">home</a> <img src=\"/img/logo.png\">")
            .unwrap();
        gz.finish().unwrap();
    }
    // Gzip, then chunked: both undone in the file.
    let mut chunked = format!("{:x}\r\n", about.len()).into_bytes();
    chunked.extend_from_slice(&about);
    chunked.extend_from_slice(b"\r\n0\r\n\r\n");
    let about = response(
        "200 OK",
        "Content-Type: text/html\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n",
        &chunked,
    );
    let css = "body{background:url(img/bg.png)} h1{background:url(/img/logo.png)}";
    let png = response(
        "200 OK",
        &format!(
            "Content-Type: image/png\r\nContent-Length: {}\r\n",
            PNG.len()
        ),
        PNG,
    );
    let t = "2024-01-01T00:00:00Z";
    let records: Vec<Vec<u8>> = vec![
        record(
            "response",
            "https://example.com/",
            t,
            "00000000-0000-0000-0000-000000000001",
            &html(INDEX),
            "",
        ),
        record(
            "response",
            "https://example.com/about",
            t,
            "00000000-0000-0000-0000-000000000002",
            &about,
            "",
        ),
        record(
            "response",
            "https://example.com/style.css?v=2",
            t,
            "00000000-0000-0000-0000-000000000003",
            &response(
                "200 OK",
                &format!(
                    "Content-Type: text/css\r\nContent-Length: {}\r\n",
                    css.len()
                ),
                css.as_bytes(),
            ),
            "",
        ),
        record(
            "response",
            "https://example.com/img/logo.png",
            t,
            "00000000-0000-0000-0000-000000000004",
            &png,
            "WARC-Payload-Digest: sha1:LOGO\r\n",
        ),
        record(
            "revisit",
            "https://example.com/img/logo-copy.png",
            t,
            "00000000-0000-0000-0000-000000000005",
            &response("200 OK", "Content-Type: image/png\r\n", b""),
            "WARC-Refers-To: <urn:uuid:00000000-0000-0000-0000-000000000004>\r\nWARC-Payload-Digest: sha1:LOGO\r\n\
             WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest\r\n",
        ),
        record(
            "response",
            "https://example.com/old",
            t,
            "00000000-0000-0000-0000-000000000006",
            &response(
                "301 Moved Permanently",
                "Location: /about\r\nContent-Length: 0\r\n",
                b"",
            ),
            "",
        ),
        record(
            "response",
            "https://example.com/missing.html",
            t,
            "00000000-0000-0000-0000-000000000007",
            &response(
                "404 Not Found",
                "Content-Type: text/html\r\nContent-Length: 4\r\n",
                b"gone",
            ),
            "",
        ),
        record(
            "response",
            "https://example.com/%2e%2e/evil.html",
            t,
            "00000000-0000-0000-0000-000000000008",
            &html("<a href=\"/\">still inside</a>"),
            "",
        ),
        // The later capture of a page, written first.
        record(
            "response",
            "https://example.com/news.html",
            "2024-02-01T00:00:00Z",
            "00000000-0000-0000-0000-000000000009",
            &html("new"),
            "",
        ),
        record(
            "response",
            "https://example.com/news.html",
            "2023-12-01T00:00:00Z",
            "00000000-0000-0000-0000-000000000010",
            &html("old"),
            "",
        ),
    ];
    records.concat()
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
                let under = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned();
                found.insert(under, fs::read(&path).unwrap());
            }
        }
    }
    found
}

fn save(dir: &Path, warc: &[u8], args: &[&str]) -> (i32, String, String) {
    let out = dir.join("out");
    let out = out.to_str().unwrap();
    on_archive(dir, warc, &[&["--out-dir", out], args].concat())
}

/// Runs `htmlabs --warc IN ARGS` in `dir`, `IN` a file of `warc`'s
/// bytes: its status, standard output and error.
pub(crate) fn on_archive(dir: &Path, warc: &[u8], args: &[&str]) -> (i32, String, String) {
    let input = dir.join("in.warc");
    fs::write(&input, warc).unwrap();
    let run = Command::new(BIN)
        .arg("--warc")
        .arg(&input)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        run.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&run.stdout).into_owned(),
        String::from_utf8_lossy(&run.stderr).into_owned(),
    )
}

#[test]
fn an_archive_is_saved_as_files_whose_links_reach_each_other_from_the_disk() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = save(dir.path(), &archive(), &[]);
    assert_eq!(code, 0, "{stderr}");
    let out = dir.path().join("out");
    let saved = files(&out);
    let expected: BTreeMap<String, Vec<u8>> = [
        ("example.com/index.html", INDEX_SAVED.as_bytes().to_vec()),
        (
            "example.com/about.html",
            b"<a href=\"index.html\">home</a> <img src=\"img/logo.png\">".to_vec(),
        ),
        (
            "example.com/style.css?v=2.css",
            b"body{background:url(https://example.com/img/bg.png)} h1{background:url(img/logo.png)}".to_vec(),
        ),
        ("example.com/img/logo.png", PNG.to_vec()),
        ("example.com/img/logo-copy.png", PNG.to_vec()),
        (
            "example.com/%2e%2e/evil.html",
            b"<a href=\"../index.html\">still inside</a>".to_vec(),
        ),
        ("example.com/news.html", b"new".to_vec()),
    ]
    .into_iter()
    .map(|(path, bytes)| (path.to_owned(), bytes))
    .collect();
    for (path, bytes) in &expected {
        assert_eq!(
            saved
                .get(path)
                .map(|b| String::from_utf8_lossy(b).into_owned()),
            Some(String::from_utf8_lossy(bytes).into_owned()),
            "{path}"
        );
    }
    assert_eq!(
        saved.keys().collect::<Vec<_>>(),
        expected.keys().collect::<Vec<_>>(),
        "exactly these files, nothing outside the tree"
    );
    let out_shown = out.display();
    for line in [
        format!("saved\thttps://example.com/\t{out_shown}/example.com/index.html"),
        format!("redirect\thttps://example.com/old\t{out_shown}/example.com/about.html"),
        "not-saved\thttps://example.com/missing.html\tcaptured as 404".to_owned(),
    ] {
        assert!(stdout.lines().any(|l| l == line), "{line:?} in:\n{stdout}");
    }
    assert_eq!(stdout.lines().count(), 7 + 1 + 1, "{stdout}");
    assert!(stderr.contains("7 files saved"), "{stderr}");
    // Nothing beside the archive and the tree.
    let mut beside: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    beside.sort();
    assert_eq!(beside, ["in.warc", "out"]);

    // Saved again over it: the same files.
    let (code, _, stderr) = save(dir.path(), &archive(), &[]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(files(&out), saved, "a second run changes nothing");

    // On one thread or on several, a tiny memory limit or not: the same
    // files, the same list in the same order (the archive's).
    for args in [
        &["--jobs", "1"][..],
        &["--jobs", "3"],
        &["--jobs", "4", "--max-memory", "64KB"],
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (code, listed, stderr) = save(dir.path(), &archive(), args);
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(files(&dir.path().join("out")), saved, "{args:?}");
        let shown = dir.path().join("out").display().to_string();
        assert_eq!(
            listed.replace(&shown, "OUT"),
            stdout.replace(&out_shown.to_string(), "OUT"),
            "{args:?}"
        );
    }
}

/// A resource record as warcit writes a file of a site: its block the
/// payload itself, its type in the record's header.
fn resource(uri: &str, id: &str, content_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.0\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:{id}>\r\n\
         WARC-Date: 2024-01-01T00:00:00Z\r\nWARC-Target-URI: {uri}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
        payload.len()
    )
    .into_bytes();
    out.extend_from_slice(payload);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

#[test]
fn resource_records_are_saved_as_their_payload_of_the_type_their_header_says() {
    let dir = tempfile::tempdir().unwrap();
    let warc = [
        resource(
            "https://example.org/docs/",
            "00000000-0000-0000-0000-000000000001",
            "text/html; charset=utf-8",
            b"<link rel=stylesheet href=/site.css><a href=../about>about</a> <a href=/gone>gone</a>",
        ),
        resource(
            "https://example.org/site.css",
            "00000000-0000-0000-0000-000000000002",
            "text/css",
            b"body{background:url(img.png)}",
        ),
        resource(
            "https://example.org/img.png",
            "00000000-0000-0000-0000-000000000003",
            "image/png",
            PNG,
        ),
        // No type: a page by its bytes, as a browser sniffs it.
        resource(
            "https://example.org/about",
            "00000000-0000-0000-0000-000000000004",
            "",
            b"<a href=docs/>docs</a>",
        ),
        // Not a URL a file can be named from.
        resource(
            "metadata://gnu.org/software/wget/warc/MANIFEST.txt",
            "00000000-0000-0000-0000-000000000005",
            "text/plain",
            b"manifest",
        ),
    ]
    .concat();
    let (code, stdout, stderr) = save(dir.path(), &warc, &[]);
    assert_eq!(code, 0, "{stderr}");
    let saved = files(&dir.path().join("out"));
    let text = |path: &str| {
        saved
            .get(path)
            .map(|b| String::from_utf8_lossy(b).into_owned())
    };
    assert_eq!(
        text("example.org/docs/index.html").as_deref(),
        Some(
            "<link rel=stylesheet href=../site.css><a href=../about>about</a> <a href=https://example.org/gone>gone</a>"
        ),
    );
    assert_eq!(
        text("example.org/site.css").as_deref(),
        Some("body{background:url(img.png)}")
    );
    assert_eq!(
        saved.get("example.org/img.png").map(Vec::as_slice),
        Some(PNG)
    );
    assert_eq!(
        text("example.org/about").as_deref(),
        Some("<a href=docs/index.html>docs</a>")
    );
    assert_eq!(saved.len(), 4, "{:?}", saved.keys());
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("not-saved\tmetadata://gnu.org/")),
        "{stdout}"
    );
}

#[test]
fn links_to_what_the_archive_lacks_stay_as_written_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = save(dir.path(), &archive(), &["--missing", "as-written"]);
    assert_eq!(code, 0, "{stderr}");
    let index = fs::read_to_string(dir.path().join("out/example.com/index.html")).unwrap();
    assert!(
        index.contains("<a href=\"/missing.html\">gone</a>"),
        "{index}"
    );
    assert!(
        index.contains("<a href=\"https://other.example/x\">"),
        "{index}"
    );
}

#[test]
fn what_cannot_go_with_a_tree_is_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    for (args, says) in [
        (&["-o", "x.warc"][..], "-o cannot go with --warc --out-dir"),
        (&["--links"][..], "--links cannot go with --warc --out-dir"),
        (&["--jobs", "0"][..], "--jobs"),
    ] {
        let (code, stdout, stderr) = save(dir.path(), &archive(), args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
        assert!(stdout.is_empty());
        assert!(
            !dir.path().join("out").exists(),
            "{args:?}: nothing written"
        );
    }
    // An archive inside the tree could be written over.
    let out = dir.path().join("out");
    fs::create_dir_all(out.join("example.com")).unwrap();
    let inside = out.join("example.com/in.warc");
    fs::write(&inside, archive()).unwrap();
    let run = Command::new(BIN)
        .arg("--warc")
        .arg(&inside)
        .arg("--out-dir")
        .arg(&out)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("is inside --out-dir"), "{stderr}");
    assert_eq!(files(&out).len(), 1, "nothing but the archive");
    // Nor can standard output, where the URLs are listed.
    let elsewhere = dir.path().join("elsewhere");
    fs::create_dir_all(&elsewhere).unwrap();
    let list = fs::File::create(elsewhere.join("list.tsv")).unwrap();
    let run = Command::new(BIN)
        .arg("--warc")
        .arg(dir.path().join("in.warc"))
        .arg("--out-dir")
        .arg(&elsewhere)
        .stdout(list)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("standard output is inside --out-dir"),
        "{stderr}"
    );
    // Standard input cannot be read twice.
    let run = Command::new(BIN)
        .args(["--warc", "--out-dir"])
        .arg(dir.path().join("elsewhere"))
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("give it as FILE"), "{stderr}");
}

#[test]
fn the_capture_closest_to_a_date_is_saved_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let news = |dir: &Path| fs::read_to_string(dir.join("out/example.com/news.html")).unwrap();
    // Captured on 2024-02-01 ("new") and on 2023-12-01 ("old").
    for (at, saved) in [
        ("20231201", "old"),
        ("2023", "old"),
        ("2024-01-20T00:00:00Z", "new"),
        ("2023-12-15T00:00:00Z", "old"),
    ] {
        let _ = fs::remove_dir_all(dir.path().join("out"));
        let (code, _, stderr) = save(dir.path(), &archive(), &["--at", at]);
        assert_eq!(code, 0, "{at}: {stderr}");
        assert_eq!(news(dir.path()), saved, "--at {at}");
    }
    let (code, _, stderr) = save(dir.path(), &archive(), &["--at", "yesterday"]);
    assert_eq!(code, 2);
    assert_eq!(
        stderr,
        "htmlabs: error: --at needs a date (2024-05-01T10:00:00Z, or a timestamp of 4 to 14 digits: 20240501): `yesterday`\n"
    );
    let run = Command::new(BIN)
        .args(["--warc", "--at", "2024", "in.warc"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&run.stderr).contains("--at needs --out-dir"),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
}

#[test]
fn links_to_what_the_archive_lacks_lead_to_the_placeholder_when_asked() {
    let dir = tempfile::tempdir().unwrap();
    let (code, _, stderr) = save(dir.path(), &archive(), &["--missing", "placeholder"]);
    assert_eq!(code, 0, "{stderr}");
    let out = dir.path().join("out");
    let index = fs::read_to_string(out.join("example.com/index.html")).unwrap();
    assert!(
        index.contains("<a href=\"../_not-in-this-copy.html#https%3A%2F%2Fexample.com%2Fmissing.html\">gone</a>"),
        "{index}"
    );
    assert!(
        index.contains(
            "<a href=\"../_not-in-this-copy.html#https%3A%2F%2Fother.example%2Fx\">elsewhere</a>"
        ),
        "an archive's tree lacks every other site: {index}"
    );
    let css = fs::read_to_string(out.join("example.com/style.css?v=2.css")).unwrap();
    assert!(
        css.contains("url(../_not-in-this-copy.html#https%3A%2F%2Fexample.com%2Fimg%2Fbg.png)"),
        "{css}"
    );
    assert!(
        fs::read_to_string(out.join("_not-in-this-copy.html"))
            .unwrap()
            .contains("Not in this copy")
    );
}
