//! The front of the engines for documents other than pages (XML,
//! stylesheets): their first bytes say whether the input is UTF-16 (a byte
//! order mark; for XML, also XML 1.0 Appendix F's first bytes, `<?` in
//! UTF-16; else `--encoding` or the transport layer's charset), which
//! is decoded to UTF-8 for the engine and its output encoded back, as the
//! page engine does; any other ASCII-compatible encoding goes through as
//! bytes, for the engine to name (an XML declaration, `@charset`). UTF-32
//! (and UCS-4, EBCDIC), which Appendix F tells too, is refused by name:
//! encoding_rs has no decoder for it, and nothing is written.

use std::cell::Cell;
use std::io::{self, Read, Write};
use std::rc::Rc;
use std::sync::Arc;

use encoding_rs::Encoding;

use super::encoding::Chosen;
use super::utf16::{Utf16Decoded, Utf16Decoder, Utf16Writer};
use crate::document::buffers::CHUNK;
use crate::document::config::Config;
use crate::document::error::Error;
use crate::document::links::Hear;
use crate::document::memory::Allowance;
use crate::document::report::{Report, Tell, Warning};
use crate::url::Layers;

/// Where an engine writes: the output, or a writer that encodes it back to
/// UTF-16.
pub(crate) enum Output<W: Write> {
    Bytes(W),
    Utf16(Utf16Writer<W>),
}

impl<W: Write> Output<W> {
    /// The output, once all is written.
    pub fn finish(self) -> Result<W, Error> {
        match self {
            Output::Bytes(mut w) => {
                w.flush().map_err(Error::Write)?;
                Ok(w)
            }
            Output::Utf16(w) => w.finish(),
        }
    }
}

impl<W: Write> Write for Output<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Bytes(w) => w.write(buf),
            Output::Utf16(w) => w.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Bytes(w) => w.flush(),
            Output::Utf16(w) => w.flush(),
        }
    }
}

/// An engine behind the front.
pub(crate) trait Engine<W: Write>: Sized {
    /// An engine for a document read by `config` with its `layers`,
    /// writing to `output`; `transcoded` is its encoding when the first
    /// bytes chose UTF-16 (its bytes are then UTF-8); what it holds is
    /// taken from `allowance`.
    fn new(
        config: Arc<Config>,
        layers: Layers,
        output: Output<W>,
        transcoded: Option<Chosen>,
        allowance: Rc<Allowance>,
    ) -> Self;
    fn tell(&mut self, tell: Tell);
    fn listen(&mut self, hear: Hear);
    /// The encoding the engine's documents are told by their first bytes
    /// without a byte order mark (XML: `<?` in UTF-16), if they tell one
    /// the front transcodes; or why they cannot be read.
    fn by_first_bytes(first: &[u8]) -> Result<Option<&'static Encoding>, Error> {
        let _ = first;
        Ok(None)
    }
    fn write(&mut self, bytes: &[u8]) -> Result<(), Error>;
    /// A fault found late (`warning` says which): what came before is
    /// rewritten as far as it goes, and from here on the input goes out as
    /// it comes.
    fn stop(&mut self, warning: Warning) -> Result<(), Error>;
    fn end(self) -> Result<(Report, Output<W>), Error>;
}

/// The streaming front of an engine `E`: give it the input in writes of
/// any size, then end it.
pub(crate) struct Front<W: Write, E: Engine<W>> {
    mode: Mode<W, E>,
}

enum Mode<W: Write, E> {
    /// Fewer than four bytes seen: not yet known whether a BOM (or, in
    /// XML, Appendix F) says UTF-16.
    Start {
        pending: Vec<u8>,
        output: W,
        config: Arc<Config>,
        layers: Layers,
        tell: Option<Tell>,
        hear: Option<Hear>,
        allowance: Option<Rc<Allowance>>,
    },
    Bytes(E),
    /// UTF-16, decoded; once a sequence is not valid, `raw` is set and the
    /// input goes to the engine, and out, as it came.
    Utf16(Utf16Decoder, E, Rc<Cell<bool>>),
    /// A write failed: nothing more can be done.
    Failed,
}

impl<W: Write, E: Engine<W>> Front<W, E> {
    pub fn new(config: Arc<Config>, layers: Layers, output: W) -> Self {
        Front {
            mode: Mode::Start {
                pending: Vec::with_capacity(4),
                output,
                config,
                layers,
                tell: None,
                hear: None,
                allowance: None,
            },
        }
    }

    /// Takes what the engine holds from `allowance`, given before the
    /// first write.
    pub fn with_allowance(&mut self, given: Rc<Allowance>) {
        if let Mode::Start { allowance, .. } = &mut self.mode {
            *allowance = Some(given);
        }
    }

    pub fn on_warning(&mut self, tell: Tell) {
        match &mut self.mode {
            Mode::Start { tell: t, .. } => *t = Some(tell),
            Mode::Bytes(engine) | Mode::Utf16(_, engine, _) => engine.tell(tell),
            Mode::Failed => {}
        }
    }

