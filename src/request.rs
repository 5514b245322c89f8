//! What a user asks for, by the command line's names, before it is
//! checked: the command line's flags and the Python binding's keywords
//! both become a [`Config`] here, so that the same words mean the same run
//! (and fail with the same message).

use crate::html::attrs::{Row, Table};
use crate::html::config::Config;
use crate::html::encoding;
use crate::source::warc;
use crate::url::{LayerError, Layers, Standard};

/// The choices that shape a document's rewrite, unchecked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flags {
    /// `--retrieved-from`: §3.3's URL.
    pub retrieved_from: Option<String>,
    pub standard: Standard,
    /// `--encoding`: a WHATWG label.
    pub encoding: Option<String>,
    pub keep_fragments: bool,
    pub lazy: bool,
    pub social: bool,
    /// `--attr ELEMENT:ATTRIBUTE[:KIND]`, each as given.
    pub attr: Vec<String>,
    pub max_lookahead: usize,
    pub max_memory: usize,
    /// `--content-location`: a base in a response's or a record's header.
    pub content_location: bool,
}

impl Default for Flags {
    fn default() -> Self {
        let config = Config::default();
        Flags {
            retrieved_from: None,
            standard: config.standard,
            encoding: None,
            keep_fragments: config.keep_fragments,
            lazy: false,
            social: false,
            attr: Vec::new(),
            max_lookahead: config.max_lookahead,
            max_memory: config.max_memory,
            content_location: false,
        }
    }
}

/// A value the user gave that cannot be used: said before anything is
/// read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConfigError {
    #[error("{0}")]
    Attr(String),
    #[error("unknown encoding label: `{0}`")]
    UnknownEncoding(String),
    #[error(transparent)]
    Layer(#[from] LayerError),
}

/// The standard a name (`--standard`'s values) gives.
pub fn standard(name: &str) -> Option<Standard> {
    match name {
        "rfc1808" => Some(Standard::Rfc1808),
        "rfc3986" => Some(Standard::Rfc3986),
        _ => None,
    }
}

impl Flags {
    /// The validated configuration of a run.
    pub fn config(&self) -> Result<Config, ConfigError> {
        let standard = self.standard;
        let mut layers = Layers::default();
        if let Some(url) = &self.retrieved_from {
            layers = layers.with_retrieval(standard, url, "--retrieved-from")?;
        }
        let encoding = match &self.encoding {
            Some(label) => Some(
                encoding::for_label(label)
                    .ok_or_else(|| ConfigError::UnknownEncoding(label.clone()))?,
            ),
            None => None,
        };
        let user = self
            .attr
            .iter()
            .map(|spec| Row::user(spec).map_err(ConfigError::Attr))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Config {
            layers,
            standard,
            keep_fragments: self.keep_fragments,
            max_lookahead: self.max_lookahead,
            max_memory: self.max_memory,
            encoding,
            table: Table::new(self.lazy, self.social, user),
        })
    }

    /// How an archive is read: the flags that change what is written go
    /// into its `warcinfo` record (the mode, jobs and gzip level are the
    /// caller's to set).
    pub fn warc(&self) -> warc::Options {
        let mut flags = Vec::new();
        if self.content_location {
            flags.push("--content-location".to_owned());
        }
        if self.standard == Standard::Rfc3986 {
            flags.push("--standard rfc3986".to_owned());
        }
        if self.keep_fragments {
            flags.push("--keep-fragments".to_owned());
        }
        if self.lazy {
            flags.push("--lazy".to_owned());
        }
        if self.social {
            flags.push("--social".to_owned());
        }
        if let Some(label) = &self.encoding {
            flags.push(format!("--encoding {label}"));
        }
        flags.extend(self.attr.iter().map(|a| format!("--attr {a}")));
        warc::Options {
            content_location: self.content_location,
            flags: flags.join(" "),
            ..Default::default()
        }
    }
}
