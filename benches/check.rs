//! `cargo bench --bench check`: `htmlabs --check-links` beside the link
//! checkers people use, on the same tree on this machine: lychee,
//! hyperlink, html-proofer and linkchecker. For each: wall time, CPU
//! seconds and peak memory; how many of the broken links planted in the
//! tree it reports; and what it reports broken that is not.
//!
//! The tree is the site bench's site (`common::generate`: corpus pages at
//! three depths, each with a `<nav>` of relative links to others), of
//! `HTMLABS_SITE_PAGES` pages (default 10,000), served at
//! `https://example.com/` on GitHub Pages, and beside it `planted/`:
//! copies of corpus pages (UTF-8 ones, without a `<base>` of their own)
//! with links planted in them ([`PLANTED`]): a missing page by a relative,
//! a root-relative and an absolute URL on the site, a missing fragment, a
//! `srcset` candidate that is not the first, a CSS `url()` in a `<style>`
//! and in a `.css` file, a link broken only by the page's `<base href>`, a
//! directory with no index file, a pretty URL with a slash (GitHub Pages
//! serves `a.html` at `/a`, not at `/a/`); and links planted that work,
//! which a checker must not report: a fragment the page has, a link that
//! works only by the page's `<base href>`, a pretty URL `a` → `a.html`.
//!
//! Each checker runs as its documentation says a user must run it over a
//! built site, offline, with its options for what the tree holds
//! ([`command`] says which and why). A checker that is not installed is
//! installed at the start (the bench says what it runs): lychee and
//! hyperlink by `cargo install --locked` into `HTMLABS_CHECK_TOOLS`
//! (default: `htmlabs-bench-checkers` in the temporary directory, kept for
//! the next run), linkchecker by pip into a virtual environment there,
//! html-proofer from Debian (`apt-get install ruby-html-proofer`, else
//! `gem install html-proofer`). One that cannot be installed is named in
//! the output with the reason, and left out.
//!
//! What a checker found: its output parsed ([`parse`]), each report a file
//! and a URL. A report is a planted link when its file is the planted
//! link's and its URL holds the planted link's unique name. The others are
//! matched with htmlabs's link report (`--report`, written by a run not
//! timed) by file and URL (as written, absolute, its path on the site, or
//! the path the file's own URL gives it when `<base>` is not honoured):
//! htmlabs's verdicts, which Chromium judges in
//! `tests/judges/link_check.rs`, are taken as true for the unplanted
//! links, and a report of a link htmlabs finds, or leaves to another site,
//! or does not take for a link, is a false report, listed by its value.
//!
//! Measured: wall time and the CPU seconds (user + system) and peak RSS of
//! each checker's process, from `wait4`, taken by a launcher (this bench
//! run again with `HTMLABS_CHECK_LAUNCHER` set: Linux carries the RSS of
//! the process that spawns a child into the child's figure, and this bench
//! holds the corpus). Every round runs every checker once, starting at a
//! different one; a figure is the median of the rounds (`sync` before each
//! run, not timed). htmlabs runs at `--jobs 1` and at every core.
//!
//! html-proofer and linkchecker take most of a CPU second a page, and on
//! more than 30 pages of the corpus html-proofer 3.19 and hyperlink stop
//! on it (named in the table): benches/RESULTS.md ran 30 and 100 pages,
//! and 10,000 with the fast checkers alone.
//!
//! For scale, each round also times the page engine alone ([`floor`]):
//! lol_html reading the tree's pages with one handler on every element, as
//! htmlabs's page engine has it, reading where each attribute's value is,
//! and nothing else (no value resolved, no link checked, no output kept),
//! in one thread: what no check built on this engine can go under.
//!
//! `HTMLABS_BENCH_ROUNDS` sets the rounds (default 3), `HTMLABS_SITE_PAGES`
//! the pages, `HTMLABS_CHECKERS` which checkers run besides htmlabs
//! (`lychee,hyperlink,html-proofer,linkchecker`, the default), `HTMLABS_BIN` another binary, `HTMLABS_BENCH_DIR` where the
//! tree goes (default `/dev/shm`, a memory filesystem),
//! `HTMLABS_CHECK_UTF8` (set) makes the site of the UTF-8 corpus pages
//! alone (hyperlink stops on the first page that is not),
//! `HTMLABS_CHECK_SHOWN` how many kinds of false report are listed for
//! each checker (default 12); with
//! `HTMLABS_CHECK_KEEP` set, the tree and each checker's output
//! (`out-N.txt`, `err-N.txt`, N its row) are kept there. Needs `../shared`.

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::fmt::Write as _;
use std::fs;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use common::{fail, median, spread};

const SITE_URL: &str = "https://example.com/";
/// Where the tree goes unless `HTMLABS_BENCH_DIR` says otherwise.
const MEMORY: &str = "/dev/shm";
/// Set in the launcher's environment: the file its figures go to.
const LAUNCHER: &str = "HTMLABS_CHECK_LAUNCHER";
/// Set in the environment of this bench run again as the engine's floor:
/// the tree it reads.
const FLOOR: &str = "HTMLABS_CHECK_FLOOR";
/// The versions installed when a checker is missing.
const LYCHEE: &str = "0.24.2";
const HYPERLINK: &str = "0.3.2";
const LINKCHECKER: &str = "10.6.0";

/// A link planted in the tree: what it is, the file it is in, the unique
/// name that its URL holds, and whether it is broken on GitHub Pages.
struct Planted {
    name: &'static str,
    file: &'static str,
    token: &'static str,
    broken: bool,
}

const PLANTED: &[Planted] = &[
    Planted {
        name: "a missing page, relative (`../gone-relative.html`)",
        file: "planted/deep/missing.html",
        token: "gone-relative",
        broken: true,
    },
    Planted {
        name: "a missing page, root-relative (`/planted/gone-root.html`)",
        file: "planted/deep/missing.html",
        token: "gone-root",
        broken: true,
    },
    Planted {
        name: "a missing page, absolute on the site (`https://example.com/planted/gone-absolute.html`)",
        file: "planted/deep/missing.html",
        token: "gone-absolute",
        broken: true,
    },
    Planted {
        name: "a missing fragment (`target.html#gone-fragment`)",
        file: "planted/fragment.html",
        token: "gone-fragment",
        broken: true,
    },
    Planted {
        name: "a `srcset` candidate, not the first (`img/one.png 1x, img/gone-srcset.png 2x`)",
        file: "planted/srcset.html",
        token: "gone-srcset",
        broken: true,
    },
    Planted {
        name: "a CSS `url()` in a `<style>` (`url(\"img/gone-style.png\")`)",
        file: "planted/style.html",
        token: "gone-style",
        broken: true,
    },
    Planted {
        name: "a CSS `url()` in a `.css` file (`planted/planted.css`: `url(img/gone-css.png)`)",
        file: "planted/planted.css",
        token: "gone-css",
        broken: true,
    },
    Planted {
        name: "broken only by `<base href=\"/planted/based/\">` (`only-beside.html`, which is beside the page)",
        file: "planted/base.html",
        token: "only-beside",
        broken: true,
    },
    Planted {
        name: "a directory with no index file (`no-index/`)",
        file: "planted/dirs.html",
        token: "no-index",
        broken: true,
    },
    Planted {
        name: "a pretty URL with a slash (`slashed-page/`; GitHub Pages serves `slashed-page.html` only without it)",
        file: "planted/dirs.html",
        token: "slashed-page",
        broken: true,
    },
    Planted {
        name: "works: a fragment the page has (`target.html#planted-here`)",
        file: "planted/fragment.html",
        token: "planted-here",
        broken: false,
    },
    Planted {
        name: "works only by `<base href=\"/planted/based/\">` (`only-in-based.html`)",
        file: "planted/base.html",
        token: "only-in-based",
        broken: false,
    },
    Planted {
        name: "works on GitHub Pages: a pretty URL (`pretty-page` → `pretty-page.html`)",
        file: "planted/dirs.html",
        token: "pretty-page",
        broken: false,
    },
];

