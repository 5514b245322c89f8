//! The site's tree: walked with the `ignore` crate (its `.gitignore`-style
//! globs for `--exclude`; the site's own ignore files are not read, since a
//! build's output is not a repository), and copied for `--out-dir`, never
//! through a link that stands in the copy.

use std::collections::HashSet;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use ignore::WalkBuilder;
use ignore::overrides::{Override, OverrideBuilder};
use rustix::fs::{AtFlags, CWD};
use rustix::io::Errno;

use super::Site;
use crate::source::listener::{Document, Listener, Passed};
use crate::source::names;
use crate::source::output::dir::Dir;
use crate::source::output::staging::{self, Staging};
use crate::source::output::{SourceError, lowercase, quoted};

/// A file of the site.
#[derive(Debug, Clone)]
pub struct Entry {
    /// As found: under the site's directory.
    pub path: PathBuf,
    /// Under the site's root: what its URL and its place in a copy follow.
    pub relative: PathBuf,
    /// A document to rewrite by its extension: a page (`.html`, `.htm`,
    /// `.xhtml`), a stylesheet (`.css`), or XML (`.xml`, `.rss`, `.atom`,
    /// `.feed`, `.svg`) when its root says so.
    pub document: bool,
    /// `.xhtml`: rewritten only where it reads as HTML.
    pub xhtml: bool,
    /// A symbolic link, copied as one into `--out-dir`.
    pub link: Option<PathBuf>,
    /// Where it is written in place: its real path under the site's root,
    /// links on the way resolved by the walk (the write follows none).
    pub place: PathBuf,
}

/// The excludes as the walker takes them: each glob a file must not match.
pub fn overrides(dir: &Path, excludes: &[String]) -> Result<Override, SourceError> {
    let mut builder = OverrideBuilder::new(dir);
    for glob in excludes {
        builder.add(&format!("!{glob}")).map_err(|e| {
            SourceError::Refused(format!(
                "--exclude is not a glob: `{glob}`: {}",
                lowercase(&e)
            ))
        })?;
    }
    builder
        .build()
        .map_err(|e| SourceError::Refused(format!("--exclude: {}", lowercase(&e))))
}

/// The site's tree as walked: its files, and what the walk met on the way
/// (told by the run, in the order met).
#[derive(Debug, Default)]
pub(crate) struct Walked {
    pub entries: Vec<Entry>,
    pub met: Vec<Met>,
    /// In place, the files `--exclude` leaves out, by their path under
    /// the site: not read nor written, but there, and served (a link to
    /// one is no broken link, nor one to a page the site lacks). A copy
    /// has none of them.
    pub excluded: Vec<PathBuf>,
}

/// What the walk met on the way.
#[derive(Debug)]
pub(crate) enum Met {
    /// A path it could not read.
    Failure(PathBuf, SourceError),
    /// A path passed over, said with `-v` (a symbolic link not followed).
    Note(PathBuf, &'static str),
    /// A file passed over, with a warning.
    Passed(PathBuf, Passed),
}

/// Every file under the site's directory but the excluded, sorted by path:
/// the order of the check lines and the report, whatever the workers do.
/// A symbolic link is passed over (in place) or kept as a link (in a
/// copy), unless links are followed; a file whose real place is outside the
/// site is never written in place; what is not a regular file is never
/// opened (a FIFO would block the run).
pub(crate) fn walk(site: &Site) -> Result<Walked, SourceError> {
    let root = site
        .dir
        .canonicalize()
        .map_err(|e| SourceError::Open(names::path(&site.dir).into_owned(), lowercase(&e)))?;
    let over = overrides(&site.dir, &site.excludes)?;
    let walker = walker(site).overrides(over.clone()).build();
    let mut walked = Walked::default();
    let (entries, met) = (&mut walked.entries, &mut walked.met);
    let mut seen = HashSet::new();
    let writes = !site.check;
    for result in walker {
        let entry = match result {
            Ok(entry) => entry,
            Err(e) => {
                let path = ignore_path(&e).unwrap_or_else(|| site.dir.clone());
                let e = SourceError::Read(quoted(&path), walk_error(&e));
                met.push(Met::Failure(path, e));
                continue;
            }
        };
        let path = entry.path().to_path_buf();
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let relative = path.strip_prefix(&site.dir).unwrap_or(&path).to_path_buf();
        if kind.is_symlink() {
            // Not followed: in place it is left alone; a copy keeps it.
            let target = fs::read_link(&path).ok();
            if site.out_dir.is_none() {
                met.push(Met::Note(
                    path.clone(),
                    "a symbolic link: not followed (--follow-links)",
                ));
            }
            entries.push(Entry {
                place: relative.clone(),
                path,
                relative,
                document: false,
                xhtml: false,
                link: target,
            });
            continue;
        }
        if kind.is_dir() {
            continue;
        }
        let document = is_document(&path);
        if !kind.is_file() {
            let copy = site.out_dir.is_some();
            if writes && (copy || document) {
                let kind = special(&kind);
                met.push(Met::Passed(path, Passed::NotRegular { kind, copy }));
            }
            continue;
        }
        let mut place = relative.clone();
        if document && site.out_dir.is_none() && writes {
            // In place, a file is written only where it really is, inside
            // the site, and once.
            let Ok(real) = path.canonicalize() else {
                continue;
            };
            let Ok(under) = real.strip_prefix(&root) else {
                met.push(Met::Passed(path, Passed::Outside));
                continue;
            };
            place = under.to_path_buf();
            if !seen.insert(real) {
                continue;
            }
        }
        entries.push(Entry {
            xhtml: document && has_extension(&path, &["xhtml"]),
            path,
            relative,
            document,
            link: None,
            place,
        });
    }
    entries.sort_by(|a, b| a.relative.cmp(&b.relative));
    // Told in the order of their paths too, not the directories' own.
    met.sort_by(|a, b| a.path().cmp(b.path()));
    if site.out_dir.is_none() && !site.excludes.is_empty() {
        walked.excluded = excluded(site, &over);
    }
    Ok(walked)
}

/// The site's directory as the walks go through it: every file (no ignore
/// file of the site's read), links followed only when asked.
fn walker(site: &Site) -> WalkBuilder {
    let mut builder = WalkBuilder::new(&site.dir);
    builder
        .standard_filters(false)
        .follow_links(site.follow_links);
    builder
}

/// The regular files of the site's directory that `--exclude` leaves
/// out (`over`: it, or a directory it is in, matches one), walked as the
/// walk goes (links followed as it follows them), by their path under the
/// site.
fn excluded(site: &Site, over: &Override) -> Vec<PathBuf> {
    let left_out = |path: &Path| {
        path.ancestors()
            .take_while(|a| *a != site.dir)
            .enumerate()
            .any(|(i, a)| over.matched(a, i > 0).is_ignore())
    };
    let mut excluded: Vec<PathBuf> = walker(site)
        .build()
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_some_and(|kind| kind.is_file()))
        .filter(|entry| left_out(entry.path()))
        .filter_map(|entry| Some(entry.path().strip_prefix(&site.dir).ok()?.to_path_buf()))
        .collect();
    excluded.sort();
    excluded
}

