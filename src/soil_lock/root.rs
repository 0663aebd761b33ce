//! A soil root on disk: `soil.toml`, every `.tr`/`.lock`/`.soil`, and the files and
//! executables that oracles name. Reads everything the engine needs and nothing else — and,
//! with the cache, nothing the cache vouches for.

use super::Failure;
use super::cache::{self, Cached, Files, Seen, SoilCache, Taken};
use super::remote::{self, Plan};
use super::replay::{self, ExternalSeen, Fingerprint};
use super::walk;
use crate::fsutil::read_regular;
use crate::gitindex::GitIndex;
use crate::remote::Remote;
use crate::replay::{FileSet, Key, Told};
use crate::statcache::Stat;
use lockgraph_queries::db::Database;
use lockgraph_queries::hash::ContentHash;
use lockgraph_queries::soil::engine::{
    self, Definition, InputError, Project, Resolution, external_key,
};
use lockgraph_queries::soil::sidecar::{SidecarError, Versions};
use lockgraph_queries::soil::soil_hash::{self, PrivateFile};
use lockgraph_queries::soil::spec_hash::oracle_digest;
use rayon::prelude::*;
use salsa::Setter;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// The derived manifest's file name; never a definition's sidecar.
pub const MANIFEST: &str = "soil.lock";

/// Whether a warning was given past the walk: such a run's output is not kept for replay,
/// which would not repeat the warning.
static WARNED: AtomicBool = AtomicBool::new(false);

/// Prints `warning: {text}` (a file taken as absent, an oracle's file not read).
fn warn(text: impl std::fmt::Display) {
    WARNED.store(true, Relaxed);
    eprintln!("warning: {text}");
}

/// Whether this run has warned of anything past the walk.
pub fn warned() -> bool {
    WARNED.load(Relaxed)
}

/// The Soil language version new sidecars record (trellis writes this one).
const SOIL_LANGUAGE_VERSION: &str = "0.1";

// The doc comments of this type and its fields are the descriptions of its JSON Schema
// (`docs/soil.schema.json`, [`soil_toml_schema`]): written for the person editing the file.
/// `soil.toml` marks the root of a trellis project; these are the keys soil-lock reads.
#[derive(Debug, Default, serde::Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "soil.toml")]
pub struct SoilToml {
    /// The toolchain the root pins: `trellis` (recorded in each new sidecar's `versions`)
    /// and `soil`, the language version (default `0.1`); other tools' entries are kept.
    #[serde(default)]
    #[schemars(schema_with = "toolchain_schema")]
    pub toolchain: BTreeMap<String, toml::Value>,
    /// The tags specs may carry, each with what it means; a spec's undeclared tag is a
    /// `tr-undeclared-tag` error. Without the table, tags are not checked.
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// Packages trusted by their content hash (`sha256:…`).
    #[serde(default)]
    pub trusted_packages: BTreeMap<String, String>,
}

fn toolchain_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "properties": {
            "trellis": { "type": "string", "description": "The trellis version the root pins." },
            "soil": { "type": ["string", "number"], "description": "The Soil language version (default 0.1)." },
        },
        "additionalProperties": { "type": ["string", "integer", "boolean"] },
    })
}

/// The JSON Schema of `soil.toml`, as committed in `docs/soil.schema.json`.
pub fn soil_toml_schema() -> serde_json::Value {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<SoilToml>();
    let mut schema = serde_json::to_value(schema).expect("a schema is JSON");
    lockgraph_queries::copy::config::unwrap_descriptions(&mut schema);
    schema
}

impl SoilToml {
    /// The `versions` a new sidecar records, as trellis writes them: `trellis`, the
    /// toolchain `soil.toml` pins (trellis refuses to run unless it is its own version),
    /// then `soil`, the language version — `0.1` unless `[toolchain]` says otherwise.
    pub fn versions(&self) -> Versions {
        let get = |key: &str| {
            self.toolchain
                .get(key)
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_string))
        };
        let mut out = Vec::new();
        if let Some(trellis) = get("trellis") {
            out.push(("trellis".into(), trellis.into()));
        }
        out.push((
            "soil".into(),
            get("soil")
                .unwrap_or_else(|| SOIL_LANGUAGE_VERSION.to_string())
                .into(),
        ));
        Versions(out)
    }
}

