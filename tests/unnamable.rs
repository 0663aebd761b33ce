//! Files whose names are not valid UTF-8 (issue 28, item 3): neither tool can name them in a
//! lockfile, a report or a manifest, so neither audits them — but both say they are there,
//! in one warning, and the gates fail on them: a file that cannot be named cannot be
//! reviewed.
#![cfg(unix)]

mod common;

use common::{Tree, json};
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;

/// Writes `text` at `dir/name`, `name` being raw bytes.
fn write_raw(tree: &Tree, dir: &str, name: &[u8], text: &str) {
    let path = tree.path(dir).join(OsStr::from_bytes(name));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn copy_audit_names_them_in_one_warning_and_the_review_gate_fails() {
    let tree = Tree::copy_of("copy");
    // Nothing named is in scope: the gate passes.
    let gated = [
        "--require-reviewed",
        "--json",
        "--paths",
        "content/new/**/*.md",
    ];
    let out = tree.copy_audit().args(gated).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for i in 0..300 {
        let mut name = format!("t{i:03}").into_bytes();
        name.extend_from_slice(b"\xff.md");
        write_raw(&tree, "content/new", &name, "# Ahoj\n\nText v domě.\n");
    }
    write_raw(&tree, "content/new", b"\xfe\xfe/inner.md", "# Ahoj\n");
    let out = tree.copy_audit().args(gated).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.contains("UTF-8")).collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].starts_with("warning: 301 file names are not valid UTF-8: "),
        "{stderr}"
    );
    assert!(warnings[0].contains(r"content/new/t000\xff.md"), "{stderr}");
    assert!(warnings[0].contains("and 296 more"), "{stderr}");
    assert_eq!(out.status.code(), Some(1), "the gate fails: {stderr}");
    let report = json(&out.stdout);
    let unnamable = report["reviewStatus"]["unnamable"].as_array().unwrap();
    assert_eq!(unnamable.len(), 301);
    // Sorted by the escaped name: the backslash sorts before `t`.
    assert_eq!(unnamable[0], r"content/new/\xfe\xfe/inner.md");
    assert_eq!(unnamable[1], r"content/new/t000\xff.md");
    assert_eq!(unnamable[300], r"content/new/t299\xff.md");
    assert_eq!(
        report["totalFiles"], 0,
        "a file that cannot be named is not audited"
    );
    // Without the gate, the audit itself is unchanged (and says so once more).
    let plain = tree
        .copy_audit()
        .args(["--json", "--paths", "content/new/**/*.md"])
        .output()
        .unwrap();
    assert_eq!(plain.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&plain.stderr).contains("301 file names"));
}

#[test]
fn soil_lock_warns_and_check_fails() {
    let tree = Tree::copy_of("soil");
    let spec = tree.read("text/trim.tr");
    write_raw(&tree, "text", b"tr\xffm.tr", &spec);
    let out = tree.soil_lock().arg("status").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(r"warning: 1 file name is not valid UTF-8: text/tr\xffm.tr;"),
        "{stderr}"
    );
    let out = tree.soil_lock().arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(r"text/tr\xffm.tr: unnamable: the path is not valid UTF-8"),
        "{stdout}"
    );
}
