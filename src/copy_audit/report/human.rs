//! Human output: each file's errors and findings, a finding drawn on its source line with
//! a caret, then the summary.

use super::super::audit::Audit;
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
        for f in &report.findings {
            writeln!(out, "{}", render_finding(&renderer, path, &text, &index, f))
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
    let source = &text[line.clone()];
    let at = f.offset.clamp(line.start, line.end) - line.start;
    let width = source[at..].chars().next().map_or(0, char::len_utf8);
    let mut group = level
        .primary_title(f.message.clone())
        .id(f.rule_id.clone())
        .element(
            Snippet::source(source)
                .line_start(f.line as usize)
                .path(path)
                .annotation(AnnotationKind::Primary.span(at..at + width)),
        );
    if let Some(fix) = &f.fix {
        group =
            group.element(Level::HELP.message(format!("fix: replace with {:?}", fix.replacement)));
    }
    renderer.render(&[group])
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
