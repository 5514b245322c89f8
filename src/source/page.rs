//! The first source: one document, from a file or standard input, to
//! standard output or a file (written whole or not at all); with `--http`,
//! one saved response (its header blocks, then the document).

use std::cell::RefCell;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use crate::html::config::Config;
use crate::html::links::Link;
use crate::html::report::Report as DocumentReport;
use crate::html::rewriter::Rewriter;
use crate::source::http::{self, ResponseRewriter, Warning};
use crate::source::listing::Listing;
use crate::source::output::{self, SourceError, lowercase, quoted};
use crate::source::warc;
use crate::url::Layers;

pub use crate::source::output::{Input, Output};

/// What a run read: a document, or a response around one.
#[derive(Debug, Clone)]
pub enum Report {
    Document(DocumentReport),
    Response(http::Report),
}

impl Report {
    /// The lines of `-v`, without the program name.
    pub fn verbose_lines(&self) -> Vec<String> {
        match self {
            Report::Document(r) => r.verbose_lines(),
            Report::Response(r) => r.verbose_lines(),
        }
    }

    /// Whether the document had no base at all (§3.4, the empty base): its
    /// links cannot be judged, so a check cannot pass it.
    pub fn has_no_base(&self) -> bool {
        let document = match self {
            Report::Document(r) => Some(r),
            Report::Response(r) => r.document.as_ref(),
        };
        document.is_some_and(|d| d.base.is_empty())
    }

    /// Whether the run failed to rewrite all it was given (exit status 2,
    /// the output complete).
    pub fn incomplete(&self) -> bool {
        match self {
            Report::Document(r) => r.incomplete(),
            Report::Response(r) => r.incomplete(),
        }
    }
}

/// What a run did: its report, and how many links would change (heard by
/// the listing, when there was one).
#[derive(Debug)]
pub struct Done {
    pub report: Report,
    pub changes: usize,
}

/// Rewrites one document from `input` to `output` (a response around it
/// when `http` says how), telling each warning to `tell` as it happens, and
/// each link to `listing` when there is one.
pub fn run(
    config: Arc<Config>,
    layers: Layers,
    http: Option<http::Options>,
    input: &Input,
    output: &Output,
    mut tell: impl FnMut(&Warning) + 'static,
    listing: Option<Listing>,
) -> Result<Done, SourceError> {
    let mut reader = input.open()?;
    let input_name = input.name();
    if http.is_none() {
        // A saved response or a web archive read as HTML: header blocks
        // would come out as text, and codings undone by nobody.
        let mut first = Vec::new();
        reader
            .by_ref()
            .take(warc::PEEK)
            .read_to_end(&mut first)
            .map_err(|e| SourceError::Read(input_name.clone(), lowercase(&e)))?;
        let status = &first[..first.len().min(STATUS_PREFIX)];
        if http::starts_like_response(status) == Some(true) {
            tell(&Warning::LooksLikeResponse {
                start: String::from_utf8_lossy(status).into_owned(),
            });
        } else if let Some(start) = warc::starts_like_archive(&first) {
            tell(&Warning::LooksLikeArchive { start });
        }
        reader = Box::new(io::Cursor::new(first).chain(reader));
    }
    let listing = listing.map(|l| Rc::new(RefCell::new(l)));
    let hear = listing.as_ref().map(|listing| {
        let listing = Rc::clone(listing);
        move |link: &Link| listing.borrow_mut().hear(link)
    });
    let rewrite = |writer: &mut dyn Write, output_name: &str| match http {
        None => {
            let mut rewriter = Rewriter::new(config, layers, writer)
                .on_warning(move |w| tell(&Warning::Document(w.clone())));
            if let Some(hear) = hear {
                rewriter = rewriter.on_link(hear);
            }
            rewriter
                .read_from(reader)
                .and_then(|()| rewriter.end())
                .map(|(report, _)| Report::Document(report))
                .map_err(|e| SourceError::of(e, &input_name, output_name))
        }
        Some(options) => {
            let mut rewriter =
                ResponseRewriter::new(config, layers, options, writer).on_warning(tell);
            if let Some(hear) = hear {
                rewriter = rewriter.on_link(hear);
            }
            rewriter
                .read_from(reader)
                .and_then(|()| rewriter.end())
                .map(|(report, _)| Report::Response(report))
                .map_err(|e| match e {
                    http::Error::Head(e) => SourceError::Head(input_name.clone(), e.to_string()),
                    http::Error::Document(e) => SourceError::of(e, &input_name, output_name),
                })
        }
    };
    let report = match output {
        Output::Stdout => {
            let name = "standard output";
            let report = rewrite(&mut io::stdout().lock(), name)?;
            io::stdout()
                .flush()
                .map_err(|e| SourceError::Write(name.to_owned(), e))?;
            report
        }
        Output::File(path) => {
            output::write_staged(path, true, |file| rewrite(file, &quoted(path)))?
        }
        Output::Discard => rewrite(&mut io::sink(), "nowhere")?,
    };
    let changes = match listing {
        Some(listing) => {
            let mut listing = listing.borrow_mut();
            listing
                .finish()
                .map_err(|(name, e)| SourceError::Write(name, e))?;
            listing.changes
        }
        None => 0,
    };
    Ok(Done { report, changes })
}

/// How many first bytes tell a status line (`HTTP/1.`).
const STATUS_PREFIX: usize = 7;
