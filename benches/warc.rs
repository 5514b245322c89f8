//! `cargo bench --bench warc`: a ~100 MB `.warc.gz` made from the corpus
//! pages, rewritten by `htmlabs --warc IN -o OUT` (conversion mode) at
//! `--jobs 1` and `--jobs 2` (new records at the default gzip level, 1),
//! and at `--jobs 1 --gzip-level 6` (zlib's default, wget's), beside, in
//! the same run:
//!
//! - the floor, `zcat IN | gzip -1 > /dev/null`: every byte decompressed
//!   and compressed again, the least a tool that recompresses must do;
//! - FastWARC (`benches/warc_fastwarc.py`) reading every record and all of
//!   its content: the fastest WARC reader in Python, reading alone;
//! - the script a user would write today (`benches/warc_lxml.py`): warcio
//!   iterating the records, lxml's `make_links_absolute` on each HTML
//!   response, its records copied and a `conversion` record written after
//!   each page by warcio's `WARCWriter`;
//! - the archive saved as a tree of files (`htmlabs --warc IN --out-dir
//!   DIR`), beside the script that does it with warcio and lxml
//!   (`benches/tree_lxml.py`).
//!
//! The archive is generated from the real pages of `../shared/corpus/pages`
//! (required: without them the bench says so and fails), in the shape GNU
//! wget writes (`../shared/corpus/warc/corpus-wget.warc.gz`): a `warcinfo`,
//! then for each page a `request`, its `response` and a `metadata` record,
//! WARC/1.0, one gzip member per record, true digests (`warcio check`
//! passes it). The corpus is crawled again and again, a day apart, until
//! the archive reaches its size. A quarter of the HTML responses is sent
//! as it is, a quarter gzip-encoded, a quarter chunked, a quarter both
//! (their `Content-Encoding` and `Transfer-Encoding` true to their bodies);
//! beside every third page an image (incompressible bytes), beside every
//! fifth a stylesheet (gzip-encoded), each with its request. It is made once and kept under `target/bench-warc/`, named
//! by its size and a digest of the pages and this generator's version.
//!
//! The `--jobs 2` run is given `-v`, whose last line says the CPU time of
//! the thread that reads the archive for all the others and of the one
//! that writes the output: their shares of a `--jobs 1` run's CPU time are
//! what more cores cannot divide, and the bench gives, by Amdahl's law
//! from the larger, what 16 and 64 cores could make of it.
//!
//! Each round runs every way once, starting at a different one, so that the
//! noise of a shared machine hits all alike; a figure is the median of the
//! rounds, a ratio the median of the rounds' own ratios. MB/s are of the
//! compressed input (MB = 10^6 bytes). CPU seconds are the children's user
//! and system time (`getrusage`): both sides of the floor's pipe, Python's.
//! Outputs go to the temporary directory and are removed after each run;
//! `-o` puts its file on the disk before renaming it into place (fsync),
//! the script does not.
//!
//! The Python rows run in `HTMLABS_WARC_PYTHON`, else in the virtual
//! environment `.ci/run` makes (`target/warc-venv`: warcio, FastWARC, lxml),
//! else in `python3`; a row whose modules are missing is left out with a
//! one-line note. The binary may not take `--jobs` with `--warc` (the
//! parallel work comes in its own change): then it runs once, as it is, and
//! a note says so.
//!
//! `HTMLABS_BENCH_ROUNDS` sets the rounds (default 5),
//! `HTMLABS_BENCH_WARC_MB` the archive's size (default 100), `HTMLABS_BIN`
//! another binary.

mod common;

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use flate2::Compression;
use flate2::write::GzEncoder;
use sha1::Digest as _;

use common::{Page, Run, fail, load, median, spread};

/// Bump when the archive's shape changes: the kept one is made again.
const GENERATOR: u32 = 1;
/// A crawl's first day, 2026-01-01, in seconds since the epoch.
const FIRST_DAY: u64 = 1_767_225_600;

