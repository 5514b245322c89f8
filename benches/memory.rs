//! `cargo bench --bench memory`: the release binary's peak memory, as a
//! subprocess, over a 1 GiB stream of the real pages and over hostile inputs,
//! with the default `--max-memory` and with a small one.
//!
//! Inputs are made on the fly and written to the binary's standard input
//! through a pipe (nothing large goes to disk); its output is read through a
//! pipe, counted, and its tail kept. Each input ends with a comment that
//! holds no URL, so the output is complete when it is at least as long as
//! the input (URLs only grow when made absolute) and ends with that comment
//! unchanged.
//!
//! Peak RSS comes from `wait4`, taken by a launcher: this bench binary run
//! again with `HTMLABS_MEMORY_LAUNCHER` set, which starts htmlabs and
//! reports its exit status and `ru_maxrss`. The launcher is needed because
//! Linux carries the peak RSS of the process that spawned a child into the
//! child's figure (the spawning process's memory is the child's until
//! `exec`): spawned from this bench, which holds the corpus, htmlabs would
//! show this bench's 27 MiB. The launcher holds about 2 MiB, printed as the
//! floor of the measurement.
//!
//! The hostile inputs hold one long value of each kind (a `ping` list, a
//! `srcset`, a `style` attribute, a `<style>`, a `srcdoc`, a `<noscript>`,
//! an `href`, a meta refresh), a stylesheet, HTML inside a feed, and a long
//! base from each layer: each row says whether its peak is within the one
//! bound README states, `--max-memory` + a fixed overhead (the binary and
//! its buffers, 16 MiB here, and 3 MiB a thread), at `--max-memory` 64M
//! and 8000000.
//!
//! Then `--warc` (written to a file, its output to a file): archives of
//! responses made from the real pages, 256 MiB and 1 GiB of them as gzip
//! members, at every core (the window of records must not grow with the
//! archive), and one response of 1 GiB of HTML in a plain WARC, at both
//! limits (the record spills to temporary files: it must not be held in
//! memory); and archives of four long pages (30 MiB of links, or of one
//! `srcset`, gzip-encoded bodies of a few hundred KiB) at `--jobs` 1, 2
//! and 16, against the same bound: the limit is the run's, whatever the
//! jobs.

mod common;

use std::path::Path;

use std::ffi::OsString;
use std::io::{self, Read, Write};
use std::process::{self, Command, Stdio};
use std::thread;
use std::time::Instant;

const KIB: usize = 1 << 10;
const MIB: usize = 1 << 20;
const GIB: usize = 1 << 30;
/// The base the binary gets (`-r`), for pages without their own.
const URL: &str = "https://example.com/bench/page.html";
/// The end of every input: a comment with no URL, to find unchanged at the
/// end of the output.
const TRAILER: &[u8] = b"\n<!-- htmlabs memory bench: the end of the input -->\n";
/// The project's target for the 1 GiB stream of real pages.
const TARGET_RSS: usize = 16 * MIB;
/// The `--max-memory` of the runs: the old default, and a small one.
const LIMIT: &str = "67108864";
const SMALL_LIMIT: &str = "8000000";
/// What a run takes besides `--max-memory`: the binary and its buffers
/// (a small page's run takes 6 MiB), and a few MiB a thread (its stack,
/// spare read buffers, the output's buffers).
const CONSTANT: usize = 16 * MIB;
const A_THREAD: usize = 3 * MIB;
/// Set in the environment of the launcher (see the top of the file).
const LAUNCHER: &str = "HTMLABS_MEMORY_LAUNCHER";
/// The launcher's last line on standard error: `MARK status maxrss floor`.
const MARK: &str = "htmlabs-memory-bench:";

