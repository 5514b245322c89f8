//! `cargo bench --bench throughput`: how fast htmlabs rewrites, next to what
//! its HTML engine costs on its own and what lxml takes for the same job.
//!
//! Two inputs: the real pages of `../shared/corpus/pages` (with the URL each
//! was retrieved from, `urls.tsv`), when `../shared` is beside the checkout,
//! and a generated document, denser in links than real pages. The rows:
//!
//! - a: lol_html with no handlers, output counted and dropped: the parse
//!   ceiling.
//! - b: lol_html with an `[href],[src]` element handler that reads each value
//!   and sets it back with `set_attribute`: the engine ceiling, what any
//!   handler-based rewriter pays. The ratios are to this row.
//! - b2, page by page: the same for the full table's job, lol_html with a
//!   `*` handler that reads the attributes of every element and gets and
//!   sets back each value of an attribute the table names: what a
//!   handler-based rewriter of the full table pays (without its CSS and
//!   `<noscript>` texts).
//! - c: htmlabs through the library, page by page (a `rewrite()` per page,
//!   its base from `urls.tsv`, so the `<base>` lookahead is paid per page) and
//!   as one stream (the pages concatenated to ~100 MB, one `Rewriter`, 64 KiB
//!   writes); and the release binary, wall time over that stream in a file
//!   in the temporary directory, output to `/dev/null`.
//! - c-http, page by page: htmlabs through the library on each page as a
//!   `curl -i` response, gzip-encoded (`--http`: the header block read,
//!   the gzip stream checked, decoded, rewritten, encoded again, its
//!   `Content-Length` corrected), against row c: what the header and coding
//!   layer costs per page. Its MB/s are of the page's HTML, like row c's.
//! - d: lxml's `make_links_absolute` (parse, rewrite, serialize), timed inside
//!   Python by `benches/lxml_links.py`; lxml is installed with pip if
//!   missing, and the bench fails if it cannot be.
//!
//! Then one process per page, as a shell's loop over pages runs the binary
//! (`htmlabs -q -r URL FILE`, output to `/dev/null`), beside a bare lol_html
//! binary doing rows b's and b2's jobs the same way (`benches/ceiling`,
//! built by the bench with the release profile): the CPU time (user and
//! system) and the wall time of each process, on a page of a few bytes (what
//! starting costs) and on each real page. The processes are interleaved
//! one by one, in an order that rotates.
//!
//! Every measurement is the median of several rounds, and the rounds are
//! interleaved (each round runs every measurement once, starting at a
//! different one), so that the noise of a shared machine hits all alike.
//! Rows a to c page by page are interleaved closer still: page by page,
//! each page run by every row in turn (each row reading its own copy of
//! the pages), and the generated document, one page, write by write (its
//! rows then use `Rewriter`, the stream API, where a real page goes through
//! `rewrite()`). A ratio is the median of the rounds' own ratios: within a
//! round the two measurements run close together, so a slow spell of the
//! machine slows both sides of it.
//! `HTMLABS_BENCH_ROUNDS` sets the number of rounds; `HTMLABS_BIN` another
//! binary.

mod common;

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{self, Child, ChildStdin, Command, Stdio};
use std::rc::Rc;
use std::time::{Duration, Instant};

use htmlabs::internal::Table;
use htmlabs::{Config, Layers, Rewriter, Standard};
use lol_html::html_content::Element;
use lol_html::{HtmlRewriter, Settings, element};

use common::{Page, TempFile};

/// The size of the writes, as `htmlabs::rewrite` reads its input.
const CHUNK: usize = 64 * 1024;
/// The stream: the pages concatenated, over and over, to at least this size.
const STREAM: usize = 100_000_000;
/// The generated document's size, at least.
const GENERATED: usize = 8_000_000;
const GENERATED_URL: &str = "https://example.com/docs/guide/page.html";
/// Timed rounds, after one untimed warm-up round.
const ROUNDS: usize = 7;
/// The page that measures what starting costs: a few bytes, one link.
const TINY: &[u8] = b"<a href=x>y</a>";
/// Processes of each row on it, per round.
const STARTS: usize = 100;
/// The project's targets.
const TARGET_ENGINE: f64 = 0.85;
const TARGET_LXML: f64 = 15.0;

