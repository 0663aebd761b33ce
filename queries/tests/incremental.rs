//! Incrementality, proven by counting what salsa executes (rust-analyzer style): an edit
//! re-runs the queries of the edited file and nothing else; identical bytes stop early.

mod common;

use lockgraph_queries::copy::engine::{self, RuleTable, Setup, Source, SourceFile};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::lockfile::{Entry, Field, Kind, Span};
use lockgraph_queries::copy::rules::RuleSet;
use lockgraph_queries::db::{Database, Executed, ExecutionLog};
use lockgraph_queries::hash::ContentHash;
use proptest::prelude::*;
use salsa::Setter;
use salsa::plumbing::AsId;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The settings every test here audits with.
fn engine_setup() -> Setup {
    Setup {
        rules: RuleTable {
            set: Arc::new(RuleSet::builtin()),
            kinds: BTreeMap::new(),
            fingerprint: ContentHash::of(b"builtin"),
        },
        default_language: "cs".to_string(),
        declared: vec!["cs".to_string(), "en".to_string()],
        unknown_language_default: false,
        ignore_marker: "copy-editor: ignore".to_string(),
        prompt_outdated: false,
    }
}

fn setup(texts: &[(&str, &str)]) -> (Database, ExecutionLog, Vec<SourceFile>) {
    let (db, log) = Database::with_execution_log();
    engine_setup().install(&db);
    let files = texts
        .iter()
        .map(|(path, text)| {
            SourceFile::new(
                &db,
                path.to_string(),
                Format::from_path(path),
                Source::from(*text),
                None,
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
    // Besides b.md's own queries, only those of its one changed view (the heading's
    // evidence and hits are kept).
    let per_view = ["view_evidence", "view_hits"];
    let others: Vec<_> = ran
        .iter()
        .filter(|e| e.key != files[1].as_id())
        .map(|e| e.query.as_str())
        .collect();
    assert_eq!(others, per_view, "nothing but b.md's queries ran: {ran:?}");
}

/// An edit in the middle of a long document re-runs the rules on the one view it changed,
/// not on the views after it, which it moved down (their hits are kept as they were, in
/// view coordinates, and placed again).
#[test]
fn an_edit_reruns_the_rules_on_the_views_it_changed_only() {
    let paragraphs: Vec<String> = (0..40)
        .map(|i| format!("Odstavec {i} je v domě a stojí 50Kč.\n\n"))
        .collect();
    let text: String = paragraphs.concat();
    let (mut db, log, files) = setup(&[("long.md", &text)]);
    let before = audit_all(&db, &files);
    log.take(&db);
    let edited = text.replacen("Odstavec 3 je", "Odstavec 3 je dnes", 1);
    files[0]
        .set_source(&mut db)
        .to(Source::from(edited.as_str()));
    let after = audit_all(&db, &files);
    assert_eq!(before, after);
    let ran = log.take(&db);
    let hits_runs = ran.iter().filter(|e| e.query == "view_hits").count();
    assert_eq!(hits_runs, 1, "{ran:?}");
    // The findings after the edit are where a fresh audit puts them.
    let kept = engine::report(&db, files[0]);
    let once = engine::report_once(
        &engine_setup(),
        Format::from_path("long.md"),
        &Source::from(edited.as_str()),
        None,
        None,
    );
    assert_eq!(kept, &once);
    assert!(!once.findings.is_empty());
}

/// The rules read a view's source map only through its shape, so a view far down a file
/// (here with a repeated word, whose rule asks whether the pair is a verbatim copy of its
/// source) has the hits of the same view at the top.
#[test]
fn a_view_has_the_same_hits_wherever_it_stands() {
    let paragraph = "Je to *v* domě domě a \\*tady\\* stojí 50Kč.\n\n";
    let text = format!("{}{paragraph}", "Úvodní odstavec v Praze.\n\n".repeat(30));
    let (db, _log, files) = setup(&[("top.md", paragraph), ("down.md", &text)]);
    let top = engine::report(&db, files[0]);
    let down = engine::report(&db, files[1]);
    let once = engine::report_once(
        &engine_setup(),
        Format::from_path("down.md"),
        &Source::from(text.as_str()),
        None,
        None,
    );
    assert_eq!(down, &once);
    let rules = |r: &engine::FileReport| {
        r.findings
            .iter()
            .map(|f| f.rule_id.to_string())
            .collect::<Vec<_>>()
    };
    assert!(
        rules(top).iter().any(|r| r.contains("repeat")),
        "{:?}",
        rules(top)
    );
    assert!(
        rules(down).iter().any(|r| r.contains("repeat")),
        "{:?}",
        rules(down)
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
    // A fresh entry to start from (a file without one is segmented provisionally, from
    // views with path hints: its first entry changes how its views are read).
    files[0]
        .set_entry(&mut db)
        .to(Some(entry(span(1, 1, "cs", Kind::Prose))));
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

/// A fresh entry with no spans leaves the whole file a gap: its prose is in the default
/// language, and a file without prose is in none.
#[test]
fn a_fresh_entry_without_spans_is_all_in_the_default_language() {
    let code_only = "```\nv lese\n```\n";
    let (mut db, _log, files) = setup(&[("a.md", A), ("b.md", code_only)]);
    for (f, text) in files.iter().zip([A, code_only]) {
        f.set_entry(&mut db).to(Some(Entry {
            content_hash: ContentHash::of(text.as_bytes()).to_string(),
            segmented_at: "2026-11-30T10:00:00Z".into(),
            reviewed_by: Some("someone".into()),
            spans: Vec::new(),
        }));
    }
    let langs = |f| {
        engine::languages(&db, f)
            .iter()
            .cloned()
            .collect::<Vec<_>>()
    };
    assert_eq!(langs(files[0]), ["cs"]);
    assert!(langs(files[1]).is_empty());
    assert_eq!(audit_all(&db, &files), vec![1, 0]);
}

#[test]
fn a_report_computed_once_is_the_report_kept() {
    let json = r#"{"cs": "Bydlím v domě 5km odtud.", "en": "The the file ... is here"}"#;
    let (mut db, _log, files) = setup(&[("a.md", A), ("b.json", json)]);
    let settings = engine_setup();
    // Computed without the database, from the same inputs the database holds.
    let same = |db: &Database| {
        for f in &files {
            let once = engine::report_once(
                &settings,
                f.format(db),
                f.source(db),
                f.entry(db).as_ref(),
                f.locale(db).as_deref(),
            );
            assert_eq!(once, *engine::report(db, *f), "{}", f.path(db));
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

/// Every file under `dir`, as `/`-separated paths relative to `root`, and its bytes.
fn files_under(root: &std::path::Path, dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("fixture directory")
        .map(|e| e.expect("fixture entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files_under(root, &path, out);
        } else {
            let rel = path.strip_prefix(root).expect("under the root");
            let rel = rel.to_str().expect("UTF-8 path").replace('\\', "/");
            out.push((rel, std::fs::read(&path).expect("readable fixture")));
        }
    }
}

/// The two ways of computing a report agree on every bundled fixture, with its lockfile
/// entry (fresh, stale or missing), with either value of the engine's two flags, and on
/// files the engine cannot read (invalid UTF-8, malformed JSON, spans that do not fit).
#[test]
fn a_report_computed_once_is_the_report_kept_on_every_fixture() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/copy");
    let lock_text = std::fs::read_to_string(root.join(".copy-editor.lock.json")).unwrap();
    let lock = lockgraph_queries::copy::lockfile::parse(&lock_text).unwrap();
    let mut files = Vec::new();
    for dir in ["content", "src"] {
        files_under(&root, &root.join(dir), &mut files);
    }
    assert!(files.len() >= 5, "the fixtures: {}", files.len());
    let mut cases: Vec<(String, Source, Option<Entry>)> = files
        .into_iter()
        .map(|(path, bytes)| {
            let entry = lock.files.get(&path).cloned();
            (path, Source::new(bytes), entry)
        })
        .collect();
    // Unreviewed, so that a segmenter prompt that moved on changes their state.
    let fitted = |text: &str, spans: Vec<Span>| Entry {
        content_hash: ContentHash::of(text.as_bytes()).to_string(),
        segmented_at: "2026-11-30T10:00:00Z".into(),
        reviewed_by: None,
        spans,
    };
    cases.push(("bad.md".into(), Source::new(b"v \xff lese".to_vec()), None));
    cases.push(("bad.json".into(), Source::from("{\"a\": \"v lese\""), None));
    let short = "Je to v lese.\n";
    cases.push((
        "short.md".into(),
        Source::from(short),
        Some(fitted(short, vec![span(3, 90, "cs", Kind::Prose)])),
    ));
    cases.push((
        "unknown.md".into(),
        Source::from(short),
        Some(fitted(short, vec![span(1, 14, "unknown", Kind::Prose)])),
    ));
    assert!(cases.iter().any(|(_, _, e)| e.is_some()));
    for prompt_outdated in [false, true] {
        for unknown_language_default in [false, true] {
            let settings = Setup {
                prompt_outdated,
                unknown_language_default,
                ..engine_setup()
            };
            let db = Database::default();
            settings.install(&db);
            for (path, source, entry) in &cases {
                let file = SourceFile::new(
                    &db,
                    path.clone(),
                    Format::from_path(path),
                    source.clone(),
                    entry.clone(),
                    None,
                );
                let once = engine::report_once(
                    &settings,
                    Format::from_path(path),
                    source,
                    entry.as_ref(),
                    None,
                );
                assert_eq!(once, *engine::report(&db, file), "{path}");
            }
        }
    }
}

/// Markdown syntax and escapes, to mix with the prose pieces.
const MARKUP: &[&str] = &[
    "# ",
    "## ",
    "`kód`",
    "**",
    "[v lese](https://x.cz)",
    "\n```\nv lese\n```\n",
    "\n- ",
    "<b>",
    "\\\"",
    "&amp;",
    "copy-editor: ignore",
];

fn text() -> impl Strategy<Value = String> {
    static PIECES: std::sync::LazyLock<Vec<&str>> =
        std::sync::LazyLock::new(|| common::PIECES.iter().chain(MARKUP).copied().collect());
    common::text_of(&PIECES, 30)
}

fn spans() -> impl Strategy<Value = Vec<Span>> {
    let one = (
        1u32..4,
        1u32..30,
        0u32..3,
        1u32..40,
        proptest::sample::select(&["cs", "en", "unknown"][..]),
        proptest::sample::select(&[Kind::Prose, Kind::Code, Kind::Quote, Kind::Data][..]),
    )
        .prop_map(|(line, column, lines, end_column, language, kind)| Span {
            start_line: line,
            start_column: column,
            end_line: line + lines,
            end_column,
            language: language.into(),
            kind,
            path_hint: Field::Absent,
            note: Field::Absent,
        });
    proptest::collection::vec(one, 0..4)
}

proptest! {
    /// Random prose in every format, with a lockfile entry that is missing, stale, or
    /// fresh with random spans (which may not fit the file), under every setting: the
    /// report computed once is the one the database keeps.
    #[test]
    fn a_report_computed_once_is_the_report_kept_on_any_input(
        body in text(),
        format in 0..4usize,
        entry_kind in 0..4usize,
        spans in spans(),
        prompt_outdated: bool,
        unknown_language_default: bool,
        english: bool,
    ) {
        let (path, bytes) = match format {
            0 => ("t.md", body.clone()),
            1 => ("t.json", serde_json::json!({ "cs": { "a": body }, "en": [body] }).to_string()),
            2 => ("t.tsx", format!("export const A = () => <p>{body}</p>;\n")),
            _ => ("t.txt", body.clone()),
        };
        let entry = match entry_kind {
            0 => None,
            kind => Some(Entry {
                content_hash: if kind == 1 {
                    ContentHash::of(b"other bytes").to_string()
                } else {
                    ContentHash::of(bytes.as_bytes()).to_string()
                },
                segmented_at: "2026-11-30T10:00:00Z".into(),
                reviewed_by: (kind == 3).then(|| "someone".to_string()),
                spans,
            }),
        };
        let settings = Setup {
            prompt_outdated,
            unknown_language_default,
            default_language: if english { "en" } else { "cs" }.to_string(),
            ..engine_setup()
        };
        let db = Database::default();
        settings.install(&db);
        let source = Source::from(bytes.as_str());
        let file = SourceFile::new(&db, path.into(), Format::from_path(path), source.clone(), entry.clone(), None);
        let once = engine::report_once(&settings, Format::from_path(path), &source, entry.as_ref(), None);
        prop_assert_eq!(&once, engine::report(&db, file));
        // Leaving out the rules of languages the file is not in changes nothing: with
        // every rule run and the filter applied, the report is the same.
        let every = engine::report_once_every_rule(&settings, Format::from_path(path), &source, entry.as_ref(), None);
        prop_assert_eq!(&once, &every);
    }

    /// An edit anywhere in a document (text inserted at a random place): the report the
    /// database keeps after it, reusing the hits of every view the edit left alone (and
    /// moved), is the report of the edited bytes computed once.
    #[test]
    fn a_report_kept_across_an_edit_is_the_report_computed_once(
        body in text(),
        inserted in text(),
        at in any::<proptest::sample::Index>(),
        format in 0..3usize,
    ) {
        let render = |body: &str| match format {
            0 => ("t.md", body.to_owned()),
            1 => ("t.json", serde_json::json!({ "cs": { "a": body }, "en": [body, "Dobrý den v domě"] }).to_string()),
            _ => ("t.md", format!("{body}\n\nOdstavec v domě za 50Kč.\n\n{body}\n")),
        };
        let (path, before) = render(&body);
        let mut cut = at.index(body.len() + 1);
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        let (_, after) = render(&format!("{}{inserted}{}", &body[..cut], &body[cut..]));
        let setup = engine_setup();
        let mut db = Database::default();
        setup.install(&db);
        let file = SourceFile::new(&db, path.into(), Format::from_path(path), Source::from(before.as_str()), None, None);
        engine::report(&db, file);
        file.set_source(&mut db).to(Source::from(after.as_str()));
        let once = engine::report_once(&setup, Format::from_path(path), &Source::from(after.as_str()), None, None);
        prop_assert_eq!(&once, engine::report(&db, file));
    }
}
