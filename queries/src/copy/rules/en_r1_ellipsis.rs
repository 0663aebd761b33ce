//! In English prose an ellipsis is best set as the single character `…`: three full stops
//! may break across a line and are spaced unevenly by justification. The fix writes `…`.
//!
//! Three full stops in a row fire at the first of them; longer runs are read in
//! non-overlapping threes. Unlike the Czech rule, the spaced form `. . .` is left alone:
//! several English style guides (Chicago among them) prescribe exactly that form. It is a
//! warning, as in the reference implementation: English house styles differ on this.

use super::ellipsis::Ellipsis;
use super::{Builtin, Declaration, Severity};

pub const DECLARATION: Declaration = Declaration {
    id: "en-R1-ellipsis",
    severity: Severity::Warning,
    languages: &["en"],
    summary: "Three full stops instead of the ellipsis character “…”.",
    source: include_str!("en_r1_ellipsis.rs"),
    bad: &["Wait... what?"],
    good: &["Wait… what?", "And then . . . nothing."],
    fixable: true,
};

pub fn rule() -> Builtin<Ellipsis> {
    Builtin::new(&DECLARATION, Ellipsis { spaced: false })
}

#[cfg(test)]
mod tests {
    use super::super::Rule;
    use super::super::scan::testing::{examples_hold, fixed, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_first_stop_with_a_fix() {
        let r = rule();
        assert_eq!(starts(&r, "Wait... what?"), vec![4]);
        assert_eq!(starts(&r, "......"), vec![0, 3]);
        assert_eq!(fixed(&r, "Wait... what?"), "Wait… what?");
        assert_eq!(r.meta().severity, Severity::Warning);
    }
}