fn main() {
    let rounds = std::env::var("HTMLABS_BENCH_ROUNDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(ROUNDS);
    ensure_lxml();
    // A shared machine: say how busy it was.
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".to_owned());

    let pages = match common::corpus_dir() {
        Some(dir) => common::pages(&dir),
        None => {
            println!(
                "note: no corpus at {} (../shared is not beside the checkout): the generated document only",
                common::CORPUS
            );
            Vec::new()
        }
    };
    // On disk too, for the binary and for lxml.
    let bytes = generate(GENERATED);
    let generated_file = TempFile::new("generated.html", &bytes);
    let generated = Page {
        name: "generated.html".to_owned(),
        url: GENERATED_URL.to_owned(),
        path: generated_file.0.clone(),
        bytes,
    };

    // The stream: whole copies of the corpus, so every page weighs alike.
    let corpus_len: usize = pages.iter().map(|p| p.bytes.len()).sum();
    let copies = STREAM.div_ceil(corpus_len.max(1));
    let mut stream = Vec::with_capacity(corpus_len * copies);
    for _ in 0..copies {
        for page in &pages {
            stream.extend_from_slice(&page.bytes);
        }
    }
    let stream_url = pages.first().map_or(GENERATED_URL, |p| &p.url);
    let stream_file = (!pages.is_empty()).then(|| TempFile::new("stream.html", &stream));

    let lxml = Lxml::start(&pages, &generated);
    let bin = &common::binary();

    // Each measurement: the names of its rows, the bytes each reads, and a
    // run that returns each row's time (given the round, for its order).
    type Run<'a> = Box<dyn FnMut(usize) -> Vec<Duration> + 'a>;
    let mut measures: Vec<(Vec<String>, usize, Run)> = Vec::new();
    let mut sets: Vec<(&str, &[Page])> = vec![("generated", std::slice::from_ref(&generated))];
    if !pages.is_empty() {
        sets.insert(0, ("pages", &pages));
    }
    for &(set, docs) in &sets {
        let len: usize = docs.iter().map(|p| p.bytes.len()).sum();
        let lxml = &lxml;
        // Each row reads its own copy of each page: no row finds a page in
        // the cache because the row before it has just read it.
        let copies: Vec<[Page; PAGE_BY_PAGE.len()]> = docs
            .iter()
            .map(|page| {
                PAGE_BY_PAGE.map(|(row, ..)| match row {
                    "c-http" => as_response(page),
                    _ => page.clone(),
                })
            })
            .collect();
        let keys = PAGE_BY_PAGE.map(|(row, ..)| format!("{set} {row}"));
        // One document cannot be interleaved page by page: write by write.
        let run: Run = if set == "generated" {
            Box::new(move |round| by_writes(&copies[0], round))
        } else {
            Box::new(move |round| interleaved(&copies, round))
        };
        measures.push((keys.to_vec(), len, run));
        // lxml, in its own process, over the whole set at a time: asked
        // page by page, it would leave out of its time what Python does
        // between documents (freeing the last tree, collecting garbage).
        measures.push((
            vec![format!("{set} d")],
            len,
            Box::new(move |_| vec![lxml.time(set, len)]),
        ));
    }
    let g = &generated;
    measures.push((
        vec!["generated c-bin".to_owned()],
        g.bytes.len(),
        Box::new(move |_| vec![binary(bin, &g.path, &g.url)]),
    ));
    if let Some(file) = &stream_file {
        let s = &stream;
        type Timed<'a> = Box<dyn Fn() -> Duration + 'a>;
        let runs: [(&str, Timed); 5] = [
            ("a", Box::new(move || time(|| plain(s, "")))),
            ("b", Box::new(move || time(|| set_back(s, "")))),
            (
                "c",
                Box::new(move || time(|| library_stream(s, stream_url, &FULL.with(Clone::clone)))),
            ),
            (
                "c1",
                Box::new(move || {
                    time(|| library_stream(s, stream_url, &HREF_SRC.with(Clone::clone)))
                }),
            ),
            ("c-bin", Box::new(move || binary(bin, &file.0, stream_url))),
        ];
        for (row, run) in runs {
            measures.push((
                vec![format!("stream {row}")],
                s.len(),
                Box::new(move |_| vec![run()]),
            ));
        }
    }

    eprintln!(
        "throughput: {} measurements, 1 warm-up round and {rounds} timed rounds…",
        measures.len()
    );
    let mut times: Vec<Vec<Vec<Duration>>> = measures
        .iter()
        .map(|(keys, ..)| vec![Vec::new(); keys.len()])
        .collect();
    for round in 0..=rounds {
        let n = measures.len();
        for i in (0..n).map(|i| (i + round) % n) {
            let took = (measures[i].2)(round);
            if round > 0 {
                for (row, took) in times[i].iter_mut().zip(took) {
                    row.push(took);
                }
            }
        }
    }
    // MB/s: the median, and the slowest and fastest rounds.
    let speed: HashMap<String, Speed> = measures
        .iter()
        .zip(times)
        .flat_map(|((keys, len, _), times)| {
            keys.iter().zip(times).map(move |(key, mut times)| {
                let mbs = |t: Duration| *len as f64 / 1e6 / t.as_secs_f64();
                let rounds = times.clone();
                times.sort();
                let speed = Speed {
                    median: mbs(times[times.len() / 2]),
                    slowest: mbs(times[times.len() - 1]),
                    fastest: mbs(times[0]),
                    rounds,
                };
                (key.clone(), speed)
            })
        })
        .collect();
    drop(measures);
    let processes = Processes::run(&pages, bin, rounds);

    println!("command: cargo bench --bench throughput");
    println!("machine: {}", common::machine());
    println!("load average at the start: {load}");
    println!("binary: {}", bin.display());
    println!(
        "method: MB = 10^6 bytes; each figure the median of {rounds} interleaved rounds (after a warm-up round), rows a to c page by page interleaved page by page (the generated document write by write), each ratio the median of the rounds' ratios; lxml {}",
        lxml.version
    );
    if !pages.is_empty() {
        let urls = urls(&pages);
        println!();
        println!(
            "real pages: {} pages, {:.1} MB, {urls} URL values (one per {} bytes); stream: the pages {copies} times over, {:.1} MB",
            pages.len(),
            corpus_len as f64 / 1e6,
            corpus_len / urls.max(1),
            stream.len() as f64 / 1e6,
        );
        table(&speed, "pages", &pages, true, &lxml);
    }
    let urls = urls(std::slice::from_ref(&generated));
    println!();
    println!(
        "generated document: {:.1} MB, {urls} URL values (one per {} bytes), base {GENERATED_URL}",
        generated.bytes.len() as f64 / 1e6,
        generated.bytes.len() / urls.max(1),
    );
    table(
        &speed,
        "generated",
        std::slice::from_ref(&generated),
        false,
        &lxml,
    );
    println!();
    processes.table();
    lxml.stop();
}

struct Speed {
    median: f64,
    slowest: f64,
    fastest: f64,
    /// The time of each round, in order.
    rounds: Vec<Duration>,
}

impl Speed {
    /// How many times faster than `other` (over the same bytes): the median
    /// of the rounds' ratios.
    fn over(&self, other: &Speed) -> f64 {
        let mut ratios: Vec<f64> = self
            .rounds
            .iter()
            .zip(&other.rounds)
            .map(|(mine, theirs)| theirs.as_secs_f64() / mine.as_secs_f64())
            .collect();
        ratios.sort_by(f64::total_cmp);
        ratios[ratios.len() / 2]
    }
}

fn time<T>(run: impl FnOnce() -> T) -> Duration {
    let start = Instant::now();
    std::hint::black_box(run());
    start.elapsed()
}

/// Rows a, b, b2, c and c1: each row's name, its rewrite of a whole page,
/// and its rewriter fed write by write, in the order of `interleaved`'s and
/// `by_writes`'s results.
type Rewrite = fn(&[u8], &str) -> usize;
type Start = fn(&str) -> Writer;
const PAGE_BY_PAGE: [(&str, Rewrite, Start); 6] = [
    ("a", plain, |_| lol_html_writer(plain_settings())),
    ("b", set_back, |_| lol_html_writer(set_back_settings())),
    ("b2", set_back_table, |_| {
        lol_html_writer(set_back_table_settings())
    }),
    ("c", library, |url| {
        library_writer(url, &FULL.with(Clone::clone))
    }),
    ("c1", library_href_src, |url| {
        library_writer(url, &HREF_SRC.with(Clone::clone))
    }),
    ("c-http", library_http, library_http_writer),
];

/// Rows a, b, b2, c, c1 and c-http over the same pages, page by page. Each page is run
/// by every row in turn, in an order that rotates from page to page and
/// from round to round, so that a slow spell of the shared machine (they
/// last longer than a page) slows every row alike: the rounds' ratios then
/// agree within about a twentieth, where timing each row over all the pages
/// at once let them spread by half. `copies` holds, for each page, each
/// row's own copy of it. Returns each row's total time.
fn interleaved(copies: &[[Page; PAGE_BY_PAGE.len()]], round: usize) -> Vec<Duration> {
    let rows = PAGE_BY_PAGE.len();
    let mut total = vec![Duration::ZERO; rows];
    for (k, page_copies) in copies.iter().enumerate() {
        for j in 0..rows {
            let row = (j + k + round) % rows;
            let page = &page_copies[row];
            total[row] += time(|| {
                let out = (PAGE_BY_PAGE[row].1)(&page.bytes, &page.url);
                assert!(
                    out > 0 || page.bytes.is_empty(),
                    "no output for {}",
                    page.name
                );
            });
        }
    }
    total
}

/// Rows a, b, b2, c, c1 and c-http over one document, interleaved write by write:
/// each 64 KiB write (and the end) goes to every row in turn, in an order
/// that rotates from write to write and from round to round, each row
/// writing from its own copy. Whole, one document takes a row long enough
/// for the machine's load to change under it; a write does not. Returns each
/// row's total time.
fn by_writes(copies: &[Page; PAGE_BY_PAGE.len()], round: usize) -> Vec<Duration> {
    let rows = PAGE_BY_PAGE.len();
    let mut total = vec![Duration::ZERO; rows];
    let mut writers: Vec<Writer> = (0..rows)
        .map(|row| (PAGE_BY_PAGE[row].2)(&copies[row].url))
        .collect();
    // c-http's copy, a gzip stream, is the shorter: it is over sooner.
    let writes = copies
        .iter()
        .map(|c| c.bytes.len().div_ceil(CHUNK))
        .max()
        .unwrap_or(0);
    for k in 0..=writes {
        for j in 0..rows {
            let row = (j + k + round) % rows;
            let bytes = &copies[row].bytes;
            let chunk = match k < writes {
                true if k * CHUNK >= bytes.len() => continue,
                true => Some(&bytes[k * CHUNK..bytes.len().min((k + 1) * CHUNK)]),
                false => None,
            };
            total[row] += time(|| writers[row](chunk));
        }
    }
    total
}

/// The rows of one input, with ratios to the engine ceiling (b) read the
/// same way: page by page to page by page, stream to stream.
fn table(speed: &HashMap<String, Speed>, set: &str, docs: &[Page], stream: bool, lxml: &Lxml) {
    const A: &str = "lol_html, no handlers (parse ceiling)";
    const B: &str = "lol_html, `[href],[src]` get + set_attribute (engine ceiling)";
    const B2: &str =
        "lol_html, `*` get + set_attribute of every attribute the table names (its engine ceiling)";
    const C: &str = "htmlabs library, the full table";
    const C1: &str = "htmlabs library, `href` and `src` only (row b's work)";
    const C_BIN: &str = "htmlabs binary, wall time, file → /dev/null";
    const C_HTTP: &str =
        "htmlabs library, the full table, each page a `curl -i` response, gzip (`--http`)";
    const D: &str = "lxml make_links_absolute, parse + tostring";
    let at = |key: String| &speed[key.as_str()];
    let page = |row: &str| at(format!("{set} {row}"));
    let mut rows = vec![
        ("a", A, "page by page", page("a"), page("b")),
        ("b", B, "page by page", page("b"), page("b")),
        ("b2", B2, "page by page", page("b2"), page("b")),
        ("c", C1, "page by page", page("c1"), page("b")),
        ("c", C, "page by page", page("c"), page("b")),
        ("c", C_HTTP, "page by page", page("c-http"), page("b")),
    ];
    if stream {
        let b = at("stream b".into());
        rows.push(("d", D, "page by page", page("d"), page("b")));
        rows.push(("a", A, "stream", at("stream a".into()), b));
        rows.push(("b", B, "stream", b, b));
        rows.push(("c", C1, "stream", at("stream c1".into()), b));
        rows.push(("c", C, "stream", at("stream c".into()), b));
        rows.push(("c", C_BIN, "stream", at("stream c-bin".into()), b));
    } else {
        // One document: it is its own stream, and the binary reads it whole.
        rows.push(("c", C_BIN, "page by page", page("c-bin"), page("b")));
        rows.push(("d", D, "page by page", page("d"), page("b")));
    }
    println!("| row | what | input | MB/s | rounds: slowest–fastest | × engine ceiling (b) |");
    println!("| --- | --- | --- | ---: | ---: | ---: |");
    for (row, what, how, s, ceiling) in rows {
        println!(
            "| {row} | {what} | {how} | {:.1} | {:.1}–{:.1} | {:.2} |",
            s.median,
            s.slowest,
            s.fastest,
            s.over(ceiling)
        );
    }
    // The targets are for row b's work, `href`/`src`; the full table's
    // figures say what it costs. lxml rewrites every link attribute it
    // knows, and CSS: the full table is like for like with its work.
    let vs_lxml = page("c1").over(page("d"));
    println!(
        "htmlabs library (href and src only) page by page ÷ lxml: {vs_lxml:.2}× (target ≥ {TARGET_LXML}×: {}); the full table, like for like with lxml's work: {:.2}×",
        met(vs_lxml >= TARGET_LXML),
        page("c").over(page("d"))
    );
    for (row, name) in [("c1", "href and src only"), ("c", "full table")] {
        let c_page = page(row).over(page("b"));
        // The target is for row b's work; the full table's figure is what
        // the rest of the table costs.
        let target = |ratio: f64| match row {
            "c1" => format!(
                " (target ≥ {TARGET_ENGINE}: {})",
                met(ratio >= TARGET_ENGINE)
            ),
            _ => String::new(),
        };
        print!(
            "htmlabs library ({name}) ÷ engine ceiling: page by page {c_page:.3}{}",
            target(c_page)
        );
        if stream {
            let c_stream = at(format!("stream {row}")).over(at("stream b".into()));
            print!(", stream {c_stream:.3}{}", target(c_stream));
        }
        println!();
    }
    // What the header and coding layer adds to a page: the time per page
    // of c-http less c's, from their medians.
    let count = docs.len().max(1);
    let bytes: usize = docs.iter().map(|p| p.bytes.len()).sum();
    let per_page = |s: &Speed| bytes as f64 / s.median / count as f64;
    println!(
        "--http, gzip: the full table's time × {:.2} (c ÷ c-http); {:.0} µs more per page ({count} pages)",
        page("c").over(page("c-http")),
        per_page(page("c-http")) - per_page(page("c"))
    );
    println!(
        "htmlabs library (full table) ÷ the full table's engine ceiling (b2): page by page {:.3}; b2 ÷ lxml: {:.2}×",
        page("c").over(page("b2")),
        page("b2").over(page("d"))
    );
    if let Some(&failed) = lxml.failed.borrow().get(set).filter(|&&n| n > 0) {
        println!("lxml could not parse {failed} of the documents (counted in its MB/s as read)");
    }
}

fn met(yes: bool) -> &'static str {
    if yes { "met" } else { "missed" }
}

