//! What a view must hold before a rule can hit it, found for all rules in one pass.
//!
//! Most views are a sentence or a paragraph, and most of the rules look for something
//! rare in prose: a digit, a hyphen, a straight quote, two full stops, a one-letter word
//! before an ordinary space, a space before a comma. Each of those rules
//! used to search the view for its own byte, and on views of a hundred-odd bytes the
//! searches' set-up cost as much as the searching. Now the engine finds every trigger of a
//! view in one pass, sixteen bytes at a time, and calls only the rules whose trigger is
//! there: all the rules on the Czech bench went from 1.32 to 1.05 ms.
//!
//! A rule's [`Rule::triggers`] must be necessary: when none of them is in a view, the rule
//! has no hit there. A property test holds every built-in rule to that on texts made to
//! hit, and the byte-at-a-time [`Triggers::of_by_byte`] is the definition the SIMD pass is
//! tested against. Rules that need nothing rare (the repeated words, the headings, the
//! day and month names) say [`Triggers::ANY`].
//!
//! [`Rule::triggers`]: super::Rule::triggers

use super::cs_r1_nbsp_prep::SPACE;
use super::en_r7_space_before_punctuation::{MARKS, SPACES};
use super::shared::ONE_LETTER_WORDS;

/// A set of triggers: bit flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Triggers(u16);

impl Triggers {
    /// In every view: a rule that needs it always runs.
    pub const ANY: Triggers = Triggers(1);
    /// An ASCII digit.
    pub const DIGIT: Triggers = Triggers(1 << 1);
    /// `-`.
    pub const HYPHEN: Triggers = Triggers(1 << 2);
    /// `"`.
    pub const DOUBLE_QUOTE: Triggers = Triggers(1 << 3);
    /// `'`.
    pub const APOSTROPHE: Triggers = Triggers(1 << 4);
    /// `”`.
    pub const CLOSING_QUOTE: Triggers = Triggers(1 << 5);
    /// A full stop followed by another (`..`), by a space and another (`. .`), or by a
    /// no-break space: where an ellipsis may start.
    pub const DOTS: Triggers = Triggers(1 << 6);
    /// `j.`, which ends every spelling of `tj.`.
    pub const J_DOT: Triggers = Triggers(1 << 7);
    /// One of the one-letter words' letters (`kKsSvVzZoOuUaAiI`) before a space, a line
    /// feed or a carriage return: where a one-letter word may stand before a breakable
    /// space.
    pub const LETTER_SPACE: Triggers = Triggers(1 << 8);
    /// A space or tab before one of `,.;:!?`.
    pub const SPACE_MARK: Triggers = Triggers(1 << 9);

    pub const fn or(self, other: Triggers) -> Triggers {
        Triggers(self.0 | other.0)
    }

    pub const fn intersects(self, other: Triggers) -> bool {
        self.0 & other.0 != 0
    }

    /// The triggers in `text`, [`ANY`](Triggers::ANY) always among them.
    pub fn of(text: &str) -> Triggers {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2, all `avx2::of` needs.
                return unsafe { avx2::of(text.as_bytes()) };
            }
            sse2::of(text.as_bytes())
        }
        #[cfg(not(target_arch = "x86_64"))]
        return Triggers::of_by_byte(text.as_bytes());
    }

    /// [`Triggers::of`] a byte at a time: the definition, and the code on other machines.
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    pub(super) fn of_by_byte(bytes: &[u8]) -> Triggers {
        let mut found = Triggers::ANY;
        for (i, &b) in bytes.iter().enumerate() {
            let next = bytes.get(i + 1).copied().unwrap_or(0);
            let next2 = bytes.get(i + 2).copied().unwrap_or(0);
            let flag = |hit: bool, t: Triggers| if hit { t.0 } else { 0 };
            found.0 |= flag(b.is_ascii_digit(), Triggers::DIGIT)
                | flag(b == b'-', Triggers::HYPHEN)
                | flag(b == b'"', Triggers::DOUBLE_QUOTE)
                | flag(b == b'\'', Triggers::APOSTROPHE)
                | flag(
                    [b, next, next2] == [0xE2, 0x80, 0x9D],
                    Triggers::CLOSING_QUOTE,
                )
                | flag(
                    b == b'.'
                        && (next == b'.'
                            || (next == b' ' && next2 == b'.')
                            || (next == 0xC2 && next2 == 0xA0)),
                    Triggers::DOTS,
                )
                | flag(b == b'j' && next == b'.', Triggers::J_DOT)
                | flag(
                    ONE_LETTER_WORDS.0[usize::from(b)] && SPACE.0[usize::from(next)],
                    Triggers::LETTER_SPACE,
                )
                | flag(
                    SPACES.contains(&b) && MARKS.contains(&next),
                    Triggers::SPACE_MARK,
                );
        }
        found
    }
}

