//! `check` (spec §7): the four invariants every root must keep, and the CI policy flags.

use super::engine::{
    Definition, EdgeKind, Project, Resolution, def_index, edges, flags, ladder, module_of,
    parsed_sidecar, short_name, sidecar_of, tr_summary,
};
use super::graph;
use super::sidecar::{DefKind, TestResult};
use super::soil_hash::{is_function, own_forms, private_forms};
use super::status::{Flag, Ladder};
use petgraph::visit::EdgeFiltered;
use std::collections::BTreeSet;

/// One broken rule, printed as one line.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Violation {
    pub def: String,
    /// Stable: `accepted-untested`, `accepted-xfail`, `accepted-stale`, `blocks-drift`,
    /// `oracle-not-accepted`, `oracle-cycle`, `accepted-partial`, `policy`, `spec`,
    /// `sidecar`, `soil` (a `.soil` file that cannot be read).
    pub code: &'static str,
    pub message: String,
}

/// Which definitions a policy applies to.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Scope {
    #[default]
    All,
    /// Named in a module header's `exports` block.
    Exported,
    /// Tagged in the spec's front matter.
    Tag(String),
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// `--require accepted|tested|verified`.
    pub require: Option<Requirement>,
    pub scope: Scope,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Requirement {
    Accepted,
    Tested,
    Verified,
}

impl Requirement {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "accepted" => Some(Requirement::Accepted),
            "tested" => Some(Requirement::Tested),
            "verified" => Some(Requirement::Verified),
            _ => None,
        }
    }
}

/// Every violation in the root, sorted by definition.
pub fn check(db: &dyn salsa::Database, policy: &Policy) -> Vec<Violation> {
    let defs = Project::get(db).definitions(db);
    let index = def_index(db);
    let mut out = Vec::new();
    let mut push = |def: &str, code, message: String| {
        out.push(Violation {
            def: def.to_string(),
            code,
            message,
        })
    };
    let exported = exported(db);
    for &def in defs {
        let path = def.path(db);
        if let Some(Ok(tr)) = tr_summary(db, def) {
            for e in &tr.errors {
                push(
                    path,
                    "spec",
                    format!("{}:{}: {} [{}]", e.line, e.column, e.message, e.code),
                );
            }
            if let Some(vocabulary) = Project::get(db).tag_vocabulary(db) {
                for (tag, (line, column)) in tr.tags.iter().zip(&tr.tags_at) {
                    if !vocabulary.contains(tag) {
                        push(
                            path,
                            "spec",
                            format!(
                                "{line}:{column}: the tag `{tag}` is not declared under \
                                 [tags] in soil.toml [tr-undeclared-tag]"
                            ),
                        );
                    }
                }
            }
        }
        if let Some(Err(e)) = own_forms(db, def)
            && is_function(db, def)
        {
            push(path, "soil", e.to_string());
        }
        if let Some(Err(e)) = parsed_sidecar(db, def) {
            push(path, "sidecar", e.to_string());
            continue;
        }
        let Some(sidecar) = sidecar_of(db, def) else {
            if let Some(req) = policy.require
                && in_scope(db, def, &policy.scope, &exported)
            {
                push(
                    path,
                    "policy",
                    format!("requires {} but has no sidecar", req_name(req)),
                );
            }
            continue;
        };
        let status = ladder(db, def);
        let gated = sidecar.kind == DefKind::Function;
        if sidecar.accepted && gated {
            if status < Ladder::Tested {
                push(
                    path,
                    "accepted-untested",
                    format!("accepted but only {status}"),
                );
            }
            if let Some(row) = sidecar
                .tests
                .iter()
                .find(|t| matches!(t.result, TestResult::Xfail | TestResult::Xpass))
            {
                push(
                    path,
                    "accepted-xfail",
                    format!(
                        "accepted with test `{}` at {}",
                        row.name,
                        row.result.as_str()
                    ),
                );
            }
        }
        if sidecar.accepted && status == Ladder::Partial {
            push(
                path,
                "accepted-partial",
                "accepted while holes remain".into(),
            );
        }
        // A spec change clears acceptance (the seed's rule): the lowering, the tests and
        // the acceptance vouched for a spec that is no longer the one in the file.
        let raised = flags(db, def);
        if sidecar.accepted
            && let Some(stale) = raised
                .iter()
                .find(|r| matches!(r.flag, Flag::FormalStale | Flag::TestStale))
        {
            push(
                path,
                "accepted-stale",
                format!(
                    "accepted, but {}: acceptance covers the spec as it was locked",
                    stale.flag
                ),
            );
        }
        if sidecar.accepted && raised.iter().any(|r| r.flag == Flag::BlocksDrift) {
            push(
                path,
                "blocks-drift",
                "a human-authored block changed author without review".into(),
            );
        }
        for oracle in edges(db, def).iter().filter(|e| e.kind == EdgeKind::Oracle) {
            let accepted = match &oracle.target {
                Resolution::Found(p) => index
                    .get(p)
                    .and_then(|d| sidecar_of(db, d))
                    .is_some_and(|s| s.accepted),
                _ => false,
            };
            if !accepted {
                push(
                    path,
                    "oracle-not-accepted",
                    format!("uses `{}` as an oracle, which is not accepted", oracle.name),
                );
            }
        }
        if let Some(req) = policy.require
            && gated
            && in_scope(db, def, &policy.scope, &exported)
        {
            let ok = match req {
                Requirement::Accepted => sidecar.accepted,
                Requirement::Tested => status >= Ladder::Tested,
                Requirement::Verified => status >= Ladder::Verified,
            };
            if !ok {
                push(
                    path,
                    "policy",
                    format!(
                        "requires {} but is {status}{}",
                        req_name(req),
                        if sidecar.accepted { ", accepted" } else { "" }
                    ),
                );
            }
        }
    }
    out.extend(oracle_cycles(db));
    for &file in Project::get(db).private_files(db) {
        if let Err(e) = private_forms(db, file) {
            out.push(Violation {
                def: e.file.clone(),
                code: "soil",
                message: e.to_string(),
            });
        }
    }
    out.sort();
    out.dedup();
    out
}

