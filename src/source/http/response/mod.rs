//! One saved response: its header blocks, then its body rewritten as the
//! document its type says (`--type`, its `Content-Type`, its first bytes:
//! [`decide`](crate::source::typing::decide)) and written back in the coding it came in, the blocks
//! byte for byte (but a `Content-Length` that was true of the input and is
//! no longer).
//!
//! Two ways in, one way through: [`rewrite_parts`](held::rewrite_parts) takes a body held
//! whole (in memory or spilled: a WARC record's), and
//! [`ResponseRewriter`] takes a stream in writes of any size. The stream
//! goes straight through the document's rewriter when nothing that comes
//! first depends on what comes after (no coding holds, no
//! `Content-Length`); otherwise its body is held, within `--max-memory`
//! and spilled past it, and goes through [`rewrite_parts`](held::rewrite_parts) at its end.
//!
//! Here: what both share (`shared`), the held body (`held`), the stream
//! (`stream`).

mod held;
mod shared;
mod stream;

pub(crate) use held::rewrite_parts_held;
pub use held::rewrite_response_bytes;
pub use shared::{Error, Options, body_type};
pub use stream::{ResponseRewriter, rewrite_response};
