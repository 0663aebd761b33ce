//! Rendering results: the JSON contract, human output with source lines and carets, and
//! GitHub workflow commands.

use super::audit::Audit;
use super::cli::OutputFormat;
use super::workspace::Workspace;
use annotate_snippets::{AnnotationKind, Level, Renderer, Snippet};
use lockgraph_queries::copy::engine::{EntryState, Finding};
use lockgraph_queries::copy::rules::Severity;
use lockgraph_queries::text::LineIndex;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};

/// The JSON report, key for key and in the reference's order: the totals, the findings,
/// `byRule`, then what we add (what went wrong, the review gate). The parts either side of
/// the findings are their own structs so that the report can be written around findings
/// rendered elsewhere ([`write_audit_json`]).
#[derive(Debug, Serialize)]
pub struct AuditReport<'a> {
    #[serde(flatten)]
    pub totals: Totals,
    pub findings: Findings<'a>,
    #[serde(flatten)]
    pub problems: Problems<'a>,
}

/// The keys of the JSON report before `findings`.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    pub total_files: usize,
    pub total_findings: usize,
    pub error_findings: usize,
    pub warning_findings: usize,
    pub info_findings: usize,
}

/// The keys of the JSON report after `findings`.
#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Problems<'a> {
    pub by_rule: BTreeMap<&'a str, usize>,
    /// Files that could not be audited (binary, invalid UTF-8, unparsable JSON/YAML).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub file_errors: Vec<JsonFileError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub review_status: Option<ReviewStatus>,
}

/// Every finding of an audit, in file order, made into [`JsonFinding`]s one at a time as
/// they are written: a report of a large tree can hold a million findings, and a vector of
/// them was a third of the peak memory of such a run.
pub struct Findings<'a> {
    audit: &'a Audit,
    /// The root, absolute: the reference's `filePath` is absolute.
    root: &'a str,
}

impl std::fmt::Debug for Findings<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> Findings<'a> {
    pub fn iter(&self) -> impl Iterator<Item = JsonFinding<'a>> + 'a {
        let root = self.root;
        self.audit.files().flat_map(move |audited| {
            audited.report.findings.iter().map(move |f| {
                JsonFinding::new(root, &audited.path, segmentation(audited.report.state), f)
            })
        })
    }
}

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// One finding: the reference's keys with the reference's meaning (`filePath` absolute,
/// `snippet` the matched text, `fix` as `{line, column, length, replacement}`, columns
/// and lengths in UTF-16 code units), then the keys we add.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFinding<'a> {
    pub rule_id: &'a str,
    pub severity: &'static str,
    pub file_path: AbsolutePath<'a>,
    pub line: u32,
    pub column: u32,
    pub snippet: &'a str,
    pub message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<JsonFix<'a>>,
    /// Root-relative, with `/`: what the lockfile and the other outputs name.
    pub relative_path: &'a str,
    /// Where the matched text ends (exclusive).
    pub end_line: u32,
    pub end_column: u32,
    /// `cached`: the file's spans are its fresh lockfile entry's; `provisional`: it has no
    /// fresh entry, and the structural segmenter's spans, computed for this run and never
    /// written, stood in.
    pub segmentation: &'static str,
}

/// What a file's entry state says of the spans its findings were filtered with.
pub fn segmentation(state: EntryState) -> &'static str {
    if state.has_usable_spans() {
        "cached"
    } else {
        "provisional"
    }
}

impl<'a> JsonFinding<'a> {
    fn new(root: &'a str, path: &'a str, segmentation: &'static str, f: &'a Finding) -> Self {
        JsonFinding {
            rule_id: &f.rule_id,
            severity: f.severity.as_str(),
            file_path: AbsolutePath { root, path },
            line: f.line,
            column: f.column,
            snippet: &f.snippet,
            message: &f.message,
            fix: f.fix.as_ref().map(|fix| JsonFix {
                line: fix.start.line,
                column: fix.start.column,
                length: fix.length,
                replacement: &fix.replacement,
            }),
            relative_path: path,
            end_line: f.end.line,
            end_column: f.end.column,
            segmentation,
        }
    }
}

/// A root-relative path written out absolute, without building the string first.
#[derive(Clone, Copy, Debug)]
pub struct AbsolutePath<'a> {
    root: &'a str,
    path: &'a str,
}

impl Serialize for AbsolutePath<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(&format_args!("{}/{}", self.root, self.path))
    }
}

