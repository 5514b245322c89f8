//! The fuzz targets' properties (`fuzz/src/properties.rs`) as proptests,
//! over HTML generated from a small grammar: the tags and attributes of the
//! table in every quoting, duplicates and valueless ones, character
//! references, comments, `<script>` text that looks like markup,
//! `<template>`, `<noscript>`, `srcdoc`, `<meta refresh>`, `<base>` anywhere,
//! multi-byte UTF-8 and bytes that are not UTF-8. Each document runs whole
//! and in random writes, with random flags and bases, hostile ones included.

use crate::fuzz as properties;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;

use htmlabs::{Config, Layers, Rewriter, Standard, Warning};
use properties::{Case, check_resolve, check_rewrite};

/// The heap this thread holds, and the most it has held since the last
/// [`peak_from`]: what a rewrite takes, counted by the allocator itself.
struct Counting;

thread_local! {
    static HELD: Cell<(isize, isize)> = const { Cell::new((0, 0)) };
}

fn count(delta: isize) {
    // A thread being torn down has no count to keep.
    let _ = HELD.try_with(|held| {
        let (now, peak) = held.get();
        let now = now + delta;
        held.set((now, peak.max(now)));
    });
}

// SAFETY: each call is the system allocator's, with a count beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            count(layout.size() as isize);
        }
        p
    }

    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        count(-(layout.size() as isize));
    }

    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            count(size as isize - layout.size() as isize);
        }
        q
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// Runs `f`; the most heap this thread held meanwhile, above what it held
/// before.
fn peak_from<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let start = HELD.with(|held| {
        let (now, _) = held.get();
        held.set((now, now));
        now
    });
    let result = f();
    let peak = HELD.with(|held| held.get().1);
    (result, (peak - start).max(0) as usize)
}

/// References that resolve in every way: relative, absolute, same-document,
/// empty, with entities, spaces, quotes and non-ASCII.
const REFERENCES: &[&str] = &[
    "",
    "x",
    "g/h.png",
    "../up/x",
    "./.././x",
    "/abs",
    "//net/p",
    "?q=1",
    "#frag",
    ";p",
    "g;x?y#s",
    "http://e/x",
    "HTTPS:e",
    "mailto:a@b",
    "javascript:x()",
    "data:,x",
    " spaced ",
    "a b",
    "a&amp;b",
    "?a=1&timestamp=2",
    "&times;",
    "a&#39;b",
    "a&quot;b",
    "&#x2F;x",
    "a\"b",
    "a'b",
    "a>b",
    "é/ü",
    "%2e%2e/x",
    "\t\nx\x0C",
];

/// Bases: none, ordinary, odd, and hostile (quotes, spaces, `>`, `)`, `,`,
/// `&`, `<`).
const BASES: &[Option<&str>] = &[
    None,
    None,
    Some("http://h/d/p"),
    Some("https://example.com"),
    Some("file:///etc/passwd"),
    Some("http://a?q"),
    Some("foo:/bar"),
    Some("news:comp.lang.misc"),
    Some("http://h/a b\"c'd>e)f,g/"),
    Some("http://h/</style></noscript>/"),
    Some("http://h/&amp;&lt;/x"),
    Some("http://h/é/"),
];

fn reference() -> impl Strategy<Value = String> {
    select(REFERENCES).prop_map(String::from)
}

