//! A document's links while they wait for their turn: `--jobs` does a
//! site's files and an archive's records out of order, and each one's
//! links are told in the input's order, after all those before it.
//!
//! They wait drawn from the run's memory where its quarter for what waits
//! between threads has room, and past it in a temporary file, one after
//! another, read back one at a time when their turn comes. So they never
//! hold more than `--max-memory`, and no worker waits for its turn: one
//! that waited holding its document's share could hold the share the
//! document whose turn it is needs (the head's, taken when it was the
//! oldest in flight), and neither would move again.

use std::io::{self, Read, Write};
use std::sync::Arc;

use crate::document::attrs::Kind;
use crate::document::events::Events;
use crate::document::links::{Link, Mapped, Outcome, Position, block};
use crate::document::memory::{Drawn, Memory};
use crate::source::listener::{Checks, Document};
use crate::source::output::spool::Spool;
use crate::url::{Base, Layer, MapRule, Served};

/// A link check and the document whose links it checks, worked out on
/// the document's worker.
#[derive(Clone, Copy)]
pub(crate) struct Check<'a> {
    pub checks: &'a dyn Checks,
    pub document: Document<'a>,
}

impl Check<'_> {
    /// What `link` leads to (`None`: it names nothing to check).
    fn served(self, link: &Link) -> Option<Served> {
        self.checks.served(&self.document, link)
    }
}

/// The links of one document, until they are told, with what their check
/// found when they are checked.
#[derive(Debug)]
pub(crate) enum Waiting {
    /// In memory: drawn from the run's, or told at once (nothing drawn).
    Held {
        links: Vec<Link>,
        verdicts: Option<Vec<Option<Served>>>,
        drawn: Option<Drawn>,
    },
    /// In a spool (which spills to a temporary file), each link as [`put`]
    /// writes it, then its verdict when it was checked; the names of
    /// layers and the `--map` rules they refer to are kept once each, in
    /// memory (a few: the run's own).
    Spilled {
        spool: Spool,
        count: usize,
        checked: bool,
        names: Vec<&'static str>,
        rules: Vec<Arc<MapRule>>,
    },
}

impl Default for Waiting {
    fn default() -> Self {
        Waiting::now(Vec::new(), None)
    }
}

impl Waiting {
    /// Links told as soon as they are taken (and checked): nothing is
    /// drawn for them (they were within their document's share until
    /// now).
    pub(crate) fn now(links: Vec<Link>, check: Option<Check<'_>>) -> Self {
        let verdicts = check.map(|check| links.iter().map(|link| check.served(link)).collect());
        Waiting::Held {
            links,
            verdicts,
            drawn: None,
        }
    }

