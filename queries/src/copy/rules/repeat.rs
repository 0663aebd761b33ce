//! The scan behind both repeated-word rules (`cs-R13`, `en-R6`), made once per view for
//! both (see `shared`); each rule then applies its own minimum length and word list.
//!
//! A repeat can only happen across a gap (spaces, tabs, no-break spaces, a soft line
//! break). Most views go through the bit masks of [`masks`]. A view with a character the
//! masks do not classify goes through the character scan here, which jumps from gap to
//! gap with a byte table, measures the word after each gap and reuses it as the word
//! before the next, decoding characters only in non-ASCII words. The character scan is
//! the definition the masks are tested against.

use super::scan::{is_alnum, is_letter};
use super::{Edit, Hit, Hits, Matcher, Scans};
use crate::copy::view::View;
use std::ops::Range;
use std::sync::LazyLock;

/// Byte classes for the ASCII fast path; every byte ≥ 0x80 is [`DECODE`].
const OTHER: u8 = 0;
const LETTER: u8 = 1;
const DIGIT: u8 = 2;
const GAP: u8 = 3;
/// `0xC2` starts a no-break space (`C2 A0`), and other Latin-1 characters.
const MAYBE_GAP: u8 = 4;
const DECODE: u8 = 5;

static CLASS: [u8; 256] = {
    let mut t = [OTHER; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'a'..=b'z' | b'A'..=b'Z' => LETTER,
            b'0'..=b'9' => DIGIT,
            b' ' | b'\t' | b'\n' => GAP,
            0xC2 => MAYBE_GAP,
            0x80..=0xFF => DECODE,
            _ => OTHER,
        };
        b += 1;
    }
    t
};

/// A maximal run of letters and digits.
#[derive(Clone, Debug)]
struct Word {
    range: Range<usize>,
    /// Letters only (no digit): a word that may repeat.
    candidate: bool,
}

/// A word that repeats the word before it across a gap, before any rule's word list or
/// minimum length is applied.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Repeat {
    /// The first copy; the gap runs from its end to the second copy.
    pub first: Range<usize>,
    /// The second copy, where the rules report.
    pub second: Range<usize>,
}

/// Either language's repeated-word rule: words of at least `min_letters` characters,
/// other than the (lowercase) words in `allowed`.
#[derive(Debug)]
pub struct RepeatedWord {
    pub min_letters: usize,
    pub allowed: &'static [&'static str],
}

impl Matcher for RepeatedWord {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        self.check_in(&Scans::new(view), out);
    }

    fn check_in(&self, scans: &Scans<'_>, out: &mut Hits<'_>) {
        report_repeats(scans, self.min_letters, self.allowed, out);
    }
}

/// What both rules report: a hit for every repeat that words of at least `min_chars`
/// characters, other than the (lowercase) words in `allowed`, make, and that is a repeat
/// of separate words (see [`Repeat::joined`]).
///
/// The fix (removing the second copy and the gap before it) is offered only where the
/// two words and the gap are one verbatim stretch of the source: across markup
/// (`the **the**`) or an escape, removing the source range would take the markup with it.
fn report_repeats(scans: &Scans<'_>, min_chars: usize, allowed: &[&str], out: &mut Hits<'_>) {
    let view = scans.view();
    let text = &view.text;
    out.extend(
        scans
            .repeats()
            .iter()
            .filter(|r| r.admitted(text, min_chars, allowed) && !r.joined(text))
            .map(|r| {
                let mut hit = r.hit(text);
                let pair = r.first.start..r.second.end;
                if !view.is_verbatim(pair.clone())
                    || view.source_range(pair.clone()).len() != pair.len()
                {
                    hit.fix = None;
                }
                hit
            }),
    );
}

impl Repeat {
    /// Whether a rule that ignores words shorter than `min_chars` characters and the
    /// (lowercase) words in `allowed` reports this repeat.
    pub fn admitted(&self, text: &str, min_chars: usize, allowed: &[&str]) -> bool {
        let (first, second) = (&text[self.first.clone()], &text[self.second.clone()]);
        if first.chars().count() < min_chars || second.chars().count() < min_chars {
            return false;
        }
        let word: String = first.chars().flat_map(char::to_lowercase).collect();
        !allowed.contains(&word.as_str())
    }

