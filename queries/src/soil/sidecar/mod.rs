//! The per-definition lock sidecar (`f.lock` beside `f.tr`): model, strict reader and
//! canonical writer.
//!
//! Sidecars are written by the trellis toolchain and reviewed in pull requests, so a read
//! followed by a write must reproduce the toolchain's bytes exactly, and anything this
//! reader does not understand must be refused with the JSON path and line:column of the
//! culprit rather than silently dropped (a dropped key would vanish on the next write).
//!
//! Two generations of field shapes exist: the seed's prototype (`checks.refinements` as
//! one of `proven|demoted|none` plus a `demoted` label list, no `lowering.decisions`) and
//! v1 (a clause map plus `holes`, `lowering.decisions`). Both are read, and every optional
//! key is modelled as present-or-absent so that the writer emits the shape the file had.
//!
//! The JSON is read by a small reader of our own ([`json`]) into a tree that keeps the byte
//! offset of every key and value, and the model is built from that tree. serde's derive
//! only knows the position where the input stopped, which is wrong for the errors that
//! matter most here: a missing key (the position is the object's end, not its start), a
//! key that is only invalid given the entry's `kind` (known only after the whole object was
//! read), and enum or hash values validated after deserialising. The tree makes every
//! error carry both the path and the position of the offending key or value.
//! (The model does derive serde, but only so that the shell can keep parsed sidecars in its
//! binary cache between runs; JSON never goes through it.)
//!
//! Hashes are kept as their digits ([`RecordedHash`]), which write back as the text the
//! file held. They must be `sha256:` followed by 8 to
//! 64 lowercase hex digits: the toolchain writes all 64, and the seed's examples abbreviate
//! to 8, which must stay readable for fixtures built from the seed.

mod json;
pub mod manifest;
mod read;
mod recorded_hash;
mod write;

#[cfg(test)]
mod tests;

use compact_str::CompactString;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

pub use manifest::{Manifest, PrivateNode, build_manifest, manifest_to_canonical_string};
pub use recorded_hash::RecordedHash;
pub use write::to_canonical_string;

/// The only sidecar format this reader understands. Another value means a migration the
/// toolchain must run, so it is refused before the shape is looked at.
pub const LOCK_FORMAT: u32 = 1;

/// Shortest abbreviated hash accepted after `sha256:` (the seed's examples use 8).
pub const MIN_HASH_HEX_DIGITS: usize = 8;
/// A full SHA-256 digest in hex.
pub const MAX_HASH_HEX_DIGITS: usize = 64;

/// Generates a closed set of JSON string values with its spelling, so that the reader's
/// error lists the accepted spellings from the same table the writer uses.
macro_rules! keyword_enum {
    ($(#[$meta:meta])* $name:ident, $what:literal, { $($variant:ident => $text:literal),+ $(,)? }) => {
        $(#[$meta])*
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
        )]
        pub enum $name {
            $($variant),+
        }

        impl $name {
            /// Every value, in the order the documentation lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }

            /// The inverse of `as_str`.
            pub fn parse(text: &str) -> Option<$name> {
                Self::ALL.iter().copied().find(|v| v.as_str() == text)
            }
        }

        impl read::Keyword for $name {
            const WHAT: &'static str = $what;

            fn spellings() -> Vec<&'static str> {
                Self::ALL.iter().map(|v| v.as_str()).collect()
            }

            fn from_str(text: &str) -> Option<Self> {
                Self::parse(text)
            }
        }
    };
}

keyword_enum!(
    /// What a `.tr` file defines; decides which keys the sidecar may carry.
    DefKind, "kind", {
        Function => "function",
        Type => "type",
        Module => "module",
        Project => "project",
    }
);

keyword_enum!(
    /// Who wrote a `.tr` file (`spec.provenance`) or one of its blocks.
    Author, "author", {
        Human => "human",
        Agent => "agent",
    }
);

keyword_enum!(ProseState, "prose_state", {
    Fresh => "fresh",
    ReviewSuggested => "review-suggested",
});

keyword_enum!(LoweringProvenance, "lowering provenance", {
    Agent => "agent",
    HumanVerified => "human-verified",
    HandEdited => "hand-edited",
    PreludeFork => "prelude-fork",
});

