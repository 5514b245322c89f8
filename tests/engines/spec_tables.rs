//! The spec example tables in `fixtures/`, run through one driver: every row
//! is checked, and every failing row is named.

use crate::common;

use htmlabs::{Config, Layers, Rewriter, Standard};

fn run(dir: &str, standard: Standard) {
    let cases = common::load_table(dir);
    assert!(!cases.is_empty(), "fixtures/{dir} holds no cases");
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let got = standard.resolve(&case.base, &case.reference);
            (got != case.expected).then(|| {
                format!(
                    "{}: `{}` + `{}`: expected `{}`, got `{got}`",
                    case.name, case.base, case.reference, case.expected
                )
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// Every row again through a page: the base given as `-r` is, and
/// `<a href="reference">` comes out as `expected`. A base is refused only
/// when links against it would run script (`url::layers`), never for its
/// shape: `news:comp.lang.misc` is a base as `http://a/b` is.
fn run_through_a_page(dir: &str, standard: Standard) {
    let cases = common::load_table(dir);
    let config = {
        let mut config = Config::default();
        config.standard = standard;
        config
    };
    let mut through = 0;
    let failures: Vec<String> = cases
        .iter()
        .filter_map(|case| {
            let named = |what: String| {
                format!(
                    "{}: `{}` + `{}`: {what}",
                    case.name, case.base, case.reference
                )
            };
            let layers = match Layers::default().with_retrieval(standard, &case.base, "-r") {
                Ok(layers) => layers,
                Err(e) => return Some(named(format!("the base is refused: {e}"))),
            };
            // A value is stripped of ASCII whitespace first, and an empty
            // one is a value of its own (docs/rewritten.md): such rows are
            // the resolver's alone.
            let trimmed = case.reference.trim_matches(['\t', '\n', '\x0c', '\r', ' ']);
            if case.reference.is_empty() || trimmed != case.reference {
                return None;
            }
            let escaped = case.reference.replace('&', "&amp;").replace('"', "&quot;");
            let page = format!("<a href=\"{escaped}\">x</a>");
            let mut rewriter =
                Rewriter::new(htmlabs::Type::Html, config.clone(), layers, Vec::new()).with_links();
            let events = rewriter.events();
            rewriter.write(page.as_bytes()).unwrap();
            rewriter.end().unwrap();
            let links = events.take_links();
            let [link] = &links[..] else {
                return Some(named(format!("{} links heard", links.len())));
            };
            through += 1;
            let got = link.absolute.as_deref().unwrap_or(&link.original);
            (got != case.expected).then(|| {
                named(format!(
                    "expected `{}`, got `{got}` ({})",
                    case.expected,
                    link.outcome.name()
                ))
            })
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases failed through a page:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    assert!(
        through > cases.len() / 2,
        "{through} of {} cases",
        cases.len()
    );
}

#[test]
fn rfc1808_tables_through_a_page() {
    run_through_a_page("rfc1808", Standard::Rfc1808);
}

#[test]
fn rfc3986_tables_through_a_page() {
    run_through_a_page("rfc3986", Standard::Rfc3986);
}

#[test]
fn rfc1808_tables() {
    run("rfc1808", Standard::Rfc1808);
}

#[test]
fn rfc3986_tables() {
    run("rfc3986", Standard::Rfc3986);
}

/// The spec tables themselves come from `shared/spec/`: check that every
/// example the RFC texts give is in the fixtures, so none is dropped or
/// mistyped when the tables are edited.
#[test]
fn fixtures_hold_every_example_of_the_spec_texts() {
    let Some(shared) = common::shared("fixtures_hold_every_example_of_the_spec_texts") else {
        return;
    };
    let rows: Vec<(String, String)> = common::load_table("rfc1808")
        .into_iter()
        .chain(common::load_table("rfc3986"))
        .map(|c| (c.reference, c.expected))
        .collect();
    let mut checked = 0;
    for file in ["rfc1808.txt", "draft-ietf-uri-relative-url-02.txt"] {
        let text = std::fs::read_to_string(shared.join("spec").join(file)).unwrap();
        for line in text.lines() {
            // `      ../g = <URL:http://a/b/g>`
            let Some((reference, rest)) = line.split_once(" = <URL:") else {
                continue;
            };
            let reference = reference.trim();
            let reference = if reference == "<>" { "" } else { reference };
            let expected = rest.trim_end().trim_end_matches('>');
            assert!(
                rows.contains(&(reference.to_owned(), expected.to_owned())),
                "{file}: `{reference}` = `{expected}` is not in fixtures/"
            );
            checked += 1;
        }
    }
    let text = std::fs::read_to_string(shared.join("spec/rfc3986-section5.txt")).unwrap();
    for line in text.lines() {
        // `      "g"             =  "http://a/b/c/g"`
        let fields: Vec<&str> = line.split('"').collect();
        if let [indent, reference, equals, expected, _] = fields[..] {
            if indent.trim().is_empty() && equals.trim() == "=" {
                assert!(
                    rows.contains(&(reference.to_owned(), expected.to_owned())),
                    "rfc3986-section5.txt: `{reference}` = `{expected}` is not in fixtures/"
                );
                checked += 1;
            }
        }
    }
    // 39 in RFC 1808 §5, 24 in draft-02 §5, 42 in RFC 3986 §5.4.
    assert_eq!(checked, 39 + 24 + 42);
}