/// The planted pages, each a copy of a corpus page of its own: its path,
/// what goes after its `<head>` tag, and what after its `<body>` tag.
const PAGES: &[(&str, &str, &str)] = &[
    (
        "planted/deep/missing.html",
        "",
        "<p><a href=\"../gone-relative.html\">relative</a> <a href=\"/planted/gone-root.html\">root</a> \
         <a href=\"https://example.com/planted/gone-absolute.html\">absolute</a></p>",
    ),
    (
        "planted/fragment.html",
        "",
        "<p><a href=\"target.html#gone-fragment\">gone</a> <a href=\"target.html#planted-here\">here</a></p>",
    ),
    (
        "planted/srcset.html",
        "",
        "<p><img src=\"img/one.png\" srcset=\"img/one.png 1x, img/gone-srcset.png 2x\" alt=\"two\"></p>",
    ),
    (
        "planted/style.html",
        "",
        "<style>.planted-style { background: url(\"img/gone-style.png\") }</style>\
         <link rel=\"stylesheet\" href=\"planted.css\">",
    ),
    (
        "planted/base.html",
        "<base href=\"/planted/based/\">",
        "<p><a href=\"only-beside.html\">beside</a> <a href=\"only-in-based.html\">based</a></p>",
    ),
    (
        "planted/dirs.html",
        "",
        "<p><a href=\"no-index/\">no index</a> <a href=\"pretty-page\">pretty</a> \
         <a href=\"slashed-page/\">slashed</a></p>",
    ),
    (
        "planted/target.html",
        "",
        "<h2 id=\"planted-here\">here</h2>",
    ),
    ("planted/only-beside.html", "", ""),
    ("planted/based/only-in-based.html", "", ""),
    ("planted/pretty-page.html", "", ""),
    ("planted/slashed-page.html", "", ""),
];

/// The planted files that are not pages.
const FILES: &[(&str, &[u8])] = &[
    (
        "planted/planted.css",
        b".planted-css { background: url(img/gone-css.png) }\n.planted-ok { background: url(img/one.png) }\n",
    ),
    // The PNG signature: a file to find, not an image to show.
    ("planted/img/one.png", b"\x89PNG\r\n\x1a\n"),
    (
        "planted/no-index/readme.txt",
        b"a directory with no index.html\n",
    ),
];

/// The checkers, in the order of the table.
#[derive(Clone, Copy, PartialEq)]
enum Tool {
    Htmlabs1,
    HtmlabsAll,
    Lychee,
    Hyperlink,
    HtmlProofer,
    LinkChecker,
}

const TOOLS: [Tool; 6] = [
    Tool::Htmlabs1,
    Tool::HtmlabsAll,
    Tool::Lychee,
    Tool::Hyperlink,
    Tool::HtmlProofer,
    Tool::LinkChecker,
];

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Htmlabs1 => "htmlabs --check-links --jobs 1",
            Tool::HtmlabsAll => "htmlabs --check-links (every core)",
            Tool::Lychee => "lychee",
            Tool::Hyperlink => "hyperlink",
            Tool::HtmlProofer => "html-proofer",
            Tool::LinkChecker => "linkchecker",
        }
    }

    fn is_htmlabs(self) -> bool {
        matches!(self, Tool::Htmlabs1 | Tool::HtmlabsAll)
    }

    /// The exit statuses of a run that checked the tree: the others are
    /// the checker's own failures, which end the bench.
    fn statuses(self) -> &'static [i32] {
        match self {
            Tool::Htmlabs1 | Tool::HtmlabsAll | Tool::HtmlProofer | Tool::LinkChecker => &[0, 1],
            // 2: links broken.
            Tool::Lychee => &[0, 2],
            // 1: links broken, 2: fragments (anchors) broken.
            Tool::Hyperlink => &[0, 1, 2],
        }
    }
}

/// Where each thing lies: the tree, the bench's directory, the binaries.
struct Places {
    site: PathBuf,
    work: PathBuf,
    bin: PathBuf,
    cores: usize,
}

/// A checker ready to run: its program and version, or why it is not.
type Installed = Result<(PathBuf, String), String>;

/// One run: wall and CPU seconds, peak RSS in KiB.
#[derive(Clone, Copy)]
struct Run {
    wall: f64,
    cpu: f64,
    peak_kib: u64,
}

/// A broken link as a checker reports it: the file (under the site) and
/// the URL, in the checker's own form.
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Report {
    file: String,
    url: String,
}

fn main() {
    if let Some(figures) = std::env::var_os(LAUNCHER) {
        launcher(figures);
    }
    if let Some(site) = std::env::var_os(FLOOR) {
        floor(Path::new(&site));
    }
    let (work, cleanup) = common::work("check", Some(Path::new(MEMORY)));
    if std::env::var_os("HTMLABS_CHECK_KEEP").is_some() {
        // The tree and each checker's output, to look at.
        std::mem::forget(cleanup);
    }
    let corpus = common::corpus_or_exit("the tree");
    let rounds = common::env_number("HTMLABS_BENCH_ROUNDS", 3);
    let count = common::env_number("HTMLABS_SITE_PAGES", 10_000);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let tools_dir = std::env::var_os("HTMLABS_CHECK_TOOLS")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("htmlabs-bench-checkers"));
    let places = Places {
        site: work.join("site"),
        work: work.to_path_buf(),
        bin: common::binary(),
        cores,
    };
    let chosen = std::env::var("HTMLABS_CHECKERS").ok();
    let mut installed: Vec<Installed> = TOOLS
        .iter()
        .map(|&tool| match &chosen {
            Some(list)
                if !tool.is_htmlabs() && !list.split(',').any(|n| n.trim() == short(tool)) =>
            {
                Err("left out by HTMLABS_CHECKERS".to_owned())
            }
            _ => install(tool, &places.bin, &tools_dir),
        })
        .collect();

    let mut pages = common::pages(&corpus);
    let utf8 = std::env::var_os("HTMLABS_CHECK_UTF8").is_some();
    if utf8 {
        // hyperlink reads UTF-8 alone (it stops on the first other page).
        pages.retain(|p| std::str::from_utf8(&p.bytes).is_ok());
    }
    let files = common::generate(&pages, count, &places.site);
    let mut origin: HashMap<String, String> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.path.clone(), pages[i % pages.len()].name.clone()))
        .collect();
    let planted_bytes = plant(&pages, &places.site, &mut origin);
    let bytes: u64 = files.iter().map(|f| f.len).sum::<u64>() + planted_bytes;
    let truth = Truth::read(&places);

    println!(
        "## htmlabs --check-links beside lychee, hyperlink, html-proofer and linkchecker, {}",
        common::machine()
    );
    println!();
    println!(
        "{count} generated pages{} and `planted/` ({} files), {:.1} MB (MB = 10^6 bytes); {rounds} rounds; \
         load average at the start: {}; the tree in `{}`",
        if utf8 {
            format!(" (of the {} UTF-8 corpus pages)", pages.len())
        } else {
            String::new()
        },
        PAGES.len() + FILES.len(),
        bytes as f64 / 1e6,
        common::load(),
        work.display()
    );
    println!();
    println!(
        "htmlabs's verdicts (`--report`): {} links to the site's files, of which {} broken and not \
         planted (distinct by file and URL); {} links to other sites",
        truth.checked, truth.others, truth.off_site
    );
    println!();
    for (tool, installed) in TOOLS.iter().zip(&installed) {
        match installed {
            Ok((program, version)) => {
                println!("- {}: {version} (`{}`)", tool.name(), program.display());
            }
            Err(why) => println!("- {}: NOT RUN: {why}", tool.name()),
        }
    }
    println!();

    let mut floor_runs: Vec<Run> = Vec::new();
    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); TOOLS.len()];
    let mut reports: Vec<Vec<Report>> = vec![Vec::new(); TOOLS.len()];
    for round in 0..rounds {
        for k in 0..TOOLS.len() {
            let i = (round + k) % TOOLS.len();
            let Ok((program, _)) = &installed[i] else {
                continue;
            };
            let (run, stdout) = match launch(TOOLS[i], program, &places) {
                Ok(done) => done,
                // A checker that fails on the tree is named with its error,
                // and left out from then on.
                Err(why) if !TOOLS[i].is_htmlabs() => {
                    eprintln!("check bench: {why}");
                    installed[i] = Err(format!("FAILED on this tree: {why}"));
                    runs[i].clear();
                    continue;
                }
                Err(why) => fail(&why),
            };
            if round == 0 {
                reports[i] = parse(TOOLS[i], &stdout, &places.site);
            }
            runs[i].push(run);
        }
        floor_runs.push(launch_floor(&places));
        eprintln!("check bench: round {} of {rounds} done", round + 1);
    }

    let scores: Vec<Option<Score>> = (0..TOOLS.len())
        .map(|i| {
            installed[i]
                .is_ok()
                .then(|| Score::new(&reports[i], &truth))
        })
        .collect();
    let scores = truth.settle(scores, &origin);
    print_tables(&installed, &runs, &scores, &truth, rounds);
    print_floor(&floor_runs, &runs);
}

