//! Reading and writing the copy-audit lockfile: `lockfile::parse` (the strict reader:
//! strict JSON plus every seed invariant), `lockfile::read` (what every command reads it
//! with: the canonical layout's fast path on every core, the same invariants) and
//! `lockfile::to_canonical_string`, on the lockfile of a generated 10k-file corpus (10k
//! entries, among them the big JSON file's entry with a span per string).
//!
//! `cargo bench --bench lockfile`

#[path = "support/corpus.rs"]
mod corpus;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
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
    assert_eq!(
        lockfile::read(&text).as_ref(),
        Ok(&lock),
        "the fast path agrees"
    );
    group.bench_function("read/10k_entries", |b| {
        b.iter(|| lockfile::read(black_box(&text)))
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