/// An input: `head`, then `units` over and over (whole units) until the
/// filler reaches `fill` bytes, then `tail` and the trailer.
struct Input {
    name: String,
    head: Vec<u8>,
    units: Vec<Vec<u8>>,
    fill: usize,
    tail: Vec<u8>,
    /// Flags besides `-r` and `--max-memory` (`--type css`).
    args: Vec<&'static str>,
    /// The base `-r` gives, when not the usual one.
    base: Option<String>,
}

impl Input {
    fn new(name: &str, head: &str, unit: &str, fill: usize, tail: &str) -> Input {
        Input {
            name: name.to_owned(),
            head: head.into(),
            units: vec![unit.into()],
            fill,
            tail: tail.into(),
            args: Vec::new(),
            base: None,
        }
    }

    /// Writes the input to `out`; returns its length. Stops early, with the
    /// length so far, when the reader goes away (the binary failed).
    fn write_to(&self, out: &mut impl Write) -> usize {
        let mut written = 0;
        let mut put = |bytes: &[u8]| -> bool {
            if out.write_all(bytes).is_err() {
                return false;
            }
            written += bytes.len();
            true
        };
        if !put(&self.head) {
            return written;
        }
        let mut filled = 0;
        // Units are small (tags, text), and pages are written whole: an
        // input never ends inside a tag, where the trailer would be a value.
        'fill: while filled < self.fill {
            for unit in &self.units {
                if !put(unit) {
                    break 'fill;
                }
                filled += unit.len();
                if filled >= self.fill {
                    break;
                }
            }
        }
        put(&self.tail);
        put(TRAILER);
        written
    }
}

/// What a run of the binary came to.
struct Outcome {
    input: usize,
    output: usize,
    complete: bool,
    status: String,
    peak_rss: usize,
    /// The launcher's own peak RSS, a lower bound of `peak_rss`.
    floor: usize,
    seconds: f64,
    /// Lines on standard error, and the last of them.
    warnings: usize,
    last_warning: String,
}

