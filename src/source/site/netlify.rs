//! The redirect rules Netlify follows for a site (`--check-links --host
//! netlify`), read from the files Netlify reads them from: `_redirects` in
//! the published directory, then the `[[redirects]]` tables of the
//! `netlify.toml` that publishes it. Netlify reads that file in the build's
//! base directory, and publishes the directory its `[build]` names
//! (`publish`, under `base`; none: the base itself), so the file taken is
//! the nearest `netlify.toml` at or above the site's directory, when the
//! directory it publishes is the site's: one that publishes another is
//! another site's, and its rules are not taken.
//!
//! A table's `from`, `to`, `status` (301 when not given), `force` and
//! `query` are those of a `_redirects` line; one with `conditions` answers
//! only some visitors and, as such a line, is not taken. What the rules
//! hold is drawn from the run's memory.

use std::fs;
use std::path::{Path, PathBuf};

use crate::document::memory::{Drawn, Memory};
use crate::source::output::{SourceError, lowercase, quoted};
use crate::url::Redirects;

/// The rules for the site published from `dir`, and what they hold of
/// `memory`.
pub(crate) fn redirects(dir: &Path, memory: &Memory) -> Result<(Redirects, Drawn), SourceError> {
    let mut drawn = memory.drawn();
    let mut rules = Redirects::default();
    // Read as Netlify reads it: what is not text is no rule.
    if let Some(text) = read(&dir.join("_redirects"), &mut drawn, memory)? {
        rules = Redirects::parse(&String::from_utf8_lossy(&text));
    }
    // The site's directory as the file's `publish` is compared with.
    let site = fs::canonicalize(dir).ok();
    if let Some((site, path)) = site.as_deref().and_then(|s| Some((s, config(s)?))) {
        let Some(text) = read(&path, &mut drawn, memory)? else {
            return Ok((rules, drawn));
        };
        let table = parse(&path, &text)?;
        if publishes(&path, &table, site) {
            add(&mut rules, &table);
        }
    }
    Ok((rules, drawn))
}

/// The rules of the `_redirects` file alone in `dir` (no other file holds
/// them), as `parse` reads it (Cloudflare Pages's way, GitLab Pages's),
/// and what they hold of `memory` with what matching a link takes on each
/// of `workers`.
pub(crate) fn redirects_file(
    dir: &Path,
    memory: &Memory,
    parse: fn(&str) -> Redirects,
    workers: usize,
) -> Result<(Redirects, Drawn), SourceError> {
    let mut drawn = memory.drawn();
    let path = dir.join("_redirects");
    let rules = match read(&path, &mut drawn, memory)? {
        // What is not text is no rule.
        Some(text) => parse(&String::from_utf8_lossy(&text)),
        None => Redirects::default(),
    };
    // What its rules hold, and what matching a link takes on each worker.
    let room = rules.matching_room().saturating_mul(workers);
    drawn
        .grow(rules.size().saturating_add(room))
        .map_err(|_| too_large(&path, memory))?;
    Ok((rules, drawn))
}

/// The `netlify.toml` nearest to `site` (canonical), at or above it.
fn config(site: &Path) -> Option<PathBuf> {
    site.ancestors()
        .map(|d| d.join("netlify.toml"))
        .find(|path| path.is_file())
}

/// The file at `path`, if there is one, drawn from `memory` for its text
/// and what is made of it (Cloudflare's and GitLab's `_redirects` too).
pub(super) fn read(
    path: &Path,
    drawn: &mut Drawn,
    memory: &Memory,
) -> Result<Option<Vec<u8>>, SourceError> {
    let size = match fs::metadata(path) {
        Ok(meta) if meta.is_file() => meta.len(),
        _ => return Ok(None),
    };
    let size = usize::try_from(size).unwrap_or(usize::MAX);
    drawn
        .grow(size.saturating_mul(4))
        .map_err(|_| too_large(path, memory))?;
    fs::read(path)
        .map(Some)
        .map_err(|e| SourceError::Read(quoted(path), lowercase(&e)))
}

