//! The binary's peak memory on one long value of each kind, on each engine
//! (pages, stylesheets, feeds), on a long base from each layer, and on the
//! sources that hold documents (`--http`, `--site`, `--warc` at 1, 2 and 16
//! jobs): whatever the input, peak RSS stays within `--max-memory` above
//! the binary's own on a small input of the same kind (its fixed overhead),
//! and past what a document may hold the documented bail-out happens (the
//! rest copied unchanged, the warning, exit status 2, the output complete);
//! a value of a 256th of the limit is rewritten.
//!
//! Memory is not time: a process's peak RSS is the same from run to run
//! within a few pages, so a bound on it is a test and not a benchmark. The
//! inputs are large enough that the copies a value was once held in (tens
//! of times its size) break the bound clearly, at a `--max-memory` of
//! 16 MB so that the debug build runs each in seconds.
//!
//! Peak RSS comes from `wait4`, taken by a launcher: this test binary run
//! again with `HTMLABS_MEMORY_LAUNCHER` set (a plain `main`, no test
//! harness), which starts htmlabs and reports its exit status and
//! `ru_maxrss`. Linux counts in a child's figure the memory of the process
//! that spawned it (until `exec`), so the spawning process must be small:
//! the launcher holds about 2 MiB, never the inputs.

use std::ffi::OsString;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::{self, Command, Stdio};

const MB: usize = 1_000_000;
const MIB: usize = 1 << 20;
/// The `--max-memory` of every run.
const LIMIT: usize = 16 * MB;
/// What peak RSS may be above the binary's own on a small input of the
/// same kind, besides `--max-memory`: the buffers of a run that a small
/// input does not fill (the spare read buffers, 2 MiB a thread; a read's
/// slack in the lookahead's hold, 64 KiB).
const SLACK: usize = 4 * MIB;
/// The end of every input: a comment with no URL, found unchanged at the
/// end of a complete output.
const TRAILER: &[u8] = b"\n<!-- htmlabs memory test: the end of the input -->\n";
const LAUNCHER: &str = "HTMLABS_MEMORY_LAUNCHER";
const MARK: &str = "htmlabs-memory-test:";
const URL: &str = "http://example.com/d/page.html";

/// A page: `head`, then `unit` over and over until `fill` bytes, `tail`,
/// and the trailer.
struct Page {
    head: &'static str,
    unit: &'static [u8],
    fill: usize,
    tail: &'static str,
}

impl Page {
    fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        out.write_all(b"<!DOCTYPE html><html><head><title>t</title></head><body>")?;
        out.write_all(b"<a href=\"before.html\">x</a>")?;
        out.write_all(self.head.as_bytes())?;
        out.write_all(&self.unit.repeat(self.fill / self.unit.len()))?;
        out.write_all(self.tail.as_bytes())?;
        out.write_all(b"<a href=\"after.html\">y</a></body></html>")?;
        out.write_all(TRAILER)?;
        Ok(())
    }
}

/// One long value of each kind, about three quarters of the limit (a tag
/// must fit in lol_html's share of it).
fn pages() -> Vec<(&'static str, Page)> {
    let fill = LIMIT * 3 / 4;
    let page = |head, unit, tail| Page {
        head,
        unit,
        fill,
        tail,
    };
    vec![
        (
            "a `ping` list",
            page("<a href=\"x.html\" ping=\"", b"a ", "\">p</a>"),
        ),
        (
            "an `archive` list with a `codebase`",
            page("<object codebase=\"c/\" archive=\"", b"a ", "\"></object>"),
        ),
        ("a `srcset`", page("<img srcset=\"", b"a.png 1x, ", "\">")),
        (
            "a `style` attribute",
            page("<p style=\"", b"background:url(a.png);", "\">s</p>"),
        ),
        (
            "a `style` attribute of brackets open in an `image-set(`",
            page("<p style=\"background:image-set(", b"(", "'a.png')\">s</p>"),
        ),
        (
            "a `<style>` element",
            page("<style>", b".c{background:url(a.png)}\n", "</style>"),
        ),
        (
            "a `srcdoc`",
            page(
                "<iframe srcdoc=\"",
                b"&lt;img src=a.png&gt;",
                "\"></iframe>",
            ),
        ),
        (
            "a `<noscript>`",
            page("<noscript>", b"<img src=a.png>", "</noscript>"),
        ),
        (
            "a `<noscript>` of unclosed elements",
            page("<noscript>", b"<div>", "</noscript>"),
        ),
        ("a long `href`", page("<a href=\"", b"abcdefgh", "\">h</a>")),
        (
            "an `href` of character references",
            page("<a href=\"", b"&amp;", "\">h</a>"),
        ),
        (
            "an `href` in windows-1252",
            page(
                "<meta charset=windows-1252><a href=\"",
                b"caf\xE9/",
                "\">h</a>",
            ),
        ),
        // Each a warning: a document keeps a hundred, then counts.
        (
            "`<base href>`s ignored",
            page(
                "<base href=\"http://example.com/b/\">",
                b"<base href=\"javascript:x\">",
                "",
            ),
        ),
        (
            "a long meta refresh",
            page(
                "<meta http-equiv=refresh content=\"0; url=",
                b"abcdefgh",
                "\">",
            ),
        ),
    ]
}