fn req_name(r: Requirement) -> &'static str {
    match r {
        Requirement::Accepted => "accepted",
        Requirement::Tested => "tested",
        Requirement::Verified => "verified",
    }
}

/// Accepted definitions that vouch for each other through `definition` oracles: inside a
/// cycle no member's acceptance rests on anything outside it, so none of them counts.
fn oracle_cycles(db: &dyn salsa::Database) -> Vec<Violation> {
    let index = def_index(db);
    let deps = graph::build(db);
    let g = &deps.graph;
    let oracles = EdgeFiltered::from_fn(g, |e| *e.weight() == EdgeKind::Oracle);
    let is_oracle =
        |e: petgraph::stable_graph::EdgeReference<'_, EdgeKind>| *e.weight() == EdgeKind::Oracle;
    let mut out = Vec::new();
    for scc in petgraph::algo::tarjan_scc(&oracles) {
        let cyclic = scc.len() > 1 || g.edges_connecting(scc[0], scc[0]).any(is_oracle);
        if !cyclic {
            continue;
        }
        let mut members: Vec<String> = scc.iter().map(|&ix| g[ix].id.clone()).collect();
        members.sort();
        // Named once, and briefly: every accepted member gets a line, and a long cycle
        // repeated in each would make the output quadratic in its length.
        const NAMED: usize = 8;
        let cycle = if members.len() <= NAMED {
            members.join(" → ")
        } else {
            format!(
                "{} → … ({} definitions)",
                members[..NAMED].join(" → "),
                members.len()
            )
        };
        for m in &members {
            let accepted = index
                .get(m)
                .and_then(|d| sidecar_of(db, d))
                .is_some_and(|s| s.accepted);
            if accepted {
                out.push(Violation {
                    def: m.clone(),
                    code: "oracle-cycle",
                    message: format!("accepted only through an oracle cycle: {cycle}"),
                });
            }
        }
    }
    out
}

fn in_scope(
    db: &dyn salsa::Database,
    def: Definition,
    scope: &Scope,
    exported: &BTreeSet<String>,
) -> bool {
    match scope {
        Scope::All => true,
        Scope::Exported => exported.contains(def.path(db)),
        Scope::Tag(tag) => {
            matches!(tr_summary(db, def), Some(Ok(tr)) if tr.tags.iter().any(|t| t == tag))
        }
    }
}

/// Definitions named in module headers' `exports` blocks: one name per line or separated
/// by commas or spaces; `#` starts a comment.
pub fn exported(db: &dyn salsa::Database) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for &def in Project::get(db).definitions(db) {
        let path = def.path(db);
        if short_name(path) != "_module" {
            continue;
        }
        let Some(Ok(tr)) = tr_summary(db, def) else {
            continue;
        };
        let module = module_of(path);
        for name in &tr.exports {
            out.insert(if module.is_empty() {
                name.clone()
            } else {
                format!("{module}/{name}")
            });
        }
    }
    out
}
