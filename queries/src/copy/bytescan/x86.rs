//! The block versions of [the scans](super): sixteen bytes at a time with SSE2, which
//! every x86-64 processor has, and thirty-two with AVX2 where the processor has it, each
//! written once over [`Block`] and inlined into an entry point per width.
//!
//! Safety rests on two facts, stated at each `unsafe` block: every SSE2 intrinsic needs
//! nothing more than an x86-64 processor (and, for loads, the bounds asserted beside
//! them); the AVX2 ones run only in functions compiled for AVX2 (`#[target_feature]`)
//! and called once [`simd`](super::simd) has found that the processor has it.

use super::{NibbleSet, Simd, Test};
use std::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8,
    _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
};

/// The bytes of `buf` at `at..at + 16`.
#[inline(always)]
fn load(buf: &[u8], at: usize) -> __m128i {
    assert!(at + 16 <= buf.len());
    // SAFETY: SSE2; the assertion keeps the sixteen bytes inside `buf`, and an
    // unaligned load has no alignment requirement.
    unsafe { _mm_loadu_si128(buf.as_ptr().add(at).cast()) }
}

#[inline(always)]
fn eq(v: __m128i, b: u8) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_cmpeq_epi8(v, splat(b)) }
}

/// Bytes in `lo..=hi`, both on the same side of `0x80` (the comparisons are
/// signed).
#[inline(always)]
fn within(v: __m128i, lo: u8, hi: u8) -> __m128i {
    // SAFETY: SSE2.
    unsafe {
        let above = _mm_cmpgt_epi8(v, splat(lo.wrapping_sub(1)));
        let below = _mm_cmplt_epi8(v, splat(hi.wrapping_add(1)));
        _mm_and_si128(above, below)
    }
}

#[inline(always)]
fn or(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_or_si128(a, b) }
}

#[inline(always)]
fn and(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_and_si128(a, b) }
}

/// `b` without `a`.
#[inline(always)]
fn and_not(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_andnot_si128(a, b) }
}

/// `b` in every byte.
#[inline(always)]
fn splat(b: u8) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_set1_epi8(b as i8) }
}

/// One bit per byte: its top bit.
#[inline(always)]
fn bits(v: __m128i) -> u64 {
    // SAFETY: SSE2.
    u64::from(unsafe { _mm_movemask_epi8(v) } as u16)
}

/// [`pairs`](super::pairs) and [`triples`](super::triples) a block at a time.
pub(super) fn places(
    simd: Simd,
    bytes: &[u8],
    before: Option<Test>,
    first: Test,
    second: Test,
    f: &mut impl FnMut(usize),
) {
    match simd {
        // SAFETY: `simd` found AVX2, all `places_avx2` needs.
        Simd::Avx2 => unsafe { places_avx2(bytes, before, first, second, f) },
        // SAFETY: every x86-64 processor has SSE2.
        Simd::Sse2 => unsafe { places_in::<__m128i>(bytes, before, first, second, f) },
    }
}

/// [`find_any`](super::find_any)'s whole blocks from `*at`, which it leaves after the
/// last block it looked at.
pub(super) fn find_any(simd: Simd, bytes: &[u8], at: &mut usize, set: &NibbleSet) -> Option<usize> {
    let found = match simd {
        // SAFETY: `simd` found AVX2, all `find_any_avx2` needs.
        Simd::Avx2 => unsafe { find_any_avx2(bytes, at, set) },
        Simd::Sse2 => None,
    };
    // SAFETY: every x86-64 processor has SSE2.
    found.or_else(|| unsafe { find_any_in::<__m128i>(bytes, at, set) })
}

#[target_feature(enable = "avx2")]
fn find_any_avx2(bytes: &[u8], at: &mut usize, set: &NibbleSet) -> Option<usize> {
    // SAFETY: this function runs only where the processor has AVX2.
    unsafe { find_any_in::<std::arch::x86_64::__m256i>(bytes, at, set) }
}

