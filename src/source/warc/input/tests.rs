//! The reader alone: each record's place; where the records stop and why;
//! the output is the input whole. Whole, in 1-byte reads and in uneven ones.

use std::io::{self, Read, Write};
use std::path::Path;

use flate2::Compression;
use flate2::write::GzEncoder;

use std::sync::Arc;

use super::{Inflating, Place, Stop, Units};
use crate::source::output::behind::Direct;

/// A reader that gives at most `sizes[i]` bytes per read, cycled.
struct Writes<'a> {
    bytes: &'a [u8],
    sizes: Vec<usize>,
    i: usize,
}

impl Read for Writes<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let size = self.sizes[self.i % self.sizes.len()].max(1);
        self.i += 1;
        let n = size.min(buf.len()).min(self.bytes.len());
        buf[..n].copy_from_slice(&self.bytes[..n]);
        self.bytes = &self.bytes[n..];
        Ok(n)
    }
}

// The reader alone: each record's place; where the records stop and why;
// the output is the input whole.

fn record(id: &str, block: &str) -> Vec<u8> {
    format!(
        "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:{id}>\r\nContent-Length: {}\r\n\r\n{block}\r\n\r\n",
        block.len()
    )
    .into_bytes()
}

fn member(bytes: &[u8]) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

/// A record as read: its place, ID and block.
type Found = (Place, String, Vec<u8>);

/// A record misframed: its place, why, and where the records went on.
type Misframed = (Place, String, Option<Place>);

/// What was read: the records, the misframed ones, and where (and why)
/// the records stop before the input does.
type Read_ = (Vec<Found>, Vec<Misframed>, Option<(Place, String)>);

/// Each record read; where the records stop, and why. The output is
/// checked to be the input whole. A gzip input is also read cut into
/// segments inflated on a pool, in segments of every size from a few bytes
/// on: the same records, places, stop and output, whatever the cuts.
fn read(input: &[u8], sizes: &[usize]) -> Read_ {
    let streamed = read_with(input, sizes, None);
    if input.starts_with(&super::GZIP_MAGIC) {
        for inflating in inflatings() {
            let (least, cap, budget) = (inflating.least, inflating.cap, inflating.budget);
            let cut = read_with(input, sizes, Some(inflating));
            assert_eq!(
                cut, streamed,
                "inflated ahead in segments of {least} to {cap} bytes, {budget} inflated"
            );
        }
    }
    streamed
}

/// Ways to cut and inflate ahead: tiny segments (each cut within members,
/// each member read by the reader), segments of a member or a few, a
/// budget that stops the inflating within a segment, one segment.
fn inflatings() -> Vec<Inflating> {
    let pool = Arc::new(
        rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap(),
    );
    [
        (1, 1, 1, 1 << 20),
        (1, 7, 30, 1 << 20),
        (1, 3, 64, 1 << 20),
        (4, 1, 400, 1 << 20),
        (2, 40, 1 << 20, 1 << 20),
        (3, 1, 1 << 20, 100),
        (8, 1 << 20, 1 << 21, 1 << 20),
    ]
    .into_iter()
    .map(|(ahead, least, cap, budget)| Inflating {
        pool: Arc::clone(&pool),
        ahead,
        least,
        cap,
        budget,
        // Room for every segment: how the input is cut is what varies.
        memory: crate::document::memory::Memory::new(1 << 40),
    })
    .collect()
}

