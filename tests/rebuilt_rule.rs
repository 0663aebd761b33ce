//! A build whose rules behave differently trusts no cache another build wrote (issue 19,
//! item 3). The engine version in every cache key is a hash of the sources (`build.rs`),
//! so this test makes a real second build: it copies the package's sources, drops `o`
//! from cs-R1's one-letter prepositions, builds the copy, and runs both builds on one tree
//! in turns. Every run must equal the same build's run without the cache.
//!
//! Building the copy takes minutes, so the test is ignored by default; `.ci/run` runs it.

mod common;

use common::Tree;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// What the rule change edits, in `queries/src/copy/rules/one_letter.rs`.
const PREPOSITIONS: &str = r#"ByteSet::new(b"ksvzouKSVZOU")"#;
const WITHOUT_O: &str = r#"ByteSet::new(b"ksvzuKSVZU")"#;

/// Copies `from` to `to`, leaving out build output and caches.
fn copy_sources(from: &Path, to: &Path) {
    if from.is_file() {
        fs::copy(from, to).unwrap();
        return;
    }
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        if matches!(entry.file_name().to_str(), Some("target" | ".lockgraph")) {
            continue;
        }
        copy_sources(&entry.path(), &to.join(entry.file_name()));
    }
}

/// Builds `copy-audit` from a copy of this package with cs-R1 no longer taking `o`.
fn build_changed_copy() -> PathBuf {
    let package = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sources = tempfile::tempdir().unwrap();
    for part in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "src",
        "queries",
        "benches",
        "docs",
    ] {
        copy_sources(&package.join(part), &sources.path().join(part));
    }
    let rule = sources.path().join("queries/src/copy/rules/one_letter.rs");
    let text = fs::read_to_string(&rule).unwrap();
    assert!(
        text.contains(PREPOSITIONS),
        "{}: `{PREPOSITIONS}` is gone; make this test change the rule another way",
        rule.display()
    );
    fs::write(&rule, text.replace(PREPOSITIONS, WITHOUT_O)).unwrap();
    // A target directory of its own (the outer `cargo test` holds its own), kept between
    // runs so that only the two changed crates are rebuilt next time.
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rebuilt-rule");
    let status = Command::new(env!("CARGO"))
        .args(["build", "--frozen", "--quiet", "--bin", "copy-audit"])
        .current_dir(sources.path())
        .env("CARGO_TARGET_DIR", &target)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "building the changed copy failed");
    target.join("debug").join("copy-audit")
}

/// Exit code and JSON report of `binary` on `tree`, with or without the cache.
fn run(binary: &Path, tree: &Tree, cached: bool) -> (Option<i32>, String) {
    let mut cmd = Command::new(binary);
    cmd.current_dir(tree.dir.path()).args(["--format", "json"]);
    if !cached {
        cmd.arg("--no-cache");
    }
    let out = cmd.output().unwrap();
    (out.status.code(), String::from_utf8(out.stdout).unwrap())
}

#[test]
#[ignore = "builds a changed copy of the binaries (minutes); .ci/run runs it"]
fn a_build_with_a_changed_rule_trusts_no_cache_of_another() {
    let changed = build_changed_copy();
    let original = PathBuf::from(env!("CARGO_BIN_EXE_copy-audit"));
    let tree = Tree::copy_of("copy");

    let before = run(&original, &tree, true);
    assert_eq!(before, run(&original, &tree, false));
    assert!(
        !tree.cache_files(".lockgraph/findings").is_empty(),
        "the first build cached its findings"
    );

    let after = run(&changed, &tree, true);
    assert_eq!(after, run(&changed, &tree, false), "the changed build");
    assert_ne!(after, before, "the change shows in the findings");
    assert!(before.1.contains("“o”") && !after.1.contains("“o”"));

    // In turns again, each with the other's cache beside its own.
    assert_eq!(run(&original, &tree, true), before);
    assert_eq!(run(&changed, &tree, true), after);
}
