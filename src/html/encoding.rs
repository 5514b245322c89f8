//! A page's encoding, chosen as the HTML standard's encoding sniffing
//! algorithm does (BOM, flag, transport, `<meta>`, detection). What the
//! choice is used for is shared with the other engines
//! (`document::encoding`).

use chardetng::{EncodingDetector, Iso2022JpDetection, Utf8Detection};
use encoding_rs::{Encoding, UTF_8, WINDOWS_1252};

use crate::document::encoding::{Chosen, EncodingSource, for_label};
use crate::url::Charset;

/// How many bytes the `<meta>` prescan reads: "the first 1024 bytes".
pub const PRESCAN: usize = 1024;

/// How many bytes the detector reads at most (or the lookahead limit).
pub const DETECTION: usize = 64 * 1024;

/// Sniffs a stream of bytes: feed it until it says, or to the end.
pub struct Sniffer {
    flag: Option<&'static Encoding>,
    transport: Option<Charset>,
    /// The first bytes of the input, up to the detection window (the first
    /// 1024 are the prescan's).
    seen: Vec<u8>,
    window: usize,
    tld: Option<Vec<u8>>,
    /// The encoding the first `<meta>` the parser met declares, if any.
    meta: Option<&'static Encoding>,
    /// Once the first 1024 bytes are in: whether they leave the encoding
    /// open (see [`Sniffer::prescan_failed`]).
    open: Option<bool>,
}

impl Sniffer {
    /// `flag` is `--encoding`; `transport` the encapsulating entity's
    /// charset; `window` how much the detector may read; `retrieved_from`
    /// lends its top-level domain to the detector.
    pub fn new(
        flag: Option<&'static Encoding>,
        transport: Option<Charset>,
        window: usize,
        retrieved_from: Option<&str>,
    ) -> Self {
        Sniffer {
            flag,
            transport,
            seen: Vec::with_capacity(PRESCAN),
            window: window.max(PRESCAN),
            tld: retrieved_from.and_then(tld),
            meta: None,
            open: None,
        }
    }

    /// Whether the first 1024 bytes are in, and neither a byte order mark,
    /// nor `--encoding`, nor the prescan decide: a `<meta>` further on may
    /// still declare the encoding.
    pub fn prescan_failed(&self) -> bool {
        self.open == Some(true)
    }

    /// How far the detector reads: a `<meta>` that ends within it counts,
    /// whatever the split of writes, since detection waits for it.
    pub fn window(&self) -> usize {
        self.window
    }

    /// The parser met a `<meta>` that declares `meta`, the first one. It
    /// wins over detection, so detection need not wait for its window.
    pub fn meta_met(&mut self, meta: &'static Encoding) {
        self.meta.get_or_insert(meta);
    }

    /// Feeds the next bytes; the encoding once it is known.
    #[cfg(test)]
    pub fn feed(&mut self, chunk: &[u8]) -> Option<Chosen> {
        self.push(chunk);
        self.decide(false)
    }

    /// Takes the next bytes without deciding yet (see [`Sniffer::decide_now`]).
    pub fn push(&mut self, chunk: &[u8]) {
        let room = PRESCAN.saturating_sub(self.seen.len()).min(chunk.len());
        self.seen.extend_from_slice(&chunk[..room]);
        if self.open.is_none() && self.seen.len() == PRESCAN {
            let head = &self.seen[..];
            self.open = Some(
                self.flag.is_none()
                    && self.transport.is_none()
                    && Encoding::for_bom(head).is_none()
                    && prescan(head).is_none_or(|e| e == encoding_rs::REPLACEMENT),
            );
        }
        // Past the prescan's bytes only detection reads, and only when
        // nothing before it decides: most pages need not be copied.
        if self.open == Some(true) {
            let rest = &chunk[room..];
            let room = self.window.saturating_sub(self.seen.len()).min(rest.len());
            self.seen.extend_from_slice(&rest[..room]);
        }
    }

    /// The encoding, if the bytes so far decide it.
    pub fn decide_now(&mut self) -> Option<Chosen> {
        self.decide(false)
    }