/// What a run of the binary came to.
struct Run {
    status: String,
    peak: usize,
    errors: String,
}

fn main() {
    if std::env::var_os(LAUNCHER).is_some() {
        launcher();
    }
    // `cargo test --test memory -- FILTER`: the cases whose name holds it.
    let filter: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let chosen = |name: &str| filter.is_empty() || filter.iter().any(|f| name.contains(f));
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_htmlabs"));
    let work = tempfile::tempdir().expect("a temporary directory");
    let small = Page {
        head: "",
        unit: b"<p><a href=\"a/b.html\">link</a></p>\n",
        fill: 1000,
        tail: "",
    };
    let limit = LIMIT.to_string();
    let floor = page_run(&bin, work.path(), &small, &[]).peak;
    println!("peak RSS on a small page: {} KiB", floor / 1024);
    let (mut passed, mut failed) = (0, Vec::new());
    // Each value at three quarters of the limit (past what a document may
    // hold: it stops, or goes through) and at a 256th (rewritten, whatever
    // it takes to: its new bytes up to eleven times its own, an edit of
    // some 70 bytes for each URL of a list).
    for (name, page) in pages() {
        for (size, fill, rewritten) in [("", page.fill, false), (", a 256th", LIMIT / 256, true)] {
            let name = format!("{name}{size}");
            if !chosen(&name) {
                continue;
            }
            let page = Page { fill, ..page };
            let run = page_run(&bin, work.path(), &page, &["--max-memory", &limit]);
            let result = judge(&run, floor, rewritten)
                .and_then(|()| output_complete(work.path(), "out.html"));
            report(&name, &run, result, &mut passed, &mut failed);
        }
    }
    // Ignored `<base href>`s of 1 MiB, three times the limit of them:
    // what a warning keeps of its value is clipped.
    let name = "`<base href>`s of 1 MiB ignored, 48 MiB of them";
    if chosen(name) {
        let unit = format!("<base href=\"javascript:{}\">", "x".repeat(MIB));
        let page = Page {
            head: "<base href=\"http://example.com/b/\">",
            unit: Box::leak(unit.into_bytes().into_boxed_slice()),
            fill: 3 * LIMIT,
            tail: "",
        };
        let run = page_run(&bin, work.path(), &page, &["--max-memory", &limit]);
        let result =
            judge(&run, floor, true).and_then(|()| output_complete(work.path(), "out.html"));
        report(name, &run, result, &mut passed, &mut failed);
    }
    // A long base from each layer, over many values: what a value becomes
    // goes out as it is made, and is never held all at once.
    let base = format!("http://example.com/{}/", "b".repeat(20_000));
    for (name, run) in [
        (
            "a base of 20 KB from -r, on a page of links",
            long_base_page(&bin, work.path(), &base),
        ),
        (
            "a base of 20 KB from Content-Base, on a stylesheet (--http)",
            long_base_http(&bin, work.path(), &base),
        ),
        (
            "a base of 20 KB from WARC-Target-URI, on a stylesheet (--warc)",
            long_base_warc(&bin, work.path(), &base),
        ),
        (
            "a base of 20 KB from xml:base, on a feed",
            long_base_feed(&bin, work.path(), &base),
        ),
    ] {
        if chosen(name) {
            let result = judge(&run, floor, true);
            report(name, &run, result, &mut passed, &mut failed);
        }
    }
    // Stylesheets: one held whole past what a document may hold (it goes
    // through as it came), and HTML in a feed under a base of 5 KB.
    let name = "a stylesheet of 12 MB (--type css)";
    if chosen(name) {
        let sheet = ".c{background:url(a.png)}\n".repeat(LIMIT * 3 / 4 / 27);
        let run = file_run(
            &bin,
            work.path(),
            "in.css",
            sheet.as_bytes(),
            &["--type", "css"],
        );
        let result =
            judge(&run, floor, false).and_then(|()| output_complete(work.path(), "out.file"));
        report(name, &run, result, &mut passed, &mut failed);
    }
    // A value of short references to an entity: read, each one is a part
    // of its map, many times its three bytes (an eighth of the limit held
    // would take twice the limit read).
    for (size, fill, rewritten) in [
        (", an eighth", LIMIT / 8, false),
        (", a 256th", LIMIT / 256, true),
    ] {
        let name = format!("a feed's link of entity references{size}");
        if !chosen(&name) {
            continue;
        }
        let feed = format!(
            "<!DOCTYPE rss [<!ENTITY e \"x\">]><rss version=\"2.0\"><channel><link>{}</link></channel></rss>",
            "&e;".repeat(fill / 3)
        );
        let run = file_run(&bin, work.path(), "in.xml", feed.as_bytes(), &[]);
        let result = judge(&run, floor, rewritten);
        report(&name, &run, result, &mut passed, &mut failed);
    }
    let name = "HTML in a feed, under an xml:base of 5 KB";
    if chosen(name) {
        let base = format!("http://example.com/{}/", "c".repeat(5_000));
        let item = format!(
            "<item><description>{}</description></item>\n",
            "&lt;a href=&quot;x.html&quot;&gt;x&lt;/a&gt; ".repeat(200)
        );
        let feed = format!(
            "<rss version=\"2.0\" xml:base=\"{base}\"><channel>{}</channel></rss>",
            item.repeat(200)
        );
        let run = file_run(&bin, work.path(), "in.xml", feed.as_bytes(), &[]);
        report(
            name,
            &run,
            judge(&run, floor, true),
            &mut passed,
            &mut failed,
        );
    }
    // A page of one long value holds what a document may; a page of short
    // ones little, and what the archive holds of it (its body rewritten,
    // its new record) is drawn from the same limit, whatever the jobs.
    let warcs = [
        ("one long `srcset`", &warc_pages()[0]),
        ("links", &warc_pages()[1]),
    ];
    for jobs in [1, 2, 16] {
        let name =
            |what: &str| format!("--warc: four long pages ({what}), gzip bodies, --jobs {jobs}");
        if !warcs.iter().any(|(what, _)| chosen(&name(what))) {
            continue;
        }
        // The floor of an archive: four small pages, on as many threads.
        let floor = warc_run(&bin, work.path(), &small, jobs).peak;
        println!(
            "--jobs {jobs}: peak RSS on an archive of small pages: {} KiB",
            floor / 1024
        );
        for (what, page) in &warcs {
            let name = name(what);
            if !chosen(&name) {
                continue;
            }
            let run = warc_run(&bin, work.path(), page, jobs);
            let result = judge(&run, floor, false);
            report(&name, &run, result, &mut passed, &mut failed);
        }
    }
    // An archive saved as a tree: each page decoded and rewritten into its
    // file as it streams (`--jobs 1`), or its block held for a worker where
    // there is room (`--jobs 2`), within the same limit.
    for jobs in ["1", "2"] {
        for (what, page) in &warcs {
            let name =
                format!("--warc --out-dir: four long pages ({what}), gzip bodies, --jobs {jobs}");
            if !chosen(&name) {
                continue;
            }
            let floor = tree_run(&bin, work.path(), &small, jobs).peak;
            let run = tree_run(&bin, work.path(), page, jobs);
            let result = judge(&run, floor, false);
            report(&name, &run, result, &mut passed, &mut failed);
        }
    }
    // An archive's links listed, and checked (its captures held, then
    // each page read for its links as `--links` reads it), within the same
    // limit: at `--jobs 2` too, where a record's links wait for the
    // records before it (past the run's room for them, in a file).
    for (mode, run_of) in [
        ("--links", links_run as fn(&Path, &Path, &Page, &str) -> Run),
        ("--check-links", check_run),
    ] {
        for jobs in ["1", "2"] {
            for (what, page) in &warcs {
                let name =
                    format!("--warc {mode}: four long pages ({what}), gzip bodies, --jobs {jobs}");
                if !chosen(&name) {
                    continue;
                }
                let floor = run_of(&bin, work.path(), &small, jobs).peak;
                let mut run = run_of(&bin, work.path(), page, jobs);
                // A check's 1 is what it found (links not captured), not a
                // failure.
                if mode == "--check-links" && run.status == "1" {
                    run.status = "0".to_owned();
                }
                let result = judge(&run, floor, false);
                report(&name, &run, result, &mut passed, &mut failed);
            }
        }
    }
    // A brotli body of 20 MB that declares the largest window, 16 MiB,
    // under `--max-memory 4000000`: its decoder's ring buffer alone (and
    // an encoder's at the same window) would pass what the run may hold.
    let name = "--http: a brotli body of a 16 MiB window, --max-memory 4000000";
    if chosen(name) {
        let run = brotli_run(&bin, work.path());
        let result = judge_within(&run, floor, 4_000_000, false);
        report(name, &run, result, &mut passed, &mut failed);
    }
    // A response whose body is held (its coding undone, then done again).
    let name = "--http: a `ping` list in a gzip body with its length";
    if chosen(name) {
        let run = http_run(&bin, work.path(), &pages()[0].1);
        report(
            name,
            &run,
            judge(&run, floor, false),
            &mut passed,
            &mut failed,
        );
    }
    // A site's file is held whole no longer: a long one streams, and its
    // output spills past the run's room for what waits.
    let name = "--site: a file longer than the limit";
    if chosen(name) {
        let floor = site_run(&bin, work.path(), &small).peak;
        println!("peak RSS on a site of a small page: {} KiB", floor / 1024);
        let page = Page {
            head: "",
            unit: b"<p>lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua <a href=\"a.html\">x</a></p>\n",
            fill: LIMIT * 3 / 2,
            tail: "",
        };
        let run = site_run(&bin, work.path(), &page);
        report(
            name,
            &run,
            judge(&run, floor, true),
            &mut passed,
            &mut failed,
        );
    }
    // A site's links reported, its files done out of order at `--jobs 2`:
    // the links of a file done before its turn wait (past the run's room
    // for them, in a file), within the same limit.
    for jobs in ["1", "2"] {
        let name = format!("--site --report: four long files of links, --jobs {jobs}");
        if !chosen(&name) {
            continue;
        }
        let floor = site_links_run(&bin, work.path(), &small, jobs).peak;
        let mut run = site_links_run(&bin, work.path(), &warc_pages()[1], jobs);
        // A check's 1 is what it found (links to change), not a failure.
        if run.status == "1" {
            run.status = "0".to_owned();
        }
        let result = judge(&run, floor, false);
        report(&name, &run, result, &mut passed, &mut failed);
    }
    if !failed.is_empty() {
        println!("\nfailed: {}", failed.join("; "));
        println!(
            "test result: FAILED. {passed} passed; {} failed",
            failed.len()
        );
        process::exit(101);
    }
    println!("test result: ok. {passed} passed; 0 failed");
}

