//! A range of numbers takes an en dash, not a hyphen: `pages 10–20`, `1990–2000`. The
//! hyphen reads as a minus sign or a compound; the en dash reads "to". The fix replaces
//! the hyphen with `–`.
//!
//! The match is the Czech range rule's: digits, a hyphen, digits, with no digit or hyphen
//! on either side, so hyphenated number groups (`1-800-555-0199`, `phase-1-2`) and ISO
//! dates (`2026-04-12`) stay silent; a letter glued to the first number marks an
//! identifier (`x86-64`), and four digits followed by two with a leading zero a year and
//! month (`2026-04`). Reported at the hyphen. A sports score (`won 3-2`) looks exactly
//! like a range; style guides set scores with an en dash too, so the fix is right there
//! as well.

use super::dash::Dash;
use super::{Builtin, Declaration, Severity};

pub const DECLARATION: Declaration = Declaration {
    id: "en-R5-numeric-range",
    severity: Severity::Warning,
    languages: &["en"],
    summary: "A hyphen in a numeric range (10-20); use an en dash “–”.",
    source: include_str!("en_r5_numeric_range.rs"),
    bad: &["See pages 10-20."],
    good: &[
        "See pages 10–20.",
        "Released 2026-04-12 on x86-64; call 1-800-555-0199.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<Dash> {
    Builtin::new(
        &DECLARATION,
        Dash {
            range: Some("hyphen in a numeric range: use an en dash “–” (10–20)"),
            spaced: None,
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
    fn reports_at_the_hyphen() {
        let r = rule();
        assert_eq!(starts(&r, "See pages 10-20."), vec![12]);
        assert_eq!(fixed(&r, "See pages 10-20."), "See pages 10–20.");
    }

    #[test]
    fn number_groups_dates_and_identifiers_are_silent() {
        let r = rule();
        for text in [
            "1-2-4-All",
            "phase-1-2",
            "2026-04-12",
            "x86-64",
            "2026-04",
            "1-800-555-0199",
        ] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
    }
}
