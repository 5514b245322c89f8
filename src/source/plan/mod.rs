//! One plan of every path a run writes, made before anything is read or
//! written, for every source alike ([`run`](crate::run::run) plans the
//! job it is given; [`Plan::new`] names every source's paths, so a new one
//! cannot be left out): the job's output (`-o`, an archive's, standard output),
//! the link report (`--report`), a site's files written in place, the copy
//! `--out-dir` fills; each resolved as the filesystem will take it
//! (symbolic links, `..`, directories yet to be made: `place.rs`) and known
//! by device and inode where it is there (a hard link, a bind mount), then
//! checked against every input (the document's file or standard input,
//! every file of a site's tree that the run reads) and every other output.
//! Any overlap is refused, naming both, before anything is written.
//!
//! The one overlap that is a feature: the job's output may be its own
//! input (`-o page.html page.html`), since it is staged and replaces the
//! input whole once the input is read; so may a site's file in place. What
//! keeps nothing (a terminal, `/dev/null`) is never the same file as
//! anything; a FIFO is written into as it goes, so it is never replaced
//! whole: as an input's own output it is refused too.
//!
//! A site's tree is walked here, once: the walk is the list of the files it
//! reads and writes, and the run is handed it.

mod place;
mod trees;

use std::fs;
use std::path::{Path, PathBuf};

use crate::source::job::Job;
use crate::source::output::{Input, Output, SourceError, lowercase, quoted};
use crate::source::site::{self, Walked};
use place::{Place, There};
use trees::Overlap;

/// Every path a job reads and writes, checked: made by [`Plan::new`], the
/// link report and standard output added by [`Plan::report`] and
/// [`Plan::stdout`], run by [`run_planned`](crate::run::run_planned).
#[derive(Debug)]
pub struct Plan {
    job: Job,
    /// A site's tree, walked, and its directory.
    walked: Option<Walked>,
    site: Option<PathBuf>,
    /// The document's input: its file, or standard input.
    reads: Vec<Named>,
    /// The files written, each as one piece: the job's output, the report,
    /// standard output.
    writes: Vec<Written>,
    /// The tree `--out-dir` fills.
    copy: Option<Copy>,
    /// The tree an archive is saved as (`--warc --out-dir`), its real path:
    /// nothing else is written in it.
    tree: Option<PathBuf>,
}

/// A file or a stream, and how a message names it.
#[derive(Debug)]
struct Named {
    place: Place,
    name: String,
}

/// A file written, as one piece.
#[derive(Debug)]
struct Written {
    named: Named,
    /// It may be its job's own input, which it replaces whole at the end
    /// (`-o page.html page.html`).
    replaces_input: bool,
    /// It is standard output.
    stdout: bool,
}

/// The copy of a site's tree (`--out-dir`): each file of the tree at its
/// path under the copy's real path, no link below it followed (the copy
/// replaces a link it meets).
#[derive(Debug)]
struct Copy {
    real: PathBuf,
    out: PathBuf,
    site: PathBuf,
}

