//! One record's work, done on its own (on any thread, `--jobs`): its
//! digests checked, its page rewritten, and the new record made of it, a
//! `conversion` after it or the record replaced, compressed when the
//! input is. Everything it tells goes into its [`RecordDone`], told in input
//! order by the run.

use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::Encoding;

use super::digest::Digest;
use super::header::Header;
use super::input::Place;
use super::report::{ArchiveWarning, Named};
use super::write::{self, Packing, Record, now, record_id};
use crate::document::config::Config;
use crate::document::encoding;
use crate::document::error::Error as DocumentError;
use crate::document::events::Events;
use crate::document::memory::{Allowance, Memory};
use crate::source::http::{self, Edit, HeadReader, media};
use crate::source::listener::{Checks, Document};
use crate::source::output::spool::{Held, Spool};
use crate::source::typing::{Clue, decide, may_be_read, media_type_of, read_first, sniff_limit};
use crate::source::waiting::{Check, Waiting};
use crate::typed::{Rewriter, Type};
use crate::url::Layers;

/// How a rewritten page is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// The archive as it came, each rewritten page added after its record
    /// as a `conversion` record (the default).
    #[default]
    Conversion,
    /// Each rewritten page's record replaced by a new one that carries it.
    Replace,
}

/// Which records are rewritten.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// `response` with an HTTP response block.
    Response,
    /// `resource` of a type an engine may read (HTML, CSS, XML), with its
    /// `Content-Type`'s essence and charset.
    Resource {
        essence: String,
        charset: Option<String>,
    },
    Other,
}

pub fn kind(header: &Header) -> Kind {
    // A segment is not the whole payload: it is never rewritten.
    if header.get("WARC-Segment-Number").is_some() {
        return Kind::Other;
    }
    let content_type = header.get("Content-Type").unwrap_or_default();
    let media = media::parse(&content_type);
    match header.record_type().as_str() {
        "response" if holds_http_response(&content_type) => Kind::Response,
        "resource" if media.as_ref().is_some_and(|m| may_be_read(&m.essence)) => {
            let media = media.expect("matched");
            Kind::Resource {
                essence: media.essence,
                charset: media.charset,
            }
        }
        _ => Kind::Other,
    }
}

/// Whether a record of `Content-Type` `content_type` holds an HTTP
/// response: `application/http` with `msgtype=response`, or none (the
/// type alone). A response's, or a revisit's (its head alone).
pub fn holds_http_response(content_type: &str) -> bool {
    if media::parse(content_type).is_none_or(|m| m.essence != "application/http") {
        return false;
    }
    let lower = content_type.to_ascii_lowercase();
    let msgtype = lower.split(';').skip(1).find_map(|p| {
        let (name, value) = p.split_once('=')?;
        (name.trim() == "msgtype").then(|| value.trim().trim_matches('"').to_owned())
    });
    matches!(msgtype.as_deref(), None | Some("response"))
}

/// A record read whole, and what to make of it.
pub struct Work {
    pub header: Header,
    pub block: Spool,
    pub kind: Kind,
    pub at: Place,
    /// Whether a new version replaces the record (else it follows it as
    /// a conversion).
    pub replace: bool,
    /// When it was asked to replace it and its unit is not its alone:
    /// whether it spans several units (else its unit holds other records).
    pub not_alone: Option<bool>,
    /// How the input writes its digests.
    pub digest: Digest,
    /// How new records are compressed: as the input's.
    pub packing: Packing,
    /// The `WARC-Warcinfo-ID` of the records added.
    pub warcinfo: Vec<u8>,
    /// Whether its links are listed (`--check`, `--report`).
    pub listen: bool,
    /// Whether its new record is made: not when the output goes nowhere
    /// (`--check`, `--links`), where it would be compressed for nothing.
    pub write: bool,
    /// Whether its digests are checked (`Options::page_digests`).
    pub digests: bool,
    /// The run's memory: the record's share of it while it is worked on,
    /// and what its new record holds while it waits for the records before
    /// it (past the room there is, a temporary file).
    pub memory: Memory,
    /// Its place among the works handed out: the oldest in flight has the
    /// head share.
    pub place: u64,
}

