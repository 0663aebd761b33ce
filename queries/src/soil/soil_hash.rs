//! `soil_hash` recomputed from the `.soil` files, as trellis computes it, and what a
//! difference from the recorded one means.
//!
//! ```text
//! Definition.soil ─► own_forms ────┐
//! PrivateFile ─► private_forms ────┼─► computed_soil_hashes ─► soil_verdict(def) ─► flags
//! tr_summary (types) ─► user_types ┘                         └► re_anchored(def) ─► refresh
//! ```
//!
//! A definition's hash covers its hash form (local binders numbered, [`super::lang`]) and
//! one edge per free reference: a callee by its computed `soil_hash`, a `_private` helper
//! by its own (helpers in a module's `_private.soil` are hashed one by one), a user type
//! by its `formal` hash, a builtin by a fixed tag. So an edit anywhere below a definition
//! moves its hash, and renaming a local moves nothing.
//!
//! When the computed hash differs from the recorded one, the definition is recomputed once
//! more with the edges its sidecar recorded: if that matches, only something it refers to
//! moved (`stale-callees`); if not, its own `.soil` was edited (`soil-drift`). `refresh`
//! re-anchors either, recording `hand-edited` only for the second.
//!
//! `computed_soil_hashes` is the one query over the whole root: it re-runs on any `.soil`
//! edit, but reads only the memoised parses and hashes a few hundred bytes per definition,
//! and each definition's verdict is cut off behind it.

use super::engine::{
    Definition, Project, Reason, Resolution, def_index, module_of, short_name, sidecar_of,
    tr_summary,
};
use super::lang::hash_form::{BUILTIN_REFERENT, HashForm, soil_hash};
use super::sidecar::{DefKind, NameHash};
use super::status::Flag;
use super::tr::FileKind;
use std::collections::{BTreeMap, HashMap, HashSet};

/// A module's `_private.soil`: its helpers, each hashed on its own.
#[salsa::input(debug)]
pub struct PrivateFile {
    /// The module's folder (`""` at the root).
    #[returns(ref)]
    pub module: String,
    #[returns(ref)]
    pub bytes: Vec<u8>,
}

/// Why a `.soil` file cannot be hashed: where, and what is wrong there.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct SoilError {
    /// Root-relative.
    pub file: String,
    pub line: u32,
    pub column: u32,
    pub code: String,
    pub message: String,
}

/// What the engine makes of a definition's `.soil` (see [`own_forms`]): the unit the
/// shell's cache keeps.
pub type SoilKnown = Result<Vec<HashForm>, SoilError>;

impl std::fmt::Display for SoilError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}:{}: {} [{}]",
            self.file, self.line, self.column, self.message, self.code
        )
    }
}

fn forms_of(file: String, bytes: &[u8]) -> Result<Vec<HashForm>, SoilError> {
    let text = std::str::from_utf8(bytes).map_err(|e| SoilError {
        file: file.clone(),
        line: 0,
        column: 0,
        code: "soil-not-utf8".into(),
        message: format!("invalid UTF-8 at byte {}", e.valid_up_to()),
    })?;
    super::lang::hash_forms(text, &file).map_err(|e| SoilError {
        file,
        line: e.at.line,
        column: e.at.column,
        code: e.code.into(),
        message: e.message,
    })
}

/// The hash forms of a definition's own `.soil`; `None` without one.
pub fn own_forms(db: &dyn salsa::Database, def: Definition) -> Option<&SoilKnown> {
    match def.soil_known(db) {
        Some(known) => Some(&**known),
        None => own_forms_from_bytes(db, def).as_ref(),
    }
}

/// Parses the `.soil` bytes into hash forms.
#[salsa::tracked(returns(ref))]
pub fn own_forms_from_bytes(db: &dyn salsa::Database, def: Definition) -> Option<SoilKnown> {
    let bytes = def.soil(db).as_ref()?;
    Some(forms_of(format!("{}.soil", def.path(db)), bytes))
}

