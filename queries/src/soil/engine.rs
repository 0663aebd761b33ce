//! The soil-lock query graph.
//!
//! ```text
//! Definition.tr ─► tr_summary ─► spec_hashes ─► formal_hash_now ─────────┐ (definition oracles)
//! Definition.sidecar ─► parsed_sidecar ─► lowered_soil_hash ─────────────┼─► flags(caller)
//!                                  └────► edges ─► graph, impact, why    │
//! Project (definition list, external hashes) ─► def_index ───────────────┤
//! Project ─► decision_scopes (headers' decisions) ───────────────────────┤
//! Definition.soil ─► soil_hash::prepared ─► computed_soil_hashes ─► soil_verdict
//! ```
//!
//! `tr_summary`, `parsed_sidecar` and `soil_hash::own_forms` are where the bytes end: what
//! they return may instead be given as an input (`Definition::tr_known`, `sidecar_known`,
//! `soil_known`) when the shell kept it from an earlier run on the same bytes. Everything
//! after them is computed the same way either way.
//!
//! The cut-off points are deliberate, and salsa does the cutting off (backdating equal
//! results). A caller's flags read its callee only through `lowered_soil_hash`,
//! `formal_hash_now` and its own `soil_verdict`, so a prose edit of the callee (which moves
//! none of them) re-runs nothing of the caller, and a new recorded callee `soil_hash`
//! re-runs exactly the callers that read it — never a blanket reverse closure. The one
//! root-wide query, `computed_soil_hashes`, hashes callees first with a stack of its own;
//! no query recurses across definitions, so cycles in the call graph cannot make salsa
//! loop.

use super::sidecar::{BlockAuthor, DefKind, Oracle, ProseState, Scalar, Sidecar, SidecarError};
use super::soil_hash::Verdict;
use super::spec_hash::{self, SpecHashes};
use super::status::{Flag, Ladder};
use super::summary::TrSummary;
use super::tr;
use crate::hash::ContentHash;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One definition: its identity (root-relative path without extension, such as
/// `csvstats/median`) and its `.tr` and `.lock`, as far as they exist.
///
/// Each file is given either as its bytes (`tr`, `sidecar`, `soil`) or, when the shell
/// knows the file is unchanged since an earlier run, as what [`tr_summary`],
/// [`parsed_sidecar`] or `soil_hash::own_forms` made of those bytes then (`tr_known`,
/// `sidecar_known`, `soil_known`): set one of the pair, never both. The known value stands in for the bytes, so an unchanged file is neither read nor
/// parsed; everything downstream is computed as usual.
#[salsa::input(debug)]
pub struct Definition {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub tr: Option<Vec<u8>>,
    #[returns(ref)]
    pub sidecar: Option<Vec<u8>>,
    /// `f.soil` beside the spec, if there is one.
    #[returns(ref)]
    pub soil: Option<Vec<u8>>,
    /// The `.tr`'s summary, kept from an earlier run, in place of `tr`. Boxed, like the
    /// other kept value: both are moved several times on their way in, for every
    /// definition of a root.
    #[default]
    #[returns(ref)]
    pub tr_known: Option<Box<Result<TrSummary, InputError>>>,
    /// The parsed `.lock`, kept from an earlier run, in place of `sidecar`.
    #[default]
    #[returns(ref)]
    pub sidecar_known: Option<Box<Result<Sidecar, SidecarError>>>,
    /// The `.soil`'s hash forms, kept from an earlier run, in place of `soil`.
    #[default]
    #[returns(ref)]
    pub soil_known: Option<Box<crate::soil::soil_hash::SoilKnown>>,
}

/// The root: every definition, and the current hashes of what oracles point at outside the
/// specs (reference files by root-relative path, CLIs by `cli:<command>`; `None` when the
/// file or executable cannot be found).
#[salsa::input(singleton, debug)]
pub struct Project {
    #[returns(ref)]
    pub definitions: Vec<Definition>,
    #[returns(ref)]
    pub externals: BTreeMap<String, Option<String>>,
    /// The tags `soil.toml` declares under `[tags]`; `None` leaves tags unchecked.
    #[default]
    #[returns(ref)]
    pub tag_vocabulary: Option<BTreeSet<String>>,
    /// Each module's `_private.soil`.
    #[default]
    #[returns(ref)]
    pub private_files: Vec<crate::soil::soil_hash::PrivateFile>,
}

/// The key under which an oracle's current hash is found in [`Project::externals`].
pub fn external_key(oracle: &Oracle) -> Option<String> {
    match oracle {
        Oracle::Reference { path, .. } => Some(reference_file(path).to_string()),
        Oracle::Cli { command, .. } => Some(format!("cli:{command}")),
        Oracle::Definition { .. } => None,
    }
}

/// `ref/stats.py::median` names a symbol in `ref/stats.py`; the file is what is hashed.
pub fn reference_file(path: &str) -> &str {
    path.split_once("::").map_or(path, |(file, _)| file)
}

/// The relative path of a definition's spec, which decides module/project headers and
/// the name the front matter must hold.
fn file_name(path: &str) -> String {
    format!("{path}.tr")
}

/// The definition's `name`: the last path component.
pub fn short_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The definition's module: its folder (`""` at the root).
pub fn module_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(m, _)| m)
}

