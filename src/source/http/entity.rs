//! The encapsulating entity (RFC 1808 §3.2) and the retrieval URL (§3.3)
//! of a response's body, from its header blocks: the [`Layers`] its
//! document is rewritten with, each candidate passed over named for `-v`.
//!
//! §3.2's fields, in the order the RFCs came: `Base:` (RFC 1808 §3.1's
//! own), `Content-Base:` (RFC 2068 §14.11, RFC 2110), and `Content-Location:`
//! only when asked for: RFC 2068 ranks it after `Content-Base`, RFC 2557
//! (MHTML) and RFC 2616 §14.14 use it as a base, but RFC 7231 (Appendix B)
//! withdrew that for HTTP and browsers ignore it. The first that is a URL
//! wins; a relative one resolves against the retrieval URL. The charset of
//! `Content-Type` is the HTML standard's transport layer encoding.

use std::borrow::Cow;

use encoding_rs::{Encoding, REPLACEMENT};

use super::head::{Head, HeadError};
use super::media::{self, MediaType};
use super::redirects::{self, CONTROL, field_url};
use super::report::ResponseWarning;
use crate::source::names;
use crate::url::{Below, LayerError, Layers, Standard};

/// What a response's header blocks say of its body.
#[derive(Debug, Clone)]
pub struct Entity {
    /// The layers below the document: §3.2 and §3.3, the charset, and
    /// notes on the candidates passed over.
    pub layers: Layers,
    /// The final block's `Content-Type`, if it has a valid one.
    pub media: Option<MediaType>,
    /// Lines for `-v` about the type and the charset.
    pub notes: Vec<String>,
    pub warnings: Vec<ResponseWarning>,
}

/// The base fields of §3.2, in their order, with how messages name them.
const BASE_FIELDS: [(&str, &str); 3] = [
    ("Base", "Base:"),
    ("Content-Base", "Content-Base:"),
    ("Content-Location", "Content-Location:"),
];

