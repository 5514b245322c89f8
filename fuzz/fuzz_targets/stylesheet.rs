//! Any bytes through the stylesheet engine, with any base, flags and
//! writes: see `properties::check_stylesheet`. Input: see
//! `properties::Case::from_bytes` (its document is the stylesheet).
#![no_main]

use htmlabs_fuzz::properties::{Case, check_stylesheet};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| check_stylesheet(&Case::from_bytes(data)));