/// What a record's work gave.
pub struct RecordDone {
    pub named: Named,
    pub warnings: Vec<ArchiveWarning>,
    pub urls: u64,
    /// Whether the page changed: a new record is made of it (or would
    /// be, when nothing is written).
    pub changed: bool,
    /// The new record, as it is written (a gzip member or zstd frame when
    /// the input is compressed), when the page changed and it is written.
    pub record: Option<Spool>,
    /// Whether it replaces the record read.
    pub replaces: bool,
    /// The version line of the record read.
    pub version: Vec<u8>,
    /// `WARC-Payload-Digest` of the record read.
    pub payload_digest: Option<String>,
    /// The new record could not be made or written.
    pub failed: Option<io::Error>,
    /// Each URL value of its page, when listened for, waiting for the
    /// records before it to be told.
    pub links: Waiting,
    /// Its page was rewritten, and then not written: its links are not
    /// told.
    pub unheard: bool,
    /// Whether it holds a page (an HTML response or resource, read as one
    /// or kept as it is): a document.
    pub page: bool,
    /// The type its document was read as.
    pub kind: Option<Type>,
}

/// Does a record's work; never fails: an error reading or writing its
/// temporary files is carried in `RecordDone::failed`.
///
/// Within a share of the run's memory: a small one beside the others, the
/// head's for the oldest in flight. A page that outgrows a small one is
/// rewritten again with the head's (its block is held, and nothing of the
/// first attempt was told), so what becomes of it does not depend on the
/// jobs.
pub fn work(
    config: &Arc<Config>,
    content_location: bool,
    checks: Option<&dyn Checks>,
    mut work: Work,
) -> RecordDone {
    let ticket = work.memory.enter(work.place);
    let mut share = ticket.share();
    loop {
        let allowance = Allowance::new(share);
        let done = attempt(config, content_location, checks, &mut work, &allowance);
        if allowance.ran_out() && !allowance.is_head() {
            drop((done, allowance));
            share = ticket.head_share();
            continue;
        }
        return done;
    }
}

/// One attempt at a record's work, within `allowance`.
fn attempt(
    config: &Arc<Config>,
    content_location: bool,
    checks: Option<&dyn Checks>,
    work: &mut Work,
    allowance: &Rc<Allowance>,
) -> RecordDone {
    let named = Named::of(&work.header, work.at);
    let mut done = RecordDone {
        named,
        warnings: Vec::new(),
        urls: 0,
        changed: false,
        record: None,
        replaces: false,
        version: work.header.version_line().to_vec(),
        payload_digest: work
            .header
            .get("WARC-Payload-Digest")
            .map(|d| d.into_owned()),
        failed: None,
        links: Waiting::default(),
        unheard: false,
        page: false,
        kind: None,
    };
    // The record's links, kept (taken from its share) until it is told.
    let heard = Events::default();
    heard.charge(allowance);
    if let Err(e) = rewrite(config, content_location, work, &mut done, &heard, allowance) {
        done.changed = false;
        done.record = None;
        done.replaces = false;
        done.failed = Some(e);
    }
    if heard.over() && done.failed.is_none() {
        // Its links outgrew its share, and those past it were not kept: a
        // report without them would pass for whole. The record is kept as
        // it came, and said so, as a site's file is.
        done.changed = false;
        done.record = None;
        done.replaces = false;
        done.urls = 0;
        done.warnings.push(ArchiveWarning::NotRewritten {
            record: done.named.clone(),
            why: format!(
                "its links do not fit the memory limit of {} bytes (--max-memory)",
                work.memory.named()
            ),
        });
    }
    if let Some(value) = work.header.get("WARC-Truncated") {
        cut_short(&mut done, &value);
    }
    // The links wait with the record for the ones before it, out of its
    // share (drawn from the run's memory, or in a temporary file), checked
    // here, on its worker, beside the other records' when asked.
    if !done.unheard && done.failed.is_none() {
        let check = checks.map(|checks| Check {
            checks,
            document: Document::Record(&done.named),
        });
        match Waiting::of(&heard, &work.memory, check) {
            Ok(links) => done.links = links,
            Err(e) => done.failed = Some(e),
        }
    }
    done
}

