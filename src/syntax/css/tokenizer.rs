//! CSS Syntax Level 3 §4 ("Tokenization"), on bytes, as far as the URL
//! finder needs it: the tokens it tells apart, the brackets left open, and
//! §4.2's classes of code points. It keeps no tokens.

use std::ops::Range;

/// §4.2: newline, tab or space; CR and FF are newlines after §3.3.
pub(super) fn is_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t') || is_newline(c)
}

pub(super) fn is_newline(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\x0C')
}

/// §4.2: U+0000–U+0008, U+000B, U+000E–U+001F, U+007F. (§3.3 has made U+0000
/// a U+FFFD by then, so a raw NUL is not one.)
pub(super) fn is_non_printable(c: char) -> bool {
    matches!(c, '\x01'..='\x08' | '\x0B' | '\x0E'..='\x1F' | '\x7F')
}

/// The byte classes of §4.2, on the byte at some position (`None` past the
/// end, §4.2's EOF code point).
pub(super) fn whitespace(b: Option<u8>) -> bool {
    b.is_some_and(|b| is_whitespace(char::from(b)))
}

pub(super) fn newline(b: Option<u8>) -> bool {
    b.is_some_and(|b| is_newline(char::from(b)))
}

pub(super) fn non_printable(b: Option<u8>) -> bool {
    b.is_some_and(|b| is_non_printable(char::from(b)))
}

pub(super) fn digit(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_digit())
}

pub(super) fn hex_digit(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_hexdigit())
}

/// §4.2 "ident-start code point": a letter, a non-ASCII code point, or `_`.
/// NUL counts as it is U+FFFD after §3.3.
pub(super) fn ident_start(b: Option<u8>) -> bool {
    b.is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b >= 0x80 || b == 0)
}

/// §4.2 "ident code point": an ident-start code point, a digit, or `-`.
pub(super) fn ident_char(b: Option<u8>) -> bool {
    ident_start(b) || digit(b) || b == Some(b'-')
}

/// What a bracket or function leaves open.
pub(super) struct Frame {
    /// The byte that closes it.
    pub(super) closer: u8,
    /// It is `image-set(` or `-webkit-image-set(`.
    pub(super) image_set: bool,
    /// Only whitespace has come since its opening or its last comma, in an
    /// image set: a string here is an option's image.
    pub(super) option_start: bool,
}

/// The tokens of §4 as far as [`Finder`](super::Finder) tells them apart.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Token {
    Whitespace,
    /// A string's contents and quote; `None` for a bad string, or one the
    /// end of the input cuts off.
    String(Option<(Range<usize>, u8)>),
    /// An unquoted url's value, without the whitespace around it; `None` for
    /// a bad url, or one the end of the input cuts off.
    Url(Option<Range<usize>>),
    Function(Function),
    AtKeyword {
        import: bool,
        namespace: bool,
    },
    /// `;`, which ends an at-rule's prelude.
    Semicolon,
    /// `(`, `[` or `{`, with the byte that closes it.
    Open(u8),
    /// `)`, `]` or `}`.
    Close(u8),
    Comma,
    /// Any other token: ident, hash, number, delim, CDO, and so on.
    Other,
    Eof,
}

/// The function names [`Finder`](super::Finder) cares about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Function {
    /// `url(` followed by a string (an unquoted url is a [`Token::Url`]).
    Url,
    ImageSet,
    Other,
}

pub(super) struct Scanner<'a> {
    pub(super) css: &'a str,
    /// A byte offset into `css`, between characters whenever a token starts.
    pub(super) pos: usize,
}

