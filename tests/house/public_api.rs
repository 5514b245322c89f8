//! The library's public surface is the list in `tests/public-api.txt`: every
//! path a user can name (modules, types, functions, constants, fields,
//! variants, inherent methods, the traits a type implements by hand), as
//! rustdoc's JSON output lists what is reachable from the crate root.
//!
//! A change to the surface is a change users see: the test fails and shows
//! the lines added and removed; when the change is meant, write the list
//! again with `HTMLABS_BLESS=1 cargo test --test house public_api::` and commit it
//! with the change.
//!
//! Rustdoc's JSON is unstable; `RUSTC_BOOTSTRAP=1` lets the stable
//! toolchain write it (format version checked below).

use std::collections::{BTreeSet, HashSet};
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The rustdoc JSON format versions this reader knows.
const FORMATS: std::ops::RangeInclusive<u64> = 50..=57;

#[test]
fn the_public_api_is_the_committed_list() {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("public-api");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let out = Command::new(cargo)
        .args(["rustdoc", "--quiet", "--lib", "--target-dir"])
        .arg(&target)
        .args(["--", "-Z", "unstable-options", "--output-format", "json"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("RUSTC_BOOTSTRAP", "1")
        .env_remove("RUSTDOCFLAGS")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "cargo rustdoc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json = std::fs::read(target.join("doc/htmlabs.json")).expect("rustdoc wrote its JSON");
    let doc: Value = serde_json::from_slice(&json).expect("rustdoc's JSON parses");
    let format = doc["format_version"].as_u64().unwrap_or(0);
    assert!(
        FORMATS.contains(&format),
        "rustdoc JSON format {format}: this test reads {FORMATS:?}; check what changed and widen it"
    );
    let found = Surface::of(&doc);

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/public-api.txt");
    let text: String = found.iter().map(|line| format!("{line}\n")).collect();
    if std::env::var_os("HTMLABS_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let listed = std::fs::read_to_string(&path).unwrap_or_default();
    let listed: BTreeSet<String> = listed.lines().map(str::to_owned).collect();
    let added: Vec<_> = found.difference(&listed).collect();
    let removed: Vec<_> = listed.difference(&found).collect();
    assert!(
        added.is_empty() && removed.is_empty(),
        "the public API changed; if that is meant, run `HTMLABS_BLESS=1 cargo test --test house public_api::` \
         and commit tests/public-api.txt\n  new:\n    {}\n  gone:\n    {}",
        join(&added),
        join(&removed)
    );
}

fn join(lines: &[&String]) -> String {
    lines
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join("\n    ")
}

/// The surface: one line per item, `KIND PATH`.
struct Surface<'a> {
    index: &'a serde_json::Map<String, Value>,
    lines: BTreeSet<String>,
    seen: HashSet<(String, String)>,
}

impl<'a> Surface<'a> {
    fn of(doc: &'a Value) -> BTreeSet<String> {
        let mut surface = Surface {
            index: doc["index"].as_object().expect("an index"),
            lines: BTreeSet::new(),
            seen: HashSet::new(),
        };
        let root = id(&doc["root"]);
        surface.named(&root, "htmlabs".to_owned());
        surface.lines
    }

    fn item(&self, id: &str) -> Option<&'a Value> {
        // Only this crate's items: a re-export of another crate's is its.
        self.index.get(id).filter(|item| item["crate_id"] == 0)
    }

    /// A module's child `id`, under `parent`'s path.
    fn child(&mut self, id: &str, parent: &str) {
        let Some(item) = self.item(id) else { return };
        if let Some(using) = item["inner"].get("use") {
            let Some(target) = using["id"].as_u64().map(|n| n.to_string()) else {
                return;
            };
            if using["is_glob"] == true {
                let children = self.item(&target).map(|t| &t["inner"]["module"]["items"]);
                for child in children.and_then(Value::as_array).into_iter().flatten() {
                    self.child(&self::id(child), parent);
                }
            } else if self.item(&target).is_some() {
                let name = using["name"].as_str().unwrap_or_default();
                self.named(&target, format!("{parent}::{name}"));
            }
            return;
        }
        if let Some(name) = item["name"].as_str() {
            self.named(id, format!("{parent}::{name}"));
        }
    }

    /// The item `id`, named `path`, and what it holds.
    fn named(&mut self, id: &str, path: String) {
        let Some(item) = self.item(id) else { return };
        if !self.seen.insert((id.to_owned(), path.clone())) {
            return;
        }
        let Some((kind, inner)) = item["inner"].as_object().and_then(|o| o.iter().next()) else {
            return;
        };
        self.lines.insert(format!("{kind} {path}"));
        match kind.as_str() {
            "module" => {
                for child in inner["items"].as_array().into_iter().flatten() {
                    self.child(&self::id(child), &path);
                }
            }
            "struct" => {
                let fields = inner["kind"]["plain"]["fields"].as_array();
                for field in fields.into_iter().flatten() {
                    if let Some(field) = self.item(&self::id(field)) {
                        let name = field["name"].as_str().unwrap_or_default();
                        self.lines.insert(format!("field {path}.{name}"));
                    }
                }
                self.impls(inner, &path);
            }
            "enum" => {
                for variant in inner["variants"].as_array().into_iter().flatten() {
                    if let Some(variant) = self.item(&self::id(variant)) {
                        let name = variant["name"].as_str().unwrap_or_default();
                        self.lines.insert(format!("variant {path}::{name}"));
                    }
                }
                self.impls(inner, &path);
            }
            "trait" => {
                for method in inner["items"].as_array().into_iter().flatten() {
                    if let Some(method) = self.item(&self::id(method)) {
                        let name = method["name"].as_str().unwrap_or_default();
                        self.lines.insert(format!("trait_item {path}::{name}"));
                    }
                }
            }
            _ => {}
        }
    }

    /// A type's inherent public methods and the traits it implements by
    /// hand or derives (not the auto and blanket ones).
    fn impls(&mut self, inner: &Value, path: &str) {
        for id in inner["impls"].as_array().into_iter().flatten() {
            let Some(imp) = self.item(&self::id(id)).map(|i| &i["inner"]["impl"]) else {
                continue;
            };
            if imp["is_synthetic"] == true || !imp["blanket_impl"].is_null() {
                continue;
            }
            if let Some(name) = imp["trait"]["path"].as_str() {
                self.lines.insert(format!("impl {name} for {path}"));
                continue;
            }
            for method in imp["items"].as_array().into_iter().flatten() {
                let Some(method) = self.item(&self::id(method)) else {
                    continue;
                };
                if method["visibility"] == "public" {
                    let kind = method["inner"].as_object().and_then(|o| o.keys().next());
                    let name = method["name"].as_str().unwrap_or_default();
                    self.lines
                        .insert(format!("{} {path}::{name}", kind.map_or("", |k| k)));
                }
            }
        }
    }
}

/// An item's ID, a number in the JSON, as the index's keys spell it.
fn id(value: &Value) -> String {
    match value {
        Value::Number(n) => n.to_string(),
        Value::String(s) => s.clone(),
        _ => String::new(),
    }
}
