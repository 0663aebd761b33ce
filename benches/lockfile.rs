//! Reading and writing the copy-audit lockfile: `lockfile::parse` (strict JSON plus every
//! seed invariant), `lockfile::pieces::entries` (what a cold audit reads its lockfile
//! with: the canonical layout's reader, the same invariants) and
//! `lockfile::to_canonical_string`, on the lockfile of a generated 10k-file corpus (10k
//! entries, among them the big JSON file's entry with a span per string).
//!
//! `cargo bench --bench lockfile`

#[path = "support/corpus.rs"]
mod corpus;

use criterion::{BatchSize, Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use lockgraph_queries::copy::lockfile;
use std::hint::black_box;
use std::time::Duration;

const ENTRIES: usize = 10_000;

fn bench_lockfile(c: &mut Criterion) {
    let mut text = String::new();
    let lock = corpus::copy_corpus(ENTRIES, 42, |rel, t| {
        if rel == ".copy-editor.lock.json" {
            text = t.to_string();
        }
    });
    assert_eq!(lock.files.len(), ENTRIES);
    let spans: usize = lock.files.values().map(|e| e.spans.len()).sum();
    eprintln!(
        "lockfile: {} entries, {spans} spans, {} bytes",
        lock.files.len(),
        text.len()
    );
    assert_eq!(
        lockfile::parse(&text).as_ref(),
        Ok(&lock),
        "the text reads back"
    );
    assert_eq!(
        lockfile::to_canonical_string(&lock),
        text,
        "writing is canonical"
    );

    let mut group = c.benchmark_group("lockfile");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(4));
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse/10k_entries", |b| {
        b.iter(|| lockfile::parse(black_box(&text)))
    });
    // The whole `files` object as one piece, as `pieces::entries` takes it (it marks the
    // piece's first and last byte, so each iteration gets a fresh copy, untimed).
    let open = text.find(std::str::from_utf8(lockfile::pieces::FILES_OPEN).unwrap());
    let piece = text[open.unwrap() + lockfile::pieces::FILES_OPEN.len()..]
        .strip_suffix("  }\n}\n")
        .unwrap()
        .as_bytes()
        .to_vec();
    let read = lockfile::pieces::entries(&mut piece.clone(), true).expect("a canonical piece");
    assert_eq!(read.len(), ENTRIES);
    group.bench_function("pieces/10k_entries", |b| {
        b.iter_batched_ref(
            || piece.clone(),
            |piece| lockfile::pieces::entries(black_box(piece), true),
            BatchSize::LargeInput,
        )
    });
    group.bench_function("to_canonical_string/10k_entries", |b| {
        b.iter(|| lockfile::to_canonical_string(black_box(&lock)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(Duration::from_secs(1));
    targets = bench_lockfile
}
criterion_main!(benches);