    /// Whether either copy is part of a longer token, joined to the text around it by a
    /// hyphen or a slash: `sign-in in the`, `border border-[#ccc]`, `and/or or`. Those
    /// are not a word written twice, and removing "the duplicate" destroys the token
    /// (the reference's fix deleted a Tailwind class and a word this way).
    pub fn joined(&self, text: &str) -> bool {
        let joiner = |c: Option<char>| matches!(c, Some('-' | '/' | '\\' | '_' | '[' | ']'));
        joiner(text[..self.first.start].chars().next_back())
            || joiner(text[self.second.end..].chars().next())
    }

    /// The hit both rules report: at the second copy, fixed by removing it and the gap
    /// before it.
    pub fn hit(&self, text: &str) -> Hit {
        Hit {
            range: self.second.clone(),
            message: format!("repeated word “{}”", &text[self.second.clone()]),
            fix: Some(Edit {
                range: self.first.end..self.second.end,
                replacement: String::new(),
            }),
            anchor: None,
        }
    }
}

/// The gap at `at`, if one starts there: its end.
#[inline]
fn gap_end(bytes: &[u8], mut at: usize) -> usize {
    while at < bytes.len() {
        match CLASS[bytes[at] as usize] {
            GAP => at += 1,
            MAYBE_GAP if bytes.get(at + 1) == Some(&0xA0) => at += 2,
            _ => break,
        }
    }
    at
}

/// The word starting at `start` (possibly empty when no letter or digit is there).
#[inline]
fn word_from(text: &str, start: usize) -> Word {
    let bytes = text.as_bytes();
    let mut i = start;
    let mut letters_only = true;
    while i < bytes.len() {
        match CLASS[bytes[i] as usize] {
            LETTER => i += 1,
            DIGIT => {
                letters_only = false;
                i += 1;
            }
            MAYBE_GAP | DECODE => {
                let (c, len) = decode(text, i);
                if !is_alnum(c) {
                    break;
                }
                letters_only &= is_letter(c);
                i += len;
            }
            _ => break,
        }
    }
    Word {
        range: start..i,
        candidate: letters_only && i > start,
    }
}

/// The character starting at byte `i` and its length. Two-byte sequences (all of
/// Czech's accented letters) are assembled directly.
#[inline]
fn decode(text: &str, i: usize) -> (char, usize) {
    let bytes = text.as_bytes();
    if bytes[i] < 0xE0 {
        let cp = (u32::from(bytes[i] & 0x1F) << 6) | u32::from(bytes[i + 1] & 0x3F);
        (char::from_u32(cp).expect("valid UTF-8"), 2)
    } else {
        let c = text[i..].chars().next().expect("a char boundary");
        (c, c.len_utf8())
    }
}

/// The word ending at `end`.
fn word_before(text: &str, end: usize) -> Word {
    let mut start = end;
    for (at, c) in text[..end].char_indices().rev() {
        if !is_alnum(c) {
            break;
        }
        start = at;
    }
    word_from(text, start)
}

/// Calls `f` for every word of letters that repeats the word before it across a gap, in
/// text order.
pub(super) fn for_each_repeat(text: &str, mut f: impl FnMut(Repeat)) {
    if !masks::for_each_repeat(text, &mut f) {
        for_each_repeat_by_char(text, f);
    }
}

