//! A body decoded: a reader over the held bytes through each coding of
//! the plan, outermost first (chunked undone here, gzip, deflate and
//! brotli by their crates), counting what each consumed so that a break
//! is placed.

use std::cell::{Cell, RefCell};
use std::io::{self, BufRead, BufReader, Read};
use std::rc::Rc;

use crate::source::names;
use crate::source::output::spool::Held;

use super::{Broken, CAPACITY, LayerDecision, Params, Plan};

/// A reader that counts what its reader consumed.
struct Counted<'a> {
    inner: Box<dyn BufRead + 'a>,
    consumed: Rc<Cell<u64>>,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed.set(self.consumed.get() + n as u64);
        Ok(n)
    }
}

impl BufRead for Counted<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
        self.consumed.set(self.consumed.get() + amount as u64);
    }
}

/// A decoder of one layer.
enum Decoder<'a> {
    Chunked(Dechunk<'a>),
    Gzip(flate2::bufread::MultiGzDecoder<Counted<'a>>),
    Zlib(flate2::bufread::ZlibDecoder<Counted<'a>>),
    RawDeflate(flate2::bufread::DeflateDecoder<Counted<'a>>),
    Br(Box<brotli::Decompressor<Counted<'a>>>),
}

/// A layer's decoder, its errors made [`Broken`] at the byte where it
/// stopped; a stream that ends before its layer's bytes do breaks too.
struct Decoding<'a> {
    decoder: Decoder<'a>,
    layer: usize,
    consumed: Rc<Cell<u64>>,
    ended: bool,
}

impl Decoding<'_> {
    fn broken(&self, why: impl Into<String>) -> io::Error {
        Broken {
            layer: self.layer,
            at: self.consumed.get(),
            why: why.into(),
        }
        .error()
    }

    /// The decoder's stream is over: so must its layer's bytes be.
    fn check_end(&mut self) -> io::Result<()> {
        let rest = match &mut self.decoder {
            Decoder::Chunked(_) | Decoder::Gzip(_) => return Ok(()),
            Decoder::Zlib(d) => d.get_mut().fill_buf()?.len(),
            Decoder::RawDeflate(d) => d.get_mut().fill_buf()?.len(),
            Decoder::Br(d) => {
                // Bytes it read ahead and did not use make it fail again.
                if d.read(&mut [0; 1]).is_err() {
                    1
                } else {
                    d.get_mut().fill_buf()?.len()
                }
            }
        };
        if rest > 0 {
            return Err(self.broken("bytes follow the end of its stream"));
        }
        Ok(())
    }
}

impl Read for Decoding<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.ended || buf.is_empty() {
            return Ok(0);
        }
        let result = match &mut self.decoder {
            Decoder::Chunked(d) => d.read(buf),
            Decoder::Gzip(d) => d.read(buf),
            Decoder::Zlib(d) => d.read(buf),
            Decoder::RawDeflate(d) => d.read(buf),
            Decoder::Br(d) => d.read(buf),
        };
        match result {
            Ok(0) => {
                self.check_end()?;
                self.ended = true;
                Ok(0)
            }
            Ok(n) => Ok(n),
            Err(e) if Broken::of(&e).is_some() => Err(e),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                Err(self.broken("its stream ends before it is complete"))
            }
            Err(e) => Err(self.broken(lowercase(&e.to_string()))),
        }
    }
}

fn lowercase(s: &str) -> String {
    s.to_lowercase()
}

/// The decoded body: `held`, read through each layer of `plan` that is
/// decoded.
pub fn decoder<'a>(plan: &Plan, held: &'a mut dyn Held) -> io::Result<Box<dyn BufRead + 'a>> {
    let mut reader: Box<dyn BufRead + 'a> =
        Box::new(BufReader::with_capacity(CAPACITY, held.open()?));
    for (layer, l) in plan.layers.iter().enumerate() {
        let LayerDecision::Decode(params) = &l.decision else {
            continue;
        };
        let consumed = Rc::new(Cell::new(0));
        let counted = Counted {
            inner: reader,
            consumed: Rc::clone(&consumed),
        };
        let decoder = match params {
            Params::Chunked { last } => {
                last.borrow_mut().clear();
                Decoder::Chunked(Dechunk {
                    inner: counted,
                    state: Chunk::Size,
                    line: Vec::new(),
                    last: Rc::clone(last),
                    layer,
                })
            }
            Params::Gzip { .. } => Decoder::Gzip(flate2::bufread::MultiGzDecoder::new(counted)),
            Params::Zlib { .. } => Decoder::Zlib(flate2::bufread::ZlibDecoder::new(counted)),
            Params::RawDeflate => {
                Decoder::RawDeflate(flate2::bufread::DeflateDecoder::new(counted))
            }
            Params::Br { .. } => {
                Decoder::Br(Box::new(brotli::Decompressor::new(counted, CAPACITY)))
            }
        };
        reader = Box::new(BufReader::with_capacity(
            CAPACITY,
            Decoding {
                decoder,
                layer,
                consumed,
                ended: false,
            },
        ));
    }
    Ok(reader)
}

