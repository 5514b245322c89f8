//! What a run writes of the links it hears: the check mode's lines and
//! the link report's JSON Lines.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use serde_json::{Map, Value};

use crate::document::links::{Link, Outcome};
use crate::source::listener::{Document, Listener};
use crate::source::names;
use crate::source::output::SourceError;
use crate::url::Served;

/// Whether `--check` names the link: a value that would change.
pub fn would_change(link: &Link) -> bool {
    link.outcome == Outcome::Rewritten
}

/// The links of a document that was left as it was (a site's file, an
/// archive's record that failed): what would have been rewritten is
/// `left`, since nothing of it was written, and no check line names it.
/// What was left on purpose stays as it was heard.
pub fn left_as_it_was(links: &mut [Link]) {
    for link in links {
        if link.outcome == Outcome::Rewritten {
            link.outcome = Outcome::Left;
        }
    }
}

/// `FILE:LINE:COLUMN: <tag attr> "original" -> "absolute"`, as compilers
/// and linters write a place, so that editors and CI annotations find it.
/// Every part from the input is [`names::shown`]: the name and the
/// element's and attribute's names as they are when plain, else C-quoted
/// (a file name's line break cannot split the line); the two URLs always
/// in double quotes, escaped the same way (`"a \"b\".png"`). An XML
/// element's content is `<rss/channel/item/link>` (its path, no
/// attribute); a stylesheet's URL, which no element holds, `<css url>`.
///
/// Written onto `out`, piece by piece: a run may write hundreds of
/// thousands.
fn check_line(out: &mut String, name: &[u8], link: &Link) {
    located(out, name, link);
    out.push_str(" -> ");
    quoted_url(out, written(link).unwrap_or_default());
}

/// `FILE:LINE:COLUMN: <tag attr> "original"`, onto `out`: where a check
/// line or a broken link's line puts the link.
fn located(out: &mut String, name: &[u8], link: &Link) {
    let p = link.position;
    out.push_str(&names::shown(name));
    // Writing to a `String` cannot fail.
    let _ = write!(out, ":{}:{}: ", p.line, p.column);
    match (&*link.element, &*link.attribute) {
        ("", "") => out.push_str("<css url>"),
        (element, attribute) => {
            out.push('<');
            out.push_str(&names::shown(element.as_bytes()));
            if !attribute.is_empty() {
                out.push(' ');
                out.push_str(&names::shown(attribute.as_bytes()));
            }
            out.push('>');
        }
    }
    out.push(' ');
    quoted_url(out, &link.original);
}

/// `FILE:LINE:COLUMN: <tag attr> "value" -> "URL": not found` (or
/// `fragment "#x" not in TARGET`, the target's path under the site's
/// root): a link `--check-links` found broken, placed as a check line
/// places it. Written onto `out`, as [`check_line`] is.
fn broken_line(out: &mut String, name: &[u8], link: &Link, served: &Served) {
    let url = link.absolute.as_deref().unwrap_or_default();
    located(out, name, link);
    out.push_str(" -> ");
    quoted_url(out, url);
    out.push_str(": ");
    match served {
        // The usual answer, written without a string of its own.
        Served::NotFound => out.push_str("not found"),
        _ => out.push_str(&why(url, served)),
    }
}

/// What the report says of where a link leads, beside its `status`: the
/// file a site's host serves (`served`); the capture an archive answers
/// with (`capture`: its date; `http`: an error's status), and where a
/// redirect's chain ends (`redirect`, and `end`: what is there).
pub fn served_fields(served: &Served) -> Vec<(&'static str, Value)> {
    match served {
        Served::File(path) | Served::NoFragment(path) => {
            vec![("served", String::from_utf8_lossy(path).into())]
        }
        Served::Captured(date) => vec![("capture", date.as_str().into())],
        Served::Failed { status, date } => {
            vec![
                ("capture", date.as_str().into()),
                ("http", (*status).into()),
            ]
        }
        Served::Redirected(to, end) => {
            let mut fields = vec![("redirect", to.as_str().into()), ("end", end.name().into())];
            fields.extend(served_fields(end));
            fields
        }
        _ => Vec::new(),
    }
}

/// Why a link is broken, as its line says it.
fn why(url: &str, served: &Served) -> String {
    match served {
        Served::NoFragment(target) => {
            let fragment = url.split_once('#').map_or("", |(_, f)| f);
            format!(
                "fragment {} not in {}",
                quoted(&format!("#{fragment}")),
                names::shown(target)
            )
        }
        Served::Redirected(to, end) => {
            format!("redirected to {}, {}", quoted(to), why(to, end))
        }
        Served::Failed { status: 0, date } => {
            format!("captured {date} with a response that does not read")
        }
        Served::Failed { status, date } => format!("captured {date} as {status}"),
        Served::NotCaptured => "not captured".to_owned(),
        Served::Looped => "more than 20 redirects".to_owned(),
        _ => "not found".to_owned(),
    }
}

