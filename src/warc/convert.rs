//! Conversion mode (the default): the archive comes out as it came, byte
//! for byte, and each HTML response or resource that was rewritten is
//! followed by a `conversion` record (ISO 28500 §6.8: "an alternative
//! version of another record's content") whose block is the rewritten page,
//! decoded of its transfer and content codings. A `warcinfo` record naming
//! htmlabs comes before the first one.

use std::io::{self, Read, Write};

use encoding_rs::Encoding;

use super::digest::Digest;
use super::header::Header;
use super::input::{Stop, Units};
use super::report::{Named, Summary, Warning};
use super::write::{Record, now, record_id};
use crate::html::config::Config;
use crate::html::encoding;
use crate::html::error::Error as DocumentError;
use crate::html::rewriter::Rewriter;
use crate::http::{self, Body, HeadReader, media};
use crate::spool::{Held, Spool};
use crate::url::Layers;

/// What a WARC run is asked, besides its documents' [`Config`].
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `Content-Location:` is a base too (`--content-location`).
    pub content_location: bool,
    /// The flags of the run, for the `warcinfo` record.
    pub flags: String,
}

/// Rewrites the archive `input` gives into `output`, telling each warning
/// to `tell` as it happens; gives back the summary and the output.
///
/// Fails only when the input cannot be read or the output written; a
/// malformed record is a warning, and the rest of the input comes out as
/// it is.
pub fn convert<R: Read, W: Write>(
    config: &Config,
    options: &Options,
    input: R,
    output: W,
    tell: impl FnMut(&Warning),
) -> Result<(Summary, W), Error> {
    let mut units = Units::new(input, output, config.max_memory).map_err(Error::Read)?;
    let failed = |units: &mut Units<R, W>, e| {
        if units.write_broke() {
            Error::Write(e)
        } else {
            Error::Read(e)
        }
    };
    let mut run = Run {
        config,
        options,
        gzip: units.gzip(),
        digest: None,
        warcinfo: None,
        summary: Summary::default(),
        tell,
    };
    loop {
        match run.record(&mut units) {
            Ok(true) => {}
            Ok(false) => break,
            Err(Stop::Io(e)) => return Err(failed(&mut units, e)),
            Err(Stop::Malformed { at, why }) => {
                run.warn(Warning::Malformed { at, why });
                if let Err(e) = units.copy_rest() {
                    return Err(failed(&mut units, e));
                }
                break;
            }
        }
    }
    run.summary.bytes = units.raw_offset();
    let output = units.finish().map_err(Error::Write)?;
    Ok((run.summary, output))
}

/// What stops a run: the input cannot be read, or the output written.
#[derive(Debug)]
pub enum Error {
    Read(io::Error),
    Write(io::Error),
}

/// What became of a record's page.
struct Outcome {
    warnings: Vec<http::Warning>,
    /// URLs rewritten.
    urls: usize,
    /// Its encoding, when all went well.
    changed: Option<&'static Encoding>,
}

/// Which records are rewritten.
enum Kind {
    /// `response` with an HTTP response block.
    Response,
    /// `resource` of type HTML, with the charset of its `Content-Type`.
    Resource(Option<String>),
    Other,
}

fn kind(header: &Header) -> Kind {
    let content_type = header.get("Content-Type").unwrap_or_default();
    let media = media::parse(&content_type);
    match header.record_type().as_str() {
        "response"
            if media
                .as_ref()
                .is_some_and(|m| m.essence == "application/http") =>
        {
            // `msgtype=response`, or none (`application/http` alone).
            let lower = content_type.to_ascii_lowercase();
            let msgtype = lower.split(';').skip(1).find_map(|p| {
                let (name, value) = p.split_once('=')?;
                (name.trim() == "msgtype").then(|| value.trim().trim_matches('"').to_owned())
            });
            match msgtype.as_deref() {
                None | Some("response") => Kind::Response,
                Some(_) => Kind::Other,
            }
        }
        "resource" if media.as_ref().is_some_and(|m| m.is_html()) => {
            Kind::Resource(media.and_then(|m| m.charset))
        }
        _ => Kind::Other,
    }
}

struct Run<'a, F> {
    config: &'a Config,
    options: &'a Options,
    gzip: bool,
    /// How the input writes its digests, from the first one met.
    digest: Option<Digest>,
    /// The ID of the `warcinfo` record added, once it is.
    warcinfo: Option<Vec<u8>>,
    summary: Summary,
    tell: F,
}