/// A record its crawler marked cut short (`WARC-Truncated`, with `value`):
/// that its page could not be read whole is what the mark says, not a
/// fault of the archive. It is kept as it is, with a warning that does
/// not fail the run. (A page that could be rewritten as far as it goes,
/// as HTML can, is, and its new record says it is of a cut page.)
fn cut_short(done: &mut RecordDone, value: &str) {
    for warning in &mut done.warnings {
        let why = match warning {
            ArchiveWarning::Record { warning, .. } if warning.stops_rewriting() => {
                warning.to_string()
            }
            ArchiveWarning::NotRewritten { why, .. } => {
                format!("kept as it is, not rewritten: {why}")
            }
            _ => continue,
        };
        *warning = ArchiveWarning::Truncated {
            record: done.named.clone(),
            truncated: value.to_owned(),
            why,
        };
    }
}

/// What became of a record's page.
struct Outcome {
    warnings: Vec<http::ResponseWarning>,
    /// URLs rewritten.
    urls: usize,
    /// Its encoding, when all went well.
    changed: Option<&'static Encoding>,
}

/// A response's HTTP header blocks, and where its body starts.
struct Body {
    heads: Vec<http::Head>,
    offset: usize,
}

/// A page rewritten, and how its new record is made.
struct Page {
    spool: Spool,
    encoding: &'static Encoding,
    /// Its media type, as a conversion record names it.
    media_type: String,
    /// A response's HTTP header as it is in the new record (one block).
    heads: Option<Vec<u8>>,
}

fn rewrite(
    config: &Arc<Config>,
    content_location: bool,
    work: &mut Work,
    done: &mut RecordDone,
    heard: &Events<http::ResponseWarning>,
    allowance: &Rc<Allowance>,
) -> io::Result<()> {
    let heads = match work.kind {
        Kind::Response => match read_heads(&mut work.block)? {
            Ok(read) => Some(read),
            Err(why) => {
                if work.digests {
                    check_digests(work, None, done)?;
                }
                done.page = true;
                done.warnings.push(ArchiveWarning::NotRewritten {
                    record: done.named.clone(),
                    why,
                });
                return Ok(());
            }
        },
        _ => None,
    };
    if work.digests {
        check_digests(work, heads.as_ref(), done)?;
    }
    let page = match (&work.kind, heads) {
        (Kind::Response, Some((heads, offset))) => {
            let body = Body { heads, offset };
            response(config, content_location, work, body, done, heard, allowance)?
        }
        (Kind::Resource { essence, charset }, _) => {
            let (essence, charset) = (essence.clone(), charset.clone());
            resource(config, work, &essence, charset, done, heard, allowance)?
        }
        _ => None,
    };
    let Some(mut page) = page else {
        return Ok(());
    };
    let id = work.header.raw("WARC-Record-ID").map(<[u8]>::trim_ascii);
    if !work.replace && id.is_none_or(<[u8]>::is_empty) {
        // A conversion that cannot name its original: which record it is
        // of would be a guess (and a second run, finding none tied to the
        // record, would add another).
        done.warnings.push(ArchiveWarning::NotRewritten {
            record: done.named.clone(),
            why: "it has no `WARC-Record-ID` for its conversion record to refer to (`WARC-Refers-To`)"
                .to_owned(),
        });
        done.urls = 0;
        done.unheard = true;
        return Ok(());
    }
    done.changed = true;
    let mut record = Spool::new(&work.memory);
    if work.replace {
        if work.write {
            replacement(work, &mut page, &mut record)?;
        }
        done.replaces = true;
    } else {
        if work.write {
            conversion(work, &mut page, &mut record)?;
        }
        if let Some(spans) = work.not_alone {
            done.warnings.push(ArchiveWarning::NotReplaced {
                record: done.named.clone(),
                spans,
            });
        }
    }
    done.record = work.write.then_some(record);
    Ok(())
}

/// The record's layers: its target URI is the retrieval URL (§3.3).
/// One that is not UTF-8 is passed over with a warning, never decoded
/// lossily: its U+FFFD would make the links point elsewhere.
fn layers(config: &Arc<Config>, header: &Header, done: &mut RecordDone) -> Layers {
    let Some(target) = header.target_uri_bytes() else {
        return Layers::default();
    };
    let layers = std::str::from_utf8(target)
        .map_err(|_| "it is not UTF-8".to_owned())
        .and_then(|target| {
            Layers::default()
                .with_retrieval(config.standard, target, "WARC-Target-URI")
                .map_err(|e| e.to_string())
        });
    layers.unwrap_or_else(|why| {
        done.warnings.push(ArchiveWarning::Record {
            record: done.named.clone(),
            warning: http::ResponseWarning::NotAUrl {
                field: "WARC-Target-URI",
                value: target.to_vec(),
                offset: 0,
                why,
            },
        });
        Layers::default()
    })
}