/// The ways the archive is read, in the order of the table.
#[derive(Clone, Copy, PartialEq)]
enum Way {
    Jobs1,
    Jobs2,
    /// `--jobs 1 --gzip-level 6`: new records at the level wget writes.
    Level6,
    Floor,
    FastWarc,
    Script,
    /// `--out-dir`: the archive saved as a tree of files (`--jobs 1`
    /// where the binary takes it).
    Tree,
    /// The same, `--jobs 2`.
    Tree2,
    /// The script that saves a tree with warcio and lxml.
    TreeScript,
}

fn main() {
    let (work, _cleanup) = common::work("warc", None);
    let corpus = common::corpus_or_exit("the archive");
    let rounds = common::env_number("HTMLABS_BENCH_ROUNDS", 5);
    let megabytes = common::env_number("HTMLABS_BENCH_WARC_MB", 100);
    let bin = common::binary();
    fs::create_dir_all(work)
        .unwrap_or_else(|e| fail(&format!("cannot make `{}`: {e}", work.display())));
    let pages = common::pages(&corpus);
    let archive = archive(&pages, megabytes);
    let mb = archive.len as f64 / 1e6;

    let mut notes = Vec::new();
    let jobs = takes(&bin, work, &["--jobs", "2"]);
    let level = takes(&bin, work, &["--gzip-level", "6"]);
    if !jobs {
        notes.push(
            "this binary takes no --jobs with --warc: its row is `htmlabs --warc` as it is, \
             and the --jobs 2 row is left out"
                .to_owned(),
        );
    }
    let python = python();
    let fastwarc = imports(&python, "fastwarc", &mut notes);
    let script = imports(&python, "warcio, lxml.html", &mut notes);
    let floor = ["zcat", "gzip"].iter().all(|tool| {
        let found = on_path(tool);
        if !found {
            notes.push(format!("the floor is left out: `{tool}` is not installed"));
        }
        found
    });
    let tree_jobs = saves_trees(&bin, work, &["--jobs", "1"]);
    let ways: Vec<Way> = [
        (Way::Jobs1, true),
        (Way::Jobs2, jobs),
        (Way::Level6, jobs && level),
        (Way::Floor, floor),
        (Way::FastWarc, fastwarc),
        (Way::Script, script),
        (Way::Tree, saves_trees(&bin, work, &[])),
        (Way::Tree2, saves_trees(&bin, work, &["--jobs", "2"])),
        (Way::TreeScript, script),
    ]
    .into_iter()
    .filter_map(|(way, there)| there.then_some(way))
    .collect();
    let name = |way: Way| match way {
        Way::Jobs1 if jobs => "htmlabs --warc --jobs 1".to_owned(),
        Way::Jobs1 => "htmlabs --warc".to_owned(),
        Way::Jobs2 => "htmlabs --warc --jobs 2".to_owned(),
        Way::Level6 => "htmlabs --warc --jobs 1 --gzip-level 6".to_owned(),
        Way::Floor => "floor: zcat IN | gzip -1 > /dev/null".to_owned(),
        Way::FastWarc => format!(
            "FastWARC {}: every record read",
            version(&python, "fastwarc")
        ),
        Way::Script => format!(
            "warcio {} + lxml {}: make_links_absolute, conversion records",
            version(&python, "warcio"),
            version(&python, "lxml")
        ),
        Way::Tree if tree_jobs => {
            "htmlabs --warc --out-dir --jobs 1: a tree of files, links relative".to_owned()
        }
        Way::Tree => "htmlabs --warc --out-dir: a tree of files, links relative".to_owned(),
        Way::Tree2 => "htmlabs --warc --out-dir --jobs 2".to_owned(),
        Way::TreeScript => format!(
            "warcio {} + lxml {}: a tree of files, rewrite_links to relative paths",
            version(&python, "warcio"),
            version(&python, "lxml")
        ),
    };

    println!(
        "## htmlabs --warc: a generated crawl, {}",
        common::machine()
    );
    println!();
    println!(
        "{} ({mb:.1} MB compressed, {} records, {} HTML responses, made from {} corpus pages); \
         {rounds} rounds; load average at the start: {}",
        archive.path.display(),
        archive.records,
        archive.html,
        pages.len(),
        load()
    );
    println!();
    for note in &notes {
        println!("note: {note}");
    }
    if !notes.is_empty() {
        println!();
    }

    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); ways.len()];
    // The CPU seconds of the thread that reads the archive and of the one
    // that writes the output, in each round's --jobs 2 run (its `-v` line).
    let mut reading: Vec<(f64, f64)> = Vec::new();
    // What each way wrote, in MB (the same every round).
    let mut written: Vec<Option<f64>> = vec![None; ways.len()];
    for round in 0..rounds {
        for k in 0..ways.len() {
            let i = (round + k) % ways.len();
            let way = ways[i];
            let out = work.join(format!("out-{i}.warc.gz"));
            let mut command = match way {
                Way::Jobs1 | Way::Jobs2 | Way::Level6 => {
                    let mut command = Command::new(&bin);
                    command.arg("--warc").arg(&archive.path).arg("-o").arg(&out);
                    if jobs {
                        command.args(["--jobs", if way == Way::Jobs2 { "2" } else { "1" }]);
                    }
                    if way == Way::Jobs2 {
                        // Its last line: the reading and writing threads' CPU time.
                        command.arg("-v");
                    }
                    if way == Way::Level6 {
                        command.args(["--gzip-level", "6"]);
                    }
                    command
                }
                Way::Floor => {
                    let mut command = Command::new("bash");
                    command
                        .args([
                            "-c",
                            "set -o pipefail; zcat \"$1\" | gzip -1 > /dev/null",
                            "floor",
                        ])
                        .arg(&archive.path);
                    command
                }
                Way::FastWarc => {
                    let mut command = Command::new(&python);
                    command
                        .arg(bench_file("warc_fastwarc.py"))
                        .arg(&archive.path);
                    command
                }
                Way::Script => {
                    let mut command = Command::new(&python);
                    command
                        .arg(bench_file("warc_lxml.py"))
                        .arg(&archive.path)
                        .arg(&out);
                    command
                }
                Way::Tree | Way::Tree2 => {
                    let mut command = Command::new(&bin);
                    command
                        .arg("--warc")
                        .arg(&archive.path)
                        .arg("--out-dir")
                        .arg(work.join(format!("tree-{i}")));
                    if way == Way::Tree2 {
                        command.args(["--jobs", "2"]);
                    } else if tree_jobs {
                        command.args(["--jobs", "1"]);
                    }
                    command
                }
                Way::TreeScript => {
                    let mut command = Command::new(&python);
                    command
                        .arg(bench_file("tree_lxml.py"))
                        .arg(&archive.path)
                        .arg(work.join(format!("tree-{i}")));
                    command
                }
            };
            let (run, mut said, stderr) = timed(&mut command);
            let tree = work.join(format!("tree-{i}"));
            if matches!(way, Way::Tree | Way::Tree2) {
                // Its standard output lists the URLs: the summary is the
                // last line of its standard error.
                said = stderr.lines().last().unwrap_or_default().to_owned();
            }
            if tree.exists() {
                fs::remove_dir_all(&tree)
                    .unwrap_or_else(|e| fail(&format!("cannot remove `{}`: {e}", tree.display())));
            }
            if way == Way::Jobs2 {
                reading.push(reading_cpu(&stderr));
            }
            if round == 0 {
                check(way, &said, &archive);
                println!("{}: {}", name(way), said.trim());
            }
            runs[i].push(run);
            if let Ok(meta) = fs::metadata(&out) {
                written[i] = Some(meta.len() as f64 / 1e6);
            }
            if out.exists() {
                fs::remove_file(&out)
                    .unwrap_or_else(|e| fail(&format!("cannot remove `{}`: {e}", out.display())));
            }
        }
        eprintln!("warc bench: round {} of {rounds} done", round + 1);
    }
    println!();

    let mut table = String::from(
        "| way | MB/s | wall s: median (fastest–slowest) | CPU s | CPU s per MB | MB written |\n\
         | --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for (i, &way) in ways.iter().enumerate() {
        let wall = median(runs[i].iter().map(|r| r.wall).collect());
        let cpu = median(runs[i].iter().map(|r| r.cpu).collect());
        let (fast, slow) = spread(runs[i].iter().map(|r| r.wall));
        let _ = writeln!(
            table,
            "| {} | {:.1} | {wall:.2} ({fast:.2}–{slow:.2}) | {cpu:.2} | {:.4} | {} |",
            // A `|` in a way's name would end the cell.
            name(way).replace('|', "\\|"),
            mb / wall,
            cpu / mb,
            written[i].map_or("–".to_owned(), |w| format!("{w:.1}")),
        );
    }
    println!("{table}");
    // The median over the rounds of `of(a's run) / of(b's run)`, when both
    // ways ran.
    let ratio = |a: Way, b: Way, of: fn(&Run) -> f64| {
        let (a, b) = (
            ways.iter().position(|&w| w == a)?,
            ways.iter().position(|&w| w == b)?,
        );
        Some(median(
            (0..rounds)
                .map(|r| of(&runs[a][r]) / of(&runs[b][r]))
                .collect(),
        ))
    };
    let wall = |r: &Run| r.wall;
    let cpu = |r: &Run| r.cpu;
    let verdict = |met: bool| if met { "met" } else { "NOT met" };
    let jobs1 = name(Way::Jobs1);
    if let Some(over) = ratio(Way::Script, Way::Jobs1, wall) {
        println!(
            "{jobs1} ÷ warcio + lxml, speed: {over:.1}× (target ≥ 5×: {})",
            verdict(over >= 5.0)
        );
    }
    if let Some(over) = ratio(Way::TreeScript, Way::Tree, wall) {
        println!("htmlabs --warc --out-dir ÷ warcio + lxml saving a tree, speed: {over:.1}×");
    }
    if let Some(over) = ratio(Way::TreeScript, Way::Tree, cpu) {
        println!(
            "htmlabs --warc --out-dir ÷ warcio + lxml saving a tree, CPU time: {over:.1}× less"
        );
    }
    if let Some(over) = ratio(Way::Tree, Way::Tree2, wall) {
        println!("htmlabs --warc --out-dir, --jobs 2 ÷ --jobs 1, speed: {over:.2}×");
    }
    if let Some(over) = ratio(Way::Script, Way::Jobs2, wall) {
        println!("htmlabs --warc --jobs 2 ÷ warcio + lxml, speed: {over:.1}×");
    }
    if let Some(share) = ratio(Way::Jobs1, Way::Floor, cpu) {
        println!(
            "{jobs1} ÷ the floor, CPU time: {share:.2}× (target ≤ 1.0×: {})",
            verdict(share <= 1.0)
        );
    }
    if let Some(share) = ratio(Way::Level6, Way::Floor, cpu) {
        println!("htmlabs --warc --jobs 1 --gzip-level 6 ÷ the floor, CPU time: {share:.2}×");
    }
    if let Some(over) = ratio(Way::FastWarc, Way::Jobs1, wall) {
        println!("{jobs1} ÷ FastWARC reading alone, speed: {over:.2}×");
    }
    if let Some(speedup) = ratio(Way::Jobs1, Way::Jobs2, wall) {
        println!(
            "--jobs 2 ÷ --jobs 1, speed (wall time): {speedup:.2}× (target ≥ 1.8×: {})",
            verdict(speedup >= 1.8)
        );
    }
    if let Some(cost) = ratio(Way::Jobs2, Way::Jobs1, cpu) {
        println!("--jobs 2 ÷ --jobs 1, CPU time: {cost:.2}× (parallel work should cost no more)");
    }
    if let (Some(one), false) = (
        ways.iter().position(|&w| w == Way::Jobs1),
        reading.is_empty(),
    ) {
        // What one thread does for all, as a share of the work: the
        // reading thread's, and the writing thread's beside it (the two
        // work at once, so the larger bounds the run).
        let share = |of: fn(&(f64, f64)) -> f64| {
            median(
                (0..rounds)
                    .map(|r| of(&reading[r]) / runs[one][r].cpu)
                    .collect(),
            )
        };
        let (read, write) = (share(|t| t.0), share(|t| t.1));
        let s = read.max(write);
        let amdahl = |n: f64| 1.0 / (s + (1.0 - s) / n);
        println!(
            "the reading thread's CPU (--jobs 2) ÷ {jobs1}'s CPU: {:.1}% (target ≤ 3%: {}); \
             the writing thread's: {:.1}%; by Amdahl's law at most {:.1}× on 16 cores, \
             {:.1}× on 64, {:.1}× on any number",
            read * 100.0,
            verdict(read <= 0.03),
            write * 100.0,
            amdahl(16.0),
            amdahl(64.0),
            1.0 / s
        );
    }
    println!("(each ratio: the median of the rounds' own ratios)");
    println!();
    println!("load average at the end: {}", load());
}

