//! A hyphen where a dash belongs, in its two shapes: between words set off by spaces
//! (`Praha - Brno`), and between the numbers of a range (`23-26`). The Czech rule `cs-R6`
//! takes both; English has a rule for each (`en-R4`, `en-R5`). `cs-R6`'s documentation
//! gives the exclusions. The fix replaces the hyphen with `–`, one character for one.

use super::scan::{NBSP, digits_after, digits_before, is_letter, next_char, prev_char};
use super::{Edit, Hit, Hits, Matcher, Triggers};
use crate::copy::view::View;

/// A dash rule: `cs-R6` takes both shapes, `en-R4` the spaced hyphen and `en-R5` the
/// range, each with its own message.
#[derive(Debug)]
pub struct Dash {
    /// The message for a hyphen between words, if the rule takes that shape.
    pub spaced: Option<&'static str>,
    /// The message for a hyphen in a numeric range, if the rule takes that shape.
    pub range: Option<&'static str>,
}

impl Matcher for Dash {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        for h in memchr::memchr_iter(b'-', view.text.as_bytes()) {
            let message = match (self.spaced, self.range) {
                (Some(message), _) if is_spaced_dash(&view.text, h) => message,
                (_, Some(message)) if is_numeric_range(&view.text, h) => message,
                _ => continue,
            };
            out.push(en_dash_hit(h, message));
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::HYPHEN
    }
}

fn en_dash_hit(hyphen: usize, message: &str) -> Hit {
    Hit {
        range: hyphen..hyphen + 1,
        message: message.into(),
        fix: Some(Edit {
            range: hyphen..hyphen + 1,
            replacement: "–".into(),
        }),
        anchor: None,
    }
}

fn is_inline_space(c: char) -> bool {
    c == ' ' || c == '\t' || c == NBSP
}

/// Whether the hyphen at `h` stands between two words with space on both sides, on one
/// line: `letter [ \t]+ - [ \t]+ letter`.
fn is_spaced_dash(text: &str, h: usize) -> bool {
    let before = &text[..h];
    let left = before.trim_end_matches(is_inline_space);
    let after = &text[h + 1..];
    let right = after.trim_start_matches(is_inline_space);
    left.len() < before.len()
        && right.len() < after.len()
        && left.chars().next_back().is_some_and(is_letter)
        && right.chars().next().is_some_and(is_letter)
}

/// Whether the hyphen at `h` joins the two numbers of a range (see the module doc).
fn is_numeric_range(text: &str, h: usize) -> bool {
    let bytes = text.as_bytes();
    let left = digits_before(bytes, h);
    let right = digits_after(bytes, h + 1);
    if left == 0 || right == 0 {
        return false;
    }
    let (start, end) = (h - left, h + 1 + right);
    if bytes.get(end) == Some(&b'-') || (start > 0 && bytes[start - 1] == b'-') {
        return false;
    }
    if prev_char(text, start).is_some_and(|c| is_letter(c) || c == '_') {
        return false;
    }
    if left == 4 && right == 2 && bytes[h + 1] == b'0' {
        return false;
    }
    // `end` is a character boundary: the byte before it is an ASCII digit.
    next_char(text, end).is_none_or(|c| c != '_')
}
