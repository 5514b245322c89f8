//! An independent reader of CSS, for checking the stylesheet engine's output
//! from outside: a tokenizer after CSS Syntax Level 3 §4 and §5's component
//! values (blocks and functions), written from the specification and sharing
//! no code with the engine (`src/syntax/css/`), and the walk of
//! `tests/stylesheet_check.py` (which does the same with tinycss2): two
//! stylesheets read side by side must have the same tokens, the same text,
//! but for their URLs (a url token, the string of `url(`, the string or url
//! after `@import`, a string that starts an option of `image-set(` or
//! `-webkit-image-set(`), which may differ in text but not in kind.
//!
//! Each token keeps its source text, so "the same" is the same characters:
//! the document is decoded as the engine decodes it ([`decode`]) and never
//! preprocessed (CR LF, CR and FF are each one newline as §3.3 makes them,
//! NUL a non-ASCII code point as its U+FFFD is, but the text is kept).
#![allow(dead_code)] // each user takes its own part

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// A token's kind, §4's names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Whitespace,
    Comment,
    String,
    BadString,
    Url,
    BadUrl,
    Ident,
    Function,
    AtKeyword,
    Hash,
    Number,
    Percentage,
    Dimension,
    Cdo,
    Cdc,
    Colon,
    Semicolon,
    Comma,
    Open(char),
    Close(char),
    Delim,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    /// The source text, as written.
    pub text: String,
    /// The name of an ident, function or at-keyword, escapes undone,
    /// ASCII lowercase: what decides whether `@import` and `url(` are they.
    pub name: String,
}

/// A component value (§5): a token, or a block or function with what it
/// holds and its closer, if the text closes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Token(Token),
    Block {
        open: Token,
        content: Vec<Value>,
        close: Option<Token>,
    },
}

/// The text of a stylesheet as the engine reads it (CSS Syntax §3.2, with
/// no referring document and nothing from the transport): a byte order
/// mark, else an `@charset "label";` that starts the bytes (within the first
/// 1024, a UTF-16 label read as UTF-8), else UTF-8. Bytes that do not decode
/// stand as a private-use character of their own (U+10FF00 + the byte in
/// UTF-8), so that two different bytes are never the same text.
pub fn decode(bytes: &[u8]) -> String {
    let (encoding, body) = match Encoding::for_bom(bytes) {
        Some((encoding, bom)) => (encoding, &bytes[bom..]),
        None => (charset_rule(bytes).unwrap_or(UTF_8), bytes),
    };
    if encoding != UTF_8 {
        return encoding.decode_without_bom_handling(body).0.into_owned();
    }
    let mut text = String::with_capacity(body.len());
    for chunk in body.utf8_chunks() {
        text.push_str(chunk.valid());
        for &b in chunk.invalid() {
            text.push(char::from_u32(0x10_FF00 + u32::from(b)).expect("a private-use character"));
        }
    }
    text
}

/// §3.2: "If the first 1024 bytes of the stream begin with the hex sequence
/// 40 63 68 61 72 73 65 74 20 22 XX* 22 3B".
fn charset_rule(bytes: &[u8]) -> Option<&'static Encoding> {
    let head = &bytes[..bytes.len().min(1024)];
    let rest = head.strip_prefix(b"@charset \"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    if rest.get(end + 1) != Some(&b';') {
        return None;
    }
    let encoding = Encoding::for_label(&rest[..end])?;
    Some(if encoding == UTF_16BE || encoding == UTF_16LE {
        UTF_8
    } else {
        encoding
    })
}

/// §4.3.1: every token of `text`, in order.
pub fn tokens(text: &str) -> Vec<Token> {
    let mut t = Tokenizer {
        chars: text.chars().collect(),
        at: 0,
    };
    let mut out = Vec::new();
    while t.at < t.chars.len() {
        let start = t.at;
        let (kind, name) = t.token();
        out.push(Token {
            kind,
            text: t.chars[start..t.at].iter().collect(),
            name,
        });
    }
    out
}