/// The hash forms of a module's private helpers.
#[salsa::tracked(returns(ref))]
pub fn private_forms(
    db: &dyn salsa::Database,
    file: PrivateFile,
) -> Result<Vec<HashForm>, SoilError> {
    forms_of(private_path(file.module(db)), file.bytes(db))
}

fn private_path(module: &str) -> String {
    if module.is_empty() {
        "_private.soil".into()
    } else {
        format!("{module}/_private.soil")
    }
}

/// The user types by name, with their `formal` hash: a type edge's referent. Builtin types
/// (`List`, `F64`, …) are not here; they are the language's and edge nowhere.
#[salsa::tracked(returns(ref))]
pub fn user_types(db: &dyn salsa::Database) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for &def in Project::get(db).definitions(db) {
        if let Some(Ok(tr)) = tr_summary(db, def)
            && tr.kind == FileKind::Type
        {
            out.insert(tr.name.clone(), tr.hashes.formal.to_string());
        }
    }
    out
}

/// Only functions are lowered to a `.soil` file of their own; the kind is the spec's, or
/// the sidecar's without a readable spec.
pub fn is_function(db: &dyn salsa::Database, def: Definition) -> bool {
    match tr_summary(db, def) {
        Some(Ok(tr)) => tr.kind == FileKind::Function,
        _ => sidecar_of(db, def).is_some_and(|s| s.kind == DefKind::Function),
    }
}

/// The edges of one definition, resolved: what its hash is computed over, and the
/// `calls` and `private_helpers` trellis records with it.
struct Resolved {
    edges: Vec<(String, String)>,
    calls: Vec<NameHash>,
    helpers: Vec<NameHash>,
}

/// Resolves the references of `form` (in `module`; `callees`: the names its sidecar
/// records as callees, never taken for builtins), each node's hash from `hash_of`.
fn resolve_edges(
    db: &dyn salsa::Database,
    form: &HashForm,
    module: &str,
    callees: &[&str],
    mut hash_of: impl FnMut(&str) -> Result<String, String>,
) -> Result<Resolved, String> {
    let mut out = Resolved {
        edges: type_edges(db, form),
        calls: Vec::new(),
        helpers: Vec::new(),
    };
    for (name, referent) in referents(db, form, module) {
        match referent {
            Referent::Builtin if callees.contains(&name.as_str()) => {
                return Err(format!("callee `{name}` resolves to no definition"));
            }
            Referent::Builtin => out.edges.push((name, BUILTIN_REFERENT.to_owned())),
            Referent::Unresolved(why) => return Err(why),
            Referent::Node { key, helper } => {
                let hash = hash_of(&key)?;
                out.edges.push((name.clone(), hash.clone()));
                let list = if helper {
                    &mut out.helpers
                } else {
                    &mut out.calls
                };
                list.push(NameHash { name, hash });
            }
        }
    }
    out.calls.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// Node keys: a definition by its path, a helper as `private:<module>/<name>`.
fn helper_key(module: &str, name: &str) -> String {
    format!("private:{module}/{name}")
}

/// Every hash the `.soil` files determine: each lowered definition by its path, each
/// private helper by its helper key; an error names what kept one from being computed (a
/// file that does not parse, a callee without a `.soil`, a cycle).
#[salsa::tracked(returns(ref))]
pub fn computed_soil_hashes(db: &dyn salsa::Database) -> HashMap<String, Result<String, String>> {
    let project = Project::get(db);
    let mut nodes: HashMap<String, Node> = HashMap::new();
    for &def in project.definitions(db) {
        let Some(forms) = own_forms(db, def).filter(|_| is_function(db, def)) else {
            continue;
        };
        let path = def.path(db);
        let name = def_name(db, def);
        let form = match forms {
            Err(e) => Err(e.to_string()),
            Ok(forms) => forms
                .iter()
                .find(|f| f.name == name)
                .ok_or_else(|| format!("{path}.soil defines no `{name}`")),
        };
        let callees = sidecar_of(db, def)
            .and_then(|s| s.lowering.as_ref())
            .map(|l| l.calls.iter().map(|c| c.name.as_str()).collect())
            .unwrap_or_default();
        nodes.insert(
            path.clone(),
            Node {
                form,
                module: module_of(path).to_owned(),
                callees,
            },
        );
    }
    for &file in project.private_files(db) {
        let module = file.module(db);
        match private_forms(db, file) {
            Ok(forms) => {
                for f in forms {
                    let node = Node {
                        form: Ok(f),
                        module: module.clone(),
                        callees: Vec::new(),
                    };
                    nodes.insert(helper_key(module, &f.name), node);
                }
            }
            // The helpers cannot be named; their users find them missing and say why.
            Err(e) => {
                let node = Node {
                    form: Err(e.to_string()),
                    module: module.clone(),
                    callees: Vec::new(),
                };
                nodes.insert(format!("private-file:{module}"), node);
            }
        }
    }
    let mut hasher = Hasher {
        db,
        nodes: &nodes,
        done: HashMap::new(),
        on_path: HashSet::new(),
    };
    let keys: Vec<String> = nodes.keys().cloned().collect();
    for key in keys {
        hasher.hash(&key);
    }
    hasher.done
}

/// A definition or helper to hash.
struct Node<'a> {
    /// Its hash form, or why there is none.
    form: Result<&'a HashForm, String>,
    /// The module it resolves names in.
    module: String,
    /// The callees its sidecar records: such a name is never taken for a builtin.
    callees: Vec<&'a str>,
}

