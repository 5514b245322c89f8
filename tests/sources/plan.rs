//! The plan of every path a run writes: every kind of output (`-o`,
//! `--report`, standard output, the tree `--out-dir` fills, a site's files
//! in place, an archive's output) against every kind of input (a file,
//! standard input, a site's tree, an archive) and every other output, each
//! reached by its own name, through a symbolic link, through `..` and by a
//! hard link. An overlap is refused with one line naming both, exit status
//! 2, and nothing is written; the one overlap that is a feature, an output
//! replacing its own input whole (`-o page.html page.html`), is kept.
//!
//! Pairs the command line cannot make are not here: `-o` and `--out-dir`
//! go with no `--site` resp. only with it, so `--out-dir` meets no file nor
//! archive, and a site reads no standard input; `--out-dir` against its own
//! site's tree is `tests/sources/site.rs`'s (refused since it was first found). A
//! site's file in place is written over by its own output, by design: it
//! is met here as the input it is.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::{MetadataExt, symlink};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_htmlabs");

/// How a case ends.
enum Expect {
    /// Refused with this line; nothing written.
    Refused(&'static str),
    /// Run: the file at the path holds what starts with the text.
    Written(&'static str, &'static str),
}

/// A run of the binary in a fresh tree: its arguments, the file given as
/// standard input, the file standard output is appended to.
struct Case {
    name: &'static str,
    args: &'static [&'static str],
    stdin: Option<&'static str>,
    stdout: Option<&'static str>,
    expect: Expect,
}

const R: &str = "-r";
const U: &str = "http://h/";
const SITE: [&str; 4] = ["--site", "s", "--site-url", "http://h/"];

use Expect::{Refused, Written};

