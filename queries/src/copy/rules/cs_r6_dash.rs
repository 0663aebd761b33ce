//! Czech has a hyphen (`-`, joining parts of a word: `česko-slovenský`) and a dash (`–`,
//! the en dash, separating: `Praha – Brno`, `23–26`). Typing a hyphen where a dash is
//! meant is the commonest slip of a keyboard without a dash key. The fix replaces the
//! hyphen with `–` and keeps the spaces as they are.
//!
//! Two shapes fire, both reported exactly at the hyphen (the reference implementation
//! reported one or more columns off):
//!
//! - a hyphen used as a dash between words: a letter, spaces or tabs (a no-break space
//!   counts too), the hyphen, spaces or tabs, a letter — all on one line. A line break on
//!   either side stops the match, so a Markdown or plain-text bullet (`- položka`) never
//!   fires;
//! - a numeric range: digits, a hyphen, digits (`23-26`), with no digit or hyphen on either
//!   side, so that `1-2-4-All`, `phase-1-2`, phone numbers in hyphenated groups and ISO
//!   dates (`2026-04-12`) stay silent. Beyond the reference, a letter glued to the left
//!   number (`x86-64`, `A4-5`) marks an identifier, and four digits followed by two with
//!   a leading zero (`2026-04`) a year and month; neither fires.

use super::dash::Dash;
use super::{Builtin, Declaration, Severity};

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R6-dash",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "A hyphen used as a dash or in a numeric range; use the en dash “–”.",
    source: include_str!("cs_r6_dash.rs"),
    bad: &["Praha - Brno", "Otevřeno 23-26. června."],
    good: &[
        "Praha – Brno",
        "Otevřeno 23–26. června.",
        "česko-slovenský slovník",
        "Dne 2026-04-12 ve fázi 1-2-4-All.",
        "Úkoly:\n- první\n- druhý",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<Dash> {
    Builtin::new(
        &DECLARATION,
        Dash {
            spaced: Some("hyphen used as a dash between words: use an en dash “–”"),
            range: Some("hyphen in a numeric range: use an en dash “–” (23–26)"),
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
    fn reports_exactly_at_the_hyphen() {
        // Known defect of the reference: the column was off.
        let r = rule();
        assert_eq!(starts(&r, "Praha - Brno"), vec![6]);
        assert_eq!(hits(&r, "Praha - Brno")[0].range, 6..7);
        assert_eq!(starts(&r, "Žluť  -\tkůň"), vec![8]);
        assert_eq!(starts(&r, "dny 23-26."), vec![6]);
        assert_eq!(fixed(&r, "Praha - Brno a 23-26"), "Praha – Brno a 23–26");
    }

    #[test]
    fn bullets_and_line_breaks_never_fire() {
        // Known defect of the reference: markdown bullets fired.
        let r = rule();
        assert!(hits(&r, "- položka").is_empty());
        assert!(hits(&r, "Seznam\n- položka").is_empty());
        assert!(hits(&r, "slovo -\nslovo").is_empty());
        assert!(hits(&r, "slovo\u{2028}- slovo").is_empty());
    }

    #[test]
    fn hyphens_inside_words_and_unspaced_sides_are_silent() {
        let r = rule();
        assert!(hits(&r, "česko-slovenský").is_empty());
        assert!(hits(&r, "slovo -slovo").is_empty());
        assert!(hits(&r, "slovo- slovo").is_empty());
        assert!(hits(&r, "teplota -5 °C").is_empty());
        assert!(hits(&r, "slovo -- slovo").is_empty());
        assert_eq!(starts(&r, "slovo\u{A0}- slovo"), vec![7]);
    }

    #[test]
    fn numeric_ranges_without_neighbours_only() {
        let r = rule();
        assert_eq!(starts(&r, "v letech 1990-2000"), vec![13]);
        assert_eq!(starts(&r, "9:00-10:00"), vec![4]);
        for text in [
            "1-2-4-All",
            "phase-1-2",
            "2026-04-12",
            "+420-603-123-456",
            "x86-64",
            "A4-5",
            "2026-04",
            "1-2_3",
        ] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
    }
}
