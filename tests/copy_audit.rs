//! End-to-end tests of the `copy-audit` binary on a private copy of `fixtures/copy`.
//!
//! The fixture's lockfile holds one fresh reviewed entry (`content/talks/uvod.md`), one
//! fresh unreviewed entry (`content/agenda.json`), one stale entry
//! (`content/guide/setup.en.md`) and no entry for `src/components/Welcome.tsx`.

mod common;

use assert_cmd::Command;
use common::{Tree, json};
use serde_json::Value;

const UVOD: &str = "content/talks/uvod.md";
const AGENDA: &str = "content/agenda.json";
const SETUP: &str = "content/guide/setup.en.md";
const WELCOME: &str = "src/components/Welcome.tsx";
const LOCK: &str = ".copy-editor.lock.json";

fn audit_json(tree: &Tree, args: &[&str]) -> (i32, Value) {
    let out = tree.copy_audit().arg("--json").args(args).output().unwrap();
    let code = out.status.code().unwrap();
    (code, json(&out.stdout))
}

fn findings<'a>(report: &'a Value, file: &str, rule: &str) -> Vec<&'a Value> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["relativePath"] == file && f["ruleId"] == rule)
        .collect()
}

fn positions(report: &Value, file: &str, rule: &str) -> Vec<(u64, u64)> {
    findings(report, file, rule)
        .iter()
        .map(|f| (f["line"].as_u64().unwrap(), f["column"].as_u64().unwrap()))
        .collect()
}

#[test]
fn audit_reports_the_contract_keys_and_fails_on_errors() {
    let tree = Tree::copy_of("copy");
    let (code, r) = audit_json(&tree, &[]);
    assert_eq!(code, 1, "error findings exit 1");
    for key in [
        "totalFiles",
        "totalFindings",
        "errorFindings",
        "warningFindings",
        "infoFindings",
        "byRule",
        "findings",
    ] {
        assert!(r.get(key).is_some(), "missing key {key}");
    }
    assert_eq!(r["totalFiles"], 4, "drafts are excluded");
    assert!(r.get("reviewStatus").is_none());
    let total = r["totalFindings"].as_u64().unwrap();
    let by_rule: u64 = r["byRule"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(total, by_rule);
    assert_eq!(
        total,
        r["errorFindings"].as_u64().unwrap()
            + r["warningFindings"].as_u64().unwrap()
            + r["infoFindings"].as_u64().unwrap()
    );
    for f in r["findings"].as_array().unwrap() {
        for key in [
            "ruleId", "severity", "filePath", "line", "column", "snippet", "message",
        ] {
            assert!(f.get(key).is_some(), "finding lacks {key}: {f}");
        }
    }
}

#[test]
fn findings_land_on_exact_positions_in_czech_markdown() {
    let tree = Tree::copy_of("copy");
    let (_, r) = audit_json(&tree, &[]);
    // "pracovat s\nagenty": `s` at the end of line 8, before a soft line break.
    let r1 = positions(&r, UVOD, "cs-R1-nbsp-prep");
    assert!(
        r1.contains(&(8, 61)),
        "a preposition before a line break fires: {r1:?}"
    );
    // "k 5. výročí": a digit after the preposition.
    assert!(r1.contains(&(9, 39)), "{r1:?}");
    // Nothing inside the link target `https://example.com/v-a-k` or the code fence.
    assert_eq!(
        r1,
        vec![
            (8, 23),
            (8, 61),
            (9, 8),
            (9, 39),
            (9, 60),
            (11, 57),
            (25, 21),
            (25, 66),
            (30, 32)
        ]
    );
    // "50Kč" and "20%": at the digit before the unit.
    assert_eq!(
        positions(&r, UVOD, "cs-R4-number-unit"),
        vec![(11, 13), (11, 31)]
    );
    // "1.dubna" at the first digit.
    assert_eq!(positions(&r, UVOD, "cs-R5-ordinal-space"), vec![(11, 49)]);
    // "jednoduše - ale": exactly at the hyphen; "23-26" at the hyphen.
    assert_eq!(positions(&r, UVOD, "cs-R6-dash"), vec![(13, 39), (30, 20)]);
    assert_eq!(
        positions(&r, UVOD, "cs-R8-english-day-month"),
        vec![(30, 34), (30, 43)]
    );
}

#[test]
fn code_quote_spans_and_the_ignore_marker_silence_findings() {
    let tree = Tree::copy_of("copy");
    let (_, r) = audit_json(&tree, &[]);
    for f in r["findings"].as_array().unwrap() {
        if f["relativePath"] != UVOD {
            continue;
        }
        let line = f["line"].as_u64().unwrap();
        assert!(
            !(19..=22).contains(&line),
            "no finding inside the code fence: {f}"
        );
        let czech = f["ruleId"].as_str().unwrap().starts_with("cs-");
        assert!(
            !(czech && line == 28),
            "the quotation is an `en` quote span: {f}"
        );
        assert_ne!(line, 33, "the ignore marker covers the next line: {f}");
    }
    // The soil under `agenda-v2.json` (inline code and a file name) never fires R5.
    assert!(
        positions(&r, UVOD, "cs-R5-ordinal-space")
            .iter()
            .all(|&(l, _)| l == 11)
    );
}

#[test]
fn json_branches_follow_their_spans_language() {
    let tree = Tree::copy_of("copy");
    let (_, r) = audit_json(&tree, &[]);
    // `...` in an `en` span is the English rule's, in a `cs` span (or a gap) the Czech one's.
    assert_eq!(positions(&r, AGENDA, "en-R1-ellipsis"), vec![(15, 42)]);
    assert_eq!(positions(&r, AGENDA, "cs-R3-ellipsis"), vec![(9, 56)]);
    // A spaced hyphen in the English subtitle is not a Czech dash finding.
    assert!(positions(&r, AGENDA, "cs-R6-dash").is_empty());
    // Czech strings in gaps take the config default (cs): `k 5.` after an escaped quote
    // lands on the right column.
    assert_eq!(
        positions(&r, AGENDA, "cs-R1-nbsp-prep"),
        vec![(9, 29), (9, 37), (9, 49), (16, 58), (21, 31), (21, 41)]
    );
}

#[test]
fn human_output_shows_the_source_line_and_a_caret() {
    let tree = Tree::copy_of("copy");
    let out = tree.copy_audit().output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("cs-R5-ordinal-space"), "{text}");
    assert!(text.contains("content/talks/uvod.md:11:49"), "{text}");
    assert!(
        text.contains("Program začne 1.dubna"),
        "source line shown: {text}"
    );
    assert!(text.contains('^'), "caret shown: {text}");
    assert!(text.contains("BLOCKING"), "{text}");
}