pub struct Root {
    pub dir: PathBuf,
    pub toml: SoilToml,
    pub db: Database,
    /// By path, sorted.
    pub defs: Vec<Definition>,
    /// The cache, and how each definition's `.tr`, `.lock` and `.soil` were taken in (by index in
    /// `defs`), until [`Root::take_cache`]; `None` without the cache.
    cache: Option<(SoilCache, Vec<[Seen; 3]>)>,
    /// The remote cache and what this run looked up there, until [`Root::take_remote`].
    remote: Option<(Remote, Plan)>,
    /// Files the walk found whose path is not UTF-8 ([`walk::Walked::unnamed`]).
    pub unnamed: Vec<String>,
    /// The files the oracles read (reference files, CLI executables) as last hashed, each
    /// as named and as resolved: beside the definitions' own files, what a watch follows.
    pub oracle_files: BTreeSet<PathBuf>,
    /// What this run's output is computed from, when it is opened for a command whose
    /// output is kept for replay (and through the cache, whose stats it is told by).
    pub replay_inputs: Option<replay::Inputs>,
}

/// What opening the root came to.
pub enum Opened {
    Root(Box<Root>),
    /// Every input was as a kept run found it: its output was printed again, and this is
    /// its exit (`true`: clean).
    Replayed(bool),
}

/// The nearest directory with `soil.toml`, walking up from `start`.
pub fn discover(start: &Path) -> Option<PathBuf> {
    start
        .ancestors()
        .find(|d| d.join("soil.toml").is_file())
        .map(Path::to_path_buf)
}

impl Root {
    /// Opens the root; with `use_cache`, through the cache in `.lockgraph/soil/`, and with
    /// `remote`, what the files read from disk derive is looked up there too. With
    /// `replay` (and the cache), the output kept for that command line is printed instead
    /// if every input is as the run that printed it found them ([`replay`]).
    pub fn open(
        root: Option<&Path>,
        use_cache: bool,
        remote: Option<Remote>,
        replay: Option<&Key>,
    ) -> Result<Opened, Failure> {
        Root::open_in(root, Database::default(), use_cache, remote, true, replay)
    }

    /// Opens the root for a session (watch, language server) into `db` (a database with an
    /// execution log, in watch tests), reading every file and keeping its bytes: a session
    /// compares each event's bytes with the ones it holds.
    pub fn open_with(root: Option<&Path>, db: Database) -> Result<Root, Failure> {
        match Root::open_in(root, db, false, None, false, None)? {
            Opened::Root(root) => Ok(*root),
            Opened::Replayed(_) => unreachable!("nothing is replayed without a key"),
        }
    }