fn report(
    name: &str,
    run: &Run,
    result: Result<(), String>,
    passed: &mut usize,
    failed: &mut Vec<String>,
) {
    let outcome = match &result {
        Ok(()) => "ok".to_owned(),
        Err(why) => format!("FAILED: {why}"),
    };
    println!(
        "{name}: exit {}, peak RSS {:.1} MiB: {outcome}",
        run.status,
        run.peak as f64 / MIB as f64
    );
    match result {
        Ok(()) => *passed += 1,
        Err(_) => failed.push(name.to_owned()),
    }
}

/// The bound (`--max-memory` above the floor, whatever the input and the
/// jobs), and the bail-out as documented when the run stopped; with
/// `rewritten`, it must not stop.
fn judge(run: &Run, floor: usize, rewritten: bool) -> Result<(), String> {
    judge_within(run, floor, LIMIT, rewritten)
}

/// [`judge`], for a run of `--max-memory` `limit`.
fn judge_within(run: &Run, floor: usize, limit: usize, rewritten: bool) -> Result<(), String> {
    let bound = floor + limit + SLACK;
    if run.peak > bound {
        return Err(format!(
            "peak RSS {} KiB, above the bound of {} KiB ({} KiB + --max-memory + {} KiB)",
            run.peak / 1024,
            bound / 1024,
            floor / 1024,
            SLACK / 1024
        ));
    }
    let stopped = format!("memory limit of {limit} bytes (--max-memory)");
    match run.status.as_str() {
        "0" if !run.errors.contains("memory limit") => Ok(()),
        "2" if !rewritten && run.errors.contains(&stopped) => Ok(()),
        _ => Err(format!(
            "exit status {} with: {}",
            run.status,
            run.errors.trim()
        )),
    }
}

