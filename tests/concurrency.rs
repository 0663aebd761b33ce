//! Parallel writers and readers sharing one tree and one `.lockgraph/` (issue 19, item 6):
//! lockfile edits of every kind racing each other and `--fix`, and cold runs racing to
//! build the same caches. No entry is lost, no review is dropped, no cache is corrupted,
//! and every run's output equals an uncached one. `ROUNDS` rounds each; the figures are
//! in `docs/reliability.md`.

mod common;

use common::Tree;
use std::process::{Child, Command, Stdio};

const ROUNDS: usize = 5;

fn spawn(bin: &str, tree: &Tree, args: &[String], stdin: Option<&str>) -> Child {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin(bin))
        .args(args)
        .current_dir(tree.dir.path())
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    if let Some(text) = stdin {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
    }
    child
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

fn no_damaged_cache(tree: &Tree) {
    let bad = tree
        .cache_files(".lockgraph")
        .into_iter()
        .chain(tree.cache_files(".lockgraph/findings"))
        .filter(|p| p.extension().is_some_and(|e| e == "bad"))
        .count();
    assert_eq!(bad, 0, "a cache file was found damaged");
}

#[test]
fn lockfile_edits_fixes_and_segmentation_racing_lose_nothing() {
    for round in 0..ROUNDS {
        let tree = Tree::copy_of("copy");
        let added: Vec<String> = (0..12).map(|i| format!("content/talks/a{i}.md")).collect();
        for p in &added {
            tree.write(p, "Krátký text a další věta.\n");
        }
        // Files with entries to review, written first.
        let reviewed: Vec<String> = (0..6).map(|i| format!("content/guide/r{i}.md")).collect();
        for p in &reviewed {
            tree.write(p, "Řekl ahoj a odešel.\n");
            let out = tree
                .copy_audit()
                .args(["lockfile", "add", p, "--spans", "-"])
                .write_stdin(r#"{"spans":[]}"#)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let mut children = Vec::new();
        for p in &added {
            let a = args(&["lockfile", "add", p, "--spans", "-"]);
            children.push(spawn("copy-audit", &tree, &a, Some(r#"{"spans":[]}"#)));
        }
        for p in &reviewed {
            let a = args(&["lockfile", "mark-reviewed", p, "--by", "t@2026-12-01"]);
            children.push(spawn("copy-audit", &tree, &a, None));
        }
        children.push(spawn("copy-audit", &tree, &args(&["--fix"]), None));
        children.push(spawn("copy-audit", &tree, &args(&["--json"]), None));
        children.push(spawn(
            "copy-audit",
            &tree,
            &args(&["lockfile", "normalize"]),
            None,
        ));
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.code().unwrap() < 2,
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let lock = common::json(tree.read(".copy-editor.lock.json").as_bytes());
        for p in &added {
            assert!(lock["files"].get(p).is_some(), "round {round}: {p} lost");
        }
        for p in &reviewed {
            assert_eq!(
                lock["files"][p]["reviewedBy"], "t@2026-12-01",
                "round {round}: {p}'s review lost"
            );
        }
        let warm = tree.copy_audit().arg("--json").output().unwrap();
        let cold = tree
            .copy_audit()
            .args(["--json", "--no-cache"])
            .output()
            .unwrap();
        assert_eq!(warm.stdout, cold.stdout, "round {round}");
        no_damaged_cache(&tree);
    }
}

#[test]
fn cold_runs_racing_to_build_the_caches_agree() {
    for round in 0..ROUNDS {
        let tree = Tree::copy_of("copy");
        for i in 0..60 {
            tree.write(
                &format!("content/many/p{i}.md"),
                &format!("# Kapitola {i}\n\nText a další text , který má chybu.\n"),
            );
        }
        let expected = tree
            .copy_audit()
            .args(["--json", "--no-cache"])
            .output()
            .unwrap();
        let children: Vec<Child> = (0..8)
            .map(|_| spawn("copy-audit", &tree, &args(&["--json"]), None))
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.stdout, expected.stdout, "round {round}");
        }
        let warm = tree.copy_audit().arg("--json").output().unwrap();
        assert_eq!(
            warm.stdout, expected.stdout,
            "round {round}: after the race"
        );
        no_damaged_cache(&tree);
    }
}

#[test]
fn soil_lock_runs_racing_agree_and_refresh_settles() {
    for round in 0..ROUNDS {
        let tree = Tree::copy_of("soil");
        let sum = tree.read("csvstats/sum.tr");
        tree.write(
            "csvstats/sum.tr",
            &sum.replace("Adds the floats", "Adds up the floats"),
        );
        let mut children: Vec<Child> = (0..4)
            .map(|_| spawn("soil-lock", &tree, &args(&["status", "--json"]), None))
            .collect();
        children.extend((0..3).map(|_| spawn("soil-lock", &tree, &args(&["refresh"]), None)));
        children.push(spawn("soil-lock", &tree, &args(&["manifest"]), None));
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert!(
                out.status.code().unwrap() < 2,
                "round {round}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        let cached = tree
            .soil_lock()
            .args(["status", "--json"])
            .output()
            .unwrap();
        let uncached = tree
            .soil_lock()
            .args(["--no-cache", "status", "--json"])
            .output()
            .unwrap();
        assert_eq!(cached.stdout, uncached.stdout, "round {round}");
        let refresh = tree.soil_lock().arg("refresh").output().unwrap();
        assert!(
            String::from_utf8_lossy(&refresh.stderr).contains("0 sidecars written"),
            "round {round}: the racing refreshes left work"
        );
        let bad = tree
            .cache_files(".lockgraph/soil")
            .into_iter()
            .filter(|p| p.extension().is_some_and(|e| e == "bad"))
            .count();
        assert_eq!(bad, 0, "round {round}");
    }
}
