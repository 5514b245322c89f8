//! What every source does with files: names them in one-line errors, and
//! writes an output the user named whole or not at all, staged in its
//! directory and put in its place at the end.

pub(crate) mod behind;
pub(crate) mod dir;
pub(crate) mod error;
pub(crate) mod spool;
pub(crate) mod staging;
pub mod stoppable;

pub(crate) use error::SourceError;
#[doc(hidden)]
pub use staging::abandon;

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use crate::source::output::dir::Dir;
use crate::source::output::staging::Staging;

/// Where the document comes from.
pub enum Input {
    Stdin,
    File(PathBuf),
    /// Any reader (a Python file object), named in messages by `name`
    /// (`` `crawl.warc.gz` ``, `the src file object`).
    Reader {
        reader: Box<dyn io::Read + Send>,
        name: String,
    },
}

/// Where the rewritten document goes.
pub enum Output {
    Stdout,
    /// Staged in its directory, put in its place at the end: a failed or
    /// interrupted run leaves no half-written file, and an existing file
    /// keeps its permissions.
    File(PathBuf),
    /// Nowhere: `--check` only lists what would change.
    Discard,
    /// Any writer (a Python file object), flushed at the end, named in
    /// messages by `name`.
    Writer {
        writer: Box<dyn io::Write + Send>,
        name: String,
    },
}

impl fmt::Debug for Input {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Input::Stdin => f.write_str("Stdin"),
            Input::File(path) => f.debug_tuple("File").field(path).finish(),
            Input::Reader { name, .. } => f.debug_struct("Reader").field("name", name).finish(),
        }
    }
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Output::Stdout => f.write_str("Stdout"),
            Output::File(path) => f.debug_tuple("File").field(path).finish(),
            Output::Discard => f.write_str("Discard"),
            Output::Writer { name, .. } => f.debug_struct("Writer").field("name", name).finish(),
        }
    }
}

impl Input {
    /// A reader of it.
    pub fn open(self) -> Result<Box<dyn io::Read>, SourceError> {
        Ok(match self {
            Input::File(path) => Box::new(File::open(&path).map_err(|e| {
                SourceError::Open(
                    crate::source::names::path(&path).into_owned(),
                    lowercase(&e),
                )
            })?),
            Input::Stdin => Box::new(io::stdin().lock()),
            Input::Reader { reader, .. } => reader as Box<dyn io::Read>,
        })
    }

    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "standard input".to_owned(),
            Input::File(path) => quoted(path),
            Input::Reader { name, .. } => name.clone(),
        }
    }

    /// How check lines and the report name it: its path, or `-`.
    pub(crate) fn path(&self) -> &Path {
        match self {
            Input::File(path) => path,
            Input::Stdin | Input::Reader { .. } => Path::new("-"),
        }
    }
}

/// Runs `write` on the writer `output` names, with its name for messages,
/// then flushes it; a file is staged, and put in its place only when all
/// went well.
pub fn write_to<T>(
    output: Output,
    write: impl FnOnce(&mut (dyn io::Write + Send), &str) -> Result<T, SourceError>,
) -> Result<T, SourceError> {
    let flushed = |out: &mut dyn io::Write, name: &str| {
        out.flush()
            .map_err(|e| SourceError::Write(name.to_owned(), e))
    };
    match output {
        Output::Stdout => {
            let name = "standard output";
            // Not locked: a source may write it from a thread of its own
            // (its writes are buffered, each takes the lock).
            let mut out = io::stdout();
            let done = write(&mut out, name)?;
            flushed(&mut out, name)?;
            Ok(done)
        }
        Output::File(path) => write_staged(&path, true, |file| write(file, &quoted(&path))),
        Output::Discard => write(&mut io::sink(), "nowhere"),
        Output::Writer { mut writer, name } => {
            let done = write(&mut writer, &name)?;
            flushed(&mut writer, &name)?;
            Ok(done)
        }
    }
}

/// A file's name as messages give it: in backticks, quoted C-style
/// within them when it is not plain (see [`names`](crate::source::names)).
pub(crate) use crate::source::names::quoted;

/// A write's error as a message says it: [`lowercase`], and a file size
/// limit said for what it is (EFBIG: with SIGXFSZ caught, a write past
/// `ulimit -f` fails so, rather than ending the process).
fn write_error(e: &io::Error) -> String {
    let said = lowercase(e);
    match e.raw_os_error() == Some(rustix::io::Errno::FBIG.raw_os_error()) {
        true => format!(
            "{said}: larger than this process may write (`ulimit -f`) or the filesystem holds"
        ),
        false => said,
    }
}