/// The output holds at least the input's bytes (URLs only grow) and ends
/// with its trailer.
fn output_complete(dir: &Path, name: &str) -> Result<(), String> {
    let output = std::fs::read(dir.join(name)).map_err(|e| e.to_string())?;
    let input = std::fs::metadata(dir.join(match name {
        "out.html" => "in.html",
        _ => "in",
    }))
    .map_err(|e| e.to_string())?;
    let trailer: &[u8] = match name {
        "out.html" => TRAILER,
        _ => b"",
    };
    if (output.len() as u64) < input.len() || !output.ends_with(trailer) {
        return Err(format!(
            "the output is not complete: {} bytes of {}, ending {:?}",
            output.len(),
            input.len(),
            String::from_utf8_lossy(&output[output.len().saturating_sub(60)..])
        ));
    }
    Ok(())
}

/// Runs `htmlabs -r URL --max-memory LIMIT ARGS < in > out` through the
/// launcher, the input `bytes` (kept as `in`, and as `name` for its kind).
fn file_run(bin: &Path, dir: &Path, name: &str, bytes: &[u8], args: &[&str]) -> Run {
    std::fs::write(dir.join("in"), bytes).expect("the input");
    let _ = name;
    let output = dir.join("out.file");
    let limit = LIMIT.to_string();
    let mut all: Vec<OsString> = vec!["-r".into(), URL.into(), "--max-memory".into(), limit.into()];
    all.extend(args.iter().map(OsString::from));
    launch(
        bin,
        &all,
        File::open(dir.join("in")).expect("the input").into(),
        File::create(output).expect("the output").into(),
    )
}

