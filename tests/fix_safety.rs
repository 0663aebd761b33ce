//! `--fix` is safe (issue 19, item 4): a custom replacement that would be syntax in a
//! JSON, YAML or script string is not written there (the finding stays, without a fix);
//! a symlink is written through; a temporary file left by a killed run is removed, never
//! audited.
#![cfg(unix)]

mod common;

use common::Tree;

fn with_rule(tree: &Tree, replacement: &str) {
    let config = tree.read(".copy-editor.yaml");
    tree.write(
        ".copy-editor.yaml",
        &format!(
            "{config}\ncustom_rules:\n  - id: harness\n    pattern: 'Harness'\n    message: say it plainly\n    severity: warning\n    replacement: '{replacement}'\n"
        ),
    );
}

#[test]
fn a_replacement_that_is_syntax_in_json_is_not_written_there() {
    let tree = Tree::copy_of("copy");
    with_rule(&tree, r#""Lab"#);
    let before = tree.read("content/agenda.json");
    tree.copy_audit()
        .args(["--fix", "--fix-unsegmented"])
        .output()
        .unwrap();
    let after = tree.read("content/agenda.json");
    serde_json::from_str::<serde_json::Value>(&after).expect("still JSON");
    assert!(after.contains("Harness Lab"), "not fixed:\n{after}");
    assert_eq!(
        before.matches("Harness").count(),
        after.matches("Harness").count()
    );
    // The finding is still reported, without a fix.
    let out = tree.copy_audit().arg("--json").output().unwrap();
    let report = common::json(&out.stdout);
    let harness: Vec<&serde_json::Value> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ruleId"] == "harness")
        .collect();
    assert!(!harness.is_empty(), "{report}");
    assert!(harness.iter().all(|f| f["fix"].is_null()), "{harness:?}");
}

#[test]
fn fixes_write_through_an_in_root_symlink() {
    let tree = Tree::copy_of("copy");
    with_rule(&tree, "Workshop");
    std::fs::rename(
        tree.path("content/talks/uvod.md"),
        tree.path("content/talks/real.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink("real.md", tree.path("content/talks/uvod.md")).unwrap();
    std::fs::write(
        tree.path("content/talks/real.md"),
        "# Harness\n\nText o nástroji Harness.\n",
    )
    .unwrap();
    tree.copy_audit()
        .args(["--fix", "--fix-unsegmented"])
        .output()
        .unwrap();
    let link = std::fs::symlink_metadata(tree.path("content/talks/uvod.md")).unwrap();
    assert!(link.file_type().is_symlink(), "the link stays a link");
    assert!(tree.read("content/talks/real.md").contains("Workshop"));
}

#[test]
fn a_killed_runs_temporary_file_is_removed_not_audited() {
    let tree = Tree::copy_of("copy");
    let leftover = format!("content/talks/.uvod.md.{}.0.lockgraph-tmp", 1 << 30);
    tree.write(&leftover, "Napůl zapsaný soubor...");
    let out = tree.copy_audit().arg("--json").output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("removed, left by an interrupted run"),
        "{stderr}"
    );
    assert!(!tree.path(&leftover).exists());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("lockgraph-tmp"));
}

/// Issue 28, item 9: two custom rules that undo each other's fixes are named, and the
/// file is not rewritten back and forth for every pass.
#[test]
fn rules_that_undo_each_others_fixes_are_detected() {
    let rule = |id: &str, from: &str, to: &str| {
        format!(
            "  - id: {id}\n    pattern: '{from}'\n    message: reorder\n    severity: warning\n    replacement: '{to}'\n"
        )
    };
    let fix = |rules: &[String]| {
        let tree = Tree::copy_of("copy");
        let config = tree.read(".copy-editor.yaml");
        tree.write(
            ".copy-editor.yaml",
            &format!("{config}\ncustom_rules:\n{}", rules.concat()),
        );
        let out = tree
            .copy_audit()
            .args(["--fix", "--fix-unsegmented"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (tree, stderr)
    };
    let applied = |stderr: &str| {
        stderr
            .lines()
            .find(|l| l.starts_with("Applied "))
            .unwrap_or_else(|| panic!("{stderr}"))
            .to_string()
    };
    let forth = rule("forth", "Harness Lab", "Lab Harness");
    let back = rule("back", "Lab Harness", "Harness Lab");
    let (one_way, one_way_err) = fix(std::slice::from_ref(&forth));
    let (both, stderr) = fix(&[forth, back]);
    let warning = stderr
        .lines()
        .find(|l| l.starts_with("warning: content/agenda.json: the fixes of"))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(warning.contains("back") && warning.contains("lead back to an earlier version"));
    // Pass 1 fixes the file as the one rule alone does, pass 2 turns the names back, and
    // pass 3 would bring back pass 1's version: it is not written, and nothing is claimed
    // for it (eight passes once claimed every fix eight times over).
    let one_way_text = one_way.read("content/agenda.json");
    let occurrences = one_way_text.matches("Lab Harness").count();
    assert!(occurrences > 0);
    assert_eq!(
        both.read("content/agenda.json"),
        one_way_text.replace("Lab Harness", "Harness Lab")
    );
    let count = |line: String| -> usize { line.split(' ').nth(1).unwrap().parse().unwrap() };
    assert_eq!(
        count(applied(&stderr)),
        count(applied(&one_way_err)) + occurrences
    );
}
