//! `cargo bench --bench feeds`: how fast htmlabs rewrites the documents of
//! a site other than its pages, feeds and stylesheets, beside what reading
//! them takes the Python libraries that read them, and whether the XML
//! engine's memory stays flat as a feed grows.
//!
//! The feeds: an RSS 2.0 feed and an Atom feed of ~100 MB each, made of the
//! entries of the real feeds of `fixtures/feeds/` (the rubycocos and
//! node-feedparser ones: Daring Fireball, Tim Bray, Sam Ruby, No Starch,
//! Lambda the Ultimate…), over and over, under a head of the bench's own
//! that declares every namespace they use. The first copy of each entry is
//! as it was; in each copy after it, the links to the entry's own site
//! (`https://daringfireball.net/…`) are made root-relative and different
//! (`/c7/…`), as in the feeds whose relative links the issue is about, and
//! every other RSS item holds its HTML in `content:encoded` instead of
//! `description`. The HTML is the feeds' own: escaped text, CDATA sections
//! and Atom's inline XHTML.
//!
//! The rows, for each feed:
//!
//! - htmlabs's XML engine through the library (`htmlabs::Rewriter` of `Type::Xml`,
//!   the feed as one stream in 64 KiB writes, its retrieval URL as its
//!   base), and the release binary over the feed in a file (`--type
//!   xml`; a binary that does not take it leaves its row out, saying so);
//! - the page engine over the same HTML: the HTML of each entry (unescaped,
//!   as the XML engine hands it to the page engine) as a page of its own,
//!   one `htmlabs::rewrite(htmlabs::Type::Html, )` each, with the feed's URL as base: what the
//!   feed's HTML costs without its XML; its encoding found as a page's is
//!   (chardetng guesses it, the fragments having no `<meta>`), and given
//!   (`--encoding utf-8`), as the XML engine gives it;
//! - feedparser parsing the feed (`benches/feeds_python.py`, timed inside
//!   Python), with its defaults: relative URIs in entries resolved against
//!   the feed's URL (given as its `Content-Location`), HTML sanitized.
//!
//! And a site's stylesheets, real ones (`fixtures/stylesheet/`: Font
//! Awesome's `@font-face` rules, Bootstrap's rules with `data:` URLs,
//! Werkzeug's debugger stylesheet), each repeated to 1.5 MB: the stylesheet
//! engine (`htmlabs::Rewriter` of `Type::Css`, 64 KiB writes), the binary if
//! it takes them (`--type css`), and tinycss2 tokenizing them into
//! component values.
//!
//! Each round runs every measurement once, starting at a different one, so
//! that the noise of a shared machine hits all alike; a figure is the
//! median of the rounds, a ratio the median of the rounds' own ratios.
//! Wall and CPU seconds: the library's are this process's (`getrusage`),
//! Python's its own (`time.process_time`), the binary's the child's.
//!
//! Memory: the XML engine over each feed at 10 MB, 100 MB and 1 GB (a
//! tenth, once and ten times the feeds' size), each
//! in a child process (this bench run again, `HTMLABS_FEEDS_CHILD` set)
//! that makes the feed as it writes it, 64 KiB at a time, and rewrites it
//! into a counter: its peak RSS (`VmHWM`, the high-water mark of its own
//! address space, which `exec` starts afresh; `wait4`'s figure would count
//! the parent's memory, which holds the feeds, as `benches/memory.rs`
//! explains) must not grow with the feed.
//!
//! `HTMLABS_BENCH_ROUNDS` sets the rounds (default 3), `HTMLABS_FEED_MB`
//! the feeds' size (default 100), `HTMLABS_BIN` another binary,
//! `HTMLABS_WARC_PYTHON` the Python that has feedparser and tinycss2
//! (else `python3`; the bench fails without them).

mod common;

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{self, Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use htmlabs::{Config, Layers, Standard};
use memchr::memmem;

use common::{TempFile, fail, median, spread};

/// The size of the writes, as `read_from` reads its input.
const CHUNK: usize = 64 * 1024;
const MB: f64 = 1e6;
const MIB: f64 = (1 << 20) as f64;
/// Each stylesheet, repeated to at least this size.
const SHEET: usize = 1_500_000;
/// The feeds' sizes in the memory rows, as multiples of the feeds' size
/// (tenths): 10 MB, 100 MB and 1 GB by default.
const MEMORY_SIZES: [usize; 3] = [1, 10, 100];
/// Flat: the largest feed's peak RSS at most this much over the smallest's.
const FLAT: f64 = 1.0 * MIB;
/// Set in the environment of a memory row's child: `FORMAT SIZE`.
const CHILD: &str = "HTMLABS_FEEDS_CHILD";
const RSS_URL: &str = "https://blog.example.com/feed.xml";
const ATOM_URL: &str = "https://blog.example.com/atom.xml";

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Format {
    Rss,
    Atom,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::Rss => "RSS 2.0",
            Format::Atom => "Atom",
        }
    }

    fn media_type(self) -> &'static str {
        match self {
            Format::Rss => "application/rss+xml",
            Format::Atom => "application/atom+xml",
        }
    }

    fn url(self) -> &'static str {
        match self {
            Format::Rss => RSS_URL,
            Format::Atom => ATOM_URL,
        }
    }
}

