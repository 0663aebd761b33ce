//! Czech headings are written in sentence case: only the first word and proper names take
//! a capital (`Jak nastavit nový projekt`). Title Case (`Jak Nastavit Nový Projekt`) is an
//! English convention that leaks in through translation and templates.
//!
//! Only Markdown headings that hold a Czech letter with a diacritic are looked at (the
//! finding is reported at the heading's `#`). Code spans are dropped, and so is
//! everything up to and including the first colon, since a label such as `Krok 2:` or a
//! product name often precedes it. Of the remaining words (stripped of surrounding
//! punctuation) those longer than two characters are counted; the heading fires when there
//! are at least three, at least two start with a capital, and more than half do.
//!
//! Beyond the reference implementation, words written entirely in capitals (`API`,
//! `CLI`, `ČSN`) are not counted at all: they are acronyms, capitalised in any case, and
//! counting them flagged correct headings such as `Úvod do API a CLI nástrojů`. Words with
//! no letter (`2026`) are not counted either. There is no fix: which capitals are proper
//! names is not something a rule can know.

use super::scan::{OBJECT, has_czech_diacritic};
use super::{Builtin, Declaration, Hit, Hits, Matcher, Severity};
use crate::copy::view::{View, ViewRole};

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R7-sentence-case-heading",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "A Czech heading in Title Case; Czech headings use sentence case.",
    source: include_str!("cs_r7_sentence_case_heading.rs"),
    bad: &[
        "## Jak Nastavit Nový Projekt",
        "# Krok 1: Příprava Pracovního Prostředí",
    ],
    good: &[
        "## Jak nastavit nový projekt",
        "## Úvod do API a CLI nástrojů",
        "Jak Nastavit Nový Projekt",
        "## How To Set Up A Project",
    ],
    fixable: false,
};

pub fn rule() -> Builtin<SentenceCaseHeading> {
    Builtin::new(&DECLARATION, SentenceCaseHeading)
}

#[derive(Debug)]
pub struct SentenceCaseHeading;

impl Matcher for SentenceCaseHeading {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let ViewRole::Heading { marker, .. } = view.role else {
            return;
        };
        // Title Case needs two capitals; most headings, in sentence case, have one, and
        // counting them is cheaper than splitting the heading into words.
        let mut capitals = view.text.chars().filter(|c| c.is_uppercase());
        if capitals.nth(1).is_none() {
            return;
        }
        if !has_czech_diacritic(&view.text) || !is_title_case(&view.text) {
            return;
        }
        out.push(Hit {
            range: 0..view.text.len(),
            message: "Czech heading in Title Case: capitalise only the first word and proper \
                      names"
                .into(),
            fix: None,
            anchor: Some(marker as usize),
        });
    }
}

fn is_title_case(heading: &str) -> bool {
    let rest = heading.split_once(':').map_or(heading, |(_, rest)| rest);
    let (mut words, mut capitals) = (0, 0);
    for token in rest.split(char::is_whitespace) {
        if token.contains(OBJECT) {
            continue;
        }
        let word = token.trim_matches(|c: char| !super::scan::is_alnum(c));
        if word.chars().count() <= 2 || !word.chars().any(super::scan::is_letter) {
            continue;
        }
        let is_acronym = word.chars().filter(|c| super::scan::is_letter(*c)).count() >= 2
            && !word.chars().any(char::is_lowercase);
        if is_acronym {
            continue;
        }
        words += 1;
        if word.chars().next().is_some_and(char::is_uppercase) {
            capitals += 1;
        }
    }
    words >= 3 && capitals >= 2 && capitals * 2 > words
}

#[cfg(test)]
mod tests {
    use super::super::Rule;
    use super::super::example_view;
    use super::super::scan::testing::{examples_hold, hits};
    use super::*;
    use crate::copy::view::ViewBuilder;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn anchored_at_the_heading_marker() {
        let mut b = ViewBuilder::new(ViewRole::Heading {
            level: 2,
            marker: 140,
        });
        b.verbatim("Jak Nastavit Nový Projekt", 143);
        let view = b.finish();
        let mut out = Hits::default();
        rule().check(&view, &mut out);
        let out = out.into_vec();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].anchor, Some(140));
        assert_eq!(out[0].range.start, 0);
    }

    #[test]
    fn the_counting_thresholds() {
        let r = rule();
        // Two capitals of three long words: more than half.
        assert_eq!(hits(&r, "# Jak Funguje zámek").len(), 1);
        // Two of four: not more than half.
        assert!(hits(&r, "# Jak Funguje tento zámek").is_empty());
        // Only two long words.
        assert!(hits(&r, "# Nový Projekt").is_empty());
        // One capital.
        assert!(hits(&r, "# Jak nastavit zámek").is_empty());
        // Short words do not count either way.
        assert_eq!(hits(&r, "# Jak Se Má Nový Projekt").len(), 1);
    }

    #[test]
    fn colon_prefix_code_and_acronyms_are_dropped() {
        let r = rule();
        assert!(hits(&r, "# Krok Jedna Dva: nastavení projektu").is_empty());
        assert_eq!(hits(&r, "# Krok 1: Příprava Pracovního Prostředí").len(), 1);
        assert!(hits(&r, "# Spuštění \u{FFFC} \u{FFFC} Příkazu").is_empty());
        assert!(hits(&r, "# Úvod do API a CLI nástrojů").is_empty());
        assert!(hits(&r, "# ÚVOD DO PROJEKTU").is_empty());
        assert_eq!(hits(&r, "# „Nový“ Přístup (Beta)").len(), 1);
    }

    #[test]
    fn needs_a_heading_and_a_diacritic() {
        let r = rule();
        let mut out = Hits::default();
        r.check(&example_view("Jak Nastavit Nový Projekt"), &mut out);
        assert!(out.into_vec().is_empty());
        assert!(hits(&r, "# How To Set Up").is_empty());
    }
}
