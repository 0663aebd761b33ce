//! A hyphen joins parts of a word; between words, set off by spaces, the writer meant a
//! dash. English house styles pick either a closed em dash (`word—word`, Chicago) or a
//! spaced en dash (`word – word`, most British and many web styles). The fix writes the
//! spaced en dash: it keeps the writer's spaces, replacing one character with one, so a
//! fixed file keeps every other position (and its lockfile spans) where they were. A
//! project that prefers em dashes can add a custom rule with its own replacement.
//!
//! Fires on a letter, spaces or tabs (a no-break space counts too), a hyphen, spaces or
//! tabs, and a letter, all on one line, reported at the hyphen. A line break on either
//! side stops the match, so a list bullet (`- item`) never fires.

use super::dash::Dash;
use super::{Builtin, Declaration, Severity};

pub const DECLARATION: Declaration = Declaration {
    id: "en-R4-spaced-hyphen-dash",
    severity: Severity::Warning,
    languages: &["en"],
    summary: "A spaced hyphen used as a dash; use a spaced en dash “–”.",
    source: include_str!("en_r4_spaced_hyphen_dash.rs"),
    bad: &["It works - mostly."],
    good: &[
        "It works – mostly.",
        "A well-known fact.",
        "Steps:\n- one\n- two",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<Dash> {
    Builtin::new(
        &DECLARATION,
        Dash {
            spaced: Some("hyphen used as a dash between words: use a spaced en dash “–”"),
            range: None,
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
    fn reports_at_the_hyphen_and_keeps_the_spaces() {
        let r = rule();
        assert_eq!(starts(&r, "It works - mostly."), vec![9]);
        assert_eq!(fixed(&r, "It works - mostly."), "It works – mostly.");
    }

    #[test]
    fn bullets_compounds_and_numbers_are_silent() {
        let r = rule();
        for text in [
            "- item",
            "list\n- item",
            "well-known",
            "pages 10 - 20",
            "x -y",
        ] {
            assert!(hits(&r, text).is_empty(), "{text:?}");
        }
    }
}