/// A fix as the reference writes it: replace `length` UTF-16 code units from `line`:
/// `column` with `replacement`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFix<'a> {
    pub line: u32,
    pub column: u32,
    pub length: u32,
    pub replacement: &'a str,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JsonFileError {
    /// Absolute, as findings name their files.
    pub file_path: String,
    pub relative_path: String,
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
    /// `root` is the absolute root directory, as findings name their files under it.
    pub fn new(audit: &'a Audit, review: Option<ReviewStatus>, root: &'a str) -> Self {
        let mut problems = Problems {
            by_rule: BTreeMap::new(),
            file_errors: Vec::new(),
            review_status: review,
        };
        for audited in audit.files() {
            if let Some(e) = &audited.report.error {
                problems.file_errors.push(JsonFileError {
                    file_path: format!("{root}/{}", audited.path),
                    relative_path: audited.path.clone(),
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
        let totals = Totals {
            total_files: audit.len(),
            total_findings: counts.severity.iter().sum(),
            error_findings: counts.severity[Severity::Error as usize],
            warning_findings: counts.severity[Severity::Warning as usize],
            info_findings: counts.severity[Severity::Info as usize],
        };
        problems.by_rule = counts.by_rule.into_iter().collect();
        AuditReport {
            totals,
            findings: Findings { audit, root },
            problems,
        }
    }

    pub fn file_errors(&self) -> usize {
        self.problems.file_errors.len()
    }
}

/// Streams `value` as pretty JSON: a report of a large tree can be hundreds of megabytes,
/// which should never exist in memory as one string.
pub fn print_json<T: Serialize>(value: &T) {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)
        .map_err(std::io::Error::from)
        .and_then(|()| writeln!(out))
        .and_then(|()| out.flush())
        .unwrap_or_else(|e| crate::output::failed(&e));
}

/// The JSON report, byte for byte what [`print_json`] makes of an [`AuditReport`], with
/// the findings rendered on every core: printing a large report was a sixth of a warm
/// run, and most of a run with many findings. Rendered a window of findings at a time
/// (however they fall into files), so the text is never held whole.
fn print_audit_json(summary: &AuditReport, audit: &Audit) -> std::io::Result<()> {
    let mut out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    // Findings per window of rendering: a window's text is held until it is written.
    write_audit_json(&mut out, summary, audit, 16 * 1024)?;
    out.flush()
}

fn write_audit_json(
    out: &mut impl Write,
    summary: &AuditReport,
    audit: &Audit,
    window_len: usize,
) -> std::io::Result<()> {
    let head = serde_json::to_vec_pretty(&summary.totals)?;
    // `{ … }` without its closing line, then the findings array at depth one.
    out.write_all(head.strip_suffix(b"\n}").expect("a pretty object"))?;
    out.write_all(b",\n  \"findings\": [")?;
    let mut first = true;
    let mut window: Vec<(&str, &'static str, &Finding)> = Vec::with_capacity(window_len);
    let mut flush = |window: &mut Vec<(&str, &'static str, &Finding)>| -> std::io::Result<()> {
        let rendered: Vec<Vec<u8>> = window
            .par_chunks(512)
            .map(|part| {
                let mut buf = Vec::new();
                for (path, segmentation, f) in part {
                    buf.extend_from_slice(b",\n    ");
                    let mut ser = serde_json::Serializer::with_formatter(&mut buf, Indented::at(2));
                    JsonFinding::new(summary.findings.root, path, segmentation, f)
                        .serialize(&mut ser)
                        .expect("findings serialise");
                }
                buf
            })
            .collect();
        window.clear();
        for buf in &rendered {
            // The first element of the array has no comma before it.
            out.write_all(if first { &buf[1..] } else { buf })?;
            first = false;
        }
        Ok(())
    };
    for a in audit.files() {
        let segmentation = segmentation(a.report.state);
        for f in &a.report.findings {
            window.push((&a.path, segmentation, f));
            if window.len() == window_len {
                flush(&mut window)?;
            }
        }
    }
    flush(&mut window)?;
    out.write_all(if first { b"]" } else { b"\n  ]" })?;
    let tail = serde_json::to_vec_pretty(&summary.problems)?;
    // `{}` or `{ … }`: its keys follow the findings.
    match tail.strip_prefix(b"{") {
        Some(b"}") => out.write_all(b"\n}")?,
        Some(rest) => {
            out.write_all(b",")?;
            out.write_all(rest)?;
        }
        None => unreachable!("a pretty object"),
    }
    writeln!(out)
}

/// serde_json's pretty formatter (two-space indent) starting at a given depth: what a
/// value nested that deep in a pretty document looks like.
struct Indented {
    depth: usize,
    has_value: bool,
}

impl Indented {
    fn at(depth: usize) -> Self {
        Indented {
            depth,
            has_value: false,
        }
    }

    fn newline<W: ?Sized + Write>(&self, w: &mut W, comma: bool) -> std::io::Result<()> {
        w.write_all(if comma { b",\n" } else { b"\n" })?;
        for _ in 0..self.depth {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Indented {
    fn open<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth += 1;
        self.has_value = false;
        w.write_all(bracket)
    }

    fn close<W: ?Sized + Write>(&mut self, w: &mut W, bracket: &[u8]) -> std::io::Result<()> {
        self.depth -= 1;
        if self.has_value {
            self.newline(w, false)?;
        }
        w.write_all(bracket)
    }
}

impl serde_json::ser::Formatter for Indented {
    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, !first)
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.open(w, b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.close(w, b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.newline(w, !first)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _: &mut W) -> std::io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

pub fn print_audit(ws: &Workspace, summary: &AuditReport, audit: &Audit, format: OutputFormat) {
    match format {
        OutputFormat::Json => {
            print_audit_json(summary, audit).unwrap_or_else(|e| crate::output::failed(&e))
        }
        OutputFormat::Github => print_github(summary),
        OutputFormat::Sarif => super::sarif::print(ws, summary, audit),
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
        writeln!(
            out,
            "::{level} file={},line={},col={},title={}::{}",
            escape_property(f.relative_path),
            f.line,
            f.column,
            escape_property(f.rule_id),
            escape_data(f.message)
        )
        .unwrap_or_else(|e| crate::output::failed(&e));
    }
    for e in &audit.problems.file_errors {
        writeln!(
            out,
            "::error file={},line={}::{}",
            escape_property(&e.relative_path),
            e.line.unwrap_or(1),
            escape_data(&e.message)
        )
        .unwrap_or_else(|e| crate::output::failed(&e));
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
        writeln!(out, "{:<8} {}", u.reason, u.path).unwrap_or_else(|e| crate::output::failed(&e));
    }
    writeln!(
        out,
        "{} of {} files need segmentation",
        report.unsegmented_count, report.total_files
    )
    .unwrap_or_else(|e| crate::output::failed(&e));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_audit::audit::Audited;
    use lockgraph_queries::copy::engine::{EntryState, FileError, FileReport, SourceFix};
    use lockgraph_queries::hash::ContentHash;
    use lockgraph_queries::text::LineCol;

    fn finding(rule: &str, line: u32, fix: bool) -> Finding {
        Finding {
            rule_id: rule.into(),
            severity: if fix { Severity::Error } else { Severity::Info },
            line,
            column: 3,
            end: LineCol { line, column: 6 },
            offset: 10,
            snippet: "v domě \"uvozovky\" a\ttab".into(),
            message: "zpráva – s „uvozovkami“".into(),
            fix: fix.then(|| SourceFix {
                range: 10..12,
                replacement: "\u{a0}".into(),
                start: LineCol { line, column: 3 },
                end: LineCol { line, column: 5 },
                length: 2,
            }),
        }
    }

    fn file(path: &str, findings: Vec<Finding>, error: bool) -> Audited {
        Audited {
            path: path.into(),
            hash: ContentHash::of(path.as_bytes()),
            report: FileReport {
                state: EntryState::Fresh,
                findings,
                error: error.then(|| FileError {
                    line_col: Some(LineCol { line: 2, column: 1 }),
                    message: "invalid JSON".into(),
                }),
            },
        }
    }

    /// The report rendered on every core is byte for byte the report serde writes.
    #[test]
    fn the_parallel_json_report_is_the_serde_report() {
        let many: Vec<Audited> = (0..300)
            .map(|i| {
                let findings = (0..i % 4)
                    .map(|j| finding("cs-R1-nbsp-prep", j, j % 2 == 0))
                    .collect();
                file(&format!("content/{i:03}.md"), findings, false)
            })
            .collect();
        let cases = [
            (Vec::new(), None),
            (vec![file("a.md", Vec::new(), false)], None),
            (
                vec![file("a.md", vec![finding("en-R6", 1, true)], false)],
                None,
            ),
            (
                vec![
                    file("a.json", Vec::new(), true),
                    file("b.md", vec![], false),
                ],
                None,
            ),
            (
                vec![file("a.md", vec![finding("x", 1, false)], true)],
                Some(ReviewStatus {
                    unreviewed: vec!["a.md".into()],
                    unsegmented: Vec::new(),
                    stale: vec!["b.md".into()],
                }),
            ),
            (many, Some(ReviewStatus::default())),
        ];
        for (files, review) in cases {
            let audit = Audit::from_files(files);
            let summary = AuditReport::new(&audit, review, "/work/root");
            let mut expected = serde_json::to_vec_pretty(&summary).unwrap();
            expected.push(b'\n');
            let expected = String::from_utf8(expected).unwrap();
            // Windows of one finding, of a few, and of all of them.
            for window in [1, 7, 1 << 14] {
                let mut got = Vec::new();
                write_audit_json(&mut got, &summary, &audit, window).unwrap();
                assert_eq!(String::from_utf8(got).unwrap(), expected, "window {window}");
            }
        }
    }
}
