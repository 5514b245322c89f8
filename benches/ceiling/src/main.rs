//! The engine ceiling of one process per page, for
//! `cargo bench --bench throughput`: lol_html alone over one file, to
//! standard output, as the bench's rows b and b2 run it in process.
//!
//! `lol-html-ceiling href-src FILE`: every `href` and `src` read and set
//! back (row b, what any handler-based rewriter pays);
//! `lol-html-ceiling NAME,NAME,… FILE`: every element's attributes read,
//! and each one named set back (row b2, the full table's attribute job).

use std::collections::HashSet;
use std::io::{BufWriter, Write};

use lol_html::html_content::Element;
use lol_html::{HtmlRewriter, Settings, element};

fn main() {
    let mut args = std::env::args().skip(1);
    let (Some(job), Some(file), None) = (args.next(), args.next(), args.next()) else {
        eprintln!("usage: lol-html-ceiling href-src|NAME,NAME,… FILE");
        std::process::exit(2);
    };
    let input = std::fs::read(&file).unwrap_or_else(|e| {
        eprintln!("lol-html-ceiling: {file}: {e}");
        std::process::exit(2);
    });
    let names: HashSet<String> = job.split(',').map(str::to_owned).collect();
    let settings = if job == "href-src" {
        Settings::new()
            .with_strict(false)
            .append_element_content_handler(element!("[href],[src]", |el: &mut Element| {
                for name in ["href", "src"] {
                    if let Some(value) = el.get_attribute(name) {
                        el.set_attribute(name, &value)?;
                    }
                }
                Ok(())
            }))
    } else {
        Settings::new()
            .with_strict(false)
            .append_element_content_handler(element!("*", move |el: &mut Element| {
                let found: Vec<(String, String)> = el
                    .attributes()
                    .iter()
                    .filter_map(|a| {
                        let name = a.name();
                        names.contains(&name).then(|| (name, a.value()))
                    })
                    .collect();
                for (name, value) in found {
                    el.set_attribute(&name, &value)?;
                }
                Ok(())
            }))
    };
    let mut out = BufWriter::with_capacity(64 * 1024, std::io::stdout().lock());
    let mut failed = None;
    let mut rewriter = HtmlRewriter::new(settings, |c: &[u8]| {
        if let Err(e) = out.write_all(c) {
            failed.get_or_insert(e);
        }
    });
    let ended = input
        .chunks(64 * 1024)
        .try_for_each(|chunk| rewriter.write(chunk))
        .and_then(|()| rewriter.end());
    if let Err(e) = ended {
        eprintln!("lol-html-ceiling: {e}");
        std::process::exit(1);
    }
    if let Some(e) = failed.or_else(|| out.flush().err()) {
        eprintln!("lol-html-ceiling: {e}");
        std::process::exit(1);
    }
}
