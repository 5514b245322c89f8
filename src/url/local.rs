//! A site's files as a tree on disk, for relative links (`--relative`):
//! which file an absolute URL of the site names, and the relative reference
//! from one file to another that a browser opening the first from `file://`
//! follows to the second. Knows URLs and paths as bytes, nothing of the
//! filesystem: the site's source gives it the files it found.
//!
//! A URL names the file of its path under the site's root, its escapes
//! undone (`caf%C3%A9.html` is `café.html`); a directory URL (`docs/`, or
//! `docs` when no file has that name) its `index.html`, since `file://`
//! serves no index. A URL with a query names the file a mirror saved it
//! as (`page.php?id=1`, wget's name; `page.php@id=1` under wget's
//! `--restrict-file-names=windows`; either with `.html` or `.css` after it,
//! wget's `--adjust-extension`), else the file of its path, the query kept
//! (a browser reading `file:` ignores it). A path no file or directory has
//! names the file wget's `--adjust-extension` saved it as, `.html` or
//! `.css` after its name (`about.php.html`).

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use super::host::{Host, Served};
use super::map::{folded, starts_with};
use super::redirects::Redirects;
use super::rfc3986::{percent_decoded, percent_encoded_path, remove_dot_segments};
use super::saved;
use super::standard::Standard;

/// Paths, hashed by foldhash (seeded anew for each set): every link of a
/// check looks its path up here once or more, and SipHash, the standard
/// library's, took a quarter of the lookup.
type Paths = HashSet<Vec<u8>, foldhash::fast::RandomState>;

/// The files of a tree, by their paths under its root (`/` between
/// segments), and the URL its root is served at.
#[derive(Debug, Clone)]
pub struct LocalTree {
    /// The root's URL, and its twin of the other scheme (`http:` for
    /// `https:`, and back: a site's pages link to it by either), each with
    /// how much of it is matched in any case (its scheme and host).
    roots: Vec<(String, usize)>,
    files: Paths,
    /// Directories that hold at least one file, by their paths.
    directories: Paths,
    /// A tree made from an archive: the file each URL was saved as, by its
    /// key (a redirect's URL, its target's file). Empty for
    /// a site's tree, whose files are found by their paths under `roots`.
    saved: HashMap<String, Vec<u8>>,
    missing: Missing,
}

/// What becomes of a link to a URL of the site that the tree does not hold
/// (`--missing`). A link to another site is always absolute.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Missing {
    /// Absolute: it leads to the live site.
    #[default]
    Absolute,
    /// As the page wrote it: a relative link stays relative, and finds the
    /// file once a later fetch adds it to the copy.
    AsWritten,
    /// To the page that stands for what the copy lacks
    /// (`_not-in-this-copy.html`, at the tree's root), the URL after its `#`: a
    /// reader stays in the copy, and is told where the link led.
    Placeholder,
}

/// The page a link to what the copy lacks leads to, under
/// [`Missing::Placeholder`]: its path at the tree's root.
pub const PLACEHOLDER: &str = "_not-in-this-copy.html";

/// What wget's `--adjust-extension` puts after the name of a page
/// (`text/html`) or a stylesheet (`text/css`) whose name does not already
/// end so: `about.php.html`, `page.php?id=1.html`, `site.css?v=2.css`.
const ADJUSTED: [&[u8]; 2] = [b".html", b".css"];

/// How many redirects a link is followed through (`--check-links`).
const MAX_REDIRECTS: usize = 20;

/// Where Netlify's own services answer, whatever the site holds: its
/// functions (`functions/`, `builders/`), images, forms, identity.
const NETLIFY_SERVICES: &str = ".netlify/";

/// A file of the tree a URL names: its path, and what follows it in the
/// reference (a query kept, a fragment).
#[derive(Debug, PartialEq, Eq)]
struct Named<'u> {
    path: Vec<u8>,
    query: Option<&'u str>,
    fragment: Option<&'u str>,
}

impl LocalTree {
    /// The tree of `files` (paths under the root, `/` between segments),
    /// served at `root` (an absolute URL that ends with `/`).
    pub fn new(root: &str, standard: Standard, files: impl IntoIterator<Item = Vec<u8>>) -> Self {
        let files: Paths = files.into_iter().collect();
        let mut directories = Paths::default();
        for file in &files {
            let mut at = 0;
            while let Some(slash) = memchr::memchr(b'/', &file[at..]) {
                directories.insert(file[..at + slash].to_vec());
                at += slash + 1;
            }
        }
        let roots = twins(&plain_authority(root))
            .into_iter()
            .map(|root| {
                let folded = folded(&root, standard);
                (root, folded)
            })
            .collect();
        LocalTree {
            roots,
            files,
            directories,
            saved: HashMap::new(),
            missing: Missing::default(),
        }
    }

