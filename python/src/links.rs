//! `warc_links`: the links of a web archive, as `htmlabs --warc --links`
//! lists them, one `dict` at a time. The archive is read on a thread of
//! its own, with the interpreter released; its links come over a bounded
//! channel a record at a time, so a file of any size is listed in the
//! memory of a few records, and a caller that stops early stops the run.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, Read};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::thread::JoinHandle;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};

use htmlabs::SourceError;
use htmlabs::internal::listener::{Document, Listener, SourceWarning};
use htmlabs::internal::run_heard;
use htmlabs::internal::warc::{ArchiveTally, Place};
use htmlabs::run::{Input, Job, Output, Summary};

use crate::columns::Columns;
use crate::{End, PyReader, WarcSummary, end, error, flags, source_error, warc_request};

/// Records whose links may wait for the caller: past it, the run waits.
const RECORDS_AHEAD: usize = 64;

/// A record's links, as they are handed over.
struct Batch {
    /// `record`, `target` and `date`, as the report names the record.
    record: String,
    target: String,
    date: String,
    /// Where the record starts: two records may have one ID.
    at: Place,
    links: Vec<htmlabs::Link>,
}

/// What the run's thread gives at its end: its summary and warnings.
type Ended = Result<(Summary, Vec<String>), SourceError>;

/// Hears a run on its own thread and hands each record's links over.
struct Handing {
    batch: Mutex<Option<Batch>>,
    to: SyncSender<Batch>,
    warnings: Mutex<Vec<String>>,
    /// Set when the caller has gone: what is heard is dropped, and the
    /// input stops.
    stop: Arc<AtomicBool>,
}

impl Handing {
    fn hand(&self, batch: Batch) {
        if self.to.send(batch).is_err() {
            self.stop.store(true, Ordering::SeqCst);
        }
    }

    /// Hands over the last record's links.
    fn finish(&self) {
        let last = self.batch.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(batch) = last {
            self.hand(batch);
        }
    }
}

impl Listener for Handing {
    fn hears_links(&self) -> bool {
        true
    }

    fn link(&self, document: &Document<'_>, link: &htmlabs::Link) {
        let Document::Record(named) = document else {
            return;
        };
        let mut batch = self.batch.lock().unwrap_or_else(|e| e.into_inner());
        // Links come a record at a time, in order: a new place, a new
        // record.
        if batch.as_ref().is_some_and(|b| b.at != named.at) {
            if let Some(full) = batch.take() {
                self.hand(full);
            }
        }
        batch
            .get_or_insert_with(|| Batch {
                record: named.id.clone(),
                target: named.target.clone(),
                date: named.date.clone(),
                at: named.at,
                links: Vec::new(),
            })
            .links
            .push(link.clone());
    }

    fn warning(&self, _: &Document<'_>, warning: &SourceWarning<'_>) {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(warning.to_string());
    }
}

/// The input, which fails its next read once the caller has gone.
struct Stoppable {
    input: Box<dyn Read + Send>,
    stop: Arc<AtomicBool>,
}

impl Read for Stoppable {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.stop.load(Ordering::Relaxed) {
            return Err(io::Error::other("the links are no longer read"));
        }
        self.input.read(buf)
    }
}

/// An iterator of an archive's links (`warc_links`): each a `dict` with
/// the keys of a line of `htmlabs --warc --links`.
#[pyclass(name = "Links", module = "htmlabs")]
pub struct Links {
    from: Mutex<Option<Receiver<Batch>>>,
    run: Option<JoinHandle<Ended>>,
    /// The record whose links are being given (`record`, `target`,
    /// `date`; as Python strings once a `dict` needs them), and those
    /// left of it.
    place: [String; 3],
    current: Option<(Py<PyString>, Py<PyString>, Py<PyString>)>,
    left: VecDeque<htmlabs::Link>,
    stop: Arc<AtomicBool>,
    /// The run's summary, once every link has been given.
    #[pyo3(get)]
    summary: Option<Py<WarcSummary>>,
}

impl Drop for Links {
    fn drop(&mut self) {
        // The run's thread stops at its next read, and ends on its own.
        self.stop.store(true, Ordering::SeqCst);
    }
}