// ---------------------------------------------------------------------------
// Installing

/// The checker's program and version, installing it first when it is
/// missing; or why it cannot run here.
fn install(tool: Tool, bin: &Path, tools: &Path) -> Installed {
    let program = match tool {
        Tool::Htmlabs1 | Tool::HtmlabsAll => bin.to_path_buf(),
        Tool::Lychee => cargo_install(tools, "lychee", LYCHEE)?,
        Tool::Hyperlink => cargo_install(tools, "hyperlink", HYPERLINK)?,
        Tool::HtmlProofer => debian_install()?,
        Tool::LinkChecker => pip_install(tools)?,
    };
    let output = Command::new(&program)
        .arg("--version")
        .output()
        .map_err(|e| format!("cannot run `{}`: {e}", program.display()))?;
    let text = String::from_utf8_lossy(&output.stdout);
    // linkchecker: `LinkChecker 10.6.0 released 2025-07-28` and a copyright.
    let first = text.lines().next().unwrap_or("").trim();
    let version = match tool {
        Tool::LinkChecker => first.split(" released").next().unwrap_or(first),
        _ => first,
    };
    Ok((program, version.to_owned()))
}

/// Runs an install step, saying what it runs; `Err` with its last lines.
fn step(what: &str, command: &mut Command) -> Result<(), String> {
    eprintln!("check bench: installing {what}: {command:?}");
    let output = command
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {what}'s install: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let errors = String::from_utf8_lossy(&output.stderr);
    let tail: Vec<&str> = errors.lines().rev().take(3).collect();
    Err(format!(
        "`{command:?}` failed ({}): {}",
        output.status,
        tail.into_iter().rev().collect::<Vec<_>>().join(" / ")
    ))
}

/// `cargo install --locked NAME@VERSION` into `tools`, at a low priority
/// (the machine is shared), in a build directory of cargo's own.
fn cargo_install(tools: &Path, name: &str, version: &str) -> Result<PathBuf, String> {
    let program = tools.join("bin").join(name);
    if !program.is_file() {
        step(
            name,
            Command::new("nice")
                .args([
                    "-n", "10", "cargo", "install", "--locked", "--quiet", "--root",
                ])
                .arg(tools)
                .arg(format!("{name}@{version}"))
                .env_remove("CARGO_TARGET_DIR"),
        )?;
    }
    Ok(program)
}

/// html-proofer from Debian's packages (`htmlproofer` on the path), else
/// from RubyGems.
fn debian_install() -> Result<PathBuf, String> {
    let found = || {
        std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join("htmlproofer"))
                .find(|p| p.is_file())
        })
    };
    if let Some(program) = found() {
        return Ok(program);
    }
    let apt = step(
        "html-proofer",
        Command::new("apt-get").args(["update", "-qq"]),
    )
    .and_then(|()| {
        step(
            "html-proofer",
            Command::new("apt-get")
                .args(["install", "-y", "-qq", "ruby-html-proofer"])
                .env("DEBIAN_FRONTEND", "noninteractive"),
        )
    });
    if let Err(apt) = apt {
        let gem = step(
            "html-proofer",
            Command::new("gem").args(["install", "html-proofer"]),
        );
        if let Err(gem) = gem {
            return Err(format!(
                "neither Debian's package nor the gem: {apt}; {gem}"
            ));
        }
    }
    found().ok_or_else(|| "installed, but no `htmlproofer` on the path".to_owned())
}

/// linkchecker by pip, in a virtual environment of its own in `tools`.
fn pip_install(tools: &Path) -> Result<PathBuf, String> {
    let venv = tools.join("linkchecker-venv");
    let program = venv.join("bin/linkchecker");
    if !program.is_file() {
        step(
            "linkchecker",
            Command::new("python3").args(["-m", "venv"]).arg(&venv),
        )?;
        step(
            "linkchecker",
            Command::new(venv.join("bin/pip"))
                .args(["install", "--quiet"])
                .arg(format!("linkchecker=={LINKCHECKER}")),
        )?;
    }
    Ok(program)
}

// ---------------------------------------------------------------------------
// The tree

/// Writes `planted/` under the site, each page a copy of a corpus page
/// that is UTF-8 and has no `<base>` of its own (hyperlink reads UTF-8
/// alone; a `<base>` would move the planted links); records which page
/// each copies; returns the bytes written.
fn plant(pages: &[common::Page], site: &Path, origin: &mut HashMap<String, String>) -> u64 {
    let mut fit = pages.iter().filter(|p| {
        let lower = p.bytes.to_ascii_lowercase();
        std::str::from_utf8(&p.bytes).is_ok()
            && find_tag(&lower, b"<base").is_none()
            && find_tag(&lower, b"<head").is_some()
            && find_tag(&lower, b"<body").is_some()
    });
    let mut bytes = 0;
    for (path, head, body) in PAGES {
        let page = fit
            .next()
            .unwrap_or_else(|| fail("the corpus has too few UTF-8 pages without a <base>"));
        let with_head = insert_after(&page.bytes, b"<head", head.as_bytes());
        let text = insert_after(&with_head, b"<body", format!("\n{body}\n").as_bytes());
        bytes += write(site, path, &text);
        origin.insert((*path).to_owned(), page.name.clone());
    }
    for (path, text) in FILES {
        bytes += write(site, path, text);
    }
    bytes
}

