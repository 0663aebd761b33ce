//! Incrementality, proven by counting what salsa executes (rust-analyzer style): an edit
//! re-runs the queries of the edited file and nothing else; identical bytes stop early.

use lockgraph_queries::copy::engine::{self, RuleTable, Settings, Source, SourceFile};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::lockfile::{Entry, Field, Kind, Span};
use lockgraph_queries::copy::rules::RuleSet;
use lockgraph_queries::db::{Database, Executed, ExecutionLog};
use lockgraph_queries::hash::ContentHash;
use salsa::Setter;
use salsa::plumbing::AsId;
use std::collections::BTreeMap;
use std::sync::Arc;

fn setup(texts: &[(&str, &str)]) -> (Database, ExecutionLog, Vec<SourceFile>) {
    let (db, log) = Database::with_execution_log();
    let table = RuleTable {
        set: Arc::new(RuleSet::builtin()),
        kinds: BTreeMap::new(),
        fingerprint: ContentHash::of(b"builtin"),
    };
    let _settings = Settings::builder(
        table,
        "cs".to_string(),
        false,
        "copy-editor: ignore".to_string(),
        false,
    )
    .durability(salsa::Durability::HIGH)
    .new(&db);
    let files = texts
        .iter()
        .map(|(path, text)| {
            SourceFile::new(
                &db,
                path.to_string(),
                Format::from_path(path),
                Source::from(*text),
                None,
            )
        })
        .collect();
    (db, log, files)
}

fn audit_all(db: &Database, files: &[SourceFile]) -> Vec<usize> {
    files
        .iter()
        .map(|f| engine::report(db, *f).findings.len())
        .collect()
}

/// The query names executed for `file`.
fn ran_for(log: &[Executed], file: SourceFile) -> Vec<String> {
    let mut names: Vec<String> = log
        .iter()
        .filter(|e| e.key == file.as_id())
        .map(|e| e.query.clone())
        .collect();
    names.sort();
    names
}

const A: &str = "Sejdeme se v domě.\n";
const B: &str = "# Nadpis\n\nJe to 50Kč.\n";
const C: &str = "{\"cs\": {\"title\": \"Práce s agenty\"}}\n";

#[test]
fn editing_one_file_reruns_only_that_files_queries() {
    let (mut db, log, files) = setup(&[("a.md", A), ("b.md", B), ("c.json", C)]);
    assert_eq!(audit_all(&db, &files), vec![1, 1, 1]);
    log.take(&db);

    files[1]
        .set_source(&mut db)
        .to(Source::from("# Nadpis\n\nStojí to 20%.\n"));
    assert_eq!(audit_all(&db, &files), vec![1, 1, 1]);
    let ran = log.take(&db);
    assert!(ran_for(&ran, files[0]).is_empty(), "a.md re-ran: {ran:?}");
    assert!(ran_for(&ran, files[2]).is_empty(), "c.json re-ran: {ran:?}");
    let b = ran_for(&ran, files[1]);
    for q in ["views", "hits", "report"] {
        assert!(b.iter().any(|n| n == q), "b.md's {q} must re-run: {b:?}");
    }
    assert!(
        ran.iter().all(|e| e.key == files[1].as_id()),
        "nothing but b.md's queries ran: {ran:?}"
    );
}

#[test]
fn identical_bytes_rerun_nothing_downstream() {
    let (mut db, log, files) = setup(&[("a.md", A), ("b.md", B)]);
    audit_all(&db, &files);
    log.take(&db);

    // A setter always starts a new revision, even with equal bytes: the first queries that
    // read the bytes re-run, produce equal results, and everything after them is reused.
    files[0].set_source(&mut db).to(Source::from(A));
    audit_all(&db, &files);
    let ran = log.take(&db);
    let a = ran_for(&ran, files[0]);
    assert!(!a.iter().any(|n| n == "hits"), "hits re-ran: {a:?}");
    assert!(!a.iter().any(|n| n == "report"), "report re-ran: {a:?}");
    assert!(
        !a.iter().any(|n| n == "entry_state"),
        "entry_state re-ran: {a:?}"
    );
    assert!(ran_for(&ran, files[1]).is_empty());
}

fn entry(span: Span) -> Entry {
    Entry {
        content_hash: ContentHash::of(A.as_bytes()).to_string(),
        segmented_at: "2026-11-30T10:00:00Z".into(),
        reviewed_by: None,
        spans: vec![span],
    }
}

fn span(start: u32, end: u32, language: &str, kind: Kind) -> Span {
    Span {
        start_line: 1,
        start_column: start,
        end_line: 1,
        end_column: end,
        language: language.into(),
        kind,
        path_hint: Field::Absent,
        note: Field::Absent,
    }
}

#[test]
fn a_lockfile_edit_reruns_the_filter_but_not_the_rules() {
    let (mut db, log, files) = setup(&[("a.md", A)]);
    assert_eq!(audit_all(&db, &files), vec![1]);
    log.take(&db);

    // Mark `v domě` as code: the finding disappears. The rest of the line is still a gap
    // in the default language, so the file's languages are unchanged and the rules are
    // not re-run — only the span filter.
    files[0]
        .set_entry(&mut db)
        .to(Some(entry(span(12, 17, "unknown", Kind::Code))));
    assert_eq!(audit_all(&db, &files), vec![0]);
    let a = ran_for(&log.take(&db), files[0]);
    assert!(a.iter().any(|n| n == "report"), "{a:?}");
    assert!(a.iter().any(|n| n == "span_index"), "{a:?}");
    assert!(
        !a.iter().any(|n| n == "hits" || n == "views"),
        "rules re-ran: {a:?}"
    );
}

#[test]
fn rules_of_languages_the_file_does_not_contain_never_run() {
    let (mut db, log, files) = setup(&[("a.md", A)]);
    audit_all(&db, &files);
    log.take(&db);
    // The whole line is English now: the languages change, so the rules run again — the
    // English ones only — and the Czech finding is gone.
    files[0]
        .set_entry(&mut db)
        .to(Some(entry(span(1, 18, "en", Kind::Prose))));
    assert_eq!(audit_all(&db, &files), vec![0]);
    let a = ran_for(&log.take(&db), files[0]);
    assert!(a.iter().any(|n| n == "hits"), "{a:?}");
    let langs = engine::languages(&db, files[0]);
    assert_eq!(langs.iter().map(String::as_str).collect::<Vec<_>>(), ["en"]);
}

#[test]
fn a_report_computed_once_is_the_report_kept() {
    let json = r#"{"cs": "Bydlím v domě 5km odtud.", "en": "The the file ... is here"}"#;
    let (mut db, _log, files) = setup(&[("a.md", A), ("b.json", json)]);
    let same = |db: &Database| {
        for f in &files {
            assert_eq!(engine::report_once(db, *f), *engine::report(db, *f));
        }
    };
    same(&db);
    files[0]
        .set_entry(&mut db)
        .to(Some(entry(span(12, 17, "unknown", Kind::Code))));
    same(&db);
    files[0]
        .set_entry(&mut db)
        .to(Some(entry(span(1, 18, "en", Kind::Prose))));
    same(&db);
}
