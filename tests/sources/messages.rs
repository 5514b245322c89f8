//! Messages that cannot be forged: every value from the input that a line
//! carries (a warning, an error, a `-v` line, a check line) is shown by the
//! one rule, `htmlabs::internal::names::shown`: as it is when plain, else as a
//! C string literal. Each carrier below is fed each hostile value (a line
//! break, an ANSI sequence, NUL, DEL, C1 controls, bytes that are not
//! UTF-8, a bidi override, and all of them forging a summary line) and no
//! line of standard error, nor of standard output where it holds check
//! lines, may hold one of them raw. `MARK` in front of the value shows that
//! the line did carry it.

use std::path::Path;
use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// The hostile values, by name.
const HOSTILE: &[(&str, &[u8])] = &[
    ("CR", b"\r"),
    ("LF", b"\n"),
    ("CRLF", b"\r\n"),
    ("ESC", b"\x1b[2K\x1b[1A"),
    ("NUL", b"\x00"),
    ("DEL", b"\x7f"),
    ("tab and C0", b"\t\x01\x08\x0b\x0c"),
    ("C1", "\u{85}\u{9b}31m".as_bytes()),
    ("not UTF-8", b"\xff\xfe\xc3"),
    ("bidi", "\u{202e}\u{2066}lmth.exe".as_bytes()),
    ("separators", "\u{2028}\u{2029}".as_bytes()),
    (
        "a forged summary",
        b"\r\x1b[2Khtmlabs: 1 record, 0 HTML rewritten, 0 warnings, 9.9 MB/s\n",
    ),
];

/// What may stand in a header line: no line break, no NUL (they end or
/// break the block, and the message is then about the block).
fn in_a_line(value: &[u8]) -> bool {
    !value.iter().any(|&b| matches!(b, b'\r' | b'\n' | 0))
}

/// What a field httparse reads may hold: no control character at all
/// (one with a control character is refused, and then named by the
/// carriers of `tests/sources/http.rs`).
fn in_a_field(value: &[u8]) -> bool {
    !value.iter().any(|&b| b < 0x20 || b == 0x7f)
}

/// What a file name may hold.
fn in_a_name(value: &[u8]) -> bool {
    !value.iter().any(|&b| b == 0 || b == b'/')
}

fn any(_: &[u8]) -> bool {
    true
}

/// What stays in an XML name: no whitespace, no `/`, `>` or `=`.
fn in_an_xml_name(value: &[u8]) -> bool {
    !value
        .iter()
        .any(|&b| b.is_ascii_whitespace() || b"/>=".contains(&b))
}

/// What is no URL, and so is named: a control character, or not UTF-8.
fn not_a_url(value: &[u8]) -> bool {
    std::str::from_utf8(value).map_or(true, |s| s.chars().any(char::is_control))
}

/// What an argument may hold: no NUL.
fn no_nul(value: &[u8]) -> bool {
    !value.contains(&0)
}

/// What a flag's value may hold (clap refuses any other before it is
/// read): UTF-8, no NUL.
fn utf8_without_nul(value: &[u8]) -> bool {
    no_nul(value) && std::str::from_utf8(value).is_ok()
}

/// An argument of these bytes.
fn arg(parts: &[&[u8]]) -> &'static std::ffi::OsStr {
    use std::os::unix::ffi::OsStrExt;
    std::ffi::OsStr::from_bytes(Box::leak(parts.concat().into_boxed_slice()))
}

/// Both runs' lines, as one.
fn both(a: Output, b: Output) -> Output {
    Output {
        status: b.status,
        stdout: [a.stdout, b.stdout].concat(),
        stderr: [a.stderr, b.stderr].concat(),
    }
}

/// One carrier: a message that can carry a value from the input.
struct Carrier {
    name: &'static str,
    /// Which values it can carry.
    carries: fn(&[u8]) -> bool,
    /// Sets up and runs htmlabs in `dir` with `value` (`MARK` and the
    /// hostile bytes) where the input gives the carried value.
    run: fn(&Path, &[u8]) -> Output,
    /// Whether standard output holds lines (check lines) rather than a
    /// document.
    lines_out: bool,
}

