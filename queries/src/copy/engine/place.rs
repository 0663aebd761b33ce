//! Hits placed in the source: line and column, snippet, fix in source bytes, and the
//! lines the ignore marker silences. Computed before span filtering: nothing here reads
//! the spans.

use super::file_report::Interner;
use super::{FileInputs, Finding, RawHit, SourceFix, Text};
use crate::text::{ColumnCursor, LineIndex};

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

/// Places hits, one at a time, in one file: [`placed`](super::placed)'s value is each
/// hit placed, and the one-shot run places each part of the hits as it is found, keeping
/// only the admitted findings.
pub(super) struct Placer<'i> {
    format: crate::copy::extract::Format,
    views: &'i [crate::copy::view::View],
    text: &'i str,
    table: &'i super::RuleTable,
    ignored: IgnoredLines,
    // One cursor per kind of position: each rule's hits come in order, so thousands of
    // findings on one long line count its columns once, not once each.
    at_cursor: ColumnCursor<'i>,
    end_cursor: ColumnCursor<'i>,
    fix_start: ColumnCursor<'i>,
    fix_end: ColumnCursor<'i>,
    texts: Interner,
    rule_ids: Vec<Text>,
}

impl<'i> Placer<'i> {
    /// `None` for a file whose views failed: it has no hits.
    pub(super) fn new(i: &'i impl FileInputs) -> Option<Self> {
        let views = i.views().as_ref().ok()?;
        let text = i
            .source()
            .text()
            .expect("views succeeded, so the file is text");
        let index = i.line_index();
        let table = &i.setup().rules;
        Some(Placer {
            format: i.format(),
            views,
            text,
            table,
            ignored: IgnoredLines::new(text, index, &i.setup().ignore_marker),
            at_cursor: index.cursor(),
            end_cursor: index.cursor(),
            fix_start: index.cursor(),
            fix_end: index.cursor(),
            texts: Interner::default(),
            rule_ids: table
                .set
                .rules()
                .iter()
                .map(|r| r.meta().id.as_str().into())
                .collect(),
        })
    }

    /// The hit placed, or `None` where the ignore marker silences it.
    pub(super) fn place(&mut self, raw: &RawHit) -> Option<Placed> {
        let text = self.text;
        let view = &self.views[raw.view];
        let meta = self.table.set.rules()[raw.rule].meta();
        let matched_at = view.source_offset(raw.range.start);
        let offset = raw.anchor.unwrap_or(matched_at);
        let at = self.at_cursor.line_col(text, offset);
        if self.ignored.covers(at.line) {
            return None;
        }
        let matched_end = view.source_range(raw.range.clone()).end.max(offset);
        let snippet = snippet(&view.text[raw.range.clone()], &mut self.texts);
        let fix = raw
            .fix
            .as_ref()
            .filter(|(_, replacement)| crate::copy::fix::fits(self.format, replacement))
            .map(|(range, replacement)| {
                let range = view.source_range(range.clone());
                SourceFix {
                    start: self.fix_start.line_col(text, range.start),
                    end: self.fix_end.line_col(text, range.end),
                    length: crate::text::count_units(&text.as_bytes()[range.clone()]) as u32,
                    range,
                    replacement: replacement.clone(),
                }
            });
        Some(Placed {
            rule: raw.rule,
            matched_at,
            finding: Finding {
                rule_id: self.rule_ids[raw.rule].clone(),
                severity: meta.severity,
                line: at.line,
                column: at.column,
                end: self.end_cursor.line_col(text, matched_end),
                offset,
                snippet,
                message: raw.message.clone(),
                fix,
            },
        })
    }
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