/// What the value's URL became: its absolute URL, mapped when a `--map`
/// rule matched it.
fn written(link: &Link) -> Option<&str> {
    match &link.mapped {
        Some(mapped) => Some(mapped.written()),
        None => link.absolute.as_deref(),
    }
}

/// A URL of a check line: [`names::shown`], in double quotes even when
/// it is plain.
fn quoted(url: &str) -> String {
    let mut out = String::new();
    quoted_url(&mut out, url);
    out
}

/// [`quoted`], onto `out`.
fn quoted_url(out: &mut String, url: &str) {
    match names::shown(url.as_bytes()) {
        Cow::Borrowed(plain) => {
            out.push('"');
            out.push_str(plain);
            out.push('"');
        }
        Cow::Owned(quoted) => out.push_str(&quoted),
    }
}

/// One line of the link report: `place` first (the file, or the WARC
/// record), then the link's [`link_fields`].
pub fn report_line(place: Map<String, Value>, link: &Link) -> String {
    let mut object = place;
    object.extend(link_fields(link));
    Value::Object(object).to_string()
}

/// Appends [`report_line`]`(place(document), link)` to `out`, the same
/// bytes written as they go: no map nor value a link (which took most of
/// a `--links` run's time beside the page engine's).
fn write_report_line(
    out: &mut Vec<u8>,
    document: &Document<'_>,
    link: &Link,
    served: Option<&Served>,
) {
    let mut first = true;
    let mut key = |out: &mut Vec<u8>, key: &str| {
        out.extend_from_slice(if first { b"{\"" } else { b",\"" });
        first = false;
        out.extend_from_slice(key.as_bytes());
        out.extend_from_slice(b"\":");
    };
    let text = |out: &mut Vec<u8>, value: Option<&str>| match value {
        // serde_json's escaping, as the `Value` gives it.
        Some(value) => serde_json::to_writer(&mut *out, value).expect("a Vec takes every write"),
        None => out.extend_from_slice(b"null"),
    };
    match document {
        Document::Page(path) | Document::File(path) => {
            for (name, value) in file_place(path) {
                key(out, &name);
                text(out, value.as_str());
            }
        }
        Document::Record(named) => {
            for (name, value) in [
                ("record", &named.id),
                ("target", &named.target),
                ("date", &named.date),
            ] {
                key(out, name);
                text(out, Some(value));
            }
        }
        Document::Run => {}
    }
    let p = link.position;
    for (name, value) in [("line", p.line), ("column", p.column), ("offset", p.offset)] {
        key(out, name);
        serde_json::to_writer(&mut *out, &value).expect("a Vec takes every write");
    }
    let base = (!link.base.url.is_empty()).then_some(&*link.base.url);
    for (name, value) in [
        ("element", Some(&*link.element)),
        ("attribute", Some(&*link.attribute)),
        ("kind", Some(link.kind.name())),
        ("original", Some(link.original.as_str())),
        ("absolute", link.absolute.as_deref()),
        ("outcome", Some(link.outcome.name())),
        ("base", base),
        ("layer", Some(link.base.layer.name())),
    ] {
        key(out, name);
        text(out, value);
    }
    if let Some(raw) = &link.raw {
        key(out, "raw");
        text(out, Some(&percent_encoded(raw)));
    }
    if let Some(served) = served {
        key(out, "status");
        text(out, Some(served.name()));
        for (name, value) in served_fields(served) {
            key(out, name);
            serde_json::to_writer(&mut *out, &value).expect("a Vec takes every write");
        }
    }
    if let Some(mapped) = &link.mapped {
        if let Some(rule) = &mapped.rule {
            key(out, "mapped");
            text(out, Some(&mapped.url));
            key(out, "map");
            text(out, Some(&rule.to_string()));
        }
        if let Some(relative) = &mapped.relative {
            key(out, "relative");
            text(out, Some(relative));
        }
    }
    out.extend_from_slice(b"}\n");
}