fn main() {
    if std::env::var_os(LAUNCHER).is_some() {
        launcher();
    }
    let bin = common::binary();
    let mut inputs = Vec::new();
    inputs.push(Input::new(
        "baseline: a small page",
        "<!DOCTYPE html><html><head><title>t</title></head><body>",
        "<p><a href=\"a/b.html\">link</a> <img src=\"../img/c.png\"></p>\n",
        KIB,
        "</body></html>",
    ));
    match common::corpus_dir() {
        Some(dir) => {
            let pages = common::pages(&dir);
            inputs.push(Input {
                name: format!(
                    "1 GiB of the real pages ({} pages, over and over)",
                    pages.len()
                ),
                head: Vec::new(),
                units: pages.into_iter().map(|p| p.bytes).collect(),
                fill: GIB,
                tail: Vec::new(),
                args: Vec::new(),
                base: None,
            });
        }
        None => println!(
            "note: no corpus at {} (../shared is not beside the checkout): no 1 GiB stream of real pages",
            common::CORPUS
        ),
    }
    let hostile = [
        Input::new(
            "a 64 MiB `data:` URI in an attribute",
            "<!DOCTYPE html><html><head><title>t</title></head><body><a href=\"before.html\">x</a><img src=\"data:image/png;base64,",
            "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA",
            64 * MIB,
            "\"><a href=\"after.html\">y</a></body></html>",
        ),
        Input::new(
            "one million unclosed `<div>`",
            "<!DOCTYPE html><html><head><title>t</title></head><body>",
            "<div>",
            5 * 1_000_000,
            "<a href=\"deep.html\">z</a>",
        ),
        Input::new(
            "a 100 MiB comment",
            "<!DOCTYPE html><html><head><title>t</title></head><body><!--",
            "a comment that goes on <a href=\"not/a/link.html\"> and on\n",
            100 * MIB,
            "--><a href=\"after.html\">y</a></body></html>",
        ),
        Input::new(
            "a head that never ends (100 MiB of `<meta>`)",
            "<!DOCTYPE html><html><head><link rel=stylesheet href=\"site.css\">",
            "<meta name=x content=y>",
            100 * MIB,
            "",
        ),
        Input::new(
            "a 100 MiB `<style>`",
            "<!DOCTYPE html><html><head><style>",
            ".c { color: red; background: url(img/c.png) }\n",
            100 * MIB,
            "</style></head><body><a href=\"after.html\">y</a></body></html>",
        ),
        long_value(
            "a 50 MiB `ping` list",
            "<a href=\"x.html\" ping=\"",
            "a ",
            "\">p</a>",
        ),
        long_value("a 50 MiB `srcset`", "<img srcset=\"", "a.png 1x, ", "\">"),
        long_value(
            "a 50 MiB `style` attribute",
            "<p style=\"",
            "background:url(a.png);",
            "\">s</p>",
        ),
        long_value(
            "a 50 MiB `<style>`",
            "<style>",
            ".c{background:url(a.png)}\n",
            "</style>",
        ),
        long_value(
            "a 50 MiB `srcdoc`",
            "<iframe srcdoc=\"",
            "&lt;img src=a.png&gt;",
            "\"></iframe>",
        ),
        long_value(
            "a 50 MiB `<noscript>`",
            "<noscript>",
            "<img src=a.png>",
            "</noscript>",
        ),
        long_value("a 50 MiB `href`", "<a href=\"", "abcdefgh", "\">h</a>"),
        long_value(
            "a 50 MiB meta refresh",
            "<meta http-equiv=refresh content=\"0; url=",
            "abcdefgh",
            "\">",
        ),
        Input {
            args: vec!["--type", "css"],
            ..Input::new(
                "a 50 MiB stylesheet (--type css)",
                "@import 'reset.css';\n",
                ".c{background:url(a.png)}\n",
                50 * MIB,
                "",
            )
        },
        Input {
            base: Some(format!("https://example.com/{}/", "b".repeat(20_000))),
            ..Input::new(
                "50 MiB of links under a base of 20 KB (-r)",
                "<!DOCTYPE html><html><head><title>t</title></head><body>",
                "<p><a href=\"a/b.html\">link</a></p>\n",
                50 * MIB,
                "</body></html>",
            )
        },
        Input::new(
            "50 MiB of HTML in a feed under an xml:base of 5 KB",
            &format!(
                "<rss version=\"2.0\" xml:base=\"https://example.com/{}/\"><channel>",
                "c".repeat(5_000)
            ),
            "<item><description>&lt;a href=&quot;x.html&quot;&gt;x&lt;/a&gt; &lt;img src=&quot;y.png&quot;&gt;</description></item>\n",
            50 * MIB,
            "</channel></rss><!-- -->",
        ),
    ];

    eprintln!("memory: running {} over each input…", bin.display());
    let mut rows = Vec::new();
    for input in &inputs {
        rows.push((input, LIMIT, run(&bin, input, &["--max-memory", LIMIT])));
    }
    for input in &hostile {
        for limit in [LIMIT, SMALL_LIMIT] {
            let args = [&["--max-memory", limit], input.args.as_slice()].concat();
            rows.push((input, limit, run(&bin, input, &args)));
        }
    }

    println!("command: cargo bench --bench memory");
    println!("machine: {}", common::machine());
    println!(
        "binary: {} -r {URL} [--max-memory N] < input > pipe",
        bin.display()
    );
    println!("MiB = 2^20 bytes; peak RSS: wait4's ru_maxrss");
    let floor = rows.iter().map(|(_, _, o)| o.floor).max().unwrap_or(0);
    println!(
        "measurement floor: the launcher's own peak RSS, which the kernel counts in the child's: {}",
        size(floor)
    );
    println!();
    println!(
        "bound: --max-memory + {} + {} a thread",
        size(CONSTANT),
        size(A_THREAD)
    );
    println!();
    println!(
        "| input | size | --max-memory | exit status | peak RSS | within the bound | output complete | output − input | seconds | warnings: count, last |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |");
    for (input, limit, o) in &rows {
        println!(
            "| {} | {} | {limit} | {} | {} | {} | {} | {:+} | {:.1} | {}{}{} |",
            input.name,
            size(o.input),
            o.status,
            size(o.peak_rss),
            within(o.peak_rss, bound(limit, 1)),
            if o.complete { "yes" } else { "no" },
            o.output as i64 - o.input as i64,
            o.seconds,
            o.warnings,
            if o.warnings > 0 { ": " } else { "" },
            o.last_warning,
        );
    }
    warc_rows(&bin);
    if let Some((_, _, o)) = rows.iter().find(|(i, _, _)| i.name.starts_with("1 GiB")) {
        println!();
        println!(
            "1 GiB stream: peak RSS {} (target ≤ {}: {})",
            size(o.peak_rss),
            size(TARGET_RSS),
            if o.peak_rss <= TARGET_RSS {
                "met"
            } else {
                "missed"
            }
        );
    }
}