struct Hasher<'a> {
    db: &'a dyn salsa::Database,
    nodes: &'a HashMap<String, Node<'a>>,
    done: HashMap<String, Result<String, String>>,
    on_path: HashSet<String>,
}

/// What a free name refers to.
enum Referent {
    /// A node of the graph: a lowered definition or a helper.
    Node {
        key: String,
        helper: bool,
    },
    Builtin,
    Unresolved(String),
}

/// Resolves the free names of `form` (in `module`) the way trellis's renamer does: a
/// `_name` is the module's helper; a name the root defines is that definition; anything
/// else is a builtin.
fn referents(db: &dyn salsa::Database, form: &HashForm, module: &str) -> Vec<(String, Referent)> {
    let index = def_index(db);
    // Resolution starts from the module, as from any definition in it.
    let from = if module.is_empty() {
        "_".to_owned()
    } else {
        format!("{module}/_")
    };
    let mut out = Vec::new();
    for name in &form.names {
        let referent = if name.starts_with('_') {
            Referent::Node {
                key: helper_key(module, name),
                helper: true,
            }
        } else {
            match index.resolve(&from, name) {
                Resolution::Found(path) => Referent::Node {
                    key: path,
                    helper: false,
                },
                Resolution::Missing => Referent::Builtin,
                Resolution::Ambiguous(many) => Referent::Unresolved(format!(
                    "`{name}` is defined in several modules ({})",
                    many.join(", ")
                )),
            }
        };
        out.push((name.clone(), referent));
    }
    for name in &form.qualified {
        let path = name.replace("::", "/");
        let referent = match index.resolve(&from, &path) {
            Resolution::Found(path) => Referent::Node {
                key: path,
                helper: false,
            },
            _ => Referent::Unresolved(format!("`{name}` names no definition")),
        };
        out.push((name.clone(), referent));
    }
    for name in &form.type_functions {
        out.push((name.clone(), Referent::Builtin));
    }
    out
}

/// The type edges of `form`: user types by their `formal` hash.
fn type_edges(db: &dyn salsa::Database, form: &HashForm) -> Vec<(String, String)> {
    let types = user_types(db);
    form.types
        .iter()
        .filter_map(|t| types.get(t).map(|formal| (t.clone(), formal.clone())))
        .collect()
}

