//! The native module of the `htmlabs` Python package: the library's
//! document rewriter and its WARC run, behind the command line's words
//! ([`Request`]), with the Python interpreter released while they work.
//!
//! Nothing here panics: the library does not, and what comes from Python
//! (an argument, a file object's answer) is checked into an exception.
//! The exceptions are the package's own (`htmlabs/_errors.py`), raised with
//! the command line's one-line message.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBytes, PyDict, PyList, PyType};
use serde_json::Value;

use htmlabs::internal::listener::{Document, Listener, SourceWarning};
use htmlabs::internal::listing::link_fields;
use htmlabs::internal::request;
use htmlabs::internal::run_heard;
use htmlabs::internal::typing::{Clue, FIRST_BYTES, decide};
use htmlabs::internal::warc::ArchiveTally;
use htmlabs::internal::{body_decided, entity};
use htmlabs::run::{ConfigError, Input, Job, Output, Request};
use htmlabs::{Config, Layers, Rewriter, SourceError, Type};

mod captures;
mod check;
mod columns;
mod links;

/// How the Python side names a document given as bytes, and its result,
/// in messages.
const HTML_NAME: &str = "`html`";
const RESULT_NAME: &str = "the result";

/// The next item a run's thread sends by `slot`, waited for with the
/// interpreter released when the caller is ahead of it; `None` once the
/// thread has sent them all (the channel is then let go).
fn receive<T: Send>(py: Python<'_>, slot: &mut Option<Receiver<T>>) -> Option<T> {
    let from = slot.take()?;
    let (got, from) = match from.try_recv() {
        Ok(item) => (Some(item), from),
        Err(TryRecvError::Empty) => py.detach(move || (from.recv().ok(), from)),
        Err(TryRecvError::Disconnected) => (None, from),
    };
    if got.is_some() {
        *slot = Some(from);
    }
    got
}

/// What a run's thread ended with, waited for with the interpreter
/// released; `what` names the run in the error of a thread that did not
/// end (it panicked: none does).
fn joined<T: Send>(py: Python<'_>, run: JoinHandle<T>, what: &str) -> PyResult<T> {
    py.detach(move || run.join())
        .map_err(|_| PyRuntimeError::new_err(format!("{what} stopped unexpectedly")))
}

/// An exception of the package's, by its class name in `htmlabs._errors`.
fn error(py: Python<'_>, class: &str, message: String) -> PyErr {
    let found = py
        .import("htmlabs._errors")
        .and_then(|m| m.getattr(class))
        .and_then(|c| c.cast_into::<PyType>().map_err(PyErr::from));
    match found {
        Ok(class) => PyErr::from_type(class, message),
        Err(e) => e,
    }
}

fn config_error(py: Python<'_>, e: &ConfigError) -> PyErr {
    error(py, "ConfigError", e.to_string())
}

/// A run's error as the command line says it (`htmlabs: error: …`, less
/// the program's name), of the class that says what failed.
fn source_error(py: Python<'_>, e: &SourceError) -> PyErr {
    let class = match e {
        SourceError::Refused(_) => "ConfigError",
        SourceError::Open(..) | SourceError::Read(..) => "ReadError",
        SourceError::Write(..) => "WriteError",
        _ => "Error",
    };
    error(py, class, e.to_string())
}