fn read_with(input: &[u8], sizes: &[usize], inflating: Option<Inflating>) -> Read_ {
    let reader = Writes {
        bytes: input,
        sizes: sizes.to_vec(),
        i: 0,
    };
    let mut units: Units<_, _, ()> = Units::new(
        reader,
        Direct(Vec::new()),
        crate::document::memory::Memory::new(4 << 20),
        false,
        inflating,
    )
    .unwrap();
    let mut records = Vec::new();
    let mut misframed = Vec::new();
    let stop = loop {
        let result = units.more().and_then(|more| {
            if !more {
                return Ok(None);
            }
            let at = units.place();
            let header = units.header()?;
            let length = header
                .content_length()
                .map_err(|why| Stop::Misframed { at, why })?;
            let mut block = Vec::new();
            units.block(at, length, Some(&mut block))?;
            Ok(Some((at, header.record_id(), block)))
        });
        let stop = match result {
            Ok(Some(record)) => {
                records.push(record);
                continue;
            }
            Ok(None) => break None,
            Err(Stop::Misframed { at, why }) => match units.read_on(at) {
                Ok(next) => {
                    misframed.push((at, why, next));
                    continue;
                }
                Err(stop) => stop,
            },
            Err(stop) => stop,
        };
        match stop {
            Stop::Malformed { at, why } => break Some((at, why)),
            Stop::Misframed { .. } => unreachable!("not from read_on"),
            Stop::Io(e) => panic!("{e}"),
        }
    };
    if stop.is_some() {
        units.copy_rest().unwrap();
    }
    let output = units.finish().unwrap().into_inner().0;
    assert_eq!(output, input, "the output is the input, byte for byte");
    (records, misframed, stop)
}

const SIZES: [&[usize]; 4] = [&[usize::MAX], &[1], &[3, 1, 7, 2, 64, 5], &[4096, 13]];

#[test]
fn records_and_their_places_in_gzip_members_and_plain() {
    let (a, b, c) = (
        record("a", "<p>1</p>"),
        record("b", ""),
        record("c", "x\r\n\r\ny"),
    );
    let first = member(&a);
    let both = member(&[b.clone(), c.clone()].concat());
    let gzip = [first.clone(), both].concat();
    let plain = [a.clone(), b.clone(), c.clone()].concat();
    for sizes in SIZES {
        let (records, _, stop) = read(&gzip, sizes);
        assert_eq!(stop, None);
        let places: Vec<Place> = records.iter().map(|r| r.0).collect();
        let m = first.len() as u64;
        assert_eq!(
            places,
            [
                Place::Member {
                    member: 0,
                    within: 0
                },
                Place::Member {
                    member: m,
                    within: 0
                },
                Place::Member {
                    member: m,
                    within: b.len() as u64
                },
            ]
        );
        assert_eq!(records[2].1, "<urn:x:c>");
        assert_eq!(records[2].2, b"x\r\n\r\ny");
        let (records, _, stop) = read(&plain, sizes);
        assert_eq!(stop, None);
        let places: Vec<Place> = records.iter().map(|r| r.0).collect();
        assert_eq!(
            places,
            [
                Place::Byte(0),
                Place::Byte(a.len() as u64),
                Place::Byte((a.len() + b.len()) as u64)
            ]
        );
    }
}

#[test]
fn a_cut_record_stops_the_records_at_its_place() {
    let (a, b) = (record("a", "<p>1</p>"), record("b", "two"));
    let cut = [a.clone(), b[..b.len() - 6].to_vec()].concat();
    let gzip_cut = [member(&a), member(&b)[..20].to_vec()].concat();
    let cases = [
        (
            &cut,
            Place::Byte(a.len() as u64),
            "the input ends within the record's block, after 1 of its 3 bytes (`Content-Length`)",
        ),
        (
            &gzip_cut,
            Place::Member {
                member: member(&a).len() as u64,
                within: 0,
            },
            "its gzip data breaks: incomplete deflate stream",
        ),
    ];
    for sizes in SIZES {
        for (input, place, why) in &cases {
            let (records, misframed, stop) = read(input, sizes);
            assert_eq!(records.len(), 1);
            assert!(misframed.is_empty());
            assert_eq!(stop, Some((*place, why.to_string())), "{sizes:?}");
        }
    }
}

/// `record(id, block)` with its header's lines ending in `eol` and the
/// line ends after its block `after`.
fn framed(id: &str, block: &str, eol: &str, after: &str) -> Vec<u8> {
    format!(
        "WARC/1.1{eol}WARC-Type: resource{eol}WARC-Record-ID: <urn:x:{id}>{eol}Content-Length: {}{eol}{eol}{block}{after}",
        block.len()
    )
    .into_bytes()
}

