//! A word typed twice (`the the`) is the classic slip that proofreading misses, because
//! the eye skips the second copy — most of all when the two copies stand on either side
//! of a line break. The fix removes the second copy and the space before it.
//!
//! Fires when a word follows the same word (ignoring case) with only spaces, tabs,
//! no-break spaces or a soft line break between them; reported at the second copy. A word
//! is a run of letters; anything with a digit (`10 10`) is a number or a code, not a word.
//! Stays silent where English grammar or usage repeats a word on purpose: `that that`,
//! `had had`, `is is`, `do do`, and interjections such as `ha ha`, `no no`, `bye bye`,
//! `blah blah`. Two copies that both start with a capital (`Bora Bora`, `Sing Sing`) are
//! names, not slips. A copy joined to the text around it by a hyphen or a slash is part
//! of a longer token, not a repeated word (`sign-in in the`, `border border-[#ccc]`): it
//! never fires. Across markup (`the **the**`) it fires without a fix, because removing
//! the source range would remove the markup too.

use super::repeat::RepeatedWord;
use super::{Builtin, Declaration, Severity};

const ALLOWED: &[&str] = &[
    "that", "had", "is", "do", "ha", "no", "bye", "bla", "blah", "so",
];

pub const DECLARATION: Declaration = Declaration {
    id: "en-R6-repeated-word",
    severity: Severity::Warning,
    languages: &["en"],
    summary: "The same word twice in a row (the the).",
    source: include_str!("en_r6_repeated_word.rs"),
    bad: &["Open the the file.", "It is a\na problem."],
    good: &[
        "Open the file.",
        "I know that that is wrong; she had had enough in Bora Bora.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<RepeatedWord> {
    Builtin::new(
        &DECLARATION,
        RepeatedWord {
            min_letters: 1,
            allowed: ALLOWED,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::Rule;
    use super::super::scan::testing::{examples_hold, fixed, hits, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_second_copy_and_removes_it() {
        let r = rule();
        assert_eq!(starts(&r, "Open the the file."), vec![9]);
        assert_eq!(fixed(&r, "Open the the file."), "Open the file.");
        assert_eq!(fixed(&r, "The the file."), "The file.");
        assert_eq!(fixed(&r, "a\na problem"), "a problem");
    }

    #[test]
    fn chains_collapse_to_one_copy() {
        let r = rule();
        assert_eq!(starts(&r, "the the the end"), vec![4, 8]);
        assert_eq!(fixed(&r, "the the the end"), "the end");
    }

    #[test]
    fn deliberate_repetitions_numbers_and_punctuation_are_silent() {
        let r = rule();
        for text in [
            "that that",
            "had had",
            "Bora Bora",
            "10 10",
            "a2 a2",
            "the, the",
            "the\u{2028}the",
            "the \u{FFFC} the",
            "theme the",
            "ha ha",
        ] {
            assert!(hits(&r, text).is_empty(), "{text:?}");
        }
    }

    /// The reference's `--fix` deleted a Tailwind class and a word of `sign-in in the`.
    #[test]
    fn copies_joined_by_a_hyphen_or_slash_are_no_repeat() {
        let r = rule();
        for text in [
            "Click sign-in in the corner.",
            "class border border-[#ccc]",
            "and/or or not",
            "the the-end",
        ] {
            assert!(hits(&r, text).is_empty(), "{text:?}");
        }
        assert_eq!(starts(&r, "a sign in in the corner"), vec![10]);
    }

    #[test]
    fn across_markup_it_fires_without_a_fix() {
        use crate::copy::extract::{Format, extract};
        let views = extract(Format::Markdown, "Open the **the** file and the the end.\n").unwrap();
        let mut found = super::super::Hits::default();
        rule().check(&views[0], &mut found);
        let found = found.into_vec();
        assert_eq!(found.len(), 2);
        assert!(found[0].fix.is_none(), "the markup would go with the word");
        assert!(found[1].fix.is_some());
    }
}
