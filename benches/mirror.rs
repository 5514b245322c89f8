//! `cargo bench --bench mirror`: a site mirrored by wget and made to open
//! from the disk, by wget's own conversion (`-k`) and by `htmlabs --site
//! --relative` on the mirror wget made without it.
//!
//! The site is the site bench's (`common::generate`: corpus pages at three
//! depths, each with a `<nav>` of relative links to others), of
//! `HTMLABS_SITE_PAGES` pages (default 2,000), served on 127.0.0.1 by
//! `tests/http_server.py --site` (Python's http.server). Each round runs
//! `wget --mirror --page-requisites --adjust-extension` twice, without `-k`
//! and with it, one after the other (the order alternating round by
//! round), each into a fresh directory: the pair's difference is wget's
//! conversion, and wget also says how long its conversion took
//! (`Converted links in N files in S seconds.`, its own clock, wall time).
//! Then `htmlabs --site MIRROR --site-url URL --relative` rewrites the
//! mirror wget made without `-k` in place, as `-k` does its own, at
//! `--jobs 1` and `--jobs 2`, each on a copy of its own (made untimed).
//!
//! The corpus pages' own relative links name pages the site lacks: wget
//! asks for each (a 404) in both runs of a pair, and `-k` makes them
//! absolute, as htmlabs does. CPU seconds are the children's user + system
//! time (wget's, htmlabs's), not the server's. A figure is the median of
//! the rounds; the pair's difference, round by round. The trees are on a
//! memory filesystem (`/dev/shm`) unless `HTMLABS_BENCH_DIR` names another
//! place.
//!
//! `HTMLABS_BENCH_ROUNDS` sets the rounds (default 3), `HTMLABS_BIN`
//! another binary. Needs wget and `../shared`.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Instant;

use common::{Run, children_cpu, fail, generate, median, spread};

/// Where the trees go unless `HTMLABS_BENCH_DIR` says otherwise.
const MEMORY: &str = "/dev/shm";

/// The flags of both wget runs; the second adds `-k`.
const WGET: [&str; 4] = [
    "--no-config",
    "--mirror",
    "--page-requisites",
    "--adjust-extension",
];

/// `tests/http_server.py --site`, serving the site until dropped.
struct Server {
    child: Child,
    port: u16,
}

impl Server {
    fn start(site: &Path) -> Server {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/http_server.py");
        let mut child = Command::new("python3")
            .arg(script)
            .arg("--site")
            .arg(site)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| fail(&format!("cannot run tests/http_server.py: {e}")));
        let mut line = String::new();
        let _ = std::io::BufReader::new(child.stdout.take().expect("piped")).read_line(&mut line);
        let port = line
            .trim()
            .parse()
            .unwrap_or_else(|_| fail(&format!("the server printed no port: `{line}`")));
        Server { child, port }
    }
}

