//! Rendering results: the JSON contract, human output with source lines and carets, and
//! GitHub workflow commands.

use super::audit::Audit;
use super::cli::OutputFormat;
use super::workspace::Workspace;
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use lockgraph_queries::copy::engine::Finding;
use lockgraph_queries::copy::rules::Severity;
use lockgraph_queries::text::LineIndex;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};

/// The JSON report, key for key the reference's contract.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditReport<'a> {
    pub total_files: usize,
    pub total_findings: usize,
    pub error_findings: usize,
    pub warning_findings: usize,
    pub info_findings: usize,
    pub by_rule: BTreeMap<&'a str, usize>,
    pub findings: Findings<'a>,
    /// Files that could not be audited (binary, invalid UTF-8, unparsable JSON/YAML).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_errors: Vec<JsonFileError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_status: Option<ReviewStatus>,
}

/// Every finding of an audit, in file order, made into [`JsonFinding`]s one at a time as
/// they are written: a report of a large tree can hold a million findings, and a vector of
/// them was a third of the peak memory of such a run.
pub struct Findings<'a>(&'a Audit);

impl std::fmt::Debug for Findings<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> Findings<'a> {
    pub fn iter(&self) -> impl Iterator<Item = JsonFinding<'a>> + 'a {
        self.0.files().flat_map(|audited| {
            audited
                .report
                .findings
                .iter()
                .map(|f| JsonFinding::new(&audited.path, f))
        })
    }
}

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFinding<'a> {
    pub rule_id: &'a str,
    pub severity: &'static str,
    pub file_path: &'a str,
    pub line: u32,
    pub column: u32,
    pub snippet: &'a str,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<JsonFix<'a>>,
}

impl<'a> JsonFinding<'a> {
    fn new(path: &'a str, f: &'a Finding) -> Self {
        JsonFinding {
            rule_id: &f.rule_id,
            severity: f.severity.as_str(),
            file_path: path,
            line: f.line,
            column: f.column,
            snippet: &f.snippet,
            message: &f.message,
            fix: f.fix.as_ref().map(|fix| JsonFix {
                start_line: fix.start.line,
                start_column: fix.start.column,
                end_line: fix.end.line,
                end_column: fix.end.column,
                replacement: &fix.replacement,
            }),
        }
    }
}

/// A fix as a source range (1-based, end exclusive) and its replacement text.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFix<'a> {
    pub start_line: u32,
    pub start_column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub replacement: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFileError {
    pub file_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    pub message: String,
}

#[derive(Debug, Default, Serialize)]
pub struct ReviewStatus {
    pub unreviewed: Vec<String>,
    pub unsegmented: Vec<String>,
    pub stale: Vec<String>,
}

impl ReviewStatus {
    pub fn is_clean(&self) -> bool {
        self.unreviewed.is_empty() && self.unsegmented.is_empty() && self.stale.is_empty()
    }
}

/// Findings counted by severity (indexed by [`Severity`]) and by rule.
#[derive(Default)]
struct Counts<'a> {
    severity: [usize; 3],
    by_rule: rustc_hash::FxHashMap<&'a str, usize>,
}

impl Counts<'_> {
    fn merge(mut self, other: Self) -> Self {
        for (a, b) in self.severity.iter_mut().zip(other.severity) {
            *a += b;
        }
        for (rule, n) in other.by_rule {
            *self.by_rule.entry(rule).or_default() += n;
        }
        self
    }
}

impl<'a> AuditReport<'a> {
    pub fn new(audit: &'a Audit, review: Option<ReviewStatus>) -> Self {
        let mut out = AuditReport {
            total_files: audit.len(),
            total_findings: 0,
            error_findings: 0,
            warning_findings: 0,
            info_findings: 0,
            by_rule: BTreeMap::new(),
            findings: Findings(audit),
            file_errors: Vec::new(),
            review_status: review,
        };
        for audited in audit.files() {
            if let Some(e) = &audited.report.error {
                out.file_errors.push(JsonFileError {
                    file_path: audited.path.clone(),
                    line: e.line_col.map(|lc| lc.line),
                    column: e.line_col.map(|lc| lc.column),
                    message: e.message.clone(),
                });
            }
        }
        // Counted on every core: a large tree has a finding or more per file.
        let counts = audit
            .chunks()
            .par_iter()
            .map(|chunk| {
                let mut c = Counts::default();
                for f in chunk.iter().flat_map(|a| &a.report.findings) {
                    c.severity[f.severity as usize] += 1;
                    *c.by_rule.entry(f.rule_id.as_str()).or_default() += 1;
                }
                c
            })
            .reduce(Counts::default, Counts::merge);
        [out.error_findings, out.warning_findings, out.info_findings] = [
            counts.severity[Severity::Error as usize],
            counts.severity[Severity::Warning as usize],
            counts.severity[Severity::Info as usize],
        ];
        out.total_findings = counts.severity.iter().sum();
        out.by_rule = counts.by_rule.into_iter().collect();
        out
    }

