//! English names of days and months in Czech text are untranslated leftovers — from a
//! template, a date formatter set to the wrong locale, or a copy from English — and a
//! Czech reader trips over them (`v Monday`, `15. March`). The message suggests the Czech
//! name; there is no fix, because the Czech form depends on case (`březen`, `března`,
//! `v březnu`).
//!
//! `Monday`…`Sunday` and `January`…`December` fire as whole words, case-sensitively (so
//! `may` the verb and `march` the verb are silent), reported at the word.
//!
//! The reference implementation fired only in files holding at least one Czech letter
//! with a diacritic, anywhere in the file. Ours has no diacritic gate at all: it runs only
//! where the text is Czech (the engine scopes it by the span's language), which is the
//! evidence that gate was a stand-in for. A short Czech string without a diacritic
//! (`Deadline: Friday`) now fires; an English string in a file that also holds Czech no
//! longer does.

use super::scan::MetaSource;
use super::{Hit, Rule, RuleMeta, Severity};
use crate::copy::view::View;
use aho_corasick::{AhoCorasick, MatchKind};

const NAMES: [(&str, &str); 19] = [
    ("Monday", "pondělí"),
    ("Tuesday", "úterý"),
    ("Wednesday", "středa"),
    ("Thursday", "čtvrtek"),
    ("Friday", "pátek"),
    ("Saturday", "sobota"),
    ("Sunday", "neděle"),
    ("January", "leden"),
    ("February", "únor"),
    ("March", "březen"),
    ("April", "duben"),
    ("May", "květen"),
    ("June", "červen"),
    ("July", "červenec"),
    ("August", "srpen"),
    ("September", "září"),
    ("October", "říjen"),
    ("November", "listopad"),
    ("December", "prosinec"),
];

/// Matches the names as whole words, like the reference's `\b(?:Monday|…)\b`: the names
/// are found as literals, and a match with a word character (`\w`, as regular expressions
/// define it) on either side is dropped. A dropped match hides no other, since every name
/// has its only capital first. (A regular expression did the same at twice the cost:
/// most of its time on short views went to preparing each search.)
#[derive(Debug)]
pub struct EnglishDayMonth {
    meta: RuleMeta,
    names: AhoCorasick,
}

impl EnglishDayMonth {
    pub fn new() -> Self {
        let names = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostFirst)
            .build(NAMES.iter().map(|(en, _)| en))
            .expect("a few literal names build a searcher");
        EnglishDayMonth {
            meta: MetaSource {
                id: "cs-R8-english-day-month",
                severity: Severity::Error,
                languages: &["cs"],
                summary: "An English day or month name in Czech text.",
                source: include_str!("cs_r8_english_day_month.rs"),
                bad: &["Sejdeme se v Monday.", "Uzávěrka: 15. March"],
                good: &[
                    "Sejdeme se v pondělí.",
                    "Mayday a Marching band nejsou měsíce.",
                ],
                fixable: false,
            }
            .build(),
            names,
        }
    }
}

impl Default for EnglishDayMonth {
    fn default() -> Self {
        Self::new()
    }
}

impl Rule for EnglishDayMonth {
    fn meta(&self) -> &RuleMeta {
        &self.meta
    }

    fn check(&self, view: &View, out: &mut Vec<Hit>) {
        let text = &view.text;
        let word = |c: Option<char>| c.is_some_and(regex_syntax::is_word_character);
        for m in self.names.find_iter(text) {
            if word(text[..m.start()].chars().next_back()) || word(text[m.end()..].chars().next()) {
                continue;
            }
            let (en, czech) = NAMES[m.pattern().as_usize()];
            out.push(Hit {
                range: m.range(),
                message: format!("English name “{en}” in Czech text: use “{czech}”"),
                fix: None,
                anchor: None,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{examples_hold, hits, matched, starts};
    use super::*;
    use proptest::prelude::*;

    const PIECES: &[&str] = &[
        "Monday", "May", "March", "Mayday", "June", "July", "Ju", "ly", " ", "_", "1", "x", "é",
        "\u{301}", "\u{200d}", "-", ".", "(", "日", "‿", "\u{a0}", "Sunday", "S",
    ];

    proptest! {
        /// The names found as literals with the word test around them are the reference's
        /// `\b(?:Monday|…)\b`.
        #[test]
        fn whole_names_are_the_word_bounded_alternation(
            picks in proptest::collection::vec(0..PIECES.len(), 0..24),
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            let names: Vec<&str> = NAMES.iter().map(|(en, _)| *en).collect();
            let regex = regex::Regex::new(&format!(r"\b(?:{})\b", names.join("|"))).unwrap();
            let expected: Vec<_> = regex.find_iter(&text).map(|m| m.range()).collect();
            let found: Vec<_> = hits(&EnglishDayMonth::new(), &text).into_iter().map(|h| h.range).collect();
            prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn examples() {
        examples_hold(&EnglishDayMonth::new());
    }

    #[test]
    fn reports_at_the_word_with_the_czech_name() {
        let r = EnglishDayMonth::new();
        assert_eq!(starts(&r, "Sejdeme se v Monday."), vec![13]);
        assert_eq!(matched(&r, "Od January do March"), vec!["January", "March"]);
        assert!(hits(&r, "v Friday")[0].message.contains("pátek"));
    }

    #[test]
    fn gated_on_nothing_but_the_language() {
        // Known defect of the reference: gated on a diacritic anywhere in the file.
        assert_eq!(
            starts(&EnglishDayMonth::new(), "Deadline: Friday"),
            vec![10]
        );
    }

    #[test]
    fn whole_words_case_sensitive() {
        let r = EnglishDayMonth::new();
        assert!(hits(&r, "may march").is_empty());
        assert!(hits(&r, "Mondays Marchů MayDay").is_empty());
        assert!(hits(&r, "MONDAY").is_empty());
        assert_eq!(starts(&r, "(May)"), vec![1]);
    }
}