/// Files are drawn side by side a window at a time: across several windows, the human
/// output names every finding, in the JSON report's order, at the JSON report's place.
#[test]
fn human_output_keeps_path_order_across_windows_of_files() {
    let tree = Tree::copy_of("copy");
    for i in 0..1_100 {
        let padding = "Věta bez chyby.\n\n".repeat(i % 7);
        tree.write(
            &format!("content/talks/many/{i:04}.md"),
            &format!("# Soubor {i}\n\n{padding}Jdu v lese číslo {i}.\n"),
        );
    }
    let (_, report) = audit_json(&tree, &[]);
    let want: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{}:{}:{}",
                f["relativePath"].as_str().unwrap(),
                f["line"],
                f["column"]
            )
        })
        .collect();
    assert!(want.len() > 1_100, "{}", want.len());
    let out = tree.copy_audit().output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let got: Vec<&str> = text
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("--> "))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn list_unsegmented_names_missing_and_stale_files() {
    let tree = Tree::copy_of("copy");
    let (code, r) = audit_json(&tree, &["--list-unsegmented"]);
    assert_eq!(code, 1);
    assert_eq!(r["totalFiles"], 4);
    assert_eq!(r["unsegmentedCount"], 2);
    let list = r["unsegmented"].as_array().unwrap();
    assert_eq!(list[0]["path"], SETUP);
    assert_eq!(list[0]["reason"], "stale");
    assert!(
        list[0]["expectedHash"]
            .as_str()
            .unwrap()
            .starts_with("sha256:")
    );
    assert_ne!(list[0]["expectedHash"], list[0]["actualHash"]);
    assert_eq!(list[1]["path"], WELCOME);
    assert_eq!(list[1]["reason"], "missing");
    assert!(list[1].get("expectedHash").is_none());
}

#[test]
fn require_reviewed_fails_on_unreviewed_missing_and_stale_entries() {
    let tree = Tree::copy_of("copy");
    let (code, r) = audit_json(
        &tree,
        &[
            "--require-reviewed",
            "--paths",
            "content/**/*.md,content/*.json,src/**/*.tsx",
        ],
    );
    assert_eq!(code, 1);
    let status = &r["reviewStatus"];
    assert_eq!(status["unreviewed"], serde_json::json!([AGENDA]));
    assert_eq!(status["unsegmented"], serde_json::json!([WELCOME]));
    assert_eq!(
        status["stale"],
        serde_json::json!([SETUP]),
        "stale entries fail the gate"
    );
}

#[test]
fn require_reviewed_passes_when_every_entry_is_fresh_and_reviewed() {
    let tree = Tree::copy_of("copy");
    let (code, r) = audit_json(
        &tree,
        &["--require-reviewed", "--paths", "content/talks/*.md"],
    );
    assert_eq!(r["reviewStatus"]["unreviewed"], serde_json::json!([]));
    assert_eq!(r["reviewStatus"]["stale"], serde_json::json!([]));
    assert_eq!(code, 1, "the gate passes, the error findings still fail");
    tree.write(
        ".copy-editor.yaml",
        &tree.read(".copy-editor.yaml").replace("ignore_marker", "rules:\n  disable: [cs-R1-nbsp-prep, cs-R4-number-unit, cs-R5-ordinal-space, cs-R8-english-day-month, cs-R2-quotes, cs-R3-ellipsis]\nignore_marker"),
    );
    let (code, r) = audit_json(
        &tree,
        &["--require-reviewed", "--paths", "content/talks/*.md"],
    );
    assert_eq!(r["errorFindings"], 0, "{r}");
    assert_eq!(code, 0, "{r}");
}

#[test]
fn lockfile_list_shows_every_entry() {
    let tree = Tree::copy_of("copy");
    let out = tree
        .copy_audit()
        .args(["lockfile", "list", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let r = json(&out.stdout);
    assert_eq!(r["schemaVersion"], 1);
    assert_eq!(r["segmenter"]["backend"], "agent");
    let files = r["files"].as_array().unwrap();
    let paths: Vec<&str> = files.iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, [AGENDA, SETUP, UVOD]);
    assert_eq!(files[0]["reviewedBy"], Value::Null);
    assert_eq!(files[2]["spanCount"], 5);
}

#[test]
fn mark_reviewed_sets_the_reviewer_and_refuses_stale_or_missing_entries() {
    let tree = Tree::copy_of("copy");
    tree.copy_audit()
        .args([
            "lockfile",
            "mark-reviewed",
            AGENDA,
            "--by",
            "eva@2026-11-30",
        ])
        .assert()
        .success();
    assert!(
        tree.read(LOCK)
            .contains("\"reviewedBy\": \"eva@2026-11-30\"")
    );
    let stale = tree
        .copy_audit()
        .args(["lockfile", "mark-reviewed", SETUP, "--by", "eva"])
        .output()
        .unwrap();
    assert_eq!(stale.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&stale.stderr).contains("changed since it was segmented"));
    let missing = tree
        .copy_audit()
        .args(["lockfile", "mark-reviewed", WELCOME, "--by", "eva"])
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no lockfile entry"));
}

