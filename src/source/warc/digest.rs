//! `WARC-Block-Digest` and `WARC-Payload-Digest` values (`sha1:` and a
//! base32 digest, as most writers give them), in the algorithm and the
//! spelling the input already uses, so that a new record reads like its
//! neighbours.

use std::io::{self, Read};

use data_encoding::{BASE32, BASE32_NOPAD, Encoding, HEXLOWER, HEXUPPER};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Algorithm {
    Sha1,
    Sha256,
    Sha512,
}

/// How digests are written: `label:value`.
#[derive(Debug, Clone)]
pub struct Digest {
    /// The label as the input spells it (`sha1`, `SHA1`, `sha256`).
    label: String,
    algorithm: Algorithm,
    encoding: Encoding,
}

impl Default for Digest {
    /// `sha1:` in base32: what wget, Heritrix and warcio write.
    fn default() -> Self {
        Digest {
            label: "sha1".to_owned(),
            algorithm: Algorithm::Sha1,
            encoding: BASE32,
        }
    }
}

impl Digest {
    /// The way `value` (a digest field's value) is written, when it is one
    /// this writer can write too.
    pub fn like(value: &str) -> Option<Digest> {
        let (label, digest) = value.trim().split_once(':')?;
        let (algorithm, bytes) = match label.to_ascii_lowercase().replace('-', "").as_str() {
            "sha1" => (Algorithm::Sha1, 20),
            "sha256" => (Algorithm::Sha256, 32),
            "sha512" => (Algorithm::Sha512, 64),
            _ => return None,
        };
        let hex = digest.len() == 2 * bytes && digest.bytes().all(|b| b.is_ascii_hexdigit());
        let encoding = if hex && digest.bytes().any(|b| b.is_ascii_uppercase()) {
            HEXUPPER
        } else if hex {
            HEXLOWER
        } else if digest.contains('=') || bytes == 20 {
            BASE32
        } else {
            BASE32_NOPAD
        };
        Some(Digest {
            label: label.to_owned(),
            algorithm,
            encoding,
        })
    }

    /// The digest of all `input` gives, as a field value.
    pub fn of(&self, input: &mut dyn Read) -> io::Result<String> {
        let mut hasher = self.hasher();
        io::copy(input, &mut hasher)?;
        Ok(hasher.value())
    }

    /// The digest of `parts`, one after the other, as a field value:
    /// bytes in memory hashed where they lie.
    pub fn of_parts(&self, parts: &[&[u8]]) -> String {
        let mut hasher = self.hasher();
        for part in parts {
            hasher.update(part);
        }
        hasher.value()
    }
}

/// A digest being taken of bytes written to it, as they stream by.
pub struct Hasher {
    state: State,
    like: Digest,
}

enum State {
    Sha1(sha1::Sha1),
    Sha256(sha2::Sha256),
    Sha512(sha2::Sha512),
}

impl Digest {
    /// A digest of what will be written to it.
    pub fn hasher(&self) -> Hasher {
        use sha1::Digest as _;
        let state = match self.algorithm {
            Algorithm::Sha1 => State::Sha1(sha1::Sha1::new()),
            Algorithm::Sha256 => State::Sha256(sha2::Sha256::new()),
            Algorithm::Sha512 => State::Sha512(sha2::Sha512::new()),
        };
        Hasher {
            state,
            like: self.clone(),
        }
    }
}

impl Hasher {
    fn update(&mut self, bytes: &[u8]) {
        use sha1::Digest as _;
        match &mut self.state {
            State::Sha1(h) => h.update(bytes),
            State::Sha256(h) => h.update(bytes),
            State::Sha512(h) => h.update(bytes),
        }
    }

    /// The digest of all that was written, as a field value.
    pub fn value(self) -> String {
        use sha1::Digest as _;
        let sum = match self.state {
            State::Sha1(h) => h.finalize().to_vec(),
            State::Sha256(h) => h.finalize().to_vec(),
            State::Sha512(h) => h.finalize().to_vec(),
        };
        format!("{}:{}", self.like.label, self.like.encoding.encode(&sum))
    }
}

impl io::Write for Hasher {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_are_written_as_the_input_writes_them() {
        let of = |d: &Digest| d.of(&mut &b"abc"[..]).unwrap();
        // FIPS 180's "abc" examples.
        assert_eq!(
            of(&Digest::default()),
            "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5"
        );
        let hex =
            Digest::like("sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
                .unwrap();
        assert_eq!(
            of(&hex),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        let upper = Digest::like("SHA1:A9993E364706816ABA3E25717850C26C9CD0D89D").unwrap();
        assert_eq!(of(&upper), "SHA1:A9993E364706816ABA3E25717850C26C9CD0D89D");
        assert!(Digest::like("md5:kAFQmDzST7DWlj99KOF/cg==").is_none());
    }
}
