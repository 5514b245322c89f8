//! The first source: one document, from a file or standard input, to
//! standard output or a file (written whole or not at all); with `--http`,
//! one saved response (its header blocks, then the document). The
//! document's type is `--type`'s, else its file's extension's where that
//! names one, else its first bytes' ([`decide`]): a page, a stylesheet or
//! an XML document, each through its engine.

use std::io::{self, Read, Write};
use std::sync::Arc;

use crate::document::config::Config;
use crate::document::events::Events;
use crate::document::report::Report as DocumentReport;
use crate::source::http::{self, HeadError, Response, ResponseWarning};
use crate::source::listener::{Document, Done, Listener, SourceWarning};
use crate::source::listing::would_change;
use crate::source::names;
use crate::source::output::{self, SourceError, lowercase};
use crate::source::summary::{Summary, Tally};
use crate::source::typing::{By, Clue, Decided, FIRST_BYTES, decide, read_first, sniff_limit};
use crate::source::warc;
use crate::typed::{Rewriter, Type};
use crate::url::Layers;

use crate::source::output::{Input, Output};

/// What a run read: a document (of a type, and what decided it), or a
/// response around one.
#[derive(Debug, Clone)]
pub enum PageReport {
    Document(DocumentReport, Decided),
    Response(http::ResponseReport),
}

impl PageReport {
    /// The lines of `-v`, without the program name.
    pub fn verbose_lines(&self) -> Vec<String> {
        match self {
            PageReport::Document(r, typed) => {
                let mut lines = r.verbose_lines();
                // A page says nothing of it, as before types were told.
                let told = matches!(typed.by, By::Given | By::MediaType(_));
                if typed.kind != Some(Type::Html) || told {
                    lines.insert(0, typed.to_string());
                }
                lines
            }
            PageReport::Response(r) => r.verbose_lines(),
        }
    }

    /// Whether the document had no base at all (§3.4, the empty base): its
    /// links cannot be judged, so a check cannot pass it.
    pub(crate) fn has_no_base(&self) -> bool {
        let document = match self {
            PageReport::Document(r, _) => Some(r),
            PageReport::Response(r) => r.document.as_ref(),
        };
        document.is_some_and(|d| d.base.is_empty())
    }

    /// Whether the run failed to rewrite all it was given (exit status 2,
    /// the output complete).
    pub fn incomplete(&self) -> bool {
        match self {
            PageReport::Document(r, _) => r.incomplete(),
            PageReport::Response(r) => r.incomplete(),
        }
    }
}

/// What a run did: its report, and how many links would change (counted
/// when the listener hears links).
#[derive(Debug)]
#[non_exhaustive]
pub struct PageTally {
    pub report: PageReport,
    /// Warnings told.
    pub warnings: usize,
    pub changes: usize,
}

impl PageTally {
    /// What the run did, for the run's end: one document (`name`, as a
    /// message names it). A check (`check`) of a page with no base at all
    /// cannot judge, and does not pass: it is refused.
    pub(crate) fn summary(self, check: bool, name: &str) -> Result<Summary, SourceError> {
        if check && self.report.has_no_base() {
            return Err(SourceError::Refused(format!(
                "cannot check {name}: it has no base URL (no `<base href>`, no --retrieved-from), so no link can be judged: give -r URL"
            )));
        }
        let (rewritten, unchanged, failed, urls) = match self.done() {
            Done::Rewritten { urls } => (1, 0, 0, urls),
            Done::Unchanged => (0, 1, 0, 0),
            Done::Failed => (0, 0, 1, 0),
        };
        Ok(Summary {
            documents: 1,
            rewritten,
            unchanged,
            failed,
            urls,
            warnings: self.warnings,
            changes: self.changes,
            incomplete: self.report.incomplete(),
            interrupted: false,
            line: None,
            details: self.report.verbose_lines(),
            tally: Tally::new(self.report),
        })
    }

    /// What became of the document.
    pub fn done(&self) -> Done {
        let urls = match &self.report {
            PageReport::Document(r, _) => r.counts.rewritten,
            PageReport::Response(r) => r.document.as_ref().map_or(0, |d| d.counts.rewritten),
        };
        if self.report.incomplete() {
            Done::Failed
        } else if urls > 0 {
            Done::Rewritten { urls }
        } else {
            Done::Unchanged
        }
    }
}

