//! Files that change while a run is under way (issue 28, items 2 and 5): a file deleted or
//! replaced by a directory between the walk and its read is one file's error, never the
//! end of the run, in every command of both tools; a file saved between `--fix` (or
//! `soil-lock refresh`) reading it and replacing it keeps the user's bytes. Each race is
//! made certain by pausing the run at a named point (`src/testhook.rs`).

mod common;

use common::{Tree, json};
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

/// Runs `bin` with `args` in `tree`, paused at `point`; `meanwhile` runs during the pause.
fn paused_at(
    tree: &Tree,
    bin: &str,
    args: &[&str],
    point: &str,
    meanwhile: impl FnOnce(),
) -> Output {
    let pause = tempfile::tempdir().unwrap();
    let child = Command::new(assert_cmd::cargo::cargo_bin(bin))
        .args(args)
        .current_dir(tree.dir.path())
        .env("LOCKGRAPH_TEST_PAUSE", pause.path())
        .env("LOCKGRAPH_TEST_PAUSE_AT", point)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut waited = Duration::ZERO;
    while !pause.path().join("paused").exists() {
        assert!(
            waited < Duration::from_secs(60),
            "{bin} never reached {point}"
        );
        std::thread::sleep(Duration::from_millis(5));
        waited += Duration::from_millis(5);
    }
    meanwhile();
    std::fs::write(pause.path().join("go"), b"").unwrap();
    child.wait_with_output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Deletes `gone` and puts a directory where `replaced` was.
fn delete_and_replace(tree: &Tree, gone: &str, replaced: &str) {
    std::fs::remove_file(tree.path(gone)).unwrap();
    std::fs::remove_file(tree.path(replaced)).unwrap();
    std::fs::create_dir(tree.path(replaced)).unwrap();
}

const GONE: &str = "content/guide/setup.en.md";
const REPLACED: &str = "src/components/Welcome.tsx";
/// Files `--fix` changes in the fixture.
const FIXED: [&str; 2] = ["content/talks/uvod.md", "content/agenda.json"];

#[test]
fn a_file_deleted_or_replaced_mid_audit_is_one_file_error() {
    let tree = Tree::copy_of("copy");
    let before = paused_at(&tree, "copy-audit", &["--json"], "read", || {});
    let all = json(&before.stdout)["totalFiles"].as_u64().unwrap();
    let out = paused_at(
        &tree,
        "copy-audit",
        &["--json", "--no-cache"],
        "read",
        || delete_and_replace(&tree, GONE, REPLACED),
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let report = json(&out.stdout);
    assert_eq!(
        report["totalFiles"].as_u64(),
        Some(all),
        "every file reported"
    );
    let errors = report["fileErrors"].as_array().expect("fileErrors");
    let message = |rel: &str| {
        errors
            .iter()
            .find(|e| e["relativePath"] == rel)
            .unwrap_or_else(|| panic!("{rel} not in {errors:?}"))["message"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(message(GONE).contains("deleted during the run"));
    assert!(message(REPLACED).contains("changed kind during the run"));
    // The rest are audited as ever.
    assert!(
        report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["relativePath"] == FIXED[0])
    );
}

#[test]
fn a_file_deleted_or_replaced_mid_fix_leaves_the_rest_fixed() {
    let tree = Tree::copy_of("copy");
    let originals = FIXED.map(|rel| tree.read(rel));
    let out = paused_at(&tree, "copy-audit", &["--fix"], "read", || {
        delete_and_replace(&tree, GONE, REPLACED)
    });
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("Applied"), "{}", stderr(&out));
    for (rel, original) in FIXED.iter().zip(originals) {
        assert_ne!(tree.read(rel), original, "{rel}: the other files are fixed");
    }
    assert!(tree.path(REPLACED).is_dir(), "the directory is left alone");
}

#[test]
fn a_file_deleted_mid_listing_is_a_warning() {
    let tree = Tree::copy_of("copy");
    std::fs::remove_file(tree.path(".copy-editor.lock.json")).unwrap();
    let out = paused_at(
        &tree,
        "copy-audit",
        &["--list-unsegmented", "--json"],
        "list",
        || delete_and_replace(&tree, GONE, REPLACED),
    );
    assert_ne!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("warning: {GONE}: deleted during the run")),
        "{err}"
    );
    assert!(
        err.contains(&format!("warning: {REPLACED}: changed kind")),
        "{err}"
    );
    let listed = String::from_utf8_lossy(&out.stdout);
    assert!(listed.contains(FIXED[0]), "{listed}");
    assert!(!listed.contains(GONE), "{listed}");
}

