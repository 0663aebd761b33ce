//! Where the bytes end: what the engine reads of each definition's `.tr` and `.lock` (and
//! whether its `.soil` exists), from the bytes or from the value kept from an earlier run.
//! What is computed from these queries is computed the same way either way.

use super::super::sidecar::{RecordedHash, Sidecar, SidecarError};
use super::super::spec_hash::SpecHashes;
use super::super::summary::TrSummary;
use super::super::tr;
use super::{Definition, InputError, file_name};
use crate::hash::ContentHash;

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
    Some(tr_summary_of(def.path(db), bytes))
}

/// What [`tr_summary`] makes of the `.tr` bytes of the definition `path`: a pure function,
/// which the shell also calls as it reads a file, so that a one-shot run holds the
/// summary and never the bytes.
pub fn tr_summary_of(path: &str, bytes: &[u8]) -> Result<TrSummary, InputError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Ok(TrSummary::of(&tr::parse(&file_name(path), text), text)),
        Err(e) => {
            let (line, column, message) = crate::text::invalid_utf8(bytes, &e);
            Err(InputError {
                message,
                line: Some(line),
                column: Some(column),
            })
        }
    }
}

/// The three hashes recomputed from the current `.tr`: read from its summary, not
/// memoised (the flags read the summary too; [`formal_hash_now`] is the firewall other
/// definitions depend on).
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
    Some(sidecar_of_bytes(bytes))
}

/// What [`parsed_sidecar`] makes of a `.lock`'s bytes (see [`tr_summary_of`]).
pub fn sidecar_of_bytes(bytes: &[u8]) -> Result<Sidecar, SidecarError> {
    match std::str::from_utf8(bytes) {
        Ok(text) => crate::soil::sidecar::parse(text),
        Err(e) => {
            let (line, column, message) = crate::text::invalid_utf8(bytes, &e);
            Err(SidecarError {
                path: String::new(),
                line: Some(line),
                column: Some(column),
                message,
            })
        }
    }
}

/// The sidecar if it exists and reads.
pub fn sidecar_of(db: &dyn salsa::Database, def: Definition) -> Option<&Sidecar> {
    parsed_sidecar(db, def)?.as_ref().ok()
}

/// The callee side of `calls[].hash`: what callers were checked against.
#[salsa::tracked(returns(ref))]
pub fn lowered_soil_hash(db: &dyn salsa::Database, def: Definition) -> Option<RecordedHash> {
    sidecar_of(db, def)?.lowering.as_ref().map(|l| l.soil_hash)
}

/// Whether `f.soil` exists: what the flags read of the file directly, so that an edit of
/// its bytes reaches them only through the hash (`soil_hash::soil_verdict`).
#[salsa::tracked(returns(copy))]
pub fn has_soil(db: &dyn salsa::Database, def: Definition) -> bool {
    def.soil(db).is_some() || def.soil_known(db).is_some()
}
