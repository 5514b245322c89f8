//! Transfer and content codings, as saved files really are. A block's
//! codings are a claim about the wire, not always about the bytes that
//! follow it: `curl -i` and `wget --save-headers` remove chunking but keep
//! `Transfer-Encoding: chunked`; `curl -i --compressed` removes gzip but
//! keeps `Content-Encoding: gzip`; a WARC record keeps the wire's bytes. So
//! each claim is checked against the body: a coding with a signature holds
//! when the body starts with it (chunked: a chunk-size line; gzip: its
//! magic number; deflate: a zlib header), and is then decoded to the end
//! (where it breaks, the body is written as it came); a coding without one
//! (brotli, raw deflate) holds only when the whole body decodes. A claim
//! that does not hold is taken as already decoded.
//!
//! The body is decoded as a reader over the held bytes, outermost coding
//! first, and written back through the same codings in the other order,
//! each as the input had it: the chunked body's last chunk and trailer as
//! they came, gzip with the header fields of the input's and the level its
//! `XFL` names, zlib at the level its `FLEVEL` names, brotli with the
//! input's window.

use std::cell::{Cell, RefCell};
use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::rc::Rc;

use flate2::{Compression, GzBuilder, GzHeader};

use super::head::Head;
use crate::source::output::spool::Held;

/// The codings htmlabs knows by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coding {
    Chunked,
    Gzip,
    /// RFC 9110's `deflate`: zlib (RFC 1950); raw deflate (RFC 1951) as
    /// some servers send it is read too.
    Deflate,
    Br,
    /// Known by its magic number, not decoded.
    Zstd,
    /// LZW (`compress`), known by its magic number, not decoded.
    Compress,
    /// A name htmlabs does not know.
    Unknown,
}

/// A coding that a block says the body is in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claim {
    pub coding: Coding,
    /// `Transfer-Encoding` or `Content-Encoding`.
    pub field: &'static str,
    /// The coding's name as written, lowercase.
    pub name: String,
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.name)
    }
}

/// The codings a block claims, in the order they were applied: its content
/// codings, then its transfer codings. `identity` is none.
pub fn claims(head: &Head) -> Vec<Claim> {
    let mut claims = Vec::new();
    for field in ["Content-Encoding", "Transfer-Encoding"] {
        for (value, _) in head.values(field) {
            for name in value.split(|&b| b == b',') {
                // A transfer coding may have parameters (`;q=…`).
                let name = name.split(|&b| b == b';').next().unwrap_or_default();
                let name = String::from_utf8_lossy(name.trim_ascii()).to_ascii_lowercase();
                let coding = match name.as_str() {
                    "" | "identity" => continue,
                    "chunked" => Coding::Chunked,
                    "gzip" | "x-gzip" => Coding::Gzip,
                    "deflate" => Coding::Deflate,
                    "br" => Coding::Br,
                    "zstd" => Coding::Zstd,
                    "compress" | "x-compress" => Coding::Compress,
                    _ => Coding::Unknown,
                };
                claims.push(Claim {
                    coding,
                    field,
                    name,
                });
            }
        }
    }
    claims
}

/// What a coding's first bytes say of its claim.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Starts {
    /// The body starts as the coding does.
    Yes,
    /// It does not (why, for `-v`): taken as already decoded.
    No(&'static str),
    /// The coding has no signature: only decoding the whole body tells.
    Maybe,
    /// It holds (or may), and htmlabs cannot decode it.
    Undecodable,
}

/// How many first bytes of a layer tell whether its claim holds.
pub const PEEK: usize = 4096;

