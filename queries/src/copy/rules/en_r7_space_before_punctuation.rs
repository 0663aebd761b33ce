//! English sets `, . ; : ! ?` directly after the word they follow; a space before them
//! lets the mark start a line on its own and is a common slip of editing (a word deleted
//! before a comma leaves its space behind). The fix removes the space.
//!
//! Fires on spaces or tabs between a word (a letter or digit, or a closing bracket or
//! quote) and one of those marks, reported at the first space. Each exclusion keeps a
//! legitimate use silent:
//!
//! - the mark must be followed by the end of the text, whitespace, a closing bracket or
//!   quote (or, for `. ! ?`, another of them): `.NET`, `.env`, `,5` and emoji codes such as
//!   `:tada:` are not punctuation;
//! - `:` and `;` must be followed by the end or whitespace, so emoticons (`:)`, `;-)`,
//!   `:D`) stay silent, and `:` after a digit (`3 : 2`) is a ratio;
//! - a full stop followed by another (`wait ...`) or by ` .` (`. . .`) is an ellipsis,
//!   which the ellipsis rules judge;
//! - the word before must be prose: after a code span or URL placeholder the spacing
//!   depends on what the code was, so it stays silent;
//! - a no-break space before the mark is left alone: it was typed on purpose.

use super::space_before::SpaceBeforePunctuation;
use super::{Builtin, Declaration, Severity};

pub const DECLARATION: Declaration = Declaration {
    id: "en-R7-space-before-punctuation",
    severity: Severity::Warning,
    languages: &["en"],
    summary: "A space before , . ; : ! or ?.",
    source: include_str!("en_r7_space_before_punctuation.rs"),
    bad: &["Hello , world.", "Really ?", "Done ."],
    good: &[
        "Hello, world.",
        "Wait ... really? The score was 3 : 2 :) and .NET works.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<SpaceBeforePunctuation> {
    Builtin::new(&DECLARATION, SpaceBeforePunctuation)
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
    fn reports_at_the_space_and_removes_it() {
        let r = rule();
        assert_eq!(starts(&r, "Hello , world"), vec![5]);
        assert_eq!(matched(&r, "Hello  , world"), vec!["  ,"]);
        assert_eq!(fixed(&r, "Hello  , world"), "Hello, world");
        assert_eq!(fixed(&r, "Why ?! (Really !)"), "Why?! (Really!)");
        assert_eq!(fixed(&r, "Note : this ; that ."), "Note: this; that.");
        assert_eq!(starts(&r, "“Quoted” ."), vec![12]);
    }

    #[test]
    fn ellipses_emoticons_ratios_and_code_are_silent() {
        let r = rule();
        for text in [
            "wait ...",
            "wait . . .",
            "great :)",
            "great ;-)",
            "great :D",
            "party :tada:",
            "score 3 : 2",
            "use .NET or .env",
            "value ,5",
            "see \u{FFFC} .",
            "a\u{A0}?",
            " ,",
            "line\n, next",
        ] {
            assert!(hits(&r, text).is_empty(), "{text:?}");
        }
    }
}
