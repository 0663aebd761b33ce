//! The call and oracle graph (spec §6): one petgraph graph with typed edges, assembled
//! from each definition's memoised [`edges`], and the two questions asked of it —
//! `impact` (what would an edit reach, along which edges) and `why` (why is a definition
//! stale, as a path to the cause); `check` finds oracle cycles on it too. The graph
//! answers questions; it does not invalidate anything: salsa decides what re-runs after
//! an edit, from what each query read.

use super::engine::{
    Definition, Edge, EdgeKind, Project, Reason, Resolution, def_index, edges, flags,
};
use super::status::Flag;
use petgraph::Direction;
use petgraph::stable_graph::{NodeIndex, StableDiGraph};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKind {
    Definition,
    /// A private helper owned by one or more lowerings.
    Helper,
    /// A reference file or CLI named by an oracle.
    External,
    /// A name no definition answers to.
    Missing,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Node {
    pub id: String,
    pub kind: NodeKind,
}

/// Edges point from the dependent to what it depends on: caller → callee, definition →
/// oracle, owner → helper.
#[derive(Clone, Debug, Default)]
pub struct DepGraph {
    pub graph: StableDiGraph<Node, EdgeKind>,
    ids: BTreeMap<String, NodeIndex>,
}

impl DepGraph {
    fn node(&mut self, id: &str, kind: NodeKind) -> NodeIndex {
        if let Some(&ix) = self.ids.get(id) {
            return ix;
        }
        let ix = self.graph.add_node(Node {
            id: id.to_string(),
            kind,
        });
        self.ids.insert(id.to_string(), ix);
        ix
    }

    pub fn index(&self, id: &str) -> Option<NodeIndex> {
        self.ids.get(id).copied()
    }

    /// Replaces one definition's outgoing edges: what a sidecar edit changes.
    pub fn set_edges(&mut self, from: &str, edges: &[Edge]) {
        let src = self.node(from, NodeKind::Definition);
        let old: Vec<_> = self
            .graph
            .edges_directed(src, Direction::Outgoing)
            .map(|e| petgraph::visit::EdgeRef::id(&e))
            .collect();
        for e in old {
            self.graph.remove_edge(e);
        }
        for edge in edges {
            let (id, kind) = match (&edge.kind, &edge.target) {
                (EdgeKind::Helper, Resolution::Found(id)) => (id.clone(), NodeKind::Helper),
                (EdgeKind::External, Resolution::Found(id)) => (id.clone(), NodeKind::External),
                (_, Resolution::Found(id)) => (id.clone(), NodeKind::Definition),
                (_, _) => (format!("?{}", edge.name), NodeKind::Missing),
            };
            let dst = self.node(&id, kind);
            self.graph.add_edge(src, dst, edge.kind);
        }
    }

    /// Nodes with an edge of `kind` into `id`, sorted.
    pub fn dependents(&self, id: &str, kind: EdgeKind) -> Vec<String> {
        let Some(ix) = self.index(id) else {
            return Vec::new();
        };
        let mut out: Vec<String> = self
            .graph
            .edges_directed(ix, Direction::Incoming)
            .filter(|e| *e.weight() == kind)
            .map(|e| self.graph[petgraph::visit::EdgeRef::source(&e)].id.clone())
            .collect();
        out.sort();
        out.dedup();
        out
    }

    /// Every edge as `(from, kind, to)`, sorted: the stable form for output and tests.
    pub fn edge_list(&self) -> Vec<(String, EdgeKind, String)> {
        let mut out: Vec<_> = self
            .graph
            .edge_indices()
            .map(|e| {
                let (a, b) = self.graph.edge_endpoints(e).expect("edge exists");
                (
                    self.graph[a].id.clone(),
                    self.graph[e],
                    self.graph[b].id.clone(),
                )
            })
            .collect();
        out.sort();
        out
    }

    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.ids.values().map(|&ix| &self.graph[ix])
    }
}

/// The whole graph, linear in the edges: each definition's are resolved again from its
/// parsed sidecar (see [`edges`] for why they are not kept).
pub fn build(db: &dyn salsa::Database) -> DepGraph {
    let mut g = DepGraph::default();
    for def in Project::get(db).definitions(db) {
        g.node(def.path(db), NodeKind::Definition);
    }
    for def in Project::get(db).definitions(db) {
        g.set_edges(def.path(db), &edges(db, *def));
    }
    g
}

/// What kind of edit `impact` asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    Formal,
    Test,
    Prose,
    Soil,
}