/// A page of 5,000 links under `-r BASE`.
fn long_base_page(bin: &Path, dir: &Path, base: &str) -> Run {
    let page = "<p><a href=\"a/b.html\">link</a></p>\n".repeat(5_000);
    std::fs::write(dir.join("in"), page).expect("the input");
    let limit = LIMIT.to_string();
    let args: Vec<OsString> = vec![
        "-r".into(),
        base.into(),
        "--max-memory".into(),
        limit.into(),
    ];
    launch(
        bin,
        &args,
        File::open(dir.join("in")).expect("the input").into(),
        Stdio::null(),
    )
}

/// A stylesheet of 5,000 URLs, as a response whose `Content-Base` is
/// `base`.
fn long_base_http(bin: &Path, dir: &Path, base: &str) -> Run {
    let sheet = ".c{background:url(a.png)}\n".repeat(5_000);
    let response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/css\r\nContent-Base: {base}\r\nContent-Length: {}\r\n\r\n{sheet}",
        sheet.len()
    );
    std::fs::write(dir.join("in"), response).expect("the input");
    let limit = LIMIT.to_string();
    let args: Vec<OsString> = vec![
        "--http".into(),
        "-r".into(),
        URL.into(),
        "--max-memory".into(),
        limit.into(),
    ];
    launch(
        bin,
        &args,
        File::open(dir.join("in")).expect("the input").into(),
        Stdio::null(),
    )
}

