//! What the rewriter and the lookahead's probe, two lol_html passes over
//! the same input, must agree on.

use lol_html::MemorySettings;

pub const HTML_NAMESPACE: &str = "http://www.w3.org/1999/xhtml";
pub const SVG_NAMESPACE: &str = "http://www.w3.org/2000/svg";

/// lol_html's limit, with the bail-out that flushes what it holds unchanged.
pub fn memory_settings(max_memory: usize) -> MemorySettings {
    MemorySettings::new()
        // lol_html preallocates 1 KiB, which must fit in the limit.
        .with_preallocated_parsing_buffer_size(max_memory.min(1024))
        .with_max_allowed_memory_usage(max_memory)
        .with_graceful_bail_out_on_memory_limit_exceeded(true)
}
