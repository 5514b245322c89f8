//! Relative URLs by RFC 1808 (`shared/spec/rfc1808.txt`): parsing (§2.4) and
//! resolution (§4). Pure functions over `&str`; no I/O, no allocation where
//! the answer is one of the inputs.
//!
//! ```
//! use htmlabs::rfc1808::resolve;
//! assert_eq!(resolve("http://a/b/c/d;p?q#f", "../g"), "http://a/b/g");
//! assert_eq!(resolve("http://a/b/c/d;p?q#f", "../../../g"), "http://a/../g");
//! ```
//!
//! # Points the RFC leaves open, decided here
//!
//! Each is a named case in `fixtures/rfc1808/decisions.tsv`.
//!
//! - **"Entirely empty" (§4 step 2a) means zero-length.** `""` resolves to the
//!   whole base, fragment included; `#` is not empty (it has a fragment
//!   delimiter) and resolves to the base without its fragment, plus `#`.
//! - **An empty component counts as absent for inheritance** (§2.4 calls a
//!   component empty both when its delimiter is missing and when nothing
//!   follows it), **but a delimiter written in the reference is kept when
//!   nothing is inherited for it**: `?` → `http://a/b/c/d;p?q` (the base's
//!   query is inherited), `g?` → `http://a/b/c/g?` (step 6 inherits no
//!   query, so the written `?` stays), `#` → `http://a/b/c/d;p?q#`.
//! - **Inherited components keep their delimiters as the base wrote them**:
//!   `file:///etc/passwd` + `g` → `file:///etc/g` (the empty net_loc keeps its
//!   `//`); `http://a/b?` + `#s` → `http://a/b?#s`.
//! - **A base with a net_loc and an empty path has the path `/`**, before
//!   anything else (the BNF's `net_path = "//" net_loc [ abs_path ]`; an
//!   absolute path is the only kind a net_loc can be followed by):
//!   `https://example.com` + `g` → `https://example.com/g`, `?y` →
//!   `https://example.com/?y`, `""` → `https://example.com/`.
//! - **An empty net_loc inherits the base's, and a base without one gives
//!   none** (step 3: "the embedded URL inherits the <net_loc> (if any) of
//!   the base URL"). The `//` written in the reference does not stay, unlike
//!   the other delimiters: a net_loc is followed by an absolute path or
//!   nothing (`net_path = "//" net_loc [ abs_path ]`) and runs to the next
//!   `/` (§2.4.3), so before what step 5 inherits from a base without a
//!   net_loc it would read back as something else. `news:comp.lang.misc` +
//!   `//` → `news:comp.lang.misc`, not `news://comp.lang.misc` (the net_loc
//!   `comp.lang.misc`); `foo:?q` + `//` → `foo:?q`, not `foo://?q`;
//!   `file:/etc/passwd` + `///g` → `file:/g`. Every answer, parsed again,
//!   has the components resolution assembled ([`ParsedBase::assemble`]; a
//!   property in `tests/engines/resolver_properties.rs` and the `resolve` fuzz
//!   target).
//! - **A path that starts with `//` and has no net_loc before it is written
//!   with an empty net_loc** (step 7 cannot write it otherwise): step 6
//!   makes one from a base without a net_loc, `file:/etc/passwd` + `..//g`
//!   → `file:////g`, and step 4 keeps one written after an empty net_loc,
//!   `news:a` + `////x` → `news:////x` (the reference's own empty net_loc).
//!   `file://g` would read back with the net_loc `g`; the URL Standard's
//!   `file:/.//g` (RFC 3986 mode writes that) is another path here, since
//!   RFC 1808 removes dot segments from relative paths only (§5.2: `/./g`
//!   → `http://a/./g`). An empty net_loc counts as absent, so the answer
//!   reads back with the components resolution assembled.
//! - **§2.4.3 is taken literally**: the net_loc runs to the next `/`, so
//!   `http://a?q` has the net_loc `a?q`, and `http://a?q` + `g` →
//!   `http://a?q/g`. Browsers end the host at `?` and `#`;
//!   `docs/resolution.md` lists this under "Differences from browsers".
//! - **Scheme characters are ASCII** (the BNF's `alpha` and `digit`), and a
//!   scheme may start with a digit (`scheme = 1*( alpha | digit | ... )`).
//! - **Empty segments are segments** (`segment = *pchar`), so in step 6 a `..`
//!   removes an empty segment before it: `a//../c` → `a/c`.

mod parse;
mod resolve;

pub(crate) use parse::is_scheme_char;
pub use parse::{Components, parse, scheme_len};
pub use resolve::{Assembled, ParsedBase, resolve};
