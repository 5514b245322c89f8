//! RFC 1808 §3, "Establishing a Base URL": four layers, "where the innermost
//! defined base URL has the highest precedence". The layers below the
//! document are known before it is read and come from its source (a flag, a
//! header block, a WARC record, a file's path); this type holds them
//! validated, each with what gave it, so that `-v` can tell.

use std::fmt;
use std::sync::Arc;

use encoding_rs::Encoding;

use super::Standard;
use crate::shown::shown;

/// Which layer of §3 a base came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// §3.1, "Base URL within Document Content": the first `<base href>` of
    /// the head, at this byte offset of the input.
    Embedded { offset: usize },
    /// §3.1 in XML: the `xml:base` at this byte offset of the input, for the
    /// element that bears it and everything in it (XML Base §4.2). Its own
    /// variant, because `-v` and the link report name what set a value's
    /// base, and an XML document has as many of them as it has `xml:base`.
    XmlBase { offset: usize },
    /// §3.2, "Base URL from the Encapsulating Entity": `from` names it
    /// (`Content-Base:`, the document around a `srcdoc`).
    Encapsulating { from: &'static str },
    /// §3.3, "Base URL from the Retrieval URL": `from` names it
    /// (`--retrieved-from`, `WARC-Target-URI`).
    Retrieval { from: &'static str },
    /// §3.4, "Default Base URL": "the base URL is considered to be the empty
    /// string and all embedded URLs within that document are assumed to be
    /// absolute URLs".
    Empty,
}

impl Layer {
    /// Its section of RFC 1808: `3.1` to `3.4`.
    pub fn section(self) -> &'static str {
        match self {
            Layer::Embedded { .. } | Layer::XmlBase { .. } => "3.1",
            Layer::Encapsulating { .. } => "3.2",
            Layer::Retrieval { .. } => "3.3",
            Layer::Empty => "3.4",
        }
    }

    /// How the link report and the Python binding name it.
    pub fn name(self) -> &'static str {
        match self {
            Layer::Embedded { .. } | Layer::XmlBase { .. } => "embedded",
            Layer::Encapsulating { .. } => "encapsulating",
            Layer::Retrieval { .. } => "retrieval",
            Layer::Empty => "none",
        }
    }
}

/// An established base URL and the layer it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Base {
    pub layer: Layer,
    pub url: Arc<str>,
}

impl Base {
    pub fn is_empty(&self) -> bool {
        self.url.is_empty()
    }

    /// The base an `xml:base` holding `href` (stripped and decoded) sets
    /// where this one is in scope: XML Base §4.2, "the base URI of the
    /// element is ... the base URI specified by an xml:base attribute on
    /// the element", "resolved against the base URI of the parent
    /// element". It is a base by the one rule of every layer (`unusable`).
    pub fn within(&self, href: &str, layer: Layer, standard: Standard) -> Result<Base, Ignored> {
        let url = standard.resolve(&self.url, href);
        if let Some(why) = judged(href, &url, standard) {
            return Err(why);
        }
        Ok(Base {
            layer,
            url: url.into(),
        })
    }
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let url = shown(self.url.as_bytes());
        match self.layer {
            Layer::Embedded { offset } => {
                write!(f, "`{url}` (embedded <base href> at byte {offset})")
            }
            Layer::XmlBase { offset } => write!(f, "`{url}` (xml:base at byte {offset})"),
            Layer::Encapsulating { from } => {
                write!(f, "`{url}` (encapsulating entity: {from})")
            }
            Layer::Retrieval { from } => write!(f, "`{url}` ({from})"),
            Layer::Empty => f.write_str("none: every URL is left as it is"),
        }
    }
}

/// Why a URL cannot be a base, in any layer: the embedded `<base href>`
/// (§3.1), the encapsulating entity's (§3.2) or the retrieval URL (§3.3).
///
/// Its shape is never a reason: §4 resolves against any absolute URL,
/// `news:comp.lang.misc` + `g` → `news:g` as `http://a/b` + `g` →
/// `http://a/g` (RFC 3986 §5.2 alike), and so does every layer. What
/// makes a URL unusable is what links resolved against it would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ignored {
    /// Still relative after resolving it against the layers below it.
    Relative,
    /// A scheme whose URLs run script or are the document itself
    /// (`javascript:`, `vbscript:`, `livescript:`, `data:`): every
    /// reference resolved against it would be one of those, a link that
    /// runs script where the base came from a header or a record.
    Scheme(String),
}

