//! What htmlabs writes, replayed by pywb, the wayback machine archivists
//! run: a collection built with pywb's own tools (`wb-manager init`,
//! `wb-manager add`), served by pywb's own server (`wayback`) on a free
//! localhost port, each capture of a page fetched by curl in pywb's `id_`
//! mode (the archived body as it was stored, unchanged by pywb); and the
//! index cdxj-indexer makes of the same output with `--records`. The
//! recipe of `docs/archives.md` ("Replay with pywb") runs the same commands.
//!
//! `Tools::replays(archive, url, expected bodies)` is the harness: one more
//! case is a call to it.

use crate::common;

use std::fs;
use std::io::Read;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use assert_cmd::cargo::CommandCargoExt;
use flate2::read::GzDecoder;

/// The wget crawl of the shared corpus, and one of its pages: the URL it
/// was crawled at and the file the server sent.
const CRAWL: &str = "corpus/warc/corpus-wget.warc.gz";
const PAGE: &str = "212-traf-en.wikipedia.org.tsne.html";
const CRAWLED_AT: &str = "http://127.0.0.1:8765/";
/// Conversion records in htmlabs's output of the crawl (one page of the 181
/// has no link to rewrite; tests/sources/warc.rs counts them).
const CONVERSIONS: usize = 180;

/// The programs these tests run: pywb's and cdxj-indexer's (beside the
/// Python of the WARC readers, in the virtual environment `.ci/run` makes),
/// and curl.
struct Tools {
    wb_manager: PathBuf,
    wayback: PathBuf,
    cdxj_indexer: PathBuf,
    curl: PathBuf,
}

impl Tools {
    /// The tools, or `None` with a one-line note on a user's machine without
    /// them; under CI a missing one fails the test.
    fn find(test: &str) -> Option<Tools> {
        let python = common::warc_python(test)?;
        // Scripts lie beside the environment's Python; a `python3` of the
        // system finds them on the PATH.
        let script = |name: &str| {
            python
                .parent()
                .map(|dir| dir.join(name))
                .filter(|path| path.is_file())
                .or_else(|| common::tool(name, test))
        };
        Some(Tools {
            wb_manager: script("wb-manager")?,
            wayback: script("wayback")?,
            cdxj_indexer: script("cdxj-indexer")?,
            curl: common::tool("curl", test)?,
        })
    }

    /// Asserts that pywb, given `archive`, lists as many captures of `url`
    /// as `expected` has bodies and replays each, oldest first, as its
    /// body, byte for byte: a collection of its own, pywb's server started
    /// for it and stopped after.
    fn replays(&self, archive: &Path, url: &str, expected: &[&[u8]]) {
        let root = tempfile::tempdir().unwrap();
        for args in [&["init", "replay"][..], &["add", "replay"][..]] {
            let mut command = Command::new(&self.wb_manager);
            command.args(args).current_dir(root.path());
            if args[0] == "add" {
                command.arg(archive);
            }
            run(&mut command);
        }
        let server = Wayback::start(&self.wayback, root.path(), &self.curl);
        // The captures' timestamps, from pywb's own index (its CDX API),
        // oldest first.
        let cdx = server.get(&format!("/replay/cdx?url={url}&output=json"));
        let timestamps: Vec<String> = String::from_utf8_lossy(&cdx)
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap())
            .filter(|capture| capture["url"] == url)
            .map(|capture| capture["timestamp"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(
            timestamps.len(),
            expected.len(),
            "pywb's captures of {url} in {}: {}",
            archive.display(),
            String::from_utf8_lossy(&cdx)
        );
        for (timestamp, expected) in timestamps.iter().zip(expected) {
            let body = server.get(&format!("/replay/{timestamp}id_/{url}"));
            assert!(
                body == *expected,
                "pywb replays {url} at {timestamp} from {} otherwise than expected ({} bytes, {} expected)",
                archive.display(),
                body.len(),
                expected.len()
            );
        }
    }

    /// cdxj-indexer's index of `archive`, with `--records RECORDS` when
    /// given: each line's JSON.
    fn index(&self, archive: &Path, records: Option<&str>) -> Vec<serde_json::Value> {
        let mut command = Command::new(&self.cdxj_indexer);
        if let Some(records) = records {
            command.args(["--records", records]);
        }
        let out = run(command.arg(archive));
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|line| {
                let json = line.split_once(" {").map(|(_, json)| format!("{{{json}"));
                serde_json::from_str(&json.unwrap_or_default())
                    .unwrap_or_else(|e| panic!("cdxj-indexer wrote `{line}`: {e}"))
            })
            .collect()
    }
}

/// pywb's server, on a free localhost port; killed when dropped, also when
/// the test fails.
struct Wayback {
    child: Child,
    port: u16,
    curl: PathBuf,
}

impl Wayback {
    /// Starts `wayback` serving the collections under `root`, and waits
    /// until it answers.
    fn start(wayback: &Path, root: &Path, curl: &Path) -> Wayback {
        // A port the system had free a moment ago.
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let log = root.join("wayback.log");
        let out = fs::File::create(&log).unwrap();
        let child = Command::new(wayback)
            .args(["-b", "127.0.0.1", "-p", &port.to_string(), "-d"])
            .arg(root)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start `{}`: {e}", wayback.display()));
        let mut server = Wayback {
            child,
            port,
            curl: curl.to_owned(),
        };
        // pywb's start (gevent, its templates) takes seconds on a loaded
        // machine.
        let start = Instant::now();
        while server.status("/") != "200" {
            let exited = server.child.try_wait().unwrap();
            if exited.is_some() || start.elapsed() > Duration::from_secs(90) {
                panic!(
                    "pywb's wayback does not answer on port {port} ({}): {}",
                    exited.map_or("still running".to_owned(), |s| s.to_string()),
                    fs::read_to_string(&log).unwrap_or_default()
                );
            }
            thread::sleep(Duration::from_millis(250));
        }
        server
    }

