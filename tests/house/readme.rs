//! The README and the guides in `docs/` must stay true: the README's first
//! screen, the `-v` blocks, the generated attribute table, the `jq` lines,
//! and every `htmlabs` command of their ```sh blocks, run.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

const EXAMPLE_ARGS: [&str; 3] = [
    "--retrieved-from",
    "https://example.com/docs/guide/page.html",
    "fixtures/example/page.html",
];

/// A document of the checkout, by its path from the root.
fn doc(path: &str) -> String {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The documents whose commands are run: the README and every guide.
fn documents() -> Vec<String> {
    let mut guides: Vec<String> =
        std::fs::read_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs"))
            .expect("docs/")
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .filter(|name| name.ends_with(".md"))
            .map(|name| format!("docs/{name}"))
            .collect();
    guides.sort();
    assert!(guides.len() >= 8, "the guides: {guides:?}");
    let mut all = vec!["README.md".to_owned()];
    all.extend(guides);
    all
}

/// The quick start: each mode on a bundled example, in the order a
/// newcomer runs them (the commands themselves are run, as every other,
/// by [`every_htmlabs_command_in_the_documents_runs`]).
const QUICK_START: [&str; 4] = [
    "htmlabs -r https://example.com/docs/guide/page.html fixtures/example/page.html",
    "htmlabs --http fixtures/http/curl-iL.http",
    "htmlabs --site fixtures/example/site --site-url https://example.com/ --out-dir site-absolute",
    "htmlabs --warc fixtures/warc/shapes.warc.gz -o absolute.warc.gz",
];

#[test]
fn the_first_screen_builds_once_and_runs_each_mode_on_a_bundled_example() {
    let readme = doc("README.md");
    let first_screen: Vec<&str> = readme.lines().take(50).collect();
    let at = |wanted: &str| {
        first_screen
            .iter()
            .position(|line| line.starts_with(wanted))
            .unwrap_or_else(|| panic!("README's first screen lacks `{wanted}`"))
    };
    let mut last = at("alias htmlabs='cargo run --release --'");
    for command in QUICK_START
        .iter()
        .chain(&["cargo test", "cargo install --locked --path ."])
    {
        let here = at(command);
        assert!(here > last, "`{command}` comes before what it follows");
        last = here;
    }
    // They name files the checkout has, with the arguments the example's
    // description is checked with.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for path in QUICK_START
        .iter()
        .flat_map(|c| c.split(' '))
        .filter(|w| w.starts_with("fixtures/"))
    {
        assert!(root.join(path).exists(), "{path} is not in the checkout");
    }
    assert!(QUICK_START[0].ends_with(&EXAMPLE_ARGS[1..].join(" ")));
}

/// The first ```text block after `marker` in the document at `path`.
fn block_after(path: &str, marker: &str) -> String {
    doc(path)
        .split(marker)
        .nth(1)
        .and_then(|rest| rest.split("```text\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .unwrap_or_else(|| panic!("{path} has no ```text block after {marker:?}"))
        .to_owned()
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
    assert_eq!(stderr, block_after("docs/rewritten.md", "With `-v`"));
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
    assert_eq!(stderr, block_after("docs/http.md", "With `--http -v`"));
    assert!(stdout.contains("Content-Length: 290\r\n\r\n<!doctype"));
}

/// The ```xml blocks of `docs/feeds.md` after `marker`, in order.
fn xml_blocks_after(marker: &str) -> Vec<String> {
    doc("docs/feeds.md")
        .split(marker)
        .nth(1)
        .unwrap_or_else(|| panic!("docs/feeds.md has no {marker:?}"))
        .split("```xml\n")
        .skip(1)
        .map(|rest| rest.split("```").next().unwrap().to_owned())
        .collect()
}

/// What docs/feeds.md shows of a feed and a stylesheet is what htmlabs
/// makes of them: the `xml:base` example, the HTML inside a feed, the
/// check lines.
#[test]
fn the_feed_examples_are_what_htmlabs_prints() {
    let blocks = xml_blocks_after("## The base inside XML");
    let out = Command::new(env!("CARGO_BIN_EXE_htmlabs"))
        .args(["-r", "https://example.com/feed.atom"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(blocks[0].as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), blocks[1]);

    let dir = tempfile::tempdir().unwrap();
    let fixtures = common::fixtures();
    std::fs::copy(
        fixtures.join("xml/rss2-elements/input.xml"),
        dir.path().join("feed.xml"),
    )
    .unwrap();
    std::fs::copy(
        fixtures.join("stylesheet/imports-and-image-sets/input.css"),
        dir.path().join("site.css"),
    )
    .unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_htmlabs"))
            .current_dir(dir.path())
            .args(args)
            .output()
            .unwrap();
        String::from_utf8(out.stdout).unwrap()
    };
    let feed = run(&["-r", "https://example.com/news/rss.xml", "feed.xml"]);
    let inside = xml_blocks_after("## HTML inside feeds");
    for line in inside[0].lines() {
        assert!(feed.contains(line.trim()), "{line}");
    }
    let feed = run(&[
        "--check",
        "-r",
        "https://example.com/news/rss.xml",
        "feed.xml",
    ]);
    let css = run(&[
        "--check",
        "--type",
        "css",
        "-r",
        "https://example.com/css/site.css",
        "site.css",
    ]);
    let shown: Vec<&str> = feed.lines().take(4).chain(css.lines().take(1)).collect();
    assert_eq!(
        shown.join("\n") + "\n",
        block_after("docs/feeds.md", "## Check mode")
    );
}

/// The table of what is rewritten (`docs/rewritten.md`), as `src/document/attrs.rs` has it:
/// every built-in row, the opt-in ones too.
fn table() -> String {
    use htmlabs::internal::{Group, Table, When};
    let mut out =
        String::from("| element | attribute | kind | when |\n| --- | --- | --- | --- |\n");
    for row in Table::new(true, true, Vec::new()).rows() {
        let (attribute, kind, when, group) = (&row.attribute, row.kind, row.when, row.group);
        let element = match &*row.element {
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
            When::Tokens(name, any, none) => conditions.push(tokens(name, any, none)),
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

/// A condition on an attribute's tokens, in words.
fn tokens(name: &str, any: &[&str], none: &[&str]) -> String {
    let quoted = |list: &[&str]| {
        list.iter()
            .map(|t| format!("`{t}`"))
            .collect::<Vec<_>>()
            .join(" or ")
    };
    format!(
        "`{name}` has {}, and none of the {} types that use the whole URL",
        quoted(any),
        none.len()
    )
}

/// The list of the attributes whose empty value is left (`docs/rewritten.md`), as
/// `src/document/attrs.rs` has it: its rows marked `Empty::Nothing`, those of an
/// attribute, condition and group on one line.
fn empty_left() -> String {
    use htmlabs::internal::{Empty, Group, Table, When};
    let mut lines: Vec<(String, Vec<String>)> = Vec::new();
    for row in Table::new(true, true, Vec::new()).rows() {
        if row.empty != Empty::Nothing {
            continue;
        }
        let mut head = format!("- `{}` on", row.attribute);
        let tail = match row.when {
            When::Always => String::new(),
            // An empty `<link href>` is left whatever its `rel`: said once.
            When::Tokens(..) => String::new(),
            other => panic!("no words for {other:?}"),
        };
        head.push_str(&tail);
        if row.group == Group::Lazy {
            head.push_str(" (with `--lazy`)");
        }
        let element = match &*row.element {
            "*" => "every element".to_owned(),
            e => format!("`{e}`"),
        };
        match lines.iter_mut().find(|(h, _)| *h == head) {
            Some((_, elements)) if elements.contains(&element) => {}
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

/// The text of `docs/rewritten.md` between `<!-- NAME: generated ... -->`
/// and `<!-- end of NAME -->`.
fn generated(name: &str) -> String {
    let start = format!(
        "<!-- {name}: generated from src/document/attrs.rs, checked by tests/house/readme.rs -->\n"
    );
    doc("docs/rewritten.md")
        .split(&start)
        .nth(1)
        .and_then(|rest| rest.split(&format!("<!-- end of {name} -->")).next())
        .unwrap_or_else(|| panic!("docs/rewritten.md has no `{name}` markers"))
        .to_owned()
}

#[test]
fn the_table_is_the_attribute_table() {
    let expected = table();
    assert!(
        generated("table").trim_end() == expected.trim_end(),
        "docs/rewritten.md's table is not src/document/attrs.rs's; it should read:\n{expected}"
    );
}

#[test]
fn the_empty_values_left_are_the_attribute_table_s() {
    let expected = empty_left();
    assert!(expected.lines().count() > 3, "{expected}");
    assert!(
        generated("empty").trim_end() == expected.trim_end(),
        "docs/rewritten.md's list of empty values left is not src/document/attrs.rs's; it should read:\n{expected}"
    );
}

/// One `htmlabs` command of a ```sh block: where it stands, the line as
/// the shell gets it, and why it is not run, if its block says so.
#[derive(Debug)]
struct Example {
    place: String,
    line: String,
    not_run: Option<String>,
}

/// The reason of a `<!-- not run: REASON -->` line, if it is one.
fn not_run(line: &str) -> Option<String> {
    let reason = line
        .trim()
        .strip_prefix("<!-- not run:")?
        .strip_suffix("-->")?
        .trim();
    Some(reason.to_owned())
}

/// Whether a shell line runs htmlabs: a command of it (the line's first
/// word, or the first after `|`, `&&`, `||`, `;` or `(`) is `htmlabs`.
/// A comment is not looked at.
fn runs_htmlabs(line: &str) -> bool {
    let code = line.split(" #").next().unwrap_or("");
    if code.trim_start().starts_with('#') {
        return false;
    }
    let mut at_command = true;
    for word in code.split_whitespace() {
        let word = word.trim_start_matches('(');
        if at_command && word == "htmlabs" {
            return true;
        }
        at_command = matches!(word, "|" | "&&" | "||" | ";" | "") || word.ends_with(';');
    }
    false
}

/// Every `htmlabs` command in the ```sh blocks of the document at `path`;
/// a line that ends with `\` goes on on the next. A `<!-- not run: … -->`
/// line right before a block (blank lines between allowed) marks its
/// commands, and must mark at least one.
fn examples(path: &str) -> Vec<Example> {
    let text = doc(path);
    let mut found = Vec::new();
    let mut marker: Option<(usize, String)> = None;
    let mut block: Option<(Option<String>, usize)> = None; // (not run, commands in it)
    let mut pending = String::new();
    let mut pending_from = 0;
    for (i, raw) in text.lines().enumerate() {
        let number = i + 1;
        let trimmed = raw.trim();
        match &mut block {
            None => {
                if trimmed == "```sh" {
                    block = Some((marker.take().map(|(_, reason)| reason), 0));
                } else if let Some(reason) = not_run(trimmed) {
                    assert!(
                        !reason.is_empty(),
                        "{path}:{number}: a not-run marker says why"
                    );
                    marker = Some((number, reason));
                } else if !trimmed.is_empty() {
                    if let Some((at, _)) = marker.take() {
                        panic!(
                            "{path}:{at}: a not-run marker that is not right before a ```sh block"
                        );
                    }
                }
            }
            Some((reason, count)) => {
                if trimmed == "```" {
                    assert!(
                        pending.is_empty(),
                        "{path}:{number}: a block ends in a `\\`"
                    );
                    if reason.is_some() {
                        assert!(
                            *count > 0,
                            "{path}:{number}: a not-run marker on a block with no htmlabs command"
                        );
                    }
                    block = None;
                    continue;
                }
                if pending.is_empty() {
                    pending_from = number;
                }
                match trimmed.strip_suffix('\\') {
                    Some(head) => {
                        pending.push_str(head);
                        pending.push(' ');
                    }
                    None => {
                        pending.push_str(trimmed);
                        let line = std::mem::take(&mut pending);
                        if runs_htmlabs(&line) {
                            *count += 1;
                            found.push(Example {
                                place: format!("{path}:{pending_from}"),
                                line,
                                not_run: reason.clone(),
                            });
                        }
                    }
                }
            }
        }
    }
    assert!(block.is_none(), "{path}: a ```sh block does not end");
    assert!(marker.is_none(), "{path}: a not-run marker at the end");
    found
}

/// A scratch directory with what the documents' commands name, made from
/// the bundled fixtures; it is also `HOME`.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let fixtures = common::fixtures();
    let copy = |from: &str, to: &str| {
        let to = root.join(to);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixtures.join(from), &to).unwrap_or_else(|e| panic!("{from}: {e}"));
    };
    // One page, a saved response, and the files named by their place in
    // the checkout.
    copy("example/page.html", "page.html");
    copy("http/curl-iL.http", "page.http");
    copy("example/page.html", "fixtures/example/page.html");
    copy("http/curl-iL.http", "fixtures/http/curl-iL.http");
    copy("warc/shapes.warc.gz", "fixtures/warc/shapes.warc.gz");
    for file in [
        "index.html",
        "docs/guide/page.html",
        "css/site.css",
        "img/logo.svg",
        "feed.xml",
        "sitemap.xml",
    ] {
        copy(
            &format!("example/site/{file}"),
            &format!("fixtures/example/site/{file}"),
        );
    }
    // A small site, as hugo (public/) and jekyll (_site/) write it.
    for site in ["public", "_site"] {
        copy("example/page.html", &format!("{site}/index.html"));
        copy("example/page.html", &format!("{site}/docs/guide/page.html"));
        copy(
            "filter/srcset/input.html",
            &format!("{site}/docs/index.html"),
        );
        copy(
            "filter/css/input.html",
            &format!("{site}/drafts/index.html"),
        );
    }
    // A feed, a stylesheet and an SVG sprite (docs/feeds.md), alone, as a
    // saved response, and in the small sites.
    copy("xml/rss2-elements/input.xml", "feed.xml");
    copy("stylesheet/imports-and-image-sets/input.css", "site.css");
    copy("xml/svg-sprite/input.xml", "sprite.svg");
    let mut response = b"HTTP/1.1 200 OK\r\nContent-Type: application/rss+xml\r\n\r\n".to_vec();
    response.extend(std::fs::read(fixtures.join("xml/rss2-elements/input.xml")).unwrap());
    std::fs::write(root.join("feed.http"), response).unwrap();
    for site in ["public", "_site"] {
        copy("xml/rss2-elements/input.xml", &format!("{site}/index.xml"));
        copy("xml/sitemap/input.xml", &format!("{site}/sitemap.xml"));
        copy(
            "stylesheet/imports-and-image-sets/input.css",
            &format!("{site}/css/site.css"),
        );
    }
    // Web archives: gzip, plain, and zstd with a dictionary.
    copy("warc/shapes.warc.gz", "crawl.warc.gz");
    copy("warc/shapes-1.0.warc", "crawl.warc");
    copy("warc/shapes-dict.warc.zst", "crawl.warc.zst");
    // Where the man page and completions go.
    for home in [
        ".local/share/man/man1",
        ".local/share/bash-completion/completions",
        ".config/fish/completions",
        ".zfunc",
    ] {
        std::fs::create_dir_all(root.join(home)).unwrap();
    }
    dir
}

/// Every `htmlabs` command of a ```sh block in the README and the guides
/// runs, through `sh -c` in a scratch directory of its own, with the
/// binary first on `PATH`, and succeeds: exit status 0, or 1 where it
/// checks (`--check`, `--check-links`). Those whose block says why they cannot run here are
/// counted and named.
#[test]
fn every_htmlabs_command_in_the_documents_runs() {
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_htmlabs"));
    let mut path = vec![bin.parent().unwrap().to_path_buf()];
    path.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    let path = std::env::join_paths(path).unwrap();
    let (mut ran, mut skipped) = (0, Vec::new());
    let mut failures = Vec::new();
    for document in documents() {
        for example in examples(&document) {
            if let Some(reason) = example.not_run {
                skipped.push((example.place, reason));
                continue;
            }
            let dir = scratch();
            let out = Command::new("sh")
                .current_dir(dir.path())
                .env("PATH", &path)
                .env("HOME", dir.path())
                .args(["-c", &example.line])
                .output()
                .unwrap();
            let code = out.status.code();
            let checks = example
                .line
                .split_whitespace()
                .any(|w| w == "--check" || w == "--check-links");
            if !(code == Some(0) || checks && code == Some(1)) {
                failures.push(format!(
                    "{}: `{}`: exit status {code:?}\n{}",
                    example.place,
                    example.line,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            ran += 1;
        }
    }
    let mut reasons: Vec<&str> = skipped.iter().map(|(_, r)| r.as_str()).collect();
    reasons.sort();
    reasons.dedup();
    let reasons: Vec<String> = reasons
        .iter()
        .map(|r| format!("{} {r}", skipped.iter().filter(|(_, s)| s == r).count()))
        .collect();
    // Straight to standard error, past the test harness's capture: the
    // count is seen in every run, the skips with it.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "tests/house/readme.rs: {ran} htmlabs commands of README.md and docs/ ran, {} skipped{}",
        skipped.len(),
        if reasons.is_empty() {
            String::new()
        } else {
            format!(" ({})", reasons.join("; "))
        }
    );
    for (place, reason) in &skipped {
        eprintln!("not run: {place}: {reason}");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(ran >= 20, "only {ran} commands found");
}

#[test]
fn commands_are_found_where_the_shell_runs_them() {
    for line in [
        "htmlabs --site public --site-url https://example.com/",
        "curl -s https://h/ | htmlabs -r https://h/ > p.html",
        "mkdir -p d && htmlabs --generate man > d/htmlabs.1",
        "(htmlabs --warc - < a.warc) > b.warc",
    ] {
        assert!(runs_htmlabs(line), "{line}");
    }
    for line in [
        "# htmlabs --check",
        "cargo run --release -- -r https://h/ page.html",
        "python -m htmlabs.spark crawl/*.warc.gz --output absolute/",
        "pip install dist/htmlabs-*.whl",
        "hugo    # then: htmlabs --site public",
    ] {
        assert!(!runs_htmlabs(line), "{line}");
    }
}

/// The anchors of a Markdown document's headings, as GitHub makes them:
/// lowercased, spaces as `-`, what is neither a letter, a digit, `-` nor
/// `_` dropped; a repeated one gets `-1`, `-2`…
fn anchors(text: &str) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let Some(heading) = line.strip_prefix('#').filter(|_| !fenced) else {
            continue;
        };
        let slug: String = heading
            .trim_start_matches('#')
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
                _ => None,
            })
            .collect();
        let repeats = found
            .iter()
            .filter(|a| {
                **a == slug
                    || a.strip_prefix(&format!("{slug}-"))
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            })
            .count();
        found.push(if repeats == 0 {
            slug
        } else {
            format!("{slug}-{repeats}")
        });
    }
    found
}

/// Every link of the README, the guides, the measurements and the
/// developers' pages (DEVELOPING.md, ARCHITECTURE.md) to another
/// of the checkout's files leads to a file that is there, and to a heading
/// of it where it names one: a section that moves takes its links along.
#[test]
fn every_link_between_the_documents_leads_somewhere() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut documents = documents();
    for more in ["benches/RESULTS.md", "DEVELOPING.md", "ARCHITECTURE.md"] {
        documents.push(more.to_owned());
    }
    let mut broken = Vec::new();
    let mut checked = 0;
    for document in &documents {
        let text = doc(document);
        let here = Path::new(document).parent().unwrap();
        let mut fenced = false;
        for (i, line) in text.lines().enumerate() {
            if line.trim_start().starts_with("```") {
                fenced = !fenced;
            }
            if fenced {
                continue;
            }
            for link in line.split("](").skip(1) {
                let Some(target) = link.split(')').next() else {
                    continue;
                };
                if target.contains("://") || target.starts_with("mailto:") {
                    continue;
                }
                let (file, anchor) = target.split_once('#').unwrap_or((target, ""));
                let file = if file.is_empty() {
                    PathBuf::from(document)
                } else {
                    here.join(file)
                };
                checked += 1;
                let path = root.join(&file);
                if !path.exists() {
                    broken.push(format!(
                        "{document}:{}: `{target}`: no {}",
                        i + 1,
                        file.display()
                    ));
                } else if !anchor.is_empty() {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    if !anchors(&text).iter().any(|a| a == anchor) {
                        broken.push(format!(
                            "{document}:{}: `{target}`: no heading `#{anchor}` in {}",
                            i + 1,
                            file.display()
                        ));
                    }
                }
            }
        }
    }
    assert!(broken.is_empty(), "{}", broken.join("\n"));
    assert!(checked > 30, "only {checked} links");
}

/// The `jq` one-liners of `docs/sites.md`, run by jq over a report htmlabs
/// wrote of a small site: each finds what its comment says, and nothing else.
#[test]
fn the_jq_lines_find_what_they_say() {
    let Some(jq) = common::tool("jq", "the jq lines of docs/sites.md") else {
        return;
    };
    let sites = doc("docs/sites.md");
    let block = sites
        .split("With `jq`:")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("docs/sites.md has a ```sh block after \"With `jq`:\"");
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
