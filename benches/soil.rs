//! soil-lock's stages on a generated soil root, in memory: `.tr` parsing and spec hashing,
//! sidecar reading and canonical writing, status (`flags` + `ladder` of every definition)
//! at 1k and 10k definitions, and the dependency graph at 50k definitions (`graph::build`,
//! and `impact` on the graph built once).
//!
//! `cargo bench --bench soil`

#[path = "support/corpus.rs"]
mod corpus;

use corpus::SoilDef;
use criterion::{
    BatchSize, BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};
use lockgraph_queries::db::Database;
use lockgraph_queries::soil::engine::{self, Definition, EdgeKind, Project};
use lockgraph_queries::soil::graph::{self, Change};
use lockgraph_queries::soil::soil_hash::PrivateFile;
use lockgraph_queries::soil::status::Ladder;
use lockgraph_queries::soil::{sidecar, spec_hash, tr};
use salsa::Setter;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::time::Duration;

const SEED: u64 = 42;

/// The file name `tr::parse` is given, as the engine names it.
fn file_name(def: &SoilDef) -> String {
    format!("{}.tr", engine::short_name(&def.path))
}

fn tr_hash(def: &SoilDef) -> spec_hash::SpecHashes {
    let parsed = tr::parse(&file_name(def), &def.tr);
    spec_hash::spec_hashes(&parsed, &def.tr)
}

fn bench_files(c: &mut Criterion) {
    let defs = corpus::soil_defs(1_000, SEED);
    let one = &defs[500];
    let tr_bytes: u64 = defs.iter().map(|d| d.tr.len() as u64).sum();
    let lock_bytes: u64 = defs.iter().map(|d| d.lock.len() as u64).sum();
    let sidecars: Vec<sidecar::Sidecar> = defs
        .iter()
        .map(|d| sidecar::parse(&d.lock).expect("the generated sidecars read"))
        .collect();
    eprintln!(
        "soil/files: 1k definitions, .tr {tr_bytes} bytes ({} for {}), .lock {lock_bytes} bytes ({})",
        one.tr.len(),
        one.path,
        one.lock.len()
    );
    assert!(
        defs.iter()
            .all(|d| !tr::parse(&file_name(d), &d.tr).has_errors()),
        "the generated specs parse cleanly"
    );

    let mut group = c.benchmark_group("soil/tr_hash");
    group.throughput(Throughput::Bytes(one.tr.len() as u64));
    group.bench_function("one_file", |b| b.iter(|| tr_hash(black_box(one))));
    group.throughput(Throughput::Bytes(tr_bytes));
    group.bench_function("1k_files", |b| {
        b.iter(|| black_box(&defs).iter().map(tr_hash).count())
    });
    group.finish();

    let mut group = c.benchmark_group("soil/sidecar");
    group.throughput(Throughput::Bytes(one.lock.len() as u64));
    group.bench_function("parse/one_file", |b| {
        b.iter(|| sidecar::parse(black_box(&one.lock)))
    });
    group.bench_function("to_canonical_string/one_file", |b| {
        b.iter(|| sidecar::to_canonical_string(black_box(&sidecars[500])))
    });
    group.throughput(Throughput::Bytes(lock_bytes));
    group.bench_function("parse/1k_files", |b| {
        b.iter(|| {
            black_box(&defs)
                .iter()
                .map(|d| sidecar::parse(&d.lock))
                .filter(Result::is_ok)
                .count()
        })
    });
    group.bench_function("to_canonical_string/1k_files", |b| {
        b.iter(|| {
            black_box(&sidecars)
                .iter()
                .map(sidecar::to_canonical_string)
                .count()
        })
    });
    group.finish();
}

/// A database with every definition and the project, as `soil-lock` sets them up once
/// it has hashed the oracles' reference files.
fn database(defs: &[SoilDef]) -> (Database, Vec<Definition>) {
    let mut db = Database::default();
    let list: Vec<Definition> = defs
        .iter()
        .map(|d| {
            Definition::new(
                &db,
                d.path.clone(),
                Some(d.tr.clone().into_bytes()),
                Some(d.lock.clone().into_bytes()),
                Some(d.soil.clone().into_bytes()),
            )
        })
        .collect();
    let externals = BTreeMap::from([(
        "ref/oracle.py".to_string(),
        Some(spec_hash::oracle_digest(b"def f(x):\n    return x\n").to_string()),
    )]);
    let privates = corpus::soil_privates(defs.len(), SEED)
        .into_iter()
        .map(|(module, text)| PrivateFile::new(&db, module, text.into_bytes()))
        .collect();
    let project = Project::new(&db, list.clone(), externals);
    project.set_private_files(&mut db).to(privates);
    (db, list)
}

/// `status`: the flags and the ladder of every definition; returns how many carry flags.
fn status(db: &Database, list: &[Definition]) -> usize {
    list.iter()
        .filter(|&&d| {
            let flagged = !engine::flags(db, d).is_empty();
            black_box(engine::ladder(db, d));
            flagged
        })
        .count()
}

