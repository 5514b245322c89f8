//! The command line, as the user typed it (clap derive), and its checks on
//! the way to a [`Request`] and a [`Job`]; what a run says as it goes.

pub mod allocator;
mod listener;
mod man;
mod progress;
mod terminal;
mod usage;

use std::path::PathBuf;

use clap::{Parser, ValueEnum};

use htmlabs::SourceError;
use htmlabs::internal::warc;
use htmlabs::run::Job;
use htmlabs::run::Request;
use htmlabs::run::{Host, Missing};
use htmlabs::run::{Input, Output};
use htmlabs::{Standard, Type};
pub use listener::Said;
pub use progress::{ArchiveBar, Bar};
pub use terminal::refuse_compressed;

/// What `-h` says after the flags: where the rest is.
const SHORT_AFTER: &str = "\
-h is the short list; --help has every flag, examples and how the base is chosen;
htmlabs --generate man > htmlabs.1 writes the man page (man ./htmlabs.1).";

const EXAMPLES: &str = "\
Examples:
  htmlabs --retrieved-from https://example.com/docs/page.html < page.html > out.html
  htmlabs -r https://example.com/docs/ -o site/index.html site/index.html
  htmlabs -v -r https://example.com/a/b.html page.html > /dev/null
  curl -siL https://example.com/docs | htmlabs --http -r https://example.com/docs
  htmlabs --warc crawl.warc.gz -o crawl-absolute.warc.gz
  htmlabs --warc crawl.warc.gz --links > links.jsonl
  htmlabs --site public --site-url https://example.com/
  htmlabs --site _site --site-url https://example.com/ --check --report links.jsonl

The base is, in RFC 1808 §3's order: the page's first <base href> in the head
(resolved against what lies below it), else, with --http, the response's
Base: or Content-Base: (Content-Location: with --content-location), else the
retrieval URL (--retrieved-from, after the redirects the input holds), else
none, and then the page comes out unchanged.";

/// Make every link in an HTML document absolute, by RFC 1808.
///
/// Reads HTML, resolves every href and src against the document's base URL,
/// and writes the page back with only those values changed, byte for byte.
#[derive(Debug, Parser)]
#[command(name = "htmlabs", version, after_help = SHORT_AFTER, after_long_help = EXAMPLES)]
pub struct Cli {
    /// The document to read (a page, a feed, a sitemap, SVG, a stylesheet):
    /// standard input when absent or `-`.
    pub file: Option<PathBuf>,

    /// The URL the document was retrieved from (RFC 1808 §3.3); it must have
    /// a scheme.
    #[arg(short = 'r', long, value_name = "URL")]
    pub retrieved_from: Option<String>,

    /// Write to FILE instead of standard output (`-`: standard output;
    /// staged in its directory, put in its place whole at the end: a
    /// failed or interrupted run leaves it as it was, and nothing beside
    /// it). FILE may be the input itself, replaced whole; no other output
    /// nor input may be the same file.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// The document's encoding, by any WHATWG label (`latin1`, `sjis`,
    /// `gb2312`, `utf-16le`, …); a byte order mark still wins. Without it:
    /// `<meta charset>` in the first 1024 bytes, or met later within the
    /// lookahead, else detection.
    #[arg(long, value_name = "LABEL")]
    pub encoding: Option<String>,

    /// How references are resolved.
    #[arg(long, value_enum, default_value_t = StandardArg::Rfc1808)]
    pub standard: StandardArg,

    /// Leave same-document references (`#top`, and the empty `""`) as they are.
    #[arg(long)]
    pub keep_fragments: bool,

    /// Also rewrite lazy-loading attributes (`data-src`, `data-srcset`,
    /// `data-original`, `data-lazy-src`, `data-lazyload`, `data-hires`,
    /// `data-lazy-srcset`).
    #[arg(long)]
    pub lazy: bool,

    /// Also rewrite Open Graph and Twitter card URLs (`<meta property="og:image"
    /// content=…>`, `<meta name="twitter:image" content=…>`, …).
    #[arg(long)]
    pub social: bool,

    /// Also rewrite ATTRIBUTE on ELEMENT (`*` for every element), whose value
    /// is of KIND: url (the default), list, srcset or css. Repeatable:
    /// `--attr img:data-hires --attr img:data-set:srcset`.
    #[arg(long, value_name = "ELEMENT:ATTRIBUTE[:KIND]")]
    pub attr: Vec<String>,

