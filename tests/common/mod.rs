//! Helpers shared by the integration tests.
#![allow(dead_code)] // each test binary uses its own part of this module

use std::path::{Path, PathBuf};

/// One row of a resolution table: `source, base, reference, expected`.
#[derive(Debug, Clone)]
pub struct Case {
    /// `file:line` and the row's source tag, to name a failing case.
    pub name: String,
    pub base: String,
    pub reference: String,
    pub expected: String,
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// Every row of every `.tsv` file in `fixtures/<dir>`; `#` starts a comment
/// line. A malformed row panics with its place, so a typo cannot drop a case.
pub fn load_table(dir: &str) -> Vec<Case> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join(dir))
        .unwrap_or_else(|e| panic!("fixtures/{dir}: {e}"))
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "tsv"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).unwrap();
        let file_name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (i, line) in text.lines().enumerate() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let fields: Vec<&str> = line.split('\t').collect();
            let [source, base, reference, expected] = fields[..] else {
                panic!(
                    "{dir}/{file_name}:{}: want 4 tab-separated fields, got {}",
                    i + 1,
                    fields.len()
                );
            };
            cases.push(Case {
                name: format!("{dir}/{file_name}:{} [{source}]", i + 1),
                base: base.to_owned(),
                reference: reference.to_owned(),
                expected: expected.to_owned(),
            });
        }
    }
    cases
}

/// Says that a test, or a case of one, is skipped and why, on one line that
/// plain `cargo test` shows: written to standard error itself, which the
/// test harness does not capture (it captures `eprintln!`, shown only with
/// `--nocapture`).
pub fn skipped(note: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "note: {note}");
}

/// `../shared` beside the checkout, or `None` with a one-line note: users'
/// clones do not have it, CI's do.
pub fn shared(test: &str) -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared");
    if dir.is_dir() {
        Some(dir)
    } else {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: ../shared is not beside this checkout, and CI must run this test"
        );
        skipped(&format!(
            "{test} skipped: ../shared is not beside this checkout"
        ));
        None
    }
}

/// A Python that has the WARC readers archivists use (warcio, FastWARC,
/// cdxj-indexer): `HTMLABS_WARC_PYTHON` (the virtual environment `.ci/run`
/// makes) or `python3`. On a user's machine without them the test skips
/// with a one-line note; under CI (`CI` set) their absence fails it.
pub fn warc_python(test: &str) -> Option<PathBuf> {
    let python = std::env::var_os("HTMLABS_WARC_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"));
    let lacks: Vec<&str> = ["warcio", "fastwarc", "cdxj_indexer"]
        .into_iter()
        .filter(|module| {
            !std::process::Command::new(&python)
                .args(["-c", &format!("import {module}")])
                .output()
                .is_ok_and(|out| out.status.success())
        })
        .collect();
    if lacks.is_empty() {
        return Some(python);
    }
    let lacks = lacks.join(", ");
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: `{}` cannot import {lacks}, and CI must run this test (.ci/run installs them)",
        python.display()
    );
    skipped(&format!(
        "{test} skipped: `{}` cannot import {lacks} (pip install warcio fastwarc cdxj-indexer, or set HTMLABS_WARC_PYTHON)",
        python.display()
    ));
    None
}

/// An installed tool the test runs, or `None` with a one-line note on a
/// user's machine; under CI (`CI` set, as `.ci/run` runs) a missing tool
/// fails the test: `.ci/run` installs it.
pub fn tool(name: &str, test: &str) -> Option<PathBuf> {
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    });
    if found.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: `{name}` is not installed, and CI must run this test (.ci/run installs it)"
        );
        skipped(&format!("{test} skipped: `{name}` is not installed"));
    }
    found
}

/// A Python that imports `modules` (the packages a test reads htmlabs's
/// output with: feedparser, tinycss2): `HTMLABS_WARC_PYTHON` (the virtual
/// environment `.ci/run` makes) or `python3`. On a user's machine without
/// them the test skips with a one-line note; under CI (`CI` set) their
/// absence fails it.
pub fn python_with(modules: &[&str], test: &str) -> Option<PathBuf> {
    let python = std::env::var_os("HTMLABS_WARC_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("python3"));
    let found = std::process::Command::new(&python)
        .args(["-c", &format!("import {}", modules.join(", "))])
        .output()
        .is_ok_and(|out| out.status.success());
    if found {
        return Some(python);
    }
    let names = modules.join(" and ");
    assert!(
        std::env::var_os("CI").is_none(),
        "{test}: `{}` cannot import {names}, and CI must run this test (.ci/run installs them)",
        python.display()
    );
    skipped(&format!("{test} skipped: {names} is not installed"));
    None
}
