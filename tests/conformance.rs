//! Conformance with the reference script on the real bilingual repository.
//!
//! `../shared/conformance/harness-lab/` holds three commits of the repository that runs the
//! TypeScript copy-audit, each with what the reference printed for it. Each tree is copied
//! to a temporary directory and run with the flags of each `.reference/` file. Exit codes
//! and `--list-unsegmented` must be the reference's exactly; findings (file, line, column,
//! rule) and the review gate may differ only where `tests/conformance/known-differences.tsv`
//! lists the difference, one row per finding, with its reason from a fixed list
//! ([`REASONS`]). An unlisted difference fails, and so does a listed one that no longer
//! happens, so the file stays true.
//!
//! `UPDATE_KNOWN_DIFFERENCES=1 cargo test --test conformance` rewrites the file. Each
//! difference is classified by looking at the text ([`classify`]); one that no rule
//! explains is written as `unexplained`, which the test refuses: a new kind of difference
//! needs a person to decide what it is.

mod common;

use common::Tree;
use lockgraph_queries::copy::lockfile::{Kind, SpanIndex};
use lockgraph_queries::copy::rules::REFERENCE_IDS;
use lockgraph_queries::text::{LineCol, LineIndex};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const COMMITS: [&str; 3] = ["b14f4c7", "ff85c84", "58cfea7"];

const KNOWN: &str = "tests/conformance/known-differences.tsv";

/// Why a finding differs, each a reference defect `spec/copy-audit.md` names, our stricter
/// gate, or a rule the reference lacks.
const REASONS: &[(&str, &str)] = &[
    (
        "escape-drift",
        "reference defect: columns drift after a JSON escape (spec §3, JSON)",
    ),
    (
        "escape-line",
        "reference defect: a decoded \\n in a long JSON string moves the finding to a later line (spec §3, JSON)",
    ),
    (
        "missed-start",
        "reference defect: cs-R1b misses a conjunction at the start of a text, after `(` or an opening quote (spec §4)",
    ),
    (
        "missed-chain",
        "reference defect: cs-R1/cs-R1b miss the second of a chain (spec §4)",
    ),
    (
        "missed-digit",
        "reference defect: cs-R1/cs-R1b miss a one-letter word before a digit (spec §4)",
    ),
    (
        "dash-column",
        "reference defect: cs-R6 reports a column off by one (spec §4)",
    ),
    (
        "markup",
        "reference defect: a rule fires on Markdown markup (spec §3, Markdown)",
    ),
    (
        "stale-english",
        "reference defect: a stale or missing file is audited without spans, so Czech rules fire on English text (spec §5); ours audits it with provisional structural spans, and cs-R1b and cs-R8 fire only in text that reads as Czech",
    ),
    (
        "stale-gate",
        "our stricter gate: --require-reviewed fails on stale entries (spec §1)",
    ),
    ("new-rule", "a rule the reference lacks (spec §4)"),
];

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab")
}

/// One finding, or one entry of the review gate, that only one side reported.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Difference {
    commit: String,
    /// `ours` or `reference`.
    side: &'static str,
    file: String,
    line: u32,
    column: u32,
    /// The rule, or `reviewStatus.stale` for the review gate.
    rule: String,
}

impl Difference {
    fn row(&self, reason: &str) -> String {
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{reason}",
            self.commit, self.side, self.file, self.line, self.column, self.rule
        )
    }
}

type Key = (String, u32, u32, String);