impl Plan {
    /// The plan of `job` (with `check`, a check: it writes nothing of its
    /// own), its paths resolved and checked: an output that is an input
    /// (but its own) or another output, or a copy's tree that overlaps its
    /// site's, is refused with a line naming both.
    pub fn new(mut job: Job, check: bool) -> Result<Plan, SourceError> {
        let mut reads = Vec::new();
        let (mut output, mut stdout) = (None, false);
        let (mut walked, mut copy, mut site_dir) = (None, None, None);
        let mut tree = None;
        match &mut job {
            Job::Page { input, output: to }
            | Job::Http { input, output: to }
            | Job::Warc { input, output: to } => {
                match input {
                    Input::File(path) => reads.push(Named {
                        place: Place::read(path),
                        name: format!("the input {}", quoted(path)),
                    }),
                    Input::Stdin => reads.push(Named {
                        place: Place::stream(std::io::stdin()),
                        name: "standard input".to_owned(),
                    }),
                    Input::Reader { .. } => {}
                }
                match to {
                    _ if check => {}
                    Output::File(path) => {
                        output = Some(Written {
                            named: Named {
                                place: Place::written(path),
                                name: format!("-o {}", quoted(path)),
                            },
                            replaces_input: true,
                            stdout: false,
                        })
                    }
                    Output::Stdout => stdout = true,
                    Output::Discard | Output::Writer { .. } => {}
                }
            }
            Job::Tree { archive, out_dir } => {
                let place = Place::read(archive);
                let real =
                    place::real(out_dir).map_err(|e| SourceError::Write(quoted(out_dir), e))?;
                // A file saved in the tree could be the archive.
                if place.real.as_deref().is_some_and(|r| r.starts_with(&real)) {
                    return Err(SourceError::Refused(format!(
                        "the archive {} is inside --out-dir {}: a file saved there could be written over it",
                        quoted(archive),
                        quoted(out_dir)
                    )));
                }
                reads.push(Named {
                    place,
                    name: format!("the input {}", quoted(archive)),
                });
                tree = Some(real);
            }
            Job::ArchiveLinks { archive } => reads.push(Named {
                place: Place::read(archive),
                name: format!("the input {}", quoted(archive)),
            }),
            Job::Site(site) => {
                // A check of any kind (`--check`, `--check-links`) writes
                // nothing of the site's: the site says so, or the run.
                site.check |= check;
                let check = site.check;
                if let Some(out) = site.out_dir() {
                    apart(site.dir(), out)?;
                    if !check {
                        let real =
                            place::real(out).map_err(|e| SourceError::Write(quoted(out), e))?;
                        copy = Some(Copy {
                            real,
                            out: out.to_owned(),
                            site: site.dir().to_owned(),
                        });
                    }
                }
                site_dir = Some(site.dir().to_owned());
                walked = Some(site::walk(site)?);
            }
        }
        let mut plan = Plan {
            job,
            walked,
            site: site_dir,
            reads,
            writes: Vec::new(),
            copy,
            tree,
        };
        if let Some(output) = output {
            plan.add(output)?;
        }
        if stdout {
            plan.stdout()?;
        }
        Ok(plan)
    }

    /// The link report is written to `path` too (`-`: standard output).
    pub fn report(&mut self, path: &Path) -> Result<(), SourceError> {
        if path.as_os_str() == "-" {
            return self.stdout();
        }
        self.also("--report", path)
    }

    /// An archive's link check writes its seeds to `path` too.
    pub fn seeds(&mut self, path: &Path) -> Result<(), SourceError> {
        self.also("--seeds", path)
    }

    /// `flag`'s file `path` is written too.
    fn also(&mut self, flag: &str, path: &Path) -> Result<(), SourceError> {
        self.add(Written {
            named: Named {
                place: Place::written(path),
                name: format!("{flag} {}", quoted(path)),
            },
            replaces_input: false,
            stdout: false,
        })
    }

    /// Standard output is written (the page, the report, the check
    /// lines): where it is a file, it is checked as any output is. (What
    /// would mix two outputs there is the command line's to refuse.)
    pub fn stdout(&mut self) -> Result<(), SourceError> {
        if self.writes.iter().any(|w| w.stdout) {
            return Ok(());
        }
        self.add(Written {
            named: Named {
                place: Place::stream(std::io::stdout()),
                name: "standard output".to_owned(),
            },
            replaces_input: false,
            stdout: true,
        })
    }

    /// The job it plans.
    pub fn job(&self) -> &Job {
        &self.job
    }

    /// The job, and a site's tree as walked.
    pub(crate) fn into_parts(self) -> (Job, Option<Walked>) {
        (self.job, self.walked)
    }

