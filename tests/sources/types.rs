//! Every source reads every type of document (issue 33): one document
//! (`--type`, or its first bytes), `--http` (the response's media type, or
//! `--type`), `--site` (the file's extension, and an XML file's root) and
//! `--warc` (each record's media type), with `--check`, `--report` and
//! `-v` as for pages. The documents are the engines' golden cases
//! (fixtures/xml, fixtures/stylesheet), whose expected outputs the engine
//! tests hold: here each must come out of each source the same.

use crate::common;

use std::io::Write;
use std::path::Path;

use assert_cmd::Command;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

fn htmlabs() -> Command {
    let mut cmd = Command::new(BIN);
    cmd.env_remove("CLICOLOR_FORCE").env("NO_COLOR", "1");
    cmd
}

fn text(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("UTF-8 output")
}

/// A golden case of an engine: its input, its expected output, and the URL
/// it was retrieved from (its `args`: `-r URL`).
struct Golden {
    input: Vec<u8>,
    expected: Vec<u8>,
    url: String,
}

fn golden(case: &str) -> Golden {
    let dir = common::fixtures().join(case);
    let extension = if case.starts_with("xml/") {
        "xml"
    } else {
        "css"
    };
    let args = std::fs::read_to_string(dir.join("args")).unwrap();
    let args: Vec<&str> = args.lines().collect();
    assert_eq!(args.len(), 2, "{case}/args: -r URL");
    assert_eq!(args[0], "-r", "{case}/args: -r URL");
    Golden {
        input: std::fs::read(dir.join(format!("input.{extension}"))).unwrap(),
        expected: std::fs::read(dir.join(format!("expected.{extension}"))).unwrap(),
        url: args[1].to_owned(),
    }
}

// ------------------------------------------------------------ one document

#[test]
fn one_feed_sitemap_or_svg_is_told_by_its_first_bytes() {
    for case in [
        "xml/rss2-elements",
        "xml/atom-elements",
        "xml/rss1-rdf",
        "xml/sitemap",
        "xml/svg-sprite",
    ] {
        let g = golden(case);
        assert_ne!(g.input, g.expected, "{case} changes");
        // From standard input, and from a file.
        let out = htmlabs()
            .args(["-r", &g.url])
            .write_stdin(g.input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            text(&g.expected),
            "{case}, standard input"
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("doc");
        std::fs::write(&file, &g.input).unwrap();
        let out = htmlabs().args(["-r", &g.url]).arg(&file).output().unwrap();
        assert_eq!(text(&out.stdout), text(&g.expected), "{case}, a file");
    }
}

#[test]
fn type_says_what_the_first_bytes_cannot() {
    // A stylesheet is never told by its bytes.
    let g = golden("stylesheet/imports-and-image-sets");
    let out = htmlabs()
        .args(["-r", &g.url, "--type", "css"])
        .write_stdin(g.input.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), text(&g.expected));
    // Without it, the stylesheet is read as a page: its text is no URL.
    let out = htmlabs()
        .args(["-r", &g.url])
        .write_stdin(g.input.clone())
        .output()
        .unwrap();
    assert_eq!(out.stdout, g.input);

    // A feed read as a page: `--type html` wins over its first bytes, and
    // an element's text is no URL in a page.
    let feed = "<rss version=\"2.0\"><channel><link>./</link></channel></rss>";
    let out = htmlabs()
        .args(["-r", "http://h/feed/", "--type", "html"])
        .write_stdin(feed)
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), feed);
    // And a document that starts like nothing XML, read as XML.
    let out = htmlabs()
        .args(["-r", "http://h/feed/", "--type", "xml"])
        .write_stdin(" <channel><link>a</link></channel>")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), " <channel><link>a</link></channel>");
    let out = htmlabs()
        .args(["-r", "http://h/feed/", "--type", "xml"])
        .write_stdin("<rss><channel><link>a</link></channel></rss>")
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "<rss><channel><link>http://h/feed/a</link></channel></rss>"
    );
}

#[test]
fn verbose_says_the_type_and_what_decided_it() {
    let verbose = |args: &[&str], input: &str| {
        let out = htmlabs()
            .args(["-r", "http://h/a/", "-v"])
            .args(args)
            .write_stdin(input.to_owned())
            .output()
            .unwrap();
        let stderr = text(&out.stderr).to_owned();
        stderr.lines().next().unwrap_or_default().to_owned()
    };
    assert_eq!(
        verbose(&[], "<?xml version='1.0'?><urlset/>"),
        "htmlabs: type: XML (by its first bytes)"
    );
    assert_eq!(
        verbose(&["--type", "css"], "a{}"),
        "htmlabs: type: CSS (--type)"
    );
    // A page says nothing of it, as before other types were read.
    assert!(verbose(&[], "<p>").starts_with("htmlabs: encoding:"));
}

