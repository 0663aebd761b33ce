//! `--format github` and `--format gitlab`: the findings, and the files that could not be
//! audited, as CI systems annotate them (see [`crate::annotations`]).

use super::super::workspace::Workspace;
use super::json::AuditReport;
use crate::annotations::{self, Annotation, JobPaths, Level};
use std::io::{self, Write};

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

pub(super) fn write_github(
    mut out: &mut dyn Write,
    ws: &Workspace,
    audit: &AuditReport,
) -> io::Result<()> {
    annotations::write_github(&mut out, annotations(ws, audit))
}

pub(super) fn write_gitlab(
    mut out: &mut dyn Write,
    ws: &Workspace,
    audit: &AuditReport,
) -> io::Result<()> {
    let all: Vec<Annotation> = annotations(ws, audit).collect();
    annotations::write_gitlab(&mut out, "copy-audit", &all)
}
