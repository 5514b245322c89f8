//! How the host that will serve a static site answers a URL of it
//! (`--check-links --host`): which file of the tree a path reaches, under
//! the host's rules. Knows paths as bytes, nothing of the filesystem: the
//! tree says which files and directories it holds.
//!
//! Every host here decodes the path's escapes (`a%20b.png` is `a b.png`),
//! answers a bad escape or an escaped `/` with an error, ignores the query,
//! and serves a directory's `index.html`, at its URL with its slash or
//! without (where it redirects to the slash first); names are matched as
//! they are (case counts: Linux servers, GitHub Pages, Netlify).

use std::fmt;

/// The rules a host serves a site's files by.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Host {
    /// A plain web server as it comes (nginx, Apache with `DirectorySlash
    /// On` and no `MultiViews`, Caddy's `file_server`, `python3 -m
    /// http.server`): a path reaches its file, a directory its
    /// `index.html`.
    #[default]
    Plain,
    /// GitHub Pages: as a plain server, and a path that is no file
    /// reaches the `.html` file of its name, before a directory of that
    /// name (`/about` is `about.html`; `/blog`, beside `blog/`, is
    /// `blog.html`), as Jekyll's pretty links expect; with a slash, only a
    /// directory's index.
    GithubPages,
    /// Netlify: as GitHub Pages, with a slash too (`/about/` and `/blog/`
    /// redirect to `/about` and `/blog`), and the rules of the site's
    /// `_redirects` file over what no file answers, or over any with `!`.
    Netlify,
    /// Cloudflare Pages: as GitHub Pages, and a path with a slash that
    /// names no directory with an index reaches the `.html` file of its
    /// name (`/about/` redirects to `/about`); and every rule of the
    /// site's `_redirects` file that matches, whether a file answers or
    /// not, as Cloudflare's own code reads the file.
    CloudflarePages,
    /// GitLab Pages: a directory first, served by its index alone (without
    /// the slash, after a redirect to it), even where a page of its name
    /// is there (`/blog`, beside `blog/` with no index, is not found); any
    /// other path that does not end in `.html` reaches the `.html` file of
    /// its name, with the slash too (`/about/` serves `about.html`); and
    /// the rules of the site's `_redirects` file over what no file
    /// answers, as GitLab Pages reads them.
    GitlabPages,
}

impl Host {
    /// Every host, by its name on the command line.
    const ALL: [Host; 5] = [
        Host::Plain,
        Host::GithubPages,
        Host::Netlify,
        Host::CloudflarePages,
        Host::GitlabPages,
    ];

    /// Its name (`--host`'s value).
    pub fn name(self) -> &'static str {
        match self {
            Host::Plain => "plain",
            Host::GithubPages => "github-pages",
            Host::Netlify => "netlify",
            Host::CloudflarePages => "cloudflare-pages",
            Host::GitlabPages => "gitlab-pages",
        }
    }

    /// The host a name gives.
    pub fn from_name(name: &str) -> Option<Host> {
        Host::ALL.into_iter().find(|host| host.name() == name)
    }

    /// The file `path` (the decoded path of a URL under the site's root,
    /// with no leading `/`: empty for the root) reaches, given which files
    /// and directories the tree holds.
    pub(crate) fn serves(
        self,
        path: &[u8],
        file: impl Fn(&[u8]) -> bool,
        directory: impl Fn(&[u8]) -> bool,
    ) -> Option<Vec<u8>> {
        let bare = path.strip_suffix(b"/").unwrap_or(path);
        let slash = bare.len() < path.len();
        // A file's name with a slash after it names no file.
        if !slash && !path.is_empty() && file(path) {
            return Some(path.to_vec());
        }
        // The name's `.html` file comes before a directory of the name:
        // with `both.html` and `both/index.html`, GitHub Pages and
        // Cloudflare Pages serve the first at `/both`, the second at
        // `/both/`; Netlify the first at both (it redirects `/both/` to
        // `/both`), as measured on each by
        // github.com/slorber/trailing-slash-guide.
        let html = || {
            let mut html = bare.to_vec();
            html.extend_from_slice(b".html");
            (!bare.is_empty() && file(&html)).then_some(html)
        };
        let html_first = match self {
            Host::Plain | Host::GitlabPages => false,
            Host::GithubPages | Host::CloudflarePages => !slash,
            Host::Netlify => true,
        };
        if html_first && let Some(html) = html() {
            return Some(html);
        }
        let is_directory = bare.is_empty() || directory(bare);
        if is_directory {
            let mut index = bare.to_vec();
            if !index.is_empty() {
                index.push(b'/');
            }
            index.extend_from_slice(b"index.html");
            if file(&index) {
                return Some(index);
            }
        }
        match self {
            // Cloudflare Pages: `/file/` redirects to `/file`.
            Host::CloudflarePages if slash => html(),
            // GitLab Pages (its `tryFile`, in gitlab-pages's
            // internal/serving/disk/reader.go): a path that names nothing
            // and does not end in `.html`, its slash taken off, `.html` put
            // on; a directory has its index or nothing.
            Host::GitlabPages if !is_directory && !path.ends_with(b".html") => html(),
            _ => None,
        }
    }
}