/// The keywords both functions share, each the command line's flag of
/// its name (`keep_fragments` is `--keep-fragments`), over the flags'
/// defaults. The stubs (`_htmlabs.pyi`) type them.
fn flags(retrieved_from: Option<String>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Request> {
    let mut flags = Request::default();
    flags.retrieved_from = retrieved_from;
    let Some(options) = options else {
        return Ok(flags);
    };
    for (key, value) in options.iter() {
        let key: String = key.extract()?;
        let wrong = |e: PyErr| PyTypeError::new_err(format!("{key}: {}", e.value(value.py())));
        match key.as_str() {
            "standard" => {
                let name: String = value.extract().map_err(wrong)?;
                flags.standard = request::standard(&name).ok_or_else(|| {
                    PyValueError::new_err(format!(
                        "unknown standard: `{name}` (rfc1808 or rfc3986)"
                    ))
                })?;
            }
            "encoding" => flags.encoding = value.extract().map_err(wrong)?,
            "keep_fragments" => flags.keep_fragments = value.extract().map_err(wrong)?,
            "lazy" => flags.lazy = value.extract().map_err(wrong)?,
            "social" => flags.social = value.extract().map_err(wrong)?,
            "content_location" => flags.content_location = value.extract().map_err(wrong)?,
            "attr" => flags.attr = value.extract().map_err(wrong)?,
            "map" => flags.map = map_of(&value).map_err(wrong)?,
            "max_lookahead" => flags.max_lookahead = size_of(&key, &value)?,
            "max_memory" => flags.max_memory = size_of(&key, &value)?,
            _ => {
                let known: Vec<String> = request::DOCUMENT_OPTIONS
                    .iter()
                    .map(|name| name.replace('-', "_"))
                    .collect();
                return Err(PyTypeError::new_err(format!(
                    "unexpected keyword argument `{key}` (the options are {})",
                    known.join(", ")
                )));
            }
        }
    }
    Ok(flags)
}

/// The `map` keyword: `{OLD: NEW}`, or `OLD=NEW` strings as `--map` takes
/// them (one, or a sequence).
fn map_of(value: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
    if let Ok(rules) = value.cast::<PyDict>() {
        return rules
            .iter()
            .map(|(old, new)| {
                Ok(format!(
                    "{}={}",
                    old.extract::<String>()?,
                    new.extract::<String>()?
                ))
            })
            .collect();
    }
    if let Ok(rule) = value.extract::<String>() {
        return Ok(vec![rule]);
    }
    value.extract()
}

/// A size keyword: an `int` of bytes, or a size as the command line takes
/// it (`"64M"`, `"1G"`, `"500KB"`).
fn size_of(key: &str, value: &Bound<'_, PyAny>) -> PyResult<usize> {
    if let Ok(bytes) = value.extract::<usize>() {
        return Ok(bytes);
    }
    let text: String = value.extract().map_err(|_| {
        PyTypeError::new_err(format!("{key}: an int of bytes or a size such as \"64M\""))
    })?;
    request::size(&text).map_err(|e| PyValueError::new_err(format!("{key}: {e}")))
}

/// The header fields of `headers`: a mapping, or pairs in their order.
fn header_fields(headers: &Bound<'_, PyAny>) -> PyResult<Vec<(String, String)>> {
    let pairs = if headers.hasattr("items")? {
        headers.call_method0("items")?
    } else {
        headers.clone()
    };
    pairs
        .try_iter()?
        .map(|pair| {
            pair?.extract::<(String, String)>().map_err(|_| {
                PyTypeError::new_err("headers must be a mapping of str to str, or (str, str) pairs")
            })
        })
        .collect()
}

/// What a rewrite gave, made without the interpreter.
struct Produced {
    html: Vec<u8>,
    report: htmlabs::Report,
    /// Kept as they were heard: a `dict` each only if `links` is read.
    links: Vec<htmlabs::Link>,
    warnings: Vec<String>,
}

/// Rewrites one document of type `kind` held whole (`xml`: a page served
/// as XML), with the interpreter released: other Python threads run
/// meanwhile.
fn rewrite_released(
    py: Python<'_>,
    (kind, xml): (Type, bool),
    config: Config,
    layers: Layers,
    html: &PyBackedBytes,
    warnings: Vec<String>,
) -> PyResult<Produced> {
    let html: &[u8] = html;
    let done = py.detach(move || {
        let output = Vec::with_capacity(html.len() + html.len() / 8);
        let mut rewriter = Rewriter::new(kind, config, layers, output).with_links();
        if xml {
            rewriter = rewriter.served_as_xml();
        }
        let events = rewriter.events();
        let ended = rewriter.write(html).and_then(|()| rewriter.end());
        let mut warnings = warnings;
        warnings.extend(events.take_warnings().iter().map(ToString::to_string));
        ended
            .map(|(report, html)| Produced {
                html,
                report,
                links: events.take_links(),
                warnings,
            })
            .map_err(|e| SourceError::of(e, HTML_NAME, RESULT_NAME))
    });
    done.map_err(|e| source_error(py, &e))
}

/// A JSON value of the link report as a Python object.
fn to_python<'py>(py: Python<'py>, value: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match value {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Number(n) => match n.as_u64() {
            Some(n) => n.into_pyobject(py)?.into_any(),
            None => n.as_f64().unwrap_or_default().into_pyobject(py)?.into_any(),
        },
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_python(py, item)?)?;
            }
            list.into_any()
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (key, item) in map {
                dict.set_item(key, to_python(py, item)?)?;
            }
            dict.into_any()
        }
    })
}

