//! Where a path leads, as the filesystem takes it: its real path (symbolic
//! links and `..` followed as the kernel follows them, directories yet to
//! be made taken as they will be made) and the file there by device and
//! inode, so that the same file by another name (a hard link, a bind
//! mount) is known for the same.

use std::ffi::OsStr;
use std::fs::{self, Metadata};
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Component, Path, PathBuf};

use crate::source::output::followed;

/// A file, whatever path leads to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Id {
    dev: u64,
    ino: u64,
}

/// What a file does with the bytes written to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A regular file (or a directory, a block device): it keeps them.
    Regular,
    /// A FIFO or a socket: it hands them to whoever reads it.
    Fifo,
    /// A character device (a terminal, `/dev/null`): it keeps nothing, so
    /// it is never the same file as another in the sense of a plan.
    Device,
}

/// A file that is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct There {
    pub id: Id,
    pub kind: Kind,
}

impl There {
    pub fn of(metadata: &Metadata) -> There {
        let kind = metadata.file_type();
        There {
            id: Id {
                dev: metadata.dev(),
                ino: metadata.ino(),
            },
            kind: if kind.is_char_device() {
                Kind::Device
            } else if kind.is_fifo() || kind.is_socket() {
                Kind::Fifo
            } else {
                Kind::Regular
            },
        }
    }
}

/// Where a path or a stream leads.
#[derive(Debug, Clone, Default)]
pub(crate) struct Place {
    /// Its real path; none for a stream (standard input or output), or
    /// where the path cannot be followed (then nothing can be written or
    /// read there either).
    pub real: Option<PathBuf>,
    /// The file there, if there is one.
    pub there: Option<There>,
}

impl Place {
    /// A file that is read: every link on the way followed.
    pub fn read(path: &Path) -> Place {
        Place {
            real: real(path).ok(),
            there: fs::metadata(path).ok().map(|m| There::of(&m)),
        }
    }

    /// A file that is written as `> path` writes it: a link at its name
    /// followed, dangling or not ([`followed`], what
    /// [`Staged`](crate::source::output::Staged) writes), then the path
    /// as the kernel resolves it.
    pub fn written(path: &Path) -> Place {
        Place::read(&followed(path))
    }

    /// A stream already open: standard input or output.
    pub fn stream(fd: impl AsFd) -> Place {
        use std::os::fd::AsRawFd;
        let fd = fd.as_fd();
        let file = fd.try_clone_to_owned().map(fs::File::from);
        let metadata = file.and_then(|f| f.metadata()).ok();
        // A regular file's path, where the system says it (Linux): what
        // lies under a tree the run writes is found by it.
        let real = metadata
            .as_ref()
            .filter(|m| m.is_file())
            .and_then(|_| fs::read_link(format!("/proc/self/fd/{}", fd.as_raw_fd())).ok())
            .filter(|p| p.is_absolute() && p.exists());
        Place {
            real,
            there: metadata.map(|m| There::of(&m)),
        }
    }

    /// Whether it keeps what is written to it (not a terminal nor
    /// `/dev/null`).
    pub fn keeps(&self) -> bool {
        self.there.is_none_or(|there| there.kind != Kind::Device)
    }

    /// Whether it is a FIFO or a socket (written into as it is, never
    /// replaced whole).
    pub fn is_fifo(&self) -> bool {
        self.there.is_some_and(|there| there.kind == Kind::Fifo)
    }

    /// Whether the two are one file: the same device and inode where both
    /// are there, else the same real path. A device that keeps nothing is
    /// no file to lose: never the same as anything.
    pub fn same(&self, other: &Place) -> bool {
        if !(self.keeps() && other.keeps()) {
            return false;
        }
        match (&self.there, &other.there) {
            (Some(a), Some(b)) => a.id == b.id,
            _ => matches!((&self.real, &other.real), (Some(a), Some(b)) if a == b),
        }
    }
}

/// `path`'s real path: [`resolved`], its missing part after it.
pub(crate) fn real(path: &Path) -> io::Result<PathBuf> {
    let (existing, made) = resolved(path)?;
    Ok(match made {
        Some(made) => existing.join(made),
        None => existing,
    })
}

/// `path` resolved as the kernel would once its missing directories are
/// made (as `create_dir_all` makes them): its deepest existing directory
/// or file, canonical, and the part below it that does not exist yet, if
/// any. A `..` after a missing directory returns to the one it is made in.
pub(crate) fn resolved(path: &Path) -> io::Result<(PathBuf, Option<PathBuf>)> {
    let mut at = std::env::current_dir()?;
    // The components below `at` that do not exist.
    let mut missing: Vec<&OsStr> = Vec::new();
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

/// What names a directory whatever path leads to it: its device and inode.
pub(crate) fn identity(dir: &Path) -> io::Result<Id> {
    let m = fs::metadata(dir)?;
    Ok(Id {
        dev: m.dev(),
        ino: m.ino(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn a_file_is_the_same_by_any_link_any_dots_and_any_hard_link() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        fs::create_dir(top.join("d")).unwrap();
        fs::write(top.join("d/p.html"), "p").unwrap();
        fs::hard_link(top.join("d/p.html"), top.join("hard.html")).unwrap();
        symlink("d/p.html", top.join("link.html")).unwrap();
        symlink("d", top.join("dlink")).unwrap();
        symlink("nothing/new.html", top.join("dangling.html")).unwrap();
        let page = Place::read(&top.join("d/p.html"));
        for other in ["hard.html", "link.html", "dlink/p.html", "d/../d/./p.html"] {
            assert!(page.same(&Place::written(&top.join(other))), "{other}");
        }
        assert!(!page.same(&Place::written(&top.join("d/q.html"))));
        // Not there yet: by where it will be made.
        let new = Place::written(&top.join("dlink/new/../n.html"));
        assert!(new.same(&Place::written(&top.join("d/n.html"))));
        assert!(!new.same(&Place::written(&top.join("d/m.html"))));
        let dangling = Place::written(&top.join("dangling.html"));
        assert!(dangling.same(&Place::written(&top.join("nothing/x/../new.html"))));
    }

    #[test]
    fn a_device_that_keeps_nothing_is_never_the_same() {
        let null = Place::written(Path::new("/dev/null"));
        assert!(!null.keeps());
        assert!(!null.same(&null.clone()));
        let file = tempfile::NamedTempFile::new().unwrap();
        let stream = Place::stream(file.as_file());
        assert!(stream.same(&Place::read(file.path())));
    }
}
