//! SSE2, which every x86-64 processor has, for the scans that test every byte of every
//! view: the places below, and — with AVX2 where the processor has it, through [`Block`]
//! — a view's triggers and the byte classes of the repeated-word scan (`repeat/masks.rs`).
//! The Markdown subset's scan for inline syntax (`extract/markdown/subset.rs`) uses
//! [`load`], [`any_of`] and [`bits`] too.
//! Every SSE2 intrinsic here needs nothing more, so each of those `unsafe` blocks rests
//! on that alone (and, for loads, on the bounds asserted).
//!
//! [`pairs`] finds the places where a byte of one kind is followed by a byte of another,
//! and [`triples`] those where the byte before is of a third kind too. That is where four
//! rules start looking: a one-letter word before a space (`cs-R1`, `cs-R1b`; not after an
//! ASCII letter or digit) and a space before a punctuation mark (`cs-R12`, `en-R7`). In
//! prose each kind alone is common, and testing them a byte at a time cost those rules a
//! few cycles per byte; compared sixteen at a time, a block without a place costs a few
//! instructions.

use std::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8,
    _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8, _mm_slli_si128,
};

/// The bytes of `buf` at `at..at + 16`.
#[inline(always)]
pub(crate) fn load(buf: &[u8], at: usize) -> __m128i {
    assert!(at + 16 <= buf.len());
    // SAFETY: SSE2; the assertion keeps the sixteen bytes inside `buf`, and an
    // unaligned load has no alignment requirement.
    unsafe { _mm_loadu_si128(buf.as_ptr().add(at).cast()) }
}

#[inline(always)]
pub(super) fn eq(v: __m128i, b: u8) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_cmpeq_epi8(v, splat(b)) }
}

/// Bytes in `lo..=hi`, both on the same side of `0x80` (the comparisons are
/// signed).
#[inline(always)]
pub(super) fn within(v: __m128i, lo: u8, hi: u8) -> __m128i {
    // SAFETY: SSE2.
    unsafe {
        let above = _mm_cmpgt_epi8(v, splat(lo.wrapping_sub(1)));
        let below = _mm_cmplt_epi8(v, splat(hi.wrapping_add(1)));
        _mm_and_si128(above, below)
    }
}

#[inline(always)]
pub(super) fn or(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_or_si128(a, b) }
}

#[inline(always)]
pub(super) fn and(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_and_si128(a, b) }
}

/// `b` without `a`.
#[inline(always)]
pub(super) fn and_not(a: __m128i, b: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_andnot_si128(a, b) }
}

/// `v` a byte later: a zero byte first, its last byte gone.
#[inline(always)]
fn shift_in_zero(v: __m128i) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_slli_si128::<1>(v) }
}

/// `b` in every byte.
#[inline(always)]
pub(super) fn splat(b: u8) -> __m128i {
    // SAFETY: SSE2.
    unsafe { _mm_set1_epi8(b as i8) }
}

/// One bit per byte: its top bit.
#[inline(always)]
pub(crate) fn bits(v: __m128i) -> u64 {
    // SAFETY: SSE2.
    u64::from(unsafe { _mm_movemask_epi8(v) } as u16)
}

/// Calls `f(i)`, in order, for every `i` where `first` holds for byte `i` and `second` for
/// byte `i + 1`. Each test takes sixteen bytes and gives `0xFF` where it holds, `0` where
/// not.
pub(super) fn pairs(
    bytes: &[u8],
    first: impl Fn(__m128i) -> __m128i,
    second: impl Fn(__m128i) -> __m128i,
    f: impl FnMut(usize),
) {
    triples(bytes, |_| splat(0xFF), first, second, f);
}

