//! The URLs of CSS text ([`Finder`]): where each stands, what it stands
//! for ([`unescape`]), and how a new one is written in its place
//! ([`escape`]), from the tokens of [`tokenizer`](super::tokenizer).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::ops::Range;

use super::tokenizer::*;

/// A URL found in CSS text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Byte range of the URL's source text inside the scanned text: for
    /// `url(  a\)b.png  )` the range covers `a\)b.png` (not the whitespace,
    /// not the parens); for `url("a.png")` and `@import 'a.css'` it covers
    /// the string's contents, without the quotes.
    pub range: Range<usize>,
    pub context: Context,
}

/// Where a found URL stands, which decides how a new one is escaped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// The body of an unquoted `url(...)`.
    Unquoted,
    /// The contents of a string, between two of this quote (`b'"'` or `b'\''`).
    Quoted(u8),
}

/// [`Finder`]'s URLs, all at once.
#[cfg(test)]
pub fn find(css: &str) -> Vec<Found> {
    find_with(css, true)
}

/// [`find`]; with `shortcuts`, the text is tokenized only where a URL can
/// be: up to the last start of one ([`last_start`]), and not in the plain
/// text between ([`Scanner::skip_plain`]). Without, every token is read,
/// which the tests compare with.
#[cfg(test)]
fn find_with(css: &str, shortcuts: bool) -> Vec<Found> {
    Finder::with(css, shortcuts).collect()
}

/// Every URL in `css`, in order: `url(...)` tokens, unquoted or with a
/// string, the name in any case (`URL(`, `Url(`) and with escapes (`u\rl(`
/// is `url(`, as §4.3.4 compares the name after decoding it); the string
/// after `@import` (whitespace and comments may come between); and the
/// strings that start the options of `image-set(...)` and
/// `-webkit-image-set(...)` (`image-set("a.png" 1x, "b.png" 2x)`), but not
/// strings nested deeper, as in `type("image/avif")`.
///
/// Not returned:
/// - anything in a comment, or in another string (`content: "url(x)"`);
/// - bad urls (§4.3.6: a quote, `(`, a non-printable code point, an invalid
///   escape or inner whitespace in an unquoted url) and bad strings (an
///   unescaped newline);
/// - a url or string that the end of the input cuts off (`url(a`, `"a`): the
///   text may have been truncated, and its value with it;
/// - values that decode to the empty string (`url()`, `url("")`): CSS Values
///   4 ("Empty URLs", `#url-empty`) makes them resolve to an invalid
///   resource, and resolving one against a base would make it point
///   somewhere;
/// - the URL of an `@namespace` rule (`@namespace svg
///   url(http://www.w3.org/2000/svg)`): a namespace's name, "treated as a
///   literal string" (CSS Namespaces §2), never fetched nor resolved;
/// - values that decode to text starting with `#` (`url(#grad)`,
///   `url("#a")`): CSS Values 4 ("Fragment URLs", `#local-urls`) makes them
///   local urls, that refer to an element of the current document whatever
///   the base, so they must be left as they are.
///
/// One URL at a time (a text may hold millions), holding no more brackets
/// open than it is allowed (each takes memory, and a text may open one at
/// each byte): past them it finds no more, and says so.
///
/// Linear in the length of `css`, and never panics, whatever the text.
pub struct Finder<'a> {
    scanner: Scanner<'a>,
    shortcuts: bool,
    /// Where the last thing that can start a URL starts: nothing past it
    /// can, unless something before it has begun one.
    last: usize,
    frames: Vec<Frame>,
    /// How many brackets it may hold open, and the most it has.
    max_open: usize,
    most_open: usize,
    /// How many of `frames` are image sets.
    image_sets: usize,
    /// The last token was `url(` (followed by a string, §4.3.4) or `@import`.
    next_string_is_url: bool,
    /// Within the prelude of an `@namespace` rule, up to its `;`.
    namespace: bool,
    /// Where the plain text that [`Scanner::skip_plain`] last found ends.
    plain_end: usize,
    done: bool,
    too_deep: bool,
}

impl<'a> Finder<'a> {
    /// The URLs of `css`, with as many brackets open as the text opens.
    pub fn new(css: &'a str) -> Self {
        Finder::with(css, true)
    }

