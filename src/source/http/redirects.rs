//! RFC 1808 §3.3 after redirects: "if the retrieval was the result of a
//! redirected request, the last URL used (i.e., that which resulted in the
//! actual retrieval of the document) is the base URL". With `curl -iL` the
//! input holds every redirect's block: the URL first asked for is the
//! user's, and each 3xx block's `Location:` leads to the next.

use std::borrow::Cow;

use super::head::Head;
use super::report::ResponseWarning;
use crate::url::{Standard, rfc3986};

/// One redirect, followed or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub status: u16,
    /// Where its block starts in the input.
    pub offset: usize,
    /// Its `Location:` as written (trimmed).
    pub location: Vec<u8>,
    /// Where it led: the `Location` resolved against the URL before it;
    /// `None` when it could not be followed (a warning says why).
    pub to: Option<String>,
}

/// The retrieval URL after the redirects in front of the final block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retrieval {
    /// The last URL used; `None` when no URL was given and no redirect gave
    /// an absolute one, or a redirect could not be followed.
    pub url: Option<String>,
    pub redirects: Vec<Redirect>,
    pub warnings: Vec<ResponseWarning>,
}

/// Why a field that httparse passed over is no URL.
pub(super) const CONTROL: &str = "it holds a control character";

/// A URL given in a header field, or why it is none: trimmed, and in
/// RFC 1808 §3.1's `<URL:…>` form (which RFC 1738's appendix also uses)
/// with any whitespace inside the angle brackets ignored, folds included.
/// A URL never holds whitespace, a control character, `<`, `>` or `"`.
pub(super) fn field_url(value: &[u8]) -> Result<String, &'static str> {
    let value = std::str::from_utf8(value).map_err(|_| "not UTF-8")?;
    let value = value.trim_matches([' ', '\t']);
    let url: String = match value.strip_prefix('<') {
        Some(inner) => {
            let inner = inner.strip_suffix('>').ok_or("a `<` without its `>`")?;
            let inner: String = inner.chars().filter(|c| !c.is_whitespace()).collect();
            match inner.get(..4) {
                Some(prefix) if prefix.eq_ignore_ascii_case("URL:") => inner[4..].to_owned(),
                _ => inner,
            }
        }
        None => value.to_owned(),
    };
    if url.is_empty() {
        return Err("empty");
    }
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("it holds a space or a control character");
    }
    if url.contains(['<', '>', '"']) {
        return Err("it holds `<`, `>` or `\"`");
    }
    Ok(url)
}

/// Follows the redirects of `heads` (all but the last block) from `first`,
/// the URL first asked for. Each `Location` is resolved as RFC 9110 §10.2.2
/// says, by RFC 3986 (what the client did, whatever standard the document
/// is resolved by), and one without a fragment inherits the URL's before it.
pub fn follow(heads: &[Head], first: Option<&str>) -> Retrieval {
    let mut url = first.map(str::to_owned);
    let mut redirects = Vec::new();
    let mut warnings = Vec::new();
    let Some((_, before_final)) = heads.split_last() else {
        return Retrieval {
            url,
            redirects,
            warnings,
        };
    };
    for head in before_final {
        if !(300..400).contains(&head.status()) {
            continue;
        }
        // The block's first `Location:`, whether httparse could read it or
        // passed it over for a control character in it.
        let read = head.values("Location").next();
        let refused = head.refused("Location").next();
        let (value, readable) = match (read, refused) {
            (Some((_, at)), Some((value, refused_at))) if refused_at < at => {
                (Cow::Borrowed(value), false)
            }
            (Some((value, _)), _) => (value, true),
            (None, Some((value, _))) => (Cow::Borrowed(value), false),
            (None, None) => continue,
        };
        let value = value.trim_ascii().to_vec();
        let mut stop = |why: &str, warnings: &mut Vec<ResponseWarning>| {
            warnings.push(ResponseWarning::Location {
                status: head.status(),
                value: value.clone(),
                offset: head.offset(),
                why: why.to_owned(),
            });
            redirects.push(Redirect {
                status: head.status(),
                offset: head.offset(),
                location: value.clone(),
                to: None,
            });
        };
        // Never guessed at: not the URL before it, not the bytes that are
        // left once the control character is dropped.
        let location = match field_url(&value).and_then(|l| readable.then_some(l).ok_or(CONTROL)) {
            Ok(location) => location,
            Err(why) => {
                stop(why, &mut warnings);
                url = None;
                continue;
            }
        };
        let absolute = Standard::Rfc3986.has_scheme(&location);
        let to = match (&url, absolute) {
            (Some(before), _) => rfc3986::resolve(before, &location),
            (None, true) => rfc3986::resolve(&location, &location),
            (None, false) => {
                stop(
                    "it is relative, and no URL before it is known",
                    &mut warnings,
                );
                continue;
            }
        };
        let to = match url.as_deref().and_then(fragment) {
            Some(inherited) if !location.contains('#') => format!("{to}#{inherited}"),
            _ => to,
        };
        redirects.push(Redirect {
            status: head.status(),
            offset: head.offset(),
            location: value,
            to: Some(to.clone()),
        });
        url = Some(to);
    }
    Retrieval {
        url,
        redirects,
        warnings,
    }
}