#[test]
fn lockfile_add_validates_spans_and_needs_force_to_replace() {
    let tree = Tree::copy_of("copy");
    let spans = r#"{"spans":[{"startLine":9,"startColumn":23,"endLine":9,"endColumn":50,"language":"cs","kind":"prose","pathHint":"greeting","note":null}]}"#;
    tree.copy_audit()
        .args(["lockfile", "add", WELCOME, "--spans", "-"])
        .write_stdin(spans)
        .assert()
        .success();
    let lock = json(tree.read(LOCK).as_bytes());
    let entry = &lock["files"][WELCOME];
    assert_eq!(entry["reviewedBy"], Value::Null);
    assert_eq!(entry["spans"][0]["pathHint"], "greeting");
    assert!(entry["segmentedAt"].as_str().unwrap().ends_with('Z'));

    let again = tree
        .copy_audit()
        .args(["lockfile", "add", WELCOME, "--spans", "-"])
        .write_stdin(spans)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));

    let overlapping = r#"{"spans":[
        {"startLine":9,"startColumn":1,"endLine":9,"endColumn":10,"language":"cs","kind":"prose"},
        {"startLine":9,"startColumn":5,"endLine":9,"endColumn":12,"language":"cs","kind":"code"}]}"#;
    let bad = tree
        .copy_audit()
        .args(["lockfile", "add", WELCOME, "--spans", "-", "--force"])
        .write_stdin(overlapping)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&bad.stderr).contains("span 2"),
        "{}",
        String::from_utf8_lossy(&bad.stderr)
    );

    let outside = r#"{"spans":[{"startLine":99,"startColumn":1,"endLine":99,"endColumn":2,"language":"cs","kind":"prose"}]}"#;
    let bad = tree
        .copy_audit()
        .args(["lockfile", "add", WELCOME, "--spans", "-", "--force"])
        .write_stdin(outside)
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn forced_refresh_of_a_reviewed_entry_keeps_notes_and_resets_the_review() {
    let tree = Tree::copy_of("copy");
    // The quotation on line 28 keeps its note when re-segmented with the same language/kind.
    let spans = r#"{"spans":[{"startLine":28,"startColumn":3,"endLine":28,"endColumn":67,"language":"en","kind":"quote"}]}"#;
    tree.copy_audit()
        .args(["lockfile", "add", UVOD, "--spans", "-", "--force"])
        .write_stdin(spans)
        .assert()
        .success();
    let lock = json(tree.read(LOCK).as_bytes());
    let entry = &lock["files"][UVOD];
    assert_eq!(entry["reviewedBy"], Value::Null);
    assert_eq!(entry["spans"][0]["note"], "English quotation");
}

#[test]
fn invalidate_removes_matching_entries_and_leaves_an_unchanged_lockfile_alone() {
    let tree = Tree::copy_of("copy");
    let before = std::fs::metadata(tree.path(LOCK))
        .unwrap()
        .modified()
        .unwrap();
    tree.copy_audit()
        .args(["lockfile", "invalidate", "nothing/**"])
        .assert()
        .success();
    assert_eq!(
        std::fs::metadata(tree.path(LOCK))
            .unwrap()
            .modified()
            .unwrap(),
        before
    );
    tree.copy_audit()
        .args(["lockfile", "invalidate", "content/guide/*"])
        .assert()
        .success();
    let lock = json(tree.read(LOCK).as_bytes());
    assert!(lock["files"].get(SETUP).is_none());
    assert!(lock["files"].get(UVOD).is_some());
}

