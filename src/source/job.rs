//! What to run: a source, and where its documents come from and go.

use crate::source::output::{Input, Output};
use crate::source::site::Site;
use std::path::PathBuf;

/// What to run: a source, and where its documents come from and go.
#[derive(Debug)]
pub enum Job {
    /// One page, from a file or standard input (the filter).
    Page { input: Input, output: Output },
    /// One saved HTTP response around a page (`--http`).
    Http { input: Input, output: Output },
    /// A static site's tree (`--site`); its jobs and whether it is a check
    /// come from the request.
    Site(Site),
    /// A web archive (`--warc`).
    Warc { input: Input, output: Output },
    /// A web archive made a browsable tree (`--warc ARCHIVE --out-dir
    /// DIR`): read twice, so a file.
    Tree { archive: PathBuf, out_dir: PathBuf },
    /// A web archive's links checked against its captures (`--warc
    /// ARCHIVE --check-links`): read twice, so a file; nothing written.
    ArchiveLinks { archive: PathBuf },
}
