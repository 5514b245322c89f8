//! A tree that a run writes, reached from its root, opened once: every
//! directory under it is opened name by name from the one above it, never
//! through a symbolic link (`openat` with `O_NOFOLLOW`), so that nothing
//! written lands outside the tree, whatever links are in it or are put
//! there while the run goes. A path would be resolved by the kernel again
//! at each use, following whatever link stands there by then.

use std::ffi::OsStr;
use std::io;
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::source::names;

/// A directory, open; its name as messages give it.
#[derive(Clone)]
pub(crate) struct Dir {
    fd: Arc<OwnedFd>,
    path: PathBuf,
}

/// How many times a name that changes under us is tried (another worker
/// made the directory, a link came back): then it is an error.
const TRIES: usize = 4;

impl Dir {
    /// The directory at `path` as the user named it: links in it are
    /// followed, as the shell follows them.
    pub fn open(path: &Path) -> io::Result<Dir> {
        let path = if path.as_os_str().is_empty() {
            Path::new(".")
        } else {
            path
        };
        let flags = OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC;
        let fd = rustix::fs::open(path, flags, Mode::empty())?;
        Ok(Dir {
            fd: Arc::new(fd),
            path: path.to_owned(),
        })
    }

    /// How messages name it.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The directory `relative` below this one, each name on the way
    /// opened without following a link: a link there is an error that
    /// names it (the tree is the user's own: written in place).
    pub fn existing(&self, relative: &Path) -> io::Result<Dir> {
        self.below(relative, false)
    }

    /// The same, made where missing, and a link on the way replaced by a
    /// directory (the tree is htmlabs's copy: what stands in it is what
    /// the copy puts there, whatever a link there named).
    pub fn made(&self, relative: &Path) -> io::Result<Dir> {
        self.below(relative, true)
    }

    fn below(&self, relative: &Path, make: bool) -> io::Result<Dir> {
        let leaves = relative
            .components()
            .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
        if leaves {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{} is not a path under the tree", names::quoted(relative)),
            ));
        }
        let mut dir = self.clone();
        for component in relative.components() {
            if let Component::Normal(name) = component {
                dir = dir.child(name, make)?;
            }
        }
        Ok(dir)
    }

    /// The directory `name` in this one.
    fn child(&self, name: &OsStr, make: bool) -> io::Result<Dir> {
        let path = self.path.join(name);
        for _ in 0..TRIES {
            let error = match rustix::fs::openat(self.fd(), name, directory(), Mode::empty()) {
                Ok(fd) => {
                    return Ok(Dir {
                        fd: Arc::new(fd),
                        path,
                    });
                }
                Err(e) => e,
            };
            match error {
                Errno::NOENT if make => {
                    match rustix::fs::mkdirat(self.fd(), name, Mode::from_raw_mode(0o777)) {
                        Ok(()) | Err(Errno::EXIST) => {}
                        Err(e) => return Err(e.into()),
                    }
                }
                // O_NOFOLLOW on a link: ELOOP (ENOTDIR on some systems).
                Errno::LOOP | Errno::NOTDIR => match self.kind(name) {
                    Some(kind) if kind.is_symlink() => {
                        if !make {
                            return Err(not_followed(&path));
                        }
                        // Another thread that met the same link may have
                        // put the directory in its place already (EISDIR):
                        // then that is opened.
                        match rustix::fs::unlinkat(self.fd(), name, AtFlags::empty()) {
                            Ok(()) | Err(Errno::NOENT | Errno::ISDIR) => {}
                            Err(e) => return Err(e.into()),
                        }
                    }
                    // The link was replaced by another thread since.
                    Some(FileType::Directory) => {}
                    None if make => {}
                    _ => return Err(error.into()),
                },
                e => return Err(e.into()),
            }
        }
        Err(io::Error::other(format!(
            "{} kept changing while it was written",
            names::quoted(&path)
        )))
    }

    /// Whether `other` is this one, opened once.
    pub fn same(&self, other: &Dir) -> bool {
        Arc::ptr_eq(&self.fd, &other.fd)
    }

    /// What `name` here is (a link not followed), if it is there.
    fn kind(&self, name: &OsStr) -> Option<FileType> {
        rustix::fs::statat(self.fd(), name, AtFlags::SYMLINK_NOFOLLOW)
            .ok()
            .map(|stat| FileType::from_raw_mode(stat.st_mode))
    }
}

/// A directory opened to be written under: never through a link at its
/// name, and not inherited by a child process.
fn directory() -> OFlags {
    OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC
}

/// The error of a link met on the way into a tree written in place.
fn not_followed(path: &Path) -> io::Error {
    io::Error::other(format!(
        "{} is a symbolic link: not written through",
        names::quoted(path)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_link_on_the_way_is_refused_in_place_and_replaced_in_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let tree = dir.path().join("tree");
        let outside = dir.path().join("outside");
        fs::create_dir_all(tree.join("a")).unwrap();
        fs::create_dir(&outside).unwrap();
        symlink(&outside, tree.join("a/b")).unwrap();
        let root = Dir::open(&tree).unwrap();
        let refused = root.existing(Path::new("a/b/c")).err().unwrap();
        assert_eq!(
            refused.to_string(),
            format!(
                "`{}` is a symbolic link: not written through",
                tree.join("a/b").display()
            )
        );
        let made = root.made(Path::new("a/b/c")).unwrap();
        assert_eq!(made.path(), tree.join("a/b/c"));
        assert!(fs::symlink_metadata(tree.join("a/b")).unwrap().is_dir());
        assert!(tree.join("a/b/c").is_dir());
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
    }

    #[test]
    fn a_path_that_leaves_the_tree_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = Dir::open(dir.path()).unwrap();
        for path in ["../x", "/etc", "a/../../x"] {
            assert!(root.made(Path::new(path)).is_err(), "{path}");
        }
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_file_where_a_directory_goes_is_an_error_and_stays() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("f"), "x").unwrap();
        let root = Dir::open(dir.path()).unwrap();
        let e = root.made(Path::new("f/g")).err().unwrap();
        assert_eq!(e.raw_os_error(), Some(20), "{e}");
        assert_eq!(fs::read_to_string(dir.path().join("f")).unwrap(), "x");
    }

    #[test]
    fn threads_that_replace_the_same_link_all_get_the_directory() {
        // Files of a site written at once under one directory that is a
        // link in OUT: each thread finds the link; one replaces it, and
        // the others, whose link is gone or is a directory by then, go on.
        for round in 0..200 {
            let dir = tempfile::tempdir().unwrap();
            let outside = dir.path().join("outside");
            fs::create_dir(&outside).unwrap();
            symlink(&outside, dir.path().join("d")).unwrap();
            let root = Dir::open(dir.path()).unwrap();
            let barrier = std::sync::Barrier::new(4);
            std::thread::scope(|scope| {
                for i in 0..4 {
                    let (root, barrier) = (&root, &barrier);
                    scope.spawn(move || {
                        barrier.wait();
                        let made = root.made(Path::new(&format!("d/{i}")));
                        if let Err(e) = made {
                            panic!("round {round}, thread {i}: {e}");
                        }
                    });
                }
            });
            assert!(fs::symlink_metadata(dir.path().join("d")).unwrap().is_dir());
            assert_eq!(fs::read_dir(&outside).unwrap().count(), 0);
        }
    }
}
