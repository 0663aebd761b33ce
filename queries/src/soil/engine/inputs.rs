//! The salsa inputs the shell sets: each [`Definition`]'s files and the [`Project`] root.
//! With them, [`external_key`], under which an oracle's current hash is among the root's
//! externals, and [`InputError`], what an input file that cannot be read gives.

use super::super::sidecar::{Oracle, Sidecar, SidecarError};
use super::super::summary::TrSummary;
use super::reference_file;
use std::collections::{BTreeMap, BTreeSet};

/// One definition: its identity (root-relative path without extension, such as
/// `csvstats/median`) and its `.tr` and `.lock`, as far as they exist.
///
/// Each file is given either as its bytes (`tr`, `sidecar`, `soil`) or, when the shell
/// knows the file is unchanged since an earlier run, as what [`tr_summary`],
/// [`parsed_sidecar`] or `soil_hash::own_forms` made of those bytes then (`tr_known`,
/// `sidecar_known`, `soil_known`): set one of the pair, never both. The known value stands in for the bytes, so an unchanged file is neither read nor
/// parsed; everything downstream is computed as usual.
#[salsa::input(debug)]
pub struct Definition {
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub tr: Option<Vec<u8>>,
    #[returns(ref)]
    pub sidecar: Option<Vec<u8>>,
    /// `f.soil` beside the spec, if there is one.
    #[returns(ref)]
    pub soil: Option<Vec<u8>>,
    /// The `.tr`'s summary, kept from an earlier run, in place of `tr`. Boxed, like the
    /// other kept value: both are moved several times on their way in, for every
    /// definition of a root.
    #[default]
    #[returns(ref)]
    pub tr_known: Option<Box<Result<TrSummary, InputError>>>,
    /// The parsed `.lock`, kept from an earlier run, in place of `sidecar`.
    #[default]
    #[returns(ref)]
    pub sidecar_known: Option<Box<Result<Sidecar, SidecarError>>>,
    /// The `.soil`'s hash forms, kept from an earlier run, in place of `soil`.
    #[default]
    #[returns(ref)]
    pub soil_known: Option<Box<crate::soil::soil_hash::SoilKnown>>,
}

/// The root: every definition, and the current hashes of what oracles point at outside the
/// specs (reference files by root-relative path, CLIs by `cli:<command>`; `None` when the
/// file or executable cannot be found).
#[salsa::input(singleton, debug)]
pub struct Project {
    #[returns(ref)]
    pub definitions: Vec<Definition>,
    #[returns(ref)]
    pub externals: BTreeMap<String, Option<String>>,
    /// The tags `soil.toml` declares under `[tags]`; `None` leaves tags unchecked.
    #[default]
    #[returns(ref)]
    pub tag_vocabulary: Option<BTreeSet<String>>,
    /// Each module's `_private.soil`.
    #[default]
    #[returns(ref)]
    pub private_files: Vec<crate::soil::soil_hash::PrivateFile>,
}

/// The key under which an oracle's current hash is found in [`Project::externals`].
pub fn external_key(oracle: &Oracle) -> Option<String> {
    match oracle {
        Oracle::Reference { path, .. } => Some(reference_file(path).to_string()),
        Oracle::Cli { command, .. } => Some(format!("cli:{command}")),
        Oracle::Definition { .. } => None,
    }
}

/// A problem that makes a file unreadable, with the position inside it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct InputError {
    pub message: String,
    pub line: Option<usize>,
    pub column: Option<usize>,
}
