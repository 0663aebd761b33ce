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
//!
//! The inputs are in `inputs`, the queries that read the files in `files`, name resolution
//! and edges in `references`, decisions in `decisions`, and the flags and the ladder in
//! `reasons`; the path helpers every part uses are here.

mod decisions;
mod files;
mod inputs;
mod reasons;
mod references;

pub use decisions::decision_scopes;
pub use files::{
    formal_hash_now, has_soil, lowered_soil_hash, parsed_sidecar, sidecar_from_bytes, sidecar_of,
    sidecar_of_bytes, spec_hashes, tr_summary, tr_summary_from_bytes, tr_summary_of,
};
pub use inputs::{Definition, InputError, Project, external_key};
pub use reasons::{Reason, flags, ladder};
pub use references::{DefIndex, Edge, EdgeKind, Resolution, def_index, edges};

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
