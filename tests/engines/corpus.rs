//! The real pages of `shared/corpus/pages`, run through the binary and
//! checked from outside by an independent span lister (`tests/spans`):
//!
//! 1. the output's URL attributes and the input's correspond one to one, in
//!    order, with the same names and elements;
//! 2. every byte outside the values is the input's;
//! 3. every value is absolute afterwards, or is the input's and was left for
//!    a documented reason (valueless, already absolute, `#id` inside SVG, not
//!    valid UTF-8, a duplicate attribute that HTML drops, empty where the
//!    table says an empty value names no resource); a rewritten value
//!    is what RFC 1808 §4 makes of it against the base the page should get
//!    (its first absolute `<base href>` in the head, a relative one resolved
//!    against `-r`, else `-r`) where that needs no dot-segment or query
//!    work, and otherwise at least lies on that base's scheme and net_loc;
//! 4. a second run over the output changes nothing;
//! 5. without `-r`, a page comes out byte for byte unless its first
//!    `<base href>` is absolute, and then it passes 1–3.
//!
//! All failures are collected and reported together, page by page.

use crate::common;
use crate::fuzz::spans;

use std::fmt::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use htmlabs::internal::Empty;
use spans::{SVG, Span};

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// At most this many failures are listed for one page (and then a count).
const PER_PAGE: usize = 8;

struct Page {
    file: String,
    url: String,
    path: PathBuf,
}

/// The pages of `urls.tsv`; a listed page that is missing, or a page that
/// is not listed, is a failure, so that no page drops out unseen.
fn pages(dir: &Path) -> Vec<Page> {
    let tsv = std::fs::read_to_string(dir.join("urls.tsv")).expect("urls.tsv");
    let mut pages = Vec::new();
    for (i, line) in tsv.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut fields = line.split('\t');
        let (Some(file), Some(url)) = (fields.next(), fields.next()) else {
            panic!("urls.tsv:{}: want a file name and a URL", i + 1);
        };
        let path = dir.join(file);
        assert!(path.is_file(), "urls.tsv:{}: no page {file}", i + 1);
        pages.push(Page {
            file: file.to_owned(),
            url: url.to_owned(),
            path,
        });
    }
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().to_string_lossy().into_owned();
        if name.ends_with(".html") {
            assert!(
                pages.iter().any(|p| p.file == name),
                "{name} is not in urls.tsv"
            );
        }
    }
    pages.sort_by(|a, b| a.file.cmp(&b.file));
    pages
}

