//! Human output: each file's errors and findings, a finding drawn on its source line with
//! a caret, then the summary.

use super::super::session::Audit;
use super::super::workspace::Workspace;
use super::json::AuditReport;
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use lockgraph_queries::copy::engine::Finding;
use lockgraph_queries::copy::rules::Severity;
use lockgraph_queries::text::LineIndex;
use std::io::{IsTerminal, Write};

pub(super) fn print_human(ws: &Workspace, summary: &AuditReport, audit: &Audit) {
    let renderer = if std::io::stdout().is_terminal() {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = std::io::stdout().lock();
    for audited in audit.files() {
        let (path, report) = (&audited.path, &audited.report);
        if let Some(e) = &report.error {
            let at = e
                .line_col
                .map(|lc| format!(":{}:{}", lc.line, lc.column))
                .unwrap_or_default();
            writeln!(out, "error: {path}{at}: {}", e.message)
                .unwrap_or_else(|e| crate::output::failed(&e));
        }
        if report.findings.is_empty() {
            continue;
        }
        if !report.state.has_usable_spans() {
            writeln!(
                out,
                "note: {path}: no fresh lockfile entry; its findings use provisional \
                 structural spans (segment it: copy-audit segment {path})"
            )
            .unwrap_or_else(|e| crate::output::failed(&e));
        }
        // Only files with findings are read again, and only for human output.
        let text = ws.read_text(path).unwrap_or_default();
        let index = LineIndex::new(&text);
        for f in report.findings.iter() {
            writeln!(
                out,
                "{}",
                render_finding(&renderer, path, &text, &index, &f)
            )
            .unwrap_or_else(|e| crate::output::failed(&e));
        }
    }
    writeln!(out, "{}", summary_text(summary)).unwrap_or_else(|e| crate::output::failed(&e));
}

fn render_finding(
    renderer: &Renderer,
    path: &str,
    text: &str,
    index: &LineIndex,
    f: &Finding,
) -> String {
    let level = match f.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let line = index.line_range(text, f.line).unwrap_or(0..0);
    let offset = f.offset.clamp(line.start, line.end);
    let shown = window(text, line.clone(), offset);
    let source = &text[shown.clone()];
    let at = offset - shown.start;
    let width = source[at..].chars().next().map_or(0, char::len_utf8);
    let mut group = level.primary_title(&*f.message).id(&*f.rule_id).element(
        Snippet::source(source)
            .line_start(f.line as usize)
            .path(path)
            .annotation(AnnotationKind::Primary.span(at..at + width)),
    );
    if let Some(fix) = &f.fix {
        group =
            group.element(Level::HELP.message(format!("fix: replace with {:?}", fix.replacement)));
    }
    let rendered = renderer.render(&[group]);
    if shown.start == line.start {
        return rendered;
    }
    // The header's column is the renderer's own count of characters before the finding,
    // which it took from the window's start: put the line's back. The header comes
    // before the source line, so its text is the first occurrence.
    let column = |from: usize| text[from..offset].chars().count() + 1;
    rendered.replacen(
        &format!("{path}:{}:{}", f.line, column(shown.start)),
        &format!("{path}:{}:{}", f.line, column(line.start)),
        1,
    )
}

/// Characters of the line kept on each side of a finding: more than a terminal shows, so
/// the renderer cuts the line (with `...`) where it would have cut the whole line.
const WINDOW_CHARS: usize = 200;

/// The part of `line` (byte range of `text`) handed to the renderer for a finding at byte
/// `at`. The renderer measures the whole source it is given, so a long line given whole
/// made printing quadratic: 3 million findings on one 20 MB line never finished.
fn window(text: &str, line: std::ops::Range<usize>, at: usize) -> std::ops::Range<usize> {
    let before = text[line.start..at]
        .char_indices()
        .rev()
        .nth(WINDOW_CHARS - 1)
        .map_or(line.start, |(i, _)| line.start + i);
    let after = text[at..line.end]
        .char_indices()
        .nth(WINDOW_CHARS)
        .map_or(line.end, |(i, _)| at + i);
    before..after
}

fn summary_text(audit: &AuditReport) -> String {
    let mut s = format!(
        "{} files, {} findings: {} errors, {} warnings, {} info",
        audit.totals.total_files,
        audit.totals.total_findings,
        audit.totals.error_findings,
        audit.totals.warning_findings,
        audit.totals.info_findings
    );
    if audit.totals.error_findings > 0 || !audit.problems.file_errors.is_empty() {
        s.push_str("  ← BLOCKING");
    }
    for (rule, n) in &audit.problems.by_rule {
        s.push_str(&format!("\n  {n:>5}  {rule}"));
    }
    if !audit.problems.file_errors.is_empty() {
        s.push_str(&format!(
            "\n{} files could not be audited",
            audit.problems.file_errors.len()
        ));
    }
    if let Some(r) = &audit.problems.review_status {
        if r.is_clean() {
            s.push_str("\nreview: every file in scope has a fresh, reviewed entry");
        } else {
            s.push_str(&format!(
                "\nreview gate FAILED: {} unreviewed, {} unsegmented, {} stale",
                r.unreviewed.len(),
                r.unsegmented.len(),
                r.stale.len()
            ));
            if !r.unnamable.is_empty() {
                s.push_str(&format!(", {} not UTF-8", r.unnamable.len()));
            }
            for (what, list) in [
                ("unreviewed", &r.unreviewed),
                ("unsegmented", &r.unsegmented),
                ("stale", &r.stale),
                ("not UTF-8", &r.unnamable),
            ] {
                for p in list {
                    s.push_str(&format!("\n  {what:<11} {p}"));
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(text: &str, index: &LineIndex, offset: usize) -> Finding {
        let at = index.line_col(text, offset);
        Finding {
            rule_id: "cs-R1-nbsp-prep".into(),
            severity: Severity::Error,
            line: at.line,
            column: at.column,
            end: at,
            offset,
            snippet: "v".into(),
            message: "one-letter preposition".into(),
            fix: None,
        }
    }

    /// What the renderer draws from the window is what it drew from the whole line, at
    /// every position of a long line: its start, its middle, its end, and beside
    /// multi-byte letters and an astral character.
    #[test]
    fn a_window_renders_as_the_whole_line() {
        let text = format!(
            "# Nadpis\n\n{}\nkonec\n",
            "Jdu v lese, k poli – žluťoučký kůň 😀. ".repeat(100)
        );
        let index = LineIndex::new(&text);
        let renderer = Renderer::plain();
        let whole = |f: &Finding| {
            let line = index.line_range(&text, f.line).unwrap();
            let source = &text[line.clone()];
            let at = f.offset - line.start;
            let width = source[at..].chars().next().map_or(0, char::len_utf8);
            renderer.render(&[Level::ERROR
                .primary_title(&*f.message)
                .id(&*f.rule_id)
                .element(
                    Snippet::source(source)
                        .line_start(f.line as usize)
                        .path("a.md")
                        .annotation(AnnotationKind::Primary.span(at..at + width)),
                )])
        };
        let mut checked = 0;
        for (offset, _) in text.char_indices().step_by(5) {
            let f = finding(&text, &index, offset);
            if f.line != 3 {
                continue;
            }
            assert_eq!(
                render_finding(&renderer, "a.md", &text, &index, &f),
                whole(&f),
                "at byte {offset}"
            );
            checked += 1;
        }
        assert!(checked > 700, "{checked}");
    }
}
