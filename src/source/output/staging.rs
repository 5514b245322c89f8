//! Output staged where it has no name until it is whole, then put at its
//! name at once, replacing what stood there: a symbolic link there is
//! replaced, never followed.
//!
//! On Linux the file is made with `O_TMPFILE` in the directory it goes to
//! and linked in at the end, so that a run ended by any signal, SIGKILL
//! too, leaves nothing behind. Where that is not supported (another
//! system, a filesystem without it), it is made under a hidden name,
//! `.htmlabs-` and 12 hex digits, which [`abandon`] removes on a signal.
//! Tests stage under a hidden name where `O_TMPFILE` works too, with
//! `HTMLABS_NAMED_STAGING` set, to try both ways.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io;
use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard};
use std::time::SystemTime;

use rustix::fs::{AtFlags, FileType, Mode, OFlags};
use rustix::io::Errno;

use crate::source::output::dir::Dir;

/// Held (shared) by whoever makes, renames or removes a hidden name, from
/// before it exists until it is gone or listed in [`HIDDEN`]; [`abandon`]
/// takes it alone, so that it finds every hidden name, and keeps it. Shared
/// holders do not wait on each other (a site's workers put files at once).
static GATE: RwLock<()> = RwLock::new(());

/// The hidden names of staged files, each in its directory.
static HIDDEN: Mutex<Vec<(Dir, OsString)>> = Mutex::new(Vec::new());

/// How many hidden names are tried before giving up (each is 48 random
/// bits: one taken already is a surprise).
const TRIES: usize = 4;

fn gate() -> RwLockReadGuard<'static, ()> {
    GATE.read().unwrap_or_else(PoisonError::into_inner)
}

fn hidden_names() -> MutexGuard<'static, Vec<(Dir, OsString)>> {
    HIDDEN.lock().unwrap_or_else(PoisonError::into_inner)
}

/// For a signal that the process exits on next: removes every hidden name
/// that staged output holds, and keeps any more from being made or put in
/// place (the gate stays shut until the exit). Output staged with no name
/// goes with the process; the files it was to replace stay as they were.
pub fn abandon() {
    let shut = GATE.write().unwrap_or_else(PoisonError::into_inner);
    for (dir, name) in hidden_names().drain(..) {
        let _ = rustix::fs::unlinkat(dir.fd(), &name, AtFlags::empty());
    }
    std::mem::forget(shut);
}

/// A file being written, that takes its name in its directory only once
/// it is whole (`commit`); dropped before, it leaves nothing.
pub(crate) struct Staging {
    dir: Dir,
    name: OsString,
    file: File,
    /// Its hidden name, where it has one.
    hidden: Option<OsString>,
}

impl Staging {
    /// An empty file to become `name` in `dir`. It gets what `> FILE`
    /// gives a new file: 0666 less the umask.
    pub fn new(dir: &Dir, name: &OsStr) -> io::Result<Staging> {
        Staging::made(dir, name, unnamed_allowed())
    }

