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

    /// `soil-lock watch` on `tree`, once it says it is watching.
    fn soil_lock(tree: &Tree) -> Watching {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_soil-lock"));
        cmd.current_dir(tree.dir.path()).arg("watch");
        Watching::started(cmd)
    }

    /// `copy-audit --watch` on `tree`, once it says it is watching.
    fn copy_audit(tree: &Tree) -> Watching {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_copy-audit"));
        cmd.current_dir(tree.dir.path())
            .args(["--watch", "--config", ".copy-editor.yaml"]);
        Watching::started(cmd)
    }

    fn started(cmd: Command) -> Watching {
        let w = Watching::start(cmd);
        Watching::wait(&w.out, "watching");
        w
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

/// A prose edit of `csvstats/sum`: it becomes `prose-stale`.
fn edit_prose_of_sum(tree: &Tree) {
    let sum = "csvstats/sum.tr";
    let text = tree
        .read(sum)
        .replace("Adds the floats", "Adds up the floats");
    tree.write(sum, &text);
}

fn mkfifo(path: &std::path::Path) {
    let made = Command::new("mkfifo").arg(path).status();
    assert!(made.expect("mkfifo runs").success(), "{}", path.display());
}

#[test]
fn soil_lock_watch_reports_a_failed_refresh_and_goes_on() {
    let tree = Tree::copy_of("soil");
    let w = Watching::soil_lock(&tree);
    // A new spec whose sidecar is not a regular file: re-listing the root fails.
    mkfifo(&tree.path("csvstats/extra.lock"));
    tree.write("csvstats/extra.tr", &tree.read("csvstats/sum.tr"));
    Watching::wait(&w.err, "extra.lock: a FIFO, not a regular file");
    std::fs::remove_file(tree.path("csvstats/extra.lock")).unwrap();
    std::fs::remove_file(tree.path("csvstats/extra.tr")).unwrap();
    edit_prose_of_sum(&tree);
    let line = Watching::wait(&w.out, "csvstats/sum");
    assert!(line.contains("prose-stale"), "{line}");
}

#[test]
fn copy_audit_watch_reports_a_failed_refresh_and_goes_on() {
    let tree = Tree::copy_of("copy");
    let w = Watching::copy_audit(&tree);
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

/// Writes `path` every 5 ms until `stop` is set: write `n` puts a one-letter preposition at
/// column `n + 2`, so that every re-audit of the file changes its findings.
fn busy_writer(
    path: std::path::PathBuf,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> std::thread::JoinHandle<usize> {
    std::thread::spawn(move || {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut writes = 0;
        while !stop.load(std::sync::atomic::Ordering::Relaxed) {
            let text = format!("{} v lese.\n", "a".repeat(writes + 1));
            std::fs::write(&path, text).unwrap();
            writes += 1;
            std::thread::sleep(Duration::from_millis(5));
        }
        writes
    })
}

/// Issue 28, item 4: files written without a pause — out of scope, in `node_modules/`,
/// or in scope — never hold back the report of an edit elsewhere.
#[test]
fn copy_audit_watch_reports_an_edit_beside_busy_writers() {
    let tree = Tree::copy_of("copy");
    let w = Watching::copy_audit(&tree);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writers = [
        busy_writer(tree.path("app.log"), stop.clone()),
        busy_writer(tree.path("node_modules/pkg/README.md"), stop.clone()),
        busy_writer(tree.path("content/busy.md"), stop.clone()),
    ];
    // The busy file in scope is re-audited every 250 ms while it is written: about four
    // reports in a second, never none and never one per write.
    Watching::wait(&w.out, "content/busy.md");
    std::thread::sleep(Duration::from_secs(1));
    let reports = w
        .out
        .try_iter()
        .filter(|l| l.starts_with("-- ") && l.contains("file(s) changed"))
        .count();
    assert!((2..=6).contains(&reports), "{reports} reports in a second");
    let edited = Instant::now();
    tree.write("content/edit.md", "A \"quoted\" word.\n");
    Watching::wait(&w.out, "content/edit.md");
    let waited = edited.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let writes: usize = writers.into_iter().map(|t| t.join().unwrap()).sum();
    assert!(writes > 100, "the writers ran: {writes} writes");
    assert!(
        waited < Duration::from_secs(1),
        "the edit was reported {waited:?} after it was saved"
    );
}

/// Issue 28, item 4, for soil-lock: a log written without a pause beside the root's
/// files does not hold back a spec edit.
#[test]
fn soil_lock_watch_reports_an_edit_beside_a_busy_writer() {
    let tree = Tree::copy_of("soil");
    let w = Watching::soil_lock(&tree);
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let writer = busy_writer(tree.path("out.log"), stop.clone());
    std::thread::sleep(Duration::from_millis(500));
    let edited = Instant::now();
    edit_prose_of_sum(&tree);
    Watching::wait(&w.out, "csvstats/sum");
    let waited = edited.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(writer.join().unwrap() > 50);
    assert!(
        waited < Duration::from_secs(1),
        "the edit was reported {waited:?} after it was saved"
    );
}

/// Issue 28, item 6: a sidecar emptied or half written shows as `status` shows it, with
/// its error line, and the definition recovers when the file is whole again.
#[test]
fn soil_lock_watch_shows_a_broken_sidecar_as_unreadable_and_recovers() {
    let tree = Tree::copy_of("soil");
    let w = Watching::soil_lock(&tree);
    let lock = "csvstats/sum.lock";
    let whole = tree.read(lock);
    tree.write(lock, "");
    let row = Watching::wait(&w.out, "csvstats/sum ");
    assert!(row.ends_with("→ unreadable"), "{row}");
    let error = Watching::wait(&w.err, "error:");
    assert!(error.starts_with("error: csvstats/sum.lock: "), "{error}");
    tree.write(lock, &whole[..whole.len() / 2]);
    let error = Watching::wait(&w.err, "error:");
    assert!(error.starts_with("error: csvstats/sum.lock: "), "{error}");
    tree.write(lock, &whole);
    let row = Watching::wait(&w.out, "csvstats/sum ");
    assert!(row.contains(": unreadable → "), "{row}");
    assert!(!row.ends_with("unreadable"), "{row}");
}
