//! What `soil-lock refresh` writes for each definition, as trellis's refresh writes it.
//! The shell only writes the result (and only when its bytes differ from the file's).
//!
//! - A definition without a sidecar gets one as trellis creates it ([`default_for`]).
//! - A prose edit is re-anchored and marked `review-suggested`.
//! - A `.soil` that moved is re-anchored: `soil_hash`, `calls` and `private_helpers` from
//!   the files, `hand-edited` when the definition's own text changed
//!   ([`soil_hash::re_anchored`]).
//! - A header's `spec.decisions` follows its `decisions` block (label → entry hash; no key
//!   without the block).
//!
//! `formal` and `test` are never touched: they stay stale until a lowering or a test run
//! vouches for the new spec. A sidecar that cannot be read is never replaced.

use super::engine::{self, Definition};
use super::sidecar::{self, DefKind, ProseState, Sidecar, SidecarError, SpecHashes, Versions};
use super::soil_hash;
use super::tr::FileKind;

/// What refresh makes of one definition.
pub enum Refreshed {
    /// No readable spec: nothing to anchor to.
    Skipped,
    /// Its sidecar cannot be read, and is left untouched.
    Unreadable(SidecarError),
    /// The sidecar as it should be now (perhaps exactly as it is).
    Sidecar(Box<Sidecar>),
}

/// What kind a definition is: its sidecar's, or else its spec's.
pub fn kind_of(db: &dyn salsa::Database, def: Definition) -> Option<DefKind> {
    if let Some(s) = engine::sidecar_of(db, def) {
        return Some(s.kind);
    }
    match engine::tr_summary(db, def) {
        Some(Ok(tr)) => Some(match tr.kind {
            FileKind::Function => DefKind::Function,
            FileKind::Type => DefKind::Type,
            FileKind::Module => DefKind::Module,
            FileKind::Project => DefKind::Project,
        }),
        _ => None,
    }
}

/// The sidecar refresh writes for `def`; `versions` is what a new one records.
pub fn refreshed(db: &dyn salsa::Database, def: Definition, versions: &Versions) -> Refreshed {
    let Some(h) = engine::spec_hashes(db, def) else {
        return Refreshed::Skipped;
    };
    let hashes = SpecHashes {
        formal: h.formal.into(),
        test: h.test.map(Into::into),
        prose: h.prose.into(),
    };
    let Some(Ok(tr)) = engine::tr_summary(db, def) else {
        return Refreshed::Skipped;
    };
    let mut next = match engine::parsed_sidecar(db, def) {
        Some(Err(e)) => return Refreshed::Unreadable(e.clone()),
        None => {
            let name = if tr.name.is_empty() {
                engine::short_name(def.path(db)).to_owned()
            } else {
                tr.name.to_string()
            };
            let kind = kind_of(db, def).unwrap_or(DefKind::Function);
            let mut fresh =
                sidecar::default_for(&name, kind, hashes, tr.blocks.clone(), versions.clone());
            fresh.spec.escape_hatches = tr.escape_hatches.clone();
            fresh
        }
        Some(Ok(current)) => {
            let mut next = current.clone();
            if next.spec.hashes.prose != hashes.prose {
                next.spec.hashes.prose = hashes.prose;
                next.spec.prose_state = ProseState::ReviewSuggested;
            }
            if let Some(lowering) = soil_hash::re_anchored(db, def) {
                next.lowering = Some(lowering);
            }
            next
        }
    };
    if matches!(next.kind, DefKind::Module | DefKind::Project) {
        next.spec.decisions = tr
            .decisions
            .as_ref()
            .map(|entries| entries.iter().cloned().collect());
    }
    Refreshed::Sidecar(Box::new(next))
}
