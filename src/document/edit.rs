//! One value at a time: find its URLs by its kind, resolve them, and say what
//! its bytes become. What a value takes besides its bytes (its decoded text,
//! its edits, its new bytes, a document nested in it, the links it holds
//! for the report) is taken from its [`Budget`] first: a value that would
//! take more is given up ([`OverBudget`]), and the rewrite stops there.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use encoding_rs::{Encoding, UTF_8};

use super::attrs::{Empty, Kind};
use super::config::MAX_DEPTH;
use super::links::{At, Found, Link, Listener, Mapped, Outcome, Position};
use super::report::{Counts, Warning, Warnings};
use super::resolution::{Nested, Resolution};
use super::value::{self, Decoded, Edit, Quote};
use crate::document::memory::{Budget, OverBudget};
use crate::syntax::xml_stylesheet::Href;
use crate::syntax::{Syntax, css, is_html_whitespace, refresh, srcset, tokens};
use crate::url::{BaseUrl, rfc1808};

/// Whether a value was rewritten (its new bytes written), or left as it
/// is; or given up, its working copies past its budget.
pub type Edited = Result<bool, OverBudget>;

/// Resolves values against a document's [`Resolution`], counting each
/// outcome.
pub struct Resolver<'a> {
    cx: &'a Resolution,
    /// What values resolve against: the document's base, or an `archive`
    /// list's codebase.
    base: &'a BaseUrl,
    counts: &'a mut Counts,
    warnings: &'a mut Warnings,
    /// The link report, when asked for: it hears each URL's outcome.
    listener: Option<&'a mut Listener>,
    /// What the value's working copies may still take.
    budget: &'a mut Budget,
}

/// What a value's element tells about it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Element<'a> {
    /// The element is in the SVG namespace, where `#id` references stay.
    pub svg: bool,
    /// The element's `codebase`, against which an `archive` list resolves.
    pub codebase: Option<&'a str>,
    /// What an empty value names, by the table's row.
    pub empty: Empty,
}

impl<'a> Resolver<'a> {
    pub fn new(
        cx: &'a Resolution,
        counts: &'a mut Counts,
        warnings: &'a mut Warnings,
        listener: Option<&'a mut Listener>,
        budget: &'a mut Budget,
    ) -> Self {
        Resolver {
            cx,
            base: &cx.url,
            counts,
            warnings,
            listener,
            budget,
        }
    }

    /// A URL's outcome, for the link report when it is asked for: `url` as
    /// the value says it, at `at` of the value's decoded text. The link is
    /// held until the value is done, from the value's budget.
    fn heard(
        &mut self,
        outcome: Outcome,
        url: &str,
        at: usize,
        kind: Kind,
    ) -> Result<(), OverBudget> {
        self.heard_mapped(outcome, url, at, kind, None)
    }

    /// [`heard`](Self::heard), with what a `--map` rule made of it.
    fn heard_mapped(
        &mut self,
        outcome: Outcome,
        url: &str,
        at: usize,
        kind: Kind,
        mapped: Option<Box<Mapped>>,
    ) -> Result<(), OverBudget> {
        let Some(listener) = &mut self.listener else {
            return Ok(());
        };
        let absolute = match outcome {
            Outcome::NoBase | Outcome::Undecodable | Outcome::Empty => None,
            Outcome::Absolute => Some(Cow::Borrowed(url)),
            // Unchanged: it resolves to itself, or (`--relative`, `--missing
            // as-written`) it was left as written, relative: what it resolves
            // to is said all the same.
            Outcome::Unchanged | Outcome::Rewritten | Outcome::SameDocument | Outcome::Left => {
                Some(self.base.resolve(url))
            }
        };
        if absolute.as_ref().is_some_and(|a| !listener.wants(a)) {
            return Ok(());
        }
        let absolute = absolute.map(Cow::into_owned);
        let link = Link {
            position: Position::default(),
            element: Cow::Borrowed(""),
            attribute: Cow::Borrowed(""),
            kind,
            original: url.to_owned(),
            raw: None,
            absolute,
            outcome,
            base: self.cx.base.clone(),
            mapped,
        };
        self.budget.take(link.size())?;
        if let Some(listener) = &mut self.listener {
            listener.found(Found {
                at: At::Decoded(at),
                link,
            });
        }
        Ok(())
    }