/// An input of one long value: `head`, `unit` over and over for 50 MiB,
/// `tail`, in a page.
fn long_value(name: &str, head: &str, unit: &str, tail: &str) -> Input {
    Input::new(
        name,
        &format!(
            "<!DOCTYPE html><html><head><title>t</title></head><body><a href=\"before.html\">x</a>{head}"
        ),
        unit,
        50 * MIB,
        &format!("{tail}<a href=\"after.html\">y</a></body></html>"),
    )
}

/// The bound: `times` × the limit (`default` or bytes), the lookahead and
/// the constant.
fn bound(limit: &str, threads: usize) -> usize {
    let limit: usize = limit.parse().expect("a number of bytes");
    limit + CONSTANT + threads * A_THREAD
}

fn within(peak: usize, bound: usize) -> String {
    if peak <= bound {
        format!("yes (≤ {})", size(bound))
    } else {
        format!("NO (> {})", size(bound))
    }
}

/// Runs the binary over `input` with `args`, through pipes both ways.
fn run(bin: &std::path::Path, input: &Input, args: &[&str]) -> Outcome {
    let start = Instant::now();
    let launcher = std::env::current_exe().expect("the bench's own path");
    let mut child = Command::new(launcher)
        .env(LAUNCHER, "1")
        .arg(bin)
        .args(["-r", input.base.as_deref().unwrap_or(URL)])
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run `{}`: {e}", bin.display()));
    let mut stdin = child.stdin.take().expect("piped");
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let (written, (output, tail), errors) = thread::scope(|scope| {
        let writer = scope.spawn(move || {
            let mut pipe = io::BufWriter::with_capacity(64 * KIB, &mut stdin);
            let n = input.write_to(&mut pipe);
            // Closing the pipe is the end of the input.
            drop(pipe);
            drop(stdin);
            n
        });
        let reader = scope.spawn(move || {
            let mut buf = vec![0; 64 * KIB];
            let (mut total, mut tail) = (0, Vec::new());
            loop {
                match stdout.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        total += n;
                        tail.extend_from_slice(&buf[..n]);
                        let keep = tail.len().saturating_sub(TRAILER.len());
                        tail.drain(..keep);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => panic!("cannot read the binary's output: {e}"),
                }
            }
            (total, tail)
        });
        let errors = scope.spawn(move || {
            let mut text = String::new();
            let _ = stderr.read_to_string(&mut text);
            text
        });
        (
            writer.join().expect("writer"),
            reader.join().expect("reader"),
            errors.join().expect("stderr"),
        )
    });
    let launched = child.wait().expect("wait for the launcher");
    let (errors, status, peak_rss, floor) = launcher_report(&errors, &launched.to_string());
    Outcome {
        input: written,
        output,
        complete: output >= written && tail == TRAILER,
        status,
        peak_rss,
        floor,
        seconds: start.elapsed().as_secs_f64(),
        warnings: errors.lines().count(),
        last_warning: errors
            .lines()
            .last()
            .map(|l| {
                l.trim_start_matches("htmlabs: warning: ")
                    .replace('|', "\\|")
            })
            .map(|l| l.chars().take(64).collect::<String>().trim_end().to_owned())
            .unwrap_or_default(),
    }
}

