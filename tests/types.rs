//! Every source reads every type of document (issue 33): one document
//! (`--type`, or its first bytes), `--http` (the response's media type, or
//! `--type`), `--site` (the file's extension, and an XML file's root) and
//! `--warc` (each record's media type), with `--check`, `--report` and
//! `-v` as for pages. The documents are the engines' golden cases
//! (fixtures/xml, fixtures/stylesheet), whose expected outputs the engine
//! tests hold: here each must come out of each source the same.

mod common;

use std::io::Write;

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
    assert!(
        text(&out.stderr).contains("invalid value 'json' for '--type <TYPE>'"),
        "{}",
        text(&out.stderr)
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
    assert_eq!(lines.len(), 17);
    assert_eq!(
        lines[0],
        r#"-:6:9: <rss/channel/link> "./" -> "http://example.com/news/""#
    );
    assert_eq!(
        lines[6],
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
                "htmlabs: body: not HTML (`{essence}`): written as it came"
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
fn a_streamed_feed_is_the_same_in_one_byte_writes() {
    use htmlabs::http::{Options, ResponseRewriter};
    use htmlabs::{Config, Layers, Standard};
    for (content_type, case) in [
        ("application/rss+xml", "xml/rss2-elements"),
        ("text/css", "stylesheet/imports-and-image-sets"),
    ] {
        let g = golden(case);
        // No Content-Length: the body streams through the engine.
        let mut input =
            format!("HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\n\r\n").into_bytes();
        input.extend_from_slice(&g.input);
        let layers = Layers::default()
            .with_retrieval(Standard::Rfc1808, &g.url, "-r")
            .unwrap();
        let mut rewriter = ResponseRewriter::new(
            Config::default(),
            layers,
            Options {
                strip_headers: true,
                ..Options::default()
            },
            Vec::new(),
        );
        for byte in &input {
            rewriter.write(std::slice::from_ref(byte)).unwrap();
        }
        let (report, out) = rewriter.end().unwrap();
        assert_eq!(text(&out), text(&g.expected), "{case}");
        assert!(report.document.unwrap().counts.rewritten > 0);
    }
}