    /// Writes the new bytes of an attribute value of `kind` onto `out`, or
    /// says to leave it. `out` is the caller's, kept from value to value:
    /// most values need no allocation.
    pub fn attribute(
        &mut self,
        kind: Kind,
        element: Element<'_>,
        raw: &[u8],
        quote: Quote,
        offset: usize,
        out: &mut Vec<u8>,
    ) -> Edited {
        if kind.is_one_url() && raw.is_empty() && element.empty == Empty::Nothing {
            // The HTML standard fetches nothing for it; the document's URL
            // would have the moved page fetch the original.
            self.counts.seen += 1;
            self.counts.empty += 1;
            self.heard(Outcome::Empty, "", 0, kind)?;
            return Ok(false);
        }
        if kind.is_one_url()
            && self.listener.is_none()
            && self.cx.map.is_empty()
            && self.cx.relative().is_none()
            && self.starts_with_scheme(raw)
        {
            // Most values on real pages are absolute: they need no decoding.
            self.counts.seen += 1;
            self.counts.absolute += 1;
            return Ok(false);
        }
        if kind == Kind::Url
            && self.cx.map.is_empty()
            && self.cx.relative().is_none()
            && let Some(url) = plain(raw, self.cx.encoding)
            && self.cx.standard.has_scheme(url)
            && self.listener.as_mut().is_some_and(|l| !l.wants(url))
        {
            // A check's link to another site, as most are: an absolute URL
            // written plainly is its own text and its own resolution, and
            // the sieve counts it, so it is told as `edit` would tell it,
            // without decoding or resolving it.
            self.counts.seen += 1;
            self.counts.absolute += 1;
            return Ok(false);
        }
        self.budget.take(Decoded::cost(raw, self.cx.encoding))?;
        let Some(decoded) = self.decode(Decoded::new(raw, self.cx.encoding), raw, offset, kind)?
        else {
            return Ok(false);
        };
        let text = decoded.text();
        match kind {
            Kind::Url | Kind::Origin => {
                let core = value::trimmed(text);
                let url = &text[core.clone()];
                let svg_local = element.svg && url.starts_with('#');
                // One URL: its edit needs no list.
                let Some(edit) = self.edit(url, core, Syntax::Plain, kind, svg_local)? else {
                    return Ok(false);
                };
                value::apply_into(&decoded, &[edit], quote, out, self.budget)?;
                Ok(true)
            }
            Kind::List | Kind::Srcset => {
                let edits = self.edits_in(kind, element, text)?;
                self.apply(&decoded, &edits, quote, out)
            }
            Kind::Refresh => {
                let Some(found) = refresh::url(text) else {
                    return Ok(false);
                };
                let url = &text[found.range.clone()];
                let syntax = Syntax::Refresh(found.quote);
                let Some(edit) = self.edit(url, found.range, syntax, kind, false)? else {
                    return Ok(false);
                };
                value::apply_into(&decoded, &[edit], quote, out, self.budget)?;
                Ok(true)
            }
            Kind::Css => {
                let edits = self.css(text, kind)?;
                self.apply(&decoded, &edits, quote, out)
            }
            Kind::Html => self.srcdoc(&decoded, quote, offset, out),
        }
    }

