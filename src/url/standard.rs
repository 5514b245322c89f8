//! Which standard resolves references, and a base made ready for the many
//! references of a document.

use std::borrow::Cow;

use super::{rfc1808, rfc3986};

/// Which standard resolves references.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Standard {
    /// RFC 1808 §4, the default: `..` above the root is kept, `;params` are
    /// their own component, the empty reference keeps the base's fragment.
    #[default]
    Rfc1808,
    /// RFC 3986 §5.2 with a strict parser, as browsers resolve these cases.
    Rfc3986,
}

impl Standard {
    /// Resolves `reference` against `base`. An empty base leaves every
    /// reference as it is (RFC 1808 §4 step 1, §3.4), in both standards.
    pub fn resolve<'a>(self, base: &'a str, reference: &'a str) -> Cow<'a, str> {
        BaseUrl::new(self, base).resolve(reference)
    }

    /// The length of the scheme `value` starts with, by this standard's
    /// parser, without its colon.
    pub fn scheme_len(self, value: &str) -> Option<usize> {
        match self {
            Standard::Rfc1808 => rfc1808::scheme_len(value),
            Standard::Rfc3986 => rfc3986::scheme_len(value),
        }
    }

    /// Whether `value` starts with a scheme: such a value is absolute and is
    /// left as it is.
    pub fn has_scheme(self, value: &str) -> bool {
        self.scheme_len(value).is_some()
    }
}

/// A base URL made ready once, for the many references of a document that
/// resolve against it: RFC 1808's is parsed, and its directory's part of
/// step 6 done, only once.
#[derive(Debug, Clone)]
pub struct BaseUrl {
    url: String,
    /// `None` for RFC 3986, which parses the base with each reference.
    rfc1808: Option<rfc1808::ParsedBase>,
}

impl BaseUrl {
    pub fn new(standard: Standard, url: &str) -> Self {
        BaseUrl {
            url: url.to_owned(),
            rfc1808: (standard == Standard::Rfc1808).then(|| rfc1808::ParsedBase::new(url)),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.url
    }

    /// Resolves `reference` against this base by its standard. An empty base
    /// leaves every reference as it is, in both standards.
    pub fn resolve<'r>(&self, reference: &'r str) -> Cow<'r, str> {
        match &self.rfc1808 {
            Some(parsed) => parsed.resolve(reference),
            None if self.url.is_empty() => Cow::Borrowed(reference),
            None => Cow::Owned(rfc3986::resolve(&self.url, reference)),
        }
    }

    /// What resolving `reference` puts in front of it, when that is all it
    /// does (RFC 1808's [`ParsedBase::prefix`](rfc1808::ParsedBase::prefix));
    /// `None` when [`resolve`](Self::resolve) must tell.
    pub fn prefix(&self, reference: &str) -> Option<&str> {
        self.rfc1808.as_ref()?.prefix(reference)
    }
}
