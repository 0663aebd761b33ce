//! `--format sarif`: the audit as one SARIF 2.1.0 run, for code-scanning dashboards and
//! editors. The rules are the tool's rules, with their docs as help; each finding is a
//! result with its region (UTF-16 columns, SARIF's default column kind, and ours) and its
//! fix as a SARIF fix; files that could not be audited are tool notifications.

use super::super::session::{Audit, rule_table};
use super::super::workspace::Workspace;
use super::json::AuditReport;
use crate::annotations;
use crate::output::write_pretty_elements;
use lockgraph_queries::copy::engine::FindingRef;
use lockgraph_queries::copy::rules::{Rule, Severity};
use serde::Serialize;
use serde_json::{Value, json};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

pub fn write(
    mut out: &mut dyn Write,
    ws: &Workspace,
    summary: &AuditReport,
    audit: &Audit,
) -> std::io::Result<()> {
    let rules = match rule_table(&ws.config) {
        Ok(table) => table.set.rules().to_vec(),
        Err(_) => Vec::new(),
    };
    // Results per window of rendering: a window's text is held until it is written.
    write_log(&mut out, &ws.root, summary, audit, &rules, 16 * 1024)
}

/// Where the results array stands in the pretty log: the run's key, at the run's depth (a
/// string cannot hold it, as a line break inside one is escaped).
const RESULTS: &str = "\n      \"results\": []";

/// The log, byte for byte what serde writes of [`log`] with every result (and a line
/// break), with the results rendered on every core a window at a time and written as they
/// are: built whole, 100k results were a gigabyte of JSON values and three seconds.
fn write_log(
    out: &mut impl Write,
    root: &Path,
    summary: &AuditReport,
    audit: &Audit,
    rules: &[Arc<dyn Rule>],
    window_len: usize,
) -> std::io::Result<()> {
    let index = |id: &str| rules.iter().position(|r| r.meta().id == id);
    let results = audit.files().flat_map(|a| {
        let path = a.path.as_str();
        a.report.findings.iter_ref().map(move |f| (path, f))
    });
    write_log_with(
        out,
        &log(root, summary, rules, Vec::new()),
        results,
        window_len,
        |(path, f)| result(path, f, index(f.rule_id)),
    )
}

/// Writes `frame`, a one-run SARIF log whose results are `[]`, pretty as serde lays it out
/// whole, with `render` of each of `results` as its results: rendered on every core, a
/// window of `window_len` at a time ([`write_pretty_elements`]), and a line break.
pub fn write_log_with<T: Sync, V: Serialize>(
    out: &mut impl Write,
    frame: &Value,
    results: impl Iterator<Item = T>,
    window_len: usize,
    render: impl Fn(&T) -> V + Sync,
) -> std::io::Result<()> {
    let frame = serde_json::to_string_pretty(frame)?;
    let at = frame.find(RESULTS).expect("the log has a results array") + RESULTS.len() - 1;
    // `[` ends the head, `]` begins the tail.
    let (head, tail) = (&frame[..at], &frame[at + 1..]);
    out.write_all(head.as_bytes())?;
    write_pretty_elements(out, results, 4, window_len, render)?;
    out.write_all(tail.as_bytes())?;
    writeln!(out)
}

/// The SARIF log of the audit, with `results` as its results.
fn log(root: &Path, summary: &AuditReport, rules: &[Arc<dyn Rule>], results: Vec<Value>) -> Value {
    let notifications: Vec<Value> = summary
        .problems
        .file_errors
        .iter()
        .map(|e| {
            json!({
                "level": "error",
                "message": { "text": e.message },
                "locations": [{ "physicalLocation": {
                    "artifactLocation": annotations::sarif_artifact(&e.relative_path),
                    "region": { "startLine": e.line.unwrap_or(1), "startColumn": e.column.unwrap_or(1) },
                }}],
            })
        })
        .collect();
    let rules = rules.iter().map(|r| descriptor(r.as_ref())).collect();
    let mut run = json!({
        "columnKind": "utf16CodeUnits",
        "invocations": [{
            "executionSuccessful": true,
            "toolExecutionNotifications": notifications,
        }],
        "results": results,
    });
    // A shard says so, for `report merge` (SARIF's property bag).
    if let Some(shard) = &summary.problems.shard {
        run["properties"] = json!({ "shard": shard });
    }
    annotations::sarif_log("copy-audit", "docs/rules.md", rules, root, run)
}