    /// The edits of a list or a srcset, decoded: each of its URLs.
    fn edits_in(
        &mut self,
        kind: Kind,
        element: Element<'_>,
        text: &str,
    ) -> Result<Vec<Edit<'a>>, OverBudget> {
        let mut edits = Vec::new();
        match kind {
            Kind::List => {
                // HTML 4: archive URLs "are relative to the codebase".
                let codebase = element.codebase.and_then(|c| {
                    let c = Decoded::new(c.as_bytes(), UTF_8)?;
                    let c = &c.text()[value::trimmed(c.text())];
                    Some(BaseUrl::new(self.cx.standard, &self.base.resolve(c)))
                });
                let mut inner = Resolver {
                    cx: self.cx,
                    base: codebase.as_ref().unwrap_or(self.base),
                    counts: self.counts,
                    warnings: self.warnings,
                    listener: self.listener.as_deref_mut(),
                    budget: self.budget,
                };
                // The codebase's prefix lives here only.
                for token in tokens(text) {
                    let edit = inner
                        .edit(&text[token.clone()], token, Syntax::List, kind, false)?
                        .map(Edit::into_owned);
                    inner.keep(&mut edits, edit)?;
                }
            }
            Kind::Srcset => {
                for candidate in srcset::candidates(text) {
                    let url = &text[candidate.url.clone()];
                    let edit = self.edit(url, candidate.url, Syntax::Srcset, kind, false)?;
                    self.keep(&mut edits, edit)?;
                }
            }
            _ => unreachable!("a list or a srcset"),
        }
        Ok(edits)
    }

    /// The edits of a value of `kind` already decoded by its document's
    /// rules (the XML engine reads its own references and CDATA sections):
    /// what [`attribute`](Self::attribute) does once it has the text, its
    /// working copies from the same budget. `offset` is where the value
    /// stands, for warnings. A value of HTML (`srcdoc`) has no edits here.
    pub fn decoded(
        &mut self,
        kind: Kind,
        element: Element<'_>,
        text: &str,
        offset: usize,
    ) -> Result<Vec<Edit<'a>>, OverBudget> {
        let _ = offset;
        if kind.is_one_url() && text.is_empty() && element.empty == Empty::Nothing {
            self.counts.seen += 1;
            self.counts.empty += 1;
            self.heard(Outcome::Empty, "", 0, kind)?;
            return Ok(Vec::new());
        }
        let mut edits = Vec::new();
        match kind {
            Kind::Url | Kind::Origin => {
                let core = value::trimmed(text);
                let url = &text[core.clone()];
                let svg_local = element.svg && url.starts_with('#');
                let edit = self.edit(url, core, Syntax::Plain, kind, svg_local)?;
                self.keep(&mut edits, edit)?;
            }
            Kind::List | Kind::Srcset => edits = self.edits_in(kind, element, text)?,
            Kind::Refresh => {
                if let Some(found) = refresh::url(text) {
                    let url = &text[found.range.clone()];
                    let syntax = Syntax::Refresh(found.quote);
                    let edit = self.edit(url, found.range, syntax, kind, false)?;
                    self.keep(&mut edits, edit)?;
                }
            }
            Kind::Css => edits = self.css(text, kind)?,
            Kind::Html => {}
        }
        Ok(edits)
    }

    /// A decoded value where no layer gave a base: counted, and heard
    /// whole, as the page engine hears such a value (nothing is parsed).
    pub fn without_base(&mut self, text: &str, kind: Kind) -> Result<(), OverBudget> {
        self.counts.seen += 1;
        self.counts.no_base += 1;
        let core = value::trimmed(text);
        self.heard(Outcome::NoBase, &text[core.clone()], core.start, kind)
    }

    /// Keeps `edit`, if any, for the value: what it holds comes from the
    /// budget.
    fn keep<'e>(
        &mut self,
        edits: &mut Vec<Edit<'e>>,
        edit: Option<Edit<'e>>,
    ) -> Result<(), OverBudget> {
        let Some(edit) = edit else {
            return Ok(());
        };
        let owned = match &edit.text {
            Cow::Owned(text) => text.len(),
            Cow::Borrowed(_) => 0,
        };
        self.budget.take(std::mem::size_of::<Edit<'_>>() + owned)?;
        edits.push(edit);
        Ok(())
    }

    /// The value's new bytes onto `out`, when there are edits.
    fn apply(
        &mut self,
        decoded: &Decoded<'_>,
        edits: &[Edit<'_>],
        quote: Quote,
        out: &mut Vec<u8>,
    ) -> Edited {
        if edits.is_empty() {
            return Ok(false);
        }
        value::apply_into(decoded, edits, quote, out, self.budget)?;
        Ok(true)
    }

    /// Whether the raw value, past leading whitespace, starts with a scheme
    /// that ends within its first 64 bytes: its ASCII start says so in every
    /// ASCII-compatible encoding, and a character reference (`&…`) cannot be
    /// part of a scheme.
    fn starts_with_scheme(&self, raw: &[u8]) -> bool {
        let start = raw
            .iter()
            .position(|b| !b.is_ascii_whitespace())
            .unwrap_or(raw.len());
        let head = &raw[start..raw.len().min(start + 64)];
        // Both standards' scheme characters; the first other byte must be
        // the colon.
        let end = head.iter().position(|&b| !rfc1808::is_scheme_char(b));
        end.is_some_and(|end| {
            head[end] == b':'
                && std::str::from_utf8(&head[..=end]).is_ok_and(|s| self.cx.standard.has_scheme(s))
        })
    }

    /// The href of the `<base>` that set the base becomes that base.
    pub fn base_href(
        &mut self,
        raw: &[u8],
        quote: Quote,
        offset: usize,
        out: &mut Vec<u8>,
    ) -> Edited {
        self.budget.take(Decoded::cost(raw, self.cx.encoding))?;
        let Some(decoded) =
            self.decode(Decoded::new(raw, self.cx.encoding), raw, offset, Kind::Url)?
        else {
            return Ok(false);
        };
        let core = value::trimmed(decoded.text());
        let href = &decoded.text()[core.clone()];
        self.counts.seen += 1;
        if self.cx.relative().is_some() {
            return self.base_neutralised(&decoded, href, core, quote, out);
        }
        // The base as it is written: mapped, as every URL resolved against
        // it is (they resolve against the base as it was).
        let (base, mapped) = match self.cx.map.apply(self.base.as_str()) {
            Some((url, rule)) => {
                let rule = Arc::clone(rule);
                (
                    Cow::Owned(url.clone()),
                    Some(Box::new(Mapped {
                        url,
                        rule: Some(rule),
                        relative: None,
                    })),
                )
            }
            None => (Cow::Borrowed(self.base.as_str()), None),
        };
        if href == base {
            self.counts.unchanged += 1;
            self.heard(Outcome::Unchanged, href, core.start, Kind::Url)?;
            return Ok(false);
        }
        self.heard_mapped(Outcome::Rewritten, href, core.start, Kind::Url, mapped)?;
        self.counts.rewritten += 1;
        self.counts.by_kind[Kind::Url as usize] += 1;
        let edit = edit_to(base, href, core, Syntax::Plain);
        value::apply_into(&decoded, &[edit], quote, out, self.budget)?;
        Ok(true)
    }

    /// The href of a `<base>` that set no base: an href like another; under
    /// `--relative`, made empty as the one that set it is (a browser may
    /// take it for the base where RFC 1808 does not).
    pub fn other_base(
        &mut self,
        raw: &[u8],
        quote: Quote,
        offset: usize,
        out: &mut Vec<u8>,
    ) -> Edited {
        match self.cx.relative() {
            // As the one that set the base: made empty.
            Some(_) => self.base_href(raw, quote, offset, out),
            None => self.attribute(Kind::Url, Element::default(), raw, quote, offset, out),
        }
    }

    /// Under `--relative`, a `<base href>` made empty: the document's own
    /// URL is its base (HTML: an empty href parses to the fallback base
    /// URL), so that the relative references made from the document's file
    /// reach what they name, from `file:` as from the server. Links that
    /// stay absolute need no base.
    fn base_neutralised(
        &mut self,
        decoded: &Decoded<'_>,
        href: &str,
        core: Range<usize>,
        quote: Quote,
        out: &mut Vec<u8>,
    ) -> Edited {
        let noted = Some(Box::new(Mapped {
            url: self.base.as_str().to_owned(),
            rule: None,
            relative: Some(String::new()),
        }));
        if href.is_empty() {
            self.counts.unchanged += 1;
            self.heard_mapped(Outcome::Unchanged, href, core.start, Kind::Url, noted)?;
            return Ok(false);
        }
        self.heard_mapped(Outcome::Rewritten, href, core.start, Kind::Url, noted)?;
        self.counts.rewritten += 1;
        self.counts.by_kind[Kind::Url as usize] += 1;
        let edit = Edit {
            range: core,
            text: Cow::Borrowed(""),
        };
        value::apply_into(decoded, &[edit], quote, out, self.budget)?;
        Ok(true)
    }

    /// The new bytes of an `<?xml-stylesheet?>` onto `out` (`raw`: the
    /// instruction whole, at `offset`; `href`: where
    /// [`xml_stylesheet::href`](crate::syntax::xml_stylesheet::href)
    /// found its value), the value resolved as a URL value of the
    /// instruction's own (`#id` stays: a stylesheet in the document
    /// itself). Its new value is escaped for XML and for HTML, which reads
    /// the instruction as a comment that a `>` would end.
    pub fn stylesheet_pi(
        &mut self,
        raw: &[u8],
        href: &Href,
        offset: usize,
        out: &mut Vec<u8>,
    ) -> Edited {
        let quote = match href.quote {
            b'\'' => Quote::Single,
            _ => Quote::Double,
        };
        let element = Element {
            svg: true,
            codebase: None,
            empty: Empty::Nothing,
        };
        let value = &raw[href.value.clone()];
        let mut new = Vec::new();
        let at = offset + href.value.start;
        if !self.attribute(Kind::Url, element, value, quote, at, &mut new)? {
            return Ok(false);
        }
        // At most each new byte escaped (`&gt;`), beside what stays.
        self.budget.take(raw.len() + 4 * new.len())?;
        out.extend_from_slice(&raw[..href.value.start]);
        for &b in &new {
            match b {
                b'<' => out.extend_from_slice(b"&lt;"),
                b'>' => out.extend_from_slice(b"&gt;"),
                b => out.push(b),
            }
        }
        out.extend_from_slice(&raw[href.value.end..]);
        Ok(true)
    }

    /// The new text of a `<style>` element onto `out`. Raw text: no
    /// character references, and nothing new may close the element.
    pub fn style_text(&mut self, raw: &[u8], offset: usize, out: &mut Vec<u8>) -> Edited {
        self.budget
            .take(Decoded::text_only_cost(raw, self.cx.encoding))?;
        let Some(decoded) = self.decode(
            Decoded::text_only(raw, self.cx.encoding),
            raw,
            offset,
            Kind::Css,
        )?
        else {
            return Ok(false);
        };
        let edits = self.css(decoded.text(), Kind::Css)?;
        if edits.is_empty() {
            return Ok(false);
        }
        let start = out.len();
        value::apply_into(&decoded, &edits, Quote::Text, out, self.budget)?;
        if closes_anew(raw, &out[start..], b"</style") {
            self.warnings.push(Warning::WouldClose { element: "style" });
            return Ok(false);
        }
        Ok(true)
    }

    /// A decoded value, or the warning that it is not valid in the
    /// document's encoding: it is then left exactly as it is.
    /// `raw` is the value's bytes, at `offset`, of `kind`. (Inlined: it
    /// passes a large value through, at every value.)
    #[inline(always)]
    fn decode<'d>(
        &mut self,
        decoded: Option<Decoded<'d>>,
        raw: &[u8],
        offset: usize,
        kind: Kind,
    ) -> Result<Option<Decoded<'d>>, OverBudget> {
        if decoded.is_none() {
            self.undecodable(raw, offset, kind)?;
        }
        Ok(decoded)
    }

    /// A value whose bytes, at `offset`, are not valid in the document's
    /// encoding: counted, warned of and heard, and left as it is.
    pub fn undecodable(&mut self, raw: &[u8], offset: usize, kind: Kind) -> Result<(), OverBudget> {
        self.warnings.push(Warning::Undecodable {
            offset,
            encoding: self.cx.encoding.name(),
        });
        self.unread(raw, kind)
    }

    /// A value that cannot be read (its warning is the caller's): counted
    /// and heard as undecodable, and left byte for byte.
    pub fn unread(&mut self, raw: &[u8], kind: Kind) -> Result<(), OverBudget> {
        self.counts.seen += 1;
        self.counts.undecodable += 1;
        self.heard_undecodable(raw, kind)
    }

    /// An undecodable value, for the link report when it is asked for: its
    /// text with U+FFFD where it did not decode, and its bytes.
    #[cold]
    fn heard_undecodable(&mut self, raw: &[u8], kind: Kind) -> Result<(), OverBudget> {
        if self.listener.is_none() {
            return Ok(());
        }
        // The text (each byte at most three of UTF-8) and the bytes.
        self.budget.take(raw.len().saturating_mul(4))?;
        let (text, _) = self.cx.encoding.decode_without_bom_handling(raw);
        let start = raw.iter().position(|b| !b.is_ascii_whitespace());
        let link = Link {
            position: Position::default(),
            element: Cow::Borrowed(""),
            attribute: Cow::Borrowed(""),
            kind,
            original: text.trim_matches(is_html_whitespace).to_owned(),
            raw: Some(raw.to_vec()),
            absolute: None,
            outcome: Outcome::Undecodable,
            base: self.cx.base.clone(),
            mapped: None,
        };
        self.budget.take(link.size())?;
        if let Some(listener) = &mut self.listener {
            listener.found(Found {
                at: At::Raw(start.unwrap_or(0)),
                link,
            });
        }
        Ok(())
    }

    /// The new text of a `<noscript>` element (raw text to lol_html, which
    /// reads with scripting on, but markup to a reader with scripts off, as
    /// archives are read): rewritten as HTML with the same base, no `<base>`
    /// of its own. Its new bytes take the place of `out`'s.
    pub fn noscript(&mut self, raw: &[u8], offset: usize, out: &mut Vec<u8>) -> Edited {
        let Some(nested) = self.nested(raw, self.cx.encoding, offset, false, At::Raw)? else {
            return Ok(false);
        };
        let edited = nested.output;
        if edited == raw {
            return Ok(false);
        }
        if closes_anew(raw, &edited, b"</noscript") {
            self.warnings.push(Warning::WouldClose {
                element: "noscript",
            });
            return Ok(false);
        }
        *out = edited;
        Ok(true)
    }

    /// `srcdoc`: a document of its own, whose base is this one's (RFC 1808
    /// §3.2: the encapsulating entity), with its own `<base>` on top. Only
    /// its URL values change; they come back as edits of the decoded text.
    fn srcdoc(
        &mut self,
        decoded: &Decoded<'_>,
        quote: Quote,
        offset: usize,
        out: &mut Vec<u8>,
    ) -> Edited {
        let text = decoded.text();
        let Some(nested) = self.nested(text.as_bytes(), UTF_8, offset, true, At::Decoded)? else {
            return Ok(false);
        };
        let mut edits = Vec::new();
        for (range, bytes) in nested.splices.iter() {
            // The nested document is UTF-8, and a splice is a whole value.
            if let Ok(text) = std::str::from_utf8(bytes) {
                let edit = Edit {
                    range,
                    text: Cow::Borrowed(text),
                };
                self.keep(&mut edits, Some(edit))?;
            }
        }
        self.apply(decoded, &edits, quote, out)
    }

    /// Runs a nested document through a rewriter of its own. Its links
    /// stand at offsets of `bytes`, which `at` places in the value.
    ///
    /// It takes from the page's allowance, as the value does, and what it
    /// gives back stays taken while it is kept; any of its limits reached
    /// means this value does not fit.
    fn nested(
        &mut self,
        bytes: &[u8],
        encoding: &'static Encoding,
        offset: usize,
        embedded: bool,
        at: fn(usize) -> At,
    ) -> Result<Option<Nested>, OverBudget> {
        if self.cx.depth >= MAX_DEPTH {
            self.warnings.push(Warning::TooDeep { offset });
            return Ok(None);
        }
        let listen = self.listener.is_some();
        let Some(nested) = (self.cx.nest)(self.cx, bytes, encoding, embedded, listen)? else {
            return Ok(None);
        };
        if let Some(listener) = &mut self.listener {
            for link in &nested.links {
                listener.found(Found {
                    at: at(link.position.offset),
                    link: link.clone(),
                });
            }
        }
        self.counts.add(&nested.report.counts);
        for warning in &nested.report.warnings {
            if *warning != Warning::NoBase {
                self.warnings.push(warning.clone().shifted(offset));
            }
        }
        Ok(Some(nested))
    }

    /// The edits of CSS text (a `style` value, a `<style>` text): its
    /// `url()`, `@import` and `image-set()` URLs.
    pub fn css(&mut self, text: &str, kind: Kind) -> Result<Vec<Edit<'a>>, OverBudget> {
        let mut edits = Vec::new();
        for found in css_found(text, self.budget)? {
            let edit = self.css_url(text, found, kind)?;
            self.keep(&mut edits, edit)?;
        }
        Ok(edits)
    }

    /// The edit of one URL `found` in CSS `text`, or `None` to leave it: a
    /// stylesheet, which finds its URLs itself, hands them over one by one.
    pub fn css_url(
        &mut self,
        text: &str,
        found: css::Found,
        kind: Kind,
    ) -> Result<Option<Edit<'a>>, OverBudget> {
        let url = css::unescape(&text[found.range.clone()]);
        // `url(#grad)` is a same-document reference: SVG paint servers
        // and filters, which an absolute URL breaks.
        let local = url.starts_with('#');
        // The prefix of an edit goes before the CSS text as written, which
        // still says `url` after it.
        self.edit(&url, found.range, Syntax::Css(found.context), kind, local)
    }

    /// A URL found in CSS where no layer gave a base: counted, and heard
    /// as the CSS says it.
    pub fn css_without_base(&mut self, text: &str, found: &css::Found) -> Result<(), OverBudget> {
        self.counts.seen += 1;
        self.counts.no_base += 1;
        let url = css::unescape(&text[found.range.clone()]);
        self.heard(Outcome::NoBase, &url, found.range.start, Kind::Css)
    }

    /// The edit for the URL `url` standing at `range` (where its syntax may
    /// write it escaped), or `None` to leave it. Counts the outcome.
    fn edit(
        &mut self,
        url: &str,
        range: Range<usize>,
        syntax: Syntax,
        kind: Kind,
        local: bool,
    ) -> Result<Option<Edit<'a>>, OverBudget> {
        self.counts.seen += 1;
        let same_document = url.is_empty() || url.starts_with('#');
        if local || (self.cx.keep_fragments && same_document) {
            self.counts.same_document += 1;
            self.heard(Outcome::SameDocument, url, range.start, kind)?;
            return Ok(None);
        }
        // An absolute URL no file of the tree can be, with no rule to map
        // it, stays as it is: the usual way tells it so, without the whole
        // resolution (most links of a page are to other sites).
        let relative = self.cx.relative();
        let elsewhere = self.cx.map.is_empty()
            && self.cx.standard.has_scheme(url)
            && relative.is_some_and(|(tree, _)| !tree.may_hold(url));
        if (!self.cx.map.is_empty() || relative.is_some()) && !elsewhere {
            return self.edit_mapped(url, range, syntax, kind);
        }
        // The usual case: the base's front goes before the reference, which
        // stays as written; nothing to resolve in full, nothing to compare.
        // (The shortcut takes no reference with a scheme: those are told
        // apart below, once.)
        let edit = match self.base.prefix(url) {
            Some(prefix) => Edit {
                range: range.start..range.start,
                text: syntax
                    .escape(prefix)
                    .map_or(Cow::Borrowed(prefix), Cow::Owned),
            },
            None if self.cx.standard.has_scheme(url) => {
                self.counts.absolute += 1;
                self.heard(Outcome::Absolute, url, range.start, kind)?;
                return Ok(None);
            }
            None => {
                let resolved: Cow<'_, str> = self.base.resolve(url);
                if resolved == url {
                    self.counts.unchanged += 1;
                    self.heard(Outcome::Unchanged, url, range.start, kind)?;
                    return Ok(None);
                }
                edit_to(resolved, url, range.clone(), syntax)
            }
        };
        self.heard(Outcome::Rewritten, url, range.start, kind)?;
        self.counts.rewritten += 1;
        self.counts.by_kind[kind as usize] += 1;
        Ok(Some(edit))
    }
}