/// The fragment of a URL, without its `#`.
fn fragment(url: &str) -> Option<&str> {
    url.split_once('#').map(|(_, fragment)| fragment)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heads(blocks: &[&str]) -> Vec<Head> {
        let mut offset = 0;
        blocks
            .iter()
            .map(|b| {
                let head = Head::parse(b.as_bytes().to_vec(), offset).unwrap();
                offset += b.len();
                head
            })
            .collect()
    }

    #[test]
    fn field_urls_are_read_as_rfc_1808_writes_them() {
        assert_eq!(field_url(b" http://h/a "), Ok("http://h/a".to_owned()));
        assert_eq!(
            field_url(b"<URL:http://www.ics.uci.edu/Test/a/b/c>"),
            Ok("http://www.ics.uci.edu/Test/a/b/c".to_owned())
        );
        // Whitespace inside the angle brackets, a fold made a space.
        assert_eq!(
            field_url(b"<url: http://h/a/  b/c >"),
            Ok("http://h/a/b/c".to_owned())
        );
        assert_eq!(field_url(b"<http://h/>"), Ok("http://h/".to_owned()));
        assert_eq!(field_url(b"../x"), Ok("../x".to_owned()));
        assert_eq!(field_url(b""), Err("empty"));
        assert_eq!(field_url(b"<URL:>"), Err("empty"));
        assert_eq!(field_url(b"<URL:http://h/"), Err("a `<` without its `>`"));
        assert_eq!(
            field_url(b"http://h/a b"),
            Err("it holds a space or a control character")
        );
        assert_eq!(field_url(b"http://h/\"x"), Err("it holds `<`, `>` or `\"`"));
        assert_eq!(field_url(b"http://h/\xff"), Err("not UTF-8"));
    }

    #[test]
    fn each_location_resolves_against_the_url_before_it() {
        let heads = heads(&[
            "HTTP/1.1 301 Moved\r\nLocation: /b/\r\n\r\n",
            "HTTP/1.1 100 Continue\r\n\r\n",
            "HTTP/1.1 302 Found\r\nLocation: https://other/c?q\r\n\r\n",
            "HTTP/1.1 307 Temporary\r\nLocation: ../d\r\n\r\n",
            "HTTP/1.1 200 OK\r\nLocation: /not-a-redirect\r\n\r\n",
        ]);
        let retrieval = follow(&heads, Some("http://h/a/p"));
        assert_eq!(retrieval.url.as_deref(), Some("https://other/d"));
        let to: Vec<&str> = retrieval
            .redirects
            .iter()
            .filter_map(|r| r.to.as_deref())
            .collect();
        assert_eq!(to, ["http://h/b/", "https://other/c?q", "https://other/d"]);
        assert_eq!(retrieval.warnings, []);
        // Without a first URL, an absolute Location still gives one.
        assert_eq!(follow(&heads, None).url.as_deref(), Some("https://other/d"));
        let followed = |r: &Redirect| r.to.is_some();
        let alone = follow(&heads, None).redirects;
        assert_eq!(
            alone.iter().map(followed).collect::<Vec<_>>(),
            [false, true, true]
        );
    }

    #[test]
    fn a_location_without_a_fragment_inherits_the_one_before() {
        let heads = heads(&[
            "HTTP/1.1 301 Moved\r\nLocation: /b\r\n\r\n",
            "HTTP/1.1 302 Found\r\nLocation: /c#new\r\n\r\n",
            "HTTP/1.1 303 See Other\r\nLocation: http://x/d\r\n\r\n",
            "HTTP/1.1 200 OK\r\n\r\n",
        ]);
        let retrieval = follow(&heads, Some("http://h/a#top"));
        let to: Vec<&str> = retrieval
            .redirects
            .iter()
            .filter_map(|r| r.to.as_deref())
            .collect();
        assert_eq!(to, ["http://h/b#top", "http://h/c#new", "http://x/d#new"]);
    }

    #[test]
    fn a_location_that_cannot_be_followed_leaves_the_url_unknown() {
        let heads = heads(&[
            "HTTP/1.1 301 Moved\r\nLocation: /a b\r\n\r\n",
            "HTTP/1.1 200 OK\r\n\r\n",
        ]);
        let retrieval = follow(&heads, Some("http://h/"));
        assert_eq!(retrieval.url, None);
        assert_eq!(
            retrieval.warnings[0].to_string(),
            "`Location: /a b` of the 301 at byte 0 cannot be followed (it holds a space or a control character): the retrieval URL is not known after it"
        );
        let heads = heads_relative();
        let retrieval = follow(&heads, None);
        assert_eq!(retrieval.url, None);
        assert_eq!(
            retrieval.warnings[0].to_string(),
            "`Location: /b` of the 302 at byte 0 cannot be followed (it is relative, and no URL before it is known): the retrieval URL is not known after it"
        );
    }

    /// A `Location:` with a control character in it is passed over by
    /// httparse: it is still this block's `Location`, and it cannot be
    /// followed; nor is the URL before it used, nor the next block's.
    #[test]
    fn a_location_with_a_control_character_is_not_followed_nor_guessed_at() {
        for bad in [
            &b"http://o/a\x01b/"[..],
            b"http://o/a\x1bb/",
            b"http://o/a\x7fb/",
        ] {
            let block = [&b"HTTP/1.1 301 Moved\r\nLocation: "[..], bad, b"\r\n\r\n"].concat();
            let mut heads = vec![Head::parse(block.clone(), 0).unwrap()];
            heads.push(Head::parse(b"HTTP/1.1 200 OK\r\n\r\n".to_vec(), block.len()).unwrap());
            let retrieval = follow(&heads, Some("http://h/"));
            assert_eq!(retrieval.url, None, "{bad:?}");
            assert_eq!(
                retrieval.redirects,
                [Redirect {
                    status: 301,
                    offset: 0,
                    location: bad.to_vec(),
                    to: None
                }]
            );
            assert_eq!(
                retrieval.warnings,
                [ResponseWarning::Location {
                    status: 301,
                    value: bad.to_vec(),
                    offset: 0,
                    why: "it holds a space or a control character".to_owned()
                }]
            );
        }
        // The first `Location:` counts, readable or not.
        let heads = heads(&[
            "HTTP/1.1 302 Found\r\nLocation: /a\x01\r\nLocation: /b\r\n\r\n",
            "HTTP/1.1 200 OK\r\n\r\n",
        ]);
        assert_eq!(follow(&heads, Some("http://h/")).url, None);
    }

    fn heads_relative() -> Vec<Head> {
        heads(&[
            "HTTP/1.1 302 Found\r\nLocation: /b\r\n\r\n",
            "HTTP/1.1 200 OK\r\n\r\n",
        ])
    }
}
