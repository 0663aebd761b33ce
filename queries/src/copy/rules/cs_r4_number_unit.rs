//! A number and its unit are two words in Czech: `50 Kč`, `99 %`, `5 MB`, `20 °C`. Glued
//! together (`50Kč`) they read as one token; separated by an ordinary space they can be
//! broken across a line. The fix inserts a no-break space (U+00A0) between them.
//!
//! A digit fires when a unit follows it immediately — `Kč CZK EUR USD € $ % MB GB TB KB kB
//! Mbit Gbit MBit GBit mm cm km kg ml hPa °C` — and the unit is not followed by a letter or
//! a digit, so `5mmHg` and `3kg2` stay silent. The end of the text counts as a boundary: a
//! price at the very end of a string (`…stojí 50Kč`) fires, which the reference
//! implementation missed, as it missed `5MBit`. Reported at the digit right before the
//! unit.
//!
//! ČSN 01 6910 writes `5%` without a space when it stands for an adjective
//! (`5% roztok`, "a five-percent solution"); telling the two apart needs grammar, so the
//! rule, like the reference implementation, fires on both.

use super::scan::{NBSP, next_char};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;

/// Longest first where one unit is a prefix of another (`MBit` before `MB`).
const UNITS: &[&str] = &[
    "Mbit", "Gbit", "MBit", "GBit", "CZK", "EUR", "USD", "hPa", "°C", "Kč", "MB", "GB", "TB", "KB",
    "kB", "mm", "cm", "km", "kg", "ml", "€", "$", "%",
];

/// Every byte a unit of [`UNITS`] starts with (`°` is C2 B0, `€` is E2 82 AC).
const UNIT_START: &[u8] = b"MGCEUhKkTmc%$\xC2\xE2";

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R4-number-unit",
    severity: Severity::Error,
    languages: &["cs"],
    summary: "A number glued to its unit (50Kč, 99%); separate them with a no-break space.",
    source: include_str!("cs_r4_number_unit.rs"),
    bad: &[
        "Vstupné je 50Kč.",
        "Souhlasí 99% účastníků.",
        "Připojení 5MBit stačí.",
        "Venku je 20°C",
        "Stojí 50Kč",
    ],
    good: &[
        "Vstupné je 50\u{A0}Kč.",
        "Tlak 5mmHg a úloha 3kg2.",
        "Venku je 20 °C",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<NumberUnit> {
    Builtin::new(&DECLARATION, NumberUnit)
}

#[derive(Debug)]
pub struct NumberUnit;

impl Matcher for NumberUnit {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        let bytes = text.as_bytes();
        for (i, b) in bytes.iter().enumerate() {
            // Cheap prefilter: a digit followed by a byte no unit starts with (most often
            // another digit) needs no unit comparisons.
            if !b.is_ascii_digit() || !bytes.get(i + 1).is_some_and(|b| UNIT_START.contains(b)) {
                continue;
            }
            let after = i + 1;
            let rest = &text[after..];
            let Some(unit) = UNITS.iter().find(|u| {
                rest.starts_with(**u)
                    && !next_char(text, after + u.len()).is_some_and(super::scan::is_alnum)
            }) else {
                continue;
            };
            out.push(Hit {
                range: i..after + unit.len(),
                message: format!(
                    "number glued to the unit “{unit}”: separate them with a no-break space"
                ),
                fix: Some(Edit {
                    range: after..after,
                    replacement: NBSP.to_string(),
                }),
                anchor: None,
            });
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::DIGIT
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
    fn reports_at_the_digit_before_the_unit() {
        let r = rule();
        assert_eq!(starts(&r, "Vstupné je 150Kč."), vec![14]);
        assert_eq!(matched(&r, "Vstupné je 150Kč."), vec!["0Kč"]);
        assert_eq!(fixed(&r, "Vstupné je 150Kč."), "Vstupné je 150\u{A0}Kč.");
    }

    #[test]
    fn unit_at_the_end_of_the_view_fires() {
        // Known defect of the reference.
        let r = rule();
        assert_eq!(starts(&r, "Stojí 50Kč"), vec![8]);
        assert_eq!(starts(&r, "99%"), vec![1]);
    }

    #[test]
    fn longest_unit_wins() {
        // Known defect of the reference: `5MBit` was not a match.
        let r = rule();
        assert_eq!(matched(&r, "5MBit"), vec!["5MBit"]);
        assert_eq!(matched(&r, "5MB."), vec!["5MB"]);
        assert_eq!(matched(&r, "10Gbit/s"), vec!["0Gbit"]);
    }

    #[test]
    fn prefilter_covers_every_unit() {
        for unit in UNITS {
            assert!(UNIT_START.contains(&unit.as_bytes()[0]), "{unit}");
        }
    }

    #[test]
    fn every_listed_unit_fires() {
        let r = rule();
        for unit in UNITS {
            let text = format!("je 5{unit} teď");
            assert_eq!(starts(&r, &text), vec![3], "{unit}");
        }
    }

    #[test]
    fn unit_followed_by_a_letter_or_digit_is_no_unit() {
        let r = rule();
        assert!(hits(&r, "5mmHg").is_empty());
        assert!(hits(&r, "3kg2").is_empty());
        assert!(hits(&r, "4cmě").is_empty());
        assert!(hits(&r, "50 Kč").is_empty());
        assert!(hits(&r, "50\u{A0}Kč").is_empty());
        assert!(hits(&r, "MP3 a H2O").is_empty());
    }
}