#[cfg(target_arch = "x86_64")]
mod sse2 {
    use super::super::cs_r1_nbsp_prep::SPACE_BYTES;
    use super::super::en_r7_space_before_punctuation::{MARKS, SPACES};
    use super::super::shared::ONE_LETTER_WORDS_FOLDED;
    use super::super::simd::{and, any_of, bits, eq, load, or, splat, within};
    use super::Triggers;

    /// [`Triggers::of`] sixteen bytes at a time: each test keeps a running OR of its
    /// matches, and the flags are read from them once at the end.
    pub(super) fn of(bytes: &[u8]) -> Triggers {
        let zero = splat(0);
        let (mut digit, mut hyphen, mut double_quote, mut apostrophe) = (zero, zero, zero, zero);
        let (mut closing, mut dots, mut j_dot) = (zero, zero, zero);
        let (mut letter_space, mut space_mark) = (zero, zero);
        let mut buf = [0u8; 32];
        let mut at = 0;
        while at < bytes.len() {
            // The sixteen bytes from `at` and the two after each; zeros past the end,
            // which no test matches.
            let (v, v1, v2) = if at + 18 <= bytes.len() {
                (load(bytes, at), load(bytes, at + 1), load(bytes, at + 2))
            } else {
                let tail = &bytes[at..];
                buf[..tail.len()].copy_from_slice(tail);
                buf[tail.len()..].fill(0);
                (load(&buf, 0), load(&buf, 1), load(&buf, 2))
            };
            let stop = eq(v, b'.');
            digit = or(digit, within(v, b'0', b'9'));
            hyphen = or(hyphen, eq(v, b'-'));
            double_quote = or(double_quote, eq(v, b'"'));
            apostrophe = or(apostrophe, eq(v, b'\''));
            closing = or(closing, and(and(eq(v, 0xE2), eq(v1, 0x80)), eq(v2, 0x9D)));
            let after_stop = or(
                or(eq(v1, b'.'), and(eq(v1, b' '), eq(v2, b'.'))),
                and(eq(v1, 0xC2), eq(v2, 0xA0)),
            );
            dots = or(dots, and(stop, after_stop));
            j_dot = or(j_dot, and(eq(v, b'j'), eq(v1, b'.')));
            // `| 0x20` folds the capitals onto the small letters and no other byte.
            let letter = any_of(or(v, splat(0x20)), ONE_LETTER_WORDS_FOLDED);
            letter_space = or(letter_space, and(letter, any_of(v1, SPACE_BYTES)));
            let space = any_of(v, SPACES);
            space_mark = or(space_mark, and(space, any_of(v1, MARKS)));
            at += 16;
        }
        let flag = |acc, t: Triggers| if bits(acc) != 0 { t.0 } else { 0 };
        Triggers(
            Triggers::ANY.0
                | flag(digit, Triggers::DIGIT)
                | flag(hyphen, Triggers::HYPHEN)
                | flag(double_quote, Triggers::DOUBLE_QUOTE)
                | flag(apostrophe, Triggers::APOSTROPHE)
                | flag(closing, Triggers::CLOSING_QUOTE)
                | flag(dots, Triggers::DOTS)
                | flag(j_dot, Triggers::J_DOT)
                | flag(letter_space, Triggers::LETTER_SPACE)
                | flag(space_mark, Triggers::SPACE_MARK),
        )
    }
}