/// The entity of the body after `heads` (the last one is its response),
/// over the layers the user `given` (`--retrieved-from`: the URL first
/// asked for; a §3.2 base or charset of their own, which the response's
/// fields outrank).
pub fn entity(
    heads: &[Head],
    given: &Layers,
    standard: Standard,
    content_location: bool,
) -> Entity {
    let last = heads.last().expect("a response has a final block");
    let mut warnings = Vec::new();
    let mut notes = Vec::new();

    // §3.3: the last URL used.
    let first = given.retrieval();
    let retrieval = redirects::follow(heads, first.map(|c| c.url.as_str()));
    warnings.extend(retrieval.warnings);
    let mut layers = Layers::default();
    if let Some(url) = &retrieval.url {
        let from = match (retrieval.redirects.is_empty(), first) {
            (true, Some(first)) => first.from,
            _ => "Location: of the last redirect",
        };
        match layers.clone().with_retrieval(standard, url, from) {
            Ok(with) => layers = with,
            Err(e) => {
                let last = retrieval.redirects.last().expect("a redirect gave it");
                warnings.push(ResponseWarning::Location {
                    status: last.status,
                    value: last.location.clone(),
                    offset: last.offset,
                    why: e.to_string(),
                });
            }
        }
    }
    if !retrieval.redirects.is_empty() {
        let steps: Vec<String> = retrieval
            .redirects
            .iter()
            .map(|r| match &r.to {
                Some(to) => format!(
                    "{} at byte {} to `{}`",
                    r.status,
                    r.offset,
                    names::shown(to.as_bytes())
                ),
                None => format!(
                    "{} at byte {}, not followed (`Location: {}`)",
                    r.status,
                    r.offset,
                    names::shown(&r.location)
                ),
            })
            .collect();
        let start = match first {
            Some(c) => format!(
                "`{}` ({}) was redirected",
                names::shown(c.url.as_bytes()),
                c.from
            ),
            None => "redirected".to_owned(),
        };
        layers = layers.with_note(Below::Retrieval, format!("{start}: {}", steps.join(", ")));
    }

    // §3.2: the first base field that is a URL. A field httparse passed
    // over for a control character in it is one of them, never a URL.
    let mut winner: Option<&str> = None;
    for (name, from) in BASE_FIELDS {
        let mut candidates: Vec<(Cow<'_, [u8]>, usize, bool)> = last
            .values(name)
            .map(|(value, offset)| (value, offset, true))
            .chain(
                last.refused(name)
                    .map(|(value, offset)| (Cow::Borrowed(value), offset, false)),
            )
            .collect();
        candidates.sort_by_key(|&(_, offset, _)| offset);
        for (value, offset, readable) in candidates {
            let value = value.trim_ascii().to_vec();
            let shown = names::shown(&value).into_owned();
            if name == "Content-Location" && !content_location {
                layers = layers.with_note(
                    Below::Encapsulating,
                    format!(
                        "`{from} {shown}` at byte {offset}, passed over: a base only with --content-location (RFC 7231 withdrew it for HTTP)"
                    ),
                );
                continue;
            }
            if let Some(winner) = winner {
                layers = layers.with_note(
                    Below::Encapsulating,
                    format!("`{from} {shown}` at byte {offset}, passed over: {winner} comes first"),
                );
                continue;
            }
            // Told as a warning, and named by `-v` with the layer's other
            // candidates.
            let mut not_a_url = |why: &str, layers: Layers| {
                warnings.push(ResponseWarning::NotAUrl {
                    field: from,
                    value: value.clone(),
                    offset,
                    why: why.to_owned(),
                });
                layers.with_note(
                    Below::Encapsulating,
                    format!("`{from} {shown}` at byte {offset}, passed over: {why}"),
                )
            };
            let url = field_url(&value).and_then(|url| readable.then_some(url).ok_or(CONTROL));
            let url = match url {
                Ok(url) => url,
                Err(why) => {
                    layers = not_a_url(why, layers);
                    continue;
                }
            };
            layers = match layers.clone().with_encapsulating(standard, &url, from) {
                Ok(with) => {
                    winner = Some(from);
                    with
                }
                Err(LayerError::NotABase { why, .. }) => not_a_url(&why.to_string(), layers),
                Err(_) => not_a_url(
                    "it is relative, and there is no retrieval URL to resolve it against",
                    layers,
                ),
            };
        }
    }
    if winner.is_none() {
        if let Some(c) = given.encapsulating() {
            layers = layers
                .with_encapsulating(standard, &c.url, c.from)
                .expect("it was checked when it was given");
        }
    }

    // The charset, after a byte order mark and --encoding, before <meta>.
    let media = media::content_type(last);
    match &media {
        Some(m) => notes.push(format!(
            "content type: `{}` (Content-Type:)",
            names::shown(m.essence.as_bytes())
        )),
        None => notes.push("content type: none".to_owned()),
    }
    let charset = media.as_ref().and_then(|m| m.charset.as_deref());
    match charset.map(|label| (label, Encoding::for_label(label.as_bytes()))) {
        Some((_, Some(encoding))) if encoding != REPLACEMENT => {
            layers = layers.with_charset(encoding, "Content-Type:");
        }
        Some((label, _)) => {
            notes.push(format!(
                "charset: `{}` (Content-Type:) passed over: not a label of an encoding htmlabs can rewrite",
                names::shown(label.as_bytes())
            ));
            if let Some(c) = given.charset() {
                layers = layers.with_charset(c.encoding, c.from);
            }
        }
        None => {
            if let Some(c) = given.charset() {
                layers = layers.with_charset(c.encoding, c.from);
            }
        }
    }
    Entity {
        layers,
        media,
        notes,
        warnings,
    }
}

/// The status line a caller's fields are read under ([`of_fields`]).
pub const FIELDS_STATUS_LINE: &str = "HTTP/1.1 200 OK\r\n";

/// The entity of a document whose encapsulating entity is given by its
/// header fields alone (the Python binding's `headers`): they are read as
/// the final block of a response, `HTTP/1.1 200 OK` and the fields in
/// their order, exactly as `--http` reads one, so that a warning's byte
/// offset counts from that block's start. A name or a value with a line
/// break in it would make fields of its own: refused.
pub fn of_fields(
    fields: &[(String, String)],
    given: &Layers,
    standard: Standard,
    content_location: bool,
) -> Result<Entity, HeadError> {
    let mut block = FIELDS_STATUS_LINE.to_owned();
    for (name, value) in fields {
        if [name, value].iter().any(|s| s.contains(['\r', '\n'])) {
            return Err(HeadError::Block {
                offset: block.len(),
                why: format!(
                    "the field `{}` holds a line break",
                    names::shown(name.as_bytes())
                ),
            });
        }
        block.push_str(&format!("{name}: {value}\r\n"));
    }
    block.push_str("\r\n");
    let head = Head::parse(block.into_bytes(), 0)?;
    Ok(entity(&[head], given, standard, content_location))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::Layer;

    const R: Standard = Standard::Rfc1808;

    fn response(fields: &str) -> Vec<Head> {
        let block = format!("HTTP/1.1 200 OK\r\n{fields}\r\n");
        vec![Head::parse(block.into_bytes(), 0).unwrap()]
    }

    fn retrieved(url: &str) -> Layers {
        Layers::default()
            .with_retrieval(R, url, "--retrieved-from")
            .unwrap()
    }

    #[test]
    fn base_fields_rank_in_their_order_and_resolve_against_the_retrieval_url() {
        let heads = response(
            "Content-Location: /cl/\r\nContent-Base: ../cb/\r\nBase: <URL:http://b/\r\n x/>\r\n",
        );
        let e = entity(&heads, &retrieved("http://h/a/p"), R, true);
        assert_eq!(e.layers.encapsulating().unwrap().url, "http://b/x/");
        assert_eq!(
            e.layers.outer().layer,
            Layer::Encapsulating { from: "Base:" }
        );
        let notes: Vec<&str> = e.layers.notes(Below::Encapsulating).collect();
        assert_eq!(
            notes,
            [
                "`Content-Base: ../cb/` at byte 41, passed over: Base: comes first",
                "`Content-Location: /cl/` at byte 17, passed over: Base: comes first",
            ]
        );
        let heads = response("Content-Location: /cl/\r\nContent-Base: ../cb/\r\n");
        let e = entity(&heads, &retrieved("http://h/a/p"), R, true);
        assert_eq!(e.layers.encapsulating().unwrap().url, "http://h/cb/");
        let e = entity(
            &response("Content-Location: /cl/\r\n"),
            &retrieved("http://h/a/p"),
            R,
            true,
        );
        assert_eq!(e.layers.encapsulating().unwrap().url, "http://h/cl/");
    }

    #[test]
    fn content_location_is_a_base_only_when_asked_for() {
        let heads = response("Content-Location: http://c/\r\n");
        let e = entity(&heads, &retrieved("http://h/"), R, false);
        assert_eq!(e.layers.encapsulating(), None);
        assert_eq!(&*e.layers.outer().url, "http://h/");
        let notes: Vec<&str> = e.layers.notes(Below::Encapsulating).collect();
        assert_eq!(
            notes,
            [
                "`Content-Location: http://c/` at byte 17, passed over: a base only with --content-location (RFC 7231 withdrew it for HTTP)"
            ]
        );
    }

    #[test]
    fn a_base_field_that_is_not_a_url_is_ignored_with_a_warning() {
        let heads = response("Content-Base: not a url\r\nBase: rel/\r\n");
        let e = entity(&heads, &Layers::default(), R, false);
        assert_eq!(e.layers.encapsulating(), None);
        let warnings: Vec<String> = e.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(
            warnings,
            [
                "`Base: rel/` at byte 42 is not a base URL (it is relative, and there is no retrieval URL to resolve it against): ignored",
                "`Content-Base: not a url` at byte 17 is not a base URL (it holds a space or a control character): ignored",
            ]
        );
        // The next field that is one wins.
        let heads = response("Base: <URL:>\r\nContent-Base: http://cb/\r\n");
        let e = entity(&heads, &Layers::default(), R, false);
        assert_eq!(e.layers.encapsulating().unwrap().url, "http://cb/");
    }

    #[test]
    fn the_charset_of_the_content_type_is_the_transport_layers() {
        let e = entity(
            &response("Content-Type: text/html; charset=Shift_JIS\r\n"),
            &Layers::default(),
            R,
            false,
        );
        let charset = e.layers.charset().unwrap();
        assert_eq!(
            (charset.encoding, charset.from),
            (encoding_rs::SHIFT_JIS, "Content-Type:")
        );
        assert!(e.media.unwrap().is_html());
        for label in ["no-such-label", "iso-2022-kr"] {
            let e = entity(
                &response(&format!("Content-Type: text/html; charset={label}\r\n")),
                &Layers::default(),
                R,
                false,
            );
            assert_eq!(e.layers.charset(), None, "{label}");
            assert!(e.notes[1].contains("passed over"), "{label}");
        }
    }

    #[test]
    fn fields_alone_are_read_as_a_final_block() {
        let fields = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
            pairs
                .iter()
                .map(|(n, v)| ((*n).to_owned(), (*v).to_owned()))
                .collect()
        };
        let e = of_fields(
            &fields(&[
                ("Content-Type", "text/html; charset=latin1"),
                ("Content-Base", "../cb/"),
            ]),
            &retrieved("http://h/a/p"),
            R,
            false,
        )
        .unwrap();
        assert_eq!(e.layers.encapsulating().unwrap().url, "http://h/cb/");
        assert_eq!(e.layers.charset().unwrap().encoding.name(), "windows-1252");
        let e = of_fields(&fields(&[("Base", "rel/")]), &Layers::default(), R, false).unwrap();
        assert_eq!(
            e.warnings[0].to_string(),
            "`Base: rel/` at byte 17 is not a base URL (it is relative, and there is no retrieval URL to resolve it against): ignored"
        );
        let refused = of_fields(
            &fields(&[("X", "a\r\nBase: http://evil/")]),
            &Layers::default(),
            R,
            false,
        );
        assert_eq!(
            refused.unwrap_err().to_string(),
            "malformed header block at byte 17: the field `X` holds a line break"
        );
    }
}
