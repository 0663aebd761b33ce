//! Early cut-off in the soil graph, proven by the queries salsa executes: a prose edit of a
//! callee re-runs nothing of its callers; a new callee `soil_hash` re-runs exactly the
//! direct callers recorded against it; a call cycle neither loops nor vouches for itself.

use lockgraph_queries::db::{Database, Executed, ExecutionLog};
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::soil::check::{self, Policy};
use lockgraph_queries::soil::engine::{self, Definition, Project};
use lockgraph_queries::soil::sidecar::{
    self, Author, BlockAuthor, DefKind, Lowering, LoweringProvenance, NameHash, Oracle, Origin,
    Refinements, SpecHashes, TestResult, TestRow, Tier, TypeCheck, Versions,
};
use lockgraph_queries::soil::status::{Flag, Ladder};
use salsa::Setter;
use salsa::plumbing::AsId;
use std::collections::BTreeMap;

fn tr(name: &str, prose: &str) -> String {
    format!(
        "---\nname: {name}\n---\n\n# {name}\n\n{prose}\n\n```soil-sig\n{name} : (xs : List F64) -> F64\n```\n\n```test basics\n([1.0]) => 1.0\n```\n"
    )
}

fn soil_hash(name: &str, version: u8) -> String {
    ContentHash::of(format!("{name} body v{version}").as_bytes()).to_string()
}

/// A consistent, lowered and tested sidecar for the spec `text`, calling `calls`.
fn lock(name: &str, text: &str, calls: &[(&str, String)], oracles: Vec<Oracle>) -> String {
    let parsed = lockgraph_queries::soil::tr::parse(&format!("{name}.tr"), text);
    let h = lockgraph_queries::soil::spec_hash::spec_hashes(&parsed, text);
    let blocks = parsed
        .blocks
        .iter()
        .map(|b| BlockAuthor {
            block: b.identity().into(),
            author: Author::Human,
        })
        .collect();
    let mut s = sidecar::default_for(
        name,
        DefKind::Function,
        SpecHashes {
            formal: h.formal.into(),
            test: h.test.map(Into::into),
            prose: h.prose.into(),
        },
        blocks,
        Versions(vec![("trellis".into(), "0.1.0".into())]),
    );
    s.lowering = Some(Lowering {
        soil_hash: soil_hash(name, 1).parse().unwrap(),
        provenance: LoweringProvenance::Agent,
        provider: None,
        model: None,
        private_helpers: Vec::new(),
        calls: calls
            .iter()
            .map(|(n, hash)| NameHash {
                name: (*n).into(),
                hash: hash.parse().unwrap(),
            })
            .collect(),
        decisions: None,
    });
    s.present.checks = true;
    s.checks.types = Some(TypeCheck::Ok);
    s.checks.refinements = Refinements::Clauses(Default::default());
    s.tests = vec![TestRow {
        name: "basics".into(),
        tier: Tier::Expect,
        mode: "sandboxed".into(),
        origin: Origin::Spec,
        result: TestResult::Pass,
    }];
    s.oracles = oracles;
    sidecar::to_canonical_string(&s)
}

struct World {
    db: Database,
    log: ExecutionLog,
    defs: BTreeMap<&'static str, Definition>,
}

