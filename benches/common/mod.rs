//! What the benches share: the real pages of `../shared/corpus/pages`, the
//! machine they run on, and commands timed with their CPU seconds.

// Each bench uses a part of this module.
#![allow(dead_code)]

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::time::Instant;

/// Where the corpus lies, from the crate root.
pub const CORPUS: &str = "../shared/corpus/pages";

/// One real page and the URL it was retrieved from (`urls.tsv`).
#[derive(Clone)]
pub struct Page {
    pub name: String,
    pub url: String,
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

/// The corpus directory, or `None` when `../shared` is not beside the checkout.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(CORPUS);
    dir.join("urls.tsv").is_file().then_some(dir)
}

/// The pages listed in `urls.tsv`, in file-name order (so runs are alike).
pub fn pages(dir: &Path) -> Vec<Page> {
    let tsv = std::fs::read_to_string(dir.join("urls.tsv")).expect("read urls.tsv");
    let mut pages: Vec<Page> = tsv
        .lines()
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(|line| {
            let mut fields = line.split('\t');
            let (Some(name), Some(url)) = (fields.next(), fields.next()) else {
                panic!("urls.tsv: want a file name and a URL: `{line}`");
            };
            let path = dir.join(name);
            let bytes = std::fs::read(&path)
                .unwrap_or_else(|e| panic!("cannot read `{}`: {e}", path.display()));
            Page {
                name: name.to_owned(),
                url: url.to_owned(),
                path,
                bytes,
            }
        })
        .collect();
    pages.sort_by(|a, b| a.name.cmp(&b.name));
    pages
}

/// "2 × Intel(R) Xeon(R) …": the number of CPUs this process may use and the
/// CPU model, so numbers can be told apart by machine.
pub fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".to_owned());
    format!("nproc {cpus}, {model}")
}

/// The release binary: cargo builds it for benches and says where
/// (`CARGO_BIN_EXE_htmlabs`, the bench profile, which is the release
/// profile); `HTMLABS_BIN` points elsewhere.
pub fn binary() -> PathBuf {
    let bin = std::env::var_os("HTMLABS_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_htmlabs")));
    assert!(
        bin.is_file(),
        "no binary at `{}`: `cargo bench` builds it, or set HTMLABS_BIN",
        bin.display()
    );
    bin
}

/// A file in the temporary directory, removed when dropped.
pub struct TempFile(pub PathBuf);

