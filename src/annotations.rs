//! Findings as CI systems read them, for both tools: GitHub Actions workflow commands and
//! GitLab's Code Quality report.
//!
//! Both name files relative to the directory the job runs in (the checkout's top, where
//! GitHub and GitLab resolve them), not to the tool's root, which may be a subdirectory.

use crate::output::write_pretty_elements;
use rayon::prelude::*;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::Path;

/// How serious a finding is, in the words both systems share.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Error,
    Warning,
    Notice,
}

/// One finding, wherever it came from.
#[derive(Clone, Debug)]
pub struct Annotation<'a> {
    pub level: Level,
    /// The rule or check: the annotation's title, GitLab's `check_name`.
    pub check: &'a str,
    pub message: &'a str,
    /// Relative to the job's directory ([`JobPaths`]).
    pub path: String,
    /// 1-based; columns in UTF-16 units (GitHub counts them so).
    pub line: u32,
    pub column: Option<u32>,
    pub end: Option<(u32, u32)>,
    /// What identifies the finding apart from where it stands (the matched text, say):
    /// GitLab's fingerprint is made of it, so a finding keeps its fingerprint when lines
    /// above it move.
    pub identity: &'a str,
}

/// Paths under a root as the job sees them: relative to the current directory when the
/// root lies under it, else relative to the root.
#[derive(Clone)]
pub struct JobPaths {
    /// The root relative to the current directory (empty when they are one).
    prefix: Option<String>,
}

impl JobPaths {
    pub fn new(root: &Path) -> JobPaths {
        let prefix = (|| {
            let cwd = std::fs::canonicalize(std::env::current_dir().ok()?).ok()?;
            let root = std::fs::canonicalize(root).ok()?;
            let rel = root.strip_prefix(&cwd).ok()?;
            Some(rel.to_str()?.to_owned())
        })();
        JobPaths { prefix }
    }

    /// `rel`, a `/`-separated path under the root.
    pub fn of(&self, rel: &str) -> String {
        match self.prefix.as_deref() {
            Some("") | None => rel.to_owned(),
            Some(prefix) => format!("{prefix}/{rel}"),
        }
    }
}

/// The annotation as a GitHub Actions workflow command (one line).
pub fn github(a: &Annotation) -> String {
    let level = match a.level {
        Level::Error => "error",
        Level::Warning => "warning",
        Level::Notice => "notice",
    };
    let mut properties = format!("file={},line={}", escape_property(&a.path), a.line);
    if let Some(column) = a.column {
        properties.push_str(&format!(",col={column}"));
    }
    if let Some((line, column)) = a.end {
        properties.push_str(&format!(",endLine={line}"));
        // GitHub takes an end column only on a one-line annotation.
        if line == a.line {
            properties.push_str(&format!(",endColumn={column}"));
        }
    }
    format!(
        "::{level} {properties},title={}::{}",
        escape_property(a.check),
        escape_data(a.message)
    )
}

/// Writes each annotation as a workflow command, one per line.
pub fn write_github<'a>(
    out: &mut impl std::io::Write,
    mut annotations: impl Iterator<Item = Annotation<'a>>,
) -> std::io::Result<()> {
    annotations.try_for_each(|a| writeln!(out, "{}", github(&a)))
}

/// Writes `tool`'s annotations as GitLab's Code Quality report ([`issue`] of each).
pub fn write_gitlab(
    out: &mut impl std::io::Write,
    tool: &str,
    annotations: &[Annotation],
) -> std::io::Result<()> {
    write_gitlab_in_windows(out, tool, annotations, 16 * 1024)
}