/// A case whose standard input and output are the test's own.
const fn case(name: &'static str, args: &'static [&'static str], expect: Expect) -> Case {
    Case {
        name,
        args,
        stdin: None,
        stdout: None,
        expect,
    }
}

const CASES: &[Case] = &[
    // --report against the document's file.
    case(
        "report over the page",
        &[R, U, "p.html", "-o", "new.html", "--report", "p.html"],
        Refused(
            "--report `p.html` is the same file as the input `p.html`: the input would be written over",
        ),
    ),
    case(
        "report over the page through a link",
        &[R, U, "p.html", "-o", "new.html", "--report", "l.html"],
        Refused(
            "--report `l.html` is the same file as the input `p.html`: the input would be written over",
        ),
    ),
    case(
        "report over the page through ..",
        &[R, U, "p.html", "-o", "new.html", "--report", "d/../p.html"],
        Refused(
            "--report `d/../p.html` is the same file as the input `p.html`: the input would be written over",
        ),
    ),
    case(
        "report over the page by a hard link",
        &[R, U, "p.html", "-o", "new.html", "--report", "h.html"],
        Refused(
            "--report `h.html` is the same file as the input `p.html`: the input would be written over",
        ),
    ),
    case(
        "report over the page, checked",
        &[R, U, "p.html", "--check", "--report", "h.html"],
        Refused(
            "--report `h.html` is the same file as the input `p.html`: the input would be written over",
        ),
    ),
    // --report against standard input.
    Case {
        stdin: Some("p.html"),
        ..case(
            "report over standard input",
            &[R, U, "-o", "new.html", "--report", "p.html"],
            Refused(
                "--report `p.html` is the same file as standard input: the input would be written over",
            ),
        )
    },
    Case {
        stdin: Some("p.html"),
        ..case(
            "report over standard input by a hard link",
            &[R, U, "-o", "new.html", "--report", "h.html"],
            Refused(
                "--report `h.html` is the same file as standard input: the input would be written over",
            ),
        )
    },
    // --report against a site's tree, in place (its files are written over
    // by their own outputs too) and into a copy.
    case(
        "report over a page of the site",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--report",
            "s/index.html",
        ],
        Refused(
            "--report `s/index.html` is the same file as `s/index.html` of the site `s`: the site's file would be written over",
        ),
    ),
    case(
        "report over a page of the site through a link",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--report",
            "ls/sub/b.html",
        ],
        Refused(
            "--report `ls/sub/b.html` is the same file as `s/sub/b.html` of the site `s`: the site's file would be written over",
        ),
    ),
    case(
        "report over a page of the site through ..",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--report",
            "s/sub/../index.html",
        ],
        Refused(
            "--report `s/sub/../index.html` is the same file as `s/index.html` of the site `s`: the site's file would be written over",
        ),
    ),
    case(
        "report over a page of the site by a hard link",
        &[SITE[0], SITE[1], SITE[2], SITE[3], "--report", "hs.html"],
        Refused(
            "--report `hs.html` is the same file as `s/index.html` of the site `s`: the site's file would be written over",
        ),
    ),
    case(
        "report over a page of the site, checked",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--check",
            "--report",
            "s/index.html",
        ],
        Refused(
            "--report `s/index.html` is the same file as `s/index.html` of the site `s`: the site's file would be written over",
        ),
    ),
    case(
        "report over a file the copy reads",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o2",
            "--report",
            "s/logo.png",
        ],
        Refused(
            "--report `s/logo.png` is the same file as `s/logo.png` of the site `s`: the site's file would be written over",
        ),
    ),
    case(
        "report over a file the copy reads by a hard link",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o2",
            "--report",
            "hl.png",
        ],
        Refused(
            "--report `hl.png` is the same file as `s/logo.png` of the site `s`: the site's file would be written over",
        ),
    ),
    // --report against an archive.
    case(
        "report over the archive",
        &["--warc", "t.warc", "-o", "new.warc", "--report", "t.warc"],
        Refused(
            "--report `t.warc` is the same file as the input `t.warc`: the input would be written over",
        ),
    ),
    case(
        "report over the archive through a link",
        &["--warc", "t.warc", "-o", "new.warc", "--report", "lt.warc"],
        Refused(
            "--report `lt.warc` is the same file as the input `t.warc`: the input would be written over",
        ),
    ),
    case(
        "report over the archive through ..",
        &[
            "--warc",
            "t.warc",
            "-o",
            "new.warc",
            "--report",
            "d/../t.warc",
        ],
        Refused(
            "--report `d/../t.warc` is the same file as the input `t.warc`: the input would be written over",
        ),
    ),
    case(
        "report over the archive by a hard link",
        &["--warc", "t.warc", "-o", "new.warc", "--report", "ht.warc"],
        Refused(
            "--report `ht.warc` is the same file as the input `t.warc`: the input would be written over",
        ),
    ),
    case(
        "links listed over the archive",
        &["--warc", "t.warc", "--links", "--report", "t.warc"],
        Refused(
            "--report `t.warc` is the same file as the input `t.warc`: the input would be written over",
        ),
    ),
    Case {
        stdin: Some("t.warc"),
        ..case(
            "report over the archive on standard input",
            &["--warc", "-", "-o", "new.warc", "--report", "ht.warc"],
            Refused(
                "--report `ht.warc` is the same file as standard input: the input would be written over",
            ),
        )
    },
    // --report against -o, a page's and an archive's.
    case(
        "report and output at one new name",
        &[R, U, "p.html", "-o", "new.html", "--report", "new.html"],
        Refused(
            "--report `new.html` is the same file as -o `new.html`: one would be written over the other",
        ),
    ),
    case(
        "report and output at one new name under a linked directory",
        &[
            R,
            U,
            "p.html",
            "-o",
            "d/new.html",
            "--report",
            "dl/new.html",
        ],
        Refused(
            "--report `dl/new.html` is the same file as -o `d/new.html`: one would be written over the other",
        ),
    ),
    case(
        "report through a dangling link to the output",
        &[
            R,
            U,
            "p.html",
            "-o",
            "d/new.html",
            "--report",
            "dangling.html",
        ],
        Refused(
            "--report `dangling.html` is the same file as -o `d/new.html`: one would be written over the other",
        ),
    ),
    case(
        "report and output through ..",
        &[
            R,
            U,
            "p.html",
            "-o",
            "new.html",
            "--report",
            "d/../new.html",
        ],
        Refused(
            "--report `d/../new.html` is the same file as -o `new.html`: one would be written over the other",
        ),
    ),
    case(
        "report and output by a hard link",
        &[R, U, "p.html", "-o", "out.html", "--report", "hout.html"],
        Refused(
            "--report `hout.html` is the same file as -o `out.html`: one would be written over the other",
        ),
    ),
    case(
        "report over the archive's output",
        &["--warc", "t.warc", "-o", "t.out", "--report", "t.out"],
        Refused(
            "--report `t.out` is the same file as -o `t.out`: one would be written over the other",
        ),
    ),
    case(
        "report over the archive's output under a linked directory",
        &["--warc", "t.warc", "-o", "d/t.out", "--report", "dl/t.out"],
        Refused(
            "--report `dl/t.out` is the same file as -o `d/t.out`: one would be written over the other",
        ),
    ),
    // --report against the tree --out-dir fills.
    case(
        "report over a page of the copy",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o",
            "--report",
            "o/index.html",
        ],
        Refused(
            "--report `o/index.html` is where --out-dir `o` puts the copy of `s/index.html`: one would be written over the other",
        ),
    ),
    case(
        "report over a page of the copy through a link",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o",
            "--report",
            "lo/index.html",
        ],
        Refused(
            "--report `lo/index.html` is where --out-dir `o` puts the copy of `s/index.html`: one would be written over the other",
        ),
    ),
    case(
        "report over a page of the copy through ..",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o",
            "--report",
            "s/../o/index.html",
        ],
        Refused(
            "--report `s/../o/index.html` is where --out-dir `o` puts the copy of `s/index.html`: one would be written over the other",
        ),
    ),
    case(
        "report over a page of the copy by a hard link",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o",
            "--report",
            "ho.html",
        ],
        Refused(
            "--report `ho.html` is where --out-dir `o` puts the copy of `s/index.html`: one would be written over the other",
        ),
    ),
    case(
        "report at a new name in the copy through a link",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o",
            "--report",
            "lo/logo.png",
        ],
        Refused(
            "--report `lo/logo.png` is where --out-dir `o` puts the copy of `s/logo.png`: one would be written over the other",
        ),
    ),
    case(
        "report where the copy makes a directory",
        &[
            SITE[0],
            SITE[1],
            SITE[2],
            SITE[3],
            "--out-dir",
            "o",
            "--report",
            "o/sub",
        ],
        Refused(
            "--report `o/sub` is where --out-dir `o` puts the copy of `s/sub`: one would be written over the other",
        ),
    ),
    // Standard output, a file, against every input.
    Case {
        stdout: Some("p.html"),
        ..case(
            "standard output appended to the page",
            &[R, U, "p.html"],
            Refused(
                "standard output is the same file as the input `p.html`: the input would be written over",
            ),
        )
    },
    Case {
        stdout: Some("h.html"),
        ..case(
            "standard output appended to the page by a hard link",
            &[R, U, "p.html"],
            Refused(
                "standard output is the same file as the input `p.html`: the input would be written over",
            ),
        )
    },
    Case {
        stdin: Some("p.html"),
        stdout: Some("h.html"),
        ..case(
            "standard output appended to standard input",
            &[R, U],
            Refused(
                "standard output is the same file as standard input: the input would be written over",
            ),
        )
    },
    Case {
        stdout: Some("s/index.html"),
        ..case(
            "check lines appended to a page of the site",
            &[SITE[0], SITE[1], SITE[2], SITE[3], "--check"],
            Refused(
                "standard output is the same file as `s/index.html` of the site `s`: the site's file would be written over",
            ),
        )
    },
    Case {
        stdout: Some("hs.html"),
        ..case(
            "report appended to a page of the site by a hard link",
            &[SITE[0], SITE[1], SITE[2], SITE[3], "--report", "-"],
            Refused(
                "standard output is the same file as `s/index.html` of the site `s`: the site's file would be written over",
            ),
        )
    },
    Case {
        stdout: Some("ht.warc"),
        ..case(
            "archive appended to itself",
            &["--warc", "t.warc"],
            Refused(
                "standard output is the same file as the input `t.warc`: the input would be written over",
            ),
        )
    },
    // Standard output, a file, against the other outputs.
    Case {
        stdout: Some("hout.html"),
        ..case(
            "report on standard output into the output",
            &[R, U, "p.html", "-o", "out.html", "--report", "-"],
            Refused(
                "standard output is the same file as -o `out.html`: one would be written over the other",
            ),
        )
    },
    Case {
        stdout: Some("hout.html"),
        ..case(
            "page on standard output into the report",
            &[R, U, "p.html", "--report", "out.html"],
            Refused(
                "--report `out.html` is the same file as standard output: one would be written over the other",
            ),
        )
    },
    Case {
        stdout: Some("o/index.html"),
        ..case(
            "report on standard output into the copy",
            &[
                SITE[0],
                SITE[1],
                SITE[2],
                SITE[3],
                "--out-dir",
                "o",
                "--report",
                "-",
            ],
            Refused(
                "standard output is where --out-dir `o` puts the copy of `s/index.html`: one would be written over the other",
            ),
        )
    },
    // A FIFO is written into as it goes, never replaced whole: as its
    // input's output it would be read back (the run blocked for ever).
    case(
        "output into the FIFO it reads",
        &[R, U, "pipe", "-o", "pipe"],
        Refused("-o `pipe` is the same file as the input `pipe`: the input would be written over"),
    ),
    // The output replacing its own input whole, however it is named.
    case(
        "output over its own page",
        &[R, U, "-o", "p.html", "p.html"],
        Written("p.html", "<a href=http://h/x>"),
    ),
    case(
        "output over its own page through a link",
        &[R, U, "-o", "l.html", "p.html"],
        Written("p.html", "<a href=http://h/x>"),
    ),
    case(
        "output over its own page through ..",
        &[R, U, "-o", "d/../p.html", "p.html"],
        Written("p.html", "<a href=http://h/x>"),
    ),
    case(
        "output over its own page by a hard link",
        &[R, U, "-o", "h.html", "p.html"],
        Written("h.html", "<a href=http://h/x>"),
    ),
    Case {
        stdin: Some("p.html"),
        ..case(
            "output over its own standard input",
            &[R, U, "-o", "p.html"],
            Written("p.html", "<a href=http://h/x>"),
        )
    },
    case(
        "archive over itself",
        &["--warc", "t.warc", "-o", "t.warc"],
        Written("t.warc", "WARC/1.0\r\n"),
    ),
    Case {
        stdin: Some("t.warc"),
        ..case(
            "archive over its own standard input",
            &["--warc", "-", "-o", "lt.warc"],
            Written("t.warc", "WARC/1.0\r\n"),
        )
    },
    // What keeps nothing is no file to lose.
    case(
        "output and report both discarded",
        &[R, U, "p.html", "-o", "/dev/null", "--report", "/dev/null"],
        Written("p.html", "<a href=x>"),
    ),
];