/// [`find_any`]'s blocks of one width.
///
/// # Safety
/// The processor has `B`'s instructions.
#[inline(always)]
unsafe fn find_any_in<B: Block>(bytes: &[u8], at: &mut usize, set: &NibbleSet) -> Option<usize> {
    while *at + B::BYTES <= bytes.len() {
        // SAFETY: the caller's processor has `B`'s instructions; `B::load` asserts its
        // bounds.
        let found = unsafe { B::load(bytes, *at).member(set).bits() };
        if found != 0 {
            return Some(*at + found.trailing_zeros() as usize);
        }
        *at += B::BYTES;
    }
    None
}

/// `0xFF` in each byte of `v` that passes `test`, `0` elsewhere.
///
/// # Safety
/// The processor has `B`'s instructions.
#[inline(always)]
unsafe fn passing<B: Block>(test: Test, v: B) -> B {
    // SAFETY: the caller's processor has `B`'s instructions.
    unsafe {
        let hit = v.member(test.set);
        if test.outside {
            hit.and_not(B::splat(0xFF))
        } else {
            hit
        }
    }
}

#[target_feature(enable = "avx2")]
fn places_avx2(
    bytes: &[u8],
    before: Option<Test>,
    first: Test,
    second: Test,
    f: &mut impl FnMut(usize),
) {
    // SAFETY: this function runs only where the processor has AVX2.
    unsafe { places_in::<std::arch::x86_64::__m256i>(bytes, before, first, second, f) }
}

///
/// # Safety
/// The processor has `B`'s instructions.
#[inline(always)]
unsafe fn places_in<B: Block>(
    bytes: &[u8],
    before: Option<Test>,
    first: Test,
    second: Test,
    f: &mut impl FnMut(usize),
) {
    let w = B::BYTES;
    // A block and the bytes around it, for the first block of a triple's text and for
    // a text too short for its last block to be read in place.
    let mut buf = [0u8; 32 + 2];
    // A block is read where it lies when the byte after it (and the one before it, for a
    // test of that) is in the text too.
    let in_place = |from: usize| (from >= 1 || before.is_none()) && from + w < bytes.len();
    // The last block read in place: it ends a byte before the text does.
    let last = bytes
        .len()
        .checked_sub(w + 1)
        .filter(|&from| in_place(from));
    let mut at = 0;
    while at + 1 < bytes.len() {
        // The block from `at` if it lies in place; else the last block if it starts no
        // later (the places before `at` it holds were found already); else a copy,
        // padded with zeros before the text and past its end, whose loads wait for the
        // copy's writes. (Every text's end went through the copy; reading it in place
        // here and in the triggers' pass took a cold 100k run from 2.91 to 2.84 CPU-s.)
        let from = if in_place(at) {
            Some(at)
        } else {
            last.filter(|&from| from <= at)
        };
        let base = from.unwrap_or(at);
        // Every load below: the caller's processor has `B`'s instructions, and `B::load`
        // asserts its bounds.
        let (previous, here, next) = match from {
            Some(from) => {
                // SAFETY: as said above the match.
                let here = unsafe { B::load(bytes, from) };
                let previous = if before.is_some() {
                    // SAFETY: as said above the match.
                    unsafe { B::load(bytes, from - 1) }
                } else {
                    here // not read: no test for the byte before
                };
                // SAFETY: as said above the match.
                (previous, here, unsafe { B::load(bytes, from + 1) })
            }
            None => {
                let from = at.saturating_sub(1);
                let to = (at + w + 1).min(bytes.len());
                let lead = usize::from(at == 0);
                buf.fill(0);
                buf[lead..lead + to - from].copy_from_slice(&bytes[from..to]);
                // SAFETY: as said above the match.
                unsafe { (B::load(&buf, 0), B::load(&buf, 1), B::load(&buf, 2)) }
            }
        };
        // SAFETY: the caller's processor has `B`'s instructions.
        let mut found = unsafe {
            let mut both = passing(first, here).and(passing(second, next));
            if let Some(before) = before {
                both = both.and(passing(before, previous));
            }
            both.bits()
        };
        // Only places from `at` on, whose second byte is in the text.
        found &= !0u64 << (at - base);
        let room = bytes.len() - base - 1;
        if room < w {
            found &= (1u64 << room) - 1;
        }
        while found != 0 {
            f(base + found.trailing_zeros() as usize);
            found &= found - 1;
        }
        at += w;
    }
}

