//! An archive's records as every line and every listener names them
//! (`Named`, at a `Place` of the input) and the warnings about them
//! (`ArchiveWarning`): what is heard of an archive, below the source that
//! reads it (`warc`), so that a listener knows them without knowing it.

use std::fmt;

use crate::source::warned::Warned;

use crate::source::http;
use crate::source::names;

/// Where a record starts, in the input's bytes: what a user can seek to,
/// and what CDX indexes list (a gzip member's offset).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A plain file's byte.
    Byte(u64),
    /// A byte of the data of the gzip member that starts at `member`.
    Member { member: u64, within: u64 },
    /// A byte of the data of the zstd frame that starts at `frame`.
    Frame { frame: u64, within: u64 },
}

impl Place {
    /// What the input is read in here: what new records may be put after.
    pub fn unit(&self) -> &'static str {
        match self {
            Place::Byte(_) => "record",
            Place::Member { .. } => "gzip member",
            Place::Frame { .. } => "zstd frame",
        }
    }
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Place::Byte(at) => write!(f, "byte {at}"),
            Place::Member { member, within: 0 } => write!(f, "the gzip member at byte {member}"),
            Place::Member { member, within } => {
                write!(f, "byte {within} of the gzip member at byte {member}")
            }
            Place::Frame { frame, within: 0 } => write!(f, "the zstd frame at byte {frame}"),
            Place::Frame { frame, within } => {
                write!(f, "byte {within} of the zstd frame at byte {frame}")
            }
        }
    }
}

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
#[non_exhaustive]
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
    /// How many warnings it counts for in a summary.
    pub fn stands_for(&self) -> usize {
        match self {
            ArchiveWarning::Record { warning, .. } => warning.stands_for(),
            _ => 1,
        }
    }

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

/// An archive's: on a record, or on the input from a place on.
impl Warned for ArchiveWarning {
    fn stops_rewriting(&self) -> bool {
        ArchiveWarning::stops_rewriting(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
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
