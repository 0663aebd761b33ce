//! Small text helpers shared by the rules.
//!
//! Rules scan bytes wherever the characters they look for are ASCII (an ASCII byte never
//! occurs inside a multi-byte UTF-8 sequence, so a byte match is always a character match
//! on a character boundary) and step to characters only around a candidate.

use std::ops::Range;

/// No-break space: what the no-break rules ask for, and already correct where it is.
pub(crate) const NBSP: char = '\u{A0}';
/// What an extractor puts where the source has a non-prose token (inline code, a URL).
pub(crate) const OBJECT: char = '\u{FFFC}';
/// A Markdown hard line break: a line ends here, but it is not a breakable space.
pub(crate) const HARD_BREAK: char = '\u{2028}';

/// `char::is_alphabetic` with the Latin ranges answered without the Unicode tables. Czech
/// and English prose is almost all ASCII and Latin-1/Extended-A letters, and the rules ask
/// this for nearly every character; the general lookup was the rules' top profile entry.
#[inline]
pub(crate) fn is_letter(c: char) -> bool {
    match c {
        'a'..='z' | 'A'..='Z' => true,
        '\0'..='\u{7f}' => false,
        '\u{aa}' | '\u{b5}' | '\u{ba}' | '\u{c0}'..='\u{d6}' | '\u{d8}'..='\u{f6}' => true,
        '\u{f8}'..='\u{24f}' => true,
        '\u{80}'..='\u{f7}' => false,
        _ => c.is_alphabetic(),
    }
}

/// `char::is_alphanumeric`, fast on the same ranges as [`is_letter`].
#[inline]
pub(crate) fn is_alnum(c: char) -> bool {
    match c {
        '0'..='9' => true,
        '\u{b2}' | '\u{b3}' | '\u{b9}' | '\u{bc}'..='\u{be}' => true,
        _ if (c as u32) < 0x250 => is_letter(c),
        _ => c.is_alphanumeric(),
    }
}

pub(crate) fn prev_char(text: &str, at: usize) -> Option<char> {
    text[..at].chars().next_back()
}

pub(crate) fn next_char(text: &str, at: usize) -> Option<char> {
    text[at..].chars().next()
}

/// A Czech letter with a diacritic: evidence that text is Czech (English prose has none,
/// and the other languages seen in the field rarely use `ěřůň`-style letters in a way
/// that matters to these rules).
pub(crate) fn is_czech_diacritic(c: char) -> bool {
    matches!(
        c,
        'á' | 'č'
            | 'ď'
            | 'é'
            | 'ě'
            | 'í'
            | 'ň'
            | 'ó'
            | 'ř'
            | 'š'
            | 'ť'
            | 'ú'
            | 'ů'
            | 'ý'
            | 'ž'
            | 'Á'
            | 'Č'
            | 'Ď'
            | 'É'
            | 'Ě'
            | 'Í'
            | 'Ň'
            | 'Ó'
            | 'Ř'
            | 'Š'
            | 'Ť'
            | 'Ú'
            | 'Ů'
            | 'Ý'
            | 'Ž'
    )
}

pub(crate) fn has_czech_diacritic(text: &str) -> bool {
    !text.is_ascii() && text.chars().any(is_czech_diacritic)
}

/// Whether `c` ends a line in the source: a soft break (`\n`) or a hard break.
pub(crate) fn is_line_break(c: char) -> bool {
    c == '\n' || c == HARD_BREAK
}

/// The lines of `text` (split at `\n` and hard breaks) with their byte offsets.
pub(crate) fn lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let base = text.as_ptr() as usize;
    text.split(is_line_break)
        .map(move |line| (line.as_ptr() as usize - base, line))
}

/// Length in bytes of the run of ASCII digits starting at `at`.
pub(crate) fn digits_after(bytes: &[u8], at: usize) -> usize {
    bytes[at.min(bytes.len())..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// Length in bytes of the run of ASCII digits ending right before `at`.
pub(crate) fn digits_before(bytes: &[u8], at: usize) -> usize {
    bytes[..at]
        .iter()
        .rev()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// Whether the view range can be copied into a replacement: every byte of it is a
/// verbatim copy of its source, so writing the view text back does not turn an escape, a
/// line break or an opaque token into something else.
pub(crate) fn copyable(view: &crate::copy::view::View, range: Range<usize>) -> bool {
    view.is_verbatim(range.clone()) && !view.text[range].contains(OBJECT)
}

#[cfg(test)]
pub(crate) mod testing {
    //! What the rule tests share: run a rule on an example text, look at positions, apply
    //! fixes.

    use super::super::{Hit, Hits, Rule, apply_edits, example_view};

    pub fn hits(rule: &dyn Rule, text: &str) -> Vec<Hit> {
        let view = example_view(text);
        let mut out = Hits::default();
        rule.check(&view, &mut out);
        out.into_vec()
    }

    /// Reported positions (`range.start`) in view bytes.
    pub fn starts(rule: &dyn Rule, text: &str) -> Vec<usize> {
        hits(rule, text).iter().map(|h| h.range.start).collect()
    }

    /// The text of every reported range.
    pub fn matched(rule: &dyn Rule, text: &str) -> Vec<String> {
        let view = example_view(text);
        let mut out = Hits::default();
        rule.check(&view, &mut out);
        out.into_vec()
            .iter()
            .map(|h| view.text[h.range.clone()].to_owned())
            .collect()
    }

    /// The view text after applying every fix of `rule`.
    pub fn fixed(rule: &dyn Rule, text: &str) -> String {
        let view = example_view(text);
        let mut out = Hits::default();
        rule.check(&view, &mut out);
        let edits = out.into_vec().into_iter().filter_map(|h| h.fix).collect();
        apply_edits(&view.text, edits)
    }

    /// Every example of the rule behaves as its meta says; a removed or broken rule fails.
    pub fn examples_hold(rule: &dyn Rule) {
        let meta = rule.meta();
        assert!(!meta.bad.is_empty() && !meta.good.is_empty(), "{}", meta.id);
        for bad in &meta.bad {
            assert!(!hits(rule, bad).is_empty(), "{} silent on {bad:?}", meta.id);
        }
        for good in &meta.good {
            assert_eq!(hits(rule, good), vec![], "{} fired on {good:?}", meta.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_split_at_soft_and_hard_breaks() {
        let got: Vec<_> = lines("a\nbc\u{2028}d").collect();
        assert_eq!(got, vec![(0, "a"), (2, "bc"), (7, "d")]);
    }

    #[test]
    fn fast_classifiers_agree_with_std_on_every_char() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert_eq!(is_letter(c), c.is_alphabetic(), "{c:?}");
            assert_eq!(is_alnum(c), c.is_alphanumeric(), "{c:?}");
        }
    }

    #[test]
    fn diacritics() {
        assert!(has_czech_diacritic("Žluťoučký"));
        assert!(!has_czech_diacritic("naïve über"));
        assert!(!has_czech_diacritic("plain"));
    }
}