    /// The tree an archive was saved as: each URL's file by the URL's
    /// key (host, path and query, either scheme), whatever its host.
    pub(crate) fn saved(saved: HashMap<String, Vec<u8>>) -> Self {
        LocalTree {
            roots: Vec::new(),
            files: saved.values().cloned().collect(),
            directories: Paths::default(),
            saved,
            missing: Missing::default(),
        }
    }

    /// Only the root's own URL is the site's, not its twins (`--site-url-only`).
    pub fn without_twins(mut self) -> Self {
        self.roots.truncate(1);
        self
    }

    /// What becomes of a link to a URL of the site the tree lacks.
    pub fn with_missing(mut self, missing: Missing) -> Self {
        self.missing = missing;
        self
    }

    /// Whether a link to `url` is left as written: a URL of the site that
    /// names no file of the tree, under [`Missing::AsWritten`].
    pub fn leaves(&self, url: &str) -> bool {
        self.missing == Missing::AsWritten && self.may_hold(url) && self.named(url).is_none()
    }

    /// Whether the absolute URL `url` may name a file of the tree: it is
    /// under the site's root, by either scheme (in a tree from an archive,
    /// any `http:` or `https:` URL). Any other stays as it is.
    pub(crate) fn may_hold(&self, url: &str) -> bool {
        match self.saved.is_empty() {
            true => self.rest(&plain_authority(url)).is_some(),
            false => saved::key(url).is_some(),
        }
    }

    /// What the tree holds (its paths), in bytes, for the run's memory.
    pub fn size(&self) -> usize {
        let paths: usize = self
            .files
            .iter()
            .chain(&self.directories)
            .map(|p| p.len())
            .sum();
        let saved: usize = self.saved.iter().map(|(k, p)| k.len() + p.len()).sum();
        let entries = self.files.len() + self.directories.len() + 2 * self.saved.len();
        paths + saved + entries * 3 * std::mem::size_of::<usize>()
    }

    /// The relative reference from the file `from` names to the file `to`
    /// names (both absolute URLs), for a browser reading `from` at its
    /// `file:` URL: `None` when either names no file of the tree.
    #[cfg(test)]
    fn reference(&self, from: &str, to: &str) -> Option<String> {
        self.reference_from(&self.file_of(from)?, to)
    }

    /// Whether [`served`](Self::served) answers `url` with
    /// [`Served::OffSite`] at once: what it asks for is not under the
    /// site's root.
    pub(crate) fn off_site(&self, url: &str) -> bool {
        self.asked(url).is_none()
    }

