//! Applying fixes to source text: pure, so `--fix`, the language server's "fix all" and
//! their property tests share it.

use crate::copy::engine::{FileReport, SourceFix};
use crate::copy::extract::Format;
use crate::copy::lockfile::Entry;
use crate::hash::ContentHash;

/// Whether `replacement` can be written into a file of `format` as it is. Fixes are
/// written raw into the source, and inside a JSON, YAML or script string (or MDX) some
/// characters are syntax: a `"` or `\` would break the file or change what it says. No
/// built-in rule's replacement contains one; a custom rule's may, and its fix is then not
/// offered (the finding stays, without a fix) rather than written wrong.
pub fn fits(format: Format, replacement: &str) -> bool {
    let control = replacement
        .chars()
        .any(|c| c.is_control() && !matches!(format, Format::Markdown | Format::Text));
    if control {
        return false;
    }
    let special: &[char] = match format {
        Format::Markdown | Format::Text => &[],
        Format::Mdx => &['{', '}', '<', '>'],
        Format::Json => &['"', '\\'],
        Format::Yaml => &['"', '\'', '\\', '#'],
        Format::Script => &['"', '\'', '`', '\\', '$', '{', '}', '<', '>'],
    };
    let yaml_mapping = format == Format::Yaml && replacement.contains(": ");
    !(replacement.contains(special) || yaml_mapping)
}

/// What [`apply`] made of a text.
#[derive(Debug, PartialEq, Eq)]
pub struct Applied {
    pub text: String,
    /// Fixes that changed the text (overlapping and no-op fixes are not counted).
    pub count: usize,
    /// Every applied fix kept line:column coordinates (one character for one character,
    /// no line breaks).
    pub keeps_coordinates: bool,
}

/// Applies non-overlapping fixes in source order.
pub fn apply(text: &str, mut fixes: Vec<&SourceFix>) -> Applied {
    fixes.sort_by_key(|f| (f.range.start, f.range.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let mut keeps = true;
    let mut count = 0;
    for fix in fixes {
        if fix.range.start < at || fix.range.end > text.len() {
            continue;
        }
        let old = &text[fix.range.clone()];
        if old == &*fix.replacement {
            continue;
        }
        keeps &= single_char_no_newline(old) && single_char_no_newline(&fix.replacement);
        out.push_str(&text[at..fix.range.start]);
        out.push_str(&fix.replacement);
        at = fix.range.end;
        count += 1;
    }
    out.push_str(&text[at..]);
    Applied {
        text: out,
        count,
        keeps_coordinates: keeps,
    }
}

fn single_char_no_newline(s: &str) -> bool {
    let mut chars = s.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if c != '\n' && c != '\r')
}

/// Fixes can overlap (two rules on one space); the later one is applied on the next pass.
/// Passes stop when nothing changes, so a second `--fix` has nothing left to do.
pub const MAX_PASSES: usize = 8;

/// What [`fix_passes`] made of a file.
#[derive(Debug, PartialEq, Eq)]
pub struct Fixed {
    pub text: String,
    /// Fixes applied over every pass.
    pub count: usize,
    /// The entry re-anchored to `text`, when every pass kept coordinates (`None` when the
    /// file had no entry, or a pass moved coordinates and left it stale).
    pub entry: Option<Entry>,
}

/// Every fix of one file, pass after pass, as `--fix` applies them: a pass takes the
/// fixes of the report of the text so far (`report`, given the text and its entry) while
/// that report's spans are usable (a fresh entry; any entry with `unsegmented`), and a
/// pass that kept every coordinate re-anchors the entry to its text, so the next pass
/// still reads the reviewed spans. It stops when a pass changes nothing, leads back to an
/// earlier text (rules undoing each other's fixes), or after [`MAX_PASSES`].
pub fn fix_passes(
    text: &str,
    entry: Option<Entry>,
    unsegmented: bool,
    mut report: impl FnMut(&str, Option<&Entry>) -> FileReport,
) -> Fixed {
    let mut out = Fixed {
        text: text.to_owned(),
        count: 0,
        entry: None,
    };
    let mut entry = entry;
    let mut seen = vec![ContentHash::of(text.as_bytes())];
    for _ in 0..MAX_PASSES {
        let now = report(&out.text, entry.as_ref());
        if !(now.state.has_usable_spans() || unsegmented) {
            break;
        }
        let fixes: Vec<SourceFix> = now.findings.iter().filter_map(|f| f.fix).collect();
        let applied = apply(&out.text, fixes.iter().collect());
        let hash = ContentHash::of(applied.text.as_bytes());
        if applied.text == out.text || seen.contains(&hash) {
            break;
        }
        seen.push(hash);
        let reanchor = applied.keeps_coordinates && now.state.has_usable_spans();
        match (&mut entry, reanchor) {
            (Some(e), true) => e.content_hash = hash.to_string(),
            // Its spans no longer say where the English is: later passes leave it.
            (Some(_), false) => out.entry = None,
            (None, _) => {}
        }
        out.text = applied.text;
        out.count += applied.count;
        if reanchor {
            out.entry.clone_from(&entry);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(range: std::ops::Range<usize>, replacement: &str) -> SourceFix {
        let at = crate::text::LineCol { line: 1, column: 1 };
        SourceFix {
            length: range.len() as u32,
            range,
            replacement: replacement.into(),
            start: at,
            end: at,
        }
    }

    #[test]
    fn applies_in_order_and_skips_overlaps() {
        let a = fix(1..2, "\u{a0}");
        let b = fix(1..3, "X");
        let c = fix(7..10, "…");
        let applied = apply("v domě...", vec![&c, &b, &a]);
        assert_eq!(applied.text, "v\u{a0}domě…");
        assert_eq!(
            applied.count, 2,
            "the overlapping fix waits for the next pass"
        );
        assert!(!applied.keeps_coordinates, "`...` → `…` shifts columns");
    }

    #[test]
    fn one_char_for_one_char_keeps_coordinates() {
        let a = fix(1..2, "\u{a0}");
        let applied = apply("v domě", vec![&a]);
        assert_eq!(
            (applied.text.as_str(), applied.keeps_coordinates),
            ("v\u{a0}domě", true)
        );
        let joined = fix(1..2, "\u{a0}");
        assert!(
            !apply("v\ndomě", vec![&joined]).keeps_coordinates,
            "joining lines moves columns"
        );
    }
}