/// A problem that makes a file unreadable, with the position inside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct InputError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}

/// What the engine reads of the `.tr` ([`TrSummary`]); `None` without a `.tr`, an error
/// when it is not UTF-8.
pub fn tr_summary(
    db: &dyn salsa::Database,
    def: Definition,
) -> Option<&Result<TrSummary, InputError>> {
    match def.tr_known(db) {
        Some(known) => Some(&**known),
        None => tr_summary_from_bytes(db, def).as_ref(),
    }
}

/// Parses the `.tr` bytes and keeps the summary; the parse itself is dropped, so neither
/// it nor the block contents are held for the rest of the run.
#[salsa::tracked(returns(ref))]
pub fn tr_summary_from_bytes(
    db: &dyn salsa::Database,
    def: Definition,
) -> Option<Result<TrSummary, InputError>> {
    let bytes = def.tr(db).as_ref()?;
    Some(match std::str::from_utf8(bytes) {
        Ok(text) => Ok(TrSummary::of(
            &tr::parse(&file_name(def.path(db)), text),
            text,
        )),
        Err(e) => Err(InputError {
            message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
            line: None,
            column: None,
        }),
    })
}

/// The three hashes recomputed from the current `.tr`.
#[salsa::tracked(returns(copy))]
pub fn spec_hashes(db: &dyn salsa::Database, def: Definition) -> Option<SpecHashes> {
    match tr_summary(db, def)? {
        Ok(summary) => Some(summary.hashes),
        Err(_) => None,
    }
}

/// The `formal` hash alone: what a `definition` oracle on this definition depends on.
#[salsa::tracked(returns(copy))]
pub fn formal_hash_now(db: &dyn salsa::Database, def: Definition) -> Option<ContentHash> {
    spec_hashes(db, def).map(|h| h.formal)
}

/// The sidecar as read; `None` without a `.lock`.
pub fn parsed_sidecar(
    db: &dyn salsa::Database,
    def: Definition,
) -> Option<&Result<Sidecar, SidecarError>> {
    match def.sidecar_known(db) {
        Some(known) => Some(&**known),
        None => sidecar_from_bytes(db, def).as_ref(),
    }
}

/// Parses the `.lock` bytes.
#[salsa::tracked(returns(ref))]
pub fn sidecar_from_bytes(
    db: &dyn salsa::Database,
    def: Definition,
) -> Option<Result<Sidecar, SidecarError>> {
    let bytes = def.sidecar(db).as_ref()?;
    Some(match std::str::from_utf8(bytes) {
        Ok(text) => super::sidecar::parse(text),
        Err(e) => Err(SidecarError {
            path: String::new(),
            line: None,
            column: None,
            message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
        }),
    })
}

/// The sidecar if it exists and reads.
pub fn sidecar_of(db: &dyn salsa::Database, def: Definition) -> Option<&Sidecar> {
    parsed_sidecar(db, def)?.as_ref().ok()
}

