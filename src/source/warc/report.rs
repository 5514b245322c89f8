//! What a WARC run tells: each warning as it happens, naming the record
//! (its ID, target URI and place), and the tally at the end.

use std::fmt;
use std::time::Duration;

use super::header::Header;
use super::input::Place;
use crate::source::http;
use crate::source::names;

/// The record a warning is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// `WARC-Record-ID` as written (`<urn:uuid:…>`), with U+FFFD where its
    /// bytes are not UTF-8 (the link report's `record`).
    pub id: String,
    /// `WARC-Target-URI`, without angle brackets; U+FFFD as in `id`.
    pub target: String,
    /// `WARC-Date` as written (the capture's time: `2024-05-01T10:00:02Z`).
    pub date: String,
    pub at: Place,
    /// `WARC-Record-ID` and `WARC-Target-URI` as their bytes came: what
    /// every line that names the record shows ([`names::shown`]).
    pub id_bytes: Vec<u8>,
    pub target_bytes: Vec<u8>,
}

impl Named {
    /// The record whose header is `header`, at `at`.
    pub(crate) fn of(header: &Header, at: Place) -> Named {
        let id_bytes = header
            .raw("WARC-Record-ID")
            .map(|id| id.trim_ascii().to_vec())
            .unwrap_or_default();
        let target_bytes = header.target_uri_bytes().unwrap_or_default().to_vec();
        Named {
            id: String::from_utf8_lossy(&id_bytes).into_owned(),
            target: String::from_utf8_lossy(&target_bytes).into_owned(),
            date: header.date(),
            at,
            id_bytes,
            target_bytes,
        }
    }
}

impl fmt::Display for Named {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Both come from the input: shown as every value of it is.
        write!(f, "record `{}`", names::shown(&self.id_bytes))?;
        if !self.target_bytes.is_empty() {
            write!(f, " (`{}`)", names::shown(&self.target_bytes))?;
        }
        write!(f, " at {}", self.at)
    }
}

/// Something the user should know, printed to standard error as it
/// happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArchiveWarning {
    /// The response's (or the document's) own warning.
    Record {
        record: Named,
        warning: http::ResponseWarning,
    },
    /// A record that could not be read as a response (its HTTP head is
    /// bad): it is kept as it is, and no conversion is added.
    NotRewritten { record: Named, why: String },
    /// From here on the input cannot be read: the rest is copied byte
    /// for byte, and the run fails.
    Malformed { at: Place, why: String },
    /// A record not framed as its header says (or bytes that are no
    /// record): copied byte for byte, not rewritten, up to `next`, the
    /// next line that starts with `WARC/` (`None`: the end of the input),
    /// where the records go on; the run fails.
    Misframed {
        at: Place,
        why: String,
        next: Option<Place>,
    },
    /// A digest of the input that its record's bytes do not have: told,
    /// and kept as it is.
    Digest {
        record: Named,
        field: &'static str,
        says: String,
        is: String,
        /// After an interim response: the payload's digest from the last
        /// HTTP header block on (`is` is from the first one on).
        or: Option<String>,
    },
    /// In replace mode, a record whose unit (a gzip member, a zstd frame)
    /// holds other records, or that spans several units: it cannot be
    /// dropped without them, so its page is added after it as a conversion.
    NotReplaced { record: Named, spans: bool },
    /// In replace mode, a revisit of a record that was replaced: its
    /// payload digest (or `WARC-Refers-To`) names what is no longer there.
    Revisit { record: Named, replaced: Named },
    /// A record its crawler marked cut short (`WARC-Truncated`) whose page
    /// could not be read whole (`why`): kept as it is; the run does not
    /// fail for it.
    Truncated {
        record: Named,
        truncated: String,
        why: String,
    },
    /// A page rewritten whose unit (a gzip member, a zstd frame) breaks
    /// after it: its new record is not written, since nothing may follow
    /// broken bytes (a reader takes what follows for their end, and loses
    /// the record before).
    AfterBreak { record: Named },
}

impl ArchiveWarning {
    /// Whether the run failed to do all it was asked (exit status 2, the
    /// output complete).
    pub fn stops_rewriting(&self) -> bool {
        match self {
            ArchiveWarning::Record { warning, .. } => warning.stops_rewriting(),
            ArchiveWarning::NotRewritten { .. }
            | ArchiveWarning::Malformed { .. }
            | ArchiveWarning::Misframed { .. }
            | ArchiveWarning::AfterBreak { .. } => true,
            ArchiveWarning::Digest { .. }
            | ArchiveWarning::NotReplaced { .. }
            | ArchiveWarning::Revisit { .. }
            | ArchiveWarning::Truncated { .. } => false,
        }
    }
}

