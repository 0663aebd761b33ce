//! Hits placed in the source: line and column, snippet, fix in source bytes, and the
//! lines the ignore marker silences. Computed before span filtering: nothing here reads
//! the spans.

use super::{FileInputs, Finding, RawHit, SourceFix};
use crate::text::LineIndex;
use std::borrow::Cow;

/// A hit placed in the source: everything about a finding that depends on the file's
/// bytes, computed before span filtering so that a lockfile edit never re-places hits and
/// identical bytes stop here (the result compares equal and `report` is reused).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Placed {
    /// Index of the rule in the rule table.
    pub rule: usize,
    /// Source offset of the matched text's start: where span filtering looks.
    pub matched_at: usize,
    pub finding: Finding,
}

/// [`placed`](super::placed)'s value from the `count` `hits`, computed without keeping it; the messages of
/// hits handed over owned move into the findings.
pub(super) fn place<'h>(
    i: &impl FileInputs,
    hits: impl Iterator<Item = Cow<'h, RawHit>>,
    count: usize,
) -> Vec<Placed> {
    // Most files have no hits: their lines need not be counted nor searched for the
    // ignore marker.
    if count == 0 {
        return Vec::new();
    }
    let Ok(views) = i.views() else {
        return Vec::new();
    };
    let text = i
        .source()
        .text()
        .expect("views succeeded, so the file is text");
    let index = i.line_index();
    let table = &i.setup().rules;
    let ignored = IgnoredLines::new(text, index, &i.setup().ignore_marker);
    // One cursor per kind of position: each rule's hits come in order, so thousands of
    // findings on one long line count its columns once, not once each.
    let (mut at_cursor, mut end_cursor) = (index.cursor(), index.cursor());
    let (mut fix_start, mut fix_end) = (index.cursor(), index.cursor());
    // Sized once: a file with 200k findings spent a fifth of its audit growing this.
    let mut out = Vec::with_capacity(count);
    for raw in hits {
        let view = &views[raw.view];
        let meta = table.set.rules()[raw.rule].meta();
        let matched_at = view.source_offset(raw.hit.range.start);
        let offset = raw.hit.anchor.unwrap_or(matched_at);
        let at = at_cursor.line_col(text, offset);
        if ignored.covers(at.line) {
            continue;
        }
        let matched_end = view.source_range(raw.hit.range.clone()).end.max(offset);
        let snippet = snippet(&view.text[raw.hit.range.clone()]);
        let fix_range = raw
            .hit
            .fix
            .as_ref()
            .map(|e| view.source_range(e.range.clone()));
        let rule = raw.rule;
        let (message, replacement) = match raw {
            Cow::Owned(raw) => (raw.hit.message, raw.hit.fix.map(|e| e.replacement)),
            Cow::Borrowed(raw) => (
                raw.hit.message.clone(),
                raw.hit.fix.as_ref().map(|e| e.replacement.clone()),
            ),
        };
        let fix = fix_range
            .zip(replacement)
            .filter(|(_, replacement)| crate::copy::fix::fits(i.format(), replacement))
            .map(|(range, replacement)| SourceFix {
                start: fix_start.line_col(text, range.start),
                end: fix_end.line_col(text, range.end),
                length: crate::text::count_units(&text.as_bytes()[range.clone()]) as u32,
                range,
                replacement,
            });
        out.push(Placed {
            rule,
            matched_at,
            finding: Finding {
                rule_id: meta.id.clone(),
                severity: meta.severity,
                line: at.line,
                column: at.column,
                end: end_cursor.line_col(text, matched_end),
                offset,
                snippet,
                message,
                fix,
            },
        });
    }
    out
}

/// Lines holding the ignore marker; a finding on such a line or the line after is dropped.
struct IgnoredLines(Vec<u32>);

impl IgnoredLines {
    fn new(text: &str, index: &LineIndex, marker: &str) -> Self {
        if marker.is_empty() {
            return IgnoredLines(Vec::new());
        }
        let mut lines: Vec<u32> = memchr::memmem::find_iter(text.as_bytes(), marker.as_bytes())
            .map(|at| index.line_col(text, at).line)
            .collect();
        lines.dedup();
        IgnoredLines(lines)
    }

    fn covers(&self, line: u32) -> bool {
        self.0.binary_search(&line).is_ok()
            || (line > 1 && self.0.binary_search(&(line - 1)).is_ok())
    }
}

/// Longest snippet, in characters, before it is cut with `…`.
pub const SNIPPET_MAX: usize = 80;

/// The matched text, trimmed, cut to [`SNIPPET_MAX`] characters.
fn snippet(matched: &str) -> String {
    let matched = matched.trim();
    match matched.char_indices().nth(SNIPPET_MAX) {
        None => matched.to_owned(),
        Some((cut, _)) => format!("{}…", matched[..cut].trim_end()),
    }
}
