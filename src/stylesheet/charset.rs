//! A stylesheet's `@charset` rule (CSS Syntax §3.2, "determine the fallback
//! encoding"): only as the very first bytes, `@charset "` then a label then
//! `";`, within the first 1024 bytes, exactly so written.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE};

/// The encoding the `@charset` rule that `bytes` start with names; `UTF-8`
/// for one that names UTF-16 (its bytes were read as ASCII).
pub fn declared(bytes: &[u8]) -> Option<&'static Encoding> {
    const START: &[u8] = b"@charset \"";
    let head = &bytes[..bytes.len().min(1024)];
    let rest = head.strip_prefix(START)?;
    let end = rest.windows(2).position(|w| w == b"\";")?;
    let label = &rest[..end];
    if label.contains(&b'"') {
        return None;
    }
    let encoding = Encoding::for_label(label)?;
    Some(if encoding == UTF_16BE || encoding == UTF_16LE {
        UTF_8
    } else {
        encoding
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_rule_at_the_start_counts() {
        assert_eq!(
            declared(b"@charset \"iso-8859-15\"; a{}"),
            Some(encoding_rs::ISO_8859_15)
        );
        assert_eq!(
            declared(b"@charset \"latin1\";"),
            Some(encoding_rs::WINDOWS_1252)
        );
        assert_eq!(declared(b"@charset \"utf-16le\";"), Some(UTF_8));
        assert_eq!(declared(b" @charset \"latin1\";"), None);
        assert_eq!(declared(b"@charset 'latin1';"), None);
        assert_eq!(declared(b"@CHARSET \"latin1\";"), None);
        assert_eq!(declared(b"@charset \"latin1\" ;"), None);
        assert_eq!(declared(b"@charset \"nonsense\";"), None);
        assert_eq!(declared(b"@charset \"latin1"), None);
    }
}