/// [`sse2`]'s pass thirty-two bytes at a time, where the processor has AVX2 (asked at run
/// time; the build stays portable). The pass runs on every view, and a view of a hundred
/// or two bytes takes half as many blocks.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::super::cs_r1_nbsp_prep::SPACE_BYTES;
    use super::super::en_r7_space_before_punctuation::{MARKS, SPACES};
    use super::super::shared::ONE_LETTER_WORDS_FOLDED;
    use super::Triggers;
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8, _mm256_loadu_si256,
        _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm256_setzero_si256,
    };

    /// The bytes of `buf` at `at..at + 32`.
    #[target_feature(enable = "avx2")]
    fn load(buf: &[u8], at: usize) -> __m256i {
        assert!(at + 32 <= buf.len());
        // SAFETY: the assertion keeps the thirty-two bytes inside `buf`, and an unaligned
        // load has no alignment requirement.
        unsafe { _mm256_loadu_si256(buf.as_ptr().add(at).cast()) }
    }

    #[target_feature(enable = "avx2")]
    fn eq(v: __m256i, b: u8) -> __m256i {
        _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8))
    }

    #[target_feature(enable = "avx2")]
    fn and(a: __m256i, b: __m256i) -> __m256i {
        _mm256_and_si256(a, b)
    }

    #[target_feature(enable = "avx2")]
    fn or(a: __m256i, b: __m256i) -> __m256i {
        _mm256_or_si256(a, b)
    }

    #[target_feature(enable = "avx2")]
    fn any_of(v: __m256i, set: &[u8]) -> __m256i {
        set.iter()
            .fold(_mm256_setzero_si256(), |acc, &b| or(acc, eq(v, b)))
    }

    /// ASCII digits (signed comparisons, which ASCII bytes survive).
    #[target_feature(enable = "avx2")]
    fn digit(v: __m256i) -> __m256i {
        let above = _mm256_cmpgt_epi8(v, _mm256_set1_epi8(b'0' as i8 - 1));
        let below = _mm256_cmpgt_epi8(_mm256_set1_epi8(b'9' as i8 + 1), v);
        and(above, below)
    }

    /// [`super::sse2::of`], the same tests on thirty-two bytes at a time.
    #[target_feature(enable = "avx2")]
    pub(super) fn of(bytes: &[u8]) -> Triggers {
        let zero = _mm256_setzero_si256();
        let (mut digits, mut hyphen, mut double_quote, mut apostrophe) = (zero, zero, zero, zero);
        let (mut closing, mut dots, mut j_dot) = (zero, zero, zero);
        let (mut letter_space, mut space_mark) = (zero, zero);
        let mut buf = [0u8; 64];
        let mut at = 0;
        while at < bytes.len() {
            let (v, v1, v2) = if at + 34 <= bytes.len() {
                (load(bytes, at), load(bytes, at + 1), load(bytes, at + 2))
            } else {
                let tail = &bytes[at..];
                buf[..tail.len()].copy_from_slice(tail);
                buf[tail.len()..].fill(0);
                (load(&buf, 0), load(&buf, 1), load(&buf, 2))
            };
            let stop = eq(v, b'.');
            digits = or(digits, digit(v));
            hyphen = or(hyphen, eq(v, b'-'));
            double_quote = or(double_quote, eq(v, b'"'));
            apostrophe = or(apostrophe, eq(v, b'\''));
            closing = or(closing, and(and(eq(v, 0xE2), eq(v1, 0x80)), eq(v2, 0x9D)));
            let after_stop = or(
                or(eq(v1, b'.'), and(eq(v1, b' '), eq(v2, b'.'))),
                and(eq(v1, 0xC2), eq(v2, 0xA0)),
            );
            dots = or(dots, and(stop, after_stop));
            j_dot = or(j_dot, and(eq(v, b'j'), eq(v1, b'.')));
            let letter = any_of(or(v, _mm256_set1_epi8(0x20)), ONE_LETTER_WORDS_FOLDED);
            letter_space = or(letter_space, and(letter, any_of(v1, SPACE_BYTES)));
            let space = any_of(v, SPACES);
            space_mark = or(space_mark, and(space, any_of(v1, MARKS)));
            at += 32;
        }
        let flag = |acc, t: Triggers| {
            if _mm256_movemask_epi8(acc) != 0 {
                t.0
            } else {
                0
            }
        };
        Triggers(
            Triggers::ANY.0
                | flag(digits, Triggers::DIGIT)
                | flag(hyphen, Triggers::HYPHEN)
                | flag(double_quote, Triggers::DOUBLE_QUOTE)
                | flag(apostrophe, Triggers::APOSTROPHE)
                | flag(closing, Triggers::CLOSING_QUOTE)
                | flag(dots, Triggers::DOTS)
                | flag(j_dot, Triggers::J_DOT)
                | flag(letter_space, Triggers::LETTER_SPACE)
                | flag(space_mark, Triggers::SPACE_MARK),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bytes every test looks at, so that texts of a few of them hold each trigger.
    const BYTES: &[u8] = b"0-\"'.j \xC2\xA0\xE2\x80\x9DvK\n\r\t,?";

    proptest! {
        /// The SIMD passes find what the definition finds, on texts of a few blocks of
        /// either width.
        #[test]
        fn one_pass_finds_what_the_definition_finds(
            bytes in proptest::collection::vec(
                prop_oneof![proptest::sample::select(BYTES), any::<u8>()],
                0..140,
            ),
        ) {
            // Any bytes: the pass reads bytes, and a view is text only by the way.
            #[cfg(target_arch = "x86_64")]
            {
                prop_assert_eq!(sse2::of(&bytes), Triggers::of_by_byte(&bytes));
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: the processor has AVX2.
                    prop_assert_eq!(unsafe { avx2::of(&bytes) }, Triggers::of_by_byte(&bytes));
                }
            }
        }
    }

    /// Each trigger at every position of a text longer than a block: found, and nothing
    /// else with it (`. .` is also a space before a full stop).
    #[test]
    fn each_trigger_is_found_anywhere_and_alone() {
        let cases: [(&[u8], Triggers); 13] = [
            (b"7", Triggers::DIGIT),
            (b"-", Triggers::HYPHEN),
            (b"\"", Triggers::DOUBLE_QUOTE),
            (b"'", Triggers::APOSTROPHE),
            ("”".as_bytes(), Triggers::CLOSING_QUOTE),
            (b"..", Triggers::DOTS),
            (b". .", Triggers::DOTS.or(Triggers::SPACE_MARK)),
            (".\u{a0}".as_bytes(), Triggers::DOTS),
            (b"j.", Triggers::J_DOT),
            (b"v ", Triggers::LETTER_SPACE),
            (b"I\r", Triggers::LETTER_SPACE),
            (b"\t;", Triggers::SPACE_MARK),
            (b" !", Triggers::SPACE_MARK),
        ];
        for (piece, trigger) in cases {
            for at in 0..40 {
                let mut text = "b".repeat(at).into_bytes();
                text.extend_from_slice(piece);
                text.extend_from_slice(b"bb");
                let text = String::from_utf8(text).unwrap();
                let expected = Triggers::ANY.or(trigger);
                assert_eq!(Triggers::of(&text), expected, "{text:?}");
                let end = text.len() - 2;
                assert_eq!(Triggers::of(&text[..end]), expected, "{text:?}");
            }
        }
        let near_misses = [
            "a.b.c",
            "“quoted“",
            "j\u{a0}.",
            ".,",
            "jj",
            "",
            "žluťoučký kůň",
            "v\u{a0}lese",
            "b x",
            "x\n",
        ];
        for near_miss in near_misses {
            assert_eq!(Triggers::of(near_miss), Triggers::ANY, "{near_miss:?}");
        }
    }
}