/// What `rewrite` gives: the document, and what its run found.
#[pyclass(name = "Result", module = "htmlabs", frozen)]
struct Rewritten {
    /// The rewritten document, byte for byte but its URL values.
    #[pyo3(get)]
    html: Py<PyBytes>,
    /// The base URL, or `None` when no layer of RFC 1808 §3 gave one.
    #[pyo3(get)]
    base: Option<String>,
    /// Which layer gave it: `embedded`, `encapsulating`, `retrieval` or
    /// `none`.
    #[pyo3(get)]
    base_layer: String,
    /// The document's encoding (`UTF-8`, `windows-1252`, …).
    #[pyo3(get)]
    encoding: String,
    /// The links as they were heard, made Python objects only when
    /// `links` is read: a caller that does not read them does not pay, with
    /// the GIL held, for a `dict` per link (most of a call's time with the
    /// GIL on a page of many links).
    heard: Vec<htmlabs::Link>,
    links: PyOnceLock<Py<PyList>>,
    /// The warnings, as the command line prints them after
    /// `htmlabs: warning: `.
    #[pyo3(get)]
    warnings: Vec<String>,
    /// URL values rewritten.
    #[pyo3(get)]
    rewritten: usize,
    /// What the document was read as: `html`, `css` or `xml`; `None` for
    /// a body whose `Content-Type` no engine rewrites, left as it is.
    #[pyo3(get, name = "type")]
    kind: Option<&'static str>,
}

#[pymethods]
impl Rewritten {
    /// Each URL value, as a line of the link report (`--report`) gives it:
    /// made on the first read, the same list after.
    #[getter]
    fn links(&self, py: Python<'_>) -> PyResult<Py<PyList>> {
        self.links
            .get_or_try_init(py, || {
                let links = PyList::empty(py);
                for link in &self.heard {
                    links.append(to_python(py, &Value::Object(link_fields(link)))?)?;
                }
                Ok::<_, PyErr>(links.unbind())
            })
            .map(|links| links.clone_ref(py))
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "<htmlabs.Result: {} {} bytes, base {:?} ({}), {}, {} links, {} rewritten, {} warnings>",
            self.kind.unwrap_or("unchanged"),
            self.html.bind(py).as_bytes().len(),
            self.base.as_deref().unwrap_or(""),
            self.base_layer,
            self.encoding,
            self.heard.len(),
            self.rewritten,
            self.warnings.len()
        )
    }
}

/// Makes every link in one document absolute, by RFC 1808: a page, a
/// stylesheet or an XML document (a feed, a sitemap, SVG), as `type` says
/// (`--type`), else as its first bytes do.
#[pyfunction]
#[pyo3(signature = (html, retrieved_from=None, *, headers=None, r#type=None, **options))]
fn rewrite(
    py: Python<'_>,
    html: PyBackedBytes,
    retrieved_from: Option<String>,
    headers: Option<&Bound<'_, PyAny>>,
    r#type: Option<String>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Rewritten> {
    let given = match r#type.as_deref() {
        None => None,
        Some(name) => Some(request::kind(name).ok_or_else(|| {
            PyValueError::new_err(format!("unknown type: `{name}` (html, css or xml)"))
        })?),
    };
    let flags = flags(retrieved_from, options)?;
    let config = flags.config().map_err(|e| config_error(py, &e))?;
    // As many first bytes as the command line reads: an XML prolog's
    // length, up to the lookahead limit.
    let first = &html[..html.len().min(config.max_lookahead.max(FIRST_BYTES))];
    let mut layers = flags.layers().map_err(|e| config_error(py, &e))?;
    let mut warnings = Vec::new();
    let mut clue_media = None;
    if let Some(headers) = headers {
        // §3.2 and the charset, read as `--http` reads a response's block.
        let fields = header_fields(headers)?;
        let entity = entity::of_fields(&fields, &layers, config.standard, flags.content_location)
            .map_err(|e| error(py, "ConfigError", format!("cannot read headers: {e}")))?;
        warnings.extend(entity.warnings.iter().map(ToString::to_string));
        layers = entity.layers;
        clue_media = Some(entity.media);
    }
    // With headers, the body's type is `--http`'s: `type=`, else its
    // `Content-Type`, else its first bytes; a type no engine rewrites
    // leaves it as it is. Without, the first bytes decide.
    let decided = match &clue_media {
        None => decide(given, Clue::Alone, first, config.encoding),
        Some(media) => body_decided(given, &config, media.as_ref(), first),
    };
    let Some(kind) = decided.kind else {
        return Ok(Rewritten {
            html: PyBytes::new(py, &html).unbind(),
            base: None,
            base_layer: "none".to_owned(),
            encoding: String::new(),
            heard: Vec::new(),
            links: PyOnceLock::new(),
            warnings,
            rewritten: 0,
            kind: None,
        });
    };
    let read = (kind, decided.served_as_xml());
    let done = rewrite_released(py, read, config, layers, &html, warnings)?;
    let base = &done.report.base;
    Ok(Rewritten {
        html: PyBytes::new(py, &done.html).unbind(),
        base: (!base.is_empty()).then(|| base.url.to_string()),
        base_layer: base.layer.name().to_owned(),
        encoding: done.report.encoding.encoding.name().to_owned(),
        heard: done.links,
        links: PyOnceLock::new(),
        warnings: done.warnings,
        rewritten: done.report.counts.rewritten,
        kind: Some(kind.name()),
    })
}

