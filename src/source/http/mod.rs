//! A source: saved HTTP responses (`curl -i`, `curl -iL`, `wget
//! --save-headers`; the HTTP block of a WARC record), whose header blocks
//! give the document's base (RFC 1808 §3.2), its retrieval URL after
//! redirects (§3.3) and its charset, and whose body is rewritten in the
//! codings it came in.
//!
//! The way through: `head` (a block, and the streaming reader of the
//! blocks) → [`entity`] (§3.2 and the charset) with `redirects` (§3.3)
//! and `media` (what the body is) → `coding` (what the body's codings
//! really are; decoding and encoding them) → `response` (all of it, on a
//! stream or on a body held whole) → `report`.

pub(crate) mod coding;
#[doc(hidden)]
pub mod entity;
pub(crate) mod head;
pub(crate) mod media;
pub(crate) mod redirects;
pub(crate) mod report;
pub(crate) mod response;

pub(crate) use head::{Edit, Head, HeadReader, starts_like_response};
pub use head::{HeadError, Version};
pub use report::{Block, Body, ResponseReport, ResponseWarning};
pub use response::{
    Error, Options, ResponseRewriter, body_type, rewrite_response, rewrite_response_bytes,
};
