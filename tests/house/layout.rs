//! The house's layout: imports in `src/` point down, never in a loop;
//! and the words that say it (ARCHITECTURE.md, DEVELOPING.md, the library
//! guide) are true of the code where a test can tell: the files and items
//! they name are there, and the lists of files and layers are whole and
//! in order.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

#[test]
fn src_has_no_import_loops() {
    let Some(shared) = common::shared("src_has_no_import_loops") else {
        return;
    };
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
    let out = Command::new("python3")
        .arg(shared.join("tools/import-loops"))
        .arg(src)
        .output()
        .expect("python3 runs ../shared/tools/import-loops");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "import loops in src/:\n{report}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(report.contains(", 0 loops"), "{report}");
}

/// The folders of `src/` from the bottom up, as ARCHITECTURE.md lists
/// them: a module may use what is at its own rank or below, never above.
/// `html` is below `xml` and `stylesheet`: the HTML inside a feed and a
/// document nested in a value are the page engine's.
const LAYERS: &[(&str, u32)] = &[
    ("shown", 0),
    ("url", 1),
    ("syntax", 2),
    ("document", 3),
    ("html", 4),
    ("xml", 5),
    ("stylesheet", 5),
    ("typed", 6),
    ("source", 7),
    ("request", 8),
    ("run", 9),
    ("cli", 10),
];

fn rank(top: &str) -> Option<u32> {
    LAYERS
        .iter()
        .find(|(name, _)| *name == top)
        .map(|(_, r)| *r)
}