#[pymethods]
impl Links {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyDict>>> {
        loop {
            if let Some(link) = self.left.pop_front() {
                if self.current.is_none() {
                    let [record, target, date] = &self.place;
                    self.current = Some((
                        PyString::new(py, record).unbind(),
                        PyString::new(py, target).unbind(),
                        PyString::new(py, date).unbind(),
                    ));
                }
                return self.dict(py, &link).map(Some);
            }
            match self.receive(py) {
                Some(batch) => self.take(batch),
                None => return self.ended(py).map(|()| None),
            }
        }
    }

    /// The next links, at most `rows` of them and fewer once a text
    /// column holds `bytes`, as the buffers of an Arrow record batch
    /// (`columns::Columns::into_python`): what `htmlabs.spark` hands the
    /// JVM, with no link made a Python object. `None` once all are given;
    /// a run's error is raised after the links before it are given.
    #[pyo3(signature = (rows, bytes = 64 << 20))]
    fn _arrow_columns<'py>(
        &mut self,
        py: Python<'py>,
        rows: usize,
        bytes: usize,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let mut columns = Columns::default();
        let rows = rows.max(1);
        loop {
            // Filled with the interpreter released: Rust's work alone.
            let full = py.detach(|| {
                while columns.rows() < rows && columns.bytes() < bytes {
                    let Some(link) = self.left.front() else {
                        return Some(false);
                    };
                    let [record, target, date] = &self.place;
                    if !columns.fits([record, target, date], link) {
                        // Past what a batch's offsets can say: the next
                        // batch, or, for a link alone, no batch at all.
                        return (columns.rows() > 0).then_some(true);
                    }
                    columns.push([record, target, date], link);
                    self.left.pop_front();
                }
                Some(true)
            });
            let Some(full) = full else {
                let why = "a link's values are too long for an Arrow batch (2 GiB)";
                return Err(error(py, "Error", why.to_owned()));
            };
            if full {
                break;
            }
            match self.receive(py) {
                Some(batch) => self.take(batch),
                // The links before the run's end first; its end (or
                // error) at the next call.
                None if columns.rows() > 0 => break,
                None => {
                    self.ended(py)?;
                    break;
                }
            }
        }
        if columns.rows() == 0 {
            return Ok(None);
        }
        columns.into_python(py).map(Some)
    }
}

impl Links {
    /// The next record's links, waited for with the interpreter
    /// released; `None` once the run has sent them all (its end is then
    /// [`Links::ended`]'s).
    fn receive(&mut self, py: Python<'_>) -> Option<Batch> {
        let from = self.from().take()?;
        let (got, from) = match from.try_recv() {
            Ok(batch) => (Some(batch), from),
            // The caller is ahead of the run: wait for it, released.
            Err(TryRecvError::Empty) => py.detach(move || (from.recv().ok(), from)),
            Err(TryRecvError::Disconnected) => (None, from),
        };
        if got.is_some() {
            *self.from() = Some(from);
        }
        got
    }

    /// The record whose links are given next.
    fn take(&mut self, batch: Batch) {
        self.place = [batch.record, batch.target, batch.date];
        self.current = None;
        self.left = batch.links.into();
    }

    /// The channel the links come by (in a mutex only for `Sync`: the
    /// iterator is used through `&mut`).
    fn from(&mut self) -> &mut Option<Receiver<Batch>> {
        self.from.get_mut().unwrap_or_else(|e| e.into_inner())
    }

    /// The run is over: its summary kept, or its error raised.
    fn ended(&mut self, py: Python<'_>) -> PyResult<()> {
        *self.from() = None;
        let Some(run) = self.run.take() else {
            return Ok(());
        };
        let ended = py
            .detach(move || run.join())
            .map_err(|_| PyRuntimeError::new_err("the archive's run stopped unexpectedly"))?;
        let (summary, warnings) = ended.map_err(|e| source_error(py, &e))?;
        let Some(tally) = summary.tally.get::<ArchiveTally>() else {
            let why = "an archive's run gave no archive's figures";
            return Err(error(py, "Error", why.to_owned()));
        };
        let summary = WarcSummary {
            records: tally.records,
            rewritten: tally.rewritten,
            css_rewritten: tally.rewritten_css,
            xml_rewritten: tally.rewritten_xml,
            conversions: 0,
            replaced: 0,
            urls: tally.urls,
            warnings,
            incomplete: summary.incomplete,
            bytes: tally.bytes,
            converted: tally.converted,
            line: tally.links_figures(),
        };
        self.summary = Some(Py::new(py, summary)?);
        Ok(())
    }

