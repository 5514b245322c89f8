//! What a user asks for, by the command line's names: the command line's
//! flags and the Python module's keywords both become a [`Request`], and a
//! request becomes the run's [`Config`] and each source's options here, once,
//! so that the same words mean the same run (and fail with the same
//! message). Defaults that depend on the machine ("all cores") are decided
//! here and nowhere else.

use std::path::{Path, PathBuf};

use crate::document::attrs::{Row, Table};
use crate::document::config::Config;
use crate::document::encoding;
use crate::source::output::SourceError;
use crate::source::site::Site;
use crate::source::{http, warc};
use crate::typed::Type;
use crate::url::{Host, LayerError, Layers, MapError, Missing, Standard, UrlMap};

/// What the user asks for, unchecked: every option of the command line
/// that is not its own (where input and output go, what is printed), by
/// its name. Made from [`Request::default`] (the command line's
/// defaults) and changed field by field; new options come as new fields,
/// so it cannot be written as a literal outside the crate.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Request {
    /// `--retrieved-from`: §3.3's URL.
    pub retrieved_from: Option<String>,
    pub standard: Standard,
    /// `--encoding`: a WHATWG label.
    pub encoding: Option<String>,
    pub keep_fragments: bool,
    pub lazy: bool,
    pub social: bool,
    /// `--attr ELEMENT:ATTRIBUTE[:KIND]`, each as given.
    pub attr: Vec<String>,
    /// `--map OLD=NEW`, each as given.
    pub map: Vec<String>,
    pub max_lookahead: usize,
    pub max_memory: usize,
    /// `--content-location`: a base in a response's or a record's header.
    pub content_location: bool,
    /// `--strip-headers`: a response's document alone, decoded.
    pub strip_headers: bool,
    /// `--warc-mode`.
    pub warc_mode: warc::Mode,
    /// `--jobs`: files of a site or records of an archive at once; all
    /// cores when not given (`Request::jobs`).
    pub jobs: Option<usize>,
    /// `--gzip-level`: of the records an archive's run writes, when it is
    /// gzip; the default when not given.
    pub gzip_level: Option<u32>,
    /// `--zstd-level`: likewise, when it is zstd.
    pub zstd_level: Option<i32>,
    /// `--check`: change nothing, only hear what would change (a page
    /// with no base at all cannot be judged, and is refused).
    pub check: bool,
    /// `--type`: the type of the one document (with `--http`, of the
    /// response's body), whatever its first bytes or its `Content-Type`
    /// say; `None` lets them decide.
    pub kind: Option<Type>,
    /// `--site`'s own: how its files are served and walked, and written.
    pub site: SiteRequest,
    /// `--at`: of an archive saved as a tree, the capture of a URL closest
    /// to this date (RFC 3339, or a WARC timestamp of 4 to 14 digits);
    /// the latest when not given.
    pub at: Option<String>,
    /// `--links`: an archive's links are what is asked, not an archive;
    /// the digests of its pages are not checked
    /// ([`warc::Options::page_digests`]).
    pub links: bool,
    /// `--seeds`: an archive's link check keeps each URL it found not
    /// captured ([`CaptureTally::seeds`](crate::source::warc::CaptureTally::seeds)).
    pub seeds: bool,
}

/// What `--site DIR` is asked, besides the request's own (`--check`,
/// `--jobs`, the standard), by the command line's names; made and changed
/// as a [`Request`] is.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SiteRequest {
    /// `--site-url`: the URL the site's root is served at.
    pub url: Option<String>,
    /// `--out-dir`: rewrite into a copy, not in place.
    pub out_dir: Option<PathBuf>,
    /// Not `--no-pretty-urls`: `a/index.html` is served at `a/`.
    pub pretty_urls: bool,
    /// `--follow-links`.
    pub follow_links: bool,
    /// `--fsync`.
    pub fsync: bool,
    /// `--exclude`, each as given.
    pub exclude: Vec<String>,
    /// `--relative`: links to the site's files made relative.
    pub relative: bool,
    /// `--missing`: what becomes of a link to a page the site lacks.
    pub missing: Missing,
    /// `--check-links` (with `--host`'s rules): change nothing, check
    /// each link to the site.
    pub check_links: Option<Host>,
    /// Not `--site-url-only`: the site URL's twins are the site's too.
    pub twins: bool,
}