/// lol_html with `settings` over `doc` in 64 KiB writes, the output counted
/// and dropped. Returns the output's length.
fn lol_html(settings: Settings<'_, '_>, doc: &[u8]) -> usize {
    let mut out = 0;
    let mut rewriter = HtmlRewriter::new(settings, |c: &[u8]| out += c.len());
    for chunk in doc.chunks(CHUNK) {
        rewriter.write(chunk).expect("lol_html");
    }
    rewriter.end().expect("lol_html");
    out
}

/// A row's rewriter over one document, fed a write at a time; `None` ends
/// it.
type Writer = Box<dyn FnMut(Option<&[u8]>)>;

/// [`lol_html`], a write at a time.
fn lol_html_writer(settings: Settings<'static, 'static>) -> Writer {
    let out = Rc::new(Cell::new(0));
    let mut rewriter = {
        let out = Rc::clone(&out);
        Some(HtmlRewriter::new(settings, move |c: &[u8]| {
            out.set(out.get() + c.len());
        }))
    };
    Box::new(move |chunk| match (chunk, rewriter.as_mut()) {
        (Some(chunk), Some(r)) => r.write(chunk).expect("lol_html"),
        (None, Some(_)) => {
            rewriter.take().expect("checked").end().expect("lol_html");
            assert!(out.get() > 0, "lol_html gave no output");
        }
        (_, None) => panic!("a write after the end"),
    })
}

