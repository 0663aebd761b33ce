//! The live session: one salsa database kept alive across edits, for `--watch` and the
//! language server.
//!
//! A changed file (a file event, an editor's keystroke) is set as an input only when its
//! content hash moved. Then only the touched files are re-reported — the queries of every
//! other file are still valid. A lockfile change re-sets the entries that differ, which
//! re-runs the span filter of those files and not their rules.

use super::super::Failure;
use super::super::workspace::Workspace;
use super::scan::unreadable;
use super::setup::engine_setup;
use crate::config::PathMatcher;
use crate::fsutil::relative;
use lockgraph_queries::copy::engine::{self, FileReport, Finding, Setup, Source, SourceFile};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::fix::{Fixed, fix_passes};
use lockgraph_queries::copy::lockfile::{Entry, Lockfile};
use lockgraph_queries::copy::rules::RuleSet;
use lockgraph_queries::db::{Database, ExecutionLog};
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use salsa::Setter;
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

struct WatchedFile {
    input: SourceFile,
    hash: ContentHash,
}

/// What one refresh changed in one file's findings.
#[derive(Debug, PartialEq, Eq)]
pub struct Delta {
    pub path: String,
    pub added: Vec<Finding>,
    pub removed: Vec<Finding>,
    /// The file appeared (`Some(true)`) or disappeared (`Some(false)`).
    pub created: Option<bool>,
}

/// One long-lived salsa database over a workspace's files: each file an input, set
/// only when its content hash moved (a setter always starts a new revision), so only
/// what an edit reaches runs again. `--watch` loads every file in scope and feeds it file
/// events; the language server feeds it the open documents' unsaved text.
pub struct Session {
    db: Database,
    /// What the database's settings were made from: one-shot reports of texts that are
    /// not inputs (the passes of "fix all") read it.
    setup: Setup,
    log: Option<ExecutionLog>,
    matcher: PathMatcher,
    lock: Lockfile,
    files: BTreeMap<String, WatchedFile>,
    reports: BTreeMap<String, FileReport>,
}

impl Session {
    /// A session tracking no file yet (the language server adds the documents it opens).
    /// With `log`, the executed queries are recorded (tests and `--verbose`).
    pub fn empty(ws: &Workspace, matcher: PathMatcher, log: bool) -> Result<Session, Failure> {
        let (db, log) = if log {
            let (db, log) = Database::with_execution_log();
            (db, Some(log))
        } else {
            (Database::default(), None)
        };
        let lock = ws.read_lockfile()?;
        let setup = engine_setup(ws, lock.prompt_outdated())?;
        setup.install(&db);
        Ok(Session {
            db,
            setup,
            log,
            matcher,
            lock,
            files: BTreeMap::new(),
            reports: BTreeMap::new(),
        })
    }

    /// Loads every file in scope into the session and audits it (`--watch`).
    pub fn open(ws: &Workspace, matcher: PathMatcher, log: bool) -> Result<Session, Failure> {
        let mut session = Session::empty(ws, matcher, log)?;
        let paths = ws.files_in_scope(&session.matcher)?;
        let contents: Vec<(String, std::io::Result<Vec<u8>>)> = paths
            .into_par_iter()
            .map(|p| {
                let bytes = crate::fsutil::read_regular(&ws.root.join(&p));
                (p, bytes)
            })
            .collect();
        for (path, bytes) in contents {
            match bytes {
                Ok(bytes) => session.track(path, bytes),
                // One file deleted or replaced since the walk never ends the session: it is
                // picked up by its next event, as any file created later is.
                Err(e) => eprintln!("warning: {path}: {}", unreadable(&e)),
            }
        }
        let all: Vec<String> = session.files.keys().cloned().collect();
        session.report(&all);
        Ok(session)
    }

    /// Sets the text of `path` (tracking it if it is new): true when its bytes changed.
    pub fn set_text(&mut self, path: &str, bytes: Vec<u8>) -> bool {
        match self.files.get_mut(path) {
            Some(t) => {
                let hash = ContentHash::of(&bytes);
                if t.hash == hash {
                    return false;
                }
                t.hash = hash;
                t.input.set_source(&mut self.db).to(Source::new(bytes));
                true
            }
            None => {
                self.track(path.to_owned(), bytes);
                true
            }
        }
    }