/// An entry of a real feed.
struct Entry {
    bytes: Vec<u8>,
    /// Its feed's origin, `https://host/`: what the copies make
    /// root-relative.
    origin: Vec<u8>,
    /// The HTML it holds (RSS `description`; Atom texts of type `html`,
    /// unescaped, and `xhtml`, as they are).
    html: Vec<Vec<u8>>,
}

/// A feed the bench writes: its head, the entries of the real feeds of its
/// format over and over, its tail.
struct Feed {
    format: Format,
    head: Vec<u8>,
    tail: Vec<u8>,
    entries: Vec<Entry>,
    /// The real feeds, and how many entries each gave.
    sources: Vec<(String, usize)>,
}

fn main() {
    if let Ok(child) = std::env::var(CHILD) {
        memory_child(&child);
        return;
    }
    let rounds = common::env_number("HTMLABS_BENCH_ROUNDS", 3);
    let feed_size = common::env_number("HTMLABS_FEED_MB", 100) * 1_000_000;
    let (_, _cleanup) = common::work("feeds", None);
    let bin = common::binary();

    eprintln!("feeds bench: making the feeds…");
    let feeds = feeds();
    // In memory for the library, on disk for the binary and Python.
    let mut made = Vec::new();
    for feed in &feeds {
        let mut bytes = Vec::with_capacity(feed_size + 64 * 1024);
        let mut html = Vec::new();
        let entries = feed.write(feed_size, |b| bytes.extend_from_slice(b), Some(&mut html));
        let name = format!("{:?}.xml", feed.format).to_lowercase();
        let file = TempFile::new(&name, &bytes);
        made.push(Made {
            feed,
            bytes,
            html,
            entries,
            file,
        });
    }
    let sheets = sheets();

    let python = Python::start(&made, &sheets);
    let binary_xml = binary_takes(
        &bin,
        "xml",
        made[0].feed.format.url(),
        &small_feed(&feeds[0]),
    );
    let binary_css = binary_takes(&bin, "css", &sheets[0].url, &sheets[0].bytes[..1000]);

    // Every way's output is checked once, untimed: complete, warned of
    // nothing, its URLs rewritten.
    for m in &made {
        let (xml, pages) = (xml_stream(m), pages(m, None));
        m.check(&xml, &pages);
        eprintln!(
            "feeds bench: {}: {:.1} MB, {} entries; the XML engine: {} URL values, {} rewritten; \
             the page engine over its HTML: {} values, {} rewritten",
            m.feed.format.name(),
            m.bytes.len() as f64 / MB,
            m.entries,
            xml.seen,
            xml.rewritten,
            pages.seen,
            pages.rewritten
        );
    }
    let css = stylesheets(&sheets);
    assert!(css.rewritten > 0, "the stylesheet engine rewrote nothing");

    // Each measurement: its key and a run that times it.
    type Measure<'a> = (String, Box<dyn FnMut() -> Sample + 'a>);
    let mut measures: Vec<Measure> = Vec::new();
    for m in &made {
        let f = m.feed.format.name();
        measures.push((
            format!("{f} xml"),
            Box::new(move || timed_here(|| xml_stream(m))),
        ));
        measures.push((
            format!("{f} pages"),
            Box::new(move || timed_here(|| pages(m, None))),
        ));
        measures.push((
            format!("{f} pages utf-8"),
            Box::new(move || timed_here(|| pages(m, Some(encoding_rs::UTF_8)))),
        ));
        let python = &python;
        measures.push((
            format!("{f} feedparser"),
            Box::new(move || python.time(&format!("{f} feedparser"), m.bytes.len())),
        ));
        if binary_xml.is_ok() {
            let bin = &bin;
            measures.push((
                format!("{f} binary"),
                Box::new(move || binary(bin, "xml", &m.file.0, m.feed.format.url())),
            ));
        }
    }
    let css_len: usize = sheets.iter().map(|s| s.bytes.len()).sum();
    measures.push((
        "css engine".into(),
        Box::new(|| timed_here(|| stylesheets(&sheets))),
    ));
    measures.push((
        "css tinycss2".into(),
        Box::new(|| python.time("css tinycss2", css_len)),
    ));
    if binary_css.is_ok() {
        let (bin, sheets) = (&bin, &sheets);
        measures.push((
            "css binary".into(),
            Box::new(move || {
                sheets
                    .iter()
                    .map(|s| binary(bin, "css", &s.file.0, &s.url))
                    .fold(Sample::default(), |a, b| Sample {
                        wall: a.wall + b.wall,
                        cpu: a.cpu + b.cpu,
                    })
            }),
        ));
    }

    let mut samples: BTreeMap<String, Vec<Sample>> = BTreeMap::new();
    let count = measures.len();
    for round in 0..rounds {
        for k in 0..count {
            let (key, run) = &mut measures[(round + k) % count];
            let sample = run();
            samples.entry(key.clone()).or_default().push(sample);
        }
        eprintln!("feeds bench: round {} of {rounds} done", round + 1);
    }
    drop(measures);
    let python_versions = python.stop();

    let memory = memory_rows(feed_size);

    // The report.
    println!("command: cargo bench --bench feeds");
    println!("machine: {}", common::machine());
    println!("{python_versions}; {rounds} rounds; MB = 10^6 bytes, MiB = 2^20");
    println!();
    for m in &made {
        let html: usize = m.html.iter().map(Vec::len).sum();
        let sources: Vec<String> = m
            .feed
            .sources
            .iter()
            .map(|(name, n)| format!("{name} ({n})"))
            .collect();
        println!(
            "{} feed: {:.1} MB, {} entries, the {} entries of {} over and over; {} pages of HTML in them, {:.1} MB",
            m.feed.format.name(),
            m.bytes.len() as f64 / MB,
            m.entries,
            m.feed.entries.len(),
            sources.join(", "),
            m.html.len(),
            html as f64 / MB
        );
    }
    let names: Vec<String> = sheets
        .iter()
        .map(|s| format!("{} ({:.1} MB)", s.name, s.bytes.len() as f64 / MB))
        .collect();
    println!(
        "Stylesheets: {}, {} URLs rewritten",
        names.join(", "),
        css.rewritten
    );
    println!();
    println!("| input | what | MB | MB/s | wall s: median (fastest–slowest) | CPU s |");
    println!("| --- | --- | ---: | ---: | ---: | ---: |");
    let row = |input: &str, what: &str, key: &str, len: usize| {
        let Some(s) = samples.get(key) else {
            return;
        };
        let wall = median(s.iter().map(|s| s.wall).collect());
        let cpu = median(s.iter().map(|s| s.cpu).collect());
        let (fast, slow) = spread(s.iter().map(|s| s.wall));
        println!(
            "| {input} | {what} | {:.1} | {:.1} | {wall:.3} ({fast:.3}–{slow:.3}) | {cpu:.3} |",
            len as f64 / MB,
            len as f64 / MB / wall
        );
    };
    for m in &made {
        let f = m.feed.format.name();
        let html: usize = m.html.iter().map(Vec::len).sum();
        row(
            f,
            "htmlabs XML engine, library, one stream, 64 KiB writes",
            &format!("{f} xml"),
            m.bytes.len(),
        );
        match &binary_xml {
            Ok(()) => row(
                f,
                "htmlabs binary, `--type xml`, file → /dev/null",
                &format!("{f} binary"),
                m.bytes.len(),
            ),
            Err(why) => println!("| {f} | htmlabs binary: {why} | – | – | – | – |"),
        }
        row(
            f,
            "htmlabs page engine, library, each entry's HTML a page (its MB)",
            &format!("{f} pages"),
            html,
        );
        row(
            f,
            "the same, `--encoding utf-8` (as the XML engine runs the page engine on it)",
            &format!("{f} pages utf-8"),
            html,
        );
        row(
            f,
            "feedparser.parse (relative URIs resolved, HTML sanitized)",
            &format!("{f} feedparser"),
            m.bytes.len(),
        );
    }
    row(
        "stylesheets",
        "htmlabs stylesheet engine, library, 64 KiB writes",
        "css engine",
        css_len,
    );
    match &binary_css {
        Ok(()) => row(
            "stylesheets",
            "htmlabs binary, `--type css`, file → /dev/null",
            "css binary",
            css_len,
        ),
        Err(why) => println!("| stylesheets | htmlabs binary: {why} | – | – | – | – |"),
    }
    row(
        "stylesheets",
        "tinycss2: decode_stylesheet_bytes, parse_component_value_list",
        "css tinycss2",
        css_len,
    );
    println!();
    // How many times `a` took `b`'s time, round by round.
    let ratio = |a: &str, b: &str| {
        median(
            samples[a]
                .iter()
                .zip(&samples[b])
                .map(|(a, b)| a.wall / b.wall)
                .collect(),
        )
    };
    for m in &made {
        let f = m.feed.format.name();
        println!(
            "- {f}: the XML engine is {:.1}× as fast as feedparser; its time is {:.2}× the page engine's over the feed's HTML alone, {:.2}× with `--encoding utf-8`",
            ratio(&format!("{f} feedparser"), &format!("{f} xml")),
            ratio(&format!("{f} xml"), &format!("{f} pages")),
            ratio(&format!("{f} xml"), &format!("{f} pages utf-8")),
        );
    }
    println!(
        "- Stylesheets: the stylesheet engine is {:.1}× as fast as tinycss2's tokenizer",
        ratio("css tinycss2", "css engine")
    );
    println!();
    println!("Memory: the XML engine over a feed made as it is written, in a child process:");
    println!();
    println!("| feed | size | peak RSS | seconds | URL values rewritten |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    for r in &memory {
        println!(
            "| {} | {} MB | {:.1} MiB | {:.1} | {} |",
            r.format.name(),
            megabytes(r.size),
            r.peak as f64 / MIB,
            r.seconds,
            r.rewritten
        );
    }
    println!();
    for format in [Format::Rss, Format::Atom] {
        let rows: Vec<&MemoryRow> = memory.iter().filter(|r| r.format == format).collect();
        let (first, last) = (rows[0], rows[rows.len() - 1]);
        let grew = last.peak as f64 - first.peak as f64;
        println!(
            "- {}: the {} MB feed's peak RSS is {:+.2} MiB from the {} MB feed's (flat: within {:.0} MiB: {})",
            format.name(),
            megabytes(last.size),
            grew / MIB,
            megabytes(first.size),
            FLAT / MIB,
            if grew <= FLAT { "met" } else { "missed" }
        );
    }
}