    /// `url` as a browser asks for it (its fragment aside, its path as
    /// [`as_asked`] makes it), and where what follows the site's root
    /// starts in it; `None` when it is not under the root. A URL whose
    /// scheme and host are no root's is not, whatever its path: that is
    /// told first (most links of a page are to other sites), and exactly,
    /// since `as_asked` changes nothing before the path.
    fn asked<'u>(&self, url: &'u str) -> Option<(Cow<'u, str>, usize)> {
        let url = plain_authority(url);
        // What follows a root's host in the URL is what follows it in the
        // root, or the URL's end, query or fragment (as `rest` reads the
        // root without its slash), or a `\` that `as_asked` makes a `/`:
        // one byte, looked at first, which most hosts of other sites (of
        // another length) do not have there.
        let host_of_a_root = self.roots.iter().any(|(root, folded)| {
            let n = *folded;
            let after = url.as_bytes().get(n);
            url.len() >= n
                && (after == root.as_bytes().get(n)
                    || matches!(after, None | Some(b'?' | b'#' | b'\\')))
                && url.as_bytes()[..n].eq_ignore_ascii_case(&root.as_bytes()[..n])
        });
        if !host_of_a_root {
            return None;
        }
        let asked = match url {
            Cow::Borrowed(url) => as_asked(url.split_once('#').map_or(url, |(url, _)| url)),
            Cow::Owned(url) => {
                Cow::Owned(as_asked(url.split_once('#').map_or(&url, |(url, _)| url)).into_owned())
            }
        };
        let at = asked.len() - self.rest(&asked)?.len();
        Some((asked, at))
    }

    /// What a server of the tree under `host`'s rules (and Netlify's
    /// `redirects`) answers `url` with (its fragment aside): the file it
    /// serves at the end of any redirects, none, or nothing of the site's.
    pub(crate) fn served(&self, url: &str, host: Host, redirects: &Redirects) -> Served {
        let mut url = Cow::Borrowed(url);
        for _ in 0..MAX_REDIRECTS {
            let Some((asked, at)) = self.asked(&url) else {
                return Served::OffSite;
            };
            let rest = &asked[at..];
            let (path, query) = match rest.split_once('?') {
                Some((path, query)) => (path, Some(query)),
                None => (rest, None),
            };
            if host == Host::Netlify
                && let Some(service) = path.strip_prefix(NETLIFY_SERVICES)
            {
                // Its image service serves a file of the site, resized:
                // that file is what the link needs.
                let Some(source) = image_source(service, query) else {
                    return Served::Service;
                };
                url = Cow::Owned(Standard::Rfc3986.resolve(&asked, &source).into_owned());
                continue;
            }
            let file = self.serves(path, host);
            let answer = match host {
                // GitLab Pages matches the URL's whole path: a project's
                // site's own prefix too (`/project/old`).
                Host::GitlabPages => {
                    let start = authority_start(asked.as_bytes())
                        .and_then(|a| asked[a..at].find('/').map(|i| a + i))
                        .unwrap_or(at);
                    redirects.answer(&format!("{}{path}", &asked[start..at]), query)
                }
                // Netlify and Cloudflare Pages match the path as the
                // browser sends it: `/café` is `/caf%C3%A9`.
                Host::Netlify | Host::CloudflarePages => {
                    redirects.answer(&percent_encoded_path(&format!("/{path}")), query)
                }
                _ => None,
            };
            let Some(answer) = answer.filter(|a| a.force || file.is_none()) else {
                return file.map_or(Served::NotFound, Served::File);
            };
            let to = Standard::Rfc3986.resolve(&asked, &answer.to).into_owned();
            match answer.status {
                // A rewrite: the file at its path, served here (or a
                // service's answer: `/api/* /.netlify/functions/:splat`).
                200 => {
                    let Some((to, at)) = self.asked(&to) else {
                        return Served::OffSite;
                    };
                    let path = to[at..].split('?').next().unwrap_or_default();
                    if host == Host::Netlify && path.starts_with(NETLIFY_SERVICES) {
                        url = Cow::Owned(to.into_owned());
                        continue;
                    }
                    return self
                        .serves(path, host)
                        .map_or(Served::NotFound, Served::File);
                }
                300..400 => url = Cow::Owned(to),
                _ => return Served::NotFound,
            }
        }
        Served::NotFound
    }

    /// The file a host serves for `path` (escaped, under the root), by its
    /// rules for files alone.
    fn serves(&self, path: &str, host: Host) -> Option<Vec<u8>> {
        let file = |p: &[u8]| self.files.contains(p);
        let directory = |p: &[u8]| self.directories.contains(p);
        unescaped(path).and_then(|path| host.serves(&path, file, directory))
    }

    /// The path of the file `url` names, if it is of the tree: what
    /// [`reference_from`](Self::reference_from) takes for a document's
    /// own file, found once for all its values.
    pub(crate) fn file_of(&self, url: &str) -> Option<Vec<u8>> {
        self.named(url).map(|named| named.path)
    }

    /// The relative reference from the file at `from` (a path of the tree,
    /// as [`file_of`](Self::file_of) gives it) to the file the absolute URL
    /// `to` names, for a browser reading `from` at its `file:` URL: `None`
    /// when `to` names no file of the tree.
    pub(crate) fn reference_from(&self, from: &[u8], to: &str) -> Option<String> {
        let Some(to) = self.named(to) else {
            return self.placeholder(from, to);
        };
        let mut reference = String::new();
        match (to.path == from, to.fragment, to.query) {
            // The document itself, at a fragment: the shortest form, which
            // no base can send elsewhere (the base is the document's own).
            (true, Some(_), None) => {}
            _ => relative_path(from, &to.path, &mut reference),
        }
        if let Some(query) = to.query {
            reference.push('?');
            reference.push_str(query);
        }
        if let Some(fragment) = to.fragment {
            reference.push('#');
            reference.push_str(fragment);
        }
        Some(reference)
    }

    /// Under [`Missing::Placeholder`], the reference from the file `from`
    /// to the placeholder page for `url`, a URL of the site (or, in a tree
    /// from an archive, any `http:` or `https:` URL) the tree lacks: the
    /// URL after its `#`, escaped as JavaScript's `encodeURIComponent`
    /// escapes, which the page's `decodeURIComponent` undoes.
    fn placeholder(&self, from: &[u8], url: &str) -> Option<String> {
        if self.missing != Missing::Placeholder || !self.may_hold(url) {
            return None;
        }
        let mut reference = String::new();
        relative_path(from, PLACEHOLDER.as_bytes(), &mut reference);
        reference.push('#');
        for &b in url.as_bytes() {
            let keep = b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'-' | b'_' | b'.' | b'!' | b'~' | b'*' | b'\'' | b'(' | b')'
                );
            match keep {
                true => reference.push(char::from(b)),
                false => escaped(b, &mut reference),
            }
        }
        Some(reference)
    }

    /// The file `url` names, if it is of the tree.
    fn named<'u>(&self, url: &'u str) -> Option<Named<'u>> {
        let (url, fragment) = match url.split_once('#') {
            Some((url, fragment)) => (url, Some(fragment)),
            None => (url, None),
        };
        if !self.saved.is_empty() {
            // The query is in the file's name.
            let path = self.saved.get(&saved::key(url)?)?.clone();
            return Some(Named {
                path,
                query: None,
                fragment,
            });
        }
        let plain = plain_authority(url);
        let rest = self.rest(&plain)?;
        let (path, query) = match rest.split_once('?') {
            Some((path, query)) => (path, Some(query)),
            None => (rest, None),
        };
        // The query ends the URL as it ends the plain one: only the
        // authority differs.
        let query = query.map(|query| &url[url.len() - query.len()..]);
        // Parameters (`;type=a`) name no file.
        if path.contains(';') {
            return None;
        }
        let path = unescaped(path)?;
        if let Some(query) = query {
            let query_bytes = unescaped(query).unwrap_or_default();
            for separator in [b'?', b'@'] {
                let mut saved = path.clone();
                saved.push(separator);
                saved.extend_from_slice(&query_bytes);
                for suffix in std::iter::once(&b""[..]).chain(ADJUSTED) {
                    let name = [&saved[..], suffix].concat();
                    if self.files.contains(&name) {
                        return Some(Named {
                            path: name,
                            query: None,
                            fragment,
                        });
                    }
                }
            }
        }
        let path = self.file(path)?;
        Some(Named {
            path,
            query,
            fragment,
        })
    }

    /// What follows the site's root in `url` (fragment aside), if `url` is
    /// under it, by either scheme. The root without its slash
    /// (`https://example.com/blog`, `https://example.com`, a query after
    /// it) is the root's directory, as a server answers it (a redirect to
    /// the slash): nothing follows it but the query.
    fn rest<'u>(&self, url: &'u str) -> Option<&'u str> {
        let url = url.split_once('#').map_or(url, |(url, _)| url);
        self.roots.iter().find_map(|(root, folded)| {
            if starts_with(url, root, *folded) {
                return Some(&url[root.len()..]);
            }
            let bare = root.strip_suffix('/')?;
            let after = url.get(bare.len()..)?;
            let own = after.is_empty() || after.starts_with('?');
            (own && starts_with(url, bare, (*folded).min(bare.len()))).then_some(after)
        })
    }

    /// The file of `path`: itself, its `index.html` when it is a
    /// directory, or, when it is neither, itself with what wget's
    /// `--adjust-extension` adds ([`ADJUSTED`]).
    fn file(&self, path: Vec<u8>) -> Option<Vec<u8>> {
        let directory = path.is_empty() || path.ends_with(b"/");
        if !directory && self.files.contains(&path) {
            return Some(path);
        }
        if let Some(index) = self.index(&path) {
            return Some(index);
        }
        if directory {
            return None;
        }
        ADJUSTED
            .iter()
            .map(|suffix| [&path[..], suffix].concat())
            .find(|name| self.files.contains(name))
    }

    /// The `index.html` of the directory `path` (with its `/` or without),
    /// if it holds one.
    fn index(&self, path: &[u8]) -> Option<Vec<u8>> {
        let directory = path.strip_suffix(b"/").unwrap_or(path);
        if !directory.is_empty() && !self.directories.contains(directory) {
            return None;
        }
        let mut index = directory.to_vec();
        if !index.is_empty() {
            index.push(b'/');
        }
        index.extend_from_slice(b"index.html");
        self.files.contains(&index).then_some(index)
    }
}

