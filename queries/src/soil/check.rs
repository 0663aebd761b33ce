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
    /// Where it stands, for reports that annotate files (`--format github|gitlab|sarif`).
    pub at: Place,
}

/// A position in a file of the root: the file's root-relative path, 1-based line and
/// column (columns count Unicode scalar values, as the parsers report them).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place {
    pub file: String,
    pub line: u32,
    pub column: u32,
}

impl Place {
    fn new(file: String, line: u32, column: u32) -> Place {
        Place { file, line, column }
    }
}

/// Where what is said of a definition as a whole stands: its spec's `name:` line (or the
/// sidecar's first line when the spec is missing or cannot be read).
fn name_place(db: &dyn salsa::Database, def: Definition) -> Place {
    let path = def.path(db);
    match tr_summary(db, def) {
        Some(Ok(tr)) => Place::new(format!("{path}.tr"), tr.name_line, 1),
        _ => Place::new(format!("{path}.lock"), 1, 1),
    }
}

/// Every code a check reports, with what it means: the rules of a SARIF report, and the
/// list in `docs/soil-lock.md`. `unnamable` is the shell's (a path that is not UTF-8).
pub const CODES: &[(&str, &str)] = &[
    ("accepted-untested", "an accepted function is not tested"),
    (
        "accepted-xfail",
        "an accepted function has an xfail or xpass test row",
    ),
    ("accepted-partial", "holes remain in an accepted definition"),
    (
        "accepted-stale",
        "an accepted definition is formal-stale or test-stale: acceptance covers the spec as it was locked",
    ),
    (
        "blocks-drift",
        "an accepted definition's blocks changed author or shape without review",
    ),
    (
        "oracle-not-accepted",
        "a definition oracle names a definition that is not accepted",
    ),
    (
        "oracle-cycle",
        "accepted definitions vouch for each other only through an oracle cycle",
    ),
    (
        "policy",
        "a definition in the policy's scope is below --require",
    ),
    ("spec", "an error diagnostic of a .tr file"),
    ("sidecar", "a .lock sidecar that cannot be read"),
    ("soil", "a .soil file that cannot be read or parsed"),
    (
        "unnamable",
        "a path that is not valid UTF-8 cannot be named in the manifest",
    ),
];

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
    let mut push = |def: &str, code, message: String, at: Place| {
        out.push(Violation {
            def: def.to_string(),
            code,
            message,
            at,
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
                    Place::new(format!("{path}.tr"), e.line, e.column),
                );
            }
            if let Some(vocabulary) = Project::get(db).tag_vocabulary(db) {
                for (tag, (line, column)) in tr.tags.iter().zip(&tr.tags_at) {
                    if !vocabulary.contains(tag.as_str()) {
                        push(
                            path,
                            "spec",
                            format!(
                                "{line}:{column}: the tag `{tag}` is not declared under \
                                 [tags] in soil.toml [tr-undeclared-tag]"
                            ),
                            Place::new(format!("{path}.tr"), *line, *column),
                        );
                    }
                }
            }
        }
        if let Some(Err(e)) = own_forms(db, def)
            && is_function(db, def)
        {
            let at = Place::new(e.file.clone(), e.line, e.column);
            push(path, "soil", e.to_string(), at);
        }
        if let Some(Err(e)) = parsed_sidecar(db, def) {
            let at = Place::new(
                format!("{path}.lock"),
                e.line.unwrap_or(1) as u32,
                e.column.unwrap_or(1) as u32,
            );
            push(path, "sidecar", e.to_string(), at);
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
                    name_place(db, def),
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
                    name_place(db, def),
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
                    name_place(db, def),
                );
            }
        }
        if sidecar.accepted && status == Ladder::Partial {
            push(
                path,
                "accepted-partial",
                "accepted while holes remain".into(),
                name_place(db, def),
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
                name_place(db, def),
            );
        }
        if sidecar.accepted && raised.iter().any(|r| r.flag == Flag::BlocksDrift) {
            push(
                path,
                "blocks-drift",
                "a human-authored block changed author without review".into(),
                name_place(db, def),
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
                    name_place(db, def),
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
                    name_place(db, def),
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
                at: Place::new(e.file.clone(), e.line, e.column),
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
            let Some(def) = index.get(m) else { continue };
            if sidecar_of(db, def).is_some_and(|s| s.accepted) {
                out.push(Violation {
                    def: m.clone(),
                    code: "oracle-cycle",
                    message: format!("accepted only through an oracle cycle: {cycle}"),
                    at: name_place(db, def),
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
