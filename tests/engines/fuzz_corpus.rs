//! The committed fuzz corpus (`fuzz/corpus/<target>/`), replayed through the
//! same property checks as the fuzz targets (`fuzz/src/properties.rs`), with
//! plain `cargo test`: what the fuzzers found interesting stays checked on
//! stable, without cargo-fuzz.

use crate::fuzz as properties;

use std::panic;
use std::path::{Path, PathBuf};

use properties::{
    Case, check_http, check_resolve, check_rewrite, check_stylesheet, check_warc, check_xml,
    resolve_case,
};

/// The files of `fuzz/corpus/<target>`, sorted.
fn corpus(target: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Runs `check` on every file of the corpus of `target`; all failures are
/// listed together, by file name.
fn replay(target: &str, at_least: usize, check: impl Fn(&[u8]) + panic::RefUnwindSafe) {
    let files = corpus(target);
    assert!(
        files.len() >= at_least,
        "fuzz/corpus/{target} holds {} files",
        files.len()
    );
    let mut failures = Vec::new();
    for file in &files {
        let data = std::fs::read(file).unwrap();
        if let Err(e) = panic::catch_unwind(|| check(&data)) {
            let why = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{}: {why}", file.display()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn resolve_corpus_keeps_its_properties() {
    replay("resolve", 50, |data| {
        let (base, reference) = resolve_case(data);
        check_resolve(&base, &reference);
    });
}

#[test]
fn rewrite_corpus_keeps_its_properties() {
    replay("rewrite", 100, |data| {
        check_rewrite(&Case::from_bytes(data))
    });
}

#[test]
fn http_corpus_keeps_its_properties() {
    replay("http", 20, |data| check_http(&Case::from_bytes(data)));
}

#[test]
fn warc_corpus_keeps_its_properties() {
    replay("warc", 20, |data| check_warc(&Case::from_bytes(data)));
}

#[test]
fn xml_corpus_keeps_its_properties() {
    replay("xml", 150, |data| check_xml(&Case::from_bytes(data)));
}

#[test]
fn stylesheet_corpus_keeps_its_properties() {
    replay("stylesheet", 40, |data| {
        check_stylesheet(&Case::from_bytes(data))
    });
}

/// The stylesheet checks must fail what a broken rewriter could write, and
/// pass what a right one writes.
#[test]
fn the_stylesheet_checks_catch_what_they_should() {
    let same = properties::css_tokens::same_but_urls;
    let input = b"@import 'a.css' print;\n.a{b:url(c.png) url( \"d\" ) image-set('e' 1x, f 2x)}\n\
                  /* url(g) */ .h{content:'url(i)'}";
    let fine: &[u8] =
        b"@import 'http://h/a.css' print;\n.a{b:url(http://h/c\\).png) url( \"http://h/d\" ) \
                        image-set('http://h/e' 1x, f 2x)}\n/* url(g) */ .h{content:'url(i)'}";
    let urls = same(input, fine).expect("only URLs changed");
    assert_eq!(urls.len(), 4, "{urls:?}");
    assert_eq!(
        urls[1],
        ("url(c.png)".into(), "url(http://h/c\\).png)".into())
    );
    for (output, expected) in [
        // A comment, another string, the option's second word, a quote.
        (
            &b"@import 'a.css' print;\n.a{b:url(c.png) url( \"d\" ) image-set('e' 1x, f 2x)}\n/* url(http://h/g) */ .h{content:'url(i)'}"[..],
            "white space or a comment",
        ),
        (
            b"@import 'a.css' print;\n.a{b:url(c.png) url( \"d\" ) image-set('e' 1x, f 2x)}\n/* url(g) */ .h{content:'url(http://h/i)'}",
            "a token",
        ),
        (
            b"@import 'a.css' print;\n.a{b:url(c.png) url( \"d\" ) image-set('e' 1x, http://h/f 2x)}\n/* url(g) */ .h{content:'url(i)'}",
            "component values became",
        ),
        (
            b"@import 'a.css' Print;\n.a{b:url(c.png) url( \"d\" ) image-set('e' 1x, f 2x)}\n/* url(g) */ .h{content:'url(i)'}",
            "a token",
        ),
        // A URL written unescaped that ends its token early, or becomes
        // another kind.
        (
            b"@import 'a.css' print;\n.a{b:url(c).png) url( \"d\" ) image-set('e' 1x, f 2x)}\n/* url(g) */ .h{content:'url(i)'}",
            "component values became",
        ),
        (
            b"@import 'a.css' print;\n.a{b:url(c p.png) url( \"d\" ) image-set('e' 1x, f 2x)}\n/* url(g) */ .h{content:'url(i)'}",
            "another kind",
        ),
        (
            b"@import 'a'.css' print;\n.a{b:url(c.png) url( \"d\" ) image-set('e' 1x, f 2x)}\n/* url(g) */ .h{content:'url(i)'}",
            "another kind",
        ),
    ] {
        let got = same(input, output);
        assert!(
            got.as_ref().is_err_and(|e| e.contains(expected)),
            "want {expected:?}, got {got:?}"
        );
    }
    // The text is read as the engine reads it: a byte of Latin-1 by its
    // @charset, UTF-16 by its byte order mark.
    assert!(
        same(
            b"@charset \"latin1\"; a{b:\xe9}",
            b"@charset \"latin1\"; a{b:\xe8}"
        )
        .is_err()
    );
    assert!(same(b"\xff\xfea\x00{\x00}\x00", b"\xff\xfea\x00{\x00}\x00").is_ok());
    assert!(same(b"\xff\xfea\x00{\x00}\x00", b"\xff\xfeb\x00{\x00}\x00").is_err());
    // Two bytes that are not UTF-8 are not the same text.
    assert!(same(b"a{b:\xff}", b"a{b:\xfe}").is_err());
    // The golden stylesheets: only their URLs differ.
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/stylesheet");
    let mut urls = 0;
    for case in std::fs::read_dir(&root).unwrap() {
        let dir = case.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
        match same(&read("input.css"), &read("expected.css")) {
            Ok(found) => urls += found.iter().filter(|(a, b)| a != b).count(),
            Err(e) => panic!("{}: {e}", dir.display()),
        }
    }
    assert!(urls >= 50, "{urls} URLs rewritten in fixtures/stylesheet");
}

/// The XML checks must fail what a broken rewriter could write.
#[test]
fn the_xml_checks_catch_what_they_should() {
    let input = b"<a x='1' y=\"2\"><!--c--><b>t<![CDATA[d]]>&amp;</b></a>";
    let fine: &[u8] =
        b"<a x='http://h/1' y=\"2\"><!--c--><b>http://h/t<![CDATA[d]]]]><![CDATA[>]]>&amp;</b></a>";
    assert_eq!(properties::check_xml_outside_values(input, fine), Ok(()));
    for (output, expected) in [
        (
            &b"<a x='1' y='2'><!--c--><b>t<![CDATA[d]]>&amp;</b></a>"[..],
            "construct 0 changed",
        ),
        (
            b"<a x='1' y=\"2\"><!--C--><b>t<![CDATA[d]]>&amp;</b></a>",
            "construct 1 changed",
        ),
        (
            b"<a x='1' y=\"2\"><!--c--><b>t<i/><![CDATA[d]]>&amp;</b></a>",
            "changed outside",
        ),
        (
            b"<a x='1' y=\"2\"><!--c--><b>t<![CDATA[d]]>&amp;</b></a>x",
            "from nothing at the end",
        ),
        (
            b"<a x='1' y=\"2\">z<!--c--><b>t<![CDATA[d]]>&amp;</b></a>",
            "from nothing before construct 1",
        ),
        (
            b"<a x='1' y=\"2\"><!--c--><b>t<![CDATA[d]]>&amp;</b></a><x/>",
            "constructs became",
        ),
        (
            b"<a x='1' y=\"2\" z='3'><!--c--><b>t<![CDATA[d]]>&amp;</b></a>",
            "construct 0 changed",
        ),
    ] {
        let got = properties::check_xml_outside_values(input, output);
        assert!(
            got.as_ref().is_err_and(|e| e.contains(expected)),
            "want {expected:?}, got {got:?}"
        );
    }
    // What follows a construct quick-xml cannot read is copied.
    let broken = b"<a x='1'><b y='2 <c/>";
    assert_eq!(
        properties::check_xml_outside_values(broken, b"<a x='http://h/1'><b y='2 <c/>"),
        Ok(())
    );
    assert!(properties::check_xml_outside_values(broken, b"<a x='1'><b y='3 <c/>").is_err());
}

#[test]
fn a_case_reads_back_from_its_bytes() {
    let case = Case {
        html: b"<a href=x>\xff".to_vec(),
        base: Some("http://h/a \"b\">".into()),
        rfc3986: true,
        keep_fragments: false,
        lazy: true,
        social: false,
        small_lookahead: true,
        small_memory: false,
        chunks: 7,
        xml: true,
    };
    assert_eq!(Case::from_bytes(&case.to_bytes()), case);
    // Every input is a case; a base without a scheme is given one.
    assert_eq!(Case::from_bytes(b""), Case::default());
    assert_eq!(
        Case::from_bytes(b"\x10\x00\x02\"><p>").base.as_deref(),
        Some("http://h/\">")
    );
}

/// The checks must fail what a broken rewriter could write.
#[test]
fn the_checks_catch_what_they_should() {
    let table = htmlabs::internal::Table::default();
    let input = b"<a href=x title=t>x</a><style>a{}</style><img src=\"y\">";
    let fine: &[u8] =
        b"<a href=\"http://h/ x\" title=t>x</a><style>b{}</style><img src=\"http://h/y\">";
    assert_eq!(
        properties::check_outside_values(input, fine, &table),
        Ok(())
    );
    for (output, expected) in [
        (
            &b"<a href=http://h/x title=T>x</a><style>a{}</style><img src=\"y\">"[..],
            "before <style #content>",
        ),
        (
            b"<a href=x title=t>x</a><style>a{}</style><img src=\"y\"> ",
            "after byte",
        ),
        (
            b"<a href=\"x\" onclick=\"\" title=t>x</a><style>a{}</style><img src=\"y\">",
            "before <style #content>",
        ),
        (
            b"<a href=\"x\"><img src=\"\" title=t>x</a><style>a{}</style><img src=\"y\">",
            "the URL attributes changed",
        ),
        (
            b"<a href=x title=t>x</a><style>a{}</style ><img src=\"y\">",
            "before <img src>",
        ),
    ] {
        let got = properties::check_outside_values(input, output, &table);
        assert!(
            got.as_ref().is_err_and(|e| e.contains(expected)),
            "want {expected:?}, got {got:?}"
        );
    }
}

/// Served as XML, a comment outside the root element may change (it may be
/// an `<?xml-stylesheet?>`), but not break out of itself, and no other
/// byte may change; served as HTML, no comment may change.
#[test]
fn the_checks_of_a_page_served_as_xml_catch_what_they_should() {
    let table = htmlabs::internal::Table::default();
    let input = b"<?xml-stylesheet href=\"a.css\"?><html><!-- in --></html><!-- after -->";
    let fine: &[u8] =
        b"<?xml-stylesheet href=\"http://h/a.css\"?><html><!-- in --></html><!-- after -->";
    assert_eq!(
        properties::check_outside_served(input, fine, &table, true),
        Ok(())
    );
    let as_html = properties::check_outside_served(input, fine, &table, false);
    assert!(as_html.is_err(), "served as HTML: {as_html:?}");
    for (output, expected) in [
        (
            &b"<?xml-stylesheet href=\"http://h/a>.css\"?><html><!-- in --></html><!-- after -->"[..],
            "before <!-- #instruction>, changed",
        ),
        (
            b"<?xml-stylesheet href=\"a.css\"?><html><!-- IN --></html><!-- after -->",
            "became b\"<html><!-- IN --></html>\"",
        ),
        (
            b"<?xml-stylesheet href=\"a.css\"?><html></html><!-- in --><!-- after -->",
            "the URL attributes changed",
        ),
    ] {
        let got = properties::check_outside_served(input, output, &table, true);
        assert!(
            got.as_ref().is_err_and(|e| e.contains(expected)),
            "want {expected:?}, got {got:?}"
        );
    }
}

/// The cases the fuzzers once had to skip (a panic, a prefix that extended
/// a reference without `;`, a base with a space in a list) now hold every
/// property, with a base and without.
#[test]
fn the_cases_behind_the_fixed_bugs_hold_every_property() {
    let cases: [&[u8]; 8] = [
        "<a href=\"é?a&amp;b\">".as_bytes(),
        "<iframe srcdoc=\"<a href=&quot;é&amp;amp;&quot;>\">".as_bytes(),
        "<p><noscript><a href=\"é&amp;\"></noscript>".as_bytes(),
        b"<base href=\xff&amp;x><a href=y>",
        b"<div style=\"background:url(&quot/i.png&quot)\">",
        b"<a href=\"&#x9x\">",
        b"<a ping=x itemtype=\"y z\" href=\"&quot\">",
        "<a href=\"x\u{e9}&amp;\">".as_bytes(),
    ];
    for html in cases {
        for base in ["http://h/a b/", "file:///d/", "http://h/d/\"'>"] {
            check_rewrite(&Case {
                html: html.to_vec(),
                base: Some(base.to_owned()),
                ..Case::default()
            });
        }
    }
}