/// What one run printed: its exit code and its JSON.
struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run(tree: &Tree, args: &[&str]) -> Run {
    let out = Command::new(assert_cmd::cargo::cargo_bin("copy-audit"))
        .current_dir(tree.dir.path())
        .args(["--config", ".copy-editor.yaml"])
        .args(args)
        .output()
        .expect("copy-audit runs");
    Run {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 output"),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn reference(commit: &str, name: &str) -> (i32, String) {
    let dir = shared().join(commit).join(".reference");
    let code = std::fs::read_to_string(dir.join(format!("{name}.exit"))).unwrap();
    let json = std::fs::read_to_string(dir.join(format!("{name}.json"))).unwrap();
    (code.trim().parse().unwrap(), json)
}

fn keys(report: &Value, relative: impl Fn(&Value) -> String) -> BTreeSet<Key> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            (
                relative(f),
                f["line"].as_u64().unwrap() as u32,
                f["column"].as_u64().unwrap() as u32,
                f["ruleId"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn ours_relative(f: &Value) -> String {
    f["relativePath"].as_str().unwrap().to_owned()
}

fn reference_relative(f: &Value) -> String {
    let path = f["filePath"].as_str().unwrap();
    path.strip_prefix("<root>/").unwrap_or(path).to_owned()
}

fn strings(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|a| a.iter().map(|s| s.as_str().unwrap().to_owned()).collect())
        .unwrap_or_default()
}

/// Runs one commit as the reference was run and returns its differences, after checking
/// everything that must be identical.
fn differences(commit: &str) -> (Tree, Vec<Difference>) {
    let tree = Tree::copy_of_dir(&shared().join(commit));
    let root = std::fs::canonicalize(tree.dir.path()).unwrap();
    let root = root.to_str().unwrap();

    // --list-unsegmented: byte for byte.
    let (code, expected) = reference(commit, "list-unsegmented");
    let ours = run(&tree, &["--list-unsegmented", "--json"]);
    assert_eq!(ours.code, code, "{commit}: --list-unsegmented exit code");
    assert_eq!(
        ours.stdout.replace(root, "<root>"),
        expected,
        "{commit}: --list-unsegmented --json"
    );

    // `lockfile check` fails exactly where entries in scope are stale, as the list says;
    // the real lockfile's spans past their ends are notes, not failures.
    let check = run(&tree, &["lockfile", "check", "--json"]);
    assert_eq!(check.code, code, "{commit}: lockfile check exit code");
    let check: Value = serde_json::from_str(&check.stdout).unwrap();
    assert!(
        check["problems"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["kind"] != "coversNothing"),
        "{commit}: {check}"
    );

    // The audit: exit code, then the findings.
    let (code, expected) = reference(commit, "audit");
    let audit = run(&tree, &["--json"]);
    assert_eq!(audit.code, code, "{commit}: audit exit code");
    // The real config has a multi-line `voice_doctrine` and a `#anchor` path: no warning.
    assert_eq!(audit.stderr, "", "{commit}: the audit's stderr");
    let ours: Value = serde_json::from_str(&audit.stdout).unwrap();
    let theirs: Value = serde_json::from_str(&expected).unwrap();
    assert!(
        ours.get("fileErrors").is_none(),
        "{commit}: files not audited: {}",
        ours["fileErrors"]
    );
    let (a, b) = (
        keys(&ours, ours_relative),
        keys(&theirs, reference_relative),
    );

    // --require-reviewed: the same findings on each side, the same exit code, and the
    // same gate but for our stale entries.
    let (code, expected) = reference(commit, "require-reviewed");
    let gated = run(&tree, &["--require-reviewed", "--json"]);
    assert_eq!(gated.code, code, "{commit}: --require-reviewed exit code");
    let gated: Value = serde_json::from_str(&gated.stdout).unwrap();
    let gated_theirs: Value = serde_json::from_str(&expected).unwrap();
    assert_eq!(keys(&gated, ours_relative), a, "{commit}: gate findings");
    assert_eq!(
        keys(&gated_theirs, reference_relative),
        b,
        "{commit}: the reference's gate findings"
    );
    for list in ["unreviewed", "unsegmented"] {
        assert_eq!(
            strings(&gated["reviewStatus"][list]),
            strings(&gated_theirs["reviewStatus"][list]),
            "{commit}: reviewStatus.{list}"
        );
    }
    let stale_theirs = strings(&gated_theirs["reviewStatus"]["stale"]);
    let mut out = Vec::new();
    for file in strings(&gated["reviewStatus"]["stale"]) {
        if !stale_theirs.contains(&file) {
            out.push(Difference {
                commit: commit.to_owned(),
                side: "ours",
                file,
                line: 0,
                column: 0,
                rule: "reviewStatus.stale".to_owned(),
            });
        }
    }

    let diff = |side: &'static str, keys: &BTreeSet<Key>| {
        keys.iter()
            .map(|(file, line, column, rule)| Difference {
                commit: commit.to_owned(),
                side,
                file: file.clone(),
                line: *line,
                column: *column,
                rule: rule.clone(),
            })
            .collect::<Vec<_>>()
    };
    out.extend(diff("ours", &a.difference(&b).cloned().collect()));
    out.extend(diff("reference", &b.difference(&a).cloned().collect()));
    out.sort();
    (tree, out)
}

fn read_known() -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN))
        .unwrap_or_default();
    let mut rows = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let (row, reason) = line
            .rsplit_once('\t')
            .unwrap_or_else(|| panic!("{KNOWN}:{}: not a row: {line}", n + 1));
        assert!(
            REASONS.iter().any(|(r, _)| *r == reason),
            "{KNOWN}:{}: reason `{reason}` is not one of the fixed list",
            n + 1
        );
        rows.insert(row.to_owned(), reason.to_owned());
    }
    rows
}

