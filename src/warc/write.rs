//! New records: the header written field by field, the block after it, a
//! gzip member of their own when the input is gzip (one member per record,
//! so that an index can point at each).

use std::io::{self, Write};

use flate2::Compression;
use flate2::write::GzEncoder;

use crate::spool::Held;

/// A record to write: its version line (`WARC/1.1`), its fields in order
/// (a field is never repeated), its block.
pub struct Record<'a> {
    pub version: &'a [u8],
    pub fields: Vec<(&'static str, Vec<u8>)>,
    pub block: &'a mut dyn Held,
}

/// gzip's level for new records: zlib's default, the usual one in
/// archives.
const LEVEL: u32 = 6;

impl Record<'_> {
    /// Writes the record to `out`, as one gzip member when `gzip`.
    pub fn write(self, gzip: bool, out: &mut dyn Write) -> io::Result<()> {
        if gzip {
            let mut member = GzEncoder::new(out, Compression::new(LEVEL));
            self.write_plain(&mut member)?;
            member.finish()?;
            Ok(())
        } else {
            self.write_plain(out)
        }
    }

    fn write_plain(self, out: &mut dyn Write) -> io::Result<()> {
        let mut head = Vec::with_capacity(512);
        head.extend_from_slice(self.version);
        head.extend_from_slice(b"\r\n");
        for (name, value) in &self.fields {
            head.extend_from_slice(name.as_bytes());
            head.extend_from_slice(b": ");
            head.extend_from_slice(value);
            head.extend_from_slice(b"\r\n");
        }
        head.extend_from_slice(b"\r\n");
        out.write_all(&head)?;
        io::copy(&mut self.block.open()?, out)?;
        out.write_all(b"\r\n\r\n")
    }
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
