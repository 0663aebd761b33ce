//! `copy-audit lockfile merge` as git's merge driver, in real `git merge` runs.

use std::path::Path;
use std::process::{Command, Output};

const LOCK: &str = ".copy-editor.lock.json";

fn git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .current_dir(dir)
        .args(["-c", "user.name=Eva", "-c", "user.email=eva@example.com"])
        .args(args)
        .output()
        .expect("git runs")
}

fn ok(dir: &Path, args: &[&str]) {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn copy_audit(dir: &Path, args: &[&str], stdin: &str) -> Output {
    assert_cmd::Command::cargo_bin("copy-audit")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .write_stdin(stdin)
        .output()
        .unwrap()
}

/// Writes `file` and segments it as Czech prose (one span over its first word).
fn segmented(dir: &Path, file: &str, text: &str) {
    std::fs::write(dir.join(file), text).unwrap();
    let spans = r#"{"spans":[{"startLine":1,"startColumn":1,"endLine":1,"endColumn":3,"language":"cs","kind":"prose"}]}"#;
    let out = copy_audit(
        dir,
        &["lockfile", "add", file, "--spans", "-", "--force"],
        spans,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A repository with one segmented file, committed on `main`.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["init", "-q", "-b", "main"]);
    std::fs::write(
        d.join(".copy-editor.yaml"),
        "language: cs\npaths:\n  include: ['**/*.md']\n",
    )
    .unwrap();
    std::fs::write(
        d.join(".gitattributes"),
        format!("{LOCK} merge=copy-editor-lock\n"),
    )
    .unwrap();
    std::fs::write(d.join(".gitignore"), ".lockgraph/\n").unwrap();
    segmented(d, "a.md", "Jdu do lesa.\n");
    ok(d, &["add", "-A"]);
    ok(d, &["commit", "-q", "-m", "base"]);
    dir
}

fn use_driver(d: &Path) {
    let bin = assert_cmd::cargo::cargo_bin("copy-audit");
    let driver = format!("'{}' lockfile merge %O %A %B", bin.display());
    ok(
        d,
        &[
            "config",
            "merge.copy-editor-lock.name",
            "copy-audit lockfile merge",
        ],
    );
    ok(d, &["config", "merge.copy-editor-lock.driver", &driver]);
}

fn entries(d: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(d.join(LOCK)).unwrap();
    let lock: serde_json::Value = serde_json::from_str(&text).expect("a readable lockfile");
    lock["files"].as_object().unwrap().keys().cloned().collect()
}

#[test]
fn entries_added_on_both_branches_merge_without_a_conflict() {
    let dir = repository();
    let d = dir.path();
    ok(d, &["checkout", "-q", "-b", "feature"]);
    segmented(d, "c.md", "Cesta k moři.\n");
    ok(d, &["add", "-A"]);
    ok(d, &["commit", "-q", "-m", "c"]);
    ok(d, &["checkout", "-q", "main"]);
    segmented(d, "d.md", "Dům u řeky.\n");
    ok(d, &["add", "-A"]);
    ok(d, &["commit", "-q", "-m", "d"]);

    // Git's line merge conflicts: both entries go right after `a.md`'s.
    let plain = git(d, &["merge", "-q", "--no-edit", "feature"]);
    assert!(
        !plain.status.success(),
        "without the driver the lockfile conflicts"
    );
    ok(d, &["merge", "--abort"]);

    use_driver(d);
    ok(d, &["merge", "-q", "--no-edit", "feature"]);
    assert_eq!(entries(d), ["a.md", "c.md", "d.md"]);
    // Canonical, and every entry fresh.
    let list = copy_audit(d, &["--list-unsegmented", "--json"], "");
    assert!(
        list.status.success(),
        "{}",
        String::from_utf8_lossy(&list.stdout)
    );
    let check = copy_audit(d, &["lockfile", "normalize"], "");
    assert!(check.status.success());
    assert_eq!(git(d, &["status", "--porcelain"]).stdout, b"");
}

#[test]
fn an_entry_removed_on_one_branch_and_changed_on_the_other_is_a_conflict() {
    let dir = repository();
    let d = dir.path();
    use_driver(d);
    ok(d, &["checkout", "-q", "-b", "feature"]);
    segmented(d, "a.md", "Jdu do lesa a k řece.\n");
    ok(d, &["add", "-A"]);
    ok(d, &["commit", "-q", "-m", "a again"]);
    ok(d, &["checkout", "-q", "main"]);
    let out = copy_audit(d, &["lockfile", "invalidate", "a.md"], "");
    assert!(out.status.success());
    ok(d, &["add", "-A"]);
    ok(d, &["commit", "-q", "-m", "a invalidated"]);

    let merged = git(d, &["merge", "-q", "--no-edit", "feature"]);
    assert!(!merged.status.success(), "git reports the conflict");
    let said = String::from_utf8_lossy(&merged.stdout).into_owned()
        + &String::from_utf8_lossy(&merged.stderr);
    assert!(said.contains(LOCK), "{said}");
    assert!(
        said.contains("unsettled: a.md: its entry changed on one side"),
        "{said}"
    );
    // The lockfile holds the merge, readable, the changed entry kept.
    assert_eq!(entries(d), ["a.md"]);
}