fn plain_settings() -> Settings<'static, 'static> {
    Settings::new().with_strict(false)
}

/// a: lol_html with no handlers. Returns the output's length.
fn plain(doc: &[u8], _url: &str) -> usize {
    let out = lol_html(plain_settings(), doc);
    assert_eq!(
        out,
        doc.len(),
        "lol_html without handlers changed the length"
    );
    out
}

/// b: every `href` and `src` read and set back, as a handler-based rewriter
/// does (`set_attribute` re-serializes the tag).
fn set_back(doc: &[u8], _url: &str) -> usize {
    lol_html(set_back_settings(), doc)
}

fn set_back_settings() -> Settings<'static, 'static> {
    Settings::new()
        .with_strict(false)
        .append_element_content_handler(element!("[href],[src]", |el: &mut Element| {
            for name in ["href", "src"] {
                if let Some(value) = el.get_attribute(name) {
                    el.set_attribute(name, &value)?;
                }
            }
            Ok(())
        }))
}

/// b2: what row b does, for every attribute the full table names, on every
/// element (the table's `*` rows need every element's attributes read).
fn set_back_table(doc: &[u8], _url: &str) -> usize {
    lol_html(set_back_table_settings(), doc)
}

fn set_back_table_settings() -> Settings<'static, 'static> {
    Settings::new()
        .with_strict(false)
        .append_element_content_handler(element!("*", |el: &mut Element| {
            let found: Vec<(String, String)> = TABLE_NAMES.with(|names| {
                el.attributes()
                    .iter()
                    .filter_map(|a| {
                        let name = a.name();
                        names.contains(&name).then(|| (name, a.value()))
                    })
                    .collect()
            });
            for (name, value) in found {
                el.set_attribute(&name, &value)?;
            }
            Ok(())
        }))
}