fn htmlabs(dir: &Path, args: &[&std::ffi::OsStr], stdin: &[u8]) -> Output {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .current_dir(dir)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // A run that fails before reading its input closes its end.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn os(args: &[&str]) -> Vec<&'static std::ffi::OsStr> {
    args.iter()
        .map(|a| std::ffi::OsStr::new(Box::leak(a.to_string().into_boxed_str())))
        .collect()
}

fn cat(parts: &[&[u8]]) -> Vec<u8> {
    parts.concat()
}

/// A WARC record of a response, its header's fields given.
fn record(fields: &[&[u8]], block: &[u8]) -> Vec<u8> {
    let mut out = b"WARC/1.1\r\n".to_vec();
    for field in fields {
        out.extend_from_slice(field);
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("Content-Length: {}\r\n\r\n", block.len()).as_bytes());
    out.extend_from_slice(block);
    out.extend_from_slice(b"\r\n\r\n");
    out
}

const PAGE: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n<a href=\"x.html\">x</a>";

fn warc(dir: &Path, archive: &[u8], extra: &[&str]) -> Output {
    std::fs::write(dir.join("in.warc"), archive).unwrap();
    let out: &[&str] = if extra.contains(&"--check") {
        &[]
    } else {
        &["-o", "out.warc"]
    };
    let args = [&["--warc", "in.warc"][..], out, extra].concat();
    htmlabs(dir, &os(&args), b"")
}