    /// The links `events` queued, checked with `check` when given, moved
    /// out of their document's share to wait: drawn from the run's
    /// `memory`, or written to a spool where it has no room. They are
    /// written while the share still holds them, so that they are never
    /// counted nowhere; each verdict is drawn for as it is found.
    pub(crate) fn of<W: 'static>(
        events: &Events<W>,
        memory: &Memory,
        check: Option<Check<'_>>,
    ) -> io::Result<Self> {
        let (links, held) = events.take_held();
        let taken = held.taken();
        drop(held);
        let mut verdicts = Vec::new();
        if let Ok(mut drawn) = memory.draw(taken) {
            let Some(check) = check else {
                return Ok(Waiting::Held {
                    links,
                    verdicts: None,
                    drawn: Some(drawn),
                });
            };
            let slots = links.len() * std::mem::size_of::<Option<Served>>();
            if drawn.grow(slots).is_ok() {
                verdicts.reserve_exact(links.len());
                for link in &links {
                    let verdict = check.served(link);
                    if drawn.grow(verdict.as_ref().map_or(0, heap)).is_err() {
                        verdicts.push(verdict);
                        break;
                    }
                    verdicts.push(verdict);
                }
                if verdicts.len() == links.len() {
                    return Ok(Waiting::Held {
                        links,
                        verdicts: Some(verdicts),
                        drawn: Some(drawn),
                    });
                }
            }
        }
        // No room: to the spool, each link checked as it is written (what
        // was checked already, taken as it was).
        let mut spool = Spool::new(memory);
        let mut names = Vec::new();
        let mut rules = Vec::new();
        let mut found = verdicts.into_iter();
        for link in &links {
            put(&mut spool, link, &mut names, &mut rules)?;
            if let Some(check) = check {
                let verdict = found.next().unwrap_or_else(|| check.served(link));
                put_served(&mut spool, verdict.as_ref())?;
            }
        }
        Ok(Waiting::Spilled {
            spool,
            count: links.len(),
            checked: check.is_some(),
            names,
            rules,
        })
    }

    /// How many links wait.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        match self {
            Waiting::Held { links, .. } => links.len(),
            Waiting::Spilled { count, .. } => *count,
        }
    }

    /// Each link, in order, handed to `tell`, with its verdict when it
    /// was checked; what they held is given back as they go.
    pub(crate) fn each(self, mut tell: impl FnMut(Link, Option<Served>)) -> io::Result<()> {
        match self {
            Waiting::Held {
                links,
                verdicts,
                drawn: _drawn,
            } => {
                match verdicts {
                    None => links.into_iter().for_each(|link| tell(link, None)),
                    Some(verdicts) => links
                        .into_iter()
                        .zip(verdicts)
                        .for_each(|(link, verdict)| tell(link, verdict)),
                }
                Ok(())
            }
            Waiting::Spilled {
                mut spool,
                count,
                checked,
                names,
                rules,
            } => {
                let mut reader = spool.reader()?;
                for _ in 0..count {
                    let link = take(&mut reader, &names, &rules)?;
                    let verdict = match checked {
                        true => take_served(&mut reader)?,
                        false => None,
                    };
                    tell(link, verdict);
                }
                Ok(())
            }
        }
    }
}

/// What a verdict holds besides its slot.
fn heap(served: &Served) -> usize {
    match served {
        Served::File(path) | Served::NoFragment(path) => block(path.capacity()),
        Served::Captured(date) | Served::Failed { date, .. } => block(date.capacity()),
        Served::Redirected(to, end) => {
            block(to.capacity()) + block(std::mem::size_of::<Served>()) + heap(end)
        }
        Served::NotFound
        | Served::OffSite
        | Served::Service
        | Served::NotCaptured
        | Served::Looped => 0,
    }
}

/// Writes a verdict: none, or its kind and what it holds.
fn put_served(out: &mut dyn Write, served: Option<&Served>) -> io::Result<()> {
    let Some(served) = served else {
        return out.write_all(&[0]);
    };
    match served {
        Served::File(path) => {
            out.write_all(&[1])?;
            bytes(out, path)
        }
        Served::NotFound => out.write_all(&[2]),
        Served::NoFragment(path) => {
            out.write_all(&[3])?;
            bytes(out, path)
        }
        Served::OffSite => out.write_all(&[4]),
        Served::Captured(date) => {
            out.write_all(&[5])?;
            bytes(out, date.as_bytes())
        }
        Served::Redirected(to, end) => {
            out.write_all(&[6])?;
            bytes(out, to.as_bytes())?;
            put_served(out, Some(end))
        }
        Served::Failed { status, date } => {
            out.write_all(&[7])?;
            number(out, usize::from(*status))?;
            bytes(out, date.as_bytes())
        }
        Served::NotCaptured => out.write_all(&[8]),
        Served::Looped => out.write_all(&[9]),
        Served::Service => out.write_all(&[10]),
    }
}

/// Reads back a verdict [`put_served`] wrote.
fn take_served(input: &mut dyn Read) -> io::Result<Option<Served>> {
    Ok(Some(match read_byte(input)? {
        0 => return Ok(None),
        1 => Served::File(read_bytes(input)?),
        2 => Served::NotFound,
        3 => Served::NoFragment(read_bytes(input)?),
        4 => Served::OffSite,
        5 => Served::Captured(read_string(input)?),
        6 => {
            let to = read_string(input)?;
            let end = take_served(input)?.ok_or_else(garbled)?;
            Served::Redirected(to, Box::new(end))
        }
        7 => {
            let status = u16::try_from(read_number(input)?).map_err(|_| garbled())?;
            Served::Failed {
                status,
                date: read_string(input)?,
            }
        }
        8 => Served::NotCaptured,
        9 => Served::Looped,
        10 => Served::Service,
        _ => return Err(garbled()),
    }))
}

