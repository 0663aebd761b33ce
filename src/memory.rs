//! Memory settings that pay (docs/performance.md, "What each fast mechanism buys", output
//! and memory): the page size for a cold audit, and how soon freed pages go back.

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

/// Has mimalloc give freed pages back to the system 10 ms after they are freed (its v2's
/// default) instead of a second after (v3's, which we build). A soil-lock run frees as
/// much as it keeps while it reads (file bytes, cache files, parse trees): at 50,000
/// definitions a warm `status` peaked at 227–274 MB with the second's delay and 210–220 MB
/// with 10 ms, in no measurably longer time. A copy-audit run frees its findings shards
/// as it starts printing: on the real 100k tree a warm run peaked at 225–229 MB with the
/// second and 205–207 MB with 10 ms, a cold one at 186–201 and 173–188 MB, in the same
/// time. Only sets an option, so it is harmless where mimalloc is linked but not the
/// allocator (the tests).
pub fn free_pages_soon() {
    // SAFETY: mi_option_set takes an option and a value and only records them; the purge
    // delay is read at each purge, so it applies from the next free on.
    unsafe {
        libmimalloc_sys::mi_option_set(PURGE_DELAY, 10);
    }
}

/// `mi_option_purge_delay`, the sixteenth of mimalloc.h's `mi_option_e` in both its v2 and
/// v3, which the bindings do not name.
const PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn small_pages_set_the_process_flag() {
        super::small_pages();
        // SAFETY: PR_GET_THP_DISABLE takes no argument and returns the flag.
        let disabled = unsafe { libc::prctl(libc::PR_GET_THP_DISABLE, 0, 0, 0, 0) };
        assert_eq!(disabled, 1);
    }

    /// Option 15 is the purge delay: a second by default in the mimalloc we build (unless
    /// the environment says otherwise), 10 ms once set.
    #[test]
    fn the_option_set_is_the_purge_delay() {
        // SAFETY: mi_option_get takes an option and only reads it.
        let get = || unsafe { libmimalloc_sys::mi_option_get(super::PURGE_DELAY) };
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_none() {
            assert_eq!(get(), 1000);
        }
        super::free_pages_soon();
        assert_eq!(get(), 10);
    }
}
