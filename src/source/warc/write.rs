//! New records: the header written field by field (or edited from the
//! original's, byte for byte but for the fields that change), the block
//! after it, a gzip member of their own when the input is gzip (one member
//! per record, so that an index can point at each), a zstd frame of their
//! own when it is zstd (with the input's dictionary, their content size
//! and checksum, as the WARC zstd specification requires).
//!
//! A record held in memory is compressed whole by libdeflate; one spilled
//! past `--max-memory`, or longer than 4 MiB, streams through flate2. libdeflate, on the corpus
//! pages in records of 140 kB, compresses at level 6 at 1.29× zlib-rs's
//! speed into 1% fewer bytes, at level 1 at its speed into 22% fewer
//! (0.214 of the HTML instead of 0.275); it has no streaming interface,
//! which is why the other path stays.

use std::cell::RefCell;
use std::io::{self, Write};

use flate2::Compression;
use flate2::write::GzEncoder;
use libdeflater::{CompressionLvl, Compressor};
use zstd::zstd_safe::CParameter;

use super::header::Header;
use super::zst::Dictionary;
use crate::source::output::spool::Held;

/// A record to write: its header, through its empty line, and its block.
pub struct Record<'a> {
    pub head: Vec<u8>,
    pub block: &'a mut dyn Held,
}

/// gzip's level for new records unless asked otherwise. libdeflate's
/// level 1 is the one at which rewriting a `.warc.gz` takes no more CPU
/// than decompressing and recompressing it (`zcat | gzip -1`, the issue's
/// floor): the decoded pages are more bytes than the archive holds, half
/// of them having come gzip-encoded. It writes them 8% larger than its
/// level 6 (zlib's default, wget's), 22% smaller than zlib's level 1;
/// `--gzip-level 6` or 9 for an archive where size matters more.
pub const LEVEL: u32 = 1;

/// zstd's level for new records unless asked otherwise: its own default.
pub const ZSTD_LEVEL: i32 = 3;

/// How new records are written: compressed as the input's records are.
#[derive(Debug, Clone)]
pub enum Packing {
    Plain,
    /// One gzip member each, at this level.
    Gzip(u32),
    /// One zstd frame each, at this level, with the input's dictionary.
    Zstd {
        level: i32,
        dictionary: Option<Dictionary>,
    },
}

/// A new header: its version line (`WARC/1.1`) and its fields in order (a
/// field is never repeated).
pub fn head(version: &[u8], fields: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut head = Vec::with_capacity(512);
    head.extend_from_slice(version);
    head.extend_from_slice(b"\r\n");
    for (name, value) in fields {
        field(&mut head, name.as_bytes(), value);
    }
    head.extend_from_slice(b"\r\n");
    head
}

fn field(head: &mut Vec<u8>, name: &[u8], value: &[u8]) {
    head.extend_from_slice(name);
    head.extend_from_slice(b": ");
    head.extend_from_slice(value);
    head.extend_from_slice(b"\r\n");
}

/// `original`'s header with the fields `set` names given new values: each
/// where it first stood (its name as it was spelled; a repeat of it
/// dropped), or after the others when it was not there; `after` fields put
/// right after the first of `set`. Every other line byte for byte.
pub fn edited(original: &Header, set: &[(&str, Vec<u8>)], after: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut head = Vec::with_capacity(original.bytes().len() + 128);
    head.extend_from_slice(original.version_line());
    head.extend_from_slice(b"\r\n");
    let mut done = vec![false; set.len()];
    let put_after = |head: &mut Vec<u8>| {
        for (name, value) in after {
            field(head, name.as_bytes(), value);
        }
    };
    let mut after_put = false;
    for (name, value) in original.fields() {
        match set
            .iter()
            .position(|(n, _)| n.as_bytes().eq_ignore_ascii_case(name))
        {
            Some(i) if done[i] => {}
            Some(i) => {
                done[i] = true;
                field(&mut head, name, &set[i].1);
                if i == 0 && !after_put {
                    put_after(&mut head);
                    after_put = true;
                }
            }
            None => {
                head.extend_from_slice(name);
                head.push(b':');
                head.extend_from_slice(value);
                head.extend_from_slice(b"\r\n");
            }
        }
    }
    for (i, (name, value)) in set.iter().enumerate() {
        if !done[i] {
            field(&mut head, name.as_bytes(), value);
            if i == 0 && !after_put {
                put_after(&mut head);
                after_put = true;
            }
        }
    }
    head.extend_from_slice(b"\r\n");
    head
}