keyword_enum!(TypeCheck, "types result", {
    Ok => "ok",
    Error => "error",
});

keyword_enum!(Termination, "termination", {
    Verified => "verified",
    Unverified => "unverified",
    NotApplicable => "n/a",
});

keyword_enum!(
    /// The seed's one-word summary of all refinement clauses.
    RefinementSummary, "refinements summary", {
        Proven => "proven",
        Demoted => "demoted",
        None => "none",
    }
);

keyword_enum!(
    /// How one refinement clause or type invariant is discharged (v1).
    ClauseState, "clause state", {
        Proven => "proven",
        Runtime => "runtime",
        Trusted => "trusted",
    }
);

keyword_enum!(Tier, "tier", {
    Expect => "expect",
    Property => "property",
    Cram => "cram",
    Contract => "contract",
    Differential => "differential",
    Proof => "proof",
});

keyword_enum!(Origin, "origin", {
    Spec => "spec",
    Derived => "derived",
});

keyword_enum!(TestResult, "result", {
    Pass => "pass",
    Fail => "fail",
    Xfail => "xfail",
    Xpass => "xpass",
});

keyword_enum!(FfiTrust, "trust", {
    DeclaredOnly => "declared-only",
    Contract => "contract",
    Harvested => "harvested",
});

/// One sidecar. Field order is the canonical key order, with `ffi` after `oracles`: the
/// seed lists bindings after tests and oracles, and `ffi` (functions only) never meets
/// `cycle_hash` (types only), so the choice only has to be fixed, not justified by a file.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Sidecar {
    /// Always [`LOCK_FORMAT`] once read.
    pub lock_format: u32,
    pub name: CompactString,
    pub kind: DefKind,
    pub versions: Versions,
    pub spec: Spec,
    /// `None` is the file's `null`: not lowered yet.
    pub lowering: Option<Lowering>,
    pub checks: Checks,
    pub tests: Vec<TestRow>,
    pub oracles: Vec<Oracle>,
    /// Bindings only (function entries); boxed, as `lowering.decisions` is, so that the
    /// rare part costs a pointer in every other sidecar.
    pub ffi: Option<Box<Ffi>>,
    /// Type entries only; `None` is `null` or no such key (see [`Present::cycle_hash`]).
    pub cycle_hash: Option<RecordedHash>,
    pub accepted: bool,
    /// Which of the keys trellis writes only for some kinds the file has: a module
    /// header's lock has no `lowering`, `tests` or `oracles`, a type's no `lowering` or
    /// `oracles`, an unlowered function's no `checks`. Absent, they read as their empty
    /// values and are not written back, so every shape survives a read and a write.
    pub present: Present,
}

/// See [`Sidecar::present`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Present {
    pub lowering: bool,
    pub checks: bool,
    pub tests: bool,
    pub oracles: bool,
    /// `cycle_hash` is there, `null` or a hash.
    pub cycle_hash: bool,
}

impl Present {
    /// Every key but `cycle_hash`: the shape of a lowered, checked function's sidecar, and
    /// of every entry in the seed's and v1's layout.
    pub const ALL: Present = Present {
        lowering: true,
        checks: true,
        tests: true,
        oracles: true,
        cycle_hash: false,
    };
}

/// Tool versions in the order the file lists them: the toolchain writes its own order, and
/// sorting would rewrite every sidecar it produced.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Versions(pub Vec<(CompactString, CompactString)>);

