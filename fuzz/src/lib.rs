//! The fuzz targets' shared code: the property checks, which the main
//! crate's engine tests include too (`tests/engines/main.rs`, for
//! `fuzz_corpus`, `properties`, `resolver_properties` and `bad_input`).

pub mod properties;
