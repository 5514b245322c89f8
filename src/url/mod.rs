//! URLs, and nothing of HTML: RFC 1808's parsing (§2.4) and resolution (§4),
//! RFC 3986's as the opt-in second standard, and the §3 layers that decide
//! a document's base.

mod cloudflare;
mod gitlab;
mod host;
mod layers;
mod local;
mod map;
mod redirects;
pub mod rfc1808;
pub mod rfc3986;
pub(crate) mod saved;
mod standard;
mod target;

pub use gitlab::Unread as GitlabUnread;
pub use host::{Host, Served};
pub use layers::{Base, Below, Candidate, Charset, Ignored, Layer, LayerError, Layers};
pub use local::{LocalTree, Missing, PLACEHOLDER};
pub use map::{MapError, MapRule, UrlMap};
pub use redirects::Redirects;
pub use standard::{BaseUrl, Standard};