impl Default for SiteRequest {
    fn default() -> Self {
        SiteRequest {
            url: None,
            out_dir: None,
            pretty_urls: true,
            follow_links: false,
            fsync: false,
            exclude: Vec::new(),
            relative: false,
            missing: Missing::default(),
            check_links: None,
            twins: true,
        }
    }
}

impl Default for Request {
    fn default() -> Self {
        let config = Config::default();
        Request {
            retrieved_from: None,
            standard: config.standard,
            encoding: None,
            keep_fragments: config.keep_fragments,
            lazy: false,
            social: false,
            attr: Vec::new(),
            map: Vec::new(),
            max_lookahead: config.max_lookahead,
            max_memory: config.max_memory,
            content_location: false,
            strip_headers: false,
            warc_mode: warc::Mode::default(),
            jobs: None,
            gzip_level: None,
            zstd_level: None,
            check: false,
            kind: None,
            site: SiteRequest::default(),
            at: None,
            links: false,
            seeds: false,
        }
    }
}

/// A value the user gave that cannot be used: said before anything is
/// read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("{0}")]
    Attr(String),
    #[error("unknown encoding label: `{0}`")]
    UnknownEncoding(String),
    #[error(transparent)]
    Layer(#[from] LayerError),
    #[error(transparent)]
    Map(#[from] MapError),
    /// A number out of its range: what it is, the range, the value.
    #[error("{0} must be {1}: `{2}`")]
    Range(&'static str, &'static str, String),
    /// `--at`: not a date.
    #[error(
        "--at needs a date (2024-05-01T10:00:00Z, or a timestamp of 4 to 14 digits: 20240501): `{0}`"
    )]
    Date(String),
}

/// `--max-memory` when none is given: a quarter of the memory this process
/// may use (its control group's limit where one is set, else the
/// machine's), and no less than 64 MiB.
pub fn default_max_memory() -> usize {
    crate::document::memory::default_total()
}

/// A size as the user writes it: bytes (`1000000`), or a number with a
/// unit, `K`, `M`, `G`, `T` (and `KiB`, `MiB`, …) of 1024, `KB`, `MB`,
/// `GB`, `TB` of 1000, in any case; a whole number, at least 1. The error
/// says why, not the value (its caller names the value and the flag).
pub fn size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, unit) = t.split_at(split);
    let not_a_size =
        || "not a size (a number of bytes, or a number and a unit: 64M, 1G, 500KB)".to_owned();
    let scale: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        "t" | "tib" => 1 << 40,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        "tb" => 1_000_000_000_000,
        _ => return Err(not_a_size()),
    };
    let n: u64 = digits.parse().map_err(|_| not_a_size())?;
    if n == 0 {
        return Err("a size is at least 1 byte".to_owned());
    }
    n.checked_mul(scale)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or_else(|| "more bytes than this machine can hold".to_owned())
}

/// The options of a document's rewrite that every front end takes, by the
/// command line's name: the command line's flags, the Python module's
/// keywords (the name with `_` for `-`: `keep_fragments`), their stubs'
/// `Options` and `python -m htmlabs.spark`'s flags. Declared here once;
/// `tests/house/options.rs` checks each front end against it. `--max-memory`
/// and `--max-lookahead` take a size everywhere (`64M`, `1G`, `500KB`;
/// an `int` of bytes in Python too).
pub const DOCUMENT_OPTIONS: &[&str] = &[
    "standard",
    "encoding",
    "keep-fragments",
    "lazy",
    "social",
    "content-location",
    "attr",
    "map",
    "max-lookahead",
    "max-memory",
];

