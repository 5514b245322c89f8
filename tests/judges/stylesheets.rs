//! Stylesheets (fixtures/stylesheet, some real: its README), rewritten by the
//! stylesheet engine, then read token by token by tinycss2
//! (tests/stylesheet_check.py), beside the stylesheet it read: every token
//! but the URLs is the same, and each URL (a url token, a url() string, the
//! string or url after @import, an image-set() string) is the original
//! resolved against the stylesheet's base, or the original where nothing
//! resolves it (a `#` reference, a URL with a scheme, no base, a URL that
//! holds bytes not valid in the encoding).

use crate::cli;

use crate::common;

use std::path::Path;
use std::process::Command;

use clap::Parser;
use cli::Cli;
use htmlabs::{Config, Layers};

struct Sheet {
    name: String,
    config: Config,
    layers: Layers,
    input: Vec<u8>,
}

fn sheets() -> Vec<Sheet> {
    let root = common::fixtures().join("stylesheet");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let args = std::fs::read_to_string(dir.join("args")).unwrap();
            let cli = Cli::try_parse_from(std::iter::once("htmlabs").chain(args.lines())).unwrap();
            Sheet {
                config: cli.config().unwrap(),
                layers: cli.request().layers().unwrap(),
                input: std::fs::read(dir.join("input.css")).unwrap(),
                name,
            }
        })
        .collect()
}

/// What a URL of a stylesheet of `config` must become.
fn expected((config, layers): &(Config, Layers), original: &str) -> String {
    let base = layers.outer().url;
    let standard = config.standard;
    let left = base.is_empty()
        || original.is_empty()
        || original.starts_with('#')
        || original.contains('\u{FFFD}');
    let absolute = match left || standard.has_scheme(original) {
        true => original.to_owned(),
        false => standard.resolve(&base, original).into_owned(),
    };
    // `--map`: what it resolves to, mapped.
    match config.map.apply(&absolute) {
        Some((mapped, _)) if !left => mapped,
        _ => absolute,
    }
}

#[test]
fn tinycss2_reads_the_same_stylesheet_with_each_url_resolved() {
    let test = "tinycss2_reads_the_same_stylesheet_with_each_url_resolved";
    let Some(python) = common::python_with(&["tinycss2"], test) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let mut cases = Vec::new();
    let mut configs = std::collections::BTreeMap::new();
    for sheet in sheets() {
        let (output, report) = htmlabs::rewrite_bytes(
            htmlabs::Type::Css,
            sheet.config.clone(),
            sheet.layers.clone(),
            &sheet.input,
        )
        .unwrap();
        // Past the memory limit, the stylesheet is copied as it came.
        if report.incomplete() {
            assert_eq!(output, sheet.input, "{}", sheet.name);
            continue;
        }
        let original = dir.path().join(format!("{}.in.css", sheet.name));
        let rewritten = dir.path().join(format!("{}.out.css", sheet.name));
        std::fs::write(&original, &sheet.input).unwrap();
        std::fs::write(&rewritten, &output).unwrap();
        cases.push(serde_json::json!({
            "name": sheet.name,
            "original": original,
            "output": rewritten,
        }));
        configs.insert(sheet.name, (sheet.config, sheet.layers));
    }
    let list = dir.path().join("cases.json");
    std::fs::write(&list, serde_json::to_vec(&cases).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/stylesheet_check.py");
    let run = Command::new(python)
        .arg(script)
        .arg(&list)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "stylesheet_check.py: {}",
        String::from_utf8_lossy(&run.stderr)
    );
    let mut urls = 0;
    let mut resolved = 0;
    let mut failures = Vec::new();
    for line in String::from_utf8(run.stdout).unwrap().lines() {
        let url: serde_json::Value = serde_json::from_str(line).unwrap();
        let name = url["name"].as_str().unwrap();
        let original = url["original"].as_str().unwrap();
        let output = url["output"].as_str().unwrap();
        let want = expected(&configs[name], original);
        urls += 1;
        resolved += usize::from(want != original);
        if output != want {
            failures.push(format!(
                "{name}: {} `{original}` became `{output}`, not `{want}`",
                url["kind"]
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The check reads what it should: most URLs of the fixtures resolve.
    println!("{urls} URLs, {resolved} resolved");
    assert!(
        urls >= 50 && resolved >= 40,
        "{urls} URLs, {resolved} resolved"
    );
}