/// §5.4.7–9: the component values of `text`. A block or function ends at
/// its own closer only (another closer in it is a token), or at the end.
pub fn values(text: &str) -> Vec<Value> {
    fn level(
        tokens: &mut std::vec::IntoIter<Token>,
        closer: Option<char>,
    ) -> (Vec<Value>, Option<Token>) {
        let mut out = Vec::new();
        while let Some(token) = tokens.next() {
            match token.kind {
                Kind::Close(c) if Some(c) == closer => return (out, Some(token)),
                Kind::Open(c) => {
                    let (content, close) = level(tokens, Some(c));
                    out.push(Value::Block {
                        open: token,
                        content,
                        close,
                    });
                }
                Kind::Function => {
                    let (content, close) = level(tokens, Some(')'));
                    out.push(Value::Block {
                        open: token,
                        content,
                        close,
                    });
                }
                _ => out.push(Value::Token(token)),
            }
        }
        (out, None)
    }
    level(&mut tokens(text).into_iter(), None).0
}

struct Tokenizer {
    chars: Vec<char>,
    at: usize,
}

fn newline(c: Option<char>) -> bool {
    matches!(c, Some('\n' | '\r' | '\x0C'))
}

fn whitespace(c: Option<char>) -> bool {
    newline(c) || matches!(c, Some(' ' | '\t'))
}

fn digit(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_digit())
}

/// A letter, `_`, a non-ASCII code point (NUL too: §3.3 makes it U+FFFD).
fn name_start(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || !c.is_ascii() || c == '\0')
}

fn name_char(c: Option<char>) -> bool {
    name_start(c) || digit(c) || c == Some('-')
}

fn non_printable(c: Option<char>) -> bool {
    matches!(c, Some('\x01'..='\x08' | '\x0B' | '\x0E'..='\x1F' | '\x7F'))
}

