//! `warc_captures`: what a web archive captured, record by record (the
//! first pass of `htmlabs --warc --check-links`), for a join of a crawl's
//! links with its captures where the captures are too many for one
//! machine (`htmlabs.spark.extract_captures`); and `url_key`, what they
//! are joined by.

use std::collections::VecDeque;
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pyo3::exceptions::PyRuntimeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use htmlabs::SourceError;
use htmlabs::internal::output::lowercase;
use htmlabs::internal::output::stoppable::Stoppable;
use htmlabs::internal::warc::{Listed, list_captures, url_key as key};

use crate::links::open;
use crate::{End, PyReader, end, flags, source_error};

/// Batches of captures on their way, besides the one being made and the
/// one being given.
const BATCHES_AHEAD: usize = 2;

/// What the reading thread ends with: the records read and the warnings,
/// or the error that stopped it.
type Ended = io::Result<(u64, Vec<String>)>;

/// What `warc_captures` gives: an iterator of the captures, each a `dict`
/// of `record`, `target`, `key`, `date`, `status`, `revisit`, `location`
/// and `captured`, in the archive's order, read on a thread of its own
/// as they are asked for; and, once all are given, the records read,
/// the warnings, and whether a record broke.
#[pyclass(name = "Captures", module = "htmlabs")]
pub struct Captures {
    from: Mutex<Option<Receiver<Vec<Listed>>>>,
    run: Option<JoinHandle<Ended>>,
    left: VecDeque<Listed>,
    /// The archive's name, for an error.
    name: String,
    stop: Arc<AtomicBool>,
    /// Records read, once all are given.
    #[pyo3(get)]
    records: Option<u64>,
    /// The warnings of records that break, as the command line prints
    /// them, once all are given.
    #[pyo3(get)]
    warnings: Option<Vec<String>>,
    /// Whether a record broke (a capture after it may be missing), once
    /// all are given.
    #[pyo3(get)]
    incomplete: Option<bool>,
}

impl Drop for Captures {
    fn drop(&mut self) {
        // The reading thread stops at its next read, and ends on its own.
        self.stop.store(true, Ordering::SeqCst);
    }
}

#[pymethods]
impl Captures {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&mut self, py: Python<'_>) -> PyResult<Option<Py<PyDict>>> {
        loop {
            if let Some(listed) = self.left.pop_front() {
                return dict(py, &listed).map(|d| Some(d.unbind()));
            }
            match self.receive(py) {
                Some(batch) => self.left = batch.into(),
                None => return self.ended(py).map(|()| None),
            }
        }
    }

    fn __repr__(&self) -> String {
        match (self.records, &self.warnings) {
            (Some(records), Some(warnings)) => format!(
                "<htmlabs.Captures: {records} records, {} warnings>",
                warnings.len()
            ),
            _ => "<htmlabs.Captures: being read>".to_owned(),
        }
    }
}

impl Captures {
    /// The next batch, waited for with the interpreter released; `None`
    /// once the thread has sent them all.
    fn receive(&mut self, py: Python<'_>) -> Option<Vec<Listed>> {
        crate::receive(py, self.from.get_mut().unwrap_or_else(|e| e.into_inner()))
    }

    /// The archive is read: its figures kept, or its error raised.
    fn ended(&mut self, py: Python<'_>) -> PyResult<()> {
        let Some(run) = self.run.take() else {
            return Ok(());
        };
        let (records, warnings) = crate::joined(py, run, "the archive's reading")?
            .map_err(|e| source_error(py, &SourceError::Read(self.name.clone(), lowercase(&e))))?;
        self.records = Some(records);
        self.incomplete = Some(!warnings.is_empty());
        self.warnings = Some(warnings);
        Ok(())
    }
}

/// A capture as a `dict`.
fn dict<'py>(py: Python<'py>, listed: &Listed) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item(intern!(py, "record"), &listed.record)?;
    dict.set_item(intern!(py, "target"), &listed.target)?;
    dict.set_item(intern!(py, "key"), listed.key.as_deref())?;
    dict.set_item(intern!(py, "date"), &listed.date)?;
    dict.set_item(intern!(py, "status"), listed.status)?;
    dict.set_item(intern!(py, "revisit"), listed.revisit)?;
    dict.set_item(intern!(py, "location"), listed.location.as_deref())?;
    dict.set_item(intern!(py, "captured"), listed.captured())?;
    Ok(dict)
}

/// What a capture holds, about: its strings and the struct around them.
fn size(listed: &Listed) -> usize {
    std::mem::size_of::<Listed>()
        + listed.record.len()
        + listed.target.len()
        + listed.key.as_ref().map_or(0, String::len)
        + listed.date.len()
        + listed.location.as_ref().map_or(0, String::len)
}

/// The captures of a web archive (responses, revisits, resource records),
/// read on a thread of its own as they are asked for: the archive may hold
/// more than memory. `max_memory` bounds the whole: what a record's reading
/// holds, and the batches of captures (a sixteenth of it each, at most
/// 256 KiB): the one being made, those on their way, the one being given.
#[pyfunction]
#[pyo3(signature = (src, *, max_memory=None))]
pub fn warc_captures(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    max_memory: Option<&Bound<'_, PyAny>>,
) -> PyResult<Captures> {
    let options = PyDict::new(py);
    if let Some(max_memory) = max_memory {
        options.set_item("max_memory", max_memory)?;
    }
    let request = flags(None, Some(&options))?;
    let (input, name): (Box<dyn Read + Send>, String) = match end(src, "read", "src")? {
        End::Path(path) => open(&path).map_err(|e| source_error(py, &e))?,
        End::Object(object, name) => (Box::new(PyReader(object)), name),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let input = Stoppable::new(input, Arc::clone(&stop));
    let batch_size = (request.max_memory / 16).min(256 << 10);
    let reading = request.max_memory - (BATCHES_AHEAD + 2) * batch_size;
    let (to, from) = sync_channel::<Vec<Listed>>(BATCHES_AHEAD);
    let stopping = Arc::clone(&stop);
    let run = std::thread::Builder::new()
        .name("htmlabs-captures".to_owned())
        .spawn(move || {
            let mut warnings = Vec::new();
            let mut batch = Vec::new();
            let mut held = 0;
            let records = list_captures(
                input,
                reading,
                |warning| warnings.push(warning),
                |capture| {
                    held += size(&capture);
                    batch.push(capture);
                    if held >= batch_size {
                        held = 0;
                        // Gone: the caller dropped the iterator; the next
                        // read stops.
                        if to.send(std::mem::take(&mut batch)).is_err() {
                            stopping.store(true, Ordering::SeqCst);
                        }
                    }
                },
            )?;
            if !batch.is_empty() {
                // The caller may be gone: nothing to do then.
                let _ = to.send(batch);
            }
            Ok((records, warnings))
        })
        .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
    Ok(Captures {
        from: Mutex::new(Some(from)),
        run: Some(run),
        left: VecDeque::new(),
        name,
        stop,
        records: None,
        warnings: None,
        incomplete: None,
    })
}

/// The key a link's URL finds a capture by (`--check-links`'s), its
/// fragment aside; `None` for a URL that is not `http:` or `https:`.
#[pyfunction]
pub fn url_key(url: &str) -> Option<String> {
    key(url)
}