/// io errors read "No such file or directory (os error 2)"; ours are
/// lowercase.
pub fn lowercase(e: &impl fmt::Display) -> String {
    let s = e.to_string();
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

/// Writes `path` (the user's own: a link at it is followed, as `>` does)
/// by way of a file staged in its directory, put in its place only when
/// `write` succeeded: a failed or interrupted run leaves no half-written
/// file and nothing else, and an existing file keeps its permissions.
/// With `durable`, the file's bytes are on the disk before it takes the
/// name (see [`Staged::durable`]).
pub(crate) fn write_staged<T>(
    path: &Path,
    durable: bool,
    write: impl FnOnce(&mut File) -> Result<T, SourceError>,
) -> Result<T, SourceError> {
    let mut staged = Staged::new(path)?;
    let done = write(staged.file_mut())?;
    staged.durable = durable;
    staged.commit()?;
    Ok(done)
}

/// A file the user named (`-o`, a link report), written as a run goes,
/// that takes its name only when the run succeeded: until
/// [`Staged::commit`], it has no name (or a hidden one, where the system
/// cannot do without), and nothing is left if the run fails or is
/// interrupted.
///
/// A symbolic link at the name is followed, so that the file it names gets
/// the bytes and the link stays a link: the user named it, as with `>`.
/// (The trees a run writes, `--out-dir` and a site in place, never follow
/// one.) What is not a regular file (`/dev/null`, a FIFO, a socket) is
/// written as it is, as `>` does: renamed over, it would be replaced by a
/// regular file (as root, `/dev/null` itself).
#[doc(hidden)]
pub struct Staged {
    target: Target,
    path: PathBuf,
    /// Made durable (fsync) before it takes the name, so that after a
    /// power loss the name holds the old bytes or the new, never an empty
    /// file. Staging alone already keeps an interrupted or failed run from
    /// leaving a half-written file; a site of thousands of files spends
    /// most of its time waiting on these (3.5× the wall time on 300 corpus
    /// pages), so there it is asked for with `--fsync`, as rsync does.
    pub durable: bool,
}

/// Where a staged file's bytes go.
enum Target {
    /// A file staged in the real one's directory, put in its place at the
    /// end.
    Staging(Staging),
    /// A file that is not a regular one, written as it is.
    Special(File),
}

impl Staged {
    pub fn new(path: &Path) -> Result<Self, SourceError> {
        let fail = |e| SourceError::Write(quoted(path), e);
        let real = followed(path);
        let target = match std::fs::metadata(&real) {
            Ok(m) if !m.is_file() && !m.is_dir() => {
                Target::Special(File::options().write(true).open(&real).map_err(fail)?)
            }
            _ => {
                // `-o dir/..` or `-o /`: no name to put a file at.
                let name = real
                    .file_name()
                    .ok_or_else(|| fail(rustix::io::Errno::ISDIR.into()))?;
                let dir = Dir::open(real.parent().unwrap_or(Path::new("."))).map_err(fail)?;
                Target::Staging(Staging::new(&dir, name).map_err(fail)?)
            }
        };
        Ok(Staged {
            target,
            path: path.to_owned(),
            durable: true,
        })
    }

    fn file_mut(&mut self) -> &mut File {
        match &mut self.target {
            Target::Staging(staging) => staging.file_mut(),
            Target::Special(file) => file,
        }
    }

    /// A writer to it.
    pub fn writer(&self) -> Result<File, SourceError> {
        match &self.target {
            Target::Staging(staging) => staging.file().try_clone(),
            Target::Special(file) => file.try_clone(),
        }
        .map_err(|e| SourceError::Write(quoted(&self.path), e))
    }

    /// Puts it in its place; an existing file's permissions stay.
    pub fn commit(self) -> Result<(), SourceError> {
        match self.target {
            Target::Staging(staging) => staging
                .commit(None, self.durable)
                .map_err(|e| SourceError::Write(quoted(&self.path), e)),
            Target::Special(_) => Ok(()),
        }
    }
}

/// `path`, its last component's symbolic links followed (as many as the
/// kernel follows, 40), dangling or not: where `> path` would write.
pub(crate) fn followed(path: &Path) -> PathBuf {
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
