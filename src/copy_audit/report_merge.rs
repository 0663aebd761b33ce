//! `copy-audit report merge <report>…`: the reports of `--shard 1/N` … `--shard N/N` as
//! the one report an unsharded run prints, byte for byte (JSON or SARIF, whichever the
//! shards are), with the exit code that run would have.
//!
//! A shard's report says which shard it is (`"shard": "K/N"`; in SARIF the run's
//! `properties.shard`), so a set with a shard missing or given twice is refused rather
//! than merged into a report that looks complete. Every file is in exactly one shard, so
//! the merge is a sort by path that keeps each file's findings in their order.

use super::report::{JsonFileError, ReviewStatus};
use super::{Failure, Outcome};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub fn run(paths: &[PathBuf]) -> Result<Outcome, Failure> {
    let mut texts = Vec::with_capacity(paths.len());
    for path in paths {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::new(format!("{}: {e}", path.display())))?;
        texts.push((path.as_path(), text));
    }
    let sarif = |text: &str| text.contains("\"$schema\"") && text.contains("sarif");
    match texts.iter().filter(|(_, t)| sarif(t)).count() {
        0 => merge_json(&texts),
        n if n == texts.len() => merge_sarif(&texts),
        _ => Err(Failure::new(
            "the reports are not all JSON or all SARIF; merge each kind on its own",
        )),
    }
}

/// The JSON report as `--json` writes it, every key in its order: deserialised strictly
/// (a key this does not know would be lost), serialised as the audit serialises it.
#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Report {
    total_files: usize,
    total_findings: usize,
    error_findings: usize,
    warning_findings: usize,
    info_findings: usize,
    findings: Vec<Finding>,
    by_rule: BTreeMap<String, usize>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    file_errors: Vec<JsonFileError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    review_status: Option<ReviewStatus>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<String>,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Finding {
    rule_id: String,
    severity: String,
    file_path: String,
    line: u32,
    column: u32,
    snippet: String,
    message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fix: Option<Fix>,
    relative_path: String,
    end_line: u32,
    end_column: u32,
    segmentation: String,
}

#[derive(Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Fix {
    line: u32,
    column: u32,
    length: u32,
    replacement: String,
}

fn merge_json(texts: &[(&Path, String)]) -> Result<Outcome, Failure> {
    let mut reports = Vec::with_capacity(texts.len());
    for (path, text) in texts {
        let report: Report = serde_json::from_str(text).map_err(|e| {
            Failure::new(format!(
                "{}: not a copy-audit JSON report: {e}",
                path.display()
            ))
        })?;
        reports.push((*path, report));
    }
    check_shards(reports.iter().map(|(p, r)| (*p, r.shard.as_deref())))?;
    let reviewed = reports[0].1.review_status.is_some();
    if let Some((path, _)) = reports
        .iter()
        .find(|(_, r)| r.review_status.is_some() != reviewed)
    {
        return Err(Failure::new(format!(
            "{}: made {} --require-reviewed, unlike {}; run every shard with the same flags",
            path.display(),
            if reviewed { "without" } else { "with" },
            reports[0].0.display()
        )));
    }
    let mut merged = Report {
        total_files: 0,
        total_findings: 0,
        error_findings: 0,
        warning_findings: 0,
        info_findings: 0,
        findings: Vec::new(),
        by_rule: BTreeMap::new(),
        file_errors: Vec::new(),
        review_status: reviewed.then(ReviewStatus::default),
        shard: None,
    };
    // Which report each file came from: a file in two is a sign of shards of different
    // trees or partitions.
    let mut owner: BTreeMap<String, &Path> = BTreeMap::new();
    let mut root: Option<(String, &Path)> = None;
    for (path, r) in reports {
        merged.total_files += r.total_files;
        merged.total_findings += r.total_findings;
        merged.error_findings += r.error_findings;
        merged.warning_findings += r.warning_findings;
        merged.info_findings += r.info_findings;
        for (rule, n) in r.by_rule {
            *merged.by_rule.entry(rule).or_default() += n;
        }
        let mut files: BTreeSet<&str> = BTreeSet::new();
        files.extend(r.findings.iter().map(|f| f.relative_path.as_str()));
        files.extend(r.file_errors.iter().map(|e| e.relative_path.as_str()));
        for file in files {
            if let Some(first) = owner.insert(file.to_owned(), path) {
                return Err(Failure::new(format!(
                    "{file} is in both {} and {}: were they made with the same --shard N, \
                     on the same tree?",
                    first.display(),
                    path.display()
                )));
            }
        }
        for (absolute, relative) in r
            .findings
            .iter()
            .map(|f| (&f.file_path, &f.relative_path))
            .chain(
                r.file_errors
                    .iter()
                    .map(|e| (&e.file_path, &e.relative_path)),
            )
        {
            let this = absolute
                .strip_suffix(relative.as_str())
                .unwrap_or(absolute)
                .to_owned();
            match &root {
                None => root = Some((this, path)),
                Some((seen, first)) if *seen != this => {
                    return Err(Failure::new(format!(
                        "{} audited {this}, {} audited {seen}: the shards of one tree are \
                         merged, not of two",
                        path.display(),
                        first.display()
                    )));
                }
                Some(_) => {}
            }
        }
        merged.findings.extend(r.findings);
        merged.file_errors.extend(r.file_errors);
        if let (Some(into), Some(from)) = (merged.review_status.as_mut(), r.review_status) {
            into.unreviewed.extend(from.unreviewed);
            into.unsegmented.extend(from.unsegmented);
            into.stale.extend(from.stale);
            into.unnamable.extend(from.unnamable);
        }
    }
    // The unsharded order: files by path, each file's findings as found (a stable sort).
    merged
        .findings
        .sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
    merged
        .file_errors
        .sort_by(|a, b| a.relative_path.cmp(&b.relative_path));
    if let Some(review) = merged.review_status.as_mut() {
        for list in [
            &mut review.unreviewed,
            &mut review.unsegmented,
            &mut review.stale,
            &mut review.unnamable,
        ] {
            list.sort();
            // A path that is not UTF-8 is not in any shard: each reports it.
            list.dedup();
        }
    }
    let failed = merged.error_findings > 0
        || !merged.file_errors.is_empty()
        || merged.review_status.as_ref().is_some_and(|r| !r.is_clean());
    crate::output::print_json(&merged);
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Clean
    })
}

