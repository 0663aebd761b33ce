//! Byte scanning: the one place that tests every byte of a text, for the extractors and
//! the rules alike.
//!
//! Everything here is written twice on purpose: a byte at a time, which is the definition
//! and the code on every processor, and a block at a time ([`x86`]: SSE2, which every
//! x86-64 processor has, and AVX2 where the processor has it), which is what runs on
//! x86-64. Proptests hold each block version to its definition. [`simd`] decides which
//! runs; a build with the `force-scalar` feature takes the definitions on x86-64 too, and
//! CI runs the tests in such a build, so the code other processors run is tested here.
//!
//! The scans: [`find_any`] finds the next byte of a set (the Markdown subset's inline
//! syntax); [`pairs`] finds where a byte of one kind is followed by a byte of another, and
//! [`triples`] where the byte before is of a third kind too. That is where several rules
//! start looking: a one-letter word before a space (`cs-R1`, `cs-R1b`; not after an ASCII
//! letter or digit), a space before a punctuation mark (`cs-R12`, `en-R7`), a capital
//! before a small letter (`cs-R8`). In prose each kind alone is common, and testing them
//! a byte at a time cost those rules a few cycles per byte. The two passes every view
//! takes (its triggers, the repeated-word classes) are kernels of their own over
//! [`x86::Block`].

#[cfg(target_arch = "x86_64")]
pub(crate) mod x86;

/// A set of bytes as a lookup table: for scans that test a byte at a time, where a table
/// look-up beats comparing with a list of letters.
pub(crate) struct ByteSet(pub(crate) [bool; 256]);

impl ByteSet {
    pub(crate) const fn new(bytes: &[u8]) -> ByteSet {
        let mut table = [false; 256];
        let mut i = 0;
        while i < bytes.len() {
            table[bytes[i] as usize] = true;
            i += 1;
        }
        ByteSet(table)
    }

    /// The bytes in either set.
    pub(crate) const fn union(&self, other: &ByteSet) -> ByteSet {
        let mut table = self.0;
        let mut i = 0;
        while i < 256 {
            table[i] |= other.0[i];
            i += 1;
        }
        ByteSet(table)
    }
}

/// The blocks this processor scans with.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Simd {
    /// Sixteen bytes at a time: every x86-64 processor.
    Sse2,
    /// Thirty-two bytes at a time, where the processor has AVX2.
    Avx2,
}

/// The blocks to scan with, or `None` to scan a byte at a time (in a `force-scalar`
/// build). `is_x86_feature_detected!` caches its answer, so asking costs a load.
#[cfg(target_arch = "x86_64")]
#[inline]
pub(crate) fn simd() -> Option<Simd> {
    if cfg!(feature = "force-scalar") {
        None
    } else if std::arch::is_x86_feature_detected!("avx2") {
        Some(Simd::Avx2)
    } else {
        Some(Simd::Sse2)
    }
}

/// A test of each byte of a block: in `set`, or (`outside`) not in it.
#[derive(Clone, Copy)]
pub(crate) struct Test {
    pub(super) set: &'static NibbleSet,
    pub(super) outside: bool,
}

impl Test {
    pub(crate) const fn inside(set: &'static NibbleSet) -> Test {
        Test {
            set,
            outside: false,
        }
    }

    pub(crate) const fn outside(set: &'static NibbleSet) -> Test {
        Test { set, outside: true }
    }

    /// Whether byte `b` passes: the definition the blocks are held to.
    #[inline]
    pub(crate) fn holds(self, b: u8) -> bool {
        self.set.contains(b) != self.outside
    }
}

/// Calls `f(i)`, in order, for every `i` where `first` holds for byte `i` and `second` for
/// byte `i + 1`.
pub(crate) fn pairs(bytes: &[u8], first: Test, second: Test, mut f: impl FnMut(usize)) {
    places(bytes, None, first, second, &mut f);
}

/// [`pairs`] where `before` also holds for byte `i - 1`; before the text stands a zero
/// byte.
pub(crate) fn triples(
    bytes: &[u8],
    before: Test,
    first: Test,
    second: Test,
    mut f: impl FnMut(usize),
) {
    places(bytes, Some(before), first, second, &mut f);
}

fn places(
    bytes: &[u8],
    before: Option<Test>,
    first: Test,
    second: Test,
    f: &mut impl FnMut(usize),
) {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = simd() {
        return x86::places(simd, bytes, before, first, second, f);
    }
    places_by_byte(bytes, before, first, second, f);
}