/// The tree every case runs in (see each name's use above).
fn tree(top: &Path) {
    let archive = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/warc/shapes-1.0.warc");
    fs::write(top.join("p.html"), "<a href=x>").unwrap();
    fs::hard_link(top.join("p.html"), top.join("h.html")).unwrap();
    symlink("p.html", top.join("l.html")).unwrap();
    fs::create_dir(top.join("d")).unwrap();
    symlink("d", top.join("dl")).unwrap();
    symlink("d/new.html", top.join("dangling.html")).unwrap();
    fs::write(top.join("out.html"), "an old output").unwrap();
    fs::hard_link(top.join("out.html"), top.join("hout.html")).unwrap();
    fs::copy(archive, top.join("t.warc")).unwrap();
    fs::hard_link(top.join("t.warc"), top.join("ht.warc")).unwrap();
    symlink("t.warc", top.join("lt.warc")).unwrap();
    fs::create_dir_all(top.join("s/sub")).unwrap();
    fs::write(top.join("s/index.html"), "<a href=y>").unwrap();
    fs::write(top.join("s/sub/b.html"), "<a href=z>").unwrap();
    fs::write(top.join("s/logo.png"), "a logo").unwrap();
    symlink("s", top.join("ls")).unwrap();
    fs::hard_link(top.join("s/index.html"), top.join("hs.html")).unwrap();
    fs::hard_link(top.join("s/logo.png"), top.join("hl.png")).unwrap();
    // A copy made before.
    fs::create_dir(top.join("o")).unwrap();
    fs::write(top.join("o/index.html"), "an old copy").unwrap();
    symlink("o", top.join("lo")).unwrap();
    fs::hard_link(top.join("o/index.html"), top.join("ho.html")).unwrap();
    let made = Command::new("mkfifo").arg(top.join("pipe")).status();
    assert!(made.unwrap().success(), "mkfifo");
}