impl World {
    fn new(files: &[(&'static str, String, String)]) -> World {
        let (db, log) = Database::with_execution_log();
        let mut defs = BTreeMap::new();
        let mut list = Vec::new();
        for (path, tr, lock) in files {
            let d = Definition::new(
                &db,
                path.to_string(),
                Some(tr.clone().into_bytes()),
                Some(lock.clone().into_bytes()),
                None,
            );
            defs.insert(*path, d);
            list.push(d);
        }
        let _project = Project::new(&db, list, BTreeMap::new());
        World { db, log, defs }
    }

    /// Every definition's flags and ladder, as `status` computes them. This world is
    /// sidecars and specs only: every lowering's `.soil` is absent, so `soil-missing`,
    /// which every lowered definition has, is left out (`soil_hash.rs` has the `.soil`
    /// side).
    fn status_all(&self) -> BTreeMap<&'static str, (Ladder, Vec<Flag>)> {
        self.defs
            .iter()
            .map(|(p, &d)| {
                let flags = engine::flags(&self.db, d)
                    .iter()
                    .map(|r| r.flag)
                    .filter(|f| *f != Flag::SoilMissing)
                    .collect();
                (*p, (engine::ladder(&self.db, d), flags))
            })
            .collect()
    }

    fn ran(&self) -> Vec<Executed> {
        self.log.take(&self.db)
    }

    fn ran_for(&self, log: &[Executed], path: &str, query: &str) -> bool {
        let id = self.defs[path].as_id();
        log.iter().any(|e| e.key == id && e.query == query)
    }
}

/// sum ← mean ← summary (calls), sum's spec is edited.
fn chain() -> World {
    let sum_tr = tr("sum", "Adds the floats of a list.");
    let mean_tr = tr("mean", "The arithmetic mean.");
    let summary_tr = tr("summary", "One line of statistics.");
    World::new(&[
        (
            "stats/sum",
            sum_tr.clone(),
            lock("sum", &sum_tr, &[], vec![]),
        ),
        (
            "stats/mean",
            mean_tr.clone(),
            lock("mean", &mean_tr, &[("sum", soil_hash("sum", 1))], vec![]),
        ),
        (
            "stats/summary",
            summary_tr.clone(),
            lock(
                "summary",
                &summary_tr,
                &[("mean", soil_hash("mean", 1))],
                vec![],
            ),
        ),
    ])
}

#[test]
fn the_chain_starts_clean() {
    let w = chain();
    for (path, (ladder, flags)) in w.status_all() {
        assert_eq!(ladder, Ladder::Tested, "{path}");
        assert!(flags.is_empty(), "{path}: {flags:?}");
    }
}

#[test]
fn a_prose_edit_of_a_callee_reruns_no_callers_status() {
    let mut w = chain();
    w.status_all();
    w.ran();
    let sum = w.defs["stats/sum"];
    let edited = tr(
        "sum",
        "Adds up every float of a list; the empty list sums to zero.",
    );
    sum.set_tr(&mut w.db).to(Some(edited.into_bytes()));
    let status = w.status_all();
    assert_eq!(status["stats/sum"].1, vec![Flag::ProseStale]);
    assert!(status["stats/mean"].1.is_empty());
    let log = w.ran();
    assert!(w.ran_for(&log, "stats/sum", "flags"), "{log:?}");
    for caller in ["stats/mean", "stats/summary"] {
        assert!(
            !w.ran_for(&log, caller, "flags"),
            "{caller} flags re-ran: {log:?}"
        );
        assert!(
            !w.ran_for(&log, caller, "ladder"),
            "{caller} ladder re-ran: {log:?}"
        );
    }
    // The formal hash did not move, so nothing that depends on it re-ran either.
    assert!(
        !w.ran_for(&log, "stats/sum", "lowered_soil_hash"),
        "{log:?}"
    );
}

#[test]
fn a_new_callee_soil_hash_reruns_exactly_the_direct_callers() {
    let mut w = chain();
    w.status_all();
    w.ran();
    let sum = w.defs["stats/sum"];
    let text = String::from_utf8(sum.sidecar(&w.db).clone().unwrap()).unwrap();
    let relowered = text.replace(&soil_hash("sum", 1), &soil_hash("sum", 2));
    assert_ne!(relowered, text);
    sum.set_sidecar(&mut w.db).to(Some(relowered.into_bytes()));
    let status = w.status_all();
    assert_eq!(status["stats/mean"].1, vec![Flag::StaleCallees]);
    assert!(
        status["stats/summary"].1.is_empty(),
        "no transitive closure"
    );
    let log = w.ran();
    assert!(w.ran_for(&log, "stats/mean", "flags"), "{log:?}");
    assert!(
        !w.ran_for(&log, "stats/summary", "flags"),
        "summary re-ran: {log:?}"
    );
    assert!(!w.ran_for(&log, "stats/mean", "ladder"), "{log:?}");
    assert!(!w.ran_for(&log, "stats/summary", "ladder"), "{log:?}");
}

#[test]
fn a_call_cycle_terminates_and_cannot_vouch_for_itself() {
    let even_tr = tr("is_even", "Even, via odd.");
    let odd_tr = tr("is_odd", "Odd, via even.");
    let formal = |name: &str, text: &str| -> lockgraph_queries::soil::sidecar::RecordedHash {
        let p = lockgraph_queries::soil::tr::parse(&format!("{name}.tr"), text);
        lockgraph_queries::soil::spec_hash::formal_hash(&p).into()
    };
    let accepted = |text: String| text.replace("\"accepted\": false", "\"accepted\": true");
    let even_lock = accepted(lock(
        "is_even",
        &even_tr,
        &[("is_odd", soil_hash("is_odd", 1))],
        vec![Oracle::Definition {
            name: "is_odd".into(),
            formal_hash: formal("is_odd", &odd_tr),
        }],
    ));
    let odd_lock = accepted(lock(
        "is_odd",
        &odd_tr,
        &[("is_even", soil_hash("is_even", 1))],
        vec![Oracle::Definition {
            name: "is_even".into(),
            formal_hash: formal("is_even", &even_tr),
        }],
    ));
    let mut w = World::new(&[
        ("parity/is_even", even_tr, even_lock),
        ("parity/is_odd", odd_tr, odd_lock.clone()),
    ]);
    for (path, (_, flags)) in w.status_all() {
        assert!(flags.is_empty(), "{path}: {flags:?}");
    }
    let violations = check::check(&w.db, &Policy::default());
    let cycles: Vec<_> = violations
        .iter()
        .filter(|v| v.code == "oracle-cycle")
        .collect();
    assert_eq!(cycles.len(), 2, "{violations:?}");

    // Re-lowering one side re-runs the other's flags once; nothing loops.
    w.ran();
    let odd = w.defs["parity/is_odd"];
    odd.set_sidecar(&mut w.db).to(Some(
        odd_lock
            .replace(&soil_hash("is_odd", 1), &soil_hash("is_odd", 2))
            .into_bytes(),
    ));
    let status = w.status_all();
    assert_eq!(status["parity/is_even"].1, vec![Flag::StaleCallees]);
    assert!(status["parity/is_odd"].1.is_empty());
    let log = w.ran();
    let even_runs = log
        .iter()
        .filter(|e| e.key == w.defs["parity/is_even"].as_id() && e.query == "flags")
        .count();
    assert_eq!(even_runs, 1, "{log:?}");
}
