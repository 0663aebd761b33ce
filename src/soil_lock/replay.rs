//! `status` and `check` replayed ([`crate::replay`]): a run that finds every input as an
//! earlier run of the same command found them prints what that run printed, and exits as
//! it did, without decoding the cache or computing anything.
//!
//! The output is a pure function of the root's files, the command line and the directory
//! it runs in. Its [`Fingerprint`]: the root's path, `soil.toml` and each `_private.soil`
//! by content; every definition's `.tr`, `.lock` and `.soil` by stat (absent ones as
//! absent); the paths the walk could not name; and each file an oracle names, by where it
//! was found and its stat. Replays live in `.lockgraph/soil`; only runs that printed no
//! warning past the walk are kept (`root::warned`).

use super::Failure;
use super::cli::Command;
use crate::replay::{self, FileSet, Key, Place, Replay, Told};
use crate::statcache::{HashBytes, Stat};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Write;
use std::path::Path;

/// The key of `command`, if its output can be replayed (`status` and `check`: the
/// commands scripts and CI run again and again; the others write files or answer one
/// question). `check`'s GitHub and GitLab reports give paths relative to the directory it
/// runs in, which is part of the key.
pub fn key(command: &Command) -> Option<Key> {
    if !matches!(command, Command::Status { .. } | Command::Check { .. }) {
        return None;
    }
    let cwd = std::env::current_dir().ok()?;
    Some(Key::new(format!("{command:?}\n{}", cwd.display())))
}

/// A file an oracle names (a reference file, a CLI executable) as a run found it: where
/// its key led and that file's stat, each `None` when there was none.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExternalSeen {
    pub key: String,
    pub file: Option<String>,
    pub stat: Option<Stat>,
}

/// A soil-lock run's inputs.
pub struct Fingerprint(replay::Fingerprint);

impl Fingerprint {
    /// Starts with the command line, the root and its `soil.toml`.
    pub fn new(key: &Key, root: &Path, soil_toml: &str) -> Fingerprint {
        let mut f = replay::Fingerprint::new(key);
        f.put(&(root.to_string_lossy(), soil_toml));
        Fingerprint(f)
    }

    /// The definitions, told as a set ([`definition`]).
    pub fn definitions(&mut self, set: &FileSet) {
        self.0.put(&0u8);
        self.0.put_files(set);
    }

    /// The inputs told after the definitions: each module's `_private.soil` (read on every
    /// run) by content, the paths the walk could not name, the files the oracles name (by
    /// key); then the digest.
    pub fn finish_with(
        mut self,
        private: &[(String, Option<Vec<u8>>)],
        unnamed: &[String],
        externals: &[ExternalSeen],
    ) -> Option<Told> {
        for (module, bytes) in private {
            let digest = bytes.as_deref().map(Sha256::digest);
            self.0.put(&(1u8, module, digest.as_deref()));
        }
        self.0.put(&(2u8, unnamed));
        for stat in externals.iter().filter_map(|e| e.stat.as_ref()) {
            self.0.saw(stat);
        }
        self.0.put(&(3u8, externals));
        self.0.finish()
    }
}

/// Adds a definition's `.tr`, `.lock` and `.soil` to `set`, each by stat or absent (a
/// file that is there without a known stat is [`FileSet::unknown`]).
pub fn definition(set: &mut FileSet, stem: &str, files: [Option<Stat>; 3], scratch: &mut Vec<u8>) {
    for stat in files.iter().flatten() {
        set.saw(stat);
    }
    set.add_item(&(stem, files), scratch);
}

/// Where `root`'s replays are: `.lockgraph/soil`, this build's.
fn place(root: &Path) -> Option<Place> {
    let (lockgraph, dir) = super::cache::dirs(root).ok()?;
    let engine = super::cache::engine_key();
    Some(Place {
        lockgraph,
        dir,
        engine,
    })
}

/// The replay kept for `key` in `root`, if there is a whole one from this build. Its extra
/// is the files the oracles named in the run that is kept. What a killed run left in the
/// directory is swept first, as opening the cache would.
pub fn load(root: &Path, key: &Key) -> Option<Replay<Vec<ExternalSeen>>> {
    let place = place(root)?;
    crate::fsutil::sweep_leftovers(&place.dir);
    replay::load(&place, key)
}

/// What a run derived its output from, for its replay: the fingerprint and the files the
/// oracles named (which a later run looks up again before it can compute the fingerprint).
pub struct Inputs {
    pub told: Told,
    pub externals: Vec<ExternalSeen>,
    /// The digest of the replay (or stub) kept before, which did not match.
    pub previous: Option<HashBytes>,
}

/// Runs `run` and keeps its output as the replay of `key` for `inputs` in `root`
/// ([`replay::record`]).
pub fn record(
    root: &Path,
    key: &Key,
    inputs: Inputs,
    run: impl FnOnce(&mut dyn Write) -> (Result<bool, Failure>, bool),
) -> Result<bool, Failure> {
    let Inputs {
        told,
        externals,
        previous,
    } = inputs;
    replay::record(place(root).as_ref(), key, told, externals, previous, run)
}
