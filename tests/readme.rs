//! The README's first screen and its `-v` block must stay true.

mod common;

use std::process::Command;

const README: &str = include_str!("../README.md");
const EXAMPLE_ARGS: [&str; 3] = [
    "--retrieved-from",
    "https://example.com/docs/guide/page.html",
    "fixtures/example/page.html",
];

#[test]
fn the_first_command_is_the_bundled_example() {
    let command = format!("cargo run --release -- {}", EXAMPLE_ARGS.join(" "));
    let first_screen: String = README.lines().take(20).collect::<Vec<_>>().join("\n");
    assert!(
        first_screen.contains(&command),
        "README's first screen lacks `{command}`"
    );
    assert!(
        first_screen.contains("\ncargo test\n"),
        "README's first screen lacks `cargo test`"
    );
}

/// The first ```text block after `marker` in the README.
fn block_after(marker: &str) -> &'static str {
    README
        .split(marker)
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("README has a ```text block after {marker:?}"))
}

/// What htmlabs writes to standard output and standard error, run from the
/// checkout with `args`; it must succeed.
fn htmlabs(args: &[&str]) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_htmlabs"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    assert!(output.status.success());
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn the_verbose_lines_are_what_the_example_prints() {
    let (_, stderr) = htmlabs(&[&["-v"][..], &EXAMPLE_ARGS].concat());
    assert_eq!(stderr, block_after("With `-v`"));
}

#[test]
fn the_http_verbose_lines_are_what_the_curl_il_capture_prints() {
    let (stdout, stderr) = htmlabs(&[
        "--http",
        "-v",
        "-r",
        "http://127.0.0.1:8000/start/r1",
        "fixtures/http/curl-iL.http",
    ]);
    assert_eq!(stderr, block_after("With `--http -v`"));
    assert!(stdout.contains("Content-Length: 290\r\n\r\n<!doctype"));
}

/// The README's table of what is rewritten, as `src/html/attrs.rs` has it:
/// every built-in row, the opt-in ones too.
fn table() -> String {
    use htmlabs::{Group, Table, When};
    let mut out =
        String::from("| element | attribute | kind | when |\n| --- | --- | --- | --- |\n");
    for row in Table::new(true, true, Vec::new()).rows() {
        let (attribute, kind, when, group) = (&row.attribute, row.kind, row.when, row.group);
        let element = match row.element.as_str() {
            "*" => "every element".to_owned(),
            e => format!("`{e}`"),
        };
        let mut conditions = Vec::new();
        match when {
            When::Always => {}
            When::Equals(name, value) => conditions.push(format!("`{name}={value}`")),
            When::OneOf(name, values) => conditions.push(format!(
                "`{name}` is one of {} URL properties",
                values.len()
            )),
        }
        match group {
            Group::Default | Group::User => {}
            Group::Lazy => conditions.push("with `--lazy`".into()),
            Group::Social => conditions.push("with `--social`".into()),
        }
        out.push_str(&format!(
            "| {element} | `{attribute}` | {} | {} |\n",
            kind.name(),
            conditions.join(", ")
        ));
    }
    out
}

/// The README's list of the attributes whose empty value is left, as
/// `src/html/attrs.rs` has it: its rows marked `Empty::Nothing`, those of an
/// attribute, condition and group on one line.
fn empty_left() -> String {
    use htmlabs::{Empty, Group, Table, When};
    let mut lines: Vec<(String, Vec<String>)> = Vec::new();
    for row in Table::new(true, true, Vec::new()).rows() {
        if row.empty != Empty::Nothing {
            continue;
        }
        let mut head = format!("- `{}` on", row.attribute);
        let tail = match row.when {
            When::Always => String::new(),
            other => panic!("no words for {other:?}"),
        };
        head.push_str(&tail);
        if row.group == Group::Lazy {
            head.push_str(" (with `--lazy`)");
        }
        let element = match row.element.as_str() {
            "*" => "every element".to_owned(),
            e => format!("`{e}`"),
        };
        match lines.iter_mut().find(|(h, _)| *h == head) {
            Some((_, elements)) => elements.push(element),
            None => lines.push((head, vec![element])),
        }
    }
    lines
        .into_iter()
        .map(|(head, elements)| {
            let (before, after) = head.split_once(" on").unwrap();
            format!("{before} on {}{after}\n", elements.join(", "))
        })
        .collect()
}

