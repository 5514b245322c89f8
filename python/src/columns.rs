//! Links as Arrow columns: the buffers of a record batch, laid out as the
//! Arrow format says (a validity bitmap, 32-bit offsets and the bytes of
//! a UTF-8 column; the values of a 64-bit integer one), built in Rust and
//! handed to pyarrow whole (`pa.Array.from_buffers`), so that no link
//! becomes a Python object on its way to Spark's JVM.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

/// A UTF-8 column.
#[derive(Default)]
struct Strings {
    /// One bit a value, least significant first: 1 where it is not null.
    valid: Vec<u8>,
    /// Where each value starts in `data`, and where the last ends.
    offsets: Vec<i32>,
    data: Vec<u8>,
    nulls: usize,
}

impl Strings {
    fn push(&mut self, value: Option<&str>) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let index = self.offsets.len() - 1;
        if index % 8 == 0 {
            self.valid.push(0);
        }
        match value {
            Some(value) => {
                self.valid[index / 8] |= 1 << (index % 8);
                self.data.extend_from_slice(value.as_bytes());
            }
            None => self.nulls += 1,
        }
        // Below 2 GiB: the caller ends a batch before a row that does
        // not fit (`Columns::fits`).
        self.offsets
            .push(i32::try_from(self.data.len()).unwrap_or(i32::MAX));
    }

    /// `(validity or None, offsets, data, null count)`.
    fn into_python(mut self, py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        let offsets: Vec<u8> = self.offsets.iter().flat_map(|o| o.to_ne_bytes()).collect();
        let valid = (self.nulls > 0).then(|| PyBytes::new(py, &self.valid));
        (
            valid,
            PyBytes::new(py, &offsets),
            PyBytes::new(py, &self.data),
            self.nulls,
        )
            .into_pyobject(py)
    }
}

/// The columns of a batch of links.
#[derive(Default)]
pub struct Columns {
    rows: usize,
    record: Strings,
    target: Strings,
    date: Strings,
    line: Vec<i64>,
    column: Vec<i64>,
    offset: Vec<i64>,
    element: Strings,
    attribute: Strings,
    kind: Strings,
    original: Strings,
    raw: Strings,
    absolute: Strings,
    outcome: Strings,
    base: Strings,
    layer: Strings,
}

impl Columns {
    /// One row: the link and its record's `record`, `target` and `date`,
    /// each value as a line of the report has it.
    pub fn push(&mut self, place: [&str; 3], link: &htmlabs::Link) {
        self.rows += 1;
        self.record.push(Some(place[0]));
        self.target.push(Some(place[1]));
        self.date.push(Some(place[2]));
        let p = link.position;
        self.line.push(p.line as i64);
        self.column.push(p.column as i64);
        self.offset.push(p.offset as i64);
        self.element.push(Some(&link.element));
        self.attribute.push(Some(&link.attribute));
        self.kind.push(Some(link.kind.name()));
        self.original.push(Some(&link.original));
        if link.raw.is_some() {
            // Percent-encoded as the report writes it (rare: bytes that
            // are not text in the page's encoding).
            let fields = htmlabs::internal::listing::link_fields(link);
            self.raw.push(fields.get("raw").and_then(|r| r.as_str()));
        } else {
            self.raw.push(None);
        }
        self.absolute.push(link.absolute.as_deref());
        self.outcome.push(Some(link.outcome.name()));
        let base = (!link.base.url.is_empty()).then_some(&*link.base.url);
        self.base.push(base);
        self.layer.push(Some(link.base.layer.name()));
    }

    /// Whether the row of `link` fits: no text column past what 32-bit
    /// offsets can say (its `raw` at most thrice its bytes, encoded).
    pub fn fits(&self, place: [&str; 3], link: &htmlabs::Link) -> bool {
        let grows = place.iter().map(|p| p.len()).sum::<usize>() + 3 * link.size();
        self.bytes().saturating_add(grows) <= i32::MAX as usize
    }

    pub fn rows(&self) -> usize {
        self.rows
    }

    /// The bytes its text columns hold: a batch ends well before any
    /// reaches what 32-bit offsets can say.
    pub fn bytes(&self) -> usize {
        [
            &self.record,
            &self.target,
            &self.date,
            &self.element,
            &self.attribute,
            &self.kind,
            &self.original,
            &self.raw,
            &self.absolute,
            &self.outcome,
            &self.base,
            &self.layer,
        ]
        .iter()
        .map(|s| s.data.len())
        .max()
        .unwrap_or(0)
    }

    /// `(rows, columns)`, the columns in the order of
    /// `htmlabs.spark.LINK_COLUMNS` between `path` and `error` (which the
    /// caller adds: one value a file): a text
    /// one `(validity or None, offsets, data, null count)`, an integer one
    /// its values (`int64`, native order).
    pub fn into_python(self, py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
        let integers = |values: Vec<i64>| {
            let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
            PyBytes::new(py, &bytes).into_any()
        };
        let columns = [
            self.record.into_python(py)?.into_any(),
            self.target.into_python(py)?.into_any(),
            self.date.into_python(py)?.into_any(),
            integers(self.line),
            integers(self.column),
            integers(self.offset),
            self.element.into_python(py)?.into_any(),
            self.attribute.into_python(py)?.into_any(),
            self.kind.into_python(py)?.into_any(),
            self.original.into_python(py)?.into_any(),
            self.raw.into_python(py)?.into_any(),
            self.absolute.into_python(py)?.into_any(),
            self.outcome.into_python(py)?.into_any(),
            self.base.into_python(py)?.into_any(),
            self.layer.into_python(py)?.into_any(),
        ];
        (self.rows, PyTuple::new(py, columns)?).into_pyobject(py)
    }
}
