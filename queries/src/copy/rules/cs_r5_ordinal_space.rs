//! A Czech ordinal number is a number with a full stop, and the word after it is a
//! separate word: `1. dubna`, `3. kapitola`. `1.dubna` glues them into one token.
//!
//! One or more digits, a full stop, and immediately a letter fire, reported at the first
//! digit. The reference implementation fired on anything of that shape, including file
//! names and versions (`agenda-v2.json`, `v1.2.3`). Ours first looks at the whole
//! whitespace-delimited token (leading opening brackets and quotes and trailing sentence
//! punctuation trimmed) and stays silent when the token is not prose:
//!
//! - it contains `/ \ _ @ : = # ~ | < >` or a code span — a path, URL, e-mail address,
//!   identifier or markup (`src/1.x`, `http://1.cz`, `a_1.b`);
//! - a letter stands right before the digits — an identifier or version (`v2.json`,
//!   `agenda-v2.json`, `node1.local`);
//! - it has a second full stop — a version, a host name or a file name with several
//!   suffixes (`1.2.3`, `1.dubna.2024.md`);
//! - the letters after the full stop are a known file extension or top-level domain
//!   (`2.json`, `2024.md`, `1.pdf`, `4.cz`).
//!
//! `2.a` still fires: in Czech prose it is a missing space (`2. a`), or a class name that
//! ČSN 01 6910 also writes spaced (`2. A`).
//!
//! There is no fix: a date wants a no-break space after the full stop, an ordinal before
//! a noun an ordinary one, and which one is meant is the author's call.

use super::scan::{OBJECT, prev_char};
use super::{Builtin, Declaration, Hit, Hits, Matcher, Severity, Triggers};
use crate::copy::view::View;
use std::ops::Range;

/// File extensions and top-level domains: what follows `N.` in a file or host name.
const SUFFIXES: &[&str] = &[
    "json", "js", "mjs", "cjs", "ts", "tsx", "jsx", "md", "mdx", "yaml", "yml", "toml", "txt",
    "html", "htm", "css", "scss", "png", "jpg", "jpeg", "gif", "svg", "webp", "pdf", "csv", "xml",
    "rs", "py", "go", "sh", "lock", "zip", "gz", "tar", "mp3", "mp4", "wav", "mov", "doc", "docx",
    "xls", "xlsx", "ppt", "pptx", "odt", "ods", "ics", "log", "ini", "cfg", "cz", "sk", "com",
    "org", "net", "io", "eu", "dev", "app",
];

pub const DECLARATION: Declaration = Declaration {
    id: "cs-R5-ordinal-space",
    severity: Severity::Error,
    languages: &["cs"],
    summary: "No space after an ordinal number (1.dubna); write 1. dubna.",
    source: include_str!("cs_r5_ordinal_space.rs"),
    bad: &["Sejdeme se 1.dubna.", "Viz 3.kapitola."],
    good: &[
        "Sejdeme se 1. dubna.",
        "Program je v souboru agenda-v2.json.",
        "Stáhněte verzi v1.2.3 nebo 1.2.3.",
        "Otevřete src/1.x a 2024.md.",
    ],
    fixable: false,
};

pub fn rule() -> Builtin<OrdinalSpace> {
    Builtin::new(&DECLARATION, OrdinalSpace)
}

#[derive(Debug)]
pub struct OrdinalSpace;

impl Matcher for OrdinalSpace {
    fn check(&self, view: &View, out: &mut Hits<'_>) {
        let text = &view.text;
        let bytes = text.as_bytes();
        // The token of the last candidate: a token with many candidates is measured once.
        let mut token: Option<(Range<usize>, bool)> = None;
        let mut i = 0;
        while i < bytes.len() {
            if !bytes[i].is_ascii_digit() {
                i += 1;
                continue;
            }
            let start = i;
            while i < bytes.len() && bytes[i].is_ascii_digit() {
                i += 1;
            }
            let dot = i;
            if bytes.get(dot) != Some(&b'.') {
                continue;
            }
            let Some(letter) = text[dot + 1..]
                .chars()
                .next()
                .filter(|c| super::scan::is_letter(*c))
            else {
                continue;
            };
            if prev_char(text, start).is_some_and(super::scan::is_letter) {
                continue;
            }
            let prose = match &token {
                Some((range, prose)) if range.contains(&start) => *prose,
                _ => {
                    let range = token_around(text, start);
                    let prose = is_prose_token(&text[range.clone()]);
                    token = Some((range, prose));
                    prose
                }
            };
            if prose {
                out.push(Hit {
                    range: start..dot + 1 + letter.len_utf8(),
                    message: "no space after the ordinal number: write a space after the full \
                              stop (1. dubna)"
                        .into(),
                    fix: None,
                    anchor: None,
                });
            }
        }
    }