/// [`for_each_repeat`] a character at a time: for any text, where the masks cannot say
/// which characters are letters.
fn for_each_repeat_by_char(text: &str, mut f: impl FnMut(Repeat)) {
    let bytes = text.as_bytes();
    // The word that starts right after the previous gap, and where scanning resumes.
    let mut after: Option<Word> = None;
    let mut i = 0;
    while i < bytes.len() {
        let class = CLASS[bytes[i] as usize];
        let is_gap = class == GAP || (class == MAYBE_GAP && bytes.get(i + 1) == Some(&0xA0));
        if !is_gap {
            i += 1;
            continue;
        }
        let gap_start = i;
        let end = gap_end(bytes, i);
        i = end;
        if gap_start == 0 || end == bytes.len() {
            continue;
        }
        let next = word_from(text, end);
        if next.candidate {
            let first = match after.take() {
                Some(w) if w.range.end == gap_start => w,
                _ => word_before(text, gap_start),
            };
            if first.candidate && same_word(&text[first.range.clone()], &text[next.range.clone()]) {
                f(Repeat {
                    first: first.range,
                    second: next.range.clone(),
                });
            }
        }
        // Resume after the word: none of its bytes is a gap.
        i = next.range.end.max(i);
        after = Some(next);
    }
}

mod masks;

/// Whether two words are the same word: equal ignoring case, and not both capitalised
/// (`Bora Bora` is a name).
fn same_word(first: &str, second: &str) -> bool {
    // Almost every pair of neighbouring words gets here. Two ASCII words are compared
    // bytewise; anything else stops at the first differing letter and allocates nothing.
    let (a, b) = (first.as_bytes()[0], second.as_bytes()[0]);
    if a != b && a.is_ascii() && b.is_ascii() && !a.eq_ignore_ascii_case(&b) {
        return false;
    }
    let same = if first.is_ascii() && second.is_ascii() {
        first.eq_ignore_ascii_case(second)
    } else {
        same_letters(first, second)
    };
    let capital = |s: &str| s.chars().next().is_some_and(char::is_uppercase);
    same && !(capital(first) && capital(second))
}

/// Whether the lowercase forms of `first` and `second` are equal, character by character
/// while every character lowercases to one (as every Czech and English letter does), with
/// the Latin letters looked up in a table; the whole lowercase sequences otherwise.
fn same_letters(first: &str, second: &str) -> bool {
    let (mut a, mut b) = (first.chars(), second.chars());
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => match (lower_one(x), lower_one(y)) {
                (Some(p), Some(q)) if p == q => {}
                (Some(_), Some(_)) => return false,
                // `İ` lowercases to two characters: compare the sequences themselves.
                _ => break,
            },
            // What is left on one side lowercases to at least one more character.
            _ => return false,
        }
    }
    let lower = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<Vec<_>>();
    lower(first) == lower(second)
}

/// The lowercase of `c` if it is one character.
#[inline]
fn lower_one(c: char) -> Option<char> {
    /// The Latin letters' lowercase, from std's own mapping; `None` for `İ`, whose
    /// lowercase is two characters.
    static LATIN: LazyLock<Vec<Option<char>>> = LazyLock::new(|| {
        (0..LATIN_END)
            .map(|u| char::from_u32(u).and_then(single_lowercase))
            .collect()
    });
    match LATIN.get(c as usize) {
        Some(lower) => *lower,
        None => single_lowercase(c),
    }
}

/// Where [`lower_one`]'s table ends: Latin Extended-B.
const LATIN_END: u32 = 0x250;

