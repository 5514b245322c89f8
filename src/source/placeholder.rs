//! The page a link to what a copy lacks leads to (`--missing
//! placeholder`): written once at the root of the tree a run makes (a
//! site's copy, the site in place, an archive's tree), named
//! [`PLACEHOLDER`]. A link to it carries the URL it stood for after its
//! `#`; the page shows that URL as a link to follow, when it is an
//! `http:` or `https:` one (nothing else a fragment says is shown as a
//! link, so no address can make it run script).

use std::io::Write;
use std::path::Path;

use crate::source::names;
use crate::source::output::SourceError;
use crate::source::output::dir::Dir;
use crate::source::output::staging::Staging;
use crate::url::PLACEHOLDER;

/// The page, whole.
const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<meta charset="utf-8">
<meta name="viewport" content="width=device-width">
<meta name="generator" content="htmlabs">
<title>Not in this copy</title>
<h1>Not in this copy</h1>
<p>The page this link leads to was not saved with this copy of the site.
<p id="where">It was at the address after the <code>#</code> in this page's own.
<script>
var url = decodeURIComponent(location.hash.slice(1));
if (/^https?:\/\//i.test(url)) {
  var p = document.getElementById("where"), a = document.createElement("a");
  a.href = url;
  a.textContent = url;
  p.textContent = "It was at ";
  p.appendChild(a);
}
</script>
</html>
"#;

/// Puts the page at the root of `dir` (as the user named it: `shown`),
/// staged whole before it takes its name. A file of that name that is
/// the page already stays; any other is refused, never written over.
pub(crate) fn put(dir: &Dir, shown: &Path) -> Result<(), SourceError> {
    let path = shown.join(PLACEHOLDER);
    match std::fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() && std::fs::read(&path).is_ok_and(|b| b == PAGE.as_bytes()) => {
            return Ok(());
        }
        Ok(_) => {
            return Err(SourceError::Refused(format!(
                "{} is there and is not htmlabs's page for what the copy lacks: --missing placeholder would write over it",
                names::quoted(&path)
            )));
        }
        Err(_) => {}
    }
    let write = |e| SourceError::Write(names::quoted(&path), e);
    let mut staging = Staging::new(dir, PLACEHOLDER.as_ref()).map_err(write)?;
    staging
        .file_mut()
        .write_all(PAGE.as_bytes())
        .map_err(write)?;
    staging.commit(None, false).map_err(write)
}
