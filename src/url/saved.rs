//! Where a captured URL is saved in a tree made from an archive, and the
//! key it is known by: knows URLs and names as bytes, nothing of the
//! filesystem.
//!
//! A capture of `https://Example.com:8443/a/b%20c.css?v=2` is saved at
//! `example.com:8443/a/b c.css?v=2`: the host lowercase (its default port
//! dropped), each path segment with its escapes undone, the query after
//! the last segment's name (wget's names), a directory URL's document as
//! its `index.html`, and an extension from the media type where the name
//! has none a browser opening the file would read it by (`/about`, an
//! HTML page, is `about.html`). `http:` and `https:` are one name: a
//! site's pages link to it by either.
//!
//! Every name comes from a URL someone else wrote, so none may leave the
//! tree or stand for anything but one file: an escape that would give `/`,
//! `\`, NUL or a control character stays escaped; a segment that is `.` or
//! `..` once unescaped (`%2e%2e`) keeps its escapes; `.` and `..` segments
//! of the path itself are removed first, as a browser removes them; a name
//! longer than a filesystem holds is cut and told apart by a digest of the
//! whole.

use sha1::{Digest, Sha1};

/// The most bytes a name holds (`NAME_MAX` on Linux, macOS and Windows).
const NAME_MAX: usize = 255;

/// Why a URL gets no file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unsaved {
    /// Not an `http:` or `https:` URL, or no host.
    NotHttp,
    /// Its authority names no host a name can hold.
    Host,
}

impl std::fmt::Display for Unsaved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unsaved::NotHttp => "not an http: or https: URL with a host",
            Unsaved::Host => "its host cannot be a file name",
        })
    }
}

/// The parts of an `http:` or `https:` URL that name a capture.
struct Parts<'u> {
    /// Lowercase, with a port that is not the scheme's default.
    host: String,
    path: &'u str,
    query: Option<&'u str>,
}

/// The default port of the scheme `http:` or `https:` (in any case);
/// `None` for any other.
pub(super) fn default_port(scheme: &str) -> Option<&'static str> {
    match () {
        _ if scheme.eq_ignore_ascii_case("http") => Some("80"),
        _ if scheme.eq_ignore_ascii_case("https") => Some("443"),
        _ => None,
    }
}

/// The server an `authority` names to a request: the user's name and
/// password left out (no part of the resource), and a port that is the
/// scheme's default or empty (`u@Example.com:443` is `Example.com`).
pub(super) fn server<'a>(authority: &'a str, default_port: &str) -> &'a str {
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    match host_port.rsplit_once(':') {
        Some((name, port))
            if (port.is_empty() || port == default_port)
                && (!name.starts_with('[') || name.ends_with(']')) =>
        {
            name
        }
        _ => host_port,
    }
}

fn parts(url: &str) -> Option<Parts<'_>> {
    let url = url.split_once('#').map_or(url, |(url, _)| url);
    let (scheme, rest) = url.split_once("://")?;
    let default_port = default_port(scheme)?;
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, rest) = rest.split_at(end);
    let host = server(authority, default_port).to_ascii_lowercase();
    if host.is_empty() {
        return None;
    }
    let (path, query) = match rest.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (rest, None),
    };
    Some(Parts { host, path, query })
}

/// The key a capture of `url` is known by: its host (lowercase, no
/// default port), path and query, `http:` and `https:` alike, no
/// fragment. `None` for a URL that is not `http:` or `https:`.
pub fn key(url: &str) -> Option<String> {
    let parts = parts(url)?;
    let path = without_dots(parts.path);
    let mut key = format!("{}{}", parts.host, if path.is_empty() { "/" } else { "" });
    key.push_str(&path);
    if let Some(query) = parts.query {
        key.push('?');
        key.push_str(query);
    }
    Some(key)
}