    /// A link as a line of the report: its record's place, then the
    /// link's fields (`listing::link_fields`, in the same order).
    fn dict(&self, py: Python<'_>, link: &htmlabs::Link) -> PyResult<Py<PyDict>> {
        use pyo3::intern;
        let dict = PyDict::new(py);
        if let Some((record, target, date)) = &self.current {
            dict.set_item(intern!(py, "record"), record.bind(py))?;
            dict.set_item(intern!(py, "target"), target.bind(py))?;
            dict.set_item(intern!(py, "date"), date.bind(py))?;
        }
        let p = link.position;
        dict.set_item(intern!(py, "line"), p.line)?;
        dict.set_item(intern!(py, "column"), p.column)?;
        dict.set_item(intern!(py, "offset"), p.offset)?;
        dict.set_item(intern!(py, "element"), &link.element)?;
        dict.set_item(intern!(py, "attribute"), &link.attribute)?;
        dict.set_item(intern!(py, "kind"), link.kind.name())?;
        dict.set_item(intern!(py, "original"), &link.original)?;
        dict.set_item(intern!(py, "absolute"), link.absolute.as_deref())?;
        dict.set_item(intern!(py, "outcome"), link.outcome.name())?;
        let base = (!link.base.url.is_empty()).then_some(link.base.url.as_str());
        dict.set_item(intern!(py, "base"), base)?;
        dict.set_item(intern!(py, "layer"), link.base.layer.name())?;
        if link.raw.is_some() {
            // Percent-encoded as the report writes it.
            let fields = htmlabs::internal::listing::link_fields(link);
            dict.set_item(
                intern!(py, "raw"),
                fields.get("raw").and_then(|r| r.as_str()),
            )?;
        }
        Ok(dict.unbind())
    }
}

/// The links of a web archive, as `htmlabs --warc SRC --links` lists them.
#[pyfunction]
#[pyo3(signature = (src, *, jobs=None, **options))]
pub fn warc_links(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    jobs: Option<usize>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Links> {
    let request = warc_request(py, flags(None, options)?, "conversion", jobs, None, None)?;
    let stop = Arc::new(AtomicBool::new(false));
    let (input, name): (Box<dyn Read + Send>, String) = match end(src, "read", "src")? {
        End::Path(path) => open(&path).map_err(|e| source_error(py, &e))?,
        End::Object(object, name) => (Box::new(PyReader(object)), name),
    };
    let input = Input::Reader {
        reader: Box::new(Stoppable {
            input,
            stop: Arc::clone(&stop),
        }),
        name,
    };
    let (to, from) = sync_channel(RECORDS_AHEAD);
    let handing = Handing {
        batch: Mutex::new(None),
        to,
        warnings: Mutex::new(Vec::new()),
        stop: Arc::clone(&stop),
    };
    let run = std::thread::Builder::new()
        .name("htmlabs-links".to_owned())
        .spawn(move || {
            let job = Job::Warc {
                input,
                output: Output::Discard,
            };
            let summary = run_heard(&request, job, &handing, &AtomicBool::new(false));
            handing.finish();
            let warnings = handing
                .warnings
                .into_inner()
                .unwrap_or_else(|e| e.into_inner());
            summary.map(|s| (s, warnings))
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    Ok(Links {
        from: Mutex::new(Some(from)),
        run: Some(run),
        place: Default::default(),
        current: None,
        left: VecDeque::new(),
        stop,
        summary: None,
    })
}

/// A path opened as the command line opens it (the same error, now, not
/// at the first link).
fn open(path: &PathBuf) -> Result<(Box<dyn Read + Send>, String), SourceError> {
    let name = Input::File(path.clone()).name();
    // The command line's open, for its error; then a file the run's
    // thread may own.
    drop(Input::File(path.clone()).open()?);
    let file = File::open(path).map_err(|e| {
        SourceError::Open(
            htmlabs::internal::names::path(path).into_owned(),
            e.to_string(),
        )
    })?;
    Ok((Box::new(file), name))
}
