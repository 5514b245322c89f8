//! What every source does with files: names them in one-line errors, and
//! writes an output whole or not at all, through a temporary file beside
//! it that is renamed over it at the end.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

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
}

impl Input {
    /// A reader of it.
    pub fn open(&self) -> Result<Box<dyn io::Read>, SourceError> {
        Ok(match self {
            Input::File(path) => Box::new(
                File::open(path)
                    .map_err(|e| SourceError::Open(path.display().to_string(), lowercase(&e)))?,
            ),
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

/// A file's name as messages give it: in backticks.
pub(crate) fn quoted(path: &Path) -> String {
    format!("`{}`", path.display())
}

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
/// existing file keeps its permissions.
pub(crate) fn write_through_temporary<T>(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<T, SourceError>,
) -> Result<T, SourceError> {
    let fail = |e| SourceError::Write(quoted(path), e);
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".htmlabs-");
    // tempfile makes its files 0600; a new output gets what `> FILE` would
    // give it (0666 less the umask), an existing one keeps its own below.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temporary = builder
        .tempfile_in(dir)
        .map_err(|e| fail(without_path(e)))?;
    let done = write(temporary.as_file_mut())?;
    if let Ok(existing) = std::fs::metadata(path) {
        temporary
            .as_file()
            .set_permissions(existing.permissions())
            .map_err(fail)?;
    }
    temporary.as_file().sync_all().map_err(fail)?;
    temporary
        .persist(path)
        .map_err(|e| fail(without_path(e.error)))?;
    Ok(done)
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