/// A feed as the bench made it.
struct Made<'a> {
    feed: &'a Feed,
    bytes: Vec<u8>,
    /// Each entry's HTML, a page each.
    html: Vec<Vec<u8>>,
    entries: usize,
    file: TempFile,
}

impl Made<'_> {
    fn check(&self, xml: &Done, pages: &Done) {
        let f = self.feed.format.name();
        assert!(
            xml.warnings.is_empty(),
            "{f}: the XML engine warned: {:?}",
            xml.warnings
        );
        assert!(
            pages.warnings.is_empty(),
            "{f}: the page engine warned: {:?}",
            pages.warnings
        );
        assert!(
            xml.rewritten > 0 && xml.output > self.bytes.len(),
            "{f}: the XML engine rewrote nothing"
        );
    }
}

/// What a run of htmlabs came to.
#[derive(Default)]
struct Done {
    output: usize,
    seen: usize,
    rewritten: usize,
    warnings: Vec<String>,
}

impl Done {
    fn add(&mut self, report: &htmlabs::Report, output: usize) {
        self.output += output;
        self.seen += report.counts.seen;
        self.rewritten += report.counts.rewritten;
        self.warnings
            .extend(report.warnings.iter().map(ToString::to_string));
    }
}

fn layers(url: &str) -> Layers {
    Layers::default()
        .with_retrieval(Standard::Rfc1808, url, "--retrieved-from")
        .expect("the bench's URLs are absolute")
}