/// A link as the report gives it (and the Python binding's `links`). A
/// value whose bytes are not valid in the document's encoding has
/// `original` with U+FFFD where they did not decode, and `raw`: its bytes,
/// those outside printable ASCII and `%` percent-encoded, which gives them
/// back exactly.
pub fn link_fields(link: &Link) -> Map<String, Value> {
    let p = link.position;
    let fields: [(&str, Value); 11] = [
        ("line", p.line.into()),
        ("column", p.column.into()),
        ("offset", p.offset.into()),
        ("element", (&*link.element).into()),
        ("attribute", (&*link.attribute).into()),
        ("kind", link.kind.name().into()),
        ("original", link.original.as_str().into()),
        ("absolute", link.absolute.as_deref().into()),
        ("outcome", link.outcome.name().into()),
        (
            "base",
            (!link.base.url.is_empty())
                .then_some(&*link.base.url)
                .into(),
        ),
        ("layer", link.base.layer.name().into()),
    ];
    let mut object: Map<String, Value> = fields
        .into_iter()
        .map(|(key, value)| (key.to_owned(), value))
        .collect();
    if let Some(raw) = &link.raw {
        object.insert("raw".to_owned(), percent_encoded(raw).into());
    }
    if let Some(mapped) = &link.mapped {
        if let Some(rule) = &mapped.rule {
            object.insert("mapped".to_owned(), mapped.url.as_str().into());
            object.insert("map".to_owned(), rule.to_string().into());
        }
        if let Some(relative) = &mapped.relative {
            object.insert("relative".to_owned(), relative.as_str().into());
        }
    }
    object
}

/// The links of a run, written as they are heard: check lines
/// (`--check`) and report lines (`--report`), each to its writer. A
/// [`Listener`] that hears links, and nothing else; the command line's
/// listener hands it the links it hears.
pub struct Listing {
    writers: Mutex<Writers>,
}

/// Which links a run's check lines name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckLines {
    /// `--check`: each value that would change (its check line).
    Changes,
    /// `--check-links`: each broken link (its broken line), and nothing
    /// else, whatever a value the check leaves (a `<base href>`) would
    /// become.
    Broken,
}

struct Writers {
    /// Standard output (standard error with `--report -`), with `--check`
    /// or `--check-links`, and which links it names.
    check: Option<(Box<dyn Write + Send>, CheckLines)>,
    /// The report's writer, and its name for messages.
    report: Option<(Box<dyn Write + Send>, String)>,
    /// The first write error, and what it could not write; later lines are
    /// dropped.
    error: Option<SourceError>,
    /// The report line being written (one allocation for all).
    line: Vec<u8>,
    /// The check line being written (the same).
    check_line: String,
}

impl Listing {
    /// Check lines to `check`, report lines to `report` (named for
    /// messages).
    pub fn new(
        check: Option<(Box<dyn Write + Send>, CheckLines)>,
        report: Option<(Box<dyn Write + Send>, String)>,
    ) -> Self {
        Listing {
            writers: Mutex::new(Writers {
                check,
                report,
                error: None,
                line: Vec::new(),
                check_line: String::new(),
            }),
        }
    }

    /// Flushes both writers; the first error, with what it could not
    /// write, if any.
    pub fn finish(&self) -> Result<(), SourceError> {
        let mut writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(error) = writers.error.take() {
            return Err(error);
        }
        if let Some((check, _)) = &mut writers.check {
            check
                .flush()
                .map_err(|e| SourceError::Write("standard output".to_owned(), e))?;
        }
        if let Some((report, name)) = &mut writers.report {
            report
                .flush()
                .map_err(|e| SourceError::Write(name.clone(), e))?;
        }
        Ok(())
    }
}

impl Listener for Listing {
    fn hears_links(&self) -> bool {
        true
    }

    /// Its report lists them; its check lines name broken links alone.
    fn hears_off_site(&self) -> bool {
        self.writers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .report
            .is_some()
    }

    fn link(&self, document: &Document<'_>, link: Link) {
        let link = &link;
        let line = |lines, out: &mut String| {
            let changes = lines == CheckLines::Changes && would_change(link);
            if changes {
                check_line(out, &name(document), link);
            }
            changes
        };
        self.write(document, link, line, None);
    }

    /// A link check's lines are its broken links, and nothing else.
    fn checked(&self, document: &Document<'_>, link: Link, served: Option<Served>) {
        let (link, served) = (&link, served.as_ref());
        let line = |lines, out: &mut String| match (lines, served.filter(|s| s.broken())) {
            // An archive's record by its page's URL, which a reader
            // follows, not its ID.
            (CheckLines::Broken, Some(served)) => {
                match document {
                    Document::Record(named) => broken_line(out, &named.target_bytes, link, served),
                    _ => broken_line(out, &name(document), link, served),
                }
                true
            }
            _ => false,
        };
        self.write(document, link, line, served);
    }
}

