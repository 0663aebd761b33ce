//! The multiplication sign is `×`, not the letter `x`: in dimensions and products
//! (`3 × 4 m`, `1920 × 1080`) the letter reads as a letter and sits on the baseline, and
//! ČSN 01 6910 sets the sign with a space on each side. The fix writes ` × ` with
//! no-break spaces, so the product is never broken across a line.
//!
//! Fires on a number, `x` or `X`, and a number, with either no space or one space
//! (ordinary or no-break) on both sides of the letter (`3x4`, `3 x 4`), reported at the
//! letter. It stays silent on hexadecimal literals (`0x1F`: a lone `0` glued to the `x`)
//! and on identifiers (`v2x3`, `a_1x2`: a letter, underscore or full stop glued before the
//! first number, though an `x` before it is part of a chain such as `2x3x4`). `3x` alone
//! ("three times") needs no sign and does not fire.

use super::scan::{NBSP, digits_after, digits_before, next_char, prev_char};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R11-multiplication-sign",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "The letter x used as a multiplication sign; use “×”.",
    source: include_str!("cs_r11_multiplication_sign.rs"),
    bad: &["Místnost 3x4 m.", "Rozlišení 1920 x 1080 bodů."],
    good: &[
        "Místnost 3\u{A0}×\u{A0}4 m.",
        "Hodnota 0x1F a cvičení 3x týdně.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<MultiplicationSign> {
    Builtin::new(&DECLARATION, MultiplicationSign)
}

#[derive(Debug)]
pub struct MultiplicationSign;

impl Matcher for MultiplicationSign {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        let bytes = text.as_bytes();
        for x in memchr::memchr2_iter(b'x', b'X', bytes) {
            let (left_end, left_space) = match prev_char(text, x) {
                Some(c @ (' ' | NBSP)) => (x - c.len_utf8(), true),
                _ => (x, false),
            };
            let (right_start, right_space) = match next_char(text, x + 1) {
                Some(c @ (' ' | NBSP)) => (x + 1 + c.len_utf8(), true),
                _ => (x + 1, false),
            };
            if left_space != right_space {
                continue;
            }
            let left = digits_before(bytes, left_end);
            if left == 0 || digits_after(bytes, right_start) == 0 {
                continue;
            }
            let left_start = left_end - left;
            if !left_space && left == 1 && bytes[left_start] == b'0' {
                continue;
            }
            if prev_char(text, left_start).is_some_and(|c| {
                (super::scan::is_letter(c) && c != 'x' && c != 'X') || c == '_' || c == '.'
            }) {
                continue;
            }
            out.push(Hit {
                range: x..x + 1,
                message: "letter x used as a multiplication sign: use “×” (3 × 4)".into(),
                fix: Some(Edit {
                    range: left_end..right_start,
                    replacement: format!("{NBSP}×{NBSP}"),
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
    use super::super::scan::testing::{examples_hold, fixed, hits, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_letter_and_fixes_spacing_too() {
        let r = rule();
        assert_eq!(starts(&r, "Místnost 3x4 m."), vec![11]);
        assert_eq!(fixed(&r, "Místnost 3x4 m."), "Místnost 3\u{A0}×\u{A0}4 m.");
        assert_eq!(starts(&r, "1920 X 1080"), vec![5]);
        assert_eq!(fixed(&r, "1920 x 1080"), "1920\u{A0}×\u{A0}1080");
    }

    #[test]
    fn chains_fire_on_every_sign() {
        let r = rule();
        assert_eq!(starts(&r, "2x3x4"), vec![1, 3]);
        assert_eq!(fixed(&r, "2x3x4"), "2\u{A0}×\u{A0}3\u{A0}×\u{A0}4");
    }

    #[test]
    fn hex_identifiers_and_lone_factors_are_silent() {
        let r = rule();
        for text in [
            "0x1F",
            "0x10",
            "v2x3",
            "a_1x2",
            "1.2x3",
            "3x týdně",
            "3 x4",
            "x 4",
            "3 ×\u{A0}4",
        ] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
        assert_eq!(starts(&r, "0 x 1"), vec![2], "spaced zero is a product");
    }
}