    /// Map every absolute URL that starts with OLD, once resolved, to one
    /// that starts with NEW instead: a domain move
    /// (`https://old.example/=https://new.example/`), a site served under a
    /// sub-path, a staging host. Repeatable; the longest OLD that matches
    /// wins. The scheme and host of OLD match in any case, the rest exactly.
    #[arg(long, value_name = "OLD=NEW")]
    pub map: Vec<String>,

    /// The document's type: `html`, `css` (a stylesheet) or `xml` (a feed,
    /// a sitemap, SVG). Without it, FILE's extension where it names one, as
    /// --site reads it (`.css`, `.html`, `.htm`, `.xhtml`; `.xml`, `.rss`,
    /// `.atom`, `.feed`, `.svg` when their root says XML); else its first
    /// bytes decide: XML when, after a byte order mark and white space,
    /// they are `<?xml` or the root element is `rss`, `feed`, `rdf:RDF`,
    /// `urlset`, `sitemapindex` or `svg` (in SVG's namespace), else HTML;
    /// with --http, the response's `Content-Type`.
    #[arg(long = "type", value_enum, value_name = "TYPE")]
    pub kind: Option<TypeArg>,

    /// Hold at most this many bytes while looking for `<base href>`, and
    /// while reading past an XML prolog to its root to tell a document's
    /// type (a size: `1M`, `512K`, `1000000`).
    #[arg(hide_short_help = true, long, value_name = "SIZE", default_value = "1M", value_parser = size)]
    pub max_lookahead: usize,

    /// The most memory the whole run holds at once, whatever the input, its
    /// type and --jobs (a size: `512M`, `2G`, `64MB`, `100000000`; default:
    /// a quarter of the memory this process may use, its cgroup's limit if
    /// it has one, at least 64M). One document may hold half of it; past
    /// that, the rest of it is copied unchanged, with a warning, and the
    /// exit status is 2. Peak memory stays within it plus a few MiB a
    /// thread.
    #[arg(long, value_name = "SIZE", value_parser = size)]
    pub max_memory: Option<usize>,

    /// The input is a saved HTTP response (`curl -i`, `curl -iL`, `wget
    /// --save-headers`): header blocks, then the document. Its redirects lead
    /// from --retrieved-from (the URL first asked for) to the retrieval URL;
    /// `Base:` and `Content-Base:` give the base below `<base href>`, the
    /// charset of `Content-Type` the encoding; the body is written back in
    /// its coding.
    #[arg(long, conflicts_with = "site")]
    pub http: bool,

    /// The input is a web archive (WARC 1.0 or 1.1, plain, gzip or zstd):
    /// it comes out whole, byte for byte, and each HTML response rewritten
    /// is added after its record as a `conversion` record, or put in its
    /// place with --warc-mode replace (gzip in, gzip out: one member per new
    /// record; zstd likewise, one frame each, with the input's dictionary).
    /// Each record's base: `<base href>`, else
    /// its HTTP `Content-Base:` (and `Content-Location:` with
    /// --content-location), else its `WARC-Target-URI`.
    #[arg(long, conflicts_with_all = ["http", "retrieved_from", "strip_headers", "site"])]
    pub warc: bool,