/// The path under the tree a capture of `url` of media type `essence` is
/// saved at, `/` between segments.
pub fn path(url: &str, essence: Option<&str>) -> Result<Vec<u8>, Unsaved> {
    let parts = parts(url).ok_or(Unsaved::NotHttp)?;
    let host = parts.host.as_bytes();
    if host
        .iter()
        .any(|&b| matches!(b, b'/' | b'\\' | 0..=0x20 | 0x7f))
        || host == b"."
        || host == b".."
        || host.len() > NAME_MAX
    {
        return Err(Unsaved::Host);
    }
    let mut segments: Vec<Vec<u8>> = vec![host.to_vec()];
    let path = without_dots(parts.path);
    let mut names: Vec<&str> = path.split('/').skip(1).collect();
    // A directory URL's document is its index.
    let directory = names.last().is_none_or(|last| last.is_empty());
    if directory {
        names.pop();
    }
    for name in names {
        segments.push(segment(name));
    }
    let mut last = if directory {
        b"index.html".to_vec()
    } else {
        segments.pop().expect("a file's name")
    };
    if let Some(query) = parts.query {
        last.push(b'?');
        last.extend_from_slice(&segment(query));
    }
    if let Some(extension) = essence.and_then(|e| extension(&last, e)) {
        last.push(b'.');
        last.extend_from_slice(extension.as_bytes());
    }
    segments.push(last);
    let segments: Vec<Vec<u8>> = segments.into_iter().map(fitted).collect();
    Ok(segments.join(&b'/'))
}

/// `path` with its `.` and `..` segments removed (RFC 3986 §5.2.4), as a
/// browser removes them before it asks for a URL.
fn without_dots(path: &str) -> String {
    if !path.split('/').any(|s| s == "." || s == "..") {
        return path.to_owned();
    }
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {}
            ".." => {
                out.pop();
            }
            s => out.push(s),
        }
        // `a/..` and `a/.` end at a directory.
        if i == last && matches!(*segment, "." | "..") {
            out.push("");
        }
    }
    let mut path = String::new();
    for segment in out {
        path.push('/');
        path.push_str(segment);
    }
    if path.is_empty() {
        path.push('/');
    }
    path
}

/// One name: `text` with its escapes undone, but those that give a byte
/// no name may hold (`/`, `\`, NUL, controls) or that would make it `.`
/// or `..`; an empty segment (`a//b`) is `%2F`'s stand-in, `_`.
fn segment(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let decoded = (bytes[i] == b'%')
            .then(|| std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok())
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match decoded {
            Some(b) if !matches!(b, b'/' | b'\\' | 0..=0x1f | 0x7f) => {
                out.push(b);
                i += 3;
            }
            _ => {
                // A byte written as it is that no name may hold is escaped.
                match bytes[i] {
                    b @ (b'\\' | 0..=0x1f | 0x7f) => out.extend(format!("%{b:02X}").bytes()),
                    b => out.push(b),
                }
                i += 1;
            }
        }
    }
    if out.is_empty() {
        return b"_".to_vec();
    }
    if out == b"." || out == b".." {
        return text.as_bytes().to_vec();
    }
    out
}

/// The extension a file of media type `essence` named `name` gets, when
/// its name does not end in one a browser reads as that type.
fn extension(name: &[u8], essence: &str) -> Option<&'static str> {
    let (add, known): (&str, &[&str]) = match essence.to_ascii_lowercase().as_str() {
        "text/html" => ("html", &["html", "htm"]),
        "application/xhtml+xml" => ("xhtml", &["xhtml", "xht"]),
        "text/css" => ("css", &["css"]),
        "text/javascript" | "application/javascript" | "application/x-javascript" => {
            ("js", &["js", "mjs"])
        }
        "application/json" => ("json", &["json"]),
        "image/svg+xml" => ("svg", &["svg"]),
        "image/png" => ("png", &["png"]),
        "image/jpeg" => ("jpg", &["jpg", "jpeg", "jpe"]),
        "image/gif" => ("gif", &["gif"]),
        "image/webp" => ("webp", &["webp"]),
        "image/avif" => ("avif", &["avif"]),
        "image/x-icon" | "image/vnd.microsoft.icon" => ("ico", &["ico"]),
        "application/pdf" => ("pdf", &["pdf"]),
        "application/rss+xml" => ("rss", &["rss", "xml"]),
        "application/atom+xml" => ("atom", &["atom", "xml"]),
        "application/xml" | "text/xml" => ("xml", &["xml"]),
        "font/woff2" => ("woff2", &["woff2"]),
        "font/woff" => ("woff", &["woff"]),
        "text/plain" => ("txt", &["txt", "text"]),
        _ => return None,
    };
    let dot = name.iter().rposition(|&b| b == b'.');
    let has = dot.map(|d| name[d + 1..].to_ascii_lowercase());
    match has {
        Some(has) if known.iter().any(|k| k.as_bytes() == has) => None,
        _ => Some(add),
    }
}

