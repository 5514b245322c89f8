//! The house: what keeps the checkout true to itself. The layers of `src/`
//! (`layout`); the public API against `tests/public-api.txt`
//! (`public_api`); the options of a document's rewrite, the same in every
//! front end (`options`); the README and the guides of `docs/`, their
//! commands run (`readme`).
//!
//! One test binary, each suite a module: `cargo test --test house`, one
//! suite `cargo test --test house readme::`. The modules that run the
//! binary need the `cli` feature (on by default).

#[path = "../common/mod.rs"]
mod common;

mod layout;
#[cfg(feature = "cli")]
mod options;
mod public_api;
#[cfg(feature = "cli")]
mod readme;
