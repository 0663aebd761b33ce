//! Page size for a cold audit: the one memory setting that pays (docs/performance.md,
//! "What each fast mechanism buys", output and memory).

/// Asks the kernel for no transparent huge pages in this process, for a run that reads
/// every file (no stat index yet). mimalloc asks for huge pages, and the kernel clears
/// 2 MB at each first touch of its arena; a cold run touches new memory through most of
/// its length, and with 4 KB pages a cold run over 100k files is 4% faster. A warm run
/// touches a few large buffers once, where huge pages are cheaper (20% slower without
/// them), so it keeps them. The process flag is read at every page fault, so it takes
/// effect at once, for the arena mapped before `main` too.
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

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn small_pages_set_the_process_flag() {
        super::small_pages();
        // SAFETY: PR_GET_THP_DISABLE takes no argument and returns the flag.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }
}