/// Each `crate::X` in a file's code (comments and unit tests aside) names
/// a folder at the file's rank or below; and no engine uses another of its
/// own rank (an engine knows no other engine but the page engine).
#[test]
fn imports_point_down_the_layers_of_architecture_md() {
    let src = &root().join("src");
    let files = rust_files(src);
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in &files {
        let rel = file.strip_prefix(src).unwrap();
        let first = rel.iter().next().unwrap().to_str().unwrap();
        let top = first.trim_end_matches(".rs");
        if top == "lib" || top == "main" {
            continue; // the crate's roots re-export and glue
        }
        let own = rank(top).unwrap_or_else(|| panic!("src/{first} is in no layer: add it"));
        let text = std::fs::read_to_string(file).unwrap();
        for line in code(&text) {
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if let Some(used) = rank(&name) {
                    seen += 1;
                    if used > own || (used == own && name != top) {
                        wrong.push(format!("src/{}: {top} uses {name}", rel.display()));
                    }
                }
            }
        }
    }
    assert!(seen > 100, "only {seen} imports found: is the scan right?");
    assert!(
        wrong.is_empty(),
        "imports that point up:\n{}",
        wrong.join("\n")
    );
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn read(path: &str) -> String {
    std::fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A file's lines of code: comments and unit tests aside.
fn code(text: &str) -> impl Iterator<Item = &str> {
    let code = text.split("#[cfg(test)]").next().unwrap();
    code.lines().filter(|l| !l.trim_start().starts_with("//"))
}

/// What is in backticks in `text` (a pair may span lines: joined by a
/// space).
fn backticked(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// One entry of ARCHITECTURE.md's map of `src/`: the paths of its left
/// column (from the checkout's root), whether it is a top entry, and its
/// words.
struct Entry {
    paths: Vec<String>,
    top: bool,
    words: String,
}

/// The map: the `text` block of ARCHITECTURE.md. A top entry starts its
/// line; an entry of a folder's files is indented by two spaces under it;
/// words go on, indented further.
fn map() -> Vec<Entry> {
    let text = read("ARCHITECTURE.md");
    let block = text
        .split("```text\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("ARCHITECTURE.md has its map in a ```text block");
    let mut entries: Vec<Entry> = Vec::new();
    let mut folder = String::new();
    for line in block.lines() {
        let indent = line.len() - line.trim_start().len();
        let (left, words) = line
            .trim_start()
            .split_once("  ")
            .unwrap_or((line.trim_start(), ""));
        let names = left.split(',').map(str::trim).filter(|n| !n.is_empty());
        match indent {
            0 => {
                let paths: Vec<String> = names.map(str::to_owned).collect();
                if let Some(dir) = paths.iter().rfind(|p| p.ends_with('/')) {
                    folder = dir.clone();
                }
                entries.push(Entry {
                    paths,
                    top: true,
                    words: words.to_owned(),
                });
            }
            2 => entries.push(Entry {
                paths: names.map(|n| format!("{folder}{n}")).collect(),
                top: false,
                words: words.to_owned(),
            }),
            _ => {
                let last = entries.last_mut().expect("words after an entry");
                last.words.push(' ');
                last.words.push_str(line.trim());
            }
        }
    }
    assert!(
        entries.len() > 20,
        "only {} entries: is the map read right?",
        entries.len()
    );
    entries
}

/// Every path under `src/`, from the checkout's root, a folder's with a
/// `/` at its end.
fn src_paths() -> Vec<String> {
    let mut paths = Vec::new();
    let mut dirs = vec![root().join("src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path
                .strip_prefix(root())
                .unwrap()
                .to_str()
                .unwrap()
                .to_owned();
            if path.is_dir() {
                paths.push(format!("{rel}/"));
                dirs.push(path);
            } else {
                paths.push(rel);
            }
        }
    }
    paths
}

/// Whether `name` (a path as prose gives it: `typed.rs`, `warc/mod.rs`,
/// `source/output`) is the end of a path under `src/`, or a path from
/// the root.
fn names_a_path(name: &str, paths: &[String]) -> bool {
    root().join(name).exists()
        || paths.iter().any(|p| {
            let p = p.trim_end_matches('/');
            let name = name.trim_end_matches('/');
            p.ends_with(&format!("/{name}"))
        })
}

#[test]
fn every_file_architecture_md_names_is_there() {
    let paths = src_paths();
    let mut missing = Vec::new();
    let mut seen = 0;
    for entry in map() {
        for path in &entry.paths {
            seen += 1;
            if !root().join(path).exists() {
                missing.push(format!("{path} (in the map)"));
            }
        }
        // What the words name in passing (`usage.rs`, `warc/input/segments.rs`).
        for word in entry
            .words
            .split(|c: char| !(c.is_alphanumeric() || "_./".contains(c)))
        {
            if word.ends_with(".rs") {
                seen += 1;
                if !names_a_path(word, &paths) {
                    missing.push(format!(
                        "{word} (in the words of {})",
                        entry.paths.join(", ")
                    ));
                }
            }
        }
    }
    let text = read("ARCHITECTURE.md");
    let prose =
        text.split("```text\n").next().unwrap().to_owned() + text.split("\n```\n").nth(1).unwrap();
    for name in backticked(&prose) {
        let path_like = name
            .chars()
            .all(|c| c.is_alphanumeric() || "_./".contains(c))
            && (name.contains('/') || name.ends_with(".rs"))
            && !name.starts_with("../");
        if path_like {
            seen += 1;
            if !names_a_path(&name, &paths) {
                missing.push(format!("`{name}`"));
            }
        }
    }
    assert!(seen > 80, "only {seen} paths found: is the scan right?");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what is not there:\n{}",
        missing.join("\n")
    );
}

/// A folder whose files the map lists one by one (`src/source/`,
/// `src/document/`) lists every one of them (its `mod.rs` aside) and
/// every folder in it.
#[test]
fn a_folder_the_map_lists_file_by_file_is_listed_whole() {
    let entries = map();
    let listed: Vec<&String> = entries.iter().flat_map(|e| &e.paths).collect();
    let mut folders: Vec<String> = Vec::new();
    for entry in entries.iter().filter(|e| !e.top) {
        for path in &entry.paths {
            let parent = &path[..path.trim_end_matches('/').rfind('/').unwrap() + 1];
            if !folders.iter().any(|f| f == parent) {
                folders.push(parent.to_owned());
            }
        }
    }
    assert!(
        folders.len() >= 2,
        "folders listed file by file: {folders:?}"
    );
    let mut unlisted = Vec::new();
    for folder in &folders {
        for entry in std::fs::read_dir(root().join(folder)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_str().unwrap();
            let rel = match path.is_dir() {
                true => format!("{folder}{name}/"),
                false if name.ends_with(".rs") && name != "mod.rs" => format!("{folder}{name}"),
                false => continue,
            };
            if !listed.contains(&&rel) {
                unlisted.push(rel);
            }
        }
    }
    unlisted.sort();
    assert!(
        unlisted.is_empty(),
        "ARCHITECTURE.md's map lists its folder file by file, but not:\n{}",
        unlisted.join("\n")
    );
}

/// The layer of a name as the docs give it: a path of `src/` (`src/url/`,
/// `typed.rs`), a module (`url`), or the words for it.
fn layer_of(name: &str) -> Option<&'static str> {
    let name = name.trim().trim_matches('`');
    let name = name.strip_prefix("src/").unwrap_or(name);
    let top = name.split('/').next().unwrap().trim_end_matches(".rs");
    let top = match top {
        "the sources" => "source",
        "the request" => "request",
        "the run" => "run",
        "the command line" => "cli",
        top => top,
    };
    LAYERS.iter().map(|(n, _)| *n).find(|n| *n == top)
}

/// The map lists the layers from the top down, each of them, and every
/// file and folder of `src/`; the sentence under it names them from the
/// bottom up, as `LAYERS` has them; and so does the crate's own list
/// (`src/lib.rs`), from the top down.
#[test]
fn the_docs_list_the_layers_in_their_order() {
    let mut wrong = Vec::new();
    // The map, from the top down.
    let entries = map();
    let tops: Vec<&String> = entries
        .iter()
        .filter(|e| e.top)
        .flat_map(|e| &e.paths)
        .collect();
    let mut last = u32::MAX;
    let mut named = Vec::new();
    for path in &tops {
        if let Some(name) = layer_of(path) {
            let r = rank(name).unwrap();
            if r > last {
                wrong.push(format!("the map lists {path} below a lower layer"));
            }
            last = r;
            named.push(name);
        }
    }
    for (name, _) in LAYERS {
        if !named.contains(name) {
            wrong.push(format!("the map has no entry for the layer {name}"));
        }
    }
    for entry in std::fs::read_dir(root().join("src")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap();
        let rel = match path.is_dir() {
            true => format!("src/{name}/"),
            false => format!("src/{name}"),
        };
        if !tops.contains(&&rel) {
            wrong.push(format!("the map has no top entry for {rel}"));
        }
    }
    // The sentence, from the bottom up.
    let text = read("ARCHITECTURE.md");
    let sentence = text
        .split("(from the bottom up: ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .expect("ARCHITECTURE.md says the layers \"(from the bottom up: …)\"");
    let said: Vec<&str> = sentence
        .split(',')
        .flat_map(|part| part.split(" and "))
        .map(|name| layer_of(name).unwrap_or(name.trim()))
        .collect();
    let layers: Vec<&str> = LAYERS.iter().map(|(n, _)| *n).collect();
    if said != layers {
        wrong.push(format!(
            "ARCHITECTURE.md's layers from the bottom up: {said:?}; LAYERS: {layers:?}"
        ));
    }
    // The crate's list, from the top down.
    let lib = read("src/lib.rs");
    let mut last = u32::MAX;
    let mut listed = Vec::new();
    for item in lib.lines().filter_map(|l| l.strip_prefix("//! - ")) {
        let first = item.split('`').nth(1).unwrap_or("");
        let Some(name) = layer_of(first) else {
            wrong.push(format!("src/lib.rs lists `{first}`, no layer"));
            continue;
        };
        let r = rank(name).unwrap();
        if r > last {
            wrong.push(format!("src/lib.rs lists {name} below a lower layer"));
        }
        last = r;
        listed.push(name);
    }
    for (name, _) in LAYERS.iter().filter(|(n, _)| *n != "cli") {
        // `xml/` and `stylesheet/` share an item.
        if !listed.contains(name) && !(lib.contains(&format!("`{name}/`"))) {
            wrong.push(format!("src/lib.rs's list has no {name}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Whether a file declares `name` as an item (or implements it).
fn declares(text: &str, name: &str) -> bool {
    [
        "struct ", "enum ", "trait ", "type ", "impl ", "for ", "> ", "fn ", "const ", "mod ",
    ]
    .iter()
    .any(|before| {
        text.match_indices(&format!("{before}{name}"))
            .any(|(at, m)| {
                let after = text[at + m.len()..].chars().next();
                !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
            })
    })
}

/// The items ARCHITECTURE.md names (`Request::config`,
/// `source::typing::decide`, `Allowance`) are declared where it says.
#[test]
fn the_items_architecture_md_names_are_declared() {
    let files: Vec<(PathBuf, String)> = rust_files(&root().join("src"))
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).unwrap();
            (f, text)
        })
        .collect();
    let mut missing = Vec::new();
    let mut seen = 0;
    for name in backticked(&read("ARCHITECTURE.md")) {
        let name = name.split('(').next().unwrap();
        let is_path = name.contains("::");
        let is_type = name.starts_with(|c: char| c.is_ascii_uppercase())
            && name.chars().any(|c| c.is_ascii_lowercase());
        let segments: Vec<&str> = name.split("::").collect();
        let rust = segments
            .iter()
            .all(|s| !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_'));
        if !(is_path || is_type) || !rust {
            continue; // not an item (`Base:`, `Arc<Config>`, `O_TMPFILE`)
        }
        seen += 1;
        // The leading modules name a file; the rest is declared in it.
        let modules = segments[..segments.len() - 1]
            .iter()
            .take_while(|s| s.starts_with(|c: char| c.is_ascii_lowercase()))
            .count();
        let module = segments[..modules].join("/");
        let (items, in_file) = (&segments[modules..], |f: &PathBuf| {
            modules == 0
                || f.ends_with(format!("{module}.rs"))
                || f.ends_with(format!("{module}/mod.rs"))
        });
        let found = files
            .iter()
            .filter(|(f, _)| in_file(f))
            .any(|(_, text)| items.iter().all(|item| declares(text, item)));
        if !found {
            missing.push(name.to_owned());
        }
    }
    assert!(seen > 20, "only {seen} items found: is the scan right?");
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names items not declared so in src/:\n{}",
        missing.join("\n")
    );
}

/// The names in the library guide and the README's Rust section are the
/// public API's (`tests/public-api.txt`): a path (`Request::config`,
/// `htmlabs::run::run`), a type, a method called (`events()`).
#[test]
fn the_library_guide_names_the_public_api() {
    let api = read("tests/public-api.txt");
    // A field is `Type.field` there, `Type::field` in the guide.
    let items: Vec<(&str, String)> = api
        .lines()
        .filter_map(|l| l.split_once(' '))
        .filter(|(kind, _)| *kind != "impl")
        .map(|(kind, path)| (kind, path.replace('.', "::")))
        .collect();
    let readme = read("README.md");
    let rust = readme
        .split("\n## Rust\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the README has a Rust section");
    let mut missing = Vec::new();
    let mut seen = 0;
    for (doc, text) in [
        ("docs/library.md", read("docs/library.md")),
        ("README.md", rust.to_owned()),
    ] {
        for name in backticked(&text) {
            let called = name.contains('(');
            let name = name.split('(').next().unwrap().trim_start_matches('.');
            let name = name.strip_prefix("htmlabs::").unwrap_or(name);
            if name.is_empty()
                || !name
                    .chars()
                    .all(|c| c.is_alphanumeric() || "_:".contains(c))
            {
                continue;
            }
            let kinds: &[&str] = if name.contains("::") || called {
                &[
                    "function",
                    "field",
                    "variant",
                    "struct",
                    "enum",
                    "trait",
                    "module",
                    "constant",
                    "trait_item",
                ]
            } else if name.starts_with(|c: char| c.is_ascii_uppercase()) {
                &["struct", "enum", "trait"]
            } else {
                continue; // a word in backticks (`cli`, a feature)
            };
            seen += 1;
            let full = format!("htmlabs::{name}");
            let end = format!("::{name}");
            let found = items.iter().any(|(kind, path)| {
                kinds.contains(kind) && (*path == full || path.ends_with(&end))
            });
            if !found {
                missing.push(format!("{doc}: `{name}`"));
            }
        }
    }
    assert!(seen > 20, "only {seen} names found: is the scan right?");
    assert!(
        missing.is_empty(),
        "names that are not the public API's (tests/public-api.txt):\n{}",
        missing.join("\n")
    );
}

/// `main.rs` is glue: of the crates it could name, only the library and
/// signal_hook (signals are the binary's), and one run of the library;
/// and clap is known only to `main.rs` and `cli/`.
#[test]
fn main_rs_is_glue_and_only_the_binary_knows_clap() {
    let manifest = read("Cargo.toml");
    let dependencies = manifest
        .split("\n[dependencies]\n")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("Cargo.toml has [dependencies]");
    let crates: Vec<String> = dependencies
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            l.split_once('=')
                .map(|(name, _)| name.trim().replace('-', "_"))
        })
        .filter(|name| !name.is_empty())
        .collect();
    assert!(crates.iter().any(|c| c == "clap"), "{crates:?}");
    let names = |line: &str, krate: &str| {
        line.match_indices(&format!("{krate}::")).any(|(at, _)| {
            !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':')
        })
    };
    let mut wrong = Vec::new();
    let main = read("src/main.rs");
    for krate in crates.iter().filter(|c| *c != "signal_hook") {
        if code(&main).any(|line| names(line, krate)) {
            wrong.push(format!("src/main.rs names {krate}"));
        }
    }
    let runs = code(&main)
        .filter(|l| l.contains("run::run") || l.contains("run_planned("))
        .count();
    if runs != 1 {
        wrong.push(format!(
            "src/main.rs runs the library {runs} times, not once"
        ));
    }
    for file in rust_files(&root().join("src")) {
        let rel = file
            .strip_prefix(root())
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        if rel == "src/main.rs" || rel.starts_with("src/cli/") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        if code(&text).any(|line| names(line, "clap") || line.contains("use clap")) {
            wrong.push(format!("{rel} knows clap"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A source knows no other source but `http/` (a WARC record's HTTP
/// block, a page's `--http`), and the page `warc/`'s test of first bytes:
/// as ARCHITECTURE.md says.
#[test]
fn a_source_knows_no_other_source_but_http() {
    const SOURCES: &[&str] = &["page", "site", "warc", "http"];
    let allowed = |own: &str, used: &str| used == "http" || (own, used) == ("page", "warc");
    let source = root().join("src/source");
    let mut wrong = Vec::new();
    let mut seen = 0;
    for file in rust_files(&source) {
        let rel = file.strip_prefix(&source).unwrap();
        let own = rel
            .iter()
            .next()
            .unwrap()
            .to_str()
            .unwrap()
            .trim_end_matches(".rs");
        if !SOURCES.contains(&own) {
            continue; // what the sources share
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for line in code(&text) {
            for (at, _) in line.match_indices("crate::source::") {
                let used: String = line[at + 15..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if SOURCES.contains(&used.as_str()) && used != own {
                    seen += 1;
                    if !allowed(own, &used) {
                        wrong.push(format!("src/source/{}: {own} uses {used}", rel.display()));
                    }
                }
            }
        }
    }
    assert!(
        seen >= 3,
        "only {seen} uses of another source found: is the scan right?"
    );
    assert!(
        wrong.is_empty(),
        "a source uses another:\n{}",
        wrong.join("\n")
    );
}

/// DEVELOPING.md's list of tests names every test file.
#[test]
fn developing_md_names_each_test_file() {
    let developing = read("DEVELOPING.md");
    let mut unnamed = Vec::new();
    // The binaries (`tests/NAME.rs`, `tests/GROUP/main.rs`) and each
    // group's suites (`tests/GROUP/SUITE.rs`).
    let mut files = Vec::new();
    for entry in std::fs::read_dir(root().join("tests")).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().into_string().unwrap();
        if name.ends_with(".rs") {
            files.push(format!("tests/{name}"));
        } else if entry.path().join("main.rs").is_file() {
            for suite in std::fs::read_dir(entry.path()).unwrap() {
                let suite = suite.unwrap().file_name().into_string().unwrap();
                if suite.ends_with(".rs") && suite != "main.rs" {
                    files.push(format!("tests/{name}/{suite}"));
                }
            }
        }
    }
    for file in files {
        if !developing.contains(&format!("`{file}`")) {
            unnamed.push(file);
        }
    }
    unnamed.sort();
    assert!(
        unnamed.is_empty(),
        "DEVELOPING.md's list of tests does not name:\n{}",
        unnamed.join("\n")
    );
}