/// `raw` as its own text: a value of printable ASCII without whitespace
/// or a character reference, in an encoding where ASCII is itself, decodes
/// and trims to what it is.
fn plain<'r>(raw: &'r [u8], encoding: &'static encoding_rs::Encoding) -> Option<&'r str> {
    // One pass without a branch a byte, which the compiler vectorizes.
    let other = raw.iter().fold(false, |other, &b| {
        other | !(b'!'..=b'~').contains(&b) | (b == b'&')
    });
    let printable = !other;
    match printable && encoding.is_ascii_compatible() {
        true => std::str::from_utf8(raw).ok(),
        false => None,
    }
}

impl<'a> Resolver<'a> {
    /// [`edit`](Self::edit) under `--map` or `--relative`: the URL resolved
    /// in full, then mapped by the longest rule that matches it, then made
    /// the relative reference from the document's file to the file of the
    /// tree it names, if it names one (the fast ways of `edit` never see
    /// the whole URL).
    #[cold]
    fn edit_mapped(
        &mut self,
        url: &str,
        range: Range<usize>,
        syntax: Syntax,
        kind: Kind,
    ) -> Result<Option<Edit<'a>>, OverBudget> {
        let absolute = self.cx.standard.has_scheme(url);
        let resolved: Cow<'_, str> = match absolute {
            true => Cow::Borrowed(url),
            false => self.base.resolve(url),
        };
        let (mapped, rule) = match self.cx.map.apply(&resolved) {
            Some((mapped, rule)) => (Cow::Owned(mapped), Some(Arc::clone(rule))),
            None => (resolved, None),
        };
        let relative = self
            .cx
            .relative()
            .and_then(|(tree, document)| tree.reference_from(document, &mapped));
        if relative.is_none()
            && let Some((tree, _)) = self.cx.relative()
            && tree.leaves(&mapped)
        {
            // `--missing as-written`: a page of the site the copy lacks.
            self.counts.unchanged += 1;
            self.heard(Outcome::Unchanged, url, range.start, kind)?;
            return Ok(None);
        }
        let written: Cow<'_, str> = match &relative {
            Some(reference) => Cow::Owned(reference.clone()),
            None => mapped.clone(),
        };
        let noted = (rule.is_some() || relative.is_some()).then(|| {
            Box::new(Mapped {
                url: mapped.into_owned(),
                rule,
                relative,
            })
        });
        if written == url {
            let outcome = match absolute {
                true => {
                    self.counts.absolute += 1;
                    Outcome::Absolute
                }
                false => {
                    self.counts.unchanged += 1;
                    Outcome::Unchanged
                }
            };
            self.heard_mapped(outcome, url, range.start, kind, noted)?;
            return Ok(None);
        }
        self.heard_mapped(Outcome::Rewritten, url, range.start, kind, noted)?;
        self.counts.rewritten += 1;
        self.counts.by_kind[kind as usize] += 1;
        Ok(Some(edit_to(written, url, range, syntax)))
    }
}