/// The XML engine over the feed, one stream in 64 KiB writes.
fn xml_stream(m: &Made) -> Done {
    let url = m.feed.format.url();
    let mut rewriter =
        htmlabs::Rewriter::new(htmlabs::Type::Xml, Config::default(), layers(url), Count(0));
    for chunk in m.bytes.chunks(CHUNK) {
        rewriter.write(chunk).expect("htmlabs");
    }
    let (report, out) = rewriter.end().expect("htmlabs");
    let mut done = Done::default();
    done.add(&report, out.0);
    done
}

/// The page engine over each entry's HTML, a page each, its encoding
/// `encoding` if given (`--encoding`), else found as for any page (a
/// `<meta>`, else chardetng's guess).
fn pages(m: &Made, encoding: Option<&'static encoding_rs::Encoding>) -> Done {
    let url = m.feed.format.url();
    // One config for the run, as a source shares it between documents.
    let config = std::sync::Arc::new({
        let mut config = Config::default();
        config.encoding = encoding;
        config
    });
    let mut done = Done::default();
    for page in &m.html {
        let mut out = Count(0);
        let report = htmlabs::rewrite(
            htmlabs::Type::Html,
            config.clone(),
            layers(url),
            &page[..],
            &mut out,
        )
        .expect("htmlabs");
        done.add(&report, out.0);
    }
    done
}

/// A stylesheet: real bytes, repeated.
struct Sheet {
    name: String,
    url: String,
    bytes: Vec<u8>,
    file: TempFile,
}

/// The real stylesheets of `fixtures/stylesheet/` (its README), each
/// repeated to [`SHEET`] bytes, with the URL its case gives it.
fn sheets() -> Vec<Sheet> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stylesheet");
    [
        "font-awesome-font-faces",
        "bootstrap-data-urls",
        "werkzeug-debugger",
    ]
    .into_iter()
    .map(|case| {
        let dir = root.join(case);
        let one = std::fs::read(dir.join("input.css")).expect("a fixture");
        let args = std::fs::read_to_string(dir.join("args")).expect("a fixture's args");
        let args: Vec<&str> = args.lines().collect();
        let url = args
            .iter()
            .position(|&a| a == "-r")
            .and_then(|at| args.get(at + 1))
            .unwrap_or_else(|| fail(&format!("{case}: no `-r URL` in its args")));
        let mut bytes = Vec::with_capacity(SHEET + one.len());
        while bytes.len() < SHEET {
            bytes.extend_from_slice(&one);
            bytes.push(b'\n');
        }
        let file = TempFile::new(&format!("{case}.css"), &bytes);
        Sheet {
            name: case.to_owned(),
            url: (*url).to_owned(),
            bytes,
            file,
        }
    })
    .collect()
}

/// The stylesheet engine over each stylesheet, in 64 KiB writes.
fn stylesheets(sheets: &[Sheet]) -> Done {
    let mut done = Done::default();
    for sheet in sheets {
        let mut rewriter = htmlabs::Rewriter::new(
            htmlabs::Type::Css,
            Config::default(),
            layers(&sheet.url),
            Count(0),
        );
        for chunk in sheet.bytes.chunks(CHUNK) {
            rewriter.write(chunk).expect("htmlabs");
        }
        let (report, out) = rewriter.end().expect("htmlabs");
        done.add(&report, out.0);
    }
    assert!(done.warnings.is_empty(), "{:?}", done.warnings);
    done
}

/// One measurement: wall and CPU seconds.
#[derive(Clone, Copy, Default)]
struct Sample {
    wall: f64,
    cpu: f64,
}

/// This process's CPU seconds, user and system.
fn cpu_here() -> f64 {
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage writes into the struct it is given.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut usage) };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