/// An HTTP response's page, rewritten and decoded, when it changed.
fn response(
    config: &Arc<Config>,
    content_location: bool,
    work: &mut Work,
    body: Body,
    done: &mut RecordDone,
    heard: &Events<http::ResponseWarning>,
    allowance: &Rc<Allowance>,
) -> io::Result<Option<Page>> {
    let Body {
        heads,
        offset: body_offset,
    } = body;
    let Some(last) = heads.last() else {
        return Ok(None);
    };
    let media = media::content_type(last);
    if media.as_ref().is_some_and(|m| !may_be_read(&m.essence)) {
        return Ok(None);
    }
    let layers = layers(config, &work.header, done);
    let options = http::Options {
        content_location,
        strip_headers: true,
        kind: None,
    };
    let mut body = Tail {
        spool: &mut work.block,
        from: body_offset as u64,
    };
    // The page is the rewritten body as it was held (up to half the limit
    // in memory), not a copy of it. Nothing else is written when a page
    // is rewritten; what is written otherwise is of no use here.
    let mut page = None;
    let response = http::Response::new(Arc::clone(config), layers, options, io::sink())
        .with_events(heard.clone())
        .with_allowance(Rc::clone(allowance));
    let response = if work.listen {
        response.with_links()
    } else {
        response
    };
    // No new record is made: what the page becomes is counted, not kept.
    let response = if work.write {
        response
    } else {
        response.discarding_body()
    };
    let result = match response.end_held_keeping(&heads, &mut body, body_offset) {
        // A type no engine reads after all (`application/xml` of another
        // root): no document, as any other type.
        Ok((report, _)) if matches!(report.body, http::Body::NotRead(Some(_))) => {
            return Ok(None);
        }
        Ok((report, rewritten)) => Ok(match (&report.document, rewritten) {
            // With the headers stripped, a body comes out decoded even
            // when nothing in it changed: that is no new version.
            (Some(document), Some(rewritten)) => {
                page = Some(rewritten);
                done.kind = report.kind;
                Outcome {
                    urls: document.counts.rewritten,
                    changed: (report.body != http::Body::AsItCame && !report.incomplete())
                        .then_some(document.encoding.encoding),
                    warnings: report.warnings,
                }
            }
            _ => Outcome {
                urls: 0,
                changed: None,
                warnings: report.warnings,
            },
        }),
        Err(http::Error::Document(DocumentError::Write(e))) => return Err(e),
        Err(e) => Err(e.to_string()),
    };
    let (Some(encoding), Some(spool)) = (settle(result, done), page) else {
        return Ok(None);
    };
    let heads = work.replace.then(|| {
        // The last block alone, without the codings the body no longer
        // has, their values kept under pywb's names, and the body's true
        // length. The blocks before it (interim responses, `100
        // Continue`) are kept as fields of it, each line one: with them
        // left in front, warcio and FastWARC would take the payload to
        // start after the first, and the final response's body after the
        // last; with one block, every reader reads the same payload.
        let (last, interim) = heads.split_last().expect("found above");
        let length = spool.len().to_string();
        let mut lines: Vec<Vec<u8>> = Vec::new();
        for head in interim {
            let status = head
                .bytes()
                .split(|&b| b == b'\n')
                .next()
                .unwrap_or_default();
            lines.push(status.strip_suffix(b"\r").unwrap_or(status).to_vec());
            lines.extend(
                head.fields()
                    .map(|(name, value)| [name, b": ", value].concat()),
            );
        }
        let mut added: Vec<(&str, &[u8])> = lines
            .iter()
            .map(|line| ("X-Archive-Orig-Interim", &line[..]))
            .collect();
        added.push(("Content-Length", length.as_bytes()));
        last.edited(
            |name, _| {
                let renamed = ["Transfer-Encoding", "Content-Encoding", "Content-Length"]
                    .into_iter()
                    .find(|n| name.eq_ignore_ascii_case(n.as_bytes()));
                match renamed {
                    Some(n) => Edit::Rename(format!("X-Archive-Orig-{n}").into_bytes()),
                    None => Edit::Keep,
                }
            },
            &added,
        )
    });
    let kind = done.kind.unwrap_or(Type::Html);
    Ok(Some(Page {
        spool,
        encoding,
        media_type: match (kind, media) {
            (Type::Html, _) | (_, None) => media_type_of(kind).to_owned(),
            (_, Some(media)) => media.essence,
        },
        heads,
    }))
}