/// The standard a name (`--standard`'s values) gives.
pub fn standard(name: &str) -> Option<Standard> {
    match name {
        "rfc1808" => Some(Standard::Rfc1808),
        "rfc3986" => Some(Standard::Rfc3986),
        _ => None,
    }
}

/// The type a name (`--type`'s values) gives: `html`, `css`, `xml`.
pub fn kind(name: &str) -> Option<Type> {
    Type::from_name(name)
}

/// The WARC mode a name (`--warc-mode`'s values) gives.
pub fn warc_mode(name: &str) -> Option<warc::Mode> {
    match name {
        "conversion" => Some(warc::Mode::Conversion),
        "replace" => Some(warc::Mode::Replace),
        _ => None,
    }
}

impl Request {
    /// The site in `dir`, as asked: served at `--site-url`, walked and
    /// written as its flags say, checked or rewritten, on `--jobs`
    /// workers. Refused, in the command line's words, when `dir` is no
    /// directory or the URL cannot be a site's.
    pub fn site(&self, dir: &Path) -> Result<Site, SourceError> {
        let url = self.site.url.as_deref().ok_or_else(|| {
            SourceError::Refused(
                "--site needs --site-url URL: the URL the site's root is served at".to_owned(),
            )
        })?;
        let mut site = Site::new(
            dir,
            url,
            self.standard,
            self.site.out_dir.as_deref(),
            &self.site.exclude,
        )?;
        site.pretty_urls = self.site.pretty_urls;
        site.follow_links = self.site.follow_links;
        site.fsync = self.site.fsync;
        site.relative = self.site.relative;
        site.missing = self.site.missing;
        site.check_links = self.site.check_links;
        site.twins = self.site.twins;
        site.check = self.check || self.site.check_links.is_some();
        site.jobs = self.jobs();
        Ok(site)
    }