impl Listing {
    /// Writes the check line `line` makes of the link for the run's kind
    /// of check lines, if any, and the link's report line, with what
    /// `--check-links` found of it (`served`), if anything: under one
    /// lock.
    fn write(
        &self,
        document: &Document<'_>,
        link: &Link,
        line: impl FnOnce(CheckLines, &mut String) -> bool,
        served: Option<&Served>,
    ) {
        let mut writers = self.writers.lock().unwrap_or_else(|e| e.into_inner());
        let writers = &mut *writers;
        if writers.error.is_some() {
            return;
        }
        if let Some((check, lines)) = &mut writers.check {
            let out = &mut writers.check_line;
            out.clear();
            let written = match line(*lines, out) {
                true => {
                    out.push('\n');
                    check.write_all(out.as_bytes())
                }
                false => Ok(()),
            };
            if let Err(e) = written {
                writers.error = Some(SourceError::Write("standard output".to_owned(), e));
                return;
            }
        }
        if let Some((report, name)) = &mut writers.report {
            writers.line.clear();
            write_report_line(&mut writers.line, document, link, served);
            if let Err(e) = report.write_all(&writers.line) {
                writers.error = Some(SourceError::Write(name.clone(), e));
            }
        }
    }
}

/// How check lines name a document: a path's bytes as they are, a
/// record's ID.
pub fn name<'a>(document: &Document<'a>) -> Cow<'a, [u8]> {
    match *document {
        Document::Page(path) | Document::File(path) => {
            Cow::Borrowed(path.as_os_str().as_encoded_bytes())
        }
        Document::Record(named) => Cow::Borrowed(&named.id_bytes),
        Document::Run => Cow::Borrowed(b""),
    }
}

/// Where the report places a document: its file, or its record.
pub fn place(document: &Document<'_>) -> Map<String, Value> {
    match document {
        Document::Page(path) | Document::File(path) => file_place(path),
        Document::Record(named) => record_place(&named.id, &named.target, &named.date),
        Document::Run => Map::new(),
    }
}

/// The report's place for a file: `{"file": "…"}`; for a name that is not
/// UTF-8, `file` has U+FFFD where it does not decode, and `file_raw` its
/// bytes, those outside printable ASCII and `%` percent-encoded (as a
/// value's `raw`), which gives the name back exactly.
pub fn file_place(file: &Path) -> Map<String, Value> {
    let bytes = file.as_os_str().as_encoded_bytes();
    let mut place = Map::new();
    place.insert("file".to_owned(), String::from_utf8_lossy(bytes).into());
    if std::str::from_utf8(bytes).is_err() {
        place.insert("file_raw".to_owned(), percent_encoded(bytes).into());
    }
    place
}

/// The report's place for a WARC record: `{"record": "<urn:…>",
/// "target": "http://…", "date": "2024-05-01T10:00:02Z"}`: its ID, the
/// page's URL and the capture's date, as the record writes them.
pub fn record_place(id: &str, target: &str, date: &str) -> Map<String, Value> {
    let mut place = Map::new();
    place.insert("record".to_owned(), id.into());
    place.insert("target".to_owned(), target.into());
    place.insert("date".to_owned(), date.into());
    place
}

