//! Outside judges: what htmlabs writes, read by another implementation,
//! whose verdict is the test's. A browser loads the pages and stylesheets
//! before and after a move (`chromium`: Chromium through Playwright), and
//! follows the links the link checker checks (`link_check`); the
//! WHATWG URL Standard resolves the same pairs as our resolver (`url_crate`:
//! the `url` crate); feedparser reads the feeds (`feeds`); tinycss2 the
//! stylesheets (`stylesheets`); pywb replays the archives (`replay`). Where
//! they part, the difference must be a listed class
//! (`fixtures/divergences/`).
//!
//! All but `url_crate` need tools from outside Cargo (Chromium, Playwright,
//! Python packages: `.ci/run` installs them): each skips with a one-line
//! note without them, and fails under `CI`.
//!
//! One test binary, each suite a module: `cargo test --test judges`, one
//! suite `cargo test --test judges chromium::`. The modules that run the
//! binary or read its flags need the `cli` feature (on by default).

/// The command line, as the binary has it: a fixture's `args` are read
/// as the user would type them.
#[cfg(feature = "cli")]
#[path = "../../src/cli/mod.rs"]
#[allow(dead_code, unused_imports)]
mod cli;

#[path = "../common/mod.rs"]
mod common;

#[path = "../divergences/mod.rs"]
mod divergences;

#[cfg(feature = "cli")]
mod chromium;
mod feeds;
#[cfg(feature = "cli")]
mod link_check;
#[cfg(feature = "cli")]
mod replay;
#[cfg(feature = "cli")]
mod stylesheets;
mod url_crate;
