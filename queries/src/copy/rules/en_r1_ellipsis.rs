//! In English prose an ellipsis is best set as the single character `…`: three full stops
//! may break across a line and are spaced unevenly by justification. The fix writes `…`.
//!
//! Three full stops in a row fire at the first of them; longer runs are read in
//! non-overlapping threes. Unlike the Czech rule, the spaced form `. . .` is left alone:
//! several English style guides (Chicago among them) prescribe exactly that form. It is a
//! warning, as in the reference implementation: English house styles differ on this.

use super::cs_r3_ellipsis::{ellipsis_hit, for_each_ellipsis};
use super::scan::MetaSource;
use super::{Hit, Rule, RuleMeta, Severity, Triggers};
use crate::copy::view::View;

#[derive(Debug)]
pub struct Ellipsis {
    meta: RuleMeta,
}

impl Ellipsis {
    pub fn new() -> Self {
        Ellipsis {
            meta: MetaSource {
                id: "en-R1-ellipsis",
                severity: Severity::Warning,
                languages: &["en"],
                summary: "Three full stops instead of the ellipsis character “…”.",
                source: include_str!("en_r1_ellipsis.rs"),
                bad: &["Wait... what?"],
                good: &["Wait… what?", "And then . . . nothing."],
                fixable: true,
            }
            .build(),
        }
    }
}

impl Default for Ellipsis {
    fn default() -> Self {
        Self::new()
    }
}

impl Rule for Ellipsis {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, view: &View, out: &mut Vec<Hit>) {
        for_each_ellipsis(&view.text, false, |range| out.push(ellipsis_hit(range)));
    }

    fn triggers(&self) -> Triggers {
        Triggers::DOTS
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{examples_hold, fixed, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&Ellipsis::new());
    }

    #[test]
    fn reports_at_the_first_stop_with_a_fix() {
        let r = Ellipsis::new();
        assert_eq!(starts(&r, "Wait... what?"), vec![4]);
        assert_eq!(starts(&r, "......"), vec![0, 3]);
        assert_eq!(fixed(&r, "Wait... what?"), "Wait… what?");
        assert_eq!(r.meta().severity, Severity::Warning);
    }
}
