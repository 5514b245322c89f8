//! One document: lol_html finds the URL values, a splicing sink writes them
//! rewritten and everything else as it came. Knows HTML and URLs; nothing of
//! where a document comes from.
//!
//! The way through, top to bottom: [`rewriter`] (the entry points, UTF-16 or
//! bytes) → [`document`] (hold, lookahead, encoding, then lol_html) →
//! [`record`] (the element handler) and [`splice`] (the sink) → [`edit`]
//! (one value, by its kind, within its [`budget`]) → [`value`] (its bytes)
//! and the syntaxes.

pub mod attrs;
pub mod buffers;
pub mod config;
pub mod document;
pub mod edit;
pub mod encoding;
pub mod error;
pub mod links;
pub mod lookahead;
pub mod record;
pub mod report;
pub mod resolution;
pub mod rewriter;
pub mod settings;
pub mod splice;
pub mod tag_names;
pub mod utf16;
pub mod value;
pub mod xhtml;