/// A `resource` record's document (of media type `essence`), rewritten,
/// when it changed.
fn resource(
    config: &Arc<Config>,
    work: &mut Work,
    essence: &str,
    charset: Option<String>,
    done: &mut RecordDone,
    heard: &Events<http::ResponseWarning>,
    allowance: &Rc<Allowance>,
) -> io::Result<Option<Page>> {
    let sniffing = config
        .encoding
        .or_else(|| charset.as_deref().and_then(encoding::for_label));
    // Its first bytes, up to the lookahead, taken from the record's share
    // as they are read, while it is done.
    let first = read_first(&mut work.block.reader()?, sniffing, sniff_limit(config))?;
    let mut sniffed = allowance.budget();
    if sniffed.take(first.len()).is_err() {
        return Ok(None);
    }
    let decided = decide(None, Clue::MediaType(Some(essence)), &first, sniffing);
    let Some(kind) = decided.kind else {
        return Ok(None);
    };
    done.kind = Some(kind);
    let mut layers = layers(config, &work.header, done);
    if let Some(encoding) = charset.as_deref().and_then(encoding::for_label) {
        layers = layers.with_charset(encoding, "the record's Content-Type");
    }
    let mut spool = match work.write {
        true => Spool::new(&work.memory),
        false => Spool::discarding(),
    };
    let mut rewriter = Rewriter::new(kind, Arc::clone(config), layers, &mut spool)
        .with_allowance(Rc::clone(allowance));
    if work.listen {
        rewriter = rewriter.with_links();
    }
    if !work.write {
        rewriter = rewriter.discarding();
    }
    if decided.served_as_xml() {
        rewriter = rewriter.served_as_xml();
    }
    let events = rewriter.events();
    let result = rewriter
        .read_from(work.block.reader()?)
        .and_then(|()| rewriter.end());
    heard.keep(events.take_held());
    let result = match result {
        Ok((report, _)) => Ok(Outcome {
            urls: report.counts.rewritten,
            changed: (!report.incomplete()).then_some(report.encoding.encoding),
            warnings: report
                .warnings
                .into_iter()
                .map(http::ResponseWarning::Document)
                .collect(),
        }),
        Err(DocumentError::Write(e)) => return Err(e),
        Err(e) => Err(e.to_string()),
    };
    let media_type = match kind {
        Type::Html => media_type_of(kind),
        _ => essence,
    };
    Ok(settle(result, done).map(|encoding| Page {
        spool,
        encoding,
        media_type: media_type.to_owned(),
        heads: None,
    }))
}

/// Tells what became of a record's page; gives the encoding of a new
/// version of it, when there is one (a URL changed, all went well).
fn settle(result: Result<Outcome, String>, done: &mut RecordDone) -> Option<&'static Encoding> {
    done.page = true;
    match result {
        Err(why) => {
            done.warnings.push(ArchiveWarning::NotRewritten {
                record: done.named.clone(),
                why,
            });
            None
        }
        Ok(outcome) => {
            for warning in outcome.warnings {
                done.warnings.push(ArchiveWarning::Record {
                    record: done.named.clone(),
                    warning,
                });
            }
            done.urls = outcome.urls as u64;
            outcome.changed.filter(|_| outcome.urls > 0)
        }
    }
}

/// The conversion of the record: after it, its page as its block.
fn conversion(work: &Work, page: &mut Page, out: &mut dyn Write) -> io::Result<()> {
    let original = &work.header;
    let sum = digest_of(&work.digest, &[], &mut page.spool, 0)?.into_bytes();
    let mut fields: Vec<(&str, Vec<u8>)> = vec![("WARC-Type", b"conversion".to_vec())];
    if let Some(target) = original.raw("WARC-Target-URI") {
        // As it came: WARC 1.0's `<…>` too.
        fields.push(("WARC-Target-URI", target.trim_ascii().to_vec()));
    }
    fields.push(("WARC-Date", now()));
    fields.push(("WARC-Record-ID", record_id()));
    if let Some(id) = original.raw("WARC-Record-ID") {
        fields.push(("WARC-Refers-To", id.trim_ascii().to_vec()));
    }
    fields.push(("WARC-Warcinfo-ID", work.warcinfo.clone()));
    if let Some(truncated) = original.raw("WARC-Truncated") {
        // A version of what the crawler kept of it: cut short too.
        fields.push(("WARC-Truncated", truncated.trim_ascii().to_vec()));
    }
    fields.push(("WARC-Block-Digest", sum.clone()));
    fields.push(("WARC-Payload-Digest", sum));
    fields.push((
        "Content-Type",
        format!("{}; charset={}", page.media_type, page.encoding.name()).into_bytes(),
    ));
    fields.push(("Content-Length", page.spool.len().to_string().into_bytes()));
    Record {
        head: write::head(original.version_line(), &fields),
        block: &mut page.spool,
    }
    .write(&work.packing, out)
}

