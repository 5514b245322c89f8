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
//!
//! Here: the claims and the plan of what really holds; `decode` and
//! `encode` the two ways through it.

use std::cell::RefCell;
use std::fmt;
use std::io::{self, Read};
use std::rc::Rc;

use flate2::{Compression, GzHeader};

use super::head::Head;
use crate::source::names;
use crate::source::output::spool::Held;

mod decode;
mod encode;

pub use decode::decoder;
pub use encode::encoder;

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
    /// The coding's name as written, lowercase (its ASCII letters).
    pub name: Vec<u8>,
}

impl fmt::Display for Claim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, names::shown(&self.name))
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
                let name = name.trim_ascii().to_ascii_lowercase();
                let coding = match &name[..] {
                    b"" | b"identity" => continue,
                    b"chunked" => Coding::Chunked,
                    b"gzip" | b"x-gzip" => Coding::Gzip,
                    b"deflate" => Coding::Deflate,
                    b"br" => Coding::Br,
                    b"zstd" => Coding::Zstd,
                    b"compress" | b"x-compress" => Coding::Compress,
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
pub enum LayerDecision {
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
    pub decision: LayerDecision,
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
    /// A layer whose decoding would take more memory than `most` (a
    /// brotli window).
    TooLarge(Claim),
}

/// Decides each claim on the body `held`, outermost first: by the first
/// bytes of its layer, or, for a coding without a signature, by decoding
/// all of it; its layers together may take `most` bytes of memory
/// ([`memory`]), or the plan says which is too large, before it is
/// decoded.
pub fn plan(claims: &[Claim], held: &mut dyn Held, most: usize) -> io::Result<Planned> {
    let mut plan = Plan::default();
    let mut taken = 0;
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
            Starts::Yes => LayerDecision::Decode(params(claim.coding, &first)),
            Starts::No(why) => LayerDecision::AsDecoded(why.to_owned()),
            Starts::Undecodable => return Ok(Planned::Undecodable(claim.clone())),
            Starts::Maybe => {
                let candidate = Layer {
                    claim: claim.clone(),
                    decision: LayerDecision::Decode(params(claim.coding, &first)),
                };
                if taken + memory(&candidate) > most {
                    return Ok(Planned::TooLarge(claim.clone()));
                }
                plan.layers.push(candidate);
                let whole = io::copy(&mut decoder(&plan, held)?, &mut io::sink());
                let candidate = plan.layers.pop().expect("pushed above");
                match whole {
                    Ok(_) => candidate.decision,
                    Err(e) => match Broken::of(&e) {
                        Some(b) if b.layer == plan.layers.len() => {
                            LayerDecision::AsDecoded(format!("it does not decode: {}", b.why))
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
        let layer = Layer {
            claim: claim.clone(),
            decision,
        };
        taken += memory(&layer);
        if taken > most {
            return Ok(Planned::TooLarge(claim.clone()));
        }
        plan.layers.push(layer);
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

/// The most memory a layer takes while it is decoded and encoded again,
/// beside its buffers: a brotli stream's window (its decoder's ring
/// buffer; the encoder's, at most 4 MiB) and a little for the encoder's
/// tables; gzip's and deflate's windows are 32 KiB, in the buffers'
/// constant.
pub fn memory(layer: &Layer) -> usize {
    match &layer.decision {
        LayerDecision::Decode(Params::Br { lgwin }) => {
            let encoder = (*lgwin).min(encode::BROTLI_MOST_WINDOW);
            (1 << lgwin) + (1 << encoder) + (1 << 20)
        }
        _ => 0,
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

/// The buffers of the decoding readers and of the encoders' output.
const CAPACITY: usize = 32 * 1024;