/// What `rewrite_warc` gives: the summary line's figures, and the warnings.
#[pyclass(name = "Summary", module = "htmlabs", frozen, get_all)]
struct WarcSummary {
    /// Records read whole.
    records: u64,
    /// Responses and resources rewritten, of every type.
    rewritten: u64,
    /// Of those, stylesheets, and XML documents (feeds, sitemaps, SVG).
    css_rewritten: u64,
    xml_rewritten: u64,
    /// Conversion records added (the `warcinfo` before them is not counted).
    conversions: u64,
    /// Records replaced by their rewritten version (replace mode).
    replaced: u64,
    /// URL values rewritten.
    urls: u64,
    /// The warnings, as the command line prints them.
    warnings: Vec<String>,
    /// Whether a warning said the run could not do all it was asked (the
    /// command line's exit status 2; the output is complete all the same).
    incomplete: bool,
    /// Bytes read.
    bytes: u64,
    /// Pages left as they were: the archive holds their conversion by
    /// htmlabs already, right after them (a second run).
    converted: u64,
    /// What the command line's summary line says, but its speed:
    /// `412 records, 181 HTML rewritten, 3 CSS rewritten, …`.
    line: String,
}

#[pymethods]
impl WarcSummary {
    fn __repr__(&self) -> String {
        format!("<htmlabs.Summary: {}>", self.line)
    }
}

/// One end of a WARC run: a path, or a binary file object.
enum End {
    Path(PathBuf),
    Object(Py<PyAny>, String),
}

fn end(value: &Bound<'_, PyAny>, method: &str, what: &str) -> PyResult<End> {
    if let Ok(path) = value.extract::<PathBuf>() {
        return Ok(End::Path(path));
    }
    if !value.hasattr(method)? {
        return Err(PyTypeError::new_err(format!(
            "{what} must be a path or a binary file object with `{method}`"
        )));
    }
    let io = value.py().import("io")?;
    if value.is_instance(&io.getattr("TextIOBase")?)? {
        return Err(PyTypeError::new_err(format!(
            "{what} must be opened in binary mode"
        )));
    }
    // Named in messages by its file name, as a path would be.
    let name = match value.getattr("name").and_then(|n| n.extract::<String>()) {
        Ok(name) => format!("`{name}`"),
        Err(_) => format!("the {what} file object"),
    };
    Ok(End::Object(value.clone().unbind(), name))
}

/// Python's exception, for an io error: its text.
fn io_error(e: PyErr) -> io::Error {
    Python::attach(|py| io::Error::other(e.value(py).to_string()))
}

/// A binary file object read from a released thread: each read takes the
/// interpreter back for its call.
struct PyReader(Py<PyAny>);

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let got = self
                .0
                .bind(py)
                .call_method1("read", (buf.len(),))
                .map_err(io_error)?;
            let bytes = got.cast::<PyBytes>().map_err(|_| {
                io::Error::other(format!(
                    "read() gave {}, not bytes",
                    got.get_type()
                        .name()
                        .map_or("something else".to_owned(), |n| n.to_string())
                ))
            })?;
            let bytes = bytes.as_bytes();
            if bytes.len() > buf.len() {
                return Err(io::Error::other("read(n) gave more than n bytes"));
            }
            buf[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        })
    }
}

/// A binary file object written from a released thread.
struct PyWriter(Py<PyAny>);

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let written = self
                .0
                .bind(py)
                .call_method1("write", (PyBytes::new(py, buf),))
                .map_err(io_error)?;
            // A raw file may write less than it was given; a buffered one
            // writes all (some objects say None).
            match written.extract::<Option<usize>>() {
                Ok(Some(n)) if n <= buf.len() => Ok(n),
                Ok(None) => Ok(buf.len()),
                _ => Err(io::Error::other(
                    "write() did not say how many bytes it wrote",
                )),
            }
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Python::attach(|py| {
            let object = self.0.bind(py);
            if object.hasattr("flush").map_err(io_error)? {
                object.call_method0("flush").map_err(io_error)?;
            }
            Ok(())
        })
    }
}