/// What the first bytes of a layer say of `coding`.
pub fn starts_as(coding: Coding, first: &[u8]) -> Starts {
    if first.is_empty() {
        return Starts::No("the body is empty");
    }
    match coding {
        Coding::Chunked => {
            let line = match memchr::memchr(b'\n', first) {
                Some(i) => &first[..=i],
                None => return Starts::No("no chunk-size line"),
            };
            // httparse takes a line without digits as size 0: a body that
            // starts with a blank line is not chunked.
            match httparse::parse_chunk_size(line) {
                Ok(httparse::Status::Complete(_)) if line[0].is_ascii_hexdigit() => Starts::Yes,
                _ => Starts::No("no chunk-size line"),
            }
        }
        Coding::Gzip if first.starts_with(&[0x1f, 0x8b, 0x08]) => Starts::Yes,
        Coding::Gzip => Starts::No("no gzip magic number"),
        Coding::Deflate if zlib_header(first) => Starts::Yes,
        Coding::Deflate | Coding::Br => Starts::Maybe,
        Coding::Zstd if first.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) => Starts::Undecodable,
        Coding::Zstd => Starts::No("no zstd magic number"),
        Coding::Compress if first.starts_with(&[0x1f, 0x9d]) => Starts::Undecodable,
        Coding::Compress => Starts::No("no compress magic number"),
        Coding::Unknown => Starts::Undecodable,
    }
}

/// Whether `first` starts with a zlib header (RFC 1950 §2.2): deflate, a
/// window of at most 32 KiB, a check that holds, no preset dictionary.
fn zlib_header(first: &[u8]) -> bool {
    match first {
        [cmf, flg, ..] => {
            cmf & 0x0f == 8
                && cmf >> 4 <= 7
                && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0
                && flg & 0x20 == 0
        }
        _ => false,
    }
}

/// How a layer's claim is taken.
#[derive(Debug, Clone)]
pub enum Decision {
    /// Decoded to read the body, encoded again to write it.
    Decode(Params),
    /// Taken as already decoded (why, for `-v`).
    AsDecoded(String),
}

/// What encoding a layer again needs to know of the input's.
#[derive(Debug, Clone)]
pub enum Params {
    Chunked {
        /// The last-chunk line and the trailer, as they came (set as the
        /// body is decoded).
        last: Rc<RefCell<Vec<u8>>>,
    },
    Gzip {
        header: Option<GzHeader>,
        level: Compression,
    },
    Zlib {
        level: Compression,
    },
    RawDeflate,
    Br {
        lgwin: u32,
    },
}

/// A claim and how it is taken.
#[derive(Debug, Clone)]
pub struct Layer {
    pub claim: Claim,
    pub decision: Decision,
}

/// The layers of a body, outermost (the last coding applied) first.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub layers: Vec<Layer>,
}

/// A body that breaks its coding: where and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The index of its layer in the plan.
    pub layer: usize,
    /// The offset in that layer's bytes where decoding stopped.
    pub at: u64,
    pub why: String,
}

impl fmt::Display for Broken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {} of its layer", self.why, self.at)
    }
}

impl std::error::Error for Broken {}

impl Broken {
    fn error(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidData, self)
    }

    /// The break an error carries, if it is one.
    pub fn of(e: &io::Error) -> Option<&Broken> {
        e.get_ref()?.downcast_ref::<Broken>()
    }
}

/// What planning found.
#[derive(Debug)]
pub enum Planned {
    Plan(Plan),
    /// A layer htmlabs cannot decode.
    Undecodable(Claim),
    /// An outer layer broke within the first bytes an inner one was
    /// checked on.
    Broken(Plan, Broken),
}