#[test]
fn every_difference_from_the_reference_is_known() {
    if !shared().exists() {
        assert!(
            std::env::var_os("LOCKGRAPH_SKIP_CONFORMANCE").is_some(),
            "{} is missing: the conformance tests read the shared data beside the clone \
             (LOCKGRAPH_SKIP_CONFORMANCE=1 skips them)",
            shared().display()
        );
        return;
    }
    let update = std::env::var_os("UPDATE_KNOWN_DIFFERENCES").is_some();
    let mut rows = Vec::new();
    for commit in COMMITS {
        let (tree, diffs) = differences(commit);
        let reasons = classify(commit, &tree, &diffs);
        rows.extend(diffs.iter().zip(reasons).map(|(d, r)| d.row(r)));
    }
    if update {
        write_known(&rows);
    }
    let known = read_known();
    let mut problems = String::new();
    for row in &rows {
        let (key, _) = row.rsplit_once('\t').unwrap();
        if !known.contains_key(key) {
            writeln!(problems, "not in {KNOWN}: {row}").unwrap();
        }
    }
    let actual: BTreeSet<&str> = rows
        .iter()
        .map(|r| r.rsplit_once('\t').unwrap().0)
        .collect();
    for (key, reason) in &known {
        if !actual.contains(key.as_str()) {
            writeln!(
                problems,
                "listed but no longer a difference: {key}\t{reason}"
            )
            .unwrap();
        }
    }
    assert!(
        problems.is_empty(),
        "{problems}(UPDATE_KNOWN_DIFFERENCES=1 rewrites the file; check every new row)"
    );
}

fn write_known(rows: &[String]) {
    let mut text = String::from(
        "# Every finding where copy-audit and the reference script differ on the real\n\
         # repository (../shared/conformance/harness-lab), one row each; tests/conformance.rs\n\
         # fails on any difference not listed here and on any row that no longer happens.\n\
         # Rewritten by `UPDATE_KNOWN_DIFFERENCES=1 cargo test --test conformance`.\n#\n\
         # Reasons:\n",
    );
    for (reason, why) in REASONS {
        writeln!(text, "#   {reason}: {why}").unwrap();
    }
    text.push_str(
        "#\n# Line and column are the side's own (UTF-16 columns); a review-gate row has 0 0.\n\
         # commit\tside\tfile\tline\tcolumn\trule\treason\n",
    );
    for row in rows {
        text.push_str(row);
        text.push('\n');
    }
    let unexplained = rows.iter().filter(|r| r.ends_with("\tunexplained")).count();
    std::fs::write(Path::new(env!("CARGO_MANIFEST_DIR")).join(KNOWN), text).unwrap();
    assert_eq!(
        unexplained, 0,
        "{unexplained} differences no reason explains"
    );
}

/// A character of a JSON string value as the reference places it: it searched string
/// literals with a regular expression, decoded `\"`, `\\`, `\n` and `\t` (no other
/// escape), and counted lines and columns in the decoded text from the literal's start.
struct Placed {
    /// Source byte offset of the character (the escape's backslash for an escape).
    source: usize,
    at: LineCol,
}

