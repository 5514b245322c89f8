//! The house's layout: imports in `src/` point down, never in a loop.

use crate::common;

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
/// a folder at the file's rank or below.
#[test]
fn imports_point_down_the_layers_of_architecture_md() {
    let src = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let mut files = Vec::new();
    let mut dirs = vec![src.to_path_buf()];
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
        let code = text.split("#[cfg(test)]").next().unwrap();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let name: String = line[at + 7..]
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if let Some(used) = rank(&name) {
                    seen += 1;
                    if used > own {
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
