//! Human output: each file's errors and findings, a finding drawn on its source line with
//! a caret, then the summary.

use super::super::session::{Audit, Audited};
use super::super::workspace::Workspace;
use super::json::AuditReport;
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use lockgraph_queries::copy::engine::Finding;
use lockgraph_queries::copy::rules::Severity;
use lockgraph_queries::text::LineIndex;
use rayon::prelude::*;
use std::io::{IsTerminal, Write};

/// Files rendered side by side before their text is written, in path order: each file
/// with findings is read again and drawn, which serially was 80% of a warm run on the
/// real 20k tree (docs/performance.md, "What each fast mechanism buys", output).
const WINDOW_FILES: usize = 512;

pub(super) fn write_human(
    out: &mut dyn Write,
    ws: &Workspace,
    summary: &AuditReport,
    audit: &Audit,
) -> std::io::Result<()> {
    let terminal = std::io::stdout().is_terminal();
    let renderer = if terminal {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut write = |window: &mut Vec<&Audited>| -> std::io::Result<()> {
        let rendered: Vec<Vec<u8>> = window
            .par_iter()
            .map(|audited| render_file(ws, &renderer, audited))
            .collect();
        window.clear();
        for text in &rendered {
            out.write_all(text)?;
        }
        // A reader at a terminal sees each window as it is drawn.
        if terminal { out.flush() } else { Ok(()) }
    };
    let mut window = Vec::with_capacity(WINDOW_FILES);
    audit
        .files()
        .try_for_each(|audited| {
            window.push(audited);
            match window.len() == WINDOW_FILES {
                true => write(&mut window),
                false => Ok(()),
            }
        })
        .and_then(|()| write(&mut window))
        .and_then(|()| writeln!(out, "{}", summary_text(summary)))
}

/// One file's part of the human output: its error, then its findings drawn on its lines.
fn render_file(ws: &Workspace, renderer: &Renderer, audited: &Audited) -> Vec<u8> {
    let (path, report) = (&audited.path, &audited.report);
    let mut out = Vec::new();
    if let Some(e) = &report.error {
        let at = e
            .line_col
            .map(|lc| format!(":{}:{}", lc.line, lc.column))
            .unwrap_or_default();
        writeln!(out, "error: {path}{at}: {}", e.message).expect("writing to memory");
    }
    if report.findings.is_empty() {
        return out;
    }
    if !report.state.has_usable_spans() {
        writeln!(
            out,
            "note: {path}: no fresh lockfile entry; its findings use provisional \
             structural spans (segment it: copy-audit segment {path})"
        )
        .expect("writing to memory");
    }
    // Only files with findings are read again, and only for human output; of the file,
    // only the lines with findings are taken as text.
    let bytes = crate::fsutil::read_regular(&ws.root.join(path)).unwrap_or_default();
    let index = LineIndex::of_bytes(&bytes);
    for f in report.findings.iter() {
        // A file changed since it was audited may no longer have the line, or the line
        // may no longer be text: the finding is drawn on an empty line.
        let (line, at) = index
            .line_range(&bytes, f.line)
            .and_then(|line| {
                let at = f.offset.clamp(line.start, line.end) - line.start;
                let text = std::str::from_utf8(&bytes[line]).ok()?;
                text.is_char_boundary(at).then_some((text, at))
            })
            .unwrap_or(("", 0));
        writeln!(out, "{}", render_finding(renderer, path, line, at, &f))
            .expect("writing to memory");
    }
    out
}

/// `f` drawn on `line`, its source line's text, where it is at byte `at`.
fn render_finding(renderer: &Renderer, path: &str, line: &str, at: usize, f: &Finding) -> String {
    let level = match f.severity {
        Severity::Error => Level::ERROR,
        Severity::Warning => Level::WARNING,
        Severity::Info => Level::INFO,
    };
    let shown = window(line, at);
    let source = &line[shown.clone()];
    let at_shown = at - shown.start;
    let width = source[at_shown..].chars().next().map_or(0, char::len_utf8);
    let mut group = level.primary_title(&*f.message).id(&*f.rule_id).element(
        Snippet::source(source)
            .line_start(f.line as usize)
            .path(path)
            .annotation(AnnotationKind::Primary.span(at_shown..at_shown + width)),
    );
    if let Some(fix) = &f.fix {
        group =
            group.element(Level::HELP.message(format!("fix: replace with {:?}", fix.replacement)));
    }
    let rendered = renderer.render(&[group]);
    if shown.start == 0 {
        return rendered;
    }
    // The header's column is the renderer's own count of characters before the finding,
    // which it took from the window's start: put the line's back. The header comes
    // before the source line, so its text is the first occurrence.
    let column = |from: usize| line[from..at].chars().count() + 1;
    rendered.replacen(
        &format!("{path}:{}:{}", f.line, column(shown.start)),
        &format!("{path}:{}:{}", f.line, column(0)),
        1,
    )
}

/// Characters of the line kept on each side of a finding: more than a terminal shows, so
/// the renderer cuts the line (with `...`) where it would have cut the whole line.
const WINDOW_CHARS: usize = 200;

/// The part of `line` handed to the renderer for a finding at byte `at`. The renderer
/// measures the whole source it is given, so a long line given whole made printing
/// quadratic: 3 million findings on one 20 MB line never finished.
fn window(line: &str, at: usize) -> std::ops::Range<usize> {
    let before = line[..at]
        .char_indices()
        .rev()
        .nth(WINDOW_CHARS - 1)
        .map_or(0, |(i, _)| i);
    let after = line[at..]
        .char_indices()
        .nth(WINDOW_CHARS)
        .map_or(line.len(), |(i, _)| at + i);
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
            let line = index.line_range(&text, f.line).unwrap();
            let at = f.offset - line.start;
            assert_eq!(
                render_finding(&renderer, "a.md", &text[line], at, &f),
                whole(&f),
                "at byte {offset}"
            );
            checked += 1;
        }
        assert!(checked > 700, "{checked}");
    }
}
