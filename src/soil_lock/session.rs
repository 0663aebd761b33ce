//! The live soil-lock session that `watch` and `server` drive: one salsa database for the
//! session (the root is read once), whose inputs follow the files on disk, or an editor's
//! unsaved text for the files it holds open. Inputs are re-set only when their bytes
//! changed, and salsa decides what re-runs: flags read other definitions only through
//! their lowered `soil_hash` and `formal` hash, so an edit re-runs what it reaches and
//! nothing else.

use super::Failure;
use super::root::Root;
use crate::fsutil::relative;
use lockgraph_queries::soil::engine::{self, Definition, Project};
use lockgraph_queries::soil::status::{Flag, Ladder};
use salsa::Setter;
use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

/// What `status` shows of one definition, compared between refreshes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub ladder: Ladder,
    pub accepted: bool,
    pub flags: Vec<Flag>,
    /// Why its sidecar or spec cannot be taken in ([`super::render::input_error`]).
    pub error: Option<String>,
    /// An error and no sidecar to stand on: `status` says `unreadable`.
    pub unreadable: bool,
}

/// One definition whose status or flags changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub path: String,
    /// `None` for a definition that just appeared.
    pub before: Option<Shown>,
    pub after: Shown,
}

pub struct Session {
    pub root: Root,
    shown: BTreeMap<String, Shown>,
    /// Root-relative files an editor holds open: their input is its text, not the disk's.
    open: BTreeSet<String>,
}

fn shown(root: &Root, def: Definition) -> Shown {
    let mut flags: Vec<Flag> = engine::flags(&root.db, def)
        .iter()
        .map(|r| r.flag)
        .collect();
    flags.dedup();
    let sidecar = engine::sidecar_of(&root.db, def);
    let error = super::render::input_error(&root.db, def);
    Shown {
        ladder: engine::ladder(&root.db, def),
        accepted: sidecar.is_some_and(|s| s.accepted),
        flags,
        unreadable: error.is_some() && sidecar.is_none(),
        error,
    }
}

impl Session {
    pub fn new(root: Root) -> Session {
        let shown = root
            .defs
            .iter()
            .map(|&d| (d.path(&root.db).clone(), shown(&root, d)))
            .collect();
        Session {
            root,
            shown,
            open: BTreeSet::new(),
        }
    }

    /// Takes in the changes to `touched` and returns the definitions whose status or flags
    /// changed, with their old and new state.
    pub fn refresh(&mut self, touched: &[PathBuf]) -> Result<Vec<Change>, Failure> {
        self.take_in(touched)?;
        Ok(self.changes())
    }

    /// Takes in the changes on disk to `touched`; a file an editor holds open keeps the
    /// editor's text.
    pub fn take_in(&mut self, touched: &[PathBuf]) -> Result<(), Failure> {
        let mut new_defs = false;
        let mut other = false;
        for abs in touched {
            let Some(rel) = relative(&self.root.dir, abs) else {
                continue;
            };
            if self.open.contains(&rel) {
                continue;
            }
            let Some((stem, ext)) = definition_file(&rel) else {
                other = true;
                continue;
            };
            let stem = stem.to_string();
            if ext == "soil" && stem.rsplit('/').next() == Some(super::walk::PRIVATE) {
                let module = stem.rsplit_once('/').map_or("", |(m, _)| m);
                self.root.reload_private(module)?;
                continue;
            }
            // A file that cannot be read (replaced by a directory, no permission) is the
            // definition's error, as at the start; one that is gone is absent.
            let (bytes, unread) = match crate::fsutil::read_regular(abs) {
                Ok(bytes) => (Some(bytes), None),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => (None, None),
                Err(e) => (None, Some(crate::fsutil::why_unread(&e))),
            };
            let Some(def) = engine::def_index(&self.root.db).get(&stem) else {
                new_defs |= (bytes.is_some() || unread.is_some()) && ext != "soil";
                continue;
            };
            if ext == "soil"
                && let Some(why) = &unread
            {
                eprintln!("warning: {rel}: {why}; taken as absent");
            }
            self.set_file(def, ext, bytes, unread);
        }
        if new_defs {
            // A new spec or sidecar: re-list the root (existing inputs keep their identity
            // only by path, so the list is rebuilt from what is on disk).
            let fresh = super::root::load_definitions(&self.root.dir, &self.root.db)?;
            let mut by_path: BTreeMap<String, Definition> = self
                .root
                .defs
                .iter()
                .map(|&d| (d.path(&self.root.db).clone(), d))
                .collect();
            for d in fresh {
                by_path.entry(d.path(&self.root.db).clone()).or_insert(d);
            }
            self.root.defs = by_path.into_values().collect();
            Project::get(&self.root.db)
                .set_definitions(&mut self.root.db)
                .to(self.root.defs.clone());
        }
        if other || new_defs {
            // A reference file or CLI oracle may have changed.
            self.root.hash_externals();
        }
        Ok(())
    }