/// Writes `link`: each number as 8 bytes, little-endian; each string as
/// its length, then its bytes; each choice as one byte; a layer's name
/// and a rule as their place in `names` and `rules` (added when new).
fn put(
    out: &mut dyn Write,
    link: &Link,
    names: &mut Vec<&'static str>,
    rules: &mut Vec<Arc<MapRule>>,
) -> io::Result<()> {
    let Position {
        offset,
        line,
        column,
    } = link.position;
    for n in [offset, line, column] {
        number(out, n)?;
    }
    bytes(out, link.element.as_bytes())?;
    bytes(out, link.attribute.as_bytes())?;
    out.write_all(&[link.kind as u8])?;
    bytes(out, link.original.as_bytes())?;
    maybe(out, link.raw.as_deref())?;
    maybe(out, link.absolute.as_deref().map(str::as_bytes))?;
    out.write_all(&[link.outcome as u8])?;
    match link.base.layer {
        Layer::Embedded { offset } => {
            out.write_all(&[0])?;
            number(out, offset)?;
        }
        Layer::XmlBase { offset } => {
            out.write_all(&[1])?;
            number(out, offset)?;
        }
        Layer::Encapsulating { from } => {
            out.write_all(&[2])?;
            number(out, place_of(names, from, |a, b| std::ptr::eq(*a, *b)))?;
        }
        Layer::Retrieval { from } => {
            out.write_all(&[3])?;
            number(out, place_of(names, from, |a, b| std::ptr::eq(*a, *b)))?;
        }
        Layer::Empty => out.write_all(&[4])?,
    }
    bytes(out, link.base.url.as_bytes())?;
    let Some(mapped) = &link.mapped else {
        return out.write_all(&[0]);
    };
    out.write_all(&[1])?;
    bytes(out, mapped.url.as_bytes())?;
    match &mapped.rule {
        None => out.write_all(&[0])?,
        Some(rule) => {
            out.write_all(&[1])?;
            let at = place_of(rules, Arc::clone(rule), Arc::ptr_eq);
            number(out, at)?;
        }
    }
    maybe(out, mapped.relative.as_deref().map(str::as_bytes))
}

/// Reads back a link [`put`] wrote.
fn take(input: &mut dyn Read, names: &[&'static str], rules: &[Arc<MapRule>]) -> io::Result<Link> {
    let position = Position {
        offset: read_number(input)?,
        line: read_number(input)?,
        column: read_number(input)?,
    };
    let element = read_string(input)?;
    let attribute = read_string(input)?;
    let kind = one_of(&Kind::ALL, read_byte(input)?)?;
    let original = read_string(input)?;
    let raw = read_maybe(input)?;
    let absolute = read_maybe(input)?.map(text).transpose()?;
    let outcome = one_of(&Outcome::ALL, read_byte(input)?)?;
    let named = |input: &mut dyn Read| -> io::Result<&'static str> {
        names.get(read_number(input)?).copied().ok_or_else(garbled)
    };
    let layer = match read_byte(input)? {
        0 => Layer::Embedded {
            offset: read_number(input)?,
        },
        1 => Layer::XmlBase {
            offset: read_number(input)?,
        },
        2 => Layer::Encapsulating {
            from: named(input)?,
        },
        3 => Layer::Retrieval {
            from: named(input)?,
        },
        4 => Layer::Empty,
        _ => return Err(garbled()),
    };
    let base = Base {
        layer,
        url: read_string(input)?.into(),
    };
    let mapped = match read_byte(input)? {
        0 => None,
        1 => {
            let url = read_string(input)?;
            let rule = match read_byte(input)? {
                0 => None,
                1 => Some(Arc::clone(
                    rules.get(read_number(input)?).ok_or_else(garbled)?,
                )),
                _ => return Err(garbled()),
            };
            let relative = read_maybe(input)?.map(text).transpose()?;
            Some(Box::new(Mapped {
                url,
                rule,
                relative,
            }))
        }
        _ => return Err(garbled()),
    };
    Ok(Link {
        position,
        element: element.into(),
        attribute: attribute.into(),
        kind,
        original,
        raw,
        absolute,
        outcome,
        base,
        mapped,
    })
}

