//! `warc_links`: the links of a web archive, as `htmlabs --warc --links`
//! lists them, one `dict` at a time; and the links a check classes
//! (`check_links`, `crate::check`). The run is on a thread of its own,
//! with the interpreter released; its links come over a bounded channel a
//! document at a time, so an input of any size is listed in the memory of
//! a few documents, and a caller that stops early stops the run.

use std::collections::VecDeque;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::thread::JoinHandle;

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use htmlabs::SourceError;
use htmlabs::internal::Served;
use htmlabs::internal::listener::{Document, Listener, SourceWarning};
use htmlabs::internal::listing::{file_place, served_fields};
use htmlabs::internal::output::stoppable::Stoppable;
use htmlabs::internal::run_heard;
use htmlabs::internal::warc::{self, ArchiveTally};
use htmlabs::run::{Input, Job, Output, Request, Summary};

use crate::columns::Columns;
use crate::{End, PyReader, WarcSummary, end, error, flags, source_error, to_python, warc_request};

/// Documents whose links may wait for the caller: past it, the run waits.
const RECORDS_AHEAD: usize = 64;

/// The document links stand in, as the report names it.
#[derive(PartialEq)]
enum Place {
    /// An archive's record: `record`, `target` and `date`, and where it
    /// starts (two records may have one ID).
    Record {
        record: String,
        target: String,
        date: String,
        at: warc::Place,
    },
    /// A site's file, by its path.
    File(PathBuf),
}

impl Place {
    fn of(document: &Document<'_>) -> Option<Place> {
        match document {
            Document::Record(named) => Some(Place::Record {
                record: named.id.clone(),
                target: named.target.clone(),
                date: named.date.clone(),
                at: named.at,
            }),
            Document::File(path) => Some(Place::File(path.to_path_buf())),
            _ => None,
        }
    }

    /// Whether `document` is this one.
    fn is(&self, document: &Document<'_>) -> bool {
        match (self, document) {
            (Place::Record { at, .. }, Document::Record(named)) => *at == named.at,
            (Place::File(path), Document::File(other)) => path.as_path() == *other,
            _ => false,
        }
    }

    /// Its fields in a link's `dict`, first.
    fn dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        match self {
            Place::Record {
                record,
                target,
                date,
                ..
            } => {
                dict.set_item("record", record)?;
                dict.set_item("target", target)?;
                dict.set_item("date", date)?;
            }
            Place::File(path) => {
                for (key, value) in file_place(path) {
                    dict.set_item(key, to_python(py, &value)?)?;
                }
            }
        }
        Ok(dict)
    }
}

/// A link, and with a check, what it leads to (`None`: nothing to check).
type Heard = (htmlabs::Link, Option<Served>);

/// A document's links, as they are handed over.
struct Batch {
    place: Place,
    links: Vec<Heard>,
}

/// What the run's thread gives at its end: its summary and warnings.
type Ended = Result<(Summary, Vec<String>), SourceError>;

/// What a run's summary becomes for Python, once all its links are given.
pub type Ending = fn(Python<'_>, Summary, Vec<String>) -> PyResult<Py<PyAny>>;

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

    /// Keeps a link with its document's others. Links come a document at a
    /// time, in order: a new place, a new document.
    fn keep(&self, document: &Document<'_>, link: htmlabs::Link, served: Option<Served>) {
        let mut batch = self.batch.lock().unwrap_or_else(|e| e.into_inner());
        if batch.as_ref().is_some_and(|b| !b.place.is(document)) {
            if let Some(full) = batch.take() {
                self.hand(full);
            }
        }
        if batch.is_none() {
            let Some(place) = Place::of(document) else {
                return;
            };
            *batch = Some(Batch {
                place,
                links: Vec::new(),
            });
        }
        if let Some(batch) = batch.as_mut() {
            batch.links.push((link, served));
        }
    }

    /// Hands over the last document's links.
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

    fn link(&self, document: &Document<'_>, link: htmlabs::Link) {
        self.keep(document, link, None);
    }

    fn checked(&self, document: &Document<'_>, link: htmlabs::Link, served: Option<Served>) {
        self.keep(document, link, served);
    }

    fn warning(&self, _: &Document<'_>, warning: &SourceWarning<'_>) {
        self.warnings
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(warning.to_string());
    }
}

/// An iterator of links: an archive's (`warc_links`), each a `dict` with
/// the keys of a line of `htmlabs --warc --links`; or those of a check
/// (`check_links`), with the keys of a line of its `--report` and
/// `broken`.
#[pyclass(name = "Links", module = "htmlabs")]
pub struct Links {
    from: Mutex<Option<Receiver<Batch>>>,
    run: Option<JoinHandle<Ended>>,
    /// What the summary becomes at the end.
    ending: Ending,
    /// Whether each link's check is given (`status`, `broken`).
    checks: bool,
    /// The document whose links are being given, its fields as a `dict`
    /// once one is made, and its links left.
    place: Option<Place>,
    current: Option<Py<PyDict>>,
    left: VecDeque<Heard>,
    stop: Arc<AtomicBool>,
    /// The run's summary, once every link has been given.
    #[pyo3(get)]
    summary: Option<Py<PyAny>>,
}

