//! The one allocator setting of ours.
//!
//! mimalloc returns memory that stayed free for a second to the OS ("purging"). An audit
//! allocates and frees in waves, a chunk of files after another, so memory it purged is
//! soon asked for again, and the kernel clears every page before handing it back. On the
//! 100k-file cold run that clearing was 5% of the CPU; keeping freed memory (about 30 MB
//! more at the peak) makes the run 2–3% faster (docs/performance.md). A one-shot run ends
//! soon anyway. A watching process keeps the default and gives memory back.

/// `mi_option_purge_delay` in mimalloc's option enumeration (v3 `mimalloc.h`), which the
/// Rust bindings leave out; a test checks it against the option's default.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Keeps freed memory for the rest of the process.
pub fn keep_freed_memory() {
    // SAFETY: sets one of mimalloc's options, which are atomics meant to be set at any
    // time; the test below checks the index.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_purge_delay_is_the_option_we_set() {
        // Its default in this mimalloc (`src/options.c`) is 1000 ms, unless the
        // environment sets it.
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            // SAFETY: reads an option.
            let delay = unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
            assert_eq!(delay, 1000);
        }
    }
}
