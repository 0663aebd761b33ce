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

use super::one_letter::{ONE_LETTER_WORDS, SPACE};
use super::space_before::{MARKS, SPACES};
#[cfg(target_arch = "x86_64")]
use crate::copy::bytescan::Simd;

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
        match crate::copy::bytescan::simd() {
            // SAFETY: `simd` found AVX2, all `blocks::avx2` needs.
            Some(Simd::Avx2) => return unsafe { blocks::avx2(text.as_bytes()) },
            Some(Simd::Sse2) => return blocks::sse2(text.as_bytes()),
            None => {}
        }
        Triggers::of_by_byte(text.as_bytes())
    }

    /// [`Triggers::of_by_byte`] of a text's last two bytes, `end`.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn end_of(end: &[u8]) -> Triggers {
        let (a, b) = (end[0], end[1]);
        Triggers(Triggers::ANY.0 | Triggers::at(a, b, 0) | Triggers::at(b, 0, 0))
    }

    /// [`Triggers::of`] a byte at a time: the definition, and the code on other machines.
    pub(super) fn of_by_byte(bytes: &[u8]) -> Triggers {
        let mut found = Triggers::ANY;
        for (i, &b) in bytes.iter().enumerate() {
            let next = bytes.get(i + 1).copied().unwrap_or(0);
            let next2 = bytes.get(i + 2).copied().unwrap_or(0);
            found.0 |= Triggers::at(b, next, next2);
        }
        found
    }

    /// The triggers that start at byte `b`, followed by `next` and `next2` (zero past the
    /// end of the text).
    #[inline]
    fn at(b: u8, next: u8, next2: u8) -> u16 {
        let flag = |hit: bool, t: Triggers| if hit { t.0 } else { 0 };
        flag(b.is_ascii_digit(), Triggers::DIGIT)
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
            )
    }
}

#[cfg(target_arch = "x86_64")]
mod blocks {
    use super::super::one_letter::{ONE_LETTER_SET, SPACE_BYTES};
    use super::super::space_before::{MARK_SET, SPACES};
    use super::Triggers;
    use crate::copy::bytescan::x86::Block;
    use std::arch::x86_64::{__m128i, __m256i};

    /// [`Triggers::of`] sixteen bytes at a time (SSE2).
    pub(super) fn sse2(bytes: &[u8]) -> Triggers {
        // SAFETY: every x86-64 processor has SSE2.
        unsafe { of::<__m128i>(bytes) }
    }

    /// [`Triggers::of`] thirty-two bytes at a time (AVX2): a view of a hundred or two bytes
    /// takes half as many blocks.
    #[target_feature(enable = "avx2")]
    pub(super) fn avx2(bytes: &[u8]) -> Triggers {
        // SAFETY: this function runs only where the processor has AVX2.
        unsafe { of::<__m256i>(bytes) }
    }

    /// [`Triggers::of`] a block at a time: each test keeps a running OR of its matches,
    /// and the flags are read from them once at the end. Every block is read where it
    /// lies, with the two bytes after it, in a text of at least a block and two bytes:
    /// the last block then ends two bytes before the text (a test seen twice is found
    /// once), and the last two bytes are looked at one by one. Only a shorter text is
    /// copied into a buffer padded with zeros, whose loads wait for the copy's writes
    /// (when every text's end went that way, a sixth of this pass's samples were on
    /// those loads).
    ///
    /// # Safety
    ///
    /// The processor has `B`'s instructions.
    #[inline(always)]
    unsafe fn of<B: Block>(bytes: &[u8]) -> Triggers {
        // SAFETY: the caller's processor has `B`'s instructions, all this block runs.
        unsafe {
            let zero = B::splat(0);
            let (mut digit, mut hyphen, mut double_quote, mut apostrophe) =
                (zero, zero, zero, zero);
            let (mut closing, mut dots, mut j_dot) = (zero, zero, zero);
            let (mut letter_space, mut space_mark) = (zero, zero);
            let mut buf = [0u8; 64];
            // Where the last block read in place starts, in a text long enough.
            let last = bytes.len().checked_sub(B::BYTES + 2);
            let mut at = 0;
            while at < bytes.len() && (last.is_none() || at + 2 < bytes.len()) {
                // The block from `at` (or the last one) and the two bytes after each;
                // zeros past the end of a short text, which no test matches.
                let (v, v1, v2) = if let Some(last) = last {
                    let from = at.min(last);
                    (
                        B::load(bytes, from),
                        B::load(bytes, from + 1),
                        B::load(bytes, from + 2),
                    )
                } else {
                    let tail = &bytes[at..];
                    buf[..tail.len()].copy_from_slice(tail);
                    buf[tail.len()..].fill(0);
                    (B::load(&buf, 0), B::load(&buf, 1), B::load(&buf, 2))
                };
                let stop = v.eq(b'.');
                digit = digit.or(v.within(b'0', b'9'));
                hyphen = hyphen.or(v.eq(b'-'));
                double_quote = double_quote.or(v.eq(b'"'));
                apostrophe = apostrophe.or(v.eq(b'\''));
                closing = closing.or(v.eq(0xE2).and(v1.eq(0x80)).and(v2.eq(0x9D)));
                let after_stop = v1
                    .eq(b'.')
                    .or(v1.eq(b' ').and(v2.eq(b'.')))
                    .or(v1.eq(0xC2).and(v2.eq(0xA0)));
                dots = dots.or(stop.and(after_stop));
                j_dot = j_dot.or(v.eq(b'j').and(v1.eq(b'.')));
                // The one-letter words' letters and the marks as sets: with AVX2 two table
                // look-ups a block each, where comparing with each byte of a set took
                // sixteen and twelve instructions (the pass 11% fewer instructions, 17%
                // less time on the real files' views).
                let letter = v.member(&ONE_LETTER_SET);
                letter_space = letter_space.or(letter.and(v1.any_of(SPACE_BYTES)));
                let space = v.any_of(SPACES);
                space_mark = space_mark.or(space.and(v1.member(&MARK_SET)));
                at += B::BYTES;
            }
            let flag = |acc: B, t: Triggers| if acc.bits() != 0 { t.0 } else { 0 };
            let end = match last {
                Some(_) => Triggers::end_of(&bytes[bytes.len() - 2..]),
                None => Triggers::ANY,
            };
            Triggers(
                end.0
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bytes every test looks at, so that texts of a few of them hold each trigger.
    #[cfg(target_arch = "x86_64")]
    const BYTES: &[u8] = b"0-\"'.j \xC2\xA0\xE2\x80\x9DvK\n\r\t,?";

    proptest! {
        /// The SIMD passes find what the definition finds, on texts of a few blocks of
        /// either width.
        #[cfg(target_arch = "x86_64")]
        #[test]
        fn one_pass_finds_what_the_definition_finds(
            bytes in proptest::collection::vec(
                prop_oneof![proptest::sample::select(BYTES), any::<u8>()],
                0..140,
            ),
        ) {
            // Any bytes: the pass reads bytes, and a view is text only by the way.
            prop_assert_eq!(blocks::sse2(&bytes), Triggers::of_by_byte(&bytes));
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the processor has AVX2.
                prop_assert_eq!(unsafe { blocks::avx2(&bytes) }, Triggers::of_by_byte(&bytes));
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
