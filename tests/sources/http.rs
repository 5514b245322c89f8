//! `--http` on responses saved by the real clients: `curl -i`, `curl -iL`
//! (redirects, `100 Continue`), `curl -i --raw` (the wire's chunks), `curl
//! -i --compressed`, `wget --save-headers`, from a local server
//! (tests/http_server.py, Python's http.server). What htmlabs encodes again
//! is read back by Python's http.client, gzip, zlib and brotli
//! (tests/http_decode.py). Every capture also goes through the library in
//! one write, in 1-byte writes and in random ones: the output is the same.
//!
//! Without curl, wget or Python, each test skips with a note; under CI
//! (`CI` set) a missing tool fails the test: .ci/run installs them.

use crate::common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;

use htmlabs::http::{Options, Response};
use htmlabs::{Config, Layers, Standard};

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

fn dir() -> &'static str {
    env!("CARGO_MANIFEST_DIR")
}

struct Server {
    port: u16,
    /// Serves until its standard input closes: when this process ends.
    _child: Child,
}

fn server() -> &'static Server {
    static SERVER: OnceLock<Server> = OnceLock::new();
    SERVER.get_or_init(|| {
        let mut child = Command::new("python3")
            .arg(format!("{}/tests/http_server.py", dir()))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 runs tests/http_server.py");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        Server {
            port: line.trim().parse().expect("the server prints its port"),
            _child: child,
        }
    })
}

/// The server's URL for `path`, if curl and Python are there.
fn url(path: &str, test: &str, client: &str) -> Option<String> {
    if common::tool("python3", test).is_none() || common::tool(client, test).is_none() {
        return None;
    }
    Some(format!("http://127.0.0.1:{}{path}", server().port))
}

fn origin() -> String {
    format!("http://127.0.0.1:{}", server().port)
}

/// What a client wrote to standard output.
fn capture(client: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(client).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{client} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn curl(args: &[&str]) -> Vec<u8> {
    capture("curl", &[&["-s", "-i"][..], args].concat())
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
    stderr: String,
}

/// htmlabs on `input` with `args`; its output is checked against the
/// library's in one write, in 1-byte writes and in random writes.
fn htmlabs(input: &[u8], args: &[&str]) -> Run {
    let mut child = Command::new(BIN)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    let run = Run {
        code: out.status.code().unwrap(),
        stdout: out.stdout,
        stderr: String::from_utf8(out.stderr).unwrap(),
    };
    if run.code == 0 {
        for (name, out) in library(input, args) {
            assert!(
                out == run.stdout,
                "{name}: the library's output differs from the command's:\n{}\n---\n{}",
                String::from_utf8_lossy(&out),
                String::from_utf8_lossy(&run.stdout)
            );
        }
    }
    run
}

/// The library's output in one write, 1-byte writes and random writes.
fn library(input: &[u8], args: &[&str]) -> Vec<(String, Vec<u8>)> {
    if !args.contains(&"--http") {
        return Vec::new();
    }
    let mut layers = Layers::default();
    if let Some(i) = args.iter().position(|a| *a == "-r") {
        layers = layers
            .with_retrieval(Standard::Rfc1808, args[i + 1], "--retrieved-from")
            .unwrap();
    }
    let config = std::sync::Arc::new(Config::default());
    let options = {
        let mut options = Options::default();
        options.content_location = args.contains(&"--content-location");
        options.strip_headers = args.contains(&"--strip-headers");
        options.kind = None;
        options
    };
    // A small generator, seeded: the same sizes on every run.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15 ^ input.len() as u64;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 97) as usize + 1
    };
    let ways: [(&str, &mut dyn FnMut() -> usize); 3] = [
        ("one write", &mut || usize::MAX),
        ("1-byte writes", &mut || 1),
        ("random writes", &mut random),
    ];
    ways.into_iter()
        .map(|(name, size)| {
            let mut rewriter = Response::new(
                std::sync::Arc::clone(&config),
                layers.clone(),
                options,
                Vec::new(),
            );
            let mut at = 0;
            while at < input.len() {
                let n = size().min(input.len() - at);
                rewriter.write(&input[at..at + n]).unwrap();
                at += n;
            }
            let (_, out) = rewriter.end().unwrap();
            (name.to_owned(), out)
        })
        .collect()
}

/// The page of tests/http_server.py rewritten against `base` (whose
/// directory is `dir`, with `/`s around it): what every test expects.
fn page(origin: &str, dir: &str, file: &str) -> String {
    let parent = match dir.trim_end_matches('/').rfind('/') {
        Some(i) => &dir[..=i],
        None => "/",
    };
    format!(
        "<!doctype html><html><head><meta charset=utf-8>\
         <link rel=stylesheet href={origin}{dir}style.css></head>\n\
         <body><a href=\"{origin}{parent}up.html\">up</a> <img src='{origin}/img/a.png'> \
         <a href=\"{origin}{dir}{file}#top\">top</a></body></html>\n"
    )
}

