//! `check`'s report in each `--format`: one line per violation for people, JSON for
//! scripts, GitHub workflow commands, GitLab's Code Quality report and SARIF for CI (see
//! [`crate::annotations`]). Every format says the same violations, in the same order.

use super::cli::CheckFormat;
use super::root::Root;
use crate::annotations::{self, Annotation, JobPaths, Level};
use lockgraph_queries::shard::Shard;
use lockgraph_queries::soil::check::{CODES, Place, Violation};
use serde_json::{Value, json};
use std::io::Write;

/// Writes `violations` and the files no report can name to `out`, as `format` asks.
pub fn write(
    mut out: &mut dyn Write,
    root: &Root,
    violations: &[Violation],
    format: CheckFormat,
    shard: Option<Shard>,
) -> std::io::Result<()> {
    let unnamable: Vec<Violation> = root
        .unnamed
        .iter()
        .map(|rel| Violation {
            def: rel.clone(),
            code: "unnamable",
            message: "the path is not valid UTF-8; rename it".into(),
            at: Place {
                file: rel.clone(),
                line: 1,
                column: 1,
            },
        })
        .collect();
    let all: Vec<&Violation> = violations.iter().chain(&unnamable).collect();
    match format {
        CheckFormat::Human => all
            .iter()
            .try_for_each(|v| writeln!(out, "{}: {}: {}", v.def, v.code, v.message)),
        CheckFormat::Github => {
            let paths = JobPaths::new(&root.dir);
            annotations::write_github(&mut out, all.iter().map(|v| annotation(&paths, v)))
        }
        CheckFormat::Gitlab => {
            let paths = JobPaths::new(&root.dir);
            let list: Vec<Annotation> = all.iter().map(|v| annotation(&paths, v)).collect();
            annotations::write_gitlab(&mut out, "soil-lock", &list)
        }
        CheckFormat::Json => {
            let mut report = report_json(&all);
            if let Some(shard) = shard {
                report["shard"] = shard.to_string().into();
            }
            crate::output::write_json(&mut out, &report)
        }
        CheckFormat::Sarif => crate::output::write_json(&mut out, &sarif(root, &all)),
    }
}

fn annotation<'a>(paths: &JobPaths, v: &'a Violation) -> Annotation<'a> {
    Annotation {
        level: Level::Error,
        check: v.code,
        message: &v.message,
        path: paths.of(&v.at.file),
        line: v.at.line,
        column: Some(v.at.column),
        end: None,
        // The definition: a violation keeps its fingerprint while its spec's lines move.
        identity: &v.def,
    }
}

/// `{"ok": …, "violations": [{def, code, message, file, line, column}]}`.
fn report_json(all: &[&Violation]) -> Value {
    json!({
        "ok": all.is_empty(),
        "violations": all.iter().map(|v| json!({
            "def": v.def,
            "code": v.code,
            "message": v.message,
            "file": v.at.file,
            "line": v.at.line,
            "column": v.at.column,
        })).collect::<Vec<_>>(),
    })
}

/// One SARIF 2.1.0 run: the codes as rules, each violation an error result.
fn sarif(root: &Root, all: &[&Violation]) -> Value {
    let rules: Vec<Value> = CODES
        .iter()
        .map(|(id, text)| {
            json!({
                "id": id,
                "shortDescription": { "text": text },
                "helpUri": concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/soil-lock.md#check"),
                "defaultConfiguration": { "level": "error" },
            })
        })
        .collect();
    let results: Vec<Value> = all
        .iter()
        .map(|v| {
            let mut result = json!({
                "ruleId": v.code,
                "level": "error",
                "message": { "text": format!("{}: {}", v.def, v.message) },
                "locations": [{ "physicalLocation": {
                    "artifactLocation": annotations::sarif_artifact(&v.at.file),
                    "region": { "startLine": v.at.line, "startColumn": v.at.column },
                }}],
            });
            if let Some(i) = CODES.iter().position(|(id, _)| *id == v.code) {
                result["ruleIndex"] = i.into();
            }
            result
        })
        .collect();
    let run = json!({ "columnKind": "unicodeCodePoints", "results": results });
    annotations::sarif_log("soil-lock", "docs/soil-lock.md", rules, &root.dir, run)
}
