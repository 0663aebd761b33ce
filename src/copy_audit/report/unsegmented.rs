//! `--list-unsegmented`'s report: the files without a fresh lockfile entry, and why.

use super::super::cli::OutputFormat;
use crate::output::print_json;
use serde::Serialize;

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
    // One buffer, not standard output's line buffer (a write per line).
    crate::output::to_stdout(|out| {
        report
            .unsegmented
            .iter()
            .try_for_each(|u| writeln!(out, "{:<8} {}", u.reason, u.path))
            .and_then(|()| {
                writeln!(
                    out,
                    "{} of {} files need segmentation",
                    report.unsegmented_count, report.total_files
                )
            })
            .unwrap_or_else(|e| crate::output::failed(&e))
    });
}