thread_local! {
    /// Made once and shared by every page, as a library user would.
    static FULL: Table = Table::default();
    static HREF_SRC: Table = Table::only(&["href", "src"]);
    /// The attributes the full table names.
    static TABLE_NAMES: std::collections::HashSet<String> =
        FULL.with(|t| t.rows().iter().map(|r| r.attribute.to_string()).collect());
}

fn config(table: &Table) -> Config {
    {
        let mut config = Config::default();
        config.table = table.clone();
        config
    }
}

fn layers(url: &str) -> Layers {
    Layers::default()
        .with_retrieval(Standard::Rfc1808, url, "--retrieved-from")
        .expect("the bench's URLs are absolute")
}

/// c, page by page: one `rewrite()`, as `htmlabs -r URL page.html` does.
fn library(doc: &[u8], url: &str) -> usize {
    library_with(doc, url, &FULL.with(Clone::clone))
}

/// c1: the same, with only `href` and `src` rewritten.
fn library_href_src(doc: &[u8], url: &str) -> usize {
    library_with(doc, url, &HREF_SRC.with(Clone::clone))
}

fn library_with(doc: &[u8], url: &str, table: &Table) -> usize {
    let mut out = Count(0);
    let report = htmlabs::rewrite(
        htmlabs::Type::Html,
        config(table),
        layers(url),
        doc,
        &mut out,
    )
    .expect("htmlabs");
    assert!(
        !report.incomplete() && out.0 >= doc.len(),
        "htmlabs lost output"
    );
    out.0
}

/// c, as a stream: one `Rewriter` over everything, in 64 KiB writes.
fn library_stream(stream: &[u8], url: &str, table: &Table) -> usize {
    let mut rewriter = Rewriter::new(htmlabs::Type::Html, config(table), layers(url), Count(0));
    for chunk in stream.chunks(CHUNK) {
        rewriter.write(chunk).expect("htmlabs");
    }
    let (report, out) = rewriter.end().expect("htmlabs");
    assert!(
        !report.incomplete() && out.0 >= stream.len(),
        "htmlabs lost output"
    );
    out.0
}

/// [`library_stream`], a write at a time.
fn library_writer(url: &str, table: &Table) -> Writer {
    fed(Box::new(Rewriter::new(
        htmlabs::Type::Html,
        config(table),
        layers(url),
        Count(0),
    )))
}

/// An htmlabs rewriter the bench feeds write by write: a document's or a
/// response's.
trait Fed {
    fn feed(&mut self, chunk: &[u8]);
    /// Ends it, checking that it wrote all it was given.
    fn finish(self: Box<Self>);
}

impl Fed for Rewriter<Count> {
    fn feed(&mut self, chunk: &[u8]) {
        self.write(chunk).expect("htmlabs");
    }

    fn finish(self: Box<Self>) {
        let (report, out) = self.end().expect("htmlabs");
        assert!(!report.incomplete() && out.0 > 0, "htmlabs lost output");
    }
}

impl Fed for htmlabs::http::Response<Count> {
    fn feed(&mut self, chunk: &[u8]) {
        self.write(chunk).expect("htmlabs");
    }

    fn finish(self: Box<Self>) {
        let (report, out) = self.end().expect("htmlabs");
        assert!(!report.incomplete() && out.0 > 0, "htmlabs lost output");
    }
}

/// A [`Writer`] over `rewriter`: `None` ends it.
fn fed(rewriter: Box<dyn Fed>) -> Writer {
    let mut rewriter = Some(rewriter);
    Box::new(move |chunk| match (chunk, rewriter.as_mut()) {
        (Some(chunk), Some(r)) => r.feed(chunk),
        (None, Some(_)) => rewriter.take().expect("checked").finish(),
        (_, None) => panic!("a write after the end"),
    })
}

