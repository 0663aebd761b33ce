//! The repeat scan on bit masks. Most views are Czech or English prose, and each of
//! their characters is classified by its first byte and at most the two after it. The
//! character scan branched at every word edge and every accented letter, unpredictably,
//! and those branches were most of its time. Here a first pass classifies sixteen bytes at
//! a time into 64-bit masks (word bytes, digits, gap bytes) without a branch, and a second
//! walks from word to word with bit operations: the branches left are taken once per word
//! and almost always the same way. A view with a character the masks do not classify
//! (`«`, `°`, a CJK letter) is left to the character scan, which is the definition.

use super::{Repeat, lower_one, same_word};
#[cfg(target_arch = "x86_64")]
use crate::copy::bytescan::Simd;

/// A way to fill the masks: [`classify_by_byte`] and its SIMD twin.
#[cfg(all(test, target_arch = "x86_64"))]
pub(super) type Classify = fn(&[u8], &mut [u64], &mut [u64], &mut [u64]) -> bool;

/// Byte of a letter or digit.
const WORD: u8 = 1;
/// Byte of a digit (with [`WORD`]): the word cannot repeat.
const DIGIT: u8 = 2;
/// Byte of a gap: space, tab, line feed, no-break space.
const GAP: u8 = 4;
/// A character these tables do not classify: the caller scans by character.
const UNSURE: u8 = 8;
/// A continuation byte: the class of its character's first byte.
const CONT: u8 = 16;
/// `0xC2`, `0xE2` and `0xEF`: decided by the bytes after it.
const NEXT: u8 = 32;

static CLASS: [u8; 256] = {
    let mut t = [UNSURE; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'a'..=b'z' | b'A'..=b'Z' => WORD,
            b'0'..=b'9' => WORD | DIGIT,
            b' ' | b'\t' | b'\n' => GAP,
            0x00..=0x7F => 0,
            0x80..=0xBF => CONT,
            // Latin-1 letters (`×` and `÷` are set apart below) and Latin Extended-A
            // and most of -B: every Czech letter.
            0xC3..=0xC8 => WORD,
            0xC2 | 0xE2 | 0xEF => NEXT,
            _ => UNSURE,
        };
        b += 1;
    }
    t
};

/// Classes of the byte `b`, followed by `next` and `next2`, where the byte before had
/// `previous`.
#[inline(always)]
fn class(b: u8, next: u8, next2: u8, previous: u8) -> u8 {
    let c = CLASS[b as usize];
    // `C2 A0` is a no-break space; other `C2` characters (`«`, `°`, `²`) are left to
    // the character scan. `E2 80 ..` is general punctuation (dashes, quotes, `…`, the
    // line separator), never part of a word; `EF BF BC` is the object replacement
    // character the extractors put for inline code and links.
    let by_next = match b {
        0xC2 => {
            if next == 0xA0 {
                GAP
            } else {
                UNSURE
            }
        }
        0xE2 => {
            if next == 0x80 {
                0
            } else {
                UNSURE
            }
        }
        _ => {
            if next == 0xBF && next2 == 0xBC {
                0
            } else {
                UNSURE
            }
        }
    };
    let c = if c == NEXT { by_next } else { c };
    // `×` (`C3 97`) and `÷` (`C3 B7`) are the Latin-1 block's two non-letters.
    let c = if b == 0xC3 && (next == 0x97 || next == 0xB7) {
        0
    } else {
        c
    };
    if c == CONT { previous } else { c }
}

/// The text's masks (bit `i % 64` of word `i / 64` for byte `i`) into `word`, `digit`
/// and `gap`; false if a character is not classified.
fn classify(bytes: &[u8], word: &mut [u64], digit: &mut [u64], gap: &mut [u64]) -> bool {
    #[cfg(target_arch = "x86_64")]
    match crate::copy::bytescan::simd() {
        // SAFETY: `simd` found AVX2, all `blocks::avx2` needs.
        Some(Simd::Avx2) => return unsafe { blocks::avx2(bytes, word, digit, gap) },
        Some(Simd::Sse2) => return blocks::sse2(bytes, word, digit, gap),
        None => {}
    }
    classify_by_byte(bytes, word, digit, gap)
}