impl Record<'_> {
    /// Writes the record to `out`, packed as `packing` says.
    pub fn write(self, packing: &Packing, out: &mut dyn Write) -> io::Result<()> {
        // Compressed whole when small: a large one would be held twice more
        // (the record, and room for its compressed bytes).
        let whole = self.block.in_memory() && self.block.len() <= KEPT as u64;
        match packing {
            Packing::Plain => self.write_plain(out),
            Packing::Gzip(level) if whole => self.write_whole(packing, *level, out),
            Packing::Gzip(level) => {
                let mut member = GzEncoder::new(out, Compression::new(*level));
                self.write_plain(&mut member)?;
                member.finish()?;
                Ok(())
            }
            Packing::Zstd { .. } if whole => self.write_whole(packing, 0, out),
            Packing::Zstd { level, dictionary } => {
                let mut frame = match dictionary {
                    Some(dictionary) => zstd::Encoder::with_dictionary(out, *level, dictionary)?,
                    None => zstd::Encoder::new(out, *level)?,
                };
                frame.include_checksum(true)?;
                frame.include_contentsize(true)?;
                frame.set_pledged_src_size(Some(self.head.len() as u64 + self.block.len() + 4))?;
                self.write_plain(&mut frame)?;
                frame.finish()?;
                Ok(())
            }
        }
    }

    /// One gzip member made by libdeflate from the whole record (at
    /// `level`), or one zstd frame by libzstd.
    fn write_whole(self, packing: &Packing, level: u32, out: &mut dyn Write) -> io::Result<()> {
        thread_local! {
            /// A worker's compressors and buffers, kept from record to record.
            static WHOLE: RefCell<Whole> = RefCell::new(Whole::default());
        }
        WHOLE.with_borrow_mut(|whole| {
            whole.plain.clear();
            self.write_plain(&mut whole.plain)?;
            let n = match packing {
                Packing::Zstd { level, dictionary } => {
                    let compressor = zstd_compressor(&mut whole.zstd, *level, dictionary)?;
                    whole.member.clear();
                    whole
                        .member
                        .reserve(zstd::zstd_safe::compress_bound(whole.plain.len()));
                    compressor.compress_to_buffer(&whole.plain, &mut whole.member)?
                }
                _ => {
                    let compressor = compressor(&mut whole.compressor, level)?;
                    whole
                        .member
                        .resize(compressor.gzip_compress_bound(whole.plain.len()), 0);
                    compressor
                        .gzip_compress(&whole.plain, &mut whole.member)
                        .map_err(io::Error::other)?
                }
            };
            out.write_all(&whole.member[..n])
        })
    }

    fn write_plain(self, out: &mut dyn Write) -> io::Result<()> {
        out.write_all(&self.head)?;
        io::copy(&mut self.block.open()?, out)?;
        out.write_all(b"\r\n\r\n")
    }
}

/// The longest block compressed whole, and so the most a buffer of
/// [`Whole`] keeps from record to record.
const KEPT: usize = 4 << 20;

/// What [`Record::write_whole`] keeps for the next record.
#[derive(Default)]
struct Whole {
    compressor: Option<(u32, Compressor)>,
    zstd: Option<ZstdKept>,
    plain: Vec<u8>,
    member: Vec<u8>,
}

/// A zstd compressor with its level and dictionary loaded (the dictionary
/// kept alive with it, so that its address names it).
struct ZstdKept {
    level: i32,
    dictionary: Option<Dictionary>,
    compressor: zstd::bulk::Compressor<'static>,
}

/// The kept zstd compressor, made anew for another level or dictionary.
fn zstd_compressor<'a>(
    kept: &'a mut Option<ZstdKept>,
    level: i32,
    dictionary: &Option<Dictionary>,
) -> io::Result<&'a mut zstd::bulk::Compressor<'static>> {
    let same = kept.as_ref().is_some_and(|k| {
        k.level == level
            && match (&k.dictionary, dictionary) {
                (Some(a), Some(b)) => std::sync::Arc::ptr_eq(a, b),
                (None, None) => true,
                _ => false,
            }
    });
    if !same {
        let mut compressor = match dictionary {
            Some(dictionary) => zstd::bulk::Compressor::with_dictionary(level, dictionary)?,
            None => zstd::bulk::Compressor::new(level)?,
        };
        compressor.set_parameter(CParameter::ChecksumFlag(true))?;
        compressor.set_parameter(CParameter::ContentSizeFlag(true))?;
        *kept = Some(ZstdKept {
            level,
            dictionary: dictionary.clone(),
            compressor,
        });
    }
    Ok(&mut kept.as_mut().expect("set above").compressor)
}

/// The kept compressor, made anew for another level.
fn compressor(kept: &mut Option<(u32, Compressor)>, level: u32) -> io::Result<&mut Compressor> {
    if kept.as_ref().is_none_or(|(l, _)| *l != level) {
        let lvl = i32::try_from(level)
            .ok()
            .and_then(|l| CompressionLvl::new(l).ok())
            .ok_or_else(|| io::Error::other(format!("no gzip level `{level}`")))?;
        *kept = Some((level, Compressor::new(lvl)));
    }
    Ok(&mut kept.as_mut().expect("set above").1)
}

/// A new `WARC-Record-ID`: a random UUID URN, as the standard suggests.
pub fn record_id() -> Vec<u8> {
    format!("<urn:uuid:{}>", uuid::Uuid::new_v4()).into_bytes()
}

/// `WARC-Date` for now: UTC, to the second (what WARC 1.0 allows too).
pub fn now() -> Vec<u8> {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now())
        .to_string()
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edited_header_keeps_every_other_line_as_it_came() {
        let original = Header::parse(
            b"WARC/1.0\r\nWARC-Type: response\r\nwarc-record-id: <a>\r\nX-Folded: a\r\n  b\r\nContent-Length: 310 \r\nContent-Length: 9\r\n\r\n"
                .to_vec(),
        )
        .unwrap();
        let head = edited(
            &original,
            &[
                ("WARC-Record-ID", b"<b>".to_vec()),
                ("Content-Length", b"12".to_vec()),
                ("WARC-Block-Digest", b"sha1:X".to_vec()),
            ],
            &[("WARC-Concurrent-To", b"<a>".to_vec())],
        );
        assert_eq!(
            String::from_utf8(head).unwrap(),
            "WARC/1.0\r\nWARC-Type: response\r\nwarc-record-id: <b>\r\nWARC-Concurrent-To: <a>\r\nX-Folded: a\r\n  b\r\nContent-Length: 12\r\nWARC-Block-Digest: sha1:X\r\n\r\n"
        );
    }
}