impl Change {
    pub fn parse(s: &str) -> Option<Change> {
        match s {
            "formal" => Some(Change::Formal),
            "test" => Some(Change::Test),
            "prose" => Some(Change::Prose),
            "soil" => Some(Change::Soil),
            _ => None,
        }
    }
}

/// One definition an edit reaches, what happens to it, and the edge that carries it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reached {
    pub def: String,
    pub effect: String,
    /// `(from, kind, to)` of the edge the effect travels along; `None` for the edited
    /// definition itself.
    pub via: Option<(String, EdgeKind, String)>,
}

/// What an edit of `target` reaches (spec §6 table). Callers are reached one level deep:
/// their own callers only if their `soil_hash` changes in turn, which an edit cannot
/// predict (early cut-off, never a blanket reverse closure). `target` may also be a
/// reference file or `cli:<command>`, reaching the tests that name it.
pub fn impact(graph: &DepGraph, target: &str, change: Change) -> Vec<Reached> {
    let mut out = Vec::new();
    let is_external = graph
        .index(target)
        .is_some_and(|ix| graph.graph[ix].kind == NodeKind::External);
    if is_external {
        for dependent in graph.dependents(target, EdgeKind::External) {
            out.push(Reached {
                via: Some((dependent.clone(), EdgeKind::External, target.to_string())),
                def: dependent,
                effect: "tests re-run against the changed oracle (stale-oracle); no lowering"
                    .into(),
            });
        }
        return out;
    }
    let me = |effect: &str| Reached {
        def: target.to_string(),
        effect: effect.to_string(),
        via: None,
    };
    match change {
        Change::Formal => {
            out.push(me("lowering invalid: re-lower (formal-stale)"));
            for caller in graph.dependents(target, EdgeKind::Call) {
                out.push(Reached {
                    via: Some((caller.clone(), EdgeKind::Call, target.to_string())),
                    def: caller,
                    effect: "re-checked if the re-lowering changes the callee's soil_hash (stale-callees)"
                        .into(),
                });
            }
            for user in graph.dependents(target, EdgeKind::Oracle) {
                out.push(Reached {
                    via: Some((user.clone(), EdgeKind::Oracle, target.to_string())),
                    def: user,
                    effect: "tests using it as an oracle re-run (stale-oracle)".into(),
                });
            }
        }
        Change::Test => out.push(me("test results re-run (test-stale)")),
        Change::Prose => out.push(me("prose_state → review-suggested; nothing else")),
        Change::Soil => {
            for caller in graph.dependents(target, EdgeKind::Call) {
                out.push(Reached {
                    via: Some((caller.clone(), EdgeKind::Call, target.to_string())),
                    def: caller,
                    effect: "recorded against the old soil_hash: re-check (stale-callees)".into(),
                });
            }
        }
    }
    out
}

/// One step of a `why` explanation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Step {
    pub def: String,
    pub reason: Reason,
}

/// Why `def` carries each of its flags: for each flag, the chain from `def` to the cause,
/// following stale callees and oracles while they are stale themselves. Cycles are cut
/// (each definition appears once per chain).
pub fn why(db: &dyn salsa::Database, def: Definition) -> Vec<Vec<Step>> {
    let index = def_index(db);
    let start = def.path(db).clone();
    let mut chains = Vec::new();
    for reason in flags(db, def) {
        let mut chain = vec![Step {
            def: start.clone(),
            reason: reason.clone(),
        }];
        let mut seen = BTreeSet::from([start.clone()]);
        let mut next = follow(reason);
        while let Some(other) = next.take() {
            if !seen.insert(other.clone()) {
                break;
            }
            let Some(d) = index.get(&other) else { break };
            // The most telling cause downstream: its own staleness, else a stale callee.
            let Some(cause) = flags(db, d)
                .iter()
                .find(|r| {
                    matches!(
                        r.flag,
                        Flag::FormalStale
                            | Flag::NoLock
                            | Flag::SoilDrift
                            | Flag::StaleCallees
                            | Flag::StaleOracle
                    )
                })
                .cloned()
            else {
                break;
            };
            next = follow(&cause);
            chain.push(Step {
                def: other,
                reason: cause,
            });
        }
        chains.push(chain);
    }
    chains
}

fn follow(reason: &Reason) -> Option<String> {
    match reason.flag {
        Flag::StaleCallees | Flag::StaleOracle => reason.other.clone(),
        _ => None,
    }
}