/// Where a chunked body is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    Size,
    Data(u64),
    DataEnd,
    Trailer,
    Done,
}

/// The longest chunk-size line, and the longest trailer, read.
const MAX_LINE: usize = 4096;
const MAX_TRAILER: usize = 64 * 1024;

/// A chunked body's data (RFC 9112 §7.1); the last chunk and its trailer
/// kept as they came, for writing the body back.
struct Dechunk<'a> {
    inner: Counted<'a>,
    state: Chunk,
    line: Vec<u8>,
    last: Rc<RefCell<Vec<u8>>>,
    layer: usize,
}

impl Dechunk<'_> {
    fn broken(&self, at: u64, why: impl Into<String>) -> io::Error {
        Broken {
            layer: self.layer,
            at,
            why: why.into(),
        }
        .error()
    }

    /// Reads a line into `self.line`, through its `\n`; false at the end of
    /// the input before one.
    fn read_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        loop {
            let available = self.inner.fill_buf()?;
            if available.is_empty() {
                return Ok(false);
            }
            let (take, done) = match memchr::memchr(b'\n', available) {
                Some(i) => (i + 1, true),
                None => (available.len(), false),
            };
            let take = take.min(MAX_LINE + 1 - self.line.len());
            self.line.extend_from_slice(&available[..take]);
            self.inner.consume(take);
            if done && self.line.ends_with(b"\n") {
                return Ok(true);
            }
            if self.line.len() > MAX_LINE {
                return Ok(true);
            }
        }
    }
}

impl Read for Dechunk<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let start = self.inner.consumed.get();
            match self.state {
                Chunk::Size => {
                    if !self.read_line()? {
                        return Err(self.broken(start, "the body ends before its last chunk"));
                    }
                    let size = match httparse::parse_chunk_size(&self.line) {
                        Ok(httparse::Status::Complete((n, size)))
                            if n == self.line.len() && self.line[0].is_ascii_hexdigit() =>
                        {
                            size
                        }
                        _ => {
                            let line = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
                            let line = line.strip_suffix(b"\r").unwrap_or(line);
                            let line = &line[..line.len().min(40)];
                            let shown = names::shown(line);
                            return Err(
                                self.broken(start, format!("not a chunk-size line: `{shown}`"))
                            );
                        }
                    };
                    if size == 0 {
                        self.last.borrow_mut().extend_from_slice(&self.line);
                        self.state = Chunk::Trailer;
                    } else {
                        self.state = Chunk::Data(size);
                    }
                }
                Chunk::Data(remaining) => {
                    let available = self.inner.fill_buf()?;
                    if available.is_empty() {
                        return Err(self.broken(
                            start,
                            format!("the body ends inside a chunk, {remaining} bytes short"),
                        ));
                    }
                    let n = available
                        .len()
                        .min(buf.len())
                        .min(usize::try_from(remaining).unwrap_or(usize::MAX));
                    buf[..n].copy_from_slice(&available[..n]);
                    self.inner.consume(n);
                    self.state = if remaining == n as u64 {
                        Chunk::DataEnd
                    } else {
                        Chunk::Data(remaining - n as u64)
                    };
                    return Ok(n);
                }
                Chunk::DataEnd => {
                    if !self.read_line()? || self.line != b"\r\n" {
                        return Err(
                            self.broken(start, "a chunk's data does not end where its size says")
                        );
                    }
                    self.state = Chunk::Size;
                }
                Chunk::Trailer => {
                    if !self.read_line()? {
                        return Err(self
                            .broken(start, "the body ends inside the trailer of its last chunk"));
                    }
                    let mut last = self.last.borrow_mut();
                    last.extend_from_slice(&self.line);
                    if last.len() > MAX_TRAILER {
                        drop(last);
                        return Err(self.broken(start, "a trailer longer than 64 KiB"));
                    }
                    if self.line == b"\r\n" {
                        self.state = Chunk::Done;
                    }
                }
                Chunk::Done => {
                    if !self.inner.fill_buf()?.is_empty() {
                        return Err(self.broken(start, "bytes follow its last chunk"));
                    }
                    return Ok(0);
                }
            }
        }
    }
}