/// A stylesheet of 5,000 URLs in an archive, its `WARC-Target-URI` `base`.
fn long_base_warc(bin: &Path, dir: &Path, base: &str) -> Run {
    let sheet = ".c{background:url(a.png)}\n".repeat(5_000);
    let block = format!("HTTP/1.1 200 OK\r\nContent-Type: text/css\r\n\r\n{sheet}");
    let record = format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {base}s.css\r\n\
         WARC-Date: 2026-11-26T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-000000000001>\r\n\
         Content-Type: application/http; msgtype=response\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
        block.len()
    );
    std::fs::write(dir.join("in.warc"), record).expect("the archive");
    let limit = LIMIT.to_string();
    let args: Vec<OsString> = vec![
        "--warc".into(),
        dir.join("in.warc").into(),
        "-o".into(),
        dir.join("out.warc").into(),
        "--max-memory".into(),
        limit.into(),
    ];
    launch(bin, &args, Stdio::null(), Stdio::null())
}

/// A feed of 5,000 links under an `xml:base` of `base`.
fn long_base_feed(bin: &Path, dir: &Path, base: &str) -> Run {
    let feed = format!(
        "<feed xmlns=\"http://www.w3.org/2005/Atom\" xml:base=\"{base}\">{}</feed>",
        "<entry><link href=\"a.html\"/></entry>\n".repeat(5_000)
    );
    std::fs::write(dir.join("in"), feed).expect("the input");
    let limit = LIMIT.to_string();
    let args: Vec<OsString> = vec!["-r".into(), URL.into(), "--max-memory".into(), limit.into()];
    launch(
        bin,
        &args,
        File::open(dir.join("in")).expect("the input").into(),
        Stdio::null(),
    )
}

/// Runs `htmlabs -r URL ARGS < in.html > out.html` through the launcher.
fn page_run(bin: &Path, dir: &Path, page: &Page, args: &[&str]) -> Run {
    let input = dir.join("in.html");
    let mut file = BufWriter::new(File::create(&input).expect("the input"));
    page.write_to(&mut file).expect("the input written");
    file.flush().expect("the input written");
    drop(file);
    let mut all: Vec<OsString> = vec!["-r".into(), URL.into()];
    all.extend(args.iter().map(OsString::from));
    launch(
        bin,
        &all,
        File::open(&input).expect("the input").into(),
        File::create(dir.join("out.html"))
            .expect("the output")
            .into(),
    )
}

/// Runs `htmlabs --http -r URL < in.http > out.http` over a response whose
/// body is `page`, gzip-encoded, with its `Content-Length`.
fn http_run(bin: &Path, dir: &Path, page: &Page) -> Run {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    let mut body = GzEncoder::new(Vec::new(), Compression::fast());
    page.write_to(&mut body).expect("in memory");
    let body = body.finish().expect("in memory");
    let input = dir.join("in.http");
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    std::fs::write(&input, [head.as_bytes(), &body].concat()).expect("the response");
    let limit = LIMIT.to_string();
    let args: Vec<OsString> = vec![
        "--http".into(),
        "-r".into(),
        URL.into(),
        "--max-memory".into(),
        limit.into(),
    ];
    launch(
        bin,
        &args,
        File::open(&input).expect("the input").into(),
        File::create(dir.join("out.http"))
            .expect("the output")
            .into(),
    )
}

/// Runs `htmlabs --http --max-memory 4000000` over a response whose body,
/// 20 MB of links, is brotli-encoded with a window of 16 MiB (`lgwin` 24).
fn brotli_run(bin: &Path, dir: &Path) -> Run {
    let page = "<p><a href=\"a/b.html\">link</a></p>\n".repeat(600_000);
    let mut body = Vec::new();
    {
        let mut encoder = brotli::CompressorWriter::new(&mut body, 4096, 5, 24);
        encoder.write_all(page.as_bytes()).expect("in memory");
    }
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: br\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    std::fs::write(dir.join("in.http"), [head.as_bytes(), &body].concat()).expect("the response");
    let args: Vec<OsString> = vec![
        "--http".into(),
        "-r".into(),
        URL.into(),
        "--max-memory".into(),
        "4000000".into(),
    ];
    launch(
        bin,
        &args,
        File::open(dir.join("in.http")).expect("the input").into(),
        Stdio::null(),
    )
}

