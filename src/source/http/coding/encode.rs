//! A body encoded again: a writer through each coding of the plan in the
//! other order, each as the input had it (chunks of the input's size and
//! its last chunk and trailer, gzip with its header fields and level, zlib
//! at its level, brotli with its window).

use std::cell::RefCell;
use std::io::{self, Write};
use std::rc::Rc;

use flate2::{Compression, GzBuilder};

use super::{CAPACITY, LayerDecision, Params, Plan};

/// A writer at the end of which a coding's stream is finished.
pub trait Encode: Write {
    /// Finishes this coding's stream and those below it.
    fn finish(self: Box<Self>) -> io::Result<()>;
}

/// The bottom of the encoders: the output, with the first error it met
/// kept (brotli's finish does not return them).
struct Out<'w> {
    out: &'w mut dyn Write,
    failed: Option<io::Error>,
}

impl Write for Out<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf).inspect_err(|e| {
            self.failed
                .get_or_insert_with(|| io::Error::new(e.kind(), e.to_string()));
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

impl Encode for Out<'_> {
    fn finish(mut self: Box<Self>) -> io::Result<()> {
        match self.failed.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }
}

/// The size of the chunks a body is written back in.
const CHUNK_SIZE: usize = 16 * 1024;

/// Chunked again: chunks of [`CHUNK_SIZE`] (the same for any writes, so
/// that a second run gives the same bytes), then the input's last chunk
/// and trailer as they came.
struct Rechunk<'w> {
    inner: Box<dyn Encode + 'w>,
    buffer: Vec<u8>,
    last: Rc<RefCell<Vec<u8>>>,
}

impl Rechunk<'_> {
    fn chunk(&mut self) -> io::Result<()> {
        if !self.buffer.is_empty() {
            write!(self.inner, "{:x}\r\n", self.buffer.len())?;
            self.inner.write_all(&self.buffer)?;
            self.inner.write_all(b"\r\n")?;
            self.buffer.clear();
        }
        Ok(())
    }
}

impl Write for Rechunk<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = buf.len().min(CHUNK_SIZE - self.buffer.len());
        self.buffer.extend_from_slice(&buf[..n]);
        if self.buffer.len() == CHUNK_SIZE {
            self.chunk()?;
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Encode for Rechunk<'_> {
    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.chunk()?;
        let last = self.last.borrow().clone();
        if last.is_empty() {
            self.inner.write_all(b"0\r\n\r\n")?;
        } else {
            self.inner.write_all(&last)?;
        }
        self.inner.finish()
    }
}

impl<'w> Encode for flate2::write::GzEncoder<Box<dyn Encode + 'w>> {
    fn finish(self: Box<Self>) -> io::Result<()> {
        flate2::write::GzEncoder::finish(*self)?.finish()
    }
}

impl<'w> Encode for flate2::write::ZlibEncoder<Box<dyn Encode + 'w>> {
    fn finish(self: Box<Self>) -> io::Result<()> {
        flate2::write::ZlibEncoder::finish(*self)?.finish()
    }
}

impl<'w> Encode for flate2::write::DeflateEncoder<Box<dyn Encode + 'w>> {
    fn finish(self: Box<Self>) -> io::Result<()> {
        flate2::write::DeflateEncoder::finish(*self)?.finish()
    }
}

impl<'w> Encode for brotli::CompressorWriter<Box<dyn Encode + 'w>> {
    fn finish(self: Box<Self>) -> io::Result<()> {
        self.into_inner().finish()
    }
}

/// The brotli quality a body is written back at: what servers use for
/// pages they compress as they send them (the input's is not recorded in
/// the stream).
const BROTLI_QUALITY: u32 = 5;
/// The largest window the body is encoded again with (4 MiB, brotli's
/// own default): the input's when smaller, so that a reader never needs
/// more memory to decode it than the input asked for, and the encoder's
/// memory stays small whatever window the input declares.
pub const BROTLI_MOST_WINDOW: u32 = 22;

/// A writer that encodes what it is given with each decoded layer of
/// `plan`, innermost first, into `out`; `finish` it at the end.
pub fn encoder<'w>(plan: &Plan, out: &'w mut dyn Write) -> Box<dyn Encode + 'w> {
    let mut writer: Box<dyn Encode + 'w> = Box::new(Out { out, failed: None });
    for layer in &plan.layers {
        let LayerDecision::Decode(params) = &layer.decision else {
            continue;
        };
        writer = match params {
            Params::Chunked { last } => Box::new(Rechunk {
                inner: writer,
                buffer: Vec::with_capacity(CHUNK_SIZE),
                last: Rc::clone(last),
            }),
            Params::Gzip { header, level } => {
                let mut builder = GzBuilder::new();
                if let Some(h) = header {
                    builder = builder.mtime(h.mtime());
                    builder = builder.operating_system(h.operating_system());
                    if let Some(name) = h.filename() {
                        builder = builder.filename(name);
                    }
                    if let Some(comment) = h.comment() {
                        builder = builder.comment(comment);
                    }
                    if let Some(extra) = h.extra() {
                        builder = builder.extra(extra);
                    }
                }
                Box::new(builder.write(writer, *level))
            }
            Params::Zlib { level } => Box::new(flate2::write::ZlibEncoder::new(writer, *level)),
            Params::RawDeflate => Box::new(flate2::write::DeflateEncoder::new(
                writer,
                Compression::default(),
            )),
            Params::Br { lgwin } => Box::new(brotli::CompressorWriter::new(
                writer,
                CAPACITY,
                BROTLI_QUALITY,
                (*lgwin).min(BROTLI_MOST_WINDOW),
            )),
        };
    }
    writer
}
