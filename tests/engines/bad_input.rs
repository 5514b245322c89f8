//! Bad input, each case with its outcome: the exit status and the exact
//! message, through the binary, and the bytes that come out, judged where
//! it matters by the span lister (`tests/spans`, by way of the fuzz
//! targets' checks in `fuzz/src/properties.rs`). `docs/bad-input.md`'s
//! table lists these cases; a bug found on the way is an ignored test at
//! the end, with what should happen.

use crate::common;
use crate::fuzz as properties;

use std::fs;
use std::io::Read;
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;
use htmlabs::internal::Table;
use htmlabs::{Config, Layers, Rewriter, Standard, Warning};
use properties::{Case, Show, check_outside_values, check_rewrite};

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");
const NO_BASE: &str = "htmlabs: warning: no base URL (no `<base href>`, no --retrieved-from): the output is the input, unchanged\n";

/// What a run gave: the exit status, standard output, standard error.
struct Run {
    code: Option<i32>,
    stdout: Vec<u8>,
    stderr: String,
}

fn htmlabs(args: &[&str], stdin: impl Into<Vec<u8>>) -> Run {
    let out = Command::new(BIN)
        .env("NO_COLOR", "1")
        .env_remove("CLICOLOR_FORCE")
        .args(args)
        .write_stdin(stdin.into())
        .output()
        .expect("htmlabs runs");
    Run {
        code: out.status.code(),
        stdout: out.stdout,
        stderr: String::from_utf8(out.stderr).expect("UTF-8 messages"),
    }
}

/// Asserts an exit status, the output and the messages.
#[track_caller]
fn expect(run: &Run, code: i32, stdout: &[u8], stderr: &str) {
    assert_eq!(run.stderr, stderr);
    assert_eq!(run.code, Some(code));
    assert!(
        run.stdout == stdout,
        "want {:?}\n got {:?}",
        Show(stdout),
        Show(&run.stdout)
    );
}

/// Bytes that look like nothing: a fixed xorshift sequence.
fn junk(len: usize) -> Vec<u8> {
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

// ---------------------------------------------------------------- the input

#[test]
fn empty_input_gives_empty_output() {
    expect(&htmlabs(&["-r", "http://h/"], ""), 0, b"", "");
    expect(&htmlabs(&[], ""), 0, b"", NO_BASE);
}

#[test]
fn binary_junk_keeps_every_byte_outside_url_values() {
    let mut input = junk(64 * 1024);
    // Some markup among the junk, so that there is something to rewrite.
    input.splice(1000..1000, b"<a href=x><img src='y'>".iter().copied());
    let run = htmlabs(&["-r", "http://h/d/"], input.clone());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .lines()
            .all(|l| l.starts_with("htmlabs: warning: ")),
        "{}",
        run.stderr
    );
    assert!(run.stdout.len() > input.len(), "nothing was rewritten");
    check_outside_values(&input, &run.stdout, &Table::default()).unwrap();
    // And the library's properties: any writes, a second run, no base.
    for base in [Some("http://h/d/".to_owned()), None] {
        check_rewrite(&Case {
            html: input.clone(),
            base,
            chunks: 6,
            ..Case::default()
        });
    }
    expect(&htmlabs(&[], input.clone()), 0, &input, NO_BASE);
}

#[test]
fn nul_bytes_pass_through_in_text_and_in_values() {
    let run = htmlabs(
        &["-r", "http://h/"],
        &b"<a href=\"x\0y\">\0<img src=\0>"[..],
    );
    expect(
        &run,
        0,
        b"<a href=\"http://h/x\0y\">\0<img src=http://h/\0>",
        "",
    );
}

#[test]
fn a_tag_cut_off_at_the_end_of_input_is_left_as_it_is() {
    for (input, output) in [
        (
            &b"<a href=x><img src=\"y"[..],
            &b"<a href=http://h/x><img src=\"y"[..],
        ),
        (b"<a href=x><img src=y", b"<a href=http://h/x><img src=y"),
        (b"<a href=x><img", b"<a href=http://h/x><img"),
        (b"<a href=x></", b"<a href=http://h/x></"),
        (
            b"<a href=x><!-- <img src=y",
            b"<a href=http://h/x><!-- <img src=y",
        ),
        // An unclosed `<style>` or `<noscript>` runs to the end, rewritten.
        (
            b"<p><style>a{background:url(x)}",
            b"<p><style>a{background:url(http://h/x)}",
        ),
        (
            b"<p><noscript><a href=x>",
            b"<p><noscript><a href=http://h/x>",
        ),
    ] {
        expect(&htmlabs(&["-r", "http://h/"], input), 0, output, "");
    }
}

