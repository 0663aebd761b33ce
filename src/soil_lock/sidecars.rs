//! Writing sidecars: what `refresh` writes for one definition, shared by the command and
//! the language server's "refresh" action.

use super::root::Root;
use crate::Failure;
use crate::fsutil::{Replaced, replace_if_still};
use lockgraph_queries::soil::engine::{self, Definition};
use lockgraph_queries::soil::refresh::{self, Refreshed};
use lockgraph_queries::soil::sidecar::{self, Versions};

/// What refreshing one definition did.
pub enum Outcome {
    /// No readable spec: nothing to anchor to.
    Skipped,
    /// Its sidecar cannot be read; left untouched.
    Unreadable(String),
    Written,
    Unchanged,
    /// Saved since the run read it: the saved version is kept.
    Changed,
}

/// Writes what `refresh::refreshed` makes of `def` when its bytes differ from the file's,
/// atomically, and only if the file still holds what the database read.
pub fn refresh_one(root: &Root, def: Definition, versions: &Versions) -> Result<Outcome, Failure> {
    let next = match refresh::refreshed(&root.db, def, versions) {
        Refreshed::Skipped => return Ok(Outcome::Skipped),
        Refreshed::Unreadable(e) => return Ok(Outcome::Unreadable(e.to_string())),
        Refreshed::Sidecar(next) => next,
    };
    let file = root.file(def, "lock");
    // A sidecar saved since the run read it wins: refreshed from what was read, the new
    // one would undo the save.
    let read = engine::parsed_sidecar(&root.db, def).and_then(|r| r.as_ref().ok());
    let still = |now: Option<&[u8]>| match now {
        None => read.is_none(),
        Some(bytes) => std::str::from_utf8(bytes)
            .ok()
            .and_then(|text| sidecar::parse(text).ok())
            .is_some_and(|now| Some(&now) == read),
    };
    let text = sidecar::to_canonical_string(&next);
    let replaced = replace_if_still(&root.dir, &file, text.as_bytes(), still)
        .map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
    Ok(match replaced {
        Replaced::Written => Outcome::Written,
        Replaced::Unchanged => Outcome::Unchanged,
        Replaced::Changed => Outcome::Changed,
    })
}

/// Whether refreshing `def` would write its sidecar: what it would write differs from
/// what the database holds.
pub fn would_write(root: &Root, def: Definition, versions: &Versions) -> bool {
    match refresh::refreshed(&root.db, def, versions) {
        Refreshed::Sidecar(next) => {
            let text = sidecar::to_canonical_string(&next);
            def.sidecar(&root.db).as_deref() != Some(text.as_bytes())
        }
        _ => false,
    }
}