    /// The lockfile entry `path` is audited with now.
    pub fn entry_of(&self, path: &str) -> Option<Entry> {
        self.files.get(path)?.input.entry(&self.db).clone()
    }

    /// The entry of `path` in the lockfile as the session last read it.
    pub fn locked_entry(&self, path: &str) -> Option<&Entry> {
        self.lock.files.get(path)
    }

    /// Audits `path` with `entry` instead of the lockfile's (the language server's
    /// re-anchored entry after a fix that kept every coordinate, as `--fix` re-anchors).
    pub fn set_entry(&mut self, path: &str, entry: Option<Entry>) {
        let Some(t) = self.files.get(path) else {
            return;
        };
        if t.input.entry(&self.db) != &entry {
            t.input.set_entry(&mut self.db).to(entry);
        }
    }

    /// The lockfile on disk now holds `entry` for `path`.
    pub fn locked(&mut self, path: &str, entry: Entry) {
        self.lock.files.insert(path.to_owned(), entry);
    }

    /// Stops tracking `path`.
    pub fn forget(&mut self, path: &str) {
        self.files.remove(path);
        self.reports.remove(path);
    }

    /// The report of a tracked file as its inputs are now: salsa's memo when nothing it
    /// reads changed, else computed again (only what the change reaches).
    pub fn report_of(&self, path: &str) -> Option<&FileReport> {
        let input = self.files.get(path)?.input;
        Some(engine::report(&self.db, input))
    }

    /// `text` of `path` with every fix applied as `--fix` applies them (pass after pass,
    /// while its lockfile entry's spans hold; see [`fix_passes`]).
    pub fn fix_all(&self, path: &str, text: &str) -> Fixed {
        let format = Format::from_path(path);
        let locale = self.matcher.locale_for(path);
        // The entry it is audited with: re-anchored by an earlier fix, or the lockfile's.
        let entry = self
            .entry_of(path)
            .or_else(|| self.lock.files.get(path).cloned());
        fix_passes(text, entry, false, |text, entry| {
            let source = Source::new(text.as_bytes().to_vec());
            engine::report_once(&self.setup, format, &source, entry, locale)
        })
    }

    /// The rules the session audits with.
    pub fn rules(&self) -> &RuleSet {
        &self.setup.rules.set
    }

    /// Which files the session's workspace audits.
    pub fn matcher(&self) -> &PathMatcher {
        &self.matcher
    }

