//! A source: web archives (ISO 28500, WARC 1.0 and 1.1), plain, gzip or
//! zstd (`.warc.zst`).
//! Each HTML response record is one document: its HTTP block goes through
//! [`http`](crate::http) (§3.2's fields, the charset, the codings), its
//! `WARC-Target-URI` is the retrieval URL (§3.3).
//!
//! The reader and writer are our own. The `warc` crate (0.4) keeps a
//! record's header in a `HashMap`: the fields' order, case and repeats are
//! lost, folded lines are refused, and gzip members' offsets are not
//! given, so it cannot copy a record as it came nor say where one starts.
//! Here a header is kept as its bytes (`header`), and gzip is read one
//! member at a time over flate2 (`input`; zstd one frame at a time,
//! `zst`), every byte read copied out as it came (an unchanged record is
//! its compressed member, never recompressed).
//!
//! With jobs, three kinds of thread: the pool inflates (a gzip input cut
//! where its members may start, `input::segments`) and rewrites; one
//! thread reads for all (frames the records, hands out their work, settles
//! them in order); one writes (`output::behind`).
//!
//! The way through: `input` (units and records, their places) →
//! `header` → `convert` (the run: records read, their
//! work handed out, the units settled in order through `order`) →
//! `work` (one record: its digests, its page, its new record, with
//! `digest` and `write`) → `report`.

pub(crate) mod capture;
pub(crate) mod captures;
pub(crate) mod check;
pub(crate) mod convert;
pub(crate) mod digest;
pub(crate) mod header;
pub(crate) mod input;
pub(crate) mod order;
pub(crate) mod records;
pub(crate) mod report;
pub mod tree;
pub(crate) mod work;
pub(crate) mod write;
pub(crate) mod zst;

pub use capture::{Listed, list as list_captures, url_key};
pub use check::CaptureTally;
use convert::{Checking, convert_to};
pub use convert::{Error, Options, convert};
pub(crate) use input::{PEEK, starts_like_archive};
pub use input::{Place, compression};
pub use report::{ArchiveTally, ArchiveWarning, Named};
pub use work::Mode;

use std::io::BufWriter;
use std::sync::Arc;
use std::time::Instant;

use rustix::time::ClockId;

use crate::document::config::Config;
use crate::source::listener::Listener;
use crate::source::output::behind::writing_cpu;
use crate::source::output::{self, Input, Output, SourceError, lowercase};
use crate::source::summary::Summary;
use report::{cpu, reading_share};

/// Rewrites the archive `input` names into `output` (standard output, a
/// writer, or a file through a temporary file renamed at the end),
/// telling `listener` what happens, in input order; what it did, at the
/// end. With `checking`, an archive's link check's second pass
/// ([`Checking`]).
pub(crate) fn run(
    config: &Arc<Config>,
    options: &Options,
    input: Input,
    output: Output,
    listener: &dyn Listener,
    checking: Option<Checking<'_>>,
) -> Result<Summary, SourceError> {
    let started = Instant::now();
    let before = (
        cpu(ClockId::ThreadCPUTime),
        cpu(ClockId::ProcessCPUTime),
        writing_cpu(),
    );
    let check = matches!(output, Output::Discard);
    let tally = convert_input(config, options, input, output, listener, checking)?;
    let mut details = Vec::new();
    if options.jobs > 1 {
        details.push(reading_share(
            cpu(ClockId::ThreadCPUTime) - before.0,
            writing_cpu() - before.2,
            cpu(ClockId::ProcessCPUTime) - before.1,
        ));
    }
    Ok(tally.summary(check, started.elapsed(), details))
}

/// [`run`]'s conversion, `input` into `output`.
fn convert_input(
    config: &Arc<Config>,
    options: &Options,
    input: Input,
    output: Output,
    listener: &dyn Listener,
    checking: Option<Checking<'_>>,
) -> Result<ArchiveTally, SourceError> {
    let input_name = input.name();
    let reader = input.open()?;
    // Going nowhere, the new records are not made at all.
    let write = !matches!(output, Output::Discard);
    output::write_to(output, |out, output_name| {
        let out = BufWriter::with_capacity(64 * 1024, out);
        let converted = convert_to(config, options, reader, out, listener, write, checking);
        let (tally, out) = converted.map_err(|e| match e {
            Error::Read(e) => SourceError::Read(input_name.clone(), lowercase(&e)),
            Error::Write(e) => SourceError::Write(output_name.to_owned(), e),
            Error::NotWarc(why) => {
                SourceError::Refused(format!("{input_name} is not a WARC file ({why})"))
            }
            Error::Level { flag, needs, is } => SourceError::Refused(format!(
                "{flag} needs a {needs} archive, and {input_name} is {is}: without one, it would do nothing"
            )),
        })?;
        // Its bytes written out; the output itself is flushed by its end.
        out.into_inner()
            .map_err(|e| SourceError::Write(output_name.to_owned(), e.into_error()))?;
        Ok(tally)
    })
}