    pub fn on_link(&mut self, hear: Hear) {
        match &mut self.mode {
            Mode::Start { hear: h, .. } => *h = Some(hear),
            Mode::Bytes(engine) | Mode::Utf16(_, engine, _) => engine.listen(hear),
            Mode::Failed => {}
        }
    }

    /// The next bytes of the input, however it is split; a failure ends it.
    pub fn write(&mut self, chunk: &[u8]) -> Result<(), Error> {
        let result = self.write_inner(chunk, false);
        if result.is_err() {
            self.mode = Mode::Failed;
        }
        result
    }

    /// All that `input` gives, read 64 KiB at a time.
    pub fn read_from(&mut self, mut input: impl Read) -> Result<(), Error> {
        let mut buf = vec![0; CHUNK];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.mode = Mode::Failed;
                    return Err(Error::Read(e));
                }
            };
            self.write(&buf[..n])?;
        }
    }

    fn write_inner(&mut self, chunk: &[u8], end: bool) -> Result<(), Error> {
        if let Mode::Start { pending, .. } = &mut self.mode {
            let take = (4 - pending.len()).min(chunk.len());
            pending.extend_from_slice(&chunk[..take]);
            if pending.len() < 4 && !end {
                return Ok(());
            }
            let Mode::Start {
                pending,
                output,
                config,
                layers,
                tell,
                hear,
                allowance,
            } = std::mem::replace(&mut self.mode, Mode::Failed)
            else {
                unreachable!("matched above")
            };
            let allowance = allowance.unwrap_or_else(|| config.own_allowance());
            self.mode = start::<W, E>(&pending, output, config, layers, tell, hear, allowance)?;
            self.write_inner(&pending, end)?;
            return self.write_inner(&chunk[take..], end);
        }
        match &mut self.mode {
            Mode::Bytes(engine) => engine.write(chunk),
            // The decoder's last call is `end`'s.
            Mode::Utf16(decoder, engine, raw) => utf16(decoder, engine, raw, chunk, false),
            Mode::Start { .. } | Mode::Failed => Err(Error::failed_before()),
        }
    }

    /// Ends the input: the report and the output.
    pub fn end(mut self) -> Result<(Report, W), Error> {
        if matches!(self.mode, Mode::Start { .. }) {
            self.write_inner(&[], true)?;
        }
        let (report, output) = match self.mode {
            Mode::Bytes(engine) => engine.end()?,
            Mode::Utf16(mut decoder, mut engine, raw) => {
                utf16(&mut decoder, &mut engine, &raw, &[], true)?;
                engine.end()?
            }
            Mode::Start { .. } | Mode::Failed => return Err(Error::failed_before()),
        };
        Ok((report, output.finish()?))
    }
}

/// The first bytes are in: UTF-16 by its byte order mark, or as declared
/// (`--encoding`, then the transport layer's charset), is transcoded; any
/// other encoding that is not ASCII-compatible is refused.
fn start<W: Write, E: Engine<W>>(
    first: &[u8],
    mut output: W,
    config: Arc<Config>,
    layers: Layers,
    tell: Option<Tell>,
    hear: Option<Hear>,
    allowance: Rc<Allowance>,
) -> Result<Mode<W, E>, Error> {
    let transcoded =
        crate::document::utf16::transcoded(first, &config, &layers, E::by_first_bytes(first)?)?;
    let mut mode = match transcoded {
        Some((encoding, bom, source)) => {
            // The byte order mark goes out as it came.
            output.write_all(&first[..bom]).map_err(Error::Write)?;
            let chosen = Chosen { encoding, source };
            let writer = Utf16Writer::new(output, encoding);
            let raw = writer.raw();
            Mode::Utf16(
                Utf16Decoder::new(encoding, bom),
                E::new(
                    config,
                    layers,
                    Output::Utf16(writer),
                    Some(chosen),
                    allowance,
                ),
                raw,
            )
        }
        None => Mode::Bytes(E::new(
            config,
            layers,
            Output::Bytes(output),
            None,
            allowance,
        )),
    };
    if let Mode::Bytes(engine) | Mode::Utf16(_, engine, _) = &mut mode {
        if let Some(tell) = tell {
            engine.tell(tell);
        }
        if let Some(hear) = hear {
            engine.listen(hear);
        }
    }
    Ok(mode)
}

/// The next bytes of UTF-16 input, decoded for `engine`, or as they came
/// once a sequence was not valid (the engine stopped there).
fn utf16<W: Write, E: Engine<W>>(
    decoder: &mut Utf16Decoder,
    engine: &mut E,
    raw: &Cell<bool>,
    chunk: &[u8],
    last: bool,
) -> Result<(), Error> {
    if raw.get() {
        return engine.write(chunk);
    }
    if let Utf16Decoded::Malformed { at, rest } =
        decoder.decode(chunk, last, |utf8| engine.write(utf8))?
    {
        engine.stop(Warning::Malformed {
            offset: at,
            encoding: decoder.encoding().name(),
        })?;
        raw.set(true);
        engine.write(&rest)?;
    }
    Ok(())
}
