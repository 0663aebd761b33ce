//! Standard output that cannot be written (issue 19): a closed pipe ends a run quietly,
//! any other failure is one line and exit 2 — never a panic, never exit 0 with the report
//! lost.
#![cfg(target_os = "linux")]

mod common;

use common::Tree;
use std::process::{Command, Stdio};

fn binary(name: &str) -> std::path::PathBuf {
    assert_cmd::cargo::cargo_bin(name)
}

/// `args` of `tool` in `tree`, stdout being `/dev/full`: exit 2 and one error line.
fn full_disk(tree: &Tree, tool: &str, args: &[&str]) {
    let out = Command::new(binary(tool))
        .args(args)
        .current_dir(tree.dir.path())
        .stdout(std::fs::File::create("/dev/full").unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{tool} {args:?}\n{stderr}");
    assert_eq!(
        stderr
            .lines()
            .filter(|l| l.starts_with("error: cannot write the output"))
            .count(),
        1,
        "{tool} {args:?}\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{tool} {args:?}\n{stderr}");
}

/// `args` of `tool` with its stdout closed before it writes: no panic, no error line.
fn closed_pipe(tree: &Tree, tool: &str, args: &[&str]) {
    let mut child = Command::new(binary(tool))
        .args(args)
        .current_dir(tree.dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{tool} {args:?}\n{stderr}");
    assert!(!stderr.contains("error:"), "{tool} {args:?}\n{stderr}");
}

#[test]
fn copy_audit_output_errors() {
    let tree = Tree::copy_of("copy");
    for args in [
        &[][..],
        &["--json"],
        &["--format", "sarif"],
        &["--format", "github"],
        &["--list-unsegmented"],
        &["lockfile", "check", "--json"],
    ] {
        full_disk(&tree, "copy-audit", args);
        closed_pipe(&tree, "copy-audit", args);
    }
}

#[test]
fn soil_lock_output_errors() {
    let tree = Tree::copy_of("soil");
    for args in [
        &["status"][..],
        &["status", "--json"],
        &["graph"],
        &["graph", "--format", "json"],
        &["why", "csvstats/median"],
        &["impact", "csvstats/sum", "--change", "soil"],
    ] {
        full_disk(&tree, "soil-lock", args);
        closed_pipe(&tree, "soil-lock", args);
    }
}