    /// `one_shot`: the run ends after one command, so a file read from disk goes in as
    /// what the engine makes of it ([`parse_read`]) and its bytes are dropped at once; a
    /// session keeps them.
    fn open_in(
        root: Option<&Path>,
        mut db: Database,
        use_cache: bool,
        remote: Option<Remote>,
        one_shot: bool,
        replay: Option<&Key>,
    ) -> Result<Opened, Failure> {
        let dir = match root {
            Some(r) => r.to_path_buf(),
            None => {
                let cwd = std::env::current_dir()
                    .map_err(|e| Failure::new(format!("cannot read the current directory: {e}")))?;
                discover(&cwd).ok_or_else(|| {
                    Failure::new(format!(
                        "no soil.toml in {} or any parent directory; pass --root",
                        cwd.display()
                    ))
                })?
            }
        };
        // Absolute, so file events (which carry absolute paths) map back to identities.
        let dir = fs::canonicalize(&dir).unwrap_or(dir);
        let toml_path = dir.join("soil.toml");
        let text = crate::fsutil::read_regular_to_string(&toml_path)
            .map_err(|e| Failure::new(format!("{}: {e}", toml_path.display())))?;
        let toml: SoilToml = toml::from_str(&text).map_err(|e| {
            let at = e
                .span()
                .map(|s| {
                    let at =
                        lockgraph_queries::text::LineIndex::new(&text).line_col(&text, s.start);
                    format!(":{}:{}", at.line, at.column)
                })
                .unwrap_or_default();
            Failure::new(format!("{}{at}: {}", toml_path.display(), e.message()))
        })?;
        let replay = replay.filter(|_| use_cache);
        // With a remote cache in a git checkout, the walk's stats name the files by git's
        // index, so that a served chunk's files are never read.
        let by_git = remote.is_some() && crate::gitindex::path(&dir).is_some();
        let stats = use_cache && (by_git || cache::on_disk(&dir));
        // Decoding the cache and listing the root are independent; overlapped, one fills
        // the gaps the other's system calls leave. Where a replay is kept, the cache is
        // decoded only if the replay does not match.
        let phase = crate::logging::phase("open the cache, walk and stat");
        let ((kept, cache, index), listed) = rayon::join(
            || {
                let kept = replay
                    .filter(|_| stats)
                    .and_then(|key| replay::load(&dir, key));
                let cache = (use_cache && kept.is_none()).then(|| SoilCache::open(&dir));
                let index = (by_git && kept.is_none())
                    .then(|| GitIndex::open(&dir))
                    .flatten();
                (kept, cache, index)
            },
            || list(&dir, stats),
        );
        let walked = listed?;
        drop(phase);
        let private: Vec<(String, Option<Vec<u8>>)> = walked
            .private_modules
            .par_iter()
            .map(|module| (module.clone(), read_private(&dir, module)))
            .collect();
        let mut previous = None;
        if let (Some(key), Some(kept)) = (replay, kept) {
            let _phase = crate::logging::phase("match the replay");
            // The definitions' stats first: after an edit, nothing else is asked.
            let files = walked.definitions.iter();
            let stats = files.flat_map(|l| [&l.tr, &l.lock, &l.soil]);
            let stats = stats.filter_map(|f| match f {
                walk::File::Present(stat) => stat.as_ref(),
                walk::File::Absent => None,
            });
            if kept.could_match(stats) {
                let now = walked_inputs(key, &dir, &text, &walked, &private, kept.extra());
                if now.is_some_and(|now| kept.matches(&now)) && !warned() {
                    return Ok(Opened::Replayed(kept.print()));
                }
            }
            previous = Some(kept.digest());
        }
        let cache = match cache {
            Some(cache) => Some(cache),
            None => use_cache.then(|| {
                let _phase = crate::logging::phase("open the cache");
                SoilCache::open(&dir)
            }),
        };
        let mut cache = cache.transpose().map_err(|e| Failure::new(e.to_string()))?;
        crate::testhook::pause("soil-read");
        let phase = crate::logging::phase("take in the definitions");
        let TakenIn { defs, seen, plan } = take_in_definitions(
            &dir,
            &db,
            walked.definitions,
            cache.as_mut(),
            remote.as_ref().map(|r| (r, index.as_ref())),
            one_shot,
        )?;
        let remote = remote.zip(plan);
        let private_files = private
            .iter()
            .filter_map(|(module, bytes)| {
                let bytes = bytes.clone()?;
                Some(PrivateFile::new(&db, module.clone(), bytes))
            })
            .collect();
        // Oracles are found in the sidecars: read them on every core now rather than one by
        // one when the externals are collected.
        defs.par_iter().for_each_with(db.clone(), |db, &d| {
            engine::parsed_sidecar(db, d);
        });
        drop(phase);
        let project = Project::new(&db, defs.clone(), BTreeMap::new());
        let vocabulary = toml.tags.keys().cloned().collect();
        project.set_tag_vocabulary(&mut db).to(Some(vocabulary));
        project.set_private_files(&mut db).to(private_files);
        let mut root = Root {
            dir,
            toml,
            db,
            defs,
            cache: cache.map(|c| (c, seen)),
            remote,
            unnamed: walked.unnamed,
            oracle_files: BTreeSet::new(),
            replay_inputs: None,
        };
        let phase = crate::logging::phase("hash the externals");
        let externals = root.hash_externals();
        drop(phase);
        if let (Some(key), Some((_, seen))) = (replay, &root.cache) {
            root.replay_inputs =
                run_inputs(key, &root, &text, seen, &private, &externals).map(|told| {
                    replay::Inputs {
                        told,
                        externals,
                        previous,
                    }
                });
        }
        Ok(Opened::Root(Box::new(root)))
    }

