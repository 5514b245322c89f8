//! Glue: flags in, a run of the library, messages and exit status out.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::Path;
use std::process::ExitCode;

use clap::Parser;
use htmlabs::cli::Cli;
use htmlabs::{Error, Report, Warning};

/// 0 success; 1 is kept for a check mode; 2 any error.
const FAILURE: u8 = 2;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(&cli) {
        Ok(report) => {
            for warning in &report.warnings {
                // Stopping at the memory limit fails the run: say why even
                // under -q.
                let fails = matches!(warning, Warning::MemoryLimit { .. });
                if !cli.quiet || fails {
                    eprintln!("htmlabs: warning: {warning}");
                }
            }
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
        // The reader of our output went away (`| head`): nothing is wrong.
        Err(Failure::Write(_, e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("htmlabs: error: {failure}");
            ExitCode::from(FAILURE)
        }
    }
}

#[derive(Debug, thiserror::Error)]
enum Failure {
    #[error(transparent)]
    Config(#[from] htmlabs::cli::ConfigError),
    #[error("cannot open `{0}`: {1}")]
    Open(String, String),
    #[error("cannot read {0}: {1}")]
    Read(String, String),
    #[error("cannot write {0}: {msg}", msg = lowercase(.1))]
    Write(String, io::Error),
    #[error("cannot parse {0}: {1}")]
    Parse(String, String),
    #[error("cannot rewrite {0}: {1}")]
    Encoding(String, String),
}

/// io errors read "No such file or directory (os error 2)"; ours are lowercase.
fn lowercase(e: &impl std::fmt::Display) -> String {
    let s = e.to_string();
    let mut chars = s.chars();
    chars
        .next()
        .map(|c| c.to_lowercase().chain(chars).collect())
        .unwrap_or_default()
}

fn run(cli: &Cli) -> Result<Report, Failure> {
    let config = cli.config()?;
    let (input, input_name): (Box<dyn Read>, String) = match cli.input() {
        Some(path) => {
            let name = format!("`{}`", path.display());
            let file = File::open(path)
                .map_err(|e| Failure::Open(path.display().to_string(), lowercase(&e)))?;
            (Box::new(file), name)
        }
        None => (Box::new(io::stdin().lock()), "standard input".to_owned()),
    };
    let fail = |output_name: String| {
        move |e: Error| match e {
            Error::Read(e) => Failure::Read(input_name.clone(), lowercase(&e)),
            Error::Write(e) => Failure::Write(output_name.clone(), e),
            Error::Parse(e) => Failure::Parse(input_name.clone(), lowercase(&e)),
            Error::Encoding(e) => Failure::Encoding(input_name.clone(), e),
        }
    };
    match &cli.output {
        None => {
            let stdout = io::stdout().lock();
            let report =
                htmlabs::rewrite(config, input, stdout).map_err(fail("standard output".into()))?;
            io::stdout()
                .flush()
                .map_err(|e| Failure::Write("standard output".into(), e))?;
            Ok(report)
        }
        Some(path) => write_through_temporary(path, |file| {
            htmlabs::rewrite(config, input, file).map_err(fail(format!("`{}`", path.display())))
        }),
    }
}

/// Writes `path` by way of a temporary file beside it, renamed over it only
/// when `write` succeeded: a failed run leaves no half-written file, and an
/// existing file keeps its permissions.
fn write_through_temporary(
    path: &Path,
    write: impl FnOnce(&mut File) -> Result<Report, Failure>,
) -> Result<Report, Failure> {
    let name = || format!("`{}`", path.display());
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix(".htmlabs-");
    // tempfile makes its files 0600; a new output gets what `> FILE` would
    // give it (0666 less the umask), an existing one keeps its own below.
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
    let mut temporary = builder
        .tempfile_in(dir)
        .map_err(|e| Failure::Write(name(), without_path(e)))?;
    let report = write(temporary.as_file_mut())?;
    if let Ok(existing) = std::fs::metadata(path) {
        temporary
            .as_file()
            .set_permissions(existing.permissions())
            .map_err(|e| Failure::Write(name(), e))?;
    }
    temporary
        .as_file()
        .sync_all()
        .map_err(|e| Failure::Write(name(), e))?;
    temporary
        .persist(path)
        .map_err(|e| Failure::Write(name(), without_path(e.error)))?;
    Ok(report)
}

/// tempfile's errors end with ` at path "…"`, naming the temporary file the
/// user never gave; the message names the output file instead.
/// (Its wrapper hides the OS error from `source()`, so the text is all
/// there is to go by.)
fn without_path(e: io::Error) -> io::Error {
    let message = e.to_string();
    match message.rfind(" at path \"") {
        Some(at) => io::Error::new(e.kind(), &message[..at]),
        None => e,
    }
}