impl fmt::Display for ArchiveWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArchiveWarning::Record { record, warning } => write!(f, "{record}: {warning}"),
            ArchiveWarning::NotRewritten { record, why } => {
                write!(f, "{record}: kept as it is, not rewritten: {why}")
            }
            ArchiveWarning::Malformed { at, why } => write!(
                f,
                "malformed record at {at}: {why}: the rest of the input is copied as it is"
            ),
            ArchiveWarning::Misframed {
                at,
                why,
                next: Some(next),
            } => write!(
                f,
                "malformed record at {at}: {why}: copied as it is, up to the next record, at {next}"
            ),
            ArchiveWarning::Misframed {
                at,
                why,
                next: None,
            } => write!(
                f,
                "malformed record at {at}: {why}: copied as it is, with the rest of the input (no record starts after it)"
            ),
            ArchiveWarning::Digest {
                record,
                field,
                says,
                is,
                or: None,
            } => write!(
                f,
                "{record}: `{field}: {}` is not its digest (`{is}`): kept as it is",
                names::shown(says.as_bytes())
            ),
            ArchiveWarning::Digest {
                record,
                field,
                says,
                is,
                or: Some(or),
            } => write!(
                f,
                "{record}: `{field}: {}` is not its digest (`{is}` after its first HTTP header block, `{or}` after its last): kept as it is",
                names::shown(says.as_bytes())
            ),
            ArchiveWarning::NotReplaced { record, spans } => {
                let unit = record.at.unit();
                let why = match spans {
                    true => format!("it spans more than one {unit}"),
                    false => format!("its {unit} holds other records too"),
                };
                write!(
                    f,
                    "{record}: {why}: not replaced, its rewritten page added after it as a conversion record"
                )
            }
            ArchiveWarning::Revisit { record, replaced } => write!(
                f,
                "revisit {record}: it refers to {replaced}, which was replaced: its digest no longer matches a record here"
            ),
            ArchiveWarning::Truncated {
                record,
                truncated,
                why,
            } => write!(
                f,
                "{record}: its crawler cut it short (`WARC-Truncated: {truncated}`): {why}"
            ),
            ArchiveWarning::AfterBreak { record } => write!(
                f,
                "{record}: its {} breaks after it: its rewritten page is not written, since nothing may follow broken bytes",
                record.at.unit()
            ),
        }
    }
}

/// What a run did, for the summary line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Records read whole.
    pub records: u64,
    /// Pages: HTML responses and resources read (each a document).
    pub pages: u64,
    /// Responses and resources rewritten, of every type.
    pub rewritten: u64,
    /// Of those, stylesheets and XML documents (feeds, sitemaps, SVG).
    pub rewritten_css: u64,
    pub rewritten_xml: u64,
    /// Pages kept as they are because they could not all be rewritten.
    pub failed: u64,
    /// URL values that would change, of the links heard.
    pub changes: u64,
    /// The links heard (when the listener hears links).
    pub links: u64,
    /// Conversion records added.
    pub conversions: u64,
    /// Records replaced by their rewritten version (replace mode).
    pub replaced: u64,
    /// Pages left as they are because the archive holds their conversion
    /// by htmlabs already, right after them (a second run).
    pub converted: u64,
    pub urls: u64,
    pub warnings: u64,
    /// Whether a warning said the run could not do all it was asked.
    pub incomplete: bool,
    /// Raw bytes read.
    pub bytes: u64,
}

impl Tally {
    /// The line printed at the end: `412 records, 181 HTML rewritten, …`
    /// (and `3 CSS rewritten, 2 XML rewritten, ` when there are any); for
    /// a check (`check`), which writes nothing, what would change:
    /// `412 records, 181 HTML would change, 9012 URLs would change, …`.
    pub fn line(&self, check: bool, elapsed: Duration) -> String {
        let seconds = elapsed.as_secs_f64().max(1e-6);
        let verb = if check { "would change" } else { "rewritten" };
        let mut others = String::new();
        for (n, name) in [(self.rewritten_css, "CSS"), (self.rewritten_xml, "XML")] {
            if n > 0 {
                others += &format!("{n} {name} {verb}, ");
            }
        }
        if self.converted > 0 {
            others += &format!("{} already converted, ", self.converted);
        }
        let added = match (check, self.replaced) {
            (true, _) => String::new(),
            (false, 0) => format!(
                "{} conversion{} added, ",
                self.conversions,
                plural(self.conversions)
            ),
            (false, replaced) => format!(
                "{replaced} replaced, {} conversion{} added, ",
                self.conversions,
                plural(self.conversions)
            ),
        };
        format!(
            "{} record{}, {} HTML {verb}, {others}{added}{} URL{} {verb}, {} warning{}, {:.1} MB/s",
            self.records,
            plural(self.records),
            self.rewritten - self.rewritten_css - self.rewritten_xml,
            self.urls,
            plural(self.urls),
            self.warnings,
            plural(self.warnings),
            self.bytes as f64 / 1e6 / seconds
        )
    }
}

impl Tally {
    /// The line printed at the end of `--links`, which writes nothing:
    /// `412 records, 181 pages, 21034 links, …`.
    pub fn links_line(&self, elapsed: Duration) -> String {
        let seconds = elapsed.as_secs_f64().max(1e-6);
        format!(
            "{} record{}, {} page{}, {} link{}, {} warning{}, {:.1} MB/s",
            self.records,
            plural(self.records),
            self.pages,
            plural(self.pages),
            self.links,
            plural(self.links),
            self.warnings,
            plural(self.warnings),
            self.bytes as f64 / 1e6 / seconds
        )
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}