/// `root`, then its twins, which a site's pages link to as to itself: the
/// other scheme's (`http:` for `https:`, and back), and for a domain name,
/// the one with `www.` or without, by either scheme.
fn twins(root: &str) -> Vec<String> {
    let mut twins = vec![root.to_owned()];
    let Some((scheme, rest)) = root.split_once("://") else {
        return twins;
    };
    let other = match scheme {
        "https" => "http",
        "http" => "https",
        _ => return twins,
    };
    twins.push(format!("{other}://{rest}"));
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (userinfo, host_port) = match authority.rsplit_once('@') {
        Some((userinfo, host_port)) => (format!("{userinfo}@"), host_port),
        None => (String::new(), authority),
    };
    let host = host_port.split(':').next().unwrap_or_default();
    let named = host.contains('.')
        && host.bytes().any(|b| b.is_ascii_alphabetic())
        && !host.starts_with('[');
    if named {
        let twin = match host_port.get(..4) {
            Some(www) if www.eq_ignore_ascii_case("www.") => host_port[4..].to_owned(),
            _ => format!("www.{host_port}"),
        };
        for scheme in [scheme, other] {
            twins.push(format!("{scheme}://{userinfo}{twin}{path}"));
        }
    }
    twins
}

/// The path from the directory of `from` to `to`, each segment escaped for
/// a `file:` URL, onto `out`.
fn relative_path(from: &[u8], to: &[u8], out: &mut String) {
    let from: Vec<&[u8]> = from.split(|&b| b == b'/').collect();
    let to: Vec<&[u8]> = to.split(|&b| b == b'/').collect();
    let (from_dir, to_dir) = (&from[..from.len() - 1], &to[..to.len() - 1]);
    let common = from_dir
        .iter()
        .zip(to_dir)
        .take_while(|(a, b)| a == b)
        .count();
    for _ in common..from_dir.len() {
        out.push_str("../");
    }
    let start = out.len();
    for (i, segment) in to[common..].iter().enumerate() {
        if i > 0 {
            out.push('/');
        }
        escape_segment(segment, out);
    }
    // A first segment with a colon would read as a scheme.
    if start == 0 && out[..out.find('/').unwrap_or(out.len())].contains(':') {
        out.insert_str(0, "./");
    }
}