fn write(site: &Path, path: &str, bytes: &[u8]) -> u64 {
    let file = site.join(path);
    fs::create_dir_all(file.parent().expect("a file has a directory"))
        .unwrap_or_else(|e| fail(&format!("cannot make the directory of `{path}`: {e}")));
    fs::write(&file, bytes).unwrap_or_else(|e| fail(&format!("cannot write `{path}`: {e}")));
    bytes.len() as u64
}

/// Where the start tag `tag` (`<head`, lowercase) starts in `lower`: not
/// `<header`.
fn find_tag(lower: &[u8], tag: &[u8]) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = memfind(&lower[from..], tag).map(|i| from + i) {
        match lower.get(at + tag.len()) {
            Some(b'>' | b' ' | b'\t' | b'\n' | b'\r' | b'/') => return Some(at),
            _ => from = at + 1,
        }
    }
    None
}

fn memfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `page` with `text` after its start tag `tag`.
fn insert_after(page: &[u8], tag: &[u8], text: &[u8]) -> Vec<u8> {
    if text.is_empty() {
        return page.to_vec();
    }
    let lower = page.to_ascii_lowercase();
    let start = find_tag(&lower, tag).expect("the page has the tag");
    let end = start
        + page[start..]
            .iter()
            .position(|&b| b == b'>')
            .expect("a tag ends")
        + 1;
    [&page[..end], text, &page[end..]].concat()
}

// ---------------------------------------------------------------------------
// Running

/// The command line of a checker over the site, each as its documentation
/// says a user must run it over a built site, offline.
fn command(tool: Tool, program: &Path, places: &Places) -> Command {
    let site = &places.site;
    let mut command = Command::new(program);
    match tool {
        Tool::Htmlabs1 | Tool::HtmlabsAll => {
            let jobs = if tool == Tool::Htmlabs1 {
                1
            } else {
                places.cores
            };
            command
                .arg("--site")
                .arg(site)
                .args(["--site-url", SITE_URL, "--check-links"])
                .args(["--host", "github-pages", "--jobs", &jobs.to_string()]);
        }
        Tool::Lychee => {
            // `--offline`: no network, so `https:` links are left out,
            // those to the site too, unless `--remap` makes them files
            // (lychee's recipe for a local folder); `--root-dir` for
            // root-relative links; `--index-files`: a directory is found
            // only with its index file (by default any directory is);
            // `--fallback-extensions html`: GitHub Pages's `a` → `a.html`;
            // `--include-fragments`: fragments are checked; `--extensions`:
            // the pages and stylesheets (its `url()`s are read), not the
            // rest of its default list (Markdown, text, XML); JSON, to be
            // parsed.
            let root = site.to_string_lossy();
            command
                .args(["--offline", "--no-progress", "--format", "json"])
                .arg("--root-dir")
                .arg(site)
                .arg("--remap")
                .arg(format!("^https://example\\.com/ file://{root}/"))
                .args(["--index-files", "index.html"])
                .args(["--fallback-extensions", "html"])
                .args(["--include-fragments", "--extensions", "html,htm,css"])
                .arg(site);
        }
        Tool::Hyperlink => {
            // `--check-anchors`: fragments. It reads no CSS and has no
            // option for pretty URLs, a `<base>` or the site's URL.
            command.arg(site).arg("--check-anchors");
        }
        Tool::HtmlProofer => {
            // `--disable-external`: offline; `--url-swap`: the site's URL
            // to its root, `--root-dir`: where the root is;
            // `--assume-extension`: GitHub Pages's `a` → `a.html`; the
            // checks of what is no link turned off (`alt`, `href="#"`).
            let root = site.to_string_lossy();
            command
                .arg(site)
                .args(["--disable-external", "--assume-extension"])
                .args(["--url-swap", "^https\\://example\\.com/:/"])
                .arg("--root-dir")
                .arg(&*root)
                .args(["--allow-hash-href", "--empty-alt-ignore"])
                .args(["--alt-ignore", "/.*/"]);
        }
        Tool::LinkChecker => {
            // The tree as a `file:` URL: it follows every file and
            // directory under it, and by default checks nothing outside
            // it ("extern"); the AnchorCheck plugin for fragments, in a
            // configuration file; CSV, to be parsed.
            let config = places.work.join("linkcheckerrc");
            fs::write(&config, "[AnchorCheck]\n").unwrap_or_else(|e| {
                fail(&format!("cannot write linkchecker's configuration: {e}"))
            });
            command
                .arg("--config")
                .arg(&config)
                .args(["--output", "csv", "--no-status"])
                .arg(format!("file://{}/", site.display()));
        }
    }
    command
}

/// Runs a checker under the launcher; its standard output and standard
/// error go to files of the bench's directory, and its report is read
/// back.
fn launch(tool: Tool, program: &Path, places: &Places) -> Result<(Run, String), String> {
    let index = TOOLS.iter().position(|&t| t == tool).expect("a tool");
    let out = places.work.join(format!("out-{index}.txt"));
    let err = places.work.join(format!("err-{index}.txt"));
    let (code, run) = launched(command(tool, program, places), places, &out, &err);
    let code = code.as_str();
    let errors = || {
        // An exception's own line (Ruby's, Python's) or a panic's first
        // lines, before its backtrace.
        let text = fs::read_to_string(&err).unwrap_or_default();
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains("[WARN]") && !l.trim().is_empty())
            .collect();
        match lines
            .iter()
            .find(|l| l.contains("Error)") || l.starts_with("Traceback"))
        {
            Some(line) => line.trim().to_owned(),
            None => lines[..lines.len().min(3)].join(" / "),
        }
    };
    if !code
        .parse::<i32>()
        .is_ok_and(|c| tool.statuses().contains(&c))
    {
        return Err(format!(
            "{} failed (exit status {code}): {}",
            tool.name(),
            errors()
        ));
    }
    // html-proofer writes its report to standard error, and ends it with
    // its count (exit status 1 is also an exception's).
    let read = if tool == Tool::HtmlProofer {
        &err
    } else {
        &out
    };
    let output = String::from_utf8_lossy(&fs::read(read).expect("the output")).into_owned();
    if tool == Tool::HtmlProofer
        && !output.contains("HTML-Proofer found ")
        && !output.contains("HTML-Proofer finished successfully")
    {
        return Err(format!(
            "{} stopped before its report (exit status {code}): {}",
            tool.name(),
            errors()
        ));
    }
    Ok((run, output))
}

/// Runs `inner` under the launcher, its standard output and standard error
/// into `out` and `err`: its exit status (or `signal-N`) and its figures.
fn launched(inner: Command, places: &Places, out: &Path, err: &Path) -> (String, Run) {
    let figures = places.work.join("figures.txt");
    let mut outer = Command::new(std::env::current_exe().expect("this bench's path"));
    outer
        .env(LAUNCHER, &figures)
        .arg(inner.get_program())
        .args(inner.get_args())
        .envs(
            inner
                .get_envs()
                .filter_map(|(name, value)| Some((name, value?))),
        )
        .current_dir(&places.work)
        .stdin(Stdio::null())
        .stdout(fs::File::create(out).expect("a file for the output"))
        .stderr(fs::File::create(err).expect("a file for the errors"));
    let _ = fs::remove_file(&figures);
    let _ = Command::new("sync").status();
    let status = outer
        .status()
        .unwrap_or_else(|e| fail(&format!("cannot run the launcher: {e}")));
    let text = fs::read_to_string(&figures).unwrap_or_default();
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [code, wall, cpu, peak] = fields[..] else {
        fail(&format!("the launcher failed ({status}): `{text}`"));
    };
    let run = Run {
        wall: wall.parse().expect("seconds"),
        cpu: cpu.parse().expect("seconds"),
        peak_kib: peak.parse().expect("KiB"),
    };
    (code.to_owned(), run)
}

