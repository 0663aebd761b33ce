//! `--format github` and `--format gitlab`: the findings, and the files that could not be
//! audited, as CI systems annotate them (see [`crate::annotations`]).

use super::super::workspace::Workspace;
use super::json::AuditReport;
use crate::annotations::{self, Annotation, JobPaths, Level};

/// What a file error is called where a check's name is wanted.
const FILE_ERROR: &str = "copy-audit/file-error";

fn annotations<'a>(ws: &Workspace, audit: &'a AuditReport) -> impl Iterator<Item = Annotation<'a>> {
    let paths = JobPaths::new(&ws.root);
    let for_errors = paths.clone();
    let findings = audit.findings.iter().map(move |f| Annotation {
        level: match f.severity {
            "error" => Level::Error,
            "warning" => Level::Warning,
            _ => Level::Notice,
        },
        check: f.rule_id,
        message: f.message,
        path: paths.of(f.relative_path),
        line: f.line,
        column: Some(f.column),
        end: Some((f.end_line, f.end_column)),
        identity: f.snippet,
    });
    let errors = audit.problems.file_errors.iter().map(move |e| Annotation {
        level: Level::Error,
        check: FILE_ERROR,
        message: &e.message,
        path: for_errors.of(&e.relative_path),
        line: e.line.unwrap_or(1),
        column: e.column,
        end: None,
        identity: "",
    });
    findings.chain(errors)
}

pub(super) fn print_github(ws: &Workspace, audit: &AuditReport) {
    annotations::print_github(annotations(ws, audit));
}

pub(super) fn print_gitlab(ws: &Workspace, audit: &AuditReport) {
    let all: Vec<Annotation> = annotations(ws, audit).collect();
    annotations::print_gitlab("copy-audit", &all);
}
