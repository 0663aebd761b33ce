//! What a one-shot run sets for its memory: mimalloc keeps freed memory, and a cold run
//! asks the kernel for small pages ([`small_pages`]).
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

/// Asks the kernel for no transparent huge pages in this process, for a run that reads
/// every file (no stat index yet). mimalloc asks for huge pages, and the kernel clears
/// 2 MB at each first touch of its arena; a cold run touches new memory through most of
/// its length (lockfile entries, per-file results), and with 4 KB pages it spent less in
/// the kernel (item 57). A warm run touches a few large buffers once, where huge pages
/// are cheaper (8% slower without them), so it keeps them. mimalloc's own `allow_thp`
/// option is read when its arena is mapped, before `main`; the process flag is read at
/// every page fault, so it takes effect now, arena included.
#[cfg(target_os = "linux")]
pub fn small_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes one integer argument and the rest zero; it only
    // sets a flag of this process. A kernel without it returns an error, which leaves
    // things as they were.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
pub fn small_pages() {}

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

    #[cfg(target_os = "linux")]
    #[test]
    fn small_pages_set_the_process_flag() {
        super::small_pages();
        // SAFETY: PR_GET_THP_DISABLE takes no argument and returns the flag.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
