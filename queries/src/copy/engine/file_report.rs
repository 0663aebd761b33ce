//! A file's report: what it holds, and how it is assembled from the placed hits
//! through the span filter. The last step, the same for the queries and the one-shot
//! run.

use super::{FileError, FileInputs, Findings, Placed, RuleTable};
use crate::copy::lockfile::{Kind, SpanIndex};
use crate::copy::rules::Severity;
use crate::text::LineCol;
use std::ops::Range;

/// How a file's lockfile entry relates to its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EntryState {
    /// The hash matches: the spans apply.
    Fresh,
    /// The hash matches but the entry is unreviewed and the segmenter prompt has moved on
    /// (seed invariant 6). The spans still describe these bytes and are used.
    PromptOutdated,
    /// The file changed since it was segmented.
    Stale,
    /// No entry.
    Missing,
}

impl EntryState {
    pub fn has_usable_spans(self) -> bool {
        matches!(self, EntryState::Fresh | EntryState::PromptOutdated)
    }
}

/// Text a file's findings share: a dense file repeats a few rule ids, messages, snippets
/// and replacements millions of times, and each finding holds a pointer to one copy
/// (see [`Interner`]); a report holds an index instead (see [`Findings`]).
pub type Text = std::sync::Arc<str>;

/// One copy of each distinct [`Text`] among the findings being placed.
#[derive(Default)]
pub(super) struct Interner(std::collections::HashSet<Text>);

impl Interner {
    pub(super) fn get(&mut self, text: &str) -> Text {
        if let Some(t) = self.0.get(text) {
            return t.clone();
        }
        let t: Text = text.into();
        self.0.insert(t.clone());
        t
    }
}

/// A finding placed in the source file. Serialisable so the shell can cache it across
/// runs, keyed by everything it depends on.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Finding {
    pub rule_id: Text,
    pub severity: Severity,
    pub line: u32,
    pub column: u32,
    /// Where the matched text ends in the source (exclusive), for editors and SARIF-style
    /// ranges; the reference reports only the start.
    pub end: LineCol,
    /// Source byte offset of the reported position.
    pub offset: usize,
    /// The matched text as the rule saw it (escapes decoded, markup left out), trimmed:
    /// the reference's `snippet`. Cut to [`SNIPPET_MAX`](super::SNIPPET_MAX) characters.
    pub snippet: Text,
    pub message: Text,
    pub fix: Option<SourceFix>,
}

/// A fix in source bytes, with the line:column of both ends (end exclusive) so reports
/// need not read the file again.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SourceFix {
    pub range: Range<usize>,
    pub replacement: Text,
    pub start: LineCol,
    pub end: LineCol,
    /// The range's length in UTF-16 code units: the reference's `fix.length`.
    pub length: u32,
}

/// The audit of one file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileReport {
    pub state: EntryState,
    pub findings: Findings,
    pub error: Option<FileError>,
}

/// A file's report around its admitted findings (from `findings`, given the filter): its
/// entry state, or the error that stopped it; findings in source order, duplicates
/// dropped.
pub(super) fn assemble(
    i: &impl FileInputs,
    findings: impl FnOnce(&dyn Fn(&Placed) -> bool) -> Findings,
) -> FileReport {
    let state = i.entry_state();
    let failed = |e: &FileError| FileReport {
        state,
        findings: Findings::default(),
        error: Some(e.clone()),
    };
    if let Err(e) = i.views() {
        return failed(e);
    }
    let spans = match i.span_index() {
        Ok(s) => s.as_ref(),
        Err(e) => return failed(e),
    };
    let table = &i.setup().rules;
    let filter = Filter {
        spans,
        default_language: &i.setup().default_language,
        unknown_language_default: i.setup().unknown_language_default,
        table,
    };
    let mut findings = findings(&|p: &Placed| {
        let meta = table.set.rules()[p.rule].meta();
        filter.admits(&meta.id, &meta.languages, p.matched_at)
    });
    findings.sort_and_dedup();
    FileReport {
        state,
        findings,
        error: None,
    }
}

/// The seed's filter: code and data spans drop findings; language-scoped rules fire only
/// where the position's language is theirs; gaps take the config default language.
struct Filter<'a> {
    spans: Option<&'a SpanIndex>,
    default_language: &'a str,
    unknown_language_default: bool,
    table: &'a RuleTable,
}

impl Filter<'_> {
    fn admits(&self, rule_id: &str, languages: &[String], offset: usize) -> bool {
        let (kind, language) = self
            .spans
            .and_then(|s| s.at(offset))
            .unwrap_or((Kind::Prose, self.default_language));
        if matches!(kind, Kind::Code | Kind::Data) {
            return false;
        }
        if let Some(kinds) = self.table.kinds.get(rule_id)
            && !kinds.is_empty()
            && !kinds.contains(&kind)
        {
            return false;
        }
        if languages.is_empty() {
            return true;
        }
        let language = if language == "unknown" {
            if !self.unknown_language_default {
                return false;
            }
            self.default_language
        } else {
            language
        };
        languages.iter().any(|l| l == language)
    }
}