#[test]
fn a_10_mb_attribute_value_is_rewritten() {
    let value = "v".repeat(10_000_000);
    let input = format!("<a href=x><a href=\"{value}\"><a href=y>");
    let output =
        format!("<a href=http://h/d/x><a href=\"http://h/d/{value}\"><a href=http://h/d/y>");
    expect(
        &htmlabs(&["-r", "http://h/d/"], input),
        0,
        output.as_bytes(),
        "",
    );
}

/// A million open elements outgrow lol_html's element stack under
/// `--max-memory 64M` (its limit: a fifth of a document's half, 6.4 MiB,
/// which 32,768 open elements fill as the stack doubles to 65,536): rewriting
/// stops there, the rest is copied, exit 2. The warning names the byte
/// after the last start tag lol_html wrote out, which went out whole, as
/// every start tag does once the handler has seen it.
fn a_million_nested_elements(tail: &str) {
    let warning = "htmlabs: warning: memory limit of 67108864 bytes (--max-memory) reached: rewriting stopped at byte 163845, the rest is copied unchanged\n";
    let open = "<div>".repeat(1_000_000);
    let input = format!("<a href=x>{open}{tail}<a href=y>");
    let output = format!("<a href=http://h/x>{open}{tail}<a href=y>");
    expect(
        &htmlabs(&["--max-memory", "64M", "-r", "http://h/"], input),
        2,
        output.as_bytes(),
        warning,
    );
}

#[test]
fn a_million_nested_elements_stop_at_the_memory_limit_with_the_output_complete() {
    a_million_nested_elements("");
}

#[test]
fn a_million_nested_closed_elements_stop_at_the_memory_limit_too() {
    a_million_nested_elements(&"</div>".repeat(1_000_000));
}

#[test]
fn invalid_utf8_in_values_is_left_as_it_is_with_a_warning() {
    let input = b"<p><a href=\"\xff/x\"><img src=y\xc3><a href=z>";
    expect(
        // Declared UTF-8: undeclared, these bytes would be detected as a
        // legacy encoding, in which they are valid.
        &htmlabs(&["-r", "http://h/", "--encoding", "utf-8"], &input[..]),
        0,
        b"<p><a href=\"\xff/x\"><img src=y\xc3><a href=http://h/z>",
        "htmlabs: warning: URL value at byte 12 is not valid UTF-8: left as it is\n\
         htmlabs: warning: URL value at byte 26 is not valid UTF-8: left as it is\n",
    );
}

// ---------------------------------------------------------------- --retrieved-from

#[test]
fn a_relative_or_empty_retrieved_from_is_refused() {
    for (base, message) in [
        (
            "docs/page.html",
            "htmlabs: error: --retrieved-from must be an absolute URL, with a scheme: `docs/page.html`\n",
        ),
        (
            "",
            "htmlabs: error: --retrieved-from must be an absolute URL, with a scheme: ``\n",
        ),
        (
            "a b:c",
            "htmlabs: error: --retrieved-from must be an absolute URL, with a scheme: `a b:c`\n",
        ),
    ] {
        expect(&htmlabs(&["-r", base], "<a href=x>"), 2, b"", message);
    }
}

#[test]
fn a_retrieved_from_with_a_control_character_is_refused_on_one_line() {
    for (base, shown) in [
        ("http://h/a\nb", "\"http://h/a\\nb\""),
        ("http://h/a\rb", "\"http://h/a\\rb\""),
        ("http://h/\t", "\"http://h/\\t\""),
        ("http://h/\u{85}", "\"http://h/\\302\\205\""),
    ] {
        let message =
            format!("htmlabs: error: --retrieved-from holds a control character: `{shown}`\n");
        expect(&htmlabs(&["-r", base], "<a href=x>"), 2, b"", &message);
    }
}