/// The callee side of `calls[].hash`: what callers were checked against.
#[salsa::tracked(returns(ref))]
pub fn lowered_soil_hash(db: &dyn salsa::Database, def: Definition) -> Option<String> {
    sidecar_of(db, def)?
        .lowering
        .as_ref()
        .map(|l| l.soil_hash.clone())
}

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
    pub recorded: String,
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

/// The edges of one definition. Re-runs when its own sidecar changes, or when the set of
/// definitions changes (resolution).
#[salsa::tracked(returns(ref))]
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
                name: call.name.clone(),
                target: index.resolve(from, &call.name),
                recorded: call.hash.clone(),
            });
        }
        for helper in &lowering.private_helpers {
            let module = module_of(from);
            let node = if module.is_empty() {
                helper.name.clone()
            } else {
                format!("{module}/{}", helper.name)
            };
            out.push(Edge {
                kind: EdgeKind::Helper,
                name: helper.name.clone(),
                target: Resolution::Found(node),
                recorded: helper.hash.clone(),
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
            recorded: oracle.recorded_hash().to_string(),
        });
    }
    out
}

/// Why one flag is set: the evidence `why` prints.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Reason {
    pub flag: Flag,
    /// The definition or file the disagreement is with, if not the definition itself.
    pub other: Option<String>,
    pub recorded: Option<String>,
    pub current: Option<String>,
    pub detail: String,
}

impl Reason {
    /// The flag as trellis spells it in a status: `decision-stale:<label>` carries the
    /// label, every other flag is its name alone.
    pub fn name(&self) -> String {
        match (self.flag, &self.other) {
            (Flag::DecisionStale, Some(label)) => format!("{}:{label}", self.flag.as_str()),
            _ => self.flag.as_str().to_owned(),
        }
    }
}

/// The decisions of each scope: the project's under `""`, a module's under its folder,
/// each entry's label and digest as its header's `decisions` block gives them. A scope
/// whose header has no `decisions` block has no entry.
///
/// Only headers are read (a header is one by its file name), so an edit to any other spec
/// does not re-run this query.
#[salsa::tracked(returns(ref))]
pub fn decision_scopes(db: &dyn salsa::Database) -> BTreeMap<String, Vec<(String, String)>> {
    let mut scopes = BTreeMap::new();
    for &def in Project::get(db).definitions(db) {
        let path = def.path(db);
        let scope = match short_name(path) {
            "_project" => "",
            "_module" => module_of(path),
            _ => continue,
        };
        if let Some(Ok(tr)) = tr_summary(db, def)
            && let Some(entries) = &tr.decisions
        {
            scopes.insert(scope.to_owned(), entries.clone());
        }
    }
    scopes
}

/// The decision flags of a lowering, as trellis derives them: the scope hash over the
/// labels of the project's and the module's decisions, and each applied decision against
/// the current entry of its scope.
fn decision_flags(
    db: &dyn salsa::Database,
    def: Definition,
    sidecar: &Sidecar,
    out: &mut Vec<Reason>,
) {
    let Some(decisions) = sidecar.lowering.as_ref().and_then(|l| l.decisions.as_ref()) else {
        return;
    };
    let scopes = decision_scopes(db);
    let module = module_of(def.path(db));
    // Trellis looks up `""` and then the module; at the root the module is `""` too, so
    // the project's labels count twice there, and the recorded hashes were made that way.
    let labels: Vec<String> = ["", module]
        .iter()
        .filter_map(|scope| scopes.get(*scope))
        .flatten()
        .map(|(label, _)| label.clone())
        .collect();
    let now = spec_hash::decisions_scope_hash(&labels).to_string();
    if now != decisions.scope_hash {
        out.push(Reason {
            flag: Flag::DecisionScopeStale,
            other: None,
            recorded: Some(decisions.scope_hash.clone()),
            current: Some(now),
            detail: "decisions were added to or removed from the scope since the lowering".into(),
        });
    }
    for applied in &decisions.applied {
        let member = |key: &str| {
            applied.0.iter().find_map(|(k, v)| match v {
                Scalar::String(text) if k == key => Some(text.as_str()),
                _ => None,
            })
        };
        let (Some(label), Some(recorded)) = (member("label"), member("hash")) else {
            continue; // the seed's shape records no label and hash to compare
        };
        let scope = if member("scope") == Some("project") {
            ""
        } else {
            module
        };
        let current = scopes
            .get(scope)
            .and_then(|entries| entries.iter().find(|(l, _)| l == label))
            .map(|(_, hash)| hash.clone());
        if current.as_deref() != Some(recorded) {
            out.push(Reason {
                flag: Flag::DecisionStale,
                other: Some(label.to_owned()),
                recorded: Some(recorded.to_owned()),
                detail: match current {
                    Some(_) => format!("decision `{label}` was edited since the lowering"),
                    None => format!("decision `{label}` is gone from its scope"),
                },
                current,
            });
        }
    }
}

