//! `cargo bench --bench site`: a static site of 10,000 pages rewritten by
//! `htmlabs --site`, at `--jobs 1` and `--jobs 2`, beside what users run
//! today: the single-document binary once per file from a shell loop, and
//! Eleventy's HTML base plugin.
//!
//! The site is generated from the real pages of `../shared/corpus/pages`
//! (required: without them the bench says so and fails): page `i` is corpus
//! page `i mod 179`, at one of three depths (`sec3/page28.html`,
//! `sec3/part1/page53.html`, `sec3/part1/p78/index.html`), with a `<nav>`
//! of relative links to other pages of the site put after its `<body>` tag.
//!
//! Every way writes a rewritten copy of the tree into a fresh directory
//! (`--out-dir`; the loop's `>` into a tree made beforehand; Eleventy's
//! output directory), so each round does the same work. None of them puts
//! each file on the disk before going on but `--fsync`, a row of its own. Each round runs
//! every way once, starting at a different one, so that the noise of a
//! shared machine hits all alike; a figure is the median of the rounds, a
//! ratio the median of the rounds' own ratios. Before each run, `sync`
//! (not timed) writes back what the run before left dirty. CPU seconds are the
//! children's user + system time (`getrusage`), which counts what the shell
//! loop's processes and Node take too.
//!
//! Eleventy (`@11ty/eleventy`, the version in `ELEVENTY`) is installed by
//! npm into a directory in the temporary directory, kept for the next run;
//! the bench fails if npm cannot install it or Eleventy fails. Eleventy
//! reads `.html` as Liquid templates, and ten corpus pages hold `{{`, so
//! it is configured to read HTML as it is (`htmlTemplateEngine: false`) and
//! to keep each file's path (a permalink of the input's own path).
//!
//! The tree and its copies are on a memory filesystem (`/dev/shm`) unless
//! `HTMLABS_BENCH_DIR` names another place: what is measured is the work
//! of each way, not the disk's. On a disk the kernel's part can outweigh
//! it: on this project's machine (ext4 without a journal), a file made
//! shortly after thousands were deleted, as each round deletes the copies
//! of the one before, makes ext4 search its inode table past the recently
//! deleted ones (`recently_deleted`, 45% of a `--jobs 2` run's samples
//! under `perf record`), under its directory's lock: system time went
//! from 2 to 8 s a run, and varied with the run before.
//!
//! `HTMLABS_BENCH_ROUNDS` sets the rounds (default 5),
//! `HTMLABS_SITE_PAGES` the pages (default 10,000), `HTMLABS_BIN` another
//! binary.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{File, Page, Run, fail, generate, median, spread};

const SITE_URL: &str = "https://example.com/";
/// Where the tree goes unless `HTMLABS_BENCH_DIR` says otherwise: a memory
/// filesystem, when the machine has one.
const MEMORY: &str = "/dev/shm";
const ELEVENTY: &str = "@11ty/eleventy@3.1.8";

/// The ways the site is rewritten, in the order of the table.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Jobs1,
    Jobs2,
    Fsync,
    /// `--relative`: the copy opens from the disk.
    Relative,
    Loop,
    Eleventy,
}

const WAYS: [Way; 6] = [
    Way::Jobs1,
    Way::Jobs2,
    Way::Fsync,
    Way::Relative,
    Way::Loop,
    Way::Eleventy,
];

impl Way {
    fn name(self) -> &'static str {
        match self {
            Way::Jobs1 => "htmlabs --site --jobs 1",
            Way::Jobs2 => "htmlabs --site --jobs 2",
            Way::Fsync => "htmlabs --site --jobs 2 --fsync",
            Way::Relative => "htmlabs --site --jobs 1 --relative",
            Way::Loop => "shell loop: htmlabs -r URL FILE > OUT per file",
            Way::Eleventy => "Eleventy 3, HTML base plugin",
        }
    }
}

