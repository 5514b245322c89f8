//! RFC 1808 §3, "Establishing a Base URL": four layers, "where the innermost
//! defined base URL has the highest precedence".

use std::fmt;

use crate::Standard;

/// Which layer of §3 a base came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// §3.1, "Base URL within Document Content": the first `<base href>` of
    /// the head, at this byte offset of the input.
    Embedded { offset: usize },
    /// §3.2, "Base URL from the Encapsulating Entity".
    Encapsulating,
    /// §3.3, "Base URL from the Retrieval URL": `--retrieved-from`.
    Retrieval,
    /// §3.4, "Default Base URL": "the base URL is considered to be the empty
    /// string and all embedded URLs within that document are assumed to be
    /// absolute URLs".
    Empty,
}

/// An established base URL and the layer it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub layer: Layer,
    pub url: String,
}

impl Base {
    pub fn is_empty(&self) -> bool {
        self.url.is_empty()
    }
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.layer {
            Layer::Embedded { offset } => {
                write!(f, "`{}` (embedded <base href> at byte {offset})", self.url)
            }
            Layer::Encapsulating => write!(f, "`{}` (encapsulating entity)", self.url),
            Layer::Retrieval => write!(f, "`{}` (--retrieved-from)", self.url),
            Layer::Empty => f.write_str("none: every URL is left as it is"),
        }
    }
}

/// Why a `<base href>` found in the head was not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignored {
    /// Still relative after resolving it against the layers below it.
    Relative,
    /// `javascript:` or `data:`, which browsers ignore as a base too.
    Scheme,
}

/// The layers below the embedded one, known before the document is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layers {
    /// §3.2: the base of the entity the document came in.
    pub encapsulating: Option<String>,
    /// §3.3: the URL the document was retrieved from.
    pub retrieval: Option<String>,
}

impl Layers {
    /// The base when the document embeds none: the innermost of §3.2, §3.3,
    /// §3.4 that is defined.
    pub fn outer(&self) -> Base {
        match (&self.encapsulating, &self.retrieval) {
            (Some(url), _) => Base {
                layer: Layer::Encapsulating,
                url: url.clone(),
            },
            (None, Some(url)) => Base {
                layer: Layer::Retrieval,
                url: url.clone(),
            },
            (None, None) => Base {
                layer: Layer::Empty,
                url: String::new(),
            },
        }
    }

    /// The base for a document whose first `<base href>` (at byte `offset`)
    /// holds `href`, already stripped and decoded. The href is resolved
    /// against the layers below it, never against itself.
    pub fn embedded(&self, href: &str, offset: usize, standard: Standard) -> Result<Base, Ignored> {
        let outer = self.outer();
        let url = standard.resolve(&outer.url, href);
        let Some(scheme_len) = standard.scheme_len(&url) else {
            return Err(Ignored::Relative);
        };
        let scheme = &url[..scheme_len];
        if scheme.eq_ignore_ascii_case("javascript") || scheme.eq_ignore_ascii_case("data") {
            return Err(Ignored::Scheme);
        }
        Ok(Base {
            layer: Layer::Embedded { offset },
            url: url.into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retrieved(url: &str) -> Layers {
        Layers {
            retrieval: Some(url.into()),
            ..Layers::default()
        }
    }

    #[test]
    fn innermost_defined_layer_wins() {
        assert_eq!(Layers::default().outer().layer, Layer::Empty);
        assert_eq!(retrieved("http://h/").outer().layer, Layer::Retrieval);
        let both = Layers {
            encapsulating: Some("http://e/".into()),
            retrieval: Some("http://r/".into()),
        };
        assert_eq!(both.outer().url, "http://e/");
    }

    #[test]
    fn embedded_href_resolves_against_the_layers_below() {
        let base = retrieved("http://h/a/p")
            .embedded("sub/", 7, Standard::Rfc1808)
            .unwrap();
        assert_eq!(base.url, "http://h/a/sub/");
        assert_eq!(base.layer, Layer::Embedded { offset: 7 });
    }

    #[test]
    fn embedded_href_that_stays_relative_or_is_script_is_ignored() {
        let none = Layers::default();
        assert_eq!(
            none.embedded("sub/", 0, Standard::Rfc1808),
            Err(Ignored::Relative)
        );
        assert_eq!(
            retrieved("http://h/").embedded("JavaScript:alert(1)", 0, Standard::Rfc1808),
            Err(Ignored::Scheme)
        );
        assert_eq!(
            none.embedded("data:text/html,x", 0, Standard::Rfc3986),
            Err(Ignored::Scheme)
        );
        assert!(none.embedded("http://x/", 0, Standard::Rfc1808).is_ok());
    }
}