    /// With --warc: how a rewritten page is written. `conversion` adds it
    /// after its record as a `conversion` record; `replace` puts a new
    /// record in place of the original, its HTTP header without the codings
    /// the new body no longer has (kept as `X-Archive-Orig-…`).
    #[arg(long, value_enum, value_name = "MODE",
          default_value_t = WarcModeArg::Conversion)]
    pub warc_mode: WarcModeArg,

    /// With --warc on a gzip archive: the gzip level (1 fastest, the
    /// default … 9 smallest) of the records htmlabs adds or replaces; the
    /// others are copied as their compressed members. On HTML, 6 writes
    /// them about 8% smaller than 1 and takes two fifths more CPU.
    #[arg(hide_short_help = true, long, value_name = "LEVEL",
          value_parser = |s: &str| whole_number::<u32>(s, 1..=9))]
    pub gzip_level: Option<u32>,

    /// With --warc on a zstd archive (`.warc.zst`): the zstd level (1
    /// fastest … 19 smallest; zstd's default, 3) of the records htmlabs
    /// adds or replaces, compressed with the archive's dictionary.
    #[arg(hide_short_help = true, long, value_name = "LEVEL",
          value_parser = |s: &str| whole_number::<i32>(s, 1..=19))]
    pub zstd_level: Option<i32>,

    /// With --http or --warc: `Content-Location:` is a base too, after
    /// `Base:` and `Content-Base:` (RFC 2068, 2616, MHTML; RFC 7231
    /// withdrew it for HTTP, and browsers ignore it).
    #[arg(hide_short_help = true, long)]
    pub content_location: bool,

    /// With --http: write the document alone, decoded, without the header
    /// blocks.
    #[arg(long)]
    pub strip_headers: bool,

    /// Say which layer set the base, and count the URL values by outcome.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,

    /// Print nothing but errors.
    #[arg(short, long)]
    pub quiet: bool,

    /// Change nothing: print each URL value that would change, as
    /// `FILE:LINE:COLUMN: <tag attr> "original" -> "absolute"`, and exit 1
    /// if there is any, 0 if none.
    #[arg(long, conflicts_with = "output")]
    pub check: bool,

    /// With --warc: write no archive, only the link report (to standard
    /// output, or --report FILE): a JSON object a line for each URL value
    /// of each page, with its record's ID, target URI and date.
    #[arg(long, conflicts_with_all = ["output", "check"])]
    pub links: bool,

    /// Write the link report to FILE (`-`: standard output): a JSON object
    /// a line for each URL value, with its place, what it says, what it
    /// resolves to and what was done with it.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,

    /// With --warc --check-links, write to FILE each URL the archive holds
    /// nothing for (where a redirect's chain ends, for one that leads
    /// there), once, in order: the seeds of a crawl that would mend it.
    #[arg(long, value_name = "FILE", requires = "check_links")]
    pub seeds: Option<PathBuf>,

    /// Rewrite a whole static site: every .html, .htm and .xhtml file under
    /// DIR, each at the URL a server gives it under --site-url, in place
    /// (or into --out-dir), in parallel.
    #[arg(long, value_name = "DIR",
          conflicts_with_all = ["file", "output", "retrieved_from"])]
    pub site: Option<PathBuf>,

    /// The URL the site's root is served at (`https://example.com/`).
    #[arg(long, value_name = "URL")]
    pub site_url: Option<String>,

    /// Write a rewritten copy of the site's tree into OUT instead (other
    /// files hard-linked where the filesystem allows, else copied). With
    /// --warc: save the archive as a tree of files under OUT that opens
    /// from the disk, each link among them relative.
    #[arg(long, value_name = "OUT")]
    pub out_dir: Option<PathBuf>,

    /// Serve `a/index.html` at `a/index.html`, not at `a/`.
    #[arg(hide_short_help = true, long)]
    pub no_pretty_urls: bool,

    /// How many files (with --warc: records) at once (default: all cores).
    #[arg(short, long, value_name = "N",
          value_parser = |s: &str| whole_number::<u16>(s, 1..=u16::MAX))]
    pub jobs: Option<u16>,

    /// Leave out what matches GLOB (`.gitignore` syntax); repeatable.
    #[arg(long, value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// Make each link to a file of the site a relative reference from the
    /// page, stylesheet or SVG file it stands in, which a browser follows
    /// from the disk (`file://`): a directory's to its `index.html`, names
    /// escaped, fragments kept, `<base href>` made the page's own. Links to
    /// what the site does not hold, and those of feeds and sitemaps, stay
    /// absolute.
    #[arg(long)]
    pub relative: bool,

    /// With --relative, what becomes of a link to a page of the site that
    /// the tree lacks: `absolute` (to the live site), `as-written` (a
    /// relative link stays relative, for a copy to be filled in later) or
    /// `placeholder` (to a page of the copy, `_not-in-this-copy.html`,
    /// that says where the link led).
    #[arg(long, value_enum, value_name = "POLICY", default_value_t = MissingArg::Absolute)]
    pub missing: MissingArg,

    /// Change nothing: check every link of the site's pages, stylesheets,
    /// SVG, feeds and sitemaps to a URL of the site against the files the
    /// host (--host) will serve, and a page's fragment against its ids;
    /// print each broken one as `FILE:LINE:COLUMN: <tag attr> "value" ->
    /// "URL": not found`, and exit 1 if there is any. Links to other sites
    /// are counted, never fetched. With --warc ARCHIVE, each link of each
    /// captured document against the archive's captures: captured,
    /// redirected (followed), captured as an error, or not captured
    /// (`PAGE-URL:LINE:COLUMN: … -> "URL": not captured`).
    #[arg(long, conflicts_with_all = ["relative", "out_dir", "check"])]
    pub check_links: bool,

    /// With --check-links, the rules of the host that will serve the site:
    /// `plain` (nginx, Apache, Caddy as they come: a directory serves its
    /// index.html), `github-pages` (and `/about` serves about.html),
    /// `netlify` (and `/about/` too, and the site's redirect rules: its
    /// `_redirects`, then the `netlify.toml` that publishes it; `/.netlify/`
    /// is its functions', counted and not checked), `cloudflare-pages` (and
    /// `/about/` too, and every rule of its `_redirects`, over any file),
    /// `gitlab-pages` (a directory before the page of its name, `/about`
    /// and `/about/` serve about.html, and its `_redirects` read GitLab's
    /// way).
    #[arg(long, value_enum, value_name = "HOST", default_value_t = HostArg::Plain)]
    pub host: HostArg,

    /// Only --site-url itself is the site, not its twins (the other
    /// scheme's, and the name with `www.` or without).
    #[arg(hide_short_help = true, long)]
    pub site_url_only: bool,

    /// With --warc --out-dir, of a URL captured more than once, save the
    /// capture closest to DATE (2024-05-01T10:00:00Z, or a timestamp of 4
    /// to 14 digits: 20240501) instead of the latest.
    #[arg(long, value_name = "DATE")]
    pub at: Option<String>,

    /// Follow symbolic links (files outside DIR are still never written).
    #[arg(hide_short_help = true, long)]
    pub follow_links: bool,

    /// Put each file's bytes on the disk (fsync) before renaming it into
    /// place, so that a power loss leaves the old file or the new, never an
    /// empty one; slower.
    #[arg(hide_short_help = true, long)]
    pub fsync: bool,

    /// Print the man page (`man`) or a shell's completions
    /// (`complete-bash`, `complete-zsh`, `complete-fish`), made from these
    /// flags, and exit.
    #[arg(long, value_enum, value_name = "WHAT", exclusive = true)]
    pub generate: Option<Generate>,
}