    fn with(css: &'a str, shortcuts: bool) -> Self {
        let last = if shortcuts {
            last_start(css.as_bytes())
        } else {
            Some(usize::MAX)
        };
        Finder {
            scanner: Scanner { css, pos: 0 },
            shortcuts,
            last: last.unwrap_or(0),
            frames: Vec::new(),
            max_open: usize::MAX,
            most_open: 0,
            image_sets: 0,
            next_string_is_url: false,
            namespace: false,
            plain_end: 0,
            done: last.is_none(),
            too_deep: false,
        }
    }

    /// The memory a bracket open takes.
    pub const FRAME: usize = std::mem::size_of::<Frame>();

    /// From now on, at most `max_open` brackets open.
    pub fn allow(&mut self, max_open: usize) {
        self.max_open = max_open;
    }

    /// The most brackets it has held open at once.
    pub fn most_open(&self) -> usize {
        self.most_open
    }

    /// Whether it stopped at more brackets open than it may hold.
    pub fn too_deep(&self) -> bool {
        self.too_deep
    }

    /// A bracket or function opens; `false` when no more may.
    fn open(&mut self, frame: Frame) -> bool {
        if self.frames.len() >= self.max_open {
            self.too_deep = true;
            self.done = true;
            return false;
        }
        self.frames.push(frame);
        self.most_open = self.most_open.max(self.frames.len());
        true
    }
}

impl Iterator for Finder<'_> {
    type Item = Found;

    fn next(&mut self) -> Option<Found> {
        let css = self.scanner.css;
        while !self.done {
            if self.shortcuts && !self.next_string_is_url && !self.namespace && self.image_sets == 0
            {
                // Nothing begun: the next URL, if any, starts at a token that
                // can start one.
                if self.scanner.pos > self.last {
                    break;
                }
                if self.scanner.pos >= self.plain_end {
                    self.plain_end = self.scanner.skip_plain();
                }
            }
            let token = self.scanner.next_token();
            if token == Token::Whitespace {
                // Whitespace changes nothing: `@import  "a.css"`, `url( "a" )`,
                // `image-set( "a" 1x)`.
                continue;
            }
            let option_start = self
                .frames
                .last_mut()
                .is_some_and(|frame| std::mem::take(&mut frame.option_start));
            let string_is_url = std::mem::take(&mut self.next_string_is_url) || option_start;
            if matches!(token, Token::Semicolon | Token::Open(b'}')) {
                // The end of an at-rule's prelude.
                self.namespace = false;
            }
            let found = match token {
                Token::Eof => break,
                // A namespace's name, in a string or a url: no URL.
                Token::String(_) | Token::Url(_) if self.namespace => None,
                Token::String(Some((range, quote))) if string_is_url => {
                    kept(css, range, Context::Quoted(quote))
                }
                Token::Url(Some(range)) => kept(css, range, Context::Unquoted),
                Token::AtKeyword { import, namespace } => {
                    self.next_string_is_url = import;
                    // Anywhere: inside a block it is no rule a browser keeps.
                    self.namespace = namespace;
                    None
                }
                Token::Function(function) => {
                    let image_set = function == Function::ImageSet;
                    let frame = Frame {
                        closer: b')',
                        image_set,
                        option_start: image_set,
                    };
                    if self.open(frame) {
                        self.image_sets += usize::from(image_set);
                        self.next_string_is_url = function == Function::Url && !self.namespace;
                    }
                    None
                }
                Token::Open(closer) => {
                    self.open(Frame {
                        closer,
                        image_set: false,
                        option_start: false,
                    });
                    None
                }
                // §5.4.8–9: a block or function ends only at its own closer; any
                // other closer inside it is just a token.
                Token::Close(closer)
                    if self
                        .frames
                        .last()
                        .is_some_and(|frame| frame.closer == closer) =>
                {
                    let image_set = self.frames.pop().is_some_and(|frame| frame.image_set);
                    self.image_sets -= usize::from(image_set);
                    None
                }
                Token::Comma => {
                    if let Some(frame) = self.frames.last_mut() {
                        frame.option_start = frame.image_set;
                    }
                    None
                }
                _ => None,
            };
            if found.is_some() {
                return found;
            }
        }
        self.done = true;
        None
    }
}

