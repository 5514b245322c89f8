//! The URLs in a `srcset` or `imagesrcset` value, found by the HTML
//! standard's "parse a srcset attribute" algorithm
//! (<https://html.spec.whatwg.org/multipage/images.html#parse-a-srcset-attribute>),
//! and escaping for writing a URL back as a candidate.
//!
//! The value is the attribute's value after character references were
//! decoded.
//! Only the URLs' byte ranges are reported: the descriptors, the commas and
//! the whitespace between candidates (newlines included) are left to the
//! caller to keep as they are.
//!
//! A candidate whose descriptors a browser would reject (`a.png 1x 2x`,
//! `a.png (junk, with comma)`, steps 9–14 of the algorithm) is still
//! reported: its URL is still a URL, where the candidate ends does not
//! depend on the descriptors being valid, and rewriting it changes nothing a
//! browser shows.

use std::borrow::Cow;
use std::ops::Range;

/// One image candidate of a srcset value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// The byte range of the candidate's URL in the value: never empty, and
    /// never starting or ending with a comma or holding whitespace.
    pub url: Range<usize>,
}

/// The candidate URLs of a `srcset` / `imagesrcset` value, in order, one
/// at a time (a value may hold millions).
///
/// A comma inside a URL is part of it (`a.png,b.png` is one URL); commas at
/// a URL's end separate it from the next candidate (`a.png, b.png` is two).
/// Linear in the length of `value`.
pub fn candidates(value: &str) -> impl Iterator<Item = Candidate> + '_ {
    // Every byte the algorithm stops at is ASCII, so slicing a `&str` at the
    // positions below always falls on a character boundary.
    let input = value.as_bytes();
    let mut position = 0;
    std::iter::from_fn(move || {
        // 4. "Splitting loop: Collect a sequence of code points that are
        // ASCII whitespace or U+002C COMMA characters from input given
        // position."
        position = skip(input, position, |b| b.is_ascii_whitespace() || b == b',');

        // 5. "If position is past the end of input, return candidates."
        if position >= input.len() {
            return None;
        }

        // 6. "Collect a sequence of code points that are not ASCII whitespace
        // from input given position, and let url be the result."
        let start = position;
        position = skip(input, position, |b| !b.is_ascii_whitespace());
        let mut end = position;

        // 8. "If url ends with U+002C (,), then: Remove all trailing U+002C
        // COMMA characters from url." Step 4 skipped every comma at the
        // start, so at least the first byte stays.
        if input[end - 1] == b',' {
            while end > start && input[end - 1] == b',' {
                end -= 1;
            }
        } else {
            // "Otherwise: Descriptor tokenizer: ..."
            position = skip_descriptors(input, position);
        }

        // 9.–14. parse the descriptors and drop the candidate when they are
        // invalid: not done, see the module's documentation.
        // 15. "Return to the step labeled splitting loop."
        Some(Candidate { url: start..end })
    })
}

/// The position after the run of bytes from `position` that `keep` accepts.
fn skip(input: &[u8], mut position: usize, keep: impl Fn(u8) -> bool) -> usize {
    while input.get(position).is_some_and(|&b| keep(b)) {
        position += 1;
    }
    position
}

/// Step 8's descriptor tokenizer, run only for where it stops: the position
/// after the comma that ends the descriptors, or the end of input.
///
/// Of its three states, "in descriptor" and "after descriptor" differ only
/// in how they collect descriptors (whitespace separates them), and either
/// stops at a comma:
///
/// - in descriptor, "U+002C COMMA (,): Advance position to the next
///   character in input. [...] Jump to the step labeled descriptor parser."
/// - after descriptor, "Anything else: Set state to in descriptor. Set
///   position to the previous character in input": the comma is looked at
///   again in descriptor.
///
/// What matters is "in parens": "U+0028 LEFT PARENTHESIS ((): Append c to
/// current descriptor. Set state to in parens", where only "U+0029 RIGHT
/// PARENTHESIS ()): [...] Set state to in descriptor" leaves it, so a comma
/// inside parentheses does not end the list. Parentheses do not nest: the
/// first `)` leaves the state.
fn skip_descriptors(input: &[u8], mut position: usize) -> usize {
    let mut in_parens = false;
    while let Some(&c) = input.get(position) {
        position += 1;
        match (in_parens, c) {
            (false, b',') => break,
            (false, b'(') => in_parens = true,
            (true, b')') => in_parens = false,
            _ => {}
        }
    }
    position
}

