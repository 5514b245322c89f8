//! What a site's or an archive's run says on standard error as it goes: a
//! progress bar when standard error is a terminal, the warnings and
//! failures naming their file or record, and the summary line at the end.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use htmlabs::source::names;
use htmlabs::source::site::{Event, Summary};
use htmlabs::source::warc::Counters;

pub struct Progress {
    bar: Mutex<Option<ProgressBar>>,
    quiet: bool,
    verbose: bool,
}

impl Progress {
    pub fn new(quiet: bool, verbose: bool) -> Self {
        Progress {
            bar: Mutex::new(None),
            quiet,
            verbose,
        }
    }

    /// Says `line` on standard error, above the bar if there is one.
    fn say(&self, line: String) {
        match &*self.bar.lock().expect("no panic while held") {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    pub fn event(&self, event: Event<'_>) {
        match event {
            Event::Found(total) => {
                if !self.quiet && std::io::stderr().is_terminal() {
                    let bar = ProgressBar::with_draw_target(
                        Some(total as u64),
                        ProgressDrawTarget::stderr(),
                    )
                    .with_style(
                        ProgressStyle::with_template(
                            "{bar:40} {pos}/{len} files, {per_sec}, {eta} left",
                        )
                        .expect("the template parses"),
                    );
                    *self.bar.lock().expect("no panic while held") = Some(bar);
                }
            }
            Event::Warning(path, warning) => {
                // Stopping at the memory limit fails the file: said even
                // under -q, by its failure.
                if !self.quiet {
                    self.say(format!(
                        "htmlabs: warning: {}: {warning}",
                        names::path(path)
                    ));
                }
            }
            Event::Failed(_, error) => self.say(format!("htmlabs: error: {error}")),
            Event::Note(path, note) => {
                if self.verbose {
                    self.say(format!("htmlabs: {}: {note}", names::path(path)));
                }
            }
            Event::Done(_) => {
                if let Some(bar) = &*self.bar.lock().expect("no panic while held") {
                    bar.inc(1);
                }
            }
        }
    }

    /// The summary line, once the run is over.
    pub fn finish(&self, summary: &Summary, check: bool, out_dir: Option<&Path>) {
        if let Some(bar) = self.bar.lock().expect("no panic while held").take() {
            bar.finish_and_clear();
        }
        if self.quiet {
            return;
        }
        let s = summary;
        let (verb, urls) = if check {
            ("would change", "would change")
        } else {
            ("rewritten", "rewritten")
        };
        let mut line = format!(
            "htmlabs: {} HTML files: {} {verb}, {} unchanged, {} failed; {} URLs {urls}; {} warnings",
            s.seen, s.rewritten, s.unchanged, s.failed, s.urls_rewritten, s.warnings
        );
        if out_dir.is_some() && !check {
            line += &format!(
                "; other files: {} hard-linked, {} copied",
                s.linked, s.copied
            );
        }
        if s.errors > s.failed {
            line += &format!("; {} other errors", s.errors - s.failed);
        }
        if s.interrupted {
            line += "; interrupted";
        }
        line += &format!("; {:.2} s", s.seconds);
        eprintln!("{line}");
    }
}

/// An archive's bar: raw bytes read of the input's size (a spinner when
/// the size is not known: standard input), records and records a second;
/// drawn by a thread of its own from the run's [`Counters`], so that the
/// run only stores two numbers a record.
pub struct ArchiveProgress {
    bar: Option<ProgressBar>,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl ArchiveProgress {
    /// A bar when standard error is a terminal and not `quiet`; `total`:
    /// the input's size, when known.
    pub fn new(quiet: bool, total: Option<u64>) -> Self {
        let counters = Arc::new(Counters::default());
        let stop = Arc::new(AtomicBool::new(false));
        if quiet || !std::io::stderr().is_terminal() {
            return ArchiveProgress {
                bar: None,
                counters,
                stop,
                ticker: None,
            };
        }
        let template = match total {
            Some(_) => "{bar:40} {bytes}/{total_bytes}, {bytes_per_sec}, {msg}, {eta} left",
            None => "{spinner} {bytes}, {bytes_per_sec}, {msg}",
        };
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr())
            .with_style(ProgressStyle::with_template(template).expect("the template parses"));
        let ticker = {
            let (bar, counters, stop) = (bar.clone(), Arc::clone(&counters), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let (bytes, records) = counters.get();
                    let seconds = bar.elapsed().as_secs_f64().max(1e-3);
                    bar.set_position(bytes);
                    bar.set_message(format!(
                        "{records} records, {:.0} records/s",
                        records as f64 / seconds
                    ));
                    std::thread::sleep(Duration::from_millis(100));
                }
            })
        };
        ArchiveProgress {
            bar: Some(bar),
            counters,
            stop,
            ticker: Some(ticker),
        }
    }

    /// What the run updates, when there is a bar.
    pub fn counters(&self) -> Option<Arc<Counters>> {
        self.bar.as_ref().map(|_| Arc::clone(&self.counters))
    }

    /// Says `line` on standard error, above the bar if there is one.
    pub fn say(&self, line: String) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    /// The run is over: the bar goes away.
    pub fn finish(mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