/// A block of bytes tested at once: sixteen with SSE2, which every x86-64 processor has,
/// or thirty-two with AVX2, where the processor has it. The two passes every view takes (a
/// view's triggers, the repeated-word classes) are written once, generic over the block,
/// and inlined into an entry point per width; the AVX2 one is compiled for AVX2 and called
/// only once the processor is known to have it (builds stay portable).
///
/// # Safety
///
/// Every method runs its width's instructions: call them only on a processor that has
/// them — SSE2 always, AVX2 once detected.
pub(crate) trait Block: Copy {
    /// Bytes in a block.
    const BYTES: usize;
    /// The bytes of `buf` at `at..at + BYTES`.
    unsafe fn load(buf: &[u8], at: usize) -> Self;
    /// `b` in every byte.
    unsafe fn splat(b: u8) -> Self;
    unsafe fn eq(self, b: u8) -> Self;
    unsafe fn or(self, other: Self) -> Self;
    unsafe fn and(self, other: Self) -> Self;
    /// `other` without `self`.
    unsafe fn and_not(self, other: Self) -> Self;
    /// Bytes in `lo..=hi`, both on the same side of `0x80` (the comparisons are signed).
    unsafe fn within(self, lo: u8, hi: u8) -> Self;
    /// One bit per byte: its top bit.
    unsafe fn bits(self) -> u64;

    /// Bytes in `set`.
    unsafe fn member(self, set: &NibbleSet) -> Self;

    /// Bytes equal to any of `set`.
    #[inline(always)]
    unsafe fn any_of(self, set: &[u8]) -> Self {
        // SAFETY: the caller's processor has this width's instructions.
        set.iter()
            .fold(unsafe { Self::splat(0) }, |acc, &b| unsafe {
                acc.or(self.eq(b))
            })
    }
}

impl Block for __m128i {
    const BYTES: usize = 16;
    #[inline(always)]
    unsafe fn load(buf: &[u8], at: usize) -> Self {
        load(buf, at)
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        splat(b)
    }
    #[inline(always)]
    unsafe fn eq(self, b: u8) -> Self {
        eq(self, b)
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        or(self, other)
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        and(self, other)
    }
    #[inline(always)]
    unsafe fn and_not(self, other: Self) -> Self {
        and_not(self, other)
    }
    #[inline(always)]
    unsafe fn within(self, lo: u8, hi: u8) -> Self {
        within(self, lo, hi)
    }
    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        bits(self)
    }
    /// A comparison per run of the set, unsigned (a byte is in `lo..=hi` when clamping
    /// it to the run leaves it as it is), so a run may cross `0x80`.
    #[inline(always)]
    unsafe fn member(self, set: &NibbleSet) -> Self {
        use std::arch::x86_64::{_mm_max_epu8, _mm_min_epu8};
        set.runs()
            .iter()
            .fold(splat(0), |acc, &(lo, hi)| match lo == hi {
                true => or(acc, eq(self, lo)),
                // SAFETY: SSE2.
                false => unsafe {
                    let at_least = _mm_cmpeq_epi8(_mm_max_epu8(self, splat(lo)), self);
                    let at_most = _mm_cmpeq_epi8(_mm_min_epu8(self, splat(hi)), self);
                    or(acc, and(at_least, at_most))
                },
            })
    }
}

