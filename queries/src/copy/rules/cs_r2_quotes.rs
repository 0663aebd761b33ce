//! Czech quotes open low and close high: „takto“. Straight typewriter quotes `"…"` around
//! Czech text are a typing shortcut that typesetting must not keep.
//!
//! Straight quotes are paired in order within one line (the first with the second, the
//! third with the fourth; a line ends at a line break, soft or hard), as the reference
//! implementation did, and a pair fires only when its content holds a Czech letter with a
//! diacritic (`áčďéěíňóřšťúůýž` or a capital): quotes around a bare identifier or an
//! English phrase are more often code or a citation than Czech prose. Reported at the
//! opening quote.
//!
//! The fix replaces the whole quoted text with the same text between `„` and `“`. It is
//! offered only when the content is a faithful copy of the source (no decoded escape, no
//! code span in between), since the replacement writes the content back.
//!
//! The reference implementation was not language-scoped and so also fired in English
//! spans that happened to hold a Czech name; this rule is Czech only.

use super::scan::{copyable, has_czech_diacritic, lines};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R2-quotes",
    severity: Severity::Error,
    languages: &["cs"],
    summary: "Straight double quotes around Czech text; use „…“.",
    source: include_str!("cs_r2_quotes.rs"),
    bad: &["Řekl \"dobrý den\" a odešel."],
    good: &[
        "Řekl „dobrý den“ a odešel.",
        "Nastavte \"debug\" na true.",
        "Řekl \"dobrý\nden\" a odešel.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<Quotes> {
    Builtin::new(&DECLARATION, Quotes)
}

#[derive(Debug)]
pub struct Quotes;

impl Matcher for Quotes {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        if memchr::memchr(b'"', view.text.as_bytes()).is_none() {
            return;
        }
        for (start, line) in lines(&view.text) {
            let mut quotes = memchr::memchr_iter(b'"', line.as_bytes()).map(|q| start + q);
            while let (Some(open), Some(close)) = (quotes.next(), quotes.next()) {
                let content = open + 1..close;
                if !has_czech_diacritic(&view.text[content.clone()]) {
                    continue;
                }
                let fix = copyable(view, content.clone()).then(|| Edit {
                    range: open..close + 1,
                    replacement: format!("„{}“", &view.text[content]),
                });
                out.push(Hit {
                    range: open..close + 1,
                    message: "straight quotes around Czech text: use „…“".into(),
                    fix,
                    anchor: None,
                });
            }
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::DOUBLE_QUOTE
    }
}

#[cfg(test)]
mod tests {
    use super::super::Rule;
    use super::super::scan::testing::{examples_hold, fixed, hits, starts};
    use super::*;
    use crate::copy::view::{ViewBuilder, ViewRole};

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_opening_quote_and_fixes_the_pair() {
        let r = rule();
        let text = "Řekl \"dobrý den\" a odešel.";
        let found = hits(&r, text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].range, 6..18);
        assert_eq!(fixed(&r, text), "Řekl „dobrý den“ a odešel.");
    }

    #[test]
    fn pairs_in_order_per_line() {
        let r = rule();
        // Second pair only has the diacritic.
        assert_eq!(starts(&r, "\"a\" a \"č\""), vec![6]);
        // A quote left open on one line does not pair with one on the next.
        assert!(hits(&r, "\"čaj\nkáva\"").is_empty());
        assert!(hits(&r, "\"čaj\u{2028}káva\"").is_empty());
        // An odd quote at the end stays unpaired.
        assert_eq!(starts(&r, "\"čaj\" a \"káva"), vec![0]);
    }

    #[test]
    fn no_fix_when_the_content_is_not_verbatim() {
        // `"kód `x` je"`: the code span is opaque, writing the view text back would lose it.
        let mut b = ViewBuilder::new(ViewRole::Text);
        b.verbatim("\"kód ", 0);
        b.opaque("\u{FFFC}", 6..9);
        b.verbatim("\"", 9);
        let view = b.finish();
        let mut out = Hits::default();
        rule().check(&view, &mut out);
        let out = out.into_vec();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].fix, None);
    }
}