/// [`classify`] a byte at a time: the definition, and the code on other machines.
pub(super) fn classify_by_byte(
    bytes: &[u8],
    word: &mut [u64],
    digit: &mut [u64],
    gap: &mut [u64],
) -> bool {
    let mut previous = 0u8;
    let mut unsure = 0u8;
    for (k, chunk) in bytes.chunks(64).enumerate() {
        let (mut w, mut d, mut g) = (0u64, 0u64, 0u64);
        let base = k * 64;
        for (j, &b) in chunk.iter().enumerate() {
            let next = bytes.get(base + j + 1).copied().unwrap_or(0);
            let next2 = bytes.get(base + j + 2).copied().unwrap_or(0);
            let c = class(b, next, next2, previous);
            previous = c;
            unsure |= c;
            w |= u64::from(c & WORD) << j;
            d |= u64::from((c & DIGIT) >> 1) << j;
            g |= u64::from((c & GAP) >> 2) << j;
        }
        word[k] = w;
        digit[k] = d;
        gap[k] = g;
    }
    unsure & UNSURE == 0
}

#[cfg(target_arch = "x86_64")]
pub(super) mod blocks {
    //! [`classify`](super::classify) a block at a time: the same classes as
    //! [`class`](super::class), from comparisons of each byte and the two after it.

    use crate::copy::bytescan::x86::Block;
    use std::arch::x86_64::{__m128i, __m256i};

    /// Sixteen bytes at a time (SSE2).
    pub(in super::super) fn sse2(
        bytes: &[u8],
        word: &mut [u64],
        digit: &mut [u64],
        gap: &mut [u64],
    ) -> bool {
        // SAFETY: every x86-64 processor has SSE2.
        unsafe { classify::<__m128i>(bytes, word, digit, gap) }
    }

    /// Thirty-two bytes at a time (AVX2).
    #[target_feature(enable = "avx2")]
    pub(in super::super) fn avx2(
        bytes: &[u8],
        word: &mut [u64],
        digit: &mut [u64],
        gap: &mut [u64],
    ) -> bool {
        // SAFETY: this function runs only where the processor has AVX2.
        unsafe { classify::<__m256i>(bytes, word, digit, gap) }
    }