impl Drop for Links {
    fn drop(&mut self) {
        // The run's thread stops at its next read (a site's, at its next
        // file), and ends on its own.
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
            if let Some((link, served)) = self.left.pop_front() {
                if self.current.is_none() {
                    if let Some(place) = &self.place {
                        self.current = Some(place.dict(py)?.unbind());
                    }
                }
                return self.dict(py, &link, served.as_ref()).map(Some);
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
                    let Some((link, _)) = self.left.front() else {
                        return Some(false);
                    };
                    // An archive's links alone (`warc_links`).
                    let Some(Place::Record {
                        record,
                        target,
                        date,
                        ..
                    }) = &self.place
                    else {
                        return None;
                    };
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
    /// The links of the run of `job` as `request` asks, heard on a thread
    /// of its own; `stop` is set when the caller goes (the run's input
    /// fails its next read, a site stops between files).
    pub fn start(
        request: Request,
        job: Job,
        stop: Arc<AtomicBool>,
        checks: bool,
        ending: Ending,
    ) -> PyResult<Links> {
        let (to, from) = sync_channel(RECORDS_AHEAD);
        let handing = Handing {
            batch: Mutex::new(None),
            to,
            warnings: Mutex::new(Vec::new()),
            stop: Arc::clone(&stop),
        };
        let stopping = Arc::clone(&stop);
        let run = std::thread::Builder::new()
            .name("htmlabs-links".to_owned())
            .spawn(move || {
                let summary = run_heard(&request, job, &handing, &stopping);
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
            ending,
            checks,
            place: None,
            current: None,
            left: VecDeque::new(),
            stop,
            summary: None,
        })
    }

    /// The next document's links, waited for with the interpreter
    /// released; `None` once the run has sent them all (its end is then
    /// [`Links::ended`]'s).
    fn receive(&mut self, py: Python<'_>) -> Option<Batch> {
        crate::receive(py, self.from())
    }

    /// The document whose links are given next.
    fn take(&mut self, batch: Batch) {
        self.place = Some(batch.place);
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
        let (summary, warnings) =
            crate::joined(py, run, "the run")?.map_err(|e| source_error(py, &e))?;
        self.summary = Some((self.ending)(py, summary, warnings)?);
        Ok(())
    }

    /// A link as a line of the report: its document's place, then the
    /// link's fields (`listing::link_fields`, in the same order), then,
    /// for a check, `status` and what it names (`served`, `capture`, …)
    /// as the report gives them, and `broken`.
    fn dict(
        &self,
        py: Python<'_>,
        link: &htmlabs::Link,
        served: Option<&Served>,
    ) -> PyResult<Py<PyDict>> {
        use pyo3::intern;
        let dict = match &self.current {
            Some(place) => place.bind(py).copy()?,
            None => PyDict::new(py),
        };
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
        let base = (!link.base.url.is_empty()).then_some(&*link.base.url);
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
        if self.checks {
            dict.set_item(intern!(py, "status"), served.map(Served::name))?;
            if let Some(served) = served {
                for (key, value) in served_fields(served) {
                    dict.set_item(key, to_python(py, &value)?)?;
                }
            }
            dict.set_item(intern!(py, "broken"), served.is_some_and(Served::broken))?;
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
    let mut request = warc_request(py, flags(None, options)?, "conversion", jobs, None, None)?;
    request.links = true;
    let stop = Arc::new(AtomicBool::new(false));
    let (input, name): (Box<dyn Read + Send>, String) = match end(src, "read", "src")? {
        End::Path(path) => open(&path).map_err(|e| source_error(py, &e))?,
        End::Object(object, name) => (Box::new(PyReader(object)), name),
    };
    let input = Input::Reader {
        reader: Box::new(Stoppable::new(input, Arc::clone(&stop))),
        name,
    };
    let job = Job::Warc {
        input,
        output: Output::Discard,
    };
    Links::start(request, job, stop, false, archive_summary)
}

/// An archive's `--links` run's figures, as `rewrite_warc` gives them.
fn archive_summary(py: Python<'_>, summary: Summary, warnings: Vec<String>) -> PyResult<Py<PyAny>> {
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
    Ok(Py::new(py, summary)?.into_any())
}

/// A path opened as the command line opens it (the same error, now, not
/// at the first link).
pub fn open(path: &PathBuf) -> Result<(Box<dyn Read + Send>, String), SourceError> {
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
