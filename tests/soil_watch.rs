//! `soil-lock watch`, driven in-process: edits on disk, then `Session::refresh`, with the
//! executed-query log proving early cut-off across the real fixture root.

mod common;

use common::Tree;
use lockgraph::soil_lock::root::Root;
use lockgraph::soil_lock::session::{Change, Session};
use lockgraph_queries::db::Database;
use lockgraph_queries::soil::engine;
use lockgraph_queries::soil::status::Flag;
use salsa::plumbing::AsId;

fn session(tree: &Tree) -> (Session, lockgraph_queries::db::ExecutionLog) {
    let (db, log) = Database::with_execution_log();
    let root = Root::open_with(Some(tree.dir.path()), db).unwrap();
    let s = Session::new(root);
    log.take(&s.root.db);
    (s, log)
}

fn flags_query_ran_for(s: &Session, log: &[lockgraph_queries::db::Executed], path: &str) -> bool {
    let id = engine::def_index(&s.root.db).get(path).unwrap().as_id();
    log.iter().any(|e| e.key == id && e.query == "flags")
}

/// Each changed definition with its flags after the change.
fn flags_after(changes: &[Change]) -> Vec<(&str, &[Flag])> {
    changes
        .iter()
        .map(|c| (c.path.as_str(), c.after.flags.as_slice()))
        .collect()
}

#[test]
fn a_prose_edit_changes_one_definition_and_reruns_no_caller() {
    let tree = Tree::copy_of("soil");
    let (mut s, log) = session(&tree);
    let sum = "csvstats/sum.tr";
    tree.write(
        sum,
        &tree
            .read(sum)
            .replace("Adds the floats", "Adds up the floats"),
    );
    let changes = s.refresh(&[tree.path(sum)]).unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].path, "csvstats/sum");
    assert_eq!(changes[0].after.flags, vec![Flag::ProseStale]);
    let ran = log.take(&s.root.db);
    assert!(flags_query_ran_for(&s, &ran, "csvstats/sum"), "{ran:?}");
    for caller in ["csvstats/mean", "csvstats/variance"] {
        assert!(!flags_query_ran_for(&s, &ran, caller), "{caller}: {ran:?}");
    }
}

#[test]
fn a_relowered_callee_reaches_exactly_its_direct_callers() {
    // Only the sidecar moves here (no `.soil` edit), so no computed hash moves: the
    // recorded edges reach the direct callers and nothing else.
    let tree = Tree::copy_of("soil");
    let (mut s, log) = session(&tree);
    let lock = "csvstats/sum.lock";
    let text = tree.read(lock);
    let old = text
        .lines()
        .find(|l| l.contains("\"soil_hash\""))
        .unwrap()
        .split('"')
        .nth(3)
        .unwrap()
        .to_string();
    let new = format!("sha256:{}", "ab".repeat(32));
    tree.write(lock, &text.replace(&old, &new));
    let changes = s.refresh(&[tree.path(lock)]).unwrap();
    let changed = flags_after(&changes);
    // The recorded hash is no longer the one `sum.soil` gives: the sidecar was edited by
    // hand, which is soil-drift; its callers were checked against the old one.
    assert_eq!(
        changed,
        [
            ("csvstats/mean", &[Flag::StaleCallees][..]),
            ("csvstats/sum", &[Flag::SoilDrift][..]),
            ("csvstats/variance", &[Flag::StaleCallees][..]),
        ],
        "{changes:?}"
    );
    let ran = log.take(&s.root.db);
    assert!(flags_query_ran_for(&s, &ran, "csvstats/mean"));
    assert!(
        !flags_query_ran_for(&s, &ran, "csvstats/summarize"),
        "no transitive closure"
    );
    assert!(!flags_query_ran_for(&s, &ran, "csvstats/median"));
}

#[test]
fn a_reference_file_edit_flags_its_oracle_user() {
    let tree = Tree::copy_of("soil");
    let (mut s, _log) = session(&tree);
    tree.write(
        "ref/stats.py",
        &format!("{}\n# edited\n", tree.read("ref/stats.py")),
    );
    let changes = s.refresh(&[tree.path("ref/stats.py")]).unwrap();
    assert_eq!(changes.len(), 1, "{changes:?}");
    assert_eq!(changes[0].path, "csvstats/median");
    assert_eq!(changes[0].after.flags, vec![Flag::StaleOracle]);
}

/// The watch loop asks the session which events count (issue 28, item 4): the root's
/// specs, sidecars and `.soil` files where the walk finds them, and the oracles' files;
/// nothing else, so a busy log costs nothing.
#[test]
fn the_session_wants_the_files_it_reads_and_nothing_else() {
    use lockgraph::watch::Session as _;
    let tree = Tree::copy_of("soil");
    let (s, _log) = session(&tree);
    for wanted in [
        "csvstats/sum.tr",
        "csvstats/sum.lock",
        "csvstats/sum.soil",
        "new/thing.tr",
        "ref/stats.py",
    ] {
        assert!(s.wants(&tree.path(wanted)), "{wanted}");
    }
    for unwanted in [
        "out.log",
        "soil.lock",
        ".hidden/x.tr",
        "ref/other.py",
        "README.md",
    ] {
        assert!(!s.wants(&tree.path(unwanted)), "{unwanted}");
    }
}

#[test]
fn a_soil_edit_is_seen_and_a_private_helper_edit_reaches_its_owner() {
    let tree = Tree::copy_of("soil");
    let (mut s, log) = session(&tree);
    let soil = "csvstats/sum.soil";
    // Renaming a local re-reads the file but moves no hash form: nothing after the parse
    // re-runs.
    tree.write(soil, &tree.read(soil).replace("total", "acc"));
    assert!(s.refresh(&[tree.path(soil)]).unwrap().is_empty());
    let ran = log.take(&s.root.db);
    assert!(
        ran.iter().any(|e| e.query == "own_forms_from_bytes"),
        "{ran:?}"
    );
    assert!(
        !ran.iter()
            .any(|e| e.query == "flags" || e.query == "computed_soil_hashes"),
        "{ran:?}"
    );
    tree.write(soil, &tree.read(soil).replace("0.0", "1.0"));
    let changes = s.refresh(&[tree.path(soil)]).unwrap();
    let changed = flags_after(&changes);
    assert_eq!(
        changed,
        [
            ("csvstats/mean", &[Flag::StaleCallees][..]),
            ("csvstats/sum", &[Flag::SoilDrift][..]),
            ("csvstats/summarize", &[Flag::StaleCallees][..]),
            ("csvstats/variance", &[Flag::StaleCallees][..]),
        ],
        "{changes:?}"
    );
    let private = "csvstats/_private.soil";
    tree.write(private, &tree.read(private).replace("/ 2.0", "/ 3.0"));
    let changes = s.refresh(&[tree.path(private)]).unwrap();
    let changed = flags_after(&changes);
    assert_eq!(
        changed,
        [("csvstats/median", &[Flag::StaleCallees][..])],
        "{changes:?}"
    );
}
