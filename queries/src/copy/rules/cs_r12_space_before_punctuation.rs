//! ČSN 01 6910 sets `, . ; : ! ?` directly after the preceding word, as English does: a
//! space before them lets the mark start a line of its own. It is usually left over from
//! editing (a word deleted before a comma) or from French habits. The fix removes the
//! space.
//!
//! The match is the English rule's, with the same exclusions: the mark must be followed
//! by the end, whitespace or a closing bracket or quote (`.NET`, `,5` and `:tada:` are not
//! punctuation); emoticons (`:)`, `;-)`) and ellipses (`...`, `. . .`) stay silent; a
//! spaced colon after a digit is a ratio, which Czech writes exactly so (`3 : 2`); text
//! after a code span is not judged; and a no-break space before the mark is left alone.
//! Reported at the first space.

use super::space_before::SpaceBeforePunctuation;
use super::{Builtin, Declaration, Severity};

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R12-space-before-punctuation",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "A space before , . ; : ! or ?.",
    source: include_str!("cs_r12_space_before_punctuation.rs"),
    bad: &["Ahoj , světe.", "Opravdu ?"],
    good: &["Ahoj, světe.", "Skončilo to 3 : 2 :) a pak…"],
    fixable: true,
};

pub fn rule() -> Builtin<SpaceBeforePunctuation> {
    Builtin::new(&DECLARATION, SpaceBeforePunctuation)
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
    fn reports_at_the_space_and_removes_it() {
        let r = rule();
        assert_eq!(starts(&r, "Ahoj , světe ."), vec![4, 13]);
        assert_eq!(fixed(&r, "Ahoj , světe ."), "Ahoj, světe.");
        assert_eq!(fixed(&r, "Proč ?!"), "Proč?!");
    }

    #[test]
    fn ratios_and_ellipses_are_silent() {
        let r = rule();
        assert!(hits(&r, "poměr 3 : 2").is_empty());
        assert!(hits(&r, "a pak . . .").is_empty());
        assert!(hits(&r, "soubor .gitignore").is_empty());
    }
}
