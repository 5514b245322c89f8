//! The engines and the resolver, judged by what this repository says they
//! must do: the golden files of pages (`golden`), feeds and stylesheets
//! (`documents`); the link report (`links`); the spec example tables of
//! the resolvers (`spec_tables`); the fuzz targets' properties on
//! generated HTML (`properties`) and on generated URLs (`resolver_properties`),
//! and on the committed fuzz corpus (`fuzz_corpus`); bad input and its
//! outcomes (`bad_input`); the real pages of `../shared`, read by an
//! independent span lister (`corpus`).
//!
//! One test binary, each suite a module: `cargo test --test engines`, one
//! suite `cargo test --test engines golden::`. The modules that run the
//! binary or read its flags need the `cli` feature (on by default).
//!
//! `properties` installs a counting global allocator (a thread's heap, for
//! its bounds on what a rewrite holds): every test here runs with it, which
//! costs a thread-local add for each allocation and changes nothing else.

/// The command line, as the binary has it: a fixture's `args` are read
/// as the user would type them.
#[cfg(feature = "cli")]
#[path = "../../src/cli/mod.rs"]
#[allow(dead_code, unused_imports)]
mod cli;

#[path = "../common/mod.rs"]
mod common;

/// The fuzz targets' checks (`fuzz/src/properties.rs`), with the span lister
/// (`fuzz::spans`) and the CSS tokenizer they use.
#[path = "../../fuzz/src/properties.rs"]
mod fuzz;

#[cfg(feature = "cli")]
mod bad_input;
#[cfg(feature = "cli")]
mod corpus;
#[cfg(feature = "cli")]
mod documents;
mod fuzz_corpus;
#[cfg(feature = "cli")]
mod golden;
mod links;
mod properties;
mod resolver_properties;
mod spec_tables;
