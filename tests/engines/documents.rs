//! Golden files of the XML and stylesheet engines: `fixtures/xml/<case>/`
//! holds `input.xml` and `expected.xml`, `fixtures/stylesheet/<case>/`
//! `input.css` and `expected.css`; each also `args` (one command-line
//! argument a line, as for pages),
//! `warnings` (the exact warning lines) when there are any, optionally
//! `encoding` (what the report names) and `links` (a line for each link
//! heard: `LINE:COLUMN ELEMENT ATTRIBUTE "original" -> "absolute" OUTCOME
//! (BASE)`, then ` mapped "URL" by OLD=NEW` when a `--map` rule matched).
//! Each case runs whole, in 1-byte writes and in random chunk
//! sizes, through each entry point (`Rewriter` with its links,
//! `rewrite` and `rewrite_bytes`), and its output is run again to show
//! that a second run changes nothing. A `README` in a case says where its
//! input comes from when nobody here wrote it.

use crate::cli;

use crate::common;

use std::sync::Arc;

use clap::Parser;
use cli::Cli;
use htmlabs::{Config, Layers, Link, Report, Rewriter, Type};

struct Case {
    name: String,
    kind: Type,
    config: Arc<Config>,
    layers: Layers,
    input: Vec<u8>,
    expected: Vec<u8>,
    warnings: Vec<String>,
    encoding: Option<String>,
    links: Option<Vec<String>>,
}

fn lines(bytes: Vec<u8>) -> Vec<String> {
    String::from_utf8(bytes)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

/// The cases of both engines.
fn cases() -> Vec<Case> {
    let mut cases = cases_of(Type::Xml);
    cases.extend(cases_of(Type::Css));
    cases
}

fn cases_of(kind: Type) -> Vec<Case> {
    let (dir, extension) = match kind {
        Type::Xml => ("xml", "xml"),
        _ => ("stylesheet", "css"),
    };
    let root = common::fixtures().join(dir);
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let name = format!("{extension}/{}", dir.file_name().unwrap().to_string_lossy());
            let read = |file: &str| std::fs::read(dir.join(file));
            let args = String::from_utf8(read("args").unwrap()).unwrap();
            let cli = Cli::try_parse_from(std::iter::once("htmlabs").chain(args.lines()))
                .unwrap_or_else(|e| panic!("{name}/args: {e}"));
            Case {
                config: Arc::new(cli.config().unwrap_or_else(|e| panic!("{name}/args: {e}"))),
                layers: cli.request().layers().unwrap(),
                kind,
                input: read(&format!("input.{extension}"))
                    .unwrap_or_else(|e| panic!("{name}/input: {e}")),
                expected: read(&format!("expected.{extension}"))
                    .unwrap_or_else(|e| panic!("{name}/expected: {e}")),
                warnings: read("warnings").map(lines).unwrap_or_default(),
                encoding: read("encoding")
                    .ok()
                    .map(|e| String::from_utf8(e).unwrap().trim_end().to_owned()),
                links: read("links").ok().map(lines),
                name,
            }
        })
        .collect()
}

/// A link as the `links` file says it (and what `--map` made of it, when
/// a rule matched: `mapped "URL" by OLD=NEW`).
fn shown(link: &Link) -> String {
    let mapped = link
        .mapped
        .as_ref()
        .and_then(|m| Some(format!(" mapped {:?} by {}", m.url, m.rule.as_ref()?)))
        .unwrap_or_default();
    format!(
        "{}:{} {} {} {:?} -> {:?} {} ({}){mapped}",
        link.position.line,
        link.position.column,
        link.element,
        if link.attribute.is_empty() {
            "-"
        } else {
            &link.attribute
        },
        link.original,
        link.absolute.as_deref().unwrap_or(""),
        link.outcome.name(),
        link.base
    )
}

/// Runs `input` through the library in writes of the sizes `sizes` gives,
/// hearing its links.
fn run(
    kind: Type,
    config: &Arc<Config>,
    layers: &Layers,
    input: &[u8],
    mut sizes: impl FnMut() -> usize,
) -> (Vec<u8>, Report, Vec<String>) {
    let mut rewriter =
        Rewriter::new(kind, Arc::clone(config), layers.clone(), Vec::new()).with_links();
    let events = rewriter.events();
    let mut rest = input;
    while !rest.is_empty() {
        let (chunk, tail) = rest.split_at(sizes().clamp(1, rest.len()));
        rewriter.write(chunk).unwrap();
        rest = tail;
    }
    let (report, output) = rewriter.end().unwrap();
    (
        output,
        report,
        events.take_links().iter().map(shown).collect(),
    )
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

/// One run of a case: how it was split, its output and report, and the
/// links heard (by the runs that listen).
type Run = (String, Vec<u8>, Report, Option<Vec<String>>);

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn golden_files() {
    let cases = cases();
    assert!(
        cases.len() >= 20,
        "fixtures/xml holds {} cases",
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
        let mut runs: Vec<Run> = splits
            .into_iter()
            .map(|(split, sizes)| {
                let (output, report, links) =
                    run(case.kind, &case.config, &case.layers, &case.input, sizes);
                (split, output, report, Some(links))
            })
            .collect();
        // The other entry points: a reader, and a document in memory.
        let mut output = Vec::new();
        let report = htmlabs::rewrite(
            case.kind,
            Arc::clone(&case.config),
            case.layers.clone(),
            &case.input[..],
            &mut output,
        )
        .unwrap();
        runs.push(("rewrite()".into(), output, report, None));
        let (output, report) = htmlabs::rewrite_bytes(
            case.kind,
            Arc::clone(&case.config),
            case.layers.clone(),
            &case.input,
        )
        .unwrap();
        runs.push(("rewrite_bytes()".into(), output, report, None));
        for (split, output, report, links) in runs {
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
            if let (Some(expected), Some(links)) = (&case.links, links)
                && links != *expected
            {
                failures.push(format!(
                    "{} ({split}): links:\n  expected: {expected:#?}\n  got:      {links:#?}",
                    case.name
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A second run changes nothing (but for a document the first stopped
/// rewriting in: its rest was copied as it came).
#[test]
fn a_second_run_changes_nothing() {
    for case in cases() {
        let (once, first, _) = run(case.kind, &case.config, &case.layers, &case.input, || {
            usize::MAX
        });
        if first.incomplete() {
            continue;
        }
        let (twice, second, _) = run(case.kind, &case.config, &case.layers, &once, || usize::MAX);
        assert_eq!(
            show(&twice),
            show(&once),
            "{}: a second run changed the output",
            case.name
        );
        assert_eq!(
            second.encoding.encoding, first.encoding.encoding,
            "{}: a second run read another encoding",
            case.name
        );
    }
}
