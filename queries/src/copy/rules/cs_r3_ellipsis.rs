//! An ellipsis is one character, `…`, not three full stops: ČSN 01 6910 sets it as a
//! single sign whose dots are spaced by the font, and three stops can be broken across a
//! line or spaced unevenly by justification. The fix writes `…`.
//!
//! Three full stops in a row fire at the first of them. A longer run is read in
//! non-overlapping threes from its start (six stops are two findings, five are one and
//! two stops stay). The spaced form `. . .` (single spaces or no-break spaces between)
//! fires as well; the reference implementation missed it.

use super::ellipsis::Ellipsis;
use super::{Builtin, Declaration, Severity};

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R3-ellipsis",
    severity: Severity::Error,
    languages: &["cs"],
    summary: "Three full stops instead of the ellipsis character “…”.",
    source: include_str!("cs_r3_ellipsis.rs"),
    bad: &["A pak... nic.", "A pak . . . nic."],
    good: &["A pak… nic.", "Viz str. 5. Konec."],
    fixable: true,
};

pub fn rule() -> Builtin<Ellipsis> {
    Builtin::new(&DECLARATION, Ellipsis { spaced: true })
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{examples_hold, fixed, hits, matched, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_first_stop() {
        let r = rule();
        assert_eq!(starts(&r, "A pak... nic."), vec![5]);
        assert_eq!(fixed(&r, "A pak... nic."), "A pak… nic.");
    }

    #[test]
    fn long_runs_in_non_overlapping_threes() {
        let r = rule();
        assert_eq!(starts(&r, "a......b"), vec![1, 4]);
        assert_eq!(starts(&r, "a.....b"), vec![1]);
        assert_eq!(fixed(&r, "a.....b"), "a…..b");
        assert!(hits(&r, "a..b").is_empty());
    }

    #[test]
    fn spaced_stops_fire() {
        // Known gap of the reference.
        let r = rule();
        assert_eq!(matched(&r, "pak . . . nic"), vec![". . ."]);
        assert_eq!(
            matched(&r, "pak .\u{A0}.\u{A0}. nic"),
            vec![".\u{A0}.\u{A0}."]
        );
        assert_eq!(fixed(&r, "pak . . . nic"), "pak … nic");
        assert!(hits(&r, "pak . . nic").is_empty());
        assert!(hits(&r, "pak .  . . nic").is_empty());
    }
}
