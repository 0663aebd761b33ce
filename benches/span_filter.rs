//! The span filter of copy-audit on the corpus's big JSON file (`content/data/agenda.json`,
//! a span per string): building the `SpanIndex` from the lockfile entry, looking offsets
//! up in it, and the whole `engine::report` of the file with its fresh entry in a fresh
//! database — views, rules, placing, span index and filter, as a cold run does them.
//!
//! `cargo bench --bench span_filter`

#[path = "support/corpus.rs"]
mod corpus;
#[path = "support/setup.rs"]
mod setup;

use corpus::Rng;
use criterion::{BatchSize, Criterion, Throughput, criterion_group, criterion_main};
use lockgraph_queries::copy::engine::{self, EntryState, Source, SourceFile};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::lockfile::{Entry, Kind, SpanIndex};
use lockgraph_queries::db::Database;
use lockgraph_queries::text::LineIndex;
use salsa::Setter;
use std::hint::black_box;
use std::time::Duration;

const PATH: &str = "content/data/agenda.json";

/// The corpus's big JSON file and its lockfile entry, exactly as `gen_corpus copy` makes
/// them (a one-file corpus is the config, this file and the lockfile).
fn agenda() -> (String, Entry) {
    let mut text = None;
    let mut lock = corpus::copy_corpus(1, 42, |rel, t| {
        if rel == PATH {
            text = Some(t.to_string());
        }
    });
    let entry = lock
        .files
        .remove(PATH)
        .expect("the corpus has the agenda entry");
    (text.expect("the corpus writes the agenda"), entry)
}

/// A database as the shell sets it up, with one file.
fn database(text: &str, entry: Option<&Entry>) -> (Database, SourceFile) {
    let db = Database::default();
    setup::builtin(&["cs", "en"]).install(&db);
    let file = SourceFile::new(
        &db,
        PATH.to_string(),
        Format::from_path(PATH),
        Source::from(text),
        entry.cloned(),
        None,
    );
    (db, file)
}

fn bench_span_index(c: &mut Criterion) {
    let (text, entry) = agenda();
    let index = LineIndex::new(&text);
    let spans = SpanIndex::new(&text, &index, &entry.spans).expect("the entry fits the file");
    eprintln!(
        "span_filter: {PATH}: {} bytes, {} lines, {} spans",
        text.len(),
        index.line_count(),
        spans.len()
    );
    let mut group = c.benchmark_group("span_filter");

    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("line_index_new", |b| {
        b.iter(|| LineIndex::new(black_box(&text)))
    });

    group.throughput(Throughput::Elements(entry.spans.len() as u64));
    group.bench_function("span_index_new", |b| {
        b.iter(|| SpanIndex::new(black_box(&text), &index, &entry.spans))
    });

    // Offsets spread over the file, in no order: inside spans, in gaps, at the ends.
    let mut rng = Rng(7);
    let offsets: Vec<usize> = (0..10_000).map(|_| rng.below(text.len() + 1)).collect();
    let inside = offsets.iter().filter(|&&o| spans.at(o).is_some()).count();
    eprintln!(
        "span_filter/lookups: {} offsets, {inside} inside a span",
        offsets.len()
    );
    group.throughput(Throughput::Elements(offsets.len() as u64));
    group.bench_function("span_index_at_10k", |b| {
        b.iter(|| {
            black_box(&offsets)
                .iter()
                .filter(|&&o| matches!(spans.at(o), Some((Kind::Prose, "cs"))))
                .count()
        })
    });
    group.finish();
}

fn bench_report(c: &mut Criterion) {
    let (text, entry) = agenda();
    {
        let (db, file) = database(&text, Some(&entry));
        let report = engine::report(&db, file);
        assert_eq!(report.state, EntryState::Fresh);
        assert!(report.error.is_none(), "{:?}", report.error);
        let placed = engine::placed(&db, file).len();
        eprintln!(
            "span_filter/report: {placed} placed hits, {} findings after the filter",
            report.findings.len()
        );
    }
    let mut group = c.benchmark_group("span_filter/report");
    group
        .sample_size(20)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(text.len() as u64));

    // Cold: a fresh database per iteration (set up outside the timing), as a first run.
    group.bench_function("cold_fresh_entry", |b| {
        b.iter_batched(
            || database(&text, Some(&entry)),
            |(db, file)| {
                let n = engine::report(&db, file).findings.len();
                (db, n)
            },
            BatchSize::PerIteration,
        )
    });
    // The same without an entry: the difference is the span index and its lookups.
    group.bench_function("cold_no_entry", |b| {
        b.iter_batched(
            || database(&text, None),
            |(db, file)| {
                let n = engine::report(&db, file).findings.len();
                (db, n)
            },
            BatchSize::PerIteration,
        )
    });

    // A lockfile edit: the entry alternates between two versions that differ in one
    // span's kind, so each iteration rebuilds the span index and re-filters, while views,
    // hits and placing are reused.
    let mut edited = entry.clone();
    edited.spans[0].kind = Kind::Code;
    let versions = [entry.clone(), edited];
    let (mut db, file) = database(&text, Some(&entry));
    engine::report(&db, file);
    let mut next = 1;
    group.bench_function("after_lockfile_edit", |b| {
        b.iter_batched(
            || {
                next = 1 - next;
                versions[next].clone()
            },
            |version| {
                file.set_entry(&mut db).to(Some(version));
                engine::report(&db, file).findings.len()
            },
            // One input per batch keeps the alternation strict.
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_span_index, bench_report
}
criterion_main!(benches);