/// Appends `segment` percent-encoded where a path segment of a `file:` URL
/// cannot hold it as it is: a space, `%`, `#`, `?`, `;`, `\`, controls, and
/// every byte past ASCII (a name's bytes, which a browser gives back as
/// they were).
fn escape_segment(segment: &[u8], out: &mut String) {
    for &b in segment {
        let keep = b.is_ascii_alphanumeric()
            || matches!(
                b,
                b'$' | b'-'
                    | b'_'
                    | b'.'
                    | b'+'
                    | b'!'
                    | b'*'
                    | b'\''
                    | b'('
                    | b')'
                    | b','
                    | b':'
                    | b'@'
                    | b'&'
                    | b'='
                    | b'~'
            );
        if keep {
            out.push(char::from(b));
        } else {
            escaped(b, out);
        }
    }
}

/// `%XX` for `b`, onto `out`.
fn escaped(b: u8, out: &mut String) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    out.push('%');
    out.push(char::from(HEX[usize::from(b >> 4)]));
    out.push(char::from(HEX[usize::from(b & 15)]));
}

/// `url` with its authority as a client's request names the server: the
/// user's name and password left out (no part of the resource), and a port
/// that is the scheme's default, or empty (`https://u@Example.com:443/a`
/// is `https://Example.com/a`), for `http:` and `https:`.
fn plain_authority(url: &str) -> Cow<'_, str> {
    let Some(start) = authority_start(url.as_bytes()) else {
        return Cow::Borrowed(url);
    };
    // Every link of a check comes here, most of them to other sites: the
    // authority's few bytes are read once, for its end and for what may
    // make it other than plain.
    let mut end = url.len();
    let mut plain = true;
    for (i, &b) in url.as_bytes()[start..].iter().enumerate() {
        match b {
            b'/' | b'?' | b'#' => {
                end = start + i;
                break;
            }
            b'@' | b':' => plain = false,
            _ => {}
        }
    }
    if plain {
        return Cow::Borrowed(url);
    }
    let authority = &url[start..end];
    let Some(default) = saved::default_port(&url[..start - 3]) else {
        return Cow::Borrowed(url);
    };
    let host = saved::server(authority, default);
    match host.len() == authority.len() {
        true => Cow::Borrowed(url),
        false => Cow::Owned([&url[..start], host, &url[end..]].concat()),
    }
}

/// Where the authority starts in `url`: after its first `://`. Found by
/// its colons, which a URL has few of, not by a substring search, whose
/// setup costs more than the search itself: every link of a check comes
/// here twice.
fn authority_start(url: &[u8]) -> Option<usize> {
    // The first colon ends the scheme, a few bytes in: found by a plain
    // look at each byte, the others (rare) by a search.
    let first = url.iter().position(|&b| b == b':')?;
    std::iter::once(first)
        .chain(memchr::memchr_iter(b':', &url[first + 1..]).map(|i| first + 1 + i))
        .find(|&colon| url[colon + 1..].starts_with(b"//"))
        .map(|colon| colon + 3)
}

