//! ČSN 01 6910 writes a numeric date with a space after each full stop: `21. 6. 2013`,
//! not `21.6.2013`. The day and the month are ordinals, and an ordinal is followed by a
//! space as any word is. The fix writes the date with no-break spaces (U+00A0), so that
//! it is also never broken across a line, which the standard recommends.
//!
//! A date is `D.M.YYYY` with a day of 1–31 and a month of 1–12 (one or two digits,
//! leading zeros allowed) where at least one of the two gaps has no space; a gap may hold
//! one space or no-break space. It must stand alone: no letter, digit or full stop glued
//! before it, and no letter, digit or further `.digit` after it, so versions
//! (`v1.2.2013`, `1.2.2013.4`) and numbers with more parts stay silent. Dates without a
//! year (`21.6.`) are not matched: they are indistinguishable from section numbers.
//! Reported at the first digit of the day.

use super::scan::{NBSP, copyable, next_char, prev_char};
use super::{Builtin, Declaration, Edit, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;
use std::ops::Range;

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R9-date-spacing",
    severity: Severity::Warning,
    languages: &["cs"],
    summary: "A date without spaces (21.6.2013); write 21. 6. 2013.",
    source: include_str!("cs_r9_date_spacing.rs"),
    bad: &["Narodil se 21.6.2013 v Brně.", "Termín: 1. 2.2024"],
    good: &[
        "Narodil se 21. 6. 2013 v Brně.",
        "Verze v1.2.2013, ne 32.1.2020 ani 1.13.2020.",
    ],
    fixable: true,
};

pub fn rule() -> Builtin<DateSpacing> {
    Builtin::new(&DECLARATION, DateSpacing)
}

#[derive(Debug)]
pub struct DateSpacing;

impl Matcher for DateSpacing {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        let bytes = text.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_digit() || (i > 0 && bytes[i - 1].is_ascii_digit()) {
                i += 1;
                continue;
            }
            let Some(date) = date_at(text, i) else {
                i += 1;
                continue;
            };
            let fix = copyable(view, date.range.clone()).then(|| Edit {
                range: date.range.clone(),
                replacement: format!(
                    "{}.{NBSP}{}.{NBSP}{}",
                    &text[date.day], &text[date.month], &text[date.year]
                ),
            });
            i = date.range.end;
            out.push(Hit {
                range: date.range,
                message: "date without spaces: write a space after the day and the month \
                          (21. 6. 2013)"
                    .into(),
                fix,
                anchor: None,
            });
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::DIGIT
    }
}

struct Date {
    range: Range<usize>,
    day: Range<usize>,
    month: Range<usize>,
    year: Range<usize>,
}

/// The unspaced date starting at `start` (the first digit of a digit run), if any.
fn date_at(text: &str, start: usize) -> Option<Date> {
    let bytes = text.as_bytes();
    if prev_char(text, start).is_some_and(|c| super::scan::is_alnum(c) || c == '.') {
        return None;
    }
    let number = |at: usize, max_len: usize| -> Option<Range<usize>> {
        let len = bytes[at..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count();
        (1..=max_len).contains(&len).then_some(at..at + len)
    };
    // After a full stop: the position past an optional single space, and whether there was
    // one.
    let gap = |at: usize| -> (usize, bool) {
        match next_char(text, at) {
            Some(c @ (' ' | NBSP)) => (at + c.len_utf8(), true),
            _ => (at, false),
        }
    };
    let day = number(start, 2)?;
    (bytes.get(day.end) == Some(&b'.')).then_some(())?;
    let (at, spaced_day) = gap(day.end + 1);
    let month = number(at, 2)?;
    (bytes.get(month.end) == Some(&b'.')).then_some(())?;
    let (at, spaced_month) = gap(month.end + 1);
    let year = number(at, 4).filter(|y| y.len() == 4)?;
    if spaced_day && spaced_month {
        return None;
    }
    let value = |r: &Range<usize>| text[r.clone()].parse::<u32>().unwrap_or(0);
    if !(1..=31).contains(&value(&day)) || !(1..=12).contains(&value(&month)) {
        return None;
    }
    let end = year.end;
    if next_char(text, end).is_some_and(super::scan::is_alnum) {
        return None;
    }
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some(Date {
        range: start..end,
        day,
        month,
        year,
    })
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
    fn reports_at_the_day_and_fixes_with_no_break_spaces() {
        let r = rule();
        assert_eq!(starts(&r, "Dne 21.6.2013 jsme"), vec![4]);
        assert_eq!(matched(&r, "Dne 21.6.2013 jsme"), vec!["21.6.2013"]);
        assert_eq!(
            fixed(&r, "Dne 21.6.2013 jsme"),
            "Dne 21.\u{A0}6.\u{A0}2013 jsme"
        );
        assert_eq!(fixed(&r, "(01.06.2013)"), "(01.\u{A0}06.\u{A0}2013)");
    }

    #[test]
    fn half_spaced_dates_fire_and_spaced_ones_do_not() {
        let r = rule();
        assert_eq!(matched(&r, "1. 2.2024"), vec!["1. 2.2024"]);
        assert_eq!(matched(&r, "1.2. 2024."), vec!["1.2. 2024"]);
        assert!(hits(&r, "1. 2. 2024").is_empty());
        assert!(hits(&r, "1.\u{A0}2.\u{A0}2024").is_empty());
    }

    #[test]
    fn impossible_values_and_non_dates_are_silent() {
        let r = rule();
        for text in [
            "32.1.2020",
            "1.13.2020",
            "0.1.2020",
            "v1.2.2013",
            "1.1.2.2013",
            "1.2.2013.4",
            "1.2.20134",
            "1.2.201",
            "21.6.",
            "1.2.2013a",
            "123.1.2013",
        ] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
    }
}