/// `url` made safe to write as a candidate's URL, so that parsing the value
/// again finds exactly it:
///
/// - ASCII whitespace is percent-encoded (`%20`, `%09`, `%0A`, `%0C`,
///   `%0D`): it would end the URL (step 6);
/// - a leading comma is percent-encoded as `%2C`: the splitting loop would
///   skip it (step 4);
/// - a trailing comma is percent-encoded as `%2C`: it would be removed from
///   the URL (step 8).
///
/// Every other comma is left: `a,b.png` is one URL. An empty `url` cannot be
/// written as a candidate at all (the descriptors after it would be read as
/// the URL); it is returned as it is, and the caller should not write it.
pub fn escape(url: &str) -> Cow<'_, str> {
    let last = url.len().saturating_sub(1);
    super::percent_encode(url, |i, b| {
        b.is_ascii_whitespace() || (b == b',' && (i == 0 || i == last))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The URLs `candidates` finds, as text.
    fn urls(value: &str) -> Vec<&str> {
        candidates(value).map(|c| &value[c.url]).collect()
    }

    /// (what the case shows, value, the URLs found)
    const CASES: &[(&str, &str, &[&str])] = &[
        ("empty value", "", &[]),
        ("only whitespace", " \t\n\r\x0C ", &[]),
        ("only commas", ",,,", &[]),
        ("commas and whitespace", " , ,\n, ", &[]),
        ("one URL, no descriptor", "a.png", &["a.png"]),
        ("one URL with whitespace around", "  a.png\n", &["a.png"]),
        (
            "density descriptors",
            "a.png 1x, b.png 2x",
            &["a.png", "b.png"],
        ),
        (
            "fractional density",
            "a.png 1.5x,b.png 2.25x",
            &["a.png", "b.png"],
        ),
        (
            "width descriptors",
            "a.png 100w, b.png 200w",
            &["a.png", "b.png"],
        ),
        (
            "width and future height",
            "a.png 100w 50h, b.png 200w",
            &["a.png", "b.png"],
        ),
        (
            "comma in a query is part of the URL",
            "image.jpg?w=100,h=50 1x, b.png 2x",
            &["image.jpg?w=100,h=50", "b.png"],
        ),
        (
            "comma without a space joins the URLs",
            "a.png,b.png",
            &["a.png,b.png"],
        ),
        (
            "comma then space separates",
            "a.png, b.png",
            &["a.png", "b.png"],
        ),
        ("trailing comma ends the URL", "a.png,", &["a.png"]),
        (
            "several trailing commas end the URL",
            "a.png,,, b.png",
            &["a.png", "b.png"],
        ),
        (
            "comma after the descriptors separates",
            "a.png 1x,b.png 2x",
            &["a.png", "b.png"],
        ),
        (
            "space before the comma",
            "a.png 1x , b.png 2x",
            &["a.png", "b.png"],
        ),
        ("leading commas are skipped", ",, a.png", &["a.png"]),
        (
            "comma inside parentheses does not end the descriptors",
            "a.png (junk, with comma), b.png 2x",
            &["a.png", "b.png"],
        ),
        (
            "parentheses after a descriptor",
            "a.png 1x(foo, bar) 2x, b.png",
            &["a.png", "b.png"],
        ),
        (
            "unclosed parenthesis runs to the end",
            "a.png (junk, b.png 2x",
            &["a.png"],
        ),
        (
            "parentheses do not nest",
            "a.png ((x) , b.png",
            &["a.png", "b.png"],
        ),
        (
            "a right parenthesis outside parentheses is a descriptor character",
            "a.png ), b.png",
            &["a.png", "b.png"],
        ),
        (
            "parentheses in the URL are part of it",
            "a(1,2).png 1x, b.png",
            &["a(1,2).png", "b.png"],
        ),
        (
            "invalid descriptors keep the candidate",
            "a.png 1x 2x, b.png foo",
            &["a.png", "b.png"],
        ),
        (
            "multi-line with tabs",
            "\n\t\ta.png 1x,\n\t\tb.png 2x,\n\t\tc.png 3x\n",
            &["a.png", "b.png", "c.png"],
        ),
        (
            "CR LF and form feed between candidates",
            "a.png\r\n1x,\x0Cb.png\r\n2x",
            &["a.png", "b.png"],
        ),
        (
            "without a comma the next URL is a descriptor",
            "a.png 1x b.png 2x",
            &["a.png"],
        ),
        (
            "absolute URLs",
            "https://h/a.png 1x, //h/b.png 2x",
            &["https://h/a.png", "//h/b.png"],
        ),
        (
            "data URL with a comma",
            "data:image/png;base64,iVBOR 1x, b.png 2x",
            &["data:image/png;base64,iVBOR", "b.png"],
        ),
        (
            "non-ASCII and NBSP stay in the URL",
            "é\u{a0}ü.png 1x, b.png",
            &["é\u{a0}ü.png", "b.png"],
        ),
        ("percent-encoded comma", "a%2C.png 1x", &["a%2C.png"]),
    ];

    #[test]
    fn candidates_follow_the_algorithm() {
        let failures: Vec<String> = CASES
            .iter()
            .filter(|(_, value, expected)| urls(value) != *expected)
            .map(|(name, value, expected)| {
                format!(
                    "{name}: {value:?}: expected {expected:?}, got {:?}",
                    urls(value)
                )
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn ranges_point_into_the_value() {
        let value = " a.png 1x,\n b.png,c 2x";
        let found: Vec<Candidate> = candidates(value).collect();
        assert_eq!(
            found,
            [Candidate { url: 1..6 }, Candidate { url: 12..19 }],
            "{value:?}"
        );
    }

    /// A quadratic pass would take minutes here; one pass takes milliseconds.
    #[test]
    fn long_values_are_read_in_one_pass() {
        assert_eq!(candidates(&"a.png 1x, ".repeat(200_000)).count(), 200_000);
        assert_eq!(candidates(&"a,".repeat(500_000)).count(), 1);
        assert_eq!(
            candidates(&format!("a {}", "(,".repeat(500_000))).count(),
            1
        );
        assert_eq!(candidates(&" ,".repeat(500_000)).count(), 0);
    }

    /// (what the case shows, URL, escaped)
    const ESCAPES: &[(&str, &str, &str)] = &[
        ("nothing to escape", "http://h/a.png", "http://h/a.png"),
        ("inner comma kept", "http://h/a,b.png", "http://h/a,b.png"),
        ("space", "http://h/a b.png", "http://h/a%20b.png"),
        ("tab, LF, FF, CR", "a\tb\nc\x0Cd\re", "a%09b%0Ac%0Cd%0De"),
        ("trailing comma", "http://h/a,", "http://h/a%2C"),
        ("only the last trailing comma", "a,,", "a,%2C"),
        ("leading comma", ",a", "%2Ca"),
        ("a lone comma", ",", "%2C"),
        ("parentheses kept", "a(1, 2).png", "a(1,%202).png"),
        ("non-ASCII kept", "é ü", "é%20ü"),
        ("NBSP is not ASCII whitespace", "a\u{a0}b", "a\u{a0}b"),
        ("empty", "", ""),
    ];

    #[test]
    fn escape_encodes_what_would_end_or_drop_a_byte() {
        for (name, url, expected) in ESCAPES {
            assert_eq!(escape(url), *expected, "{name}: {url:?}");
        }
    }

    #[test]
    fn escape_borrows_when_nothing_changes() {
        assert!(matches!(escape("a,b.png"), Cow::Borrowed(_)));
    }

    /// Values made of the bytes that matter to the algorithm, so the
    /// interesting paths are taken often.
    fn srcset_like() -> impl Strategy<Value = String> {
        prop_oneof!["[a-c,() \t\n\r\x0C0-9.xwé]{0,40}", any::<String>(),]
    }

    /// URLs with what a srcset cannot hold as it is.
    fn tricky_url() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-c,() \t\n\r\x0C%é]{1,12}",
            "http://h/[a-c ,()]{0,8}",
            any::<String>().prop_filter("a candidate URL is not empty", |s| !s.is_empty()),
        ]
    }

    proptest! {
        #[test]
        fn never_panics_and_ranges_are_sound(value in srcset_like()) {
            let mut after_previous = 0;
            for candidate in candidates(&value) {
                let url = candidate.url;
                prop_assert!(after_previous <= url.start && url.start < url.end);
                prop_assert!(url.end <= value.len());
                prop_assert!(value.is_char_boundary(url.start));
                prop_assert!(value.is_char_boundary(url.end));
                let text = &value[url.clone()];
                prop_assert!(!text.starts_with(',') && !text.ends_with(','));
                prop_assert!(!text.bytes().any(|b| b.is_ascii_whitespace()));
                after_previous = url.end;
            }
        }

        #[test]
        fn escaped_urls_are_found_again_exactly(
            value in srcset_like(),
            replacements in prop::collection::vec(tricky_url(), 1..6),
        ) {
            let found: Vec<Candidate> = candidates(&value).collect();
            let escaped: Vec<String> = (0..found.len())
                .map(|i| escape(&replacements[i % replacements.len()]).into_owned())
                .collect();
            // Splice from the end, so earlier ranges stay valid.
            let mut rewritten = value.clone();
            for (candidate, url) in found.iter().zip(&escaped).rev() {
                rewritten.replace_range(candidate.url.clone(), url);
            }
            prop_assert_eq!(urls(&rewritten), escaped);
        }
    }
}