    /// # Safety
    ///
    /// The processor has `B`'s instructions.
    #[inline(always)]
    unsafe fn classify<B: Block>(
        bytes: &[u8],
        word: &mut [u64],
        digit: &mut [u64],
        gap: &mut [u64],
    ) -> bool {
        let mut unsure = 0u64;
        // The second byte of a character whose first byte ended the previous chunk.
        let (mut word_carry, mut gap_carry) = (0u64, 0u64);
        let mut buf = [0u8; 96];
        for (k, chunk) in bytes.chunks(64).enumerate() {
            // The chunk and the two bytes after it, read in place; only the last chunks
            // are copied, padded with zeros. (Copying every chunk cost a third of the
            // scan: the loads a byte or two into a buffer just written wait for the
            // writes.)
            let (src, base) = if k * 64 + 66 <= bytes.len() {
                (bytes, k * 64)
            } else {
                let tail = &bytes[k * 64..];
                buf[..tail.len()].copy_from_slice(tail);
                buf[tail.len()..].fill(0);
                (&buf[..], 0)
            };
            let (mut letter, mut dig, mut space, mut lead, mut nbsp, mut other) =
                (0u64, 0u64, 0u64, 0u64, 0u64, 0u64);
            for q in 0..64 / B::BYTES {
                let at = base + B::BYTES * q;
                // SAFETY: the caller's processor has `B`'s instructions, all this block
                // runs.
                unsafe {
                    let (v, v1, v2) =
                        (B::load(src, at), B::load(src, at + 1), B::load(src, at + 2));
                    let ascii_letter = v.or(B::splat(0x20)).within(b'a', b'z');
                    let d = v.within(b'0', b'9');
                    let s = v.eq(b' ').or(v.eq(b'\t')).or(v.eq(b'\n'));
                    // Latin letters: first bytes C3 to C8, except `×` and `÷`.
                    let not_letter = v.eq(0xC3).and(v1.eq(0x97).or(v1.eq(0xB7)));
                    let latin = not_letter.and_not(v.within(0xC3, 0xC8));
                    let no_break = v.eq(0xC2).and(v1.eq(0xA0));
                    let punctuation = v.eq(0xE2).and(v1.eq(0x80));
                    let object = v.eq(0xEF).and(v1.eq(0xBF)).and(v2.eq(0xBC));
                    let known = v.within(0xC3, 0xC8).or(no_break).or(punctuation.or(object));
                    let first = v.within(0xC0, 0xFF);
                    let shift = B::BYTES * q;
                    letter |= ascii_letter.or(d).bits() << shift;
                    dig |= d.bits() << shift;
                    space |= s.bits() << shift;
                    lead |= latin.bits() << shift;
                    nbsp |= no_break.bits() << shift;
                    other |= known.and_not(first).bits() << shift;
                }
            }
            let valid = if chunk.len() == 64 {
                !0
            } else {
                (1u64 << chunk.len()) - 1
            };
            word[k] = (letter | lead | (lead << 1) | word_carry) & valid;
            gap[k] = (space | nbsp | (nbsp << 1) | gap_carry) & valid;
            digit[k] = dig & valid;
            unsure |= other & valid;
            word_carry = lead >> 63;
            gap_carry = nbsp >> 63;
        }
        unsure == 0
    }
}

/// The bits of word `k` that lie in `from..to` (not empty).
#[inline]
fn within(k: usize, from: usize, to: usize) -> u64 {
    let low = if k == from / 64 {
        !0u64 << (from % 64)
    } else {
        !0
    };
    let high = if k == (to - 1) / 64 {
        !0u64 >> (63 - (to - 1) % 64)
    } else {
        !0
    };
    low & high
}

/// Whether `mask` has a set bit in `from..to` (not empty).
#[inline]
fn any_set(mask: &[u64], from: usize, to: usize) -> bool {
    (from / 64..to.div_ceil(64)).any(|k| mask[k] & within(k, from, to) != 0)
}

/// Whether every bit of `mask` in `from..to` (not empty) is set.
#[inline]
fn all_set(mask: &[u64], from: usize, to: usize) -> bool {
    (from / 64..to.div_ceil(64)).all(|k| {
        let want = within(k, from, to);
        mask[k] & want == want
    })
}

/// Where the run of set bits that holds bit `from` ends: the first clear bit after it,
/// or `len`.
#[inline]
fn run_end(mask: &[u64], from: usize, len: usize) -> usize {
    let mut k = from / 64;
    let mut clear = !mask[k] & (!0u64 << (from % 64));
    while clear == 0 {
        k += 1;
        if k == mask.len() {
            return len;
        }
        clear = !mask[k];
    }
    (k * 64 + clear.trailing_zeros() as usize).min(len)
}