/// Runs the per-definition parsing queries `status` starts from, so that what is timed
/// afterwards is the status logic itself.
fn parse_all(db: &Database, list: &[Definition]) {
    for &d in list {
        black_box(engine::parsed_sidecar(db, d));
        black_box(engine::spec_hashes(db, d));
    }
}

fn bench_status(c: &mut Criterion) {
    let mut group = c.benchmark_group("soil/status");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(3));
    for n in [1_000, 10_000] {
        let defs = corpus::soil_defs(n, SEED);
        {
            let (db, list) = database(&defs);
            let flagged = status(&db, &list);
            let tested = list
                .iter()
                .filter(|&&d| engine::ladder(&db, d) >= Ladder::Tested)
                .count();
            eprintln!("soil/status/{n}: {flagged} flagged, {tested} tested or better");
            assert_eq!(flagged, 0, "the generated root is consistent");
        }
        group.throughput(Throughput::Elements(n as u64));
        // Cold: a fresh database, so parsing and hashing every file is part of it.
        group.bench_function(BenchmarkId::new("cold", n), |b| {
            b.iter_batched(
                || database(&defs),
                |(db, list)| {
                    let flagged = status(&db, &list);
                    (db, flagged)
                },
                BatchSize::PerIteration,
            )
        });
        // Parsed: the `.tr` and `.lock` of every definition already read.
        group.bench_function(BenchmarkId::new("parsed", n), |b| {
            b.iter_batched(
                || {
                    let (db, list) = database(&defs);
                    parse_all(&db, &list);
                    (db, list)
                },
                |(db, list)| {
                    let flagged = status(&db, &list);
                    (db, flagged)
                },
                BatchSize::PerIteration,
            )
        });
        // Warm, after a prose edit of one much-called definition: salsa re-validates
        // every memo and re-runs the edited definition's queries (its callers' flags stop
        // at the unchanged formal hash and soil hash).
        let (mut db, list) = database(&defs);
        status(&db, &list);
        let target = list[0];
        let texts = [
            defs[0].tr.clone().into_bytes(),
            defs[0]
                .tr
                .replace("Computes step", "Computes the step")
                .into_bytes(),
        ];
        let mut next = 0;
        group.bench_function(BenchmarkId::new("after_prose_edit", n), |b| {
            b.iter_batched(
                || {
                    next = 1 - next;
                    texts[next].clone()
                },
                |text| {
                    target.set_tr(&mut db).to(Some(text));
                    status(&db, &list)
                },
                BatchSize::PerIteration,
            )
        });
    }
    group.finish();
}

fn bench_graph(c: &mut Criterion) {
    const N: usize = 50_000;
    let defs = corpus::soil_defs(N, SEED);
    let (db, list) = database(&defs);
    let built = graph::build(&db);
    // The definition with the most callers, a leaf, and the reference file.
    let (hub, callers) = list
        .iter()
        .map(|&d| {
            let path = d.path(&db).clone();
            let n = built.dependents(&path, EdgeKind::Call).len();
            (path, n)
        })
        .max_by_key(|(_, n)| *n)
        .expect("definitions exist");
    let leaf = defs[N - 1].path.clone();
    let reference = "ref/oracle.py";
    eprintln!(
        "soil/graph/{N}: {} nodes, {} edges; {hub} has {callers} callers; {reference} has {} dependents",
        built.graph.node_count(),
        built.graph.edge_count(),
        built.dependents(reference, EdgeKind::External).len()
    );

    let mut group = c.benchmark_group("soil/graph_build");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .measurement_time(Duration::from_secs(5));
    group.throughput(Throughput::Elements(N as u64));
    // Warm: every definition's edges memoised; only the graph is assembled.
    group.bench_function(BenchmarkId::new("memoised_edges", N), |b| {
        b.iter_with_large_drop(|| graph::build(&db))
    });
    // Cold: a fresh database, so every sidecar is read and its edges resolved.
    group.bench_function(BenchmarkId::new("cold", N), |b| {
        b.iter_batched(
            || database(&defs),
            |(db, _)| {
                let g = graph::build(&db);
                (db, g)
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();

    let mut group = c.benchmark_group("soil/impact_50k");
    for (name, target, change) in [
        ("hub_formal", hub.as_str(), Change::Formal),
        ("hub_soil", hub.as_str(), Change::Soil),
        ("leaf_formal", leaf.as_str(), Change::Formal),
        ("reference_file", reference, Change::Formal),
    ] {
        let reached = graph::impact(&built, target, change).len();
        assert!(reached > 0, "{name} reaches something");
        eprintln!("soil/impact_50k/{name}: {target} reaches {reached}");
        group.bench_function(name, |b| {
            b.iter(|| graph::impact(black_box(&built), target, change))
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench_files, bench_status, bench_graph
}
criterion_main!(benches);