/// Refuses a set of reports that is not every shard of one N exactly once (a lone
/// unsharded report is its own merge).
fn check_shards<'a>(
    shards: impl Iterator<Item = (&'a Path, Option<&'a str>)>,
) -> Result<(), Failure> {
    let shards: Vec<_> = shards.collect();
    if let [(_, None)] = shards[..] {
        return Ok(());
    }
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    let mut total = None;
    for (path, shard) in &shards {
        let shard: lockgraph_queries::shard::Shard = shard
            .ok_or_else(|| {
                Failure::new(format!(
                    "{}: not the report of a --shard run; merge the reports of every shard",
                    path.display()
                ))
            })?
            .parse()
            .map_err(|e| Failure::new(format!("{}: shard {e}", path.display())))?;
        match total {
            None => total = Some(shard.n),
            Some(n) if n != shard.n => {
                return Err(Failure::new(format!(
                    "{}: shard {shard}, but the others are shards of {n}",
                    path.display()
                )));
            }
            Some(_) => {}
        }
        if let Some(first) = seen.insert(shard.k, path) {
            return Err(Failure::new(format!(
                "shard {shard} is given twice: {} and {}",
                first.display(),
                path.display()
            )));
        }
    }
    let n = total.unwrap_or(0);
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    if missing.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(format!(
            "shard {} is missing: a merge of some shards would look like a complete report",
            missing.join(", ")
        )))
    }
}

/// SARIF logs of one run each: the first log with every log's results and tool
/// notifications, ordered by file as the unsharded run orders them, laid out as
/// `--format sarif` lays a log out (values with sorted keys, pretty). A result is only
/// sorted and laid out again, so it is kept as its text until it is written: read whole
/// as values, the shards of the real 100k tree took 1.2 GB.
fn merge_sarif(texts: &[(&Path, String)]) -> Result<Outcome, Failure> {
    let mut logs = Vec::with_capacity(texts.len());
    let mut results: Vec<&RawValue> = Vec::new();
    for (path, text) in texts {
        let (log, raw) = read_sarif(text)
            .map_err(|e| Failure::new(format!("{}: not a SARIF log: {e}", path.display())))?
            .ok_or_else(|| {
                Failure::new(format!(
                    "{}: not a copy-audit SARIF log (one run)",
                    path.display()
                ))
            })?;
        logs.push((*path, log));
        results.extend(raw);
    }
    check_shards(
        logs.iter()
            .map(|(p, l)| (*p, l["runs"][0]["properties"]["shard"].as_str())),
    )?;
    let (first_path, mut merged) = logs.remove(0);
    let run = &mut merged["runs"][0];
    for (path, log) in &logs {
        let other = &log["runs"][0];
        for key in ["tool", "originalUriBaseIds", "columnKind"] {
            if other[key] != run[key] {
                return Err(Failure::new(format!(
                    "{}: its `{key}` differs from {}'s: the shards of one tree, made by one \
                     build with one config, are merged",
                    path.display(),
                    first_path.display()
                )));
            }
        }
    }
    let mut notes = take_array(&mut run["invocations"][0]["toolExecutionNotifications"]);
    for (_, mut log) in logs {
        notes.extend(take_array(
            &mut log["runs"][0]["invocations"][0]["toolExecutionNotifications"],
        ));
    }
    notes.sort_by_cached_key(file_of);
    // What the order and the exit code need of each result: its file and whether it is
    // an error, read on every core.
    let keys: Vec<(Vec<u8>, bool)> = results.par_iter().map(|r| key_of(r)).collect();
    let mut order: Vec<usize> = (0..results.len()).collect();
    order.sort_by(|&a, &b| keys[a].0.cmp(&keys[b].0));
    let failed = keys.iter().any(|(_, error)| *error) || !notes.is_empty();
    if run["invocations"][0].is_object() {
        run["invocations"][0]["toolExecutionNotifications"] = Value::Array(notes);
    }
    if let Some(properties) = run.get_mut("properties").and_then(Value::as_object_mut) {
        properties.remove("shard");
        if properties.is_empty() {
            run.as_object_mut().map(|r| r.remove("properties"));
        }
    }
    let ordered = order.into_iter().map(|i| results[i]);
    crate::output::to_stdout(|mut out| {
        super::report::write_log_with(&mut out, &merged, ordered, 16 * 1024, |raw| {
            serde_json::from_str::<Value>(raw.get()).expect("a raw value was checked as JSON")
        })
        .unwrap_or_else(|e| crate::output::failed(&e))
    });
    Ok(if failed {
        Outcome::Failed
    } else {
        Outcome::Clean
    })
}

