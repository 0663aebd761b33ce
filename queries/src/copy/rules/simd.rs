//! SSE2, which every x86-64 processor has, and AVX2 where the processor has it, for the
//! scans that test every byte of every view: a view's triggers and the byte classes of
//! the repeated-word scan (`repeat/masks.rs`), written once over [`Block`]; the places
//! below; and [`find_any`], which the Markdown subset's scan for inline syntax
//! (`extract/markdown/subset.rs`) uses.
//! Every SSE2 intrinsic here needs nothing more, so each of those `unsafe` blocks rests
//! on that alone (and, for loads, on the bounds asserted); the AVX2 ones run only in
//! functions compiled for AVX2 and called once the processor is known to have it.
//!
//! [`pairs`] finds the places where a byte of one kind is followed by a byte of another,
//! and [`triples`] those where the byte before is of a third kind too. That is where four
//! rules start looking: a one-letter word before a space (`cs-R1`, `cs-R1b`; not after an
//! ASCII letter or digit), a space before a punctuation mark (`cs-R12`, `en-R7`) and a
//! capital before a small letter (`cs-R8`). In prose each kind alone is common, and
//! testing them a byte at a time cost those rules a few cycles per byte. Each kind is a
//! [`NibbleSet`]: with AVX2, two table look-ups test thirty-two bytes against the whole
//! set; with SSE2, one comparison per run of consecutive bytes in it tests sixteen.

