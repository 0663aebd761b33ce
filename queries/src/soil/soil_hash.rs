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
use crate::hash::ContentHash;
use std::borrow::Cow;
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
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column, message) = crate::text::invalid_utf8(bytes, &e);
        SoilError {
            file: file.clone(),
            line: line as u32,
            column: column as u32,
            code: "soil-not-utf8".into(),
            message,
        }
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
    Some(own_forms_of(def.path(db), bytes))
}

/// What [`own_forms`] makes of the `.soil` bytes of the definition `path`: a pure
/// function, which the shell also calls as it reads a file (see
/// `engine::tr_summary_of`).
pub fn own_forms_of(path: &str, bytes: &[u8]) -> SoilKnown {
    forms_of(format!("{path}.soil"), bytes)
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
            out.insert(tr.name.to_string(), tr.hashes.formal.to_string());
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

/// Node keys: a definition by its path, a helper as `private:<module>/<name>`.
fn helper_key(module: &str, name: &str) -> String {
    format!("private:{module}/{name}")
}

/// A node of the hash graph with its references resolved: all its hash needs but the
/// hashes of the nodes it names. Prepared per definition, in parallel and cut off, so the
/// one root-wide query is left only the hashing in callee order.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Prepared {
    /// Its node key: the definition's path, or the helper's key.
    key: String,
    /// The hash form's text. A copy, so that the root-wide query reads one value per
    /// definition (each read is a dependency salsa records).
    text: String,
    /// Builtin and user-type edges, which need no other node.
    fixed: Vec<(String, String)>,
    /// The nodes it names: callees and helpers.
    deps: Vec<Dep>,
    /// Why it cannot be hashed whatever its callees' hashes (a name defined twice, a
    /// recorded callee that resolves nowhere, a file that does not parse).
    error: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Dep {
    /// The name as the text writes it: the edge's name.
    name: String,
    key: String,
    helper: bool,
}

impl Prepared {
    /// The edges, each node named by its hash from `hash_of`.
    fn resolve(
        &self,
        mut hash_of: impl FnMut(&str) -> Result<ContentHash, String>,
    ) -> Result<Resolved, String> {
        if let Some(why) = &self.error {
            return Err(why.clone());
        }
        let mut out = Resolved {
            edges: self.fixed.clone(),
            calls: Vec::new(),
            helpers: Vec::new(),
        };
        for dep in &self.deps {
            let hash = hash_of(&dep.key)?;
            out.edges.push((dep.name.clone(), hash.to_string()));
            let list = if dep.helper {
                &mut out.helpers
            } else {
                &mut out.calls
            };
            list.push(NameHash {
                name: dep.name.as_str().into(),
                hash: hash.into(),
            });
        }
        out.calls.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }
}

/// The edges of one node, resolved: what its hash is computed over, and the `calls` and
/// `private_helpers` trellis records with it.
struct Resolved {
    edges: Vec<(String, String)>,
    calls: Vec<NameHash>,
    helpers: Vec<NameHash>,
}

/// Resolves the references of `form` (in `module`; `callees`: the names a sidecar records
/// as callees, never taken for builtins) the way trellis's renamer does: a `_name` is the
/// module's helper, a name the root defines is that definition, anything else a builtin.
fn prepare(
    db: &dyn salsa::Database,
    key: String,
    form: &HashForm,
    module: &str,
    callees: &[&str],
) -> Prepared {
    let index = def_index(db);
    // Resolution starts from the module, as from any definition in it.
    let from = if module.is_empty() {
        "_".to_owned()
    } else {
        format!("{module}/_")
    };
    let types = user_types(db);
    let mut out = Prepared {
        key,
        text: form.text.clone(),
        fixed: form
            .types
            .iter()
            .filter_map(|t| types.get(t).map(|formal| (t.clone(), formal.clone())))
            .collect(),
        deps: Vec::new(),
        error: None,
    };
    let builtin = |name: &str| (name.to_owned(), BUILTIN_REFERENT.to_owned());
    for name in &form.names {
        if name.starts_with('_') {
            out.deps.push(Dep {
                name: name.clone(),
                key: helper_key(module, name),
                helper: true,
            });
            continue;
        }
        match index.resolve(&from, name) {
            Resolution::Found(path) => out.deps.push(Dep {
                name: name.clone(),
                key: path,
                helper: false,
            }),
            Resolution::Missing if callees.contains(&name.as_str()) => {
                out.error = Some(format!("callee `{name}` resolves to no definition"));
            }
            Resolution::Missing => out.fixed.push(builtin(name)),
            Resolution::Ambiguous(many) => {
                out.error = Some(format!(
                    "`{name}` is defined in several modules ({})",
                    many.join(", ")
                ));
            }
        }
    }
    for name in &form.qualified {
        match index.resolve(&from, &name.replace("::", "/")) {
            Resolution::Found(path) => out.deps.push(Dep {
                name: name.clone(),
                key: path,
                helper: false,
            }),
            _ => out.error = Some(format!("`{name}` names no definition")),
        }
    }
    out.fixed
        .extend(form.type_functions.iter().map(|name| builtin(name)));
    // Kept for the run (memoised): at the length it holds, without the room pushing left.
    out.fixed.shrink_to_fit();
    out.deps.shrink_to_fit();
    out
}

/// A lowered definition prepared for hashing; `None` for anything but a function with a
/// `.soil`, an error for a `.soil` that does not parse or lacks the definition.
#[salsa::tracked(returns(ref))]
pub fn prepared(db: &dyn salsa::Database, def: Definition) -> Option<Result<Prepared, String>> {
    let forms = own_forms(db, def).filter(|_| is_function(db, def))?;
    let path = def.path(db);
    let name = def_name(db, def);
    let forms = match forms {
        Ok(forms) => forms,
        Err(e) => return Some(Err(e.to_string())),
    };
    let Some(i) = forms.iter().position(|f| f.name == name) else {
        return Some(Err(format!("{path}.soil defines no `{name}`")));
    };
    let callees: Vec<&str> = sidecar_of(db, def)
        .and_then(|s| s.lowering.as_ref())
        .map(|l| l.calls.iter().map(|c| c.name.as_str()).collect())
        .unwrap_or_default();
    Some(Ok(prepare(
        db,
        path.clone(),
        &forms[i],
        module_of(path),
        &callees,
    )))
}

/// A module's helpers prepared for hashing, by helper key; none when the file does not
/// parse (their users then name them missing, and `check` names the file).
#[salsa::tracked(returns(ref))]
pub fn prepared_helpers(db: &dyn salsa::Database, file: PrivateFile) -> Vec<Prepared> {
    let module = file.module(db);
    let Ok(forms) = private_forms(db, file) else {
        return Vec::new();
    };
    forms
        .iter()
        .map(|form| prepare(db, helper_key(module, &form.name), form, module, &[]))
        .collect()
}

/// Every hash the `.soil` files determine: each lowered definition by its path, each
/// private helper by its helper key; an error names what kept one from being computed (a
/// file that does not parse, a callee without a `.soil`, a cycle).
#[salsa::tracked(returns(ref))]
pub fn computed_soil_hashes(
    db: &dyn salsa::Database,
) -> HashMap<String, Result<ContentHash, String>> {
    let project = Project::get(db);
    let mut nodes: HashMap<&str, Result<&Prepared, &String>> = HashMap::new();
    let mut unhashable: HashMap<String, Result<ContentHash, String>> = HashMap::new();
    for &def in project.definitions(db) {
        match prepared(db, def) {
            Some(Ok(prepared)) => {
                nodes.insert(prepared.key.as_str(), Ok(prepared));
            }
            Some(Err(why)) => {
                unhashable.insert(def.path(db).clone(), Err(why.clone()));
            }
            None => {}
        }
    }
    for &file in project.private_files(db) {
        for prepared in prepared_helpers(db, file) {
            nodes.insert(prepared.key.as_str(), Ok(prepared));
        }
    }
    let mut hasher = Hasher {
        nodes: &nodes,
        done: HashMap::with_capacity(nodes.len()),
        on_path: HashSet::new(),
    };
    for key in nodes.keys() {
        hasher.hash(key);
    }
    let mut done = hasher.done;
    done.extend(unhashable);
    done
}

struct Hasher<'a> {
    nodes: &'a HashMap<&'a str, Result<&'a Prepared, &'a String>>,
    done: HashMap<String, Result<ContentHash, String>>,
    on_path: HashSet<String>,
}

