//! Any bytes through the XML engine, with any base, flags and writes: see
//! `properties::check_xml`. Input: see `properties::Case::from_bytes` (its
//! document is the XML).
#![no_main]

use htmlabs_fuzz::properties::{Case, check_xml};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check_xml(&Case::from_bytes(data)));