/// Every character of every JSON string value of `text` with the reference's position,
/// and each value's decoded text.
fn reference_places(text: &str) -> (Vec<Placed>, Vec<(std::ops::Range<usize>, String)>) {
    let index = LineIndex::new(text);
    let bytes = text.as_bytes();
    let (mut places, mut values) = (Vec::new(), Vec::new());
    let mut i = 0;
    while let Some(open) = text[i..].find('"').map(|o| i + o) {
        // The literal's end: the next unescaped quote.
        let mut j = open + 1;
        while j < bytes.len() && bytes[j] != b'"' {
            j += if bytes[j] == b'\\' { 2 } else { 1 };
        }
        let close = j.min(bytes.len());
        i = close + 1;
        if text[i.min(text.len())..].trim_start().starts_with(':') {
            continue; // a key
        }
        let start = index.line_col(text, open + 1);
        let (mut line, mut column) = (start.line, start.column);
        let mut decoded = String::new();
        let mut k = open + 1;
        while k < close {
            let next = text[k..].chars().next().unwrap();
            let (c, len) = match (next, bytes.get(k + 1)) {
                ('\\', Some(b'"')) => ('"', 2),
                ('\\', Some(b'\\')) => ('\\', 2),
                ('\\', Some(b'n')) => ('\n', 2),
                ('\\', Some(b't')) => ('\t', 2),
                _ => (next, next.len_utf8()),
            };
            places.push(Placed {
                source: k,
                at: LineCol { line, column },
            });
            if c == '\n' {
                line += 1;
                column = 1;
            } else {
                column += c.len_utf16() as u32;
            }
            decoded.push(c);
            k += len;
        }
        values.push((open + 1..close, decoded));
    }
    (places, values)
}

/// The reason for each difference (see [`REASONS`]), or `unexplained`.
fn classify(commit: &str, tree: &Tree, diffs: &[Difference]) -> Vec<&'static str> {
    let (_, list) = reference(commit, "list-unsegmented");
    let list: Value = serde_json::from_str(&list).unwrap();
    let unsegmented: BTreeSet<String> = list["unsegmented"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["path"].as_str().unwrap().to_owned())
        .collect();
    let mut texts: BTreeMap<&str, String> = BTreeMap::new();
    for d in diffs {
        texts
            .entry(d.file.as_str())
            .or_insert_with(|| tree.read(&d.file));
    }
    let places: BTreeMap<&str, _> = texts
        .iter()
        .filter(|(f, _)| f.ends_with(".json"))
        .map(|(f, t)| (*f, reference_places(t)))
        .collect();
    let mut provisional: BTreeMap<&str, Option<SpanIndex>> = BTreeMap::new();
    let on_their_side = |d: &Difference, side: &str, at: LineCol| {
        diffs.iter().any(|o| {
            o.side == side
                && o.file == d.file
                && o.rule == d.rule
                && (o.line, o.column) == (at.line, at.column)
        })
    };
    diffs
        .iter()
        .map(|d| {
            if d.rule == "reviewStatus.stale" {
                return "stale-gate";
            }
            let text = &texts[d.file.as_str()];
            let index = LineIndex::new(text);
            let at = LineCol {
                line: d.line,
                column: d.column,
            };
            // The same finding, placed where the reference places a JSON string's text.
            if let Some((placed, _)) = places.get(d.file.as_str()) {
                let partner = match d.side {
                    "ours" => index
                        .offset(text, at)
                        .and_then(|o| placed.iter().find(|p| p.source == o))
                        .map(|p| p.at)
                        .filter(|&p| p != at && on_their_side(d, "reference", p)),
                    _ => placed
                        .iter()
                        .find(|p| p.at == at)
                        .map(|p| index.line_col(text, p.source))
                        .filter(|&p| p != at && on_their_side(d, "ours", p)),
                };
                if let Some(p) = partner {
                    return if p.line == at.line {
                        "escape-drift"
                    } else {
                        "escape-line"
                    };
                }
            }
            if d.rule == "cs-R6-dash" {
                let shifted = |by: i64| LineCol {
                    line: at.line,
                    column: (i64::from(at.column) + by) as u32,
                };
                let other = if d.side == "ours" {
                    "reference"
                } else {
                    "ours"
                };
                let by = if d.side == "ours" { -1 } else { 1 };
                if on_their_side(d, other, shifted(by)) {
                    return "dash-column";
                }
            }
            if d.side == "ours" {
                if !REFERENCE_IDS.contains(&d.rule.as_str()) {
                    return "new-rule";
                }
                if d.rule.starts_with("cs-R1") {
                    return one_letter_word(text, &index, at);
                }
                return "unexplained";
            }
            // The reference's alone: Czech rules on a stale file's English text, which our
            // provisional spans tag as another language (or which does not read as Czech,
            // for the two rules that ask).
            if d.rule.starts_with("cs-") && unsegmented.contains(&d.file) {
                let source = match places.get(d.file.as_str()) {
                    Some((placed, _)) => placed.iter().find(|p| p.at == at).map(|p| p.source),
                    None => index.offset(text, at),
                };
                let value = places.get(d.file.as_str()).and_then(|(_, values)| {
                    values
                        .iter()
                        .find(|(r, _)| source.is_some_and(|s| r.contains(&s)))
                        .map(|(_, v)| v)
                });
                let provisional = source.and_then(|s| {
                    let spans = provisional
                        .entry(d.file.as_str())
                        .or_insert_with(|| provisional_spans(&d.file, text));
                    language_at(spans.as_ref()?, s)
                });
                let gated = matches!(
                    d.rule.as_str(),
                    "cs-R1b-nbsp-conjunction" | "cs-R8-english-day-month"
                ) && value
                    .is_some_and(|v| !lockgraph_queries::copy::language::reads_as_czech(v));
                if provisional.as_deref() != Some("cs") || gated {
                    return "stale-english";
                }
            }
            "unexplained"
        })
        .collect()
}

