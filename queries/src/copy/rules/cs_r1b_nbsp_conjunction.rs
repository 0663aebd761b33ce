//! The one-letter conjunctions `a` and `i` should not end a line either: Czech
//! typesetting keeps them with the word that follows, as it does the one-letter
//! prepositions. The fix turns the space after the conjunction into a no-break space.
//!
//! The match is the preposition rule's: the letter (either case) standing alone — at the
//! start of the text, after whitespace, or after an opening bracket or quote — then one
//! breakable space (an ordinary space or a soft line break) and a letter or digit. A
//! sentence that begins `A pak…` fires at its first letter, `(a také…)` fires after the
//! bracket, and each conjunction of a chain fires; the reference implementation missed
//! all three.
//!
//! It is a warning, not an error: in text whose language is mis-tagged, the English
//! article `a` and pronoun `I` look exactly like these conjunctions, and many Czech
//! publishers only require the no-break space after prepositions.
//!
//! For the same reason it fires only in a view (a paragraph, a heading, a JSON string)
//! that reads as Czech (`copy::language`): some Czech evidence and no more English, by
//! its stop words and its letters with a diacritic. The reviewed lockfile of
//! the real bilingual repository tags untranslated English strings of its Czech locale as
//! Czech (`"A team where everyone works…"`, `"I read your check-ins…"`); without the gate
//! each of them was a finding no Czech editor would act on. A Czech heading typed without
//! a diacritic (`Analogie s motorem a podvozkem`) reads as Czech by its words, and one
//! whose only listed word is in both languages (`Reveal a reflexe`) keeps its tag.

use super::one_letter::{CONJUNCTIONS, nbsp_hit};
use super::{Builtin, Declaration, Hits, Matcher, Scans, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R1b-nbsp-conjunction",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "A one-letter conjunction (a, i) should be followed by a no-break space.",
    source: include_str!("cs_r1b_nbsp_conjunction.rs"),
    bad: &[
        "Chléb a máslo.",
        "A pak jsme odešli.",
        "Přidejte sůl (i pepř).",
    ],
    good: &[
        "Chléb a\u{A0}máslo.",
        "A\u{A0}pak jsme odešli.",
        "Body a, b a\u{A0}c.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<NbspConjunction> {
    Builtin::new(&DECLARATION, NbspConjunction)
}

#[derive(Debug)]
pub struct NbspConjunction;

impl Matcher for NbspConjunction {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        self.check_in(&Scans::new(view), out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        let view = scans.view();
        let conjunctions = scans
            .standalone()
            .iter()
            .filter(|(letter, _)| CONJUNCTIONS.0[view.text.as_bytes()[*letter] as usize]);
        // The gate reads every word of the view: asked only of a view with a candidate
        // (most of a typeset tree's views have none).
        let mut conjunctions = conjunctions.peekable();
        if conjunctions.peek().is_none() || !scans.reads_as_czech() {
            return;
        }
        for (letter, space) in conjunctions {
            let letter = *letter;
            let c = &view.text[letter..letter + 1];
            out.push(nbsp_hit(
                letter,
                space.clone(),
                format!(
                    "one-letter conjunction “{c}” followed by a breakable space: use a \
                     no-break space so it cannot end a line"
                ),
            ));
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::LETTER_SPACE
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
    fn start_of_view_and_after_bracket() {
        // Known defects of the reference.
        let r = rule();
        assert_eq!(starts(&r, "A pak jsme odešli."), vec![0]);
        assert_eq!(starts(&r, "sůl (i pepř)"), vec![6]);
        assert_eq!(starts(&r, "„A to je vše.“"), vec![3]);
    }

    #[test]
    fn chains_fire_on_every_letter() {
        let r = rule();
        assert_eq!(starts(&r, "a i tý"), vec![0, 2]);
        assert_eq!(fixed(&r, "a i tý"), "a\u{A0}i\u{A0}tý");
    }

    #[test]
    fn after_a_sentence_mark_and_on_a_soft_break() {
        let r = rule();
        assert_eq!(starts(&r, "Konec. A pak šel"), vec![7]);
        let found = hits(&r, "chléb a\nmáslo");
        assert_eq!(found[0].range, 7..8);
        assert_eq!(found[0].fix.as_ref().unwrap().range, 8..9);
    }

    #[test]
    fn silent_on_other_letters_and_glued_words() {
        let r = rule();
        assert!(hits(&r, "Body a, b č").is_empty());
        assert!(hits(&r, "pia colada č").is_empty());
        assert!(hits(&r, "a\u{A0}b č").is_empty());
        assert!(hits(&r, "v lese č").is_empty(), "prepositions are cs-R1");
        assert!(hits(&r, "a 5 č").len() == 1);
    }

    #[test]
    fn silent_in_a_view_that_does_not_read_as_czech() {
        // Untranslated English in a Czech slot, from the real repository's lockfile.
        let r = rule();
        assert!(hits(&r, "A team where everyone works with agents").is_empty());
        assert!(hits(&r, "I read your check-ins, and a plan").is_empty());
        assert_eq!(starts(&r, "A pak jsme odešli."), vec![0]);
        // A heading of the real repository (`fabbdb6`), Czech by its words alone.
        assert_eq!(
            starts(&r, "Analogie s motorem a podvozkem"),
            vec!["Analogie s motorem ".len()]
        );
    }
}