/// Every name under `top` (links not followed), and what it is: a
/// directory, a link and where it points, or a file's inode and bytes (a
/// file replaced by the same bytes is another inode).
fn snapshot(top: &Path) -> BTreeMap<PathBuf, String> {
    let mut found = BTreeMap::new();
    let mut dirs = vec![top.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let metadata = fs::symlink_metadata(&path).unwrap();
            let what = if metadata.is_dir() {
                dirs.push(path.clone());
                "a directory".to_owned()
            } else if metadata.is_symlink() {
                format!("a link to {:?}", fs::read_link(&path).unwrap())
            } else if metadata.is_file() {
                let bytes = fs::read(&path).unwrap();
                format!(
                    "inode {}: {:?}",
                    metadata.ino(),
                    String::from_utf8_lossy(&bytes)
                )
            } else {
                format!("inode {}", metadata.ino())
            };
            found.insert(path.strip_prefix(top).unwrap().to_path_buf(), what);
        }
    }
    found
}

/// Runs `case` in a tree of its own; what went other than expected.
fn run(case: &Case) -> Option<String> {
    let dir = tempfile::tempdir().unwrap();
    let top = dir.path();
    tree(top);
    let before = snapshot(top);
    let mut command = Command::new(BIN);
    command
        .current_dir(top)
        .args(case.args)
        .stderr(Stdio::piped());
    command.stdin(match case.stdin {
        Some(path) => Stdio::from(fs::File::open(top.join(path)).unwrap()),
        None => Stdio::null(),
    });
    command.stdout(match case.stdout {
        Some(path) => {
            let file = fs::File::options().append(true).open(top.join(path));
            Stdio::from(file.unwrap())
        }
        None => Stdio::null(),
    });
    let mut child = command.spawn().unwrap();
    // A run that reads what it writes may never end: it is stopped.
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            child.wait().unwrap();
            return Some("did not end in 20 s".to_owned());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    match case.expect {
        Refused(line) => {
            let expected = format!("htmlabs: error: {line}\n");
            if (status.code(), stderr.as_str()) != (Some(2), expected.as_str()) {
                return Some(format!("{status}, said {stderr:?}, not {expected:?}"));
            }
            let after = snapshot(top);
            (after != before).then(|| format!("refused, yet wrote: {}", changes(&before, &after)))
        }
        Written(path, start) => {
            if status.code() != Some(0) {
                return Some(format!("{status}, said {stderr:?}"));
            }
            let bytes = fs::read(top.join(path)).unwrap();
            (!bytes.starts_with(start.as_bytes())).then(|| {
                format!(
                    "`{path}` holds {:?}, not what starts with {start:?}",
                    String::from_utf8_lossy(&bytes[..bytes.len().min(80)])
                )
            })
        }
    }
}

/// The names whose entry differs between two snapshots.
fn changes(before: &BTreeMap<PathBuf, String>, after: &BTreeMap<PathBuf, String>) -> String {
    let names: std::collections::BTreeSet<_> = before.keys().chain(after.keys()).collect();
    names
        .into_iter()
        .filter(|name| before.get(*name) != after.get(*name))
        .map(|name| format!("{name:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn every_output_against_every_input_and_every_other_output() {
    let failed: Vec<String> = CASES
        .iter()
        .filter_map(|case| run(case).map(|why| format!("{}: {why}", case.name)))
        .collect();
    assert!(
        failed.is_empty(),
        "{} of {} cases:\n{}",
        failed.len(),
        CASES.len(),
        failed.join("\n")
    );
}