/// The record replaced: its header as it came but for what the new block
/// changes, and its page (after its HTTP header, edited) as its block.
///
/// `WARC-Concurrent-To`: the new record has a new ID, and the records
/// written with the original (its request, its metadata) still name the
/// old one. Most crawlers write those after the response (Heritrix,
/// warcprox), wget before it, naming it from the response's side, and in
/// another file the old ID may be named too: the record's own links are
/// kept, and the old ID added to them, so that the link is two-way again
/// from the new record's side without touching any other record.
fn replacement(work: &Work, page: &mut Page, out: &mut dyn Write) -> io::Result<()> {
    let original = &work.header;
    let payload = digest_of(&work.digest, &[], &mut page.spool, 0)?.into_bytes();
    let heads = page.heads.take().unwrap_or_default();
    let sum = digest_of(&work.digest, &heads, &mut page.spool, 0)?.into_bytes();
    let mut block = BlockOf {
        heads: &heads,
        page: &mut page.spool,
    };
    let concurrent: Vec<(&str, Vec<u8>)> = original
        .raw("WARC-Record-ID")
        .map(<[u8]>::trim_ascii)
        .filter(|id| !id.is_empty())
        .map(|id| ("WARC-Concurrent-To", id.to_vec()))
        .into_iter()
        .collect();
    let head = write::edited(
        original,
        &[
            ("WARC-Record-ID", record_id()),
            ("WARC-Date", now()),
            ("WARC-Warcinfo-ID", work.warcinfo.clone()),
            ("WARC-Block-Digest", sum),
            ("WARC-Payload-Digest", payload),
            ("Content-Length", block.len().to_string().into_bytes()),
        ],
        &concurrent,
    );
    Record {
        head,
        block: &mut block,
    }
    .write(&work.packing, out)
}

/// A replaced response's block: its HTTP header, then its page.
struct BlockOf<'a> {
    heads: &'a [u8],
    page: &'a mut Spool,
}

impl Held for BlockOf<'_> {
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>> {
        Ok(Box::new(self.heads.chain(self.page.reader()?)))
    }

    fn len(&self) -> u64 {
        self.heads.len() as u64 + self.page.len()
    }

    fn in_memory(&self) -> bool {
        !self.page.spilled()
    }
}