/// Runs the binary with `args`, `input` on its standard input.
fn run(args: &[&str], input: &[u8]) -> Result<Vec<u8>, String> {
    let out = assert_cmd::Command::new(BIN)
        .args(args)
        .write_stdin(input.to_vec())
        .output()
        .map_err(|e| format!("cannot run htmlabs: {e}"))?;
    if out.status.code() != Some(0) || !out.stderr.is_empty() {
        return Err(format!(
            "htmlabs {args:?}: {:?}, stderr {:?}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(out.stdout)
}

/// The base a page should get, taken apart by RFC 1808 §2.4: the fragment
/// is cut first, then the scheme, the net_loc runs to the next `/`, then the
/// query is cut, then the params.
#[derive(Debug, Clone)]
struct Base {
    url: String,
    /// Whether `url` is the base exactly, or right only up to its net_loc
    /// (a relative `<base href>` this test does not resolve itself).
    exact: bool,
}

impl Base {
    fn without_fragment(&self) -> &str {
        self.url.split('#').next().unwrap_or_default()
    }

    /// `scheme:`.
    fn scheme(&self) -> &str {
        &self.url[..=self.url.find(':').expect("an absolute URL")]
    }

    /// `scheme://net_loc` as written, or `scheme:` when there is no net_loc.
    fn origin(&self) -> &str {
        let url = self.without_fragment();
        let scheme = self.scheme().len();
        match url[scheme..].strip_prefix("//") {
            Some(rest) => &url[..scheme + 2 + rest.find('/').unwrap_or(rest.len())],
            None => &url[..scheme],
        }
    }

    /// The origin and the path up to its last `/`, which a relative path is
    /// appended to (§4 step 6); `None` when the base's path has no `/` or
    /// has dot segments, which step 6 would rework.
    fn directory(&self) -> Option<&str> {
        let url = self.without_fragment();
        let origin = self.origin().len();
        let rest = &url[origin..];
        let path = rest.split('?').next().unwrap_or_default();
        let path = path.split(';').next().unwrap_or_default();
        if path.split('/').any(|s| s == "." || s == "..") {
            return None;
        }
        Some(&url[..origin + path.rfind('/')? + 1])
    }

    /// What `reference` (decoded, relative) must become, by RFC 1808 §4,
    /// for the references whose result needs no dot-segment work or query
    /// and params inheritance; `None` for the others.
    fn resolve(&self, reference: &str) -> Option<String> {
        if !self.exact {
            return None;
        }
        // Step 2a: "If the embedded URL is entirely empty, it inherits the
        // entire base URL".
        if reference.is_empty() {
            return Some(self.url.clone());
        }
        // Step 3: a net_loc of its own keeps only the base's scheme.
        if reference.starts_with("//") {
            return Some(format!("{}{reference}", self.scheme()));
        }
        // Step 5: a path that starts with `/` is not relative.
        if reference.starts_with('/') {
            return Some(format!("{}{reference}", self.origin()));
        }
        // Steps 5 and 7: an empty path with only a fragment keeps the rest.
        if reference.starts_with('#') {
            return Some(format!("{}{reference}", self.without_fragment()));
        }
        if reference.starts_with(['.', '?', ';']) {
            return None;
        }
        let path = reference.split(['#', '?', ';']).next().unwrap_or_default();
        if path.split('/').any(|s| s == "." || s == "..") {
            return None;
        }
        // Step 6: "all but the last segment of the base URL's path" and then
        // the reference.
        Some(format!("{}{reference}", self.directory()?))
    }
}

/// The base a page should get: its first `<base href>` in the head when
/// that is (or resolves to) an absolute URL other than `javascript:` or
/// `data:`, else `retrieved`. The head is taken to end at the page's first
/// `<body`.
fn expected_base(input: &[u8], spans: &[Span], retrieved: Option<&str>) -> Option<Base> {
    let body = find_ascii_ci(input, b"<body").unwrap_or(input.len());
    let href = spans
        .iter()
        .find(|s| s.tag == "base" && s.name == "href" && s.value.is_some())
        .filter(|s| s.tag_start < body)
        .and_then(|s| std::str::from_utf8(s.bytes(input)).ok())
        .map(spans::decoded);
    let retrieved = retrieved.map(|url| Base {
        url: url.to_owned(),
        exact: true,
    });
    let embedded = href.and_then(|href| {
        if spans::has_scheme(&href) {
            return Some(Base {
                url: href,
                exact: true,
            });
        }
        let outer = retrieved.as_ref()?;
        Some(match outer.resolve(&href) {
            // "", `/path`, `//net_loc/path`: resolved exactly.
            Some(url) if href.is_empty() || href.starts_with('/') => Base { url, exact: true },
            // Otherwise the net_loc is still the outer base's.
            _ => Base {
                url: outer.url.clone(),
                exact: false,
            },
        })
    });
    let embedded = embedded.filter(|base| {
        let scheme = base.scheme().to_ascii_lowercase();
        scheme != "javascript:" && scheme != "data:"
    });
    embedded.or(retrieved)
}

fn find_ascii_ci(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|w| w.eq_ignore_ascii_case(needle))
}

/// A short, readable rendering of some bytes for a failure message.
fn show(bytes: &[u8]) -> String {
    let s = String::from_utf8_lossy(bytes);
    let mut shown: String = s.chars().take(120).collect();
    if shown.len() < s.len() {
        shown.push('…');
    }
    format!("{shown:?}")
}

/// Checks 1–3 of `output` against `input` with `base` the base the page
/// should get; failures are pushed onto `failures`.
fn check_spans(input: &[u8], output: &[u8], base: &Base, failures: &mut Vec<String>) -> Tally {
    let mut tally = Tally::default();
    let before = spans::list(input);
    let after = spans::list(output);
    // 1. One to one, in order, same names and elements.
    if before.len() != after.len() {
        failures.push(format!(
            "{} URL attributes in the input, {} in the output",
            before.len(),
            after.len()
        ));
    }
    let mut previous_in = 0;
    let mut previous_out = 0;
    for (b, a) in before.iter().zip(&after) {
        if (&b.name, &b.tag, b.namespace) != (&a.name, &a.tag, a.namespace) {
            failures.push(format!(
                "byte {}: <{} {}> in the input, <{} {}> in the output",
                b.tag_start, b.tag, b.name, a.tag, a.name
            ));
            return tally;
        }
        let (Some(rb), Some(ra)) = (b.value.clone(), a.value.clone()) else {
            if b.value.is_some() != a.value.is_some() {
                failures.push(format!(
                    "byte {}: <{} {}> has a value on one side only",
                    b.tag_start, b.tag, b.name
                ));
                return tally;
            }
            tally.valueless += 1;
            continue;
        };
        // An unquoted value that now needs quotes gets them inside its range.
        let quoted_now = !matches!(input[rb.start - 1], b'"' | b'\'')
            && output[ra.start - 1] == b'"'
            && output.get(ra.end) == Some(&b'"');
        let region: Range<usize> = if quoted_now {
            ra.start - 1..ra.end + 1
        } else {
            ra.clone()
        };
        // 2. The bytes between values are the input's.
        if input[previous_in..rb.start] != output[previous_out..region.start] {
            failures.push(format!(
                "bytes {previous_in}..{} of the input changed: {} became {}",
                rb.start,
                show(&input[previous_in..rb.start]),
                show(&output[previous_out..region.start])
            ));
            return tally;
        }
        previous_in = rb.end;
        previous_out = region.end;
        if !spans::NAMES.contains(&b.name.as_str()) {
            // Other kinds hold several URLs in a syntax of their own; the
            // bytes around them are checked, and idempotence below.
            tally.other += 1;
            continue;
        }
        // 3. Absolute afterwards, or left for a documented reason.
        let (raw_in, raw_out) = (&input[rb.clone()], &output[ra]);
        if let Err(why) = check_value(b, raw_in, raw_out, base, &mut tally) {
            failures.push(format!(
                "byte {}: <{} {}>: {} became {}: {why}",
                rb.start,
                b.tag,
                b.name,
                show(raw_in),
                show(raw_out)
            ));
        }
    }
    if input[previous_in..] != output[previous_out..] {
        failures.push(format!(
            "the input after byte {previous_in} changed: {} became {}",
            show(&input[previous_in..]),
            show(&output[previous_out..])
        ));
    }
    tally
}

/// What became of the values of a run, by outcome.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    rewritten: usize,
    /// Of those, checked against the exact result.
    exact: usize,
    valueless: usize,
    absolute: usize,
    svg_id: usize,
    undecodable: usize,
    duplicate: usize,
    /// Empty, where the table says that names no resource (`<img src="">`).
    empty: usize,
    /// Values of the other kinds and `<style>`/`<noscript>` texts.
    other: usize,
}

impl Tally {
    fn add(&mut self, other: Tally) {
        self.rewritten += other.rewritten;
        self.exact += other.exact;
        self.valueless += other.valueless;
        self.absolute += other.absolute;
        self.other += other.other;
        self.svg_id += other.svg_id;
        self.undecodable += other.undecodable;
        self.duplicate += other.duplicate;
        self.empty += other.empty;
    }
}

/// Checks the value `raw_in` becoming `raw_out`: counts it in `tally`, or
/// says why it is wrong.
fn check_value(
    span: &Span,
    raw_in: &[u8],
    raw_out: &[u8],
    base: &Base,
    tally: &mut Tally,
) -> Result<(), String> {
    // A value that is not UTF-8 is in the page's legacy encoding (or the
    // page lies): left as it is, or rewritten with its bytes kept. Read
    // byte for byte as Latin-1, its structure is checked all the same (the
    // bases here are ASCII).
    let latin1 = |raw: &[u8]| raw.iter().map(|&b| char::from(b)).collect::<String>();
    // An empty value where the table says it names no resource stays empty.
    if raw_in.is_empty() && span.empty == Empty::Nothing {
        if raw_out.is_empty() {
            tally.empty += 1;
            return Ok(());
        }
        return Err("an empty value that names no resource was changed".into());
    }
    let (text_in, legacy) = match std::str::from_utf8(raw_in) {
        Ok(text) => (text.to_owned(), false),
        Err(_) if raw_in == raw_out => {
            tally.undecodable += 1;
            return Ok(());
        }
        Err(_) if !raw_out.ends_with(raw_in) => {
            return Err("a value that is not UTF-8 was changed, not only prefixed".into());
        }
        Err(_) => (latin1(raw_in), true),
    };
    let text_in = text_in.as_str();
    let decoded_in = spans::decoded(text_in);
    let absolute = spans::has_scheme(&decoded_in);
    let svg_id = span.namespace == SVG && decoded_in.starts_with('#');
    if raw_in == raw_out {
        if absolute {
            tally.absolute += 1;
        } else if svg_id {
            tally.svg_id += 1;
        } else if span.duplicate {
            tally.duplicate += 1;
        } else {
            return Err("left relative, with no documented reason".into());
        }
        return Ok(());
    }
    if absolute {
        return Err("a value with a scheme was changed".into());
    }
    if svg_id {
        return Err("an `#id` inside SVG was changed".into());
    }
    if span.duplicate {
        return Err("a duplicate attribute, which HTML drops, was changed".into());
    }
    let text_out = match std::str::from_utf8(raw_out) {
        Ok(text) if !legacy => text.to_owned(),
        Err(_) if legacy => latin1(raw_out),
        _ => return Err("the new value is not UTF-8".into()),
    };
    let text_out = text_out.as_str();
    let decoded_out = spans::decoded(text_out);
    if !spans::has_scheme(&decoded_out) {
        return Err("the new value is not absolute".into());
    }
    if let Some(expected) = base.resolve(&decoded_in) {
        if decoded_out != expected {
            return Err(format!("want `{expected}` (base `{}`)", base.url));
        }
        tally.exact += 1;
    } else {
        // At least the scheme and the net_loc are the base's.
        let origin = base.origin().to_ascii_lowercase();
        let on_base = if decoded_in.starts_with("//") {
            decoded_out.to_ascii_lowercase().starts_with(base.scheme())
        } else {
            decoded_out
                .to_ascii_lowercase()
                .strip_prefix(&origin)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with(['/', '?', '#', ';']))
        };
        if !on_base {
            return Err(format!("not on the base `{}`", base.url));
        }
    }
    tally.rewritten += 1;
    Ok(())
}