    /// The same, with no name only if `unnamed` (and the system allows).
    fn made(dir: &Dir, name: &OsStr, unnamed: bool) -> io::Result<Staging> {
        let made = match unnamed {
            true => without_name(dir)?,
            false => None,
        };
        let (file, hidden) = match made {
            Some(file) => (file, None),
            None => {
                let (file, hidden) = named(dir)?;
                (file, Some(hidden))
            }
        };
        Ok(Staging {
            dir: dir.clone(),
            name: name.to_owned(),
            file,
            hidden,
        })
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    pub fn file_mut(&mut self) -> &mut File {
        &mut self.file
    }

    /// Puts it at its name. A regular file there keeps its permissions;
    /// with `modified`, it gets that modification time; with `durable`, its
    /// bytes are on the disk before it takes the name.
    pub fn commit(mut self, modified: Option<SystemTime>, durable: bool) -> io::Result<()> {
        let there = rustix::fs::statat(self.dir.fd(), &self.name, AtFlags::SYMLINK_NOFOLLOW);
        if let Ok(there) = &there {
            if FileType::from_raw_mode(there.st_mode) == FileType::RegularFile {
                rustix::fs::fchmod(&self.file, Mode::from_raw_mode(there.st_mode))?;
            }
        }
        if let Some(modified) = modified {
            self.file.set_modified(modified)?;
        }
        if durable {
            self.file.sync_all()?;
        }
        let Some(hidden) = &self.hidden else {
            let vacant = there.is_err();
            return put(&self.dir, &self.name, vacant, |dir, at| {
                link_unnamed(&self.file, dir, at)
            });
        };
        let _gate = gate();
        rustix::fs::renameat(self.dir.fd(), hidden, self.dir.fd(), &self.name)?;
        forget(&self.dir, hidden);
        // Renamed: nothing is left for drop to remove.
        self.hidden = None;
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        if let Some(hidden) = self.hidden.take() {
            let _gate = gate();
            let _ = rustix::fs::unlinkat(self.dir.fd(), &hidden, AtFlags::empty());
            forget(&self.dir, &hidden);
        }
    }
}

/// Takes a hidden name out of the list.
fn forget(dir: &Dir, hidden: &OsStr) {
    hidden_names().retain(|(d, n)| !(n == hidden && d.same(dir)));
}

/// Puts what `make` makes at `name` in `dir`, replacing what stands there
/// (a link is replaced, never followed): made at the name itself when
/// nothing stands there (tried first if it may be `vacant`), else under a
/// hidden name renamed over it.
pub(crate) fn put(
    dir: &Dir,
    name: &OsStr,
    vacant: bool,
    make: impl Fn(&Dir, &OsStr) -> rustix::io::Result<()>,
) -> io::Result<()> {
    let _gate = gate();
    if vacant {
        match make(dir, name) {
            Err(Errno::EXIST) => {}
            done => return done.map_err(Into::into),
        }
    }
    for _ in 0..TRIES {
        let hidden = hidden_name();
        match make(dir, &hidden) {
            Ok(()) => {}
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
        let renamed = rustix::fs::renameat(dir.fd(), &hidden, dir.fd(), name);
        // A rename from one name of a file to another of the same file
        // does nothing: the hidden name goes, either way.
        let _ = rustix::fs::unlinkat(dir.fd(), &hidden, AtFlags::empty());
        return renamed.map_err(Into::into);
    }
    Err(Errno::EXIST.into())
}

/// `.htmlabs-` and 12 random hex digits.
fn hidden_name() -> OsString {
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!(".htmlabs-{}", &random[..12]).into()
}

/// A file in `dir` with no name, where the filesystem allows it.
#[cfg(target_os = "linux")]
fn without_name(dir: &Dir) -> io::Result<Option<File>> {
    let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
    match rustix::fs::openat(dir.fd(), ".", flags, Mode::from_raw_mode(0o666)) {
        Ok(fd) => Ok(Some(File::from(fd))),
        // Not supported here: by the kernel (EISDIR: it took O_TMPFILE's
        // bits for O_DIRECTORY alone), or by the filesystem.
        Err(Errno::OPNOTSUPP | Errno::ISDIR | Errno::INVAL | Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

#[cfg(not(target_os = "linux"))]
fn without_name(_: &Dir) -> io::Result<Option<File>> {
    Ok(None)
}

/// Whether files may be staged with no name: on Linux, where an unnamed
/// file can be linked in through `/proc/self/fd` (`linkat` with
/// `AT_EMPTY_PATH` needs a privilege before Linux 6.10).
fn unnamed_allowed() -> bool {
    static ALLOWED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ALLOWED.get_or_init(|| {
        cfg!(target_os = "linux")
            && std::env::var_os("HTMLABS_NAMED_STAGING").is_none()
            && std::path::Path::new("/proc/self/fd").is_dir()
    })
}

/// Links an unnamed file in at `name` in `dir`.
fn link_unnamed(file: &File, dir: &Dir, name: &OsStr) -> rustix::io::Result<()> {
    use std::os::fd::AsRawFd;
    let path = format!("/proc/self/fd/{}", file.as_raw_fd());
    rustix::fs::linkat(
        rustix::fs::CWD,
        path.as_str(),
        dir.fd(),
        name,
        AtFlags::SYMLINK_FOLLOW,
    )
}

/// A new file in `dir` under a hidden name, and the name.
fn named(dir: &Dir) -> io::Result<(File, OsString)> {
    let _gate = gate();
    let flags = OFlags::CREATE | OFlags::EXCL | OFlags::RDWR | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    for _ in 0..TRIES {
        let hidden = hidden_name();
        match rustix::fs::openat(dir.fd(), &hidden, flags, Mode::from_raw_mode(0o666)) {
            Ok(fd) => {
                hidden_names().push((dir.clone(), hidden.clone()));
                return Ok((File::from(fd), hidden));
            }
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Errno::EXIST.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Write;
    use std::os::unix::fs::{MetadataExt, PermissionsExt, symlink};
    use std::path::Path;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// What the umask makes of a new file here, as `>` would make it.
    fn usual(dir: &Path) -> u32 {
        let probe = dir.join("probe");
        fs::File::create(&probe).unwrap();
        let mode = fs::metadata(&probe).unwrap().permissions().mode() & 0o777;
        fs::remove_file(probe).unwrap();
        mode
    }

    #[test]
    fn a_staged_file_has_its_name_only_once_whole_and_dropped_leaves_nothing() {
        for unnamed in [true, false] {
            let tmp = tempfile::tempdir().unwrap();
            let dir = Dir::open(tmp.path()).unwrap();
            let mode = usual(tmp.path());
            let mut staging = Staging::made(&dir, OsStr::new("out"), unnamed).unwrap();
            staging.file_mut().write_all(b"new").unwrap();
            let seen = names(tmp.path());
            if unnamed {
                assert_eq!(seen, Vec::<String>::new());
            } else {
                assert_eq!(seen.len(), 1);
                assert!(seen[0].starts_with(".htmlabs-"), "{seen:?}");
            }
            staging.commit(None, true).unwrap();
            assert_eq!(names(tmp.path()), ["out"], "unnamed {unnamed}");
            assert_eq!(fs::read(tmp.path().join("out")).unwrap(), b"new");
            let got = fs::metadata(tmp.path().join("out")).unwrap().mode() & 0o777;
            assert_eq!(got, mode, "unnamed {unnamed}: a new file's mode");

            let mut staging = Staging::made(&dir, OsStr::new("out"), unnamed).unwrap();
            staging.file_mut().write_all(b"newer").unwrap();
            drop(staging);
            assert_eq!(names(tmp.path()), ["out"], "unnamed {unnamed}");
            assert_eq!(fs::read(tmp.path().join("out")).unwrap(), b"new");
        }
    }

    #[test]
    fn a_commit_keeps_an_existing_files_permissions_and_takes_the_time_given() {
        for unnamed in [true, false] {
            let tmp = tempfile::tempdir().unwrap();
            let out = tmp.path().join("out");
            fs::write(&out, "old").unwrap();
            fs::set_permissions(&out, fs::Permissions::from_mode(0o640)).unwrap();
            let dir = Dir::open(tmp.path()).unwrap();
            let then = SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_500_000_000);
            let mut staging = Staging::made(&dir, OsStr::new("out"), unnamed).unwrap();
            staging.file_mut().write_all(b"new").unwrap();
            staging.commit(Some(then), false).unwrap();
            let metadata = fs::metadata(&out).unwrap();
            assert_eq!(metadata.mode() & 0o777, 0o640, "unnamed {unnamed}");
            assert_eq!(metadata.modified().unwrap(), then);
            assert_eq!(names(tmp.path()), ["out"]);
        }
    }

    #[test]
    fn a_link_at_the_name_is_replaced_not_followed() {
        for unnamed in [true, false] {
            let tmp = tempfile::tempdir().unwrap();
            let outside = tmp.path().join("outside");
            fs::write(&outside, "outside").unwrap();
            fs::set_permissions(&outside, fs::Permissions::from_mode(0o604)).unwrap();
            let tree = tmp.path().join("tree");
            fs::create_dir(&tree).unwrap();
            symlink(&outside, tree.join("out")).unwrap();
            symlink(tmp.path().join("nothing"), tree.join("dangling")).unwrap();
            let dir = Dir::open(&tree).unwrap();
            for name in ["out", "dangling"] {
                let mut staging = Staging::made(&dir, OsStr::new(name), unnamed).unwrap();
                staging.file_mut().write_all(b"new").unwrap();
                staging.commit(None, false).unwrap();
                let there = fs::symlink_metadata(tree.join(name)).unwrap();
                assert!(there.is_file(), "{name}: a regular file now");
                assert_eq!(fs::read(tree.join(name)).unwrap(), b"new");
                assert_ne!(there.mode() & 0o777, 0o604, "not the link's target's mode");
            }
            assert_eq!(fs::read(&outside).unwrap(), b"outside");
            assert!(!tmp.path().join("nothing").exists());
            assert_eq!(names(&tree), ["dangling", "out"]);
        }
    }

    #[test]
    fn putting_a_files_own_name_over_it_leaves_no_hidden_name() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join("a"), "a").unwrap();
        fs::hard_link(tmp.path().join("a"), tmp.path().join("b")).unwrap();
        let dir = Dir::open(tmp.path()).unwrap();
        let source = tmp.path().join("a");
        put(&dir, OsStr::new("b"), false, |dir, at| {
            rustix::fs::linkat(rustix::fs::CWD, &source, dir.fd(), at, AtFlags::empty())
        })
        .unwrap();
        assert_eq!(names(tmp.path()), ["a", "b"]);
    }
}
