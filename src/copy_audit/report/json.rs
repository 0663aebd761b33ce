//! The JSON report's shape: the reference's keys in the reference's order, and what we add
//! (what went wrong, the review gate), counted from an audit.

use super::super::session::Audit;
use lockgraph_queries::copy::engine::{EntryState, FindingRef};
use lockgraph_queries::copy::rules::Severity;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

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
    /// `K/N` in the report of `--shard K/N`, so that `report merge` can tell a complete
    /// set of shards from an incomplete one. Ours; only in a shard's report.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<String>,
}

/// Every finding of an audit, in file order, made into [`JsonFinding`]s one at a time as
/// they are written: a report of a large tree can hold a million findings, and a vector of
/// them was a third of the peak memory of such a run.
pub struct Findings<'a> {
    audit: &'a Audit,
    /// The root, absolute: the reference's `filePath` is absolute.
    pub(super) root: &'a str,
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
            audited.report.findings.iter_ref().map(move |f| {
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
    pub(super) fn new(
        root: &'a str,
        path: &'a str,
        segmentation: &'static str,
        f: FindingRef<'a>,
    ) -> Self {
        JsonFinding {
            rule_id: f.rule_id,
            severity: f.severity.as_str(),
            file_path: AbsolutePath { root, path },
            line: f.line,
            column: f.column,
            snippet: f.snippet,
            message: f.message,
            fix: f.fix.map(|fix| JsonFix {
                line: fix.start.line,
                column: fix.start.column,
                length: fix.length,
                replacement: fix.replacement,
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

/// Read back by `report merge` as written (hence strict).
#[derive(Debug, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct JsonFileError {
    /// Absolute, as findings name their files.
    pub file_path: String,
    pub relative_path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<u32>,
    pub message: String,
}

/// Read back by `report merge` as written (hence strict).
#[derive(Debug, Default, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReviewStatus {
    pub unreviewed: Vec<String>,
    pub unsegmented: Vec<String>,
    pub stale: Vec<String>,
    /// Files in scope whose path is not UTF-8 (stray bytes as `\xNN`): a file that cannot
    /// be named in the lockfile cannot be reviewed. Ours; only when there are some.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unnamable: Vec<String>,
}

impl ReviewStatus {
    pub fn is_clean(&self) -> bool {
        self.unreviewed.is_empty()
            && self.unsegmented.is_empty()
            && self.stale.is_empty()
            && self.unnamable.is_empty()
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
            shard: None,
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
                for (rule_id, severity) in chunk.iter().flat_map(|a| a.report.findings.rules()) {
                    c.severity[severity as usize] += 1;
                    *c.by_rule.entry(rule_id).or_default() += 1;
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