/// `page` as `curl -i` saves a gzip-encoded response to it.
fn as_response(page: &Page) -> Page {
    let mut gzip = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gzip.write_all(&page.bytes).expect("in memory");
    let body = gzip.finish().expect("in memory");
    let mut bytes = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .into_bytes();
    bytes.extend_from_slice(&body);
    Page {
        bytes,
        ..page.clone()
    }
}

fn http_options() -> htmlabs::http::Options {
    htmlabs::http::Options::default()
}

/// c-http, page by page: one response, as `htmlabs --http -r URL` does.
fn library_http(response: &[u8], url: &str) -> usize {
    let mut out = Count(0);
    let report = htmlabs::http::rewrite_response(
        config(&FULL.with(Clone::clone)),
        layers(url),
        http_options(),
        response,
        &mut out,
    )
    .expect("htmlabs");
    assert!(!report.incomplete(), "htmlabs lost output");
    out.0
}

/// [`library_http`], a write at a time.
fn library_http_writer(url: &str) -> Writer {
    let config = config(&FULL.with(Clone::clone));
    fed(Box::new(htmlabs::http::Response::new(
        config,
        layers(url),
        http_options(),
        Count(0),
    )))
}

/// The URL values htmlabs sees in `docs`, to say how dense in links they are.
fn urls(docs: &[Page]) -> usize {
    docs.iter()
        .map(|p| {
            htmlabs::rewrite(
                htmlabs::Type::Html,
                config(&FULL.with(Clone::clone)),
                layers(&p.url),
                &p.bytes[..],
                io::sink(),
            )
            .expect("htmlabs")
            .counts
            .seen
        })
        .sum()
}

/// c, the binary: wall time of the whole process, output to `/dev/null`.
fn binary(bin: &Path, file: &Path, url: &str) -> Duration {
    let null = File::options()
        .write(true)
        .open("/dev/null")
        .expect("open /dev/null");
    let start = Instant::now();
    let status = Command::new(bin)
        .args(["-q", "-r", url])
        .arg(file)
        .stdout(null)
        .status()
        .unwrap_or_else(|e| panic!("cannot run `{}`: {e}", bin.display()));
    let took = start.elapsed();
    assert!(status.success(), "`{}` failed: {status}", bin.display());
    took
}

/// One process per page: the binary beside the bare lol_html binary, on
/// the page of a few bytes and on each real page.
struct Processes {
    /// By input (`start-up`, `pages`), each row's CPU and wall seconds per
    /// round, and the processes a round runs.
    sets: Vec<(&'static str, usize, [Vec<common::Run>; PROCESS_ROWS.len()])>,
}

/// The rows of one process per page: the bare lol_html binary doing row
/// b's job, then row b2's, and htmlabs.
const PROCESS_ROWS: [&str; 3] = ["b", "b2", "c"];

impl Processes {
    fn run(pages: &[Page], bin: &Path, rounds: usize) -> Processes {
        let ceiling = ceiling_binary();
        let names = TABLE_NAMES.with(|names| {
            let mut names: Vec<&str> = names.iter().map(String::as_str).collect();
            names.sort_unstable();
            names.join(",")
        });
        let tiny_file = TempFile::new("tiny.html", TINY);
        let tiny = Page {
            name: "tiny.html".to_owned(),
            url: GENERATED_URL.to_owned(),
            path: tiny_file.0.clone(),
            bytes: TINY.to_vec(),
        };
        // The tiny page STARTS times a round; the real pages once each.
        let starts = vec![&tiny; STARTS];
        let mut sets: Vec<(&str, Vec<&Page>)> = vec![("start-up", starts)];
        if !pages.is_empty() {
            sets.push(("pages", pages.iter().collect()));
        }
        let command = |row: usize, page: &Page| {
            let mut command = match PROCESS_ROWS[row] {
                "c" => Command::new(bin),
                _ => Command::new(&ceiling),
            };
            match PROCESS_ROWS[row] {
                "b" => command.arg("href-src"),
                "b2" => command.arg(&names),
                _ => command.args(["-q", "-r", &page.url]),
            };
            command.arg(&page.path);
            command
        };
        eprintln!("throughput: one process per page, 1 warm-up round and {rounds} timed rounds…");
        let mut results = Vec::new();
        for (set, docs) in sets {
            let mut times: [Vec<common::Run>; PROCESS_ROWS.len()] = Default::default();
            for round in 0..=rounds {
                let mut total = [(0.0, 0.0); PROCESS_ROWS.len()];
                for (k, page) in docs.iter().enumerate() {
                    for j in 0..PROCESS_ROWS.len() {
                        let row = (j + k + round) % PROCESS_ROWS.len();
                        let (cpu, wall) = one_process(&mut command(row, page));
                        total[row].0 += cpu;
                        total[row].1 += wall;
                    }
                }
                if round > 0 {
                    for (row, (cpu, wall)) in total.into_iter().enumerate() {
                        times[row].push(common::Run {
                            wall,
                            cpu,
                            system: 0.0,
                        });
                    }
                }
            }
            results.push((set, docs.len(), times));
        }
        Processes { sets: results }
    }