impl Hasher<'_> {
    /// One node's hash, its callees' hashes done (the fixed edges borrowed, a callee's hash
    /// written as the text the edge hashes: this runs once per definition of the root,
    /// serially).
    fn hash_one(&self, key: &str, node: &Prepared) -> Result<ContentHash, String> {
        if let Some(why) = &node.error {
            return Err(why.clone());
        }
        let mut edges: Vec<(&str, Cow<str>)> =
            Vec::with_capacity(node.fixed.len() + node.deps.len());
        edges.extend(
            node.fixed
                .iter()
                .map(|(n, r)| (n.as_str(), Cow::Borrowed(r.as_str()))),
        );
        for dep in &node.deps {
            match self.done.get(&dep.key) {
                Some(Ok(hash)) => edges.push((&dep.name, Cow::Owned(hash.to_string()))),
                Some(Err(why)) => return Err(why.clone()),
                None => {
                    return Err(format!(
                        "{key} and {} call each other: trellis hashes callees first and \
                         cannot order them",
                        dep.key
                    ));
                }
            }
        }
        Ok(soil_hash(&node.text, &edges))
    }

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
            let node = match self.nodes.get(key.as_str()) {
                Some(Ok(node)) => *node,
                Some(Err(why)) => {
                    self.done.insert(key, Err((*why).clone()));
                    continue;
                }
                None => {
                    let why = match key.strip_prefix("private:") {
                        Some(helper) => format!("no private helper {helper}"),
                        None => format!("{key} has no .soil"),
                    };
                    self.done.insert(key, Err(why));
                    continue;
                }
            };
            if !expanded {
                self.on_path.insert(key.clone());
                // Below its callees: popped once they are done.
                stack.push((key, true));
                for dep in &node.deps {
                    if !self.done.contains_key(&dep.key) && !self.on_path.contains(&dep.key) {
                        stack.push((dep.key.clone(), false));
                    }
                }
                continue;
            }
            let result = self.hash_one(&key, node);
            self.on_path.remove(&key);
            self.done.insert(key, result);
        }
    }
}

