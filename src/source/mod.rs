//! The sources of documents, above the engines: each finds its documents,
//! their media type, their §3 layers and where their output goes, and
//! hands each to the engine for its type.
//!
//! - [`page`]: one document, a file or standard input, over [`http`] for a
//!   saved response (`--http`);
//! - [`site`]: a static site's tree (`--site`);
//! - [`warc`]: web archives (`--warc`), each HTML response a document,
//!   its HTTP block read by [`http`];
//! - what every source shares: what to run (a [`Job`], run by
//!   [`crate::run`] the one way, after one plan of every path it reads and
//!   writes, [`plan`]), and how to hear from it (a [`Listener`](listener::Listener)); how a
//!   document is named in a line ([`names`]), an archive's records and
//!   their warnings as lines say them (`archived`), its links as check
//!   lines and a report ([`listing`]), and output staged whole or not at
//!   all ([`output`]); what decides each document's type ([`typing`]).

pub(crate) mod archived;
pub mod http;
mod job;
pub mod listener;
#[doc(hidden)]
pub mod listing;
#[doc(hidden)]
pub mod names;
pub mod output;
pub mod page;
mod placeholder;
#[doc(hidden)]
pub mod plan;
pub mod site;
pub(crate) mod summary;
#[doc(hidden)]
pub mod typing;
mod waiting;
pub mod warc;
mod warned;

pub use job::Job;
