//! Czech typography (ČSN 01 6910) does not let a one-letter preposition — `k`, `s`, `v`,
//! `z`, `o`, `u` — stand at the end of a line: the reader would meet a dangling letter
//! that belongs to the next word. The space after it must be a no-break space (U+00A0),
//! which the fix writes.
//!
//! The preposition is a letter standing alone: at the start of the text, after
//! whitespace, or after an opening bracket or quote (`( [ „ " ' « » ‚`), in either case.
//! It fires when exactly one breakable space follows — an ordinary space or a line break
//! inside a paragraph (a Markdown soft break, which the fix turns into a no-break space and
//! so joins the two source lines) — and then a letter or a digit (`k 5. výročí`). A hard
//! line break and an existing no-break space are left alone.
//!
//! Every preposition of a chain fires on its own (`s v domě` has two findings), because
//! each can end a line. The reference implementation missed the second of a chain, a
//! digit after the preposition and a preposition at the end of a source line.

use super::scan::{ByteSet, MetaSource, NBSP, next_char, prev_char};
#[cfg(not(target_arch = "x86_64"))]
use super::shared::ONE_LETTER_WORDS;
use super::{Edit, Hit, Rule, RuleMeta, Scans, Severity, Triggers};
use crate::copy::view::View;
use std::ops::Range;

#[derive(Debug)]
pub struct NbspPrep {
    meta: RuleMeta,
}

impl NbspPrep {
    pub fn new() -> Self {
        NbspPrep {
            meta: MetaSource {
                id: "cs-R1-nbsp-prep",
                severity: Severity::Error,
                languages: &["cs"],
                summary: "A one-letter preposition must be followed by a no-break space.",
                source: include_str!("cs_r1_nbsp_prep.rs"),
                bad: &[
                    "Bydlíme v lese.",
                    "Vrátil se s v lese nasbíranými houbami.",
                    "Sejdeme se k 5. výročí.",
                    "Jdeme spolu s\nkamarády.",
                ],
                good: &[
                    "Bydlíme v\u{A0}lese.",
                    "Vrátil se s\u{A0}v\u{A0}lese nasbíranými houbami.",
                    "Vitamín C a písmeno v.",
                ],
                fixable: true,
            }
            .build(),
        }
    }
}

impl Default for NbspPrep {
    fn default() -> Self {
        Self::new()
    }
}

impl Rule for NbspPrep {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, view: &View, out: &mut Vec<Hit>) {
        self.check_in(&Scans::new(view), out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Vec<Hit>) {
        let view = scans.view();
        for (letter, space) in scans.standalone() {
            let (letter, space) = (*letter, space.clone());
            if !PREPOSITIONS.0[view.text.as_bytes()[letter] as usize] {
                continue;
            }
            let c = &view.text[letter..letter + 1];
            let message = if view.text[space.clone()].contains('\n') {
                format!(
                    "one-letter preposition “{c}” at the end of a line: join it to the next \
                     word with a no-break space"
                )
            } else {
                format!(
                    "one-letter preposition “{c}” followed by a breakable space: use a \
                     no-break space so it cannot end a line"
                )
            };
            out.push(nbsp_hit(letter, space, message));
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::LETTER_SPACE
    }
}

/// The hit shared with the conjunction rule: reported at the letter, fixed by turning the
/// space after it into a no-break space.
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

pub(super) const PREPOSITIONS: ByteSet = ByteSet::new(b"ksvzouKSVZOU");

/// Calls `f(letter, space)` for every one-letter word either no-break rule looks for
/// (`kKsSvVzZoOuU`, `aAiI`) that stands alone and is followed by one breakable space
/// (` `, `\n` or `\r\n`) and then a letter or digit.
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
        if next_char(text, space.end)
            .is_some_and(|c| super::scan::is_letter(c) || c.is_ascii_digit())
        {
            f(i, space);
        }
    });
}

/// Bytes that can start the breakable space after the letter.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
pub(super) const SPACE: ByteSet = ByteSet::new(SPACE_BYTES);

/// [`SPACE`]'s bytes.
pub(super) const SPACE_BYTES: &[u8] = b" \n\r";

/// Where one of the letters is followed by a byte of [`SPACE`] and does not follow an
/// ASCII letter or digit (after which it cannot stand alone: most words end in one of
/// these letters).
#[cfg(target_arch = "x86_64")]
fn candidates(bytes: &[u8], f: impl FnMut(usize)) {
    use super::shared::ONE_LETTER_WORDS_FOLDED;
    use super::simd::{NibbleSet, Test, triples};
    static ALNUM: NibbleSet = NibbleSet::range(b'0', b'9')
        .union(&NibbleSet::range(b'A', b'Z'))
        .union(&NibbleSet::range(b'a', b'z'));
    static LETTERS: NibbleSet = NibbleSet::both_cases(ONE_LETTER_WORDS_FOLDED);
    static SPACE: NibbleSet = NibbleSet::new(SPACE_BYTES);
    triples(
        bytes,
        Test::outside(&ALNUM),
        Test::inside(&LETTERS),
        Test::inside(&SPACE),
        f,
    );
}

