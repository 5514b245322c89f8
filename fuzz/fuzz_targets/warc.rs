//! Any bytes as a web archive (`--warc`: plain, gzip or zstd), in either
//! mode, on one or two jobs, with any flags and reads: see
//! `properties::check_warc`. Input: see `properties::Case::from_bytes` (its
//! document is the archive).
#![no_main]

use htmlabs_fuzz::properties::{Case, check_warc};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check_warc(&Case::from_bytes(data)));
