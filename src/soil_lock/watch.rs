//! `soil-lock watch`: one salsa database for the session (the root is read once); each
//! batch of file events (`crate::watch`) re-sets the inputs it touched, only when their
//! bytes changed, and prints the definitions whose status or flags changed. Salsa decides
//! what re-runs: flags read other definitions only through their lowered `soil_hash` and
//! `formal` hash, so an edit re-runs what it reaches and nothing else.

use super::root::Root;
use super::{Failure, kind_of};
use crate::fsutil::relative;
use lockgraph_queries::soil::engine::{self, Definition, Project};
use lockgraph_queries::soil::status::{Flag, Ladder};
use salsa::Setter;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

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
        Session { root, shown }
    }

    /// Takes in the changes to `touched` and returns the definitions whose status or flags
    /// changed, with their old and new state.
    pub fn refresh(&mut self, touched: &[PathBuf]) -> Result<Vec<Change>, Failure> {
        let mut new_defs = false;
        let mut other = false;
        for abs in touched {
            let Some(rel) = relative(&self.root.dir, abs) else {
                continue;
            };
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
                    if let Some(why) = unread {
                        eprintln!("warning: {rel}: {why}; taken as absent");
                    }
                    if def.soil(db) != &bytes {
                        def.set_soil(db).to(bytes);
                    }
                }
            }
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
        Ok(changes)
    }
}

/// A spec, sidecar or `.soil` path split into its stem and extension (the manifest is
/// none of them).
fn definition_file(rel: &str) -> Option<(&str, &str)> {
    match rel.rsplit_once('.') {
        Some((stem, ext @ ("tr" | "lock" | "soil"))) if rel != super::root::MANIFEST => {
            Some((stem, ext))
        }
        _ => None,
    }
}

fn describe(s: &Shown) -> String {
    let flags: Vec<&str> = s.flags.iter().map(|f| f.as_str()).collect();
    format!(
        "{}{}{}",
        if s.unreadable {
            "unreadable"
        } else {
            s.ladder.as_str()
        },
        if s.accepted { ", accepted" } else { "" },
        if flags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", flags.join(", "))
        }
    )
}

pub fn run(root: Root) -> Result<(), Failure> {
    let dir = root.dir.clone();
    let started = Instant::now();
    let mut session = Session::new(root);
    let watch = crate::watch::Watch::start(&dir)?;
    println!(
        "watching {} ({} definitions, loaded in {:.0} ms); Ctrl-C to stop",
        dir.display(),
        session.root.defs.len(),
        started.elapsed().as_secs_f64() * 1e3
    );
    watch.run(&mut session)
}

impl crate::watch::Session for Session {
    /// Specs, sidecars and `.soil` files where the walk looks for them (not in dot
    /// directories, not the manifest), and the files the oracles read.
    fn wants(&self, path: &Path) -> bool {
        if self.root.oracle_files.contains(path) {
            return true;
        }
        relative(&self.root.dir, path).is_some_and(|rel| {
            definition_file(&rel)
                .is_some_and(|(stem, _)| !stem.split('/').any(|part| part.starts_with('.')))
        })
    }

    fn changed(&mut self, paths: &[PathBuf]) -> Result<(), Failure> {
        let t = Instant::now();
        let changes = self.refresh(paths)?;
        for c in &changes {
            let kind = self
                .root
                .find(&c.path)
                .ok()
                .and_then(|d| kind_of(&self.root, d))
                .map_or("?", |k| k.as_str());
            let after = describe(&c.after);
            match c.before.as_ref().map(describe) {
                // Only the reason changed (a sidecar half written, then emptied): the error
                // line below says so.
                Some(before) if before == after => {}
                Some(before) => println!("{} ({kind}): {before} → {after}", c.path),
                None => println!("{} ({kind}): new, {after}", c.path),
            }
            // What `status` prints below such a row, once per new reason.
            if let Some(e) = &c.after.error
                && c.before.as_ref().and_then(|b| b.error.as_ref()) != Some(e)
            {
                eprintln!("error: {e}");
            }
        }
        if !changes.is_empty() {
            println!(
                "-- {} definition(s) changed, in {:.1} ms",
                changes.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(())
    }
}