    /// The cache and what this run saw of each definition's files, for the caller to save
    /// ([`SoilCache::save`]: nothing when nothing changed) once the files are taken in; it
    /// needs only what they parsed to, so it can run beside the engine's work.
    pub fn take_cache(&mut self) -> Option<(SoilCache, Vec<[Seen; 3]>)> {
        self.cache.take()
    }

    /// The remote cache and what this run looked up there, for the caller to store what
    /// the server did not have ([`remote::store_beside`]); like the cache, it needs only
    /// what the files parsed to.
    pub fn take_remote(&mut self) -> Option<(Remote, Plan)> {
        self.remote.take()
    }

    /// Hashes every reference file and CLI executable an oracle names, and sets them when
    /// they changed; what each oracle's key led to, by key (for the replay's inputs).
    pub fn hash_externals(&mut self) -> Vec<ExternalSeen> {
        let mut keys = BTreeSet::new();
        for &def in &self.defs {
            if let Some(s) = engine::sidecar_of(&self.db, def) {
                keys.extend(s.oracles.iter().filter_map(external_key));
            }
        }
        let cache = self.cache.as_ref().map(|(c, _)| c);
        /// One oracle key: where it leads (or why not there), that file's stat, its hash,
        /// and whether the cache vouched for the hash.
        type Hashed = (
            Result<Option<PathBuf>, String>,
            Option<Stat>,
            Option<ContentHash>,
            bool,
        );
        let hashed: Vec<(String, Hashed)> = keys
            .into_par_iter()
            .map(|key| {
                let file = locate(&self.dir, &key);
                let (stat, hash, known) = match (&file, cache) {
                    (Err(_) | Ok(None), _) => (None, None, false),
                    (Ok(Some(f)), None) => {
                        (None, read_external(f).map(|b| oracle_digest(&b)), false)
                    }
                    (Ok(Some(f)), Some(cache)) => hash_through(cache, f),
                };
                (key, (file, stat, hash, known))
            })
            .collect();
        self.oracle_files.clear();
        let mut kept = Vec::new();
        let mut all_known = true;
        let mut hashes = BTreeMap::new();
        let mut seen = Vec::with_capacity(hashed.len());
        for (key, (file, stat, hash, known)) in hashed {
            let file = file.unwrap_or_else(|why| {
                warn(why);
                None
            });
            if let Some(f) = &file {
                self.oracle_files.extend(crate::fsutil::resolve(f).ok());
                self.oracle_files.insert(f.clone());
            }
            hashes.insert(key.clone(), hash.map(|h| h.to_string()));
            let file = file.map(|f| f.to_string_lossy().into_owned());
            if let (Some(path), Some(stat), Some(hash)) = (&file, stat, hash) {
                all_known &= known;
                kept.push((path.clone(), stat, hash));
            }
            seen.push(ExternalSeen { key, file, stat });
        }
        if let Some((cache, _)) = &mut self.cache {
            cache.set_externals(kept, all_known);
        }
        Project::get(&self.db)
            .set_externals(&mut self.db)
            .to(hashes);
        seen
    }

    /// What `name` names: a root-relative path (`csvstats/median`, with or without
    /// `.tr`/`.lock`), or a bare name (`median`), which must be one definition's.
    pub fn resolve(&self, name: &str) -> Resolution {
        let name = name.trim_end_matches(".tr").trim_end_matches(".lock");
        engine::def_index(&self.db).resolve("", name)
    }

    /// The definition `name` names ([`Root::resolve`]), or why there is none.
    pub fn find(&self, name: &str) -> Result<Definition, Failure> {
        let index = engine::def_index(&self.db);
        match self.resolve(name) {
            Resolution::Found(path) => Ok(index.get(&path).expect("resolved from the index")),
            Resolution::Ambiguous(many) => Err(Failure::new(format!(
                "`{name}` names {} definitions ({}); give the path",
                many.len(),
                many.join(", ")
            ))),
            Resolution::Missing => Err(Failure::new(format!(
                "no definition `{name}` under {}",
                self.dir.display()
            ))),
        }
    }