impl Tokenizer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    /// One newline or whitespace, CR LF being one.
    fn one_whitespace(&mut self) {
        if self.peek(0) == Some('\r') && self.peek(1) == Some('\n') {
            self.at += 2;
        } else if whitespace(self.peek(0)) {
            self.at += 1;
        }
    }

    fn valid_escape(&self, ahead: usize) -> bool {
        self.peek(ahead) == Some('\\') && !newline(self.peek(ahead + 1))
    }

    fn starts_ident(&self, ahead: usize) -> bool {
        match self.peek(ahead) {
            Some('-') => {
                name_start(self.peek(ahead + 1))
                    || self.peek(ahead + 1) == Some('-')
                    || self.valid_escape(ahead + 1)
            }
            Some('\\') => self.valid_escape(ahead),
            c => name_start(c),
        }
    }

    fn starts_number(&self) -> bool {
        match self.peek(0) {
            Some('+' | '-') => {
                digit(self.peek(1)) || (self.peek(1) == Some('.') && digit(self.peek(2)))
            }
            Some('.') => digit(self.peek(1)),
            c => digit(c),
        }
    }

    /// §4.3.7, after the `\`: the code point it stands for.
    fn escape(&mut self) -> char {
        let Some(c) = self.peek(0) else {
            return '\u{FFFD}';
        };
        self.at += 1;
        if !c.is_ascii_hexdigit() {
            return c;
        }
        let mut value = c.to_digit(16).expect("hex");
        for _ in 0..5 {
            match self.peek(0).and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    value = value * 16 + d;
                    self.at += 1;
                }
                None => break,
            }
        }
        self.one_whitespace();
        char::from_u32(value)
            .filter(|&c| c != '\0')
            .unwrap_or('\u{FFFD}')
    }

    /// §4.3.11: an ident sequence's value.
    fn name(&mut self) -> String {
        let mut name = String::new();
        loop {
            if name_char(self.peek(0)) {
                name.push(self.peek(0).expect("a name character"));
                self.at += 1;
            } else if self.valid_escape(0) {
                self.at += 1;
                name.push(self.escape());
            } else {
                return name.to_ascii_lowercase();
            }
        }
    }

    fn token(&mut self) -> (Kind, String) {
        let c = self.peek(0).expect("not at the end");
        let none = String::new();
        if c == '/' && self.peek(1) == Some('*') {
            self.at += 2;
            while self.at < self.chars.len() {
                if self.peek(0) == Some('*') && self.peek(1) == Some('/') {
                    self.at += 2;
                    return (Kind::Comment, none);
                }
                self.at += 1;
            }
            return (Kind::Comment, none);
        }
        if whitespace(Some(c)) {
            while whitespace(self.peek(0)) {
                self.at += 1;
            }
            return (Kind::Whitespace, none);
        }
        let single = |t: &mut Self, kind| {
            t.at += 1;
            (kind, String::new())
        };
        match c {
            '"' | '\'' => {
                self.at += 1;
                (self.string(c), none)
            }
            '#' if name_char(self.peek(1)) || self.valid_escape(1) => {
                self.at += 1;
                (Kind::Hash, self.name())
            }
            '(' => single(self, Kind::Open(')')),
            '[' => single(self, Kind::Open(']')),
            '{' => single(self, Kind::Open('}')),
            ')' | ']' | '}' => single(self, Kind::Close(c)),
            ',' => single(self, Kind::Comma),
            ':' => single(self, Kind::Colon),
            ';' => single(self, Kind::Semicolon),
            '+' | '-' | '.' if self.starts_number() => (self.numeric(), none),
            '-' if self.peek(1) == Some('-') && self.peek(2) == Some('>') => {
                self.at += 3;
                (Kind::Cdc, none)
            }
            '-' if self.starts_ident(0) => self.ident_like(),
            '<' if self.peek(1) == Some('!')
                && self.peek(2) == Some('-')
                && self.peek(3) == Some('-') =>
            {
                self.at += 4;
                (Kind::Cdo, none)
            }
            '@' if self.starts_ident(1) => {
                self.at += 1;
                (Kind::AtKeyword, self.name())
            }
            '\\' if self.valid_escape(0) => self.ident_like(),
            _ if digit(Some(c)) => (self.numeric(), none),
            _ if name_start(Some(c)) => self.ident_like(),
            _ => single(self, Kind::Delim),
        }
    }

    /// §4.3.5, after the opening quote.
    fn string(&mut self, quote: char) -> Kind {
        loop {
            match self.peek(0) {
                None => return Kind::String,
                Some(c) if c == quote => {
                    self.at += 1;
                    return Kind::String;
                }
                c if newline(c) => return Kind::BadString,
                Some('\\') => {
                    self.at += 1;
                    if newline(self.peek(0)) {
                        self.one_whitespace();
                    } else if self.peek(0).is_some() {
                        self.escape();
                    }
                }
                Some(_) => self.at += 1,
            }
        }
    }

    /// §4.3.3.
    fn numeric(&mut self) -> Kind {
        if matches!(self.peek(0), Some('+' | '-')) {
            self.at += 1;
        }
        while digit(self.peek(0)) {
            self.at += 1;
        }
        if self.peek(0) == Some('.') && digit(self.peek(1)) {
            self.at += 1;
            while digit(self.peek(0)) {
                self.at += 1;
            }
        }
        if matches!(self.peek(0), Some('e' | 'E'))
            && (digit(self.peek(1))
                || (matches!(self.peek(1), Some('+' | '-')) && digit(self.peek(2))))
        {
            self.at += 2;
            while digit(self.peek(0)) {
                self.at += 1;
            }
        }
        if self.starts_ident(0) {
            self.name();
            Kind::Dimension
        } else if self.peek(0) == Some('%') {
            self.at += 1;
            Kind::Percentage
        } else {
            Kind::Number
        }
    }

    /// §4.3.4.
    fn ident_like(&mut self) -> (Kind, String) {
        let name = self.name();
        if self.peek(0) != Some('(') {
            return (Kind::Ident, name);
        }
        self.at += 1;
        if name != "url" {
            return (Kind::Function, name);
        }
        // "While the next two input code points are whitespace, consume
        // the next input code point."
        let mut ahead = 0;
        while whitespace(self.peek(ahead)) && whitespace(self.peek(ahead + 1)) {
            ahead += 1;
        }
        let next = if whitespace(self.peek(ahead)) {
            self.peek(ahead + 1)
        } else {
            self.peek(ahead)
        };
        if matches!(next, Some('"' | '\'')) {
            // The whitespace is a token of its own.
            return (Kind::Function, name);
        }
        (self.url(), name)
    }

    /// §4.3.6, after `url(`.
    fn url(&mut self) -> Kind {
        while whitespace(self.peek(0)) {
            self.at += 1;
        }
        loop {
            match self.peek(0) {
                None => return Kind::Url,
                Some(')') => {
                    self.at += 1;
                    return Kind::Url;
                }
                c if whitespace(c) => {
                    while whitespace(self.peek(0)) {
                        self.at += 1;
                    }
                    match self.peek(0) {
                        None => return Kind::Url,
                        Some(')') => {
                            self.at += 1;
                            return Kind::Url;
                        }
                        _ => return self.bad_url(),
                    }
                }
                Some('"' | '\'' | '(') => return self.bad_url(),
                c if non_printable(c) => return self.bad_url(),
                Some('\\') => {
                    if self.valid_escape(0) {
                        self.at += 1;
                        self.escape();
                    } else {
                        return self.bad_url();
                    }
                }
                Some(_) => self.at += 1,
            }
        }
    }

    /// §4.3.14: the remnants of a bad url.
    fn bad_url(&mut self) -> Kind {
        loop {
            match self.peek(0) {
                None => return Kind::BadUrl,
                Some(')') => {
                    self.at += 1;
                    return Kind::BadUrl;
                }
                _ if self.valid_escape(0) => {
                    self.at += 1;
                    self.escape();
                }
                Some(_) => self.at += 1,
            }
        }
    }
}

