//! clap's errors as every error of htmlabs is said: one line, after
//! `htmlabs: error: `, lowercase, the value the user gave in backticks
//! (shown as [`shown`] shows any value), clap's "did you mean" kept as a
//! short hint on the same line, never a usage block. `--help` and
//! `--version` are no errors: clap prints them.

use clap::error::{ContextKind, ContextValue, Error, ErrorKind};

use htmlabs::internal::names::shown;

/// What ends a line that says too little to act on.
const SEE_HELP: &str = "; see htmlabs --help";

/// Conflicting flags whose plain "cannot be used with" would mislead: the
/// two flags (as [`flag`] names them, either order) and what to say.
const CONFLICTS: &[(&str, &str, &str)] = &[
    (
        "--links",
        "--output",
        "--links writes no archive, only the link report (to standard output): give --report FILE to put it in a file, not -o",
    ),
    (
        "--check",
        "--output",
        "--check changes nothing and writes no document, only its lines (to standard output): -o would do nothing",
    ),
    (
        "--site",
        "FILE",
        "--site reads every page under its DIR: give no FILE beside it",
    ),
    (
        "--site",
        "--retrieved-from",
        "--site cannot be used with --retrieved-from: each file's URL follows from --site-url and its path",
    ),
    (
        "--site",
        "--output",
        "--site writes each file in place, or into --out-dir OUT: not to -o",
    ),
];

/// The one line of `error` (without `htmlabs: error: `). Its kind and
/// context say it; a kind this does not know says clap's own first line.
pub fn line(error: &Error) -> String {
    let text = |kind| match error.get(kind) {
        Some(ContextValue::String(s)) => Some(s.as_str()),
        _ => None,
    };
    let strings = |kind| match error.get(kind) {
        Some(ContextValue::String(s)) => vec![s.as_str()],
        Some(ContextValue::Strings(s)) => s.iter().map(String::as_str).collect(),
        _ => Vec::new(),
    };
    let arg = text(ContextKind::InvalidArg).unwrap_or_default();
    let value = text(ContextKind::InvalidValue).unwrap_or_default();
    match error.kind() {
        ErrorKind::UnknownArgument if arg.starts_with('-') && arg != "-" => {
            let said = format!("unknown flag `{}`", shown(arg.as_bytes()));
            match text(ContextKind::SuggestedArg) {
                Some(suggested) => format!("{said} (did you mean `{suggested}`?)"),
                None => format!("{said}{SEE_HELP}"),
            }
        }
        // A second FILE: one document at a time, or a whole site.
        ErrorKind::UnknownArgument => format!(
            "unexpected argument `{}`: htmlabs reads one FILE; for the pages of a directory, give --site DIR --site-url URL",
            shown(arg.as_bytes())
        ),
        ErrorKind::InvalidValue => {
            let valid = strings(ContextKind::ValidValue);
            if value.is_empty() {
                let wanted = match valid.is_empty() {
                    true => value_name(arg).to_owned(),
                    false => one_of(&valid),
                };
                return format!("{} needs a value ({wanted})", flag(arg));
            }
            let mut said = format!(
                "invalid value `{}` for {}",
                shown(value.as_bytes()),
                flag(arg)
            );
            if !valid.is_empty() {
                said += &format!(": it takes {}", one_of(&valid));
            }
            if let Some(suggested) = text(ContextKind::SuggestedValue) {
                said += &format!(" (did you mean `{suggested}`?)");
            }
            said
        }
        ErrorKind::ValueValidation => {
            let why = std::error::Error::source(error).map_or_else(String::new, |e| e.to_string());
            format!(
                "invalid value `{}` for {}: {why}",
                shown(value.as_bytes()),
                flag(arg)
            )
        }
        ErrorKind::ArgumentConflict => {
            let (a, prior) = (flag(arg), strings(ContextKind::PriorArg));
            match prior.first().map(|p| flag(p)) {
                Some(b) if b == a => {
                    format!("{a} is given twice: it takes one {}", value_name(arg))
                }
                Some(b) => conflict(a, b),
                None => format!("{a} cannot be used with the other flags given"),
            }
        }
        ErrorKind::MissingRequiredArgument => {
            let missing: Vec<_> = strings(ContextKind::InvalidArg)
                .into_iter()
                .map(flag)
                .collect();
            format!("missing {}{SEE_HELP}", missing.join(", "))
        }
        ErrorKind::TooManyValues => format!(
            "{} takes no value: `{}`",
            flag(arg),
            shown(value.as_bytes())
        ),
        ErrorKind::InvalidUtf8 => {
            format!("an argument is not valid UTF-8 (a FILE may be any bytes){SEE_HELP}")
        }
        _ => claps_first_line(error),
    }
}

/// The line of two flags that cannot go together.
fn conflict(a: &str, b: &str) -> String {
    CONFLICTS
        .iter()
        .find(|(x, y, _)| (*x, *y) == (a, b) || (*y, *x) == (a, b))
        .map_or_else(
            || format!("{a} cannot be used with {b}"),
            |(_, _, said)| (*said).to_owned(),
        )
}

/// A flag as clap names it in a context (`--output <FILE>`, `[FILE]`) as
/// a line names it: `--output`, `FILE`.
fn flag(arg: &str) -> &str {
    let name = arg.split(' ').next().unwrap_or(arg);
    name.trim_start_matches(['[', '<'])
        .trim_end_matches([']', '>', '.'])
}

/// What a flag's value is called (`--output <FILE>`: `FILE`), else `a
/// value`.
fn value_name(arg: &str) -> &str {
    arg.split_once(' ')
        .map(|(_, name)| name.trim_start_matches('<').trim_end_matches('>'))
        .unwrap_or("a value")
}

/// `` `a`, `b` or `c` ``.
fn one_of(values: &[&str]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| format!("`{v}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// clap's own message, its first line, for a kind [`line`] does not know
/// (none of htmlabs's flags should meet one).
fn claps_first_line(error: &Error) -> String {
    let rendered = error.render().to_string();
    let first = rendered.lines().next().unwrap_or_default();
    let first = first.strip_prefix("error: ").unwrap_or(first);
    format!("{}{SEE_HELP}", shown(first.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_and_its_value_are_named_as_a_line_names_them() {
        assert_eq!(flag("--output <FILE>"), "--output");
        assert_eq!(flag("[FILE]"), "FILE");
        assert_eq!(flag("--verbose"), "--verbose");
        assert_eq!(value_name("--output <FILE>"), "FILE");
        assert_eq!(value_name("--verbose"), "a value");
        assert_eq!(one_of(&["html", "css", "xml"]), "`html`, `css` or `xml`");
        assert_eq!(one_of(&["html"]), "`html`");
    }
}