/// Rewrites one document from `input` to `output` (a response around it
/// when `http` says how), of type `kind` (`--type`; else its first bytes
/// decide), telling `listener` each warning as it happens, and each link
/// when it hears them.
pub(crate) fn run(
    config: Arc<Config>,
    layers: Layers,
    http: Option<http::Options>,
    kind: Option<Type>,
    input: Input,
    output: Output,
    listener: &dyn Listener,
) -> Result<PageTally, SourceError> {
    let input_name = input.name();
    let path = input.path().to_owned();
    let document = Document::Page(&path);
    // A file's name is a clue to its type, as a site's file's is;
    // standard input and a reader have none.
    let extension = match &input {
        Input::File(file) => file.extension().and_then(|e| e.to_str()),
        _ => None,
    }
    .map(str::to_owned);
    let clue = extension.as_deref().map_or(Clue::Alone, Clue::Named);
    let mut reader = input.open()?;
    let mut warned = 0;
    let mut typed = decide(kind, clue, b"", None);
    if http.is_none() {
        // A saved response or a web archive read as HTML: header blocks
        // would come out as text, and codings undone by nobody. The same
        // first bytes tell the document's type, read on past an XML
        // prolog when `--type` does not say it.
        let limit = if kind.is_none() {
            sniff_limit(&config)
        } else {
            0
        };
        debug_assert!(FIRST_BYTES >= warc::PEEK as usize);
        let first = read_first(&mut reader, config.encoding, limit)
            .map_err(|e| SourceError::Read(input_name.clone(), lowercase(&e)))?;
        let status = &first[..first.len().min(STATUS_PREFIX)];
        let warning = if http::starts_like_response(status) == Some(true) {
            Some(ResponseWarning::LooksLikeResponse {
                start: names::shown(status).into_owned(),
            })
        } else {
            warc::starts_like_archive(&first)
                .map(|start| ResponseWarning::LooksLikeArchive { start })
        };
        if let Some(warning) = warning {
            warned += 1;
            listener.warning(&document, &SourceWarning::new(&warning));
        }
        typed = decide(kind, clue, &first, config.encoding);
        reader = Box::new(io::Cursor::new(first).chain(reader));
    }
    // What the engine queues is told after each of its writes, and at
    // the end.
    let mut told = Told {
        listener,
        document,
        warnings: warned,
        changes: 0,
    };
    let listening = listener.hears_links();
    let (mut changes, mut warnings) = (0, 0);
    let rewrite = |writer: &mut (dyn Write + Send), output_name: &str| {
        // Boxed: the archive's tree writes its files through the same
        // instantiation of every engine (one copy in the binary, and the
        // binary's size is start-up; see benches/RESULTS.md).
        let writer: Box<dyn Write + Send + '_> = Box::new(writer);
        let result = match http {
            None => {
                let kind = typed.kind.unwrap_or(Type::Html);
                let mut rewriter = Rewriter::new(kind, config, layers, writer);
                if listening {
                    rewriter = rewriter.with_links();
                }
                if typed.served_as_xml() {
                    rewriter = rewriter.served_as_xml();
                }
                let events = rewriter.events();
                let page = ResponseWarning::Document;
                let read = rewriter.read_from(Telling::new(&mut reader, &events, page, &mut told));
                let ended = read.and_then(|()| rewriter.end());
                told.tell(&events, page);
                ended
                    .map(|(report, _)| PageReport::Document(report, typed.clone()))
                    .map_err(|e| SourceError::of(e, &input_name, output_name))
            }
            Some(options) => {
                let mut rewriter = Response::new(config, layers, options, writer);
                if listening {
                    rewriter = rewriter.with_links();
                }
                let events = rewriter.events();
                let page = |w| w;
                let read = rewriter.read_from(Telling::new(&mut reader, &events, page, &mut told));
                let ended = read.and_then(|()| rewriter.end());
                told.tell(&events, page);
                ended
                    .map(|(report, _)| PageReport::Response(report))
                    .map_err(|e| match e {
                        // A page, not a response: what to do instead.
                        http::Error::Head(HeadError::NotAResponse { line, .. }) => {
                            SourceError::Refused(format!(
                                "{input_name} is not a saved HTTP response (it starts with `{line}`, not `HTTP/`): drop --http to read it as a document"
                            ))
                        }
                        http::Error::Head(e) => {
                            SourceError::Head(input_name.clone(), e.to_string())
                        }
                        http::Error::Document(e) => SourceError::of(e, &input_name, output_name),
                    })
            }
        };
        (changes, warnings) = (told.changes, told.warnings);
        result
    };
    let report = output::write_to(output, rewrite)?;
    let tally = PageTally {
        report,
        warnings,
        changes,
    };
    listener.done(&document, &tally.done());
    Ok(tally)
}

/// What tells the listener what the engine queued.
struct Told<'a> {
    listener: &'a dyn Listener,
    document: Document<'a>,
    /// Warnings told, and links told that would change.
    warnings: usize,
    changes: usize,
}

impl Told<'_> {
    fn tell<W: 'static>(&mut self, events: &Events<W>, page: fn(W) -> ResponseWarning) {
        for warning in events.take_warnings() {
            let warning = page(warning);
            self.warnings += warning.stands_for();
            self.listener
                .warning(&self.document, &SourceWarning::new(&warning));
        }
        for link in events.take_links() {
            self.changes += usize::from(would_change(&link));
            self.listener.link(&self.document, link);
        }
    }
}

/// The input, read by the engine (in its own reads, into buffers it
/// keeps): before each read, what the engine queued is told (so, as it
/// happens: after each of its writes).
struct Telling<'r, 'a, W> {
    reader: &'r mut dyn Read,
    events: &'r Events<W>,
    page: fn(W) -> ResponseWarning,
    told: &'r mut Told<'a>,
}

impl<'r, 'a, W> Telling<'r, 'a, W> {
    fn new(
        reader: &'r mut dyn Read,
        events: &'r Events<W>,
        page: fn(W) -> ResponseWarning,
        told: &'r mut Told<'a>,
    ) -> Self {
        Telling {
            reader,
            events,
            page,
            told,
        }
    }
}

impl<W: 'static> Read for Telling<'_, '_, W> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.told.tell(self.events, self.page);
        self.reader.read(buf)
    }
}

/// How many first bytes tell a status line (`HTTP/1.`).
const STATUS_PREFIX: usize = 7;
