//! Hits placed in the source: line and column, snippet, fix in source bytes, and the
//! lines the ignore marker silences. Computed before span filtering: nothing here reads
//! the spans.

use super::file_report::Interner;
use super::{FileInputs, Finding, RawHit, SourceFix, Text};
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

/// [`placed`](super::placed)'s value from the `count` `hits`, computed without keeping it:
/// each placed hit goes through `keep`, and what it returns is kept. The one-shot run
/// keeps only the admitted findings, so no placed hit is ever held beside them.
pub(super) fn place<'h, T>(
    i: &impl FileInputs,
    hits: impl Iterator<Item = Cow<'h, RawHit>>,
    count: usize,
    mut keep: impl FnMut(Placed) -> Option<T>,
) -> Vec<T> {
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
    let mut texts = Interner::default();
    let rule_ids: Vec<Text> = table
        .set
        .rules()
        .iter()
        .map(|r| r.meta().id.as_str().into())
        .collect();
    // Sized once: a file with 200k findings spent a fifth of its audit growing this. What
    // `keep` drops leaves pages never touched, so never resident.
    let mut out = Vec::with_capacity(count);
    for raw in hits {
        let view = &views[raw.view];
        let meta = table.set.rules()[raw.rule].meta();
        let matched_at = view.source_offset(raw.range.start);
        let offset = raw.anchor.unwrap_or(matched_at);
        let at = at_cursor.line_col(text, offset);
        if ignored.covers(at.line) {
            continue;
        }
        let matched_end = view.source_range(raw.range.clone()).end.max(offset);
        let snippet = snippet(&view.text[raw.range.clone()], &mut texts);
        let fix = raw
            .fix
            .as_ref()
            .filter(|(_, replacement)| crate::copy::fix::fits(i.format(), replacement))
            .map(|(range, replacement)| {
                let range = view.source_range(range.clone());
                SourceFix {
                    start: fix_start.line_col(text, range.start),
                    end: fix_end.line_col(text, range.end),
                    length: crate::text::count_units(&text.as_bytes()[range.clone()]) as u32,
                    range,
                    replacement: replacement.clone(),
                }
            });
        let placed = Placed {
            rule: raw.rule,
            matched_at,
            finding: Finding {
                rule_id: rule_ids[raw.rule].clone(),
                severity: meta.severity,
                line: at.line,
                column: at.column,
                end: end_cursor.line_col(text, matched_end),
                offset,
                snippet,
                message: raw.message.clone(),
                fix,
            },
        };
        out.extend(keep(placed));
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
fn snippet(matched: &str, texts: &mut Interner) -> Text {
    let matched = matched.trim();
    match matched.char_indices().nth(SNIPPET_MAX) {
        None => texts.get(matched),
        Some((cut, _)) => texts.get(&format!("{}…", matched[..cut].trim_end())),
    }
}