/// All checks of one page: the failures, without the page's name, and the
/// tallies of the runs with `-r` and without.
fn check_page(page: &Page) -> (Vec<String>, Tally, Tally) {
    let mut failures = Vec::new();
    let (mut with_r, mut without_r) = (Tally::default(), Tally::default());
    let input = std::fs::read(&page.path).expect("the page reads");
    let input_spans = spans::list(&input);

    // With -r, reading the file: checks 1-3; then 4, reading stdin.
    let path = page.path.to_str().expect("a UTF-8 path");
    match run(&["-q", "-r", &page.url, path], &[]) {
        Err(e) => failures.push(e),
        Ok(output) => {
            let base = expected_base(&input, &input_spans, Some(&page.url)).expect("-r is given");
            with_r = check_spans(&input, &output, &base, &mut failures);
            match run(&["-q", "-r", &page.url], &output) {
                Err(e) => failures.push(format!("second run: {e}")),
                Ok(again) if again != output => {
                    let at = again
                        .iter()
                        .zip(&output)
                        .take_while(|(a, b)| a == b)
                        .count();
                    failures.push(format!(
                        "a second run changed the output at byte {at}: {} became {}",
                        show(&output[at..(at + 80).min(output.len())]),
                        show(&again[at..(at + 80).min(again.len())])
                    ));
                }
                Ok(_) => {}
            }
        }
    }

    // Without -r: 5.
    match run(&["-q", path], &[]) {
        Err(e) => failures.push(format!("without -r: {e}")),
        Ok(output) => match expected_base(&input, &input_spans, None) {
            None if output != input => {
                let at = input
                    .iter()
                    .zip(&output)
                    .take_while(|(a, b)| a == b)
                    .count();
                failures.push(format!(
                    "without -r and without an absolute <base href>, the output differs from byte {at}"
                ));
            }
            None => {}
            Some(base) => {
                let mut without = Vec::new();
                without_r = check_spans(&input, &output, &base, &mut without);
                failures.extend(without.into_iter().map(|f| format!("without -r: {f}")));
            }
        },
    }
    (failures, with_r, without_r)
}

