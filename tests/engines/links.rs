//! The link report (`Rewriter::with_links`): every URL value heard once, in
//! document order, at its place (byte offset, line and column in
//! characters), with what it says and what it resolves to; the same however
//! the input is split, and the output the same as without it.

use htmlabs::{Config, Layers, Link, Outcome, Rewriter, Standard};

const PAGE: &str = "<!DOCTYPE html>\n<html><head><meta charset=utf-8>\n\
<link rel=stylesheet href=\"css/é.css\"><style>\n  body { background: url(img/bg.png) }\n</style>\n\
</head><body>\r\n<a href=\"https://other.example/x\">abs</a> <a href='#top'>top</a>\n\
\t<img src=a.png srcset=\"b.png 2x,\n c.png 3x\"><svg><use href=\"#icon\"/></svg>\n\
<noscript><img src=\"ns.png\"></noscript><p style=\"background:url('s.png')\">ü <a href=\"../up/\">up</a>\n";

fn layers() -> Layers {
    Layers::default()
        .with_retrieval(Standard::Rfc1808, "http://h/d/p.html", "-r")
        .unwrap()
}

fn config(keep_fragments: bool) -> Config {
    let mut config = Config::default();
    config.keep_fragments = keep_fragments;
    config
}

/// The links heard and the output, the input written `step` bytes at a time.
fn run(config: Config, layers: Layers, input: &[u8], step: usize) -> (Vec<Link>, Vec<u8>) {
    let mut rewriter = Rewriter::new(htmlabs::Type::Html, config, layers, Vec::new()).with_links();
    let events = rewriter.events();
    for chunk in input.chunks(step) {
        rewriter.write(chunk).unwrap();
    }
    let (_, output) = rewriter.end().unwrap();
    (events.take_links(), output)
}

/// Line and column of `offset`, counted here the plain way.
fn place(text: &str, offset: usize) -> (usize, usize) {
    let before = text[..offset].replace("\r\n", "\n").replace('\r', "\n");
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap().chars().count() + 1;
    (line, column)
}

