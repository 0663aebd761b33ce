//! The watch loop both tools share (`src/watch.rs`), run as a user runs it: the binary in
//! watch mode, edits on disk, its output read as it comes. An edit that makes a refresh
//! fail is one error line, and the session goes on to the next edit; the session's own
//! reads are not edits (they once brought on a read after read, for ever).

mod common;

use common::Tree;
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

/// A watching process, its output lines arriving on channels.
struct Watching {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
}

impl Watching {
    fn start(mut cmd: Command) -> Watching {
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starts");
        let lines = |stream: Box<dyn std::io::Read + Send>| {
            let (tx, rx) = channel();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            });
            rx
        };
        let out = lines(Box::new(child.stdout.take().unwrap()));
        let err = lines(Box::new(child.stderr.take().unwrap()));
        Watching { child, out, err }
    }

    /// The first line of `stream` containing `text`, within a minute.
    fn wait(stream: &Receiver<String>, text: &str) -> String {
        let end = Instant::now() + Duration::from_secs(60);
        let mut seen = Vec::new();
        while let Some(left) = end.checked_duration_since(Instant::now()) {
            match stream.recv_timeout(left) {
                Ok(line) if line.contains(text) => return line,
                Ok(line) => seen.push(line),
                Err(_) => break,
            }
        }
        panic!("no line with {text:?} within a minute; saw {seen:#?}");
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn mkfifo(path: &std::path::Path) {
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.expect("mkfifo runs").success(), "{}", path.display());
}

#[test]
fn soil_lock_watch_reports_a_failed_refresh_and_goes_on() {
    let tree = Tree::copy_of("soil");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_soil-lock"));
    cmd.current_dir(tree.dir.path()).arg("watch");
    let w = Watching::start(cmd);
    Watching::wait(&w.out, "watching");
    // A new spec whose sidecar is not a regular file: re-listing the root fails.
    mkfifo(&tree.path("csvstats/extra.lock"));
    tree.write("csvstats/extra.tr", &tree.read("csvstats/sum.tr"));
    Watching::wait(&w.err, "extra.lock: a FIFO, not a regular file");
    std::fs::remove_file(tree.path("csvstats/extra.lock")).unwrap();
    std::fs::remove_file(tree.path("csvstats/extra.tr")).unwrap();
    let sum = "csvstats/sum.tr";
    tree.write(
        sum,
        &tree
            .read(sum)
            .replace("Adds the floats", "Adds up the floats"),
    );
    let line = Watching::wait(&w.out, "csvstats/sum");
    assert!(line.contains("prose-stale"), "{line}");
}

#[test]
fn copy_audit_watch_reports_a_failed_refresh_and_goes_on() {
    let tree = Tree::copy_of("copy");
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_copy-audit"));
    cmd.current_dir(tree.dir.path())
        .args(["--watch", "--config", ".copy-editor.yaml"]);
    let w = Watching::start(cmd);
    Watching::wait(&w.out, "watching");
    let lockfile = tree.read(".copy-editor.lock.json");
    tree.write(".copy-editor.lock.json", "{ not json");
    Watching::wait(&w.err, "error:");
    // One error line for one bad edit, not one per read of the lockfile.
    std::thread::sleep(Duration::from_millis(300));
    let more: Vec<String> = w.err.try_iter().collect();
    assert!(more.iter().all(|l| !l.starts_with("error:")), "{more:#?}");
    tree.write(".copy-editor.lock.json", &lockfile);
    let page = "content/new-page.md";
    tree.write(page, "A \"quoted\" word.\n");
    Watching::wait(&w.out, "new-page.md");
}
