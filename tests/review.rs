//! `copy-audit --review-cache` in a real terminal: tmux runs it, the test sends keys and
//! reads the screen. `.ci/run` installs tmux where it is missing.

mod common;

use common::{Tree, json};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

const AGENDA: &str = "content/agenda.json";
const LOCK: &str = ".copy-editor.lock.json";

/// A tmux session running one command in a terminal of 160×60, killed when dropped.
struct Terminal {
    name: String,
}

impl Terminal {
    fn run(dir: &Path, env: &[(&str, &str)], command: &str) -> Terminal {
        // tmux session names may hold neither `.` nor `:`.
        let unique: String = dir
            .file_name()
            .unwrap()
            .to_string_lossy()
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect();
        let name = format!("lockgraph-review-{}-{unique}", std::process::id());
        let exports: String = env
            .iter()
            .map(|(k, v)| format!("export {k}='{v}'; "))
            .collect();
        let script = format!(
            "cd '{}'; {exports}{command}; echo \"exited $?\"; sleep 60",
            dir.display()
        );
        let status = Command::new("tmux")
            .args([
                "new-session",
                "-d",
                "-x",
                "160",
                "-y",
                "60",
                "-s",
                &name,
                &script,
            ])
            .status()
            .expect("tmux is installed (.ci/run installs it)");
        assert!(status.success());
        Terminal { name }
    }

    fn screen(&self) -> String {
        let out = Command::new("tmux")
            .args(["capture-pane", "-p", "-S", "-200", "-t", &self.name])
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Waits (up to ten seconds) until the screen shows `text`, and returns the screen.
    fn wait_for(&self, text: &str) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if screen.contains(text) {
                return screen;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "no {text:?} on:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn keys(&self, keys: &str) {
        let status = Command::new("tmux")
            .args(["send-keys", "-t", &self.name, keys, "Enter"])
            .status()
            .unwrap();
        assert!(status.success());
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["kill-session", "-t", &self.name])
            .status();
    }
}

fn binary() -> String {
    assert_cmd::cargo::cargo_bin("copy-audit")
        .display()
        .to_string()
}

#[test]
fn accepting_an_entry_writes_the_review_at_once() {
    let tree = Tree::copy_of("copy");
    let term = Terminal::run(
        tree.dir.path(),
        &[("COPY_EDITOR_REVIEWER", "eva@2026-12-01")],
        &format!("'{}' --review-cache", binary()),
    );
    let screen = term.wait_for("[a]ccept, [e]dit, [s]kip, [q]uit?");
    assert!(screen.contains("[1/1] content/agenda.json"), "{screen}");
    assert!(screen.contains("legend:"), "{screen}");
    term.keys("a");
    let screen = term.wait_for("exited 0");
    assert!(
        screen.contains("content/agenda.json: reviewed by eva@2026-12-01"),
        "{screen}"
    );
    assert!(
        screen.contains("1 of 1 unreviewed entries accepted"),
        "{screen}"
    );
    let lock = json(tree.read(LOCK).as_bytes());
    assert_eq!(lock["files"][AGENDA]["reviewedBy"], "eva@2026-12-01");
}

#[test]
fn edited_spans_are_checked_written_and_left_for_review() {
    let tree = Tree::copy_of("copy");
    // An "editor" that retags every English span as German.
    let editor = tree.path("retag.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/\"language\":\"en\"/\"language\":\"de\"/g' \"$1\"\n",
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&editor)
        .status()
        .unwrap();
    let term = Terminal::run(
        tree.dir.path(),
        &[("EDITOR", &editor.display().to_string())],
        &format!("'{}' --review-cache", binary()),
    );
    term.wait_for("[a]ccept, [e]dit, [s]kip, [q]uit?");
    term.keys("e");
    term.wait_for("content/agenda.json: spans edited, awaiting review");
    term.keys("q");
    let screen = term.wait_for("exited 0");
    assert!(screen.contains("0 accepted"), "{screen}");
    let lock = json(tree.read(LOCK).as_bytes());
    let entry = &lock["files"][AGENDA];
    assert_eq!(entry["reviewedBy"], serde_json::Value::Null);
    let languages: Vec<&str> = entry["spans"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["language"].as_str().unwrap())
        .collect();
    assert!(
        languages.contains(&"de") && !languages.contains(&"en"),
        "{languages:?}"
    );
}