/// A value for an attribute: its own syntax where it has one.
fn value(name: &'static str) -> BoxedStrategy<String> {
    match name {
        "srcset" | "data-srcset" => prop::collection::vec(
            (
                reference(),
                select(vec!["", " 1x", " 2x", " 100w", ",", " ,"]),
            ),
            1..3,
        )
        .prop_map(|candidates| {
            candidates
                .into_iter()
                .map(|(url, descriptor)| format!("{url}{descriptor}"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .boxed(),
        "style" => (reference(), select(vec!["", "'", "\""]))
            .prop_map(|(url, q)| format!("background:url({q}{url}{q}); color:red"))
            .boxed(),
        "content" => (reference(), select(vec!["0; url=", "5;URL='", "0,", "3"]))
            .prop_map(|(url, prefix)| format!("{prefix}{url}"))
            .boxed(),
        "srcdoc" => reference()
            .prop_map(|url| format!("<a href=&quot;{url}&quot;>x</a><base href=sub/>"))
            .boxed(),
        "http-equiv" => select(vec!["refresh", "Refresh ", "content-type"])
            .prop_map(String::from)
            .boxed(),
        "property" => select(vec!["og:image", "og:title"])
            .prop_map(String::from)
            .boxed(),
        "valuetype" => Just("ref".to_owned()).boxed(),
        _ => reference().boxed(),
    }
}

/// An attribute in one of the four quotings.
fn attribute() -> impl Strategy<Value = String> {
    let names = vec![
        "href",
        "src",
        "HREF",
        "srcset",
        "style",
        "xlink:href",
        "action",
        "poster",
        "cite",
        "ping",
        "content",
        "http-equiv",
        "property",
        "srcdoc",
        "data-src",
        "data-srcset",
        "codebase",
        "archive",
        "valuetype",
        "value",
        "title",
        "id",
    ];
    select(names)
        .prop_flat_map(|name| (Just(name), value(name), 0..5u8))
        .prop_map(|(name, value, quoting)| match quoting {
            0 => format!(" {name}=\"{}\"", value.replace('"', "&quot;")),
            1 => format!(" {name}='{}'", value.replace('\'', "&#39;")),
            // Unquoted, whatever the value holds: malformed HTML too.
            2 => format!(" {name}={value}"),
            3 => format!(" {name}"),
            _ => format!("\n{name} = \"{}\"", value.replace('"', "&quot;")),
        })
}

/// A start tag of an element of the table, with some attributes, maybe
/// twice the same one.
fn start_tag() -> impl Strategy<Value = String> {
    let tags = vec![
        "a", "img", "link", "base", "BASE", "div", "use", "svg", "iframe", "meta", "form",
        "object", "param", "source", "video", "html", "head", "body", "td", "p",
    ];
    (
        select(tags),
        prop::collection::vec(attribute(), 0..4),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(|(tag, attributes, duplicate, self_closing)| {
            let mut tag = format!("<{tag}{}", attributes.concat());
            if duplicate && !attributes.is_empty() {
                tag.push_str(&attributes[0]);
            }
            tag.push_str(if self_closing { "/>" } else { ">" });
            tag
        })
}

/// Text, as bytes: entities, multi-byte UTF-8, bytes that are not UTF-8.
fn text() -> impl Strategy<Value = Vec<u8>> {
    let pieces: Vec<&[u8]> = vec![
        b"text ",
        b" \n\t",
        b"&amp;",
        b"&quot;",
        b"&#39;",
        b"&times",
        b"&#x41;",
        "é日本🎉".as_bytes(),
        b"\xff\xfe",
        b"\xc3",
        b"\xe6\x97",
        b"\0",
        b"<",
        b">",
    ];
    prop::collection::vec(select(pieces), 1..4).prop_map(|p| p.concat())
}

/// Elements with contents of their own syntax.
fn special() -> impl Strategy<Value = Vec<u8>> {
    let tag = || start_tag().prop_map(String::into_bytes);
    prop_oneof![
        (reference(), select(vec!["", "'", "\""])).prop_map(|(url, q)| {
            format!("<style>@import {q}{url}{q};a{{background:url({url})}}</style>").into_bytes()
        }),
        tag().prop_map(|t| [
            b"<script>if (a<b) document.write('".as_ref(),
            &t,
            b"')</script>"
        ]
        .concat()),
        tag().prop_map(|t| [b"<noscript>".as_ref(), &t, b"</noscript>"].concat()),
        tag().prop_map(|t| [b"<template>".as_ref(), &t, b"</template>"].concat()),
        tag().prop_map(|t| [b"<!-- ".as_ref(), &t, b" -->"].concat()),
        tag().prop_map(|t| [b"<textarea>".as_ref(), &t, b"</textarea>"].concat()),
        tag().prop_map(|t| [b"<svg><use xlink:href=#i />".as_ref(), &t, b"</svg>"].concat()),
        reference().prop_map(|url| {
            format!("<meta http-equiv=refresh content=\"0; url={url}\">").into_bytes()
        }),
        reference().prop_map(|url| format!("<base href=\"{url}\">").into_bytes()),
        // Links of a page served as XML, outside its root element.
        (
            reference(),
            select(vec!["'", "\""]),
            select(vec!["", " type=\"text/css\"", " type=text/xsl"])
        )
            .prop_map(|(url, q, t)| format!("<?xml-stylesheet{t} href={q}{url}{q}?>").into_bytes()),
        Just(b"</html>".to_vec()),
        Just(b"<!DOCTYPE html>".to_vec()),
        Just(b"</head>".to_vec()),
        Just(b"</a></div>".to_vec()),
        Just(b"<style>".to_vec()),
        Just(b"<a href=\"x".to_vec()),
    ]
}

/// A document: a sequence of tags, texts and special elements, cut short
/// now and then.
fn html() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        4 => start_tag().prop_map(String::into_bytes),
        2 => text(),
        3 => special(),
    ];
    (prop::collection::vec(piece, 0..10), any::<u8>()).prop_map(|(pieces, cut)| {
        let mut html = pieces.concat();
        if cut % 8 == 0 && !html.is_empty() {
            html.truncate(usize::from(cut) % html.len());
        }
        html
    })
}

fn case() -> impl Strategy<Value = Case> {
    (
        html(),
        select(BASES),
        prop::array::uniform7(any::<bool>()),
        any::<u8>(),
    )
        .prop_map(|(html, base, flags, chunks)| Case {
            html,
            base: base.map(String::from),
            rfc3986: flags[0],
            keep_fragments: flags[1],
            lazy: flags[2],
            social: flags[3],
            small_lookahead: flags[4],
            small_memory: flags[5] && chunks % 4 == 0,
            chunks,
            xml: flags[6],
        })
}

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(300))]

    /// Identity without a base, bytes outside the values kept, no break-out,
    /// any writes, a second run changes nothing.
    #[test]
    fn generated_html_keeps_the_properties(case in case()) {
        check_rewrite(&case);
    }
}