/// Where `item` is in `table` (`same` tells), added at its end when it is
/// not there yet.
fn place_of<T>(table: &mut Vec<T>, item: T, same: impl Fn(&T, &T) -> bool) -> usize {
    match table.iter().position(|t| same(t, &item)) {
        Some(at) => at,
        None => {
            table.push(item);
            table.len() - 1
        }
    }
}

/// The choice written as `tag`: its place in `all`.
fn one_of<T: Copy>(all: &[T], tag: u8) -> io::Result<T> {
    all.get(usize::from(tag)).copied().ok_or_else(garbled)
}

fn number(out: &mut dyn Write, n: usize) -> io::Result<()> {
    out.write_all(&(n as u64).to_le_bytes())
}

fn bytes(out: &mut dyn Write, b: &[u8]) -> io::Result<()> {
    number(out, b.len())?;
    out.write_all(b)
}

fn maybe(out: &mut dyn Write, b: Option<&[u8]>) -> io::Result<()> {
    match b {
        None => out.write_all(&[0]),
        Some(b) => {
            out.write_all(&[1])?;
            bytes(out, b)
        }
    }
}

fn read_byte(input: &mut dyn Read) -> io::Result<u8> {
    let mut b = [0];
    input.read_exact(&mut b)?;
    Ok(b[0])
}

fn read_number(input: &mut dyn Read) -> io::Result<usize> {
    let mut b = [0; 8];
    input.read_exact(&mut b)?;
    usize::try_from(u64::from_le_bytes(b)).map_err(|_| garbled())
}

fn read_bytes(input: &mut dyn Read) -> io::Result<Vec<u8>> {
    let len = read_number(input)?;
    let mut b = Vec::new();
    input.take(len as u64).read_to_end(&mut b)?;
    if b.len() != len {
        return Err(garbled());
    }
    Ok(b)
}

fn read_string(input: &mut dyn Read) -> io::Result<String> {
    text(read_bytes(input)?)
}

fn read_maybe(input: &mut dyn Read) -> io::Result<Option<Vec<u8>>> {
    match read_byte(input)? {
        0 => Ok(None),
        1 => read_bytes(input).map(Some),
        _ => Err(garbled()),
    }
}

fn text(b: Vec<u8>) -> io::Result<String> {
    String::from_utf8(b).map_err(|_| garbled())
}

