//! Glue: flags in, a run of the library, messages and exit status out.

mod cli;

use std::io::{self, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::time::Instant;

use cli::{ArchiveProgress, Cli, Job, Progress};
use htmlabs::listing::{Listing, file_place, record_place};
use htmlabs::names;
use htmlabs::site::{self, Outputs};
use htmlabs::{SourceError, Staged, filter, warc};

/// 0 success; 1 a check that found links to change; 2 any error; 128 and
/// the signal's number for a run that a signal ended, as a shell reports
/// it (130 Ctrl-C, SIGINT; 143 SIGTERM).
const CHANGES: u8 = 1;
const FAILURE: u8 = 2;
const SIGNALLED: u8 = 128;

fn main() -> ExitCode {
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
    let refused = |e: htmlabs::request::ConfigError| SourceError::Refused(e.to_string());
    let config = Arc::new(cli.config().map_err(refused)?);
    let layers = cli.request().layers().map_err(refused)?;
    let job = cli.job(&config)?;
    let stop = Arc::new(AtomicBool::new(false));
    let signal = Arc::new(AtomicI32::new(0));
    on_signal(matches!(job, Job::Site(_)), &stop, &signal);
    // The link report goes to a file only once the run is through.
    let staged = match &cli.report {
        Some(path) if path.as_os_str() != "-" => Some(Staged::new(path)?),
        _ => None,
    };
    let report_name = |staged: &Option<Staged>| match (&cli.report, staged) {
        (Some(path), Some(_)) => names::quoted(path),
        _ => "standard output".to_owned(),
    };
    let code = match job {
        Job::Filter { input, output } => {
            let listing = (cli.check || cli.report.is_some()).then(|| {
                let name = match &input {
                    filter::Input::File(path) => path.as_path(),
                    filter::Input::Stdin => Path::new("-"),
                };
                let report = match &staged {
                    Some(staged) => staged.writer().map(|f| Box::new(f) as Box<dyn Write>),
                    None => Ok(Box::new(io::stdout()) as Box<dyn Write>),
                };
                report.map(|report| {
                    Listing::new(
                        name.as_os_str().as_encoded_bytes().to_vec(),
                        file_place(name),
                        cli.check.then(|| check_lines(cli)),
                        cli.report.is_some().then(|| (report, report_name(&staged))),
                    )
                })
            });
            let listing = listing.transpose()?;
            let quiet = cli.quiet;
            // Each warning as it happens. Stopping at the memory limit
            // fails the run: that one is said even under -q.
            let tell = move |warning: &htmlabs::http::Warning| {
                if !quiet || warning.stops_rewriting() {
                    eprintln!("htmlabs: warning: {warning}");
                }
            };
            let name = input.name();
            let done = filter::run(config, layers, cli.http(), &input, &output, tell, listing)?;
            if cli.check && done.report.has_no_base() {
                // A check that cannot judge does not pass.
                return Err(SourceError::Refused(format!(
                    "cannot check {name}: it has no base URL (no `<base href>`, no --retrieved-from), so no link can be judged: give -r URL"
                )));
            }
            if cli.verbose {
                for line in done.report.verbose_lines() {
                    eprintln!("htmlabs: {line}");
                }
            }
            if done.report.incomplete() {
                FAILURE
            } else if cli.check && done.changes > 0 {
                CHANGES
            } else {
                0
            }
        }
        Job::Warc {
            input,
            output,
            mut options,
        } => {
            let quiet = cli.quiet;
            let total = match &input {
                filter::Input::File(path) => std::fs::metadata(path).ok().map(|m| m.len()),
                filter::Input::Stdin => None,
            };
            let progress = ArchiveProgress::new(quiet, total);
            options.progress = progress.counters();
            let tell = |warning: &warc::Warning| {
                if !quiet || warning.stops_rewriting() {
                    progress.say(format!("htmlabs: warning: {warning}"));
                }
            };
            let mut listing = (cli.check || cli.report.is_some())
                .then(|| {
                    let report = match &staged {
                        Some(staged) => staged.writer().map(|f| Box::new(f) as Box<dyn Write>),
                        None => Ok(Box::new(io::stdout()) as Box<dyn Write>),
                    };
                    report.map(|report| {
                        Listing::new(
                            Vec::new(),
                            Default::default(),
                            cli.check.then(|| check_lines(cli)),
                            cli.report.is_some().then(|| (report, report_name(&staged))),
                        )
                    })
                })
                .transpose()?;
            // Each record's links, named by its ID (check lines) and placed
            // by its ID and target URI (the report).
            let mut hear = |record: &warc::Named, link: &htmlabs::Link| {
                if let Some(listing) = &mut listing {
                    if listing.name() != record.id.as_bytes() {
                        listing.document(
                            record.id.clone().into_bytes(),
                            record_place(&record.id, &record.target),
                        );
                    }
                    listing.hear(link);
                }
            };
            let hear = (cli.check || cli.report.is_some())
                .then_some(&mut hear as &mut dyn FnMut(&warc::Named, &htmlabs::Link));
            let started = Instant::now();
            let summary = warc::run_listening(&config, &options, &input, &output, tell, hear);
            progress.finish();
            let summary = summary?;
            if !quiet {
                eprintln!("htmlabs: {}", summary.line(started.elapsed()));
            }
            let changes = match &mut listing {
                Some(listing) => {
                    listing
                        .finish()
                        .map_err(|(name, e)| SourceError::Write(name, e))?;
                    listing.changes
                }
                None => 0,
            };
            if summary.incomplete {
                FAILURE
            } else if cli.check && changes > 0 {
                CHANGES
            } else {
                0
            }
        }
        Job::Site(site) => {
            let report = match &staged {
                Some(staged) => {
                    Some(staged.writer()?).map(|f| Box::new(f) as Box<dyn Write + Send>)
                }
                None if cli.report.is_some() => {
                    Some(Box::new(io::stdout()) as Box<dyn Write + Send>)
                }
                None => None,
            };
            let outputs = Outputs {
                check: cli.check.then(|| -> Box<dyn Write + Send> {
                    if cli.report_to_stdout() {
                        Box::new(io::stderr())
                    } else {
                        Box::new(io::stdout())
                    }
                }),
                report: report.map(|r| (r, report_name(&staged))),
            };
            let progress = Progress::new(cli.quiet, cli.verbose);
            let summary = site::run(&site, &config, outputs, &stop, &|e| progress.event(e))?;
            progress.finish(&summary, cli.check, cli.out_dir.as_deref());
            if summary.interrupted {
                SIGNALLED + signal.load(Ordering::SeqCst) as u8
            } else if summary.failed > 0 || summary.errors > 0 {
                FAILURE
            } else if cli.check && summary.changes > 0 {
                CHANGES
            } else {
                0
            }
        }
    };
    // An interrupted run's report is not whole: it is not kept.
    if let (Some(staged), false) = (staged, code > SIGNALLED) {
        staged.commit()?;
    }
    Ok(ExitCode::from(code))
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
                htmlabs::source::output::abandon();
                std::process::exit(i32::from(SIGNALLED) + signal);
            }
        }
    });
}

/// Where `--check` lines go: standard output, or standard error when the
/// link report has it (`--check --report -`).
fn check_lines(cli: &Cli) -> Box<dyn Write> {
    if cli.report_to_stdout() {
        Box::new(io::stderr())
    } else {
        Box::new(io::stdout())
    }
}