/// Where the last of what can start a URL in `css` starts: a `\` (an
/// escape can spell any name: `\75 rl(`), `url(`, `image-set(` (and so
/// `-webkit-image-set(`) and `@import`, ASCII case-insensitively. Without
/// escapes these names are written as they are, and a URL is a url token,
/// which starts with `url(`, or a string after `url(`, after `@import` or
/// at an option of `image-set(`: so a text with none of them holds no URL,
/// and past the last of them no URL starts that no token before it began.
fn last_start(css: &[u8]) -> Option<usize> {
    let mut end = css.len();
    // The first found from the end is the last: the names hold none of the
    // bytes looked for.
    while let Some(at) = memchr::memrchr3(b'\\', b'(', b'@', &css[..end]) {
        let start = match css[at] {
            b'\\' => Some(at),
            b'(' => ends_url_or_image_set(css, at),
            _ => starts_keyword(css, at, b"@import").then_some(at),
        };
        if start.is_some() {
            return start;
        }
        end = at;
    }
    None
}

/// The URL at `range`, unless it is empty or a local url, as [`Finder`]
/// explains.
fn kept(css: &str, range: Range<usize>, context: Context) -> Option<Found> {
    match Decoded::new(&css[range.clone()]).next() {
        None | Some('#') => None,
        Some(_) => Some(Found { range, context }),
    }
}

/// The URL a found range stands for: §4.3.7's escapes decoded (`\28` → `(`,
/// `\)` → `)`, `\"`: a backslash and up to six hex digits, then one optional
/// whitespace, or a backslash and any other code point), an escaped newline
/// decoded to nothing (as in a string, §4.3.5), and §3.3's preprocessing
/// (NUL, and an escape of zero, a surrogate or past U+10FFFF, is U+FFFD; CR
/// LF, CR and FF are a newline). A `\` at the very end is U+FFFD (§4.3.7);
/// no found range ends so.
pub fn unescape(raw: &str) -> Cow<'_, str> {
    if !raw
        .bytes()
        .any(|b| matches!(b, b'\\' | b'\0' | b'\r' | b'\x0C'))
    {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(Decoded::new(raw).collect())
}