/// A WARC run's mode, jobs and compression levels, by the command line's
/// names, into the request, checked: it decides the defaults (all cores)
/// and checks the ranges, as for `--warc-mode`, `--jobs`, `--gzip-level`
/// and `--zstd-level`.
fn warc_request(
    py: Python<'_>,
    mut flags: Request,
    mode: &str,
    jobs: Option<usize>,
    gzip_level: Option<u32>,
    zstd_level: Option<i32>,
) -> PyResult<Request> {
    flags.warc_mode = request::warc_mode(mode).ok_or_else(|| {
        PyValueError::new_err(format!("unknown WARC mode: `{mode}` (conversion, replace)"))
    })?;
    flags.jobs = jobs;
    flags.gzip_level = gzip_level;
    flags.zstd_level = zstd_level;
    flags.warc().map_err(|e| config_error(py, &e))?;
    flags.config().map_err(|e| config_error(py, &e))?;
    Ok(flags)
}

/// Keeps a run's warnings, as the command line prints them.
#[derive(Default)]
struct Warnings(Mutex<Vec<String>>);

impl Listener for Warnings {
    fn warning(&self, _: &Document<'_>, warning: &SourceWarning<'_>) {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(warning.to_string());
    }
}

/// Rewrites a web archive (WARC 1.0 or 1.1, plain, gzip or zstd).
#[pyfunction]
#[pyo3(signature = (src, dst, *, mode="conversion", jobs=None, gzip_level=None,
                    zstd_level=None, **options))]
#[allow(clippy::too_many_arguments)]
fn rewrite_warc(
    py: Python<'_>,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
    mode: &str,
    jobs: Option<usize>,
    gzip_level: Option<u32>,
    zstd_level: Option<i32>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<WarcSummary> {
    let request = warc_request(
        py,
        flags(None, options)?,
        mode,
        jobs,
        gzip_level,
        zstd_level,
    )?;
    let src = end(src, "read", "src")?;
    let dst = end(dst, "write", "dst")?;
    let run = py.detach(move || {
        let input = match src {
            End::Path(path) => Input::File(path),
            End::Object(object, name) => Input::Reader {
                reader: Box::new(PyReader(object)),
                name,
            },
        };
        let output = match dst {
            End::Path(path) => Output::File(path),
            End::Object(object, name) => Output::Writer {
                writer: Box::new(PyWriter(object)),
                name,
            },
        };
        let warnings = Warnings::default();
        let job = Job::Warc { input, output };
        let summary = run_heard(&request, job, &warnings, &Arc::new(AtomicBool::new(false)))?;
        let warnings = warnings.0.into_inner().unwrap_or_else(|e| e.into_inner());
        Ok::<_, SourceError>((summary, warnings))
    });
    let (summary, warnings) = run.map_err(|e| source_error(py, &e))?;
    let Some(tally) = summary.tally.get::<ArchiveTally>() else {
        let why = "an archive's run gave no archive's figures";
        return Err(error(py, "Error", why.to_owned()));
    };
    Ok(WarcSummary {
        records: tally.records,
        rewritten: tally.rewritten,
        css_rewritten: tally.rewritten_css,
        xml_rewritten: tally.rewritten_xml,
        conversions: tally.conversions,
        replaced: tally.replaced,
        urls: tally.urls,
        warnings,
        incomplete: summary.incomplete,
        bytes: tally.bytes,
        converted: tally.converted,
        line: tally.figures(false),
    })
}

#[pymodule]
fn _htmlabs(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(rewrite, m)?)?;
    m.add_function(wrap_pyfunction!(rewrite_warc, m)?)?;
    m.add_function(wrap_pyfunction!(links::warc_links, m)?)?;
    m.add_function(wrap_pyfunction!(check::check_links, m)?)?;
    m.add_class::<links::Links>()?;
    m.add_class::<check::CheckSummary>()?;
    m.add_function(wrap_pyfunction!(captures::warc_captures, m)?)?;
    m.add_function(wrap_pyfunction!(captures::url_key, m)?)?;
    m.add_class::<captures::Captures>()?;
    m.add_class::<Rewritten>()?;
    m.add_class::<WarcSummary>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