    fn triggers(&self) -> Triggers {
        Triggers::DIGIT
    }
}

/// The whitespace-delimited token holding byte `at`.
fn token_around(text: &str, at: usize) -> Range<usize> {
    let start = text[..at]
        .char_indices()
        .rev()
        .find(|(_, c)| c.is_whitespace())
        .map_or(0, |(i, c)| i + c.len_utf8());
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| c.is_whitespace())
        .map_or(text.len(), |(i, _)| at + i);
    start..end
}

/// Whether a token with a `N.letter` candidate is prose rather than a file name, version,
/// path, URL or identifier (see the module doc).
fn is_prose_token(token: &str) -> bool {
    let token = token
        .trim_start_matches(['(', '[', '{', '„', '"', '\'', '«', '»', '‚', '“'])
        .trim_end_matches([
            '.', ',', ';', ':', '!', '?', ')', ']', '}', '“', '”', '"', '\'', '«', '»', '‘', '’',
            '…',
        ]);
    if token.contains([
        '/', '\\', '_', '@', ':', '=', '#', '~', '|', '<', '>', OBJECT,
    ]) {
        return false;
    }
    if token.matches('.').count() > 1 {
        return false;
    }
    let Some((_, suffix)) = token.rsplit_once('.') else {
        return true;
    };
    !SUFFIXES.iter().any(|s| s.eq_ignore_ascii_case(suffix))
}

#[cfg(test)]
mod tests {
    use super::super::scan::testing::{examples_hold, hits, matched, starts};
    use super::*;

    #[test]
    fn examples() {
        examples_hold(&rule());
    }

    #[test]
    fn reports_at_the_first_digit() {
        let r = rule();
        assert_eq!(starts(&r, "Sejdeme se 21.dubna."), vec![11]);
        assert_eq!(matched(&r, "Sejdeme se 21.dubna."), vec!["21.d"]);
        assert_eq!(starts(&r, "(1.ledna)"), vec![1]);
        assert_eq!(starts(&r, "Je to 2.a nebo 3.b"), vec![6, 15]);
        assert_eq!(starts(&r, "Dne 1.Října"), vec![4]);
    }

    #[test]
    fn file_names_versions_paths_and_urls_are_silent() {
        // Known defect of the reference: these fired.
        let r = rule();
        for text in [
            "agenda-v2.json",
            "v1.2.3",
            "1.2.3",
            "1.2.x",
            "src/1.x",
            "C:\\data\\1.txt",
            "a_1.b",
            "http://1.cz",
            "jan@1.cz",
            "2.json",
            "2024.MD",
            "node1.local",
            "„agenda-v2.json“,",
            "1.dubna.2024.md",
            "x=1.y",
            "\u{FFFC}1.x",
        ] {
            assert!(hits(&r, text).is_empty(), "{text}");
        }
    }

    #[test]
    fn trailing_punctuation_does_not_count_as_a_second_dot() {
        let r = rule();
        assert_eq!(starts(&r, "Dne 1.ledna."), vec![4]);
        assert_eq!(starts(&r, "(1.ledna)."), vec![1]);
        assert_eq!(starts(&r, "Dne 1.ledna:"), vec![4]);
    }

    #[test]
    fn decimal_numbers_and_spaced_ordinals_are_silent() {
        let r = rule();
        assert!(hits(&r, "1,5 litru a 10.30 hodin").is_empty());
        assert!(hits(&r, "1. dubna").is_empty());
        assert!(hits(&r, "1.\u{A0}dubna").is_empty());
    }
}
