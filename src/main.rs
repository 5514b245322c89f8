//! Glue: flags in, a run of the library, messages and exit status out.

#![deny(unsafe_code)]

mod cli;

use std::io::{self, BufWriter, IsTerminal, LineWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use cli::{ArchiveBar, Bar, Cli, Said};
use htmlabs::SourceError;
use htmlabs::internal::listing::{CheckLines, Listing};
use htmlabs::internal::names;
use htmlabs::internal::output::Staged;
use htmlabs::internal::plan::Plan;
use htmlabs::run::Job;
use htmlabs::run::{Input, Output};

/// 0 success; 1 a check that found links to change; 2 any error; 128 and
/// the signal's number for a run that a signal ended, as a shell reports
/// it (130 Ctrl-C, SIGINT; 143 SIGTERM).
const CHANGES: u8 = 1;
const FAILURE: u8 = 2;
const SIGNALLED: u8 = 128;

fn main() -> ExitCode {
    cli::allocator::give_back_freed_memory();
    let cli = Cli::parse_checked();
    match cli.and_then(|cli| run(&cli)) {
        Ok(code) => code,
        // The reader of our output went away (`| head`): nothing is wrong.
        Err(e) if e.is_broken_pipe() => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("htmlabs: error: {e}");
            ExitCode::from(FAILURE)
        }
    }
}

fn run(cli: &Cli) -> Result<ExitCode, SourceError> {
    if let Some(what) = cli.generate {
        let name = "standard output";
        let mut out = io::stdout().lock();
        what.write(&mut out)
            .and_then(|()| out.flush())
            .map_err(|e| SourceError::Write(name.to_owned(), e))?;
        return Ok(ExitCode::SUCCESS);
    }
    on_file_size_limit();
    let request = cli.request();
    // Every path the run writes, checked against every input and each
    // other before anything is read or written: the job's, then the
    // report's, then standard output (the check lines).
    let mut plan = Plan::new(cli.job(&request)?, request.check)?;
    if let Some(report) = &cli.report {
        plan.report(report)?;
    }
    if let Some(seeds) = &cli.seeds {
        plan.seeds(seeds)?;
    }
    // An archive saved as a tree lists its URLs there.
    let lists = matches!(plan.job(), Job::Tree { .. });
    if cli.check || cli.check_links || cli.report_to_stdout() || lists {
        plan.stdout()?;
    }
    let job = plan.job();
    cli::refuse_compressed(job, cli.check, cli.strip_headers)?;
    let stop = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicI32::new(0));
    if stages_a_file(cli, job) {
        on_signal(matches!(job, Job::Site(_)), &stop, &signal);
    }
    // The link report and the seeds go to their files only once the run
    // is through.
    let staged = match &cli.report {
        Some(path) if path.as_os_str() != "-" => Some(Staged::new(path)?),
        _ => None,
    };
    let seeds = cli.seeds.as_deref().map(Staged::new).transpose()?;
    let mut said = Said {
        quiet: cli.quiet,
        verbose: cli.verbose,
        bar: match job {
            Job::Page { .. } | Job::Http { .. } | Job::Tree { .. } => Bar::None,
            Job::Site(_) => Bar::files(cli.quiet),
            Job::Warc { input, .. } => {
                let total = match input {
                    Input::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
                    _ => None,
                };
                Bar::Archive(ArchiveBar::new(cli.quiet, total))
            }
            // Its second pass tells how far it has read.
            Job::ArchiveLinks { archive } => {
                let total = std::fs::metadata(archive).ok().map(|m| m.len());
                Bar::Archive(ArchiveBar::new(cli.quiet, total))
            }
        },
        listing: listing(cli, staged.as_ref())?,
    };
    let started = std::time::Instant::now();
    let summary = htmlabs::internal::run_planned(&request, plan, &said, &stop);
    said.bar.finish();
    let mut summary = summary?;
    let archive = summary.tally.get::<htmlabs::internal::warc::ArchiveTally>();
    if let (true, Some(tally)) = (cli.links, archive) {
        // Nothing was rewritten nor added: what was read, and listed.
        summary.line = Some(tally.links_line(started.elapsed()));
    }
    if let Some(listing) = &said.listing {
        listing.finish()?;
    }
    if let (false, Some(line)) = (cli.quiet, &summary.line) {
        eprintln!("htmlabs: {line}");
    }
    if cli.verbose {
        for line in &summary.details {
            eprintln!("htmlabs: {line}");
        }
    }
    let code = if summary.interrupted {
        SIGNALLED + signal.load(Ordering::SeqCst) as u8
    } else if summary.incomplete {
        FAILURE
    } else if (cli.check && summary.changes > 0) || broken_links(&summary) > 0 {
        CHANGES
    } else {
        0
    };
    // An interrupted run's report is not whole: it is not kept. A run
    // that failed (2) went through, and its report says only what was
    // written (a value of a document left as it was is `left`): kept.
    let captures = summary.tally.get::<htmlabs::internal::warc::CaptureTally>();
    if let (Some(staged), Some(path), Some(captures), false) =
        (seeds, &cli.seeds, captures, code > SIGNALLED)
    {
        write_seeds(&staged, path, &captures.seeds)?;
        staged.commit()?;
    }
    if let (Some(staged), false) = (staged, code > SIGNALLED) {
        staged.commit()?;
    }
    Ok(ExitCode::from(code))
}

