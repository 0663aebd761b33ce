//! The derived status of a definition (spec §5): the typed/tested/verified ladder read off
//! its sidecar, and the flags that say where the sidecar and the world disagree. Neither is
//! ever stored.

use super::sidecar::{
    ClauseMap, ClauseState, DefKind, RefinementSummary, Refinements, Sidecar, TestResult, TypeCheck,
};
use std::fmt;

/// The ladder. Each rung implies the ones below it; `accepted` is reported beside it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Ladder {
    /// No sidecar.
    Unlocked,
    /// Nothing lowered and nothing checked yet (or, in the older header and type shape,
    /// `lowering: null`).
    Unlowered,
    /// Lowered, but no `checks` recorded yet (trellis writes none until it checks).
    Unchecked,
    /// `checks.types == "error"` (a module header's `checks.exports`).
    Error,
    /// Holes left in the Soil: never tested, never accepted.
    Partial,
    /// A module header whose exports check `ok`.
    Ok,
    /// Types ok, no holes; a type whose check is `ok`.
    Typed,
    /// Typed, at least one test row, every row `pass` or `xfail`.
    Tested,
    /// Tested, and every refinement clause (or type invariant) proven.
    Verified,
}

impl Ladder {
    pub fn as_str(self) -> &'static str {
        match self {
            Ladder::Unlocked => "unlocked",
            Ladder::Unlowered => "unlowered",
            Ladder::Unchecked => "unchecked",
            Ladder::Error => "error",
            Ladder::Partial => "partial",
            Ladder::Ok => "ok",
            Ladder::Typed => "typed",
            Ladder::Tested => "tested",
            Ladder::Verified => "verified",
        }
    }

    /// Reads the ladder off a sidecar (or its absence), as trellis does: no `checks` is
    /// `unlowered` or `unchecked`; a module header's exports check is `ok` or `error`, a
    /// type's check (in trellis's shape, without `lowering`) `typed` or `error`; a
    /// function's holes make it `partial` before its types make it `error`.
    pub fn of(sidecar: Option<&Sidecar>) -> Ladder {
        let Some(s) = sidecar else {
            return Ladder::Unlocked;
        };
        let ok_or_error = |check: TypeCheck, ok: Ladder| match check {
            TypeCheck::Ok => ok,
            TypeCheck::Error => Ladder::Error,
        };
        if !s.present.checks {
            return match s.lowering {
                None => Ladder::Unlowered,
                Some(_) => Ladder::Unchecked,
            };
        }
        if let Some(exports) = s.checks.exports {
            return ok_or_error(exports, Ladder::Ok);
        }
        if s.kind == DefKind::Type
            && !s.present.lowering
            && let Some(types) = s.checks.types
        {
            return ok_or_error(types, Ladder::Typed);
        }
        // A function's rung comes from its checks whether or not a lowering is recorded,
        // as trellis derives it; a header or type in the older shape, which carries
        // `lowering: null`, has not been lowered.
        if s.lowering.is_none() && s.kind != DefKind::Function {
            return Ladder::Unlowered;
        }
        if s.checks.holes.is_some_and(|h| h > 0) {
            return Ladder::Partial;
        }
        if s.checks.types == Some(TypeCheck::Error) {
            return Ladder::Error;
        }
        let tested = !s.tests.is_empty()
            && s.tests
                .iter()
                .all(|t| matches!(t.result, TestResult::Pass | TestResult::Xfail));
        if !tested {
            return Ladder::Typed;
        }
        if all_proven(s) {
            Ladder::Verified
        } else {
            Ladder::Tested
        }
    }
}

impl fmt::Display for Ladder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Every clause proven, and at least one clause: an empty set proves nothing, so only
/// `tested` means correct there (seed §8).
fn all_proven(s: &Sidecar) -> bool {
    let clauses_proven =
        |m: &ClauseMap| !m.is_empty() && m.values().all(|c| c == ClauseState::Proven);
    match &s.checks.refinements {
        Refinements::Clauses(m) => clauses_proven(m),
        Refinements::Prototype(summary) => *summary == RefinementSummary::Proven,
        Refinements::Absent => s.checks.invariants.as_ref().is_some_and(clauses_proven),
    }
}

/// Where a sidecar disagrees with the spec, the callees, the oracles or the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Flag {
    NoLock,
    FormalStale,
    TestStale,
    ProseStale,
    ReviewSuggested,
    StaleCallees,
    StaleOracle,
    MissingCallee,
    SoilMissing,
    BlocksDrift,
    /// A function with no lowering recorded but a `.soil` file beside its spec.
    SoilUntracked,
    /// The labels of the decisions in scope (the project's and the module's) are no longer
    /// those the lowering was made under.
    DecisionScopeStale,
    /// A decision the lowering applied changed or went away; shown with its label,
    /// `decision-stale:<label>`.
    DecisionStale,
    /// The `.soil` file's own text changed since it was lowered (a hand edit).
    SoilDrift,
}