#[test]
fn corpus_pages_are_rewritten_value_by_value() {
    let Some(shared) = common::shared("corpus_pages_are_rewritten_value_by_value") else {
        return;
    };
    let pages = pages(&shared.join("corpus/pages"));
    assert!(!pages.is_empty(), "urls.tsv lists no pages");

    let next = AtomicUsize::new(0);
    let report = Mutex::new(Vec::new());
    let tallies = Mutex::new((Tally::default(), Tally::default(), 0));
    let workers = std::thread::available_parallelism().map_or(4, |n| n.get().min(8));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(page) = pages.get(i) else { break };
                    let (failures, with_r, without_r) = check_page(page);
                    {
                        let mut t = tallies.lock().unwrap();
                        t.0.add(with_r);
                        t.1.add(without_r);
                        t.2 += usize::from(without_r.rewritten > 0);
                    }
                    if !failures.is_empty() {
                        report.lock().unwrap().push((page.file.clone(), failures));
                    }
                }
            });
        }
    });

    let (with_r, without_r, embedded) = tallies.into_inner().unwrap();
    eprintln!("with -r: {with_r:?}");
    eprintln!("without -r, {embedded} pages with an absolute <base href>: {without_r:?}");
    // The corpus exercises what the checks are about, or they prove nothing.
    assert!(with_r.rewritten > 1_000, "{with_r:?}");
    assert!(with_r.exact > with_r.rewritten / 2, "{with_r:?}");
    assert!(with_r.absolute > 1_000, "{with_r:?}");
    assert!(
        with_r.undecodable + with_r.svg_id + with_r.valueless > 0,
        "{with_r:?}"
    );
    assert!(with_r.empty > 0, "no empty value left: {with_r:?}");
    assert!(embedded > 0, "no page was rewritten by its own <base href>");

    let mut report = report.into_inner().unwrap();
    report.sort();
    let mut message = String::new();
    for (file, failures) in &report {
        for f in failures.iter().take(PER_PAGE) {
            writeln!(message, "{file}: {f}").unwrap();
        }
        if failures.len() > PER_PAGE {
            writeln!(message, "{file}: … and {} more", failures.len() - PER_PAGE).unwrap();
        }
    }
    assert!(
        report.is_empty(),
        "{} of {} pages fail:\n{message}",
        report.len(),
        pages.len()
    );
}