/// Decides each claim on the body `held`, outermost first: by the first
/// bytes of its layer, or, for a coding without a signature, by decoding
/// all of it.
pub fn plan(claims: &[Claim], held: &mut dyn Held) -> io::Result<Planned> {
    let mut plan = Plan::default();
    for claim in claims.iter().rev() {
        let mut first = Vec::new();
        match decoder(&plan, held)?
            .take(PEEK as u64)
            .read_to_end(&mut first)
        {
            Ok(_) => {}
            Err(e) => match Broken::of(&e) {
                Some(broken) => {
                    let broken = broken.clone();
                    return Ok(Planned::Broken(plan, broken));
                }
                None => return Err(e),
            },
        }
        let decision = match starts_as(claim.coding, &first) {
            Starts::Yes => Decision::Decode(params(claim.coding, &first)),
            Starts::No(why) => Decision::AsDecoded(why.to_owned()),
            Starts::Undecodable => return Ok(Planned::Undecodable(claim.clone())),
            Starts::Maybe => {
                let candidate = Layer {
                    claim: claim.clone(),
                    decision: Decision::Decode(params(claim.coding, &first)),
                };
                plan.layers.push(candidate);
                let whole = io::copy(&mut decoder(&plan, held)?, &mut io::sink());
                let candidate = plan.layers.pop().expect("pushed above");
                match whole {
                    Ok(_) => candidate.decision,
                    Err(e) => match Broken::of(&e) {
                        Some(b) if b.layer == plan.layers.len() => {
                            Decision::AsDecoded(format!("it does not decode: {}", b.why))
                        }
                        Some(b) => {
                            let b = b.clone();
                            return Ok(Planned::Broken(plan, b));
                        }
                        None => return Err(e),
                    },
                }
            }
        };
        plan.layers.push(Layer {
            claim: claim.clone(),
            decision,
        });
    }
    Ok(Planned::Plan(plan))
}

/// What re-encoding a layer takes from its first bytes.
fn params(coding: Coding, first: &[u8]) -> Params {
    match coding {
        Coding::Chunked => Params::Chunked {
            last: Rc::default(),
        },
        Coding::Gzip => Params::Gzip {
            header: flate2::bufread::GzDecoder::new(first).header().cloned(),
            // XFL: 2 for the slowest compression, 4 for the fastest.
            level: match first.get(8) {
                Some(2) => Compression::best(),
                Some(4) => Compression::fast(),
                _ => Compression::default(),
            },
        },
        Coding::Deflate if zlib_header(first) => Params::Zlib {
            // FLEVEL: 0 fastest, 1 fast, 2 default, 3 slowest.
            level: match first[1] >> 6 {
                0 => Compression::fast(),
                1 => Compression::new(5),
                3 => Compression::best(),
                _ => Compression::default(),
            },
        },
        Coding::Deflate => Params::RawDeflate,
        Coding::Br => Params::Br {
            lgwin: brotli_window(first),
        },
        Coding::Zstd | Coding::Compress | Coding::Unknown => {
            unreachable!("not decoded")
        }
    }
}

/// The window (WBITS) a brotli stream declares in its first bits (RFC 7932
/// §9.1), so that its new encoding needs no more memory to decode.
fn brotli_window(first: &[u8]) -> u32 {
    let bits = u32::from(first.first().copied().unwrap_or(0))
        | u32::from(first.get(1).copied().unwrap_or(0)) << 8;
    if bits & 1 == 0 {
        return 16;
    }
    match (bits >> 1) & 7 {
        0 => match (bits >> 4) & 7 {
            0 => 17,
            // 1 is the large window of a later extension: the largest
            // standard one.
            1 => 24,
            n => 8 + n,
        },
        n => 17 + n,
    }
}

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
        let Decision::Decode(params) = &l.decision else {
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

/// The buffers of the decoding readers.
const CAPACITY: usize = 32 * 1024;

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
                            let shown = self.line.escape_ascii().to_string();
                            let shown: String = shown.chars().take(40).collect();
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

/// A writer that encodes what it is given with each decoded layer of
/// `plan`, innermost first, into `out`; `finish` it at the end.
pub fn encoder<'w>(plan: &Plan, out: &'w mut dyn Write) -> Box<dyn Encode + 'w> {
    let mut writer: Box<dyn Encode + 'w> = Box::new(Out { out, failed: None });
    for layer in &plan.layers {
        let Decision::Decode(params) = &layer.decision else {
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
                *lgwin,
            )),
        };
    }
    writer
}