#[test]
fn a_retrieved_from_with_spaces_quotes_or_gt_stays_inside_its_attributes() {
    for (base, input, output) in [
        (
            "http://h/a b/",
            "<a href=x>",
            r#"<a href="http://h/a b/x">"#,
        ),
        ("http://h/>/", "<a href=x>", r#"<a href="http://h/>/x">"#),
        (
            r#"http://h/"><script>alert(1)</script>/"#,
            r#"<a href="x" title=t>"#,
            r#"<a href="http://h/&quot;><script>alert(1)</script>/x" title=t>"#,
        ),
        (
            r#"http://h/"/"#,
            "<a href=x>",
            r#"<a href="http://h/&quot;/x">"#,
        ),
        (
            "http://h/'>/",
            "<a href='x'>",
            "<a href='http://h/&#39;>/x'>",
        ),
    ] {
        expect(&htmlabs(&["-r", base], input), 0, output.as_bytes(), "");
    }
}

#[test]
fn a_hostile_retrieved_from_breaks_out_of_no_syntax() {
    let base = r#"http://h/a b"c'd>e)f,g<!--/"#;
    let input = concat!(
        "<head><link href=s.css><style>@import 'i.css'; a{background:url(x.png)}</style>",
        "<meta http-equiv=refresh content='0; url=next'></head>",
        "<a href=x title=t>a</a><a href='y'>b</a><a href=\"z\">c</a>",
        "<img srcset='a.png 1x, b.png 2x' src=i style=\"background:url('p.png')\">",
        "<a ping=\"p\">d</a><iframe srcdoc=\"<a href=&quot;d&quot;>\"></iframe>",
        "<noscript><img src=n></noscript><p>the end</p>",
    );
    let run = htmlabs(&["-r", base], input);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert_eq!(run.stderr, "");
    let output = String::from_utf8(run.stdout).unwrap();
    // The bytes around the values, and the attributes, are the input's.
    check_outside_values(input.as_bytes(), output.as_bytes(), &Table::default())
        .unwrap_or_else(|e| panic!("{e}\n{output}"));
    // And every value and text was rewritten.
    let before = properties::spans::list(input.as_bytes());
    let after = properties::spans::list(output.as_bytes());
    assert_eq!(before.len(), 12);
    for (b, a) in before.iter().zip(&after) {
        assert_ne!(
            b.bytes(input.as_bytes()),
            a.bytes(output.as_bytes()),
            "<{} {}> was left as it was in {output}",
            b.tag,
            b.name
        );
    }
}

// ---------------------------------------------------------------- files

#[test]
fn a_missing_input_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let run = Command::new(BIN)
        .current_dir(dir.path())
        .args(["-r", "http://h/", "no-such.html"])
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(2));
    assert_eq!(run.stdout, b"");
    assert_eq!(
        String::from_utf8_lossy(&run.stderr),
        "htmlabs: error: cannot open `no-such.html`: no such file or directory (os error 2)\n"
    );
}

#[cfg(unix)]
#[test]
fn an_unwritable_output_is_an_error_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(dir.path().join("file"), "x").unwrap();
    // `as_nobody`: run by the user `nobody` (through `setpriv`), for whom a
    // read-only directory is read-only even when the tests run as root.
    let run_as = |path: &str, as_nobody: bool| {
        let mut command = if as_nobody {
            let mut command = Command::new("setpriv");
            // A copy beside the input: the checkout's path may be closed
            // to nobody.
            command.args([
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "./htmlabs",
            ]);
            command
        } else {
            Command::new(BIN)
        };
        let run = command
            .current_dir(dir.path())
            .args(["-r", "http://h/", "-o", path])
            .write_stdin("<a href=x>")
            .output()
            .unwrap();
        assert_eq!(run.status.code(), Some(2), "{path}");
        assert_eq!(run.stdout, b"", "{path}");
        String::from_utf8(run.stderr).unwrap()
    };
    let out = |path: &str| run_as(path, false);
    assert_eq!(
        out("/proc/x"),
        "htmlabs: error: cannot write `/proc/x`: no such file or directory (os error 2)\n"
    );
    assert_eq!(
        out("file/out.html"),
        "htmlabs: error: cannot write `file/out.html`: not a directory (os error 20)\n"
    );
    // A read-only directory. Root writes into it anyway: as root, the run
    // is the user nobody's.
    use std::os::unix::fs::PermissionsExt;
    let ro = dir.path().join("ro");
    fs::create_dir(&ro).unwrap();
    fs::set_permissions(&ro, fs::Permissions::from_mode(0o555)).unwrap();
    let root = fs::write(ro.join("probe"), "").is_ok();
    if root {
        fs::remove_file(ro.join("probe")).unwrap();
        fs::set_permissions(dir.path(), fs::Permissions::from_mode(0o755)).unwrap();
        fs::copy(BIN, dir.path().join("htmlabs")).unwrap();
        let setpriv = StdCommand::new("setpriv").arg("--version").output();
        if !setpriv.is_ok_and(|o| o.status.success()) {
            assert!(
                std::env::var_os("CI").is_none(),
                "CI runs as root and needs setpriv (util-linux) for the read-only directory case"
            );
            common::skipped("the read-only directory case skipped: root, and no setpriv");
            return;
        }
    }
    assert_eq!(
        run_as("ro/out.html", root),
        "htmlabs: error: cannot write `ro/out.html`: permission denied (os error 13)\n"
    );
    assert_eq!(fs::read_dir(&ro).unwrap().count(), 0);
}

