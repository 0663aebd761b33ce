//! An ellipsis is one character, `…`, not three full stops: ČSN 01 6910 sets it as a
//! single sign whose dots are spaced by the font, and three stops can be broken across a
//! line or spaced unevenly by justification. The fix writes `…`.
//!
//! Three full stops in a row fire at the first of them. A longer run is read in
//! non-overlapping threes from its start (six stops are two findings, five are one and
//! two stops stay). The spaced form `. . .` (single spaces or no-break spaces between)
//! fires as well; the reference implementation missed it.

use super::scan::{MetaSource, NBSP};
use super::{Edit, Hit, Rule, RuleMeta, Severity, Triggers};
use crate::copy::view::View;
use std::ops::Range;

#[derive(Debug)]
pub struct Ellipsis {
    meta: RuleMeta,
}

impl Ellipsis {
    pub fn new() -> Self {
        Ellipsis {
            meta: MetaSource {
                id: "cs-R3-ellipsis",
                severity: Severity::Error,
                languages: &["cs"],
                summary: "Three full stops instead of the ellipsis character “…”.",
                source: include_str!("cs_r3_ellipsis.rs"),
                bad: &["A pak... nic.", "A pak . . . nic."],
                good: &["A pak… nic.", "Viz str. 5. Konec."],
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
        for_each_ellipsis(&view.text, true, |range| {
            out.push(ellipsis_hit(range));
        });
    }

    fn triggers(&self) -> Triggers {
        Triggers::DOTS
    }
}

pub(super) fn ellipsis_hit(range: Range<usize>) -> Hit {
    Hit {
        range: range.clone(),
        message: "three full stops: use the ellipsis character “…”".into(),
        fix: Some(Edit {
            range,
            replacement: "…".into(),
        }),
        anchor: None,
    }
}

/// Calls `f` with the range of every `...` (in non-overlapping threes) and, if `spaced`,
/// every `. . .`.
pub(super) fn for_each_ellipsis(text: &str, spaced: bool, mut f: impl FnMut(Range<usize>)) {
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(found) = memchr::memchr(b'.', &bytes[at..]) {
        let i = at + found;
        if bytes[i..].starts_with(b"...") {
            f(i..i + 3);
            at = i + 3;
        } else if let Some(end) = spaced.then(|| spaced_end(text, i)).flatten() {
            f(i..end);
            at = end;
        } else {
            at = i + 1;
        }
    }
}

/// End of `. . .` starting at `i`, with one space or no-break space between the stops.
fn spaced_end(text: &str, i: usize) -> Option<usize> {
    let mut at = i + 1;
    for _ in 0..2 {
        let space = text[at..]
            .chars()
            .next()
            .filter(|&c| c == ' ' || c == NBSP)?;
        at += space.len_utf8();
        if text.as_bytes().get(at) != Some(&b'.') {
            return None;
        }
        at += 1;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{examples_hold, fixed, hits, matched, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&Ellipsis::new());
    }

    #[test]
    fn reports_at_the_first_stop() {
        let r = Ellipsis::new();
        assert_eq!(starts(&r, "A pak... nic."), vec![5]);
        assert_eq!(fixed(&r, "A pak... nic."), "A pak… nic.");
    }

    #[test]
    fn long_runs_in_non_overlapping_threes() {
        let r = Ellipsis::new();
        assert_eq!(starts(&r, "a......b"), vec![1, 4]);
        assert_eq!(starts(&r, "a.....b"), vec![1]);
        assert_eq!(fixed(&r, "a.....b"), "a…..b");
        assert!(hits(&r, "a..b").is_empty());
    }

    #[test]
    fn spaced_stops_fire() {
        // Known gap of the reference.
        let r = Ellipsis::new();
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
