//! The allocator settings of ours, for a run that ends soon (`for_one_run`).
//!
//! - **Freed memory is kept.** mimalloc returns memory that stayed free for a second to
//!   the OS ("purging"). An audit allocates and frees in waves, a chunk of files after
//!   another, so memory it purged is soon asked for again, and the kernel clears every
//!   page before handing it back. On the 100k-file cold run that clearing was 5% of the
//!   CPU; keeping freed memory (about 30 MB more at the peak) makes the run 2–3% faster
//!   (docs/performance.md).
//! - **Pages are small** (Linux). mimalloc asks for transparent huge pages, so the first
//!   touch of each 2 MB of its arena has the kernel clear all 2 MB at once; a run that
//!   holds a file's bytes, its views and the lockfile entries in flight touches new
//!   memory through most of its length. With 4 KB pages the cold 100k-file run spent
//!   0.29 CPU-seconds less in the kernel (a quarter of its system time), took 5% less
//!   wall time and peaked 14 MB lower; the extra TLB misses cost 0.13 CPU-seconds of user
//!   time, which that includes (item 54).
//!
//! A one-shot run ends soon anyway. A watching process keeps the defaults and gives
//! memory back.

/// `mi_option_purge_delay` in mimalloc's option enumeration (v3 `mimalloc.h`), which the
/// Rust bindings leave out; a test checks it against the option's default.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Sets this process up for one audit or one `soil-lock` command.
pub fn for_one_run() {
    // SAFETY: sets one of mimalloc's options, which are atomics meant to be set at any
    // time; the test below checks the index.
    unsafe { libmimalloc_sys::mi_option_set(PURGE_DELAY, -1) }
    small_pages();
}

/// Asks the kernel for no transparent huge pages in this process. mimalloc's own
/// `allow_thp` option is read once, when its arena is mapped before `main`; the process
/// flag is read at every page fault, so it takes effect now, arena included.
#[cfg(target_os = "linux")]
fn small_pages() {
    // SAFETY: PR_SET_THP_DISABLE takes one integer argument and the rest zero; it only
    // sets a flag of this process. A kernel without it returns an error, which leaves
    // things as they were.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(not(target_os = "linux"))]
fn small_pages() {}

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
    fn a_run_asks_for_small_pages() {
        super::small_pages();
        // SAFETY: PR_GET_THP_DISABLE takes no argument and returns the flag.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