/// What `--generate` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Generate {
    /// the man page, in roff: `htmlabs --generate man > htmlabs.1`
    Man,
    /// bash completions
    CompleteBash,
    /// zsh completions
    CompleteZsh,
    /// fish completions
    CompleteFish,
}

impl Generate {
    /// Writes what it names, made from the command's definition.
    pub fn write(self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        use clap::CommandFactory;
        use clap_complete::Shell;
        let mut command = Cli::command();
        let shell = match self {
            Generate::Man => return man::write(command, EXAMPLES, out),
            Generate::CompleteBash => Shell::Bash,
            Generate::CompleteZsh => Shell::Zsh,
            Generate::CompleteFish => Shell::Fish,
        };
        // Into memory first: clap_complete panics on a failed write (a
        // closed pipe), and nothing here may.
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut command, "htmlabs", &mut script);
        out.write_all(&script)
    }
}

/// The flags that belong to one mode: each flag's id, how the user writes
/// it, and the mode it needs. A flag given outside its mode is refused
/// rather than ignored (clap's `requires` is blind to a flag with a default
/// value, and its message is a usage block, not one line).
const MODE_FLAGS: &[(&str, &str, Mode)] = &[
    ("warc_mode", "--warc-mode", Mode::Warc),
    ("gzip_level", "--gzip-level", Mode::Warc),
    ("zstd_level", "--zstd-level", Mode::Warc),
    ("content_location", "--content-location", Mode::HttpOrWarc),
    ("strip_headers", "--strip-headers", Mode::Http),
    ("site_url", "--site-url", Mode::Site),
    ("out_dir", "--out-dir", Mode::SiteOrWarc),
    ("no_pretty_urls", "--no-pretty-urls", Mode::Site),
    ("exclude", "--exclude", Mode::Site),
    ("follow_links", "--follow-links", Mode::Site),
    ("fsync", "--fsync", Mode::Site),
    ("relative", "--relative", Mode::Site),
    ("check_links", "--check-links", Mode::SiteOrWarc),
    ("seeds", "--seeds", Mode::Warc),
    ("host", "--host", Mode::Site),
    ("site_url_only", "--site-url-only", Mode::Site),
    ("missing", "--missing", Mode::SiteOrWarc),
    ("jobs", "--jobs", Mode::SiteOrWarc),
    ("kind", "--type", Mode::Document),
    ("links", "--links", Mode::Warc),
    ("at", "--at", Mode::Warc),
];

