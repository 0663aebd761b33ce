//! Names resolved to definitions, and the typed edges each sidecar records: what
//! `graph`, `impact` and `why` walk, and what the flags check edge by edge.

use super::super::sidecar::{Oracle, RecordedHash};
use super::{Definition, Project, module_of, reference_file, short_name, sidecar_of};
use std::collections::HashMap;

/// Definitions by path and by name, for resolving `calls[].name` and oracle names. Depends
/// only on the list of definitions, never on their contents. Hash maps: every call and
/// oracle of every definition is resolved through them, and on large roots ordered maps'
/// string comparisons were a tenth of a status run's engine time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefIndex {
    pub by_path: HashMap<String, Definition>,
    /// Paths by short name, in the order of the definition list (sorted).
    by_name: HashMap<String, Vec<String>>,
}

/// What a name in a sidecar refers to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Resolution {
    Found(String),
    Missing,
    /// More than one definition elsewhere in the root has that name.
    Ambiguous(Vec<String>),
}

impl DefIndex {
    /// In the caller's own module first, then anywhere in the root if exactly one
    /// definition has that name; `module/name` resolves directly.
    pub fn resolve(&self, from: &str, name: &str) -> Resolution {
        if name.contains('/') {
            return if self.by_path.contains_key(name) {
                Resolution::Found(name.to_string())
            } else {
                Resolution::Missing
            };
        }
        let module = module_of(from);
        let local = if module.is_empty() {
            name.to_string()
        } else {
            format!("{module}/{name}")
        };
        if self.by_path.contains_key(&local) {
            return Resolution::Found(local);
        }
        match self.by_name.get(name).map(Vec::as_slice) {
            Some([one]) => Resolution::Found(one.clone()),
            Some(many) if many.len() > 1 => Resolution::Ambiguous(many.to_vec()),
            _ => Resolution::Missing,
        }
    }

    pub fn get(&self, path: &str) -> Option<Definition> {
        self.by_path.get(path).copied()
    }
}

#[salsa::tracked(returns(ref))]
pub fn def_index(db: &dyn salsa::Database) -> DefIndex {
    let defs = Project::get(db).definitions(db);
    let mut by_path = HashMap::with_capacity(defs.len());
    let mut by_name: HashMap<String, Vec<String>> = HashMap::new();
    for def in defs {
        let path = def.path(db).clone();
        let name = short_name(&path);
        if !name.starts_with('_') {
            by_name
                .entry(name.to_string())
                .or_default()
                .push(path.clone());
        }
        by_path.insert(path, *def);
    }
    // Nearly every name is one definition's: one path, not the four pushing makes room for.
    by_name.values_mut().for_each(Vec::shrink_to_fit);
    DefIndex { by_path, by_name }
}

/// A typed edge out of one definition, as its sidecar records it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Edge {
    pub kind: EdgeKind,
    /// The name as written in the sidecar.
    pub name: String,
    pub target: Resolution,
    /// The hash recorded in the sidecar (callee `soil_hash`, oracle hash, helper hash).
    pub recorded: RecordedHash,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EdgeKind {
    /// `lowering.calls`: the caller was checked against the callee's `soil_hash`.
    Call,
    /// A `definition` oracle: the tests use another definition as their oracle.
    Oracle,
    /// A `reference` or `cli` oracle: the target is outside the specs.
    External,
    /// `lowering.private_helpers`: the definition owns a private helper.
    Helper,
}

impl EdgeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Call => "call",
            EdgeKind::Oracle => "oracle",
            EdgeKind::External => "external",
            EdgeKind::Helper => "helper",
        }
    }
}

/// The edges of one definition, as its sidecar and the set of definitions give them.
///
/// Not memoised: its readers (the definition's own flags and checks, the graph) read the
/// sidecar anyway, so a memo would cut off nothing, and keeping every definition's edges
/// (names, paths and hashes copied out of the sidecar) was about a tenth of a status
/// run's memory at 10,000 definitions.
pub fn edges(db: &dyn salsa::Database, def: Definition) -> Vec<Edge> {
    let Some(sidecar) = sidecar_of(db, def) else {
        return Vec::new();
    };
    let index = def_index(db);
    let from = def.path(db);
    let mut out = Vec::new();
    if let Some(lowering) = &sidecar.lowering {
        for call in &lowering.calls {
            out.push(Edge {
                kind: EdgeKind::Call,
                name: call.name.to_string(),
                target: index.resolve(from, &call.name),
                recorded: call.hash,
            });
        }
        for helper in &lowering.private_helpers {
            let module = module_of(from);
            let node = if module.is_empty() {
                helper.name.to_string()
            } else {
                format!("{module}/{}", helper.name)
            };
            out.push(Edge {
                kind: EdgeKind::Helper,
                name: helper.name.to_string(),
                target: Resolution::Found(node),
                recorded: helper.hash,
            });
        }
    }
    for oracle in &sidecar.oracles {
        let (kind, name, target) = match oracle {
            Oracle::Definition { name, .. } => {
                (EdgeKind::Oracle, name.clone(), index.resolve(from, name))
            }
            Oracle::Reference { path, .. } => (
                EdgeKind::External,
                path.clone(),
                Resolution::Found(reference_file(path).to_string()),
            ),
            Oracle::Cli { command, .. } => (
                EdgeKind::External,
                command.clone(),
                Resolution::Found(format!("cli:{command}")),
            ),
        };
        out.push(Edge {
            kind,
            name,
            target,
            recorded: oracle.recorded_hash(),
        });
    }
    out
}