/// [`pairs`] and [`triples`] a byte at a time: the definition.
fn places_by_byte(
    bytes: &[u8],
    before: Option<Test>,
    first: Test,
    second: Test,
    f: &mut impl FnMut(usize),
) {
    let mut previous = 0;
    for (i, pair) in bytes.windows(2).enumerate() {
        if before.is_none_or(|t| t.holds(previous)) && first.holds(pair[0]) && second.holds(pair[1])
        {
            f(i);
        }
        previous = pair[0];
    }
}

/// Where the first byte of `set` at or after `from` is.
pub(crate) fn find_any(bytes: &[u8], from: usize, set: &NibbleSet) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    if let Some(simd) = simd() {
        let mut at = from;
        return x86::find_any(simd, bytes, &mut at, set)
            .or_else(|| find_any_by_byte(bytes, at, set));
    }
    find_any_by_byte(bytes, from, set)
}

/// [`find_any`] a byte at a time: the definition, and the tail shorter than a block.
fn find_any_by_byte(bytes: &[u8], from: usize, set: &NibbleSet) -> Option<usize> {
    let rest = bytes.get(from..)?;
    rest.iter().position(|&b| set.contains(b)).map(|i| from + i)
}

/// A set of bytes with at most eight distinct high nibbles, as two tables of sixteen:
/// byte `b` is in the set when `low[b & 15] & high[b >> 4]` is not zero (each high nibble
/// of the set has a bit of its own, and `low` has a high nibble's bit for every low
/// nibble it is seen with). AVX2 looks both tables up for thirty-two bytes at once
/// (`vpshufb`), the same two instructions whatever the set. SSE2 has no such look-up and
/// compares with the set's runs of consecutive bytes instead (`0-9`, `A-Z`, `a-z` are
/// three).
pub(crate) struct NibbleSet {
    pub(super) low: [u8; 16],
    pub(super) high: [u8; 16],
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

    /// The bytes of `set`, as tables the block scans look up.
    pub(crate) const fn of(set: &ByteSet) -> NibbleSet {
        let mut nibbles = NibbleSet::new(&[]);
        let mut b = 0;
        while b < 256 {
            if set.0[b] {
                nibbles = nibbles.with(b as u8);
            }
            b += 1;
        }
        nibbles.with_runs()
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

    /// The set's runs of consecutive bytes, in byte order.
    #[cfg(any(target_arch = "x86_64", test))]
    pub(super) fn runs(&self) -> &[(u8, u8)] {
        &self.runs[..self.len]
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    const SOME: &[u8] = b"\\*_~<&$|[]`\t";
    static SOME_SET: NibbleSet = NibbleSet::new(SOME);
    static LETTERS: NibbleSet = NibbleSet::of(&ByteSet::new(b"ksvzKSVZ"));
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
    pub(super) static SETS: [&NibbleSet; 6] = [&SOME_SET, &LETTERS, &ALNUM, &SPACES, &HIGH, &CROSS];

    /// The tests a proptest picks from: each set, inside and outside.
    pub(super) fn test_of(i: usize) -> Test {
        match i < SETS.len() {
            true => Test::inside(SETS[i]),
            false => Test::outside(SETS[i - SETS.len()]),
        }
    }

    pub(super) fn bytes() -> impl Strategy<Value = Vec<u8>> {
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

    /// `(before, first, second)` places, each tested on its own: the plainest reading
    /// of the definition, which both scans are held to.
    pub(super) fn places_by_byte(
        text: &[u8],
        before: Option<Test>,
        first: Test,
        second: Test,
    ) -> Vec<usize> {
        (0..text.len().saturating_sub(1))
            .filter(|&i| {
                let previous = if i == 0 { 0 } else { text[i - 1] };
                before.is_none_or(|t| t.holds(previous))
                    && first.holds(text[i])
                    && second.holds(text[i + 1])
            })
            .collect()
    }

    /// The first byte of `set` at or after `from`, found the plainest way: what both scans
    /// are held to.
    pub(super) fn first_in(text: &[u8], from: usize, set: &NibbleSet) -> Option<usize> {
        let rest = text.get(from..)?;
        rest.iter().position(|&b| set.contains(b)).map(|i| from + i)
    }

    proptest! {
        /// The first byte of the set at or after any place, whichever way this build scans.
        #[test]
        fn find_any_finds_the_first_byte_of_the_set(
            text in bytes(),
            from in 0usize..150,
            set in 0usize..6,
        ) {
            let set = SETS[set];
            prop_assert_eq!(find_any(&text, from, set), first_in(&text, from, set));
        }

        /// Every place the definition finds, and no other, whichever way this build scans.
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
        }
    }
}