/// Each input as plain records, as gzip members (one a record, inflated
/// as it comes and ahead in segments of every size: `read`), as one gzip
/// member, and as zstd frames (one a record).
fn packed(records: &[Vec<u8>]) -> [(&'static str, Vec<u8>); 4] {
    [
        ("plain", records.concat()),
        ("gzip", records.iter().flat_map(|r| member(r)).collect()),
        ("one member", member(&records.concat())),
        (
            "zstd",
            records.iter().flat_map(|r| zframe(r, None)).collect(),
        ),
    ]
}

#[test]
fn records_framed_as_other_writers_frame_them_are_read_as_warcio_reads_them() {
    for (eol, after) in [
        // node-warc: one CRLF after a block.
        ("\r\n", "\r\n"),
        // A CRLF written through a text-mode stream.
        ("\r\r\n", "\r\r\n\r\r\n"),
        ("\n", "\n\n"),
        // None: the next record, or the unit's end, right after a block.
        ("\r\n", ""),
    ] {
        let records = [
            framed("a", "<p>1</p>", eol, after),
            framed("b", "x\r\n\r\ny", eol, after),
            framed("c", "", eol, after),
        ];
        for (packing, input) in packed(&records) {
            for sizes in SIZES {
                let (found, misframed, stop) = read(&input, sizes);
                let blocks: Vec<&[u8]> = found.iter().map(|r| &r.2[..]).collect();
                let case = format!("{eol:?} {after:?}, {packing}, {sizes:?}");
                assert_eq!(blocks, [&b"<p>1</p>"[..], b"x\r\n\r\ny", b""], "{case}");
                assert_eq!(found[2].1, "<urn:x:c>", "{case}");
                assert_eq!((misframed, stop), (vec![], None), "{case}");
            }
        }
    }
}

#[test]
fn a_misframed_record_is_passed_over_to_the_next_line_that_starts_with_warc() {
    let (a, b, c) = (
        record("a", "<p>1</p>"),
        record("b", "two\nlines"),
        record("c", "x"),
    );
    let length = |record: &[u8], from: &str, to: &str| {
        let at = memchr::memmem::find(record, from.as_bytes()).unwrap();
        [&record[..at], to.as_bytes(), &record[at + from.len()..]].concat()
    };
    let no_empty_line = |n: usize| {
        format!(
            "no empty line after the block's {n} bytes: `Content-Length` is not the block's length"
        )
    };
    // (what stands between `a` and `c`, why it is misframed, and whether
    // the members of `packed` say otherwise). Lines that are no record
    // right after a block, in a plain input (or in one member), make that
    // block misframed: its `Content-Length` may have cut it short (the
    // run reads it all the same where its digest says it is whole).
    let cases = [
        // Too short: the rest of the block follows.
        (length(&b, "Length: 9", "Length: 5"), no_empty_line(5), None),
        // Too long: into the empty lines and the next record's `WA`, in
        // a plain input; in gzip and zstd, up to the end of its member
        // (frame), where the next one starts with a record.
        (
            length(&b, "Length: 9", "Length: 15"),
            no_empty_line(15),
            Some(
                "its block runs on into a record that starts a new {unit}, after 13 of its 15 bytes: `Content-Length` is not the block's length",
            ),
        ),
        // Lines that are no record.
        (
            b"<html>no record</html>\r\nWARC-Type: x\r\n".to_vec(),
            "`<html>no record</html>` is not a WARC version line".to_owned(),
            None,
        ),
        (
            b"xWARC/1.1\r\n".to_vec(),
            "`xWARC/1.1` is not a WARC version line".to_owned(),
            None,
        ),
        // A header that is not one.
        (
            b"WARC/1.1\r\nno colon\r\n\r\n".to_vec(),
            "header line `no colon` has no colon".to_owned(),
            None,
        ),
        (
            b"WARC/1.1\r\nContent-Length: x\r\n\r\n".to_vec(),
            "`Content-Length: x` is not a length".to_owned(),
            None,
        ),
    ];
    for (between, why, in_units) in &cases {
        let records = [a.clone(), between.clone(), c.clone()];
        for (packing, input) in packed(&records) {
            let unit = match packing {
                "plain" => "record",
                "zstd" => "zstd frame",
                _ => "gzip member",
            };
            let starts: Vec<u64> = match packing {
                "plain" | "one member" => {
                    let (a, b) = (a.len() as u64, between.len() as u64);
                    vec![0, a, a + b]
                }
                _ => {
                    let units: Vec<Vec<u8>> = match packing {
                        "gzip" => records.iter().map(|r| member(r)).collect(),
                        _ => records.iter().map(|r| zframe(r, None)).collect(),
                    };
                    units
                        .iter()
                        .scan(0, |at, unit| {
                            *at += unit.len() as u64;
                            Some(*at - unit.len() as u64)
                        })
                        .collect()
                }
            };
            let place = |i: usize| match packing {
                "plain" => Place::Byte(starts[i]),
                "one member" => Place::Member {
                    member: 0,
                    within: starts[i],
                },
                "gzip" => Place::Member {
                    member: starts[i],
                    within: 0,
                },
                _ => Place::Frame {
                    frame: starts[i],
                    within: 0,
                },
            };
            let garbage = !between.starts_with(b"WARC/");
            let in_one = matches!(packing, "plain" | "one member");
            let (why, first) = match (in_units, packing) {
                (Some(why), "gzip" | "zstd") => (why.replace("{unit}", unit), 1),
                _ if garbage && in_one => (no_empty_line(8), 0),
                _ => (why.clone(), 1),
            };
            // Too long, in a plain input: `c`'s start is within the block,
            // and the records go on at none.
            let lost = in_units.is_some() && matches!(packing, "plain" | "one member");
            for sizes in SIZES {
                let case = format!("{why}, {packing}, {sizes:?}");
                let (found, misframed, stop) = read(&input, sizes);
                let ids: Vec<&str> = found.iter().map(|r| &r.1[..]).collect();
                let next = (!lost).then(|| place(2));
                assert_eq!(stop, None, "{case}");
                assert_eq!(misframed, [(place(first), why.clone(), next)], "{case}");
                let expected: &[&str] = match (lost, first) {
                    (true, _) => &["<urn:x:a>"],
                    (false, 0) => &["<urn:x:c>"],
                    (false, _) => &["<urn:x:a>", "<urn:x:c>"],
                };
                assert_eq!(ids, expected, "{case}");
            }
        }
    }
}

/// One zstd frame of `bytes`, as the specification asks (its content
/// size, its checksum), with `dictionary` when given.
fn zframe(bytes: &[u8], dictionary: Option<&[u8]>) -> Vec<u8> {
    let mut compressor = match dictionary {
        Some(dictionary) => zstd::bulk::Compressor::with_dictionary(3, dictionary),
        None => zstd::bulk::Compressor::new(3),
    }
    .unwrap();
    compressor
        .set_parameter(zstd::zstd_safe::CParameter::ChecksumFlag(true))
        .unwrap();
    compressor.compress(bytes).unwrap()
}

/// A skippable frame: `magic` 0x184D2A5D is the dictionary frame's.
fn skippable(magic: u32, data: &[u8]) -> Vec<u8> {
    [
        &magic.to_le_bytes()[..],
        &(data.len() as u32).to_le_bytes(),
        data,
    ]
    .concat()
}

/// The dictionary that starts the fixture with one, and its frame.
fn fixture_dictionary() -> (Vec<u8>, Vec<u8>) {
    let bytes = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/warc/shapes-dict.warc.zst"),
    )
    .unwrap();
    let mut rest = &bytes[..];
    let dictionary = crate::source::warc::zst::read_dictionary(&mut rest)
        .unwrap()
        .unwrap()
        .unwrap();
    let frame = bytes[..bytes.len() - rest.len()].to_vec();
    (dictionary.to_vec(), frame)
}