impl TempFile {
    pub fn new(name: &str, bytes: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("htmlabs-bench-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes)
            .unwrap_or_else(|e| panic!("cannot write `{}`: {e}", path.display()));
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The load average over 1, 5 and 15 minutes: how busy the shared machine
/// was.
pub fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned())
}

/// One run of one command: wall seconds and the children's CPU seconds
/// (user + system), and of those the system's (the kernel's work for it).
#[derive(Clone, Copy)]
pub struct Run {
    pub wall: f64,
    pub cpu: f64,
    pub system: f64,
}

/// Runs a command to its end and times it, with what it wrote; a command
/// that cannot start or fails ends the bench. `sync` (not timed) comes
/// first.
pub fn timed(command: &mut Command) -> (Run, Output) {
    // Each run starts with no dirty pages of the one before it: the
    // kernel's writeback would otherwise throttle its writes for another
    // run's gigabytes (in the site bench, system time grew from 2 s to
    // 15 s a run, round by round, when it did). Not timed.
    let _ = Command::new("sync").status();
    let (user, system) = children_cpu();
    let start = Instant::now();
    let output = command
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run `{command:?}`: {e}")));
    let wall = start.elapsed().as_secs_f64();
    if !output.status.success() {
        fail(&format!(
            "`{command:?}` failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let (user_after, system_after) = children_cpu();
    let system = system_after - system;
    let cpu = user_after - user + system;
    (Run { wall, cpu, system }, output)
}

/// The user and system seconds of every child waited for so far (a shell's
/// own children included: it waits for them).
pub fn children_cpu() -> (f64, f64) {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (seconds(usage.ru_utime), seconds(usage.ru_stime))
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The fastest and the slowest.
pub fn spread(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, 0.0), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// A positive number from the environment variable `name`, or `default`
/// when it is not set; anything else ends the bench.
pub fn env_number(name: &str, default: usize) -> usize {
    match std::env::var(name) {
        Ok(value) => value
            .parse()
            .ok()
            .filter(|&n| n > 0)
            .unwrap_or_else(|| fail(&format!("{name}: want a positive number, not `{value}`"))),
        Err(_) => default,
    }
}

/// The corpus directory; without it the bench ends, saying that `what`
/// is made from it.
pub fn corpus_or_exit(what: &str) -> PathBuf {
    corpus_dir().unwrap_or_else(|| {
        eprintln!(
            "{} bench: {what} is made from {CORPUS}, which is not beside the checkout",
            bench_name()
        );
        drop(Cleanup);
        std::process::exit(2);
    })
}

fn bench_name() -> &'static str {
    BENCH.get().map_or("htmlabs", |(name, _)| name)
}

/// The bench's name, for its messages, and its working directory.
static BENCH: OnceLock<(&str, PathBuf)> = OnceLock::new();

/// A working directory of the bench's own, `htmlabs-bench-NAME-PID` (not
/// made yet), in `HTMLABS_BENCH_DIR` if set, else in `default` if given
/// and a directory, else in the temporary directory; removed when the
/// guard is dropped or [`fail`] ends the bench.
pub fn work(bench: &'static str, default: Option<&Path>) -> (&'static Path, Cleanup) {
    let (_, dir) = BENCH.get_or_init(|| {
        let name = format!("htmlabs-bench-{bench}-{}", std::process::id());
        let base = match std::env::var_os("HTMLABS_BENCH_DIR") {
            Some(dir) => PathBuf::from(dir),
            None => default
                .filter(|d| d.is_dir())
                .map_or_else(std::env::temp_dir, Path::to_path_buf),
        };
        (bench, base.join(name))
    });
    (dir, Cleanup)
}

/// Ends the bench with `message`, its working directory removed.
pub fn fail(message: &str) -> ! {
    eprintln!("{} bench: {message}", bench_name());
    drop(Cleanup);
    std::process::exit(1);
}

/// Removes the working directory when dropped, even after a failure.
pub struct Cleanup;

impl Drop for Cleanup {
    fn drop(&mut self) {
        if let Some((_, dir)) = BENCH.get() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

/// A generated page: where it lies under the site, and its size.
pub struct File {
    pub path: String,
    pub len: u64,
}

/// The site bench's site (and the mirror bench's): writes `count` pages
/// under `site`, each a corpus page with a `<nav>` of relative links to
/// four other pages of the site after its `<body>` tag.
pub fn generate(pages: &[Page], count: usize, site: &Path) -> Vec<File> {
    let paths: Vec<String> = (0..count).map(page_path).collect();
    let mut files = Vec::with_capacity(count);
    for (i, path) in paths.iter().enumerate() {
        let page = &pages[i % pages.len()];
        let depth = path.matches('/').count();
        let up = "../".repeat(depth);
        let mut nav = String::from("\n<nav>");
        for step in [1, 7, 31, 101] {
            let target = &paths[(i + step) % count];
            let _ = write!(nav, "<a href=\"{up}{target}\">{step}</a> ");
        }
        nav.push_str("<a href=\"./\">here</a> <a href=\"#top\">top</a></nav>\n");
        let bytes = insert_after_body(&page.bytes, nav.as_bytes());
        let file = site.join(path);
        fs::create_dir_all(file.parent().expect("a page has a directory"))
            .unwrap_or_else(|e| fail(&format!("cannot make the directory of `{path}`: {e}")));
        fs::write(&file, &bytes).unwrap_or_else(|e| fail(&format!("cannot write `{path}`: {e}")));
        files.push(File {
            path: path.clone(),
            len: bytes.len() as u64,
        });
    }
    files
}

/// Page `i`'s path: the home page, then three depths in turn, the deepest
/// an `index.html` (served at its directory's URL).
pub fn page_path(i: usize) -> String {
    let (section, part) = (i % 25, (i / 25) % 8);
    match (i, i % 3) {
        (0, _) => "index.html".to_owned(),
        (_, 0) => format!("sec{section}/page{i}.html"),
        (_, 1) => format!("sec{section}/part{part}/page{i}.html"),
        _ => format!("sec{section}/part{part}/p{i}/index.html"),
    }
}

/// The page with `nav` after its `<body ...>` tag (ASCII, so any ASCII-
/// compatible encoding reads it; a UTF-16 page, by its BOM, is left as it
/// is), or at its start when it has none.
pub fn insert_after_body(page: &[u8], nav: &[u8]) -> Vec<u8> {
    if page.starts_with(&[0xFE, 0xFF]) || page.starts_with(&[0xFF, 0xFE]) {
        return page.to_vec();
    }
    let lower = page.to_ascii_lowercase();
    let at = lower
        .windows(5)
        .position(|w| w == b"<body")
        .and_then(|start| {
            page[start..]
                .iter()
                .position(|&b| b == b'>')
                .map(|end| start + end + 1)
        })
        .unwrap_or(0);
    [&page[..at], nav, &page[at..]].concat()
}
