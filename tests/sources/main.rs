//! The sources, through the binary as users run it: the command line's
//! statuses and messages (`cli`); messages that cannot be forged
//! (`messages`); the paths a run writes and the overlaps it refuses
//! (`plan`); `--site` (`site`), its relative links (`relative`) and its
//! link check (`links`), `--http` (`http`), `--warc` (`warc`) and an
//! archive saved as a tree (`tree`);
//! every source reading every type of document (`types`). `http` and `warc`
//! also read what htmlabs writes back with the readers others use (Python's
//! http.client and decoders; warcio, FastWARC, cdxj-indexer): each skips
//! without them (fails under `CI`), and `HTMLABS_WARC_PYTHON` names the
//! Python that has the WARC readers.
//!
//! One test binary, each suite a module: `cargo test --test sources`, one
//! suite `cargo test --test sources warc::`. Every suite runs the binary:
//! the binary needs the `cli` feature (on by default).

#[path = "../common/mod.rs"]
mod common;

mod archive_links;
mod cli;
mod http;
mod links;
mod messages;
mod plan;
mod relative;
mod site;
mod tree;
mod types;
mod warc;