impl Hasher<'_> {
    /// Hashes `root` and everything below it, callees first. Depth-first with a stack of
    /// its own: a chain of callees is as deep as a root's call graph, too deep for the
    /// thread's stack on a large root. A node is on the current path from when it is
    /// expanded until it is hashed, so a callee met again on the path closes a cycle.
    fn hash(&mut self, root: &str) {
        let mut stack = vec![(root.to_owned(), false)];
        while let Some((key, expanded)) = stack.pop() {
            if self.done.contains_key(&key) {
                continue;
            }
            let node = match self.nodes.get(&key) {
                Some(node) => node,
                None => {
                    let why = match key.strip_prefix("private:") {
                        Some(helper) => format!("no private helper {helper}"),
                        None => format!("{key} has no .soil"),
                    };
                    self.done.insert(key, Err(why));
                    continue;
                }
            };
            let form = match &node.form {
                Ok(form) => *form,
                Err(why) => {
                    self.done.insert(key, Err(why.clone()));
                    continue;
                }
            };
            if !expanded {
                self.on_path.insert(key.clone());
                stack.push((key, true));
                for (_, referent) in referents(self.db, form, &node.module) {
                    if let Referent::Node { key: callee, .. } = referent
                        && !self.done.contains_key(&callee)
                        && !self.on_path.contains(&callee)
                    {
                        stack.push((callee, false));
                    }
                }
                continue;
            }
            let done = &self.done;
            let hash_of = |callee: &str| match done.get(callee) {
                Some(result) => result.clone(),
                None => Err(format!(
                    "{key} and {callee} call each other: trellis hashes callees first and \
                     cannot order them"
                )),
            };
            let resolved = resolve_edges(self.db, form, &node.module, &node.callees, hash_of);
            let result = resolved.map(|r| soil_hash(&form.text, &r.edges).to_string());
            self.on_path.remove(&key);
            self.done.insert(key, result);
        }
    }
}

/// The `soil_hash` a definition's files give now, if it can be computed.
pub fn computed_soil_hash(db: &dyn salsa::Database, def: Definition) -> Option<String> {
    computed_soil_hashes(db)
        .get(def.path(db).as_str())?
        .as_ref()
        .ok()
        .cloned()
}

/// The name a definition's `.soil` defines: its spec's front-matter `name` (what trellis
/// looks it up by), else its file name.
fn def_name(db: &dyn salsa::Database, def: Definition) -> String {
    match tr_summary(db, def) {
        Some(Ok(tr)) if !tr.name.is_empty() => tr.name.clone(),
        _ => short_name(def.path(db)).to_owned(),
    }
}

/// What the `.soil` says about a lowered definition's recorded `soil_hash`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Verdict {
    /// Nothing to compare: no lowering, no `.soil`, or the hash is the recorded one.
    Agrees,
    /// The definition's own text changed (or cannot be read): `soil-drift`.
    Drift(Reason),
    /// Only what it refers to moved: `stale-callees`, re-anchored by `refresh`.
    CalleesMoved(Reason),
}

