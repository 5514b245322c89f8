//! The allocator's part in `--max-memory`. glibc's malloc keeps what a
//! thread frees in that thread's arena, for it to reuse, and gives it back
//! to the system only past a threshold that it raises each time a large
//! block is freed (up to 64 MiB). At `--jobs 2`, one record's links, freed
//! on one worker, stayed held while the next record's grew on the other:
//! an archive of four pages of long link lists (`--max-memory 16000000`)
//! peaked at 32–35 MB where `--jobs 1` held 19 MB, though the run never
//! counted more than the limit at once (12.7 MB by heaptrack).
//!
//! Fixed thresholds end that: freed memory past 1 MiB at the top of an
//! arena goes back, and blocks of 4 MiB and more are mapped on their own
//! (given back when freed): 25.6 MB. Lower, the reading of an archive
//! maps and unmaps its buffers record by record (at 128 KiB, seven times
//! the system time on the warc bench's archive). mimalloc and jemalloc, as
//! they come, held more (73 and 36 MB).

// The one call into C of the project: settings of malloc's, integers.
#![allow(unsafe_code)]

/// Has the allocator give back what is freed, before any thread starts.
pub fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt(3) changes a parameter of malloc; it reads nothing
    // of ours and is safe to call at any time (it takes malloc's lock).
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 20);
        libc::mallopt(libc::M_MMAP_THRESHOLD, 4 << 20);
    }
}