proptest! {
    #![proptest_config(config(1000))]

    #[test]
    fn references_against_bases_keep_the_properties(
        base in select(BASES).prop_map(|b| b.unwrap_or_default()),
        reference in reference(),
    ) {
        check_resolve(base, &reference);
    }
}

/// A long value of each kind, and where it stands: the start of the page
/// up to the value, a unit repeated to make it long, the rest.
fn long_value() -> impl Strategy<Value = (&'static str, String, String, String)> {
    let quoted = |s: String| s.replace('"', "&quot;");
    prop_oneof![
        reference().prop_map(move |u| ("ping", "<a ping=\"".into(), quoted(u + " "), "\">".into())),
        reference().prop_map(move |u| (
            "archive",
            "<object codebase=c/ archive=\"".into(),
            quoted(u + " "),
            "\">".into()
        )),
        value("srcset").prop_map(move |u| (
            "srcset",
            "<img srcset=\"".into(),
            quoted(u + ", "),
            "\">".into()
        )),
        value("style").prop_map(move |u| (
            "style",
            "<p style=\"".into(),
            quoted(u + ";"),
            "\">".into()
        )),
        Just((
            "style",
            "<p style=\"b:image-set(".to_owned(),
            "(".to_owned(),
            "'a.png')\">".to_owned()
        )),
        reference().prop_map(move |u| ("href", "<a href=\"".into(), quoted(u), "\">".into())),
        reference().prop_map(move |u| (
            "content",
            "<meta http-equiv=refresh content=\"0; url=".into(),
            quoted(u),
            "\">".into()
        )),
        value("srcdoc").prop_map(move |u| (
            "srcdoc",
            "<iframe srcdoc=\"".into(),
            quoted(u),
            "\"></iframe>".into()
        )),
        reference().prop_map(|u| (
            "<style>",
            "<style>".into(),
            format!("a{{background:url({u})}}"),
            "</style>".into()
        )),
        start_tag().prop_map(|t| ("<noscript>", "<noscript>".into(), t, "</noscript>".into())),
    ]
}