fn main() {
    let (work, _cleanup) = common::work("site", Some(Path::new(MEMORY)));
    let corpus = common::corpus_or_exit("the site");
    let rounds = common::env_number("HTMLABS_BENCH_ROUNDS", 5);
    let count = common::env_number("HTMLABS_SITE_PAGES", 10_000);
    let bin = common::binary();
    let site = work.join("site");
    let eleventy = install_eleventy();
    let all = common::pages(&corpus);
    let refused = eleventy_refuses(&eleventy, work, &all);
    let pages: Vec<Page> = all
        .iter()
        .filter(|p| !refused.contains(&p.name))
        .cloned()
        .collect();
    let files = generate(&pages, count, &site);
    let bytes: u64 = files.iter().map(|f| f.len).sum();
    let script = shell_loop(work, &bin, &files);

    println!("## htmlabs --site: a generated site, {}", common::machine());
    println!();
    println!(
        "{count} pages, {:.1} MB (MB = 10^6 bytes), from {} corpus pages; {rounds} rounds; \
         load average at the start: {}; the tree in `{}`",
        bytes as f64 / 1e6,
        pages.len(),
        common::load(),
        work.display()
    );
    println!();
    println!(
        "Left out, because Eleventy's HTML base plugin stops the build on them: {}",
        if refused.is_empty() {
            "none".to_owned()
        } else {
            refused.join(", ")
        }
    );
    println!();

    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); WAYS.len()];
    for round in 0..rounds {
        for k in 0..WAYS.len() {
            let i = (round + k) % WAYS.len();
            let out = work.join(format!("out-{i}"));
            let run = match WAYS[i] {
                Way::Jobs1 => site_run(&bin, &site, &out, &["--jobs", "1"]),
                Way::Jobs2 => site_run(&bin, &site, &out, &["--jobs", "2"]),
                Way::Fsync => site_run(&bin, &site, &out, &["--jobs", "2", "--fsync"]),
                Way::Relative => site_run(&bin, &site, &out, &["--jobs", "1", "--relative"]),
                Way::Loop => {
                    make_dirs(&out, &files);
                    timed(Command::new("bash").arg(&script).arg(&site).arg(&out))
                }
                Way::Eleventy => eleventy_run(&eleventy, &site, &out),
            };
            if round == 0 {
                check_output(WAYS[i], &out, &files, &work.join("out-0"));
            }
            runs[i].push(run);
            // The first way's output is kept through the first round: the
            // others' are compared with it.
            if round > 0 || i != 0 {
                remove(&out);
            }
        }
        if round == 0 {
            remove(&work.join("out-0"));
        }
        eprintln!("site bench: round {} of {rounds} done", round + 1);
    }

    let mut table = String::from(
        "| way | pages/s | MB/s | wall s: median (fastest–slowest) | CPU s | of which system | CPU s per MB |\n\
         | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for (i, way) in WAYS.iter().enumerate() {
        let wall = median(runs[i].iter().map(|r| r.wall).collect());
        let cpu = median(runs[i].iter().map(|r| r.cpu).collect());
        let system = median(runs[i].iter().map(|r| r.system).collect());
        let (fast, slow) = spread(runs[i].iter().map(|r| r.wall));
        let _ = writeln!(
            table,
            "| {} | {:.0} | {:.1} | {wall:.2} ({fast:.2}–{slow:.2}) | {cpu:.2} | {system:.2} | {:.4} |",
            way.name(),
            count as f64 / wall,
            bytes as f64 / 1e6 / wall,
            cpu / (bytes as f64 / 1e6),
        );
    }
    println!("{table}");
    // How many times faster `a` was than `b`, round by round.
    let by_round = |a: Way, b: Way| -> Vec<f64> {
        let (a, b) = (index(a), index(b));
        (0..rounds)
            .map(|r| runs[b][r].wall / runs[a][r].wall)
            .collect()
    };
    let ratio = |a: Way, b: Way| median(by_round(a, b));
    let verdict = |value: f64, target: f64| if value >= target { "met" } else { "NOT met" };
    let speedup = ratio(Way::Jobs2, Way::Jobs1);
    let over_loop = ratio(Way::Jobs2, Way::Loop);
    let over_eleventy = ratio(Way::Jobs2, Way::Eleventy);
    println!(
        "--jobs 2 ÷ --jobs 1, wall time: {speedup:.2}× (target ≥ 1.8×: {})",
        verdict(speedup, 1.8)
    );
    println!(
        "--jobs 2 ÷ the shell loop: {over_loop:.1}× (target ≥ 3×: {}); --jobs 1 ÷ the loop: {:.1}×",
        verdict(over_loop, 3.0),
        ratio(Way::Jobs1, Way::Loop)
    );
    println!(
        "--jobs 2 ÷ Eleventy's HTML base plugin: {over_eleventy:.1}× (target ≥ 10×: {})",
        verdict(over_eleventy, 10.0)
    );
    // The relative copy's cost, round by round against the absolute one's.
    let relative_cpu = median(
        (0..rounds)
            .map(|r| runs[index(Way::Relative)][r].cpu / runs[index(Way::Jobs1)][r].cpu)
            .collect(),
    );
    let relative_wall = 1.0 / ratio(Way::Relative, Way::Jobs1);
    println!(
        "--relative ÷ the absolute copy (--jobs 1 both): {relative_wall:.3}× the wall time, \
         {relative_cpu:.3}× the CPU time (target ≤ 1.10×: {})",
        if relative_wall <= 1.10 {
            "met"
        } else {
            "NOT met"
        }
    );
    let rounds_of = by_round(Way::Jobs2, Way::Jobs1)
        .iter()
        .map(|r| format!("{r:.2}"))
        .collect::<Vec<_>>()
        .join(", ");
    println!(
        "(each ratio: the median of the rounds' own ratios of wall time; --jobs 2 ÷ --jobs 1 \
         round by round: {rounds_of})"
    );
}