impl fmt::Display for Ignored {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ignored::Relative => {
                f.write_str("it is relative and nothing lies below it to resolve it against")
            }
            Ignored::Scheme(scheme) => write!(
                f,
                "a `{scheme}:` URL is never a base: links against it would run script or replace the page"
            ),
        }
    }
}

/// The schemes whose URLs are never a base, whatever follows them: the
/// ones whose URLs run script (HTML's `javascript:`, Internet Explorer's
/// `vbscript:` and Netscape's `livescript:`) and `data:`, which browsers
/// refuse as a base as well (HTML: "set the frozen base URL").
const NEVER_A_BASE: [&str; 4] = ["javascript", "vbscript", "livescript", "data"];

/// Why `url` (absolute or not, as resolved) cannot be a base, if it can't:
/// the one rule of every layer. A layer's value as given is checked too
/// ([`never_a_base`]), before it is resolved.
pub fn unusable(url: &str, standard: Standard) -> Option<Ignored> {
    if let Some(scheme) = never_a_base(url, standard) {
        return Some(Ignored::Scheme(scheme));
    }
    if standard.scheme_len(url).is_none() {
        return Some(Ignored::Relative);
    }
    None
}

/// Why a layer's value, `given` and `resolved` against the layers below,
/// cannot be a base: a script scheme as given (a browser may read one
/// where the RFCs read a path), else [`unusable`] as resolved.
fn judged(given: &str, resolved: &str, standard: Standard) -> Option<Ignored> {
    match never_a_base(given, standard) {
        Some(scheme) => Some(Ignored::Scheme(scheme)),
        None => unusable(resolved, standard),
    }
}

/// The scheme of `NEVER_A_BASE` that `value` starts with, lowercased, as
/// `standard`'s parser reads it or as a browser does. Case never matters;
/// a character reference (`&#x6A;avascript:`) is decoded before a value
/// gets here, and a header's `<URL: java script:…>` has lost its spaces.
/// A browser's URL parser also removes "any leading and trailing C0
/// control or space" and "all ASCII tab or newline" before it reads the
/// scheme (the URL Standard's basic URL parser), so `\x01javascript:`,
/// ` java\tscript:` and `java\nscript:` name `javascript:` to it, though
/// they name no scheme to the RFCs: each is refused as one. A percent
/// escape names no scheme to any reader (`%6Aavascript:x` is a path to
/// RFC 1808 §2.4.2, RFC 3986 §3.1 and the URL Standard alike), so it is
/// resolved as one; what follows a script scheme, escaped or not
/// (`javascript:%61lert(1)`), changes nothing.
pub fn never_a_base(value: &str, standard: Standard) -> Option<String> {
    let is_never = |scheme: &str| {
        NEVER_A_BASE
            .iter()
            .any(|never| scheme.eq_ignore_ascii_case(never))
    };
    if let Some(len) = standard.scheme_len(value) {
        if is_never(&value[..len]) {
            return Some(value[..len].to_ascii_lowercase());
        }
    }
    // As a browser reads it: at most as long as the longest of them.
    let longest = NEVER_A_BASE.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut scheme = String::with_capacity(longest);
    let read = value
        .trim_start_matches(|c: char| c <= ' ')
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'));
    for c in read {
        if c == ':' {
            return is_never(&scheme).then(|| scheme.to_ascii_lowercase());
        }
        if !(c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')) || scheme.len() == longest {
            return None;
        }
        scheme.push(c);
    }
    None
}

/// A base URL a layer below the document offers, and what gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    pub url: String,
    /// What gave it, for messages: `--retrieved-from`, `Content-Base:`.
    pub from: &'static str,
}

