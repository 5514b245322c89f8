//! The page engine: lol_html finds the URL values, a splicing sink writes
//! them rewritten and everything else as it came. Knows HTML; what every
//! engine shares (the config, the report, the memory, one value's edit) is
//! `document`'s, and nothing here knows where a page comes from.
//!
//! The way through, top to bottom: [`rewriter`] (the entry points, UTF-16 or
//! bytes) → [`document`] (hold, [`lookahead`], [`encoding`] sniffing, then
//! lol_html) → [`record`] (the element handler; [`stylesheets`], a page's
//! `<?xml-stylesheet?>`s when it is served as XML) and [`splice`] (the sink,
//! with `follow` placing values in lines and columns) →
//! `document::edit` (one value, by its kind, within its budget) →
//! `document::value` (its bytes) and the syntaxes.

pub(crate) mod anchors;
pub mod document;
pub mod encoding;
pub(crate) mod follow;
pub mod lookahead;
pub mod record;
pub mod rewriter;
pub mod settings;
pub mod splice;
pub(crate) mod stylesheets;
pub mod tag_names;
pub mod utf16;
pub mod xhtml;

pub use rewriter::{Rewriter, rewrite_bytes};