/// `bytes` with those outside printable ASCII, and `%`, as `%XX`.
fn percent_encoded(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &b in bytes {
        if b.is_ascii_graphic() && b != b'%' || b == b' ' {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::attrs::Kind;
    use crate::document::links::Position;
    use crate::url::{Base, Layer};

    fn link(outcome: Outcome, raw: Option<&[u8]>) -> Link {
        Link {
            position: Position {
                offset: 40,
                line: 3,
                column: 12,
            },
            element: "img".into(),
            attribute: "src".into(),
            kind: Kind::Url,
            original: "a \"b\".png".into(),
            raw: raw.map(<[u8]>::to_vec),
            absolute: Some("http://h/a%20\"b\".png".into()),
            outcome,
            base: Base {
                layer: Layer::Retrieval { from: "-r" },
                url: "http://h/".into(),
            },
            mapped: None,
        }
    }

    /// The line `write` writes.
    fn line(write: impl FnOnce(&mut String)) -> String {
        let mut line = String::new();
        write(&mut line);
        line
    }

    #[test]
    fn a_check_line_names_the_place_and_both_urls() {
        assert_eq!(
            line(|l| check_line(l, b"site/a.html", &link(Outcome::Rewritten, None))),
            r#"site/a.html:3:12: <img src> "a \"b\".png" -> "http://h/a%20\"b\".png""#
        );
        assert!(would_change(&link(Outcome::Rewritten, None)));
        assert!(!would_change(&link(Outcome::Absolute, None)));
        // A name cannot add a line, nor pass for a place.
        assert_eq!(
            line(|l| check_line(
                l,
                b"a.js:1:1: <a href> \"evil\"\nb\xff.html",
                &link(Outcome::Rewritten, None)
            )),
            r#""a.js:1:1: <a href> \"evil\"\nb\377.html":3:12: <img src> "a \"b\".png" -> "http://h/a%20\"b\".png""#
        );
    }

    #[test]
    fn a_check_line_names_an_xml_path_and_a_stylesheet_url() {
        let mut content = link(Outcome::Rewritten, None);
        content.element = "rss/channel/item/link".into();
        content.attribute = Default::default();
        assert_eq!(
            line(|l| check_line(l, b"feed.xml", &content)),
            r#"feed.xml:3:12: <rss/channel/item/link> "a \"b\".png" -> "http://h/a%20\"b\".png""#
        );
        let mut css = content;
        css.element = Default::default();
        css.kind = Kind::Css;
        assert_eq!(
            line(|l| check_line(l, b"site.css", &css)),
            r#"site.css:3:12: <css url> "a \"b\".png" -> "http://h/a%20\"b\".png""#
        );
    }

    #[test]
    fn a_broken_links_line_is_cut_at_its_own_arrow_not_one_in_a_value() {
        let mut arrow = link(Outcome::Rewritten, None);
        arrow.original = "a -> b.html".into();
        arrow.absolute = Some("http://h/a -> b.html".into());
        assert_eq!(
            line(|l| broken_line(l, b"a.html", &arrow, &Served::NotFound)),
            r#"a.html:3:12: <img src> "a -> b.html" -> "http://h/a -> b.html": not found"#
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_file_place_keeps_any_name_exactly() {
        use std::os::unix::ffi::OsStrExt;
        let place = file_place(Path::new("s/a\nb.html"));
        assert_eq!(
            Value::Object(place).to_string(),
            r#"{"file":"s/a\nb.html"}"#
        );
        let place = file_place(Path::new(std::ffi::OsStr::from_bytes(b"s/\xff%.html")));
        assert_eq!(
            Value::Object(place).to_string(),
            "{\"file\":\"s/\u{FFFD}%.html\",\"file_raw\":\"s/%FF%25.html\"}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_report_line_is_written_as_the_value_gives_it() {
        use crate::source::warc::{Named, Place};
        use std::os::unix::ffi::OsStrExt;
        let named = Named {
            id: "<urn:uuid:\"x\">".into(),
            target: "http://h/\u{e9}\u{1F600}\n\t\u{7f}\\".into(),
            date: "2024-05-01T10:00:02Z".into(),
            at: Place::Byte(7),
            id_bytes: b"<urn:uuid:\"x\">".to_vec(),
            target_bytes: "http://h/\u{e9}\u{1F600}\n\t\u{7f}\\".into(),
        };
        let plain = Path::new("site/a.html");
        let odd = Path::new(std::ffi::OsStr::from_bytes(b"s/\xff%\n\".html"));
        let documents = [
            Document::Record(&named),
            Document::Page(plain),
            Document::File(odd),
            Document::Run,
        ];
        let mut links = vec![
            link(Outcome::Rewritten, None),
            link(Outcome::Undecodable, Some(b"\xff%x y\x00")),
        ];
        let mut odd_link = link(Outcome::NoBase, None);
        odd_link.absolute = None;
        odd_link.base.url = "".into();
        odd_link.base.layer = Layer::Empty;
        odd_link.original = "\u{0}\u{1f}\"\\/\u{2028}\u{10FFFF}".into();
        odd_link.element = Default::default();
        odd_link.attribute = Default::default();
        odd_link.position = Position {
            offset: usize::MAX,
            line: 0,
            column: 1 << 40,
        };
        links.push(odd_link);
        for document in &documents {
            for link in &links {
                let mut line = Vec::new();
                write_report_line(&mut line, document, link, None);
                let expected = report_line(place(document), link) + "\n";
                assert_eq!(String::from_utf8(line).unwrap(), expected);
            }
        }
    }

    #[test]
    fn a_report_line_is_one_json_object_and_raw_bytes_come_back() {
        let mut place = Map::new();
        place.insert("file".into(), "a.html".into());
        let line = report_line(place, &link(Outcome::Undecodable, Some(b"\xff%x y")));
        assert!(!line.contains('\n'));
        let v: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["file"], "a.html");
        assert_eq!(v["line"], 3);
        assert_eq!(v["outcome"], "undecodable");
        assert_eq!(v["layer"], "retrieval");
        assert_eq!(v["raw"], "%FF%25x y");
        let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), 13);
    }
}