    /// The encoding at the end of input, when it was not known before.
    pub fn end(&mut self) -> Chosen {
        self.decide(true).expect("the end decides")
    }

    fn decide(&mut self, end: bool) -> Option<Chosen> {
        let chosen = |encoding, source| Some(Chosen { encoding, source });
        let head = &self.seen[..self.seen.len().min(PRESCAN)];
        // "1. If the result of BOM sniffing is an encoding, return that
        // encoding with confidence certain."
        if head.len() >= 3 || end {
            if let Some((encoding, _)) = Encoding::for_bom(head) {
                return chosen(encoding, EncodingSource::Bom);
            }
        } else {
            return None;
        }
        // "2. If the user has explicitly instructed the user agent to override
        // the document's character encoding ..."
        if let Some(encoding) = self.flag {
            return chosen(encoding, EncodingSource::Flag);
        }
        // "4. If the transport layer specifies a character encoding, and it
        // is supported, return that encoding with the confidence certain."
        if let Some(Charset { encoding, from }) = self.transport {
            return chosen(encoding, EncodingSource::Transport { from });
        }
        // "5. Optionally prescan the byte stream to determine its encoding,
        // with the end condition being when the user agent decides that
        // scanning further bytes would not be efficient." (1024 bytes.)
        if head.len() < PRESCAN && !end {
            return None;
        }
        // (Known to find nothing once the first 1024 bytes left it open: not
        // run again at every write.)
        let found = (!self.prescan_failed()).then(|| prescan(head)).flatten();
        if let Some(encoding) = found.filter(|e| *e != encoding_rs::REPLACEMENT) {
            return chosen(encoding, EncodingSource::Meta);
        }
        // In the head or the body, "if the element has a charset attribute
        // ... and the confidence is currently tentative, then change the
        // encoding".
        if let Some(encoding) = self.meta.filter(|e| *e != encoding_rs::REPLACEMENT) {
            return chosen(encoding, EncodingSource::LaterMeta);
        }
        // "9. Otherwise, ... autodetection", over the held lookahead.
        if self.seen.len() < self.window && !end {
            return None;
        }
        if self.seen.is_ascii() {
            return chosen(UTF_8, EncodingSource::Ascii);
        }
        // What chardetng answers for valid UTF-8 when UTF-8 is allowed,
        // without its cost (a character may be cut at the window's end).
        let valid_utf8 = match std::str::from_utf8(&self.seen) {
            Ok(_) => true,
            Err(e) => e.error_len().is_none() && !end,
        };
        if valid_utf8 {
            return chosen(UTF_8, EncodingSource::Detected);
        }
        let mut detector = EncodingDetector::new(Iso2022JpDetection::Deny);
        detector.feed(&self.seen, true);
        let encoding = detector.guess(self.tld.as_deref(), Utf8Detection::Allow);
        chosen(encoding, EncodingSource::Detected)
    }
}

/// The top-level domain of a URL's host, lowercase, as chardetng wants it.
fn tld(url: &str) -> Option<Vec<u8>> {
    let rest = &url[url.find("//")? + 2..];
    let host = rest.split(['/', '?', '#']).next()?;
    let host = host.rsplit('@').next()?.split(':').next()?;
    let label = host
        .trim_end_matches('.')
        .rsplit('.')
        .next()?
        .to_ascii_lowercase();
    (!label.is_empty()
        && label
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-'))
    .then(|| label.into_bytes())
}

/// The HTML standard's "prescan a byte stream to determine its encoding".
pub fn prescan(bytes: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.starts_with(b"<!--") {
            // "advance the position pointer so that it points at the first
            // 0x3E byte which is preceded by two 0x2D bytes ... (The two 0x2D
            // bytes can be the same as those in the '<!--' sequence.)"
            at += find(&rest[2..], b"-->").map_or(rest.len(), |i| 2 + i + 3);
        } else if rest.len() > 5
            && rest[..5].eq_ignore_ascii_case(b"<meta")
            && is_space_or_slash(rest[5])
        {
            let (found, next) = meta(bytes, at + 5);
            if found.is_some() {
                return found;
            }
            at = next;
        } else if rest.len() > 1
            && (rest[1].is_ascii_alphabetic()
                || (rest[1] == b'/' && rest.get(2).is_some_and(u8::is_ascii_alphabetic)))
            && rest[0] == b'<'
        {
            // A start or end tag: "advance the position pointer so that it
            // points at the next 0x09, 0x0A, 0x0C, 0x0D, 0x20, or 0x3E byte"
            // and skip its attributes.
            at += rest
                .iter()
                .position(|&b| is_space(b) || b == b'>')
                .unwrap_or(rest.len());
            while let Some((_, _, next)) = attribute(bytes, at) {
                at = next;
            }
        } else if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            at += rest.iter().position(|&b| b == b'>').unwrap_or(rest.len());
        } else {
            at += 1;
        }
    }
    None
}

