//! A source's error, and how its line reads.

use std::io;

use super::{lowercase, write_error};
use crate::document::error::Error;

/// A source's error: the engine's, or its own I/O's, naming the file or
/// stream it concerns. The `Display` is the one line the user reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SourceError {
    #[error("cannot open `{0}`: {1}")]
    Open(String, String),
    #[error("cannot read {0}: {1}")]
    Read(String, String),
    #[error("cannot write {0}: {msg}", msg = write_error(.1))]
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