impl<F: FnMut(&Warning)> Run<'_, F> {
    fn warn(&mut self, warning: Warning) {
        self.summary.warnings += 1;
        self.summary.incomplete |= warning.stops_rewriting();
        (self.tell)(&warning);
    }

    /// Reads one record, and adds its conversion; `false` at the end.
    fn record<R: Read, W: Write>(&mut self, units: &mut Units<R, W>) -> Result<bool, Stop> {
        if !units.more()? {
            return Ok(false);
        }
        let at = units.place();
        let header = units.header()?;
        let length = header
            .content_length()
            .map_err(|why| Stop::Malformed { at, why })?;
        if self.digest.is_none() {
            self.digest = ["WARC-Block-Digest", "WARC-Payload-Digest"]
                .iter()
                .find_map(|name| Digest::like(&header.get(name)?));
        }
        let kind = kind(&header);
        let mut block = Spool::new(self.config.max_memory);
        let kept = !matches!(kind, Kind::Other);
        units.block(at, length, kept.then_some(&mut block as &mut dyn Write))?;
        self.summary.records += 1;
        let named = || Named {
            id: header.record_id(),
            target: header.target_uri().unwrap_or_default(),
            at,
        };
        let rewritten = match kind {
            Kind::Other => None,
            Kind::Response => self.response(&header, &mut block, &named)?,
            Kind::Resource(charset) => self.resource(&header, charset, &mut block, &named)?,
        };
        if let Some((mut page, encoding)) = rewritten {
            self.summary.rewritten += 1;
            self.conversion(&header, &mut page, encoding, units.pending())?;
        }
        units.record_ended()?;
        Ok(true)
    }

    /// The record's layers: its target URI is the retrieval URL (§3.3).
    fn layers(&mut self, header: &Header, named: &dyn Fn() -> Named) -> Layers {
        let Some(target) = header.target_uri() else {
            return Layers::default();
        };
        match Layers::default().with_retrieval(self.config.standard, &target, "WARC-Target-URI") {
            Ok(layers) => layers,
            Err(e) => {
                self.warn(Warning::Record {
                    record: named(),
                    warning: http::Warning::NotAUrl {
                        field: "WARC-Target-URI",
                        value: target,
                        offset: 0,
                        why: e.to_string(),
                    },
                });
                Layers::default()
            }
        }
    }

    /// An HTTP response's page, rewritten and decoded, when it changed.
    fn response(
        &mut self,
        header: &Header,
        block: &mut Spool,
        named: &dyn Fn() -> Named,
    ) -> io::Result<Option<(Spool, &'static Encoding)>> {
        let (heads, body_offset) = match read_heads(block)? {
            Ok(read) => read,
            Err(why) => {
                self.warn(Warning::NotRewritten {
                    record: named(),
                    why,
                });
                return Ok(None);
            }
        };
        let Some(last) = heads.last() else {
            return Ok(None);
        };
        if media::content_type(last).is_some_and(|m| !m.is_html()) {
            return Ok(None);
        }
        let mut config = self.config.clone();
        config.layers = self.layers(header, named);
        let options = http::Options {
            content_location: self.options.content_location,
            strip_headers: true,
        };
        let mut page = Spool::new(self.config.max_memory);
        let mut body = Tail {
            spool: block,
            from: body_offset as u64,
        };
        let result = match http::rewrite_parts(
            &config,
            &options,
            &heads,
            &mut body,
            body_offset,
            &mut page,
            None,
        ) {
            Ok(report) => Ok(match &report.document {
                // With the headers stripped, a body comes out decoded even
                // when nothing in it changed: that is no new version.
                Some(document) => Outcome {
                    urls: document.counts.rewritten,
                    changed: (report.body != Body::AsItCame && !report.incomplete())
                        .then_some(document.encoding.encoding),
                    warnings: report.warnings,
                },
                None => Outcome {
                    urls: 0,
                    changed: None,
                    warnings: report.warnings,
                },
            }),
            Err(http::Error::Document(DocumentError::Write(e))) => return Err(e),
            Err(e) => Err(e.to_string()),
        };
        Ok(self.settle(result, named).map(|encoding| (page, encoding)))
    }

    /// A `resource` record's page, rewritten, when it changed.
    fn resource(
        &mut self,
        header: &Header,
        charset: Option<String>,
        block: &mut Spool,
        named: &dyn Fn() -> Named,
    ) -> io::Result<Option<(Spool, &'static Encoding)>> {
        let mut config = self.config.clone();
        config.layers = self.layers(header, named);
        if let Some(encoding) = charset.as_deref().and_then(encoding::for_label) {
            config.layers = config
                .layers
                .with_charset(encoding, "the record's Content-Type");
        }
        let mut page = Spool::new(self.config.max_memory);
        let mut rewriter = Rewriter::new(config, &mut page);
        let result = rewriter
            .read_from(block.reader()?)
            .and_then(|()| rewriter.end());
        let result = match result {
            Ok((report, _)) => Ok(Outcome {
                urls: report.counts.rewritten,
                changed: (!report.incomplete()).then_some(report.encoding.encoding),
                warnings: report
                    .warnings
                    .into_iter()
                    .map(http::Warning::Document)
                    .collect(),
            }),
            Err(DocumentError::Write(e)) => return Err(e),
            Err(e) => Err(e.to_string()),
        };
        Ok(self.settle(result, named).map(|encoding| (page, encoding)))
    }

    /// Tells what became of a record's page; gives the encoding of a new
    /// version of it, when there is one (a URL changed, all went well).
    fn settle(
        &mut self,
        result: Result<Outcome, String>,
        named: &dyn Fn() -> Named,
    ) -> Option<&'static Encoding> {
        match result {
            Err(why) => {
                self.warn(Warning::NotRewritten {
                    record: named(),
                    why,
                });
                None
            }
            Ok(outcome) => {
                for warning in outcome.warnings {
                    self.warn(Warning::Record {
                        record: named(),
                        warning,
                    });
                }
                self.summary.urls += outcome.urls as u64;
                outcome.changed.filter(|_| outcome.urls > 0)
            }
        }
    }

    /// Writes the conversion of `original` (and, the first time, the
    /// `warcinfo` record) to `out`.
    fn conversion(
        &mut self,
        original: &Header,
        page: &mut Spool,
        encoding: &'static Encoding,
        out: &mut Spool,
    ) -> io::Result<()> {
        let digest = self.digest.clone().unwrap_or_default();
        let version = original.version_line().to_vec();
        let warcinfo = match &self.warcinfo {
            Some(id) => id.clone(),
            None => {
                let id = self.write_warcinfo(&version, &digest, out)?;
                self.warcinfo = Some(id.clone());
                id
            }
        };
        let sum = digest.of(&mut page.reader()?)?.into_bytes();
        let mut fields: Vec<(&'static str, Vec<u8>)> = vec![("WARC-Type", b"conversion".to_vec())];
        if let Some(target) = original.raw("WARC-Target-URI") {
            // As it came: WARC 1.0's `<…>` too.
            fields.push(("WARC-Target-URI", target.trim_ascii().to_vec()));
        }
        fields.push(("WARC-Date", now()));
        fields.push(("WARC-Record-ID", record_id()));
        if let Some(id) = original.raw("WARC-Record-ID") {
            fields.push(("WARC-Refers-To", id.trim_ascii().to_vec()));
        }
        fields.push(("WARC-Warcinfo-ID", warcinfo));
        fields.push(("WARC-Block-Digest", sum.clone()));
        fields.push(("WARC-Payload-Digest", sum));
        fields.push((
            "Content-Type",
            format!("text/html; charset={}", encoding.name()).into_bytes(),
        ));
        fields.push(("Content-Length", page.len().to_string().into_bytes()));
        Record {
            version: &version,
            fields,
            block: page,
        }
        .write(self.gzip, out)?;
        self.summary.conversions += 1;
        Ok(())
    }

    /// The `warcinfo` record that says who added the records after it, and
    /// how; gives back its ID.
    fn write_warcinfo(
        &mut self,
        version: &[u8],
        digest: &Digest,
        out: &mut Spool,
    ) -> io::Result<Vec<u8>> {
        let id = record_id();
        let format = if version == b"WARC/1.0" {
            "WARC File Format 1.0"
        } else {
            "WARC File Format 1.1"
        };
        let mut block = format!(
            "software: htmlabs/{}\r\nformat: {format}\r\ndescription: each HTML response rewritten with every link absolute (RFC 1808), as a conversion record after it\r\nhtmlabs-mode: conversion\r\n",
            env!("CARGO_PKG_VERSION"),
        );
        if !self.options.flags.is_empty() {
            block.push_str(&format!("htmlabs-flags: {}\r\n", self.options.flags));
        }
        let mut block = block.as_bytes();
        let sum = digest.of(&mut &block[..])?.into_bytes();
        let fields = vec![
            ("WARC-Type", b"warcinfo".to_vec()),
            ("WARC-Date", now()),
            ("WARC-Record-ID", id.clone()),
            ("Content-Type", b"application/warc-fields".to_vec()),
            ("WARC-Block-Digest", sum),
            ("Content-Length", block.len().to_string().into_bytes()),
        ];
        Record {
            version,
            fields,
            block: &mut block,
        }
        .write(self.gzip, out)?;
        Ok(id)
    }
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
}