/// `run` in this process, timed.
fn timed_here(run: impl FnOnce() -> Done) -> Sample {
    let (cpu, start) = (cpu_here(), Instant::now());
    std::hint::black_box(run());
    Sample {
        wall: start.elapsed().as_secs_f64(),
        cpu: cpu_here() - cpu,
    }
}

/// The binary over `file` as a document of `kind`, output to `/dev/null`.
fn binary(bin: &Path, kind: &str, file: &Path, url: &str) -> Sample {
    let null = File::create("/dev/null").expect("open /dev/null");
    let (run, _) = common::timed(
        Command::new(bin)
            .args(["-q", "--type", kind, "-r", url])
            .arg(file)
            .stdout(null),
    );
    Sample {
        wall: run.wall,
        cpu: run.cpu,
    }
}

/// Whether the binary takes a document of `kind` (`--type`) and writes
/// what the library writes; `Err` says why not, as the table shows it.
fn binary_takes(bin: &Path, kind: &str, url: &str, document: &[u8]) -> Result<(), String> {
    let file = TempFile::new(&format!("probe.{kind}"), document);
    let out = Command::new(bin)
        .args(["-q", "--type", kind, "-r", url])
        .arg(&file.0)
        .output()
        .unwrap_or_else(|e| fail(&format!("cannot run `{}`: {e}", bin.display())));
    let expected = match kind {
        "xml" => {
            htmlabs::rewrite_bytes(htmlabs::Type::Xml, Config::default(), layers(url), document)
        }
        _ => htmlabs::rewrite_bytes(htmlabs::Type::Css, Config::default(), layers(url), document),
    }
    .expect("htmlabs")
    .0;
    if out.status.success() && out.stdout == expected {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    let first = said
        .lines()
        .next()
        .unwrap_or("its output is not the library's");
    Err(format!(
        "not measured: it does not take {kind} yet (exit status {}: `{}`)",
        out.status.code().unwrap_or(-1),
        first.trim()
    ))
}

/// A `Write` that counts and drops.
struct Count(usize);

impl Write for Count {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0 += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

// ---------------------------------------------------------------- the feeds

/// The RSS and the Atom feed the bench writes, from the real feeds of
/// `fixtures/feeds/` (rubycocos and node-feedparser, with the URLs of
/// `bases.tsv`).
fn feeds() -> [Feed; 2] {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/feeds");
    let tsv = std::fs::read_to_string(dir.join("bases.tsv")).expect("fixtures/feeds/bases.tsv");
    let mut feeds = [Format::Rss, Format::Atom].map(|format| Feed {
        format,
        head: Vec::new(),
        tail: Vec::new(),
        entries: Vec::new(),
        sources: Vec::new(),
    });
    // Every namespace the real feeds' roots declare, by prefix.
    let mut namespaces: [BTreeMap<String, String>; 2] = Default::default();
    for line in tsv.lines().filter(|l| !l.is_empty() && !l.starts_with('#')) {
        let (file, url) = line
            .split_once('\t')
            .unwrap_or_else(|| fail(&format!("bases.tsv: `{line}`")));
        if !file.starts_with("rubycocos/") && !file.starts_with("node-feedparser/") {
            continue;
        }
        let bytes = std::fs::read(dir.join(file)).expect("a feed of bases.tsv");
        let (format, root) = match (start_tag(&bytes, b"rss"), start_tag(&bytes, b"feed")) {
            (Some(root), _) => (Format::Rss, root),
            (None, Some(root)) => (Format::Atom, root),
            _ => fail(&format!("{file}: neither RSS nor Atom")),
        };
        let i = format as usize;
        for (prefix, uri) in xmlns(&bytes[root]) {
            let known = namespaces[i].entry(prefix.clone()).or_insert(uri.clone());
            assert_eq!(*known, uri, "{file}: xmlns:{prefix} is another namespace");
        }
        let origin = origin(url);
        let entries = entries(&bytes, format);
        feeds[i].sources.push((file.to_owned(), entries.len()));
        for entry in entries {
            let html = html_of(entry, format);
            feeds[i].entries.push(Entry {
                bytes: entry.to_vec(),
                origin: origin.clone(),
                html,
            });
        }
    }
    for (feed, namespaces) in feeds.iter_mut().zip(&namespaces) {
        let declared: String = namespaces
            .iter()
            .map(|(prefix, uri)| format!(" xmlns:{prefix}=\"{uri}\""))
            .collect();
        let url = feed.format.url();
        let (head, tail) = match feed.format {
            Format::Rss => (
                format!(
                    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
                     <rss version=\"2.0\" xmlns:content=\"http://purl.org/rss/1.0/modules/content/\"{declared}>\n\
                     <channel>\n<title>htmlabs feeds bench: the items of real RSS feeds</title>\n\
                     <link>https://blog.example.com/</link>\n\
                     <description>The items of the feeds of fixtures/feeds, over and over</description>\n\
                     <atom:link href=\"{url}\" rel=\"self\" type=\"application/rss+xml\"/>\n"
                ),
                "</channel>\n</rss>\n",
            ),
            Format::Atom => (
                format!(
                    "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n\
                     <feed xmlns=\"http://www.w3.org/2005/Atom\"{declared}>\n\
                     <title>htmlabs feeds bench: the entries of real Atom feeds</title>\n\
                     <link href=\"https://blog.example.com/\"/>\n<link rel=\"self\" href=\"{url}\"/>\n\
                     <id>{url}</id>\n<updated>2026-11-26T00:00:00Z</updated>\n"
                ),
                "</feed>\n",
            ),
        };
        assert!(
            feed.format == Format::Atom || namespaces.contains_key("atom"),
            "the RSS head's atom:link needs the feeds' xmlns:atom"
        );
        feed.head = head.into_bytes();
        feed.tail = tail.as_bytes().to_vec();
        assert!(
            !feed.entries.is_empty(),
            "no {} entries",
            feed.format.name()
        );
    }
    feeds
}

/// The range of the start tag of the root element `name` (`<rss …>`), not
/// one that only starts with the name (`<feedburner:…>`).
fn start_tag(bytes: &[u8], name: &[u8]) -> Option<std::ops::Range<usize>> {
    let open = [b"<", name].concat();
    memmem::find_iter(bytes, &open).find_map(|at| {
        let after = *bytes.get(at + open.len())?;
        if !(after == b'>' || after.is_ascii_whitespace()) {
            return None;
        }
        let end = at + bytes[at..].iter().position(|&b| b == b'>')? + 1;
        Some(at..end)
    })
}

/// The `xmlns:prefix="uri"` declarations of a start tag.
fn xmlns(tag: &[u8]) -> Vec<(String, String)> {
    let tag = String::from_utf8_lossy(tag);
    let mut out = Vec::new();
    let mut rest = &tag[..];
    while let Some(at) = rest.find("xmlns:") {
        rest = &rest[at + 6..];
        let Some((prefix, value)) = rest.split_once('=') else {
            break;
        };
        let quote = value.chars().next().unwrap_or('"');
        let value = &value[1..];
        let end = value.find(quote).unwrap_or(value.len());
        out.push((prefix.trim().to_owned(), value[..end].to_owned()));
        rest = &value[end..];
    }
    out
}

/// `scheme://host/` of a URL.
fn origin(url: &str) -> Vec<u8> {
    let after = url.find("://").map_or(0, |at| at + 3);
    let end = url[after..].find('/').map_or(url.len(), |at| after + at);
    format!("{}/", &url[..end]).into_bytes()
}

/// The entries of a real feed (`<item>…</item>`, `<entry>…</entry>`).
fn entries(bytes: &[u8], format: Format) -> Vec<&[u8]> {
    let name: &[u8] = match format {
        Format::Rss => b"item",
        Format::Atom => b"entry",
    };
    let close = [b"</", name, b">"].concat();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(tag) = start_tag(&bytes[from..], name) {
        let start = from + tag.start;
        let Some(end) = memmem::find(&bytes[start..], &close) else {
            break;
        };
        let end = start + end + close.len();
        out.push(&bytes[start..end]);
        from = end;
    }
    out
}

/// The HTML of an entry, as the XML engine hands it to the page engine:
/// RSS `description` and `content:encoded`, Atom texts of type `html`
/// (their text, unescaped) and `xhtml` (their markup, as it is).
fn html_of(entry: &[u8], format: Format) -> Vec<Vec<u8>> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_reader(entry);
    let mut out = Vec::new();
    let mut depth = 0usize;
    // The open element that holds HTML: its depth, where its content
    // starts, and whether it is XHTML.
    let mut open: Option<(usize, usize, bool)> = None;
    loop {
        let before = reader.buffer_position() as usize;
        match reader.read_event().expect("the real feeds are well-formed") {
            Event::Eof => return out,
            Event::Start(tag) => {
                depth += 1;
                if open.is_some() {
                    continue;
                }
                let kind = tag
                    .try_get_attribute("type")
                    .ok()
                    .flatten()
                    .map(|a| a.value.into_owned());
                let local = tag.local_name();
                let html = match format {
                    Format::Rss => matches!(local.as_ref(), b"description" | b"encoded"),
                    Format::Atom => {
                        matches!(
                            local.as_ref(),
                            b"content" | b"summary" | b"title" | b"subtitle" | b"rights"
                        ) && matches!(kind.as_deref(), Some(b"html" | b"xhtml"))
                    }
                };
                if html {
                    let start = reader.buffer_position() as usize;
                    open = Some((depth, start, kind.as_deref() == Some(b"xhtml")));
                }
            }
            Event::End(_) => {
                if let Some((at, start, xhtml)) = open {
                    if at == depth {
                        let raw = &entry[start..before];
                        out.push(if xhtml { raw.to_vec() } else { unescape(raw) });
                        open = None;
                    }
                }
                depth -= 1;
            }
            _ => {}
        }
    }
}

/// XML character data as text: CDATA sections' contents, the predefined
/// entities and character references decoded.
fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw[i..].starts_with(b"<![CDATA[") {
            let body = &raw[i + 9..];
            let end = memmem::find(body, b"]]>").unwrap_or(body.len());
            out.extend_from_slice(&body[..end]);
            i = (i + 9 + end + 3).min(raw.len());
            continue;
        }
        if raw[i] == b'&' {
            let name_end = raw[i..].iter().position(|&b| b == b';').map(|e| i + e);
            let c = name_end.and_then(|end| {
                let name = std::str::from_utf8(&raw[i + 1..end]).ok()?;
                match name {
                    "lt" => Some('<'),
                    "gt" => Some('>'),
                    "amp" => Some('&'),
                    "quot" => Some('"'),
                    "apos" => Some('\''),
                    _ => {
                        let number = name.strip_prefix('#')?;
                        let code = match number.strip_prefix('x') {
                            Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                            None => number.parse().ok()?,
                        };
                        char::from_u32(code)
                    }
                }
            });
            if let (Some(c), Some(end)) = (c, name_end) {
                out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                i = end + 1;
                continue;
            }
        }
        out.push(raw[i]);
        i += 1;
    }
    out
}

