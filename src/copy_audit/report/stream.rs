//! The audit's JSON report written to standard output as it is rendered rather than built
//! first, its findings rendered on every core (any other report: [`crate::output::print_json`]).

use super::super::session::Audit;
use super::json::{AuditReport, JsonFinding, segmentation};
use crate::output::write_pretty_elements;
use std::io::Write;

/// The JSON report, byte for byte what [`crate::output::print_json`] makes of an [`AuditReport`], with
/// the findings rendered on every core: printing a large report was a sixth of a warm
/// run, and most of a run with many findings. Rendered a window of `window_len` findings
/// at a time (however they fall into files), so the text is never held whole.
pub(super) fn write_audit_json(
    out: &mut impl Write,
    summary: &AuditReport,
    audit: &Audit,
    window_len: usize,
) -> std::io::Result<()> {
    let head = serde_json::to_vec_pretty(&summary.totals)?;
    // `{ … }` without its closing line, then the findings array at depth one.
    out.write_all(head.strip_suffix(b"\n}").expect("a pretty object"))?;
    out.write_all(b",\n  \"findings\": [")?;
    let findings = audit.files().flat_map(|a| {
        let segmentation = segmentation(a.report.state);
        let path = a.path.as_str();
        a.report
            .findings
            .iter_ref()
            .map(move |f| (path, segmentation, f))
    });
    write_pretty_elements(out, findings, 2, window_len, |(path, segmentation, f)| {
        JsonFinding::new(summary.findings.root, path, segmentation, *f)
    })?;
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

#[cfg(test)]
mod tests {
    use super::super::json::ReviewStatus;
    use super::*;
    use crate::copy_audit::session::Audited;
    use lockgraph_queries::copy::engine::{EntryState, FileError, FileReport, Finding, SourceFix};
    use lockgraph_queries::copy::rules::Severity;
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
            hash: Some(ContentHash::of(path.as_bytes())),
            stat: None,
            report: FileReport {
                state: EntryState::Fresh,
                findings: findings.into_iter().collect(),
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
                    unnamable: vec!["c\\xff.md".into()],
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