/// The shell loop users write today, one process per page, its retrieval
/// URL from its path (an `index.html` served at its directory).
fn shell_loop(work: &Path, bin: &Path, files: &[File]) -> PathBuf {
    let list = work.join("pages.txt");
    let names: String = files.iter().map(|f| format!("{}\n", f.path)).collect();
    fs::write(&list, names).unwrap_or_else(|e| fail(&format!("cannot write the list: {e}")));
    let script = work.join("loop.sh");
    let text = format!(
        "set -e\ncd \"$1\"\nout=\"$2\"\n\
         while IFS= read -r f; do\n  \
         url=\"{SITE_URL}${{f%index.html}}\"\n  \
         '{}' -q -r \"$url\" \"$f\" > \"$out/$f\"\n\
         done < '{}'\n",
        bin.display(),
        list.display()
    );
    fs::write(&script, text).unwrap_or_else(|e| fail(&format!("cannot write the loop: {e}")));
    script
}

/// The loop's output directories, made before it is timed (users rewrite in
/// place and need none).
fn make_dirs(out: &Path, files: &[File]) {
    for file in files {
        let dir = out.join(&file.path);
        fs::create_dir_all(dir.parent().expect("a page has a directory"))
            .unwrap_or_else(|e| fail(&format!("cannot make `{}`: {e}", dir.display())));
    }
}

fn site_run(bin: &Path, site: &Path, out: &Path, flags: &[&str]) -> Run {
    timed(
        Command::new(bin)
            .args(["-q", "--site"])
            .arg(site)
            .args(["--site-url", SITE_URL])
            .args(flags)
            .arg("--out-dir")
            .arg(out),
    )
}

/// Installs Eleventy with npm (once; kept in the temporary directory) and
/// writes its configuration; returns the directory to run it in.
fn install_eleventy() -> PathBuf {
    let dir = std::env::temp_dir().join("htmlabs-bench-eleventy");
    let installed = dir.join("node_modules/@11ty/eleventy/cmd.cjs");
    if !installed.is_file() {
        eprintln!("site bench: npm install {ELEVENTY} into {}", dir.display());
        fs::create_dir_all(&dir)
            .unwrap_or_else(|e| fail(&format!("cannot make `{}`: {e}", dir.display())));
        fs::write(dir.join("package.json"), "{\"private\": true}\n")
            .unwrap_or_else(|e| fail(&format!("cannot write package.json: {e}")));
        let status = Command::new("npm")
            .args([
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                ELEVENTY,
            ])
            .current_dir(&dir)
            .stdout(Stdio::null())
            .status()
            .unwrap_or_else(|e| fail(&format!("cannot run npm: {e}")));
        if !status.success() || !installed.is_file() {
            fail(&format!("npm could not install {ELEVENTY} ({status})"));
        }
    }
    let config = format!(
        "import {{ HtmlBasePlugin }} from \"@11ty/eleventy\";\n\
         export default function (eleventyConfig) {{\n  \
         eleventyConfig.addPlugin(HtmlBasePlugin, {{ baseHref: \"{SITE_URL}\" }});\n  \
         // Each page where it was: sec3/page28.html, not sec3/page28/index.html.\n  \
         eleventyConfig.addGlobalData(\"permalink\", () => (data) =>\n    \
         `${{data.page.filePathStem}}.${{data.page.outputFileExtension}}`);\n  \
         eleventyConfig.setQuietMode(true);\n\
         }}\n\
         // HTML as it is: not a Liquid template (ten corpus pages hold `{{{{`).\n\
         export const config = {{ templateFormats: [\"html\"], htmlTemplateEngine: false }};\n"
    );
    fs::write(dir.join("eleventy.config.mjs"), config)
        .unwrap_or_else(|e| fail(&format!("cannot write Eleventy's configuration: {e}")));
    dir
}