/// A layer's URL that cannot be a base.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayerError {
    /// No scheme, and nothing below it to resolve it against. A flag's
    /// URL that starts with a host name (`example.com/docs/`) is told the
    /// URL it likely means.
    #[error(
        "{from} must be an absolute URL, with a scheme: `{}`{}",
        shown(url.as_bytes()),
        meant(from, url)
    )]
    Relative { from: &'static str, url: String },
    /// Absolute, but not a base any reference may resolve against.
    #[error("{from} cannot be a base: `{}`: {why}", shown(url.as_bytes()))]
    NotABase {
        from: &'static str,
        url: String,
        why: Ignored,
    },
    /// Control characters never stand in a URL as given: a line break or a
    /// tab there is a mistake (a pasted line, a header read wrongly).
    #[error("{from} holds a control character: `{escaped}`")]
    ControlCharacter {
        from: &'static str,
        /// The URL as every value from the input is shown
        /// (`shown`): the message stays one line.
        escaped: String,
    },
}

/// The layers below the embedded one, known before the document is read,
/// each checked: a base is absolute. `Layers::default()` has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layers {
    encapsulating: Option<Candidate>,
    retrieval: Option<Candidate>,
    charset: Option<Charset>,
    /// What `-v` says of a layer besides its candidate: the candidates a
    /// source passed over, the redirects that led to the retrieval URL.
    notes: Vec<(Below, String)>,
    /// The URL of the document's own file, when it is not its retrieval
    /// URL: a document nested in a page's value is in the page's file.
    own: Option<String>,
}

/// A layer below the document that a source can say more of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Below {
    /// §3.2.
    Encapsulating,
    /// §3.3.
    Retrieval,
}

/// The charset the encapsulating entity declares (`Content-Type: text/html;
/// charset=…`): the HTML standard's "transport layer" encoding, after a
/// byte order mark and the user's override, before `<meta>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Charset {
    pub encoding: &'static Encoding,
    pub from: &'static str,
}

impl Layers {
    /// With §3.3's base: the URL the document was retrieved from, which
    /// must be absolute by `standard`'s parser.
    pub fn with_retrieval(
        mut self,
        standard: Standard,
        url: &str,
        from: &'static str,
    ) -> Result<Self, LayerError> {
        let url = checked(url, from)?;
        if host_and_port(from, url) {
            return Err(LayerError::Relative {
                from,
                url: url.to_owned(),
            });
        }
        base_of(url, url, from, standard)?;
        self.retrieval = Some(Candidate {
            url: url.to_owned(),
            from,
        });
        Ok(self)
    }

    /// With §3.2's base: the one the encapsulating entity gives. A relative
    /// one is resolved against the retrieval URL (so give that first), and
    /// must then be absolute.
    pub fn with_encapsulating(
        mut self,
        standard: Standard,
        url: &str,
        from: &'static str,
    ) -> Result<Self, LayerError> {
        let url = checked(url, from)?;
        let below = self.retrieval.as_ref().map_or("", |r| &r.url);
        let resolved = standard.resolve(below, url);
        base_of(&resolved, url, from, standard)?;
        self.encapsulating = Some(Candidate {
            url: resolved.into_owned(),
            from,
        });
        Ok(self)
    }

    /// With the encapsulating entity's charset.
    pub fn with_charset(mut self, encoding: &'static Encoding, from: &'static str) -> Self {
        self.charset = Some(Charset { encoding, from });
        self
    }

    /// With a note on `layer` for `-v`: a candidate passed over and why,
    /// the way to the retrieval URL.
    pub fn with_note(mut self, layer: Below, note: impl Into<String>) -> Self {
        self.notes.push((layer, note.into()));
        self
    }

    /// The notes on `layer`, in the order they were made.
    pub fn notes(&self, layer: Below) -> impl Iterator<Item = &str> {
        self.notes
            .iter()
            .filter(move |(l, _)| *l == layer)
            .map(|(_, note)| note.as_str())
    }

    /// The layers of a document nested in another (`srcdoc`, `<noscript>`):
    /// the base of the document around it is its encapsulating entity.
    pub(crate) fn around(base: &Base) -> Self {
        Layers {
            encapsulating: Some(Candidate {
                url: base.url.to_string(),
                from: "the document around it",
            }),
            ..Layers::default()
        }
    }