/// The temporary file does not hold what was written to it.
fn garbled() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        "a temporary file of links does not read back as it was written",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rewriter;
    use crate::document::config::Config;
    use crate::url::Layers;

    /// The links of a page with a link of each kind, layer and outcome
    /// that one page can give.
    fn links() -> Vec<Link> {
        let mut config = Config::default();
        config.map =
            crate::url::UrlMap::new(&["http://h/old/=http://h/new/".to_owned()], config.standard)
                .unwrap();
        let layers = Layers::default()
            .with_retrieval(config.standard, "http://h/a/", "--retrieved-from")
            .unwrap();
        let page = "<a href=b>x</a><img srcset='c 1x, d 2x'><a href='../old/e'>\
                    <a href='mailto:x@h'><a href=#f><a href=''>\
                    <div style='background: url(g)'></div>\
                    <iframe srcdoc='<a href=i>'></iframe><a href='\u{e9}'>";
        let mut out = Vec::new();
        let mut rewriter =
            Rewriter::new(crate::typed::Type::Html, Arc::new(config), layers, &mut out)
                .with_links();
        let events = rewriter.events();
        rewriter.write(page.as_bytes()).unwrap();
        rewriter.end().unwrap();
        events.take_links()
    }

    #[test]
    fn links_spilled_read_back_as_they_were() {
        let links = links();
        assert!(links.len() >= 9, "{links:#?}");
        assert!(links.iter().any(|l| l.mapped.is_some()), "a --map rule");
        // A run of 2,048 bytes: the links take 1,000 of the document's
        // share, twice the 512 for what waits, and go to a spool, which
        // spills to a file.
        let memory = Memory::new(2048);
        let events: Events = Events::default();
        let allowance = crate::document::memory::Allowance::new(memory.alone());
        events.charge(&allowance);
        let mut budget = allowance.budget();
        budget.take(1000).unwrap();
        events.keep((links.clone(), budget));
        let waiting = Waiting::of(&events, &memory, None).unwrap();
        assert!(matches!(&waiting, Waiting::Spilled { spool, .. } if spool.spilled()));
        assert_eq!(waiting.len(), links.len());
        let mut back = Vec::new();
        waiting
            .each(|link, verdict| back.push((link, verdict)))
            .unwrap();
        let unchecked: Vec<_> = links.into_iter().map(|l| (l, None)).collect();
        assert_eq!(back, unchecked);
    }

    #[test]
    fn links_with_room_are_drawn_and_given_back_once_told() {
        let memory = Memory::new(1 << 24);
        let allowance = crate::document::memory::Allowance::new(memory.alone());
        let events: Events = Events::default();
        events.charge(&allowance);
        let mut budget = allowance.budget();
        budget.take(1000).unwrap();
        events.keep((links(), budget));
        let waiting = Waiting::of(&events, &memory, None).unwrap();
        assert!(matches!(&waiting, Waiting::Held { drawn: Some(d), .. } if d.bytes() == 1000));
        assert_eq!(memory.peak(), memory.head_size() + 1000);
        let mut told = 0;
        waiting.each(|_, _| told += 1).unwrap();
        assert_eq!(told, links().len());
    }

    /// A verdict of each kind, by the link's place.
    fn verdict(link: &Link) -> Option<Served> {
        let path = link.original.as_bytes().to_vec();
        match link.position.offset % 8 {
            0 => None,
            1 => Some(Served::File(path)),
            2 => Some(Served::NoFragment(path)),
            3 => Some(Served::Redirected(
                link.original.clone(),
                Box::new(Served::Failed {
                    status: 404,
                    date: "2024-05-01T10:00:00Z".into(),
                }),
            )),
            4 => Some(Served::Captured("2024-05-01T10:00:00Z".into())),
            5 => Some(Served::NotFound),
            6 => Some(Served::Service),
            _ => Some(Served::Looped),
        }
    }

    /// A check that gives [`verdict`].
    struct Verdicts;

    impl Checks for Verdicts {
        fn served(&self, _: &Document<'_>, link: &Link) -> Option<Served> {
            verdict(link)
        }

        fn told(&self, _: &Link, _: Option<&Served>) {}
    }

    fn check() -> Check<'static> {
        Check {
            checks: &Verdicts,
            document: Document::Run,
        }
    }

    #[test]
    fn links_checked_wait_with_their_verdicts_held_or_spilled() {
        let links = links();
        let expected: Vec<_> = links.iter().map(|l| (l.clone(), verdict(l))).collect();
        assert!(expected.iter().filter_map(|(_, v)| v.as_ref()).count() >= 5);
        // Room for the links and their verdicts, room for the links alone,
        // no room: held, and spilled (after some verdicts were drawn for,
        // and before any).
        for (total, taken, spilled) in [
            (1 << 24, 1000, false),
            (2048, 400, true),
            (2048, 1000, true),
        ] {
            let memory = Memory::new(total);
            let allowance = crate::document::memory::Allowance::new(memory.alone());
            let events: Events = Events::default();
            events.charge(&allowance);
            let mut budget = allowance.budget();
            budget.take(taken).unwrap();
            events.keep((links.clone(), budget));
            let waiting = Waiting::of(&events, &memory, Some(check())).unwrap();
            assert_eq!(
                matches!(waiting, Waiting::Spilled { .. }),
                spilled,
                "{total}, {taken}"
            );
            let mut back = Vec::new();
            waiting
                .each(|link, verdict| back.push((link, verdict)))
                .unwrap();
            assert_eq!(back, expected, "{total}, {taken}");
        }
        let told = Waiting::now(links.clone(), Some(check()));
        let mut back = Vec::new();
        told.each(|link, verdict| back.push((link, verdict)))
            .unwrap();
        assert_eq!(back, expected);
    }
}