impl Scanner<'_> {
    /// The byte `ahead` bytes on, `None` past the end.
    pub(super) fn byte(&self, ahead: usize) -> Option<u8> {
        self.css.as_bytes().get(self.pos + ahead).copied()
    }

    pub(super) fn starts_with(&self, s: &[u8]) -> bool {
        self.css.as_bytes()[self.pos..].starts_with(s)
    }

    pub(super) fn skip_whitespace(&mut self) {
        while whitespace(self.byte(0)) {
            self.pos += 1;
        }
    }

    /// One whitespace, CR LF being one (§3.3).
    pub(super) fn skip_one_whitespace(&mut self) {
        if self.starts_with(b"\r\n") {
            self.pos += 2;
        } else if whitespace(self.byte(0)) {
            self.pos += 1;
        }
    }

    /// Skips plain text: from a token's start, with no URL begun, to the
    /// last token start that is sure before the next byte that needs the
    /// tokenizer. Those are a quote, `/` (a comment), `\` and the start of
    /// a `url(`, `image-set(`, `@import` or `@namespace`; short of them,
    /// the tokens are idents, numbers, hashes, delims, brackets and
    /// whitespace, none of which holds a URL or begins one, and each of
    /// `;:,()[]{}` and whitespace is a token of its own, or ends one (a
    /// function's `(`), or is in a run of whitespace, whose rest is
    /// whitespace too. Brackets
    /// skipped are not opened or closed: only image sets open above them
    /// count, and an image set is never skipped. Returns where the plain
    /// text ends.
    pub(super) fn skip_plain(&mut self) -> usize {
        let bytes = self.css.as_bytes();
        let mut from = self.pos;
        let end = loop {
            let Some(at) = bytes[from..].iter().position(|&b| STOPS[usize::from(b)]) else {
                break bytes.len();
            };
            let at = from + at;
            match bytes[at] {
                b'(' => {
                    if let Some(start) = ends_url_or_image_set(bytes, at) {
                        break start;
                    }
                }
                b'@' => {
                    if starts_keyword(bytes, at, b"@import")
                        || starts_keyword(bytes, at, b"@namespace")
                    {
                        break at;
                    }
                }
                _ => break at,
            }
            from = at + 1;
        };
        // (A `url(` that a token before has begun, as in `1url(`, stops it
        // where it is.)
        let end = end.max(self.pos);
        // Just past the last boundary before it; a name is not cut, as
        // `url`, `image-set` and `-webkit-` hold none.
        if let Some(at) = bytes[self.pos..end]
            .iter()
            .rposition(|&b| BOUNDARIES[usize::from(b)])
        {
            self.pos += at + 1;
        }
        end
    }

    /// §4.3.1 Consume a token.
    pub(super) fn next_token(&mut self) -> Token {
        self.skip_comments();
        let Some(b) = self.byte(0) else {
            return Token::Eof;
        };
        let single = |scanner: &mut Self, token| {
            scanner.pos += 1;
            token
        };
        match b {
            _ if whitespace(Some(b)) => {
                self.skip_whitespace();
                Token::Whitespace
            }
            b'"' | b'\'' => {
                self.pos += 1;
                self.string(b)
            }
            b'#' => {
                // "If the next input code point is an ident code point or the
                // next two input code points are a valid escape": a hash
                // token, so `#url(` is no url.
                self.pos += 1;
                if ident_char(self.byte(0)) || self.valid_escape(0) {
                    self.ident_sequence();
                }
                Token::Other
            }
            b'(' => single(self, Token::Open(b')')),
            b'[' => single(self, Token::Open(b']')),
            b'{' => single(self, Token::Open(b'}')),
            b';' => single(self, Token::Semicolon),
            b')' | b']' | b'}' => single(self, Token::Close(b)),
            b',' => single(self, Token::Comma),
            b'+' | b'.' if self.starts_number() => self.numeric(),
            b'-' if self.starts_number() => self.numeric(),
            // CDC, so that `-->url(` is a url.
            b'-' if self.starts_with(b"-->") => {
                self.pos += 3;
                Token::Other
            }
            b'-' if self.starts_ident(0) => self.ident_like(),
            // CDO, so that `<!--url(` is a url and not the function `--url(`.
            b'<' if self.starts_with(b"<!--") => {
                self.pos += 4;
                Token::Other
            }
            b'@' => {
                self.pos += 1;
                if !self.starts_ident(0) {
                    return Token::Other;
                }
                let name = self.ident_sequence();
                Token::AtKeyword {
                    import: self.is_named(name.clone(), "import"),
                    namespace: self.is_named(name, "namespace"),
                }
            }
            b'\\' if self.valid_escape(0) => self.ident_like(),
            b'0'..=b'9' => self.numeric(),
            _ if ident_start(Some(b)) => self.ident_like(),
            _ => single(self, Token::Other),
        }
    }

    /// §4.3.2 Consume comments: "If the next two input code point are U+002F
    /// SOLIDUS (/) followed by a U+002A ASTERISK (*), consume them and all
    /// following code points up to and including the first U+002A ASTERISK
    /// (*) followed by a U+002F SOLIDUS (/), or up to an EOF code point."
    pub(super) fn skip_comments(&mut self) {
        while self.starts_with(b"/*") {
            let body = &self.css.as_bytes()[self.pos + 2..];
            self.pos += 2 + body
                .windows(2)
                .position(|w| w == b"*/")
                .map_or(body.len(), |i| i + 2);
        }
    }

    /// §4.3.8 Check if two code points are a valid escape: a `\` not followed
    /// by a newline.
    pub(super) fn valid_escape(&self, ahead: usize) -> bool {
        self.byte(ahead) == Some(b'\\') && !newline(self.byte(ahead + 1))
    }

    /// §4.3.9 Check if three code points would start an ident sequence.
    pub(super) fn starts_ident(&self, ahead: usize) -> bool {
        match self.byte(ahead) {
            Some(b'-') => {
                let second = self.byte(ahead + 1);
                ident_start(second) || second == Some(b'-') || self.valid_escape(ahead + 1)
            }
            Some(b'\\') => self.valid_escape(ahead),
            first => ident_start(first),
        }
    }

    /// §4.3.10 Check if three code points would start a number.
    pub(super) fn starts_number(&self) -> bool {
        match self.byte(0) {
            Some(b'+' | b'-') => {
                digit(self.byte(1)) || (self.byte(1) == Some(b'.') && digit(self.byte(2)))
            }
            Some(b'.') => digit(self.byte(1)),
            first => digit(first),
        }
    }

    /// §4.3.7 Consume an escaped code point, the `\` already consumed.
    pub(super) fn escaped_code_point(&mut self) {
        match self.byte(0) {
            // "Consume as many hex digits as possible, but no more than 5
            // [after the first]. ... If the next input code point is
            // whitespace, consume it as well."
            first if hex_digit(first) => {
                let digits = self.css.as_bytes()[self.pos..]
                    .iter()
                    .take(6)
                    .take_while(|b| b.is_ascii_hexdigit())
                    .count();
                self.pos += digits;
                self.skip_one_whitespace();
            }
            // "EOF: This is a parse error. Return U+FFFD."
            None => {}
            // "anything else: Return the current input code point." A
            // non-ASCII one's other bytes follow as non-ASCII bytes, which
            // every caller takes as the code point would be taken.
            Some(_) => self.pos += 1,
        }
    }

    /// §4.3.11 Consume an ident sequence; its source text.
    pub(super) fn ident_sequence(&mut self) -> Range<usize> {
        let start = self.pos;
        loop {
            if ident_char(self.byte(0)) {
                self.pos += 1;
            } else if self.valid_escape(0) {
                self.pos += 1;
                self.escaped_code_point();
            } else {
                return start..self.pos;
            }
        }
    }

    /// Whether the ident sequence at `range` is `name` (lowercase ASCII), by
    /// its value, ASCII case-insensitively: `URL`, `u\rl` and `\75 rl` are
    /// all `url`.
    pub(super) fn is_named(&self, range: Range<usize>, name: &str) -> bool {
        // Ident sequences start and end at ASCII bytes or the ends of the
        // text, so the range holds whole characters.
        self.css.get(range).is_some_and(|raw| {
            Decoded::new(raw)
                .map(|c| c.to_ascii_lowercase())
                .eq(name.chars())
        })
    }

    /// §4.3.3 Consume a numeric token: a number, then a unit (an ident
    /// sequence, so `1url(` is no url) or `%`.
    pub(super) fn numeric(&mut self) -> Token {
        self.number();
        if self.starts_ident(0) {
            self.ident_sequence();
        } else if self.byte(0) == Some(b'%') {
            self.pos += 1;
        }
        Token::Other
    }

    /// §4.3.12 Consume a number.
    pub(super) fn number(&mut self) {
        let digits = |scanner: &mut Self| {
            while digit(scanner.byte(0)) {
                scanner.pos += 1;
            }
        };
        if matches!(self.byte(0), Some(b'+' | b'-')) {
            self.pos += 1;
        }
        digits(self);
        // "If the next 2 input code points are U+002E FULL STOP (.) followed
        // by a digit": so in `1.url(` the `.` is a delim, and `url(` a url.
        if self.byte(0) == Some(b'.') && digit(self.byte(1)) {
            self.pos += 1;
            digits(self);
        }
        // "If the next 2 or 3 input code points are U+0045 (E) or U+0065 (e),
        // optionally followed by U+002D (-) or U+002B (+), followed by a
        // digit".
        if matches!(self.byte(0), Some(b'e' | b'E')) {
            let sign = usize::from(matches!(self.byte(1), Some(b'+' | b'-')));
            if digit(self.byte(1 + sign)) {
                self.pos += 1 + sign;
                digits(self);
            }
        }
    }

    /// §4.3.4 Consume an ident-like token.
    pub(super) fn ident_like(&mut self) -> Token {
        let name = self.ident_sequence();
        if self.byte(0) != Some(b'(') {
            return Token::Other;
        }
        self.pos += 1;
        if self.is_named(name.clone(), "url") {
            // "While the next two input code points are whitespace, consume
            // the next input code point."
            while whitespace(self.byte(0)) && whitespace(self.byte(1)) {
                self.pos += 1;
            }
            // "If the next one or two input code points are U+0022 ("),
            // U+0027 ('), or whitespace followed by U+0022 (") or U+0027 ('),
            // then create a <function-token> ... Otherwise, consume a url
            // token".
            let quote = |b: Option<u8>| matches!(b, Some(b'"' | b'\''));
            if quote(self.byte(0)) || (whitespace(self.byte(0)) && quote(self.byte(1))) {
                return Token::Function(Function::Url);
            }
            return self.url();
        }
        if self.is_named(name.clone(), "image-set") || self.is_named(name, "-webkit-image-set") {
            Token::Function(Function::ImageSet)
        } else {
            Token::Function(Function::Other)
        }
    }

    /// §4.3.5 Consume a string token, the opening `quote` already consumed.
    pub(super) fn string(&mut self, quote: u8) -> Token {
        let start = self.pos;
        loop {
            match self.byte(0) {
                Some(b) if b == quote => {
                    let contents = start..self.pos;
                    self.pos += 1;
                    return Token::String(Some((contents, quote)));
                }
                // "EOF: This is a parse error. Return the <string-token>." It
                // is not returned here: the text may have been cut off.
                None => return Token::String(None),
                // "newline: This is a parse error. Reconsume the current input
                // code point, create a <bad-string-token>, and return it."
                b if newline(b) => return Token::String(None),
                Some(b'\\') => {
                    self.pos += 1;
                    // "If the next input code point is EOF, do nothing.
                    // Otherwise, if the next input code point is a newline,
                    // consume it. Otherwise, ... consume an escaped code
                    // point".
                    if newline(self.byte(0)) {
                        self.skip_one_whitespace();
                    } else {
                        self.escaped_code_point();
                    }
                }
                Some(_) => self.pos += 1,
            }
        }
    }

    /// §4.3.6 Consume a url token, after `url(` and all but one whitespace.
    pub(super) fn url(&mut self) -> Token {
        // "Consume as much whitespace as possible."
        self.skip_whitespace();
        let start = self.pos;
        loop {
            let end = self.pos;
            match self.byte(0) {
                Some(b')') => {
                    self.pos += 1;
                    return Token::Url(Some(start..end));
                }
                // "EOF: This is a parse error. Return the <url-token>." Not
                // returned here: the text may have been cut off.
                None => return Token::Url(None),
                // "whitespace: Consume as much whitespace as possible. If the
                // next input code point is U+0029 RIGHT PARENTHESIS ()) or
                // EOF, consume it and return the <url-token> ...; otherwise,
                // consume the remnants of a bad url".
                b if whitespace(b) => {
                    self.skip_whitespace();
                    return match self.byte(0) {
                        Some(b')') => {
                            self.pos += 1;
                            Token::Url(Some(start..end))
                        }
                        None => Token::Url(None),
                        Some(_) => self.bad_url(),
                    };
                }
                // "U+0022 ("), U+0027 ('), U+0028 ((), non-printable code
                // point: This is a parse error. Consume the remnants of a bad
                // url".
                Some(b'"' | b'\'' | b'(') => return self.bad_url(),
                b if non_printable(b) => return self.bad_url(),
                // "U+005C REVERSE SOLIDUS (\): If the stream starts with a
                // valid escape, consume an escaped code point ... Otherwise,
                // this is a parse error. Consume the remnants of a bad url".
                Some(b'\\') if self.valid_escape(0) => {
                    self.pos += 1;
                    self.escaped_code_point();
                }
                Some(b'\\') => return self.bad_url(),
                Some(_) => self.pos += 1,
            }
        }
    }

    /// §4.3.14 Consume the remnants of a bad url: up to and including the
    /// next `)` that is not escaped, or to the end.
    pub(super) fn bad_url(&mut self) -> Token {
        loop {
            match self.byte(0) {
                None => return Token::Url(None),
                Some(b')') => {
                    self.pos += 1;
                    return Token::Url(None);
                }
                _ if self.valid_escape(0) => {
                    self.pos += 1;
                    self.escaped_code_point();
                }
                Some(_) => self.pos += 1,
            }
        }
    }
}

