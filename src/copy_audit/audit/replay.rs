//! The audit replayed ([`crate::replay`]): a run that finds every input as an earlier run
//! of the same command line found them prints what that run printed, and exits as it
//! did, without opening the caches or the lockfile.
//!
//! The report is a pure function of the files in scope, the lockfile, the config and the
//! command line (with the directory it runs in, which `--format github` paths and the
//! named files are relative to, and whether standard output is a terminal, which styles
//! the human report). Its fingerprint: the root, the config as parsed (its `Debug` form,
//! which one build — the replay's engine — always writes alike), the lockfile's stat (or
//! its absence), every file in scope by path and stat, and the paths the walk could not
//! name. Replays live in `.lockgraph/` beside the caches.
//!
//! Only the audit itself is replayed: `--fix`, `--offline` and `--refresh-cache` write,
//! `--watch`, `--review-cache` and the subcommands are not one report, `--verbose` and
//! `--list-unsegmented` print what the replay does not keep, and `--no-cache` asks for
//! nothing kept. The warnings an audit can give past the walk are about the caches (set
//! aside, not saved) or the remote cache (unreachable): a replay uses neither.

use super::super::Outcome;
use super::super::cli::Cli;
use super::super::workspace::Workspace;
use crate::replay::{self, FileSet, Fingerprint, Key, Place, Replay, Told};
use crate::statcache::{HashBytes, Stat};
use std::io::{IsTerminal, Write};

/// The key of the command line `cli`, if its output can be replayed.
pub fn key(cli: &Cli) -> Option<Key> {
    let a = &cli.audit;
    let writes_or_more = a.fix || a.offline || a.refresh_cache.is_some();
    let not_a_report = a.watch || a.review_cache || a.self_test || cli.command.is_some();
    if writes_or_more || not_a_report || a.verbose || a.list_unsegmented || a.no_cache {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    let terminal = std::io::stdout().is_terminal();
    Some(Key::new(format!(
        "copy-audit {cli:?}\n{}\nterminal: {terminal}",
        cwd.display()
    )))
}

/// Where `ws`'s replays are: `.lockgraph/`, this build's.
fn place(ws: &Workspace) -> Option<Place> {
    let lockgraph = crate::fsutil::cache_dir(&ws.root).ok()?;
    Some(Place {
        dir: lockgraph.clone(),
        lockgraph,
        engine: super::super::cache::ENGINE_VERSION.to_owned(),
    })
}

/// The replay kept for `key` in `ws`, if there is a whole one from this build. What a
/// killed run left in the caches' directories is swept first, as opening them would.
pub fn load(ws: &Workspace, key: &Key) -> Option<Replay<()>> {
    let place = place(ws)?;
    super::super::cache::Caches::sweep(&place.dir);
    replay::load(&place, key)
}

/// The lockfile's stat now: `Some(None)` when there is none, `None` when it cannot be
/// told (it cannot be read either: the run will fail on it).
fn lock_stat(ws: &Workspace) -> Option<Option<Stat>> {
    match std::fs::metadata(&ws.lock_path) {
        Ok(meta) => Some(Some(Stat::of(&meta))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Some(None),
        Err(_) => None,
    }
}

/// Prints `kept`, the replay of `key`, if this run's inputs match it (`files` with the
/// walk's stats, `unnamed`, the lockfile now), and says how that run ended. Its stats
/// are asked first: after an edit one is newer than the replay, and nothing is hashed.
pub fn print_if_matched(
    kept: &Replay<()>,
    key: &Key,
    ws: &Workspace,
    files: &[(String, Option<Stat>)],
    unnamed: &[String],
) -> Option<Outcome> {
    let lock = lock_stat(ws)?;
    let stats = files.iter().filter_map(|(_, stat)| stat.as_ref());
    if !kept.could_match(stats.chain(&lock)) {
        return None;
    }
    let set = FileSet::of(files, |set, (path, stat), scratch| {
        set.add(path, stat.as_ref(), scratch)
    });
    let now = told(key, ws, lock.as_ref(), &set, unnamed)?;
    kept.matches(&now).then(|| match kept.print() {
        true => Outcome::Clean,
        false => Outcome::Failed,
    })
}

/// The fingerprint of an audit of `files` (each with the stat its bytes were known by)
/// with the lockfile at `lock` (`None`: absent) and the unnamed paths `unnamed`.
pub fn told(
    key: &Key,
    ws: &Workspace,
    lock: Option<&Stat>,
    files: &FileSet,
    unnamed: &[String],
) -> Option<Told> {
    let mut f = Fingerprint::new(key);
    f.put(&(ws.root.to_string_lossy(), format!("{:?}", ws.config)));
    if let Some(stat) = lock {
        f.saw(stat);
    }
    f.put(&(0u8, lock));
    f.put(&1u8);
    f.put_files(files);
    f.put(&(2u8, unnamed));
    f.finish()
}

/// Runs `run` (which writes the report and says whether the run is clean) and keeps its
/// replay for `key` and the inputs `told`, after the replay or stub whose digest was
/// `previous` ([`replay::record`]).
pub fn record(
    ws: &Workspace,
    key: &Key,
    told: Told,
    previous: Option<HashBytes>,
    run: impl FnOnce(&mut dyn Write) -> bool,
) {
    // The report is written whole or the run ends: it is never a failure.
    let place = place(ws);
    let _ = replay::record(place.as_ref(), key, told, (), previous, |out| {
        (Ok(run(out)), false)
    });
}