/// What a run said, checked in the first round against what the archive
/// holds: every way saw every record (htmlabs's summary, the scripts' counts).
fn check(way: Way, said: &str, archive: &Archive) {
    let numbers: Vec<u64> = said
        .split(|c: char| !c.is_ascii_digit())
        .filter(|n| !n.is_empty())
        .filter_map(|n| n.parse().ok())
        .collect();
    let (records, html) = match way {
        Way::Jobs1 | Way::Jobs2 | Way::Level6 => (numbers.first(), None),
        Way::FastWarc => (numbers.first(), None),
        Way::Script => (numbers.first(), numbers.get(1)),
        Way::Tree | Way::Tree2 | Way::TreeScript => (numbers.first(), None),
        Way::Floor => return,
    };
    if records != Some(&archive.records) || html.is_some_and(|&h| h != archive.html) {
        fail(&format!(
            "the archive has {} records, {} HTML responses; a run said: {}",
            archive.records,
            archive.html,
            said.trim()
        ));
    }
}

/// The generated archive, kept under `target/bench-warc/`.
struct Archive {
    path: PathBuf,
    len: u64,
    records: u64,
    html: u64,
}

/// The archive of about `megabytes` MB, made unless it is kept already.
fn archive(pages: &[Page], megabytes: usize) -> Archive {
    let mut key = sha1::Sha1::new();
    key.update(format!("{GENERATOR} {megabytes}\n"));
    for page in pages {
        key.update(format!(
            "{}\t{}\t{}\n",
            page.name,
            page.url,
            page.bytes.len()
        ));
        key.update(&page.bytes);
    }
    let key = data_encoding::HEXLOWER.encode(&key.finalize()[..6]);
    let dir = target_dir().join("bench-warc");
    let path = dir.join(format!("corpus-{megabytes}MB-{key}.warc.gz"));
    let counts = path.with_extension("counts");
    let kept = fs::read_to_string(&counts).ok().and_then(|text| {
        let (records, html) = text.trim().split_once(' ')?;
        Some((records.parse().ok()?, html.parse().ok()?))
    });
    if let (Some((records, html)), Ok(meta)) = (kept, fs::metadata(&path)) {
        return Archive {
            len: meta.len(),
            path,
            records,
            html,
        };
    }
    eprintln!("warc bench: making {}", path.display());
    fs::create_dir_all(&dir)
        .unwrap_or_else(|e| fail(&format!("cannot make `{}`: {e}", dir.display())));
    let partial = path.with_extension("partial");
    let file = File::create(&partial)
        .unwrap_or_else(|e| fail(&format!("cannot write `{}`: {e}", partial.display())));
    let mut crawl = Crawl {
        out: BufWriter::new(file),
        len: 0,
        records: 0,
        html: 0,
        time: FIRST_DAY,
    };
    crawl.record(
        "warcinfo",
        &[],
        "application/warc-fields",
        b"software: htmlabs benches/warc.rs\r\nformat: WARC File Format 1.0\r\n",
        None,
    );
    let target = megabytes as u64 * 1_000_000;
    let mut i = 0;
    while crawl.len < target {
        let day = i / pages.len();
        if i % pages.len() == 0 {
            crawl.time = FIRST_DAY + day as u64 * 86_400;
        }
        crawl.page(&pages[i % pages.len()], i);
        i += 1;
    }
    crawl
        .out
        .flush()
        .unwrap_or_else(|e| fail(&format!("cannot write `{}`: {e}", partial.display())));
    fs::write(&counts, format!("{} {}\n", crawl.records, crawl.html))
        .unwrap_or_else(|e| fail(&format!("cannot write `{}`: {e}", counts.display())));
    fs::rename(&partial, &path)
        .unwrap_or_else(|e| fail(&format!("cannot rename `{}`: {e}", partial.display())));
    Archive {
        path,
        len: crawl.len,
        records: crawl.records,
        html: crawl.html,
    }
}

