//! The second pass of an archive made a tree: each record's files written
//! (a record may be saved as more than one, for URLs of one payload), one
//! record at a time as its block streams past, or with `--jobs` on
//! workers, each block read whole by the reading thread first. Either
//! way the files are committed by whoever wrote them, and what became of
//! them is told by the caller in the archive's order.

use std::collections::{BTreeMap, VecDeque};
use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::rc::Rc;
use std::sync::{Arc, mpsc};

use crate::document::config::Config;
use crate::document::memory::{Allowance, Drawn, Memory, Share, Ticket};
use crate::source::archived::Named;
use crate::source::http;
use crate::source::output::dir::Dir;
use crate::source::output::staging::Staging;

/// What the files of the tree are written with: the run's config (the
/// tree in it), how a response is read, and the tree's directory.
pub(super) struct Writer<'a> {
    pub config: &'a Arc<Config>,
    pub options: http::Options,
    pub root: &'a Dir,
}

/// One file of a record: its path under the tree and the URL it is saved
/// for.
pub(super) type FileOf = (Vec<u8>, String);

/// What became of one file of a record.
pub(super) enum Written {
    /// Saved: its report (its warnings, its URLs rewritten).
    Saved {
        path: Vec<u8>,
        url: String,
        /// Boxed: a report is large, and most records wait as a few.
        report: Box<http::ResponseReport>,
    },
    /// Could not be made, written or committed.
    Failed { path: Vec<u8>, error: io::Error },
}

/// A record's files, written: what became of each.
pub(super) struct RecordWritten {
    pub named: Named,
    pub files: Vec<Written>,
}

impl Writer<'_> {
    /// Writes `files` from a record's block, which `feed` writes into the
    /// sink it is given (the block as it streams, or held whole), the
    /// documents holding what `allowance` allows; commits them when
    /// `commit` says the attempt is the one kept (a document that outgrew
    /// a small share is written again with the head share). `None` when
    /// `feed` failed: nothing is saved.
    pub fn files<E>(
        &self,
        files: &[FileOf],
        allowance: &Rc<Allowance>,
        feed: impl FnOnce(&mut dyn Write) -> Result<(), E>,
        commit: impl FnOnce(&Allowance) -> bool,
    ) -> Result<Option<Vec<Written>>, E> {
        let mut fan = Fan::default();
        let mut written = Vec::new();
        for (path, url) in files {
            match Open::new(self, path, url, allowance) {
                Ok(open) => fan.0.push(open),
                Err(error) => written.push(Written::Failed {
                    path: path.clone(),
                    error,
                }),
            }
        }
        feed(&mut fan)?;
        let mut ended = Vec::new();
        for open in fan.0 {
            let path = open.path.clone();
            match open.end() {
                Ok(done) => ended.push(done),
                Err(error) => written.push(Written::Failed { path, error }),
            }
        }
        if !commit(allowance) {
            return Ok(None);
        }
        for (path, url, report, staging) in ended {
            written.push(match staging.commit(None, false) {
                Ok(()) => Written::Saved {
                    path,
                    url,
                    report: Box::new(report),
                },
                Err(error) => Written::Failed { path, error },
            });
        }
        Ok(Some(written))
    }
}

/// A record's block for the workers: read whole, drawn from the memory
/// of what waits between threads.
pub(super) struct Held {
    pub record: u64,
    pub named: Named,
    pub files: Vec<FileOf>,
    pub block: Vec<u8>,
    pub ticket: Ticket,
    pub drawn: Drawn,
}

/// The workers of `--jobs`: they take held blocks in the archive's order
/// and hand back what became of their files, which [`Workers::told`]
/// puts back in that order.
pub(super) struct Workers {
    jobs: Option<mpsc::SyncSender<Held>>,
    done: mpsc::Receiver<(u64, RecordWritten)>,
    /// The records given out, in order, and those done before their turn.
    order: VecDeque<u64>,
    waiting: BTreeMap<u64, RecordWritten>,
}

