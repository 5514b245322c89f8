//! URLs, and nothing of HTML: RFC 1808's parsing (§2.4) and resolution (§4),
//! RFC 3986's as the opt-in second standard, and the §3 layers that decide
//! a document's base.

mod layers;
pub mod rfc1808;
pub mod rfc3986;
mod standard;

use std::borrow::Cow;

pub use layers::{Base, Below, Candidate, Charset, Ignored, Layer, LayerError, Layers};
pub use standard::{BaseUrl, Standard};

/// The path a resolved URL is written with. Decided here, for both
/// standards: a path that starts with `//` cannot be written in a URL without
/// a net_loc (authority), where it would read back as one (RFC 3986 §3.3: "the
/// path cannot begin with two slash characters"); step 6 (RFC 1808) and
/// remove_dot_segments (RFC 3986) make such a path from a base that has none
/// (`foo:/a/b` + `..//g`). It is written with `/.` in front, as the URL
/// Standard writes it (`foo:/.//g`): the same path once dot segments are
/// removed (RFC 3986 §6.2.2.3), and the URL a browser makes of the reference.
pub(crate) fn unambiguous_path(has_net_loc: bool, path: Cow<'_, str>) -> Cow<'_, str> {
    if has_net_loc || !path.starts_with("//") {
        return path;
    }
    Cow::Owned(format!("/.{path}"))
}