/// [`pairs`] where `before` also holds for byte `i - 1`; before the text stands a zero
/// byte.
pub(super) fn triples(
    bytes: &[u8],
    before: impl Fn(__m128i) -> __m128i,
    first: impl Fn(__m128i) -> __m128i,
    second: impl Fn(__m128i) -> __m128i,
    mut f: impl FnMut(usize),
) {
    let mut buf = [0u8; 32];
    let mut at = 0;
    while at + 1 < bytes.len() {
        // Sixteen bytes from `at`, the sixteen from the next and the sixteen from the one
        // before (a zero byte first at the start of the text).
        let (previous, here, next) = if at + 17 <= bytes.len() {
            let here = load(bytes, at);
            let previous = if at == 0 {
                shift_in_zero(here)
            } else {
                load(bytes, at - 1)
            };
            (previous, here, load(bytes, at + 1))
        } else {
            // At most seventeen bytes, after the zero byte before the text if `at` is 0.
            let lead = usize::from(at == 0);
            let tail = &bytes[at + lead - 1..];
            buf[..lead].fill(0);
            buf[lead..lead + tail.len()].copy_from_slice(tail);
            buf[lead + tail.len()..].fill(0);
            (load(&buf, 0), load(&buf, 1), load(&buf, 2))
        };
        let both = and(first(here), second(next));
        let mut found = bits(and(before(previous), both));
        // Only places whose second byte is in the text.
        let room = bytes.len() - at - 1;
        if room < 16 {
            found &= (1u64 << room) - 1;
        }
        while found != 0 {
            f(at + found.trailing_zeros() as usize);
            found &= found - 1;
        }
        at += 16;
    }
}

/// Bytes equal to any of `set`.
#[inline(always)]
pub(crate) fn any_of(v: __m128i, set: &[u8]) -> __m128i {
    set.iter().fold(splat(0), |acc, &b| or(acc, eq(v, b)))
}

/// A set of bytes with at most eight distinct high nibbles, as two tables of sixteen:
/// byte `b` is in the set when `low[b & 15] & high[b >> 4]` is not zero (each high nibble
/// of the set has a bit of its own, and `low` has a high nibble's bit for every low
/// nibble it is seen with). AVX2 looks both tables up for thirty-two bytes at once
/// (`vpshufb`), where comparing with each byte of a dozen took two dozen instructions
/// per sixteen bytes.
pub(crate) struct NibbleSet {
    bytes: &'static [u8],
    low: [u8; 16],
    high: [u8; 16],
}

impl NibbleSet {
    pub(crate) const fn new(bytes: &'static [u8]) -> NibbleSet {
        let (mut low, mut high) = ([0u8; 16], [0u8; 16]);
        let mut bits = 0;
        let mut i = 0;
        while i < bytes.len() {
            let h = (bytes[i] >> 4) as usize;
            if high[h] == 0 {
                assert!(bits < 8, "at most eight distinct high nibbles");
                high[h] = 1 << bits;
                bits += 1;
            }
            low[(bytes[i] & 15) as usize] |= high[h];
            i += 1;
        }
        NibbleSet { bytes, low, high }
    }

    pub(crate) fn contains(&self, b: u8) -> bool {
        self.low[usize::from(b & 15)] & self.high[usize::from(b >> 4)] != 0
    }
}

/// Where the first byte of `set` at or after `from` is: thirty-two bytes at a time with
/// AVX2 where the processor has it, then sixteen with SSE2, then one.
pub(crate) fn find_any(bytes: &[u8], from: usize, set: &NibbleSet) -> Option<usize> {
    let mut at = from;
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, all `find_any_avx2` needs.
        if let Some(found) = unsafe { find_any_avx2(bytes, &mut at, set) } {
            return Some(found);
        }
    }
    while at + 16 <= bytes.len() {
        let found = bits(any_of(load(bytes, at), set.bytes));
        if found != 0 {
            return Some(at + found.trailing_zeros() as usize);
        }
        at += 16;
    }
    bytes
        .get(at..)?
        .iter()
        .position(|&b| set.contains(b))
        .map(|i| at + i)
}