#[test]
fn records_and_their_places_in_zstd_frames() {
    let (a, b, c) = (
        record("a", "<p>1</p>"),
        record("b", &"a longer block ".repeat(40)),
        record("c", "x\r\n\r\ny"),
    );
    let (dictionary, head) = fixture_dictionary();
    let d = Some(&dictionary[..]);
    let half = b.len() / 2;
    let parts = [
        head,
        zframe(&a, d),
        skippable(0x184d_2a50, b"ignored"),
        // A record may span several frames.
        zframe(&b[..half], d),
        zframe(&b[half..], d),
        zframe(&c, d),
    ];
    let starts: Vec<u64> = parts
        .iter()
        .scan(0, |at, part| {
            let start = *at;
            *at += part.len() as u64;
            Some(start)
        })
        .collect();
    let input = parts.concat();
    let frame = |i: usize| Place::Frame {
        frame: starts[i],
        within: 0,
    };
    for sizes in SIZES {
        let (records, _, stop) = read(&input, sizes);
        assert_eq!(stop, None);
        let places: Vec<Place> = records.iter().map(|r| r.0).collect();
        assert_eq!(places, [frame(1), frame(3), frame(5)], "{sizes:?}");
        assert_eq!(records[1].2, "a longer block ".repeat(40).as_bytes());
        assert_eq!(records[2].2, b"x\r\n\r\ny");
    }
    // Without a dictionary.
    let plain = [zframe(&a, None), zframe(&c, None)].concat();
    let (records, _, stop) = read(&plain, &[usize::MAX]);
    assert_eq!(stop, None);
    assert_eq!(records.len(), 2);
    // A dictionary frame that holds none: nothing after it can be read,
    // and all of it comes out as it came (checked by `read`).
    let broken = [skippable(0x184d_2a5d, b"junk"), zframe(&a, None)].concat();
    let (records, _, stop) = read(&broken, &[usize::MAX]);
    assert!(records.is_empty());
    assert_eq!(
        stop,
        Some((
            Place::Frame {
                frame: 12,
                within: 0
            },
            "its zstd data breaks: its dictionary frame breaks: it holds no zstd dictionary"
                .to_owned()
        ))
    );
}

