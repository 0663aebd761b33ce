//! English sets `, . ; : ! ?` directly after the word they follow; a space before them
//! lets the mark start a line on its own and is a common slip of editing (a word deleted
//! before a comma leaves its space behind). The fix removes the space.
//!
//! Fires on spaces or tabs between a word (a letter or digit, or a closing bracket or
//! quote) and one of those marks, reported at the first space. Each exclusion keeps a
//! legitimate use silent:
//!
//! - the mark must be followed by the end of the text, whitespace, a closing bracket or
//!   quote (or, for `. ! ?`, another of them): `.NET`, `.env`, `,5` and emoji codes such as
//!   `:tada:` are not punctuation;
//! - `:` and `;` must be followed by the end or whitespace, so emoticons (`:)`, `;-)`,
//!   `:D`) stay silent, and `:` after a digit (`3 : 2`) is a ratio;
//! - a full stop followed by another (`wait ...`) or by ` .` (`. . .`) is an ellipsis,
//!   which the ellipsis rules judge;
//! - the word before must be prose: after a code span or URL placeholder the spacing
//!   depends on what the code was, so it stays silent;
//! - a no-break space before the mark is left alone: it was typed on purpose.

use super::scan::{MetaSource, next_char, prev_char};
use super::{Edit, Hit, Rule, RuleMeta, Scans, Severity, Triggers};
use crate::copy::view::View;
use std::ops::Range;

#[derive(Debug)]
pub struct SpaceBeforePunctuation {
    meta: RuleMeta,
}

impl SpaceBeforePunctuation {
    pub fn new() -> Self {
        SpaceBeforePunctuation {
            meta: MetaSource {
                id: "en-R7-space-before-punctuation",
                severity: Severity::Warning,
                languages: &["en"],
                summary: "A space before , . ; : ! or ?.",
                source: include_str!("en_r7_space_before_punctuation.rs"),
                bad: &["Hello , world.", "Really ?", "Done ."],
                good: &[
                    "Hello, world.",
                    "Wait ... really? The score was 3 : 2 :) and .NET works.",
                ],
                fixable: true,
            }
            .build(),
        }
    }
}

impl Default for SpaceBeforePunctuation {
    fn default() -> Self {
        Self::new()
    }
}

impl Rule for SpaceBeforePunctuation {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, view: &View, out: &mut Vec<Hit>) {
        self.check_in(&Scans::new(view), out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Vec<Hit>) {
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
        if !(super::scan::is_alnum(word_end) || closes(word_end)) {
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

/// Where one of [`SPACES`] is followed by one of [`MARKS`].
#[cfg(target_arch = "x86_64")]
fn candidates(bytes: &[u8], f: impl FnMut(usize)) {
    use super::simd::{NibbleSet, Test, pairs};
    static SPACE: NibbleSet = NibbleSet::new(SPACES);
    static MARK: NibbleSet = NibbleSet::new(MARKS);
    pairs(bytes, Test::inside(&SPACE), Test::inside(&MARK), f);
}

/// Where one of [`SPACES`] is followed by one of [`MARKS`].
#[cfg(not(target_arch = "x86_64"))]
fn candidates(bytes: &[u8], mut f: impl FnMut(usize)) {
    use super::scan::ByteSet;
    const SPACE: ByteSet = ByteSet::new(SPACES);
    const MARK: ByteSet = ByteSet::new(MARKS);
    for (i, pair) in bytes.windows(2).enumerate() {
        // A space and a mark tested together, without a branch on either alone.
        if SPACE.0[pair[0] as usize] & MARK.0[pair[1] as usize] {
            f(i);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The candidates are exactly a space or tab before one of the marks, for every pair
    /// of bytes.
    #[test]
    fn candidates_are_every_space_before_a_mark() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let mut found = false;
                super::candidates(&[a, b], |_| found = true);
                let expected = SPACES.contains(&a) && MARKS.contains(&b);
                assert_eq!(found, expected, "{a:#x} {b:#x}");
            }
        }
    }

    use super::super::scan::testing::{examples_hold, fixed, hits, matched, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&SpaceBeforePunctuation::new());
    }

    #[test]
    fn reports_at_the_space_and_removes_it() {
        let r = SpaceBeforePunctuation::new();
        assert_eq!(starts(&r, "Hello , world"), vec![5]);
        assert_eq!(matched(&r, "Hello  , world"), vec!["  ,"]);
        assert_eq!(fixed(&r, "Hello  , world"), "Hello, world");
        assert_eq!(fixed(&r, "Why ?! (Really !)"), "Why?! (Really!)");
        assert_eq!(fixed(&r, "Note : this ; that ."), "Note: this; that.");
        assert_eq!(starts(&r, "“Quoted” ."), vec![12]);
    }

    #[test]
    fn ellipses_emoticons_ratios_and_code_are_silent() {
        let r = SpaceBeforePunctuation::new();
        for text in [
            "wait ...",
            "wait . . .",
            "great :)",
            "great ;-)",
            "great :D",
            "party :tada:",
            "score 3 : 2",
            "use .NET or .env",
            "value ,5",
            "see \u{FFFC} .",
            "a\u{A0}?",
            " ,",
            "line\n, next",
        ] {
            assert!(hits(&r, text).is_empty(), "{text:?}");
        }
    }
}