    /// Adds `written`, refused where it is an input or another output.
    fn add(&mut self, written: Written) -> Result<(), SourceError> {
        let refused = |s: String| Err(SourceError::Refused(s));
        let this = &written.named;
        // Its own input, replaced whole: not a FIFO, which is written into.
        let own = written.replaces_input && !this.place.is_fifo();
        for input in &self.reads {
            if this.place.same(&input.place) && !own {
                return refused(format!(
                    "{} is the same file as {}: the input would be written over",
                    this.name, input.name
                ));
            }
        }
        if let Some((site, path)) = self.site_file(&this.place) {
            return refused(format!(
                "{} is the same file as {} of the site {}: the site's file would be written over",
                this.name,
                quoted(&path),
                quoted(site),
            ));
        }
        if let (Some(tree), Some(real)) = (&self.tree, &this.place.real) {
            if real.starts_with(tree) {
                return refused(format!(
                    "{} is inside --out-dir {}: a file saved there could write over it",
                    this.name,
                    quoted(tree)
                ));
            }
        }
        for other in &self.writes {
            if this.place.same(&other.named.place) {
                return refused(format!(
                    "{} is the same file as {}: one would be written over the other",
                    this.name, other.named.name
                ));
            }
        }
        if let Some((copy, of)) = self.in_copy(&this.place) {
            return refused(format!(
                "{} is where --out-dir {} puts the copy of {}: one would be written over the other",
                this.name,
                quoted(&copy.out),
                quoted(&match of.as_os_str().is_empty() {
                    true => copy.site.clone(),
                    false => copy.site.join(of),
                }),
            ));
        }
        self.writes.push(written);
        Ok(())
    }

    /// The file of the site's tree that the run reads and `place` is, if
    /// any (a file the run writes in place is one it reads), and the
    /// site's directory.
    fn site_file(&self, place: &Place) -> Option<(&Path, PathBuf)> {
        let (Some(walked), Some(site)) = (&self.walked, &self.site) else {
            return None;
        };
        // Not there, it is none of them; keeping nothing, it loses nothing.
        let there = place.there.filter(|_| place.keeps())?;
        // What a run into a copy reads: every file (a link stays a link).
        let copies = self.copy.is_some();
        walked
            .entries
            .iter()
            .filter(|e| e.document || (copies && e.link.is_none()))
            .find(|e| fs::metadata(&e.path).is_ok_and(|m| There::of(&m).id == there.id))
            .map(|e| (site.as_path(), e.path.clone()))
    }

    /// Where `place` falls in the copy's tree, if it is the copy, a file
    /// the copy puts or a directory it makes (by where it leads), or the
    /// file that stands where the copy puts another (by what is there: a
    /// hard link to it, or standard output written into it): the copy, and
    /// the path under the site of what it copies there.
    fn in_copy(&self, place: &Place) -> Option<(&Copy, PathBuf)> {
        let (Some(copy), Some(walked)) = (&self.copy, &self.walked) else {
            return None;
        };
        let relatives = walked.entries.iter().map(|e| e.relative.as_path());
        let under = place
            .real
            .as_deref()
            .and_then(|r| r.strip_prefix(&copy.real).ok());
        if let Some(under) = under {
            if under.as_os_str().is_empty() || relatives.clone().any(|r| r.starts_with(under)) {
                return Some((copy, under.to_owned()));
            }
        }
        // What stands in the copy is replaced, a link too, never followed.
        let there = place.there.filter(|_| place.keeps())?;
        let mut relatives = relatives;
        relatives
            .find(|r| {
                fs::symlink_metadata(copy.real.join(r)).is_ok_and(|m| There::of(&m).id == there.id)
            })
            .map(|r| (copy, r.to_owned()))
    }
}

/// Refuses a copy's tree (`--out-dir`) that overlaps its site's, however
/// either is named.
fn apart(dir: &Path, out: &Path) -> Result<(), SourceError> {
    let found = trees::overlap(dir, out);
    let (out, dir) = (quoted(out), quoted(dir));
    let why = match found {
        Ok(None) => return Ok(()),
        Ok(Some(Overlap::OutInside)) => {
            format!(" is inside the site {dir}: the copy would be rewritten again")
        }
        Ok(Some(Overlap::SiteInside)) => {
            format!(" holds the site {dir}: the copy would be written over it")
        }
        Ok(Some(Overlap::Same)) => format!(
            " is the site {dir}: the copy would be written over it (to rewrite in place, give no --out-dir)"
        ),
        // Not known to be apart: not written.
        Err(e) => format!(
            ": cannot tell whether it overlaps the site {dir}: {}",
            lowercase(&e)
        ),
    };
    Err(SourceError::Refused(format!("--out-dir {out}{why}")))
}