/// The engine's floor ([`floor`]) on the tree, timed under the launcher.
fn launch_floor(places: &Places) -> Run {
    let mut inner = Command::new(std::env::current_exe().expect("this bench's path"));
    inner.env(FLOOR, &places.site);
    let out = places.work.join("out-floor.txt");
    let err = places.work.join("err-floor.txt");
    let (code, run) = launched(inner, places, &out, &err);
    if code != "0" {
        let errors = fs::read_to_string(&err).unwrap_or_default();
        fail(&format!("the engine's floor failed ({code}): {errors}"));
    }
    run
}

/// The page engine alone, for scale: lol_html reads each page of `site`
/// (`.html`, `.htm`), in 64 KiB writes, with one handler on every element
/// (`*`, as htmlabs's page engine has it) that reads where each
/// attribute's value is; nothing is resolved, checked or kept. One
/// thread. Prints the values' bytes and the output's, and exits.
fn floor(site: &Path) -> ! {
    use lol_html::{HtmlRewriter, Settings, element};
    use std::cell::Cell;

    let mut pending = vec![site.to_path_buf()];
    let (mut values, mut output) = (0usize, 0usize);
    while let Some(dir) = pending.pop() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                pending.push(path);
                continue;
            }
            if !path.extension().is_some_and(|e| e == "html" || e == "htm") {
                continue;
            }
            let bytes = fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let read = Cell::new(0usize);
            let settings = Settings::new().append_element_content_handler(element!("*", |el| {
                for attr in el.attributes() {
                    let value = attr.value_source_location().map(|l| l.bytes().len());
                    read.set(read.get() + value.unwrap_or(0));
                }
                Ok(())
            }));
            let mut rewriter = HtmlRewriter::new(settings, |chunk: &[u8]| output += chunk.len());
            for chunk in bytes.chunks(64 << 10) {
                rewriter.write(chunk).expect("lol_html reads the page");
            }
            rewriter.end().expect("lol_html reads the page");
            values += read.get();
        }
    }
    println!("{values} bytes of values, {output} bytes out");
    std::process::exit(0);
}

/// The launcher: runs the command in its arguments with this process's
/// standard streams, and writes its exit status, wall seconds, CPU seconds
/// and peak RSS (KiB) to `figures`.
fn launcher(figures: OsString) -> ! {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let start = Instant::now();
    let child = Command::new(&args[0])
        .args(&args[1..])
        .env_remove(LAUNCHER)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", args[0]));
    let mut status = 0;
    // SAFETY: plain out-parameters; the child is ours and not yet reaped
    // (std's `Child` is never waited on).
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    assert_eq!(reaped, child.id() as libc::pid_t, "wait4 failed");
    let code = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status).to_string()
    } else {
        format!("signal-{}", libc::WTERMSIG(status))
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime);
    fs::write(
        figures,
        format!("{code} {wall:.4} {cpu:.4} {}\n", usage.ru_maxrss),
    )
    .expect("the launcher writes its figures");
    std::process::exit(0);
}

// ---------------------------------------------------------------------------
// What each reported

/// The broken links in a checker's output, each once.
fn parse(tool: Tool, stdout: &str, site: &Path) -> Vec<Report> {
    let site_text = site.to_string_lossy().into_owned();
    let under = |path: &str| -> String {
        let path = path.strip_prefix("file://").unwrap_or(path);
        let path = percent_decode(path);
        path.strip_prefix(&site_text)
            .unwrap_or(&path)
            .trim_start_matches("./")
            .trim_start_matches('/')
            .to_owned()
    };
    let mut reports = Vec::new();
    match tool {
        // `FILE:LINE:COLUMN: <a href> "value" -> "URL": not found`
        Tool::Htmlabs1 | Tool::HtmlabsAll => {
            for line in stdout.lines() {
                let (Some((place, _)), Some((_, rest))) =
                    (line.split_once(": <"), line.split_once(" -> \""))
                else {
                    continue;
                };
                let file = place.rsplitn(3, ':').nth(2).unwrap_or(place);
                let url = rest.split('"').next().unwrap_or(rest);
                reports.push(Report {
                    file: under(file),
                    url: url.to_owned(),
                });
            }
        }
        // `{"error_map": {"/site/page.html": [{"url": "…", "status": …}]}}`
        Tool::Lychee => {
            let json: serde_json::Value = serde_json::from_str(stdout)
                .unwrap_or_else(|e| fail(&format!("lychee's JSON: {e}")));
            for key in ["error_map", "fail_map"] {
                let Some(map) = json.get(key).and_then(|m| m.as_object()) else {
                    continue;
                };
                for (source, errors) in map {
                    for error in errors.as_array().into_iter().flatten() {
                        if let Some(url) = error.get("url").and_then(|u| u.as_str()) {
                            reports.push(Report {
                                file: under(source),
                                url: url.to_owned(),
                            });
                        }
                    }
                }
            }
        }
        // `./dir/page.html` then `  error: bad link /dir/gone.html`
        Tool::Hyperlink => {
            let mut file = String::new();
            for line in stdout.lines() {
                if let Some(url) = line.trim_start().strip_prefix("error: bad link ") {
                    reports.push(Report {
                        file: file.clone(),
                        url: url.to_owned(),
                    });
                } else if !line.starts_with(' ') && (line.contains('/') || line.ends_with("html")) {
                    file = under(line.trim());
                }
            }
        }
        // `- site/page.html`, `  *  internally linking to X, which does
        // not exist (line N)`, then the element.
        Tool::HtmlProofer => {
            let mut file = String::new();
            let lines: Vec<&str> = stdout.lines().collect();
            for (i, line) in lines.iter().enumerate() {
                if let Some(path) = line.strip_prefix("- ") {
                    file = under(path.trim());
                } else if let Some(message) = line.trim_start().strip_prefix("*  ") {
                    let element = lines.get(i + 1).copied().unwrap_or("");
                    if let Some(url) = proofer_url(message, element) {
                        reports.push(Report {
                            file: file.clone(),
                            url,
                        });
                    }
                }
            }
        }
        // CSV: `urlname;parentname;base;result;warningstring;infostring;
        // valid;url;…`: broken when not valid, or when the AnchorCheck
        // plugin warns that the fragment is not found.
        Tool::LinkChecker => {
            for row in csv(stdout) {
                if row.len() < 8 || row[0] == "urlname" {
                    continue;
                }
                let invalid = row[6] == "False";
                let anchor = row[4].contains("Anchor `") && row[4].contains("not found");
                if invalid || anchor {
                    // As written (the resolved URL is in `url`, row[7]).
                    let url = if row[0].is_empty() { &row[7] } else { &row[0] };
                    reports.push(Report {
                        file: under(&row[1]),
                        url: url.clone(),
                    });
                }
            }
        }
    }
    reports.sort();
    reports.dedup();
    reports
}