impl fmt::Display for Host {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What the host answers a link with (`--check-links`), beside the link in
/// the report; or, for an archive's link, what the archive answers it
/// with, as a replay of it would.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Served {
    /// A file of the site: its path under the site's root (`/` between
    /// segments; the name's bytes as they are).
    File(Vec<u8>),
    /// A URL of the site that reaches no file: a broken link.
    NotFound,
    /// A file of the site (its path), a page in which the URL's fragment
    /// names nothing: a broken link.
    NoFragment(Vec<u8>),
    /// A URL of another site (or another scheme): listed and counted,
    /// never fetched.
    OffSite,
    /// A URL of the site that the host answers with a service of its own,
    /// not a file (Netlify's `/.netlify/` paths: its functions, forms,
    /// identity): listed and counted, not checked, as what it answers is
    /// the service's code's to say.
    Service,
    /// An archive's capture of the URL (`--warc --check-links`): a 2xx
    /// response, or a revisit of one; of several, the one nearest in time
    /// to the linking document's, by its `WARC-Date` as written.
    Captured(String),
    /// An archive's redirect for the URL, followed: the URL where its
    /// chain ends, and what the archive answers there.
    Redirected(String, Box<Served>),
    /// An archive's capture of the URL as an error: its status (4xx, 5xx;
    /// 0, a response that does not read) and its `WARC-Date`: a broken
    /// link.
    Failed { status: u16, date: String },
    /// A URL the archive holds nothing for: a broken link, and a seed for
    /// a crawl that would mend the archive.
    NotCaptured,
    /// More than 20 redirects, or a loop of them: a broken link.
    Looped,
}

impl Served {
    /// Whether the link is broken: no file, or no part of it its fragment
    /// names.
    pub fn broken(&self) -> bool {
        match self {
            Served::Redirected(_, end) => end.broken(),
            served => matches!(
                served,
                Served::NotFound
                    | Served::NoFragment(_)
                    | Served::Failed { .. }
                    | Served::NotCaptured
                    | Served::Looped
            ),
        }
    }

    /// Its name in the link report's `status`.
    pub fn name(&self) -> &'static str {
        match self {
            Served::File(_) => "found",
            Served::NotFound => "not-found",
            Served::NoFragment(_) => "fragment-not-found",
            Served::OffSite => "off-site",
            Served::Service => "service",
            Served::Captured(_) => "captured",
            Served::Redirected(..) => "redirected",
            Served::Failed { .. } => "failed",
            Served::NotCaptured => "not-captured",
            Served::Looped => "redirect-loop",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILES: &[&str] = &[
        "index.html",
        "about.html",
        "docs/index.html",
        "docs/guide.html",
        "img/a b.png",
        "empty/x.png",
        "both.html",
        "both/index.html",
        "blog.html",
        "blog/first.html",
    ];

    fn serves(host: Host, path: &str) -> Option<String> {
        let file = |p: &[u8]| FILES.iter().any(|f| f.as_bytes() == p);
        let directory = |p: &[u8]| {
            FILES
                .iter()
                .any(|f| f.as_bytes().starts_with(p) && f.as_bytes().get(p.len()) == Some(&b'/'))
        };
        host.serves(path.as_bytes(), file, directory)
            .map(|p| String::from_utf8(p).unwrap())
    }

    #[test]
    fn each_host_serves_by_its_rules() {
        // (path, plain, github-pages, netlify, cloudflare-pages,
        // gitlab-pages)
        type Case = (
            &'static str,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
            Option<&'static str>,
        );
        let (index, about) = (Some("index.html"), Some("about.html"));
        let (docs, guide) = (Some("docs/index.html"), Some("docs/guide.html"));
        let png = Some("img/a b.png");
        let (both_page, both_index) = (Some("both.html"), Some("both/index.html"));
        let blog = Some("blog.html");
        let cases: &[Case] = &[
            ("", index, index, index, index, index),
            ("about.html", about, about, about, about, about),
            ("about", None, about, about, about, about),
            ("about/", None, None, about, about, about),
            ("about.html/", None, None, None, None, None),
            ("docs", docs, docs, docs, docs, docs),
            ("docs/", docs, docs, docs, docs, docs),
            ("docs/index.html", docs, docs, docs, docs, docs),
            ("docs/guide", None, guide, guide, guide, guide),
            ("img/a b.png", png, png, png, png, png),
            ("IMG/a b.png", None, None, None, None, None),
            // A directory with no index: nothing to serve.
            ("empty/", None, None, None, None, None),
            ("empty", None, None, None, None, None),
            // A page and a directory of one name: the page first, but on
            // a plain server and GitLab Pages, and with the slash on
            // GitHub Pages and Cloudflare Pages.
            (
                "both", both_index, both_page, both_page, both_page, both_index,
            ),
            (
                "both/", both_index, both_index, both_page, both_index, both_index,
            ),
            // GitLab Pages: a directory, even with no index, before the
            // page of its name.
            ("blog", None, blog, blog, blog, None),
            ("blog/", None, None, blog, blog, None),
            ("missing.html", None, None, None, None, None),
        ];
        for &(path, plain, pages, netlify, cloudflare, gitlab) in cases {
            let expected = [plain, pages, netlify, cloudflare, gitlab];
            for (host, expected) in Host::ALL.into_iter().zip(expected) {
                assert_eq!(serves(host, path).as_deref(), expected, "{host}: {path:?}");
            }
        }
    }

    #[test]
    fn a_host_is_named_as_the_command_line_names_it() {
        for host in Host::ALL {
            assert_eq!(Host::from_name(host.name()), Some(host));
        }
        assert_eq!(Host::from_name("vercel"), None);
    }
}