impl Workers {
    /// `jobs` workers, in `scope`.
    pub fn start<'scope, 'env: 'scope>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        writer: &'env Writer<'env>,
        jobs: usize,
    ) -> Workers {
        let (give, take) = mpsc::sync_channel::<Held>(jobs);
        let take = Arc::new(std::sync::Mutex::new(take));
        let (tell, done) = mpsc::channel();
        for _ in 0..jobs {
            let (take, tell) = (Arc::clone(&take), tell.clone());
            scope.spawn(move || {
                loop {
                    let held = match take.lock() {
                        Ok(take) => take.recv(),
                        Err(_) => return,
                    };
                    let Ok(held) = held else { return };
                    let record = held.record;
                    if tell.send((record, writer.held(held))).is_err() {
                        return;
                    }
                }
            });
        }
        Workers {
            jobs: Some(give),
            done,
            order: VecDeque::new(),
            waiting: BTreeMap::new(),
        }
    }

    /// Gives `held` to a worker (waits while all are busy and the queue
    /// is full).
    pub fn give(&mut self, held: Held) {
        self.order.push_back(held.record);
        if let Some(jobs) = &self.jobs {
            // A worker that is gone panicked: the scope says so.
            let _ = jobs.send(held);
        }
    }

    /// A record written on the reading thread, to be told in its turn.
    pub fn done_here(&mut self, record: u64, written: RecordWritten) {
        self.order.push_back(record);
        self.waiting.insert(record, written);
    }

    /// What is done, in the archive's order, as far as it is done: all of
    /// it when `all` (the last record is given).
    pub fn told(&mut self, all: bool) -> Vec<RecordWritten> {
        if all {
            self.jobs = None;
        }
        let mut told = Vec::new();
        loop {
            while let Ok((record, written)) = self.done.try_recv() {
                self.waiting.insert(record, written);
            }
            while let Some(next) = self.order.front() {
                let Some(written) = self.waiting.remove(next) else {
                    break;
                };
                self.order.pop_front();
                told.push(written);
            }
            if !all || self.order.is_empty() {
                return told;
            }
            match self.done.recv() {
                Ok((record, written)) => {
                    self.waiting.insert(record, written);
                }
                Err(_) => return told,
            }
        }
    }
}

impl Writer<'_> {
    /// A held record's files, on a worker: with a small share of the run's
    /// memory first, with the head share when a document outgrew it.
    fn held(&self, held: Held) -> RecordWritten {
        let Held {
            named,
            files,
            block,
            ticket,
            drawn,
            ..
        } = held;
        let mut share: Share = ticket.share();
        let written = loop {
            let allowance = Allowance::new(share);
            let feed = |sink: &mut dyn Write| sink.write_all(&block);
            let keep = |allowance: &Allowance| allowance.is_head() || !allowance.ran_out();
            match self.files(&files, &allowance, feed, keep) {
                Ok(Some(written)) => break written,
                // Outgrew its small share: again, with the head's.
                Ok(None) => {
                    drop(allowance);
                    share = ticket.head_share();
                }
                Err(error) => {
                    break files
                        .iter()
                        .map(|(path, _)| Written::Failed {
                            path: path.clone(),
                            error: io::Error::new(error.kind(), error.to_string()),
                        })
                        .collect();
                }
            }
        };
        drop((block, drawn, ticket));
        RecordWritten {
            named,
            files: written,
        }
    }
}

/// A file being saved: its response read into it as the record's block
/// comes.
struct Open {
    path: Vec<u8>,
    url: String,
    staging: Staging,
    /// Boxed as the one page's response writer is: one instantiation of
    /// the engines serves both.
    response: http::Response<Box<dyn Write + Send>>,
    /// A write failed: the file is not saved (the others go on).
    failed: Option<io::Error>,
}

impl Open {
    fn new(
        writer: &Writer<'_>,
        path: &[u8],
        url: &str,
        allowance: &Rc<Allowance>,
    ) -> io::Result<Open> {
        let path_os = Path::new(OsStr::from_bytes(path));
        let dir = match path_os.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => writer.root.made(parent)?,
            _ => writer.root.clone(),
        };
        let file_name = path_os
            .file_name()
            .ok_or_else(|| io::Error::other("no file name"))?;
        let staging = Staging::new(&dir, file_name)?;
        let file: File = staging.file().try_clone()?;
        let file: Box<dyn Write + Send> = Box::new(file);
        // The layers of the capture's own URL: its file is the one the
        // links are made relative from.
        let layers = crate::url::Layers::default()
            .with_retrieval(writer.config.standard, url, "WARC-Target-URI")
            .unwrap_or_default();
        let response = http::Response::new(Arc::clone(writer.config), layers, writer.options, file)
            .with_allowance(Rc::clone(allowance));
        Ok(Open {
            path: path.to_vec(),
            url: url.to_owned(),
            staging,
            response,
            failed: None,
        })
    }

    fn end(self) -> io::Result<(Vec<u8>, String, http::ResponseReport, Staging)> {
        if let Some(e) = self.failed {
            return Err(e);
        }
        let (report, _) = self.response.end().map_err(io::Error::other)?;
        Ok((self.path, self.url, report, self.staging))
    }
}

/// Every file a record's block is saved as, written at once.
#[derive(Default)]
struct Fan(Vec<Open>);

impl Write for Fan {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        for open in self.0.iter_mut().filter(|w| w.failed.is_none()) {
            if let Err(e) = open.response.write(bytes) {
                open.failed = Some(io::Error::other(e));
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Draws room for a block of `length` bytes to wait for a worker; `None`
/// when what waits between threads has none (the block streams on the
/// reading thread instead).
pub(super) fn draw(memory: &Memory, length: u64) -> Option<Drawn> {
    let length = usize::try_from(length).ok()?;
    memory.draw(length).ok()
}