/// The URL an html-proofer complaint names: `internally linking to X,
/// which does not exist`, `internal image X does not exist`, `internal
/// script X does not exist`, `X is an invalid URL`; for `linking to
/// internal hash #x that does not exist`, the `href` of the element on the
/// next line. `None` for complaints that name no link.
fn proofer_url(message: &str, element: &str) -> Option<String> {
    let message = message.rsplit_once(" (line ").map_or(message, |(m, _)| m);
    if message.contains("internal hash") {
        let href = element.split("href=\"").nth(1)?.split('"').next()?;
        return Some(href.replace("&amp;", "&"));
    }
    for (before, after) in [
        ("internally linking to ", ", which does not exist"),
        ("internal image ", " does not exist"),
        ("internal script ", " does not exist"),
        ("internal script reference ", " does not exist"),
        ("", " is an invalid URL"),
    ] {
        if let Some(url) = message
            .strip_prefix(before)
            .and_then(|m| m.strip_suffix(after))
        {
            return Some(url.to_owned());
        }
    }
    None
}

/// The rows of `;`-separated values, fields in `"` where they hold one
/// (`""` a quote), as Python's csv module writes them; lines that start
/// with `# ` are comments (a row may start with `#`, a fragment).
fn csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    let mut line_start = true;
    while let Some(c) = chars.next() {
        if line_start && c == '#' && chars.peek() == Some(&' ') {
            for c in chars.by_ref() {
                if c == '\n' {
                    break;
                }
            }
            continue;
        }
        line_start = false;
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            ('"', true) => quoted = false,
            ('"', false) if field.is_empty() => quoted = true,
            (';', false) => row.push(std::mem::take(&mut field)),
            ('\r', false) => {}
            ('\n', false) => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
                line_start = true;
            }
            _ => field.push(c),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        let pair = (bytes[i] == b'%' && i + 2 < bytes.len())
            .then(|| hex(bytes[i + 1]).zip(hex(bytes[i + 2])))
            .flatten();
        match pair {
            Some((high, low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

// ---------------------------------------------------------------------------
// Matching reports with htmlabs's verdicts

/// A link as htmlabs's report has it.
struct Link {
    file: String,
    original: String,
    absolute: Option<String>,
    status: String,
    /// The RFC 1808 layer of its base: `embedded` for a `<base href>`.
    layer: String,
}

impl Link {
    /// Why a checker that reports this link is wrong, in a few words.
    fn class(&self) -> &'static str {
        let original = self.original.trim();
        let scheme = original
            .split_once(':')
            .is_some_and(|(s, _)| !s.is_empty() && !s.contains(['/', '?', '#']));
        match self.status.as_str() {
            "off-site" if original.starts_with("//") => {
                "off the site: a network-path reference (`//host/…`)"
            }
            "off-site" if scheme => "off the site: another scheme (`mailto:`, `javascript:`, …)",
            "off-site" if self.layer == "embedded" => {
                "off the site: a relative link under the page's `<base href>` to its own site"
            }
            "off-site" => "off the site",
            _ if original.ends_with("#top") || original == "#" => {
                "found: `#top` or `#` (the top of the page, always there)"
            }
            _ if original.contains('#') => "found: a fragment the page has",
            _ => "found: a file that is there",
        }
    }
}

/// htmlabs's verdicts: its link report, written by a run not timed, of
/// which the broken links are held (the rest is read again, file by file,
/// for the reports that match no broken link).
struct Truth {
    report: PathBuf,
    site: String,
    /// The distinct broken links that were not planted (by file and URL).
    others: usize,
    /// `(file, key)` → the broken links that have that key.
    index: HashMap<(String, String), Vec<usize>>,
    /// htmlabs's verdict of each planted link, from its report.
    planted: Vec<Option<String>>,
    /// The links of the report: checked (on the site), and off the site.
    checked: usize,
    off_site: usize,
}

impl Truth {
    fn read(places: &Places) -> Truth {
        let report = places.work.join("htmlabs-report.jsonl");
        let status = Command::new(&places.bin)
            .arg("--site")
            .arg(&places.site)
            .args([
                "--site-url",
                SITE_URL,
                "--check-links",
                "--host",
                "github-pages",
            ])
            .arg("--report")
            .arg(&report)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .unwrap_or_else(|e| fail(&format!("cannot run htmlabs: {e}")));
        if !matches!(status.code(), Some(0 | 1)) {
            fail(&format!("htmlabs --check-links --report failed ({status})"));
        }
        let mut truth = Truth {
            report,
            site: places.site.to_string_lossy().into_owned(),
            others: 0,
            index: HashMap::new(),
            planted: vec![None; PLANTED.len()],
            checked: 0,
            off_site: 0,
        };
        let (mut ids, mut index, mut planted) =
            (HashMap::new(), HashMap::new(), truth.planted.clone());
        let (mut checked, mut off_site) = (0, 0);
        truth.each_link(|link| {
            match link.status.as_str() {
                "off-site" => off_site += 1,
                _ => checked += 1,
            }
            let url = link
                .absolute
                .clone()
                .unwrap_or_else(|| link.original.clone());
            if let Some(p) = planted_link(&link.file, &url) {
                planted[p] = Some(link.status);
                return;
            }
            if !matches!(link.status.as_str(), "not-found" | "fragment-not-found") {
                return;
            }
            let next = ids.len();
            let id = *ids.entry((link.file.clone(), url)).or_insert(next);
            for key in link_keys(&link) {
                let ids: &mut Vec<usize> = index.entry((link.file.clone(), key)).or_default();
                if !ids.contains(&id) {
                    ids.push(id);
                }
            }
        });
        truth.others = ids.len();
        truth.checked = checked;
        truth.off_site = off_site;
        truth.index = index;
        truth.planted = planted;
        truth
    }

    /// Every link of the report, in its order (file by file).
    fn each_link(&self, mut each: impl FnMut(Link)) {
        let file = fs::File::open(&self.report)
            .unwrap_or_else(|e| fail(&format!("cannot read htmlabs's report: {e}")));
        for line in BufReader::new(file).lines() {
            let line = line.unwrap_or_else(|e| fail(&format!("htmlabs's report: {e}")));
            let value: serde_json::Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| fail(&format!("htmlabs's report: {e}: `{line}`")));
            let text = |key: &str| value.get(key).and_then(|v| v.as_str()).map(str::to_owned);
            let (Some(file), Some(original), Some(status)) =
                (text("file"), text("original"), text("status"))
            else {
                continue;
            };
            let file = file
                .strip_prefix(&self.site)
                .unwrap_or(&file)
                .trim_start_matches('/')
                .to_owned();
            each(Link {
                file,
                original,
                absolute: text("absolute"),
                status,
                layer: text("layer").unwrap_or_default(),
            });
        }
    }

    /// The false reports of each checker named: the reports that matched
    /// neither a planted link nor a broken link are looked up among the
    /// other links of their file.
    fn settle(
        &self,
        mut scores: Vec<Option<Score>>,
        origin: &HashMap<String, String>,
    ) -> Vec<Option<Score>> {
        let mut pending: HashMap<String, Vec<(usize, usize)>> = HashMap::new();
        for (t, score) in scores.iter().enumerate() {
            for (r, report) in score.iter().flat_map(|s| s.unmatched.iter().enumerate()) {
                pending.entry(report.file.clone()).or_default().push((t, r));
            }
        }
        let mut verdicts: HashMap<(usize, usize), String> = HashMap::new();
        let mut current = String::new();
        let mut keys: HashMap<String, String> = HashMap::new();
        let mut decide = |file: &str, keys: &HashMap<String, String>, scores: &[Option<Score>]| {
            for &(t, r) in pending.get(file).into_iter().flatten() {
                let report = &scores[t].as_ref().expect("scored").unmatched[r];
                let verdict = report_keys(&report.url, &self.site)
                    .iter()
                    .find_map(|k| keys.get(k).cloned());
                if let Some(verdict) = verdict {
                    verdicts.insert((t, r), verdict);
                }
            }
        };
        self.each_link(|link| {
            if link.file != current {
                decide(&current, &keys, &scores);
                keys.clear();
                current = link.file.clone();
            }
            if pending.contains_key(&link.file) {
                for key in link_keys(&link) {
                    keys.entry(key).or_insert_with(|| {
                        format!("{}\t{}: `{}`", link.class(), link.status, link.original)
                    });
                }
            }
        });
        decide(&current, &keys, &scores);
        for (t, score) in scores.iter_mut().enumerate() {
            let Some(score) = score else { continue };
            for (r, report) in score.unmatched.iter().enumerate() {
                let verdict = verdicts.get(&(t, r)).cloned().unwrap_or_else(|| {
                    format!(
                        "not a link that htmlabs checks (as `<base href>`)\tno link htmlabs checks: `{}`",
                        report.url
                    )
                });
                let (class, verdict) = verdict.split_once('\t').expect("a class and a verdict");
                *score.classes.entry(class.to_owned()).or_default() += 1;
                let verdict = verdict.to_owned();
                let page = origin.get(&report.file).map_or("?", String::as_str);
                let entry = score.false_reports.entry(verdict).or_default();
                entry.0 += 1;
                entry.1.insert(page.to_owned());
            }
        }
        scores
    }
}

/// What a checker found: which planted links, which of htmlabs's other
/// broken links, and its false reports by kind.
struct Score {
    planted: Vec<bool>,
    agreed: HashSet<usize>,
    unmatched: Vec<Report>,
    /// htmlabs's verdict of a falsely reported link (its status and value)
    /// → how many reports, and the corpus pages whose copies hold them.
    false_reports: BTreeMap<String, (usize, BTreeSet<String>)>,
    /// The false reports by [`Link::class`].
    classes: BTreeMap<String, usize>,
}

impl Score {
    fn new(reports: &[Report], truth: &Truth) -> Score {
        let mut score = Score {
            planted: vec![false; PLANTED.len()],
            agreed: HashSet::new(),
            unmatched: Vec::new(),
            false_reports: BTreeMap::new(),
            classes: BTreeMap::new(),
        };
        for report in reports {
            if let Some(p) = planted_link(&report.file, &report.url) {
                score.planted[p] = true;
                continue;
            }
            let found = report_keys(&report.url, &truth.site)
                .into_iter()
                .find_map(|key| truth.index.get(&(report.file.clone(), key)));
            match found {
                Some(links) => score.agreed.extend(links),
                None => score.unmatched.push(report.clone()),
            }
        }
        score
    }

    fn found(&self) -> usize {
        PLANTED
            .iter()
            .zip(&self.planted)
            .filter(|(p, f)| p.broken && **f)
            .count()
    }

    /// The planted links that work, reported, and the reports of links
    /// htmlabs finds or does not check.
    fn false_count(&self) -> usize {
        let planted = PLANTED
            .iter()
            .zip(&self.planted)
            .filter(|(p, f)| !p.broken && **f)
            .count();
        planted + self.unmatched.len()
    }
}

/// The planted link that a link in `file` to `url` is.
fn planted_link(file: &str, url: &str) -> Option<usize> {
    PLANTED
        .iter()
        .position(|p| p.file == file && url.contains(p.token))
}

/// The forms a link may be reported in, each percent-decoded: as written,
/// absolute, its path on the site, and the path the file's own URL gives
/// it when `<base>` is not honoured; each also without its fragment.
fn link_keys(link: &Link) -> Vec<String> {
    let mut keys = vec![link.original.trim().to_owned()];
    if let Some(absolute) = &link.absolute {
        keys.push(absolute.clone());
    }
    let own = url::Url::parse(&format!("{SITE_URL}{}", link.file))
        .ok()
        .and_then(|page| page.join(link.original.trim()).ok());
    if let Some(own) = own {
        keys.push(own.to_string());
    }
    canonical(keys)
}

/// The forms of a checker's URL to look up: as it is, and the path on the
/// site of a `file:` URL or path under the site or of a URL of the site;
/// a `file:` URL with a host as the network-path reference it came from.
fn report_keys(url: &str, site: &str) -> Vec<String> {
    let mut keys = vec![url.trim().to_owned()];
    if let Some(path) = url.strip_prefix("file://") {
        match path.strip_prefix(site) {
            Some(rest) => keys.push(rest.to_owned()),
            // `//host/path`, which lychee makes `file://host/path`.
            None if !path.starts_with('/') => keys.push(format!("//{path}")),
            None => {}
        }
    } else if let Some(rest) = url.strip_prefix(site) {
        keys.push(rest.to_owned());
    }
    canonical(keys)
}

/// Each key percent-decoded, a URL of the site as its path (`/a/b.html`),
/// and each also without its query and a trailing slash or `index.html`
/// (as hyperlink and lychee report a path), with its fragment and
/// without: the most exact first.
fn canonical(keys: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for key in keys {
        let key = percent_decode(&key);
        let key = ["https://example.com", "http://example.com"]
            .iter()
            .find_map(|origin| key.strip_prefix(origin))
            .filter(|rest| rest.starts_with('/'))
            .map_or(key.clone(), str::to_owned);
        let (before, fragment) = match key.split_once('#') {
            Some((before, fragment)) => (before, Some(fragment)),
            None => (key.as_str(), None),
        };
        let path = before.split('?').next().unwrap_or(before);
        // hyperlink reports `/a/index.html` as `/a`.
        let directory = path.strip_suffix("index.html").unwrap_or(path);
        let bare = match directory.trim_end_matches('/') {
            "" => directory,
            bare => bare,
        };
        for form in [before, path, bare] {
            if let Some(fragment) = fragment {
                out.push(format!("{form}#{fragment}"));
            }
            out.push(form.to_owned());
        }
    }
    // The most exact first.
    let mut seen = HashSet::new();
    out.retain(|key| seen.insert(key.clone()));
    out
}

// ---------------------------------------------------------------------------
// The tables

fn print_tables(
    installed: &[Installed],
    runs: &[Vec<Run>],
    scores: &[Option<Score>],
    truth: &Truth,
    rounds: usize,
) {
    let broken = PLANTED.iter().filter(|p| p.broken).count();
    let others = truth.others;
    let mut table = format!(
        "| checker | version | wall s: median (fastest–slowest) | CPU s | peak RSS MiB | planted found, of {broken} | false reports | the tree's other broken links reported, of {others} |\n\
         | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n"
    );
    for (i, tool) in TOOLS.iter().enumerate() {
        let (Ok((_, version)), Some(score)) = (&installed[i], &scores[i]) else {
            let why = installed[i].as_ref().err().map_or("", String::as_str);
            let _ = writeln!(table, "| {} | not run: {why} | | | | | | |", tool.name());
            continue;
        };
        let wall: Vec<f64> = runs[i].iter().map(|r| r.wall).collect();
        let (fast, slow) = spread(wall.iter().copied());
        let other = score.agreed.len();
        let _ = writeln!(
            table,
            "| {} | {version} | {:.2} ({fast:.2}–{slow:.2}) | {:.2} | {:.1} | {} | {} | {} |",
            tool.name(),
            median(wall),
            median(runs[i].iter().map(|r| r.cpu).collect()),
            median(runs[i].iter().map(|r| r.peak_kib as f64 / 1024.0).collect()),
            score.found(),
            score.false_count(),
            if tool.is_htmlabs() {
                format!("{other} (its own verdicts)")
            } else {
                other.to_string()
            },
        );
    }
    println!("{table}");

    let mut matrix = String::from("| planted link | broken |");
    let mut rule = String::from("| --- | --- |");
    for (i, tool) in TOOLS.iter().enumerate() {
        if scores[i].is_some() {
            let _ = write!(matrix, " {} |", short(*tool));
            rule.push_str(" :-: |");
        }
    }
    println!("{matrix}\n{rule}");
    for (p, planted) in PLANTED.iter().enumerate() {
        let mut row = format!(
            "| {} | {} |",
            planted.name,
            if planted.broken { "yes" } else { "no" }
        );
        for score in scores.iter().flatten() {
            let mark = match (score.planted[p], planted.broken) {
                (true, true) => "found",
                (true, false) => "**reported**",
                (false, true) => "**missed**",
                (false, false) => "–",
            };
            let _ = write!(row, " {mark} |");
        }
        println!("{row}");
    }
    for (p, planted) in PLANTED.iter().enumerate() {
        let verdict = truth.planted[p].as_deref().unwrap_or("not in the report");
        if matches!(verdict, "not-found" | "fragment-not-found") != planted.broken {
            println!(
                "htmlabs's link report disagrees with the planting: {} is `{verdict}`",
                planted.name
            );
        }
    }
    println!();

    println!("htmlabs at every core ÷ each, wall time (the median of the rounds' own ratios):");
    let all = index(Tool::HtmlabsAll);
    let one = index(Tool::Htmlabs1);
    for (i, tool) in TOOLS.iter().enumerate() {
        if tool.is_htmlabs() || runs[i].is_empty() || runs[all].is_empty() {
            continue;
        }
        let ratio = |h: usize| {
            median(
                (0..rounds)
                    .map(|r| runs[i][r].wall / runs[h][r].wall)
                    .collect(),
            )
        };
        let cpu = median(
            (0..rounds)
                .map(|r| runs[i][r].cpu / runs[one][r].cpu)
                .collect(),
        );
        let peak = median(
            (0..rounds)
                .map(|r| runs[i][r].peak_kib as f64 / runs[one][r].peak_kib as f64)
                .collect(),
        );
        println!(
            "- {}: {:.1}× faster (--jobs 1: {:.1}×); CPU {cpu:.1}× htmlabs --jobs 1's; peak RSS {peak:.1}× --jobs 1's",
            tool.name(),
            ratio(all),
            ratio(one),
        );
    }
    println!();

    let mut classes: BTreeSet<&String> = BTreeSet::new();
    for score in scores.iter().flatten() {
        classes.extend(score.classes.keys());
    }
    let mut header = String::from("| false reports: what htmlabs says of the link |");
    let mut rule = String::from("| --- |");
    for (i, tool) in TOOLS.iter().enumerate() {
        if scores[i].is_some() && !tool.is_htmlabs() {
            let _ = write!(header, " {} |", short(*tool));
            rule.push_str(" ---: |");
        }
    }
    println!("{header}\n{rule}");
    let planted_row: Vec<usize> = TOOLS
        .iter()
        .zip(scores)
        .filter(|(t, s)| s.is_some() && !t.is_htmlabs())
        .map(|(_, s)| {
            let s = s.as_ref().expect("scored");
            PLANTED
                .iter()
                .zip(&s.planted)
                .filter(|(p, f)| !p.broken && **f)
                .count()
        })
        .collect();
    let cells = |row: Vec<usize>| row.iter().map(|n| format!(" {n} |")).collect::<String>();
    println!("| planted links that work (above) |{}", cells(planted_row));
    for class in classes {
        let row = TOOLS
            .iter()
            .zip(scores)
            .filter(|(t, s)| s.is_some() && !t.is_htmlabs())
            .map(|(_, s)| {
                s.as_ref()
                    .expect("scored")
                    .classes
                    .get(class)
                    .copied()
                    .unwrap_or(0)
            })
            .collect();
        println!("| {class} |{}", cells(row));
    }
    println!();
    println!(
        "False reports by name: htmlabs's verdict of the link (`found`, `off-site`, or no link it checks) and its value:"
    );
    for (i, tool) in TOOLS.iter().enumerate() {
        let Some(score) = &scores[i] else { continue };
        let planted: Vec<&str> = PLANTED
            .iter()
            .zip(&score.planted)
            .filter(|(p, f)| !p.broken && **f)
            .map(|(p, _)| p.name)
            .collect();
        if planted.is_empty() && score.false_reports.is_empty() {
            continue;
        }
        println!("- {}:", tool.name());
        for name in planted {
            println!("  - planted: {name}");
        }
        let mut kinds: Vec<_> = score.false_reports.iter().collect();
        kinds.sort_by(|a, b| b.1.0.cmp(&a.1.0).then(a.0.cmp(b.0)));
        let shown = common::env_number("HTMLABS_CHECK_SHOWN", 12).min(kinds.len());
        for (kind, (n, pages)) in &kinds[..shown] {
            let first = pages.first().map_or("?", String::as_str);
            let more = match pages.len() {
                1 => String::new(),
                n => format!(" and {} more", n - 1),
            };
            println!("  - {n}× {kind}, in copies of {first}{more}");
        }
        if kinds.len() > shown {
            let rest: usize = kinds[shown..].iter().map(|(_, (n, _))| n).sum();
            println!(
                "  - and {rest} more, of {} other values",
                kinds.len() - shown
            );
        }
    }
}

/// The engine's floor beside hyperlink and htmlabs, CPU seconds.
fn print_floor(floor: &[Run], runs: &[Vec<Run>]) {
    let cpu = |runs: &[Run]| median(runs.iter().map(|r| r.cpu).collect());
    let wall: Vec<f64> = floor.iter().map(|r| r.wall).collect();
    let (fast, slow) = spread(wall.iter().copied());
    print!(
        "The page engine alone (lol_html, one handler on every element, nothing resolved, \
         checked or kept; one thread): wall {:.3} s ({fast:.3}–{slow:.3}), CPU {:.3} s, peak RSS {:.1} MiB",
        median(wall),
        cpu(floor),
        median(floor.iter().map(|r| r.peak_kib as f64 / 1024.0).collect()),
    );
    for tool in [Tool::Htmlabs1, Tool::Hyperlink] {
        let i = index(tool);
        if !runs[i].is_empty() {
            print!(
                "; {:.0}% of {}'s CPU",
                100.0 * cpu(floor) / cpu(&runs[i]),
                tool.name()
            );
        }
    }
    println!();
}

fn short(tool: Tool) -> &'static str {
    match tool {
        Tool::Htmlabs1 => "htmlabs -j1",
        Tool::HtmlabsAll => "htmlabs",
        Tool::Lychee => "lychee",
        Tool::Hyperlink => "hyperlink",
        Tool::HtmlProofer => "html-proofer",
        Tool::LinkChecker => "linkchecker",
    }
}

fn index(tool: Tool) -> usize {
    TOOLS.iter().position(|&t| t == tool).expect("a tool")
}