const CARRIERS: &[Carrier] = &[
    Carrier {
        name: "a second <base href>",
        carries: any,
        lines_out: false,
        run: |dir, v| {
            let page = cat(&[
                b"<head><base href=\"http://a/\"><base href=\"",
                v,
                b"\"></head>",
            ]);
            htmlabs(dir, &os(&["-r", "http://h/"]), &page)
        },
    },
    Carrier {
        name: "a script <base href>, as -v names the layer",
        carries: any,
        lines_out: false,
        run: |dir, v| {
            let page = cat(&[
                b"<head><base href=\"javascript:",
                v,
                b"\"></head><a href=x>",
            ]);
            htmlabs(dir, &os(&["-v", "-r", "http://h/"]), &page)
        },
    },
    Carrier {
        name: "an xml:base that is no base",
        carries: |v| std::str::from_utf8(v).is_ok(),
        lines_out: false,
        run: |dir, v| {
            let feed = cat(&[
                b"<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"javascript:",
                v,
                b"\"><link href=\"x\"/></feed>",
            ]);
            htmlabs(dir, &os(&["--type", "xml", "-r", "http://h/"]), &feed)
        },
    },
    Carrier {
        name: "an XML end tag that ends another",
        carries: in_an_xml_name,
        lines_out: false,
        run: |dir, v| {
            let feed = cat(&[
                b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><a",
                v,
                b"></b",
                v,
                b"></feed>",
            ]);
            htmlabs(dir, &os(&["--type", "xml", "-r", "http://h/"]), &feed)
        },
    },
    Carrier {
        name: "an XML element the input ends in",
        carries: in_an_xml_name,
        lines_out: false,
        run: |dir, v| {
            let feed = cat(&[b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><e", v, b">"]);
            htmlabs(dir, &os(&["--type", "xml", "-r", "http://h/"]), &feed)
        },
    },
    Carrier {
        name: "an XML namespace bound where it may not be",
        carries: any,
        lines_out: false,
        run: |dir, v| {
            let feed = cat(&[b"<feed xmlns:xml=\"", v, b"\"/>"]);
            htmlabs(dir, &os(&["--type", "xml", "-r", "http://h/"]), &feed)
        },
    },
    Carrier {
        name: "an XML entity only a DTD declares",
        carries: |v| in_a_field(v) && in_an_xml_name(v),
        lines_out: false,
        run: |dir, v| {
            let feed = cat(&[
                b"<feed xmlns=\"http://www.w3.org/2005/Atom\"><link href=\"a&e",
                v,
                b";\"/></feed>",
            ]);
            htmlabs(dir, &os(&["--type", "xml", "-r", "http://h/"]), &feed)
        },
    },
    Carrier {
        name: "a redirect's Location:",
        carries: in_a_line,
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[
                b"HTTP/1.1 301 Moved\r\nLocation: http://o/",
                v,
                b"/\r\n\r\n",
                PAGE,
            ]);
            htmlabs(dir, &os(&["--http", "-v", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a base field",
        carries: in_a_line,
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Base: http://b/",
                v,
                b"/\r\n\r\n<a href=x>",
            ]);
            htmlabs(dir, &os(&["--http", "-v", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a base field redirected to, as -v names it",
        carries: in_a_field,
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[
                b"HTTP/1.1 301 Moved\r\nLocation: http://o/",
                v,
                b"/\r\n\r\nHTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Base: http://b/",
                v,
                b"/\r\n\r\n<a href=x>",
            ]);
            htmlabs(dir, &os(&["--http", "-v", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a coding htmlabs does not know",
        carries: in_a_field,
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: x",
                v,
                b"\r\n\r\n<a href=x>",
            ]);
            htmlabs(dir, &os(&["--http", "-v", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a Content-Length that is no length",
        carries: in_a_field,
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 1",
                v,
                b"\r\n\r\n<a href=x>",
            ]);
            htmlabs(dir, &os(&["--http", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a charset htmlabs does not read, as -v names it",
        carries: in_a_field,
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=\"x",
                v,
                b"\"\r\n\r\n<a href=x>",
            ]);
            htmlabs(dir, &os(&["--http", "-v", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a malformed status line",
        carries: |v| !v.contains(&b'\n'),
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[b"HTTP/1.1 2x0 ", v, b"\r\n\r\n"]);
            htmlabs(dir, &os(&["--http", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a chunk-size line",
        carries: |v| !v.contains(&b'\n'),
        lines_out: false,
        run: |dir, v| {
            let input = cat(&[
                b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n<a hr\r\nz",
                v,
                b"\r\n",
            ]);
            htmlabs(dir, &os(&["--http", "-r", "http://h/"]), &input)
        },
    },
    Carrier {
        name: "a record's ID, in warnings and check lines",
        carries: in_a_line,
        lines_out: true,
        run: |dir, v| {
            let id = cat(&[b"WARC-Record-ID: <urn:", v, b">"]);
            let archive = record(
                &[
                    b"WARC-Type: response",
                    &id,
                    b"WARC-Target-URI: http://h/a",
                    b"Content-Type: application/http; msgtype=response",
                    b"WARC-Block-Digest: sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
                ],
                PAGE,
            );
            warc(dir, &archive, &["--check"])
        },
    },
    Carrier {
        name: "a record's target URI",
        carries: |v| in_a_line(v) && not_a_url(v),
        lines_out: false,
        run: |dir, v| {
            let target = cat(&[b"WARC-Target-URI: http://h/", v]);
            let archive = record(
                &[
                    b"WARC-Type: response",
                    b"WARC-Record-ID: <urn:x>",
                    &target,
                    b"Content-Type: application/http; msgtype=response",
                ],
                PAGE,
            );
            warc(dir, &archive, &[])
        },
    },
    Carrier {
        name: "a record's digest",
        carries: in_a_line,
        lines_out: false,
        run: |dir, v| {
            let digest = cat(&[b"WARC-Block-Digest: sha1:AAAA", v]);
            let archive = record(
                &[
                    b"WARC-Type: response",
                    b"WARC-Record-ID: <urn:x>",
                    b"WARC-Target-URI: http://h/a",
                    &digest,
                    b"Content-Type: application/http; msgtype=response",
                ],
                PAGE,
            );
            warc(dir, &archive, &[])
        },
    },
    Carrier {
        name: "a record's header line without a colon, or a bad field name",
        carries: in_a_line,
        lines_out: false,
        run: |dir, v| {
            let line = cat(&[b"MA", v]);
            let first = warc(dir, &record(&[b"WARC-Type: resource", &line], b"x"), &[]);
            let name = cat(&[b"X-", v, b": x"]);
            let second = warc(dir, &record(&[b"WARC-Type: resource", &name], b"x"), &[]);
            both(first, second)
        },
    },
    Carrier {
        name: "a record's Content-Length, and a version line",
        carries: in_a_line,
        lines_out: false,
        run: |dir, v| {
            let archive = cat(&[b"WARC/1.1\r\nContent-Length: 1", v, b"\r\n\r\nx\r\n\r\n"]);
            let first = warc(dir, &archive, &[]);
            let record = b"WARC/1.1\r\nContent-Length: 1\r\n\r\nx\r\n\r\n";
            let archive = cat(&[
                record,
                b"WARX/",
                v,
                b"\r\nContent-Length: 1\r\n\r\nx\r\n\r\n",
            ]);
            both(first, warc(dir, &archive, &[]))
        },
    },
    Carrier {
        name: "an input that is not a WARC file",
        carries: any,
        lines_out: false,
        run: |dir, v| warc(dir, &cat(&[b"MARK", v]), &[]),
    },
    Carrier {
        name: "a site's file, in warnings and check lines",
        carries: in_a_name,
        lines_out: true,
        run: |dir, v| {
            use std::os::unix::ffi::OsStrExt;
            let site = dir.join("s");
            std::fs::create_dir_all(&site).unwrap();
            let name = |ext: &[u8]| site.join(std::ffi::OsStr::from_bytes(&cat(&[b"f", v, ext])));
            std::fs::write(name(b".xml"), b"<rss version=\"2.0\"><channel></rss>").unwrap();
            std::fs::write(name(b".html"), b"<a href=x>x</a>").unwrap();
            htmlabs(
                dir,
                &os(&["--site", "s", "--site-url", "http://h/", "--check"]),
                b"",
            )
        },
    },
    Carrier {
        name: "an unknown flag",
        carries: no_nul,
        lines_out: false,
        run: |dir, v| htmlabs(dir, &[arg(&[b"--", v])], b""),
    },
    Carrier {
        name: "a flag's value that is none of its values",
        carries: utf8_without_nul,
        lines_out: false,
        run: |dir, v| htmlabs(dir, &[arg(&[b"--standard"]), arg(&[v])], b""),
    },
    Carrier {
        name: "a flag's value that its parser refuses",
        carries: utf8_without_nul,
        lines_out: false,
        run: |dir, v| htmlabs(dir, &[arg(&[b"--max-memory"]), arg(&[v])], b""),
    },
    Carrier {
        name: "a second FILE",
        carries: no_nul,
        lines_out: false,
        run: |dir, v| htmlabs(dir, &[arg(&[b"a.html"]), arg(&[v])], b""),
    },
    Carrier {
        name: "a URL in a check line",
        carries: any,
        lines_out: true,
        run: |dir, v| {
            let page = cat(&[b"<a href=\"x", v, b"\">x</a>"]);
            htmlabs(dir, &os(&["--check", "-r", "http://h/"]), &page)
        },
    },
];

/// A character no line may hold raw: a control character (C0, DEL, C1),
/// a line or paragraph separator, a bidi control.
fn forbidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// What is wrong with `bytes` as lines of messages, if anything.
fn unsafe_lines(bytes: &[u8]) -> Option<String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Some(format!("not UTF-8: {:?}", String::from_utf8_lossy(bytes)));
    };
    text.split_terminator('\n')
        .find(|line| line.chars().any(forbidden))
        .map(|line| format!("a raw control or bidi character in {line:?}"))
}

#[test]
fn no_value_from_the_input_reaches_a_line_raw() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for carrier in CARRIERS {
        for (hostile, bytes) in HOSTILE {
            let value = cat(&[b"MARK", bytes]);
            if !(carrier.carries)(&value) {
                continue;
            }
            let dir = tempfile::tempdir().unwrap();
            let out = (carrier.run)(dir.path(), &value);
            runs += 1;
            let name = format!("{} ({hostile})", carrier.name);
            if let Some(why) = unsafe_lines(&out.stderr) {
                failures.push(format!("{name}: standard error: {why}"));
            }
            if carrier.lines_out {
                if let Some(why) = unsafe_lines(&out.stdout) {
                    failures.push(format!("{name}: standard output: {why}"));
                }
            }
            let said = [
                &out.stderr[..],
                if carrier.lines_out { &out.stdout } else { b"" },
            ]
            .concat();
            if !said.windows(4).any(|w| w.eq_ignore_ascii_case(b"MARK")) {
                failures.push(format!(
                    "{name}: no line carries the value: {:?}",
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {runs} runs:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
