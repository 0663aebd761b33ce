//! `--format sarif`: the audit as one SARIF 2.1.0 run, for code-scanning dashboards and
//! editors. The rules are the tool's rules, with their docs as help; each finding is a
//! result with its region (UTF-16 columns, SARIF's default column kind, and ours) and its
//! fix as a SARIF fix; files that could not be audited are tool notifications.

use super::super::session::{Audit, rule_table};
use super::super::workspace::Workspace;
use super::json::AuditReport;
use crate::annotations;
use lockgraph_queries::copy::engine::Finding;
use lockgraph_queries::copy::rules::{Rule, Severity};
use serde_json::{Value, json};
use std::sync::Arc;

pub fn print(ws: &Workspace, summary: &AuditReport, audit: &Audit) {
    let rules = match rule_table(&ws.config) {
        Ok(table) => table.set.rules().to_vec(),
        Err(_) => Vec::new(),
    };
    crate::output::print_json(&log(ws, summary, audit, &rules));
}

fn log(ws: &Workspace, summary: &AuditReport, audit: &Audit, rules: &[Arc<dyn Rule>]) -> Value {
    let index = |id: &str| rules.iter().position(|r| r.meta().id == id);
    let results: Vec<Value> = audit
        .files()
        .flat_map(|a| a.report.findings.iter().map(move |f| (a.path.as_str(), f)))
        .map(|(path, f)| result(path, &f, index(&f.rule_id)))
        .collect();
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
    annotations::sarif_log("copy-audit", "docs/rules.md", rules, &ws.root, run)
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

fn result(path: &str, f: &Finding, rule_index: Option<usize>) -> Value {
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