/// The `soil_hash` a definition's files give now, if it can be computed.
pub fn computed_soil_hash(db: &dyn salsa::Database, def: Definition) -> Option<ContentHash> {
    computed_soil_hashes(db)
        .get(def.path(db).as_str())?
        .as_ref()
        .ok()
        .copied()
}

/// The name a definition's `.soil` defines: its spec's front-matter `name` (what trellis
/// looks it up by), else its file name.
fn def_name(db: &dyn salsa::Database, def: Definition) -> String {
    match tr_summary(db, def) {
        Some(Ok(tr)) if !tr.name.is_empty() => tr.name.to_string(),
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
    let path = def.path(db);
    let reason = |flag, current: Option<String>, detail: String| Reason {
        flag,
        other: None,
        recorded: Some(lowering.soil_hash.to_string()),
        current,
        detail,
    };
    let prepared = match prepared(db, def) {
        None => return Verdict::Agrees, // no `.soil`: soil-missing says so
        Some(Err(why)) => {
            let detail = format!("the .soil cannot be hashed: {why}");
            return Verdict::Drift(reason(Flag::SoilDrift, None, detail));
        }
        Some(Ok(prepared)) => prepared,
    };
    // A hash that cannot be computed (a callee without a `.soil`, a cycle trellis would
    // refuse) judges nothing: the recorded edges are still compared with the callees'
    // sidecars, as without any `.soil`.
    let Some(Ok(computed)) = computed_soil_hashes(db).get(path.as_str()) else {
        return Verdict::Agrees;
    };
    if lowering.soil_hash.is(computed) {
        return Verdict::Agrees;
    }
    // The definition's own text, with the edges the sidecar recorded for callees and
    // helpers and the current ones for builtins and types (which move only with the
    // toolchain or a type's spec).
    let mut edges = prepared.fixed.clone();
    edges.extend(
        lowering
            .calls
            .iter()
            .chain(&lowering.private_helpers)
            .map(|c| (c.name.to_string(), c.hash.to_string())),
    );
    let own = soil_hash(&prepared.text, &edges);
    let current = Some(computed.to_string());
    if !lowering.soil_hash.is(&own) {
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
                .map(|c| c.hash)
        };
        let now = current_edges(db, prepared);
        let moved = now
            .iter()
            .flat_map(|r| r.calls.iter().chain(&r.helpers))
            .find(|c| recorded(&c.name) != Some(c.hash));
        let other = moved.map(|c| match def_index(db).resolve(path, &c.name) {
            Resolution::Found(callee) => callee,
            _ => c.name.to_string(),
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

/// The edges of a prepared node as the files give them now, from the computed hashes of
/// the root.
fn current_edges(db: &dyn salsa::Database, prepared: &Prepared) -> Option<Resolved> {
    let hashes = computed_soil_hashes(db);
    let hash_of = |key: &str| {
        hashes
            .get(key)
            .cloned()
            .unwrap_or_else(|| Err(key.to_owned()))
    };
    prepared.resolve(hash_of).ok()
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
    let edges = current_edges(db, prepared(db, def).as_ref()?.as_ref().ok()?)?;
    let mut next = lowering.clone();
    next.soil_hash = computed.into();
    next.calls = edges.calls;
    next.private_helpers = edges.helpers;
    if matches!(verdict, Verdict::Drift(_)) {
        next.provenance = super::sidecar::LoweringProvenance::HandEdited;
    }
    Some(next)
}
