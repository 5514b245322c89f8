//! The options of a document's rewrite are declared once
//! (`htmlabs::internal::request::DOCUMENT_OPTIONS`), and every front end takes each
//! of them by its name, and no other of that kind: the command line, the
//! Python module's keywords, its stubs, and `python -m htmlabs.spark`.

use std::path::Path;
use std::process::Command;

use htmlabs::internal::request::DOCUMENT_OPTIONS;

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(path)).unwrap()
}

fn keyword(flag: &str) -> String {
    flag.replace('-', "_")
}

#[test]
fn the_command_line_takes_each_option() {
    let help = Command::new(BIN).arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for flag in DOCUMENT_OPTIONS {
        assert!(
            help.contains(&format!("--{flag}")),
            "htmlabs --help has no --{flag}"
        );
    }
}

/// The keywords `flags` in python/src/lib.rs matches are the options, all
/// of them and only them.
#[test]
fn the_python_module_takes_each_option_as_a_keyword_and_no_other() {
    let source = read("python/src/lib.rs");
    let body = source
        .split("fn flags(")
        .nth(1)
        .and_then(|rest| rest.split("\n}\n").next())
        .expect("python/src/lib.rs has fn flags");
    let mut matched: Vec<String> = body
        .lines()
        .filter_map(|line| {
            let line = line.trim_start();
            let rest = line.strip_prefix('"')?;
            let (name, after) = rest.split_once('"')?;
            after
                .trim_start()
                .starts_with("=>")
                .then(|| name.to_owned())
        })
        .collect();
    let mut declared: Vec<String> = DOCUMENT_OPTIONS.iter().map(|f| keyword(f)).collect();
    matched.sort();
    declared.sort();
    assert_eq!(matched, declared);
}

#[test]
fn the_stubs_type_each_option() {
    let stubs = read("python/htmlabs/_htmlabs.pyi");
    let options = stubs
        .split("class Options(")
        .nth(1)
        .and_then(|rest| rest.split("\nclass ").next())
        .expect("_htmlabs.pyi has class Options");
    let mut typed: Vec<String> = options
        .lines()
        .filter_map(|line| {
            let name = line.strip_prefix("    ")?.split_once(':')?.0;
            name.chars()
                .all(|c| c.is_ascii_lowercase() || c == '_')
                .then(|| name.to_owned())
        })
        .collect();
    let mut declared: Vec<String> = DOCUMENT_OPTIONS.iter().map(|f| keyword(f)).collect();
    typed.sort();
    declared.sort();
    assert_eq!(typed, declared);
}

/// The Spark command line's parser is python/htmlabs/spark/cli.py's.
#[test]
fn the_spark_command_line_takes_each_option() {
    let cli = read("python/htmlabs/spark/cli.py");
    for flag in DOCUMENT_OPTIONS {
        assert!(
            cli.contains(&format!("add_argument(\"--{flag}\"")),
            "python -m htmlabs.spark has no --{flag}"
        );
    }
}
