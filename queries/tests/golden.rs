//! The golden vector `fixtures/golden/cell_count` (copied from the toolchain's published
//! v1 decisions): hashes, canonical form and derived status.

use lockgraph_queries::db::Database;
use lockgraph_queries::soil::engine::{self, Definition, Project};
use lockgraph_queries::soil::sidecar;
use lockgraph_queries::soil::status::{Flag, Ladder};
use salsa::Setter;
use std::collections::BTreeMap;

const TR: &str = include_str!("../../fixtures/golden/cell_count/cell_count.tr");
const LOCK: &str = include_str!("../../fixtures/golden/cell_count/cell_count.lock");

/// The vector ships without `cell_count.soil`, so every flag below comes with
/// `soil-missing`; what its hash is recomputed from is tested in `soil_hash.rs`.
fn golden() -> (Database, Definition) {
    let db = Database::default();
    let def = Definition::new(
        &db,
        "cell_count".into(),
        Some(TR.as_bytes().to_vec()),
        Some(LOCK.as_bytes().to_vec()),
        None,
    );
    let _project = Project::new(&db, vec![def], BTreeMap::new());
    (db, def)
}

#[test]
fn the_golden_sidecar_is_canonical() {
    let parsed = sidecar::parse(LOCK).unwrap();
    assert_eq!(sidecar::to_canonical_string(&parsed), LOCK);
}

#[test]
fn the_golden_definition_is_tested_not_accepted_and_flagged_only_for_its_body() {
    let (db, def) = golden();
    assert_eq!(
        engine::ladder(&db, def),
        Ladder::Tested,
        "one runtime clause: not verified"
    );
    assert!(!engine::sidecar_of(&db, def).unwrap().accepted);
    let flags: Vec<Flag> = engine::flags(&db, def).iter().map(|r| r.flag).collect();
    assert_eq!(flags, [Flag::SoilMissing]);
    let h = engine::spec_hashes(&db, def).unwrap();
    assert_eq!(
        h.formal.to_string(),
        "sha256:023e31d91591f58338d930f7bfb343a2fa32325e10f63398ea9561e20f912d5f"
    );
}

#[test]
fn each_golden_mutation_raises_exactly_its_flag() {
    let cases = [
        (
            "Returns how many floats",
            "Counts the floats",
            Flag::ProseStale,
        ),
        ("=> 3", "=> 4", Flag::TestStale),
        ("```test basics", "```test basics xfail", Flag::TestStale),
        (
            "non-negative: result >= 0",
            "non-negative: result >= 1",
            Flag::FormalStale,
        ),
    ];
    for (from, to, flag) in cases {
        let (mut db, def) = golden();
        assert!(TR.contains(from));
        def.set_tr(&mut db)
            .to(Some(TR.replacen(from, to, 1).into_bytes()));
        let flags: Vec<Flag> = engine::flags(&db, def).iter().map(|r| r.flag).collect();
        let mut expected = vec![flag, Flag::SoilMissing];
        expected.sort();
        assert_eq!(flags, expected, "{from} → {to}");
    }
}