#[test]
fn soil_lock_reports_a_spec_or_sidecar_changed_mid_run_and_goes_on() {
    for cached in [false, true] {
        let tree = Tree::copy_of("soil");
        let args: &[&str] = if cached {
            &["status", "--json"]
        } else {
            &["--no-cache", "status", "--json"]
        };
        let out = paused_at(&tree, "soil-lock", args, "soil-read", || {
            std::fs::remove_file(tree.path("text/trim.tr")).unwrap();
            std::fs::remove_file(tree.path("text/words.lock")).unwrap();
            std::fs::create_dir(tree.path("text/words.lock")).unwrap();
        });
        // An unreadable sidecar is exit 2 (docs/soil-lock.md), after the whole report.
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        let err = stderr(&out);
        assert!(err.contains("text/words.lock"), "{err}");
        assert!(err.contains("changed kind during the run"), "{err}");
        let report = json(&out.stdout);
        let defs = report["defs"].as_array().expect("defs");
        let def = |path: &str| {
            defs.iter()
                .find(|d| d["path"] == path)
                .unwrap_or_else(|| panic!("{path} not reported"))
        };
        assert_eq!(def("text/words")["status"], "unreadable");
        let error = def("text/words")["error"].as_str().unwrap();
        assert!(error.contains("changed kind during the run"), "{error}");
        // A spec deleted mid-run is as if deleted before: its sidecar still reports.
        assert!(def("text/trim")["error"].is_null());
        assert!(def("text/word_count")["error"].is_null());
    }
}

/// Replaces `rel` by `text` the way an editor saves: a new file renamed over it.
fn save_by_rename(tree: &Tree, rel: &str, text: &str) {
    let tmp = tree.path(&format!("{rel}.swp"));
    std::fs::write(&tmp, text).unwrap();
    std::fs::rename(&tmp, tree.path(rel)).unwrap();
}

fn entry(tree: &Tree, rel: &str) -> serde_json::Value {
    let lock = json(tree.read(".copy-editor.lock.json").as_bytes());
    lock["files"][rel].clone()
}

#[test]
fn a_save_during_fix_is_kept_with_its_entry() {
    let [md, other] = FIXED;
    type Save = fn(&Tree, &str, &str);
    let in_place: Save = |tree, rel, text| std::fs::write(tree.path(rel), text).unwrap();
    for (how, save) in [
        ("in place", in_place),
        ("by rename", save_by_rename as Save),
    ] {
        let tree = Tree::copy_of("copy");
        let entry_before = entry(&tree, md);
        let other_before = tree.read(other);
        let users = format!("{}\nSaved by the user.\n", tree.read(md));
        let out = paused_at(&tree, "copy-audit", &["--fix"], "fix", || {
            save(&tree, md, &users)
        });
        assert_ne!(out.status.code(), Some(2), "{how}: {}", stderr(&out));
        assert_eq!(tree.read(md), users, "{how}: not a byte of the save lost");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("warning: {md}: changed during the run; not fixed")),
            "{how}: {err}"
        );
        assert_eq!(
            entry(&tree, md),
            entry_before,
            "{how}: entry kept as it was"
        );
        assert_ne!(
            tree.read(other),
            other_before,
            "{how}: the other file is fixed"
        );
        assert!(no_temporary_files(tree.dir.path()), "{how}");
    }
}

#[test]
fn a_sidecar_saved_during_refresh_is_kept() {
    let tree = Tree::copy_of("soil");
    let spec = tree.read("text/trim.tr");
    tree.write(
        "text/trim.tr",
        &spec.replace("Removes leading", "Strips leading"),
    );
    // What refresh compares is the sidecar as parsed: a save that changes only its layout
    // is one the next refresh would put back in canonical form anyway.
    let users = tree
        .read("text/trim.lock")
        .replace("\"pinned\": false", "\"pinned\": true");
    let out = paused_at(&tree, "soil-lock", &["refresh"], "soil-write", || {
        save_by_rename(&tree, "text/trim.lock", &users)
    });
    let err = stderr(&out);
    assert!(
        err.contains("text/trim.lock: changed during the run"),
        "{err}"
    );
    assert_eq!(tree.read("text/trim.lock"), users, "the save is kept");
    // Unhindered, the same refresh writes it.
    let out = tree.soil_lock().arg("refresh").output().unwrap();
    assert!(
        stderr(&out).contains("wrote text/trim.lock"),
        "{}",
        stderr(&out)
    );
}

fn no_temporary_files(dir: &Path) -> bool {
    walk(dir).iter().all(|p| !p.ends_with(".lockgraph-tmp"))
}

fn walk(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p.to_string_lossy().into_owned());
        }
    }
    out
}