/// The header blocks of a saved response (all but what follows the last
/// empty line before `body_start`), and its body.
fn split(output: &[u8], body_start: &[u8]) -> (String, Vec<u8>) {
    let at = output
        .windows(body_start.len())
        .position(|w| w == body_start)
        .expect("the body is there");
    (
        String::from_utf8_lossy(&output[..at]).into_owned(),
        output[at..].to_vec(),
    )
}

/// The final response of `output` (from its last status line) read by
/// Python's http.client and its decoders: its body.
fn decoded(output: &[u8]) -> Vec<u8> {
    let last = output
        .windows(9)
        .rposition(|w| w == b"HTTP/1.1 ")
        .expect("a status line");
    let mut child = Command::new("python3")
        .arg(format!("{}/tests/http_decode.py", dir()))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(&output[last..])
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "http.client cannot read what htmlabs wrote: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `-v`'s lines that start with `prefix`.
fn lines<'a>(stderr: &'a str, prefix: &str) -> Vec<&'a str> {
    stderr.lines().filter(|l| l.starts_with(prefix)).collect()
}

const START: &[u8] = b"<!doctype";

#[test]
fn curl_i_the_length_is_corrected_and_every_other_header_byte_kept() {
    let Some(url) = url("/plain/page.html", "curl -i", "curl") else {
        return;
    };
    let input = curl(&[&url]);
    let run = htmlabs(&input, &["--http", "-r", &url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = page(&origin(), "/plain/", "page.html");
    let (heads, body) = split(&run.stdout, START);
    assert_eq!(String::from_utf8(body).unwrap(), expected);
    let (input_heads, _) = split(&input, START);
    assert_eq!(
        heads,
        input_heads.replace(
            "Content-Length: 185\r\n",
            &format!("Content-Length: {}\r\n", expected.len())
        )
    );
    assert_eq!(decoded(&run.stdout), expected.as_bytes());
    // A second run changes nothing.
    let again = htmlabs(&run.stdout, &["--http", "-r", &url]);
    assert_eq!(again.stdout, run.stdout);
    // --strip-headers: the document alone.
    let run = htmlabs(&input, &["--http", "--strip-headers", "-r", &url]);
    assert_eq!(String::from_utf8(run.stdout).unwrap(), expected);
}

#[test]
fn curl_il_the_last_url_used_is_the_base_after_two_redirects_and_100_continue() {
    let Some(first) = url("/start/r1", "curl -iL", "curl") else {
        return;
    };
    // POST with `Expect: 100-continue`: every response is preceded by a
    // `100 Continue` block; the first Location is relative, the second
    // absolute.
    let input = curl(&["-L", "-H", "Expect: 100-continue", "--data", "x", &first]);
    let text = String::from_utf8_lossy(&input);
    assert_eq!(text.matches("HTTP/1.1 100 Continue").count(), 3, "{text}");
    assert!(text.contains("Location: ../docs/r2\r\n"), "{text}");
    let run = htmlabs(&input, &["--http", "-v", "-r", &first]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let o = origin();
    let (_, body) = split(&run.stdout, START);
    assert_eq!(
        String::from_utf8(body).unwrap(),
        page(&o, "/final/", "page.html")
    );
    // Where each block starts, as the input has them.
    let at: Vec<usize> = text.match_indices("HTTP/1.1 ").map(|(i, _)| i).collect();
    let body_at = text.find("<!doctype").unwrap();
    assert_eq!(
        lines(&run.stderr, "htmlabs: layer 3.3"),
        [
            format!(
                "htmlabs: layer 3.3 (retrieval URL): `{o}/final/page.html` from Location: of the last redirect, used"
            ),
            format!(
                "htmlabs: layer 3.3 (retrieval URL): `{o}/start/r1` (--retrieved-from) was redirected: 302 at byte {} to `{o}/docs/r2`, 301 at byte {} to `{o}/final/page.html`",
                at[1], at[3]
            ),
        ]
    );
    assert_eq!(
        lines(&run.stderr, "htmlabs: response:"),
        [format!(
            "htmlabs: response: 6 header blocks (HTTP/1.1 100 at byte 0, HTTP/1.1 302 at byte {}, HTTP/1.1 100 at byte {}, HTTP/1.1 301 at byte {}, HTTP/1.1 100 at byte {}, HTTP/1.1 200 at byte {}); the body, 185 bytes, at byte {body_at}",
            at[1], at[2], at[3], at[4], at[5]
        )]
    );
    // The redirect wins over the flag: with the flag alone (no blocks
    // before), the page would be read against /start/.
    assert!(!String::from_utf8_lossy(&run.stdout).contains("/start/"));
}

#[test]
fn wget_save_headers_keeps_the_final_block_only_so_r_is_the_final_url() {
    let Some(first) = url("/start/r1", "wget --save-headers", "wget") else {
        return;
    };
    let input = capture("wget", &["-q", "--save-headers", "-O", "-", &first]);
    assert_eq!(
        String::from_utf8_lossy(&input).matches("HTTP/1.1 ").count(),
        1
    );
    let o = origin();
    let final_url = format!("{o}/final/page.html");
    let run = htmlabs(&input, &["--http", "-r", &final_url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (_, body) = split(&run.stdout, START);
    assert_eq!(
        String::from_utf8(body).unwrap(),
        page(&o, "/final/", "page.html")
    );
    assert_eq!(
        decoded(&run.stdout),
        page(&o, "/final/", "page.html").as_bytes()
    );
}

#[test]
fn chunked_as_curl_saves_it_and_as_the_wire_had_it() {
    let Some(url) = url("/chunked/page.html", "chunked", "curl") else {
        return;
    };
    let expected = page(&origin(), "/chunked/", "page.html");
    // curl -i removes the chunks and keeps `Transfer-Encoding: chunked`.
    let input = curl(&[&url]);
    let run = htmlabs(&input, &["--http", "-v", "-r", &url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (heads, body) = split(&run.stdout, START);
    assert!(heads.contains("Transfer-Encoding: chunked\r\n"));
    assert_eq!(String::from_utf8(body).unwrap(), expected);
    assert_eq!(
        lines(&run.stderr, "htmlabs: coding:"),
        [
            "htmlabs: coding: `Transfer-Encoding: chunked`: no chunk-size line at the body's first byte: taken as already decoded"
        ]
    );
    // --raw keeps the wire's chunks: decoded, rewritten, chunked again.
    let input = curl(&["--raw", &url]);
    assert!(String::from_utf8_lossy(&input).contains("\r\n32\r\n<!doctype"));
    let run = htmlabs(&input, &["--http", "-v", "-r", &url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(decoded(&run.stdout), expected.as_bytes());
    assert_eq!(
        lines(&run.stderr, "htmlabs: coding:"),
        ["htmlabs: coding: `Transfer-Encoding: chunked`: decoded, and encoded again"]
    );
}

#[test]
fn gzip_deflate_and_brotli_are_encoded_again_with_a_true_length() {
    let have_brotli = Command::new("python3")
        .args(["-c", "import brotli"])
        .status()
        .is_ok_and(|s| s.success());
    for (path, coding) in [
        ("/gzip/page.html", "gzip"),
        ("/deflate/page.html", "deflate"),
        ("/br/page.html", "br"),
    ] {
        if coding == "br" && !have_brotli {
            assert!(
                std::env::var_os("CI").is_none(),
                "python's brotli is needed under CI"
            );
            common::skipped("the br case skipped: python3 has no `brotli` (pip install brotli)");
            continue;
        }
        let Some(url) = url(path, coding, "curl") else {
            return;
        };
        let dir = &path[..path.len() - "page.html".len()];
        let expected = page(&origin(), dir, "page.html");
        let input = curl(&[&url]);
        let run = htmlabs(&input, &["--http", "-v", "-r", &url]);
        assert_eq!(run.code, 0, "{coding}: {}", run.stderr);
        assert_eq!(decoded(&run.stdout), expected.as_bytes(), "{coding}");
        assert_eq!(
            lines(&run.stderr, "htmlabs: coding:"),
            [format!(
                "htmlabs: coding: `Content-Encoding: {coding}`: decoded, and encoded again"
            )],
            "{coding}"
        );
        assert_eq!(
            lines(&run.stderr, "htmlabs: content length:").len(),
            1,
            "{coding}: {}",
            run.stderr
        );
        // A second run changes nothing.
        let again = htmlabs(&run.stdout, &["--http", "-r", &url]);
        assert_eq!(again.stdout, run.stdout, "{coding}");
        // --strip-headers: the document alone, decoded.
        let run = htmlabs(&input, &["--http", "--strip-headers", "-r", &url]);
        assert_eq!(String::from_utf8(run.stdout).unwrap(), expected, "{coding}");
    }
}

#[test]
fn curl_compressed_keeps_a_content_encoding_that_no_longer_holds() {
    let Some(url) = url("/gzip/page.html", "curl --compressed", "curl") else {
        return;
    };
    let input = curl(&["--compressed", &url]);
    let (input_heads, _) = split(&input, START);
    assert!(input_heads.contains("Content-Encoding: gzip\r\n"));
    let run = htmlabs(&input, &["--http", "-v", "-r", &url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let (heads, body) = split(&run.stdout, START);
    // The old Content-Length was the gzip stream's, not true of this body:
    // left as it was, like every other header byte.
    assert_eq!(heads, input_heads);
    assert_eq!(
        String::from_utf8(body).unwrap(),
        page(&origin(), "/gzip/", "page.html")
    );
    assert_eq!(
        lines(&run.stderr, "htmlabs: coding:"),
        [
            "htmlabs: coding: `Content-Encoding: gzip`: no gzip magic number at the body's first byte: taken as already decoded"
        ]
    );
}

#[test]
fn chunked_gzip_on_the_wire_and_as_curl_saves_it() {
    let Some(url) = url("/chunked-gzip/page.html", "chunked+gzip", "curl") else {
        return;
    };
    let expected = page(&origin(), "/chunked-gzip/", "page.html");
    for raw in [true, false] {
        let input = if raw {
            curl(&["--raw", &url])
        } else {
            curl(&[&url])
        };
        let run = htmlabs(&input, &["--http", "-v", "-r", &url]);
        assert_eq!(run.code, 0, "{}", run.stderr);
        // curl -i claims the chunks it removed (and so does htmlabs,
        // which keeps every header byte): http.client would look for them.
        let mut read = run.stdout.clone();
        if !raw {
            let claim = b"Transfer-Encoding: chunked\r\n";
            let at = read.windows(claim.len()).position(|w| w == claim).unwrap();
            read.drain(at..at + claim.len());
        }
        assert_eq!(decoded(&read), expected.as_bytes(), "raw: {raw}");
        let chunked = if raw {
            "decoded, and encoded again"
        } else {
            "no chunk-size line at the body's first byte: taken as already decoded"
        };
        assert_eq!(
            lines(&run.stderr, "htmlabs: coding:"),
            [
                format!("htmlabs: coding: `Transfer-Encoding: chunked`: {chunked}"),
                "htmlabs: coding: `Content-Encoding: gzip`: decoded, and encoded again".to_owned(),
            ]
        );
    }
}

#[test]
fn base_fields_of_the_entity_and_their_precedence() {
    let Some(_) = url("/", "base fields", "curl") else {
        return;
    };
    let o = origin();
    // (path, flags, the base the page is read against as its origin,
    // directory and file, the -v line of layer 3.2)
    let cases: [(&str, &[&str], [&str; 3], String); 7] = [
        (
            "/content-base/page.html",
            &[],
            ["http://cdn.example", "/base/", ""],
            "`http://cdn.example/base/` from Content-Base:, used".to_owned(),
        ),
        (
            "/base-folded/page.html",
            &[],
            ["http://folded.example", "/a/b/", "c"],
            "`http://folded.example/a/b/c` from Base:, used".to_owned(),
        ),
        (
            "/content-location/page.html",
            &[],
            [&o, "/content-location/", "page.html"],
            "none".to_owned(),
        ),
        (
            "/content-location/page.html",
            &["--content-location"],
            [&o, "/elsewhere/", ""],
            format!("`{o}/elsewhere/` from Content-Location:, used"),
        ),
        (
            "/content-location-absolute/page.html",
            &[],
            [&o, "/content-location-absolute/", "page.html"],
            "none".to_owned(),
        ),
        (
            "/content-location-absolute/page.html",
            &["--content-location"],
            ["http://mirror.example", "/m/", ""],
            "`http://mirror.example/m/` from Content-Location:, used".to_owned(),
        ),
        // Embedded over the header.
        (
            "/embedded/page.html",
            &[],
            ["http://embedded.example", "/e/", ""],
            "`http://cdn.example/base/` from Content-Base:, passed over: layer 3.1 gives the base"
                .to_owned(),
        ),
    ];
    for (path, flags, [base_origin, dir, file], layer) in cases {
        let url = format!("{o}{path}");
        let input = curl(&[&url]);
        let args = [&["--http", "-v", "-r", &url][..], flags].concat();
        let run = htmlabs(&input, &args);
        assert_eq!(run.code, 0, "{path}: {}", run.stderr);
        let (_, body) = split(&run.stdout, START);
        let body = String::from_utf8(body).unwrap();
        let mut expected = page(base_origin, dir, file);
        if path == "/embedded/page.html" {
            expected =
                expected.replace("<head>", "<head><base href=\"http://embedded.example/e/\">");
        }
        assert_eq!(body, expected, "{path} {flags:?}");
        assert_eq!(
            lines(&run.stderr, "htmlabs: layer 3.2")[0],
            format!("htmlabs: layer 3.2 (encapsulating entity): {layer}"),
            "{path} {flags:?}"
        );
        if path.starts_with("/content-location") && flags.is_empty() {
            let passed = lines(&run.stderr, "htmlabs: layer 3.2");
            assert!(
                passed[1].ends_with(
                    "passed over: a base only with --content-location (RFC 7231 withdrew it for HTTP)"
                ),
                "{passed:?}"
            );
        }
    }
}

#[test]
fn the_header_charset_comes_before_a_contradicting_meta() {
    let Some(url) = url("/latin/page.html", "charset", "curl") else {
        return;
    };
    let input = curl(&[&url]);
    let run = htmlabs(&input, &["--http", "-v", "-r", &url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        lines(&run.stderr, "htmlabs: encoding:"),
        ["htmlabs: encoding: windows-1252 (Content-Type:)"]
    );
    // `caf\xe9` is `café` in windows-1252: resolved, its byte kept.
    let (_, body) = split(&run.stdout, b"<html>");
    let o = origin();
    assert_eq!(
        body,
        [
            format!("<html><head><meta charset=utf-8></head><a href=\"{o}/latin/caf").as_bytes(),
            b"\xe9.html\">caf\xe9</a></html>\n"
        ]
        .concat()
    );
    // The body alone, read by its <meta>: the byte does not decode.
    let (_, alone) = split(&input, b"<html>");
    let run = htmlabs(&alone, &["-v", "-r", &url]);
    assert_eq!(
        lines(&run.stderr, "htmlabs: encoding:"),
        ["htmlabs: encoding: UTF-8 (<meta> in the first 1024 bytes)"]
    );
}

#[test]
fn a_response_that_is_not_html_passes_through() {
    let Some(url) = url("/image.png", "not HTML", "curl") else {
        return;
    };
    let input = curl(&[&url]);
    let run = htmlabs(&input, &["--http", "-v", "-r", &url]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, input);
    assert_eq!(
        lines(&run.stderr, "htmlabs: body:"),
        ["htmlabs: body: not a type htmlabs reads (`image/png`): written as it came"]
    );
}

#[test]
fn a_body_that_breaks_its_coding_is_written_as_it_came_with_status_2() {
    let Some(url) = url("/chunked-gzip/page.html", "broken codings", "curl") else {
        return;
    };
    // curl -i's gzip stream, cut short.
    let input = curl(&[&url]);
    let cut = &input[..input.len() - 30];
    let run = htmlabs(cut, &["--http", "-r", &url]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, cut);
    assert!(
        run.stderr
            .starts_with("htmlabs: warning: the body breaks its `Content-Encoding: gzip` at byte "),
        "{}",
        run.stderr
    );
    // A chunk size that lies.
    let input = curl(&["--raw", &url]);
    let text = String::from_utf8_lossy(&input);
    let at = text.find("\r\n\r\n28\r\n").expect("a 40-byte first chunk") + 4;
    let mut lying = input.clone();
    lying[at..at + 2].copy_from_slice(b"30");
    let run = htmlabs(&lying, &["--http", "-r", &url]);
    assert_eq!(run.code, 2);
    assert_eq!(run.stdout, lying);
    assert_eq!(
        run.stderr,
        format!(
            "htmlabs: warning: the body breaks its `Transfer-Encoding: chunked` at byte {} (a chunk's data does not end where its size says): it is written as it came\n",
            at + 4 + 48
        )
    );
}

#[test]
fn a_saved_response_without_http_is_html_with_a_warning() {
    let Some(url) = url("/plain/page.html", "no --http", "curl") else {
        return;
    };
    let input = curl(&[&url]);
    let run = htmlabs(&input, &["-r", &url]);
    assert_eq!(run.code, 0);
    assert_eq!(
        run.stderr,
        "htmlabs: warning: the input starts like a saved HTTP response (`HTTP/1.`), and is read as HTML: --http reads its header blocks\n"
    );
}

#[test]
fn a_bad_head_writes_nothing_and_names_where() {
    for (input, message) in [
        (
            &b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n<html>"[..],
            "cannot read the header blocks of standard input (--http): no empty line ends the header block at byte 0 within the first 65536 bytes",
        ),
        (
            b"HTTP/1.1 OK\r\n\r\n<html>",
            "cannot read the header blocks of standard input (--http): malformed status line at byte 0: `HTTP/1.1 OK`",
        ),
        (
            b"<html><a href=x>",
            "standard input is not a saved HTTP response (it starts with `<html><a href=x>`, not `HTTP/`): drop --http to read it as a document",
        ),
    ] {
        let run = htmlabs(input, &["--http", "-r", "http://h/"]);
        assert_eq!(run.code, 2);
        assert_eq!(run.stdout, b"");
        assert_eq!(run.stderr, format!("htmlabs: error: {message}\n"));
    }
}

/// The captures committed in fixtures/http/ (made by the same clients from
/// the same server, on port 8000), without the clients: each is the same
/// in any writes, rewritten, and a second run changes nothing.
#[test]
fn committed_captures_read_the_same_in_any_writes() {
    let o = "http://127.0.0.1:8000";
    for (file, first, base) in [
        ("curl-iL.http", "/start/r1", "/final/page.html"),
        (
            "wget-save-headers.http",
            "/final/page.html",
            "/final/page.html",
        ),
        (
            "curl-i-content-base.http",
            "/content-base/page.html",
            "http://cdn.example/base/",
        ),
        (
            "curl-i-raw-chunked-gzip.http",
            "/chunked-gzip/page.html",
            "/chunked-gzip/page.html",
        ),
    ] {
        let input = std::fs::read(format!("{}/fixtures/http/{file}", dir())).unwrap();
        let first = format!("{o}{first}");
        let args = ["--http", "-r", &first];
        let outputs = library(&input, &args);
        for (name, out) in &outputs[1..] {
            assert!(*out == outputs[0].1, "{file}: {name} differ from one write");
        }
        let out = &outputs[0].1;
        let again = library(out, &args);
        assert!(again[0].1 == *out, "{file}: a second run changed it");
        let base = if base.starts_with('/') {
            format!("{o}{base}")
        } else {
            base.to_owned()
        };
        if file.contains("gzip") {
            continue;
        }
        let text = String::from_utf8_lossy(out);
        assert!(
            text.contains(&format!("href=\"{}#top\"", base)),
            "{file}: not rewritten against {base}:\n{text}"
        );
    }
}

#[test]
fn with_o_a_bad_head_leaves_no_file_and_the_http_flags_need_http() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.http");
    let run = htmlabs(
        b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n<a href=x>",
        &["--http", "-r", "http://h/", "-o", out.to_str().unwrap()],
    );
    assert_eq!(run.code, 2);
    assert!(!out.exists());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // --content-location serves --warc too.
    for (flag, needed) in [
        ("--content-location", "--http or --warc"),
        ("--strip-headers", "--http"),
    ] {
        let run = htmlabs(b"", &[flag, "-r", "http://h/"]);
        assert_eq!(run.code, 2);
        assert_eq!(
            run.stderr,
            format!("htmlabs: error: {flag} needs {needed}: without it, it would do nothing\n")
        );
    }
}

#[test]
fn check_places_the_links_of_a_response_in_the_saved_file() {
    let file = format!("{}/fixtures/http/curl-iL.http", dir());
    let out = Command::new(BIN)
        .args([
            "--http",
            "--check",
            "-r",
            "http://127.0.0.1:8000/start/r1",
            &file,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    // The body starts on line 21 of the file, after three header blocks.
    assert_eq!(
        stdout.lines().next().unwrap(),
        format!(
            "{file}:21:74: <link href> \"style.css\" -> \"http://127.0.0.1:8000/final/style.css\""
        )
    );
    assert_eq!(stdout.lines().count(), 4);
}

/// No base from a header may make a link run script (issue: `Base:
/// javascript:alert(document.domain)//` turned `href="x.html"` into a
/// working `javascript:` link). Each §3.2 field and a redirect's
/// `Location:` (§3.3) is passed over with a warning naming it; what lies
/// below it is the base.
#[test]
fn a_script_base_from_any_header_is_passed_over_with_a_warning_naming_it() {
    let page = "<a href=\"x.html\">x</a>";
    let ok =
        |fields: &str| format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{fields}\r\n{page}");
    let script = "javascript:alert(document.domain)//";
    // (the header blocks, flags, the href it comes out with, the warning)
    let cases: Vec<(String, &[&str], &str, String)> = vec![
        (
            ok(&format!("Base: {script}\r\n")),
            &[],
            "http://h/d/x.html",
            format!("`Base: {script}` at byte 42 is not a base URL (a `javascript:` URL is never a base: links against it would run script or replace the page): ignored"),
        ),
        (
            ok("Content-Base: JavaScript://%0aalert(1)/\r\n"),
            &[],
            "http://h/d/x.html",
            "`Content-Base: JavaScript://%0aalert(1)/` at byte 42 is not a base URL (a `javascript:` URL is never a base: links against it would run script or replace the page): ignored".to_owned(),
        ),
        (
            ok("Content-Location: data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==\r\n"),
            &["--content-location"],
            "http://h/d/x.html",
            "`Content-Location: data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==` at byte 42 is not a base URL (a `data:` URL is never a base: links against it would run script or replace the page): ignored".to_owned(),
        ),
        (
            ok("Base: vbscript:msgbox(1)\r\nContent-Base: http://cdn.example/b/\r\n"),
            &[],
            "http://cdn.example/b/x.html",
            "`Base: vbscript:msgbox(1)` at byte 42 is not a base URL (a `vbscript:` URL is never a base: links against it would run script or replace the page): ignored".to_owned(),
        ),
        // RFC 1808's `<URL:…>` form loses its spaces: still script.
        (
            ok("Base: <URL: java script:alert(1)//>\r\n"),
            &[],
            "http://h/d/x.html",
            "`Base: <URL: java script:alert(1)//>` at byte 42 is not a base URL (a `javascript:` URL is never a base: links against it would run script or replace the page): ignored".to_owned(),
        ),
        // The last URL used is not known after a redirect to script: no
        // base at all, every link left as it is.
        (
            format!("HTTP/1.1 302 Found\r\nLocation: {script}\r\n\r\n{}", ok("")),
            &[],
            "x.html",
            format!("`Location: {script}` of the 302 at byte 0 cannot be followed (Location: of the last redirect cannot be a base: `{script}`: a `javascript:` URL is never a base: links against it would run script or replace the page): the retrieval URL is not known after it"),
        ),
    ];
    for (input, flags, href, warning) in cases {
        let args = [&["--http", "-r", "http://h/d/p.html"][..], flags].concat();
        let run = htmlabs(input.as_bytes(), &args);
        assert_eq!(run.code, 0, "{input}: {}", run.stderr);
        let (_, body) = split(&run.stdout, b"<a ");
        assert_eq!(
            String::from_utf8(body).unwrap(),
            format!("<a href=\"{href}\">x</a>"),
            "{input}"
        );
        assert_eq!(
            lines(&run.stderr, "htmlabs: warning: `")[0],
            format!("htmlabs: warning: {warning}"),
            "{input}"
        );
    }
}

/// A case: the input, the flags, the href it comes out with, the
/// warnings, what `-v` says of the field.
type Case = (
    String,
    &'static [&'static str],
    &'static str,
    Vec<String>,
    String,
);

/// A base-giving field whose value holds a control character is one
/// httparse passes over: it was dropped without a word, and the page
/// resolved against the URL before the redirect (issue: `Location:
/// http://o/a\x01b/` on a 301, exit 0, `-v` silent). Now it is passed over
/// with a warning that names it, quoted, and `-v` lists it; nothing is
/// guessed: after a redirect that cannot be followed the retrieval URL is
/// not known, and after a §3.2 field the layer below gives the base.
#[test]
fn a_base_field_with_a_control_character_is_named_and_never_guessed_at() {
    let page = "<a href=\"x.html\">x</a>";
    let ok =
        |fields: &str| format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{fields}\r\n{page}");
    for (byte, quoted) in [('\x01', "\\001"), ('\x1b', "\\033"), ('\x7f', "\\177")] {
        let bad = format!("http://o/a{byte}b/");
        let shown = format!("\"http://o/a{quoted}b/\"");
        let cases: Vec<Case> = vec![
            (
                format!("HTTP/1.1 301 Moved\r\nLocation: {bad}\r\n\r\n{}", ok("")),
                &[],
                "x.html",
                vec![format!("`Location: {shown}` of the 301 at byte 0 cannot be followed (it holds a space or a control character): the retrieval URL is not known after it"),
                    "no base URL (no `<base href>`, no --retrieved-from): the output is the input, unchanged".to_owned()],
                format!("layer 3.3 (retrieval URL): `http://h/d/p.html` (--retrieved-from) was redirected: 301 at byte 0, not followed (`Location: {shown}`)"),
            ),
            (
                ok(&format!("Base: {bad}\r\n")),
                &[],
                "http://h/d/x.html",
                vec![format!("`Base: {shown}` at byte 42 is not a base URL (it holds a space or a control character): ignored")],
                format!("layer 3.2 (encapsulating entity): `Base: {shown}` at byte 42, passed over: it holds a space or a control character"),
            ),
            (
                ok(&format!("Content-Base: {bad}\r\nBase: http://b/\r\n")),
                &[],
                "http://b/x.html",
                // Base: comes first: no warning, a note.
                vec![],
                format!("layer 3.2 (encapsulating entity): `Content-Base: {shown}` at byte 42, passed over: Base: comes first"),
            ),
            (
                ok(&format!("Content-Location: {bad}\r\n")),
                &["--content-location"],
                "http://h/d/x.html",
                vec![format!("`Content-Location: {shown}` at byte 42 is not a base URL (it holds a space or a control character): ignored")],
                format!("layer 3.2 (encapsulating entity): `Content-Location: {shown}` at byte 42, passed over: it holds a space or a control character"),
            ),
        ];
        for (input, flags, href, warning, verbose) in cases {
            let args = [&["--http", "-v", "-r", "http://h/d/p.html"][..], flags].concat();
            let run = htmlabs(input.as_bytes(), &args);
            assert_eq!(run.code, 0, "{input:?}: {}", run.stderr);
            let (head, body) = split(&run.stdout, b"<a ");
            assert_eq!(
                head.as_bytes(),
                &input.as_bytes()[..head.len()],
                "kept as it came"
            );
            assert_eq!(
                String::from_utf8(body).unwrap(),
                format!("<a href=\"{href}\">x</a>"),
                "{input:?}"
            );
            let warnings = lines(&run.stderr, "htmlabs: warning: ");
            assert_eq!(
                warnings,
                warning
                    .iter()
                    .map(|w| format!("htmlabs: warning: {w}"))
                    .collect::<Vec<_>>(),
                "{input:?}"
            );
            assert!(
                run.stderr.contains(&format!("htmlabs: {verbose}\n")),
                "{input:?}: {}",
                run.stderr
            );
        }
    }
}

/// A base's shape is no reason to pass it over: RFC 1808 §4 resolves
/// against `news:comp.lang.misc` as against any other (issue: every base
/// without `/` after its scheme was refused, and the links left relative).
#[test]
fn a_header_base_without_a_slash_after_its_scheme_is_a_base() {
    let input = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Base: news:comp.lang.misc\r\n\r\n<a href=\"x.html\">x</a> <a href=\"//x\">y</a>";
    let run = htmlabs(input.as_bytes(), &["--http", "-r", "http://h/d/p.html"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let (_, body) = split(&run.stdout, b"<a ");
    assert_eq!(
        String::from_utf8(body).unwrap(),
        "<a href=\"news:x.html\">x</a> <a href=\"news://x\">y</a>"
    );
}

/// Every length field in the output tells the truth: `Content-Length`
/// fields that agree are all corrected after a rewrite; ones that differ,
/// or one that is no length, make the framing invalid (RFC 9112 §6.3), and
/// no length a rewrite writes could be true of both: the response comes
/// out as it came, with a warning and status 2 (issue: neither of two
/// differing fields was corrected after the body grew).
#[test]
fn content_length_fields_are_all_corrected_or_the_response_is_written_as_it_came() {
    let body = "<a href=\"x.html\">x</a>";
    let response =
        |fields: &str| format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{fields}\r\n{body}");
    let n = body.len();
    let rewritten = "<a href=\"http://h/d/x.html\">x</a>";
    let m = rewritten.len();
    // Fields that agree: each one corrected.
    for (fields, corrected) in [
        (
            format!("Content-Length: {n}\r\nContent-Length: {n}\r\n"),
            format!("Content-Length: {m}\r\nContent-Length: {m}\r\n"),
        ),
        (
            format!("Content-Length: {n}, {n}\r\n"),
            format!("Content-Length: {m}\r\n"),
        ),
    ] {
        let run = htmlabs(
            response(&fields).as_bytes(),
            &["--http", "-r", "http://h/d/p"],
        );
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(
            String::from_utf8(run.stdout).unwrap(),
            format!("HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n{corrected}\r\n{rewritten}")
        );
    }
    // Fields that differ, or no length: as it came.
    for (fields, why) in [
        (
            format!("Content-Length: {n}\r\nContent-Length: 5\r\n"),
            format!("`Content-Length: {n}` at byte 42 and `Content-Length: 5` at byte 62 differ"),
        ),
        (
            format!("Content-Length: 5\r\nContent-Length: {n}\r\n"),
            format!("`Content-Length: 5` at byte 42 and `Content-Length: {n}` at byte 61 differ"),
        ),
        (
            format!("Content-Length: {n}, 7\r\n"),
            format!("`Content-Length: {n}, 7` at byte 42 holds lengths that differ"),
        ),
        (
            "Content-Length: twenty\r\n".to_owned(),
            "`Content-Length: twenty` at byte 42 is no length".to_owned(),
        ),
    ] {
        let input = response(&fields);
        let run = htmlabs(input.as_bytes(), &["--http", "-r", "http://h/d/p"]);
        assert_eq!(run.code, 2, "{fields}: {}", run.stderr);
        assert_eq!(String::from_utf8(run.stdout).unwrap(), input, "{fields}");
        assert_eq!(
            run.stderr,
            format!(
                "htmlabs: warning: {why}: the response's framing is invalid (RFC 9112 §6.3), and no length a rewrite writes would be true: the body is written as it came\n"
            ),
        );
    }
}