impl Versions {
    pub fn get(&self, tool: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(name, _)| name == tool)
            .map(|(_, version)| version.as_str())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Spec {
    pub provenance: Author,
    pub hashes: SpecHashes,
    pub prose_state: ProseState,
    pub blocks: Vec<BlockAuthor>,
    pub pinned: bool,
    /// The `allow` block's entries, one string each. Written as an inline string array
    /// (`["a", "b"]`), like the seed's `demoted` list: the spec names only `blocks`,
    /// `tests`, … as arrays of inline objects, so these are not objects.
    pub escape_hatches: Vec<String>,
    /// Module and project entries only: each entry of the header's `decisions` block, label
    /// → entry digest, as trellis records it (older files may hold the text instead).
    pub decisions: Option<BTreeMap<String, String>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SpecHashes {
    pub formal: RecordedHash,
    /// `None` (the file's `null`) exactly for type, module and project entries.
    pub test: Option<RecordedHash>,
    pub prose: RecordedHash,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct BlockAuthor {
    /// The block's identity: `lang` or `lang name`, without modifiers.
    pub block: CompactString,
    pub author: Author,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Lowering {
    pub soil_hash: RecordedHash,
    pub provenance: LoweringProvenance,
    /// Present in every lowering; `None` is the file's `null` (a human lowering).
    pub provider: Option<CompactString>,
    pub model: Option<CompactString>,
    pub private_helpers: Vec<NameHash>,
    /// Callees with the `soil_hash` this lowering was checked against.
    pub calls: Vec<NameHash>,
    /// v1 only; the seed's prototype has no such key.
    pub decisions: Option<Box<LoweringDecisions>>,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct NameHash {
    pub name: CompactString,
    pub hash: RecordedHash,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LoweringDecisions {
    /// Hash of the decisions in scope when the lowering was made.
    pub scope_hash: RecordedHash,
    pub applied: Vec<AppliedDecision>,
}

/// One element of `lowering.decisions.applied`. v1 fixes only its layout (one inline
/// object per line), not its keys, so the members are kept as written, in order, and
/// restricted to scalars: anything nested could not be written back on one line.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AppliedDecision(pub Vec<(String, Scalar)>);

/// A JSON scalar kept in a form that writes back byte for byte.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scalar {
    Null,
    Bool(bool),
    /// The number's literal text, so that `1.50` is not rewritten as `1.5`.
    Number(String),
    String(String),
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Checks {
    /// Absent in a module header's checks, which record `exports` instead.
    pub types: Option<TypeCheck>,
    /// A module header's exports check (`ok` or `error`).
    pub exports: Option<TypeCheck>,
    pub termination: Option<Termination>,
    pub refinements: Refinements,
    /// The prototype's labels of clauses that failed to prove; only beside
    /// [`Refinements::Prototype`].
    pub demoted: Option<Vec<String>>,
    /// v1's count of holes left in the Soil.
    pub holes: Option<u32>,
    /// Type entries only, in place of `refinements`.
    pub invariants: Option<ClauseMap>,
}

impl Checks {
    /// The checks of an entry whose lock has no `checks` key (an unlowered function's).
    pub fn absent() -> Checks {
        Checks {
            types: None,
            exports: None,
            termination: None,
            refinements: Refinements::Absent,
            demoted: None,
            holes: None,
            invariants: None,
        }
    }
}

/// Clause label → state, sorted by label, each label once: `refinements` and
/// `invariants`. A sorted vector, not a `BTreeMap`: most definitions have one clause, and
/// a B-tree's smallest node (about 290 bytes) was a twentieth of a status run's heap at
/// 50,000 definitions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ClauseMap(Vec<(CompactString, ClauseState)>);

impl ClauseMap {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Labels and states in label order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, ClauseState)> {
        self.0.iter().map(|(label, state)| (label.as_str(), *state))
    }

    pub fn values(&self) -> impl Iterator<Item = ClauseState> + '_ {
        self.0.iter().map(|&(_, state)| state)
    }

    pub fn get(&self, label: &str) -> Option<ClauseState> {
        self.0
            .binary_search_by(|(l, _)| l.as_str().cmp(label))
            .ok()
            .map(|i| self.0[i].1)
    }
}

/// As a `BTreeMap` collects: sorted by label, the last state of a repeated label kept.
impl FromIterator<(String, ClauseState)> for ClauseMap {
    fn from_iter<I: IntoIterator<Item = (String, ClauseState)>>(entries: I) -> Self {
        ClauseMap::from(entries.into_iter().collect::<BTreeMap<_, _>>())
    }
}

impl From<BTreeMap<String, ClauseState>> for ClauseMap {
    fn from(map: BTreeMap<String, ClauseState>) -> Self {
        ClauseMap(map.into_iter().map(|(l, s)| (l.into(), s)).collect())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Refinements {
    /// The seed's shape: one word for all clauses.
    Prototype(RefinementSummary),
    /// v1's shape: clause label → how it is discharged.
    Clauses(ClauseMap),
    /// No `refinements` key (types, which use `invariants`, and headers).
    Absent,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TestRow {
    /// `block-name#k`, the bare block name, or a derived test's name.
    pub name: CompactString,
    pub tier: Tier,
    /// `sandboxed` or `real` today; any non-empty string is kept, because the seed lets
    /// new modes appear without a format change.
    pub mode: CompactString,
    pub origin: Origin,
    pub result: TestResult,
}

/// What tests depend on beyond the definition itself; the JSON `kind` picks the variant.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Oracle {
    /// A reference implementation, by the hash of the file's bytes.
    Reference { path: String, hash: RecordedHash },
    /// An accepted definition, by its `formal` hash.
    Definition {
        name: String,
        formal_hash: RecordedHash,
    },
    /// A CLI, by the hash of its executable.
    Cli { command: String, hash: RecordedHash },
}

impl Oracle {
    /// The hash the oracle was recorded against.
    pub fn recorded_hash(&self) -> RecordedHash {
        match self {
            Oracle::Reference { hash, .. } | Oracle::Cli { hash, .. } => *hash,
            Oracle::Definition { formal_hash, .. } => *formal_hash,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Ffi {
    pub trust: FfiTrust,
    pub symbol: String,
    pub symbol_hash: RecordedHash,
    /// A Nix store path, the provenance record; not a hash.
    pub package: String,
}

/// Reads a sidecar strictly: JSON syntax, the key set of every object, value types, enum
/// spellings, hash syntax and the keys that only some kinds may carry.
pub fn parse(text: &str) -> Result<Sidecar, SidecarError> {
    read::sidecar(text)
}

/// The sidecar `refresh` writes for a definition that has none: the one trellis creates,
/// key for key, so that trellis reads it and would have written the same bytes.
///
/// Nothing has been lowered or checked yet. A function carries `lowering: null` (the
/// `unlowered` status), `tests: []` and `oracles: []`; a type `tests: []` and
/// `cycle_hash: null`; a module or project header neither. No entry has `checks` until a
/// check runs: trellis writes none, and a `types` verdict for a check that never ran would
/// be invented. `escape_hatches` and a header's `spec.decisions` are for the caller to fill
/// from the spec. Callers that go on to record a check set `present.checks`.
pub fn default_for(
    name: &str,
    kind: DefKind,
    hashes: SpecHashes,
    blocks: Vec<BlockAuthor>,
    versions: Versions,
) -> Sidecar {
    Sidecar {
        lock_format: LOCK_FORMAT,
        name: name.into(),
        kind,
        versions,
        spec: Spec {
            provenance: Author::Human,
            hashes,
            prose_state: ProseState::Fresh,
            blocks,
            pinned: false,
            escape_hatches: Vec::new(),
            decisions: None,
        },
        lowering: None,
        checks: Checks::absent(),
        tests: Vec::new(),
        oracles: Vec::new(),
        ffi: None,
        cycle_hash: None,
        accepted: false,
        present: Present {
            lowering: kind == DefKind::Function,
            checks: false,
            tests: matches!(kind, DefKind::Function | DefKind::Type),
            oracles: kind == DefKind::Function,
            cycle_hash: kind == DefKind::Type,
        },
    }
}

/// A sidecar that could not be read.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct SidecarError {
    /// JSON path of the offending key or value, such as `tests[2].result` or
    /// `checks.refinements.non-negative`; empty for the top-level object. Keys that are not
    /// plain words are written `["upper bound"]`.
    pub path: String,
    /// 1-based position in the sidecar text; the column counts Unicode scalar values.
    pub line: Option<usize>,
    pub column: Option<usize>,
    pub message: String,
}

impl fmt::Display for SidecarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            f.write_str("at the top level")?;
        } else {
            write!(f, "at `{}`", self.path)?;
        }
        match (self.line, self.column) {
            (Some(line), Some(column)) => write!(f, " (line {line}, column {column})")?,
            (Some(line), None) => write!(f, " (line {line})")?,
            _ => {}
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for SidecarError {}