    fn table(&self) {
        const B: &str = "bare lol_html binary, `[href],[src]` get + set_attribute (row b's job: the engine ceiling)";
        const B2: &str = "bare lol_html binary, `*` get + set_attribute of every attribute the table names (row b2's job)";
        const C: &str = "htmlabs binary, `-q -r URL FILE`, the full table";
        println!(
            "One process per page, output to /dev/null: {} bytes (`{}`) {STARTS} times a round, and each real page once; CPU = user + system of the process; ms per process, medians of the rounds",
            TINY.len(),
            String::from_utf8_lossy(TINY)
        );
        println!();
        println!(
            "| row | what | input | CPU ms per process | wall ms per process | × engine ceiling (b), CPU | × its own ceiling (b2), CPU |"
        );
        println!("| --- | --- | --- | ---: | ---: | ---: | ---: |");
        let mut ratios = Vec::new();
        for (set, count, times) in &self.sets {
            let per = |row: usize, f: fn(&common::Run) -> f64| {
                common::median(times[row].iter().map(f).collect()) / *count as f64 * 1e3
            };
            // The median of the rounds' ratios, of CPU seconds.
            let over = |row: usize, ceiling: usize| {
                common::median(
                    times[row]
                        .iter()
                        .zip(&times[ceiling])
                        .map(|(mine, theirs)| theirs.cpu / mine.cpu)
                        .collect(),
                )
            };
            for (row, what) in [B, B2, C].into_iter().enumerate() {
                println!(
                    "| {} | {what} | {set} | {:.3} | {:.3} | {:.3} | {:.3} |",
                    PROCESS_ROWS[row],
                    per(row, |r| r.cpu),
                    per(row, |r| r.wall),
                    over(row, 0),
                    over(row, 1),
                );
            }
            ratios.push((*set, over(2, 0), over(2, 1)));
        }
        for (set, b, b2) in ratios {
            println!(
                "htmlabs binary ÷ the bare lol_html binary, one process per page, {set}: {b:.3} of row b's CPU time (target ≥ {TARGET_ENGINE}: {}), {b2:.3} of row b2's",
                met(b >= TARGET_ENGINE)
            );
        }
    }
}

/// Runs one process to its end, its output to `/dev/null`: its CPU
/// seconds (user and system) and wall seconds.
fn one_process(command: &mut Command) -> (f64, f64) {
    let null = File::options()
        .write(true)
        .open("/dev/null")
        .expect("open /dev/null");
    let (user, system) = common::children_cpu();
    let start = Instant::now();
    let status = command
        .stdin(Stdio::null())
        .stdout(null)
        .status()
        .unwrap_or_else(|e| panic!("cannot run `{command:?}`: {e}"));
    let wall = start.elapsed().as_secs_f64();
    assert!(status.success(), "`{command:?}` failed: {status}");
    let (user_after, system_after) = common::children_cpu();
    (user_after - user + system_after - system, wall)
}

/// The bare lol_html binary of `benches/ceiling`, built with the release
/// profile htmlabs's has, in the bench's own target directory, by the cargo
/// that runs the bench; or the bench ends: a row left out would read as a
/// pass.
fn ceiling_binary() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("ceiling");
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/ceiling/Cargo.toml");
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    eprintln!("throughput: building the bare lol_html binary (benches/ceiling)…");
    let built = Command::new(&cargo)
        .args([
            "build",
            "--release",
            "--quiet",
            "--locked",
            "--manifest-path",
        ])
        .arg(&manifest)
        .arg("--target-dir")
        .arg(&dir)
        .stdout(io::stderr())
        .status()
        .is_ok_and(|s| s.success());
    let bin = dir.join("release/lol-html-ceiling");
    if !built || !bin.is_file() {
        eprintln!(
            "throughput: error: cannot build {} with {}",
            manifest.display(),
            Path::new(&cargo).display()
        );
        process::exit(1);
    }
    bin
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

/// Installs lxml with pip when Python cannot import it, or ends the bench
/// with an error: a comparison silently left out would read as a pass.
fn ensure_lxml() {
    let importable = || {
        Command::new("python3")
            .args(["-c", "import lxml.html"])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    if importable() {
        return;
    }
    eprintln!("throughput: lxml is missing: python3 -m pip install lxml");
    // pip's chatter goes to stderr, so that stdout is the results.
    let installed = Command::new("python3")
        .args(["-m", "pip", "install", "lxml"])
        .stdout(io::stderr())
        .status()
        .is_ok_and(|s| s.success());
    if !installed || !importable() {
        eprintln!(
            "throughput: error: cannot install lxml with `python3 -m pip install lxml`, \
             and row d (lxml) is part of the benchmark: install it (pip, a virtualenv, \
             or apt-get install python3-lxml) and run again"
        );
        process::exit(1);
    }
}

/// `benches/lxml_links.py`, running beside the bench and asked for one set of
/// documents at a time, so that its rounds interleave with the others.
struct Lxml {
    child: Child,
    stdin: ChildStdin,
    replies: RefCell<BufReader<process::ChildStdout>>,
    version: String,
    /// The documents of each set that lxml could not parse.
    failed: RefCell<HashMap<String, usize>>,
    _manifest: TempFile,
}

impl Lxml {
    fn start(pages: &[Page], generated: &Page) -> Lxml {
        let mut manifest = String::new();
        for (set, page) in pages
            .iter()
            .map(|p| ("pages", p))
            .chain([("generated", generated)])
        {
            manifest.push_str(&format!("{set}\t{}\t{}\n", page.path.display(), page.url));
        }
        let manifest = TempFile::new("lxml.tsv", manifest.as_bytes());
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/lxml_links.py");
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(&manifest.0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run python3 {}: {e}", script.display()));
        let stdin = child.stdin.take().expect("piped");
        let mut replies = BufReader::new(child.stdout.take().expect("piped"));
        let mut ready = String::new();
        replies
            .read_line(&mut ready)
            .expect("read from lxml_links.py");
        let Some(version) = ready.trim().strip_prefix("ready ") else {
            eprintln!(
                "throughput: error: benches/lxml_links.py did not start: `{}`",
                ready.trim()
            );
            process::exit(1);
        };
        Lxml {
            version: version.to_owned(),
            child,
            stdin,
            replies: RefCell::new(replies),
            failed: RefCell::default(),
            _manifest: manifest,
        }
    }

    /// The time lxml takes over the set, as Python measures it.
    fn time(&self, set: &str, len: usize) -> Duration {
        (&self.stdin)
            .write_all(format!("{set}\n").as_bytes())
            .expect("write to lxml_links.py");
        let mut reply = String::new();
        self.replies
            .borrow_mut()
            .read_line(&mut reply)
            .expect("read from lxml_links.py");
        let fields: Vec<&str> = reply.split_whitespace().collect();
        let [seconds, bytes_in, _bytes_out, failed] = fields[..] else {
            panic!("lxml_links.py: unexpected reply `{}`", reply.trim());
        };
        assert_eq!(
            bytes_in.parse::<usize>().ok(),
            Some(len),
            "lxml read other bytes"
        );
        let failed = failed.parse().expect("a count");
        self.failed.borrow_mut().insert(set.to_owned(), failed);
        Duration::from_secs_f64(seconds.parse().expect("seconds"))
    }

    fn stop(mut self) {
        drop(self.stdin);
        let _ = self.child.wait();
    }
}

/// A document of about `size` bytes, denser in URLs than real pages and with
/// every kind of value htmlabs rewrites: links of every relative form and
/// some absolute ones, `srcset`, CSS in `<style>` and `style`, forms,
/// scripts, comments and plain text between. Deterministic: runs compare.
fn generate(size: usize) -> Vec<u8> {
    let mut doc = String::from(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n\
         <title>Generated benchmark page</title>\n\
         <link rel=\"stylesheet\" href=\"../css/site.css\"><link rel=\"icon\" href=\"/favicon.ico\">\n\
         <style>body{background:url(img/bg.png)} .logo{background-image:url(\"../img/logo.svg\")}\n\
         @import \"print.css\" print;</style>\n\
         <script src=\"js/app.js\"></script></head>\n<body>\n",
    );
    // xorshift: variety without a dependency, the same every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    const WORDS: &[&str] = &[
        "the",
        "link",
        "page",
        "resolve",
        "base",
        "relative",
        "archive",
        "stream",
        "value",
        "document",
        "reference",
        "absolute",
        "scheme",
        "path",
        "query",
        "fragment",
    ];
    let mut i = 0;
    while doc.len() < size {
        i += 1;
        doc.push_str("<nav><ul>");
        for j in 0..6 {
            let href = match next(5) {
                0 => format!("../section{i}/page{j}.html"),
                1 => format!("/wiki/Item_{i}_{j}?action=view&amp;oldid={}", next(100_000)),
                2 => format!("page{j}.html#part{i}"),
                3 => format!("https://other.example/{i}/{j}"),
                _ => format!("./{i}/{j}/"),
            };
            doc.push_str(&format!("<li><a href=\"{href}\">Item {i}.{j}</a></li>"));
        }
        doc.push_str("</ul></nav>\n");
        doc.push_str(&format!(
            "<article id=\"a{i}\"><h2><a href=\"#a{i}\">Section {i}</a></h2>\n<p>"
        ));
        for _ in 0..40 + next(40) {
            doc.push_str(WORDS[next(WORDS.len() as u64) as usize]);
            doc.push(' ');
            if next(12) == 0 {
                doc.push_str(&format!("<a href='notes/{}.html'>note</a> ", next(1000)));
            }
        }
        doc.push_str("</p>\n");
        let n = next(10_000);
        doc.push_str(&format!(
            "<figure><img src=\"img/{n}.jpg\" srcset=\"img/{n}-2x.jpg 2x, img/{n}-3x.jpg 3x\" \
             alt=\"Figure {n}\" width=640 height=480 style=\"border:1px solid #ccc\">\
             <figcaption>Figure {n}</figcaption></figure>\n"
        ));
        if next(3) == 0 {
            doc.push_str(&format!(
                "<div class=\"banner\" style=\"background:url('bg/{n}.png') no-repeat\">banner</div>\n\
                 <form action=\"search?q={n}\" method=get><input name=q type=search>\
                 <button formaction=\"/go\">Go</button></form>\n"
            ));
        }
        if next(4) == 0 {
            doc.push_str(&format!(
                "<script>var data = {{\"n\": {n}, \"url\": \"/not/rewritten/{n}\"}};</script>\n\
                 <!-- section {i} ends: <a href=\"not/rewritten\"> -->\n"
            ));
        }
        doc.push_str("<table><tr>");
        for k in 0..4 {
            doc.push_str(&format!("<td>{}</td>", n * 4 + k));
        }
        doc.push_str("</tr></table></article>\n");
    }
    doc.push_str("</body></html>\n");
    doc.into_bytes()
}