/// The edit that makes `url`, standing at `range`, say `resolved`. Where
/// resolution only put something in front that [`BaseUrl::prefix`] does not
/// foresee (a fragment after the base's query, RFC 3986), the reference
/// stays as written and only the prefix is new.
fn edit_to(
    resolved: Cow<'_, str>,
    url: &str,
    range: Range<usize>,
    syntax: Syntax,
) -> Edit<'static> {
    let (range, new) = match resolved.strip_suffix(url) {
        Some(prefix) => (range.start..range.start, prefix.len()),
        None => (range, resolved.len()),
    };
    // Mostly there is nothing to escape: the resolved string, cut to what is
    // new, is the text, with no copy.
    let text = syntax.escape(&resolved[..new]).unwrap_or_else(|| {
        let mut text = resolved.into_owned();
        text.truncate(new);
        text
    });
    Edit {
        range,
        text: Cow::Owned(text),
    }
}

/// Whether `edited` holds more `closing` tags (any case) than `raw` did: a
/// URL that would end its raw-text element early.
fn closes_anew(raw: &[u8], edited: &[u8], closing: &[u8]) -> bool {
    // `closing` starts with `<`: only there can it start.
    let count = |s: &[u8]| {
        let mut count = 0;
        let mut at = 0;
        while let Some(lt) = memchr::memchr(b'<', &s[at..]) {
            at += lt;
            let here = &s[at..];
            count += usize::from(
                here.get(..closing.len())
                    .is_some_and(|w| w.eq_ignore_ascii_case(closing)),
            );
            at += 1;
        }
        count
    };
    count(edited) > count(raw)
}