#[test]
fn every_url_is_heard_in_place() {
    let (links, output) = run(config(false), layers(), PAGE.as_bytes(), usize::MAX);
    let summary: Vec<String> = links
        .iter()
        .map(|l| {
            format!(
                "<{} {}> {} {:?} -> {}: {}",
                l.element,
                l.attribute,
                l.kind.name(),
                l.original,
                l.absolute.as_deref().unwrap_or("-"),
                l.outcome.name()
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            "<link href> url \"css/é.css\" -> http://h/d/css/é.css: rewritten",
            "<style > css \"img/bg.png\" -> http://h/d/img/bg.png: rewritten",
            "<a href> url \"https://other.example/x\" -> https://other.example/x: absolute",
            "<a href> url \"#top\" -> http://h/d/p.html#top: rewritten",
            "<img src> url \"a.png\" -> http://h/d/a.png: rewritten",
            "<img srcset> srcset \"b.png\" -> http://h/d/b.png: rewritten",
            "<img srcset> srcset \"c.png\" -> http://h/d/c.png: rewritten",
            "<use href> url \"#icon\" -> http://h/d/p.html#icon: same-document",
            "<img src> url \"ns.png\" -> http://h/d/ns.png: rewritten",
            "<p style> css \"s.png\" -> http://h/d/s.png: rewritten",
            "<a href> url \"../up/\" -> http://h/up/: rewritten",
        ]
    );
    for link in &links {
        let at = link.position.offset;
        assert!(
            PAGE[at..].starts_with(&link.original),
            "{link:?} does not stand at {at}"
        );
        assert_eq!(
            (link.position.line, link.position.column),
            place(PAGE, at),
            "{link:?}"
        );
        assert_eq!(&*link.base.url, "http://h/d/p.html");
    }
    let (unheard, _) = {
        let mut rewriter = Rewriter::new(htmlabs::Type::Html, config(false), layers(), Vec::new());
        rewriter.write(PAGE.as_bytes()).unwrap();
        let (report, out) = rewriter.end().unwrap();
        (out, report)
    };
    assert_eq!(output, unheard, "listening changes nothing");
}

/// A value of many URLs, over many lines: each heard in place (lines and
/// columns are followed from one URL to the next, the value decoded once:
/// each URL's place was counted from the value's start: `--check` took 1 s
/// over a `srcset` of 52,430 candidates, 14 minutes over a `ping` list of
/// 3,000,000 URLs).
#[test]
fn every_url_of_a_long_value_is_heard_in_place() {
    let candidates: Vec<String> = (0..2000)
        .map(|i| {
            format!(
                "é{i}.png {}x,{}",
                i % 3 + 1,
                if i % 7 == 0 { "\r\n" } else { " " }
            )
        })
        .collect();
    let page = format!(
        "<p>ü</p>\n<img srcset=\"{}\"><a href=&amp;x>",
        candidates.concat()
    );
    let (links, _) = run(config(false), layers(), page.as_bytes(), usize::MAX);
    assert_eq!(links.len(), 2001);
    for (i, link) in links[..2000].iter().enumerate() {
        assert_eq!(link.original, format!("é{i}.png"));
        let at = link.position.offset;
        assert!(page[at..].starts_with(&link.original), "{link:?}");
        assert_eq!((link.position.line, link.position.column), place(&page, at));
    }
    assert_eq!(links[2000].original, "&x");
}

#[test]
fn the_split_of_the_input_does_not_matter() {
    let (whole, _) = run(config(true), layers(), PAGE.as_bytes(), usize::MAX);
    for step in [1, 2, 3, 7, 64] {
        assert_eq!(
            run(config(true), layers(), PAGE.as_bytes(), step).0,
            whole,
            "{step}"
        );
    }
}

/// Links after long stretches of text (the page engine counts lines and
/// columns a block at a time, not a token at a time): a line of 10,000
/// characters, many of two and three bytes, CR LF and lone CRs at every
/// distance, a link at the end of each stretch: each in place however the
/// input is split, around the blocks' size too.
#[test]
fn links_after_long_stretches_are_heard_in_place() {
    let mut page = String::from("\u{feff}<p>");
    for i in 0..40 {
        let stretch: String = (0..i * 97 % 5000)
            .map(|n| match (n + i) % 11 {
                0 => "é",
                1 => "€",
                2 if i % 3 == 0 => "\r\n",
                3 if i % 5 == 0 => "\r",
                4 if i % 4 == 0 => "\n",
                _ => "x",
            })
            .collect();
        page += &stretch;
        page += &format!("<a href=\"p{i}.html\">é</a>");
        if i % 6 == 0 {
            page += &"ü".repeat(5000);
        }
    }
    let (whole, _) = run(config(false), layers(), page.as_bytes(), usize::MAX);
    assert_eq!(whole.len(), 40);
    for link in &whole {
        let at = link.position.offset;
        assert!(page[at..].starts_with(&link.original), "{link:?}");
        // The byte order mark is no character an editor shows.
        let (line, column) = place(&page[3..], at - 3);
        assert_eq!(
            (link.position.line, link.position.column),
            (line, column),
            "{link:?}"
        );
    }
    for step in [1, 13, 4095, 4096, 4097, 70_000] {
        assert_eq!(
            run(config(false), layers(), page.as_bytes(), step).0,
            whole,
            "{step}"
        );
    }
}

#[test]
fn legacy_encodings_count_characters_and_bad_bytes_are_kept() {
    let (page, _, _) = encoding_rs::SHIFT_JIS
        .encode("<meta charset=shift_jis><p>日本語\n日本 <a href=\"語.html\">x</a> <img src=\"");
    let mut page = page.into_owned();
    page.extend_from_slice(b"\x82\xff.png\">");
    let (links, _) = run(config(false), layers(), &page, usize::MAX);
    assert_eq!(links.len(), 2);
    assert_eq!(links[0].original, "語.html");
    assert_eq!((links[0].position.line, links[0].position.column), (2, 13));
    // 語 in Shift_JIS.
    assert_eq!(&page[links[0].position.offset..][..2], b"\x8c\xea");
    assert_eq!(links[1].outcome, Outcome::Undecodable);
    assert_eq!(links[1].raw.as_deref(), Some(&b"\x82\xff.png"[..]));
    assert_eq!(links[1].absolute, None);
    assert_eq!(&page[links[1].position.offset..][..2], b"\x82\xff");
}

#[test]
fn single_byte_encodings_count_every_byte_as_a_character() {
    // windows-1252's 0x80-0xBF are characters (© is 0xA9, a no-break space
    // 0xA0), not UTF-8's continuation bytes.
    let text = "<meta charset=windows-1252><p>© 2026\u{a0}»\r\n¿ <a href=\"x.html\">x</a>\r\n";
    let (page, _, _) = encoding_rs::WINDOWS_1252.encode(text);
    for step in [1, 3, usize::MAX] {
        let (links, _) = run(config(false), layers(), &page, step);
        assert_eq!(links.len(), 1);
        let at = links[0].position.offset;
        assert_eq!(&page[at..][..6], b"x.html");
        let (decoded, _) = encoding_rs::WINDOWS_1252.decode_without_bom_handling(&page[..at]);
        let expected = place(&decoded, decoded.len());
        assert_eq!(
            (links[0].position.line, links[0].position.column),
            expected,
            "{step}"
        );
        assert_eq!(expected, (2, 12));
    }
}

#[test]
fn without_a_base_each_value_is_heard_whole() {
    let config = Config::default();
    let (links, output) = run(
        config,
        Layers::default(),
        b"<img src=' a.png ' srcset='b 1x, c 2x'>",
        usize::MAX,
    );
    assert_eq!(output, b"<img src=' a.png ' srcset='b 1x, c 2x'>");
    let heard: Vec<(&str, Outcome, usize)> = links
        .iter()
        .map(|l| (l.original.as_str(), l.outcome, l.position.offset))
        .collect();
    assert_eq!(
        heard,
        [
            ("a.png", Outcome::NoBase, 11),
            ("b 1x, c 2x", Outcome::NoBase, 27)
        ]
    );
}

#[test]
fn an_empty_value_that_names_no_resource_is_heard_as_empty() {
    let (links, _) = run(
        config(false),
        layers(),
        b"<img src=\"\"><a href=\"\">x</a>",
        usize::MAX,
    );
    let outcomes: Vec<_> = links
        .iter()
        .map(|l| (l.outcome, l.absolute.clone()))
        .collect();
    assert_eq!(outcomes[0], (Outcome::Empty, None));
    assert_eq!(
        outcomes[1].0,
        Outcome::Rewritten,
        "<a href=\"\"> names the document"
    );
}