/// The archive being written, a gzip member per record.
struct Crawl {
    out: BufWriter<File>,
    len: u64,
    records: u64,
    html: u64,
    /// The crawl's clock: a second a page.
    time: u64,
}

impl Crawl {
    /// Page `i` of the crawl: its request, response and metadata, and every
    /// third page an image, every fifth a stylesheet, each with its request.
    fn page(&mut self, page: &Page, i: usize) {
        self.time += 1;
        let (gzip, chunked) = (i % 2 == 1, i % 4 >= 2);
        let response = self.exchange(&page.url, "text/html", &page.bytes, gzip, chunked);
        self.html += 1;
        let fields = format!(
            "via: {}\r\nhopsFromSeed: L\r\nfetchTimeMs: {}\r\n",
            page.url,
            20 + i % 180
        );
        self.record(
            "metadata",
            &[
                ("WARC-Target-URI", format!("<{}>", page.url)),
                ("WARC-Concurrent-To", response),
            ],
            "application/warc-fields",
            fields.as_bytes(),
            None,
        );
        let dir = &page.url[..page.url.rfind('/').map_or(page.url.len(), |s| s + 1)];
        if i % 3 == 0 {
            let image = noise(i, 8 * 1024 + (i * 7919) % (24 * 1024));
            self.exchange(
                &format!("{dir}img-{i}.png"),
                "image/png",
                &image,
                false,
                false,
            );
        }
        if i % 5 == 0 {
            let css: String = (0..150)
                .map(|n| format!(".c{n} {{ background: url(img-{i}-{n}.png) no-repeat; }}\n"))
                .collect();
            self.exchange(
                &format!("{dir}site-{i}.css"),
                "text/css",
                css.as_bytes(),
                true,
                false,
            );
        }
    }