/// The launcher's standard error: the command's lines, and from its last
/// line the command's exit status, its peak RSS and the launcher's own (in
/// bytes). `launched`: how the launcher ended, for a failure's message.
fn launcher_report<'a>(errors: &'a str, launched: &str) -> (&'a str, String, usize, usize) {
    let (errors, report) = errors.trim_end().rsplit_once('\n').unwrap_or(("", errors));
    let Some([status, peak, floor]) = report
        .strip_prefix(MARK)
        .map(|r| r.split_whitespace().collect::<Vec<_>>())
        .and_then(|r| <[&str; 3]>::try_from(r).ok())
    else {
        panic!("the launcher failed ({launched}): {errors}{report}");
    };
    let kib = |n: &str| n.parse::<usize>().expect("KiB") * KIB;
    (errors, status.to_owned(), kib(peak), kib(floor))
}

/// The launcher: runs the command in its arguments with this process's
/// standard streams, and ends standard error with a line of its exit status,
/// its peak RSS and the launcher's own (in KiB).
fn launcher() -> ! {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let floor = own_peak_kib();
    let child = Command::new(&args[0])
        .args(&args[1..])
        .env_remove(LAUNCHER)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {:?}: {e}", args[0]));
    let (status, peak) = wait4(child.id());
    eprintln!("\n{MARK} {status} {peak} {floor}");
    process::exit(0);
}

/// Reaps the child: its exit status and its peak RSS in KiB (Linux's unit).
/// `wait4` gives this child's own rusage.
fn wait4(pid: u32) -> (String, usize) {
    let mut status = 0;
    // SAFETY: plain out-parameters; `pid` is our child, not yet reaped
    // (std's `Child` is never waited on).
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
    } else if libc::WIFSIGNALED(status) {
        format!("signal-{}", libc::WTERMSIG(status))
    } else {
        format!("raw-{status}")
    };
    (status, usage.ru_maxrss as usize)
}

/// This process's peak RSS so far, in KiB: `VmHWM`, the figure of its own
/// memory since `exec` (its `ru_maxrss` would carry this bench's).
fn own_peak_kib() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
            line.split_whitespace().nth(1)?.parse().ok()
        })
        .unwrap_or(0)
}

/// "1.0 GiB", "12.3 MiB", "980 KiB".
fn size(bytes: usize) -> String {
    if bytes >= GIB {
        format!("{:.2} GiB", bytes as f64 / GIB as f64)
    } else if bytes >= MIB {
        format!("{:.1} MiB", bytes as f64 / MIB as f64)
    } else {
        format!("{} KiB", bytes.div_ceil(KIB))
    }
}