    /// Takes in the current `_private.soil` of `module` (after a watch event).
    pub fn reload_private(&mut self, module: &str) -> Result<(), Failure> {
        let bytes = read_private(&self.dir, module);
        let project = Project::get(&self.db);
        let mut files = project.private_files(&self.db).clone();
        let at = files.iter().position(|f| f.module(&self.db) == module);
        match (at, bytes) {
            (Some(i), Some(bytes)) => {
                if *files[i].bytes(&self.db) != bytes {
                    files[i].set_bytes(&mut self.db).to(bytes);
                }
                return Ok(());
            }
            (Some(i), None) => {
                files.remove(i);
            }
            (None, Some(bytes)) => files.push(PrivateFile::new(&self.db, module.to_owned(), bytes)),
            (None, None) => return Ok(()),
        }
        project.set_private_files(&mut self.db).to(files);
        Ok(())
    }

    pub fn file(&self, def: Definition, ext: &str) -> PathBuf {
        self.dir.join(format!("{}.{ext}", def.path(&self.db)))
    }
}

/// The stat of `file` (taken before reading) and its hash, read unless the cache vouches
/// for it; and whether the cache did.
fn hash_through(cache: &SoilCache, file: &Path) -> (Option<Stat>, Option<ContentHash>, bool) {
    let Ok(stat) = fs::metadata(file).map(|m| Stat::of(&m)) else {
        return (None, None, false);
    };
    match cache.known_external(&file.to_string_lossy(), &stat) {
        Some(hash) => (Some(stat), Some(hash), true),
        None => (
            Some(stat),
            read_external(file).map(|b| oracle_digest(&b)),
            false,
        ),
    }
}

/// An oracle's file, `None` when it cannot be read (then its users are `stale-oracle`); a
/// file that is not a regular one is not opened, and said so.
fn read_external(file: &Path) -> Option<Vec<u8>> {
    match read_regular(file) {
        Ok(bytes) => Some(bytes),
        Err(e) => {
            if e.kind() == std::io::ErrorKind::InvalidInput {
                warn(format!("{}: {e}", file.display()));
            }
            None
        }
    }
}

/// Where an oracle's key leads: a reference file under the root, or the executable a CLI
/// oracle runs (`None` when there is none on `PATH`). `Err` says why the file it names is
/// not read — the warning to give.
fn locate(root: &Path, key: &str) -> Result<Option<PathBuf>, String> {
    match key.strip_prefix("cli:") {
        Some(command) => executable(root, command),
        None => inside(root, key).map(Some),
    }
}

/// `rel` under the root, unless it leads outside it, by its words or through a symlink
/// (then it is not read, and the error says so: a sidecar must not make soil-lock read
/// `/etc/passwd`, and an identical file outside must not clear `stale-oracle`).
fn inside(root: &Path, rel: &str) -> Result<PathBuf, String> {
    if !lockgraph_queries::relpath::stays_inside(rel) {
        return Err(format!(
            "{rel}: outside the root; an oracle's file is not read there"
        ));
    }
    let path = root.join(rel);
    // `root` is canonical (see `Root::open_in`). A path that cannot be resolved (unreadable,
    // a loop) is the read's to report.
    if crate::fsutil::resolve(&path).is_ok_and(|to| !to.starts_with(root)) {
        return Err(format!(
            "{rel}: a symlink leads outside the root; an oracle's file is not read there"
        ));
    }
    Ok(path)
}

/// The executable a CLI oracle runs: its first word, relative to the root if it has a
/// slash, else looked up on `PATH`.
fn executable(root: &Path, command: &str) -> Result<Option<PathBuf>, String> {
    let Some(program) = command.split_whitespace().next() else {
        return Ok(None);
    };
    if program.contains('/') {
        return inside(root, program).map(Some);
    }
    let Some(path) = std::env::var_os("PATH") else {
        return Ok(None);
    };
    Ok(std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file()))
}

/// Every definition under the root, read from disk: the union of `.tr` and `.lock` stems
/// (a sidecar whose spec is gone is still a definition, so its staleness shows).
pub fn load_definitions(dir: &Path, db: &Database) -> Result<Vec<Definition>, Failure> {
    let listed = list(dir, false)?;
    take_in_definitions(dir, db, listed.definitions, None, None, false).map(|t| t.defs)
}

/// The walk; `stat`: with the stats the cache needs.
fn list(dir: &Path, stat: bool) -> Result<walk::Walked, Failure> {
    walk::definitions(dir, MANIFEST, stat).map_err(|e| Failure::new(format!("walking {e}")))
}

