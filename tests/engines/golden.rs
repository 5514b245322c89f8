//! Golden files: `fixtures/filter/<case>/` holds `input.html`, `args` (one
//! command-line argument a line), `expected.html`, `warnings` (the exact
//! warning lines) when there are any, and optionally `encoding` (the
//! encoding the report names, and where it came from). Each case runs whole, in 1-byte writes
//! and in random chunk sizes, through each entry point (`Rewriter`,
//! `rewrite`, `rewrite_bytes`), and its output is run again to show that a
//! second run changes nothing and reads the same encoding.

use crate::cli;

use crate::common;

use std::sync::Arc;

use clap::Parser;
use cli::Cli;
use htmlabs::{Config, Layers, Report, Rewriter};

struct Case {
    name: String,
    config: Arc<Config>,
    layers: Layers,
    input: Vec<u8>,
    expected: Vec<u8>,
    warnings: Vec<String>,
    encoding: Option<String>,
}

fn cases() -> Vec<Case> {
    let root = common::fixtures().join("filter");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let read = |file: &str| std::fs::read(dir.join(file));
            let args = String::from_utf8(read("args").unwrap()).unwrap();
            let cli = Cli::try_parse_from(std::iter::once("htmlabs").chain(args.lines()))
                .unwrap_or_else(|e| panic!("{name}/args: {e}"));
            Case {
                config: Arc::new(cli.config().unwrap_or_else(|e| panic!("{name}/args: {e}"))),
                layers: cli.request().layers().unwrap(),
                input: read("input.html").unwrap(),
                expected: read("expected.html").unwrap(),
                warnings: read("warnings")
                    .map(|w| {
                        String::from_utf8(w)
                            .unwrap()
                            .lines()
                            .map(String::from)
                            .collect()
                    })
                    .unwrap_or_default(),
                encoding: read("encoding")
                    .ok()
                    .map(|e| String::from_utf8(e).unwrap().trim_end().to_owned()),
                name,
            }
        })
        .collect()
}

/// Runs `input` through the library in writes of the sizes `sizes` gives.
fn run(
    config: &Arc<Config>,
    layers: &Layers,
    input: &[u8],
    mut sizes: impl FnMut() -> usize,
) -> (Vec<u8>, Report) {
    let mut rewriter = Rewriter::new(
        htmlabs::Type::Html,
        Arc::clone(config),
        layers.clone(),
        Vec::new(),
    );
    let mut rest = input;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(sizes().clamp(1, rest.len()));
        rewriter.write(chunk).unwrap();
        rest = tail;
    }
    let (report, output) = rewriter.end().unwrap();
    (output, report)
}

/// A small deterministic generator (xorshift), so a failure can be replayed.
fn chunk_sizes(seed: u64, max: usize) -> impl FnMut() -> usize {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % max as u64) as usize + 1
    }
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn golden_files() {
    let cases = cases();
    assert!(
        cases.len() >= 20,
        "fixtures/filter holds {} cases",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let mut splits: Vec<(String, Box<dyn FnMut() -> usize>)> = vec![
            ("whole".into(), Box::new(|| usize::MAX)),
            ("1-byte writes".into(), Box::new(|| 1)),
        ];
        for seed in 1..=8 {
            let max = [2, 3, 7, 16, 64][seed as usize % 5];
            splits.push((
                format!("random chunks (seed {seed}, up to {max})"),
                Box::new(chunk_sizes(seed, max)),
            ));
        }
        let mut runs: Vec<(String, Vec<u8>, Report)> = splits
            .into_iter()
            .map(|(split, sizes)| {
                let (output, report) = run(&case.config, &case.layers, &case.input, sizes);
                (split, output, report)
            })
            .collect();
        // The other entry points: a reader, and a document in memory.
        let mut output = Vec::new();
        let report = htmlabs::rewrite(
            htmlabs::Type::Html,
            Arc::clone(&case.config),
            case.layers.clone(),
            &case.input[..],
            &mut output,
        )
        .unwrap();
        runs.push(("rewrite()".into(), output, report));
        let (output, report) = htmlabs::rewrite_bytes(
            htmlabs::Type::Html,
            Arc::clone(&case.config),
            case.layers.clone(),
            &case.input,
        )
        .unwrap();
        runs.push(("rewrite_bytes()".into(), output, report));
        for (split, output, report) in runs {
            if output != case.expected {
                failures.push(format!(
                    "{} ({split}):\n  expected: {}\n  got:      {}",
                    case.name,
                    show(&case.expected),
                    show(&output)
                ));
            }
            if let Some(encoding) = &case.encoding {
                let got = report.encoding.to_string();
                if got != *encoding {
                    failures.push(format!(
                        "{} ({split}): encoding: expected `{encoding}`, got `{got}`",
                        case.name
                    ));
                }
            }
            let warnings: Vec<String> = report.warnings.iter().map(ToString::to_string).collect();
            if warnings != case.warnings {
                failures.push(format!(
                    "{} ({split}): warnings:\n  expected: {:?}\n  got:      {:?}",
                    case.name, case.warnings, warnings
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A second run changes nothing, and reads the output in the encoding the
/// first run read the input in.
#[test]
fn a_second_run_changes_nothing() {
    for case in cases() {
        let (once, first) = run(&case.config, &case.layers, &case.input, || usize::MAX);
        let (twice, second) = run(&case.config, &case.layers, &once, || usize::MAX);
        assert_eq!(
            show(&twice),
            show(&once),
            "{}: a second run changed the output",
            case.name
        );
        assert_eq!(
            second.encoding.encoding, first.encoding.encoding,
            "{}: a second run read another encoding ({}, then {})",
            case.name, first.encoding, second.encoding
        );
    }
}
