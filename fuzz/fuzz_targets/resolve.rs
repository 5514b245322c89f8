//! Any base and reference through both resolvers: see
//! `properties::check_resolve`. Input: the base, a NUL, the reference.
#![no_main]

use htmlabs_fuzz::properties::{check_resolve, resolve_case};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (base, reference) = resolve_case(data);
    check_resolve(&base, &reference);
});