    /// A request and its response for `url`, the body sent with the codings
    /// asked for; returns the response's record ID.
    fn exchange(
        &mut self,
        url: &str,
        content_type: &str,
        body: &[u8],
        gzip: bool,
        chunked: bool,
    ) -> String {
        let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
        let (host, path) = rest.find('/').map_or((rest, "/"), |at| rest.split_at(at));
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: Wget/1.21.3\r\nAccept: */*\r\n\
             Accept-Encoding: gzip\r\nConnection: Keep-Alive\r\n\r\n"
        );
        let target = ("WARC-Target-URI", format!("<{url}>"));
        let request_id = self.record(
            "request",
            std::slice::from_ref(&target),
            "application/http;msgtype=request",
            request.as_bytes(),
            None,
        );
        let mut payload = if gzip { gzipped(body) } else { body.to_vec() };
        let mut head =
            format!("HTTP/1.1 200 OK\r\nServer: nginx\r\nContent-Type: {content_type}\r\n");
        if gzip {
            head.push_str("Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n");
        }
        if chunked {
            head.push_str("Transfer-Encoding: chunked\r\n");
            let mut coded = Vec::with_capacity(payload.len() + 64);
            for chunk in payload.chunks(16 * 1024) {
                coded.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
                coded.extend_from_slice(chunk);
                coded.extend_from_slice(b"\r\n");
            }
            coded.extend_from_slice(b"0\r\n\r\n");
            payload = coded;
        } else {
            let _ = write!(head, "Content-Length: {}\r\n", payload.len());
        }
        head.push_str("\r\n");
        let block = [head.as_bytes(), &payload].concat();
        self.record(
            "response",
            &[
                target,
                ("WARC-Concurrent-To", request_id),
                ("WARC-IP-Address", "192.0.2.80".to_owned()),
            ],
            "application/http;msgtype=response",
            &block,
            Some(&payload),
        )
    }

    /// Writes one record as a gzip member of its own; returns its ID. The
    /// payload digest is of the bytes after the HTTP header block, as they
    /// are (warcio's reading: `warcio check` verifies it so).
    fn record(
        &mut self,
        kind: &str,
        fields: &[(&str, String)],
        content_type: &str,
        block: &[u8],
        payload: Option<&[u8]>,
    ) -> String {
        self.records += 1;
        let id = format!("<urn:uuid:{}>", record_uuid(self.records));
        let date = humantime::format_rfc3339_seconds(
            SystemTime::UNIX_EPOCH + Duration::from_secs(self.time),
        );
        let mut head = format!(
            "WARC/1.0\r\nWARC-Type: {kind}\r\nWARC-Record-ID: {id}\r\nWARC-Date: {date}\r\n"
        );
        for (name, value) in fields {
            let _ = write!(head, "{name}: {value}\r\n");
        }
        let _ = write!(head, "WARC-Block-Digest: {}\r\n", sha1_field(block));
        if let Some(payload) = payload {
            let _ = write!(head, "WARC-Payload-Digest: {}\r\n", sha1_field(payload));
        }
        let _ = write!(
            head,
            "Content-Type: {content_type}\r\nContent-Length: {}\r\n\r\n",
            block.len()
        );
        let member = gzipped(&[head.as_bytes(), block, b"\r\n\r\n"].concat());
        self.out
            .write_all(&member)
            .unwrap_or_else(|e| fail(&format!("cannot write the archive: {e}")));
        self.len += member.len() as u64;
        id
    }
}

/// A record ID from the record's number: the same archive every time.
fn record_uuid(n: u64) -> uuid::Uuid {
    let sum = sha1::Sha1::digest(format!("benches/warc.rs record {n}"));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&sum[..16]);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

fn sha1_field(bytes: &[u8]) -> String {
    format!(
        "sha1:{}",
        data_encoding::BASE32.encode(&sha1::Sha1::digest(bytes))
    )
}

/// One gzip member, zlib's default level (as wget writes records), with no
/// time in its header (the same bytes every time).
fn gzipped(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = GzEncoder::new(Vec::with_capacity(bytes.len() / 3), Compression::default());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .unwrap_or_else(|e| fail(&format!("cannot compress: {e}")))
}

/// `len` bytes that do not compress, as an image's, the same for the same
/// `seed` (xorshift64), after a PNG signature.
fn noise(seed: usize, len: usize) -> Vec<u8> {
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ seed as u64;
    let mut bytes = b"\x89PNG\r\n\x1a\n".to_vec();
    while bytes.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        bytes.extend_from_slice(&state.to_le_bytes());
    }
    bytes.truncate(len);
    bytes
}

/// Whether the binary takes `flags` with `--warc`: it is run on an archive
/// of one record.
fn takes(bin: &Path, work: &Path, flags: &[&str]) -> bool {
    // In gzip: a level is refused for an archive of another compression.
    let input = work.join("one-record.warc.gz");
    let record = "WARC/1.0\r\nWARC-Type: warcinfo\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000000>\r\n\
                  WARC-Date: 2026-01-01T00:00:00Z\r\nContent-Length: 0\r\n\r\n\r\n\r\n";
    fs::write(&input, gzipped(record.as_bytes()))
        .unwrap_or_else(|e| fail(&format!("cannot write `{}`: {e}", input.display())));
    Command::new(bin)
        .args(["-q", "--warc"])
        .args(flags)
        .arg(&input)
        .arg("-o")
        .arg(work.join("one-record-out.warc.gz"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Whether the binary saves an archive as a tree (`--out-dir`) with
/// `args`.
fn saves_trees(bin: &Path, work: &Path, args: &[&str]) -> bool {
    // The archive `takes` writes.
    let _ = takes(bin, work, &[]);
    let tree = work.join("one-record-tree");
    let saved = Command::new(bin)
        .args(["-q", "--warc"])
        .arg(work.join("one-record.warc.gz"))
        .arg("--out-dir")
        .arg(&tree)
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    let _ = fs::remove_dir_all(&tree);
    saved
}

/// The Python the rows run in: `HTMLABS_WARC_PYTHON`, else the virtual
/// environment `.ci/run` makes, else `python3`.
fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("HTMLABS_WARC_PYTHON") {
        return PathBuf::from(python);
    }
    let venv = target_dir().join("warc-venv/bin/python");
    if venv.is_file() {
        return venv;
    }
    PathBuf::from("python3")
}

/// Whether `python` imports `modules`; if not, a note says which row is
/// left out.
fn imports(python: &Path, modules: &str, notes: &mut Vec<String>) -> bool {
    let ok = Command::new(python)
        .args(["-c", &format!("import {modules}")])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        notes.push(format!(
            "the row of {modules} is left out: `{}` cannot import it (.ci/run installs it into target/warc-venv)",
            python.display()
        ));
    }
    ok
}

fn version(python: &Path, package: &str) -> String {
    Command::new(python)
        .args([
            "-c",
            &format!("from importlib.metadata import version; print(version('{package}'))"),
        ])
        .output()
        .ok()
        .map(|out| String::from_utf8_lossy(&out.stdout).trim().to_owned())
        .unwrap_or_default()
}

fn on_path(tool: &str) -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()))
}

/// The target directory the bench was built in (its binary's grandparent).
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_htmlabs"))
        .ancestors()
        .nth(2)
        .expect("the binary lies in target/PROFILE/")
        .to_path_buf()
}

fn bench_file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join(name)
}

/// Runs a command to its end and times it; fails the bench if it fails.
/// Returns what it said: standard output, else the last line of standard
/// error (htmlabs's summary).
fn timed(command: &mut Command) -> (Run, String, String) {
    let (run, output) = common::timed(command.stdin(Stdio::null()));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let said = match stdout.trim() {
        "" => stderr
            .lines()
            .rfind(|line| !line.starts_with(READING))
            .unwrap_or_default()
            .to_owned(),
        said => said.to_owned(),
    };
    (run, said, stderr)
}

/// How `htmlabs -v` starts the line of the reading thread's CPU time.
const READING: &str = "htmlabs: the reading thread took ";

/// The reading thread's and the writing thread's CPU seconds, from a
/// `--jobs 2 -v` run's messages (`… took R of the run's A CPU s (P%), the
/// writing thread W (Q%): …`).
fn reading_cpu(stderr: &str) -> (f64, f64) {
    stderr
        .lines()
        .find_map(|line| line.strip_prefix(READING))
        .and_then(|rest| {
            let reading = rest.split(' ').next()?.parse().ok()?;
            let (_, after) = rest.split_once(", the writing thread ")?;
            let writing = after.split(' ').next()?.parse().ok()?;
            Some((reading, writing))
        })
        .unwrap_or_else(|| fail(&format!("no reading thread's line from -v in: {stderr}")))
}