fn descriptor(rule: &dyn Rule) -> Value {
    let meta = rule.meta();
    json!({
        "id": meta.id,
        "shortDescription": { "text": meta.summary },
        "fullDescription": { "text": meta.doc },
        "help": { "text": meta.doc, "markdown": meta.doc },
        "defaultConfiguration": { "level": level(meta.severity) },
        "properties": { "languages": meta.languages, "fixable": meta.fixable },
    })
}

fn result(path: &str, f: &FindingRef, rule_index: Option<usize>) -> Value {
    let mut result = json!({
        "ruleId": f.rule_id,
        "level": level(f.severity),
        "message": { "text": f.message },
        "locations": [{ "physicalLocation": {
            "artifactLocation": annotations::sarif_artifact(path),
            "region": {
                "startLine": f.line,
                "startColumn": f.column,
                "endLine": f.end.line,
                "endColumn": f.end.column,
                "snippet": { "text": f.snippet },
            },
        }}],
    });
    if let Some(i) = rule_index {
        result["ruleIndex"] = i.into();
    }
    if let Some(fix) = &f.fix {
        result["fixes"] = json!([{
            "description": { "text": format!("Replace with {:?}", fix.replacement) },
            "artifactChanges": [{
                "artifactLocation": annotations::sarif_artifact(path),
                "replacements": [{
                    "deletedRegion": {
                        "startLine": fix.start.line,
                        "startColumn": fix.start.column,
                        "endLine": fix.end.line,
                        "endColumn": fix.end.column,
                    },
                    "insertedContent": { "text": fix.replacement },
                }],
            }],
        }]);
    }
    result
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::copy_audit::session::Audited;
    use lockgraph_queries::copy::engine::{EntryState, FileError, FileReport, Finding, SourceFix};
    use lockgraph_queries::copy::rules::RuleSet;
    use lockgraph_queries::hash::ContentHash;
    use lockgraph_queries::text::LineCol;

    fn file(path: &str, findings: usize, error: bool) -> Audited {
        let findings = (0..findings).map(|i| {
            let line = i as u32 + 1;
            Finding {
                rule_id: ["cs-R1-nbsp-prep", "no-such-rule"][i % 2].into(),
                severity: [Severity::Error, Severity::Info][i % 2],
                line,
                column: 3,
                end: LineCol { line, column: 4 },
                offset: 10,
                snippet: "v \"domě\"\t".into(),
                message: "zpráva „s uvozovkami“".into(),
                fix: (i % 2 == 0).then(|| SourceFix {
                    range: 10..11,
                    replacement: "\u{a0}".into(),
                    start: LineCol { line, column: 4 },
                    end: LineCol { line, column: 5 },
                    length: 1,
                }),
            }
        });
        Audited {
            path: path.into(),
            hash: Some(ContentHash::of(path.as_bytes())),
            stat: None,
            report: FileReport {
                state: EntryState::Fresh,
                findings: findings.collect(),
                error: error.then(|| FileError {
                    line_col: Some(LineCol { line: 2, column: 1 }),
                    message: "invalid JSON".into(),
                }),
            },
        }
    }

    /// The log streamed a window at a time is byte for byte the log serde writes whole,
    /// with no result, one, and many, with a file error and a shard.
    #[test]
    fn the_streamed_log_is_the_serde_log() {
        let rules = RuleSet::builtin().rules().to_vec();
        let many = (0..300).map(|i| file(&format!("obsah/{i:03}.md"), i % 4, false));
        let cases = [
            Vec::new(),
            vec![file("a.md", 0, false)],
            vec![file("a b.md", 1, false), file("c.json", 0, true)],
            many.collect(),
        ];
        for (n, files) in cases.into_iter().enumerate() {
            let audit = Audit::from_files(files);
            let mut summary = AuditReport::new(&audit, None, "/work/root");
            summary.problems.shard = (n == 3).then(|| "2/3".to_owned());
            let root = Path::new("/work/root");
            let results = audit
                .files()
                .flat_map(|a| {
                    a.report
                        .findings
                        .iter_ref()
                        .map(move |f| (a.path.as_str(), f))
                })
                .map(|(path, f)| {
                    let index = rules.iter().position(|r| r.meta().id == f.rule_id);
                    result(path, &f, index)
                })
                .collect();
            let mut expected =
                serde_json::to_string_pretty(&log(root, &summary, &rules, results)).unwrap();
            expected.push('\n');
            for window in [1, 7, 1 << 14] {
                let mut got = Vec::new();
                write_log(&mut got, root, &summary, &audit, &rules, window).unwrap();
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    expected,
                    "case {n}, window {window}"
                );
            }
        }
    }
}
