//! RFC 1808 §2.4, "Parsing a URL": the six components of §2.1, taken off the
//! parse string in the order the RFC gives (§2.4.1 to §2.4.6).

use std::fmt;

use memchr::memchr;

/// The components of §2.1:
/// `<scheme>://<net_loc>/<path>;<params>?<query>#<fragment>`.
///
/// `None` means the delimiter was not in the string; `Some("")` means it was,
/// with nothing after it. The RFC treats both as "empty" (§2.4.4: "If the
/// question mark is the last character, or no question mark is present, then
/// the query information is empty"), and so does the resolver when it decides
/// what to inherit; the difference is kept so that `Components`' `Display` gives
/// back the parsed string exactly, and so that a delimiter written in a
/// reference survives resolution (`g?` → `http://a/b/c/g?`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Components<'a> {
    /// Without its colon.
    pub scheme: Option<&'a str>,
    /// Without its leading `//`.
    pub net_loc: Option<&'a str>,
    /// With its leading slash, if it had one (§2.4.6: "Often this is done by
    /// simply storing the preceding slash along with the path").
    pub path: &'a str,
    /// Without its leading `;`.
    pub params: Option<&'a str>,
    /// Without its leading `?`.
    pub query: Option<&'a str>,
    /// Without its leading `#`.
    pub fragment: Option<&'a str>,
}

/// §2.4.2: "any not an alphanumeric, plus "+", period ".", or hyphen "-"".
/// The BNF's `alpha` and `digit` are ASCII only.
pub(crate) fn is_scheme_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'.' | b'-')
}

/// §2.4.2 on its own: the length of the scheme at the start of `s`, if `s`
/// starts with one. Used by the resolver and by callers that only need to
/// know whether a value is absolute (§4 step 2b).
pub fn scheme_len(s: &str) -> Option<usize> {
    // "If the parse string contains a colon ":" after the first character and
    // before any characters not allowed as part of a scheme name ..."
    let end = s.bytes().position(|b| !is_scheme_char(b))?;
    (end > 0 && s.as_bytes()[end] == b':').then_some(end)
}

/// Parses any string; never fails, and [`Components`]' `Display` gives the
/// input back.
pub fn parse(s: &str) -> Components<'_> {
    let mut rest = s;

    // §2.4.1 Parsing the Fragment Identifier: "the substring after the first
    // (left-most) crosshatch "#" and up to the end of the parse string is the
    // <fragment> identifier ... The matched substring, including the
    // crosshatch character, is removed from the parse string".
    let fragment = split_off_at(&mut rest, b'#');

    // §2.4.2 Parsing the Scheme: "the <scheme> of the URL is the substring of
    // characters up to but not including the first colon. These characters
    // and the colon are then removed from the parse string".
    let scheme = scheme_len(rest).map(|end| {
        let scheme = &rest[..end];
        rest = &rest[end + 1..];
        scheme
    });

    // §2.4.3 Parsing the Network Location/Login: "If the parse string begins
    // with a double-slash "//", then the substring of characters after the
    // double-slash and up to, but not including, the next slash "/" character
    // is the network location/login (<net_loc>) of the URL. If no trailing
    // slash "/" is present, the entire remaining parse string is assigned to
    // <net_loc>." Taken literally: `?` and `;` do not end it.
    let net_loc = rest.strip_prefix("//").map(|after| {
        let end = memchr(b'/', after.as_bytes()).unwrap_or(after.len());
        rest = &after[end..];
        &after[..end]
    });

    // §2.4.4 Parsing the Query Information: the left-most "?".
    let query = split_off_at(&mut rest, b'?');

    // §2.4.5 Parsing the Parameters: the left-most ";".
    let params = split_off_at(&mut rest, b';');

    // §2.4.6 Parsing the Path: "all that is left of the parse string is the
    // URL <path> and the slash "/" that may precede it."
    Components {
        scheme,
        net_loc,
        path: rest,
        params,
        query,
        fragment,
    }
}

/// Takes "the substring after the first (left-most)" `delimiter` off the end
/// of `rest`, with the delimiter. Byte by byte: every delimiter is ASCII,
/// which no byte of a longer character can be.
fn split_off_at<'a>(rest: &mut &'a str, delimiter: u8) -> Option<&'a str> {
    let at = memchr(delimiter, rest.as_bytes())?;
    let after = &rest[at + 1..];
    *rest = &rest[..at];
    Some(after)
}

