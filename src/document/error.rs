//! What stops a document's rewrite.

use std::io;

#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    #[error("cannot read the input: {0}")]
    Read(#[source] io::Error),
    #[error("cannot write the output: {0}")]
    Write(#[source] io::Error),
    #[error("cannot parse the input: {0}")]
    Parse(String),
    #[error("{0}")]
    Encoding(String),
}

impl Error {
    /// The error for a document in an encoding whose bytes are not
    /// ASCII-compatible, other than UTF-16.
    pub(crate) fn unsupported(encoding: &'static encoding_rs::Encoding) -> Self {
        Error::Encoding(format!(
            "`{}` cannot be rewritten in place (its bytes are not ASCII-compatible); convert the page to UTF-8 first",
            encoding.name()
        ))
    }

    /// The error of a rewriter that failed before and cannot go on.
    pub(crate) fn failed_before() -> Self {
        Error::Write(io::Error::other(
            "the rewriter failed before and cannot go on",
        ))
    }
}