impl Block for std::arch::x86_64::__m256i {
    const BYTES: usize = 32;
    #[inline(always)]
    unsafe fn load(buf: &[u8], at: usize) -> Self {
        assert!(at + 32 <= buf.len());
        // SAFETY: AVX2 (the caller's processor has it); the assertion keeps the
        // thirty-two bytes inside `buf`, and an unaligned load has no alignment
        // requirement.
        unsafe { std::arch::x86_64::_mm256_loadu_si256(buf.as_ptr().add(at).cast()) }
    }
    #[inline(always)]
    unsafe fn splat(b: u8) -> Self {
        // SAFETY: AVX2, which the caller's processor has.
        unsafe { std::arch::x86_64::_mm256_set1_epi8(b as i8) }
    }
    #[inline(always)]
    unsafe fn eq(self, b: u8) -> Self {
        // SAFETY: AVX2, which the caller's processor has.
        unsafe { std::arch::x86_64::_mm256_cmpeq_epi8(self, Self::splat(b)) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        // SAFETY: AVX2, which the caller's processor has.
        unsafe { std::arch::x86_64::_mm256_or_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        // SAFETY: AVX2, which the caller's processor has.
        unsafe { std::arch::x86_64::_mm256_and_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn and_not(self, other: Self) -> Self {
        // SAFETY: AVX2, which the caller's processor has.
        unsafe { std::arch::x86_64::_mm256_andnot_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn within(self, lo: u8, hi: u8) -> Self {
        use std::arch::x86_64::_mm256_cmpgt_epi8;
        // SAFETY: AVX2, which the caller's processor has.
        unsafe {
            let above = _mm256_cmpgt_epi8(self, Self::splat(lo.wrapping_sub(1)));
            let below = _mm256_cmpgt_epi8(Self::splat(hi.wrapping_add(1)), self);
            above.and(below)
        }
    }
    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        // SAFETY: AVX2, which the caller's processor has.
        u64::from(unsafe { std::arch::x86_64::_mm256_movemask_epi8(self) } as u32)
    }
    /// Two table look-ups (`vpshufb`) instead of a comparison per byte of the set.
    #[inline(always)]
    unsafe fn member(self, set: &NibbleSet) -> Self {
        use std::arch::x86_64::{
            _mm_loadu_si128, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8, _mm256_setzero_si256,
            _mm256_shuffle_epi8, _mm256_srli_epi16,
        };
        // SAFETY: AVX2; the tables are sixteen bytes each.
        unsafe {
            let low = _mm256_broadcastsi128_si256(_mm_loadu_si128(set.low.as_ptr().cast()));
            let high = _mm256_broadcastsi128_si256(_mm_loadu_si128(set.high.as_ptr().cast()));
            let nibble = Self::splat(0x0F);
            let l = _mm256_shuffle_epi8(low, self.and(nibble));
            let h = _mm256_shuffle_epi8(high, _mm256_srli_epi16(self, 4).and(nibble));
            let outside = _mm256_cmpeq_epi8(l.and(h), _mm256_setzero_si256());
            outside.and_not(Self::splat(0xFF))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{SETS, bytes, first_in, places_by_byte, test_of};
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Both widths find the first byte of the set at or after any place, in texts of
        /// a few blocks.
        #[test]
        fn find_any_at_either_width_is_the_definition(
            text in bytes(),
            from in 0usize..150,
            set in 0usize..6,
        ) {
            let set = SETS[set];
            let expected = first_in(&text, from, set);
            for simd in widths() {
                let mut at = from;
                let found = find_any(simd, &text, &mut at, set)
                    .or_else(|| super::super::find_any_by_byte(&text, at, set));
                prop_assert_eq!(found, expected, "{:?}", simd);
            }
        }

        /// Both widths find every place the byte-at-a-time definition finds, and no other,
        /// with a byte before and without.
        #[test]
        fn places_at_either_width_are_the_definition(
            text in bytes(),
            tests in (0usize..12, 0usize..12, 0usize..12),
            with_before in any::<bool>(),
        ) {
            let (before, first, second) = (test_of(tests.0), test_of(tests.1), test_of(tests.2));
            let before = with_before.then_some(before);
            let expected = places_by_byte(&text, before, first, second);
            for simd in widths() {
                let mut found = Vec::new();
                places(simd, &text, before, first, second, &mut |i| found.push(i));
                prop_assert_eq!(&found, &expected, "{:?}", simd);
            }
        }
    }

    /// SSE2 always, AVX2 where this processor has it.
    pub(crate) fn widths() -> Vec<Simd> {
        let mut widths = vec![Simd::Sse2];
        if std::arch::is_x86_feature_detected!("avx2") {
            widths.push(Simd::Avx2);
        }
        widths
    }
}