/// The definitions the walk listed, as inputs. With a cache, each file the cache vouches
/// for goes in as its kept value instead of its bytes; the second list says, per
/// definition, how its `.tr`, `.lock` and `.soil` were taken in (what saving the cache
/// needs; without a cache nothing is looked up, and each file is statted as it is opened).
/// With a remote cache, the files git's index names (`remote`'s index, if the root is a
/// git checkout) are looked up there before any is read ([`remote::look_up_named`]), and
/// the other files read from disk after reading ([`remote::prefetch`]). With `derive`,
/// what is still bytes after that goes in as what the engine makes of it.
fn take_in_definitions(
    dir: &Path,
    db: &Database,
    listed: Vec<walk::Listed>,
    cache: Option<&mut SoilCache>,
    remote: Option<(&Remote, Option<&GitIndex>)>,
    derive: bool,
) -> Result<TakenIn, Failure> {
    let with_entries: Vec<(walk::Listed, Option<Cached>)> = match cache {
        Some(cache) => {
            let taken = listed
                .into_iter()
                .map(|l| {
                    let kept = cache.take(&l.stem);
                    (l, kept)
                })
                .collect();
            cache.release_taken();
            taken
        }
        None => listed.into_iter().map(|l| (l, None)).collect(),
    };
    let mut by_git = remote.and_then(|(remote, index)| {
        let (listed, kept): (Vec<&walk::Listed>, Vec<&Option<Cached>>) =
            with_entries.iter().map(|(l, k)| (l, k)).unzip();
        let kept = |def: usize, kind: usize| {
            kept[def]
                .as_ref()
                .is_some_and(|k| [k.tr.is_some(), k.lock.is_some(), k.soil.is_some()][kind])
        };
        let by_git = remote::look_up_named(remote, index?, &listed, kept);
        crate::testhook::pause("soil-named");
        Some(by_git)
    });
    let served: Vec<remote::Served> = match &mut by_git {
        Some(by_git) => std::mem::take(&mut by_git.served),
        None => (0..with_entries.len())
            .map(|_| remote::Served::default())
            .collect(),
    };
    let named: &[[Option<Stat>; 3]] = by_git.as_ref().map_or(&[], |b| &b.named);
    let remote = remote.map(|(remote, _)| remote);
    let parsed = AtomicUsize::new(0);
    let read = AtomicUsize::new(0);
    let mut contents: Vec<Files> = with_entries
        .into_par_iter()
        .zip(served)
        .enumerate()
        .map(|(def, ((listed, kept), served))| {
            let (tr_kept, lock_kept, soil_kept, written) = match kept {
                Some(k) => (k.tr, k.lock, k.soil, k.written_ns),
                None => (None, None, None, 0),
            };
            let named = named.get(def).copied().unwrap_or_default();
            let file = |ext| dir.join(format!("{}.{ext}", listed.stem));
            let (tr, tr_seen) = take(
                file("tr"),
                listed.tr,
                (served.tr, named[0]),
                tr_kept,
                written,
                unread_tr,
            );
            let (lock, lock_seen) = take(
                file("lock"),
                listed.lock,
                (served.lock, named[1]),
                lock_kept,
                written,
                unread_lock,
            );
            // A `.soil` is looked for only where the walk saw one; its hash forms have no
            // error to carry, so an unreadable one is absent (with a warning).
            let (soil, soil_seen) = match listed.soil {
                walk::File::Absent => (Taken::Absent, Seen::Absent),
                found => take(
                    file("soil"),
                    found,
                    (served.soil, named[2]),
                    soil_kept,
                    written,
                    |_| None,
                ),
            };
            let mut files = Files {
                stem: listed.stem,
                tr,
                lock,
                soil,
                seen: [tr_seen, lock_seen, soil_seen],
            };
            let bytes = [files.tr.bytes(), files.lock.bytes(), files.soil.bytes()];
            read.fetch_add(bytes.iter().flatten().count(), Relaxed);
            // Without a remote cache to look the bytes up in, they are done with now.
            if derive && remote.is_none() {
                parsed.fetch_add(parse_read(&mut files), Relaxed);
            }
            files
        })
        .collect();
    crate::logging::count("file reads", || read.load(Relaxed));
    let mut plan = None;
    if let Some(remote) = remote {
        let by_content = remote::prefetch(remote, &mut contents, named);
        let joined = match by_git {
            Some(by_git) => {
                let seen: Vec<[Seen; 3]> = contents.iter().map(|f| f.seen).collect();
                by_git.settle(&seen).join(by_content)
            }
            None => by_content,
        };
        joined.log(remote);
        plan = Some(joined);
    }
    if derive {
        if remote.is_some() {
            contents.par_iter_mut().for_each(|files| {
                parsed.fetch_add(parse_read(files), Relaxed);
            });
        }
        // A session's files are parsed later, by the engine's queries.
        crate::logging::count("files parsed", || parsed.load(Relaxed));
    }
    let mut seen = Vec::with_capacity(contents.len());
    let defs = contents
        .into_iter()
        .map(|f| {
            seen.push(f.seen);
            let (tr, tr_known) = split(f.tr);
            let (lock, lock_known) = split(f.lock);
            let (soil, soil_known) = split(f.soil);
            Definition::builder(f.stem, tr, lock, soil)
                .tr_known(tr_known)
                .sidecar_known(lock_known)
                .soil_known(soil_known)
                .new(db)
        })
        .collect();
    Ok(TakenIn { defs, seen, plan })
}

