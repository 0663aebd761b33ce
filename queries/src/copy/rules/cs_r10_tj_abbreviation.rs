//! The abbreviation of *to jest* ("that is") is `tj.`, one word with one full stop: it
//! abbreviates a fixed expression, the way `tzv.` and `atd.` do, not two words each cut
//! short. `t. j.` and `t.j.` are common misspellings, carried over from the older norm
//! and from analogy with `t. r.`. The fix writes `tj.`, keeping a capital `T`.
//!
//! Fires on `t`, a full stop, at most one space (ordinary, no-break, or a line break
//! inside the paragraph), `j` and a full stop, where the `t` starts a word (nothing
//! alphanumeric or a full stop glued before it). Reported at the `t`.

use super::scan::{NBSP, prev_char};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R10-tj-abbreviation",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "“t. j.” or “t.j.” instead of the abbreviation “tj.”.",
    source: include_str!("cs_r10_tj_abbreviation.rs"),
    bad: &["Dva dny, t. j. víkend.", "T.j. celý týden."],
    good: &["Dva dny, tj. víkend.", "Sraz je t. r. v létě."],
    fixable: true,
};

pub fn rule() -> Builtin<TjAbbreviation> {
    Builtin::new(&DECLARATION, TjAbbreviation)
}

#[derive(Debug)]
pub struct TjAbbreviation;

impl Matcher for TjAbbreviation {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        let bytes = text.as_bytes();
        // A full stop is rarer than a `t` in prose: find those and look one byte back.
        for dot in memchr::memchr_iter(b'.', bytes) {
            let Some(t) = dot
                .checked_sub(1)
                .filter(|&t| matches!(bytes[t], b't' | b'T'))
            else {
                continue;
            };
            if prev_char(text, t).is_some_and(|c| super::scan::is_alnum(c) || c == '.') {
                continue;
            }
            let mut j = t + 2;
            if let Some(c @ (' ' | '\n' | NBSP)) = text[j..].chars().next() {
                j += c.len_utf8();
            }
            if !text[j..].starts_with("j.") {
                continue;
            }
            let range = t..j + 2;
            let capital = if bytes[t] == b'T' { "Tj." } else { "tj." };
            out.push(Hit {
                range: range.clone(),
                message: format!("write the abbreviation of “to jest” as “{capital}”"),
                fix: Some(Edit {
                    range,
                    replacement: capital.into(),
                }),
                anchor: None,
            });
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::J_DOT
    }
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
    fn reports_at_the_t_and_fixes_every_spelling() {
        let r = rule();
        assert_eq!(starts(&r, "dny, t. j. víkend"), vec![5]);
        assert_eq!(matched(&r, "dny, t. j. víkend"), vec!["t. j."]);
        assert_eq!(fixed(&r, "dny, t. j. víkend"), "dny, tj. víkend");
        assert_eq!(fixed(&r, "dny, t.j. víkend"), "dny, tj. víkend");
        assert_eq!(fixed(&r, "T.\u{A0}j. víkend"), "Tj. víkend");
        assert_eq!(fixed(&r, "dny, t.\nj. víkend"), "dny, tj. víkend");
        assert_eq!(fixed(&r, "(t. j. víkend)"), "(tj. víkend)");
    }

    #[test]
    fn silent_inside_words_and_on_other_abbreviations() {
        let r = rule();
        for text in [
            "tj. víkend",
            "at. j.",
            "t.  j.",
            "t. r.",
            "t. jen",
            "s.t.j.",
        ] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
    }
}
