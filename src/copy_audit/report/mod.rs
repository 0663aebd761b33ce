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
use github::{print_github, print_gitlab};
use human::print_human;
use stream::print_audit_json;

pub fn print_audit(ws: &Workspace, summary: &AuditReport, audit: &Audit, format: OutputFormat) {
    match format {
        OutputFormat::Json => {
            print_audit_json(summary, audit).unwrap_or_else(|e| crate::output::failed(&e))
        }
        OutputFormat::Github => print_github(ws, summary),
        OutputFormat::Gitlab => print_gitlab(ws, summary),
        OutputFormat::Sarif => sarif::print(ws, summary, audit),
        OutputFormat::Human => print_human(ws, summary, audit),
    }
}