/// The bytes [`Scanner::skip_plain`] stops at: those that may need the
/// tokenizer (`(` and `@` when they end `url` or `image-set`, or start
/// `@import` or `@namespace`).
pub(super) const STOPS: [bool; 256] = byte_set(b"\"'/\\(@");

/// The bytes after which plain text is at a token boundary.
pub(super) const BOUNDARIES: [bool; 256] = byte_set(b";:,()[]{} \t\n\r\x0C");

pub(super) const fn byte_set(bytes: &[u8]) -> [bool; 256] {
    let mut set = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        set[bytes[i] as usize] = true;
        i += 1;
    }
    set
}

/// The start of the `url` or `image-set` (ASCII case-insensitively) that
/// ends just before the `(` at `paren`.
pub(super) fn ends_url_or_image_set(css: &[u8], paren: usize) -> Option<usize> {
    let before = &css[..paren];
    ["url", "image-set"].into_iter().find_map(|name| {
        let start = paren.checked_sub(name.len())?;
        before[start..]
            .eq_ignore_ascii_case(name.as_bytes())
            .then_some(start)
    })
}

/// Whether `keyword` (`@import`, ASCII case-insensitively) starts at `at`.
pub(super) fn starts_keyword(css: &[u8], at: usize, keyword: &[u8]) -> bool {
    css[at..]
        .get(..keyword.len())
        .is_some_and(|s| s.eq_ignore_ascii_case(keyword))
}