/// The definitions as inputs, how each one's files were seen (by index), and what the
/// remote cache was asked.
struct TakenIn {
    defs: Vec<Definition>,
    seen: Vec<[Seen; 3]>,
    plan: Option<Plan>,
}

/// The inputs of a run as the walk finds them, for matching a replay: every file by the
/// walk's stat, and each oracle's key of the kept run looked up again (`None` when a
/// stat is missing, or a key now leads somewhere that would be warned of).
fn walked_inputs(
    key: &Key,
    dir: &Path,
    soil_toml: &str,
    walked: &walk::Walked,
    private: &[(String, Option<Vec<u8>>)],
    externals: &[ExternalSeen],
) -> Option<Told> {
    let mut f = Fingerprint::new(key, dir, soil_toml);
    let set = FileSet::of(&walked.definitions, |set, listed, scratch| {
        let mut stat = |file: walk::File| match file {
            walk::File::Absent => None,
            walk::File::Present(stat) => {
                if stat.is_none() {
                    set.unknown();
                }
                stat
            }
        };
        let files = [stat(listed.tr), stat(listed.lock), stat(listed.soil)];
        replay::definition(set, &listed.stem, files, scratch);
    });
    f.definitions(&set);
    let now: Vec<ExternalSeen> = externals
        .par_iter()
        .map(|e| {
            let file = locate(dir, &e.key).ok()?;
            let stat = file
                .as_deref()
                .and_then(|f| fs::metadata(f).ok())
                .map(|m| Stat::of(&m));
            let file = file.map(|f| f.to_string_lossy().into_owned());
            Some(ExternalSeen {
                key: e.key.clone(),
                file,
                stat,
            })
        })
        .collect::<Option<_>>()?;
    f.finish_with(private, &walked.unnamed, &now)
}

/// The inputs of this run as it took them in: every file by the stat it was seen with
/// (taken before it was read), and each oracle's key as it was looked up.
fn run_inputs(
    key: &Key,
    root: &Root,
    soil_toml: &str,
    seen: &[[Seen; 3]],
    private: &[(String, Option<Vec<u8>>)],
    externals: &[ExternalSeen],
) -> Option<Told> {
    let mut f = Fingerprint::new(key, &root.dir, soil_toml);
    let stat = |seen: &Seen| match seen {
        Seen::Known(stat) | Seen::Read { stat, .. } => Some(*stat),
        Seen::Absent | Seen::Gone => None,
    };
    let mut set = FileSet::default();
    let mut scratch = Vec::new();
    for (&def, seen) in root.defs.iter().zip(seen) {
        let files = seen.each_ref().map(stat);
        replay::definition(&mut set, def.path(&root.db), files, &mut scratch);
    }
    f.definitions(&set);
    f.finish_with(private, &root.unnamed, externals)
}

