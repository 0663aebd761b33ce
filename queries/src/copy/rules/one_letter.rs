//! The one-letter words that must not end a line, and where they stand alone before a
//! breakable space: what the two no-break rules (`cs-R1` for prepositions, `cs-R1b` for
//! conjunctions) share. The scan runs once per view for both (see [`Scans`]), and each
//! rule keeps the letters of its own word class.
//!
//! [`Scans`]: super::Scans

use super::scan::{NBSP, is_letter, next_char, prev_char};
use super::{Edit, Hit};
use crate::copy::bytescan::{ByteSet, NibbleSet, Test, triples};
use std::ops::Range;

/// `cs-R1`'s prepositions.
pub(super) const PREPOSITIONS: ByteSet = ByteSet::new(b"ksvzouKSVZOU");
/// `cs-R1b`'s conjunctions.
pub(super) const CONJUNCTIONS: ByteSet = ByteSet::new(b"aiAI");
/// Every one-letter word either rule looks for.
pub(super) const ONE_LETTER_WORDS: ByteSet = PREPOSITIONS.union(&CONJUNCTIONS);
/// [`ONE_LETTER_WORDS`] as the tables the block scans look up.
pub(super) static ONE_LETTER_SET: NibbleSet = NibbleSet::of(&ONE_LETTER_WORDS);

/// Bytes that can start the breakable space after the letter.
pub(super) const SPACE: ByteSet = ByteSet::new(SPACE_BYTES);
/// [`SPACE`]'s bytes.
pub(super) const SPACE_BYTES: &[u8] = b" \n\r";

/// The hit both rules report: at the letter, fixed by turning the space after it into a
/// no-break space.
pub(super) fn nbsp_hit(letter: usize, space: Range<usize>, message: String) -> Hit {
    Hit {
        range: letter..letter + 1,
        message,
        fix: Some(Edit {
            range: space,
            replacement: NBSP.to_string(),
        }),
        anchor: None,
    }
}

/// Characters after which a one-letter word still stands alone.
fn opens(c: char) -> bool {
    c.is_whitespace() || matches!(c, '(' | '[' | '„' | '"' | '\'' | '«' | '»' | '‚')
}

/// Calls `f(letter, space)` for every one of [`ONE_LETTER_WORDS`] that stands alone (at
/// the start, after whitespace or an opening bracket or quote) and is followed by one
/// breakable space (` `, `\n` or `\r\n`) and then a letter or digit.
pub(super) fn for_each_standalone(text: &str, mut f: impl FnMut(usize, Range<usize>)) {
    let bytes = text.as_bytes();
    candidates(bytes, |i| {
        let space_len = match &bytes[i + 1..] {
            [b' ' | b'\n', ..] => 1,
            [b'\r', b'\n', ..] => 2,
            _ => return,
        };
        if !prev_char(text, i).is_none_or(opens) {
            return;
        }
        let space = i + 1..i + 1 + space_len;
        if next_char(text, space.end).is_some_and(|c| is_letter(c) || c.is_ascii_digit()) {
            f(i, space);
        }
    });
}

/// Where one of the letters is followed by a byte of [`SPACE`] and does not follow an
/// ASCII letter or digit (after which it cannot stand alone: most words end in one of
/// these letters).
fn candidates(bytes: &[u8], f: impl FnMut(usize)) {
    static ALNUM: NibbleSet = NibbleSet::range(b'0', b'9')
        .union(&NibbleSet::range(b'A', b'Z'))
        .union(&NibbleSet::range(b'a', b'z'));
    static SPACE: NibbleSet = NibbleSet::new(SPACE_BYTES);
    triples(
        bytes,
        Test::outside(&ALNUM),
        Test::inside(&ONE_LETTER_SET),
        Test::inside(&SPACE),
        f,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The candidates are exactly the pairs of a one-letter word's letter and a byte of
    /// [`SPACE`], for every pair of bytes, at the start of the text and after a space;
    /// after any other byte only an ASCII letter or digit rules them out.
    #[test]
    fn candidates_are_every_letter_before_a_space() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let expected = ONE_LETTER_WORDS.0[a as usize] && SPACE.0[b as usize];
                let (mut first, mut after_space) = (false, false);
                candidates(&[a, b], |_| first = true);
                candidates(&[b' ', a, b], |i| after_space = i == 1);
                assert_eq!((first, after_space), (expected, expected), "{a:#x} {b:#x}");
            }
        }
        for before in 0..=255u8 {
            let mut found = false;
            candidates(&[before, b'v', b' '], |i| found = i == 1);
            assert_eq!(found, !before.is_ascii_alphanumeric(), "{before:#x}");
        }
    }
}
