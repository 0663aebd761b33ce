//! English curly quotes “…” are correct in English and wrong in Czech, where quotes open
//! low and close high: „…“. Text pasted from English sources or typed with an English
//! keyboard layout brings them along, and they look right at a glance. The fix rewrites
//! the pair as „…“.
//!
//! The Czech closing quote is the same character as the English opening one (U+201C), so
//! the quotes of a view are read in order: `„` opens a Czech quote and the next `“`
//! closes it; a `“` with no Czech quote open starts an English pair, which the next `”`
//! closes. Only such a pair fires, reported at its opening `“`, when its content has a
//! letter. An English title quoted inside Czech prose is still quoted the Czech way, so
//! the content need not be Czech; but the view must hold a Czech letter with a diacritic,
//! so a mis-tagged English sentence does not fire. Single quotes are left alone: `’` is
//! also the apostrophe.
//!
//! The fix writes the content back between the new quotes, so it is offered only when the
//! content is a faithful copy of the source.

use super::scan::{copyable, has_czech_diacritic};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R2b-english-quotes",
    severity: Severity::Error,
    languages: &["cs"],
    summary: "English quotes “…” in Czech text; use „…“.",
    source: include_str!("cs_r2b_english_quotes.rs"),
    bad: &[
        "Kniha “Čistý kód” vyšla česky.",
        "Přečtěte si “Clean Code” ještě dnes.",
    ],
    good: &[
        "Kniha „Čistý kód“ vyšla česky.",
        "The book “Clean Code” is a classic.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<EnglishQuotes> {
    Builtin::new(&DECLARATION, EnglishQuotes)
}

#[derive(Debug)]
pub struct EnglishQuotes;

impl Matcher for EnglishQuotes {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        // `“` and `”` both start with the bytes E2 80; a view without them is done.
        if !text.contains('”') || !has_czech_diacritic(text) {
            return;
        }
        let mut czech_open = false;
        let mut english_open: Option<usize> = None;
        for (i, c) in text.char_indices() {
            match c {
                '„' => czech_open = true,
                '“' if czech_open => czech_open = false,
                '“' => english_open = Some(i),
                '”' => {
                    let Some(open) = english_open.take() else {
                        continue;
                    };
                    let content = open + '“'.len_utf8()..i;
                    if !text[content.clone()].chars().any(super::scan::is_letter) {
                        continue;
                    }
                    let range = open..i + '”'.len_utf8();
                    let fix = copyable(view, content.clone()).then(|| Edit {
                        range: range.clone(),
                        replacement: format!("„{}“", &text[content]),
                    });
                    out.push(Hit {
                        range,
                        message: "English quotes “…” in Czech text: use „…“".into(),
                        fix,
                        anchor: None,
                    });
                }
                _ => {}
            }
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::CLOSING_QUOTE
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
    fn reports_at_the_opening_quote_and_fixes_the_pair() {
        let r = rule();
        let text = "Kniha “Čistý kód” vyšla.";
        let found = hits(&r, text);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].range.start, 6);
        assert_eq!(&text[found[0].range.clone()], "“Čistý kód”");
        assert_eq!(fixed(&r, text), "Kniha „Čistý kód“ vyšla.");
    }

    #[test]
    fn czech_closing_quote_is_not_an_english_opening() {
        let r = rule();
        assert!(hits(&r, "„Ano“, řekl, „ne“”.").is_empty());
        assert_eq!(starts(&r, "„Ano“ a “ne”, řekl."), vec![12]);
    }

    #[test]
    fn needs_czech_evidence_in_the_view_and_letters_inside() {
        let r = rule();
        assert!(hits(&r, "He said “yes” and left.").is_empty());
        assert!(hits(&r, "Skóre “42” bodů.").is_empty());
        assert_eq!(starts(&r, "Řekl “yes”."), vec![6]);
    }
}