/// The flags that say how an archive is written: refused with `--links`,
/// which writes none.
const WRITING_FLAGS: &[(&str, &str)] = &[
    ("warc_mode", "--warc-mode"),
    ("gzip_level", "--gzip-level"),
    ("zstd_level", "--zstd-level"),
];

/// A mode of the command line, as [`MODE_FLAGS`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Http,
    Warc,
    Site,
    HttpOrWarc,
    SiteOrWarc,
    /// One document (a file or standard input, with or without --http):
    /// not a site's files nor an archive's records, each of which has a
    /// type of its own.
    Document,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Http => "--http",
            Mode::Warc => "--warc",
            Mode::Site => "--site",
            Mode::HttpOrWarc => "--http or --warc",
            Mode::SiteOrWarc => "--site or --warc",
            Mode::Document => "one document",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum HostArg {
    /// a plain server: a directory serves its index.html
    Plain,
    /// GitHub Pages: and `/about` serves about.html
    GithubPages,
    /// Netlify: and `/about/` too, and the site's redirects (_redirects,
    /// netlify.toml)
    Netlify,
    /// Cloudflare Pages: and `/about/` too, and every rule of _redirects,
    /// over any file
    CloudflarePages,
    /// GitLab Pages: a directory first, `/about` and `/about/` serve
    /// about.html, and _redirects
    GitlabPages,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum MissingArg {
    /// an absolute link, to the live site
    Absolute,
    /// the link as the page wrote it
    AsWritten,
    /// a page of the copy that says where the link led
    Placeholder,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum WarcModeArg {
    /// keep every record, add each rewritten page as a conversion record
    Conversion,
    /// replace each rewritten page's record
    Replace,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TypeArg {
    /// a page (the page engine)
    Html,
    /// a stylesheet: url(), @import, image-set() against its own URL
    Css,
    /// a feed (RSS, Atom), a sitemap, SVG
    Xml,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StandardArg {
    /// RFC 1808 §4 (the default)
    Rfc1808,
    /// RFC 3986 §5.2, as browsers resolve
    Rfc3986,
}

impl Cli {
    /// The command line, parsed, each flag given in its mode; else the one
    /// line that says what is wrong, clap's errors too ([`usage::line`]).
    /// `--help` and `--version` end the process as clap does, status 0.
    pub fn parse_checked() -> Result<Cli, SourceError> {
        use clap::error::ErrorKind;
        use clap::{CommandFactory, FromArgMatches};
        if let Some(cli) = Cli::plain(std::env::args_os().skip(1)) {
            return Ok(cli);
        }
        let said = |e: clap::Error| match e.kind() {
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => e.exit(),
            _ => SourceError::Refused(usage::line(&e)),
        };
        let matches = Cli::command().try_get_matches().map_err(said)?;
        let cli = Cli::from_arg_matches(&matches).map_err(said)?;
        cli.in_their_modes(&matches)?;
        Ok(cli)
    }

    /// The command line of one page, as a shell's loop over pages runs it
    /// (`-q -r URL FILE -o OUT`), read without building clap's command:
    /// the flags `-q`, `-v`, `-r`, `-o` (short or long, each at most
    /// once, not `-q` with `-v`) and FILE, every value a word of its own
    /// that is not empty and does not start with `-`. Anything else is
    /// `None`, and clap reads it. What it gives is what clap gives for the
    /// same words (tests::plain_is_what_clap_makes_of_it): clap's command,
    /// made at each start, its help texts and every flag's definition,
    /// was 6% of such a run's CPU time.
    fn plain(args: impl Iterator<Item = std::ffi::OsString>) -> Option<Cli> {
        let (mut quiet, mut verbose) = (false, false);
        let (mut retrieved_from, mut output, mut file) = (None, None, None);
        // Every word UTF-8 and not empty, else clap's.
        let mut words = args.map(|a| a.into_string().ok().filter(|a| !a.is_empty()));
        while let Some(word) = words.next() {
            let word = word?;
            let once = |slot: &mut Option<String>, value: Option<String>| match slot {
                None => value.map(|v| *slot = Some(v)),
                Some(_) => None,
            };
            match word.as_str() {
                "-q" | "--quiet" if !quiet => quiet = true,
                "-v" | "--verbose" if !verbose => verbose = true,
                "-r" | "--retrieved-from" => {
                    let value = words.next().flatten().filter(|v| !v.starts_with('-'));
                    once(&mut retrieved_from, value)?;
                }
                "-o" | "--output" => {
                    let value = words.next().flatten().filter(|v| !v.starts_with('-'));
                    once(&mut output, value)?;
                }
                _ if word.starts_with('-') => return None,
                _ => once(&mut file, Some(word))?,
            }
        }
        if quiet && verbose {
            return None;
        }
        Some(Cli {
            file: file.map(PathBuf::from),
            retrieved_from,
            output: output.map(PathBuf::from),
            encoding: None,
            standard: StandardArg::Rfc1808,
            keep_fragments: false,
            lazy: false,
            social: false,
            attr: Vec::new(),
            map: Vec::new(),
            kind: None,
            max_lookahead: 1 << 20,
            max_memory: None,
            http: false,
            warc: false,
            warc_mode: WarcModeArg::Conversion,
            gzip_level: None,
            zstd_level: None,
            content_location: false,
            strip_headers: false,
            verbose,
            quiet,
            check: false,
            links: false,
            report: None,
            seeds: None,
            site: None,
            site_url: None,
            out_dir: None,
            no_pretty_urls: false,
            jobs: None,
            exclude: Vec::new(),
            follow_links: false,
            fsync: false,
            relative: false,
            check_links: false,
            host: HostArg::Plain,
            site_url_only: false,
            missing: MissingArg::Absolute,
            at: None,
            generate: None,
        })
    }

    /// Refuses a mode's flag given outside that mode.
    fn in_their_modes(&self, matches: &clap::ArgMatches) -> Result<(), SourceError> {
        let on = |mode: Mode| match mode {
            Mode::Http => self.http,
            Mode::Warc => self.warc,
            Mode::Site => self.site.is_some(),
            Mode::HttpOrWarc => self.http || self.warc,
            Mode::SiteOrWarc => self.site.is_some() || self.warc,
            Mode::Document => self.site.is_none() && !self.warc,
        };
        let given =
            |id: &str| matches.value_source(id) == Some(clap::parser::ValueSource::CommandLine);
        for &(id, flag, mode) in MODE_FLAGS {
            if given(id) && mode == Mode::Document && !on(mode) {
                let (source, what) = if self.warc {
                    ("--warc", "each record's type is its Content-Type's")
                } else {
                    ("--site", "each file's type is its extension's")
                };
                return Err(SourceError::Refused(format!(
                    "{flag} is for {}: with {source}, {what}",
                    mode.name()
                )));
            }
            if given(id) && !on(mode) {
                return Err(SourceError::Refused(format!(
                    "{flag} needs {}: without it, it would do nothing",
                    mode.name()
                )));
            }
        }
        if given("missing") && !self.relative && !(self.warc && self.out_dir.is_some()) {
            return Err(SourceError::Refused(
                "--missing needs --relative (or --warc with --out-dir): without it, it would do nothing".to_owned(),
            ));
        }
        if given("host") && !self.check_links {
            return Err(SourceError::Refused(
                "--host needs --check-links: it says how the site's files are served".to_owned(),
            ));
        }
        if given("at") && self.out_dir.is_none() {
            return Err(SourceError::Refused(
                "--at needs --out-dir: it chooses which capture of a URL is saved as a file"
                    .to_owned(),
            ));
        }
        if let (true, Some(_)) = (self.warc, &self.out_dir) {
            // The archive is saved as files: no archive, nor a list of its
            // links, is written.
            let other = [
                ("output", "-o"),
                ("links", "--links"),
                ("check", "--check"),
                ("report", "--report"),
                ("warc_mode", "--warc-mode"),
                ("gzip_level", "--gzip-level"),
                ("zstd_level", "--zstd-level"),
            ];
            if let Some((_, flag)) = other.iter().find(|(id, _)| given(id)) {
                return Err(SourceError::Refused(format!(
                    "{flag} cannot go with --warc --out-dir: {flag} is for rewriting an archive as an archive"
                )));
            }
        }
        if let Some((_, flag)) = WRITING_FLAGS.iter().find(|(id, _)| self.links && given(id)) {
            return Err(SourceError::Refused(format!(
                "{flag} says how an archive is written, and --links writes none: it would do nothing"
            )));
        }
        if self.warc && self.check_links {
            let writing = WRITING_FLAGS.iter().chain(&[("output", "-o")]);
            if let Some((_, flag)) = writing.clone().find(|(id, _)| given(id)) {
                return Err(SourceError::Refused(format!(
                    "{flag} says how an archive is written, and --check-links writes none: it would do nothing"
                )));
            }
        }
        Ok(())
    }

    /// What the flags ask for, unchecked, as the library takes it.
    pub fn request(&self) -> Request {
        // Field by field over the defaults: the library's request is
        // `#[non_exhaustive]`, so a literal is not ours to write.
        let mut request = Request::default();
        request.retrieved_from = self.retrieved_from.clone();
        request.standard = match self.standard {
            StandardArg::Rfc1808 => Standard::Rfc1808,
            StandardArg::Rfc3986 => Standard::Rfc3986,
        };
        request.encoding = self.encoding.clone();
        request.keep_fragments = self.keep_fragments;
        request.lazy = self.lazy;
        request.social = self.social;
        request.attr = self.attr.clone();
        request.map = self.map.clone();
        request.max_lookahead = self.max_lookahead;
        request.max_memory = self
            .max_memory
            .unwrap_or_else(htmlabs::internal::request::default_max_memory);
        request.content_location = self.content_location;
        request.strip_headers = self.strip_headers;
        request.warc_mode = match self.warc_mode {
            WarcModeArg::Conversion => warc::Mode::Conversion,
            WarcModeArg::Replace => warc::Mode::Replace,
        };
        request.jobs = self.jobs.map(usize::from);
        request.gzip_level = self.gzip_level;
        request.zstd_level = self.zstd_level;
        request.check = self.check;
        request.kind = self.kind.map(|kind| match kind {
            TypeArg::Html => Type::Html,
            TypeArg::Css => Type::Css,
            TypeArg::Xml => Type::Xml,
        });
        let site = &mut request.site;
        site.url = self.site_url.clone();
        site.out_dir = self.out_dir.clone();
        site.pretty_urls = !self.no_pretty_urls;
        site.follow_links = self.follow_links;
        site.fsync = self.fsync;
        site.exclude = self.exclude.clone();
        site.relative = self.relative;
        site.check_links = self.check_links.then_some(match self.host {
            HostArg::Plain => Host::Plain,
            HostArg::GithubPages => Host::GithubPages,
            HostArg::Netlify => Host::Netlify,
            HostArg::CloudflarePages => Host::CloudflarePages,
            HostArg::GitlabPages => Host::GitlabPages,
        });
        site.twins = !self.site_url_only;
        site.missing = match self.missing {
            MissingArg::Absolute => Missing::Absolute,
            MissingArg::AsWritten => Missing::AsWritten,
            MissingArg::Placeholder => Missing::Placeholder,
        };
        request.at = self.at.clone();
        request.seeds = self.seeds.is_some();
        request.links = self.links;
        request
    }

    /// The validated configuration of a run (the golden, document and
    /// stylesheet tests read their fixtures' flags through it).
    #[allow(dead_code)]
    pub fn config(&self) -> Result<htmlabs::Config, htmlabs::run::ConfigError> {
        self.request().config()
    }

    /// What to do, checked: the flags that need each other are clap's to
    /// check; the values are checked here, before anything is read (the
    /// request's first).
    pub fn job(&self, request: &Request) -> Result<Job, SourceError> {
        let refused = |s: String| Err(SourceError::Refused(s));
        request
            .config()
            .map_err(|e| SourceError::Refused(e.to_string()))?;
        let Some(dir) = &self.site else {
            // One input, one output (a page or an archive), which the
            // report must not share and a check does not write.
            let what = if self.warc { "archive" } else { "page" };
            let to_stdout = matches!(self.output(), Output::Stdout);
            if self.report_to_stdout()
                && to_stdout
                && !self.check
                && !self.check_links
                && !self.links
            {
                let or_links = if self.warc {
                    ", --check or --links"
                } else {
                    " or --check"
                };
                return refused(format!(
                    "--report - would mix the links with the {what} on standard output: give -o FILE{or_links}"
                ));
            }
            let input = self.input();
            if let (Input::File(path), false) = (&input, self.warc) {
                if path.is_dir() {
                    let dir = htmlabs::internal::names::quoted(path);
                    return refused(format!(
                        "{dir} is a directory, and FILE is one document: for the pages under it, give --site {dir} --site-url URL"
                    ));
                }
            }
            // A listing writes no archive: nothing is staged.
            let output = if self.links {
                Output::Discard
            } else {
                self.output()
            };
            if let (true, true) = (self.warc, self.check_links) {
                let Input::File(archive) = input else {
                    return refused(
                        "--warc with --check-links reads the archive twice (its captures, then each link): give it as FILE, not on standard input".to_owned(),
                    );
                };
                return Ok(Job::ArchiveLinks { archive });
            }
            if let (true, Some(out_dir)) = (self.warc, &self.out_dir) {
                let Input::File(archive) = input else {
                    return refused(
                        "--warc with --out-dir reads the archive twice (its captures, then each file): give it as FILE, not on standard input".to_owned(),
                    );
                };
                return Ok(Job::Tree {
                    archive,
                    out_dir: out_dir.clone(),
                });
            }
            return Ok(if self.warc {
                Job::Warc { input, output }
            } else if self.http {
                Job::Http { input, output }
            } else {
                Job::Page { input, output }
            });
        };
        Ok(Job::Site(request.site(dir)?))
    }

    /// Whether the link report goes to standard output (`--report -`, or
    /// `--links` without `--report FILE`); `--check` lines then go to
    /// standard error.
    pub fn report_to_stdout(&self) -> bool {
        match self.report.as_deref() {
            Some(report) => report.as_os_str() == "-",
            None => self.links,
        }
    }

    /// The input: a file, or standard input when absent or `-`.
    pub fn input(&self) -> Input {
        match &self.file {
            Some(file) if file.as_os_str() != "-" => Input::File(file.clone()),
            _ => Input::Stdin,
        }
    }

    /// The output: a file, or standard output when absent or `-`.
    pub fn output(&self) -> Output {
        match &self.output {
            Some(file) if file.as_os_str() != "-" => Output::File(file.clone()),
            _ => Output::Stdout,
        }
    }
}

/// A size, as `--max-memory` and `--max-lookahead` take it.
fn size(text: &str) -> Result<usize, String> {
    htmlabs::internal::request::size(text)
}

/// A whole number in `range`, as `--jobs` and the levels take it.
fn whole_number<T>(text: &str, range: std::ops::RangeInclusive<T>) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display,
{
    text.trim()
        .parse()
        .ok()
        .filter(|n| range.contains(n))
        .ok_or_else(|| {
            format!(
                "not a whole number from {} to {}",
                range.start(),
                range.end()
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    fn words(line: &str) -> impl Iterator<Item = OsString> + '_ {
        line.split_whitespace().map(OsString::from)
    }

    #[test]
    fn plain_is_what_clap_makes_of_it() {
        for line in [
            "",
            "page.html",
            "-q -r https://example.com/docs/ page.html",
            "--quiet --retrieved-from http://h/a/b.html --output out.html page.html",
            "-v -o out.html -r http://h/ page.html",
            "--verbose page.html",
            "page.html -q -r http://h/",
            "-r http://h/",
            "-o out.html",
            "-o page.html page.html",
        ] {
            let plain = Cli::plain(words(line)).unwrap_or_else(|| panic!("`{line}`"));
            let clap = Cli::try_parse_from(std::iter::once("htmlabs".into()).chain(words(line)))
                .unwrap_or_else(|e| panic!("`{line}`: {e}"));
            assert_eq!(format!("{plain:?}"), format!("{clap:?}"), "`{line}`");
        }
        // Anything else is clap's: its errors, `-` for standard input,
        // every other flag, the forms of a value joined to its flag.
        for line in [
            "-q -q page.html",
            "-q -v page.html",
            "-r",
            "-r -q page.html",
            "-o - page.html",
            "-",
            "a.html b.html",
            "-r http://h/ -r http://h/ page.html",
            "-o a.html -o b.html page.html",
            "--lazy page.html",
            "-qr http://h/ page.html",
            "-rhttp://h/ page.html",
            "--output=out.html page.html",
            "-V",
            "-h",
            "--help",
            "-- page.html",
            "--check page.html",
        ] {
            assert!(Cli::plain(words(line)).is_none(), "`{line}`");
        }
        let empty = ["-r", ""].map(OsString::from);
        assert!(Cli::plain(empty.into_iter()).is_none());
        use std::os::unix::ffi::OsStringExt;
        let not_utf8 = OsString::from_vec(b"page\xff.html".to_vec());
        assert!(Cli::plain(std::iter::once(not_utf8)).is_none());
    }
}
