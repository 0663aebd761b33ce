//! Typeset English writes the apostrophe as `’`, the same character as the closing single
//! quote; the straight `'` is a typewriter leftover. The fix writes `’`.
//!
//! Only an apostrophe between two letters fires (`don't`, `it's`, `O'Brien`), reported at
//! the apostrophe: there it cannot be anything else. At a word's edge a straight quote may
//! be an opening or closing single quote, a plural possessive (`students'`) or an elision
//! (`'90s`, `rock 'n' roll`), and choosing between `‘` and `’` needs more than a glance.
//!
//! It is information rather than a warning: straight apostrophes are common and
//! harmless in technical prose, and many projects keep them on purpose.

use super::scan::{next_char, prev_char};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
    id: "en-R3-straight-apostrophe",
    severity: Severity::Info,
    languages: &["en"],
    summary: "A straight apostrophe inside a word (don't); use ’.",
    source: include_str!("en_r3_straight_apostrophe.rs"),
    bad: &["Don't panic, it's fine."],
    good: &["Don’t panic.", "The students' room in the '90s."],
    fixable: true,
};

pub fn rule() -> Builtin<StraightApostrophe> {
    Builtin::new(&DECLARATION, StraightApostrophe)
}

#[derive(Debug)]
pub struct StraightApostrophe;

impl Matcher for StraightApostrophe {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        for a in memchr::memchr_iter(b'\'', text.as_bytes()) {
            if prev_char(text, a).is_some_and(super::scan::is_letter)
                && next_char(text, a + 1).is_some_and(super::scan::is_letter)
            {
                out.push(Hit {
                    range: a..a + 1,
                    message: "straight apostrophe: use “’”".into(),
                    fix: Some(Edit {
                        range: a..a + 1,
                        replacement: "’".into(),
                    }),
                    anchor: None,
                });
            }
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::APOSTROPHE
    }
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
    fn reports_at_the_apostrophe_inside_words() {
        let r = rule();
        assert_eq!(starts(&r, "Don't panic, it's fine."), vec![3, 15]);
        assert_eq!(fixed(&r, "O'Brien won't"), "O’Brien won’t");
    }

    #[test]
    fn word_edges_are_silent() {
        let r = rule();
        for text in ["students' room", "'90s", "rock 'n' roll", "'quoted'", "x'1"] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
    }
}