/// Runs `htmlabs --site site --site-url URL --out-dir out` over a site of
/// one file, `page`.
fn site_run(bin: &Path, dir: &Path, page: &Page) -> Run {
    let (site, out) = (dir.join("site"), dir.join("out"));
    for tree in [&site, &out] {
        let _ = std::fs::remove_dir_all(tree);
    }
    std::fs::create_dir(&site).expect("the site");
    let mut file = BufWriter::new(File::create(site.join("page.html")).expect("the page"));
    page.write_to(&mut file).expect("the page written");
    file.flush().expect("the page written");
    drop(file);
    let limit = LIMIT.to_string();
    let args: Vec<OsString> = vec![
        "--site".into(),
        site.into(),
        "--site-url".into(),
        "http://example.com/".into(),
        "--out-dir".into(),
        out.into(),
        "--max-memory".into(),
        limit.into(),
    ];
    launch(bin, &args, Stdio::null(), Stdio::null())
}

/// Runs `htmlabs --site site --site-url URL --check --report -` over a
/// site of four files, each `page`, with `--jobs N`.
fn site_links_run(bin: &Path, dir: &Path, page: &Page, jobs: &str) -> Run {
    let site = dir.join("site");
    let _ = std::fs::remove_dir_all(&site);
    std::fs::create_dir(&site).expect("the site");
    for i in 0..4 {
        let path = site.join(format!("{i}.html"));
        let mut file = BufWriter::new(File::create(path).expect("the page"));
        page.write_to(&mut file).expect("the page written");
        file.flush().expect("the page written");
    }
    let args: Vec<OsString> = vec![
        "--site".into(),
        site.into(),
        "--site-url".into(),
        "http://example.com/".into(),
        "--check".into(),
        "--report".into(),
        "-".into(),
        "--jobs".into(),
        jobs.into(),
        "--max-memory".into(),
        LIMIT.to_string().into(),
    ];
    launch(bin, &args, Stdio::null(), Stdio::null())
}

/// The pages of the archives: a `srcset` of six megabytes, and seven
/// megabytes of links (highly repetitive HTML).
fn warc_pages() -> [Page; 2] {
    [
        Page {
            head: "<img srcset=\"",
            unit: b"a.png 1x, ",
            fill: 6 * MB,
            tail: "\">",
        },
        Page {
            head: "",
            unit: b"<p><a href=\"a/b.html\">link</a> <img src=\"../img/c.png\"></p>\n",
            fill: LIMIT * 7 / 16,
            tail: "",
        },
    ]
}

/// Runs `htmlabs --warc in.warc.gz -o out.warc.gz --jobs N` over four
/// responses whose gzip-encoded bodies are `page`, held whole, each a gzip
/// member of its own.
fn warc_run(bin: &Path, dir: &Path, page: &Page, jobs: usize) -> Run {
    let input = four_pages(dir, page);
    let limit = LIMIT.to_string();
    let jobs = jobs.to_string();
    let args: Vec<OsString> = vec![
        "--warc".into(),
        input.into(),
        "-o".into(),
        dir.join("out.warc.gz").into(),
        "--jobs".into(),
        jobs.into(),
        "--max-memory".into(),
        limit.into(),
    ];
    launch(bin, &args, Stdio::null(), Stdio::null())
}

/// Runs `htmlabs --warc in.warc.gz --out-dir tree` over the same archive:
/// each page decoded and saved as a file.
fn tree_run(bin: &Path, dir: &Path, page: &Page, jobs: &str) -> Run {
    let tree = dir.join("tree");
    let _ = std::fs::remove_dir_all(&tree);
    archive_run(bin, dir, page, jobs, &["--out-dir".into(), tree.into()])
}

/// Runs `htmlabs --warc in.warc.gz --links` over the same archive: each
/// page's links listed.
fn links_run(bin: &Path, dir: &Path, page: &Page, jobs: &str) -> Run {
    archive_run(bin, dir, page, jobs, &["--links".into()])
}

/// Runs `htmlabs --warc in.warc.gz --check-links` over the same archive:
/// its captures, then each page's links checked against them.
fn check_run(bin: &Path, dir: &Path, page: &Page, jobs: &str) -> Run {
    archive_run(bin, dir, page, jobs, &["--check-links".into()])
}