/// Every URL of CSS `text`, found within `budget`: the brackets the finder
/// holds open take memory too (at each step it may open those paid for and
/// what the budget has left, and pays for those it opened; they are given
/// back once it is done), and so does the list of what it found.
pub fn css_found(text: &str, budget: &mut Budget) -> Result<Vec<css::Found>, OverBudget> {
    let mut all = Vec::new();
    let mut finder = css::Finder::new(text);
    let mut paid = 0;
    loop {
        finder.allow(paid + budget.left() / css::Finder::FRAME);
        let found = finder.next();
        let most = finder.most_open();
        budget.take((most - paid) * css::Finder::FRAME)?;
        paid = most;
        let Some(found) = found else {
            break;
        };
        budget.take(std::mem::size_of::<css::Found>())?;
        all.push(found);
    }
    if finder.too_deep() {
        return Err(OverBudget);
    }
    budget.give(paid * css::Finder::FRAME);
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::{Base, Layer, Layers, Standard};

    #[test]
    fn closing_tags_are_counted_in_any_case() {
        let closing = b"</style";
        assert!(!closes_anew(b"", b"", closing));
        assert!(closes_anew(b"a", b"a</STYLE", closing));
        assert!(closes_anew(b"</style", b"</Style</stYle>", closing));
        assert!(!closes_anew(
            b"</style </style",
            b"x</style</style",
            closing
        ));
        assert!(!closes_anew(b"<", b"<</styl <style </ style", closing));
        assert!(closes_anew(b"</styl", b"<</style", closing));
    }

    #[test]
    fn a_scheme_is_told_from_the_raw_bytes_within_64_of_them() {
        let (mut counts, mut warnings) = (Counts::default(), Warnings::default());
        for standard in [Standard::Rfc1808, Standard::Rfc3986] {
            let base = Base {
                layer: Layer::Empty,
                url: "http://a/".into(),
            };
            let config = crate::Config {
                standard,
                ..crate::Config::default()
            };
            let cx = Resolution::new(
                base,
                UTF_8,
                &config,
                0,
                |_, _, _, _, _| Ok(None),
                crate::document::memory::Allowance::standalone(usize::MAX / 4),
            );
            let mut budget = Budget::new(usize::MAX);
            let resolver = Resolver::new(&cx, &mut counts, &mut warnings, None, &mut budget);
            let absolute = |raw: &[u8]| resolver.starts_with_scheme(raw);
            assert!(absolute(b" \n https://h/"));
            assert!(absolute(b"a+b.c-1:x"));
            assert!(absolute(format!("{}:x", "a".repeat(63)).as_bytes()));
            assert!(!absolute(format!("{}:x", "a".repeat(64)).as_bytes()));
            assert!(!absolute(b":x"));
            assert!(!absolute(b"a/b:c"));
            assert!(!absolute(b"a\xC3\xA9:c"));
            assert!(!absolute(b"&#104;ttp:x"));
            assert!(!absolute(b"abc"));
            assert!(!absolute(b""));
            assert_eq!(absolute(b"1a:b"), standard == Standard::Rfc1808);
        }
    }

    /// A `<noscript>` whose text starts with a UTF-16 byte order mark is
    /// transcoded before it is read.
    #[test]
    fn a_utf16_noscript_is_read_as_utf16() {
        let utf16 = |s: &str| -> Vec<u8> { s.encode_utf16().flat_map(u16::to_le_bytes).collect() };
        let mut html = b"<meta charset=windows-1252><noscript>\xFF\xFE".to_vec();
        html.extend(utf16("<img src=a.png>"));
        html.extend_from_slice(b"</noscript>");
        let layers = Layers::default()
            .with_retrieval(Standard::Rfc1808, "http://h/d/", "-r")
            .unwrap();
        let mut out = Vec::new();
        let report = crate::rewrite(
            crate::Type::Html,
            crate::Config::default(),
            layers,
            &html[..],
            &mut out,
        )
        .unwrap();
        assert_eq!(report.counts.rewritten, 1, "{report:?}");
        let rewritten = utf16("<img src=http://h/d/a.png>");
        assert!(out.windows(rewritten.len()).any(|w| w == rewritten));
    }
}
