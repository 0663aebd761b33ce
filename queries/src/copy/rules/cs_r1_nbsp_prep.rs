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

use super::one_letter::{PREPOSITIONS, nbsp_hit};
use super::{Builtin, Declaration, Hits, Matcher, Scans, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
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
};

pub fn rule() -> Builtin<NbspPrep> {
    Builtin::new(&DECLARATION, NbspPrep)
}

#[derive(Debug)]
pub struct NbspPrep;

impl Matcher for NbspPrep {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        self.check_in(&Scans::new(view), out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
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

#[cfg(test)]
mod tests {
    use super::super::Edit;
    use super::super::scan::testing::{examples_hold, fixed, hits, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_letter_and_fixes_the_space() {
        let r = rule();
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
        let r = rule();
        assert_eq!(starts(&r, "s v domě"), vec![0, 2]);
        assert_eq!(fixed(&r, "s v domě"), "s\u{A0}v\u{A0}domě");
        // A chain already half fixed: the second still fires.
        assert_eq!(starts(&r, "s\u{A0}v domě"), vec![3]);
    }

    #[test]
    fn digit_after_fires() {
        // Known defect of the reference.
        assert_eq!(starts(&rule(), "k 5. výročí"), vec![0]);
        assert_eq!(starts(&rule(), "Za v 10 minut"), vec![3]);
    }

    #[test]
    fn soft_line_break_fires_and_the_fix_replaces_it() {
        // Known defect of the reference: a preposition at the end of a source line.
        let r = rule();
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
        let r = rule();
        assert_eq!(starts(&r, "(v lese)"), vec![1]);
        assert_eq!(starts(&r, "„V lese“"), vec![3]);
        assert_eq!(starts(&r, "\"z domu\""), vec![1]);
        assert_eq!(starts(&r, "U nás"), vec![0]);
    }

    #[test]
    fn silent_where_no_break_is_possible_or_already_prevented() {
        let r = rule();
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
