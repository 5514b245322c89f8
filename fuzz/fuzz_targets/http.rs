//! Any bytes as a saved response (`--http`: header blocks, then a body),
//! with any base, flags and writes: see `properties::check_http`. Input:
//! see `properties::Case::from_bytes` (its document is the response).
#![no_main]

use htmlabs_fuzz::properties::{Case, check_http};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check_http(&Case::from_bytes(data)));