    /// How many files are tracked.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether no file is tracked.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn track(&mut self, path: String, bytes: Vec<u8>) {
        let hash = ContentHash::of(&bytes);
        let entry = self.lock.files.get(&path).cloned();
        let input = SourceFile::new(
            &self.db,
            path.clone(),
            Format::from_path(&path),
            Source::new(bytes),
            entry,
            self.matcher.locale_for(&path).map(str::to_owned),
        );
        self.files.insert(path, WatchedFile { input, hash });
    }

    /// Re-reports `paths` (in parallel, each worker with its own database clone) and
    /// returns the per-file differences.
    fn report(&mut self, paths: &[String]) -> Vec<Delta> {
        let inputs: Vec<(String, SourceFile)> = paths
            .iter()
            .filter_map(|p| self.files.get(p).map(|t| (p.clone(), t.input)))
            .collect();
        let fresh: Vec<(String, FileReport)> = inputs
            .par_iter()
            .map_with(self.db.clone(), |db, (p, f)| {
                (p.clone(), engine::report(db, *f).clone())
            })
            .collect();
        let mut deltas = Vec::new();
        for (path, report) in fresh {
            let old = self.reports.insert(path.clone(), report);
            let new = &self.reports[&path];
            let before = old
                .as_ref()
                .map(|r| r.findings.to_vec())
                .unwrap_or_default();
            let after = new.findings.to_vec();
            // Byte offsets shift under every edit; what a reader sees is the position.
            let seen = |f: &Finding, among: &[Finding]| among.iter().any(|g| same_place(f, g));
            let added: Vec<Finding> = after
                .iter()
                .filter(|f| !seen(f, &before))
                .cloned()
                .collect();
            let removed: Vec<Finding> = before
                .iter()
                .filter(|f| !seen(f, &after))
                .cloned()
                .collect();
            if !added.is_empty() || !removed.is_empty() {
                deltas.push(Delta {
                    path,
                    added,
                    removed,
                    created: None,
                });
            }
        }
        deltas
    }

    /// Takes in the changes to `touched` (absolute paths from file events).
    pub fn refresh(&mut self, ws: &Workspace, touched: &[PathBuf]) -> Result<Vec<Delta>, Failure> {
        let mut rerun = Vec::new();
        let mut deltas = Vec::new();
        let mut lock_changed = false;
        for abs in touched {
            let Some(rel) = rel_of(&ws.root, abs) else {
                continue;
            };
            if rel == ws.config.cache_path {
                lock_changed = true;
                continue;
            }
            if !self.matcher.is_included(&rel) {
                continue;
            }
            match crate::fsutil::read_regular(abs) {
                Ok(bytes) => match self.files.get(&rel) {
                    Some(t) if t.hash == ContentHash::of(&bytes) => {}
                    Some(t) => {
                        let input = t.input;
                        let hash = ContentHash::of(&bytes);
                        input.set_source(&mut self.db).to(Source::new(bytes));
                        self.files.get_mut(&rel).expect("tracked").hash = hash;
                        rerun.push(rel);
                    }
                    None => {
                        self.track(rel.clone(), bytes);
                        rerun.push(rel.clone());
                        deltas.push(Delta {
                            path: rel,
                            added: Vec::new(),
                            removed: Vec::new(),
                            created: Some(true),
                        });
                    }
                },
                Err(_) if self.files.contains_key(&rel) && !abs.exists() => {
                    self.files.remove(&rel);
                    let old = self.reports.remove(&rel);
                    deltas.push(Delta {
                        path: rel,
                        added: Vec::new(),
                        removed: old.map(|r| r.findings.to_vec()).unwrap_or_default(),
                        created: Some(false),
                    });
                }
                Err(_) => {}
            }
        }
        if lock_changed {
            rerun.extend(self.reload_lockfile(ws)?);
        }
        rerun.sort();
        rerun.dedup();
        let mut changed = self.report(&rerun);
        // A new file's findings are all additions; say so once, with the creation.
        for d in &mut deltas {
            if let Some(pos) = changed.iter().position(|c| c.path == d.path) {
                d.added = changed.remove(pos).added;
            }
        }
        deltas.extend(changed);
        deltas.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(deltas)
    }

    /// Reads the lockfile again and sets each tracked file's entry that differs (which
    /// re-runs its span filter and not its rules): the files whose entry changed.
    pub fn reload_lockfile(&mut self, ws: &Workspace) -> Result<Vec<String>, Failure> {
        self.lock = ws.read_lockfile()?;
        let mut changed = Vec::new();
        for (path, t) in &self.files {
            let entry = self.lock.files.get(path);
            if t.input.entry(&self.db).as_ref() != entry {
                t.input.set_entry(&mut self.db).to(entry.cloned());
                changed.push(path.clone());
            }
        }
        Ok(changed)
    }

    /// The queries executed since the last call (when opened with a log).
    pub fn executed(&self) -> Vec<lockgraph_queries::db::Executed> {
        self.log
            .as_ref()
            .map(|l| l.take(&self.db))
            .unwrap_or_default()
    }

    pub fn input(&self, path: &str) -> Option<SourceFile> {
        self.files.get(path).map(|t| t.input)
    }

    pub fn findings(&self) -> usize {
        self.reports.values().map(|r| r.findings.len()).sum()
    }
}

/// The root-relative path of an event's `abs`.
pub fn rel_of(root: &Path, abs: &Path) -> Option<String> {
    relative(root, abs).or_else(|| {
        // Events may carry the un-canonicalised path of the root.
        fs::canonicalize(abs.parent()?)
            .ok()
            .and_then(|d| relative(root, &d.join(abs.file_name()?)))
    })
}

fn same_place(a: &Finding, b: &Finding) -> bool {
    (&a.rule_id, a.line, a.column, &a.message) == (&b.rule_id, b.line, b.column, &b.message)
}
