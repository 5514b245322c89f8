//! What every source does with files: names them in one-line errors, and
//! writes an output whole or not at all, through a temporary file beside
//! it that is renamed over it at the end.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use tempfile::NamedTempFile;

use crate::html::error::Error;

/// Where the document comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

/// Where the rewritten document goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Stdout,
    /// Through a temporary file beside it, renamed over it at the end: a
    /// failed run leaves no half-written file, and an existing file keeps
    /// its permissions.
    File(PathBuf),
    /// Nowhere: `--check` only lists what would change.
    Discard,
}

impl Input {
    /// A reader of it.
    pub fn open(&self) -> Result<Box<dyn io::Read>, SourceError> {
        Ok(match self {
            Input::File(path) => Box::new(File::open(path).map_err(|e| {
                SourceError::Open(crate::names::path(path).into_owned(), lowercase(&e))
            })?),
            Input::Stdin => Box::new(io::stdin().lock()),
        })
    }

    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "standard input".to_owned(),
            Input::File(path) => quoted(path),
        }
    }
}

/// A source's error: the engine's, or its own I/O's, naming the file or
/// stream it concerns. The `Display` is the one line the user reads.
#[derive(Debug, thiserror::Error)]
pub enum SourceError {
    #[error("cannot open `{0}`: {1}")]
    Open(String, String),
    #[error("cannot read {0}: {1}")]
    Read(String, String),
    #[error("cannot write {0}: {msg}", msg = lowercase(.1))]
    Write(String, io::Error),
    #[error("cannot parse {0}: {1}")]
    Parse(String, String),
    #[error("cannot rewrite {0}: {1}")]
    Encoding(String, String),
    /// The header blocks in front of a response (`--http`).
    #[error("cannot read the header blocks of {0} (--http): {1}")]
    Head(String, String),
    /// What was asked for cannot be done (a bad flag value): said before
    /// anything is read or written.
    #[error("{0}")]
    Refused(String),
}

impl SourceError {
    /// The engine's error, naming the input and the output it concerns
    /// (`` `page.html` ``, `standard input`).
    pub fn of(e: Error, input: &str, output: &str) -> Self {
        match e {
            Error::Read(e) => SourceError::Read(input.to_owned(), lowercase(&e)),
            Error::Write(e) => SourceError::Write(output.to_owned(), e),
            Error::Parse(e) => SourceError::Parse(input.to_owned(), lowercase(&e)),
            Error::Encoding(e) => SourceError::Encoding(input.to_owned(), e),
        }
    }

    /// Whether the reader of the output went away (`| head`): nothing is
    /// wrong then, and nothing is said.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, SourceError::Write(_, e) if e.kind() == io::ErrorKind::BrokenPipe)
    }
}

/// A file's name as messages give it: in backticks, quoted C-style
/// within them when it is not plain (see [`names`](crate::names)).
pub(crate) use crate::names::quoted;

/// io errors read "No such file or directory (os error 2)"; ours are
/// lowercase.
pub(crate) fn lowercase(e: &impl fmt::Display) -> String {
    let s = e.to_string();
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Writes `path` by way of a temporary file beside it, renamed over it only
/// when `write` succeeded: a failed run leaves no half-written file, and an
/// existing file keeps its permissions. With `modified`, the file gets that
/// modification time (a site's file rewritten in place keeps its own).
/// With `durable`, the file's bytes are on the disk before the rename (see
/// [`Staged::durable`]).
pub(crate) fn write_through_temporary<T>(
    path: &Path,
    modified: Option<SystemTime>,
    durable: bool,
    write: impl FnOnce(&mut File) -> Result<T, SourceError>,
) -> Result<T, SourceError> {
    let mut staged = Staged::new(path)?;
    let done = write(staged.file_mut())?;
    staged.modified = modified;
    staged.durable = durable;
    staged.commit()?;
    Ok(done)
}

/// An empty temporary file in `path`'s directory, to be renamed over it.
fn temporary_beside(path: &Path) -> Result<NamedTempFile, SourceError> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".htmlabs-");
    // tempfile makes its files 0600; a new output gets what `> FILE` would
    // give it (0666 less the umask), an existing one keeps its own.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    builder
        .tempfile_in(dir)
        .map_err(|e| SourceError::Write(quoted(path), without_path(e)))
}

