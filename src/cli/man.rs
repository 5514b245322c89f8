//! The man page: clap_mangen's sections from the flags' own definition,
//! then what a man page has that `--help` words differently: EXIT STATUS,
//! and EXAMPLES as typed (unfilled), not filled into justified text.

use std::io::{self, Write};

/// Each exit status, as main.rs gives it, and what it says.
pub const EXIT_STATUS: &[(&str, &str)] = &[
    (
        "0",
        "Success, also when the reader of the output goes away (htmlabs … | head).",
    ),
    ("1", "A --check that found links to change."),
    (
        "2",
        "Any error: a bad command line, an output that is an input or another output, \
         an unreadable input, an unwritable output (the output then absent, not cut), \
         the memory limit reached, a broken archive or response (the output complete \
         nonetheless); with --site, any file that failed, once the others are done.",
    ),
    (
        "130, 143",
        "Interrupted by SIGINT (Ctrl-C) or SIGTERM: -o's target as it was and nothing \
         beside it; with --site, each file old or new. One page to standard output dies \
         of the signal, as cat does.",
    ),
];

/// Writes the man page of `command`, whose examples are `examples` (each
/// line an example, or a line of prose after an empty line).
pub fn write(command: clap::Command, examples: &str, out: &mut dyn Write) -> io::Result<()> {
    let man = clap_mangen::Man::new(command);
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    man.render_options_section(out)?;
    writeln!(out, ".SH \"EXIT STATUS\"")?;
    for (status, said) in EXIT_STATUS {
        writeln!(out, ".TP\n.B {}\n{}", roff(status), roff(said))?;
    }
    writeln!(out, ".SH EXAMPLES")?;
    let (commands, prose) = examples.split_once("\n\n").unwrap_or((examples, ""));
    writeln!(out, ".nf\n.RS 4")?;
    for line in commands.lines().skip_while(|l| l.ends_with(':')) {
        writeln!(out, "{}", roff(line.trim()))?;
    }
    writeln!(out, ".RE\n.fi")?;
    if !prose.is_empty() {
        writeln!(out, ".PP\n{}", roff(&prose.replace('\n', " ")))?;
    }
    man.render_version_section(out)
}

/// Text as roff reads it literally: a backslash escaped, a hyphen a
/// hyphen-minus (as typed in a command), a line that would start a
/// request (`.` or `'`) guarded.
fn roff(text: &str) -> String {
    let escaped = text.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with(['.', '\'']) {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_taken_literally() {
        assert_eq!(roff(".x -r a\\b"), "\\&.x \\-r a\\eb");
        assert_eq!(roff("'q"), "\\&'q");
    }
}