/// `url` escaped so that, written in place of a found range in `context`, it
/// reads back (by [`unescape`]) as `url` and cannot change the CSS around it.
///
/// In [`Context::Unquoted`], `(`, `)`, `"`, `'` and `\` get a backslash, and
/// whitespace and non-printable code points a hex escape and a space
/// (`\a `), since either would end the url or make it a bad url. In
/// [`Context::Quoted`], the quote and `\` get a backslash, and newlines a hex
/// escape. CSS has no way to write U+0000: it reads back as U+FFFD.
pub fn escape(url: &str, context: Context) -> Cow<'_, str> {
    let needs_escape = |c: char| match context {
        Context::Unquoted => {
            matches!(c, '(' | ')' | '"' | '\'' | '\\')
                || is_whitespace(c)
                || c == '\0'
                || is_non_printable(c)
        }
        Context::Quoted(quote) => c == char::from(quote) || c == '\\' || is_newline(c),
    };
    if !url.chars().any(needs_escape) {
        return Cow::Borrowed(url);
    }
    let mut out = String::with_capacity(url.len() + 8);
    for c in url.chars() {
        if !needs_escape(c) {
            out.push(c);
        } else if c.is_ascii_graphic() {
            out.push('\\');
            out.push(c);
        } else {
            // The space ends the hex escape, whatever follows (§4.3.7).
            let _ = write!(out, "\\{:x} ", u32::from(c));
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The control pictures the fixture table writes for characters a TSV
    /// cannot hold or an editor might eat.
    fn from_pictures(s: &str) -> String {
        s.chars()
            .map(|c| match c {
                '␤' => '\n',
                '␍' => '\r',
                '␌' => '\x0C',
                '␉' => '\t',
                '␠' => ' ',
                '␀' => '\0',
                '␁' => '\x01',
                '␡' => '\x7F',
                c => c,
            })
            .collect()
    }

    /// The context a range is in, by the byte before it: a quote opens a
    /// string; anything else (`(`, whitespace) comes before an unquoted url.
    fn context_before(css: &str, start: usize) -> Context {
        match css.as_bytes()[start - 1] {
            q @ (b'"' | b'\'') => Context::Quoted(q),
            _ => Context::Unquoted,
        }
    }

    /// `fixtures/css/find.tsv`: each row's CSS with every URL [`find`] should
    /// return marked `⟦…⟧`, then the URLs as [`unescape`] should give them.
    #[test]
    fn fixture_table() {
        let table = include_str!("../../../fixtures/css/find.tsv");
        let mut failures = Vec::new();
        let mut rows = 0;
        for (i, line) in table.lines().enumerate() {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            rows += 1;
            let mut fields = line.split('\t');
            let name = fields.next().unwrap();
            let marked = from_pictures(fields.next().unwrap_or_else(|| {
                panic!("find.tsv:{}: no css column", i + 1);
            }));
            let urls: Vec<String> = fields.map(from_pictures).collect();
            let mut css = String::new();
            let mut ranges = Vec::new();
            for c in marked.chars() {
                match c {
                    '⟦' => ranges.push(css.len()..css.len()),
                    '⟧' => ranges.last_mut().unwrap().end = css.len(),
                    c => css.push(c),
                }
            }
            assert_eq!(
                ranges.len(),
                urls.len(),
                "find.tsv:{}: {} marked ranges but {} urls",
                i + 1,
                ranges.len(),
                urls.len()
            );
            let expected: Vec<(Found, &str)> = ranges
                .into_iter()
                .zip(&urls)
                .map(|(range, url)| {
                    let context = context_before(&css, range.start);
                    (Found { range, context }, url.as_str())
                })
                .collect();
            let got: Vec<(Found, String)> = find(&css)
                .into_iter()
                .map(|f| {
                    let url = unescape(&css[f.range.clone()]).into_owned();
                    (f, url)
                })
                .collect();
            let got_view: Vec<(Found, &str)> =
                got.iter().map(|(f, u)| (f.clone(), u.as_str())).collect();
            if got_view != expected {
                failures.push(format!(
                    "find.tsv:{} [{name}] {css:?}\n  expected {expected:?}\n  got      {got_view:?}",
                    i + 1
                ));
            }
        }
        assert!(rows > 0, "find.tsv holds no cases");
        assert!(
            failures.is_empty(),
            "{} of {rows} rows failed:\n{}",
            failures.len(),
            failures.join("\n")
        );
    }

    #[test]
    fn unescape_decodes_css_escapes() {
        for (raw, expected) in [
            ("a.png", "a.png"),
            (r"a\)b", "a)b"),
            (r"\28 x\29", "(x)"),
            (r"\28x", "(x"),
            (r"a\20 b", "a b"),
            (r"a\20b", "a\u{20b}"),
            (r"\0000411", "A1"),
            ("\\41\r\nb", "Ab"),
            ("\\41\tb", "Ab"),
            (r"\0", "\u{FFFD}"),
            (r"\d800", "\u{FFFD}"),
            (r"\110000", "\u{FFFD}"),
            (r#"a\"b\'c\\"#, r#"a"b'c\"#),
            ("a\\\nb", "ab"),
            ("a\\\r\nb", "ab"),
            ("a\\\x0Cb", "ab"),
            ("a\0b", "a\u{FFFD}b"),
            ("a\\\0b", "a\u{FFFD}b"),
            ("a\rb\r\nc\x0Cd", "a\nb\nc\nd"),
            ("\\é", "é"),
            ("a\\", "a\u{FFFD}"),
        ] {
            assert_eq!(unescape(raw), expected, "unescape({raw:?})");
        }
        assert!(matches!(unescape("a/b.png?x=1"), Cow::Borrowed(_)));
    }

    #[test]
    fn escape_writes_what_each_context_needs() {
        let q = Context::Quoted(b'"');
        let s = Context::Quoted(b'\'');
        for (url, context, expected) in [
            ("http://h/a.png", Context::Unquoted, "http://h/a.png"),
            ("a b(c)", Context::Unquoted, r"a\20 b\(c\)"),
            (r#"a"b'c\d"#, Context::Unquoted, r#"a\"b\'c\\d"#),
            ("a\tb\nc\rd\x0Ce", Context::Unquoted, r"a\9 b\a c\d d\c e"),
            ("a\x01b\x7Fc\0d", Context::Unquoted, r"a\1 b\7f c\0 d"),
            ("é/*x*/;{}", Context::Unquoted, "é/*x*/;{}"),
            (r#"a b(c)'d"e\f"#, q, r#"a b(c)'d\"e\\f"#),
            (r#"a"b'c"#, s, r#"a"b\'c"#),
            ("a\nb\rc\x0Cd\te", q, "a\\a b\\d c\\c d\te"),
        ] {
            assert_eq!(
                escape(url, context),
                expected,
                "escape({url:?}, {context:?})"
            );
        }
        assert!(matches!(
            escape("http://h/a.png", Context::Unquoted),
            Cow::Borrowed(_)
        ));
    }

    /// The brackets held open are as many as the text opens where it is
    /// tokenized, and no more than allowed: past them the finder stops and
    /// says so; allowed more as it goes, it goes on.
    #[test]
    fn the_brackets_held_open_stay_within_what_is_allowed() {
        let css = format!(
            "a{{b:image-set({}'x.png')}} c{{d:url(y.png)}}",
            "(".repeat(1000)
        );
        // `x.png` stands deeper than an option: no URL.
        let mut finder = Finder::new(&css);
        assert_eq!(finder.by_ref().count(), 1);
        assert_eq!(finder.most_open(), 1001);
        assert!(!finder.too_deep());
        let mut finder = Finder::new(&css);
        finder.allow(500);
        assert_eq!(finder.next(), None);
        assert!(finder.too_deep());
        assert_eq!(finder.most_open(), 500);
        // Plain text skipped opens nothing.
        let css = format!("{}url(z.png)", "([{".repeat(1000));
        let mut finder = Finder::new(&css);
        finder.allow(0);
        assert_eq!(finder.by_ref().count(), 1);
        assert!(!finder.too_deep());
    }

    /// Long runs of what could make a scanner go back over the text.
    #[test]
    fn adversarial_inputs_take_linear_time() {
        let n = 100_000;
        for piece in [
            "url(",
            "url( ",
            "@import ",
            "image-set(",
            "(",
            "\\",
            "\\)",
            "/*",
            "\"",
            "u\\",
            "1e",
            "-",
            "<!-",
            "#",
            "url(a b",
        ] {
            let css = piece.repeat(n);
            let start = std::time::Instant::now();
            let _ = find(&css);
            assert!(
                start.elapsed() < std::time::Duration::from_secs(5),
                "{piece:?} × {n} took {:?}",
                start.elapsed()
            );
        }
    }

    /// Loose pieces of CSS: enough of each construct [`find`] knows, and of
    /// what breaks them.
    fn piece() -> impl Strategy<Value = String> {
        prop::sample::select(vec![
            "url(",
            "URL(",
            "u\\rl(",
            ")",
            "(",
            "\"",
            "'",
            "\\",
            "\\)",
            "\\28 ",
            "\\61",
            "\\\n",
            "\\\"",
            "/*",
            "*/",
            " ",
            "\n",
            "\r\n",
            "\t",
            "@import ",
            "image-set(",
            "-webkit-image-set(",
            "type(",
            ",",
            " 1x",
            "#",
            "a",
            "b.png",
            "é",
            "\0",
            "\u{1}",
            ";",
            "{",
            "}",
            "[",
            "]",
            "-->",
            "<!--",
            "-",
            "1",
            ".",
            "%",
            "e",
            "content:",
        ])
        .prop_map(str::to_owned)
    }

    /// The inside of a url or string: mostly plain, sometimes escaped,
    /// sometimes broken.
    fn body() -> impl Strategy<Value = String> {
        let part = prop::sample::select(vec![
            "a", "b.png", "/", "é", "?x=1", "#f", "\\)", "\\28 ", "\\61", "\\20b", "\\\"", "\\'",
            "\\\\", "\\\n", "\\\r\n", "\\0", "\\é", " ", "\"", "'", "(", ")", "\0", "\u{1}", "/*",
            "*/",
        ]);
        prop::collection::vec(part, 0..6).prop_map(|parts| parts.concat())
    }

    /// Whitespace and comments, where CSS allows them or near enough.
    fn gap() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec![
            "", "", " ", "  ", "\n", "\r\n", "\t", "/**/", " /*x*/ ",
        ])
    }

    fn quote() -> impl Strategy<Value = &'static str> {
        prop::sample::select(vec!["\"", "'"])
    }

    /// A string-valued image-set option.
    fn option() -> impl Strategy<Value = String> {
        (
            quote(),
            body(),
            prop::sample::select(vec!["", " 1x", " type('a/b')"]),
        )
            .prop_map(|(q, body, rest)| format!("{q}{body}{q}{rest}"))
    }

    /// Text from a small CSS-ish grammar: url(), @import and image-set()
    /// with bodies that are often valid and sometimes not, among loose
    /// pieces.
    fn css_ish() -> impl Strategy<Value = String> {
        let name = prop::sample::select(vec!["url", "URL", "u\\rl", "\\75 rl"]);
        let construct = prop_oneof![
            (name.clone(), gap(), body(), gap())
                .prop_map(|(n, a, body, b)| format!("{n}({a}{body}{b})")),
            (name, gap(), quote(), body(), gap())
                .prop_map(|(n, a, q, body, b)| format!("{n}({a}{q}{body}{q}{b})")),
            (gap(), quote(), body()).prop_map(|(a, q, body)| format!("@import{a}{q}{body}{q};")),
            (gap(), quote(), body())
                .prop_map(|(a, q, body)| format!("@namespace x{a}{q}{body}{q};")),
            (gap(), body()).prop_map(|(a, body)| format!("@NameSpace{a}url({body})")),
            prop::collection::vec(option(), 1..4)
                .prop_map(|options| format!("image-set({})", options.join(", "))),
            piece(),
            piece(),
        ];
        prop::collection::vec(construct, 0..12).prop_map(|parts| parts.concat())
    }

    /// New URLs to write in place of found ones: any text but the empty
    /// string and local urls, which [`find`] leaves out, and weighted to
    /// what needs escaping.
    fn new_url() -> impl Strategy<Value = String> {
        let c = prop_oneof![
            any::<char>(),
            prop::sample::select(vec![
                'a', '/', ':', ')', '(', '"', '\'', '\\', ' ', '\t', '\n', '\r', '\x0C', '\0',
                '\x01', '\x7F', '#', '*', 'f', '0', 'é',
            ]),
        ];
        prop::collection::vec(c, 1..12)
            .prop_map(|cs| cs.into_iter().collect::<String>())
            .prop_filter("a local url", |s| !s.starts_with('#'))
    }

    /// `css` with every found range replaced by `by(raw, context)`.
    fn splice(css: &str, found: &[Found], by: impl Fn(usize, &str, Context) -> String) -> String {
        let mut out = String::new();
        let mut at = 0;
        for (i, f) in found.iter().enumerate() {
            out.push_str(&css[at..f.range.start]);
            out.push_str(&by(i, &css[f.range.clone()], f.context));
            at = f.range.end;
        }
        out.push_str(&css[at..]);
        out
    }

    /// The facts every result holds: ranges in order, apart, on character
    /// boundaries, with the context the byte before them says.
    fn check_ranges(css: &str, found: &[Found]) {
        let mut end = 0;
        for f in found {
            assert!(end <= f.range.start && f.range.start < f.range.end);
            assert!(css.is_char_boundary(f.range.start) && css.is_char_boundary(f.range.end));
            assert_eq!(f.context, context_before(css, f.range.start));
            if let Context::Quoted(q) = f.context {
                assert_eq!(css.as_bytes()[f.range.end], q);
            }
            end = f.range.end;
        }
    }

    fn values(css: &str, found: &[Found]) -> Vec<(String, Context)> {
        found
            .iter()
            .map(|f| (unescape(&css[f.range.clone()]).into_owned(), f.context))
            .collect()
    }

    /// What the shortcuts of [`find`] skip and stop at, and what is near.
    fn plain_ish() -> impl Strategy<Value = String> {
        let piece = prop::sample::select(vec![
            ";",
            ":",
            ",",
            "(",
            ")",
            "[",
            "]",
            "{",
            "}",
            " ",
            "\t",
            "\n",
            "\r\n",
            "\x0C",
            "!",
            "<!--",
            "-->",
            "<!",
            "--",
            ">",
            "#",
            "@",
            "@import",
            "@IMPORT",
            "@imp",
            "@imports",
            "url",
            "url(",
            "URL(",
            "uRl(",
            "xurl(",
            "1url(",
            ".url(",
            "-url(",
            "#url(",
            "@url(",
            "url (",
            "image-set(",
            "-webkit-image-set(",
            "Image-Set(",
            "image-set",
            "\"a\"",
            "'b'",
            "\"",
            "'",
            "/*",
            "*/",
            "/",
            "\\",
            "\\75 rl(",
            "u\\rl(",
            "\\69mage-set(",
            "1",
            "1.5",
            "1e3",
            "e",
            "+",
            "-",
            ".",
            "a",
            "b.png",
            "é",
            "\0",
            "\u{1}",
            "x)",
            "1x",
            "calc(",
            "rgba(",
            "var(--a)",
            "content:",
            "background:",
            " 2x, ",
        ]);
        prop::collection::vec(piece, 0..24).prop_map(|p| p.concat())
    }

    #[test]
    fn shortcuts_stop_at_what_can_start_a_url() {
        for (css, last) in [
            ("", None),
            ("a{color:red}", None),
            ("a{b:ur(x)} /* url */ 'url' @imp", None),
            ("a{b:url(x)}", Some(4)),
            ("a{b:URL (x)}", None),
            ("\\75 rl(x)", Some(0)),
            ("@IMPORT 'a'; b{}", Some(0)),
            ("a{b:-webkit-image-set('a' 1x)} c{}", Some(12)),
            ("url(a) x\\y", Some(8)),
        ] {
            assert_eq!(last_start(css.as_bytes()), last, "{css:?}");
        }
        // A text with no such start holds no URL.
        assert!(find("a{b:c} /* url(x) */").is_empty() && !find("a{b:url(x)}").is_empty());
        // Found through escapes, comments, and after plain text.
        for (css, urls) in [
            ("a{b:\\75 rl(x.png)}", vec!["x.png"]),
            ("a{b:-WEBKIT-IMAGE-SET('y' 1x)}", vec!["y"]),
            ("@import/**/'i.css'; x{}", vec!["i.css"]),
            ("p{margin:0;padding:1px 2px}a{b:url( z )} q{}", vec!["z"]),
            ("p:hover>a[x=y]{c:d}@media(x){a{b:URL('w')}}", vec!["w"]),
            ("a{content:'url(n)'} b{c:url(m)}", vec!["m"]),
            // Begun by the token before: no url, and none cut short.
            ("a{b:1url(x) xurl(y) #url(z);c:url(v)}", vec!["v"]),
        ] {
            let got: Vec<&str> = find(css).iter().map(|f| &css[f.range.clone()]).collect();
            assert_eq!(got, urls, "{css:?}");
        }
    }

    proptest! {
        #[test]
        fn never_panics_on_any_text(css in any::<String>()) {
            let found = find(&css);
            check_ranges(&css, &found);
            for f in &found {
                let _ = escape(&unescape(&css[f.range.clone()]), f.context);
            }
        }

        /// The shortcuts find what reading every token finds.
        #[test]
        fn shortcuts_change_nothing(
            css in prop_oneof![css_ish(), plain_ish(), any::<String>()],
            more in plain_ish(),
        ) {
            for css in [css.clone(), format!("{more}{css}"), format!("{css}{more}")] {
                prop_assert_eq!(find_with(&css, true), find_with(&css, false), "{:?}", css);
            }
        }

        #[test]
        fn never_panics_on_css_ish_text(css in css_ish()) {
            check_ranges(&css, &find(&css));
        }

        #[test]
        fn escape_then_unescape_is_the_url(url in new_url(), quote in prop::sample::select(vec![None, Some(b'"'), Some(b'\'')])) {
            let context = quote.map_or(Context::Unquoted, Context::Quoted);
            let expected = url.replace('\0', "\u{FFFD}");
            let escaped = escape(&url, context);
            prop_assert_eq!(unescape(&escaped), expected);
        }

        /// Writing each found URL back, unescaped and escaped again, finds
        /// the same URLs.
        #[test]
        fn found_urls_written_back_are_found_again(css in css_ish()) {
            let found = find(&css);
            let rewritten = splice(&css, &found, |_, raw, context| {
                escape(&unescape(raw), context).into_owned()
            });
            let again = find(&rewritten);
            check_ranges(&rewritten, &again);
            prop_assert_eq!(values(&css, &found), values(&rewritten, &again));
        }

        /// Writing new URLs in place of the found ones finds the new URLs,
        /// and no others: escaping keeps the CSS around them as it was.
        #[test]
        fn new_urls_written_in_are_found_as_written(
            css in css_ish(),
            urls in prop::collection::vec(new_url(), 1..8),
        ) {
            let found = find(&css);
            let new = |i: usize| urls[i % urls.len()].as_str();
            let rewritten = splice(&css, &found, |i, _, context| escape(new(i), context).into_owned());
            let again = find(&rewritten);
            check_ranges(&rewritten, &again);
            let expected: Vec<(String, Context)> = found
                .iter()
                .enumerate()
                .map(|(i, f)| (new(i).replace('\0', "\u{FFFD}"), f.context))
                .collect();
            prop_assert_eq!(values(&rewritten, &again), expected);
        }
    }
}