#[test]
fn type_is_refused_with_a_site_or_an_archive() {
    let dir = tempfile::tempdir().unwrap();
    let out = htmlabs()
        .args(["--site"])
        .arg(dir.path())
        .args(["--site-url", "http://h/", "--type", "xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: --type is for one document: with --site, each file's type is its extension's\n"
    );
    let out = htmlabs()
        .args(["--warc", "--type", "css"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: --type is for one document: with --warc, each record's type is its Content-Type's\n"
    );
    let out = htmlabs()
        .args(["--type", "json"])
        .write_stdin("")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "htmlabs: error: invalid value `json` for --type: it takes `html`, `css` or `xml`\n"
    );
}

#[test]
fn check_and_report_name_an_xml_path_and_a_css_place() {
    let g = golden("xml/rss2-elements");
    let out = htmlabs()
        .args(["-r", &g.url, "--check"])
        .write_stdin(g.input.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "links would change");
    let lines: Vec<&str> = text(&out.stdout).lines().collect();
    assert_eq!(lines.len(), 20);
    // The stylesheet a browser shows it with, by its processing
    // instruction's target.
    assert_eq!(
        lines[0],
        r#"-:2:40: <?xml-stylesheet href> "rss.xsl" -> "http://example.com/news/rss.xsl""#
    );
    assert_eq!(
        lines[1],
        r#"-:6:9: <rss/channel/link> "./" -> "http://example.com/news/""#
    );
    assert_eq!(
        lines[8],
        r#"-:19:7: <rss/channel/item/link> "2024/one.html" -> "http://example.com/news/2024/one.html""#
    );
    assert!(lines.contains(
        &r#"-:23:21: <rss/channel/item/enclosure url> "media/one.mp3" -> "http://example.com/news/media/one.mp3""#
    ));
    // HTML inside the feed: its path goes on into the fragment.
    assert!(lines.contains(
        &r#"-:27:73: <rss/channel/item/description/img src> "img/one.png" -> "http://example.com/news/img/one.png""#
    ));

    let g = golden("stylesheet/imports-and-image-sets");
    let out = htmlabs()
        .args(["-r", &g.url, "--type", "css", "--check", "--report", "-"])
        .write_stdin(g.input.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let check: Vec<&str> = text(&out.stderr).lines().collect();
    assert_eq!(
        check[0],
        r#"-:2:14: <css url> "reset.css" -> "http://h/a/b/reset.css""#
    );
    let report: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // A line for each value; the check names those that would change.
    let changing = report.iter().filter(|r| r["outcome"] == "rewritten");
    assert_eq!(changing.count(), check.len());
    assert!(report.len() > check.len());
    assert_eq!(
        report[0],
        serde_json::json!({
            "file": "-", "line": 2, "column": 14, "offset": 31, "element": "",
            "attribute": "", "kind": "css", "original": "reset.css",
            "absolute": "http://h/a/b/reset.css", "outcome": "rewritten",
            "base": "http://h/a/b/site.css", "layer": "retrieval"
        })
    );
    // Nothing to change: exit 0, nothing said.
    let out = htmlabs()
        .args(["-r", &g.url, "--type", "css", "--check"])
        .write_stdin(g.expected.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), "");
}

// ---------------------------------------------------------------- --http

/// A response around `body`, of `content_type` (none when empty), with a
/// true `Content-Length`.
fn response(content_type: &str, body: &[u8]) -> Vec<u8> {
    let mut r = b"HTTP/1.1 200 OK\r\n".to_vec();
    if !content_type.is_empty() {
        r.extend_from_slice(format!("Content-Type: {content_type}\r\n").as_bytes());
    }
    r.extend_from_slice(format!("Content-Length: {}\r\n\r\n", body.len()).as_bytes());
    r.extend_from_slice(body);
    r
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(bytes), &mut out).unwrap();
    out
}

/// The body of a response `htmlabs --http` wrote, and its
/// `Content-Length`, checked true.
fn body_of(out: &[u8]) -> Vec<u8> {
    let at = out.windows(4).position(|w| w == b"\r\n\r\n").unwrap() + 4;
    let head = text(&out[..at]);
    let body = out[at..].to_vec();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("Content-Length: "))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(length, body.len(), "a true Content-Length in {head}");
    body
}

#[test]
fn a_response_is_read_by_its_media_type() {
    for (content_type, case) in [
        ("application/rss+xml", "xml/rss2-elements"),
        ("application/atom+xml; charset=utf-8", "xml/atom-elements"),
        ("application/rdf+xml", "xml/rss1-rdf"),
        ("image/svg+xml", "xml/svg-sprite"),
        ("application/xml", "xml/sitemap"),
        ("text/xml", "xml/sitemap-index"),
        ("text/css", "stylesheet/imports-and-image-sets"),
        (
            "TEXT/CSS; charset=utf-8",
            "stylesheet/font-awesome-font-faces",
        ),
    ] {
        let g = golden(case);
        let out = htmlabs()
            .args(["--http", "-r", &g.url])
            .write_stdin(response(content_type, &g.input))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
        assert_eq!(
            text(&body_of(&out.stdout)),
            text(&g.expected),
            "{content_type}"
        );
        // Its body in gzip, chunked: decoded, rewritten, coded again.
        let mut chunked = Vec::new();
        let zipped = gzip(&g.input);
        for piece in zipped.chunks(100) {
            chunked.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
            chunked.extend_from_slice(piece);
            chunked.extend_from_slice(b"\r\n");
        }
        chunked.extend_from_slice(b"0\r\n\r\n");
        let mut coded = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n"
        )
        .into_bytes();
        coded.extend_from_slice(&chunked);
        let out = htmlabs()
            .args(["--http", "--strip-headers", "-r", &g.url])
            .write_stdin(coded.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{case}: {}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout),
            text(&g.expected),
            "{content_type}, coded"
        );
        let out = htmlabs()
            .args(["--http", "-r", &g.url])
            .write_stdin(coded)
            .output()
            .unwrap();
        let at = out
            .stdout
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap()
            + 4;
        let dechunked = dechunk(&out.stdout[at..]);
        assert_eq!(
            text(&gunzip(&dechunked)),
            text(&g.expected),
            "{content_type}, coded"
        );
    }
}