/// The error of rules at `path` that do not fit `memory`.
fn too_large(path: &Path, memory: &Memory) -> SourceError {
    SourceError::Refused(format!(
        "the redirect rules of {} take more than --max-memory allows ({} bytes)",
        quoted(path),
        memory.named()
    ))
}

/// `text`, the TOML document at `path`.
fn parse(path: &Path, text: &[u8]) -> Result<toml::Table, SourceError> {
    let unreadable = |message: String| SourceError::Parse(quoted(path), message);
    let text = std::str::from_utf8(text).map_err(|_| unreadable("not UTF-8".to_owned()))?;
    text.parse::<toml::Table>().map_err(|e| {
        // Its message, on one line, and where.
        let message = e.message().split_whitespace().collect::<Vec<_>>().join(" ");
        let line = e.span().map(|span| {
            1 + text.as_bytes()[..span.start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
        });
        unreadable(match line {
            Some(line) => format!("{message}, line {line}"),
            None => message,
        })
    })
}

/// Whether the `netlify.toml` at `path`, `table`, publishes `site`
/// (canonical).
fn publishes(path: &Path, table: &toml::Table, site: &Path) -> bool {
    let build = table.get("build").and_then(toml::Value::as_table);
    let setting = |key: &str| {
        build
            .and_then(|b| b.get(key))
            .and_then(toml::Value::as_str)
            .unwrap_or_default()
    };
    let base = path
        .parent()
        .unwrap_or(Path::new("/"))
        .join(setting("base"));
    let published = base.join(setting("publish"));
    fs::canonicalize(published).is_ok_and(|published| published == site)
}

/// Adds the `[[redirects]]` of `table` to `rules`, in order.
fn add(rules: &mut Redirects, table: &toml::Table) {
    let tables = table.get("redirects").and_then(toml::Value::as_array);
    for rule in tables
        .into_iter()
        .flatten()
        .filter_map(toml::Value::as_table)
    {
        let text = |key: &str| rule.get(key).and_then(toml::Value::as_str);
        let (Some(from), Some(to)) = (text("from"), text("to")) else {
            continue;
        };
        let status = match rule.get("status") {
            None => Some(301),
            Some(status) => status.as_integer().and_then(|s| u16::try_from(s).ok()),
        };
        let conditions = rule
            .get("conditions")
            .and_then(toml::Value::as_table)
            .is_some_and(|c| !c.is_empty());
        let Some(status) = status.filter(|_| !conditions) else {
            continue;
        };
        let force = rule
            .get("force")
            .and_then(toml::Value::as_bool)
            .unwrap_or(false);
        let query: Vec<(&str, &str)> = rule
            .get("query")
            .and_then(toml::Value::as_table)
            .into_iter()
            .flatten()
            .filter_map(|(key, value)| Some((key.as_str(), value.as_str()?)))
            .collect();
        rules.add(from, &query, to, status, force);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TOML: &str = r#"
[build]
publish = "public"
command = "hugo"

[[redirects]]
from = "/old/*"
to = "/new/:splat"

[[redirects]]
from = "/store"
to = "/items/:id.html"
query = { id = ":id" }
status = 302
force = true

[[redirects]]
from = "/fr/*"
to = "/fr/index.html"
status = 200
conditions = { Language = ["fr"] }

[[redirects]]
from = "https://old.example/*"
to = "https://example.com/:splat"

[[redirects]]
from = "/gone"
to = "/404.html"
status = 404
"#;

    fn answer(rules: &Redirects, path: &str, query: Option<&str>) -> Option<(String, u16, bool)> {
        rules.answer(path, query).map(|a| (a.to, a.status, a.force))
    }

    #[test]
    fn the_redirects_of_the_netlify_toml_that_publishes_the_site_follow_its_redirects_file() {
        let root = tempfile::tempdir().unwrap();
        let public = root.path().join("public");
        fs::create_dir(&public).unwrap();
        fs::write(root.path().join("netlify.toml"), TOML).unwrap();
        fs::write(public.join("_redirects"), "/old/a  /first.html\n").unwrap();
        let memory = Memory::new(1 << 20);
        let (rules, drawn) = redirects(&public, &memory).unwrap();
        assert!(drawn.bytes() > TOML.len());
        let some = |to: &str, status, force| Some((to.to_owned(), status, force));
        // `_redirects` first.
        assert_eq!(
            answer(&rules, "/old/a", None),
            some("/first.html", 301, false)
        );
        assert_eq!(
            answer(&rules, "/old/b/c", None),
            some("/new/b/c", 301, false)
        );
        assert_eq!(
            answer(&rules, "/store", Some("id=7")),
            some("/items/7.html", 302, true)
        );
        assert_eq!(answer(&rules, "/gone", None), some("/404.html", 404, false));
        // Some visitors' rule, and another domain's, are not taken.
        assert_eq!(answer(&rules, "/fr/x", None), None);
        assert_eq!(rules.len(), 4);

        // A file that publishes another directory is another site's.
        let other = root.path().join("dist");
        fs::create_dir(&other).unwrap();
        assert!(redirects(&other, &memory).unwrap().0.is_empty());
        // No `publish`: the base itself; `base` moves it.
        fs::write(
            root.path().join("netlify.toml"),
            TOML.replace("publish = \"public\"\n", ""),
        )
        .unwrap();
        assert_eq!(
            redirects(&public, &memory).unwrap().0.len(),
            1,
            "its _redirects"
        );
        assert_eq!(redirects(root.path(), &memory).unwrap().0.len(), 3);
        let based = TOML.replace("publish = \"public\"", "base = \"site\"\npublish = \"out\"");
        fs::create_dir_all(root.path().join("site/out")).unwrap();
        fs::write(root.path().join("netlify.toml"), based).unwrap();
        assert_eq!(
            redirects(&root.path().join("site/out"), &memory)
                .unwrap()
                .0
                .len(),
            3
        );
    }

    /// Cloudflare's rules are drawn with what matching a link against
    /// their patterns takes, on each worker: a site whose rules fit, with
    /// room for one worker's matching and not two, is checked at `--jobs
    /// 1` and refused at `--jobs 2`.
    #[test]
    fn cloudflare_rules_are_drawn_with_the_room_each_worker_matches_in() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("_redirects"), "/a/:x/:y/* /b/:x 301\n").unwrap();
        let rules = Redirects::parse_cloudflare("/a/:x/:y/* /b/:x 301\n");
        let room = rules.matching_room();
        // Three groups and two rows beside, for the longest URI, and its
        // `TO` as it is made.
        assert_eq!(room, 5 * (32 * 1024 / 64 + 1) * 8 + 2 * 32 * 1024);
        // A quarter of the run's memory is for what is drawn.
        let memory = Memory::new(4 * (room * 3 / 2 + (4 << 10)));
        let parse = Redirects::parse_cloudflare;
        let (read, drawn) = redirects_file(root.path(), &memory, parse, 1).unwrap();
        assert_eq!(read.len(), 1);
        assert!(drawn.bytes() > room, "{}", drawn.bytes());
        drop(drawn);
        let error = redirects_file(root.path(), &memory, parse, 2)
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("take more than --max-memory allows"),
            "{error}"
        );
        // GitLab's need none.
        let parse = Redirects::parse_gitlab;
        redirects_file(root.path(), &memory, parse, 64).unwrap();
    }

    #[test]
    fn a_netlify_toml_that_does_not_parse_is_an_error_naming_it_and_the_line() {
        let root = tempfile::tempdir().unwrap();
        fs::write(root.path().join("netlify.toml"), "[build]\npublish = \n").unwrap();
        let memory = Memory::new(1 << 20);
        let error = redirects(root.path(), &memory).unwrap_err().to_string();
        assert!(error.starts_with("cannot parse `"), "{error}");
        assert!(
            error.contains("netlify.toml`: ") && error.ends_with(", line 2"),
            "{error}"
        );
        assert!(!error.contains('\n'), "{error}");
        // Rules past the memory limit are refused, naming it.
        let small = Memory::new(64);
        let error = redirects(root.path(), &small).unwrap_err().to_string();
        assert!(
            error.contains("take more than --max-memory allows (64 bytes)"),
            "{error}"
        );
    }
}
