//! What a one-shot run sets for its memory: mimalloc keeps freed memory, and a cold run
//! asks the kernel for small pages ([`small_pages`]).
//!
//! mimalloc returns memory that stayed free for a second to the OS ("purging"). An audit
//! allocates and frees in waves, a chunk of files after another, so memory it purged is
//! soon asked for again, and the kernel clears every page before handing it back. On the
//! 100k-file cold run that clearing was 5% of the CPU; keeping freed memory (about 30 MB
//! more at the peak) makes the run 2–3% faster (docs/performance.md). A one-shot run ends
//! soon anyway. A watching process keeps the default and gives memory back.

/// The binaries' allocator: mimalloc, asked through its plain entry points for what needs
/// no more than word alignment (nearly every allocation: strings, byte buffers, vectors
/// of offsets and views). The `mimalloc` crate sends every request through the aligned
/// entry points, whose checks cost about 26 instructions an allocation more (the cold 10k
/// run went from 4.618 to 4.584 G instructions, over 1.3 M allocations). Every mimalloc
/// block is at least word-aligned: pages start blocks on 16 bytes and every size class
/// is a multiple of a word.
pub struct Allocator;

/// The alignment every mimalloc block has.
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each request is mimalloc's (plain where the alignment is at most `WORD`, which
// every block has, aligned otherwise), and every block is freed with `mi_free`, which
// takes blocks of both kinds.
unsafe impl std::alloc::GlobalAlloc for Allocator {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_malloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: see the impl.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_zalloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: `ptr` came from this allocator, so from mimalloc.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        // SAFETY: see the impl; `ptr` came from this allocator with `layout`'s alignment.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_realloc(ptr.cast(), new_size).cast()
            } else {
                libmimalloc_sys::mi_realloc_aligned(ptr.cast(), new_size, layout.align()).cast()
            }
        }
    }
}

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
    use super::Allocator;
    use std::alloc::{GlobalAlloc, Layout};

    /// Every block meets its layout's alignment, plain or aligned, and keeps its bytes
    /// when it grows or shrinks.
    #[test]
    fn blocks_are_aligned_and_keep_their_bytes() {
        for align in [1usize, 2, 4, 8, 16, 32, 64, 4096] {
            for size in [align, 8, 24, 40, 100, 1000, 70_000] {
                let size = size.max(align).next_multiple_of(align);
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a non-zero size; each block is freed once, with its layout.
                unsafe {
                    let zeroed = Allocator.alloc_zeroed(layout);
                    assert_eq!(zeroed as usize % align, 0, "{layout:?}");
                    assert!((0..size).all(|i| *zeroed.add(i) == 0));
                    Allocator.dealloc(zeroed, layout);
                    let p = Allocator.alloc(layout);
                    assert_eq!(p as usize % align, 0, "{layout:?}");
                    for i in 0..size {
                        *p.add(i) = i as u8;
                    }
                    let grown = Allocator.realloc(p, layout, size * 3);
                    assert_eq!(grown as usize % align, 0, "{layout:?} grown");
                    assert!(
                        (0..size).all(|i| *grown.add(i) == i as u8),
                        "{layout:?} grown"
                    );
                    let layout = Layout::from_size_align(size * 3, align).unwrap();
                    let shrunk = Allocator.realloc(grown, layout, size / 2 + 1);
                    assert_eq!(shrunk as usize % align, 0, "{layout:?} shrunk");
                    assert!((0..size / 2 + 1).all(|i| *shrunk.add(i) == i as u8));
                    let layout = Layout::from_size_align(size / 2 + 1, align).unwrap();
                    Allocator.dealloc(shrunk, layout);
                }
            }
        }
    }

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