/// `bytes` with every `from` replaced by `to`.
fn replace(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    for at in memmem::find_iter(bytes, from) {
        out.extend_from_slice(&bytes[copied..at]);
        out.extend_from_slice(to);
        copied = at + from.len();
    }
    out.extend_from_slice(&bytes[copied..]);
    out
}

impl Entry {
    /// Copy `copy` of the entry: the first as it is; the others with their
    /// links to their own site made root-relative under `/c<copy>/`, and,
    /// in RSS, every other one with its HTML in `content:encoded`.
    fn copy(&self, copy: usize, format: Format) -> Vec<u8> {
        if copy == 0 {
            return self.bytes.clone();
        }
        let bytes = replace(&self.bytes, &self.origin, format!("/c{copy}/").as_bytes());
        if format == Format::Rss && copy % 2 == 1 {
            let bytes = replace(&bytes, b"<description>", b"<content:encoded>");
            return replace(&bytes, b"</description>", b"</content:encoded>");
        }
        bytes
    }

    /// The HTML of copy `copy`, a page a piece.
    fn html_copy(&self, copy: usize) -> impl Iterator<Item = Vec<u8>> + '_ {
        let to = format!("/c{copy}/");
        self.html.iter().map(move |piece| match copy {
            0 => piece.clone(),
            _ => replace(piece, &self.origin, to.as_bytes()),
        })
    }
}