/// `url` as a client asks a server for it, by the URL Standard's parsing
/// (browsers, curl): its path's dot segments removed (`.`, `..`, and their
/// escaped forms `%2e`, `.%2e`, `%2e.`, `%2e%2e`, in any case), a `..`
/// above the root dropped (`http://a/../g` is `http://a/g`), and an empty
/// path `/` (`http://a?q` is `http://a/?q`); in an `http:` or `https:`
/// path, a `\` is a `/`, as browsers read it (`/a\b` asks for `/a/b`). RFC
/// 1808 keeps what an absolute URL has, and its resolution keeps a `..`
/// above the root: no request carries either.
fn as_asked(url: &str) -> Cow<'_, str> {
    let bytes = url.as_bytes();
    let Some(authority) = authority_start(bytes) else {
        return Cow::Borrowed(url);
    };
    let special = saved::default_port(&url[..authority - 3]).is_some();
    let start = bytes[authority..]
        .iter()
        .position(|&b| matches!(b, b'/' | b'?' | b'#') || (special && b == b'\\'))
        .map_or(url.len(), |i| authority + i);
    let end = memchr::memchr2(b'?', b'#', &bytes[start..]).map_or(url.len(), |i| start + i);
    let path = &url[start..end];
    let slashed = special && memchr::memchr(b'\\', path.as_bytes()).is_some();
    let replaced;
    let path = match slashed {
        true => {
            replaced = path.replace('\\', "/");
            replaced.as_str()
        }
        false => path,
    };
    let dot = |segment: &str| segment == "." || segment.eq_ignore_ascii_case("%2e");
    let double_dot = |segment: &str| {
        segment == ".."
            || [".%2e", "%2e.", "%2e%2e"]
                .iter()
                .any(|dots| segment.eq_ignore_ascii_case(dots))
    };
    // A dot segment starts with `.` or `%` after a slash: most paths have
    // none, and need no look at each segment.
    let may_have_dots = memchr::memchr_iter(b'/', path.as_bytes())
        .any(|i| matches!(path.as_bytes().get(i + 1), Some(b'.' | b'%')));
    let path = if path.is_empty() {
        "/".to_owned()
    } else if may_have_dots && path.split('/').any(|s| dot(s) || double_dot(s)) {
        let plain: Vec<&str> = path
            .split('/')
            .map(|s| match () {
                _ if dot(s) => ".",
                _ if double_dot(s) => "..",
                _ => s,
            })
            .collect();
        remove_dot_segments(&plain.join("/"))
    } else if slashed {
        path.to_owned()
    } else {
        return Cow::Borrowed(url);
    };
    Cow::Owned([&url[..start], &path, &url[end..]].concat())
}