/// Why the reference missed one of our cs-R1/cs-R1b findings at `at`: its patterns need
/// whitespace (or a sentence mark and a space) before the letter and a letter after.
fn one_letter_word(text: &str, index: &LineIndex, at: LineCol) -> &'static str {
    let Some(offset) = index.offset(text, at) else {
        return "unexplained";
    };
    let before = text[..offset].chars().next_back();
    let after = text[offset..].chars().nth(2);
    match (before, after) {
        (Some('"' | '(' | '„' | '\'' | '[' | '«') | None, _) => "missed-start",
        (Some('\u{a0}'), _) => "missed-chain",
        (_, Some(c)) if c.is_ascii_digit() => "missed-digit",
        _ => "unexplained",
    }
}

/// Our provisional spans for a file without a fresh entry, as the audit computes them.
fn provisional_spans(path: &str, text: &str) -> Option<SpanIndex> {
    use lockgraph_queries::copy::extract::{Format, extract};
    use lockgraph_queries::copy::structural::{Setup, spans};
    let format = Format::from_path(path);
    let views = extract(format, text).ok()?;
    let declared = ["cs".to_owned()];
    let setup = Setup {
        declared: &declared,
        default_language: "cs",
        locale: None,
    };
    let spans = spans(format, text, &views, &setup);
    SpanIndex::new(text, &LineIndex::new(text), &spans).ok()
}

/// The language `spans` give the character at `offset`: None for data, the default (Czech
/// here) in a gap.
fn language_at(spans: &SpanIndex, offset: usize) -> Option<String> {
    match spans.at(offset) {
        None => Some("cs".to_owned()),
        Some((Kind::Code | Kind::Data, _)) => None,
        Some((_, language)) => Some(language.to_owned()),
    }
}

/// The fixed list itself: every reason is documented, once.
#[test]
fn reasons_are_a_short_fixed_list() {
    let names: BTreeSet<&str> = REASONS.iter().map(|(r, _)| *r).collect();
    assert_eq!(names.len(), REASONS.len());
    assert!(REASONS.len() <= 12);
}
