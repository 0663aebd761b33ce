//! `LOCKGRAPH_LOG`: phase timings at `info`, the salsa queries executed from `debug` on,
//! nothing without it, and never a change to what a run prints on stdout or how it exits.

mod common;

use common::Tree;
use std::process::Output;

fn run(cmd: &mut assert_cmd::Command, log: Option<(&str, &str)>) -> Output {
    cmd.env_remove("LOCKGRAPH_LOG")
        .env_remove("LOCKGRAPH_TIMINGS");
    if let Some((k, v)) = log {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn info_prints_each_phase_and_changes_nothing_else() {
    let tree = Tree::copy_of("copy");
    let quiet = run(tree.copy_audit().args(["--json", "--no-cache"]), None);
    assert_eq!(stderr(&quiet), "");
    for log in [("LOCKGRAPH_LOG", "info"), ("LOCKGRAPH_TIMINGS", "1")] {
        let logged = run(tree.copy_audit().args(["--json", "--no-cache"]), Some(log));
        assert_eq!(logged.stdout, quiet.stdout, "{log:?}");
        assert_eq!(logged.status.code(), quiet.status.code());
        let err = stderr(&logged);
        for phase in ["walk and stat, open caches", "stat, read, audit", "print"] {
            let line = err
                .lines()
                .find(|l| l.starts_with(&format!("timing: {phase} ")))
                .unwrap_or_else(|| panic!("{log:?}: no `{phase}` line in\n{err}"));
            assert!(line.contains(" ms ") && line.ends_with(" MB"), "{line}");
        }
        assert!(err.contains("timing: files read"), "{err}");
        assert!(!err.contains("executing query"), "{err}");
    }
}

#[test]
fn debug_prints_the_salsa_queries_executed() {
    let tree = Tree::copy_of("soil");
    let quiet = run(
        tree.soil_lock().args(["--no-cache", "status", "--json"]),
        None,
    );
    let info = run(
        tree.soil_lock().args(["--no-cache", "status", "--json"]),
        Some(("LOCKGRAPH_LOG", "info")),
    );
    let debug = run(
        tree.soil_lock().args(["--no-cache", "status", "--json"]),
        Some(("LOCKGRAPH_LOG", "debug")),
    );
    for out in [&info, &debug] {
        assert_eq!(out.stdout, quiet.stdout);
        assert!(
            stderr(out).contains("timing: flags and ladders"),
            "{}",
            stderr(out)
        );
    }
    assert!(!stderr(&info).contains("executing query"));
    let executed: Vec<String> = stderr(&debug)
        .lines()
        .filter(|l| l.contains("executing query"))
        .map(str::to_owned)
        .collect();
    assert!(
        executed.iter().any(|l| l.contains("flags(")) && executed.len() > 20,
        "{executed:#?}"
    );
    // Naming salsa sets its level as written.
    let only_salsa = run(
        tree.soil_lock().args(["--no-cache", "status", "--json"]),
        Some(("LOCKGRAPH_LOG", "salsa=info")),
    );
    let err = stderr(&only_salsa);
    assert!(
        err.contains("executing query") && !err.contains("timing:"),
        "{err}"
    );
}

#[test]
fn a_filter_that_does_not_parse_is_a_warning_naming_the_variable() {
    let tree = Tree::copy_of("soil");
    let quiet = run(tree.soil_lock().arg("check"), None);
    let bad = run(
        tree.soil_lock().arg("check"),
        Some(("LOCKGRAPH_LOG", "info,[")),
    );
    assert_eq!(bad.stdout, quiet.stdout);
    assert_eq!(bad.status.code(), quiet.status.code());
    let err = stderr(&bad);
    assert!(
        err.starts_with("warning: LOCKGRAPH_LOG=\"info,[\" is not a filter"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}