/// `text` with its `%XX` escapes undone; `None` when one is broken or
/// stands for `/` or NUL (no file name holds either).
fn unescaped(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            let b = u8::from_str_radix(hex, 16).ok()?;
            if b == b'/' || b == 0 {
                return None;
            }
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

/// The file of the site that Netlify's image service (`/.netlify/images`,
/// `service` the path after `/.netlify/`) resizes: its `url` parameter,
/// decoded as a query's value is, when it is a path of the site (`/…`);
/// `None` for a remote image, or another service.
fn image_source(service: &str, query: Option<&str>) -> Option<String> {
    if service != "images" {
        return None;
    }
    let value = query?
        .split('&')
        .find_map(|pair| pair.strip_prefix("url="))?
        .replace('+', " ");
    let source = String::from_utf8_lossy(&percent_decoded(&value)).into_owned();
    (source.starts_with('/') && !source.starts_with("//")).then_some(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sites_twins_are_the_other_scheme_and_the_www_name() {
        assert_eq!(
            twins("https://example.com/docs/"),
            [
                "https://example.com/docs/",
                "http://example.com/docs/",
                "https://www.example.com/docs/",
                "http://www.example.com/docs/",
            ]
        );
        assert_eq!(
            twins("http://WWW.example.com:8080/"),
            [
                "http://WWW.example.com:8080/",
                "https://WWW.example.com:8080/",
                "http://example.com:8080/",
                "https://example.com:8080/",
            ]
        );
        // An address, or a name of one label, has no `www.` twin.
        assert_eq!(twins("http://127.0.0.1:8000/").len(), 2);
        assert_eq!(twins("http://localhost/").len(), 2);
        assert_eq!(twins("ftp://example.com/"), ["ftp://example.com/"]);
    }

    fn tree() -> LocalTree {
        let files = [
            "index.html",
            "about/index.html",
            "blog/2024/post.html",
            "blog/index.html",
            "css/site.css",
            "img/a b.png",
            "img/café.png",
            "page.php?id=1",
            "list.php@page=2.html",
            "shop.php",
            "a:b.html",
            "about.php.html",
            "css/site.css?v=2.css",
            "style.php.css",
            "news.html",
        ];
        LocalTree::new(
            "https://Example.com/",
            Standard::Rfc1808,
            files.iter().map(|f| f.as_bytes().to_vec()),
        )
    }

    fn reference(from: &str, to: &str) -> Option<String> {
        tree().reference(
            &format!("https://example.com/{from}"),
            &format!("https://example.com/{to}"),
        )
    }

    #[test]
    fn a_file_is_reached_from_another_by_the_shortest_path() {
        assert_eq!(
            reference("blog/2024/post.html", "css/site.css").as_deref(),
            Some("../../css/site.css")
        );
        assert_eq!(
            reference("blog/2024/post.html", "blog/").as_deref(),
            Some("../index.html")
        );
        assert_eq!(reference("", "about/").as_deref(), Some("about/index.html"));
        assert_eq!(reference("", "about").as_deref(), Some("about/index.html"));
        assert_eq!(reference("about/", "").as_deref(), Some("../index.html"));
        assert_eq!(
            reference("", "blog/2024/post.html#c").as_deref(),
            Some("blog/2024/post.html#c")
        );
        assert_eq!(
            reference("blog/2024/post.html", "blog/2024/post.html#c").as_deref(),
            Some("#c")
        );
        assert_eq!(
            reference("blog/2024/post.html", "blog/2024/post.html").as_deref(),
            Some("post.html")
        );
    }

    #[test]
    fn names_are_escaped_for_a_file_url() {
        assert_eq!(
            reference("", "img/a%20b.png").as_deref(),
            Some("img/a%20b.png")
        );
        assert_eq!(
            reference("", "img/caf%C3%A9.png").as_deref(),
            Some("img/caf%C3%A9.png")
        );
        assert_eq!(reference("", "a:b.html").as_deref(), Some("./a:b.html"));
    }

    #[test]
    fn a_query_names_the_file_a_mirror_saved() {
        assert_eq!(
            reference("", "page.php?id=1").as_deref(),
            Some("page.php%3Fid=1")
        );
        assert_eq!(
            reference("", "list.php?page=2").as_deref(),
            Some("list.php@page=2.html")
        );
        assert_eq!(
            reference("", "shop.php?item=9").as_deref(),
            Some("shop.php?item=9")
        );
    }

    #[test]
    fn a_name_wget_adjusted_is_found_by_its_url() {
        // `--adjust-extension`: `.html` after a page's name, `.css` after
        // a stylesheet's, the query's too.
        assert_eq!(
            reference("", "about.php#team").as_deref(),
            Some("about.php.html#team")
        );
        assert_eq!(reference("", "news").as_deref(), Some("news.html"));
        assert_eq!(
            reference("blog/index.html", "style.php").as_deref(),
            Some("../style.php.css")
        );
        assert_eq!(
            reference("", "css/site.css?v=2").as_deref(),
            Some("css/site.css%3Fv=2.css")
        );
        assert_eq!(
            reference("", "about.php?lang=de").as_deref(),
            Some("about.php.html?lang=de")
        );
        // A name the tree holds as it is, or a directory, comes first; a
        // directory's URL is never a name with `.html` after it.
        assert_eq!(reference("", "shop.php").as_deref(), Some("shop.php"));
        assert_eq!(reference("", "blog").as_deref(), Some("blog/index.html"));
        assert_eq!(reference("", "news/"), None);
        assert_eq!(reference("", "missing.php"), None);
    }

    #[test]
    fn a_missing_page_of_the_site_is_left_as_written_when_asked() {
        let t = tree().with_missing(Missing::AsWritten);
        assert!(t.leaves("https://example.com/missing.html"));
        assert!(!t.leaves("https://example.com/about/"));
        assert!(!t.leaves("https://other.example/missing.html"));
        assert!(!tree().leaves("https://example.com/missing.html"));
    }

    #[test]
    fn a_missing_page_of_the_site_leads_to_the_placeholder_when_asked() {
        let t = tree().with_missing(Missing::Placeholder);
        assert_eq!(
            t.reference(
                "https://example.com/blog/2024/post.html",
                "https://example.com/missing.html#a b"
            )
            .as_deref(),
            Some("../../_not-in-this-copy.html#https%3A%2F%2Fexample.com%2Fmissing.html%23a%20b")
        );
        assert_eq!(
            t.reference("https://example.com/", "https://other.example/x"),
            None,
            "another site's link stays absolute"
        );
        assert!(!t.leaves("https://example.com/missing.html"));
    }

    #[test]
    fn the_other_scheme_is_the_same_site() {
        assert_eq!(
            tree()
                .reference(
                    "http://example.com/about/",
                    "https://example.com/css/site.css"
                )
                .as_deref(),
            Some("../css/site.css")
        );
        assert_eq!(
            tree()
                .reference("https://example.com/", "HTTP://example.com/about/")
                .as_deref(),
            Some("about/index.html")
        );
        // Its default port, a user's name: the same server.
        assert_eq!(
            tree()
                .reference(
                    "https://user@example.com:443/",
                    "https://example.com:443/css/site.css?v=2#x"
                )
                .as_deref(),
            Some("css/site.css%3Fv=2.css#x")
        );
    }

    #[test]
    fn netlifys_image_service_resizes_a_file_of_the_site() {
        for (service, query, source) in [
            ("images", "url=/img/a.jpg&w=300", Some("/img/a.jpg")),
            (
                "images",
                "w=30&url=%2Fimg%2Fa%20b.jpg",
                Some("/img/a b.jpg"),
            ),
            ("images", "url=/img/a+b.jpg", Some("/img/a b.jpg")),
            // A remote image, one of no site, none: the service's.
            ("images", "url=https://cdn.example.org/x.jpg", None),
            ("images", "url=//cdn.example.org/x.jpg", None),
            ("images", "w=30", None),
            ("functions/hello", "url=/img/a.jpg", None),
        ] {
            assert_eq!(
                image_source(service, Some(query)).as_deref(),
                source,
                "{service}?{query}"
            );
        }
        assert_eq!(image_source("images", None), None);
    }

    #[test]
    fn a_url_is_served_as_a_client_asks_for_it() {
        let t = tree();
        let served = |url: &str| t.served(url, Host::Plain, &Redirects::default());
        let file = |path: &str| Served::File(path.as_bytes().to_vec());
        for (url, path) in [
            // RFC 1808 keeps a `..` above the root; no request does.
            ("https://example.com/../news.html", "news.html"),
            ("https://example.com/../../", "index.html"),
            (
                "https://example.com/blog/./2024/../index.html",
                "blog/index.html",
            ),
            (
                "https://example.com/blog/%2E%2e/css/.%2e/news.html",
                "news.html",
            ),
            ("https://example.com/blog/2024/..", "blog/index.html"),
            ("https://example.com/about/%2e", "about/index.html"),
            // An empty path is `/`.
            ("https://example.com", "index.html"),
            ("https://example.com?q=1#top", "index.html"),
            ("https://example.com#top", "index.html"),
        ] {
            assert_eq!(served(url), file(path), "{url}");
        }
        // A dot segment is a whole segment.
        assert_eq!(served("https://example.com/news.html%2e"), Served::NotFound);
        assert_eq!(served("https://example.com/..news.html"), Served::NotFound);
        assert_eq!(served("https://example.com.evil"), Served::OffSite);
        assert_eq!(served("https://example.com:8080?q"), Served::OffSite);
        // A browser reads a `\` in the path as a `/`.
        for (url, path) in [
            (
                "https://example.com/blog\\2024\\post.html",
                "blog/2024/post.html",
            ),
            ("https://example.com/blog\\..\\news.html", "news.html"),
            ("https://example.com\\about\\", "about/index.html"),
        ] {
            assert_eq!(served(url), file(path), "{url}");
        }
        // A default port, an empty one, a user's name: the same server.
        for url in [
            "https://example.com:443/news.html",
            "HTTPS://EXAMPLE.COM:/news.html",
            "http://example.com:80/news.html",
            "https://user:pw@example.com/news.html",
            "https://user@example.com:443/news.html#top",
        ] {
            assert_eq!(served(url), file("news.html"), "{url}");
        }
        assert_eq!(
            served("https://example.com:443/gone.html"),
            Served::NotFound
        );
        for url in [
            "https://example.com:80/news.html",
            "http://example.com:443/news.html",
            "https://example.com@other.example/news.html",
            "https://example.com:44/news.html",
        ] {
            assert_eq!(served(url), Served::OffSite, "{url}");
        }
    }

    #[test]
    fn what_the_tree_does_not_hold_is_none() {
        assert_eq!(reference("", "missing.html"), None);
        assert_eq!(reference("", "blog/2024/"), None);
        assert_eq!(reference("", "css/site.css;type=a"), None);
        assert_eq!(reference("", "img%2Fa%20b.png"), None);
        assert_eq!(
            tree().reference("https://example.com/", "https://other.example/"),
            None
        );
        assert_eq!(
            tree().reference("https://example.com/", "http://other.example.com/"),
            None
        );
        assert_eq!(
            tree().reference("https://example.com/", "ftp://example.com/"),
            None
        );
        assert_eq!(
            tree()
                .reference("https://example.com/", "HTTPS://EXAMPLE.COM/css/site.css")
                .as_deref(),
            Some("css/site.css")
        );
    }

    /// The authority starts after the first `://`, wherever the colons
    /// before it are: as a substring search finds it.
    #[test]
    fn the_authority_starts_after_the_first_colon_slash_slash() {
        for url in [
            "https://example.com/a",
            "http://a/b://c",
            "mailto:x://y",
            "urn:a:b:c",
            "a:/b:/c://d",
            ":://",
            "x:",
            "x:/",
            "",
            "no colon",
            "https:/example.com//a",
        ] {
            let expected = memchr::memmem::find(url.as_bytes(), b"://").map(|i| i + 3);
            assert_eq!(authority_start(url.as_bytes()), expected, "{url}");
        }
    }
}