impl Components<'_> {
    /// The number of bytes `Components`' `Display` writes.
    pub fn len(&self) -> usize {
        let opt = |c: Option<&str>, delimiter: usize| c.map_or(0, |c| c.len() + delimiter);
        opt(self.scheme, 1)
            + opt(self.net_loc, 2)
            + self.path.len()
            + opt(self.params, 1)
            + opt(self.query, 1)
            + opt(self.fragment, 1)
    }

    /// True for the components of the empty string.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// §4 step 7: "The resulting URL components ... are recombined to give
    /// the absolute form". Each present component is written with its
    /// delimiter, into a string of the right size.
    pub fn recombine(&self) -> String {
        let mut out = String::with_capacity(self.len());
        self.recombine_into(&mut out);
        out
    }

    /// [`Components::recombine`], onto the end of `out`.
    pub(crate) fn recombine_into(&self, out: &mut String) {
        if let Some(scheme) = self.scheme {
            out.push_str(scheme);
            out.push(':');
        }
        if let Some(net_loc) = self.net_loc {
            out.push_str("//");
            out.push_str(net_loc);
        }
        out.push_str(self.path);
        if let Some(params) = self.params {
            out.push(';');
            out.push_str(params);
        }
        if let Some(query) = self.query {
            out.push('?');
            out.push_str(query);
        }
        if let Some(fragment) = self.fragment {
            out.push('#');
            out.push_str(fragment);
        }
    }
}

/// [`Components::recombine`], for a formatter.
impl fmt::Display for Components<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.recombine())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(s: &str) -> [Option<&str>; 6] {
        let c = parse(s);
        [
            c.scheme,
            c.net_loc,
            Some(c.path),
            c.params,
            c.query,
            c.fragment,
        ]
    }

    #[test]
    fn the_rfc_base_has_all_six_components() {
        assert_eq!(
            parts("http://a/b/c/d;p?q#f"),
            [
                Some("http"),
                Some("a"),
                Some("/b/c/d"),
                Some("p"),
                Some("q"),
                Some("f")
            ]
        );
    }

    #[test]
    fn fragment_is_taken_first_at_the_leftmost_crosshatch() {
        // "g#s/./x" and "g?y#s#t": the fragment swallows everything after the first `#`.
        assert_eq!(parse("g#s/./x").fragment, Some("s/./x"));
        assert_eq!(parse("g#s/./x").path, "g");
        assert_eq!(parse("g?y#s#t").fragment, Some("s#t"));
        // A `#` before the scheme colon leaves no scheme.
        assert_eq!(parse("a#b:c").scheme, None);
    }

    #[test]
    fn scheme_needs_one_scheme_character_then_a_colon() {
        assert_eq!(parse("g:h").scheme, Some("g"));
        assert_eq!(parse("svn+ssh.x-y:z").scheme, Some("svn+ssh.x-y"));
        assert_eq!(parse("1:x").scheme, Some("1")); // the BNF allows a leading digit
        assert_eq!(parse(":x").scheme, None); // "after the first character"
        assert_eq!(parse("./this:that").scheme, None);
        assert_eq!(parse("a_b:c").scheme, None);
        assert_eq!(parse("é:c").scheme, None);
        assert_eq!(parse("http:").scheme, Some("http"));
    }

    #[test]
    fn net_loc_runs_to_the_next_slash_literally() {
        assert_eq!(parts("http://a?q")[1], Some("a?q"));
        assert_eq!(parts("http://a;p/b")[1], Some("a;p"));
        assert_eq!(parts("//g")[1], Some("g"));
        assert_eq!(parts("file:///etc")[1], Some(""));
        assert_eq!(parts("/g")[1], None);
        assert_eq!(parts("http://u:pw@h:8/x")[1], Some("u:pw@h:8"));
    }

    #[test]
    fn query_before_params_both_at_leftmost() {
        // ";" inside the query belongs to the query: the query is taken first.
        assert_eq!(
            parts("g;x?y;z"),
            [None, None, Some("g"), Some("x"), Some("y;z"), None]
        );
        assert_eq!(
            parts("g;x;y"),
            [None, None, Some("g"), Some("x;y"), None, None]
        );
    }

    #[test]
    fn delimiters_alone_are_present_but_empty() {
        assert_eq!(
            parts("?#"),
            [None, None, Some(""), None, Some(""), Some("")]
        );
        assert_eq!(parts(";")[3], Some(""));
        assert_eq!(parts("")[2], Some(""));
    }

    #[test]
    fn recombining_gives_the_input_back() {
        for s in [
            "",
            "#",
            "http://a/b/c/d;p?q#f",
            "http://a?q",
            "//",
            "///",
            "a:",
            "a://",
            "?;#",
            ";?#",
            "g;x=1/../y",
            "mailto:x@y",
        ] {
            assert_eq!(parse(s).to_string(), s);
            assert_eq!(parse(s).recombine(), s);
            assert_eq!(parse(s).len(), s.len());
        }
    }
}
