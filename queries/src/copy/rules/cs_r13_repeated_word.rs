//! A word typed twice (`jsme jsme`, `nový nový`) is a slip the eye skips, most of all
//! across a line break. The fix removes the second copy and the space before it.
//!
//! Fires when a word of two or more letters follows the same word (ignoring case) with
//! only spaces, tabs, no-break spaces or a soft line break between; reported at the
//! second copy. Single letters are skipped: they double legitimately in enumerations
//! (`body a a b`, "points a and b"), and a doubled one-letter word is a rare typo. Czech
//! grammar repeats some short words on purpose, and those stay silent: reflexive
//! `se`/`si` next to the preposition `se` (`ptal se se zájmem`), `to to` (`bylo to to
//! nejlepší`), `je je` (`kde je je najít`), and the idioms `už už` and `tak tak`. Two
//! copies that both start with a capital are a name (`Bora Bora`), and words with digits
//! are not words. A copy joined to its neighbour by a hyphen or a slash is part of a
//! longer token (`e-mail mail`, `ano/ne ne`) and never fires; across markup it fires
//! without a fix, as removing the source range would remove the markup too.

use super::repeat::RepeatedWord;
use super::{Builtin, Declaration, Severity};

const ALLOWED: &[&str] = &["se", "si", "to", "je", "už", "tak"];

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R13-repeated-word",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "The same word twice in a row (jsme jsme).",
    source: include_str!("cs_r13_repeated_word.rs"),
    bad: &["Včera jsme jsme byli v lese.", "Máme nový\nnový web."],
    good: &[
        "Včera jsme byli v lese.",
        "Ptal se se zájmem, bylo to to nejlepší a už už odcházel.",
        "Body a a b.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<RepeatedWord> {
    Builtin::new(
        &DECLARATION,
        RepeatedWord {
            min_letters: 2,
            allowed: ALLOWED,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{examples_hold, fixed, hits, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_second_copy_and_removes_it() {
        let r = rule();
        assert_eq!(starts(&r, "Včera jsme jsme byli"), vec![12]);
        assert_eq!(fixed(&r, "Včera jsme jsme byli"), "Včera jsme byli");
        assert_eq!(fixed(&r, "Jsme jsme tu"), "Jsme tu");
        assert_eq!(fixed(&r, "nový\u{A0}NOVÝ web"), "nový web");
    }

    #[test]
    fn single_letters_and_grammatical_doubles_are_silent() {
        let r = rule();
        for text in [
            "a a",
            "v v",
            "se se",
            "to to",
            "je je",
            "Už už",
            "Bora Bora",
            "1 1",
        ] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
    }
}
