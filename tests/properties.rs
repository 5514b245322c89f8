//! The fuzz targets' properties (`fuzz/src/properties.rs`) as proptests,
//! over HTML generated from a small grammar: the tags and attributes of the
//! table in every quoting, duplicates and valueless ones, character
//! references, comments, `<script>` text that looks like markup,
//! `<template>`, `<noscript>`, `srcdoc`, `<meta refresh>`, `<base>` anywhere,
//! multi-byte UTF-8 and bytes that are not UTF-8. Each document runs whole
//! and in random writes, with random flags and bases, hostile ones included.

#[path = "../fuzz/src/properties.rs"]
mod properties;

use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::FileFailurePersistence;

use properties::{Case, check_resolve, check_rewrite};

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
    // Not hierarchical (`foo:bar`) is never a base of a document.
    Some("foo:/bar"),
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
        prop::array::uniform6(any::<bool>()),
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
