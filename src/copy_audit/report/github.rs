//! `--format github`: GitHub workflow commands, one line per finding or file error, so
//! that findings show as annotations on the pull request.

use super::json::AuditReport;
use std::io::Write;

pub(super) fn print_github(audit: &AuditReport) {
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