/// The `--warc` rows: peak RSS against the archive's size and a record's,
/// and against the jobs on long pages.
fn warc_rows(bin: &Path) {
    let work = tempfile::tempdir().expect("a temporary directory");
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let mut runs = Vec::new();
    match common::corpus_dir() {
        None => println!("\nnote: no corpus: no --warc rows of the real pages"),
        Some(dir) => {
            let pages = common::pages(&dir);
            for (name, fill) in [("256 MiB", 256 * MIB), ("1 GiB", GIB)] {
                let path = work.path().join(format!("pages-{fill}.warc.gz"));
                let bytes = write_archive(&path, &pages, fill);
                runs.push((
                    format!("{name} of the real pages as responses, gzip members"),
                    bytes,
                    LIMIT,
                    cores,
                    warc_run(bin, &path, &["--max-memory", LIMIT]),
                ));
                let _ = std::fs::remove_file(&path);
            }
        }
    }
    let path = work.path().join("huge.warc");
    let bytes = write_huge(&path, GIB);
    for limit in [LIMIT, SMALL_LIMIT] {
        let args: &[&str] = &["--max-memory", limit];
        runs.push((
            "one response of 1 GiB of HTML, plain WARC".to_owned(),
            bytes,
            limit,
            cores,
            warc_run(bin, &path, args),
        ));
    }
    let _ = std::fs::remove_file(&path);
    let long = [
        (
            "links",
            "<p><a href=\"a/b.html\">link</a> <img src=\"../img/c.png\"></p>\n",
        ),
        ("one `srcset`", "a.png 1x, "),
    ];
    for (what, unit) in long {
        let path = work.path().join("long.warc.gz");
        let bytes = write_long(&path, unit, what != "links");
        for jobs in [1, 2, 16] {
            let jobs_flag = jobs.to_string();
            runs.push((
                format!("four 30 MiB pages ({what}) as gzip bodies, gzip members"),
                bytes,
                LIMIT,
                jobs,
                warc_run(bin, &path, &["--jobs", &jobs_flag, "--max-memory", LIMIT]),
            ));
        }
        let _ = std::fs::remove_file(&path);
    }
    println!();
    println!(
        "`{} --warc IN -o OUT --max-memory N [--jobs N]`, every core ({cores}) unless said; bound: --max-memory + {} + {} a thread (the jobs, the reading and the writing threads)",
        bin.display(),
        size(CONSTANT),
        size(A_THREAD)
    );
    println!();
    println!(
        "| archive | size | --max-memory | --jobs | exit status | peak RSS | within the bound | seconds | summary |"
    );
    println!("| --- | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |");
    for (name, size_in, limit, jobs, (status, peak, seconds, summary)) in &runs {
        let bound = bound(limit, jobs + 2);
        println!(
            "| {name} | {} | {limit} | {jobs} | {status} | {} | {} | {seconds:.1} | {summary} |",
            size(*size_in),
            size(*peak),
            within(*peak, bound),
        );
    }
}

/// Four responses whose bodies are 30 MiB of `unit` over and over (in one
/// `srcset` when `value`, else as they are) in a page, gzip-encoded, each
/// record a gzip member: an archive of a few hundred KiB; the file's size.
fn write_long(path: &Path, unit: &str, value: bool) -> usize {
    use flate2::{Compression, write::GzEncoder};
    use sha1::{Digest, Sha1};
    let (head, tail) = if value {
        ("<img srcset=\"", "\">")
    } else {
        ("", "")
    };
    let page = format!(
        "<!DOCTYPE html><html><body>{head}{}{tail}</body></html>",
        unit.repeat(30 * MIB / unit.len())
    );
    let mut body = GzEncoder::new(Vec::new(), Compression::best());
    body.write_all(page.as_bytes()).expect("in memory");
    let body = body.finish().expect("in memory");
    let mut out = io::BufWriter::new(std::fs::File::create(path).expect("the archive"));
    for id in 0..4 {
        let block = [
            format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
                body.len()
            )
            .as_bytes(),
            &body,
        ]
        .concat();
        let digest = Sha1::digest(&block);
        let mut member = GzEncoder::new(&mut out, Compression::fast());
        member
            .write_all(&response_head(URL, id, block.len(), &digest))
            .and_then(|()| member.write_all(&block))
            .and_then(|()| member.write_all(b"\r\n\r\n"))
            .and_then(|()| member.finish().map(|_| ()))
            .expect("the archive written");
    }
    out.flush().expect("the archive written");
    std::fs::metadata(path).map_or(0, |m| m.len() as usize)
}

