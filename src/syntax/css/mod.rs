//! URLs in CSS text: where they stand, what they stand for, and how to write
//! a new one in the same place.
//!
//! [`Finder`] (`urls.rs`) walks the text once with a tokenizer after CSS Syntax Level 3 §4
//! ("Tokenization", `tokenizer.rs`) and reports byte ranges, so that a caller can splice a
//! replacement into each range and keep every other byte as it was. It keeps
//! no tokens, only the few facts it needs: whether the last token was `url(`
//! or `@import`, and which brackets are open, to know the strings of
//! `image-set(...)`.
//!
//! The tokenizer works on bytes. Every byte it treats specially is ASCII; the
//! bytes of a non-ASCII character are all `0x80` or above, and every step
//! treats them as it would treat the whole character (an ident code point, or
//! "anything else"), so token boundaries, and the ranges, fall between
//! characters. §3.3's preprocessing is applied on the fly: CR LF, CR and FF
//! are each one newline, and NUL stands for U+FFFD.

mod tokenizer;
mod urls;

pub use urls::*;