/// Eleventy, run in the directory that holds `site` and `out` (given by
/// relative paths: Eleventy names its output by the input's path).
fn eleventy(dir: &Path, site: &Path, out: &Path) -> Command {
    let mut command = Command::new("node");
    command
        .arg(dir.join("node_modules/@11ty/eleventy/cmd.cjs"))
        .arg(format!(
            "--config={}",
            dir.join("eleventy.config.mjs").display()
        ))
        .arg(format!("--input={}", name(site)))
        .arg(format!("--output={}", name(out)))
        .arg("--quiet")
        .env("NODE_OPTIONS", "--max-old-space-size=16000")
        .current_dir(
            site.parent()
                .expect("the site lies in the bench's directory"),
        );
    command
}

fn name(path: &Path) -> String {
    path.file_name()
        .expect("a named directory")
        .to_string_lossy()
        .into_owned()
}

fn eleventy_run(dir: &Path, site: &Path, out: &Path) -> Run {
    timed(&mut eleventy(dir, site, out))
}

/// The corpus pages Eleventy's HTML base plugin stops the build on (a
/// `new URL` that throws, e.g. on `https://`): Eleventy is run over the
/// corpus, and the page its error names is taken out, until it passes.
fn eleventy_refuses(dir: &Path, work: &Path, pages: &[Page]) -> Vec<String> {
    let (site, out) = (work.join("corpus"), work.join("corpus-out"));
    fs::create_dir_all(&site)
        .unwrap_or_else(|e| fail(&format!("cannot make `{}`: {e}", site.display())));
    for page in pages {
        fs::write(site.join(&page.name), &page.bytes)
            .unwrap_or_else(|e| fail(&format!("cannot write `{}`: {e}", page.name)));
    }
    let mut refused = Vec::new();
    loop {
        let output = eleventy(dir, &site, &out)
            .output()
            .unwrap_or_else(|e| fail(&format!("cannot run Eleventy: {e}")));
        if output.status.success() {
            break;
        }
        let error = String::from_utf8_lossy(&output.stderr);
        let named = pages
            .iter()
            .find(|p| !refused.contains(&p.name) && error.contains(&format!("{}\"", p.name)));
        match named {
            Some(page) if refused.len() < pages.len() / 10 => {
                refused.push(page.name.clone());
                fs::remove_file(site.join(&page.name))
                    .unwrap_or_else(|e| fail(&format!("cannot remove `{}`: {e}", page.name)));
            }
            _ => fail(&format!(
                "Eleventy fails on the corpus ({}): {}",
                output.status,
                error.trim()
            )),
        }
    }
    remove(&site);
    remove(&out);
    refused
}

/// In the first round: every page is there; htmlabs's three ways wrote the
/// same bytes (whatever the order of the work); Eleventy's pages are named.
fn check_output(way: Way, out: &Path, files: &[File], first: &Path) {
    // Eleventy's and the relative copy's links are other than the first's.
    let compare = !matches!(way, Way::Eleventy | Way::Relative) && way != WAYS[0] && first.is_dir();
    for file in files {
        let written = out.join(&file.path);
        let Ok(bytes) = fs::read(&written) else {
            fail(&format!("{}: no `{}` in its output", way.name(), file.path));
        };
        if compare && fs::read(first.join(&file.path)).ok().as_ref() != Some(&bytes) {
            fail(&format!(
                "{} wrote `{}` otherwise than {}",
                way.name(),
                file.path,
                WAYS[0].name()
            ));
        }
    }
}

fn index(way: Way) -> usize {
    WAYS.iter()
        .position(|&w| w == way)
        .expect("a way of the table")
}

/// Runs a command to its end and times it; fails the bench if it fails.
fn timed(command: &mut Command) -> Run {
    common::timed(command.stdout(Stdio::null())).0
}

fn remove(dir: &Path) {
    if dir.exists() {
        fs::remove_dir_all(dir)
            .unwrap_or_else(|e| fail(&format!("cannot remove `{}`: {e}", dir.display())));
    }
}
