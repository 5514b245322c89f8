//! What both benches share: the real pages of `../shared/corpus/pages`, and
//! the machine they run on.

// Each bench uses a part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

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