fn base(url: &str) -> Base {
    Base {
        url: url.to_owned(),
        exact: true,
    }
}

#[test]
fn the_expected_values_follow_rfc_1808_examples() {
    // RFC 1808 §5.1, the references this test resolves itself.
    let b = base("http://a/b/c/d;p?q#f");
    for (reference, expected) in [
        ("g", Some("http://a/b/c/g")),
        ("g/", Some("http://a/b/c/g/")),
        ("/g", Some("http://a/g")),
        ("//g", Some("http://g")),
        ("g?y", Some("http://a/b/c/g?y")),
        ("g?y/./x", Some("http://a/b/c/g?y/./x")),
        ("#s", Some("http://a/b/c/d;p?q#s")),
        ("g#s", Some("http://a/b/c/g#s")),
        ("g;x", Some("http://a/b/c/g;x")),
        ("", Some("http://a/b/c/d;p?q#f")),
        ("?y", None),
        (";x", None),
        ("./g", None),
        ("g/../h", None),
        ("..", None),
    ] {
        assert_eq!(b.resolve(reference).as_deref(), expected, "{reference}");
    }
    assert_eq!(b.origin(), "http://a");
    assert_eq!(base("http://a/b/./c").resolve("g"), None);
    assert_eq!(base("http://a").resolve("g"), None);
    assert_eq!(
        base("http://a").resolve("/g").as_deref(),
        Some("http://a/g")
    );
}

#[test]
fn the_expected_base_follows_rfc_1808_section_3() {
    let page = |html: &str, retrieved: Option<&str>| {
        expected_base(html.as_bytes(), &spans::list(html.as_bytes()), retrieved)
            .map(|b| (b.url, b.exact))
    };
    let r = Some("http://r/a/p");
    assert_eq!(page("<a href=x>", r), Some(("http://r/a/p".into(), true)));
    assert_eq!(page("<a href=x>", None), None);
    assert_eq!(
        page("<head><base href=' http://b/&amp;/'>", None),
        Some(("http://b/&/".into(), true))
    );
    assert_eq!(
        page("<base href=/s/>", r),
        Some(("http://r/s/".into(), true))
    );
    assert_eq!(
        page("<base href=''>", r),
        Some(("http://r/a/p".into(), true))
    );
    assert_eq!(page("<base href=/s/>", None), None);
    assert_eq!(
        page("<base href=s/>", r),
        Some(("http://r/a/p".into(), false))
    );
    assert_eq!(
        page("<base href='javascript:x'>", r),
        Some(("http://r/a/p".into(), true))
    );
    assert_eq!(
        page("<body><base href='http://b/'>", r),
        Some(("http://r/a/p".into(), true))
    );
}

