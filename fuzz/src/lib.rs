//! The fuzz targets' shared code: the property checks, which
//! `tests/fuzz_corpus.rs` and `tests/properties.rs` include too.

pub mod properties;