impl Met {
    fn path(&self) -> &Path {
        match self {
            Met::Failure(path, _) | Met::Note(path, _) | Met::Passed(path, _) => path,
        }
    }
}

/// What a file that is neither regular nor a directory nor a link is.
fn special(kind: &fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else {
        "of no kind known"
    }
}

/// The path an error of the walk concerns, if it names one.
fn ignore_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            ignore_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

/// What went wrong in the walk, without the paths the crates' messages
/// give unquoted (the message names its path itself).
fn walk_error(e: &ignore::Error) -> String {
    match e {
        ignore::Error::WithPath { err, .. }
        | ignore::Error::WithDepth { err, .. }
        | ignore::Error::WithLineNumber { err, .. } => walk_error(err),
        ignore::Error::Loop { ancestor, .. } => {
            format!("a file system loop: it leads back to {}", quoted(ancestor))
        }
        ignore::Error::Partial(errors) => {
            errors.iter().map(walk_error).collect::<Vec<_>>().join("; ")
        }
        ignore::Error::Io(io) => lowercase(&os_error(io)),
        _ => lowercase(e),
    }
}

/// The operating system's error under `e`: walkdir's wraps it in a message
/// that gives the path.
fn os_error(e: &std::io::Error) -> &(dyn std::error::Error + 'static) {
    let mut at: &(dyn std::error::Error + 'static) = e;
    while at
        .downcast_ref::<std::io::Error>()
        .is_none_or(|io| io.raw_os_error().is_none())
    {
        match at.source() {
            Some(source) => at = source,
            None => return e,
        }
    }
    at
}

/// Whether a file may be a document to rewrite, by its name (an XML file's
/// root decides when it is read: [`decide`](crate::source::typing::decide)).
fn is_document(path: &Path) -> bool {
    has_extension(
        path,
        &[
            "html", "htm", "xhtml", "css", "xml", "rss", "atom", "feed", "svg",
        ],
    )
}

fn has_extension(path: &Path, any: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| any.iter().any(|h| e.eq_ignore_ascii_case(h)))
}

/// Puts every file that is not a document into the copy, `out`: hard-linked
/// where the filesystem allows (the same bytes, no room taken), else
/// copied; symbolic links as links. Each replaces what stood at its name,
/// a link too, never followed. Stops between files once `stop` is set.
/// How many were copied, and how many linked.
pub fn copy_others(
    site: &Site,
    out: &Dir,
    entries: &[Entry],
    stop: &AtomicBool,
    on: &dyn Listener,
) -> (usize, usize) {
    let (mut copied, mut linked) = (0, 0);
    for entry in entries.iter().filter(|e| !e.document) {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let target = out.path().join(&entry.relative);
        let done = copy_one(site, out, entry).map(|how| match how {
            How::Linked => &mut linked,
            How::Copied => &mut copied,
        });
        match done {
            Ok(count) => *count += 1,
            Err(e) => {
                let e = SourceError::Write(quoted(&target), e);
                on.failure(&Document::File(&entry.path), &e);
            }
        }
    }
    (copied, linked)
}

/// How a file came into the copy.
enum How {
    Linked,
    Copied,
}

fn copy_one(site: &Site, out: &Dir, entry: &Entry) -> io::Result<How> {
    let (Some(name), Some(parent)) = (entry.relative.file_name(), entry.relative.parent()) else {
        return Err(Errno::ISDIR.into());
    };
    let dir = out.made(parent)?;
    if let Some(link) = &entry.link {
        staging::put(&dir, name, true, |dir, at| {
            rustix::fs::symlinkat(link, dir.fd(), at)
        })?;
        return Ok(How::Copied);
    }
    let hard_linked = staging::put(&dir, name, true, |dir, at| {
        rustix::fs::linkat(CWD, &entry.path, dir.fd(), at, AtFlags::empty())
    });
    if hard_linked.is_ok() {
        return Ok(How::Linked);
    }
    // Another filesystem, or one without hard links.
    let mut from = File::open(&entry.path)?;
    let mut staging = Staging::new(&dir, name)?;
    io::copy(&mut from, staging.file_mut())?;
    staging
        .file()
        .set_permissions(from.metadata()?.permissions())?;
    staging.commit(None, site.fsync)?;
    Ok(How::Copied)
}
