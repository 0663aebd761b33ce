//! Findings as diagnostics, and the diagnostics of files that are not documents.

use super::*;
use crate::lsp::{Column, line_starts, position};
use lockgraph_queries::copy::engine::EntryState;

/// A report's findings as diagnostics on `text`, the bytes they were found in.
pub(super) fn to_diagnostics(
    report: &FileReport,
    text: &str,
    encoding: Encoding,
) -> Vec<Diagnostic> {
    let starts = line_starts(text);
    let segmentation = segmentation(report.state);
    report
        .findings
        .iter()
        .map(|f| to_diagnostic(&f, text, &starts, encoding, segmentation))
        .collect()
}

/// Where a finding stands, as the client counts positions.
pub(super) fn finding_range(
    f: &Finding,
    text: &str,
    starts: &[usize],
    encoding: Encoding,
) -> Range {
    let start = position(text, starts, f.line, f.column, Column::Utf16, encoding);
    let end = position(
        text,
        starts,
        f.end.line,
        f.end.column,
        Column::Utf16,
        encoding,
    );
    Range::new(start, end.max(start))
}

pub(super) fn to_diagnostic(
    f: &Finding,
    text: &str,
    starts: &[usize],
    encoding: Encoding,
    segmentation: &str,
) -> Diagnostic {
    Diagnostic {
        range: finding_range(f, text, starts, encoding),
        severity: Some(match f.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(f.rule_id.to_string())),
        code_description: rule_link(&f.rule_id).map(|href| CodeDescription { href }),
        source: Some("copy-audit".to_owned()),
        message: f.message.to_string(),
        related_information: None,
        tags: None,
        data: Some(serde_json::json!({ "segmentation": segmentation })),
    }
}

/// The rule's section of `docs/rules.md`, for a rule documented there (the built-in
/// ones; a config's own rules have no section).
pub(super) fn rule_link(id: &str) -> Option<Uri> {
    // Parsed once per rule, not once per diagnostic (a dense file has thousands).
    static LINKS: std::sync::OnceLock<BTreeMap<String, Uri>> = std::sync::OnceLock::new();
    let links = LINKS.get_or_init(|| {
        include_str!("../../../docs/rules.md")
            .lines()
            .filter_map(|l| l.strip_prefix("## `")?.strip_suffix('`'))
            .filter_map(|id| {
                let href = format!(
                    "{}/blob/main/docs/rules.md#{}",
                    env!("CARGO_PKG_REPOSITORY"),
                    id.to_ascii_lowercase()
                );
                Some((id.to_owned(), Uri::from_str(&href).ok()?))
            })
            .collect()
    });
    links.get(id).cloned()
}

/// A diagnostic on a file that is not a document: a config or lockfile that did not load.
pub(super) fn file_diagnostic(
    line: Option<u64>,
    column: Option<u64>,
    message: String,
) -> Diagnostic {
    let at = |n: Option<u64>| n.map_or(0, |n| n.saturating_sub(1) as u32);
    let start = Position::new(at(line), at(column));
    Diagnostic {
        range: Range::new(start, start),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("copy-audit".to_owned()),
        message,
        ..Diagnostic::default()
    }
}

/// The diagnostic on a document's first line that says what its entry lacks: none, or a
/// stale one (the findings' spans are provisional: "segment" writes one), or a fresh one
/// not yet reviewed ("mark reviewed"). Its code is `copy-audit/…`, not a rule's.
pub(super) fn segmentation_state(state: EntryState, entry: Option<&Entry>) -> Option<Diagnostic> {
    let (code, message) = match state {
        EntryState::Missing => (
            "copy-audit/unsegmented",
            "no lockfile entry: the findings use provisional spans; segment the file",
        ),
        EntryState::Stale => (
            "copy-audit/stale",
            "the lockfile entry is stale (the file changed since it was segmented): the \
             findings use provisional spans; segment the file again",
        ),
        EntryState::Fresh if entry.is_some_and(|e| e.reviewed_by.is_none()) => (
            "copy-audit/unreviewed",
            "the lockfile entry is not reviewed yet",
        ),
        _ => return None,
    };
    Some(Diagnostic {
        range: Range::new(Position::new(0, 0), Position::new(0, 0)),
        severity: Some(DiagnosticSeverity::INFORMATION),
        code: Some(NumberOrString::String(code.to_owned())),
        source: Some("copy-audit".to_owned()),
        message: message.to_owned(),
        ..Diagnostic::default()
    })
}
