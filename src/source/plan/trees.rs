//! Whether a copy's tree (`--out-dir`) and the site's overlap as trees, judged by
//! where the paths really lead: symbolic links and `..` followed as the
//! kernel follows them, and directories compared by device and inode, so
//! that the same directory by another name (a bind mount) is still seen.

use std::io;
use std::path::Path;

use crate::source::plan::place::{Id, identity, resolved};

/// How the copy's tree stands to the site's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overlap {
    /// The same directory.
    Same,
    /// The copy would be made inside the site, and walked again.
    OutInside,
    /// The site lies inside the copy: its files would be written over.
    SiteInside,
}

/// How `out` (which need not exist yet) stands to the directory `site`, if
/// they overlap.
pub fn overlap(site: &Path, out: &Path) -> io::Result<Option<Overlap>> {
    let site = site.canonicalize()?;
    let (existing, made) = resolved(out)?;
    let site_id = identity(&site)?;
    // Each directory that holds the copy, the copy first when it exists.
    let out_chain = ancestors(&existing)?;
    if made.is_none() && out_chain.first() == Some(&site_id) {
        return Ok(Some(Overlap::Same));
    }
    if out_chain.contains(&site_id) {
        return Ok(Some(Overlap::OutInside));
    }
    // A directory yet to be made holds nothing.
    if made.is_none() && ancestors(&site)?.contains(&out_chain[0]) {
        return Ok(Some(Overlap::SiteInside));
    }
    Ok(None)
}

/// The identities of `dir` and of every directory above it, `dir` first.
fn ancestors(dir: &Path) -> io::Result<Vec<Id>> {
    dir.ancestors().map(identity).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::fs;
    use std::path::PathBuf;

    /// `top/ov/a/a`, `top/ov/b`, `top/link` → `ov`, `top/ov/b/up` → `../a`.
    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path().canonicalize().unwrap();
        fs::create_dir_all(top.join("ov/a/a")).unwrap();
        fs::create_dir_all(top.join("ov/b")).unwrap();
        std::os::unix::fs::symlink("ov", top.join("link")).unwrap();
        std::os::unix::fs::symlink("../a", top.join("ov/b/up")).unwrap();
        (dir, top)
    }

    proptest! {
        /// Judged before anything is made, as the tree is once the copy's
        /// directories are made: the same, inside, holding, or apart.
        #[test]
        fn the_judgement_before_is_what_the_tree_shows_after(
            site in prop::sample::select(vec!["ov", "ov/a", "ov/a/a", "ov/b", "link/a", "ov/b/up", "ov/b/up/.."]),
            out in prop::collection::vec(
                prop::sample::select(vec!["ov", "a", "b", "link", "up", "..", ".", "new"]),
                1..6,
            ),
        ) {
            let (_dir, top) = tree();
            let site = top.join(site);
            let out = top.join(out.join("/"));
            let judged = overlap(&site, &out);
            // What really happens: the copy's directory made, then seen.
            if fs::create_dir_all(&out).is_err() {
                return Ok(());
            }
            let (out, site) = (out.canonicalize().unwrap(), site.canonicalize().unwrap());
            let expected = if out == site {
                Some(Overlap::Same)
            } else if out.starts_with(&site) {
                Some(Overlap::OutInside)
            } else if site.starts_with(&out) {
                Some(Overlap::SiteInside)
            } else {
                None
            };
            prop_assert_eq!(judged.unwrap(), expected);
        }
    }
}