#[test]
fn the_checks_catch_what_they_should() {
    // The checker must fail what a broken rewriter could write.
    let input = b"<head><link href=a.css></head><a href=\"x\">x</a><svg><use href=\"#i\"/></svg>";
    let b = base("http://h/d/p");
    let good = b"<head><link href=http://h/d/a.css></head><a href=\"http://h/d/x\">x</a><svg><use href=\"#i\"/></svg>";
    let cases: [(&[u8], &str); 7] = [
        (good, ""),
        (
            b"<head><link href=a.css></head><a href=\"http://h/d/x\">x</a><svg><use href=\"#i\"/></svg>",
            "left relative",
        ),
        (
            b"<head><link href=http://h/d/a.css></head><a href='http://h/d/x'>x</a><svg><use href=\"#i\"/></svg>",
            "of the input changed",
        ),
        (
            b"<head><link href=http://h/d/a.css></head><a href=\"http://h/d/x\">x</a><svg><use href=\"http://h/d/p#i\"/></svg>",
            "inside SVG was changed",
        ),
        (
            b"<head><link href=http://h/d/a.css></head><a href=\"http://h/x\">x</a><svg><use href=\"#i\"/></svg>",
            "want `http://h/d/x`",
        ),
        (
            b"<head><link href=http://h/d/a.css></head><a href=\"http://h/d/x\">x</a><svg><use href=\"#i\"/></svg>.",
            "after byte",
        ),
        (
            b"<head><link href=http://h/d/a.css></head><a href=\"http://h/d/x\" href=y>x</a><svg><use href=\"#i\"/></svg>",
            "URL attributes in the input",
        ),
    ];
    for (output, expected) in cases {
        let mut failures = Vec::new();
        check_spans(input, output, &b, &mut failures);
        let all = failures.join("\n");
        if expected.is_empty() {
            assert!(failures.is_empty(), "{all}");
        } else {
            assert!(all.contains(expected), "want {expected:?}, got {all:?}");
        }
    }
    // Where the exact result is not worked out, the net_loc still counts.
    let mut failures = Vec::new();
    check_spans(b"<a href=../x>", b"<a href=http://e/x>", &b, &mut failures);
    assert!(
        failures.join("\n").contains("not on the base"),
        "{failures:?}"
    );
    // An unquoted value that needed quotes is accepted with them.
    let mut failures = Vec::new();
    check_spans(
        b"<a href=x>",
        b"<a href=\"http://h/a b/x\">",
        &base("http://h/a b/"),
        &mut failures,
    );
    assert!(failures.is_empty(), "{failures:?}");
}

/// The page source feeds the engine as the library's `rewrite` does (its
/// own reads, into buffers it keeps), so a page comes out the same from
/// a file as from the library, where the memory limit bites too: at a
/// small `--max-memory`, where what is held and when decides where
/// rewriting stops, a page fed in other writes stopped elsewhere.
#[test]
fn corpus_pages_come_out_of_the_command_line_as_out_of_the_library_at_a_small_max_memory() {
    let Some(shared) = common::shared(
        "corpus_pages_come_out_of_the_command_line_as_out_of_the_library_at_a_small_max_memory",
    ) else {
        return;
    };
    const LIMIT: usize = 200_000;
    let mut differ = Vec::new();
    for page in pages(&shared.join("corpus/pages")) {
        let input = std::fs::read(&page.path).unwrap();
        let out = assert_cmd::Command::new(BIN)
            .args(["-q", "-r", &page.url, "--max-memory", &LIMIT.to_string()])
            .arg(&page.path)
            .output()
            .unwrap();
        let layers = htmlabs::Layers::default()
            .with_retrieval(htmlabs::Standard::Rfc1808, &page.url, "-r")
            .unwrap();
        let config = {
            let mut config = htmlabs::Config::default();
            config.max_memory = LIMIT;
            config
        };
        let mut library = Vec::new();
        let rewritten = htmlabs::rewrite(
            htmlabs::Type::Html,
            config,
            layers,
            &input[..],
            &mut library,
        );
        if rewritten.is_err() || out.stdout != library {
            differ.push(page.file.clone());
        }
    }
    assert!(
        differ.is_empty(),
        "{} pages differ: {differ:?}",
        differ.len()
    );
}
