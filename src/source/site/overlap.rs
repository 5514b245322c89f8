//! Whether a copy's tree (`--out-dir`) and the site's overlap, judged by
//! where the paths really lead: symbolic links and `..` followed as the
//! kernel follows them, and directories compared by device and inode, so
//! that the same directory by another name (a bind mount) is still seen.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

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

/// `path` resolved as the kernel would once its missing directories are
/// made (as `create_dir_all` makes them): its deepest existing directory,
/// canonical, and the part below it that does not exist yet, if any. A
/// `..` after a missing directory returns to the one it is made in.
fn resolved(path: &Path) -> io::Result<(PathBuf, Option<PathBuf>)> {
    let mut at = std::env::current_dir()?;
    // The components below `at` that do not exist.
    let mut missing: Vec<&std::ffi::OsStr> = Vec::new();
    for component in path.components() {
        match component {
            Component::Prefix(_) | Component::RootDir => {
                at = PathBuf::from(component.as_os_str());
                missing.clear();
            }
            Component::CurDir => {}
            Component::ParentDir => {
                if missing.pop().is_none() {
                    // `at` is canonical: its parent is where `..` leads.
                    at.pop();
                }
            }
            Component::Normal(name) => {
                if !missing.is_empty() {
                    missing.push(name);
                    continue;
                }
                match at.join(name).canonicalize() {
                    Ok(real) => at = real,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => missing.push(name),
                    Err(e) => return Err(e),
                }
            }
        }
    }
    let made = (!missing.is_empty()).then(|| missing.iter().collect());
    Ok((at, made))
}

/// The identities of `dir` and of every directory above it, `dir` first.
fn ancestors(dir: &Path) -> io::Result<Vec<Identity>> {
    dir.ancestors().map(identity).collect()
}

/// What names a directory whatever path leads to it: its device and inode.
#[cfg(unix)]
type Identity = (u64, u64);

#[cfg(unix)]
fn identity(dir: &Path) -> io::Result<Identity> {
    use std::os::unix::fs::MetadataExt;
    let m = fs::metadata(dir)?;
    Ok((m.dev(), m.ino()))
}

/// Elsewhere, its canonical path.
#[cfg(not(unix))]
type Identity = PathBuf;

#[cfg(not(unix))]
fn identity(dir: &Path) -> io::Result<Identity> {
    dir.canonicalize()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use proptest::prelude::*;

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
