//! The lockfile read on first need from inside the parallel audit (issue 19, item 5): with
//! the findings cache gone but the lockfile summary kept, every file's entry is asked for
//! by an audit worker at once, on two threads. The read must not deadlock (a worker that
//! stole work while reading once could), and what it gives equals an uncached run.

mod common;

use common::Tree;
use std::time::Duration;

fn run(tree: &Tree, args: &[&str]) -> (i32, String) {
    let out = tree
        .copy_audit()
        .env("RAYON_NUM_THREADS", "2")
        .args(args)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap();
    let code = out
        .status
        .code()
        .expect("ended by itself, not at the timeout");
    (code, String::from_utf8(out.stdout).unwrap())
}

#[test]
fn entries_read_lazily_by_workers_on_two_threads() {
    let tree = Tree::copy_of("copy");
    for i in 0..400 {
        tree.write(
            &format!("content/guide/many/p{i:03}.md"),
            &format!(
                "# Kapitola {i}\n\nToto je odstavec číslo {i} , který má chybu a  dvě mezery.\n\nA tady je další věta s koncem.\n"
            ),
        );
    }
    // Entries for every file, then a run that fills the caches.
    let (code, _) = run(&tree, &["--offline"]);
    assert!(code < 2);
    let (_, uncached) = run(&tree, &["--no-cache", "--json"]);
    for round in 0..10 {
        std::fs::remove_dir_all(tree.path(".lockgraph/findings")).ok();
        assert!(
            tree.path(".lockgraph/lock-summary.v1").exists(),
            "round {round}"
        );
        let (code, out) = run(&tree, &["--json"]);
        assert!(code < 2, "round {round}");
        assert_eq!(out, uncached, "round {round}");
    }
}
