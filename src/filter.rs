//! The first source: one document, from a file or standard input, to
//! standard output or a file (written whole or not at all).

use std::cell::RefCell;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::rc::Rc;

use crate::files::{self, SourceError, lowercase, quoted};
use crate::html::config::Config;
use crate::html::report::{Report, Warning};
use crate::html::rewriter::Rewriter;
use crate::listing::Listing;

/// Where the document comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin,
    File(PathBuf),
}

/// Where the rewritten document goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Stdout,
    /// Through a temporary file beside it, renamed over it at the end: a
    /// failed run leaves no half-written file, and an existing file keeps
    /// its permissions.
    File(PathBuf),
    /// Nowhere: `--check` only lists what would change.
    Discard,
}

impl Input {
    /// How messages name it.
    pub fn name(&self) -> String {
        match self {
            Input::Stdin => "standard input".to_owned(),
            Input::File(path) => quoted(path),
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

/// Rewrites one document from `input` to `output`, telling each warning to
/// `tell` as it happens, and each link to `listing` when there is one.
pub fn run(
    config: Config,
    input: &Input,
    output: &Output,
    tell: impl FnMut(&Warning) + 'static,
    listing: Option<Listing>,
) -> Result<Done, SourceError> {
    let reader: Box<dyn Read> = match input {
        Input::File(path) => Box::new(
            File::open(path)
                .map_err(|e| SourceError::Open(path.display().to_string(), lowercase(&e)))?,
        ),
        Input::Stdin => Box::new(io::stdin().lock()),
    };
    let input_name = input.name();
    let listing = listing.map(|l| Rc::new(RefCell::new(l)));
    let rewrite = |writer: &mut dyn Write, output_name: &str| {
        let mut rewriter = Rewriter::new(config, writer).on_warning(tell);
        if let Some(listing) = &listing {
            let listing = Rc::clone(listing);
            rewriter = rewriter.on_link(move |link| listing.borrow_mut().hear(link));
        }
        rewriter
            .read_from(reader)
            .and_then(|()| rewriter.end())
            .map(|(report, _)| report)
            .map_err(|e| SourceError::of(e, &input_name, output_name))
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
            files::write_through_temporary(path, None, true, |file| rewrite(file, &quoted(path)))?
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
