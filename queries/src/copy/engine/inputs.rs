//! The salsa inputs (a file, the settings) and the settings' one value, [`Setup`]: what
//! the shell sets. Nothing here is computed from a file.

use super::Source;
use crate::copy::extract::Format;
use crate::copy::lockfile::{Entry, Kind};
use crate::copy::rules::RuleSet;
use crate::hash::ContentHash;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One file of the audited tree. The shell sets `source` only when the bytes changed (a
/// setter always starts a new revision) and `entry` when the lockfile entry changed.
#[salsa::input(debug)]
pub struct SourceFile {
    /// Root-relative path with `/` separators, as in the lockfile.
    #[returns(ref)]
    pub path: String,
    #[returns(copy)]
    pub format: Format,
    #[returns(ref)]
    pub source: Source,
    #[returns(ref)]
    pub entry: Option<Entry>,
    /// `paths.locale`'s language for this file: a hint for its provisional spans.
    #[returns(ref)]
    pub locale: Option<String>,
}

/// Everything the audit of one file depends on besides the file, as one value ([`Setup`]):
/// it is set once, before any file, and never changes within a run or a watch session, so
/// there is nothing to gain from tracking its parts apart. HIGH durability.
#[salsa::input(singleton, debug)]
pub struct Settings {
    #[returns(ref)]
    pub setup: Setup,
}

/// The effective rules: the configured rule set plus, for custom rules, the span kinds they
/// are limited to.
#[derive(Clone, Debug)]
pub struct RuleTable {
    pub set: Arc<RuleSet>,
    pub kinds: BTreeMap<String, Vec<Kind>>,
    /// Identifies the configuration the table was built from; two tables with the same
    /// fingerprint are the same rules.
    pub fingerprint: ContentHash,
}

impl PartialEq for RuleTable {
    fn eq(&self, other: &Self) -> bool {
        self.fingerprint == other.fingerprint
    }
}

impl Eq for RuleTable {}

/// The configured rules and the language defaults: [`Settings`]' one value, and what a
/// report computed without a database ([`report_once`](super::report_once)) reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub rules: RuleTable,
    pub default_language: String,
    /// The declared profiles' language codes: what provisional spans tag by key path.
    pub declared: Vec<String>,
    /// `segment.unknown_language: default`: spans tagged `unknown` take the default
    /// language instead of skipping language-scoped rules.
    pub unknown_language_default: bool,
    pub ignore_marker: String,
    /// The lockfile's `segmenter` says its unreviewed entries predate our prompt version.
    pub prompt_outdated: bool,
}

impl Setup {
    /// Creates the `Settings` singleton in `db` (HIGH durability: it never changes
    /// within a run).
    pub fn install<Db: salsa::Database + ?Sized>(&self, db: &Db) -> Settings {
        Settings::builder(self.clone())
            .durability(salsa::Durability::HIGH)
            .new(db)
    }
}