/// Runs `htmlabs --warc in.warc.gz ARGS` over the archive of four
/// `page`s.
fn archive_run(bin: &Path, dir: &Path, page: &Page, jobs: &str, mode: &[OsString]) -> Run {
    let input = four_pages(dir, page);
    let mut args: Vec<OsString> = vec!["--warc".into(), input.into()];
    args.extend_from_slice(mode);
    args.extend([
        "--jobs".into(),
        jobs.into(),
        "--max-memory".into(),
        LIMIT.to_string().into(),
    ]);
    launch(bin, &args, Stdio::null(), Stdio::null())
}

/// An archive of four responses whose gzip-encoded bodies are `page`,
/// each a gzip member of its own.
fn four_pages(dir: &Path, page: &Page) -> PathBuf {
    use flate2::Compression;
    use flate2::write::GzEncoder;
    use sha1::{Digest, Sha1};
    let mut body = GzEncoder::new(Vec::new(), Compression::fast());
    page.write_to(&mut body).expect("in memory");
    let body = body.finish().expect("in memory");
    let input = dir.join("in.warc.gz");
    let mut out = BufWriter::new(File::create(&input).expect("the archive"));
    for i in 0..4 {
        let mut block = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        block.extend_from_slice(&body);
        let digest = data_encoding::BASE32.encode(&Sha1::digest(&block));
        let head = format!(
            "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: http://example.com/{i}.html\r\n\
             WARC-Date: 2026-11-26T00:00:00Z\r\nWARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-00000000000{i}>\r\n\
             Content-Type: application/http; msgtype=response\r\nWARC-Block-Digest: sha1:{digest}\r\n\
             Content-Length: {}\r\n\r\n",
            block.len()
        );
        let mut member = GzEncoder::new(&mut out, Compression::fast());
        member
            .write_all(head.as_bytes())
            .and_then(|()| member.write_all(&block))
            .and_then(|()| member.write_all(b"\r\n\r\n"))
            .and_then(|()| member.finish().map(drop))
            .expect("the archive written");
    }
    out.flush().expect("the archive written");
    drop(out);
    input
}

/// Runs `bin` with `args` through the launcher, with these streams: its
/// exit status, its peak RSS and what it wrote to standard error.
fn launch(bin: &Path, args: &[OsString], stdin: Stdio, stdout: Stdio) -> Run {
    let run = Command::new(std::env::current_exe().expect("the test's own path"))
        .env(LAUNCHER, "1")
        .arg(bin)
        .args(args)
        .stdin(stdin)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .output()
        .expect("the launcher runs");
    let errors = String::from_utf8_lossy(&run.stderr);
    let (errors, report) = errors.trim_end().rsplit_once('\n').unwrap_or(("", &errors));
    let Some((status, peak)) = report
        .strip_prefix(MARK)
        .and_then(|r| r.trim().split_once(' '))
    else {
        panic!("the launcher failed ({}): {errors}{report}", run.status);
    };
    Run {
        status: status.to_owned(),
        peak: peak.parse::<usize>().expect("KiB") * 1024,
        errors: errors.to_owned(),
    }
}

/// The launcher: runs the command in its arguments with this process's
/// standard streams, and ends standard error with a line of its exit
/// status and its peak RSS in KiB.
fn launcher() -> ! {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let child = Command::new(&args[0])
        .args(&args[1..])
        .env_remove(LAUNCHER)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", args[0]));
    let (status, peak) = wait4(child.id());
    eprintln!("\n{MARK} {status} {peak}");
    process::exit(0);
}

/// Reaps the child: its exit status and its peak RSS in KiB.
fn wait4(pid: u32) -> (String, usize) {
    let mut status = 0;
    // SAFETY: plain out-parameters; `pid` is our child, not yet reaped.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let reaped = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(
        reaped,
        pid as libc::pid_t,
        "wait4: {}",
        io::Error::last_os_error()
    );
    let status = if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status).to_string()
    } else {
        format!("signal {}", libc::WTERMSIG(status))
    };
    (status, usage.ru_maxrss as usize)
}
