//! The progress bars a site's or an archive's run draws on standard
//! error when it is a terminal, and the lines said above them.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use htmlabs::internal::listener::Progress;

/// The bar of a run, if it has one.
pub enum Bar {
    /// The one page: none.
    None,
    /// A site's files done of those found, drawn once they are found.
    Files(Mutex<Option<ProgressBar>>),
    /// An archive's bytes read.
    Archive(ArchiveBar),
}

impl Bar {
    /// A site's bar: none when `quiet`.
    pub fn files(quiet: bool) -> Bar {
        match quiet {
            true => Bar::None,
            false => Bar::Files(Mutex::new(None)),
        }
    }

    /// Says `line` on standard error, above the bar if there is one.
    pub fn say(&self, line: String) {
        let files;
        let bar = match self {
            Bar::None => None,
            Bar::Files(bar) => {
                files = bar.lock().unwrap_or_else(|e| e.into_inner());
                files.as_ref()
            }
            Bar::Archive(archive) => archive.bar.as_ref(),
        };
        match bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }

    pub fn progress(&self, progress: Progress) {
        match (self, progress) {
            (Bar::Files(bar), Progress::Found(total)) if std::io::stderr().is_terminal() => {
                let new =
                    ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr())
                        .with_style(
                            ProgressStyle::with_template(
                                "{bar:40} {pos}/{len} files, {per_sec}, {eta} left",
                            )
                            .expect("the template parses"),
                        );
                *bar.lock().unwrap_or_else(|e| e.into_inner()) = Some(new);
            }
            (Bar::Archive(archive), Progress::Read { bytes, records }) => {
                archive.bytes.store(bytes, Ordering::Relaxed);
                archive.records.store(records, Ordering::Relaxed);
            }
            _ => {}
        }
    }

    /// A document is done.
    pub fn done(&self) {
        if let Bar::Files(bar) = self {
            if let Some(bar) = &*bar.lock().unwrap_or_else(|e| e.into_inner()) {
                bar.inc(1);
            }
        }
    }

    /// The run is over: the bar goes away.
    pub fn finish(&mut self) {
        match self {
            Bar::None => {}
            Bar::Files(bar) => {
                if let Some(bar) = bar.get_mut().unwrap_or_else(|e| e.into_inner()).take() {
                    bar.finish_and_clear();
                }
            }
            Bar::Archive(archive) => archive.finish(),
        }
    }
}

/// An archive's bar: raw bytes read of the input's size (a spinner when
/// the size is not known: standard input), records and records a second;
/// drawn by a thread of its own from two counters, so that the run only
/// stores two numbers a record.
pub struct ArchiveBar {
    bar: Option<ProgressBar>,
    bytes: Arc<AtomicU64>,
    records: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
}

impl ArchiveBar {
    /// A bar when standard error is a terminal and not `quiet`; `total`:
    /// the input's size, when known.
    pub fn new(quiet: bool, total: Option<u64>) -> Self {
        let mut archive = ArchiveBar {
            bar: None,
            bytes: Arc::default(),
            records: Arc::default(),
            stop: Arc::default(),
            ticker: None,
        };
        if quiet || !std::io::stderr().is_terminal() {
            return archive;
        }
        let template = match total {
            Some(_) => "{bar:40} {bytes}/{total_bytes}, {bytes_per_sec}, {msg}, {eta} left",
            None => "{spinner} {bytes}, {bytes_per_sec}, {msg}",
        };
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr())
            .with_style(ProgressStyle::with_template(template).expect("the template parses"));
        let ticker = {
            let bar = bar.clone();
            let (bytes, records) = (Arc::clone(&archive.bytes), Arc::clone(&archive.records));
            let stop = Arc::clone(&archive.stop);
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    let records = records.load(Ordering::Relaxed);
                    let seconds = bar.elapsed().as_secs_f64().max(1e-3);
                    bar.set_position(bytes.load(Ordering::Relaxed));
                    bar.set_message(format!(
                        "{records} records, {:.0} records/s",
                        records as f64 / seconds
                    ));
                    std::thread::sleep(Duration::from_millis(100));
                }
            })
        };
        archive.bar = Some(bar);
        archive.ticker = Some(ticker);
        archive
    }

    fn finish(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            let _ = ticker.join();
        }
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