/// Reads `input` and `output` (two stylesheets' bytes) side by side: the
/// same component values, the same text, but for URLs, which may differ in
/// text; `Err` says where they are not. `Ok` gives each URL's two texts
/// (the token's, or the string's, with its quotes).
pub fn same_but_urls(input: &[u8], output: &[u8]) -> Result<Vec<(String, String)>, String> {
    let mut walk = Walk::default();
    walk.values(
        &values(&decode(input)),
        &values(&decode(output)),
        false,
        false,
    );
    match walk.mismatches.first() {
        Some(first) => Err(format!(
            "{first}{}",
            match walk.mismatches.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            }
        )),
        None => Ok(walk.urls),
    }
}

#[derive(Default)]
struct Walk {
    urls: Vec<(String, String)>,
    mismatches: Vec<String>,
}

impl Walk {
    fn url(&mut self, a: &Token, b: &Token) {
        self.urls.push((a.text.clone(), b.text.clone()));
    }

    fn mismatch(&mut self, what: &str, a: &Value, b: &Value) {
        self.mismatches.push(format!(
            "{what}: {:?} became {:?}",
            serialize(a),
            serialize(b)
        ));
    }

    fn values(&mut self, a: &[Value], b: &[Value], mut url_function: bool, image_set: bool) {
        if a.len() != b.len() {
            let all = |v: &[Value]| v.iter().map(serialize).collect::<String>();
            self.mismatches.push(format!(
                "{} component values became {}: {:?} became {:?}",
                a.len(),
                b.len(),
                all(a),
                all(b)
            ));
            return;
        }
        let mut after_import = false;
        let mut option_start = image_set;
        for (x, y) in a.iter().zip(b) {
            match (x, y) {
                (Value::Token(s), Value::Token(t)) => {
                    if s.kind != t.kind {
                        self.mismatch("a token of another kind", x, y);
                        continue;
                    }
                    if matches!(s.kind, Kind::Whitespace | Kind::Comment) {
                        if s.text != t.text {
                            self.mismatch("white space or a comment", x, y);
                        }
                        continue;
                    }
                    let is_url = (s.kind == Kind::String && (url_function || option_start))
                        || (after_import && matches!(s.kind, Kind::String | Kind::Url))
                        || s.kind == Kind::Url;
                    if is_url {
                        self.url(s, t);
                    } else if s.text != t.text {
                        self.mismatch("a token", x, y);
                    }
                    if s.kind == Kind::String {
                        url_function = false;
                    }
                    after_import = s.kind == Kind::AtKeyword && s.name == "import";
                    if image_set {
                        option_start = s.kind == Kind::Comma;
                    }
                }
                (
                    Value::Block {
                        open: s,
                        content: c,
                        close: e,
                    },
                    Value::Block {
                        open: t,
                        content: d,
                        close: f,
                    },
                ) => {
                    if s.kind != t.kind || s.text != t.text {
                        self.mismatch("a block or function", x, y);
                        continue;
                    }
                    if e.as_ref().map(|e| &e.text) != f.as_ref().map(|f| &f.text) {
                        self.mismatch("the end of a block or function", x, y);
                        continue;
                    }
                    // `@import url("a.css")`: the string in the function.
                    let url = s.kind == Kind::Function && s.name == "url";
                    let set = s.kind == Kind::Function
                        && (s.name == "image-set" || s.name == "-webkit-image-set");
                    self.values(c, d, url, set);
                    after_import = false;
                    if image_set {
                        option_start = false;
                    }
                }
                _ => self.mismatch("a value of another kind", x, y),
            }
        }
    }
}

/// A component value's text, as written.
pub fn serialize(value: &Value) -> String {
    match value {
        Value::Token(t) => t.text.clone(),
        Value::Block {
            open,
            content,
            close,
        } => {
            let mut text = open.text.clone();
            text.extend(content.iter().map(serialize));
            if let Some(close) = close {
                text.push_str(&close.text);
            }
            text
        }
    }
}