#[test]
fn segment_prints_the_handoff_and_refuses_paths_outside_the_root() {
    let tree = Tree::copy_of("copy");
    let out = tree
        .copy_audit()
        .args(["segment", UVOD, "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let h = json(&out.stdout);
    assert_eq!(h["relativePath"], UVOD);
    assert!(h["relativePath"].as_str().unwrap().ends_with(UVOD));
    assert_eq!(h["declaredProfiles"], serde_json::json!(["cs", "en"]));
    assert!(h["promptVersion"].as_u64().unwrap() >= 1);
    assert!(h["nextStep"].as_str().unwrap().contains("lockfile add"));
    let prompt = h["prompt"].as_str().unwrap();
    assert!(
        prompt.contains("Vítejte na workshopu"),
        "file bytes interpolated"
    );
    assert!(!prompt.contains("{{"), "every placeholder filled");
    assert!(h["outputSchema"]["shape"]["spans"].is_array());
    assert_eq!(
        h["surfaceProfile"], "presenter",
        "paths.surface_profile passed through"
    );
    let guide = tree
        .copy_audit()
        .args(["segment", "content/guide/setup.en.md", "--json"])
        .output()
        .unwrap();
    assert_eq!(
        json(&guide.stdout)["localeHint"],
        "en",
        "paths.locale passed through"
    );

    let outside = tree.copy_audit().args(["segment", "../"]).output().unwrap();
    assert_eq!(outside.status.code(), Some(2));
}

#[test]
fn fix_touches_only_fresh_files_outside_code_and_other_languages_and_is_idempotent() {
    let tree = Tree::copy_of("copy");
    let welcome_before = tree.read(WELCOME);
    let agenda_before = tree.read(AGENDA);
    let fixed = tree.copy_audit().arg("--fix").output().unwrap();
    let said = String::from_utf8_lossy(&fixed.stderr);
    assert!(
        said.lines()
            .any(|l| l.starts_with("Applied ") && l.ends_with(" fixes in 2 files")),
        "the reference's summary line: {said}"
    );
    let uvod = tree.read(UVOD);
    assert!(uvod.contains("v\u{a0}reálném"), "R1 fixed");
    assert!(
        uvod.contains("agenty\u{a0}v\u{a0}reálném") || uvod.contains("s\u{a0}agenty"),
        "{uvod}"
    );
    assert!(uvod.contains("cd v s k"), "code fence untouched");
    assert!(
        uvod.contains("Tady je záměrně chyba: v domě."),
        "ignored line untouched"
    );
    assert_eq!(tree.read(WELCOME), welcome_before, "no entry: not fixed");
    let agenda = tree.read(AGENDA);
    assert!(
        agenda.contains("Welcome and setup…"),
        "en-R1 fixed inside the `en` span"
    );
    assert_ne!(
        agenda, agenda_before,
        "the unreviewed but fresh JSON entry is fixed"
    );
    assert!(
        agenda.contains("\"A workshop on working with AI agents – in practice\""),
        "the English span gets English fixes only (no Czech no-break space after `A`): {agenda}"
    );

    let snapshot: Vec<String> = [UVOD, AGENDA, WELCOME, SETUP, LOCK]
        .iter()
        .map(|p| tree.read(p))
        .collect();
    let second = tree.copy_audit().arg("--fix").output().unwrap();
    let again: Vec<String> = [UVOD, AGENDA, WELCOME, SETUP, LOCK]
        .iter()
        .map(|p| tree.read(p))
        .collect();
    assert_eq!(snapshot, again, "a second --fix changes nothing");
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(said.contains("Applied 0 fixes in 0 files"), "{said}");

    tree.copy_audit()
        .args(["--fix", "--fix-unsegmented"])
        .output()
        .unwrap();
    assert_ne!(
        tree.read(WELCOME),
        welcome_before,
        "--fix-unsegmented reaches missing entries"
    );
}

#[test]
fn a_nbsp_only_fix_reanchors_the_entry_and_keeps_its_review() {
    let tree = Tree::copy_of("copy");
    tree.write("content/talks/kratce.md", "Sejdeme se v pondělí.\n");
    // Segment and review it through the CLI, then fix.
    tree.copy_audit()
        .args(["lockfile", "add", "content/talks/kratce.md", "--spans", "-"])
        .write_stdin(r#"{"spans":[]}"#)
        .assert()
        .success();
    tree.copy_audit()
        .args([
            "lockfile",
            "mark-reviewed",
            "content/talks/kratce.md",
            "--by",
            "eva",
        ])
        .assert()
        .success();
    tree.copy_audit()
        .args(["--fix", "--paths", "content/talks/kratce.md"])
        .output()
        .unwrap();
    assert_eq!(
        tree.read("content/talks/kratce.md"),
        "Sejdeme se v\u{a0}pondělí.\n"
    );
    let (code, r) = audit_json(
        &tree,
        &["--require-reviewed", "--paths", "content/talks/kratce.md"],
    );
    assert_eq!(
        r["reviewStatus"]["stale"],
        serde_json::json!([]),
        "re-anchored: {r}"
    );
    assert_eq!(
        r["reviewStatus"]["unreviewed"],
        serde_json::json!([]),
        "review kept: {r}"
    );
    assert_eq!(code, 0, "{r}");
}

#[test]
fn lockfile_errors_exit_2_and_never_overwrite_the_lockfile() {
    let tree = Tree::copy_of("copy");
    let broken = tree
        .read(LOCK)
        .replacen("\"schemaVersion\": 1", "\"schemaVersion\": 2", 1);
    tree.write(LOCK, &broken);
    let out = tree.copy_audit().arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown lockfile schemaVersion 2; this copy-audit reads 1"),
        "{err}"
    );
    assert!(err.contains(LOCK), "names the file: {err}");

    let truncated =
        &broken[..broken.len() / 2].replacen("\"schemaVersion\": 2", "\"schemaVersion\": 1", 1);
    tree.write(LOCK, truncated);
    let out = tree
        .copy_audit()
        .args(["lockfile", "mark-reviewed", AGENDA, "--by", "eva"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        tree.read(LOCK),
        *truncated,
        "an unreadable lockfile is never overwritten"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line"), "says where: {err}");
}

#[test]
fn a_lockfile_path_escaping_the_root_is_refused() {
    let tree = Tree::copy_of("copy");
    let escaped = tree
        .read(LOCK)
        .replacen("\"content/agenda.json\"", "\"../agenda.json\"", 1);
    tree.write(LOCK, &escaped);
    let out = tree.copy_audit().arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("../agenda.json"));
}

#[test]
fn invalid_utf8_is_a_per_file_error_not_a_crash() {
    let tree = Tree::copy_of("copy");
    std::fs::write(tree.path("content/talks/broken.md"), b"ok\n\xff\xfe bad\n").unwrap();
    let (code, r) = audit_json(&tree, &[]);
    assert_eq!(code, 1);
    let errors = r["fileErrors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["relativePath"], "content/talks/broken.md");
    assert_eq!(errors[0]["line"], 2);
    assert!(
        r["totalFindings"].as_u64().unwrap() > 0,
        "other files still audited"
    );
}

#[test]
fn config_errors_exit_2_with_the_reason() {
    let tree = Tree::copy_of("copy");
    tree.write(".copy-editor.yaml", "paths:\n  include: [\"**/*.md\"]\n");
    let out = tree.copy_audit().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--lang"));
    // --lang supplies the missing language.
    let out = tree
        .copy_audit()
        .args(["--lang", "cs", "--json"])
        .output()
        .unwrap();
    assert_ne!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    tree.write(".copy-editor.yaml", "language: cs\npaths:\n  include: [\n");
    let out = tree.copy_audit().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains(".copy-editor.yaml"));
}

#[test]
fn self_test_passes() {
    let tree = Tree::copy_of("copy");
    let out = tree.copy_audit().arg("--self-test").output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("0 failed"));
}

#[test]
fn usage_errors_exit_2() {
    let tree = Tree::copy_of("copy");
    assert_eq!(
        tree.copy_audit()
            .arg("--no-such-flag")
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        tree.copy_audit()
            .args(["--json", "--format", "human"])
            .output()
            .unwrap()
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn concurrent_lockfile_edits_never_lose_an_entry() {
    let tree = Tree::copy_of("copy");
    let names: Vec<String> = (0..8).map(|i| format!("content/talks/n{i}.md")).collect();
    for n in &names {
        tree.write(n, "Krátký text.\n");
    }
    let bin = assert_cmd::cargo::cargo_bin("copy-audit");
    let children: Vec<_> = names
        .iter()
        .map(|n| {
            let mut child = std::process::Command::new(&bin)
                .args(["lockfile", "add", n, "--spans", "-"])
                .current_dir(tree.dir.path())
                .stdin(std::process::Stdio::piped())
                .stderr(std::process::Stdio::null())
                .spawn()
                .unwrap();
            use std::io::Write;
            child
                .stdin
                .take()
                .unwrap()
                .write_all(br#"{"spans":[]}"#)
                .unwrap();
            child
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let lock = json(tree.read(LOCK).as_bytes());
    for n in &names {
        assert!(lock["files"].get(n).is_some(), "{n} lost");
    }
    assert_eq!(lock["files"].as_object().unwrap().len(), 3 + names.len());
}

#[cfg(unix)]
#[test]
fn symlinks_out_of_the_root_are_neither_audited_nor_segmented() {
    let tree = Tree::copy_of("copy");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.md"), "Tajné v domě.\n").unwrap();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        tree.path("content/talks/link.md"),
    )
    .unwrap();
    let out = tree.copy_audit().arg("--json").output().unwrap();
    let r = json(&out.stdout);
    assert_eq!(r["totalFiles"], 4, "the escaping link is skipped");
    assert!(String::from_utf8_lossy(&out.stderr).contains("content/talks/link.md"));
    let seg = tree
        .copy_audit()
        .args(["segment", "content/talks/link.md"])
        .output()
        .unwrap();
    assert_eq!(seg.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&seg.stderr).contains("outside the root"));
}

#[test]
fn github_format_emits_workflow_commands() {
    let tree = Tree::copy_of("copy");
    let out = tree
        .copy_audit()
        .args(["--format", "github"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().any(|l| l.starts_with(
            "::error file=content/talks/uvod.md,line=11,col=49,endLine=11,endColumn=52,\
             title=cs-R5-ordinal-space::"
        )),
        "{text}"
    );
    assert!(text.lines().all(|l| l.starts_with("::")), "{text}");

    // Run from above the root (a repository whose config is in a subdirectory): paths are
    // the job's, as GitHub resolves them.
    let parent = tree.dir.path().parent().unwrap();
    let name = tree.dir.path().file_name().unwrap().to_str().unwrap();
    let out = Command::cargo_bin("copy-audit")
        .unwrap()
        .current_dir(parent)
        .arg("--config")
        .arg(tree.path(".copy-editor.yaml"))
        .args(["--format", "github"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.lines().all(|l| l.contains(&format!(" file={name}/"))),
        "{text}"
    );
}

#[test]
fn gitlab_format_is_a_code_quality_report_stable_across_edits() {
    let tree = Tree::copy_of("copy");
    let report = |tree: &Tree| -> Vec<serde_json::Value> {
        let out = tree
            .copy_audit()
            .args(["--format", "gitlab", "--no-cache"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let before = report(&tree);
    let json = tree.copy_audit().arg("--json").output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(before.len(), json["findings"].as_array().unwrap().len());
    for issue in &before {
        for key in ["description", "check_name", "fingerprint", "severity"] {
            assert!(issue[key].is_string(), "{key} in {issue}");
        }
        assert!(issue["location"]["path"].is_string(), "{issue}");
        assert!(issue["location"]["lines"]["begin"].as_u64().unwrap() >= 1);
        assert!(
            ["info", "minor", "major", "critical", "blocker"]
                .contains(&issue["severity"].as_str().unwrap()),
            "{issue}"
        );
    }
    let prints = |r: &[serde_json::Value]| -> Vec<(String, String)> {
        let mut p: Vec<_> = r
            .iter()
            .map(|i| {
                (
                    i["location"]["path"].as_str().unwrap().to_owned(),
                    i["fingerprint"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        p.sort();
        p
    };
    let unique: std::collections::BTreeSet<_> = prints(&before).into_iter().collect();
    assert_eq!(unique.len(), before.len(), "every fingerprint is distinct");

    // A line inserted at the top of a file without an entry: every finding moves down a
    // line and keeps its fingerprint.
    let welcome = "src/components/Welcome.tsx";
    tree.write(
        welcome,
        &format!("// a new first line\n{}", tree.read(welcome)),
    );
    let after = report(&tree);
    assert_eq!(prints(&after), prints(&before));
    let lines = |r: &[serde_json::Value]| -> Vec<u64> {
        r.iter()
            .filter(|i| i["location"]["path"] == welcome)
            .map(|i| i["location"]["lines"]["begin"].as_u64().unwrap())
            .collect()
    };
    let moved: Vec<u64> = lines(&before).iter().map(|l| l + 1).collect();
    assert!(!moved.is_empty());
    assert_eq!(lines(&after), moved);
}

#[test]
fn human_listings_are_readable() {
    let tree = Tree::copy_of("copy");
    let out = tree
        .copy_audit()
        .args(["lockfile", "list"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("(unreviewed)") && text.contains("ondrej@2026-11-28"),
        "{text}"
    );
    assert!(text.contains("3 entries"), "{text}");

    let out = tree
        .copy_audit()
        .arg("--list-unsegmented")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("stale    content/guide/setup.en.md"),
        "{text}"
    );
    assert!(text.contains("2 of 4 files need segmentation"), "{text}");

    let out = tree.copy_audit().args(["segment", UVOD]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.contains("lockfile add") && text.contains("Vítejte na workshopu"),
        "{text}"
    );
}

/// The paths a report has findings for.
fn files_with_findings(report: &Value) -> std::collections::BTreeSet<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["relativePath"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn gitignore_is_honoured_inside_a_git_repository_only() {
    // Outside a git repository a `.gitignore` is just a file: everything is audited.
    let tree = Tree::copy_of("copy");
    tree.write(".gitignore", "content/talks/\n");
    let (_, r) = audit_json(&tree, &[]);
    assert_eq!(r["totalFiles"], 4);
    assert!(files_with_findings(&r).contains(UVOD));

    // Inside one, ignored files are not audited, and a negation brings one back.
    std::fs::create_dir(tree.path(".git")).unwrap();
    let (_, r) = audit_json(&tree, &[]);
    assert_eq!(r["totalFiles"], 3, "content/talks/ is ignored");
    assert!(!files_with_findings(&r).contains(UVOD));

    tree.write(".gitignore", "content/*\n!content/talks/\n");
    tree.write("content/guide/.gitignore", "");
    let (_, r) = audit_json(&tree, &[]);
    assert_eq!(
        r["totalFiles"], 2,
        "only the talk and the component are left"
    );
    assert!(files_with_findings(&r).contains(UVOD));
    assert!(!files_with_findings(&r).contains(AGENDA));

    // A `.gitignore` deeper down applies below it.
    tree.write(".gitignore", "");
    tree.write("content/guide/.gitignore", "*.en.md\n");
    let (_, r) = audit_json(&tree, &[]);
    assert_eq!(r["totalFiles"], 3);
    assert!(!files_with_findings(&r).contains(SETUP));
}

/// Columns are UTF-16 code units, as the reference, SARIF and LSP count: an emoji is two
/// columns, before a finding and before a span's start alike.
#[test]
fn columns_count_utf16_code_units_around_an_emoji() {
    let tree = Tree::copy_of("copy");
    let file = "content/talks/emoji.md";
    tree.write(file, "😀 Sejdeme se v lese.\n\n😀x v lese\n");
    let (_, r) = audit_json(&tree, &[]);
    assert_eq!(positions(&r, file, "cs-R1-nbsp-prep"), [(1, 15), (3, 5)]);
    let fix = &findings(&r, file, "cs-R1-nbsp-prep")[0]["fix"];
    assert_eq!(
        (fix["line"].as_u64(), fix["column"].as_u64()),
        (Some(1), Some(16))
    );
    assert_eq!(fix["length"], 1);
    // A span over the `v` of line 3 only, in UTF-16 columns: tagged English, it drops the
    // Czech finding there (counted in characters, column 5 would be the space after it).
    let span = r#"{"spans":[{"startLine":3,"startColumn":5,"endLine":3,"endColumn":5,"language":"en","kind":"prose"}]}"#;
    tree.copy_audit()
        .args(["lockfile", "add", file, "--spans", "-"])
        .write_stdin(span)
        .assert()
        .success();
    let (_, r) = audit_json(&tree, &[]);
    assert_eq!(positions(&r, file, "cs-R1-nbsp-prep"), [(1, 15)]);
}

/// Agent-written spans end past their line or on the empty line after the final newline:
/// the audit reads them as pairs, `lockfile check` notes them, `lockfile normalize`
/// writes them exactly and keeps the review; a span covering nothing is a problem.
#[test]
fn spans_past_an_end_are_read_checked_and_normalized() {
    let tree = Tree::copy_of("copy");
    let file = "content/talks/konec.md";
    tree.write(file, "Jdu v lese.\nA pak domů.\n");
    // The whole file as English, ending on the empty line 3, column 40.
    let span = r#"{"spans":[{"startLine":1,"startColumn":1,"endLine":3,"endColumn":40,"language":"en","kind":"prose"}]}"#;
    let added = tree
        .copy_audit()
        .args(["lockfile", "add", file, "--spans", "-"])
        .write_stdin(span)
        .output()
        .unwrap();
    assert!(added.status.success());
    let said = String::from_utf8_lossy(&added.stderr);
    assert!(
        said.contains("span 1 (1:1–3:40) reaches past the end of the file; written as 1:1–2:12"),
        "{said}"
    );
    let (_, r) = audit_json(&tree, &[]);
    assert!(
        findings(&r, file, "cs-R1-nbsp-prep").is_empty(),
        "English all through"
    );

    // A hand edit puts the end back past the file, then the entry is reviewed.
    let edit = |change: &dyn Fn(&mut Value)| {
        let mut lock = json(tree.read(LOCK).as_bytes());
        change(&mut lock["files"][file]["spans"]);
        tree.write(LOCK, &serde_json::to_string_pretty(&lock).unwrap());
    };
    edit(&|spans| {
        spans[0]["endLine"] = 3.into();
        spans[0]["endColumn"] = 40.into();
    });
    tree.copy_audit()
        .args(["lockfile", "mark-reviewed", file, "--by", "eva@2026-12-01"])
        .assert()
        .success();
    let problems = |tree: &Tree| {
        let check = tree
            .copy_audit()
            .args(["lockfile", "check", "--json"])
            .output()
            .unwrap();
        let report = json(&check.stdout);
        let mine: Vec<Value> = report["problems"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|p| p["path"] == file)
            .cloned()
            .collect();
        (check.status.code(), mine)
    };
    let (code, mine) = problems(&tree);
    assert_eq!(code, Some(1), "the fixture has a stale entry");
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["kind"], "pastEnd");
    assert_eq!(mine[0]["exact"], "1:1–2:12");
    tree.copy_audit()
        .args(["lockfile", "normalize"])
        .assert()
        .success();
    let lock = json(tree.read(LOCK).as_bytes());
    let entry = &lock["files"][file];
    assert_eq!(
        entry["reviewedBy"], "eva@2026-12-01",
        "the covered text did not change"
    );
    assert_eq!(entry["spans"][0]["endLine"], 2);
    assert_eq!(entry["spans"][0]["endColumn"], 12);
    let normalized = tree.read(LOCK);
    tree.copy_audit()
        .args(["lockfile", "normalize"])
        .assert()
        .success();
    assert_eq!(tree.read(LOCK), normalized, "nothing left to write");
    assert!(problems(&tree).1.is_empty());

    // A span after the end of the file covers nothing: check names it, the audit ignores
    // it and says so with --verbose.
    edit(&|spans| {
        let mut after = spans[0].clone();
        for key in ["startLine", "endLine"] {
            after[key] = 3.into();
        }
        for key in ["startColumn", "endColumn"] {
            after[key] = 1.into();
        }
        spans.as_array_mut().unwrap().push(after);
    });
    let (_, mine) = problems(&tree);
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["kind"], "coversNothing");
    assert_eq!(mine[0]["span"], 2);
    let verbose = tree.copy_audit().arg("--verbose").output().unwrap();
    let said = String::from_utf8_lossy(&verbose.stderr);
    assert!(
        said.contains(&format!(
            "warning: {file}: span 2 (3:1–3:1) covers no character"
        )),
        "{said}"
    );
}

/// A lockfile written under the reference's prompt (version 2, below ours, 3): its
/// unreviewed fresh entries are listed again with reason `prompt`, its reviewed ones keep
/// their signoff (seed invariant 6).
#[test]
fn a_version_2_lockfile_relists_only_its_unreviewed_entries() {
    let tree = Tree::copy_of("copy");
    let lock = tree.read(LOCK);
    tree.write(
        LOCK,
        &lock.replace("\"promptVersion\": 3", "\"promptVersion\": 2"),
    );
    let out = tree
        .copy_audit()
        .args(["--list-unsegmented", "--json"])
        .output()
        .unwrap();
    let r = json(&out.stdout);
    let reasons: Vec<(String, String)> = r["unsegmented"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| {
            let s = |k: &str| u[k].as_str().unwrap().to_owned();
            (s("path"), s("reason"))
        })
        .collect();
    assert!(
        reasons.contains(&(AGENDA.to_owned(), "prompt".to_owned())),
        "{reasons:?}"
    );
    assert!(!reasons.iter().any(|(p, _)| p == UVOD), "reviewed: kept");
    let handoff = tree
        .copy_audit()
        .args(["segment", UVOD, "--json"])
        .output()
        .unwrap();
    assert_eq!(json(&handoff.stdout)["promptVersion"], 3);
}

/// Only the declared profiles' language rules run: a Czech-only repository gets no
/// English finding, as with the reference; `extends: [czech, english]` turns them on.
#[test]
fn declared_profiles_decide_which_language_rules_run() {
    let tree = Tree::copy_of("copy");
    let english = |r: &Value| {
        r["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|f| f["ruleId"].as_str().unwrap().starts_with("en-"))
            .count()
    };
    let (_, both) = audit_json(&tree, &[]);
    assert!(english(&both) > 0, "the fixture declares both profiles");
    let config = tree.read(".copy-editor.yaml");
    tree.write(
        ".copy-editor.yaml",
        &config.replace("extends: [czech, english]", "extends: [czech]"),
    );
    let (_, czech) = audit_json(&tree, &[]);
    assert_eq!(english(&czech), 0);
    assert!(czech["totalFindings"].as_u64().unwrap() > 0);
}

/// `--refresh-cache [GLOB]` removes the matching entries before the audit (every entry
/// without a glob): their files are then missing, to be segmented again.
#[test]
fn refresh_cache_invalidates_matching_entries_then_audits() {
    let tree = Tree::copy_of("copy");
    let listed = |args: &[&str]| {
        let out = tree.copy_audit().args(args).output().unwrap();
        let r = json(&out.stdout);
        let mut missing: Vec<String> = r["unsegmented"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|u| u["reason"] == "missing")
            .map(|u| u["path"].as_str().unwrap().to_owned())
            .collect();
        missing.sort();
        missing
    };
    let glob = [
        "--refresh-cache",
        "content/talks/*",
        "--list-unsegmented",
        "--json",
    ];
    assert_eq!(listed(&glob), [UVOD, WELCOME]);
    assert!(!tree.read(LOCK).contains(UVOD));
    assert!(tree.read(LOCK).contains(AGENDA), "outside the glob: kept");
    let all = ["--refresh-cache", "--list-unsegmented", "--json"];
    assert_eq!(listed(&all), [AGENDA, SETUP, UVOD, WELCOME]);
    assert!(
        json(tree.read(LOCK).as_bytes())["files"]
            .as_object()
            .unwrap()
            .is_empty()
    );
}

/// `--offline` writes structural entries for the missing and stale files, unreviewed; in
/// the agent's lockfile each span says it is structural and the backend stays; the fresh
/// entries are untouched, and a second run writes nothing.
#[test]
fn offline_segments_missing_and_stale_files_structurally() {
    let tree = Tree::copy_of("copy");
    let before = json(tree.read(LOCK).as_bytes());
    let out = tree
        .copy_audit()
        .args(["--offline", "--json"])
        .output()
        .unwrap();
    assert!(out.status.code() == Some(1), "error findings remain");
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("--offline: 2 entries written"), "{said}");
    let lock = json(tree.read(LOCK).as_bytes());
    assert_eq!(
        lock["segmenter"], before["segmenter"],
        "the agent's backend stays"
    );
    assert_eq!(
        lock["files"][UVOD], before["files"][UVOD],
        "fresh entries untouched"
    );
    for file in [WELCOME, SETUP] {
        let entry = &lock["files"][file];
        assert_eq!(entry["reviewedBy"], Value::Null, "{file}");
        let spans = entry["spans"].as_array().unwrap();
        // A component wholly in the default language: nothing for a span to say.
        assert_eq!(spans.is_empty(), file == WELCOME, "{file}");
        assert!(
            spans
                .iter()
                .all(|s| s["note"].as_str().unwrap().starts_with("structural"))
        );
    }
    // `paths.locale` makes the guide English.
    let setup = lock["files"][SETUP]["spans"].as_array().unwrap();
    assert!(
        setup
            .iter()
            .all(|s| s["language"] == "en" || s["kind"] != "prose")
    );
    let list = tree
        .copy_audit()
        .args(["--list-unsegmented", "--json"])
        .output()
        .unwrap();
    let missing_or_stale = json(&list.stdout)["unsegmented"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["reason"] != "prompt")
        .count();
    assert_eq!(missing_or_stale, 0);
    let written = tree.read(LOCK);
    let again = tree.copy_audit().arg("--offline").output().unwrap();
    assert!(String::from_utf8_lossy(&again.stderr).contains("0 entries written"));
    assert_eq!(tree.read(LOCK), written);
}

/// Without a terminal there is no one to ask: `--review-cache` refuses in one sentence.
#[test]
fn review_cache_needs_a_terminal() {
    let tree = Tree::copy_of("copy");
    let lock = tree.read(LOCK);
    let out = tree.copy_audit().arg("--review-cache").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let said = String::from_utf8_lossy(&out.stderr);
    assert!(said.contains("needs a terminal"), "{said}");
    assert!(said.contains("lockfile mark-reviewed"), "{said}");
    assert_eq!(tree.read(LOCK), lock);
}

/// The files a report names, in order.
fn files_of(report: &Value) -> Vec<String> {
    let mut files: Vec<String> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["relativePath"].as_str().unwrap().to_owned())
        .collect();
    files.dedup();
    files
}

#[test]
fn named_paths_narrow_the_audit_and_the_config_still_excludes() {
    let tree = Tree::copy_of("copy");
    tree.write("content/drafts/wip.md", "Sejdeme se v lese...\n");
    tree.write("notes.txt", "Sejdeme se v lese...\n");
    let (code, all) = audit_json(&tree, &[]);
    assert_eq!(code, 1);
    // One file: only its findings, exactly as in the whole audit.
    let (code, one) = audit_json(&tree, &[UVOD]);
    assert_eq!((code, one["totalFiles"].as_u64()), (1, Some(1)));
    assert_eq!(files_of(&one), [UVOD]);
    let same: Vec<&Value> = all["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["relativePath"] == UVOD)
        .collect();
    assert_eq!(
        one["findings"]
            .as_array()
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        same
    );
    // Named files the config leaves out (paths.exclude, outside paths.include) are skipped,
    // and so is the lockfile itself: nothing to audit is a clean run.
    let (code, none) = audit_json(&tree, &["content/drafts/wip.md", "notes.txt", LOCK]);
    assert_eq!((code, none["totalFiles"].as_u64()), (0, Some(0)));
    // A directory stands for the files in scope under it; paths are taken from the
    // working directory.
    let (_, dir) = audit_json(&tree, &["content/guide"]);
    assert_eq!(files_of(&dir), [SETUP]);
    let out = tree
        .copy_audit()
        .current_dir(tree.path("content"))
        .args(["--json", "talks/uvod.md", "../src"])
        .output()
        .unwrap();
    assert_eq!(files_of(&json(&out.stdout)), [UVOD, WELCOME]);
    // A path outside the root, or one that does not exist, is an error naming it.
    let outside = tempfile::NamedTempFile::new().unwrap();
    let outside = outside.path().to_str().unwrap();
    for (arg, says) in [
        (outside, "outside the root"),
        ("content/missing.md", "No such file"),
    ] {
        let out = tree.copy_audit().args([UVOD, arg]).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains(arg) && stderr.contains(says), "{stderr}");
        assert!(out.stdout.is_empty());
    }
}