impl Feed {
    /// Writes the feed to `put`: its head, its entries over and over
    /// (whole) until the next would pass `size` with the tail, the tail.
    /// Each entry's HTML goes to `html`, if given, a page each. Returns the
    /// number of entries.
    fn write(
        &self,
        size: usize,
        mut put: impl FnMut(&[u8]),
        mut html: Option<&mut Vec<Vec<u8>>>,
    ) -> usize {
        put(&self.head);
        let mut written = self.head.len();
        let mut count = 0;
        'copies: for copy in 0.. {
            for entry in &self.entries {
                let bytes = entry.copy(copy, self.format);
                if written + bytes.len() + self.tail.len() > size && count > 0 {
                    break 'copies;
                }
                put(&bytes);
                written += bytes.len();
                count += 1;
                if let Some(html) = html.as_mut() {
                    html.extend(entry.html_copy(copy));
                }
            }
        }
        put(&self.tail);
        count
    }
}

/// The feed with its first entry only: what the binary is tried with.
fn small_feed(feed: &Feed) -> Vec<u8> {
    let mut bytes = Vec::new();
    feed.write(1, |b| bytes.extend_from_slice(b), None);
    bytes
}

// ------------------------------------------------------------------- Python

/// `benches/feeds_python.py`, running beside the bench and asked for one
/// set of documents at a time, so that its rounds interleave with the
/// others.
struct Python {
    child: Child,
    stdin: ChildStdin,
    replies: std::cell::RefCell<BufReader<ChildStdout>>,
    versions: String,
    _manifest: TempFile,
}

impl Python {
    fn start(made: &[Made], sheets: &[Sheet]) -> Python {
        let mut manifest = String::new();
        for m in made {
            manifest.push_str(&format!(
                "{} feedparser\t{}\t{}\t{}\n",
                m.feed.format.name(),
                m.feed.format.media_type(),
                m.file.0.display(),
                m.feed.format.url()
            ));
        }
        for sheet in sheets {
            manifest.push_str(&format!(
                "css tinycss2\ttext/css\t{}\t{}\n",
                sheet.file.0.display(),
                sheet.url
            ));
        }
        let manifest = TempFile::new("python.tsv", manifest.as_bytes());
        let python = std::env::var_os("HTMLABS_WARC_PYTHON")
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("python3"));
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/feeds_python.py");
        let mut child = Command::new(&python)
            .arg(&script)
            .arg(&manifest.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| fail(&format!("cannot run {}: {e}", python.display())));
        let stdin = child.stdin.take().expect("piped");
        let mut replies = BufReader::new(child.stdout.take().expect("piped"));
        let mut ready = String::new();
        let _ = replies.read_line(&mut ready);
        let Some(versions) = ready.trim().strip_prefix("ready ") else {
            // A comparison silently left out would read as a pass.
            fail(&format!(
                "benches/feeds_python.py did not start with `{}` (it needs feedparser and \
                 tinycss2: `pip install feedparser tinycss2`, or HTMLABS_WARC_PYTHON=a Python \
                 that has them)",
                python.display()
            ));
        };
        Python {
            versions: versions.to_owned(),
            child,
            stdin,
            replies: std::cell::RefCell::new(replies),
            _manifest: manifest,
        }
    }

    /// The time Python takes over the set `set`, of `len` bytes.
    fn time(&self, set: &str, len: usize) -> Sample {
        (&self.stdin)
            .write_all(format!("{set}\n").as_bytes())
            .expect("write to feeds_python.py");
        let mut reply = String::new();
        self.replies
            .borrow_mut()
            .read_line(&mut reply)
            .expect("read from feeds_python.py");
        let fields: Vec<&str> = reply.split_whitespace().collect();
        let [wall, cpu, bytes, items, problems] = fields[..] else {
            fail(&format!(
                "feeds_python.py: unexpected reply `{}`",
                reply.trim()
            ));
        };
        assert_eq!(
            bytes.parse::<usize>().ok(),
            Some(len),
            "{set}: Python read other bytes"
        );
        assert!(
            items.parse::<usize>().is_ok_and(|n| n > 0),
            "{set}: Python read nothing"
        );
        assert_eq!(
            problems, "0",
            "{set}: feedparser found the feed not well-formed"
        );
        Sample {
            wall: wall.parse().expect("seconds"),
            cpu: cpu.parse().expect("seconds"),
        }
    }

    /// Ends the script; its modules' versions.
    fn stop(mut self) -> String {
        drop(self.stdin);
        let _ = self.child.wait();
        self.versions.replace(" tinycss2", ", tinycss2")
    }
}