/// The code points a piece of CSS source text stands for; see [`unescape`](super::unescape).
pub(super) struct Decoded<'a> {
    rest: &'a str,
}

impl<'a> Decoded<'a> {
    pub(super) fn new(raw: &'a str) -> Self {
        Decoded { rest: raw }
    }

    pub(super) fn skip(&mut self, prefix: char) {
        self.rest = self.rest.strip_prefix(prefix).unwrap_or(self.rest);
    }

    /// After a `\`: the code point it escapes, or `None` for an escaped
    /// newline, which stands for nothing in a string (§4.3.5).
    pub(super) fn escaped(&mut self) -> Option<char> {
        let mut chars = self.rest.chars();
        // "EOF: This is a parse error. Return U+FFFD."
        let Some(c) = chars.next() else {
            return Some(char::REPLACEMENT_CHARACTER);
        };
        if c.is_ascii_hexdigit() {
            let digits = self
                .rest
                .bytes()
                .take(6)
                .take_while(u8::is_ascii_hexdigit)
                .count();
            let value = self.rest.as_bytes()[..digits].iter().fold(0, |value, &b| {
                value * 16 + char::from(b).to_digit(16).unwrap_or(0)
            });
            self.rest = &self.rest[digits..];
            // "If the next input code point is whitespace, consume it as well."
            if self.rest.starts_with("\r\n") {
                self.rest = &self.rest[2..];
            } else if self.rest.starts_with(is_whitespace) {
                self.rest = &self.rest[1..];
            }
            // "If this number is zero, or is for a surrogate, or is greater
            // than the maximum allowed code point, return U+FFFD".
            return Some(
                char::from_u32(value)
                    .filter(|&c| c != '\0')
                    .unwrap_or(char::REPLACEMENT_CHARACTER),
            );
        }
        self.rest = chars.as_str();
        match c {
            '\r' => {
                self.skip('\n');
                None
            }
            '\n' | '\x0C' => None,
            '\0' => Some(char::REPLACEMENT_CHARACTER),
            c => Some(c),
        }
    }
}

impl Iterator for Decoded<'_> {
    type Item = char;

    fn next(&mut self) -> Option<char> {
        loop {
            let mut chars = self.rest.chars();
            let c = chars.next()?;
            self.rest = chars.as_str();
            return Some(match c {
                '\\' => match self.escaped() {
                    Some(c) => c,
                    None => continue,
                },
                '\0' => char::REPLACEMENT_CHARACTER,
                '\r' => {
                    self.skip('\n');
                    '\n'
                }
                '\x0C' => '\n',
                c => c,
            });
        }
    }
}