/// Whether the words starting at `p` (first byte `b`) and `s` (first byte `a`) may be the
/// same word, judged by their first letters; false only when they cannot be. The test
/// almost every pair of neighbouring words ends at.
#[inline]
fn may_be_same(bytes: &[u8], p: usize, b: u8, s: usize, a: u8) -> bool {
    match (a.is_ascii(), b.is_ascii()) {
        // Different letters, or two capitals (`Bora Bora` is a name).
        (true, true) => {
            (a | 0x20) == (b | 0x20) && !(a.is_ascii_uppercase() && b.is_ascii_uppercase())
        }
        // A word that starts with a two-byte letter (every non-ASCII first byte these
        // masks take leads one): the same when the letters lowercase alike.
        (false, false) => {
            let letter = |at: usize| {
                let code = (u32::from(bytes[at] & 0x1F) << 6) | u32::from(bytes[at + 1] & 0x3F);
                char::from_u32(code).unwrap_or_default()
            };
            let (x, y) = (letter(p), letter(s));
            match (lower_one(x), lower_one(y)) {
                (Some(l), Some(m)) => l == m && !(x.is_uppercase() && y.is_uppercase()),
                // `İ` lowercases to two characters: the whole words decide.
                _ => true,
            }
        }
        // No letter these masks take lowercases to an ASCII letter but the ASCII ones
        // (`İ` lowercases to `i` and a combining dot, which the masks leave to the
        // character scan).
        _ => false,
    }
}

/// [`super::for_each_repeat`] on masks; false, having called nothing, if the text has
/// a character the masks do not classify.
pub(super) fn for_each_repeat(text: &str, f: &mut impl FnMut(Repeat)) -> bool {
    const ON_STACK: usize = 16;
    let bytes = text.as_bytes();
    let words = bytes.len().div_ceil(64);
    let mut stack = [0u64; 3 * ON_STACK];
    let mut heap = Vec::new();
    let all: &mut [u64] = if words <= ON_STACK {
        &mut stack[..3 * words]
    } else {
        heap.resize(3 * words, 0);
        &mut heap
    };
    let (word, rest) = all.split_at_mut(words);
    let (digit, gap) = rest.split_at_mut(words);
    if !classify(bytes, word, digit, gap) {
        return false;
    }
    let digits = digit.iter().any(|&d| d != 0);
    let letters = |start, end| !digits || !any_set(digit, start, end);
    let len = bytes.len();
    // The start and first byte of the word before. Only word starts are visited, a set
    // bit at a time; a word's end is looked up only when its first byte matches.
    let mut previous: Option<(usize, u8)> = None;
    let mut carry = 0u64;
    for (k, &w) in word.iter().enumerate() {
        let mut starts = w & !((w << 1) | carry);
        carry = w >> 63;
        while starts != 0 {
            let start = k * 64 + starts.trailing_zeros() as usize;
            starts &= starts - 1;
            let a = bytes[start];
            if let Some((p_start, b)) = previous
                && may_be_same(bytes, p_start, b, start, a)
            {
                let p_end = run_end(word, p_start, len);
                let end = run_end(word, start, len);
                // A letter these masks take lowercases to one of as many bytes (see the
                // tests): words of different lengths differ.
                if p_end - p_start == end - start
                    && all_set(gap, p_end, start)
                    && letters(p_start, p_end)
                    && letters(start, end)
                    && same_word(&text[p_start..p_end], &text[start..end])
                {
                    f(Repeat {
                        first: p_start..p_end,
                        second: start..end,
                    });
                }
            }
            previous = Some((start, a));
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The run ends and the range tests agree with the bits one by one, across word
        /// edges.
        #[test]
        fn run_ends_and_ranges_are_the_bits_one_by_one(
            bits in proptest::collection::vec(any::<bool>(), 0..300),
            from in 0usize..300,
            width in 1usize..140,
        ) {
            let len = bits.len();
            let mut mask = vec![0u64; len.div_ceil(64)];
            for (i, _) in bits.iter().enumerate().filter(|(_, b)| **b) {
                mask[i / 64] |= 1 << (i % 64);
            }
            for start in (0..len).filter(|&i| bits[i]) {
                let end = (start..len).find(|&i| !bits[i]).unwrap_or(len);
                prop_assert_eq!(run_end(&mask, start, len), end);
            }
            if from < len {
                let to = (from + width).min(len);
                prop_assert_eq!(any_set(&mask, from, to), bits[from..to].iter().any(|b| *b));
                prop_assert_eq!(all_set(&mask, from, to), bits[from..to].iter().all(|b| *b));
            }
        }
    }
}