/// Attributes of a `<meta>` from `at`: the encoding it declares, if any, and
/// where the scan goes on.
fn meta(bytes: &[u8], mut at: usize) -> (Option<&'static Encoding>, usize) {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    while let Some((name, value, next)) = attribute(bytes, at) {
        at = next;
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" if value == b"content-type" => got_pragma = true,
            b"content" if charset.is_none() => {
                if let Some(found) = charset_in_content(&value) {
                    charset = Some(found);
                    need_pragma = Some(true);
                }
            }
            b"charset" => {
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    let found = match (need_pragma, charset) {
        (Some(true), _) if !got_pragma => None,
        (Some(_), Some(encoding)) => Some(encoding),
        _ => None,
    };
    (found.map(for_parsing), at)
}

/// "If charset is UTF-16BE/LE, then set charset to UTF-8. If charset is
/// x-user-defined, then set charset to windows-1252." (The prescan's words;
/// changing the encoding while parsing says the same.)
fn for_parsing(encoding: &'static Encoding) -> &'static Encoding {
    match encoding.name() {
        "UTF-16BE" | "UTF-16LE" => UTF_8,
        "x-user-defined" => WINDOWS_1252,
        _ => encoding,
    }
}

/// The encoding a `<meta>` element met by the parser declares (the "in
/// head" insertion mode's rules), from its `charset`, `http-equiv` and
/// `content` attributes.
pub fn meta_element(
    charset: Option<&str>,
    http_equiv: Option<&str>,
    content: Option<&str>,
) -> Option<&'static Encoding> {
    // "If the element has a charset attribute, and getting an encoding from
    // its value results in an encoding ..."
    if let Some(encoding) = charset.and_then(for_label) {
        return Some(for_parsing(encoding));
    }
    // "Otherwise, if the element has an http-equiv attribute whose value is
    // an ASCII case-insensitive match for the string "Content-Type", and the
    // element has a content attribute, and applying the algorithm for
    // extracting a character encoding from a meta element to that
    // attribute's value returns an encoding ..."
    let pragma = http_equiv.is_some_and(|v| v.eq_ignore_ascii_case("content-type"));
    let content = content.filter(|_| pragma)?;
    charset_in_content(content.to_ascii_lowercase().as_bytes()).map(for_parsing)
}

/// "get an attribute": the next attribute's lowercase name and value (value
/// lowercased too, as the algorithm does), and the position after it.
fn attribute(bytes: &[u8], mut at: usize) -> Option<(Vec<u8>, Vec<u8>, usize)> {
    while at < bytes.len() && (is_space(bytes[at]) || bytes[at] == b'/') {
        at += 1;
    }
    if at >= bytes.len() || bytes[at] == b'>' {
        return None;
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    loop {
        let b = *bytes.get(at)?;
        if b == b'=' && !name.is_empty() {
            at += 1;
            break;
        }
        if is_space(b) {
            while bytes.get(at).is_some_and(|&b| is_space(b)) {
                at += 1;
            }
            if bytes.get(at) != Some(&b'=') {
                return Some((name, value, at));
            }
            at += 1;
            break;
        }
        if b == b'/' || b == b'>' {
            return Some((name, value, at));
        }
        name.push(b.to_ascii_lowercase());
        at += 1;
    }
    while bytes.get(at).is_some_and(|&b| is_space(b)) {
        at += 1;
    }
    match *bytes.get(at)? {
        quote @ (b'"' | b'\'') => {
            at += 1;
            let end = bytes[at..].iter().position(|&b| b == quote)?;
            value.extend(bytes[at..at + end].iter().map(u8::to_ascii_lowercase));
            Some((name, value, at + end + 1))
        }
        b'>' => Some((name, value, at)),
        _ => {
            let end = bytes[at..]
                .iter()
                .position(|&b| is_space(b) || b == b'>')
                .unwrap_or(bytes.len() - at);
            value.extend(bytes[at..at + end].iter().map(u8::to_ascii_lowercase));
            Some((name, value, at + end))
        }
    }
}

/// "algorithm for extracting a character encoding from a meta element",
/// over a `content` value.
fn charset_in_content(content: &[u8]) -> Option<&'static Encoding> {
    let mut at = 0;
    loop {
        let i = find(&content[at..], b"charset")?;
        at += i + 7;
        while content.get(at).is_some_and(|&b| is_space(b)) {
            at += 1;
        }
        if content.get(at) != Some(&b'=') {
            continue;
        }
        at += 1;
        while content.get(at).is_some_and(|&b| is_space(b)) {
            at += 1;
        }
        let rest = &content[at..];
        return match rest.first()? {
            quote @ (b'"' | b'\'') => {
                let end = rest[1..].iter().position(|b| b == quote)?;
                Encoding::for_label(&rest[1..1 + end])
            }
            _ => {
                let end = rest
                    .iter()
                    .position(|&b| is_space(b) || b == b';')
                    .unwrap_or(rest.len());
                Encoding::for_label(&rest[..end])
            }
        };
    }
}

fn is_space(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

fn is_space_or_slash(b: u8) -> bool {
    is_space(b) || b == b'/'
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{EUC_JP, GBK, SHIFT_JIS, UTF_16LE, WINDOWS_1251};

    #[test]
    fn a_meta_element_declares_as_the_in_head_rules_say() {
        assert_eq!(
            meta_element(Some(" Shift_JIS "), None, None),
            Some(SHIFT_JIS)
        );
        let pragma = Some("Content-TYPE");
        let content = Some("text/html; CHARSET=\"gbk\"");
        assert_eq!(meta_element(None, pragma, content), Some(GBK));
        // A charset that names nothing: "Otherwise", the pragma is tried.
        assert_eq!(meta_element(Some("nonsense"), pragma, content), Some(GBK));
        assert_eq!(meta_element(None, None, content), None);
        assert_eq!(meta_element(None, Some("refresh"), content), None);
        assert_eq!(meta_element(Some("utf-16le"), None, None), Some(UTF_8));
        assert_eq!(
            meta_element(Some("x-user-defined"), None, None),
            Some(WINDOWS_1252)
        );
    }

    #[test]
    fn a_later_meta_decides_without_waiting_for_detection() {
        let mut s = Sniffer::new(None, None, DETECTION, None);
        let text = [b'a'; 2000];
        assert_eq!(s.feed(&text), None, "detection waits for its window");
        s.meta_met(WINDOWS_1251);
        assert_eq!(
            s.feed(b"more").map(|c| (c.encoding, c.source)),
            Some((WINDOWS_1251, EncodingSource::LaterMeta))
        );
        // The prescan's answer comes first.
        let mut s = Sniffer::new(None, None, DETECTION, None);
        s.meta_met(WINDOWS_1251);
        let early = [&b"<meta charset=gbk>"[..], &[b' '; 1100]].concat();
        assert_eq!(s.feed(&early).map(|c| c.source), Some(EncodingSource::Meta));
    }

    #[test]
    fn prescan_finds_meta_charset_and_http_equiv() {
        assert_eq!(prescan(b"<meta charset=shift_jis>"), Some(SHIFT_JIS));
        assert_eq!(
            prescan(b"<!-- <meta charset=gbk> --><META CHARSET='euc-jp'>"),
            Some(EUC_JP)
        );
        assert_eq!(
            prescan(
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">"
            ),
            Some(WINDOWS_1251)
        );
        // content without the pragma does not count.
        assert_eq!(prescan(b"<meta content=\"text/html; charset=gbk\">"), None);
        assert_eq!(prescan(b"<meta charset=utf-16le>"), Some(UTF_8));
        assert_eq!(prescan(b"<title>charset=gbk</title><meta name=x>"), None);
        assert_eq!(
            prescan(b"<a title='<meta charset=gbk>'><meta charset=sjis>"),
            Some(SHIFT_JIS)
        );
        assert_eq!(prescan(b"<meta charset=nonsense>"), None);
    }

    #[test]
    fn bom_comes_before_flag_and_meta() {
        let mut s = Sniffer::new(Some(GBK), None, DETECTION, None);
        let chosen = s.feed(b"\xEF\xBB\xBF<meta charset=sjis>");
        assert_eq!(
            chosen,
            Some(Chosen {
                encoding: UTF_8,
                source: EncodingSource::Bom
            })
        );
        let mut s = Sniffer::new(Some(GBK), None, DETECTION, None);
        assert_eq!(
            s.feed(b"<meta charset=sjis>").map(|c| c.source),
            Some(EncodingSource::Flag)
        );
        let mut s = Sniffer::new(None, None, DETECTION, None);
        assert_eq!(s.feed(b"\xFF\xFEx\0").map(|c| c.encoding), Some(UTF_16LE));
    }

    #[test]
    fn the_transport_charset_comes_after_bom_and_flag_before_meta() {
        let header = Some(Charset {
            encoding: EUC_JP,
            from: "Content-Type:",
        });
        let transport = EncodingSource::Transport {
            from: "Content-Type:",
        };
        // Certain at once: no need to wait for the prescan's 1024 bytes.
        let mut s = Sniffer::new(None, header, DETECTION, None);
        assert_eq!(
            s.feed(b"<meta charset=sjis>"),
            Some(Chosen {
                encoding: EUC_JP,
                source: transport
            })
        );
        assert!(!s.prescan_failed());
        let mut s = Sniffer::new(Some(GBK), header, DETECTION, None);
        assert_eq!(
            s.feed(b"<p>x").map(|c| c.source),
            Some(EncodingSource::Flag)
        );
        let mut s = Sniffer::new(None, header, DETECTION, None);
        assert_eq!(
            s.feed(b"\xEF\xBB\xBFx").map(|c| c.source),
            Some(EncodingSource::Bom)
        );
        assert_eq!(
            Chosen {
                encoding: EUC_JP,
                source: transport
            }
            .to_string(),
            "EUC-JP (Content-Type:)"
        );
    }

    #[test]
    fn meta_waits_for_1024_bytes_or_the_end() {
        let mut s = Sniffer::new(None, None, DETECTION, None);
        assert_eq!(s.feed(b"<meta charset=sjis>"), None);
        assert_eq!(
            s.end(),
            Chosen {
                encoding: SHIFT_JIS,
                source: EncodingSource::Meta
            }
        );
    }

    #[test]
    fn ascii_only_is_utf8_and_the_detector_guesses_the_rest() {
        let mut s = Sniffer::new(None, None, DETECTION, None);
        s.feed(b"<p>plain");
        assert_eq!(s.end().source, EncodingSource::Ascii);
        let text = "Съешь же ещё этих мягких французских булок, да выпей чаю. ".repeat(20);
        let (bytes, _, _) = WINDOWS_1251.encode(&text);
        let mut s = Sniffer::new(None, None, DETECTION, Some("http://example.ru/a"));
        s.feed(&bytes);
        assert_eq!(
            s.end(),
            Chosen {
                encoding: WINDOWS_1251,
                source: EncodingSource::Detected
            }
        );
    }

    #[test]
    fn tld_for_the_detector() {
        assert_eq!(tld("https://www.Example.RU:8080/x"), Some(b"ru".to_vec()));
        assert_eq!(tld("http://user@host.jp./"), Some(b"jp".to_vec()));
        assert_eq!(tld("http://例え.jp/"), Some(b"jp".to_vec()));
        assert_eq!(
            tld("http://xn--r8jz45g.xn--wgv71a/"),
            Some(b"xn--wgv71a".to_vec())
        );
        assert_eq!(tld("http://日本/"), None);
        assert_eq!(tld("file:///x"), None);
    }
}