// ------------------------------------------------------------------- memory

/// A size in MB, whole from 10 MB on.
fn megabytes(bytes: usize) -> String {
    let mb = bytes as f64 / MB;
    if mb >= 10.0 {
        format!("{mb:.0}")
    } else {
        format!("{mb:.1}")
    }
}

/// One memory row: a feed's size and the child's peak.
struct MemoryRow {
    format: Format,
    size: usize,
    peak: usize,
    seconds: f64,
    rewritten: usize,
}

/// Runs the memory rows' children, one after the other.
fn memory_rows(feed_size: usize) -> Vec<MemoryRow> {
    let exe = std::env::current_exe().expect("the bench's own path");
    let mut rows = Vec::new();
    for format in [Format::Rss, Format::Atom] {
        for tenths in MEMORY_SIZES {
            let size = feed_size / 10 * tenths;
            eprintln!(
                "feeds bench: memory, {} at {} MB…",
                format.name(),
                megabytes(size)
            );
            let out = Command::new(&exe)
                .env(CHILD, format!("{format:?} {size}"))
                .stderr(Stdio::inherit())
                .output()
                .unwrap_or_else(|e| fail(&format!("cannot run {}: {e}", exe.display())));
            let reply = String::from_utf8_lossy(&out.stdout);
            let fields: Vec<&str> = reply.split_whitespace().collect();
            let [peak, seconds, written, rewritten] = fields[..] else {
                fail(&format!(
                    "a memory child ({format:?} {size}) failed ({}): `{}`",
                    out.status,
                    reply.trim()
                ));
            };
            assert!(
                written.parse::<usize>().is_ok_and(|w| w >= size * 9 / 10),
                "a memory child wrote {written} bytes of a {size}-byte feed"
            );
            rows.push(MemoryRow {
                format,
                size,
                peak: peak.parse().expect("bytes"),
                seconds: seconds.parse().expect("seconds"),
                rewritten: rewritten.parse().expect("a count"),
            });
        }
    }
    rows
}

/// A memory row's child: makes the feed `FORMAT SIZE` as it writes it to
/// the XML engine, 64 KiB at a time, and prints its peak RSS in bytes, the
/// seconds, the bytes its output took and the URLs it rewrote.
fn memory_child(what: &str) {
    let (format, size) = what
        .split_once(' ')
        .and_then(|(f, s)| Some((f, s.parse::<usize>().ok()?)))
        .unwrap_or_else(|| fail(&format!("{CHILD}: `{what}`")));
    let format = match format {
        "Rss" => Format::Rss,
        _ => Format::Atom,
    };
    let feeds = feeds();
    let feed = &feeds[format as usize];
    let start = Instant::now();
    let mut rewriter = htmlabs::Rewriter::new(
        htmlabs::Type::Xml,
        Config::default(),
        layers(format.url()),
        Count(0),
    );
    let mut held = Vec::with_capacity(2 * CHUNK);
    feed.write(
        size,
        |bytes| {
            held.extend_from_slice(bytes);
            if held.len() >= CHUNK {
                let whole = held.len() / CHUNK * CHUNK;
                for chunk in held[..whole].chunks(CHUNK) {
                    rewriter.write(chunk).expect("htmlabs");
                }
                held.drain(..whole);
            }
        },
        None,
    );
    rewriter.write(&held).expect("htmlabs");
    let (report, out) = rewriter.end().expect("htmlabs");
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    let seconds = start.elapsed().as_secs_f64();
    // The high-water mark of this process's own address space, which exec
    // started afresh.
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let peak_kib: usize = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc/self/status");
    println!(
        "{} {seconds:.3} {} {}",
        peak_kib * 1024,
        out.0,
        report.counts.rewritten
    );
    let _ = io::stdout().flush();
    process::exit(0);
}
