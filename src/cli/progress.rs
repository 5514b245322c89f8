//! What a site's run says on standard error as it goes: a progress bar when
//! standard error is a terminal, the warnings and failures naming their
//! file, and the summary line at the end.

use std::io::IsTerminal;
use std::path::Path;
use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::site::{Event, Summary};

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
                    self.say(format!("htmlabs: warning: {}: {warning}", path.display()));
                }
            }
            Event::Failed(_, error) => self.say(format!("htmlabs: error: {error}")),
            Event::Note(path, note) => {
                if self.verbose {
                    self.say(format!("htmlabs: {}: {note}", path.display()));
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
        if s.interrupted {
            line += "; interrupted";
        }
        line += &format!("; {:.2} s", s.seconds);
        eprintln!("{line}");
    }
}