impl Drop for Server {
    /// It ends when its standard input closes.
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

fn main() {
    let (work, _cleanup) = common::work("mirror", Some(Path::new(MEMORY)));
    let corpus = common::corpus_or_exit("the site");
    let rounds = common::env_number("HTMLABS_BENCH_ROUNDS", 3);
    let count = common::env_number("HTMLABS_SITE_PAGES", 2_000);
    let bin = common::binary();
    if Command::new("wget").arg("--version").output().is_err() {
        fail("wget is not installed");
    }
    let site = work.join("site");
    let files = generate(&common::pages(&corpus), count, &site);
    let bytes: u64 = files.iter().map(|f| f.len).sum();
    let server = Server::start(&site);
    let host = format!("127.0.0.1:{}", server.port);
    let url = format!("http://{host}/");

    println!(
        "## a wget mirror made to open from the disk, {}",
        common::machine()
    );
    println!();
    println!(
        "{count} pages, {:.1} MB (MB = 10^6 bytes); {rounds} rounds; load average at the start: {}; \
         the trees in `{}`",
        bytes as f64 / 1e6,
        common::load(),
        work.display()
    );
    println!();

    let (mut plain, mut convert, mut own_clock) = (Vec::new(), Vec::new(), Vec::new());
    let mut relative: [Vec<Run>; 2] = [Vec::new(), Vec::new()];
    let mut saved = (0, 0);
    for round in 0..rounds {
        let order = match round % 2 {
            0 => [false, true],
            _ => [true, false],
        };
        for k in order {
            let dir = work.join(if k { "wget-k" } else { "wget" });
            remove(&dir);
            fs::create_dir_all(&dir)
                .unwrap_or_else(|e| fail(&format!("cannot make a mirror: {e}")));
            let log = work.join("wget.log");
            let mut command = Command::new("wget");
            command
                .current_dir(&dir)
                .args(WGET)
                .args(if k { &["-k"][..] } else { &[] })
                .arg("--output-file")
                .arg(&log)
                .arg(&url)
                // Its `pathconf: Not a directory` for a link through a
                // page's name (`page28.html/x`): the log has the rest.
                .stderr(Stdio::null());
            let run = wget_run(&mut command, &log);
            let text = fs::read_to_string(&log).unwrap_or_default();
            if k {
                convert.push(run);
                let (files, seconds) = converted(&text);
                saved.1 = files;
                own_clock.push(seconds);
            } else {
                plain.push(run);
                saved.0 = count_files(&dir.join(&host));
            }
        }
        for (i, jobs) in ["1", "2"].into_iter().enumerate() {
            let copy = work.join(format!("relative-{jobs}"));
            remove(&copy);
            copy_tree(&work.join("wget").join(&host), &copy);
            relative[i].push(timed(
                Command::new(&bin).args(["-q", "--site"]).arg(&copy).args([
                    "--site-url",
                    &url,
                    "--relative",
                    "--jobs",
                    jobs,
                ]),
            ));
            remove(&copy);
        }
        eprintln!("mirror bench: round {} of {rounds} done", round + 1);
    }
    drop(server);
    println!(
        "wget saved {} files (without `-k`); `-k` converted the links of {} of them",
        saved.0, saved.1
    );
    println!();

    let mut table = String::from(
        "| way | wall s: median (fastest–slowest) | CPU s | of which system |\n\
         | --- | ---: | ---: | ---: |\n",
    );
    table += &row("`wget -m` (no `-k`): the crawl", &plain);
    table += &row("`wget -m -k`: the crawl and the conversion", &convert);
    let difference: Vec<Run> = plain
        .iter()
        .zip(&convert)
        .map(|(p, c)| Run {
            wall: c.wall - p.wall,
            cpu: c.cpu - p.cpu,
            system: c.system - p.system,
        })
        .collect();
    table += &row(
        "wget's conversion: `-m -k` − `-m`, pair by pair",
        &difference,
    );
    let clock = median(own_clock.clone());
    let (fast, slow) = spread(own_clock.iter().copied());
    let _ = writeln!(
        table,
        "| wget's conversion, by its own clock (`Converted links in …`) | {clock:.2} ({fast:.2}–{slow:.2}) | | |"
    );
    table += &row(
        "`htmlabs --site --relative --jobs 1`, in place",
        &relative[0],
    );
    table += &row(
        "`htmlabs --site --relative --jobs 2`, in place",
        &relative[1],
    );
    println!("{table}");
    let jobs1 = median(relative[0].iter().map(|r| r.wall).collect());
    let jobs2 = median(relative[1].iter().map(|r| r.wall).collect());
    println!(
        "wget's conversion (its own clock) ÷ htmlabs --relative, wall time: {:.1}× at --jobs 1, {:.1}× at --jobs 2; \
         the pair's difference ÷ --jobs 1: {:.1}×",
        clock / jobs1,
        clock / jobs2,
        median(difference.iter().map(|r| r.wall).collect()) / jobs1
    );
}

/// A row of the table: the runs' median wall time with its spread, CPU
/// and system seconds.
fn row(name: &str, runs: &[Run]) -> String {
    let (fast, slow) = spread(runs.iter().map(|r| r.wall));
    format!(
        "| {name} | {:.2} ({fast:.2}–{slow:.2}) | {:.2} | {:.2} |\n",
        median(runs.iter().map(|r| r.wall).collect()),
        median(runs.iter().map(|r| r.cpu).collect()),
        median(runs.iter().map(|r| r.system).collect()),
    )
}

/// A wget run, timed as `common::timed` times a command (`sync` first, not
/// timed); exit status 8, a server's error (the 404s of the corpus pages'
/// own links), is wget's success here.
fn wget_run(command: &mut Command, log: &Path) -> Run {
    let _ = Command::new("sync").status();
    let (user, system) = children_cpu();
    let start = Instant::now();
    let status = command
        .status()
        .unwrap_or_else(|e| fail(&format!("cannot run wget: {e}")));
    let wall = start.elapsed().as_secs_f64();
    if !matches!(status.code(), Some(0 | 8)) {
        let text = fs::read_to_string(log).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(5).collect();
        fail(&format!("wget failed ({status}): {tail:?}"));
    }
    let (user_after, system_after) = children_cpu();
    let system = system_after - system;
    Run {
        wall,
        cpu: user_after - user + system,
        system,
    }
}

/// What wget's log says of its conversion: `Converted links in N files in
/// S seconds.`
fn converted(log: &str) -> (usize, f64) {
    let line = log
        .lines()
        .find_map(|l| l.strip_prefix("Converted links in "))
        .unwrap_or_else(|| fail("wget -k said nothing of its conversion"));
    let mut words = line.split(' ');
    let files = words.next().and_then(|n| n.parse().ok());
    let seconds = words.nth(2).and_then(|s| s.parse().ok());
    match (files, seconds) {
        (Some(files), Some(seconds)) => (files, seconds),
        _ => fail(&format!("wget's conversion line: `{line}`")),
    }
}

/// The files under `dir`.
fn count_files(dir: &Path) -> usize {
    let mut count = 0;
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| fail(&format!("cannot list: {e}"))) {
            let entry = entry.unwrap_or_else(|e| fail(&format!("cannot list: {e}")));
            match entry.file_type().map(|t| t.is_dir()) {
                Ok(true) => dirs.push(entry.path()),
                _ => count += 1,
            }
        }
    }
    count
}

/// `cp -a from to` (not timed).
fn copy_tree(from: &Path, to: &Path) {
    let status = Command::new("cp")
        .arg("-a")
        .arg(from)
        .arg(to)
        .status()
        .unwrap_or_else(|e| fail(&format!("cannot run cp: {e}")));
    if !status.success() {
        fail(&format!("cp -a {} failed", from.display()));
    }
}

fn timed(command: &mut Command) -> Run {
    common::timed(command.stdout(Stdio::null())).0
}

fn remove(dir: &Path) {
    if dir.exists() {
        fs::remove_dir_all(dir)
            .unwrap_or_else(|e| fail(&format!("cannot remove `{}`: {e}", dir.display())));
    }
}