// A gzip input cut into segments inflated ahead: every case is checked by
// `read` against the input inflated as it comes.

fn member_at(bytes: &[u8], level: u32) -> Vec<u8> {
    let mut gz = GzEncoder::new(Vec::new(), Compression::new(level));
    gz.write_all(bytes).unwrap();
    gz.finish().unwrap()
}

fn record_of(id: usize, block: &[u8]) -> Vec<u8> {
    [
        format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:x:{id}>\r\nContent-Length: {}\r\n\r\n",
            block.len()
        )
        .as_bytes(),
        block,
        b"\r\n\r\n",
    ]
    .concat()
}

/// A gzip header as writers make it: what the scan takes for a member's
/// start.
const LOOKS_LIKE_A_MEMBER: &[u8] = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03";

#[test]
fn a_place_that_only_looks_like_a_member_start_changes_nothing() {
    // Stored (level 0), the block's bytes are in the member as they are:
    // the scan cuts there, within the member.
    let block = [LOOKS_LIKE_A_MEMBER, b"more", LOOKS_LIKE_A_MEMBER].concat();
    let (a, b) = (record_of(1, &block), record("b", "<p>2</p>"));
    let first = member_at(&a, 0);
    assert!(
        first[1..]
            .windows(LOOKS_LIKE_A_MEMBER.len())
            .any(|w| w == LOOKS_LIKE_A_MEMBER),
        "the first member holds what looks like a member's start"
    );
    let input = [first.clone(), member_at(&b, 0), member_at(&a, 6)].concat();
    for sizes in SIZES {
        let (records, _, stop) = read(&input, sizes);
        assert_eq!(stop, None);
        assert_eq!(records.len(), 3);
        assert_eq!(records[0].2, block);
        assert_eq!(
            records[1].0,
            Place::Member {
                member: first.len() as u64,
                within: 0
            }
        );
    }
}