proptest! {
    #![proptest_config(config(200))]

    /// Memory for every value kind: a rewrite holds, above what it held
    /// before, at most six times `--max-memory` (lol_html's buffer, the
    /// value's bytes and its working copies, each up to the limit, in
    /// buffers whose capacity may be twice what they hold) and a constant;
    /// and a warning that states a limit states the one in force.
    #[test]
    fn a_long_value_of_any_kind_takes_memory_within_the_limit(
        (kind, head, unit, tail) in long_value(),
        limit in (32usize << 10)..(256 << 10),
        percent in 10usize..100,
        windows_1252 in any::<bool>(),
    ) {
        let repeat = (limit * percent / 100 / unit.len().max(1)).max(1);
        let charset = if windows_1252 { "<meta charset=windows-1252>" } else { "" };
        let html = format!("{charset}<a href=x>{head}{}{tail}<a href=y>", unit.repeat(repeat));
        let layers = || {
            Layers::default()
                .with_retrieval(Standard::Rfc1808, "http://h/d/p.html", "-r")
                .unwrap()
        };
        let config = || {
            let mut config = Config::default();
            config.max_memory = limit;
            config.max_lookahead = 4096;
            config
        };
        let run = |html: &[u8]| {
            let mut rewriter = Rewriter::new(htmlabs::Type::Html, config(), layers(), std::io::sink());
            for chunk in html.chunks(4096) {
                rewriter.write(chunk).unwrap();
            }
            rewriter.end().unwrap().0
        };
        // What a small page takes: the buffers a run keeps.
        let (_, floor) = peak_from(|| run(b"<a href=x><p>small</p>"));
        let (report, peak) = peak_from(|| run(html.as_bytes()));
        prop_assert!(
            peak <= floor + 6 * limit + (64 << 10),
            "{kind}: {} bytes of value at a limit of {limit}: {peak} bytes held at the peak, {floor} on a small page",
            unit.len() * repeat
        );
        for warning in &report.warnings {
            match warning {
                Warning::MemoryLimit { limit: stated, .. } | Warning::TooLarge { limit: stated, .. } => {
                    prop_assert_eq!(*stated, limit, "{}", warning)
                }
                Warning::LookaheadLimit { limit: stated } => prop_assert_eq!(*stated, 4096),
                _ => {}
            }
        }
    }
}

/// The generator reaches what it is meant to: a sample of documents holds
/// each construct.
#[test]
fn the_grammar_reaches_every_construct() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut all = Vec::new();
    for _ in 0..300 {
        all.extend(html().new_tree(&mut runner).unwrap().current());
    }
    for needle in [
        &b"<base href"[..],
        b"<template>",
        b"<noscript>",
        b"<script>",
        b"srcdoc=",
        b"<!--",
        b"http-equiv=refresh",
        b"srcset='",
        b"href=\"",
        b"\xff",
        "日本".as_bytes(),
        b"&times",
        b"<svg>",
    ] {
        assert!(
            all.windows(needle.len()).any(|w| w == needle),
            "no {:?} in 300 documents",
            String::from_utf8_lossy(needle)
        );
    }
}
