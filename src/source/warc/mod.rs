//! A source: web archives (ISO 28500, WARC 1.0 and 1.1), plain, gzip or
//! zstd (`.warc.zst`).
//! Each HTML response record is one document: its HTTP block goes through
//! [`http`](crate::source::http) (§3.2's fields, the charset, the codings), its
//! `WARC-Target-URI` is the retrieval URL (§3.3).
//!
//! The reader and writer are our own. The `warc` crate (0.4) keeps a
//! record's header in a `HashMap`: the fields' order, case and repeats are
//! lost, folded lines are refused, and gzip members' offsets are not
//! given, so it cannot copy a record as it came nor say where one starts.
//! Here a header is kept as its bytes ([`header`]), and gzip is read one
//! member at a time over flate2 ([`input`]; zstd one frame at a time,
//! [`zst`]), every byte read copied out as it came (an unchanged record is
//! its compressed member, never recompressed).
//!
//! The way through: [`input`] (units and records, their places) →
//! [`header`] → [`convert`](mod@convert) (the run: records read, their
//! work handed out, the units settled in order through [`order`]) →
//! [`work`] (one record: its digests, its page, its new record, with
//! [`digest`] and [`write`](mod@write)) → [`report`].

pub mod convert;
pub mod digest;
pub mod header;
pub mod input;
pub mod order;
pub mod report;
pub mod work;
pub mod write;
pub mod zst;

pub use convert::{Error, Hear, Options, convert, convert_listening};
pub use header::Header;
pub use input::{PEEK, Place, starts_like_archive};
pub use report::{Counters, Named, Summary, Warning};
pub use work::Mode;

use std::io::{self, BufWriter, Read, Write};
use std::sync::Arc;

use crate::html::config::Config;
use crate::source::output::{self, Input, Output, SourceError, lowercase, quoted};

/// Rewrites the archive `input` names into `output` (through a temporary
/// file renamed at the end, or standard output), telling each warning to
/// `tell` as it happens.
pub fn run(
    config: &Arc<Config>,
    options: &Options,
    input: &Input,
    output: &Output,
    tell: impl FnMut(&Warning),
) -> Result<Summary, SourceError> {
    run_listening(config, options, input, output, tell, None)
}

/// [`run`], letting `hear` hear each URL value of each page, in input
/// order (`--check`, `--report`).
pub fn run_listening(
    config: &Arc<Config>,
    options: &Options,
    input: &Input,
    output: &Output,
    tell: impl FnMut(&Warning),
    hear: Option<Hear<'_>>,
) -> Result<Summary, SourceError> {
    run_from(
        config,
        options,
        input.open()?,
        &input.name(),
        output,
        tell,
        hear,
    )
}

/// [`run_listening`] on an archive that `reader` gives, named `input_name`
/// in messages (a Python file object).
pub fn run_from(
    config: &Arc<Config>,
    options: &Options,
    reader: impl Read,
    input_name: &str,
    output: &Output,
    tell: impl FnMut(&Warning),
    hear: Option<Hear<'_>>,
) -> Result<Summary, SourceError> {
    // One way through for the three outputs; a run ends with a flush.
    let run = |out: &mut dyn Write, name: &str| -> Result<Summary, SourceError> {
        let out = BufWriter::with_capacity(64 * 1024, out);
        let (summary, mut out) =
            convert_named(config, options, reader, input_name, out, name, tell, hear)?;
        out.flush()
            .map_err(|e| SourceError::Write(name.to_owned(), e))?;
        Ok(summary)
    };
    match output {
        Output::Discard => run(&mut io::sink(), "nowhere"),
        Output::Stdout => run(&mut io::stdout().lock(), "standard output"),
        Output::File(path) => output::write_staged(path, true, |file| run(file, &quoted(path))),
    }
}

/// [`convert_listening`], its errors naming the input and the output as
/// messages do (`` `crawl.warc.gz` ``, `standard input`).
#[allow(clippy::too_many_arguments)]
pub fn convert_named<R: Read, W: Write>(
    config: &Arc<Config>,
    options: &Options,
    input: R,
    input_name: &str,
    output: W,
    output_name: &str,
    tell: impl FnMut(&Warning),
    hear: Option<Hear<'_>>,
) -> Result<(Summary, W), SourceError> {
    convert_listening(config, options, input, output, tell, hear).map_err(|e| match e {
        Error::Read(e) => SourceError::Read(input_name.to_owned(), lowercase(&e)),
        Error::Write(e) => SourceError::Write(output_name.to_owned(), e),
        Error::NotWarc(why) => {
            SourceError::Refused(format!("{input_name} is not a WARC file ({why})"))
        }
        Error::Level { flag, needs, is } => SourceError::Refused(format!(
            "{flag} needs a {needs} archive, and {input_name} is {is}: without one, it would do nothing"
        )),
    })
}