    /// These layers, of a document in the file at `own` (a nested one).
    pub(crate) fn in_file(mut self, own: Option<String>) -> Self {
        self.own = own;
        self
    }

    /// The URL of the document's own file: what `--relative` makes its
    /// references from. Its retrieval URL, unless it is nested in another.
    pub(crate) fn own(&self) -> Option<String> {
        self.own
            .clone()
            .or_else(|| self.retrieval.as_ref().map(|c| c.url.clone()))
    }

    /// §3.2's base, resolved, if there is one.
    pub fn encapsulating(&self) -> Option<&Candidate> {
        self.encapsulating.as_ref()
    }

    /// §3.3's base, if there is one.
    pub fn retrieval(&self) -> Option<&Candidate> {
        self.retrieval.as_ref()
    }

    /// The encapsulating entity's charset, if it declares one.
    pub fn charset(&self) -> Option<Charset> {
        self.charset
    }

    /// The base when the document embeds none: the innermost of §3.2, §3.3,
    /// §3.4 that is defined.
    pub fn outer(&self) -> Base {
        match (&self.encapsulating, &self.retrieval) {
            (Some(c), _) => Base {
                layer: Layer::Encapsulating { from: c.from },
                url: c.url.as_str().into(),
            },
            (None, Some(c)) => Base {
                layer: Layer::Retrieval { from: c.from },
                url: c.url.as_str().into(),
            },
            (None, None) => Base {
                layer: Layer::Empty,
                url: "".into(),
            },
        }
    }

    /// The base for a document whose first `<base href>` (at byte `offset`)
    /// holds `href`, already stripped and decoded. The href is resolved
    /// against the layers below it, never against itself.
    pub fn embedded(&self, href: &str, offset: usize, standard: Standard) -> Result<Base, Ignored> {
        self.outer()
            .within(href, Layer::Embedded { offset }, standard)
    }
}

/// `resolved` (what `given` became), refused as a layer's base if it
/// cannot be one.
fn base_of(
    resolved: &str,
    given: &str,
    from: &'static str,
    standard: Standard,
) -> Result<(), LayerError> {
    match judged(given, resolved, standard) {
        None => Ok(()),
        Some(Ignored::Relative) => Err(LayerError::Relative {
            from,
            url: given.to_owned(),
        }),
        Some(why) => Err(LayerError::NotABase {
            from,
            url: given.to_owned(),
            why,
        }),
    }
}

/// What a user likely meant by a flag's URL (`from` a flag, `--…`) given
/// without its scheme, as ` (did you mean `https://…`?)`, when it starts
/// with a host name: `example.com/docs/`, `www.example.org`,
/// `//example.com/`, `localhost/a/`. Nothing for a path (`docs/`,
/// `page.html`) nor for a header's value, which the user did not write.
fn meant(from: &str, url: &str) -> String {
    /// What a file name ends with, more likely than a top-level domain.
    const FILES: [&str; 17] = [
        "html", "htm", "xhtml", "css", "xml", "rss", "atom", "feed", "svg", "php", "asp", "aspx",
        "jsp", "js", "json", "txt", "md",
    ];
    if !from.starts_with("--") {
        return String::new();
    }
    let rest = url.strip_prefix("//").unwrap_or(url);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        Some(_) => return String::new(),
        None => authority,
    };
    let labels: Vec<&str> = host.split('.').collect();
    let label =
        |l: &&str| !l.is_empty() && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let top = labels.last().copied().unwrap_or_default();
    let a_host = host.eq_ignore_ascii_case("localhost")
        || (labels.len() >= 2
            && labels.iter().all(label)
            && top.bytes().all(|b| b.is_ascii_alphabetic())
            && !FILES.iter().any(|f| top.eq_ignore_ascii_case(f)));
    match a_host {
        true => format!(
            " (did you mean `{}`?)",
            shown(format!("https://{rest}").as_bytes())
        ),
        false => String::new(),
    }
}

