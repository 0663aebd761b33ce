//! Decisions: each scope's current entries, read from the headers, and the decision
//! flags of a lowering, checked against them.

use super::super::sidecar::{Scalar, Sidecar};
use super::super::spec_hash;
use super::super::status::Flag;
use super::reasons::Reason;
use super::{Definition, Project, module_of, short_name, tr_summary};
use std::collections::BTreeMap;

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
pub(super) fn decision_flags(
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
    let now = spec_hash::decisions_scope_hash(&labels);
    if !decisions.scope_hash.is(&now) {
        out.push(Reason {
            flag: Flag::DecisionScopeStale,
            other: None,
            recorded: Some(decisions.scope_hash.to_string()),
            current: Some(now.to_string()),
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