/// The bytes of `path`, `None` if it is gone; one that cannot be read is absent too, with
/// a warning naming it (a helper file deleted or replaced mid-run never ends it).
fn read_if_present(path: &Path) -> Option<Vec<u8>> {
    match read_regular(path) {
        Ok(bytes) => Some(bytes),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            let why = crate::fsutil::why_unread(&e);
            warn(format!("{}: {why}; taken as absent", path.display()));
            None
        }
    }
}

/// A module's `_private.soil`, `None` if it has none.
fn read_private(dir: &Path, module: &str) -> Option<Vec<u8>> {
    let file = if module.is_empty() {
        dir.join("_private.soil")
    } else {
        dir.join(module).join("_private.soil")
    };
    read_if_present(&file)
}

/// One file of a definition: its kept value if the cache vouches for it, else read. A file the walk did not
/// list as a regular file is still looked for (a symlinked spec beside a real sidecar is
/// read through the link). A file deleted since the walk is absent, as if deleted before
/// it; one that cannot be read (replaced by a directory, no permission) goes in as what
/// `unread` makes of the reason — the definition's error, reported like a file that does
/// not parse — or, where `unread` has nothing, is absent with a warning. Either way one
/// file never ends the run.
///
/// A file in a chunk by git (`named`: the walk's stat, which git's index recorded) goes
/// in as what the server `served`, as read with that stat; if its chunk was missed, it is
/// read with a stat of its own, from the open file, which says whether the bytes are
/// still the blob's ([`remote::ByGit::settle`]).
fn take<T>(
    path: PathBuf,
    listed: walk::File,
    (served, named): (Option<T>, Option<Stat>),
    kept: Option<(Stat, T)>,
    written_ns: i128,
    unread: fn(String) -> Option<T>,
) -> (Taken<T>, Seen) {
    let stat = match (listed, named) {
        (_, Some(stat)) => match served {
            Some(value) => return (Taken::Known(value), Seen::Read { stat, racy: false }),
            None => None,
        },
        (walk::File::Present(stat), None) => stat,
        (walk::File::Absent, None) => None,
    };
    let taken = cache::take_in(&path, stat, kept, written_ns);
    // Not seen: nothing about the file is kept, so the next run reads it again.
    taken.unwrap_or_else(|e| match unread(crate::fsutil::why_unread(&e)) {
        Some(value) => (Taken::Known(value), Seen::Absent),
        None => {
            warn(format!(
                "{}: {}; taken as absent",
                path.display(),
                crate::fsutil::why_unread(&e)
            ));
            (Taken::Absent, Seen::Absent)
        }
    })
}

/// Puts in place of each of `files`' bytes what the engine makes of them (the pure
/// functions its queries call on bytes), so that the bytes are dropped as soon as they are
/// read and the engine holds one value per file, as when the cache vouches for it. How many
/// files were parsed.
fn parse_read(files: &mut Files) -> usize {
    fn parse<T>(taken: &mut Taken<Box<T>>, how: impl FnOnce(&[u8]) -> T) -> usize {
        match taken {
            Taken::Bytes(bytes) => {
                *taken = Taken::Known(Box::new(how(bytes)));
                1
            }
            Taken::Absent | Taken::Known(_) => 0,
        }
    }
    let stem = files.stem.as_str();
    parse(&mut files.tr, |b| engine::tr_summary_of(stem, b))
        + parse(&mut files.lock, engine::sidecar_of_bytes)
        + parse(&mut files.soil, |b| soil_hash::own_forms_of(stem, b))
}

/// What an unreadable `.tr` goes in as.
pub(super) fn unread_tr(message: String) -> Option<Box<cache::TrKnown>> {
    Some(Box::new(Err(InputError {
        message,
        line: None,
        column: None,
    })))
}

/// What an unreadable `.lock` goes in as.
pub(super) fn unread_lock(message: String) -> Option<Box<cache::LockKnown>> {
    Some(Box::new(Err(SidecarError {
        path: String::new(),
        line: None,
        column: None,
        message,
    })))
}

/// The pair of `Definition` fields a taken file sets: its bytes or its kept value.
fn split<T>(taken: Taken<T>) -> (Option<Vec<u8>>, Option<T>) {
    match taken {
        Taken::Absent => (None, None),
        Taken::Known(value) => (None, Some(value)),
        Taken::Bytes(bytes) => (Some(bytes), None),
    }
}