/// `name` as it fits a filesystem: past [`NAME_MAX`] bytes, its start, a
/// digest of the whole (two long names that share a start stay two), and
/// its extension.
fn fitted(name: Vec<u8>) -> Vec<u8> {
    if name.len() <= NAME_MAX {
        return name;
    }
    let digest = Sha1::digest(&name);
    let hex: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    let extension = name
        .iter()
        .rposition(|&b| b == b'.')
        .filter(|&d| name.len() - d <= 10)
        .map_or(&b""[..], |d| &name[d..]);
    let keep = NAME_MAX - hex.len() - 1 - extension.len();
    // Not within a UTF-8 sequence: back to a char's first byte.
    let mut cut = keep;
    while cut > 0 && (name[cut] & 0xC0) == 0x80 {
        cut -= 1;
    }
    let mut fitted = name[..cut].to_vec();
    fitted.push(b'-');
    fitted.extend_from_slice(hex.as_bytes());
    fitted.extend_from_slice(extension);
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;

    fn saved(url: &str, essence: &str) -> String {
        String::from_utf8(path(url, Some(essence)).unwrap()).unwrap()
    }

    #[test]
    fn a_url_is_saved_under_its_host_by_its_path() {
        assert_eq!(
            saved("https://Example.COM/a/b.css", "text/css"),
            "example.com/a/b.css"
        );
        assert_eq!(
            saved("http://example.com", "text/html"),
            "example.com/index.html"
        );
        assert_eq!(
            saved("https://example.com/docs/", "text/html"),
            "example.com/docs/index.html"
        );
        assert_eq!(
            saved("https://example.com/about", "text/html"),
            "example.com/about.html"
        );
        assert_eq!(
            saved("https://example.com:443/x.png", "image/png"),
            "example.com/x.png"
        );
        assert_eq!(
            saved("https://example.com:8443/x.png", "image/png"),
            "example.com:8443/x.png"
        );
        assert_eq!(
            saved("https://user:pw@example.com/x.png", "image/png"),
            "example.com/x.png"
        );
    }

    #[test]
    fn a_query_is_saved_in_the_name_with_an_extension_for_its_type() {
        assert_eq!(
            saved("https://example.com/page.php?id=1", "text/html"),
            "example.com/page.php?id=1.html"
        );
        assert_eq!(
            saved("https://example.com/s.css?v=2", "text/css"),
            "example.com/s.css?v=2.css"
        );
        assert_eq!(
            saved("https://example.com/a%20b%C3%A9.html#top", "text/html"),
            "example.com/a bé.html"
        );
    }

    #[test]
    fn no_name_leaves_the_tree() {
        assert_eq!(
            saved("https://example.com/a/../../../etc/passwd", "text/plain"),
            "example.com/etc/passwd.txt"
        );
        assert_eq!(
            saved("https://example.com/%2e%2e/%2E%2E/x.html", "text/html"),
            "example.com/%2e%2e/%2E%2E/x.html"
        );
        assert_eq!(
            saved("https://example.com/a%2fb%5Cc%00d.html", "text/html"),
            "example.com/a%2fb%5Cc%00d.html"
        );
        assert_eq!(
            saved("https://example.com/a\\b.html", "text/html"),
            "example.com/a%5Cb.html"
        );
        assert_eq!(
            saved("https://example.com/a//b.html", "text/html"),
            "example.com/a/_/b.html"
        );
        assert_eq!(path("https://../x", None), Err(Unsaved::Host));
        assert_eq!(path("ftp://example.com/x", None), Err(Unsaved::NotHttp));
        assert_eq!(path("https:///x", None), Err(Unsaved::NotHttp));
    }

    #[test]
    fn a_long_name_is_cut_and_told_apart_by_its_digest() {
        let long = "a".repeat(400);
        let one = saved(&format!("https://example.com/{long}1.html"), "text/html");
        let two = saved(&format!("https://example.com/{long}2.html"), "text/html");
        assert_ne!(one, two);
        let name = one.rsplit('/').next().unwrap();
        assert_eq!(name.len(), NAME_MAX);
        assert!(name.ends_with(".html"), "{name}");
    }

    #[test]
    fn a_key_is_the_same_for_either_scheme_and_any_case_of_host() {
        assert_eq!(
            key("http://Example.com:80/a/./b?x=1#f"),
            key("https://example.com/a/b?x=1")
        );
        assert_eq!(key("https://example.com").as_deref(), Some("example.com/"));
        assert_ne!(key("https://example.com/A"), key("https://example.com/a"));
        assert_eq!(key("mailto:a@example.com"), None);
    }
}