/// Whether `f.soil` exists: what the flags read of the file directly, so that an edit of
/// its bytes reaches them only through the hash (`soil_hash::soil_verdict`).
#[salsa::tracked(returns(copy))]
pub fn has_soil(db: &dyn salsa::Database, def: Definition) -> bool {
    def.soil(db).is_some() || def.soil_known(db).is_some()
}

/// The flags of one definition with their evidence, sorted by flag.
#[salsa::tracked(returns(ref))]
pub fn flags(db: &dyn salsa::Database, def: Definition) -> Vec<Reason> {
    let mut out = Vec::new();
    let reason = |flag, detail: String| Reason {
        flag,
        other: None,
        recorded: None,
        current: None,
        detail,
    };
    let sidecar = match parsed_sidecar(db, def) {
        Some(Ok(sidecar)) => sidecar,
        Some(Err(_)) => return out,
        None => {
            if tr_summary(db, def).is_some() {
                out.push(reason(Flag::NoLock, "no sidecar beside the spec".into()));
            }
            return out;
        }
    };
    if let Some(now) = spec_hashes(db, def) {
        let stored = &sidecar.spec.hashes;
        let mut compare = |flag, what: &str, stored: Option<&str>, now: Option<ContentHash>| {
            let now = now.map(|h| h.to_string());
            if stored != now.as_deref() {
                out.push(Reason {
                    flag,
                    other: None,
                    recorded: stored.map(str::to_string),
                    current: now,
                    detail: format!("the {what} part of the spec changed since it was locked"),
                });
            }
        };
        compare(
            Flag::FormalStale,
            "formal",
            Some(&stored.formal),
            Some(now.formal),
        );
        compare(Flag::TestStale, "test", stored.test.as_deref(), now.test);
        compare(
            Flag::ProseStale,
            "prose",
            Some(&stored.prose),
            Some(now.prose),
        );
        if let Some(Ok(summary)) = tr_summary(db, def)
            && summary.blocks != sidecar.spec.blocks
        {
            out.push(reason(
                Flag::BlocksDrift,
                describe_drift(&sidecar.spec.blocks, &summary.blocks),
            ));
        }
    } else if tr_summary(db, def).is_none() {
        // The spec was deleted (or renamed) under its sidecar: nothing it recorded is
        // vouched for any more, so every recorded hash is stale against "no spec".
        let stored = &sidecar.spec.hashes;
        for (flag, what, recorded) in [
            (Flag::FormalStale, "formal", Some(&stored.formal)),
            (Flag::TestStale, "test", stored.test.as_ref()),
            (Flag::ProseStale, "prose", Some(&stored.prose)),
        ] {
            if let Some(recorded) = recorded {
                out.push(Reason {
                    flag,
                    other: None,
                    recorded: Some(recorded.clone()),
                    current: None,
                    detail: format!("the spec is gone: the {what} hash is locked to no .tr"),
                });
            }
        }
    }
    if sidecar.spec.prose_state == ProseState::ReviewSuggested {
        out.push(reason(
            Flag::ReviewSuggested,
            "the prose changed under an unchanged lowering; an agent should confirm it".into(),
        ));
    }
    if sidecar.lowering.is_some() && !has_soil(db, def) {
        out.push(reason(
            Flag::SoilMissing,
            "a lowering is recorded but the .soil file is missing".into(),
        ));
    }
    if sidecar.lowering.is_none() && sidecar.kind == DefKind::Function && has_soil(db, def) {
        out.push(reason(
            Flag::SoilUntracked,
            "a .soil file is beside the spec but no lowering is recorded".into(),
        ));
    }
    decision_flags(db, def, sidecar, &mut out);
    let verdict = super::soil_hash::soil_verdict(db, def);
    let index = def_index(db);
    let externals = Project::get(db).externals(db);
    for edge in edges(db, def) {
        match (&edge.kind, &edge.target) {
            (EdgeKind::Helper, _) => {}
            (EdgeKind::Call, Resolution::Found(callee)) => {
                let current = index
                    .get(callee)
                    .and_then(|d| lowered_soil_hash(db, d).clone());
                if current.as_deref() != Some(edge.recorded.as_str()) {
                    out.push(Reason {
                        flag: Flag::StaleCallees,
                        other: Some(callee.clone()),
                        recorded: Some(edge.recorded.clone()),
                        current: current.clone(),
                        detail: match current {
                            Some(_) => {
                                format!("callee {callee} was re-lowered since this was checked")
                            }
                            None => format!("callee {callee} has no lowering"),
                        },
                    });
                }
            }
            (EdgeKind::Call, unresolved) => out.push(Reason {
                flag: Flag::MissingCallee,
                other: Some(edge.name.clone()),
                recorded: Some(edge.recorded.clone()),
                current: None,
                detail: match unresolved {
                    Resolution::Ambiguous(many) => {
                        format!("callee `{}` is ambiguous: {}", edge.name, many.join(", "))
                    }
                    _ => format!("callee `{}` resolves to no definition", edge.name),
                },
            }),
            (EdgeKind::Oracle, target) => {
                let current = match target {
                    Resolution::Found(p) => index
                        .get(p)
                        .and_then(|d| formal_hash_now(db, d))
                        .map(|h| h.to_string()),
                    _ => None,
                };
                if current.as_deref() != Some(edge.recorded.as_str()) {
                    out.push(Reason {
                        flag: Flag::StaleOracle,
                        other: Some(match target {
                            Resolution::Found(p) => p.clone(),
                            _ => edge.name.clone(),
                        }),
                        recorded: Some(edge.recorded.clone()),
                        current,
                        detail: format!(
                            "oracle definition `{}` changed its formal spec",
                            edge.name
                        ),
                    });
                }
            }
            (EdgeKind::External, Resolution::Found(key)) => {
                let current = externals.get(key).cloned().flatten();
                if current.as_deref() != Some(edge.recorded.as_str()) {
                    out.push(Reason {
                        flag: Flag::StaleOracle,
                        other: Some(edge.name.clone()),
                        recorded: Some(edge.recorded.clone()),
                        current: current.clone(),
                        detail: match current {
                            Some(_) => format!("oracle `{}` changed", edge.name),
                            None => format!("oracle `{}` cannot be found", edge.name),
                        },
                    });
                }
            }
            (EdgeKind::External, _) => {}
        }
    }
    match verdict {
        Verdict::Agrees => {}
        Verdict::Drift(reason) => out.push(reason.clone()),
        // The recorded edges may already have said so, callee by callee.
        Verdict::CalleesMoved(reason) => {
            if !out.iter().any(|r| r.flag == Flag::StaleCallees) {
                out.push(reason.clone());
            }
        }
    }
    out.sort_by(|a, b| (a.flag, &a.other).cmp(&(b.flag, &b.other)));
    out
}

fn describe_drift(lock: &[BlockAuthor], spec: &[BlockAuthor]) -> String {
    for (l, s) in lock.iter().zip(spec) {
        if l.block != s.block {
            return format!("block `{}` in the lock, `{}` in the spec", l.block, s.block);
        }
        if l.author != s.author {
            return format!(
                "block `{}` is recorded as {}-authored but the spec marks it {}",
                l.block,
                l.author.as_str(),
                s.author.as_str()
            );
        }
    }
    format!(
        "the lock records {} blocks, the spec has {}",
        lock.len(),
        spec.len()
    )
}

/// The ladder of one definition; depends on its own sidecar only.
#[salsa::tracked(returns(copy))]
pub fn ladder(db: &dyn salsa::Database, def: Definition) -> Ladder {
    Ladder::of(sidecar_of(db, def))
}