    fn curl(&self, path: &str) -> Command {
        let mut command = Command::new(&self.curl);
        command
            .args(["--silent", "--show-error", "--max-time", "60"])
            .arg(format!("http://127.0.0.1:{}{path}", self.port));
        command
    }

    /// The status line's code, or `000` when nothing answers.
    fn status(&self, path: &str) -> String {
        let out = self
            .curl(path)
            .args(["--output", "/dev/null", "--write-out", "%{http_code}"])
            .stderr(Stdio::null())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// The body pywb sends for `path`, which must be a 200.
    fn get(&self, path: &str) -> Vec<u8> {
        run(self.curl(path).arg("--fail"))
    }
}

impl Drop for Wayback {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs a command that must succeed; its standard output.
fn run(command: &mut Command) -> Vec<u8> {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{command:?}`: {e}"));
    assert!(
        out.status.success(),
        "`{command:?}` failed ({}): {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// htmlabs's output of the wget crawl, `htmlabs --warc IN -o OUT` with
/// `flags` (none: conversion mode, the default), and the tools to read it;
/// `None` with a one-line note on a user's machine without the tools or
/// `../shared`.
struct Converted {
    tools: Tools,
    shared: PathBuf,
    output: PathBuf,
    _dir: tempfile::TempDir,
}

fn converted(test: &str, flags: &[&str]) -> Option<Converted> {
    let shared = common::shared(test)?;
    let tools = Tools::find(test)?;
    let dir = tempfile::tempdir().unwrap();
    let output = dir.path().join("crawl-absolute.warc.gz");
    run(Command::cargo_bin("htmlabs")
        .unwrap()
        .args(["-q", "--warc"])
        .args(flags)
        .arg(shared.join(CRAWL))
        .arg("-o")
        .arg(&output));
    Some(Converted {
        tools,
        shared,
        output,
        _dir: dir,
    })
}

#[test]
fn pywb_replays_the_original_response_and_the_conversion_as_a_later_capture() {
    // `_dir` bound: the output lives as long as it.
    let Some(Converted {
        tools,
        shared,
        output,
        _dir,
    }) = converted("pywb_replays", &[])
    else {
        return;
    };
    let url = format!("{CRAWLED_AT}{PAGE}");
    let page = shared.join("corpus/pages").join(PAGE);
    // The evidence stays replayable: at the crawl's time, the response as
    // the server sent it.
    let original = fs::read(&page).unwrap();
    // pywb indexes a conversion record too, as a capture at its WARC-Date
    // (when htmlabs ran): there, the page made absolute, as htmlabs makes it
    // of the page alone (the response's header names no charset or base).
    let rewritten = run(Command::cargo_bin("htmlabs")
        .unwrap()
        .args(["-q", "-r", &url])
        .arg(&page));
    assert_ne!(original, rewritten);
    tools.replays(&output, &url, &[&original, &rewritten]);
}

#[test]
fn pywb_replays_a_replaced_response_as_the_page_made_absolute() {
    let Some(Converted {
        tools,
        shared,
        output,
        _dir,
    }) = converted("pywb_replays_replaced", &["--warc-mode", "replace"])
    else {
        return;
    };
    let url = format!("{CRAWLED_AT}{PAGE}");
    let page = shared.join("corpus/pages").join(PAGE);
    let rewritten = run(Command::cargo_bin("htmlabs")
        .unwrap()
        .args(["-q", "-r", &url])
        .arg(&page));
    assert_ne!(fs::read(&page).unwrap(), rewritten);
    // One capture, at the crawl's time: the response record itself now
    // carries the page with its links as htmlabs wrote them.
    tools.replays(&output, &url, &[&rewritten]);
}

#[test]
fn cdxj_indexer_with_records_lists_every_conversion_at_its_offset() {
    let Some(Converted {
        tools,
        output,
        _dir,
        ..
    }) = converted("cdxj_indexer_with_records", &[])
    else {
        return;
    };
    let bytes = fs::read(&output).unwrap();
    let conversions = tools.index(&output, Some("conversion"));
    assert_eq!(conversions.len(), CONVERSIONS);
    let url = format!("{CRAWLED_AT}{PAGE}");
    assert!(conversions.iter().any(|c| c["url"] == url.as_str()));
    // Each line's offset is where the conversion record's gzip member
    // starts: the output can be indexed by offset again.
    for conversion in &conversions {
        let offset: usize = conversion["offset"].as_str().unwrap().parse().unwrap();
        let mut head = Vec::new();
        GzDecoder::new(&bytes[offset..])
            .take(2048)
            .read_to_end(&mut head)
            .unwrap();
        let head = &head[..memchr::memmem::find(&head, b"\r\n\r\n").unwrap_or(head.len())];
        assert!(
            head.starts_with(b"WARC/1.")
                && memchr::memmem::find(head, b"\r\nWARC-Type: conversion\r\n").is_some(),
            "cdxj-indexer's conversion of {} at {offset}: {}",
            conversion["url"],
            String::from_utf8_lossy(head)
        );
    }
    // By default it leaves them out (response, revisit, resource and
    // metadata records); the command of `docs/archives.md` lists them besides.
    let all = tools.index(
        &output,
        Some("conversion,response,revisit,resource,metadata"),
    );
    let default = tools.index(&output, None);
    assert_eq!(all.len(), default.len() + CONVERSIONS);
}
