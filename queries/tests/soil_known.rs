//! A kept value stands in for the bytes it was derived from: a database whose definitions
//! are given as `tr_known`/`sidecar_known` (what the shell's cache keeps between runs)
//! computes the same hashes, flags, ladder, edges, graph and `check` as one given the
//! bytes — also for a spec that is not UTF-8, a sidecar that does not parse, a spec without
//! a sidecar and a sidecar without a spec.

use lockgraph_queries::db::Database;
use lockgraph_queries::soil::check::{self, Policy, Requirement, Scope};
use lockgraph_queries::soil::engine::{self, Definition, Project};
use lockgraph_queries::soil::graph;
use std::collections::BTreeMap;

const SUM_TR: &str = "---\nname: sum\ntags: [api]\n---\n\n# sum\n\nAdds.\n\n```soil-sig\nsum : (xs : List F64) -> F64\n```\n\n```test basics @agent\n([]) => 0.0\n```\n";
const MODULE_TR: &str = "---\nname: stats\n---\n\n```exports\nsum, mean # public\n```\n\n```decisions\nfloat: f64\n```\n";

fn sum_lock(prose: &str, calls: &str) -> String {
    format!(
        r#"{{
  "lock_format": 1,
  "name": "sum",
  "kind": "function",
  "versions": {{ "trellis": "0.1.0" }},
  "spec": {{
    "provenance": "human",
    "hashes": {{
      "formal": "sha256:00000000",
      "test": "sha256:11111111",
      "prose": "{prose}"
    }},
    "prose_state": "fresh",
    "blocks": [
      {{ "block": "soil-sig", "author": "human" }}
    ],
    "pinned": false,
    "escape_hatches": []
  }},
  "lowering": {{
    "soil_hash": "sha256:22222222",
    "provenance": "agent",
    "provider": null,
    "model": null,
    "private_helpers": [],
    "calls": [{calls}]
  }},
  "checks": {{
    "types": "ok",
    "refinements": {{}}
  }},
  "tests": [
    {{ "name": "basics", "tier": "expect", "mode": "sandboxed", "origin": "spec", "result": "pass" }}
  ],
  "oracles": [
    {{ "kind": "definition", "name": "mean", "formal_hash": "sha256:33333333" }},
    {{ "kind": "reference", "path": "ref/x.py::f", "hash": "sha256:44444444" }}
  ],
  "accepted": true
}}
"#
    )
}

/// Path, `.tr` bytes, `.lock` bytes.
type Files = Vec<(&'static str, Option<Vec<u8>>, Option<Vec<u8>>)>;

fn files() -> Files {
    let call = r#"{ "name": "mean", "hash": "sha256:55555555" }, { "name": "nowhere", "hash": "sha256:66666666" }"#;
    vec![
        ("stats/_module", Some(MODULE_TR.into()), None),
        (
            "stats/sum",
            Some(SUM_TR.into()),
            Some(sum_lock("sha256:77777777", call).into_bytes()),
        ),
        (
            "stats/mean",
            Some(SUM_TR.replace("sum", "mean").into_bytes()),
            Some(
                sum_lock("sha256:88888888", "")
                    .replace("\"sum\"", "\"mean\"")
                    .into_bytes(),
            ),
        ),
        (
            "stats/latin1",
            Some(b"---\nname: caf\xe9\n---\n".to_vec()),
            None,
        ),
        (
            "stats/broken",
            Some(SUM_TR.replace("sum", "broken").into_bytes()),
            Some(b"{ \"lock_format\": 1,".to_vec()),
        ),
        (
            "stats/orphan",
            None,
            Some(sum_lock("sha256:99999999", "").into_bytes()),
        ),
    ]
}

fn database(known: bool) -> (Database, Vec<Definition>) {
    let bytes = Database::default();
    let defs: Vec<Definition> = files()
        .into_iter()
        .map(|(path, tr, lock)| Definition::new(&bytes, path.to_string(), tr, lock, None))
        .collect();
    Project::new(&bytes, defs.clone(), BTreeMap::new());
    if !known {
        return (bytes, defs);
    }
    let kept = Database::default();
    let kept_defs: Vec<Definition> = defs
        .iter()
        .map(|&d| {
            Definition::builder(d.path(&bytes).clone(), None, None, None)
                .tr_known(engine::tr_summary(&bytes, d).cloned().map(Box::new))
                .sidecar_known(engine::parsed_sidecar(&bytes, d).cloned().map(Box::new))
                .new(&kept)
        })
        .collect();
    Project::new(&kept, kept_defs.clone(), BTreeMap::new());
    (kept, kept_defs)
}

/// Everything the commands print, in a comparable form.
fn everything(db: &Database, defs: &[Definition]) -> Vec<String> {
    let mut out = Vec::new();
    for &d in defs {
        out.push(format!(
            "{} {:?} {:?} {:?} {:?} {:?}",
            d.path(db),
            engine::spec_hashes(db, d),
            engine::ladder(db, d),
            engine::flags(db, d),
            engine::edges(db, d),
            engine::tr_summary(db, d).map(|s| s.as_ref().map(|s| (&s.name, &s.tags))),
        ));
    }
    for scope in [Scope::All, Scope::Exported, Scope::Tag("api".into())] {
        let policy = Policy {
            require: Some(Requirement::Verified),
            scope,
        };
        out.push(format!("{:?}", check::check(db, &policy)));
    }
    out.push(format!("{:?}", check::exported(db)));
    out.push(format!("{:?}", graph::build(db).edge_list()));
    out
}

#[test]
fn kept_values_compute_exactly_what_the_bytes_do() {
    let (bytes, defs) = database(false);
    let (kept, kept_defs) = database(true);
    assert!(kept_defs.iter().all(|&d| d.tr(&kept).is_none()), "no bytes");
    let expected = everything(&bytes, &defs);
    assert_eq!(everything(&kept, &kept_defs), expected);
    // The cases the fixture is made of are all there.
    let text = expected.join("\n");
    for needle in [
        "NoLock",
        "MissingCallee",
        "StaleCallees",
        "StaleOracle",
        "BlocksDrift",
        "invalid UTF-8",
        "sidecar",
        "FormalStale",
        "stats/sum",
    ] {
        assert!(text.contains(needle), "{needle} missing from:\n{text}");
    }
}
