//! Rendering results: the JSON contract, human output with source lines and carets, and
//! GitHub workflow commands and GitLab Code Quality reports.

mod github;
mod human;
mod json;
mod sarif;
mod stream;
mod unsegmented;

pub use crate::output::print_json;
pub use json::{AuditReport, JsonFileError, ReviewStatus, segmentation};
pub use sarif::write_log_with;
pub use unsegmented::{Unsegmented, UnsegmentedReport, print_unsegmented};

use super::cli::OutputFormat;
use super::session::Audit;
use super::workspace::Workspace;
use github::{write_github, write_gitlab};
use human::write_human;
use std::io::Write;
use stream::write_audit_json;

/// Writes the audit's report in `format` to `out` (standard output, buffered; a replay
/// file is written beside it).
pub fn write_audit(
    mut out: &mut dyn Write,
    ws: &Workspace,
    summary: &AuditReport,
    audit: &Audit,
    format: OutputFormat,
) -> std::io::Result<()> {
    match format {
        // Findings per window of rendering: a window's text is held until it is written.
        OutputFormat::Json => write_audit_json(&mut out, summary, audit, 16 * 1024),
        OutputFormat::Github => write_github(out, ws, summary),
        OutputFormat::Gitlab => write_gitlab(out, ws, summary),
        OutputFormat::Sarif => sarif::write(out, ws, summary, audit),
        OutputFormat::Human => write_human(out, ws, summary, audit),
    }
}