/// The seeds of an archive's link check, a URL a line: a byte that would
/// cut a line or a URL (a control character, a space) percent-encoded, as
/// a crawler asks for it.
fn write_seeds(staged: &Staged, path: &Path, seeds: &[String]) -> Result<(), SourceError> {
    let failed = |e| SourceError::Write(names::quoted(path), e);
    let mut out = BufWriter::new(staged.writer()?);
    let mut line = Vec::new();
    for url in seeds {
        line.clear();
        for &b in url.as_bytes() {
            match b {
                0..=0x20 | 0x7f => line.extend_from_slice(format!("%{b:02X}").as_bytes()),
                b => line.push(b),
            }
        }
        line.push(b'\n');
        out.write_all(&line).map_err(failed)?;
    }
    out.flush().map_err(failed)
}

/// The links `--check-links` found broken: a site's, or an archive's.
fn broken_links(summary: &htmlabs::run::Summary) -> usize {
    let site = summary.tally.get::<htmlabs::internal::site::SiteTally>();
    let archive = summary.tally.get::<htmlabs::internal::warc::CaptureTally>();
    site.and_then(|tally| tally.links.as_ref())
        .map_or(0, |links| links.broken)
        + archive.map_or(0, |tally| tally.broken())
}

/// The check lines (`--check`: to standard output, or to standard error
/// when the link report has it, `--report -`) and the link report
/// (`--report`: to its staged file, or standard output).
fn listing(cli: &Cli, staged: Option<&Staged>) -> Result<Option<Listing>, SourceError> {
    let check = cli.check || cli.check_links;
    if !check && !cli.report_to_stdout() && cli.report.is_none() {
        return Ok(None);
    }
    let lines = match cli.check_links {
        true => CheckLines::Broken,
        false => CheckLines::Changes,
    };
    // Line by line to a terminal, where they are read as they come; in
    // blocks to a pipe or a file (a write each was a tenth of a link
    // check's time on a site of many broken links).
    fn lines_to<W: Write + IsTerminal + Send + 'static>(w: W) -> Box<dyn Write + Send> {
        match w.is_terminal() {
            true => Box::new(LineWriter::new(w)),
            false => Box::new(BufWriter::new(w)),
        }
    }
    let check = check.then(|| -> (Box<dyn Write + Send>, CheckLines) {
        if cli.report_to_stdout() {
            (lines_to(io::stderr()), lines)
        } else {
            (lines_to(io::stdout()), lines)
        }
    });
    let report = match (&cli.report, staged) {
        (Some(path), Some(staged)) => Some((
            Box::new(BufWriter::new(staged.writer()?)) as Box<dyn Write + Send>,
            names::quoted(path),
        )),
        _ if cli.report_to_stdout() => Some((
            Box::new(BufWriter::new(io::stdout())) as Box<dyn Write + Send>,
            "standard output".to_owned(),
        )),
        _ => None,
    };
    Ok(Some(Listing::new(check, report)))
}

/// SIGXFSZ, sent when a write would pass the largest file the process may
/// write (`ulimit -f`), ends it by default with nothing said (status 153),
/// its staged output under a hidden name left behind. Caught, it does
/// nothing, and the write fails with EFBIG instead: an error like a full
/// disk's, one line, the staged output dropped.
fn on_file_size_limit() {
    let caught = Arc::new(AtomicBool::new(false));
    let _ = signal_hook::flag::register(signal_hook::consts::SIGXFSZ, caught);
}

/// Whether the run writes a file that a signal must take away (`-o`, the
/// link report, a site, an archive's output). One page or response to
/// standard output stages nothing: a signal ends it as it ends `cat` (and a
/// shell's loop over pages stops on Ctrl-C), and the thread that listens
/// for signals is not started: a thread and a socket pair fewer at start.
fn stages_a_file(cli: &Cli, job: &Job) -> bool {
    let report = cli
        .report
        .as_ref()
        .is_some_and(|path| path.as_os_str() != "-");
    let to_stdout = matches!(
        job,
        Job::Page {
            output: Output::Stdout | Output::Discard,
            ..
        } | Job::Http {
            output: Output::Stdout | Output::Discard,
            ..
        }
    );
    report || !to_stdout
}

/// SIGINT (Ctrl-C) and SIGTERM: a site's run (`between_files`) stops
/// between files, each file being written finished, and tells `signal`
/// which came; any other run ends at once with 128 and its number, its
/// staged output removed (output staged with no name goes with the
/// process), the file it was to replace as it was.
fn on_signal(between_files: bool, stop: &Arc<AtomicBool>, signal: &Arc<AtomicI32>) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM]) else {
        return;
    };
    let (stop, received) = (Arc::clone(stop), Arc::clone(signal));
    std::thread::spawn(move || {
        for signal in signals.forever() {
            if between_files {
                received.store(signal, Ordering::SeqCst);
                stop.store(true, Ordering::SeqCst);
            } else {
                htmlabs::internal::output::abandon();
                std::process::exit(i32::from(SIGNALLED) + signal);
            }
        }
    });
}