/// The digests of a record read whole, checked: a field that does not
/// match is told, never "fixed" (the record keeps it). A chunked
/// response's payload digest is checked as the body came (warcio's
/// reading), and not told when it differs: writers disagree whether the
/// chunking is part of the payload. After an interim response (`100
/// Continue`), readers disagree where the payload starts: warcio and
/// FastWARC after the first HTTP header block, the final response's body
/// after the last; a digest of either is not told.
fn check_digests(
    work: &mut Work,
    heads: Option<&(Vec<http::Head>, usize)>,
    done: &mut RecordDone,
) -> io::Result<()> {
    // Where each field's digest starts: the readings of the payload, in
    // the order they are told.
    let mut checks: Vec<(&'static str, Vec<u64>)> = vec![("WARC-Block-Digest", vec![0])];
    match (&work.kind, heads) {
        (Kind::Response, Some((heads, offset))) => {
            let first = heads.first().map_or(0, |h| h.bytes().len());
            let mut starts = vec![first as u64];
            if first != *offset {
                starts.push(*offset as u64);
            }
            checks.push(("WARC-Payload-Digest", starts));
        }
        (Kind::Resource { .. }, _) => checks.push(("WARC-Payload-Digest", vec![0])),
        _ => {}
    }
    // The response's last HTTP block names a transfer coding.
    let transfer_coded = heads
        .and_then(|(heads, _)| heads.last())
        .is_some_and(|h| h.values("Transfer-Encoding").next().is_some());
    for (field, starts) in checks {
        let Some(says) = work.header.get(field) else {
            continue;
        };
        let Some(digest) = Digest::like(&says) else {
            continue;
        };
        let mut readings = Vec::new();
        for from in starts {
            readings.push(digest_of(&digest, &[], &mut work.block, from)?);
        }
        if readings
            .iter()
            .any(|is| is.eq_ignore_ascii_case(says.trim()))
            || field == "WARC-Payload-Digest" && transfer_coded
        {
            continue;
        }
        let mut readings = readings.into_iter();
        done.warnings.push(ArchiveWarning::Digest {
            record: done.named.clone(),
            field,
            says: says.trim().to_owned(),
            is: readings.next().unwrap_or_default(),
            or: readings.next(),
        });
    }
    Ok(())
}

/// The digest of `before`, then of what `spool` holds from byte `from`
/// on: hashed where it lies when it is in memory (no copy), else read
/// back from its file.
fn digest_of(digest: &Digest, before: &[u8], spool: &mut Spool, from: u64) -> io::Result<String> {
    if let Some(bytes) = spool.in_memory() {
        let rest = usize::try_from(from)
            .ok()
            .and_then(|from| bytes.get(from..))
            .unwrap_or_default();
        return Ok(digest.of_parts(&[before, rest]));
    }
    let mut reader = spool.reader()?;
    io::copy(&mut (&mut reader).take(from), &mut io::sink())?;
    digest.of(&mut before.chain(reader))
}

/// The HTTP header blocks at the start of a response record's block, and
/// where its body starts; the error says why they cannot be read.
fn read_heads(block: &mut Spool) -> io::Result<Result<(Vec<http::Head>, usize), String>> {
    let mut reader = HeadReader::new();
    let mut input = block.reader()?;
    let mut buf = vec![0u8; 16 * 1024];
    let mut seen = 0;
    let body = loop {
        let n = input.read(&mut buf)?;
        if n == 0 {
            match reader.end() {
                Ok(held) => break seen - held.len(),
                Err(e) => return Ok(Err(e.to_string())),
            }
        }
        match reader.write(&buf[..n]) {
            Ok(http::head::Read::Body { held, rest }) => break seen + rest - held.len(),
            Ok(http::head::Read::More) => seen += n,
            Err(e) => return Ok(Err(e.to_string())),
        }
    };
    Ok(Ok((reader.into_heads(), body)))
}

/// A spool's bytes from `from` on: a response's body after its blocks.
struct Tail<'a> {
    spool: &'a mut Spool,
    from: u64,
}

impl Held for Tail<'_> {
    fn open(&mut self) -> io::Result<Box<dyn Read + '_>> {
        let mut reader = self.spool.reader()?;
        io::copy(&mut (&mut reader).take(self.from), &mut io::sink())?;
        Ok(reader)
    }

    fn len(&self) -> u64 {
        self.spool.len() - self.from
    }

    fn in_memory(&self) -> bool {
        !self.spool.spilled()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_digest_of_a_spool_is_the_same_in_memory_and_spilled() {
        let digest = Digest::default();
        let bytes = b"HTTP/1.1 200 OK\r\n\r\n<a href=x>";
        let agree = |before: &[u8], from: usize| {
            let expected = digest.of(&mut before.chain(&bytes[from..])).unwrap();
            for limit in [1 << 20, 4] {
                let mut spool = Spool::with_limit(limit);
                spool.write_all(bytes).unwrap();
                assert_eq!(spool.spilled(), limit == 4);
                let is = digest_of(&digest, before, &mut spool, from as u64).unwrap();
                assert_eq!(
                    is, expected,
                    "before {before:?}, from {from}, limit {limit}"
                );
            }
        };
        // FIPS 180's "abc" example: the digest itself, not only agreement.
        let mut abc = Spool::with_limit(1 << 20);
        abc.write_all(b"xabc").unwrap();
        assert_eq!(
            digest_of(&digest, b"", &mut abc, 1).unwrap(),
            "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
        );
        for (before, from) in [
            (&b""[..], 0),
            (b"", 19),
            (b"", bytes.len()),
            (b"HTTP/1.1 200 OK\r\n", 17),
        ] {
            agree(before, from);
        }
    }
}
