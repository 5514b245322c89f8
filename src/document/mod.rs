//! What every engine shares, whatever the document's type and wherever it
//! comes from: what a run asks ([`config`]), what a document's rewrite
//! reports ([`report`], [`links`], [`decision`], [`error`]) and tells as it
//! reads ([`events`]), the run's
//! [`memory`], which every holder of every engine and every source draws
//! from, and the way one URL value is edited: found by its kind
//! ([`attrs`]), resolved against the document's [`resolution`] by the
//! [`edit`] step and written back in its own bytes ([`value`],
//! [`encoding`]). The engines' shared [`front`] reads UTF-16 ([`utf16`])
//! for all of them.

pub mod attrs;
pub mod buffers;
pub mod config;
pub mod decision;
pub mod edit;
pub mod encoding;
pub mod error;
pub mod events;
pub mod front;
pub mod links;
pub mod memory;
pub mod report;
pub mod resolution;
pub mod utf16;
pub mod value;