/// The README's text between `<!-- NAME: generated ... -->` and
/// `<!-- end of NAME -->`.
fn generated(name: &str) -> &'static str {
    let start =
        format!("<!-- {name}: generated from src/html/attrs.rs, checked by tests/readme.rs -->\n");
    README
        .split(&start)
        .nth(1)
        .and_then(|rest| rest.split(&format!("<!-- end of {name} -->")).next())
        .unwrap_or_else(|| panic!("README has no `{name}` markers"))
}

#[test]
fn the_table_is_the_attribute_table() {
    let expected = table();
    assert!(
        generated("table").trim_end() == expected.trim_end(),
        "README's table is not src/html/attrs.rs's; it should read:\n{expected}"
    );
}

#[test]
fn the_empty_values_left_are_the_attribute_table_s() {
    let expected = empty_left();
    assert!(expected.lines().count() > 3, "{expected}");
    assert!(
        generated("empty").trim_end() == expected.trim_end(),
        "README's list of empty values left is not src/html/attrs.rs's; it should read:\n{expected}"
    );
}

/// The README's `jq` one-liners, run by jq over a report htmlabs wrote of a
/// small site: each finds what its comment says, and nothing else.
#[test]
fn the_jq_lines_find_what_they_say() {
    let Some(jq) = common::tool("jq", "the README's jq lines") else {
        return;
    };
    let block = README
        .split("With `jq`:")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("README has a ```sh block after \"With `jq`:\"");
    // Each command: a `# what it finds` line, then `jq …` and the lines
    // that continue it.
    let mut commands: Vec<(String, String)> = Vec::new();
    for line in block.lines() {
        if let Some(comment) = line.strip_prefix("# ") {
            commands.push((comment.to_owned(), String::new()));
        } else if let Some((_, command)) = commands.last_mut() {
            command.push_str(line);
            command.push('\n');
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let site = dir.path().join("public");
    std::fs::create_dir_all(site.join("docs")).unwrap();
    std::fs::write(
        site.join("docs/index.html"),
        "<a href=\"../about/\">about</a>\n\
         <a href=\"https://other.org/x\">other</a>\n\
         <img src=\"http://example.com/logo.png\">\n\
         <script src=\"http://cdn.example.net/a.js\"></script>\n",
    )
    .unwrap();
    let htmlabs = Command::new(env!("CARGO_BIN_EXE_htmlabs"))
        .current_dir(dir.path())
        .args(["--site", "public", "--site-url", "https://example.com/"])
        .args(["--check", "--report", "links.jsonl"])
        .output()
        .unwrap();
    assert_eq!(htmlabs.status.code(), Some(1), "{htmlabs:?}");
    let run = |command: &str| {
        let out = Command::new("sh")
            .current_dir(dir.path())
            .env("PATH", jq.parent().unwrap())
            .args(["-c", command])
            .output()
            .unwrap();
        assert!(out.status.success(), "`{command}`: {out:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let expected = [
        (
            "every link to another host",
            "public/docs/index.html:2: https://other.org/x\n\
             public/docs/index.html:4: http://cdn.example.net/a.js\n",
        ),
        (
            "every http: link on an https: site (mixed content)",
            "public/docs/index.html:3:11: http://example.com/logo.png\n\
             public/docs/index.html:4:14: http://cdn.example.net/a.js\n",
        ),
        (
            "how many of each outcome",
            "{\n  \"absolute\": 3,\n  \"rewritten\": 1\n}\n",
        ),
    ];
    assert_eq!(
        commands.iter().map(|(c, _)| c.as_str()).collect::<Vec<_>>(),
        expected.iter().map(|(c, _)| *c).collect::<Vec<_>>()
    );
    for ((comment, command), (_, want)) in commands.iter().zip(expected) {
        assert_eq!(run(command), want, "{comment}: `{command}`");
    }
}
