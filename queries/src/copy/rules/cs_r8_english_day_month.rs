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
//! with a diacritic, anywhere in the file. Ours gates on the view instead (a paragraph, a
//! heading, a JSON string): it fires only where the text is tagged Czech *and* the view
//! reads as Czech (`copy::language`) — some Czech evidence and no more English, by stop
//! words and letters with a diacritic, so `Schůzka v Monday` and `Sejdeme se v Monday`
//! fire alike. The span's language alone is not evidence enough:
//! the reviewed lockfile of the real bilingual repository tags untranslated English
//! strings of its Czech locale as Czech (`"Monday morning you open a fresh agent…"`), and
//! a finding there is no typographic error. An English string in a file that also holds
//! Czech no longer fires; a string with no word of either language (`Deadline: Friday`)
//! does not either.

use super::{Builtin, Declaration, Hit, Hits, Matcher, Scans, Severity};
use crate::copy::view::View;

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

/// For each capital `A`…`Z`, the names (bit `i` for `NAMES[i]`) that begin with it.
const BY_INITIAL: [u32; 26] = {
    let mut table = [0u32; 26];
    let mut i = 0;
    while i < NAMES.len() {
        table[(NAMES[i].0.as_bytes()[0] - b'A') as usize] |= 1 << i;
        i += 1;
    }
    table
};

/// Matches the names as whole words, like the reference's `\b(?:Monday|…)\b`: a name is
/// looked for wherever an ASCII capital is followed by a lowercase ASCII letter, as every
/// name begins, and a match with a word character (`\w`, as regular expressions define
/// it) on either side is dropped. Every name has its only capital first, so no match
/// hides another. (A regular expression took half as long again as a multi-literal
/// searcher on the Czech bench. The searcher, as fast as this scan on the bench's views,
/// ran its automaton a byte at a time on the short views of a real tree, 3% of a cold
/// run; capitals are found sixteen bytes at a time, and the cold run is 2% cheaper.)
pub const DECLARATION: Declaration = Declaration {
    id: "cs-R8-english-day-month",
    severity: Severity::Error,
    languages: &["cs"],
    summary: "An English day or month name in Czech text.",
    source: include_str!("cs_r8_english_day_month.rs"),
    bad: &["Uvidíme se v Monday.", "Uzávěrka: 15. March"],
    good: &[
        "Sejdeme se v pondělí.",
        "Mayday a Marching band nejsou měsíce.",
    ],
    fixable: false,
};

pub fn rule() -> Builtin<EnglishDayMonth> {
    Builtin::new(&DECLARATION, EnglishDayMonth)
}

#[derive(Debug)]
pub struct EnglishDayMonth;

impl Matcher for EnglishDayMonth {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        self.check_in(&Scans::new(view), out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        let text = &scans.view().text;
        // The names first: the gate reads every word of the view, and is asked only of a
        // view that holds one. Held here until then, as `out` may already have handed
        // earlier ones on.
        let mut found = Vec::new();
        let bytes = text.as_bytes();
        let word = |c: Option<char>| c.is_some_and(regex_syntax::is_word_character);
        capitalised(bytes, |at| {
            let mut names = BY_INITIAL[usize::from(bytes[at] - b'A')];
            let (en, czech) = loop {
                if names == 0 {
                    return;
                }
                let (en, czech) = NAMES[names.trailing_zeros() as usize];
                // The second letter first, before a call compares the rest: this rule went
                // from 97 to 88 M instructions on the cold 10k run.
                let name = en.as_bytes();
                if bytes.get(at + 1) == Some(&name[1]) && bytes[at..].starts_with(name) {
                    break (en, czech);
                }
                names &= names - 1;
            };
            let end = at + en.len();
            if word(text[..at].chars().next_back()) || word(text[end..].chars().next()) {
                return;
            }
            found.push(Hit {
                range: at..end,
                message: format!("English name “{en}” in Czech text: use “{czech}”"),
                fix: None,
                anchor: None,
            });
        });
        if !found.is_empty() && scans.reads_as_czech() {
            found.into_iter().for_each(|hit| out.push(hit));
        }
    }
}

/// Where an ASCII capital is followed by a lowercase ASCII letter, in order.
fn capitalised(bytes: &[u8], f: impl FnMut(usize)) {
    use crate::copy::bytescan::{NibbleSet, Test, pairs};
    static CAPITAL: NibbleSet = NibbleSet::range(b'A', b'Z');
    static SMALL: NibbleSet = NibbleSet::range(b'a', b'z');
    pairs(bytes, Test::inside(&CAPITAL), Test::inside(&SMALL), f);
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
            let text: String = picks.iter().map(|&i| PIECES[i]).chain([" č"]).collect();
            let names: Vec<&str> = NAMES.iter().map(|(en, _)| *en).collect();
            let regex = regex::Regex::new(&format!(r"\b(?:{})\b", names.join("|"))).unwrap();
            let expected: Vec<_> = regex.find_iter(&text).map(|m| m.range()).collect();
            let found: Vec<_> = hits(&rule(), &text).into_iter().map(|h| h.range).collect();
            prop_assert_eq!(found, expected);
        }
    }

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    /// The places are exactly a capital before a lowercase letter, for every pair of
    /// bytes, and every name begins with one.
    #[test]
    fn capitalised_places_are_every_capital_before_a_lowercase_letter() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                let mut found = false;
                capitalised(&[a, b], |_| found = true);
                let expected = a.is_ascii_uppercase() && b.is_ascii_lowercase();
                assert_eq!(found, expected, "{a:#x} {b:#x}");
            }
        }
        for (en, _) in NAMES {
            let mut found = Vec::new();
            capitalised(en.as_bytes(), |at| found.push(at));
            assert_eq!(found, vec![0], "{en}");
        }
    }

    #[test]
    fn reports_at_the_word_with_the_czech_name() {
        let r = rule();
        assert_eq!(starts(&r, "Sejdeme se v Monday, ne dřív."), vec![13]);
        assert_eq!(
            matched(&r, "Od January do March, řekl"),
            vec!["January", "March"]
        );
        assert!(hits(&r, "v Friday, řekl")[0].message.contains("pátek"));
    }

    #[test]
    fn gated_on_the_view_reading_as_czech() {
        // Known defect of the reference: gated on a diacritic anywhere in the file.
        let r = rule();
        assert!(hits(&r, "Monday morning you open a fresh agent").is_empty());
        assert_eq!(starts(&r, "Uzávěrka: Friday"), vec!["Uzávěrka: ".len()]);
        // Czech by its words, without a diacritic.
        assert_eq!(
            starts(&r, "Sejdeme se v Monday"),
            vec!["Sejdeme se v ".len()]
        );
        assert!(hits(&r, "Deadline: Friday").is_empty());
    }

    #[test]
    fn whole_words_case_sensitive() {
        let r = rule();
        assert!(hits(&r, "may march č").is_empty());
        assert!(hits(&r, "Mondays Marchů MayDay").is_empty());
        assert!(hits(&r, "MONDAY č").is_empty());
        assert_eq!(starts(&r, "(May) č"), vec![1]);
    }
}
