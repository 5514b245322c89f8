//! `warc_captures`: what a web archive captured, record by record (the
//! first pass of `htmlabs --warc --check-links`), for a join of a crawl's
//! links with its captures where the captures are too many for one
//! machine (`htmlabs.spark.extract_captures`); and `url_key`, what they
//! are joined by.

use std::io::Read;

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use htmlabs::SourceError;
use htmlabs::internal::output::lowercase;
use htmlabs::internal::warc::{Listed, list_captures, url_key as key};

use crate::links::open;
use crate::{End, PyReader, end, flags, source_error};

/// What `warc_captures` gives.
#[pyclass(name = "Captures", module = "htmlabs", frozen, get_all)]
pub struct Captures {
    /// Each capture: a `dict` of `record`, `target`, `key`, `date`,
    /// `status`, `revisit` and `location`, in the archive's order.
    captures: Py<PyList>,
    /// Records read.
    records: u64,
    /// The warnings of records that break, as the command line prints them.
    warnings: Vec<String>,
    /// Whether a record broke: a capture after it may be missing.
    incomplete: bool,
}

#[pymethods]
impl Captures {
    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<htmlabs.Captures: {} records, {} captures, {} warnings>",
            self.records,
            self.captures.bind(py).len(),
            self.warnings.len()
        )
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

/// The captures of a web archive (responses, revisits, resource records),
/// read with the interpreter released.
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
    let mut listed = Vec::new();
    let mut warnings = Vec::new();
    let read = py.detach(|| {
        list_captures(
            input,
            request.max_memory,
            |warning| warnings.push(warning),
            |capture| listed.push(capture),
        )
    });
    let records = read.map_err(|e| source_error(py, &SourceError::Read(name, lowercase(&e))))?;
    let captures = PyList::empty(py);
    for capture in &listed {
        captures.append(dict(py, capture)?)?;
    }
    Ok(Captures {
        captures: captures.unbind(),
        records,
        incomplete: !warnings.is_empty(),
        warnings,
    })
}

/// The key a link's URL finds a capture by (`--check-links`'s), its
/// fragment aside; `None` for a URL that is not `http:` or `https:`.
#[pyfunction]
pub fn url_key(url: &str) -> Option<String> {
    key(url)
}