    /// How many files or records at once: `--jobs`, else every core.
    pub(crate) fn jobs(&self) -> usize {
        self.jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, usize::from))
    }

    /// How a saved response is read (`--http`).
    pub(crate) fn http(&self) -> http::Options {
        http::Options {
            content_location: self.content_location,
            strip_headers: self.strip_headers,
            kind: self.kind,
        }
    }

    /// The layers the user gives a document (`--retrieved-from`: §3.3),
    /// below what its source finds (a header's base, a redirect).
    pub fn layers(&self) -> Result<Layers, ConfigError> {
        let mut layers = Layers::default();
        if let Some(url) = &self.retrieved_from {
            layers = layers.with_retrieval(self.standard, url, "--retrieved-from")?;
        }
        Ok(layers)
    }

    /// The validated configuration of a run: what it asks of every
    /// document (each document's layers come with it).
    pub fn config(&self) -> Result<Config, ConfigError> {
        let standard = self.standard;
        // Refused here too, before anything is read.
        self.layers()?;
        let encoding = match &self.encoding {
            Some(label) => Some(
                encoding::for_label(label)
                    .ok_or_else(|| ConfigError::UnknownEncoding(label.clone()))?,
            ),
            None => None,
        };
        let user = self
            .attr
            .iter()
            .map(|spec| Row::user(spec).map_err(ConfigError::Attr))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Config {
            standard,
            keep_fragments: self.keep_fragments,
            max_lookahead: self.max_lookahead,
            max_memory: self.max_memory,
            encoding,
            table: Table::new(self.lazy, self.social, user),
            map: UrlMap::new(&self.map, standard)?,
            // A site's run sets it, once its files are known.
            local: None,
        })
    }

    /// An archive saved as a tree's own options: `--content-location`,
    /// `--missing`, `--at`, `--jobs` (checked).
    pub(crate) fn tree(&self) -> Result<warc::tree::Options, ConfigError> {
        if self.jobs == Some(0) {
            return Err(ConfigError::Range("jobs", "at least 1", "0".into()));
        }
        let at = match &self.at {
            Some(at) => Some(warc::tree::date(at).ok_or_else(|| {
                ConfigError::Date(crate::shown::shown(at.as_bytes()).into_owned())
            })?),
            None => None,
        };
        Ok(warc::tree::Options {
            content_location: self.content_location,
            missing: self.site.missing,
            at,
            jobs: self.jobs(),
        })
    }

    /// How an archive is read: the mode, the jobs, the levels (each in
    /// its range), and the flags that change what is written, for its
    /// `warcinfo` record.
    #[doc(hidden)]
    pub fn warc(&self) -> Result<warc::Options, ConfigError> {
        if self.jobs == Some(0) {
            return Err(ConfigError::Range("jobs", "at least 1", "0".into()));
        }
        if let Some(level) = self.gzip_level.filter(|l| !(1..=9).contains(l)) {
            return Err(ConfigError::Range(
                "the gzip level",
                "1 to 9",
                level.to_string(),
            ));
        }
        if let Some(level) = self.zstd_level.filter(|l| !(1..=19).contains(l)) {
            return Err(ConfigError::Range(
                "the zstd level",
                "1 to 19",
                level.to_string(),
            ));
        }
        let mut flags = Vec::new();
        if self.content_location {
            flags.push("--content-location".to_owned());
        }
        if self.standard == Standard::Rfc3986 {
            flags.push("--standard rfc3986".to_owned());
        }
        if self.keep_fragments {
            flags.push("--keep-fragments".to_owned());
        }
        if self.lazy {
            flags.push("--lazy".to_owned());
        }
        if self.social {
            flags.push("--social".to_owned());
        }
        if let Some(label) = &self.encoding {
            flags.push(format!("--encoding {label}"));
        }
        flags.extend(self.attr.iter().map(|a| format!("--attr {a}")));
        let mut options = warc::Options {
            content_location: self.content_location,
            flags: flags.join(" "),
            mode: self.warc_mode,
            jobs: self.jobs(),
            page_digests: !self.links,
            ..Default::default()
        };
        if let Some(level) = self.gzip_level {
            options = options.with_gzip_level(level);
        }
        if let Some(level) = self.zstd_level {
            options = options.with_zstd_level(level);
        }
        Ok(options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_bytes_or_a_number_with_a_unit() {
        for (text, bytes) in [
            ("1000000", 1_000_000),
            ("64M", 64 << 20),
            ("64MiB", 64 << 20),
            ("64mb", 64_000_000),
            ("512k", 512 << 10),
            ("2G", 2 << 30),
            ("7 B", 7),
        ] {
            assert_eq!(size(text), Ok(bytes), "{text}");
        }
        for text in ["", "M", "10 MBs", "-1", "0", "1.5G", "99999999999T"] {
            assert!(size(text).is_err(), "{text}");
        }
    }

    /// The site as asked, whole: `--check` and `--jobs` in it, not set on
    /// it afterwards by the run; no `--site-url`, refused.
    #[test]
    fn a_site_is_made_whole_from_the_request() {
        let dir = tempfile::tempdir().unwrap();
        let mut request = Request {
            check: true,
            jobs: Some(3),
            ..Request::default()
        };
        let refused = request.site(dir.path()).unwrap_err().to_string();
        assert!(refused.starts_with("--site needs --site-url"), "{refused}");
        request.site = SiteRequest {
            url: Some("https://example.com/docs".into()),
            pretty_urls: false,
            fsync: true,
            ..SiteRequest::default()
        };
        let site = request.site(dir.path()).unwrap();
        assert!(site.check && site.fsync && !site.pretty_urls && !site.follow_links);
        assert_eq!(site.jobs, 3);
        assert_eq!(
            site.url_of(Path::new("a/index.html")),
            "https://example.com/docs/a/index.html"
        );
        // A page wget saved for a query: the page at its URL, which a
        // reference changing only the query (`?id=2`) is read against.
        assert_eq!(
            site.url_of(Path::new("page.php?id=1.html")),
            "https://example.com/docs/page.php?id=1.html"
        );
    }
}