fn single_lowercase(c: char) -> Option<char> {
    let mut lower = c.to_lowercase();
    match (lower.next(), lower.next()) {
        (Some(l), None) => Some(l),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The definition, written the slow and obvious way: every maximal run of letters and
    /// digits is a word; a candidate word repeats the candidate word before it when only
    /// gap characters stand between them.
    fn reference(text: &str, min_chars: usize, allowed: &[&str]) -> Vec<(usize, Range<usize>)> {
        let mut words = Vec::new();
        let mut start = None;
        for (at, c) in text.char_indices().chain([(text.len(), '.')]) {
            match (is_alnum(c) && at < text.len(), start) {
                (true, None) => start = Some(at),
                (false, Some(s)) => {
                    let w: &str = &text[s..at];
                    let candidate = w.chars().all(is_letter) && w.chars().count() >= min_chars;
                    words.push((s..at, candidate));
                    start = None;
                }
                _ => {}
            }
        }
        let gap = |c: char| matches!(c, ' ' | '\t' | '\n' | '\u{a0}');
        words
            .windows(2)
            .filter(|w| w[0].1 && w[1].1)
            .filter(|w| text[w[0].0.end..w[1].0.start].chars().all(gap))
            .filter(|w| {
                // Equal ignoring case, and not a name (both capitalised).
                let (a, b) = (&text[w[0].0.clone()], &text[w[1].0.clone()]);
                let lower = |s: &str| s.chars().flat_map(char::to_lowercase).collect::<String>();
                let capital = |s: &str| s.chars().next().is_some_and(char::is_uppercase);
                lower(a) == lower(b) && !(capital(a) && capital(b))
            })
            .filter(|w| {
                let lower: String = text[w[0].0.clone()]
                    .chars()
                    .flat_map(char::to_lowercase)
                    .collect();
                !allowed.contains(&lower.as_str())
            })
            .map(|w| (w[0].0.end, w[1].0.clone()))
            .collect()
    }

    fn fast(text: &str, min_chars: usize, allowed: &[&str]) -> Vec<(usize, Range<usize>)> {
        let mut out = Vec::new();
        for_each_repeat(text, |r| {
            if r.admitted(text, min_chars, allowed) {
                out.push((r.first.end, r.second));
            }
        });
        out
    }

    const PIECES: &[&str] = &[
        "the", "The", "THE", "a", "A", "se", "že", "Že", "ŽE", "x2", "10", " ", "  ", "\t", "\n",
        "\u{a0}", "\u{a0} ", ",", ".", "-", "«", "°", "Š", "š", "ǅ", "İ", "i̇", "ß", "\u{fffc}",
        "\u{2028}", "日本", "\r", "¿", "ɀ",
    ];

    proptest! {
        #[test]
        fn agrees_with_the_definition(
            picks in proptest::collection::vec(0..PIECES.len(), 0..40),
            min_chars in 1usize..3,
        ) {
            let text: String = picks.iter().map(|&i| PIECES[i]).collect();
            let allowed = ["se"];
            prop_assert_eq!(fast(&text, min_chars, &allowed), reference(&text, min_chars, &allowed));
        }
    }

    /// Pieces of text whose every character the masks classify.
    const CLASSIFIED: &[&str] = &[
        "the", "The", "a", "A", "se", "že", "Že", "ŽE", "čas", "ČAS", "x2", "10", " ", "  ", "\t",
        "\n", "\u{a0}", "\u{a0} ", ",", ".", "-", "–", "„", "“", "…", "\u{2028}", "×", "÷", "ß",
        "İ", "ǅ", "ǆ", "ȿ", "\r", "\u{fffc}", "ÿ", "Ÿ", "ſ", "s",
        // Just outside the ranges the classes are compared against.
        "@", "[", "`", "{", "/", ":", "À",
    ];

    proptest! {
        #[test]
        fn masks_agree_with_the_definition(
            picks in proptest::collection::vec(0..CLASSIFIED.len(), 0..200),
            min_chars in 1usize..3,
        ) {
            let text: String = picks.iter().map(|&i| CLASSIFIED[i]).collect();
            let mut on_masks = Vec::new();
            prop_assert!(masks::for_each_repeat(&text, &mut |r| on_masks.push(r)));
            let mut by_char = Vec::new();
            for_each_repeat_by_char(&text, |r| by_char.push(r));
            prop_assert_eq!(&on_masks, &by_char);
            let allowed = ["se"];
            prop_assert_eq!(fast(&text, min_chars, &allowed), reference(&text, min_chars, &allowed));
        }
    }

    proptest! {
        /// The SIMD classes (SSE2, and AVX2 where the processor has it) are the
        /// byte-at-a-time classes, on any text.
        #[cfg(target_arch = "x86_64")]
        #[test]
        fn simd_classes_are_the_byte_classes(
            picks in proptest::collection::vec(0..CLASSIFIED.len() + PIECES.len(), 0..300),
        ) {
            let text: String = picks
                .iter()
                .map(|&i| CLASSIFIED.get(i).unwrap_or_else(|| &PIECES[i - CLASSIFIED.len()]))
                .copied()
                .collect();
            let words = text.len().div_ceil(64);
            let run = |f: masks::Classify| {
                let (mut w, mut d, mut g) = (vec![0; words], vec![0; words], vec![0; words]);
                let known = f(text.as_bytes(), &mut w, &mut d, &mut g);
                (known, known.then_some((w, d, g)))
            };
            prop_assert_eq!(run(masks::blocks::sse2), run(masks::classify_by_byte));
            if std::arch::is_x86_feature_detected!("avx2") {
                let avx2 = |bytes: &[u8], w: &mut [u64], d: &mut [u64], g: &mut [u64]| {
                    // SAFETY: the processor has AVX2.
                    unsafe { masks::blocks::avx2(bytes, w, d, g) }
                };
                prop_assert_eq!(run(avx2), run(masks::classify_by_byte));
            }
        }
    }

    #[test]
    fn unclassified_characters_leave_the_masks() {
        for text in [
            "«the the»",
            "20° the the",
            "日本 the the",
            "i̇ the the",
            "€ the the",
            "\u{ffbc} the the",
        ] {
            assert!(!masks::for_each_repeat(text, &mut |_| ()), "{text}");
            assert_eq!(fast(text, 1, &[]).len(), 1, "{text}");
        }
    }

    /// The Latin table is std's lowercase wherever that is one character.
    /// Why the mask walk passes over two words of which only one starts with an ASCII
    /// letter: of the characters the masks take for letters (first byte `C3`–`C8`), only
    /// `İ` lowercases to something starting with an ASCII letter, and what follows that
    /// letter, a combining dot (first byte `CC`), sends the view to the character scan.
    #[test]
    fn no_classified_letter_lowercases_to_an_ascii_start() {
        for c in '\u{c0}'..='\u{23f}' {
            let lower: Vec<char> = c.to_lowercase().collect();
            if c == 'İ' {
                assert_eq!(lower, ['i', '\u{307}']);
                assert_eq!('\u{307}'.to_string().as_bytes()[0], 0xCC);
            } else {
                assert!(!lower[0].is_ascii(), "{c:?} lowercases to {lower:?}");
            }
        }
    }

    /// What the mask walk's length test rests on: every letter the masks take (ASCII and
    /// the two-byte Latin letters) lowercases to one letter of as many bytes, or to
    /// characters the masks leave to the character scan.
    #[test]
    fn classified_letters_lowercase_to_as_many_bytes() {
        let classified = |c: char| c.is_ascii_alphanumeric() || ('\u{c0}'..='\u{23f}').contains(&c);
        for c in ('\0'..='\u{23f}').filter(|c| classified(*c) && is_letter(*c)) {
            let lower: Vec<char> = c.to_lowercase().collect();
            if lower.iter().all(|l| classified(*l)) {
                assert_eq!(lower.len(), 1, "{c:?}");
                assert_eq!(lower[0].len_utf8(), c.len_utf8(), "{c:?}");
            }
        }
    }

    #[test]
    fn the_latin_lowercase_table_is_std() {
        for c in (0..LATIN_END + 16).filter_map(char::from_u32) {
            let std: Vec<char> = c.to_lowercase().collect();
            match lower_one(c) {
                Some(l) => assert_eq!(std, [l], "{c:?}"),
                None => assert!(std.len() > 1, "{c:?}"),
            }
        }
    }

    #[test]
    fn words_across_every_kind_of_gap() {
        let text = "the the\tthe\nthe\u{a0}the \u{a0} the,the the";
        let starts: Vec<usize> = fast(text, 1, &[])
            .into_iter()
            .map(|(_, w)| w.start)
            .collect();
        assert_eq!(starts, vec![4, 8, 12, 17, 24, 32]);
    }
}