/// Runs `--warc IN -o OUT` through the launcher: exit status, peak RSS,
/// seconds, and the summary line.
fn warc_run(bin: &Path, input: &Path, args: &[&str]) -> (String, usize, f64, String) {
    let output = input.with_extension("out");
    let start = Instant::now();
    let run = Command::new(std::env::current_exe().expect("the bench's own path"))
        .env(LAUNCHER, "1")
        .arg(bin)
        .arg("--warc")
        .arg(input)
        .arg("-o")
        .arg(&output)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run `{}`: {e}", bin.display()));
    let seconds = start.elapsed().as_secs_f64();
    let _ = std::fs::remove_file(&output);
    let errors = String::from_utf8_lossy(&run.stderr);
    let (errors, status, peak, _) = launcher_report(&errors, &run.status.to_string());
    let summary = errors
        .trim_end()
        .lines()
        .last()
        .unwrap_or_default()
        .trim_start_matches("htmlabs: ")
        .to_owned();
    (status, peak, seconds, summary)
}

/// A WARC record's header for a response of `block`'s length and digest.
fn response_head(target: &str, id: usize, length: usize, digest: &[u8]) -> Vec<u8> {
    format!(
        "WARC/1.1\r\nWARC-Type: response\r\nWARC-Target-URI: {target}\r\n\
         WARC-Date: 2026-11-25T00:00:00Z\r\nWARC-Record-ID: <urn:htmlabs-bench:{id}>\r\n\
         Content-Type: application/http; msgtype=response\r\n\
         WARC-Block-Digest: sha1:{}\r\nContent-Length: {length}\r\n\r\n",
        data_encoding::BASE32.encode(digest)
    )
    .into_bytes()
}

const HTTP_HEAD: &[u8] = b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n";

/// Responses of the pages, over and over, each a gzip member (level 1),
/// until `fill` bytes of blocks; the file's size.
fn write_archive(path: &Path, pages: &[common::Page], fill: usize) -> usize {
    use flate2::{Compression, write::GzEncoder};
    use sha1::{Digest, Sha1};
    let mut out = io::BufWriter::new(std::fs::File::create(path).expect("the archive"));
    let (mut filled, mut id) = (0, 0);
    while filled < fill {
        for page in pages {
            let block = [HTTP_HEAD, &page.bytes].concat();
            let digest = Sha1::digest(&block);
            let mut member = GzEncoder::new(&mut out, Compression::fast());
            member
                .write_all(&response_head(&page.url, id, block.len(), &digest))
                .and_then(|()| member.write_all(&block))
                .and_then(|()| member.write_all(b"\r\n\r\n"))
                .and_then(|()| member.finish().map(|_| ()))
                .expect("the archive written");
            filled += block.len();
            id += 1;
            if filled >= fill {
                break;
            }
        }
    }
    out.flush().expect("the archive written");
    std::fs::metadata(path).map_or(0, |m| m.len() as usize)
}

/// One response whose page is `fill` bytes of links, plain; the file's
/// size. The page is made twice: for its digest, then written.
fn write_huge(path: &Path, fill: usize) -> usize {
    use sha1::{Digest, Sha1};
    const UNIT: &[u8] = b"<p><a href=\"a/b.html\">link</a> <img src=\"../img/c.png\"></p>\n";
    let units = fill / UNIT.len();
    let length = HTTP_HEAD.len() + units * UNIT.len();
    let mut sha = Sha1::new();
    sha.update(HTTP_HEAD);
    for _ in 0..units {
        sha.update(UNIT);
    }
    let head = response_head(URL, 0, length, &sha.finalize());
    let mut out = io::BufWriter::new(std::fs::File::create(path).expect("the archive"));
    let written = out
        .write_all(&head)
        .and_then(|()| out.write_all(HTTP_HEAD))
        .and_then(|()| (0..units).try_for_each(|_| out.write_all(UNIT)))
        .and_then(|()| out.write_all(b"\r\n\r\n"))
        .and_then(|()| out.flush());
    written.expect("the archive written");
    std::fs::metadata(path).map_or(0, |m| m.len() as usize)
}