/// A SARIF log as values, with its one run's results taken out (`[]` in their place) and
/// given as their texts; `None` for a log without exactly one run.
fn read_sarif(text: &str) -> serde_json::Result<Option<(Value, Vec<&RawValue>)>> {
    let top: BTreeMap<String, &RawValue> = serde_json::from_str(text)?;
    let value = |raw: &RawValue| serde_json::from_str::<Value>(raw.get());
    let mut log = serde_json::Map::new();
    let mut results = Vec::new();
    for (key, raw) in top {
        if key != "runs" {
            log.insert(key, value(raw)?);
            continue;
        }
        let Ok(runs) = serde_json::from_str::<Vec<BTreeMap<String, &RawValue>>>(raw.get()) else {
            log.insert(key, value(raw)?);
            continue;
        };
        let mut values = Vec::with_capacity(runs.len());
        for run in runs {
            let mut fields = serde_json::Map::new();
            for (key, raw) in run {
                match serde_json::from_str::<Vec<&RawValue>>(raw.get()) {
                    Ok(list) if key == "results" => {
                        results.extend(list);
                        fields.insert(key, Value::Array(Vec::new()));
                    }
                    _ => {
                        fields.insert(key, value(raw)?);
                    }
                }
            }
            values.push(Value::Object(fields));
        }
        log.insert(key, Value::Array(values));
    }
    let log = Value::Object(log);
    let one_run = log["runs"].as_array().map(Vec::len) == Some(1);
    Ok(one_run.then_some((log, results)))
}

/// A result's file ([`file_of`]) and whether its level is `error`, read without making
/// the result a value where it has the shape `--format sarif` gives it.
fn key_of(raw: &RawValue) -> (Vec<u8>, bool) {
    #[derive(Deserialize)]
    struct Result<'t> {
        #[serde(borrow)]
        level: Option<Cow<'t, str>>,
        #[serde(borrow)]
        locations: Vec<Location<'t>>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Location<'t> {
        #[serde(borrow)]
        physical_location: Physical<'t>,
    }
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Physical<'t> {
        #[serde(borrow)]
        artifact_location: Artifact<'t>,
    }
    #[derive(Deserialize)]
    struct Artifact<'t> {
        #[serde(borrow)]
        uri: Cow<'t, str>,
    }
    match serde_json::from_str::<Result>(raw.get()) {
        Ok(r) => (
            r.locations.first().map_or_else(Vec::new, |l| {
                decoded(&l.physical_location.artifact_location.uri)
            }),
            r.level.as_deref() == Some("error"),
        ),
        // Any other shape, read as a value.
        Err(_) => {
            let v: Value =
                serde_json::from_str(raw.get()).expect("a raw value was checked as JSON");
            (file_of(&v), v["level"] == "error")
        }
    }
}

fn take_array(v: &mut Value) -> Vec<Value> {
    match v.take() {
        Value::Array(items) => items,
        _ => Vec::new(),
    }
}

/// The root-relative path a result or notification is about, as bytes: its URI decoded,
/// so that it sorts as the paths themselves do (`%C3%BA` is `ú`, which sorts after `z`).
fn file_of(v: &Value) -> Vec<u8> {
    let uri = v["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
        .as_str()
        .unwrap_or("");
    decoded(uri)
}

/// A URI's percent-escapes decoded, as bytes.
fn decoded(uri: &str) -> Vec<u8> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap() * 16 + hex(l).unwrap()) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    out
}
