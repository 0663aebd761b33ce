//! Watch mode, driven in-process: edits on disk, then `Session::refresh`, with salsa's
//! executed-query log proving that only what an edit reaches re-ran.

mod common;

use common::Tree;
use lockgraph::copy_audit::watch::Session;
use lockgraph::copy_audit::workspace::Workspace;
use salsa::plumbing::AsId;

const UVOD: &str = "content/talks/uvod.md";
const AGENDA: &str = "content/agenda.json";
const WELCOME: &str = "src/components/Welcome.tsx";

fn session(tree: &Tree) -> (Workspace, Session) {
    let ws = Workspace::load(Some(&tree.path(".copy-editor.yaml")), None).unwrap();
    let matcher = ws.config.matcher(None).unwrap();
    let session = Session::open(&ws, matcher, true).unwrap();
    (ws, session)
}

#[test]
fn an_edit_reruns_only_the_edited_files_queries() {
    let tree = Tree::copy_of("copy");
    let (ws, mut s) = session(&tree);
    s.executed();
    // The component has no lockfile entry, so the edit changes its findings and nothing
    // else: the ellipsis at the end of line 14 is fixed.
    tree.write(
        WELCOME,
        &tree.read(WELCOME).replace("v 17:00...", "v 17:00…"),
    );
    let deltas = s.refresh(&ws, &[tree.path(WELCOME)]).unwrap();
    assert_eq!(deltas.len(), 1, "{deltas:?}");
    assert_eq!(deltas[0].path, WELCOME);
    let removed: Vec<_> = deltas[0]
        .removed
        .iter()
        .map(|f| (&*f.rule_id, f.line, f.column))
        .collect();
    assert_eq!(removed, [("cs-R3-ellipsis", 14, 42)]);
    assert!(deltas[0].added.is_empty(), "{deltas:?}");
    let welcome = s.input(WELCOME).unwrap().as_id();
    let ran = s.executed();
    assert!(
        ran.iter().any(|e| e.key == welcome && e.query == "hits"),
        "{ran:?}"
    );
    // Rule hits are memoised per view (keyed by the view's content, not its file): the
    // edit changed one view of the component, so one view's evidence and hits re-ran.
    let (per_view, per_file): (Vec<_>, Vec<_>) = ran
        .iter()
        .partition(|e| matches!(e.query.as_str(), "view_evidence" | "view_hits"));
    assert!(
        per_file.iter().all(|e| e.key == welcome),
        "only the edited file re-ran: {ran:?}"
    );
    assert_eq!(per_view.len(), 2, "one changed view: {ran:?}");
}

#[test]
fn identical_bytes_and_unrelated_files_rerun_nothing() {
    let tree = Tree::copy_of("copy");
    let (ws, mut s) = session(&tree);
    s.executed();
    // Rewritten with the same bytes, and a file outside the include globs.
    tree.write(UVOD, &tree.read(UVOD));
    tree.write("notes.txt", "v domě\n");
    let deltas = s
        .refresh(&ws, &[tree.path(UVOD), tree.path("notes.txt")])
        .unwrap();
    assert!(deltas.is_empty(), "{deltas:?}");
    assert!(s.executed().is_empty());
}

#[test]
fn a_lockfile_edit_refilters_without_rerunning_rules() {
    let tree = Tree::copy_of("copy");
    let (ws, mut s) = session(&tree);
    s.executed();
    // Drop the span of the English subtitle: that string falls into a gap and is Czech by
    // default now, so its findings change; the file's languages (cs and en) do not, so the
    // rules need not run again — only the span filter.
    let lock_path = tree.path(".copy-editor.lock.json");
    let mut lock: serde_json::Value =
        serde_json::from_str(&tree.read(".copy-editor.lock.json")).unwrap();
    let spans = lock["files"][AGENDA]["spans"].as_array_mut().unwrap();
    let before = spans.len();
    spans.retain(|sp| sp["pathHint"] != "meta.en.subtitle");
    assert_eq!(spans.len(), before - 1);
    std::fs::write(&lock_path, serde_json::to_string_pretty(&lock).unwrap()).unwrap();
    let deltas = s.refresh(&ws, &[lock_path]).unwrap();
    assert_eq!(deltas.len(), 1, "{deltas:?}");
    assert_eq!(deltas[0].path, AGENDA);
    let added: Vec<_> = deltas[0].added.iter().map(|f| &*f.rule_id).collect();
    let removed: Vec<_> = deltas[0].removed.iter().map(|f| &*f.rule_id).collect();
    assert_eq!(removed, ["en-R4-spaced-hyphen-dash"], "{deltas:?}");
    assert!(added.contains(&"cs-R6-dash"), "{added:?}");
    let agenda = s.input(AGENDA).unwrap().as_id();
    let ran = s.executed();
    assert!(
        ran.iter().any(|e| e.key == agenda && e.query == "report"),
        "{ran:?}"
    );
    assert!(
        !ran.iter().any(|e| e.query == "hits" || e.query == "views"),
        "{ran:?}"
    );
    assert!(ran.iter().all(|e| e.key == agenda), "{ran:?}");
}

#[test]
fn new_and_deleted_files_are_reported() {
    let tree = Tree::copy_of("copy");
    let (ws, mut s) = session(&tree);
    tree.write("content/talks/novy.md", "Sejdeme se v domě.\n");
    let deltas = s
        .refresh(&ws, &[tree.path("content/talks/novy.md")])
        .unwrap();
    assert_eq!(deltas.len(), 1);
    assert_eq!(deltas[0].created, Some(true));
    assert_eq!(deltas[0].added.len(), 1);
    std::fs::remove_file(tree.path(UVOD)).unwrap();
    let deltas = s.refresh(&ws, &[tree.path(UVOD)]).unwrap();
    assert_eq!(deltas[0].created, Some(false));
    assert!(!deltas[0].removed.is_empty());
}