/// Compares the recorded `soil_hash` with the files.
#[salsa::tracked(returns(ref))]
pub fn soil_verdict(db: &dyn salsa::Database, def: Definition) -> Verdict {
    let Some(sidecar) = sidecar_of(db, def).filter(|s| s.kind == DefKind::Function) else {
        return Verdict::Agrees; // a type's Soil is its `soil-type` block, not a file
    };
    let Some(lowering) = &sidecar.lowering else {
        return Verdict::Agrees;
    };
    let Some(forms) = own_forms(db, def) else {
        return Verdict::Agrees; // soil-missing says so
    };
    let path = def.path(db);
    let reason = |flag, current: Option<String>, detail: String| Reason {
        flag,
        other: None,
        recorded: Some(lowering.soil_hash.clone()),
        current,
        detail,
    };
    let form = match forms {
        Err(e) => {
            return Verdict::Drift(reason(
                Flag::SoilDrift,
                None,
                format!("the .soil cannot be hashed: {e}"),
            ));
        }
        Ok(forms) => {
            let name = def_name(db, def);
            match forms.iter().find(|f| f.name == name) {
                Some(form) => form,
                None => {
                    return Verdict::Drift(reason(
                        Flag::SoilDrift,
                        None,
                        format!("{path}.soil defines no `{name}`"),
                    ));
                }
            }
        }
    };
    // A hash that cannot be computed (a callee without a `.soil`, a cycle trellis would
    // refuse) judges nothing: the recorded edges are still compared with the callees'
    // sidecars, as without any `.soil`.
    let Some(Ok(computed)) = computed_soil_hashes(db).get(path.as_str()) else {
        return Verdict::Agrees;
    };
    if *computed == lowering.soil_hash {
        return Verdict::Agrees;
    }
    // The definition's own text, with the edges the sidecar recorded for callees and
    // helpers and the current ones for builtins and types (which move only with the
    // toolchain or a type's spec).
    let mut edges = type_edges(db, form);
    for (name, referent) in referents(db, form, module_of(path)) {
        if let Referent::Builtin = referent {
            edges.push((name, BUILTIN_REFERENT.to_owned()));
        }
    }
    edges.extend(
        lowering
            .calls
            .iter()
            .chain(&lowering.private_helpers)
            .map(|c| (c.name.clone(), c.hash.clone())),
    );
    let own = soil_hash(&form.text, &edges).to_string();
    let current = Some(computed.clone());
    if own != lowering.soil_hash {
        Verdict::Drift(reason(
            Flag::SoilDrift,
            current,
            "the .soil was edited since it was lowered (a renamed local would not count)".into(),
        ))
    } else {
        // Name what moved: the first callee (by path, for `why` to follow) or helper whose
        // hash is not the recorded one.
        let recorded = |name: &str| {
            lowering
                .calls
                .iter()
                .chain(&lowering.private_helpers)
                .find(|c| c.name == name)
                .map(|c| c.hash.as_str())
        };
        let now = current_edges(db, def, form);
        let moved = now
            .iter()
            .flat_map(|r| r.calls.iter().chain(&r.helpers))
            .find(|c| recorded(&c.name) != Some(c.hash.as_str()));
        let other = moved.map(|c| match def_index(db).resolve(path, &c.name) {
            Resolution::Found(callee) => callee,
            _ => c.name.clone(),
        });
        let detail = match &other {
            Some(name) => format!("the definition is as lowered, but {name} moved under it"),
            None => "the definition is as lowered, but what it refers to moved".into(),
        };
        Verdict::CalleesMoved(Reason {
            other,
            ..reason(Flag::StaleCallees, current, detail)
        })
    }
}

/// The edges of a definition's `form` as the files give them now, from the computed
/// hashes of the root.
fn current_edges(db: &dyn salsa::Database, def: Definition, form: &HashForm) -> Option<Resolved> {
    let hashes = computed_soil_hashes(db);
    let callees: Vec<&str> = sidecar_of(db, def)
        .and_then(|s| s.lowering.as_ref())
        .map(|l| l.calls.iter().map(|c| c.name.as_str()).collect())
        .unwrap_or_default();
    let hash_of = |key: &str| {
        hashes
            .get(key)
            .cloned()
            .unwrap_or_else(|| Err(key.to_owned()))
    };
    resolve_edges(db, form, module_of(def.path(db)), &callees, hash_of).ok()
}

/// The lowering `refresh` records for a definition whose `.soil` moved: the computed hash
/// and edges, `hand-edited` when its own text changed. `None` when nothing is to change or
/// the hash cannot be computed.
pub fn re_anchored(db: &dyn salsa::Database, def: Definition) -> Option<super::sidecar::Lowering> {
    let lowering = sidecar_of(db, def)?.lowering.as_ref()?;
    let verdict = soil_verdict(db, def);
    if *verdict == Verdict::Agrees {
        return None;
    }
    let computed = computed_soil_hash(db, def)?;
    let name = def_name(db, def);
    let form = own_forms(db, def)?
        .as_ref()
        .ok()?
        .iter()
        .find(|f| f.name == name)?;
    let edges = current_edges(db, def, form)?;
    let mut next = lowering.clone();
    next.soil_hash = computed;
    next.calls = edges.calls;
    next.private_helpers = edges.helpers;
    if matches!(verdict, Verdict::Drift(_)) {
        next.provenance = super::sidecar::LoweringProvenance::HandEdited;
    }
    Some(next)
}