use std::arch::x86_64::{
    __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi8, _mm_cmpgt_epi8, _mm_cmplt_epi8,
    _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
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

/// A test of each byte of a block: in `set`, or (`outside`) not in it.
#[derive(Clone, Copy)]
pub(super) struct Test {
    set: &'static NibbleSet,
    outside: bool,
}

impl Test {
    pub(super) const fn inside(set: &'static NibbleSet) -> Test {
        Test {
            set,
            outside: false,
        }
    }

    pub(super) const fn outside(set: &'static NibbleSet) -> Test {
        Test { set, outside: true }
    }

    /// `0xFF` in each byte of `v` that passes, `0` elsewhere.
    ///
    /// # Safety
    /// The processor has `B`'s instructions.
    #[inline(always)]
    unsafe fn of<B: Block>(self, v: B) -> B {
        // SAFETY: the caller's processor has `B`'s instructions.
        unsafe {
            let hit = v.member(self.set);
            if self.outside {
                hit.and_not(B::splat(0xFF))
            } else {
                hit
            }
        }
    }

    /// Whether byte `b` passes: the definition the blocks are tested against.
    #[cfg(test)]
    fn holds(self, b: u8) -> bool {
        self.set.contains(b) != self.outside
    }
}

/// Calls `f(i)`, in order, for every `i` where `first` holds for byte `i` and `second` for
/// byte `i + 1`.
pub(super) fn pairs(bytes: &[u8], first: Test, second: Test, mut f: impl FnMut(usize)) {
    places(bytes, None, first, second, &mut f);
}

/// [`pairs`] where `before` also holds for byte `i - 1`; before the text stands a zero
/// byte.
pub(super) fn triples(
    bytes: &[u8],
    before: Test,
    first: Test,
    second: Test,
    mut f: impl FnMut(usize),
) {
    places(bytes, Some(before), first, second, &mut f);
}

/// [`pairs`] and [`triples`]: thirty-two bytes at a time where the processor has AVX2,
/// sixteen otherwise.
fn places(
    bytes: &[u8],
    before: Option<Test>,
    first: Test,
    second: Test,
    f: &mut impl FnMut(usize),
) {
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, all `places_avx2` needs.
        unsafe { places_avx2(bytes, before, first, second, f) }
    } else {
        // SAFETY: every x86-64 processor has SSE2.
        unsafe { places_in::<__m128i>(bytes, before, first, second, f) }
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

/// [`places`] a block at a time.
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
        // SAFETY (both arms): the caller's processor has `B`'s instructions, and
        // `B::load` asserts its bounds.
        let (previous, here, next) = match from {
            Some(from) => {
                let here = unsafe { B::load(bytes, from) };
                let previous = if before.is_some() {
                    unsafe { B::load(bytes, from - 1) }
                } else {
                    here // not read: no test for the byte before
                };
                (previous, here, unsafe { B::load(bytes, from + 1) })
            }
            None => {
                let from = at.saturating_sub(1);
                let to = (at + w + 1).min(bytes.len());
                let lead = usize::from(at == 0);
                buf.fill(0);
                buf[lead..lead + to - from].copy_from_slice(&bytes[from..to]);
                unsafe { (B::load(&buf, 0), B::load(&buf, 1), B::load(&buf, 2)) }
            }
        };
        // SAFETY: as above.
        let mut found = unsafe {
            let mut both = first.of(here).and(second.of(next));
            if let Some(before) = before {
                both = both.and(before.of(previous));
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

/// A set of bytes with at most eight distinct high nibbles, as two tables of sixteen:
/// byte `b` is in the set when `low[b & 15] & high[b >> 4]` is not zero (each high nibble
/// of the set has a bit of its own, and `low` has a high nibble's bit for every low
/// nibble it is seen with). AVX2 looks both tables up for thirty-two bytes at once
/// (`vpshufb`), the same two instructions whatever the set. SSE2 has no such look-up and
/// compares with the set's runs of consecutive bytes instead (`0-9`, `A-Z`, `a-z` are
/// three).
pub(crate) struct NibbleSet {
    low: [u8; 16],
    high: [u8; 16],
    /// The runs, `runs[..len]`, in byte order.
    runs: [(u8, u8); 64],
    len: usize,
}

impl NibbleSet {
    pub(crate) const fn new(bytes: &[u8]) -> NibbleSet {
        let mut set = NibbleSet {
            low: [0; 16],
            high: [0; 16],
            runs: [(0, 0); 64],
            len: 0,
        };
        let mut i = 0;
        while i < bytes.len() {
            set = set.with(bytes[i]);
            i += 1;
        }
        set.with_runs()
    }

    /// The bytes `lo..=hi`.
    pub(crate) const fn range(lo: u8, hi: u8) -> NibbleSet {
        let mut set = NibbleSet::new(&[]);
        let mut b = lo;
        while b <= hi {
            set = set.with(b);
            if b == u8::MAX {
                break;
            }
            b += 1;
        }
        set.with_runs()
    }

    /// `letters` (ASCII, small) and their capitals.
    pub(crate) const fn both_cases(letters: &[u8]) -> NibbleSet {
        let mut set = NibbleSet::new(letters);
        let mut i = 0;
        while i < letters.len() {
            set = set.with(letters[i].to_ascii_uppercase());
            i += 1;
        }
        set.with_runs()
    }

    /// The bytes of this set and of `other`.
    pub(crate) const fn union(self, other: &NibbleSet) -> NibbleSet {
        let mut set = self;
        let mut b = 0;
        while b < 256 {
            if other.contains(b as u8) {
                set = set.with(b as u8);
            }
            b += 1;
        }
        set.with_runs()
    }

    /// The tables with `b` in them (the runs are made once the set is whole).
    const fn with(mut self, b: u8) -> NibbleSet {
        let h = (b >> 4) as usize;
        if self.high[h] == 0 {
            let mut used = 0;
            let mut i = 0;
            while i < 16 {
                used += (self.high[i] != 0) as u32;
                i += 1;
            }
            assert!(used < 8, "at most eight distinct high nibbles");
            self.high[h] = 1 << used;
        }
        self.low[(b & 15) as usize] |= self.high[h];
        self
    }

    /// The set with its runs made from its tables.
    const fn with_runs(mut self) -> NibbleSet {
        self.len = 0;
        let mut b = 0;
        while b < 256 {
            if self.contains(b as u8) {
                let starts = b == 0 || !self.contains((b - 1) as u8);
                if starts {
                    self.runs[self.len] = (b as u8, b as u8);
                    self.len += 1;
                } else {
                    self.runs[self.len - 1].1 = b as u8;
                }
            }
            b += 1;
        }
        self
    }

    pub(crate) const fn contains(&self, b: u8) -> bool {
        self.low[(b & 15) as usize] & self.high[(b >> 4) as usize] != 0
    }

    fn runs(&self) -> &[(u8, u8)] {
        &self.runs[..self.len]
    }
}

/// Where the first byte of `set` at or after `from` is: thirty-two bytes at a time with
/// AVX2 where the processor has it, then sixteen with SSE2, then one.
pub(crate) fn find_any(bytes: &[u8], from: usize, set: &NibbleSet) -> Option<usize> {
    let mut at = from;
    let mut found = None;
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the processor has AVX2, all `find_any_avx2` needs.
        found = unsafe { find_any_avx2(bytes, &mut at, set) };
    }
    // SAFETY: every x86-64 processor has SSE2.
    found
        .or_else(|| unsafe { find_any_in::<__m128i>(bytes, &mut at, set) })
        .or_else(|| {
            let rest = bytes.get(at..)?;
            rest.iter().position(|&b| set.contains(b)).map(|i| at + i)
        })
}

#[target_feature(enable = "avx2")]
fn find_any_avx2(bytes: &[u8], at: &mut usize, set: &NibbleSet) -> Option<usize> {
    // SAFETY: this function runs only where the processor has AVX2.
    unsafe { find_any_in::<std::arch::x86_64::__m256i>(bytes, at, set) }
}

/// [`find_any`]'s whole blocks from `*at`, which it leaves after the last block it looked
/// at.
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
    use super::*;
    use proptest::prelude::*;

    const SOME: &[u8] = b"\\*_~<&$|[]`\t";
    static SOME_SET: NibbleSet = NibbleSet::new(SOME);
    static LETTERS: NibbleSet = NibbleSet::both_cases(b"ksvz");
    static ALNUM: NibbleSet = NibbleSet::range(b'0', b'9')
        .union(&NibbleSet::range(b'A', b'Z').union(&NibbleSet::range(b'a', b'z')));
    static SPACES: NibbleSet = NibbleSet::new(b" \n\r");
    static HIGH: NibbleSet = NibbleSet::new(&[0x80, 0xA0, 0xC3, 0xFF]);
    static CROSS: NibbleSet = NibbleSet::range(0x70, 0x90);

    #[test]
    fn a_nibble_set_holds_its_bytes_and_no_other() {
        let alnum = |b: u8| b.is_ascii_alphanumeric();
        for b in 0..=255u8 {
            assert_eq!(SOME_SET.contains(b), SOME.contains(&b), "{b:#04x}");
            assert_eq!(LETTERS.contains(b), b"ksvzKSVZ".contains(&b), "{b:#04x}");
            assert_eq!(ALNUM.contains(b), alnum(b), "{b:#04x}");
            assert_eq!(
                HIGH.contains(b),
                [0x80, 0xA0, 0xC3, 0xFF].contains(&b),
                "{b:#04x}"
            );
            assert_eq!(CROSS.contains(b), (0x70..=0x90).contains(&b), "{b:#04x}");
        }
        assert_eq!(ALNUM.runs(), [(b'0', b'9'), (b'A', b'Z'), (b'a', b'z')]);
        assert_eq!(
            HIGH.runs(),
            [(0x80, 0x80), (0xA0, 0xA0), (0xC3, 0xC3), (0xFF, 0xFF)]
        );
        assert_eq!(CROSS.runs(), [(0x70, 0x90)]);
    }

    /// The sets a proptest picks from: ASCII and not, single bytes and runs, one across
    /// `0x80`.
    static SETS: [&NibbleSet; 6] = [&SOME_SET, &LETTERS, &ALNUM, &SPACES, &HIGH, &CROSS];

    /// The tests a proptest picks from: each set, inside and outside.
    fn test_of(i: usize) -> Test {
        match i < SETS.len() {
            true => Test::inside(SETS[i]),
            false => Test::outside(SETS[i - SETS.len()]),
        }
    }

    fn bytes() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec(
            prop_oneof![
                Just(b' '),
                Just(b'a'),
                Just(b'k'),
                Just(b'`'),
                Just(0xC3),
                Just(0xA0),
                any::<u8>()
            ],
            0..140,
        )
    }

    /// `(before, first, second)` places found a byte at a time: the definition.
    fn places_by_byte(text: &[u8], before: Option<Test>, first: Test, second: Test) -> Vec<usize> {
        (0..text.len().saturating_sub(1))
            .filter(|&i| {
                let previous = if i == 0 { 0 } else { text[i - 1] };
                before.is_none_or(|t| t.holds(previous))
                    && first.holds(text[i])
                    && second.holds(text[i + 1])
            })
            .collect()
    }

    proptest! {
        /// The first byte of the set at or after any place, in texts of a few blocks.
        #[test]
        fn find_any_finds_the_first_byte_of_the_set(
            text in bytes(),
            from in 0usize..150,
            set in 0usize..6,
        ) {
            let set = SETS[set];
            let expected = text.get(from..).and_then(|t| t.iter().position(|&b| set.contains(b))).map(|i| from + i);
            prop_assert_eq!(find_any(&text, from, set), expected);
            // The SSE2 blocks alone, where the AVX2 ones ran above.
            let mut at = from;
            // SAFETY: every x86-64 processor has SSE2.
            let narrow = unsafe { find_any_in::<__m128i>(&text, &mut at, set) }
                .or_else(|| text.get(at..)?.iter().position(|&b| set.contains(b)).map(|i| at + i));
            prop_assert_eq!(narrow, expected);
        }

        /// Every place the byte-at-a-time definition finds, and no other, with a byte
        /// before and without, at both widths.
        #[test]
        fn places_are_where_the_bytes_fit(
            text in bytes(),
            tests in (0usize..12, 0usize..12, 0usize..12),
            with_before in any::<bool>(),
        ) {
            let (before, first, second) = (test_of(tests.0), test_of(tests.1), test_of(tests.2));
            let before = with_before.then_some(before);
            let expected = places_by_byte(&text, before, first, second);
            let mut found = Vec::new();
            match before {
                Some(b) => triples(&text, b, first, second, |i| found.push(i)),
                None => pairs(&text, first, second, |i| found.push(i)),
            }
            prop_assert_eq!(&found, &expected);
            let mut narrow = Vec::new();
            // SAFETY: every x86-64 processor has SSE2.
            unsafe { places_in::<__m128i>(&text, before, first, second, &mut |i| narrow.push(i)) };
            prop_assert_eq!(narrow, expected);
        }
    }
}
