//! Glue: flags in, a run of the library, messages and exit status out.

use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;
use htmlabs::cli::Cli;
use htmlabs::{filter, warc};

/// 0 success; 1 is kept for a check mode; 2 any error.
const FAILURE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let config = match cli.config() {
        Ok(config) => config,
        Err(e) => return fail(e),
    };
    let quiet = cli.quiet;
    if let Some(options) = cli.warc() {
        return archive(&cli, &config, &options);
    }
    // Each warning as it happens. Stopping at the memory limit fails the
    // run: that one is said even under -q.
    let tell = move |warning: &htmlabs::http::Warning| {
        if !quiet || warning.stops_rewriting() {
            eprintln!("htmlabs: warning: {warning}");
        }
    };
    match filter::run(config, cli.http(), &cli.input(), &cli.output(), tell) {
        Ok(report) => {
            if cli.verbose {
                for line in report.verbose_lines() {
                    eprintln!("htmlabs: {line}");
                }
            }
            if report.incomplete() {
                ExitCode::from(FAILURE)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

/// `--warc`: each warning as it happens, the summary line at the end.
fn archive(cli: &Cli, config: &htmlabs::Config, options: &warc::Options) -> ExitCode {
    let quiet = cli.quiet;
    let tell = |warning: &warc::Warning| {
        if !quiet || warning.stops_rewriting() {
            eprintln!("htmlabs: warning: {warning}");
        }
    };
    let started = Instant::now();
    match warc::run(config, options, &cli.input(), &cli.output(), tell) {
        Ok(summary) => {
            if !quiet {
                eprintln!("htmlabs: {}", summary.line(started.elapsed()));
            }
            if summary.incomplete {
                ExitCode::from(FAILURE)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => fail(e),
    }
}

fn fail(e: impl std::fmt::Display) -> ExitCode {
    eprintln!("htmlabs: error: {e}");
    ExitCode::from(FAILURE)
}