/// The report, byte for byte what serde writes of the issues as one pretty array (and a
/// line break), rendered on every core a window of `window_len` at a time and written as
/// they are: built whole as JSON values, 100k issues held 390 MB.
fn write_gitlab_in_windows(
    out: &mut impl std::io::Write,
    tool: &str,
    annotations: &[Annotation],
    window_len: usize,
) -> std::io::Result<()> {
    let fingerprints = fingerprints(tool, annotations);
    out.write_all(b"[")?;
    let issues = annotations.iter().zip(&fingerprints);
    write_pretty_elements(out, issues, 1, window_len, |(a, print)| issue(a, print))?;
    out.write_all(b"\n")
}

/// A command's message, escaped as GitHub's toolkit escapes it: `%`, CR and LF.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A property's value: as a message, and `:` and `,`, which end a property.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Where a SARIF result's path is relative to: the tool's root, given as this base.
pub const SARIF_ROOT: &str = "ROOT";

/// A SARIF `artifactLocation`: `rel` under the root.
pub fn sarif_artifact(rel: &str) -> Value {
    json!({ "uri": uri_reference(rel), "uriBaseId": SARIF_ROOT })
}

/// A SARIF 2.1.0 log of one run of `tool`, whose documentation is `doc` (a path in the
/// repository): `run` holds the run's own members (results, column kind, invocations);
/// the driver with its `rules` and the root as [`SARIF_ROOT`] are added here.
pub fn sarif_log(tool: &str, doc: &str, rules: Vec<Value>, root: &Path, mut run: Value) -> Value {
    run["tool"] = json!({ "driver": {
        "name": tool,
        "version": env!("CARGO_PKG_VERSION"),
        "informationUri": format!("{}/blob/main/{doc}", env!("CARGO_PKG_REPOSITORY")),
        "rules": rules,
    }});
    run["originalUriBaseIds"] =
        json!({ SARIF_ROOT: { "uri": directory_uri(&root.to_string_lossy()) } });
    json!({
        "$schema": "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    })
}

/// `file://` and a directory, ending with `/` as a base URI must (SARIF's
/// `originalUriBaseIds`).
pub fn directory_uri(dir: &str) -> String {
    let mut uri = format!("file://{}", uri_reference(dir));
    if !uri.ends_with('/') {
        uri.push('/');
    }
    uri
}

/// A path as a URI reference: every byte outside RFC 3986's unreserved set and `/`
/// percent-encoded (`úvod.md` → `%C3%BAvod.md`).
pub fn uri_reference(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// One issue of GitLab's Code Quality report (the subset of the Code Climate format
/// GitLab reads, a JSON array of them): `description`, `check_name`, `fingerprint`,
/// `severity` and `location.path` / `location.lines.begin`.
fn issue(a: &Annotation, fingerprint: &str) -> Value {
    json!({
        "description": a.message,
        "check_name": a.check,
        "fingerprint": fingerprint,
        "severity": match a.level {
            Level::Error => "major",
            Level::Warning => "minor",
            Level::Notice => "info",
        },
        "location": { "path": a.path, "lines": { "begin": a.line } },
    })
}

/// Each annotation's fingerprint: the SHA-256 of the tool, the check, the path, the
/// finding's identity and how many equal ones came before it in the list — stable across
/// runs, and distinct for each finding. The digests are taken on every core, the counts
/// in order.
fn fingerprints(tool: &str, annotations: &[Annotation]) -> Vec<String> {
    let keys: Vec<[u8; 32]> = annotations
        .par_iter()
        .map(|a| digest(&[tool, a.check, &a.path, a.identity]))
        .collect();
    let mut seen: std::collections::HashMap<[u8; 32], u32> = Default::default();
    let nths: Vec<u32> = keys
        .iter()
        .map(|key| {
            let nth = seen.entry(*key).or_insert(0);
            *nth += 1;
            *nth - 1
        })
        .collect();
    keys.par_iter()
        .zip(nths)
        .map(|(key, nth)| hex(&digest(&[&hex(key), &nth.to_string()])[..16]))
        .collect()
}

/// The whole report as one value: what [`write_gitlab`] writes.
#[cfg(test)]
fn gitlab(tool: &str, annotations: &[Annotation]) -> Value {
    let prints = fingerprints(tool, annotations);
    Value::Array(
        annotations
            .iter()
            .zip(&prints)
            .map(|(a, f)| issue(a, f))
            .collect(),
    )
}

/// Length-framed, so that no two lists of parts share a digest.
fn digest(parts: &[&str]) -> [u8; 32] {
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    h.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_uri_references() {
        assert_eq!(
            uri_reference("content/úvod 1.md"),
            "content/%C3%BAvod%201.md"
        );
        assert_eq!(directory_uri("/tmp/repo"), "file:///tmp/repo/");
    }

    fn annotation<'a>(message: &'a str, line: u32, identity: &'a str) -> Annotation<'a> {
        Annotation {
            level: Level::Warning,
            check: "en-R2-straight-quotes",
            message,
            path: "docs/a, b:c.md".to_owned(),
            line,
            column: Some(3),
            end: Some((line, 9)),
            identity,
        }
    }

    #[test]
    fn workflow_commands_escape_what_github_reads_as_syntax() {
        let a = annotation("100% sure\r\nnext: line, two", 4, "\"x\"");
        assert_eq!(
            github(&a),
            "::warning file=docs/a%2C b%3Ac.md,line=4,col=3,endLine=4,endColumn=9,\
             title=en-R2-straight-quotes::100%25 sure%0D%0Anext: line, two"
        );
        let mut more = annotation("m", 4, "x");
        more.end = Some((6, 1));
        more.column = None;
        assert_eq!(
            github(&more),
            "::warning file=docs/a%2C b%3Ac.md,line=4,endLine=6,title=en-R2-straight-quotes::m"
        );
    }

    #[test]
    fn fingerprints_follow_the_finding_not_its_line() {
        let before = [annotation("m", 4, "\"x\""), annotation("m", 9, "\"x\"")];
        // Two lines inserted above both: the same fingerprints.
        let after = [annotation("m", 6, "\"x\""), annotation("m", 11, "\"x\"")];
        let prints = |r: Value| -> Vec<String> {
            r.as_array()
                .unwrap()
                .iter()
                .map(|i| i["fingerprint"].as_str().unwrap().to_owned())
                .collect()
        };
        let (b, a) = (prints(gitlab("t", &before)), prints(gitlab("t", &after)));
        assert_eq!(b, a);
        assert_ne!(b[0], b[1], "equal findings are told apart");
        assert_eq!(b[0].len(), 32);
        let other = prints(gitlab("t", &[annotation("m", 4, "\"y\"")]));
        assert_ne!(other[0], b[0]);
    }

    /// The report written a window at a time is byte for byte serde's of the whole array.
    #[test]
    fn the_streamed_code_quality_report_is_the_serde_report() {
        let many: Vec<Annotation> = (0..300)
            .map(|i| annotation("m „x“", i, ["\"x\"", "y", "\"x\""][i as usize % 3]))
            .collect();
        for annotations in [&[][..], &many[..1], &many[..]] {
            let mut expected = serde_json::to_string_pretty(&gitlab("t", annotations)).unwrap();
            expected.push('\n');
            for window in [1, 7, 1 << 14] {
                let mut got = Vec::new();
                write_gitlab_in_windows(&mut got, "t", annotations, window).unwrap();
                assert_eq!(String::from_utf8(got).unwrap(), expected, "window {window}");
            }
        }
    }

    #[test]
    fn a_code_quality_issue_has_the_fields_gitlab_reads() {
        let report = gitlab("t", &[annotation("msg", 4, "x")]);
        let issue = &report[0];
        assert_eq!(issue["description"], "msg");
        assert_eq!(issue["check_name"], "en-R2-straight-quotes");
        assert_eq!(issue["severity"], "minor");
        assert_eq!(issue["location"]["path"], "docs/a, b:c.md");
        assert_eq!(issue["location"]["lines"]["begin"], 4);
    }
}
