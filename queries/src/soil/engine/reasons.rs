//! The flags of one definition with their evidence, and its ladder: what a status
//! reports, from the sidecar compared with the spec, the `.soil`, the decisions and the
//! definitions and files its edges point at.

use super::super::sidecar::{BlockAuthor, DefKind, ProseState, RecordedHash};
use super::super::soil_hash::Verdict;
use super::super::status::{Flag, Ladder};
use super::decisions::decision_flags;
use super::{
    Definition, EdgeKind, Project, Resolution, def_index, edges, formal_hash_now, has_soil,
    lowered_soil_hash, parsed_sidecar, sidecar_of, spec_hashes, tr_summary,
};
use crate::hash::ContentHash;

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
        let mut compare =
            |flag, what: &str, stored: Option<RecordedHash>, now: Option<ContentHash>| {
                let same = match (stored, now) {
                    (Some(stored), Some(now)) => stored.is(&now),
                    (stored, now) => stored.is_none() && now.is_none(),
                };
                if !same {
                    out.push(Reason {
                        flag,
                        other: None,
                        recorded: stored.map(|h| h.to_string()),
                        current: now.map(|h| h.to_string()),
                        detail: format!("the {what} part of the spec changed since it was locked"),
                    });
                }
            };
        compare(
            Flag::FormalStale,
            "formal",
            Some(stored.formal),
            Some(now.formal),
        );
        compare(Flag::TestStale, "test", stored.test, now.test);
        compare(
            Flag::ProseStale,
            "prose",
            Some(stored.prose),
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
                    recorded: Some(recorded.to_string()),
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
    let verdict = crate::soil::soil_hash::soil_verdict(db, def);
    let index = def_index(db);
    let externals = Project::get(db).externals(db);
    for edge in &edges(db, def) {
        match (&edge.kind, &edge.target) {
            (EdgeKind::Helper, _) => {}
            (EdgeKind::Call, Resolution::Found(callee)) => {
                let current = index.get(callee).and_then(|d| *lowered_soil_hash(db, d));
                if current != Some(edge.recorded) {
                    out.push(Reason {
                        flag: Flag::StaleCallees,
                        other: Some(callee.clone()),
                        recorded: Some(edge.recorded.to_string()),
                        current: current.map(|h| h.to_string()),
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
                recorded: Some(edge.recorded.to_string()),
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
                    Resolution::Found(p) => index.get(p).and_then(|d| formal_hash_now(db, d)),
                    _ => None,
                };
                if !current.is_some_and(|h| edge.recorded.is(&h)) {
                    let current = current.map(|h| h.to_string());
                    out.push(Reason {
                        flag: Flag::StaleOracle,
                        other: Some(match target {
                            Resolution::Found(p) => p.clone(),
                            _ => edge.name.clone(),
                        }),
                        recorded: Some(edge.recorded.to_string()),
                        current,
                        detail: format!(
                            "oracle definition `{}` changed its formal spec",
                            edge.name
                        ),
                    });
                }
            }
            (EdgeKind::External, Resolution::Found(key)) => {
                let current = externals.get(key).and_then(Option::as_deref);
                if current.is_none_or(|c| edge.recorded != *c) {
                    out.push(Reason {
                        flag: Flag::StaleOracle,
                        other: Some(edge.name.clone()),
                        recorded: Some(edge.recorded.to_string()),
                        current: current.map(str::to_owned),
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
