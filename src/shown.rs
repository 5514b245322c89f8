//! How a value that comes from the input is shown in a line of output:
//! a name (a file's path, a WARC record's ID), a URL, a header field, an
//! element's name. As it is when it is plain, else quoted C-style, as
//! `ls --quoting-style=c` and git's `core.quotePath` do, so that a value
//! can never break a line in two, forge another, move the cursor, turn
//! text around, or pass for something it is not. Every message and every
//! line that carries a value from the input carries it through [`shown`];
//! nothing else of the input is printed.

use std::borrow::Cow;

/// `value` as a line shows it. A value of valid UTF-8 that holds no
/// control character (C0, DEL, C1), no line or paragraph separator
/// (U+2028, U+2029), no character that turns text around (Unicode's
/// Bidi_Control: U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to
/// U+2069), no `"` and no `\` is shown as it is. Any other is put in double
/// quotes, with `\a \b \t \n \v \f \r \" \\` for those, and every other byte
/// of a control character, a separator or a bidi control, or that is not
/// UTF-8, as a three-digit octal escape (`\377`: unlike `\xff`, it cannot
/// run into a hexadecimal digit after it). Printable non-ASCII characters
/// stay as they are. The quoted form is a C string literal of the value's
/// exact bytes, so no two values are shown alike.
pub fn shown(value: &[u8]) -> Cow<'_, str> {
    // Most values are printable ASCII: no character needs a look.
    if value
        .iter()
        .all(|&b| (b' '..=b'~').contains(&b) && b != b'"' && b != b'\\')
    {
        return Cow::Borrowed(std::str::from_utf8(value).expect("ASCII"));
    }
    match std::str::from_utf8(value) {
        Ok(s) if !s.chars().any(needs_escape) => Cow::Borrowed(s),
        _ => Cow::Owned(c_quoted(value)),
    }
}

fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '"' | '\\'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{61c}'
                | '\u{200e}'
                | '\u{200f}'
                | '\u{202a}'..='\u{202e}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// `value` as a C string literal, quotes included.
fn c_quoted(value: &[u8]) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    out.push('"');
    for chunk in value.utf8_chunks() {
        for c in chunk.valid().chars() {
            match c {
                '\x07' => out.push_str("\\a"),
                '\x08' => out.push_str("\\b"),
                '\t' => out.push_str("\\t"),
                '\n' => out.push_str("\\n"),
                '\x0b' => out.push_str("\\v"),
                '\x0c' => out.push_str("\\f"),
                '\r' => out.push_str("\\r"),
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if needs_escape(c) => octal(&mut out, c.encode_utf8(&mut [0; 4]).as_bytes()),
                c => out.push(c),
            }
        }
        octal(&mut out, chunk.invalid());
    }
    out.push('"');
    out
}

fn octal(out: &mut String, bytes: &[u8]) {
    for b in bytes {
        out.push_str(&format!("\\{b:03o}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A C string literal's bytes, as a C compiler reads it (the escapes
    /// [`shown`] writes).
    fn unquoted(literal: &str) -> Vec<u8> {
        let inner = literal
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .expect("in double quotes");
        let bytes = inner.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] != b'\\' {
                out.push(bytes[i]);
                i += 1;
                continue;
            }
            let next = bytes[i + 1];
            let simple = match next {
                b'a' => Some(7),
                b'b' => Some(8),
                b't' => Some(b'\t'),
                b'n' => Some(b'\n'),
                b'v' => Some(11),
                b'f' => Some(12),
                b'r' => Some(b'\r'),
                b'"' => Some(b'"'),
                b'\\' => Some(b'\\'),
                _ => None,
            };
            match simple {
                Some(b) => {
                    out.push(b);
                    i += 2;
                }
                None => {
                    let digits = std::str::from_utf8(&bytes[i + 1..i + 4]).unwrap();
                    out.push(u8::from_str_radix(digits, 8).unwrap());
                    i += 4;
                }
            }
        }
        out
    }

    #[test]
    fn plain_names_stay_as_they_are() {
        for name in [
            "index.html",
            "a b/c.html",
            "café/menü.html",
            "x;y/p?q#r.html",
            "it's `here`.html",
            "日本.html",
        ] {
            assert_eq!(shown(name.as_bytes()), name);
        }
    }

    #[test]
    fn other_names_are_c_string_literals() {
        let cases: [(&[u8], &str); 12] = [
            (b"a\nb.html", r#""a\nb.html""#),
            (b"a\r\n", r#""a\r\n""#),
            (b"\t\x07\x08\x0b\x0c", r#""\t\a\b\v\f""#),
            (b"q\"uote", r#""q\"uote""#),
            (b"back\\slash", r#""back\\slash""#),
            (b"\x1b[2K\x00\x7f", r#""\033[2K\000\177""#),
            (b"\xff1.html", r#""\3771.html""#),
            (b"caf\xc3\xa9\xe9", "\"caf\u{e9}\\351\""),
            ("\u{85}nel".as_bytes(), r#""\302\205nel""#),
            ("a\u{2028}b".as_bytes(), r#""a\342\200\250b""#),
            ("a\u{202e}b".as_bytes(), r#""a\342\200\256b""#),
            (
                "\u{2066}\u{200f}".as_bytes(),
                r#""\342\201\246\342\200\217""#,
            ),
        ];
        for (name, expected) in cases {
            assert_eq!(shown(name), expected, "{name:?}");
        }
    }

    /// What a line never holds, even quoted.
    fn needs_escape_outside_quotes(c: char) -> bool {
        needs_escape(c) && !matches!(c, '"' | '\\')
    }

    proptest! {
        /// Whatever the bytes: one line, no control character, and the
        /// name comes back exactly (plain, or from the literal).
        #[test]
        fn any_name_is_one_line_and_comes_back(name in proptest::collection::vec(any::<u8>(), 0..40)) {
            let line = shown(&name);
            prop_assert!(!line.chars().any(needs_escape_outside_quotes));
            let back = if line.as_bytes() == name.as_slice() {
                name.clone()
            } else {
                unquoted(&line)
            };
            prop_assert_eq!(back, name);
        }

        /// Names of text are more often plain: those too.
        #[test]
        fn any_text_name_is_one_line_and_comes_back(name in "\\PC*[\"\\\\\n\t\u{85}\u{202e}]?\\PC*") {
            let line = shown(name.as_bytes());
            prop_assert!(!line.contains('\n'));
            let back = if line == name.as_str() { name.clone().into_bytes() } else { unquoted(&line) };
            prop_assert_eq!(back, name.into_bytes());
        }
    }
}
