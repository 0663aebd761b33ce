//! Where a run of spaces stands before a punctuation mark that should follow its word
//! directly: the match of the two space-before-punctuation rules (`cs-R12`, `en-R7`),
//! which differ only in their declarations. `en-R7`'s documentation gives the exclusions.

use super::scan::{is_alnum, next_char, prev_char};
use super::{Edit, Hit, Hits, Matcher, Scans, Triggers};
use crate::copy::bytescan::{NibbleSet, Test, pairs};
use crate::copy::view::View;
use std::ops::Range;

/// Either language's space-before-punctuation rule.
#[derive(Debug)]
pub struct SpaceBeforePunctuation;

impl Matcher for SpaceBeforePunctuation {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        self.check_in(&Scans::new(view), out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        for (spaces, mark) in scans.spaces_before() {
            out.push(space_hit(spaces.clone(), *mark));
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::SPACE_MARK
    }
}

pub(super) fn space_hit(spaces: Range<usize>, mark: char) -> Hit {
    Hit {
        range: spaces.start..spaces.end + 1,
        message: format!("space before “{mark}”: remove it"),
        fix: Some(Edit {
            range: spaces,
            replacement: String::new(),
        }),
        anchor: None,
    }
}

fn closes(c: char) -> bool {
    matches!(
        c,
        ')' | ']' | '}' | '"' | '\'' | '“' | '”' | '’' | '‘' | '»' | '«'
    )
}

/// Calls `f(spaces, mark)` for every run of spaces or tabs before a punctuation mark that
/// should follow its word directly (see the module doc).
pub(super) fn for_each_space_before(text: &str, mut f: impl FnMut(Range<usize>, char)) {
    let bytes = text.as_bytes();
    candidates(bytes, |i| {
        let (p, b) = (i + 1, bytes[i + 1]);
        let first_space = p - bytes[..p]
            .iter()
            .rev()
            .take_while(|b| matches!(b, b' ' | b'\t'))
            .count();
        let Some(word_end) = prev_char(text, first_space) else {
            return;
        };
        if !(is_alnum(word_end) || closes(word_end)) {
            return;
        }
        let after = next_char(text, p + 1);
        let ends = after.is_none_or(|c| c.is_whitespace() || closes(c));
        let ok = match b {
            b':' if word_end.is_ascii_digit() => false,
            b':' | b';' => after.is_none_or(char::is_whitespace),
            b'.' if after == Some('.') || text[p + 1..].starts_with(" .") => false,
            b'.' | b'!' | b'?' => ends || matches!(after, Some('!' | '?' | '.')),
            _ => ends,
        };
        if ok {
            f(first_space..p, b as char);
        }
    });
}

/// The spaces a mark should not follow.
pub(super) const SPACES: &[u8] = b" \t";
/// The marks that follow their word directly.
pub(super) const MARKS: &[u8] = b",.;:!?";
/// [`MARKS`] as the set the block scans test.
pub(super) static MARK_SET: NibbleSet = NibbleSet::new(MARKS);

/// Where one of [`SPACES`] is followed by one of [`MARKS`].
fn candidates(bytes: &[u8], f: impl FnMut(usize)) {
    static SPACE: NibbleSet = NibbleSet::new(SPACES);
    pairs(bytes, Test::inside(&SPACE), Test::inside(&MARK_SET), f);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The candidates are exactly a space or tab before one of the marks, for every pair
    /// of bytes.
    #[test]
    fn candidates_are_every_space_before_a_mark() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let mut found = false;
                candidates(&[a, b], |_| found = true);
                let expected = SPACES.contains(&a) && MARKS.contains(&b);
                assert_eq!(found, expected, "{a:#x} {b:#x}");
            }
        }
    }
}