/// A chunked body's data.
fn dechunk(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(text(&body[..line]).trim(), 16).unwrap();
        body = &body[line + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

#[test]
fn a_response_of_another_type_is_written_as_it_came() {
    let config = b"<?xml version='1.0'?>\n<project><link>a.html</link></project>";
    for content_type in ["application/xml", "text/plain", "application/json"] {
        let input = response(content_type, config);
        let out = htmlabs()
            .args(["--http", "-r", "http://h/", "-v"])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(out.stdout, input, "{content_type}");
        let essence = content_type;
        assert!(
            text(&out.stderr).contains(&format!(
                "htmlabs: body: not a type htmlabs reads (`{essence}`): written as it came"
            )),
            "{}",
            text(&out.stderr)
        );
    }
    // `--type` overrides the media type.
    let g = golden("stylesheet/imports-and-image-sets");
    let out = htmlabs()
        .args(["--http", "--type", "css", "-r", &g.url, "-v"])
        .write_stdin(response("text/plain", &g.input))
        .output()
        .unwrap();
    assert_eq!(text(&body_of(&out.stdout)), text(&g.expected));
    assert!(
        text(&out.stderr).contains("htmlabs: type: CSS (--type)\n"),
        "{}",
        text(&out.stderr)
    );
    // No Content-Type: a feed by its first bytes.
    let g = golden("xml/atom-elements");
    let out = htmlabs()
        .args(["--http", "-r", &g.url, "-v"])
        .write_stdin(response("", &g.input))
        .output()
        .unwrap();
    assert_eq!(text(&body_of(&out.stdout)), text(&g.expected));
    assert!(
        text(&out.stderr).contains("htmlabs: type: XML (by its first bytes)\n"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_feed_or_a_stylesheet_in_a_response_is_the_same_however_it_is_written() {
    use htmlabs::http::{Options, Response};
    use htmlabs::{Config, Layers, Standard};
    for (content_type, case) in [
        ("application/rss+xml", "xml/rss2-elements"),
        ("image/svg+xml", "xml/svg-sprite"),
        ("text/css", "stylesheet/imports-and-image-sets"),
    ] {
        let g = golden(case);
        // Without Content-Length the body streams through the engine; with
        // it, it is held (its length comes first).
        for length in [false, true] {
            let mut input = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n");
            if length {
                input += &format!("Content-Length: {}\r\n", g.input.len());
            }
            let mut input = (input + "\r\n").into_bytes();
            input.extend_from_slice(&g.input);
            for size in [1, 2, 7, 100, 4095, 4097, usize::MAX] {
                let layers = Layers::default()
                    .with_retrieval(Standard::Rfc1808, &g.url, "-r")
                    .unwrap();
                let options = {
                    let mut options = Options::default();
                    options.strip_headers = true;
                    options
                };
                let mut rewriter = Response::new(Config::default(), layers, options, Vec::new());
                for chunk in input.chunks(size.min(input.len())) {
                    rewriter.write(chunk).unwrap();
                }
                let (report, out) = rewriter.end().unwrap();
                assert_eq!(
                    text(&out),
                    text(&g.expected),
                    "{case}, length {length}, writes of {size}"
                );
                assert!(report.document.unwrap().counts.rewritten > 0);
            }
        }
    }
}

// ---------------------------------------------------------------- --warc

fn sha1(bytes: &[u8]) -> String {
    use sha1::Digest;
    format!(
        "sha1:{}",
        data_encoding::BASE32.encode(&sha1::Sha1::digest(bytes))
    )
}

/// A record, its block's digest true.
fn record(n: usize, kind: &str, target: &str, content_type: &str, block: &[u8]) -> Vec<u8> {
    let mut out = format!(
        "WARC/1.1\r\nWARC-Type: {kind}\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-{n:012}>\r\nWARC-Date: 2024-05-01T00:00:00Z\r\nWARC-Target-URI: {target}\r\nContent-Type: {content_type}\r\nWARC-Block-Digest: {}\r\nContent-Length: {}\r\n\r\n",
        sha1(block),
        block.len()
    )
    .into_bytes();
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

/// A response of `content_type` around `body`, in gzip and chunked (in
/// pieces of 100 bytes) when asked.
fn http_block(content_type: &str, body: &[u8], zipped: bool, chunked: bool) -> Vec<u8> {
    let mut head = format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n");
    let body = if zipped {
        head += "Content-Encoding: gzip\r\n";
        gzip(body)
    } else {
        body.to_vec()
    };
    let body = if chunked {
        head += "Transfer-Encoding: chunked\r\n";
        let mut out = Vec::new();
        for piece in body.chunks(100) {
            out.extend_from_slice(format!("{:x}\r\n", piece.len()).as_bytes());
            out.extend_from_slice(piece);
            out.extend_from_slice(b"\r\n");
        }
        out.extend_from_slice(b"0\r\n\r\n");
        out
    } else {
        head += &format!("Content-Length: {}\r\n", body.len());
        body
    };
    let mut out = (head + "\r\n").into_bytes();
    out.extend_from_slice(&body);
    out
}

/// A record's target URI, its new block (`None`: no new record) and the
/// media type a conversion names.
type Expected = (String, Option<Vec<u8>>, &'static str);

/// The archive of every type: responses (RSS in gzip and chunked, Atom in
/// gzip, a stylesheet chunked, SVG, a sitemap as `application/xml`, an XML
/// file of no vocabulary, a page) and a stylesheet as a resource; each
/// with the URL it is expected to be rewritten against, and its expected
/// block (`None`: no conversion).
fn archive() -> (Vec<Vec<u8>>, Vec<Expected>) {
    let mut records = Vec::new();
    let mut expected = Vec::new();
    let responses = [
        ("xml/rss2-elements", "application/rss+xml", true, true),
        (
            "xml/atom-elements",
            "application/atom+xml; charset=utf-8",
            true,
            false,
        ),
        ("stylesheet/imports-and-image-sets", "text/css", false, true),
        ("xml/svg-sprite", "image/svg+xml", false, false),
        ("xml/sitemap", "application/xml", false, false),
    ];
    for (i, (case, content_type, zipped, chunked)) in responses.into_iter().enumerate() {
        let g = golden(case);
        let block = http_block(content_type, &g.input, zipped, chunked);
        let msgtype = "application/http; msgtype=response";
        records.push(record(i + 1, "response", &g.url, msgtype, &block));
        let essence = content_type.split(';').next().unwrap();
        expected.push((g.url, Some(g.expected), essence));
    }
    let config = b"<?xml version='1.0'?>\n<project><link>a.html</link></project>";
    let block = http_block("application/xml", config, false, false);
    let msgtype = "application/http; msgtype=response";
    records.push(record(10, "response", "http://h/pom.xml", msgtype, &block));
    expected.push(("http://h/pom.xml".to_owned(), None, ""));
    let block = http_block("text/html", b"<a href=b.html>b</a>", true, true);
    records.push(record(11, "response", "http://h/a/", msgtype, &block));
    expected.push((
        "http://h/a/".to_owned(),
        Some(b"<a href=http://h/a/b.html>b</a>".to_vec()),
        "text/html",
    ));
    let g = golden("stylesheet/font-awesome-font-faces");
    records.push(record(12, "resource", &g.url, "text/css", &g.input));
    expected.push((g.url, Some(g.expected), "text/css"));
    (records, expected)
}

fn member(bytes: &[u8]) -> Vec<u8> {
    gzip(bytes)
}

#[test]
fn an_archives_feeds_stylesheets_and_svg_are_rewritten_and_read_back_by_warcio() {
    let Some(python) = common::warc_python("an_archives_feeds_stylesheets_and_svg") else {
        return;
    };
    let (records, expected) = archive();
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("types.warc");
    std::fs::write(&plain, records.concat()).unwrap();
    let zipped = dir.path().join("types.warc.gz");
    let members: Vec<Vec<u8>> = records.iter().map(|r| member(r)).collect();
    std::fs::write(&zipped, members.concat()).unwrap();
    for input in [&plain, &zipped] {
        for (mode, flags) in [("conversion", &[][..]), ("replace", &["--replace"][..])] {
            let output = dir.path().join(format!(
                "out-{mode}-{}",
                input.file_name().unwrap().to_string_lossy()
            ));
            let out = htmlabs()
                .arg("--warc")
                .arg(input)
                .arg("-o")
                .arg(&output)
                .args(["--warc-mode", mode])
                .output()
                .unwrap();
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{stderr}");
            let line = stderr.lines().last().unwrap();
            let (counts, _) = line.rsplit_once(", ").unwrap();
            let added = if mode == "replace" {
                "7 replaced, 0 conversions added"
            } else {
                "7 conversions added"
            };
            assert_eq!(
                counts,
                format!(
                    "htmlabs: 8 records, 1 HTML rewritten, 2 CSS rewritten, 4 XML rewritten, {added}, 88 URLs rewritten, 0 warnings"
                ),
                "{}",
                input.display()
            );
            let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/warc_check.py");
            let run = std::process::Command::new(&python)
                .arg(script)
                .arg(BIN)
                .arg(input)
                .arg(&output)
                .args(flags)
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "{}: {}",
                output.display(),
                String::from_utf8_lossy(&run.stderr)
            );
            // Each new block (a conversion's, a replacement's payload):
            // the engine's golden output, under its own media type.
            let found: Vec<(String, String, Vec<u8>)> = text(&run.stdout)
                .lines()
                .map(|l| {
                    let f: Vec<&str> = l.split('\t').collect();
                    let block = data_encoding::BASE64.decode(f[2].as_bytes()).unwrap();
                    (f[0].to_owned(), f[1].to_owned(), block)
                })
                .collect();
            for (url, block, essence) in &expected {
                let got: Vec<_> = found.iter().filter(|f| &f.0 == url).collect();
                match block {
                    None => assert!(got.is_empty(), "{url}: no new record"),
                    Some(block) => {
                        assert_eq!(got.len(), 1, "{url}: one new record in {mode} mode");
                        assert_eq!(text(&got[0].2), text(block), "{url}");
                        if got[0].1 != "replaced" {
                            assert!(
                                got[0].1.starts_with(&format!("{essence}; charset=")),
                                "{url}: {}",
                                got[0].1
                            );
                        }
                    }
                }
            }
        }
    }
}

// ---------------------------------------------------------------- --site

/// A small built site: a feed at its golden URL, a real feed, a sitemap,
/// a stylesheet, an SVG sprite, a page, and an XML file that is none of
/// them; each file's path and bytes.
fn site_files() -> Vec<(&'static str, Vec<u8>)> {
    let real = common::fixtures().join("feeds/node-feedparser/rss-with-relative-urls.xml");
    vec![
        ("news/rss.xml", golden("xml/rss2-elements").input),
        ("games/feed.rss", std::fs::read(real).unwrap()),
        ("sitemap.xml", golden("xml/sitemap").input),
        (
            "css/site.css",
            golden("stylesheet/imports-and-image-sets").input,
        ),
        ("icons/sprite.svg", golden("xml/svg-sprite").input),
        (
            "about/index.html",
            b"<link href=../css/site.css><a href=team.html>".to_vec(),
        ),
        (
            "pom.xml",
            b"<?xml version='1.0'?>\n<project><url>docs/</url></project>\n".to_vec(),
        ),
    ]
}

fn build(root: &Path) {
    for (path, bytes) in site_files() {
        let file = root.join(path);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(file, bytes).unwrap();
    }
}

/// What one document's run makes of `bytes` retrieved from `url`.
fn alone(url: &str, kind: &str, bytes: &[u8]) -> Vec<u8> {
    let out = htmlabs()
        .args(["-r", url, "--type", kind])
        .write_stdin(bytes.to_vec())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    out.stdout
}

#[test]
fn a_sites_feeds_sitemap_stylesheet_and_svg_are_rewritten_at_their_own_urls() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    build(&site);
    let url = "http://example.com/";
    let expected = |path: &str, bytes: &[u8]| -> Vec<u8> {
        let kind = match path.rsplit_once('.').unwrap().1 {
            "css" => "css",
            "html" => "html",
            _ if path == "pom.xml" => return bytes.to_vec(),
            _ => "xml",
        };
        let file_url = format!("{url}{}", path.trim_end_matches("index.html"));
        alone(&file_url, kind, bytes)
    };
    let line = "htmlabs: 6 documents (1 HTML, 1 CSS, 4 XML): 6 would change, 0 unchanged, 0 failed; 65 URLs would change; 0 warnings; 1 other XML file left as it is";
    let seconds = |stderr: &str| stderr.trim_end().rsplit_once("; ").unwrap().0.to_owned();

    // --check: nothing written, a line for each value that would change.
    let out = htmlabs()
        .arg("--site")
        .arg(&site)
        .args(["--site-url", url, "--check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(seconds(text(&out.stderr)), line);
    let shown = site.join("news/rss.xml").display().to_string();
    assert!(text(&out.stdout).contains(&format!(
        "{shown}:19:7: <rss/channel/item/link> \"2024/one.html\" -> \"http://example.com/news/2024/one.html\"\n"
    )));
    let shown = site.join("css/site.css").display().to_string();
    assert!(text(&out.stdout).contains(&format!(
        "{shown}:2:14: <css url> \"reset.css\" -> \"http://example.com/css/reset.css\"\n"
    )));
    assert!(!text(&out.stdout).contains("pom.xml"));
    for (path, bytes) in site_files() {
        assert_eq!(std::fs::read(site.join(path)).unwrap(), bytes, "{path}");
    }

    // Into a copy, with the report: each file as one document's run at
    // its URL makes it; the other XML byte for byte.
    let copy = dir.path().join("copy");
    let report = dir.path().join("links.jsonl");
    let out = htmlabs()
        .arg("--site")
        .arg(&site)
        .args(["--site-url", url, "--out-dir"])
        .arg(&copy)
        .arg("--report")
        .arg(&report)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        seconds(text(&out.stderr)),
        "htmlabs: 6 documents (1 HTML, 1 CSS, 4 XML): 6 rewritten, 0 unchanged, 0 failed; 65 URLs rewritten; 0 warnings; 1 other XML file left as it is; other files: 0 hard-linked, 0 copied"
    );
    for (path, bytes) in site_files() {
        let made = std::fs::read(copy.join(path)).unwrap();
        assert_eq!(text(&made), text(&expected(path, &bytes)), "{path}");
        assert_eq!(made != bytes, path != "pom.xml", "{path} changed");
        assert_eq!(
            std::fs::read(site.join(path)).unwrap(),
            bytes,
            "{path} in place"
        );
    }
    assert_eq!(
        std::fs::read(copy.join("news/rss.xml")).unwrap(),
        golden("xml/rss2-elements").expected
    );
    let lines: Vec<serde_json::Value> = std::fs::read_to_string(&report)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let in_file = |name: &str| {
        let file = site.join(name).display().to_string();
        lines.iter().filter(|l| l["file"] == file.as_str()).count()
    };
    assert_eq!(in_file("news/rss.xml"), 20);
    assert!(in_file("sitemap.xml") > 0 && in_file("icons/sprite.svg") > 0);
    assert_eq!(in_file("pom.xml"), 0);

    // In place: the same files; a second run changes nothing.
    let out = htmlabs()
        .arg("--site")
        .arg(&site)
        .args(["--site-url", url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for (path, _) in site_files() {
        assert_eq!(
            std::fs::read(site.join(path)).unwrap(),
            std::fs::read(copy.join(path)).unwrap(),
            "{path}"
        );
    }
    let out = htmlabs()
        .arg("--site")
        .arg(&site)
        .args(["--site-url", url, "--check"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        seconds(text(&out.stderr)),
        "htmlabs: 6 documents (1 HTML, 1 CSS, 4 XML): 0 would change, 6 unchanged, 0 failed; 0 URLs would change; 0 warnings; 1 other XML file left as it is"
    );
}

#[test]
fn a_site_of_pages_alone_says_its_line_as_before() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.html"), "<a href=b.html>").unwrap();
    std::fs::write(dir.path().join("b.txt"), "a.html").unwrap();
    let out = htmlabs()
        .arg("--site")
        .arg(dir.path())
        .args(["--site-url", "http://h/", "--check"])
        .output()
        .unwrap();
    assert!(
        text(&out.stderr).starts_with(
            "htmlabs: 1 HTML file: 1 would change, 0 unchanged, 0 failed; 1 URL would change; 0 warnings; "
        ),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_sites_feed_longer_than_its_share_streams_and_one_past_the_limit_is_left() {
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("site");
    let g = golden("xml/rss2-elements");
    std::fs::create_dir_all(site.join("news")).unwrap();
    std::fs::write(site.join("news/rss.xml"), &g.input).unwrap();
    // Not read whole (past an eighth of its share, half the limit): read
    // from its file, its first bytes too.
    let limit = (g.input.len() * 16 - 16).to_string();
    let out = htmlabs()
        .arg("--site")
        .arg(&site)
        .args(["--site-url", "http://example.com/", "--max-memory", &limit])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&std::fs::read(site.join("news/rss.xml")).unwrap()),
        text(&g.expected)
    );
    // A value past the limit: the file is left as it was, and the run fails.
    let big = std::fs::read(common::fixtures().join("xml/memory-limit/input.xml")).unwrap();
    std::fs::write(site.join("big.xml"), &big).unwrap();
    let out = htmlabs()
        .arg("--site")
        .arg(&site)
        .args(["--site-url", "http://h/d/", "--max-memory", "8000"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(site.join("big.xml")).unwrap(), big);
    let big = site.join("big.xml").display().to_string();
    assert!(
        text(&out.stderr).contains(&format!(
            "htmlabs: error: `{big}`: left as it was: rewriting stopped at the memory limit (--max-memory)\n"
        )),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_sites_feed_that_is_not_well_formed_is_left_as_it_was_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let feed = b"<rss><channel><link>a.html</link><item></channel></rss>";
    std::fs::write(dir.path().join("feed.rss"), feed).unwrap();
    let out = htmlabs()
        .arg("--site")
        .arg(dir.path())
        .args(["--site-url", "http://h/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(std::fs::read(dir.path().join("feed.rss")).unwrap(), feed);
    let name = dir.path().join("feed.rss").display().to_string();
    let lines: Vec<&str> = text(&out.stderr).lines().collect();
    assert_eq!(
        lines[..2],
        [
            format!(
                "htmlabs: warning: {name}: not well-formed XML at byte 39: `</channel>` ends `<item>`: rewriting stopped there, the rest is copied unchanged"
            ),
            format!("htmlabs: error: `{name}`: left as it was: it is not well-formed XML"),
        ]
    );
}

#[test]
fn a_page_that_starts_with_an_inline_svg_is_a_page() {
    // HTML's inline <svg> needs no namespace; an SVG document does (its
    // elements are SVG's only in it): without one, and without `<?xml`,
    // the first bytes say a page.
    let dir = common::fixtures().join("filter/svg-sprites");
    let input = std::fs::read(dir.join("input.html")).unwrap();
    let expected = std::fs::read(dir.join("expected.html")).unwrap();
    for page in [input.clone(), [&b"<!DOCTYPE html>"[..], &input].concat()] {
        let out = htmlabs()
            .args(["-r", "http://h/d/p"])
            .write_stdin(page.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(
            text(&out.stdout[page.len() - input.len()..]),
            text(&expected)
        );
    }
    // An SVG document, in its namespace: XML.
    let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"><image href=\"pic.png\"/></svg>";
    let out = htmlabs()
        .args(["-r", "http://h/d/p", "-v"])
        .write_stdin(svg)
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        "<svg xmlns=\"http://www.w3.org/2000/svg\"><image href=\"http://h/d/pic.png\"/></svg>"
    );
    assert!(text(&out.stderr).starts_with("htmlabs: type: XML (by its first bytes)\n"));
}

// ------------------------------------------------ XHTML, and long prologs

/// An XHTML 1.0 page as its authors serve it (`text/html`): an XML
/// declaration, the XHTML namespace, a stylesheet before its `<base
/// href>`, and an HTML-ism (`<br>`, an unclosed `<img>`) before more links.
const XHTML_PAGE: &str = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">\n\
<html xmlns=\"http://www.w3.org/1999/xhtml\"><head><link rel=\"stylesheet\" href=\"s.css\"/>\
<base href=\"http://cdn.example/sub/\"/></head>\
<body><p>a<br>b</p><a href=\"page.html\">x</a><img src=\"i.png\"></body></html>\n";

#[test]
fn an_xhtml_page_alone_is_a_page_and_keeps_its_base_href() {
    let expected = XHTML_PAGE
        .replace("\"s.css\"", "\"http://cdn.example/sub/s.css\"")
        .replace("\"page.html\"", "\"http://cdn.example/sub/page.html\"")
        .replace("\"i.png\"", "\"http://cdn.example/sub/i.png\"");
    // By its first bytes, and with `--type html`: the page engine, as a
    // browser given it as `text/html` reads it.
    for args in [&[][..], &["--type", "html"]] {
        let out = htmlabs()
            .args(["-r", "http://h/d/page.html", "-v"])
            .args(args)
            .write_stdin(XHTML_PAGE)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected, "{args:?}");
        assert!(
            text(&out.stderr).contains(
                "htmlabs: base: `http://cdn.example/sub/` (embedded <base href> at byte 247)\n"
            ),
            "{}",
            text(&out.stderr)
        );
    }
    // Read as XML (`--type xml`, as a browser reads it given as
    // `application/xhtml+xml`), its `<base href>` is its base too; where
    // it is not well-formed, rewriting stops, as a browser's XML parser.
    let well_formed = XHTML_PAGE
        .replace("<br>", "<br/>")
        .replace("\"i.png\">", "\"i.png\"/>");
    let out = htmlabs()
        .args(["-r", "http://h/d/page.html", "--type", "xml", "-v"])
        .write_stdin(well_formed.clone())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let expected = well_formed
        .replace("\"s.css\"", "\"http://cdn.example/sub/s.css\"")
        .replace("\"page.html\"", "\"http://cdn.example/sub/page.html\"")
        .replace("\"i.png\"", "\"http://cdn.example/sub/i.png\"");
    assert_eq!(text(&out.stdout), expected);
    assert!(
        text(&out.stderr).contains("htmlabs: lookahead: ended at the `<base href>` at byte 247\n"),
        "{}",
        text(&out.stderr)
    );
}

/// A feed, a sitemap and a DOCTYPE'd RSS feed whose root comes after more
/// than the first 4 KiB: a licence comment, a long internal subset.
fn long_prologs() -> Vec<(&'static str, String, String)> {
    let licence = format!(
        "<!--\n{}-->\n",
        "  Licensed under the Apache License.\n".repeat(200)
    );
    let subset = format!(
        "<!DOCTYPE rss [\n{}]>\n",
        "  <!ENTITY a \"an entity of the feed's own\">\n".repeat(120)
    );
    let atom = format!(
        "{licence}<feed xmlns=\"http://www.w3.org/2005/Atom\"><link href=\"a.html\"/></feed>\n"
    );
    let sitemap = format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{licence}<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>a/</loc></url></urlset>\n"
    );
    let rss = format!(
        "<?xml version=\"1.0\"?>\n{subset}<rss version=\"2.0\"><channel><link>a/</link></channel></rss>\n"
    );
    vec![
        (
            "feed.atom",
            atom.clone(),
            atom.replace("\"a.html\"", "\"http://h/d/a.html\""),
        ),
        (
            "sitemap.xml",
            sitemap.clone(),
            sitemap.replace("<loc>a/", "<loc>http://h/d/a/"),
        ),
        (
            "rss.xml",
            rss.clone(),
            rss.replace("<link>a/", "<link>http://h/d/a/"),
        ),
    ]
}

#[test]
fn a_prolog_past_the_first_bytes_does_not_hide_the_root() {
    for (name, input, expected) in long_prologs() {
        assert!(input.find('<').unwrap() < 100 && input.len() > 5000);
        // Alone.
        let out = htmlabs()
            .args(["-r", "http://h/d/x"])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected, "{name} alone");
        // A response of `application/xml`, streamed (no length) and held.
        for length in [false, true] {
            let mut response = "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\n".to_owned();
            if length {
                response += &format!("Content-Length: {}\r\n", input.len());
            }
            let response = response + "\r\n" + &input;
            let out = htmlabs()
                .args(["--http", "--strip-headers", "-r", "http://h/d/x"])
                .write_stdin(response)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
            assert_eq!(
                text(&out.stdout),
                expected,
                "{name} in a response, length {length}"
            );
        }
    }
    // A site's files, by their extension and then their root.
    let dir = tempfile::tempdir().unwrap();
    for (name, input, _) in long_prologs() {
        std::fs::write(dir.path().join(name), input).unwrap();
    }
    let out = htmlabs()
        .arg("--site")
        .arg(dir.path())
        .args(["--site-url", "http://h/d/"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for (name, _, expected) in long_prologs() {
        let made = std::fs::read_to_string(dir.path().join(name)).unwrap();
        assert_eq!(made, expected, "{name} in a site");
    }
    // Past `--max-lookahead`, the first bytes tell what they can: with no
    // `<?xml`, a page, whose `<link>` text is no URL.
    let (_, atom, _) = long_prologs().remove(0);
    let rss = atom.replace(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\"><link href=\"a.html\"/></feed>",
        "<rss version=\"2.0\"><channel><link>a/</link></channel></rss>",
    );
    let out = htmlabs()
        .args(["-r", "http://h/d/x", "--max-lookahead", "4096"])
        .write_stdin(rss.clone())
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), rss, "read as a page");
    let out = htmlabs()
        .args(["-r", "http://h/d/x"])
        .write_stdin(rss.clone())
        .output()
        .unwrap();
    assert_eq!(
        text(&out.stdout),
        rss.replace("<link>a/", "<link>http://h/d/a/")
    );
}

/// `text` in UTF-16LE, without a byte order mark.
fn utf16le(text: &str) -> Vec<u8> {
    text.encode_utf16().flat_map(u16::to_le_bytes).collect()
}

#[test]
fn utf_16_without_a_byte_order_mark_is_read_by_appendix_f_or_by_the_encoding_given() {
    // `<?` in UTF-16: XML 1.0 Appendix F tells it.
    let feed = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss version=\"2.0\"><channel><link>a/</link></channel></rss>";
    let out = htmlabs()
        .args(["-r", "http://h/d/x", "-v"])
        .write_stdin(utf16le(feed))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        out.stdout,
        utf16le(&feed.replace("<link>a/", "<link>http://h/d/a/"))
    );
    assert!(
        text(&out.stderr).starts_with(
            "htmlabs: type: XML (by its first bytes)\nhtmlabs: encoding: UTF-16LE (XML declaration)\n"
        ),
        "{}",
        text(&out.stderr)
    );
    // No declaration: `--encoding` tells it, to the sniffing too.
    let bare = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\"><url><loc>a/</loc></url></urlset>";
    let out = htmlabs()
        .args(["-r", "http://h/d/x", "--encoding", "utf-16le"])
        .write_stdin(utf16le(bare))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        out.stdout,
        utf16le(&bare.replace("<loc>a/", "<loc>http://h/d/a/"))
    );
}

/// A page a browser reads as XML, as each source knows it (an `.xhtml`
/// file; `application/xhtml+xml`, in a response or an archive's record):
/// its `<?xml-stylesheet?>` outside the root element is a link. Served as
/// HTML (an `.html` file, `text/html`, a page alone on standard input),
/// the same instruction is a comment, and stays.
#[test]
fn a_page_served_as_xml_has_its_stylesheets_read_by_every_source() {
    const URL: &str = "https://example.com/d/p";
    let page = |sheet: &str, link: &str| {
        format!(
            "<?xml-stylesheet href=\"{sheet}\"?>\n<html xmlns=\"http://www.w3.org/1999/xhtml\"><body><a href=\"{link}\">a</a></body></html>\n"
        )
    };
    let input = page("s.css", "a.html");
    let as_xml = page(
        "https://example.com/d/s.css",
        "https://example.com/d/a.html",
    );
    let as_html = page("s.css", "https://example.com/d/a.html");
    // One document: by its file's name; alone on standard input, by its
    // first bytes, as HTML.
    let dir = tempfile::tempdir().unwrap();
    for (name, expected) in [
        ("p.xhtml", &as_xml),
        ("P.XHTML", &as_xml),
        ("p.html", &as_html),
    ] {
        let file = dir.path().join(name);
        std::fs::write(&file, &input).unwrap();
        let out = htmlabs().args(["-r", URL]).arg(&file).output().unwrap();
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stderr));
        assert_eq!(text(&out.stdout), expected.as_str(), "{name}");
    }
    let out = htmlabs()
        .args(["-r", URL])
        .write_stdin(input.clone())
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), as_html, "standard input");
    // A response, held whole (its `Content-Length` written anew) and
    // streamed (its headers stripped).
    for (content_type, expected) in [
        ("application/xhtml+xml", &as_xml),
        ("Application/XHTML+XML; charset=utf-8", &as_xml),
        ("text/html", &as_html),
    ] {
        let out = htmlabs()
            .args(["--http", "-r", URL])
            .write_stdin(response(content_type, input.as_bytes()))
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{content_type}: {}",
            text(&out.stderr)
        );
        assert_eq!(
            text(&body_of(&out.stdout)),
            expected.as_str(),
            "{content_type}"
        );
        let out = htmlabs()
            .args(["--http", "--strip-headers", "-r", URL])
            .write_stdin(response(content_type, input.as_bytes()))
            .output()
            .unwrap();
        assert_eq!(
            text(&out.stdout),
            expected.as_str(),
            "{content_type}, streamed"
        );
    }
    // An archive's response and resource records: the link report hears
    // the instruction's link of those served as XML alone.
    let records = [
        record(
            1,
            "response",
            "https://example.com/x/p.xhtml",
            "application/http; msgtype=response",
            &response("application/xhtml+xml", input.as_bytes()),
        ),
        record(
            2,
            "response",
            "https://example.com/h/p.html",
            "application/http; msgtype=response",
            &response("text/html", input.as_bytes()),
        ),
        record(
            3,
            "resource",
            "https://example.com/r/p.xhtml",
            "application/xhtml+xml",
            input.as_bytes(),
        ),
    ];
    let warc = dir.path().join("pages.warc");
    std::fs::write(&warc, records.concat()).unwrap();
    let out = htmlabs()
        .arg("--warc")
        .arg(&warc)
        .arg("--links")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let sheets: Vec<String> = text(&out.stdout)
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
        .filter(|link| link["element"] == "?xml-stylesheet")
        .map(|link| link["absolute"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        sheets,
        ["https://example.com/x/s.css", "https://example.com/r/s.css"],
        "{}",
        text(&out.stdout)
    );
}
