//! Compressed bytes are not written to a terminal, as gzip refuses to: an
//! archive's run whose output would be gzip or zstd (the input's own
//! compression), or a saved response's whose body comes out in its coding
//! (`gzip`, `br`), on standard output, when that is a terminal, is refused
//! before the run reads anything, with what to do instead.

use std::fs::File;
use std::io::{self, BufRead, IsTerminal, Read};

use htmlabs::SourceError;
use htmlabs::internal::warc;
use htmlabs::run::Job;
use htmlabs::run::{Input, Output};

/// Refuses `job` when it would write compressed bytes to standard output
/// and standard output is a terminal (`check`: the run writes none).
pub fn refuse_compressed(job: &Job, check: bool, strip_headers: bool) -> Result<(), SourceError> {
    let line = match job {
        Job::Warc {
            input,
            output: Output::Stdout,
        } if !check && io::stdout().is_terminal() => {
            refusal(&input.name(), warc::compression(&first_bytes(input, 4)))
        }
        // With its headers stripped, a body comes out decoded.
        Job::Http {
            input,
            output: Output::Stdout,
        } if !check && !strip_headers && io::stdout().is_terminal() => {
            let codings = htmlabs::internal::body_codings(&first_bytes(input, 64 * 1024));
            response_refusal(&input.name(), &codings)
        }
        _ => None,
    };
    match line {
        Some(line) => Err(SourceError::Refused(line)),
        None => Ok(()),
    }
}

/// The line that refuses a response read from `input` whose body comes
/// out in `codings` to a terminal; none when it comes out as text.
pub fn response_refusal(input: &str, codings: &[String]) -> Option<String> {
    let coding = codings.first()?;
    Some(format!(
        "compressed data not written to a terminal: the body of the response in {input} comes out in its coding, `{}`: give --strip-headers for the document decoded, -o FILE, or redirect standard output",
        htmlabs::internal::names::shown(coding.as_bytes())
    ))
}

/// The line that refuses an archive read from `input` (as a message names
/// it) and written in `compression` to a terminal; none when it is not
/// compressed.
pub fn refusal(input: &str, compression: Option<&str>) -> Option<String> {
    let compression = compression?;
    let extension = match compression {
        "zstd" => "zst",
        _ => "gz",
    };
    Some(format!(
        "compressed data not written to a terminal: the archive from {input} comes out in {compression}: give -o FILE, or redirect standard output (`> out.warc.{extension}`)"
    ))
}

/// The input's first bytes, enough to tell its compression, without
/// taking them from the run: a regular file's, read apart; standard
/// input's, left in its buffer for the run to read (none from a terminal,
/// where they are yet to be typed). None where they cannot be told so (a
/// FIFO named as FILE: what is read from it is gone).
fn first_bytes(input: &Input, most: usize) -> Vec<u8> {
    let mut first = Vec::new();
    match input {
        Input::File(path) if path.metadata().is_ok_and(|m| m.is_file()) => {
            if let Ok(file) = File::open(path) {
                let _ = file.take(most as u64).read_to_end(&mut first);
            }
        }
        Input::Stdin if !io::stdin().is_terminal() => {
            if let Ok(buffered) = io::stdin().lock().fill_buf() {
                first.extend_from_slice(&buffered[..buffered.len().min(most)]);
            }
        }
        _ => {}
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_compressed_output_is_refused_naming_what_to_give() {
        assert_eq!(refusal("`a.warc`", None), None);
        assert_eq!(
            refusal("`a.warc.gz`", Some("gzip")).as_deref(),
            Some(
                "compressed data not written to a terminal: the archive from `a.warc.gz` comes out in gzip: give -o FILE, or redirect standard output (`> out.warc.gz`)"
            )
        );
        assert!(
            refusal("standard input", Some("zstd"))
                .is_some_and(|line| line.ends_with("(`> out.warc.zst`)"))
        );
    }
}
