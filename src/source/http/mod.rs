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
mod response;

pub(crate) use head::{Edit, Head, HeadReader, starts_like_response};
pub use head::{HeadError, Version};
pub use report::{Block, Body, ResponseReport, ResponseWarning};
pub use response::{
    Error, Options, Response, body_decided, body_type, rewrite_response, rewrite_response_bytes,
};

/// The codings a saved response's body comes out in with its headers
/// (`--http` writes a body back in the codings it came in), when its
/// header blocks are all in `first`: the final block's content codings and
/// transfer codings but `chunked` and `identity`, as written (`gzip`,
/// `br`); empty for a body that comes out as text, or when the blocks
/// cannot be told from `first`.
#[doc(hidden)]
pub fn body_codings(first: &[u8]) -> Vec<String> {
    let Ok((heads, _)) = head::read_heads(first) else {
        return Vec::new();
    };
    let Some(last) = heads.last() else {
        return Vec::new();
    };
    ["Content-Encoding", "Transfer-Encoding"]
        .into_iter()
        .flat_map(|name| last.values(name).map(|(value, _)| value.into_owned()))
        .flat_map(|value| {
            String::from_utf8_lossy(&value)
                .split(',')
                .map(|c| c.trim().to_ascii_lowercase())
                .collect::<Vec<_>>()
        })
        .filter(|c| !c.is_empty() && c != "chunked" && c != "identity")
        .collect()
}
