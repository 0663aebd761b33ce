//! Bare URLs (`https://…`, `www.…`), which pulldown-cmark does not know: found in a
//! finished draft and replaced by a placeholder. Both the walker and the subset reader
//! finish their drafts with it.

use super::super::draft::Edit;
use super::super::{Draft, OBJECT};
use memchr::memmem::Finder;
use std::sync::LazyLock;

/// Replaces bare URLs with a placeholder.
pub(super) fn bare_urls(draft: Draft) -> Draft {
    let text = draft.text();
    let b = text.as_bytes();
    // Most paragraphs hold neither `://` nor `www.`. Two searchers built once say so
    // faster than one pass for the first bytes of both: each tests a pair of its bytes
    // (`:` and `/`, `w` and `.`) a block at a time, where the pass stopped at every `w`
    // of English prose (the English extract bench: 499 → 418 µs).
    static SCHEME: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("://"));
    static WWW: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("www."));
    if SCHEME.find(b).is_none() && WWW.find(b).is_none() {
        return draft;
    }
    const PREFIXES: [&str; 4] = ["https://", "http://", "ftp://", "www."];
    // Where a prefix starts: found from the rarer `://` and `www.` (testing each prefix
    // at every byte was a twentieth of a cold audit, and at every `h`, `f` and `w` still a
    // sixtieth).
    let mut starts: Vec<(usize, usize)> = SCHEME
        .find_iter(b)
        .filter_map(|colon| {
            PREFIXES[..3].iter().find_map(|p| {
                let start = colon.checked_sub(p.len() - 3)?;
                b[start..]
                    .starts_with(p.as_bytes())
                    .then_some((start, p.len()))
            })
        })
        .chain(WWW.find_iter(b).map(|w| (w, 4)))
        .collect();
    if starts.is_empty() {
        return draft;
    }
    starts.sort_unstable();
    let mut edits = Vec::new();
    let mut done = 0;
    for (i, prefix) in starts {
        // Only ASCII bytes start a prefix, so `i` is on a character boundary.
        if i < done || (i > 0 && text[..i].chars().next_back().is_some_and(is_word_char)) {
            continue;
        }
        if let Some(end) = url_end(text, i, prefix) {
            edits.push(Edit {
                range: i..end,
                with: Some(OBJECT),
            });
            done = end;
        }
    }
    draft.apply(&edits)
}

pub(super) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '/' | '.' | '@' | '-')
}

/// End of a URL starting at `start` (GFM rules: up to a blank or `<`, without trailing
/// punctuation or an unbalanced closing parenthesis); `None` when nothing follows the
/// prefix.
pub(super) fn url_end(text: &str, start: usize, prefix: usize) -> Option<usize> {
    let rest = &text[start..];
    let mut end = rest
        .find(|c: char| c.is_whitespace() || matches!(c, '<' | '\u{FFFC}' | '\u{2028}'))
        .unwrap_or(rest.len());
    loop {
        let url = &rest[..end];
        match url.chars().next_back() {
            Some('?' | '!' | '.' | ',' | ':' | '*' | '_' | '~' | '\'' | '"' | ';') => end -= 1,
            Some(')') if url.matches(')').count() > url.matches('(').count() => end -= 1,
            _ => break,
        }
    }
    // Trailing punctuation can reach back into the prefix itself (`www.` alone).
    let host = rest.get(prefix..end)?.chars().next();
    host.is_some_and(|c| c.is_alphanumeric())
        .then_some(start + end)
}