// ---------------------------------------------------------------- the command line

#[test]
fn an_unknown_flag_is_a_usage_error() {
    expect(
        &htmlabs(&["--frobnicate"], "<a href=x>"),
        2,
        b"",
        "htmlabs: error: unknown flag `--frobnicate`; see htmlabs --help\n",
    );
}

#[test]
fn a_closed_pipe_ends_quietly_with_status_0() {
    // Far more than a pipe holds, read from a file; the reader is gone
    // before the first byte is written.
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.html");
    fs::write(&big, "<p><a href=x>\n".repeat(500_000)).unwrap();
    let mut child = StdCommand::new(BIN)
        .args(["-r", "http://h/"])
        .arg(&big)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(stderr, "", "no message, no panic");
    assert_eq!(status.code(), Some(0), "{status:?}");
}

// ---------------------------------------------------------------- --max-memory

#[test]
fn a_huge_attribute_past_the_memory_limit_stops_rewriting_with_the_output_complete() {
    let value = "v".repeat(2_000_000);
    let input = format!("<p><a href=x><a href=\"{value}\"><a href=y><img src=z>");
    let run = htmlabs(
        &["--max-memory", "1000000", "-r", "http://h/d/"],
        input.clone(),
    );
    // Rewritten up to the tag lol_html could not hold; from there on, the
    // input as it was.
    let output = format!("<p><a href=http://h/d/x><a href=\"{value}\"><a href=y><img src=z>");
    expect(
        &run,
        2,
        output.as_bytes(),
        "htmlabs: warning: memory limit of 1000000 bytes (--max-memory) reached: rewriting stopped at byte 13, the rest is copied unchanged\n",
    );
    assert_eq!(run.stdout.len(), input.len() + "http://h/d/".len());
    // -q does not hide why the status is 2.
    let quiet = htmlabs(
        &["-q", "--max-memory", "1000000", "-r", "http://h/d/"],
        input,
    );
    assert_eq!(quiet.code, Some(2));
    assert!(quiet.stderr.starts_with("htmlabs: warning: memory limit"));
}

/// A start tag of many attributes, none of them the table's, is read whole
/// like any other: it counts against the memory limit, whatever its
/// element.
#[test]
fn a_tag_of_many_attributes_outside_the_table_counts_against_the_memory_limit() {
    let attributes = " a".repeat(400_000);
    let input = format!("<a href=x><p{attributes}><a href=y>");
    let output = format!("<a href=http://h/x><p{attributes}><a href=y>");
    expect(
        &htmlabs(&["--max-memory", "1000000", "-r", "http://h/"], input),
        2,
        output.as_bytes(),
        "htmlabs: warning: memory limit of 1000000 bytes (--max-memory) reached: rewriting stopped at byte 10, the rest is copied unchanged\n",
    );
}

/// A text past what a document may hold is left as it is, and the rest
/// rewritten; the run fails (status 2), as for any other limit reached:
/// not all of the page is rewritten.
#[test]
fn a_huge_style_past_the_memory_limit_is_left_as_it_is_with_status_2() {
    let css = "a{background:url(i.png)}".repeat(100_000);
    let input = format!("<p><a href=x><style>{css}</style><a href=y>");
    let output = format!("<p><a href=http://h/d/x><style>{css}</style><a href=http://h/d/y>");
    expect(
        &htmlabs(&["--max-memory", "1000000", "-r", "http://h/d/"], input),
        2,
        output.as_bytes(),
        "htmlabs: warning: the text at byte 20 is larger than the memory limit of 1000000 bytes (--max-memory): left as it is\n",
    );
}