/// A file written as a run goes (a link report), that takes its name only
/// when the run succeeded: until [`Staged::commit`], it is a temporary file
/// beside it, removed if the run fails.
///
/// A symbolic link is followed, so that the file it names gets the bytes
/// and the link stays a link. What is not a regular file (`/dev/null`, a
/// FIFO, a socket) is written as it is, as `>` does: renamed over, it would
/// be replaced by a regular file (as root, `/dev/null` itself).
pub struct Staged {
    target: Target,
    path: PathBuf,
    /// The modification time it gets, if not now.
    modified: Option<SystemTime>,
    /// Made durable (fsync) before the rename, so that after a power loss
    /// the name holds the old bytes or the new, never an empty file. The
    /// rename alone already keeps an interrupted or failed run from
    /// leaving a half-written file; a site of thousands of files spends
    /// most of its time waiting on these (3.5× the wall time on 300 corpus
    /// pages), so there it is asked for with `--fsync`, as rsync does.
    pub durable: bool,
}

/// Where a staged file's bytes go.
enum Target {
    /// A temporary file beside the real one, renamed over it at the end.
    Temporary(NamedTempFile, PathBuf),
    /// A file that is not a regular one, written as it is.
    Special(File),
}

impl Staged {
    pub fn new(path: &Path) -> Result<Self, SourceError> {
        let real = followed(path);
        let target = match std::fs::metadata(&real) {
            Ok(m) if !m.is_file() && !m.is_dir() => Target::Special(
                File::options()
                    .write(true)
                    .open(&real)
                    .map_err(|e| SourceError::Write(quoted(path), e))?,
            ),
            _ => Target::Temporary(temporary_beside(&real)?, real),
        };
        Ok(Staged {
            target,
            path: path.to_owned(),
            modified: None,
            durable: true,
        })
    }

    fn file_mut(&mut self) -> &mut File {
        match &mut self.target {
            Target::Temporary(temporary, _) => temporary.as_file_mut(),
            Target::Special(file) => file,
        }
    }

    /// A writer to it.
    pub fn writer(&self) -> Result<File, SourceError> {
        match &self.target {
            Target::Temporary(temporary, _) => temporary.reopen(),
            Target::Special(file) => file.try_clone(),
        }
        .map_err(|e| SourceError::Write(quoted(&self.path), without_path(e)))
    }

    /// Renames it over its path; an existing file's permissions stay.
    pub fn commit(self) -> Result<(), SourceError> {
        let fail = |e| SourceError::Write(quoted(&self.path), e);
        let (temporary, real) = match self.target {
            Target::Temporary(temporary, real) => (temporary, real),
            Target::Special(_) => return Ok(()),
        };
        if let Ok(existing) = std::fs::metadata(&real) {
            temporary
                .as_file()
                .set_permissions(existing.permissions())
                .map_err(fail)?;
        }
        if let Some(modified) = self.modified {
            temporary.as_file().set_modified(modified).map_err(fail)?;
        }
        if self.durable {
            temporary.as_file().sync_all().map_err(fail)?;
        }
        temporary
            .persist(&real)
            .map(|_| ())
            .map_err(|e| SourceError::Write(quoted(&self.path), without_path(e.error)))
    }
}

/// `path`, its last component's symbolic links followed (as many as the
/// kernel follows, 40), dangling or not: where `> path` would write.
fn followed(path: &Path) -> PathBuf {
    let mut path = path.to_owned();
    for _ in 0..40 {
        match std::fs::read_link(&path) {
            Ok(target) => {
                path = match path.parent() {
                    Some(dir) => dir.join(target),
                    None => target,
                }
            }
            Err(_) => break,
        }
    }
    path
}

/// tempfile's errors end with ` at path "…"`, naming the temporary file the
/// user never gave; the message names the output file instead.
/// (Its wrapper hides the OS error from `source()`, so the text is all
/// there is to go by.)
fn without_path(e: io::Error) -> io::Error {
    let message = e.to_string();
    match message.rfind(" at path \"") {
        Some(at) => io::Error::new(e.kind(), &message[..at]),
        None => e,
    }
}