    pub fn file_errors(&self) -> usize {
        self.file_errors.len()
    }
}

/// Streams `value` as pretty JSON: a report of a large tree can be hundreds of megabytes,
/// which should never exist in memory as one string.
pub fn print_json<T: Serialize>(value: &T) {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // A closed pipe (`| head`) is not an error worth a panic.
    if serde_json::to_writer_pretty(&mut out, value).is_ok() {
        let _ = writeln!(out);
        let _ = out.flush();
    }
}

pub fn print_audit(ws: &Workspace, summary: &AuditReport, audit: &Audit, format: OutputFormat) {
    match format {
        OutputFormat::Json => print_json(summary),
        OutputFormat::Github => print_github(summary),
        OutputFormat::Human => print_human(ws, summary, audit),
    }
}

fn print_github(audit: &AuditReport) {
    let mut out = std::io::stdout().lock();
    for f in audit.findings.iter() {
        let level = match f.severity {
            "error" => "error",
            "warning" => "warning",
            _ => "notice",
        };
        let _ = writeln!(
            out,
            "::{level} file={},line={},col={},title={}::{}",
            escape_property(f.file_path),
            f.line,
            f.column,
            escape_property(f.rule_id),
            escape_data(f.message)
        );
    }
    for e in &audit.file_errors {
        let _ = writeln!(
            out,
            "::error file={},line={}::{}",
            escape_property(&e.file_path),
            e.line.unwrap_or(1),
            escape_data(&e.message)
        );
    }
}

fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

fn print_human(ws: &Workspace, summary: &AuditReport, audit: &Audit) {
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
            let _ = writeln!(out, "error: {path}{at}: {}", e.message);
        }
        if report.findings.is_empty() {
            continue;
        }
        // Only files with findings are read again, and only for human output.
        let text = ws.read_text(path).unwrap_or_default();
        let index = LineIndex::new(&text);
        for f in &report.findings {
            let _ = writeln!(out, "{}", render_finding(&renderer, path, &text, &index, f));
        }
    }
    let _ = writeln!(out, "{}", summary_text(summary));
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
        audit.total_files,
        audit.total_findings,
        audit.error_findings,
        audit.warning_findings,
        audit.info_findings
    );
    if audit.error_findings > 0 || !audit.file_errors.is_empty() {
        s.push_str("  ← BLOCKING");
    }
    for (rule, n) in &audit.by_rule {
        s.push_str(&format!("\n  {n:>5}  {rule}"));
    }
    if !audit.file_errors.is_empty() {
        s.push_str(&format!(
            "\n{} files could not be audited",
            audit.file_errors.len()
        ));
    }
    if let Some(r) = &audit.review_status {
        if r.is_clean() {
            s.push_str("\nreview: every file in scope has a fresh, reviewed entry");
        } else {
            s.push_str(&format!(
                "\nreview gate FAILED: {} unreviewed, {} unsegmented, {} stale",
                r.unreviewed.len(),
                r.unsegmented.len(),
                r.stale.len()
            ));
            for (what, list) in [
                ("unreviewed", &r.unreviewed),
                ("unsegmented", &r.unsegmented),
                ("stale", &r.stale),
            ] {
                for p in list {
                    s.push_str(&format!("\n  {what:<11} {p}"));
                }
            }
        }
    }
    s
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsegmentedReport {
    pub total_files: usize,
    pub unsegmented_count: usize,
    pub unsegmented: Vec<Unsegmented>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unsegmented {
    pub path: String,
    pub reason: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_hash: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub actual_hash: Option<String>,
}

pub fn print_unsegmented(report: &UnsegmentedReport, format: OutputFormat) {
    if format == OutputFormat::Json {
        return print_json(report);
    }
    let mut out = std::io::stdout().lock();
    for u in &report.unsegmented {
        let _ = writeln!(out, "{:<8} {}", u.reason, u.path);
    }
    let _ = writeln!(
        out,
        "{} of {} files need segmentation",
        report.unsegmented_count, report.total_files
    );
}
