//! The hooks of `.pre-commit-hooks.yaml` under the real `pre-commit` (from PyPI; `.ci/run`
//! installs it into a virtual environment and names it in `LOCKGRAPH_PRE_COMMIT`).
//!
//! This repository, as it is in the working tree, becomes a hook repository in a temporary
//! git repository; a user's repository (the copy-audit fixture and a soil-lock root under
//! `specs/`) installs both hooks from it; pre-commit builds them with `cargo install` as
//! it would for any user. Then commits: a typography error is refused with the finding
//! shown, a clean file passes, files the config leaves out are not audited, a broken
//! sidecar invariant is refused. `pre-commit validate-manifest` accepts the hooks file.
//!
//! The build is pre-commit's own `cargo install --path .`; only its profile is made cheap
//! (no LTO, no optimisation) and its target directory kept in `target/pre-commit/`, so a
//! second run rebuilds only this crate. Without pre-commit the test says it was skipped.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

/// The `pre-commit` to run: `$LOCKGRAPH_PRE_COMMIT`, else one on the PATH.
fn pre_commit() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LOCKGRAPH_PRE_COMMIT") {
        return Some(PathBuf::from(p));
    }
    let found = Command::new("pre-commit").arg("--version").output();
    found
        .is_ok_and(|o| o.status.success())
        .then(|| PathBuf::from("pre-commit"))
}

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// git in `dir`, as a test user, whatever repository the test itself runs in.
fn git_in(dir: &Path) -> Command {
    let mut cmd = Command::new("git");
    cmd.args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .current_dir(dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_WORK_TREE");
    cmd
}

fn git(dir: &Path, args: &[&str]) -> Output {
    git_in(dir).args(args).output().expect("git runs")
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = git(dir, args);
    assert!(
        out.status.success(),
        "git {args:?}\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// This repository's working tree (tracked and new files, none that git ignores) committed
/// into a fresh repository; its commit. None when the sources are not a git checkout.
fn hook_repository(dir: &Path) -> Option<String> {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(manifest_dir())
        .output()
        .expect("git runs");
    if !listed.status.success() {
        return None;
    }
    for rel in listed.stdout.split(|&b| b == 0).filter(|r| !r.is_empty()) {
        let rel = std::str::from_utf8(rel).unwrap();
        let from = manifest_dir().join(rel);
        // A file deleted in the working tree but still in the index.
        if !from.is_file() {
            continue;
        }
        let to = dir.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
    git_ok(dir, &["init", "-q"]);
    git_ok(dir, &["add", "-A"]);
    git_ok(dir, &["commit", "-q", "-m", "hooks"]);
    Some(git_ok(dir, &["rev-parse", "HEAD"]).trim().to_owned())
}

struct User {
    dir: tempfile::TempDir,
    pre_commit: PathBuf,
}

impl User {
    fn pre_commit(&self, args: &[&str]) -> Output {
        Command::new(&self.pre_commit)
            .args(args)
            .current_dir(self.dir.path())
            .envs(build_env())
            .output()
            .expect("pre-commit runs")
    }

    fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let p = self.dir.path().join(rel);
        let text = std::fs::read_to_string(&p).unwrap();
        assert!(text.contains(from), "{rel}");
        std::fs::write(p, text.replacen(from, to, 1)).unwrap();
    }

    /// Stages `paths` and commits; the commit's output (pre-commit's report) and whether
    /// it went in.
    fn commit(&self, paths: &[&str], message: &str) -> (bool, String) {
        let mut add = vec!["add", "--"];
        add.extend(paths);
        git_ok(self.dir.path(), &add);
        let out = git_in(self.dir.path())
            .args(["commit", "-q", "-m", message])
            .envs(build_env())
            .output()
            .expect("git runs");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }

    fn committed(&self) -> String {
        git_ok(self.dir.path(), &["ls-tree", "-r", "--name-only", "HEAD"])
    }
}

/// pre-commit's cache and cargo's build directory under `target/`, kept between runs, and
/// a cheap release profile for the hook's build.
fn build_env() -> Vec<(&'static str, String)> {
    let target = manifest_dir().join("target");
    vec![
        (
            "PRE_COMMIT_HOME",
            target.join("pre-commit-home").display().to_string(),
        ),
        (
            "CARGO_TARGET_DIR",
            target.join("pre-commit").display().to_string(),
        ),
        ("CARGO_PROFILE_RELEASE_LTO", "false".into()),
        ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0".into()),
        ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256".into()),
        ("CARGO_PROFILE_RELEASE_DEBUG", "false".into()),
        // Colour codes would hide the words the assertions look for.
        ("PRE_COMMIT_COLOR", "never".into()),
        ("NO_COLOR", "1".into()),
    ]
}

#[test]
fn pre_commit_hooks_refuse_a_typography_error_and_pass_what_is_clean_or_excluded() {
    let Some(pre_commit) = pre_commit() else {
        println!(
            "skipped: pre-commit is not installed (pip install pre-commit; .ci/run installs it \
             into a virtual environment), so the hooks were not run"
        );
        return;
    };
    let hooks = tempfile::tempdir().unwrap();
    let Some(rev) = hook_repository(hooks.path()) else {
        println!(
            "skipped: the sources are not a git checkout, so they cannot be a hook repository"
        );
        return;
    };
    let user = User {
        dir: tempfile::tempdir().unwrap(),
        pre_commit,
    };
    let validated = user.pre_commit(&[
        "validate-manifest",
        &hooks
            .path()
            .join(".pre-commit-hooks.yaml")
            .display()
            .to_string(),
    ]);
    assert!(validated.status.success(), "{validated:?}");

    // The user's repository: the copy-audit fixture's config and a soil-lock root, with
    // no prose yet.
    let fixtures = manifest_dir().join("fixtures");
    user.write(
        ".copy-editor.yaml",
        &std::fs::read_to_string(fixtures.join("copy/.copy-editor.yaml")).unwrap(),
    );
    let specs = user.dir.path().join("specs");
    common::copy_dir(&fixtures.join("soil"), &specs);
    user.write(
        ".pre-commit-config.yaml",
        &format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: copy-audit\n      \
             - id: soil-lock-check\n        args: [--root, specs]\n",
            hooks.path().display()
        ),
    );
    git_ok(user.dir.path(), &["init", "-q"]);
    let config = user.pre_commit(&["validate-config"]);
    assert!(config.status.success(), "{config:?}");
    let started = Instant::now();
    let installed = user.pre_commit(&["install", "--install-hooks"]);
    assert!(
        installed.status.success(),
        "{}{}",
        String::from_utf8_lossy(&installed.stdout),
        String::from_utf8_lossy(&installed.stderr)
    );
    println!(
        "pre-commit built and installed the hooks in {:.0?}",
        started.elapsed()
    );

    let (ok, out) = user.commit(
        &[".copy-editor.yaml", ".pre-commit-config.yaml", "specs"],
        "setup",
    );
    assert!(ok, "a clean soil-lock root and no prose pass:\n{out}");
    assert!(out.contains("soil-lock check"), "the hook ran:\n{out}");

    // A clean Czech paragraph passes.
    user.write(
        "content/talks/clean.md",
        "# Úvod\n\nVítejte na workshopu psaní textů.\n",
    );
    let (ok, out) = user.commit(&["content/talks/clean.md"], "clean prose");
    assert!(ok, "{out}");
    assert!(
        out.contains("copy-audit") && out.contains("Passed"),
        "{out}"
    );

    // A typography error: refused, and the finding is shown with its place.
    user.write(
        "content/talks/bad.md",
        "# Program\n\nSejdeme se v lese a pak pokračujeme...\n",
    );
    let (ok, out) = user.commit(&["content/talks/bad.md"], "an error");
    println!("what the refused commit showed:\n{out}");
    assert!(!ok, "the commit was refused:\n{out}");
    assert!(out.contains("Failed"), "{out}");
    assert!(out.contains("content/talks/bad.md"), "{out}");
    assert!(out.contains("cs-R3-ellipsis"), "{out}");
    assert!(!user.committed().contains("bad.md"));
    git_ok(user.dir.path(), &["reset", "-q"]);

    // The same error in files the config leaves out: a draft (`paths.exclude`) and a file
    // outside `paths.include`. pre-commit passes them; copy-audit skips them.
    let bad = "Sejdeme se v lese a pak pokračujeme...\n";
    user.write("content/drafts/wip.md", bad);
    user.write("notes.txt", bad);
    let (ok, out) = user.commit(&["content/drafts/wip.md", "notes.txt"], "excluded");
    assert!(ok, "excluded files are not audited:\n{out}");
    assert!(!out.contains("cs-R3-ellipsis"), "{out}");

    // soil-lock: an accepted definition whose spec changed is refused.
    user.edit(
        "specs/csvstats/sum.tr",
        "```ensures\n",
        "```ensures @agent\n",
    );
    let (ok, out) = user.commit(&["specs/csvstats/sum.tr"], "a formal edit");
    assert!(!ok, "{out}");
    assert!(out.contains("csvstats/sum: accepted-stale"), "{out}");
}
