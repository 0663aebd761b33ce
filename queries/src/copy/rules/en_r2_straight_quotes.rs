//! Typeset English uses curly quotes, “like this”; straight quotes `"…"` are a
//! typewriter leftover that most fonts draw as two vertical ticks. The fix rewrites the
//! pair as “…”.
//!
//! A pair fires only when it looks like quotation marks around words, so inch marks and
//! stray quotes stay silent: the opening quote stands at the start of the text, after
//! whitespace or an opening bracket or dash, and before a non-space character; the
//! closing quote is the next straight quote on the same line, after a non-space character
//! and before the end, whitespace or punctuation (not a letter or digit); and the content
//! has a letter. When the next quote cannot close the pair (`12" and 14" pizzas`), it is
//! tried as an opening quote instead. Reported at the opening quote.
//!
//! The fix writes the content back between the new quotes, so it is offered only when the
//! content is a faithful copy of the source (no decoded escape, no code span).

use super::scan::{copyable, lines, next_char, prev_char};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
    id: "en-R2-straight-quotes",
    severity: Severity::Warning,
    languages: &["en"],
    summary: "Straight double quotes around words; use “…”.",
    source: include_str!("en_r2_straight_quotes.rs"),
    bad: &["She said \"hello\" and left.", "(\"Quoted,\" he said.)"],
    good: &["She said “hello” and left.", "A 12\" pizza and a 14\" one."],
    fixable: true,
};

pub fn rule() -> Builtin<StraightQuotes> {
    Builtin::new(&DECLARATION, StraightQuotes)
}

#[derive(Debug)]
pub struct StraightQuotes;

impl Matcher for StraightQuotes {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        if memchr::memchr(b'"', text.as_bytes()).is_none() {
            return;
        }
        for (start, line) in lines(text) {
            let quotes = memchr::memchr_iter(b'"', line.as_bytes()).map(|q| start + q);
            let mut open = None;
            for q in quotes {
                let Some(o) = open else {
                    open = can_open(text, q).then_some(q);
                    continue;
                };
                let content = o + 1..q;
                if can_close(text, q) && text[content.clone()].chars().any(super::scan::is_letter) {
                    let fix = copyable(view, content.clone()).then(|| Edit {
                        range: o..q + 1,
                        replacement: format!("“{}”", &text[content]),
                    });
                    out.push(Hit {
                        range: o..q + 1,
                        message: "straight quotes around words: use curly quotes “…”".into(),
                        fix,
                        anchor: None,
                    });
                    open = None;
                } else {
                    open = can_open(text, q).then_some(q);
                }
            }
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::DOUBLE_QUOTE
    }
}

fn can_open(text: &str, q: usize) -> bool {
    prev_char(text, q).is_none_or(|c| c.is_whitespace() || matches!(c, '(' | '[' | '{' | '—' | '–'))
        && next_char(text, q + 1).is_some_and(|c| !c.is_whitespace())
}

fn can_close(text: &str, q: usize) -> bool {
    prev_char(text, q).is_some_and(|c| !c.is_whitespace())
        && next_char(text, q + 1).is_none_or(|c| !super::scan::is_alnum(c))
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
    fn reports_at_the_opening_quote_and_curls_the_pair() {
        let r = rule();
        assert_eq!(starts(&r, "She said \"hello\" and left."), vec![9]);
        assert_eq!(hits(&r, "She said \"hello\" and left.")[0].range, 9..16);
        assert_eq!(
            fixed(&r, "\"One,\" she said, \"two.\""),
            "“One,” she said, “two.”"
        );
    }

    #[test]
    fn inch_marks_and_unpaired_quotes_are_silent() {
        let r = rule();
        for text in [
            "A 12\" pizza and a 14\" one.",
            "a \"quote\nacross\" lines",
            "only \" one",
            "\"42\"",
            "x\"y\"z",
        ] {
            assert!(hits(&r, text).is_empty(), "{text:?}");
        }
        // A failed closing quote is retried as an opening one.
        assert_eq!(starts(&r, "5\" and \"word\""), vec![7]);
    }
}