#[test]
fn a_member_the_scan_does_not_take_for_one_is_inflated_after_the_one_before() {
    let (a, b) = (record("a", "<p>1</p>"), record("b", "<p>2</p>"));
    let mut second = member(&b);
    // An `OS` no writer uses: not a place the scan cuts at; the header's
    // bytes are not in the member's check.
    second[9] = 77;
    let input = [member(&a), second, member(&a)].concat();
    for sizes in SIZES {
        let (records, _, stop) = read(&input, sizes);
        assert_eq!(stop, None);
        assert_eq!(records.len(), 3);
    }
}

#[test]
fn a_member_that_breaks_anywhere_stops_the_records_where_it_does_however_cut() {
    let (a, b, c) = (
        record("a", "<p>1</p>"),
        record("b", &"two ".repeat(50)),
        record("c", "x"),
    );
    let members = [member(&a), member_at(&b, 0), member(&c)];
    let whole = members.concat();
    // Cut short at every byte, and a byte changed at every byte of the
    // second member (its header, data, check and length): the records and
    // the stop as when inflated as it comes, the output the input.
    for end in 0..whole.len() {
        if whole[..end].starts_with(&super::GZIP_MAGIC) {
            read(&whole[..end], &[usize::MAX]);
        }
    }
    let second = members[0].len()..members[0].len() + members[1].len();
    for at in second {
        let mut changed = whole.clone();
        changed[at] ^= 0x55;
        read(&changed, &[usize::MAX]);
        read(&changed, &[3, 1, 7]);
    }
    // Bytes that are no member between two members.
    let junk = [members[0].clone(), b"junk\n".to_vec(), members[2].clone()].concat();
    let (records, _, stop) = read(&junk, &[usize::MAX]);
    assert_eq!(records.len(), 1);
    assert!(stop.unwrap().1.contains("invalid gzip header"));
}

mod segments {
    use proptest::prelude::*;

    use super::*;

    /// A record's block: bytes, some of which look like a member's start.
    fn block() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(
            prop_oneof![
                4 => prop::collection::vec(any::<u8>(), 0..40),
                1 => Just(LOOKS_LIKE_A_MEMBER.to_vec()),
                1 => Just(b"<a href=x>".to_vec()),
            ],
            0..6,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig {
            cases: 48,
            rng_seed: prop::test_runner::RngSeed::Fixed(1808),
            ..ProptestConfig::default()
        })]

        /// Records in members of one, two or half of one each (a record
        /// split over two members), stored or compressed, the input cut
        /// short or a byte changed somewhere: read the same however the
        /// input is cut into segments and however it is read.
        #[test]
        fn records_read_the_same_however_the_input_is_cut(
            blocks in prop::collection::vec(block(), 1..8),
            layout in prop::collection::vec((0..3u8, prop_oneof![Just(0u32), Just(1), Just(9)]), 8),
            damage in prop::option::of((any::<prop::sample::Index>(), any::<u8>(), any::<bool>())),
        ) {
            let records: Vec<Vec<u8>> =
                blocks.iter().enumerate().map(|(i, b)| record_of(i, b)).collect();
            let mut input = Vec::new();
            let mut i = 0;
            for (shape, level) in layout.iter().cycle() {
                if i >= records.len() {
                    break;
                }
                match shape {
                    0 => {
                        input.extend(member_at(&records[i], *level));
                        i += 1;
                    }
                    1 if i + 1 < records.len() => {
                        input.extend(member_at(&[records[i].clone(), records[i + 1].clone()].concat(), *level));
                        i += 2;
                    }
                    _ => {
                        let half = records[i].len() / 2;
                        input.extend(member_at(&records[i][..half], *level));
                        input.extend(member_at(&records[i][half..], *level));
                        i += 1;
                    }
                }
            }
            if let Some((at, byte, cut)) = damage {
                let at = at.index(input.len()).max(2);
                match cut {
                    true => input.truncate(at),
                    false => input[at] ^= byte | 1,
                }
            }
            // However the input is read, too.
            let whole = read(&input, &[usize::MAX]);
            prop_assert_eq!(read(&input, &[1]), whole.clone());
            prop_assert_eq!(read(&input, &[5, 1, 64]), whole);
        }
    }
}
