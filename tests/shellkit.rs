//! Completion scripts and man pages, used as a shell and `man` use them: the bash script
//! is loaded in a real bash and asked to complete, each page is rendered by `man -l`.

use assert_cmd::Command;
use std::path::Path;
use std::process::Stdio;

const BINARIES: [&str; 2] = ["copy-audit", "soil-lock"];

fn completions(bin: &str, shell: &str) -> String {
    let out = Command::cargo_bin(bin)
        .unwrap()
        .args(["completions", shell])
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{bin} completions {shell}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

/// What bash's completion function offers for `words`, the last one being completed.
fn complete_in_bash(bin: &str, script: &str, words: &[&str]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("completion.bash");
    std::fs::write(&path, script).unwrap();
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    let program = format!(
        r#"source "{script}" || exit 3
fn=$(complete -p {bin} | sed 's/.* -F \([^ ]*\) .*/\1/')
COMP_WORDS=({words}); COMP_CWORD={cword}
COMP_LINE="${{COMP_WORDS[*]}}"; COMP_POINT=${{#COMP_LINE}}
"$fn" {bin} "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\n' "${{COMPREPLY[@]}}""#,
        script = path.display(),
        words = quoted.join(" "),
        cword = words.len() - 1,
    );
    let out = std::process::Command::new("bash")
        .args(["--norc", "--noprofile", "-c", &program])
        .stdin(Stdio::null())
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{program}\n{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_a_flag_and_a_subcommand_of_each_binary() {
    for (bin, flag, want_flag, sub, want_sub) in [
        (
            "copy-audit",
            "--require-rev",
            "--require-reviewed",
            "lockf",
            "lockfile",
        ),
        ("soil-lock", "--no-ca", "--no-cache", "manif", "manifest"),
    ] {
        let script = completions(bin, "bash");
        assert_eq!(complete_in_bash(bin, &script, &[bin, flag]), [want_flag]);
        assert_eq!(complete_in_bash(bin, &script, &[bin, sub]), [want_sub]);
    }
}

#[test]
fn every_shell_gets_a_script_naming_the_subcommands() {
    for bin in BINARIES {
        for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
            let script = completions(bin, shell);
            assert!(script.contains("completions"), "{bin} {shell}: {script}");
            assert!(script.contains("server"), "{bin} {shell}");
        }
    }
    // An unknown shell is a usage error naming the shells there are.
    let out = Command::cargo_bin("copy-audit")
        .unwrap()
        .args(["completions", "tcsh"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("possible values: bash"));
}

fn man_pages(bin: &str, dir: &Path) {
    Command::cargo_bin(bin)
        .unwrap()
        .args(["man-pages"])
        .arg(dir)
        .current_dir(std::env::temp_dir())
        .assert()
        .success();
}

#[test]
fn a_man_page_per_command_renders_without_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    for bin in BINARIES {
        man_pages(bin, dir.path());
    }
    let mut pages: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    pages.sort();
    for want in [
        "copy-audit.1",
        "copy-audit-lockfile.1",
        "copy-audit-lockfile-mark-reviewed.1",
        "copy-audit-server.1",
        "copy-audit-completions.1",
        "soil-lock.1",
        "soil-lock-check.1",
        "soil-lock-why.1",
    ] {
        assert!(pages.iter().any(|p| p == want), "{want} in {pages:?}");
    }
    // The hidden command that writes them has none.
    assert!(!pages.iter().any(|p| p.contains("man-pages")), "{pages:?}");

    // Written again with the same bytes: not rewritten.
    let mtimes = |dir: &Path| -> Vec<_> {
        let mut m: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().metadata().unwrap().modified().unwrap())
            .collect();
        m.sort();
        m
    };
    let before = mtimes(dir.path());
    std::thread::sleep(std::time::Duration::from_millis(20));
    for bin in BINARIES {
        man_pages(bin, dir.path());
    }
    assert_eq!(mtimes(dir.path()), before);

    if std::process::Command::new("man")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!(
            "skipped: `man` is not installed (Debian's man-db; .ci/run installs it), so the \
             pages were written but not rendered"
        );
        return;
    }
    for page in &pages {
        let out = std::process::Command::new("man")
            .args(["--warnings", "-l"])
            .arg(dir.path().join(page))
            .env("MANWIDTH", "80")
            .env("LC_ALL", "C.UTF-8")
            .stdin(Stdio::null())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{page}: {stderr}");
        assert!(stderr.trim().is_empty(), "{page} warns: {stderr}");
        // Bold as a terminal pager shows it, by overstriking: `S\x08S`.
        let mut text = String::new();
        for c in String::from_utf8_lossy(&out.stdout).chars() {
            if c == '\u{8}' {
                text.pop();
            } else {
                text.push(c);
            }
        }
        assert!(text.contains("SYNOPSIS"), "{page}: {text}");
    }
}