/// Where one of the letters is followed by a byte of [`SPACE`].
#[cfg(not(target_arch = "x86_64"))]
fn candidates(bytes: &[u8], mut f: impl FnMut(usize)) {
    for (i, pair) in bytes.windows(2).enumerate() {
        // Both bytes at once, without a branch on the letter alone.
        if ONE_LETTER_WORDS.0[pair[0] as usize] & SPACE.0[pair[1] as usize] {
            f(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{examples_hold, fixed, hits, starts};
    use super::*;

    /// The candidates are exactly the pairs of a one-letter word's letter and a byte of
    /// [`SPACE`], for every pair of bytes, at the start of the text and after a space;
    /// after any other byte only an ASCII letter or digit rules them out.
    #[test]
    fn candidates_are_every_letter_before_a_space() {
        let letters = super::super::shared::ONE_LETTER_WORDS;
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let expected = letters.0[a as usize] && SPACE.0[b as usize];
                let (mut first, mut after_space) = (false, false);
                candidates(&[a, b], |_| first = true);
                candidates(&[b' ', a, b], |i| after_space = i == 1);
                assert_eq!((first, after_space), (expected, expected), "{a:#x} {b:#x}");
            }
        }
        for before in 0..=255u8 {
            let mut found = false;
            candidates(&[before, b'v', b' '], |i| found = i == 1);
            let ruled_out = before.is_ascii_alphanumeric() && cfg!(target_arch = "x86_64");
            assert_eq!(found, !ruled_out, "{before:#x}");
        }
    }

    #[test]
    fn examples() {
        examples_hold(&NbspPrep::new());
    }

    #[test]
    fn reports_at_the_letter_and_fixes_the_space() {
        let r = NbspPrep::new();
        let found = hits(&r, "Bydlíme v lese.");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].range, 9..10);
        assert_eq!(
            found[0].fix,
            Some(Edit {
                range: 10..11,
                replacement: "\u{A0}".into()
            })
        );
        assert_eq!(fixed(&r, "Bydlíme v lese."), "Bydlíme v\u{A0}lese.");
    }

    #[test]
    fn chain_fires_on_every_letter() {
        // Known defect of the reference: only the first of a chain fired.
        let r = NbspPrep::new();
        assert_eq!(starts(&r, "s v domě"), vec![0, 2]);
        assert_eq!(fixed(&r, "s v domě"), "s\u{A0}v\u{A0}domě");
        // A chain already half fixed: the second still fires.
        assert_eq!(starts(&r, "s\u{A0}v domě"), vec![3]);
    }

    #[test]
    fn digit_after_fires() {
        // Known defect of the reference.
        assert_eq!(starts(&NbspPrep::new(), "k 5. výročí"), vec![0]);
        assert_eq!(starts(&NbspPrep::new(), "Za v 10 minut"), vec![3]);
    }

    #[test]
    fn soft_line_break_fires_and_the_fix_replaces_it() {
        // Known defect of the reference: a preposition at the end of a source line.
        let r = NbspPrep::new();
        let found = hits(&r, "spolu s\nkamarády");
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].range, 6..7);
        assert_eq!(found[0].fix.as_ref().unwrap().range, 7..8);
        assert!(found[0].message.contains("end of a line"));
        assert_eq!(fixed(&r, "spolu s\nkamarády"), "spolu s\u{A0}kamarády");
        assert_eq!(fixed(&r, "s\r\nkamarády"), "s\u{A0}kamarády");
    }

    #[test]
    fn standalone_after_brackets_and_quotes_in_either_case() {
        let r = NbspPrep::new();
        assert_eq!(starts(&r, "(v lese)"), vec![1]);
        assert_eq!(starts(&r, "„V lese“"), vec![3]);
        assert_eq!(starts(&r, "\"z domu\""), vec![1]);
        assert_eq!(starts(&r, "U nás"), vec![0]);
    }

    #[test]
    fn silent_where_no_break_is_possible_or_already_prevented() {
        let r = NbspPrep::new();
        assert!(hits(&r, "v\u{A0}lese").is_empty());
        assert!(hits(&r, "v\u{2028}lese").is_empty(), "hard break");
        assert!(
            hits(&r, "v  lese").is_empty(),
            "two spaces: not the reference's match"
        );
        assert!(hits(&r, "v \u{FFFC}").is_empty(), "code after");
        assert!(hits(&r, "ev lese").is_empty(), "part of a word");
        assert!(hits(&r, "s.r.o. v.").is_empty());
        assert!(hits(&r, "v - lese").is_empty());
        assert!(hits(&r, "Áv lese").is_empty());
    }
}