/// Whether a flag's URL (`from` a flag, `--…`) is a host and a port with
/// no scheme: `localhost:8080/docs/`. By RFC 1808 §2.1 that is the scheme
/// `localhost` and the path `8080/docs/`, against which `x.html` becomes
/// `localhost:8080/docs/x.html`, a link no browser follows; nobody who
/// types it means that. A header's value, which the user did not write,
/// is read as the RFC reads it.
fn host_and_port(from: &str, url: &str) -> bool {
    let Some((_, rest)) = url.split_once(':') else {
        return false;
    };
    let port = rest.split('/').next().unwrap_or_default();
    from.starts_with("--")
        && (1..=5).contains(&port.len())
        && port.bytes().all(|b| b.is_ascii_digit())
}

/// `url`, refused if it holds a control character.
fn checked<'u>(url: &'u str, from: &'static str) -> Result<&'u str, LayerError> {
    if url.chars().any(char::is_control) {
        return Err(LayerError::ControlCharacter {
            from,
            escaped: shown(url.as_bytes()).into_owned(),
        });
    }
    Ok(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Standard = Standard::Rfc1808;

    fn retrieved(url: &str) -> Layers {
        Layers::default().with_retrieval(R, url, "-r").unwrap()
    }

    #[test]
    fn innermost_defined_layer_wins() {
        assert_eq!(Layers::default().outer().layer, Layer::Empty);
        assert_eq!(
            retrieved("http://h/").outer().layer,
            Layer::Retrieval { from: "-r" }
        );
        let both = retrieved("http://r/")
            .with_encapsulating(R, "http://e/", "Content-Base:")
            .unwrap();
        assert_eq!(&*both.outer().url, "http://e/");
        assert_eq!(
            both.outer().layer,
            Layer::Encapsulating {
                from: "Content-Base:"
            }
        );
    }

    #[test]
    fn a_retrieval_url_must_be_absolute_and_one_line() {
        let refused = |url: &str, standard| {
            Layers::default()
                .with_retrieval(standard, url, "--retrieved-from")
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            refused("docs/", R),
            "--retrieved-from must be an absolute URL, with a scheme: `docs/`"
        );
        assert_eq!(
            refused("", R),
            "--retrieved-from must be an absolute URL, with a scheme: ``"
        );
        for (url, meant) in [
            ("example.com/docs/", "https://example.com/docs/"),
            ("www.example.org", "https://www.example.org"),
            ("//example.com/a?b", "https://example.com/a?b"),
            ("localhost/a/", "https://localhost/a/"),
            ("//h.example:8080/", "https://h.example:8080/"),
            // A scheme by the RFC, a host and a port to whoever types it.
            ("localhost:8080/docs/", "https://localhost:8080/docs/"),
            ("localhost:8080", "https://localhost:8080"),
            ("example.com:443/a", "https://example.com:443/a"),
        ] {
            assert_eq!(
                refused(url, R),
                format!(
                    "--retrieved-from must be an absolute URL, with a scheme: `{url}` (did you mean `{meant}`?)"
                )
            );
        }
        for path in [
            "page.html",
            "docs/page.html",
            "./a.b/",
            "/example.com/",
            "a_b.com/",
        ] {
            assert!(!refused(path, R).contains("did you mean"), "{path}");
        }
        assert_eq!(
            refused("http://h/a\nb", R),
            "--retrieved-from holds a control character: `\"http://h/a\\nb\"`"
        );
        // Schemes whose part after the colon starts with digits, read as the
        // RFC reads them where no user typed them.
        assert!(
            Layers::default()
                .with_retrieval(R, "tel:5551234", "--retrieved-from")
                .is_ok()
        );
        assert!(
            Layers::default()
                .with_retrieval(R, "localhost:8080/", "WARC-Target-URI")
                .is_ok()
        );
        // Each standard's own scheme rule: RFC 3986's starts with a letter.
        assert!(Layers::default().with_retrieval(R, "1a:/b", "-r").is_ok());
        assert!(refused("1a:/b", Standard::Rfc3986).contains("absolute"));
    }

    #[test]
    fn a_relative_encapsulating_base_resolves_against_the_retrieval_url() {
        let layers = retrieved("http://h/a/p")
            .with_encapsulating(R, "../b/", "Content-Location:")
            .unwrap();
        assert_eq!(layers.encapsulating().unwrap().url, "http://h/b/");
        assert_eq!(layers.retrieval().unwrap().url, "http://h/a/p");
        let alone = Layers::default().with_encapsulating(R, "b/", "Content-Base:");
        assert_eq!(
            alone.unwrap_err().to_string(),
            "Content-Base: must be an absolute URL, with a scheme: `b/`"
        );
    }

    /// Every layer takes the one rule of a base: no scheme of script's, in
    /// any case and with any escaping a browser reads past. A header, a
    /// record or a flag that gives `javascript:…//` would otherwise turn
    /// `x.html` into a link that runs script.
    #[test]
    fn no_layer_takes_a_base_that_is_script() {
        for standard in [R, Standard::Rfc3986] {
            for (url, scheme) in [
                ("javascript:alert(document.domain)//", "javascript"),
                ("JavaScript://%0aalert(1)/", "javascript"),
                ("javascript:%61lert(1)//", "javascript"),
                ("vbscript:msgbox(1)", "vbscript"),
                ("livescript:x", "livescript"),
                ("data:text/html,<script>alert(1)</script>", "data"),
                ("DATA:/x/", "data"),
            ] {
                let why = Ignored::Scheme(scheme.to_owned());
                let retrieval = Layers::default()
                    .with_retrieval(standard, url, "Location: of the last redirect")
                    .unwrap_err()
                    .to_string();
                assert_eq!(
                    retrieval,
                    format!("Location: of the last redirect cannot be a base: `{url}`: {why}")
                );
                let encapsulating = retrieved("http://h/")
                    .with_encapsulating(standard, url, "Base:")
                    .unwrap_err()
                    .to_string();
                assert_eq!(
                    encapsulating,
                    format!("Base: cannot be a base: `{url}`: {why}")
                );
                assert_eq!(
                    retrieved("http://h/").embedded(url, 0, standard),
                    Err(why.clone())
                );
                let under_news = retrieved("news:comp.lang.misc").outer();
                let layer = Layer::XmlBase { offset: 0 };
                assert_eq!(under_news.within(url, layer, standard), Err(why));
            }
            // What a browser removes before it reads a scheme: leading C0
            // controls and spaces, tabs and line breaks anywhere. A value
            // decoded from an attribute (`&#1;javascript:`, `java&#9;script:`)
            // or an `xml:base` holds them; the RFCs read a path there.
            for href in [
                "\x01javascript:alert(1)//",
                "\x00 \x1bjavascript:alert(1)//",
                "java\tscript:alert(1)//",
                "java\nscript:alert(1)//",
                "j\ra\tv\na\tscript:alert(1)//",
                "\x0cvb\tscript:msgbox(1)",
                "da\nta:text/html,x",
            ] {
                for below in ["http://h/d/p", "news:comp.lang.misc"] {
                    let base = retrieved(below).embedded(href, 0, standard);
                    assert!(
                        matches!(base, Err(Ignored::Scheme(_))),
                        "{href:?} under {below}: {base:?}"
                    );
                }
            }
            // A percent escape names no scheme to any reader: a path.
            assert_eq!(
                retrieved("http://h/d/p")
                    .embedded("%6Aavascript:alert(1)//", 0, standard)
                    .unwrap()
                    .url
                    .as_ref(),
                "http://h/d/%6Aavascript:alert(1)//"
            );
            // Nor does a control character a browser keeps, past the start.
            assert!(
                retrieved("http://h/d/p")
                    .embedded("java\x01script:x", 0, standard)
                    .is_ok()
            );
            // A relative encapsulating base is judged as resolved.
            assert!(
                retrieved("http://h/a/")
                    .with_encapsulating(standard, "../b/", "Base:")
                    .is_ok()
            );
        }
    }

    /// Any other absolute URL is a base, whatever its shape: §4 and §5.2
    /// resolve against `news:comp.lang.misc` as against `http://a/b/c`.
    #[test]
    fn every_other_absolute_url_is_a_base_in_every_layer() {
        for standard in [R, Standard::Rfc3986] {
            for (base, reference, expected) in [
                ("http://h/", "g", "http://h/g"),
                ("file:///d/", "g", "file:///d/g"),
                ("news:comp.lang.misc", "g", "news:g"),
                ("news:comp.lang.misc", "#f", "news:comp.lang.misc#f"),
                ("mailto:a@h", "g", "mailto:g"),
                ("about:blank", "g", "about:g"),
                ("urn:isbn:0451450523", "?q", "urn:isbn:0451450523?q"),
                ("blob:https://h/uuid", "g", "blob:https://h/g"),
                ("javascriptx:y", "g", "javascriptx:g"),
            ] {
                let layers = Layers::default()
                    .with_retrieval(standard, base, "-r")
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(&*layers.outer().url, base);
                let layers = retrieved("http://h/")
                    .with_encapsulating(standard, base, "Content-Base:")
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(&*layers.outer().url, base);
                let embedded = retrieved("http://h/").embedded(base, 0, standard).unwrap();
                assert_eq!(&*embedded.url, base);
                assert_eq!(standard.resolve(&embedded.url, reference), expected);
            }
        }
    }

    #[test]
    fn the_charset_is_kept_with_what_gave_it() {
        let layers = Layers::default().with_charset(encoding_rs::SHIFT_JIS, "Content-Type:");
        assert_eq!(
            layers.charset(),
            Some(Charset {
                encoding: encoding_rs::SHIFT_JIS,
                from: "Content-Type:"
            })
        );
    }

    #[test]
    fn embedded_href_resolves_against_the_layers_below() {
        let base = retrieved("http://h/a/p").embedded("sub/", 7, R).unwrap();
        assert_eq!(&*base.url, "http://h/a/sub/");
        assert_eq!(base.layer, Layer::Embedded { offset: 7 });
    }

    #[test]
    fn an_xml_base_resolves_against_the_one_in_scope_and_says_where_it_stands() {
        let document = retrieved("http://h/feed/").outer();
        let entry = document
            .within("entry/", Layer::XmlBase { offset: 40 }, R)
            .unwrap();
        assert_eq!(&*entry.url, "http://h/feed/entry/");
        let title = entry
            .within("../t/", Layer::XmlBase { offset: 90 }, R)
            .unwrap();
        assert_eq!(&*title.url, "http://h/feed/t/");
        assert_eq!(
            title.to_string(),
            "`http://h/feed/t/` (xml:base at byte 90)"
        );
        assert_eq!(title.layer.section(), "3.1");
        assert_eq!(title.layer.name(), "embedded");
        // The one rule of a base holds for it as for every layer.
        let layer = Layer::XmlBase { offset: 0 };
        assert_eq!(
            entry.within("javascript:alert(1)//", layer, R),
            Err(Ignored::Scheme("javascript".into()))
        );
        assert_eq!(
            Layers::default().outer().within("t/", layer, R),
            Err(Ignored::Relative)
        );
        assert_eq!(
            entry.within("urn:x:y", layer, R).unwrap().url.as_ref(),
            "urn:x:y"
        );
    }

    #[test]
    fn embedded_href_that_stays_relative_or_is_script_is_ignored() {
        let none = Layers::default();
        assert_eq!(none.embedded("sub/", 0, R), Err(Ignored::Relative));
        assert_eq!(
            retrieved("http://h/").embedded("JavaScript:alert(1)", 0, R),
            Err(Ignored::Scheme("javascript".into()))
        );
        assert_eq!(
            none.embedded("data:text/html,x", 0, Standard::Rfc3986),
            Err(Ignored::Scheme("data".into()))
        );
        assert_eq!(
            retrieved("http://h/")
                .embedded("mailto:a@h", 0, R)
                .unwrap()
                .url
                .as_ref(),
            "mailto:a@h"
        );
        assert!(none.embedded("http://x/", 0, R).is_ok());
    }
}