    /// The definitions whose status or flags changed since the last call (or the start).
    pub fn changes(&mut self) -> Vec<Change> {
        let mut changes = Vec::new();
        let mut next = BTreeMap::new();
        for &d in &self.root.defs {
            let path = d.path(&self.root.db).clone();
            let now = shown(&self.root, d);
            let before = self.shown.get(&path);
            if before != Some(&now) {
                changes.push(Change {
                    path: path.clone(),
                    before: before.cloned(),
                    after: now.clone(),
                });
            }
            next.insert(path, now);
        }
        self.shown = next;
        changes
    }

    /// An editor opened or changed the definition file `rel` (`csvstats/sum.tr`): its text
    /// is the file's input until [`Session::close`]. The definition, if the root has it
    /// (a new file joins when it is saved).
    pub fn edit(&mut self, rel: &str, text: &[u8]) -> Option<Definition> {
        let (stem, ext) = definition_file(rel)?;
        let def = engine::def_index(&self.root.db).get(stem)?;
        self.open.insert(rel.to_owned());
        self.set_file(def, ext, Some(text.to_vec()), None);
        Some(def)
    }

    /// The editor closed `rel`: its input is the file on disk again.
    pub fn close(&mut self, rel: &str) -> Result<(), Failure> {
        if self.open.remove(rel) {
            self.take_in(&[self.root.dir.join(rel)])?;
        }
        Ok(())
    }

    /// Sets one input of `def` from a `.tr`, `.lock` or `.soil`'s bytes (or why they could
    /// not be read), when they differ from what it holds.
    fn set_file(
        &mut self,
        def: Definition,
        ext: &str,
        bytes: Option<Vec<u8>>,
        unread: Option<String>,
    ) {
        let db = &mut self.root.db;
        match ext {
            "tr" => {
                let known = unread.and_then(super::root::unread_tr);
                if def.tr(db) != &bytes || def.tr_known(db) != &known {
                    def.set_tr(db).to(bytes);
                    def.set_tr_known(db).to(known);
                }
            }
            "lock" => {
                let known = unread.and_then(super::root::unread_lock);
                if def.sidecar(db) != &bytes || def.sidecar_known(db) != &known {
                    def.set_sidecar(db).to(bytes);
                    def.set_sidecar_known(db).to(known);
                }
            }
            _ => {
                if def.soil(db) != &bytes {
                    def.set_soil(db).to(bytes);
                }
            }
        }
    }
}

/// A spec, sidecar or `.soil` path split into its stem and extension (the manifest is
/// none of them).
pub(super) fn definition_file(rel: &str) -> Option<(&str, &str)> {
    match rel.rsplit_once('.') {
        Some((stem, ext @ ("tr" | "lock" | "soil"))) if rel != super::root::MANIFEST => {
            Some((stem, ext))
        }
        _ => None,
    }
}