/// [`find_any`]'s whole blocks of thirty-two from `*at`, which it leaves after the last
/// block it looked at.
#[target_feature(enable = "avx2")]
fn find_any_avx2(bytes: &[u8], at: &mut usize, set: &NibbleSet) -> Option<usize> {
    use std::arch::x86_64::{
        _mm_loadu_si128, _mm256_and_si256, _mm256_broadcastsi128_si256, _mm256_cmpeq_epi8,
        _mm256_movemask_epi8, _mm256_set1_epi8, _mm256_setzero_si256, _mm256_shuffle_epi8,
        _mm256_srli_epi16,
    };
    // SAFETY: AVX2, which this function is compiled for and only runs with; the tables
    // are sixteen bytes each, and `Block::load` asserts its bounds.
    unsafe {
        let low = _mm256_broadcastsi128_si256(_mm_loadu_si128(set.low.as_ptr().cast()));
        let high = _mm256_broadcastsi128_si256(_mm_loadu_si128(set.high.as_ptr().cast()));
        let nibble = _mm256_set1_epi8(0x0F);
        while *at + 32 <= bytes.len() {
            let v = <std::arch::x86_64::__m256i as Block>::load(bytes, *at);
            let l = _mm256_shuffle_epi8(low, _mm256_and_si256(v, nibble));
            let h = _mm256_shuffle_epi8(high, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
            let outside = _mm256_cmpeq_epi8(_mm256_and_si256(l, h), _mm256_setzero_si256());
            let found = !(_mm256_movemask_epi8(outside) as u32);
            if found != 0 {
                return Some(*at + found.trailing_zeros() as usize);
            }
            *at += 32;
        }
    }
    None
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
pub(super) trait Block: Copy {
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
        // SAFETY: AVX2, which the caller's processor has (as for every method here).
        unsafe { std::arch::x86_64::_mm256_set1_epi8(b as i8) }
    }
    #[inline(always)]
    unsafe fn eq(self, b: u8) -> Self {
        unsafe { std::arch::x86_64::_mm256_cmpeq_epi8(self, Self::splat(b)) }
    }
    #[inline(always)]
    unsafe fn or(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_or_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn and(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_and_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn and_not(self, other: Self) -> Self {
        unsafe { std::arch::x86_64::_mm256_andnot_si256(self, other) }
    }
    #[inline(always)]
    unsafe fn within(self, lo: u8, hi: u8) -> Self {
        use std::arch::x86_64::_mm256_cmpgt_epi8;
        unsafe {
            let above = _mm256_cmpgt_epi8(self, Self::splat(lo.wrapping_sub(1)));
            let below = _mm256_cmpgt_epi8(Self::splat(hi.wrapping_add(1)), self);
            above.and(below)
        }
    }
    #[inline(always)]
    unsafe fn bits(self) -> u64 {
        u64::from(unsafe { std::arch::x86_64::_mm256_movemask_epi8(self) } as u32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SOME: &[u8] = b"\\*_~<&$|[]`\t";
    static SOME_SET: NibbleSet = NibbleSet::new(SOME);

    #[test]
    fn a_nibble_set_holds_its_bytes_and_no_other() {
        for b in 0..=255u8 {
            assert_eq!(SOME_SET.contains(b), SOME.contains(&b), "{b:#04x}");
        }
    }

    proptest! {
        /// The first byte of the set at or after any place, in texts of a few blocks.
        #[test]
        fn find_any_finds_the_first_byte_of_the_set(
            text in proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'`'), Just(b'\t'), Just(0xC3), any::<u8>()], 0..140),
            from in 0usize..150,
        ) {
            let expected = text.get(from..).and_then(|t| t.iter().position(|b| SOME.contains(b))).map(|i| from + i);
            prop_assert_eq!(find_any(&text, from, &SOME_SET), expected);
        }

        /// With a byte before: every place the byte-at-a-time scan finds, and no other.
        #[test]
        fn triples_are_the_places_where_all_three_bytes_fit(
            text in proptest::collection::vec(prop_oneof![Just(b' '), Just(b'a'), Just(b','), any::<u8>()], 0..70),
        ) {
            let mut found = Vec::new();
            triples(&text, |v| any_of(v, b"\0 "), |v| any_of(v, b" a"), |v| any_of(v, b",a"), |i| found.push(i));
            let expected: Vec<usize> = (0..text.len().saturating_sub(1))
                .filter(|&i| {
                    let before = if i == 0 { 0 } else { text[i - 1] };
                    b"\0 ".contains(&before) && b" a".contains(&text[i]) && b",a".contains(&text[i + 1])
                })
                .collect();
            prop_assert_eq!(found, expected);
        }

        /// Every place a byte-at-a-time scan finds, and no other, for texts around a
        /// block's length.
        #[test]
        fn pairs_are_the_places_where_both_bytes_fit(
            text in proptest::collection::vec(prop_oneof![Just(b' '), Just(b'a'), Just(b','), any::<u8>()], 0..70),
        ) {
            let is_first = |b: u8| b == b' ' || b == b'a';
            let is_second = |b: u8| b == b',' || b == b'a';
            let mut found = Vec::new();
            pairs(&text, |v| any_of(v, b" a"), |v| any_of(v, b",a"), |i| found.push(i));
            let expected: Vec<usize> = text
                .windows(2)
                .enumerate()
                .filter(|(_, w)| is_first(w[0]) && is_second(w[1]))
                .map(|(i, _)| i)
                .collect();
            prop_assert_eq!(found, expected);
        }
    }
}