/// A value whose working copies would outgrow the memory limit (a `ping`
/// list of 200,000 URLs: each becomes an edit, and the list twelve times
/// as long) stops rewriting at the value, which is copied as it is with the
/// rest: the bail-out of lol_html's own limit. It was rewritten, with the
/// value held many times over (a 60 MB list took 1.27 GB).
#[test]
fn a_value_whose_copies_outgrow_the_memory_limit_stops_rewriting_there() {
    // 400 KB of list fits lol_html's limit (a fifth of the document's
    // half of 5 MB), and not its 2 MB of new bytes beside it.
    let list = "a ".repeat(200_000);
    let input = format!("<a href=x><a ping=\"{list}\"><a href=y>");
    let output = format!("<a href=http://h/x><a ping=\"{list}\"><a href=y>");
    expect(
        &htmlabs(
            &["--max-memory", "5000000", "-r", "http://h/"],
            input.clone(),
        ),
        2,
        output.as_bytes(),
        "htmlabs: warning: memory limit of 5000000 bytes (--max-memory) reached: rewriting stopped at byte 19, the rest is copied unchanged\n",
    );
    // The URLs of the value given up are not counted as rewritten.
    let config = {
        let mut config = Config::default();
        config.max_memory = 5_000_000;
        config
    };
    let layers = Layers::default()
        .with_retrieval(Standard::Rfc1808, "http://h/", "-r")
        .unwrap();
    let (_, report) =
        htmlabs::rewrite_bytes(htmlabs::Type::Html, config, layers, input.as_bytes()).unwrap();
    assert!(report.incomplete());
    assert_eq!((report.counts.seen, report.counts.rewritten), (1, 1));
    // Within the limit, the same list is rewritten.
    let list = "a ".repeat(2_000);
    let input = format!("<a ping=\"{list}\">");
    let run = htmlabs(&["--max-memory", "5000000", "-r", "http://h/"], input);
    assert_eq!((run.code, run.stderr.as_str()), (Some(0), ""));
    assert_eq!(
        run.stdout,
        format!("<a ping=\"{}\">", "http://h/a ".repeat(2_000)).into_bytes()
    );
}

/// A document nested in a value (the text of `<noscript>`) that outgrows
/// its share of the memory limit stops the page at the value, and the
/// warning states the limit in force: `--max-memory`'s, not one of the
/// nested document's own (it named four times the text's length, 6000000
/// bytes here, and the byte in the nested document where it stopped).
#[test]
fn a_long_noscript_past_the_memory_limit_names_the_limit_in_force() {
    let divs = "<div>".repeat(300_000);
    let input = format!("<a href=x><noscript>{divs}</noscript><a href=y>");
    let output = format!("<a href=http://h/x><noscript>{divs}</noscript><a href=y>");
    expect(
        &htmlabs(&["--max-memory", "16000000", "-r", "http://h/"], input),
        2,
        output.as_bytes(),
        "htmlabs: warning: memory limit of 16000000 bytes (--max-memory) reached: rewriting stopped at byte 20, the rest is copied unchanged\n",
    );
}

/// A `srcdoc` document's head is read within `--max-lookahead`, the limit
/// in force, as the page's is (it was read within 1 MiB whatever the flag,
/// and the warning named 1048576 bytes).
#[test]
fn a_srcdoc_reads_its_head_within_the_lookahead_limit_in_force() {
    let metas = "<meta name=x>".repeat(100_000);
    let input = format!("<iframe srcdoc=\"{metas}<base href=http://b/><img src=i.png>\"></iframe>");
    let output = format!(
        "<iframe srcdoc=\"{metas}<base href=http://b/><img src=http://b/i.png>\"></iframe>"
    );
    expect(
        &htmlabs(&["--max-lookahead", "2000000", "-r", "http://h/"], input),
        0,
        output.as_bytes(),
        "",
    );
}

