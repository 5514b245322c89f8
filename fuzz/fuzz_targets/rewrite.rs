//! Any bytes through the rewriter, with any base, flags and writes: see
//! `properties::check_rewrite`. Input: see `properties::Case::from_bytes`.
#![no_main]

use htmlabs_fuzz::properties::{Case, check_rewrite};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check_rewrite(&Case::from_bytes(data)));
