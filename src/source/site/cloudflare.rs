//! The redirect rules Cloudflare Pages follows for a site (`--check-links
//! --host cloudflare-pages`): its `_redirects` file, in the directory it
//! serves, as Cloudflare reads it (no other file holds its rules). What
//! the rules hold is drawn from the run's memory.

use std::path::Path;

use super::netlify::read;
use crate::document::memory::{Drawn, Memory};
use crate::source::output::SourceError;
use crate::url::Redirects;

/// The rules for the site served from `dir`, and what they hold of
/// `memory`.
pub(crate) fn redirects(dir: &Path, memory: &Memory) -> Result<(Redirects, Drawn), SourceError> {
    let mut drawn = memory.drawn();
    let rules = match read(&dir.join("_redirects"), &mut drawn, memory)? {
        // What is not text is no rule.
        Some(text) => Redirects::parse_cloudflare(&String::from_utf8_lossy(&text)),
        None => Redirects::default(),
    };
    Ok((rules, drawn))
}
