//! A file's retrieval URL from its path under the site's root: how a web
//! server serves it (`a/b.html` → `URL/a/b.html`; `a/index.html` → `URL/a/`).

use std::path::{Component, Path};

/// The URL `relative` (a path under the site's root, to a file) is served
/// at, under `root` (which ends with `/`). Each segment is percent-encoded
/// where it holds what a path segment cannot hold as it is; `index.html`
/// is its directory when `pretty`.
pub fn retrieval_url(root: &str, relative: &Path, pretty: bool) -> String {
    let segments: Vec<&std::ffi::OsStr> = relative
        .components()
        .filter_map(|c| match c {
            Component::Normal(name) => Some(name),
            _ => None,
        })
        .collect();
    let mut url = root.to_owned();
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        if last && pretty && *segment == "index.html" {
            break;
        }
        encode_segment(&bytes_of(segment), &mut url);
        if !last {
            url.push('/');
        }
    }
    url
}

/// The URL of a page a mirror saved for a URL with a query, from the one
/// [`retrieval_url`] gives its file: wget names the page of
/// `page.php?id=1` `page.php?id=1` (`.html` after it under
/// `--adjust-extension`), whose `?` `retrieval_url` escapes
/// (`page.php%3Fid=1.html`, a name of its own). The first `?` of the
/// file's own name is a query's again (`page.php?id=1.html`), so that a
/// reference in the page that changes only the query (`?id=2`) names that
/// page, as it did on the site; any other URL is as it was.
pub(crate) fn with_saved_query(url: String) -> String {
    let name = url.rfind('/').map_or(0, |slash| slash + 1);
    match url[name..].find("%3F") {
        Some(at) => format!("{}?{}", &url[..name + at], &url[name + at + 3..]),
        None => url,
    }
}

/// A path under the root as `/`-separated bytes (`a/b.html`), as a
/// [`LocalTree`](crate::url::LocalTree) holds it.
pub fn path_bytes(relative: &Path) -> Vec<u8> {
    let mut bytes = Vec::new();
    for component in relative.components() {
        if let Component::Normal(name) = component {
            if !bytes.is_empty() {
                bytes.push(b'/');
            }
            bytes.extend_from_slice(&bytes_of(name));
        }
    }
    bytes
}

/// A file name's bytes: on Unix whatever they are, elsewhere its UTF-8 (a
/// name that is not Unicode there is taken with U+FFFD).
fn bytes_of(name: &std::ffi::OsStr) -> Vec<u8> {
    #[cfg(unix)]
    {
        std::os::unix::ffi::OsStrExt::as_bytes(name).to_vec()
    }
    #[cfg(not(unix))]
    {
        name.to_string_lossy().into_owned().into_bytes()
    }
}

/// Appends `segment` to `url`, percent-encoding every byte that is not an
/// RFC 1808 `pchar` as it may stand (`uchar | ":" | "@" | "&" | "="`, with
/// `uchar = unreserved | escape`): a space, `%`, `#`, `?`, `;` (which would
/// start `params`, and take the directory with it), `/`, the "unsafe" and
/// "national" characters, controls, and every byte past ASCII (a UTF-8 name
/// as its UTF-8, any other name as its bytes).
fn encode_segment(segment: &[u8], url: &mut String) {
    for &b in segment {
        let keep = b.is_ascii_alphanumeric()
            // safe | extra, then ":" | "@" | "&" | "="
            || matches!(
                b,
                b'$' | b'-' | b'_' | b'.' | b'+' | b'!' | b'*' | b'\'' | b'(' | b')' | b','
                    | b':' | b'@' | b'&' | b'='
            );
        if keep {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = "https://example.com/blog/";

    fn url(path: &str, pretty: bool) -> String {
        retrieval_url(ROOT, Path::new(path), pretty)
    }

    #[test]
    fn a_path_becomes_the_url_a_server_gives_it() {
        assert_eq!(url("a/b.html", true), "https://example.com/blog/a/b.html");
        assert_eq!(url("index.html", true), "https://example.com/blog/");
        assert_eq!(url("a/index.html", true), "https://example.com/blog/a/");
        assert_eq!(
            url("a/index.html", false),
            "https://example.com/blog/a/index.html"
        );
        assert_eq!(
            url("a/index.htm", true),
            "https://example.com/blog/a/index.htm"
        );
        assert_eq!(
            url("index.html/x.html", true),
            "https://example.com/blog/index.html/x.html"
        );
    }

    #[test]
    fn what_a_segment_cannot_hold_is_percent_encoded() {
        assert_eq!(
            url("my page.html", true),
            "https://example.com/blog/my%20page.html"
        );
        assert_eq!(
            url("x;y/p.html", true),
            "https://example.com/blog/x%3By/p.html"
        );
        assert_eq!(
            url("100%/a#b?c.html", true),
            "https://example.com/blog/100%25/a%23b%3Fc.html"
        );
        assert_eq!(
            url("café/ü.html", true),
            "https://example.com/blog/caf%C3%A9/%C3%BC.html"
        );
        assert_eq!(
            url("a:b@c&d=e,f.html", true),
            "https://example.com/blog/a:b@c&d=e,f.html"
        );
    }

    #[test]
    fn a_page_saved_for_a_query_is_at_its_url_with_the_query() {
        let saved = |path: &str| with_saved_query(url(path, true));
        assert_eq!(
            saved("page.php?id=1.html"),
            "https://example.com/blog/page.php?id=1.html"
        );
        assert_eq!(
            saved("a b/list.php?q=x?y z&n=1"),
            "https://example.com/blog/a%20b/list.php?q=x%3Fy%20z&n=1"
        );
        assert_eq!(
            saved("a%3F/p.html"),
            "https://example.com/blog/a%253F/p.html"
        );
        assert_eq!(saved("a?b/index.html"), "https://example.com/blog/a%3Fb/");
        assert_eq!(saved("index.html"), "https://example.com/blog/");
    }

    #[cfg(unix)]
    #[test]
    fn a_name_that_is_not_utf8_is_taken_as_its_bytes() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"caf\xe9.html");
        assert_eq!(
            retrieval_url(ROOT, Path::new(name), true),
            "https://example.com/blog/caf%E9.html"
        );
    }
}