impl Flag {
    pub fn as_str(self) -> &'static str {
        match self {
            Flag::NoLock => "no-lock",
            Flag::FormalStale => "formal-stale",
            Flag::TestStale => "test-stale",
            Flag::ProseStale => "prose-stale",
            Flag::ReviewSuggested => "review-suggested",
            Flag::StaleCallees => "stale-callees",
            Flag::StaleOracle => "stale-oracle",
            Flag::MissingCallee => "missing-callee",
            Flag::SoilMissing => "soil-missing",
            Flag::BlocksDrift => "blocks-drift",
            Flag::SoilUntracked => "soil-untracked",
            Flag::DecisionScopeStale => "decision-scope-stale",
            Flag::DecisionStale => "decision-stale",
            Flag::SoilDrift => "soil-drift",
        }
    }
}

impl fmt::Display for Flag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soil::sidecar::{
        Lowering, LoweringProvenance, Origin, RecordedHash, SpecHashes, TestRow, Tier, Versions,
        default_for,
    };

    fn created(kind: DefKind) -> Sidecar {
        let h = |c: char| -> RecordedHash {
            format!("sha256:{}", c.to_string().repeat(64))
                .parse()
                .unwrap()
        };
        let hashes = SpecHashes {
            formal: h('1'),
            test: (kind == DefKind::Function).then(|| h('2')),
            prose: h('3'),
        };
        default_for("f", kind, hashes, Vec::new(), Versions::default())
    }

    fn checked(mut s: Sidecar, types: TypeCheck, holes: u32, results: &[TestResult]) -> Sidecar {
        s.present.checks = true;
        s.checks.types = Some(types);
        s.checks.holes = Some(holes);
        s.checks.refinements = Refinements::Clauses(Default::default());
        s.tests = results
            .iter()
            .enumerate()
            .map(|(i, &result)| TestRow {
                name: format!("t#{i}").into(),
                tier: Tier::Expect,
                mode: "sandboxed".into(),
                origin: Origin::Spec,
                result,
            })
            .collect();
        s
    }

    fn lowered(mut s: Sidecar) -> Sidecar {
        s.lowering = Some(Lowering {
            soil_hash: format!("sha256:{}", "4".repeat(64)).parse().unwrap(),
            provenance: LoweringProvenance::Agent,
            provider: None,
            model: None,
            private_helpers: Vec::new(),
            calls: Vec::new(),
            decisions: None,
        });
        s
    }

    #[test]
    fn the_ladder_as_trellis_derives_it() {
        use TestResult::{Fail, Pass, Xfail};
        assert_eq!(Ladder::of(None), Ladder::Unlocked);
        // As created: nothing checked.
        let f = created(DefKind::Function);
        assert_eq!(Ladder::of(Some(&f)), Ladder::Unlowered);
        assert_eq!(Ladder::of(Some(&lowered(f.clone()))), Ladder::Unchecked);
        for kind in [DefKind::Type, DefKind::Module, DefKind::Project] {
            assert_eq!(
                Ladder::of(Some(&created(kind))),
                Ladder::Unlowered,
                "{kind:?}"
            );
        }
        // A function's checks decide, lowering or not.
        let ok = |results: &[TestResult]| checked(f.clone(), TypeCheck::Ok, 0, results);
        assert_eq!(Ladder::of(Some(&ok(&[]))), Ladder::Typed);
        assert_eq!(Ladder::of(Some(&ok(&[Pass, Xfail]))), Ladder::Tested);
        assert_eq!(Ladder::of(Some(&ok(&[Pass, Fail]))), Ladder::Typed);
        assert_eq!(Ladder::of(Some(&lowered(ok(&[Pass])))), Ladder::Tested);
        let error = checked(f.clone(), TypeCheck::Error, 0, &[Pass]);
        assert_eq!(Ladder::of(Some(&error)), Ladder::Error);
        // Holes come before a type error.
        let holed = checked(f, TypeCheck::Error, 2, &[]);
        assert_eq!(Ladder::of(Some(&holed)), Ladder::Partial);
        // Module headers: exports; types in trellis's shape: types.
        let mut module = created(DefKind::Module);
        module.present.checks = true;
        module.checks.exports = Some(TypeCheck::Ok);
        assert_eq!(Ladder::of(Some(&module)), Ladder::Ok);
        module.checks.exports = Some(TypeCheck::Error);
        assert_eq!(Ladder::of(Some(&module)), Ladder::Error);
        let mut ty = created(DefKind::Type);
        ty.present.checks = true;
        ty.checks.types = Some(TypeCheck::Ok);
        assert_eq!(Ladder::of(Some(&ty)), Ladder::Typed);
        ty.checks.types = Some(TypeCheck::Error);
        assert_eq!(Ladder::of(Some(&ty)), Ladder::Error);
    }
}