/// Past `MAX_DEPTH` nested `srcdoc`s the warning states that depth.
#[test]
fn srcdoc_nested_too_deep_names_the_depth() {
    let mut doc = "<img src=i.png>".to_owned();
    for _ in 0..10 {
        doc = format!(
            "<iframe srcdoc=\"{}\"></iframe>",
            doc.replace('&', "&amp;").replace('"', "&quot;")
        );
    }
    let run = htmlabs(&["-r", "http://h/"], doc);
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    assert!(
        run.stderr
            .ends_with("nests documents deeper than 8: left as it is\n"),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------- XML

const ATOM: &str = "<feed xmlns=\"http://www.w3.org/2005/Atom\">";

/// Nested relative `xml:base`s: the outer one is made absolute, and each
/// one inside it stays as written (it resolves to the same against it), so
/// the output is the input's size, not the square of its depth.
#[test]
fn deeply_nested_xml_bases_leave_the_output_the_inputs_size() {
    let depth = 5_000;
    let input = format!(
        "{ATOM}{}<link href=\"x\"/>{}</feed>",
        "<e xml:base=\"a/\">".repeat(depth),
        "</e>".repeat(depth)
    );
    let run = htmlabs(&["-r", "http://h/feed.xml"], input.clone());
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let inner = format!("http://h/{}x", "a/".repeat(depth));
    let expected = input
        .replacen("xml:base=\"a/\"", "xml:base=\"http://h/a/\"", 1)
        .replace("href=\"x\"", &format!("href=\"{inner}\""));
    assert!(
        run.stdout == expected.as_bytes(),
        "{} bytes",
        run.stdout.len()
    );
}

/// A value's element in the link report and check lines is its path cut
/// to its first and last names: a report as deep as its document would
/// grow with the square of its depth.
#[test]
fn a_deep_elements_path_is_cut_in_the_report() {
    let depth = 3_000;
    let input = format!(
        "{ATOM}{}{}</feed>",
        "<entry><link href=\"x\"/>".repeat(depth),
        "</entry>".repeat(depth)
    );
    let run = htmlabs(
        &["-r", "http://h/feed.xml", "--report", "-", "--check"],
        input,
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let report = String::from_utf8(run.stdout).unwrap();
    assert_eq!(report.lines().count(), depth);
    let last: serde_json::Value = serde_json::from_str(report.lines().last().unwrap()).unwrap();
    assert_eq!(last["element"], "feed/entry/entry/…/entry/entry/entry/link");
    assert!(report.len() < 300 * depth, "{} bytes", report.len());
    assert!(
        run.stderr.lines().all(|l| l.len() < 200),
        "check lines are cut too"
    );
    // A name past 64 bytes is cut, with a `…`.
    let long = "e".repeat(100);
    let run = htmlabs(
        &["-r", "http://h/", "--report", "-", "--check"],
        format!("<svg xmlns=\"http://www.w3.org/2000/svg\"><{long} href=\"x\"/></svg>"),
    );
    let line: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(line["element"], format!("svg/{}…", "e".repeat(64)));
}

/// Entities defined by entities ("billion laughs") expand no further than
/// the document's own size: rewriting stops at the value, the rest is
/// copied, exit 2.
#[test]
fn entities_that_expand_past_the_documents_size_stop_rewriting_there() {
    let mut subset = String::from("<!ENTITY l0 \"ha\">");
    for i in 1..=9 {
        subset += &format!("<!ENTITY l{i} \"{}\">", format!("&l{};", i - 1).repeat(10));
    }
    let input = format!(
        "<!DOCTYPE feed [{subset}]>{ATOM}<link href=\"a\"/><link href=\"&l9;\"/><link href=\"b\"/></feed>"
    );
    let at = input.find("&l9;").unwrap();
    expect(
        &htmlabs(&["-r", "http://h/"], input.clone()),
        2,
        input.replace("\"a\"", "\"http://h/a\"").as_bytes(),
        &format!(
            "htmlabs: warning: entity references at byte {at} expand past the document's own size: rewriting stopped there, the rest is copied unchanged\n"
        ),
    );
}

/// UTF-32, which XML 1.0 Appendix F tells by its first bytes, is refused
/// by name: encoding_rs has no decoder for it. Nothing is written.
#[test]
fn utf_32_is_refused_by_name_with_nothing_written() {
    let utf32 = |be: bool| -> Vec<u8> {
        "<?xml version=\"1.0\"?><rss><channel><link>a/</link></channel></rss>"
            .chars()
            .flat_map(|c| {
                if be {
                    (c as u32).to_be_bytes()
                } else {
                    (c as u32).to_le_bytes()
                }
            })
            .collect()
    };
    for (bytes, name) in [
        (utf32(false), "UTF-32LE"),
        (utf32(true), "UTF-32BE"),
        (
            [&[0xFF, 0xFE, 0, 0][..], &utf32(false)].concat(),
            "UTF-32LE",
        ),
    ] {
        expect(
            &htmlabs(&["-r", "http://h/"], bytes),
            2,
            b"",
            &format!(
                "htmlabs: error: cannot rewrite standard input: `{name}` (by its first bytes, XML 1.0 Appendix F) cannot be read: htmlabs reads UTF-8, UTF-16 and ASCII-compatible encodings; convert the document first\n"
            ),
        );
    }
}

/// An XML declaration that names an encoding whose bytes are not ASCII's
/// (ISO-2022-JP) is refused, as the page engine refuses it in a `<meta>`:
/// its text could not be written back as it came. Nothing is written.
#[test]
fn an_xml_declaration_of_iso_2022_jp_is_refused_as_in_a_page() {
    let feed = "<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?><rss><channel><link>a/</link></channel></rss>";
    let message = "htmlabs: error: cannot rewrite standard input: `ISO-2022-JP` cannot be rewritten in place (its bytes are not ASCII-compatible); convert the page to UTF-8 first\n";
    expect(&htmlabs(&["-r", "http://h/"], feed), 2, b"", message);
    let page = "<meta charset=\"ISO-2022-JP\"><a href=x>";
    expect(&htmlabs(&["-r", "http://h/"], page), 2, b"", message);
    // Given by `--encoding`, or after a byte order mark that says UTF-8,
    // the declaration says nothing.
    let run = htmlabs(&["-r", "http://h/"], format!("\u{feff}{feed}"));
    assert_eq!(run.code, Some(0), "{}", run.stderr);
}

// ---------------------------------------------------------------- found by fuzzing, fixed: each test is the case that showed the bug

/// `value::Decoded::new` takes the first character of a value for a `&`,
/// one byte long: a value that starts with a multi-byte character and holds
/// a `&` panics ("start byte index 1 is not a char boundary"), exit 101 and
/// no output. In a `<base href>` (where an invalid byte reads as U+FFFD) it
/// panics even without `-r`.
#[test]

fn bug_a_value_starting_with_a_multibyte_character_and_holding_an_ampersand_panics() {
    expect(
        &htmlabs(&["-r", "http://h/"], "<a href=\"é?a&amp;b\">"),
        0,
        "<a href=\"http://h/é?a&amp;b\">".as_bytes(),
        "",
    );
    for (args, input) in [
        (
            &["-r", "http://h/"][..],
            &b"<iframe srcdoc=\"<a href=&quot;\xc3\xa9&amp;amp;&quot;>\">"[..],
        ),
        (&[], b"<base href=\xff&amp;x><a href=y>"),
    ] {
        let run = htmlabs(args, input);
        assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
        assert_eq!(run.code, Some(0), "{}", run.stderr);
    }
}

/// The values of the URL attributes of `html`, as a browser reads them.
fn decoded_values(html: &[u8]) -> Vec<String> {
    properties::spans::list(html)
        .iter()
        .map(|s| properties::spans::decoded(&String::from_utf8_lossy(s.bytes(html))))
        .collect()
}

/// The value of a whitespace-separated list (`ping`, `itemtype`, `archive`,
/// `profile`) resolved against a base with a space holds more URLs than
/// before: the space is not escaped (in srcset it is, as `%20`), and a
/// second run resolves the second half.
#[test]

fn bug_a_base_with_a_space_splits_list_values() {
    let run = htmlabs(&["-r", "http://h/a b/"], "<a ping=x itemtype=\"y z\">");
    assert_eq!(run.code, Some(0));
    let urls: Vec<usize> = decoded_values(&run.stdout)
        .iter()
        .map(|v| v.split_ascii_whitespace().count())
        .collect();
    assert_eq!(urls, [1, 2], "{:?}", Show(&run.stdout));
    let again = htmlabs(&["-r", "http://h/a b/"], run.stdout.clone());
    assert_eq!(
        Show(&again.stdout),
        Show(&run.stdout),
        "a second run changed it"
    );
}

/// A prefix spliced in right after a character reference written without
/// its `;` becomes part of it: `&quot` + `h…` is no longer a reference, and
/// `&#x9` + `f…` is `&#x9f` (U+0178). The value then means something else.
#[test]

fn bug_a_prefix_after_a_reference_without_semicolon_extends_it() {
    for (input, base, meant) in [
        (
            "<div style=\"background:url(&quot/i.png&quot)\">",
            "http://h/d/",
            "background:url(\"http://h/i.png\")",
        ),
        ("<a href=\"&#x9x\">", "file:///d/", "file:///d/x"),
    ] {
        let run = htmlabs(&["-r", base], input);
        assert_eq!(run.code, Some(0));
        assert_eq!(
            decoded_values(&run.stdout),
            [meant],
            "{input} became {:?}",
            Show(&run.stdout)
        );
    }
}

/// `--max-memory` below the 1 KiB that lol_html preallocates trips a
/// `debug_assert!` in lol_html (`Arena::new`): a panic in debug builds. (A
/// release build stops at byte 0: nothing is rewritten, exit 2.) It should
/// be refused as a usage error, or run and stop at the limit.
#[test]

fn bug_a_max_memory_below_1024_panics() {
    let run = htmlabs(&["--max-memory", "1000", "-r", "http://h/"], "<a href=x>");
    assert!(!run.stderr.contains("panicked"), "{}", run.stderr);
    assert_eq!(run.code, Some(2), "{}", run.stderr);
}

/// The lookahead holds at most a sixteenth of `--max-memory` (an eighth
/// of what a document may hold), whatever `--max-lookahead` says: a head
/// of 500 KB under `--max-memory 100000` stops holding at 6250 bytes, and
/// says so; the tag past lol_html's limit then stops rewriting, and says
/// that.
#[test]
fn the_lookahead_holds_a_sixteenth_of_the_memory_limit_at_most() {
    let input = format!(
        "<link href=x><link href=\"{}\"><a href=y>",
        "v".repeat(500_000)
    );
    let run = htmlabs(&["--max-memory", "100000", "-r", "http://h/"], input);
    assert_eq!(run.code, Some(2));
    assert_eq!(
        run.stderr,
        "htmlabs: warning: no `<base href>` and no end of the head in the first 6250 bytes (--max-lookahead, at most a sixteenth of --max-memory): going on without an embedded base\n\
         htmlabs: warning: memory limit of 100000 bytes (--max-memory) reached: rewriting stopped at byte 13, the rest is copied unchanged\n"
    );
}

/// `input` of type `kind` rewritten by the library under `max_memory`,
/// retrieved from `url`, in writes of `size` bytes: the warnings and the
/// output.
fn written(
    kind: htmlabs::Type,
    max_memory: usize,
    url: &str,
    input: &str,
    size: usize,
) -> (Vec<Warning>, Vec<u8>) {
    let mut config = Config::default();
    config.max_memory = max_memory;
    let layers = Layers::default()
        .with_retrieval(Standard::Rfc1808, url, "-r")
        .unwrap();
    let mut rewriter = Rewriter::new(kind, config, layers, Vec::new());
    for chunk in input.as_bytes().chunks(size) {
        rewriter.write(chunk).unwrap();
    }
    let (report, output) = rewriter.end().unwrap();
    (report.warnings, output)
}

/// The memory-limit warning names the first byte of the write in which
/// lol_html gave up (a multiple of 64 KiB with the binary), not where
/// rewriting stopped: the tag it could not hold, at byte 13 here, and the
/// byte it names changes with the sizes of the writes.
#[test]

fn bug_the_memory_limit_offset_depends_on_the_writes() {
    let input = format!(
        "<p><a href=x><a href=\"{}\"><a href=y>",
        "v".repeat(2_000_000)
    );
    let offsets: Vec<Vec<Warning>> = [1000, 4096, 65536]
        .into_iter()
        .map(|size| written(htmlabs::Type::Html, 1_000_000, "http://h/", &input, size).0)
        .collect();
    for warnings in offsets {
        assert_eq!(
            warnings,
            [Warning::MemoryLimit {
                limit: 1_000_000,
                offset: 13
            }]
        );
    }
}

/// The XML engine stops at the memory limit where the bytes say, however
/// they come: reading ahead from an XHTML root element for its `<base
/// href>` holds the head, and holding it counts whether the head came
/// whole or in small writes. A head longer than a document's share of a
/// 2 KiB `--max-memory` stops rewriting at the root element, written whole
/// or in writes of any size; under 64 KiB the same document is rewritten.
/// (Found by the `xml` fuzzer, its input now in the corpus: it stopped at
/// byte 630 written whole, at the root in writes of 64 bytes or fewer.)
#[test]
fn the_xml_engine_stops_at_the_memory_limit_where_the_bytes_decide() {
    let declaration = "<?xml version=\"1.0\"?>";
    let input = format!(
        "{declaration}<html xmlns=\"http://www.w3.org/1999/xhtml\"><head>{}</head><body><a href=\"b\">b</a></body></html>",
        "<meta name=\"m\" content=\"a value to hold\"/>\n".repeat(60)
    );
    let run =
        |max_memory, size| written(htmlabs::Type::Xml, max_memory, "http://h/d/", &input, size);
    for size in [input.len(), 512, 64, 7, 1] {
        let (warnings, output) = run(2048, size);
        assert_eq!(
            warnings,
            [Warning::MemoryLimit {
                limit: 2048,
                offset: declaration.len()
            }],
            "in writes of {size} bytes"
        );
        assert_eq!(output, input.as_bytes(), "in writes of {size} bytes");
        let (warnings, output) = run(64 << 10, size);
        assert_eq!(warnings, [], "in writes of {size} bytes");
        assert_eq!(
            output,
            input
                .replace("href=\"b\"", "href=\"http://h/d/b\"")
                .as_bytes(),
            "in writes of {size} bytes"
        );
    }
}
