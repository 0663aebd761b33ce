//! soil-lock on the remote cache ([`crate::remote`] speaks to the server): what the local
//! cache keeps of each file — the `.tr`'s summary, the parsed `.lock`, the `.soil`'s hash
//! forms — shared between machines.
//!
//! Each is a function of the file's path and bytes alone, so the files read from disk (on
//! a fresh checkout, all of them) are hashed and grouped into chunks by their definition's
//! path ([`crate::remote::chunks_of`]: runs in path order, a definition's files
//! together). A chunk's key is the engine key and each file's path, kind and content
//! hash: an edit invalidates its chunk and no other. A served chunk's values go into the
//! inputs as the local cache's do, in place of the bytes; everything downstream (flags,
//! ladders, the graph) is computed here either way, so the output is the same with or
//! without the server. The values stored are computed from the very bytes hashed for the
//! key (read once, unlike copy-audit's), so no edit during a run can set them apart.
//!
//! In a git checkout (the root at or below its top), the files come named before any is read
//! ([`look_up_named`]): a file whose walk stat is the one git's index recorded holds that
//! index's blob, so a chunk whose every file is so named is keyed by the blob ids and looked
//! up first, and a served chunk's files are never read: a fresh CI clone reads nothing.
//! A missed one's files are read with a stat of their own, and its values are stored only
//! if no stat moved since the walk ([`ByGit::settle`]): else the bytes computed from may not
//! be the blobs the key names.

use super::cache::{Files, LockKnown, Seen, SoilKnown, Taken, TrKnown};
use super::walk;
use crate::gitindex::GitIndex;
use crate::remote::{Remote, chunks_of};
use crate::statcache::Stat;
use lockgraph_queries::db::Database;
use lockgraph_queries::soil::engine::{self, Definition};
use lockgraph_queries::soil::soil_hash;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Which of a definition's files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Kind {
    Tr,
    Lock,
    Soil,
}

impl Kind {
    const ALL: [Kind; 3] = [Kind::Tr, Kind::Lock, Kind::Soil];

    fn ext(self) -> &'static str {
        match self {
            Kind::Tr => "tr",
            Kind::Lock => "lock",
            Kind::Soil => "soil",
        }
    }
}

/// One file's kept value. Generic so that storing serialises borrowed values (from the
/// database) and fetching deserialises boxed ones (as the inputs take them), one layout.
#[derive(Serialize, Deserialize)]
enum Value<T, L, S> {
    Tr(T),
    Lock(L),
    Soil(S),
}

type Fetched = Value<Box<TrKnown>, Box<LockKnown>, Box<SoilKnown>>;

/// One file of a chunk: its definition (an index into the run's definitions) and which
/// file.
#[derive(Clone, Copy)]
struct Member {
    def: usize,
    kind: Kind,
}

/// The chunks a run looked up, kept until the values are computed and the missed ones
/// stored.
pub struct Plan {
    /// Each chunk: its key material and its files.
    chunks: Vec<(Vec<u8>, Vec<Member>)>,
    /// The chunks the server did not serve (indices into `chunks`).
    missed: Vec<usize>,
}

impl Plan {
    /// Both plans' chunks, to be stored alike.
    pub(super) fn join(mut self, other: Plan) -> Plan {
        let base = self.chunks.len();
        self.chunks.extend(other.chunks);
        self.missed
            .extend(other.missed.into_iter().map(|c| base + c));
        self
    }

    /// Logs what the run looked up and was served (with `LOCKGRAPH_LOG=info`).
    pub(super) fn log(&self, remote: &Remote) {
        crate::logging::count("remote blob bytes read, packed", || {
            remote.counts().bytes_read
        });
        crate::logging::count("remote chunks looked up", || self.chunks.len());
        crate::logging::count("remote chunks served", || {
            self.chunks.len() - self.missed.len()
        });
    }
}

/// What the server served for one definition's files, before any was read.
#[derive(Default)]
pub(super) struct Served {
    pub tr: Option<Box<TrKnown>>,
    pub lock: Option<Box<LockKnown>>,
    pub soil: Option<Box<SoilKnown>>,
}

/// The chunks whose every file git's index named, looked up before reading: what each
/// definition was served, which files belong to such a chunk (the lookups by content hash
/// leave them out), and the missed chunks, stored once their files are read unmoved.
pub(super) struct ByGit {
    plan: Plan,
    /// Per definition, per file (`.tr`, `.lock`, `.soil`): its walk stat if it is in a
    /// chunk by git. A served one is taken in as served, a missed one read and statted
    /// afresh.
    pub named: Vec<[Option<Stat>; 3]>,
    pub served: Vec<Served>,
}

/// Looks up the chunks of the files git's index names, before any file is read. A file is
/// a candidate when the walk statted it and the local cache keeps nothing for it
/// (`kept(def, kind)`): on a fresh checkout, every file. A chunk is by git when its every
/// candidate is named (its stat is the one the index recorded, not racily); the files of
/// other chunks are read and looked up by their content ([`prefetch`]).
pub(super) fn look_up_named(
    remote: &Remote,
    index: &GitIndex,
    listed: &[&walk::Listed],
    kept: impl Fn(usize, usize) -> bool + Sync,
) -> ByGit {
    let _phase = crate::logging::phase("remote cache lookups by git's index");
    // Each candidate: (definition, kind, its stat, its blob id if named).
    let candidates: Vec<(usize, Kind, Stat, Option<&[u8]>)> = listed
        .par_iter()
        .enumerate()
        .flat_map_iter(|(def, l)| {
            let kept = &kept;
            [l.tr, l.lock, l.soil]
                .into_iter()
                .zip(Kind::ALL)
                .enumerate()
                .filter_map(move |(k, (file, kind))| match file {
                    walk::File::Present(Some(stat)) if !kept(def, k) => {
                        let path = format!("{}.{}", l.stem, kind.ext());
                        Some((def, kind, stat, index.identity(&path, &stat)))
                    }
                    _ => None,
                })
        })
        .collect();
    let paths: Vec<&str> = candidates
        .iter()
        .map(|c| listed[c.0].stem.as_str())
        .collect();
    let mut chunks: Vec<(Vec<u8>, Vec<Member>)> = Vec::new();
    let mut named = vec![[None; 3]; listed.len()];
    for (name, members) in chunks_of(&paths) {
        if !members.iter().all(|&i| candidates[i].3.is_some()) {
            continue;
        }
        let m = material(
            BY_GIT,
            &name,
            members.iter().map(|&i| {
                let (def, kind, _, oid) = candidates[i];
                let oid = oid.expect("every member is named");
                (listed[def].stem.as_str(), kind, oid)
            }),
        );
        for &i in &members {
            let (def, kind, stat, _) = candidates[i];
            named[def][kind as usize] = Some(stat);
        }
        let members = members
            .iter()
            .map(|&i| Member {
                def: candidates[i].0,
                kind: candidates[i].1,
            })
            .collect();
        chunks.push((m, members));
    }
    crate::logging::count("files named by git's index", || {
        chunks.iter().map(|(_, m)| m.len()).sum::<usize>()
    });
    let (missed, values) = fetch_and_decode(remote, &chunks);
    let mut served: Vec<Served> = (0..listed.len()).map(|_| Served::default()).collect();
    for (def, value) in values {
        let s = &mut served[def];
        match value {
            Value::Tr(v) => s.tr = Some(v),
            Value::Lock(v) => s.lock = Some(v),
            Value::Soil(v) => s.soil = Some(v),
        }
    }
    ByGit {
        plan: Plan { chunks, missed },
        named,
        served,
    }
}

impl ByGit {
    /// The plan of the chunks by git, each missed one kept for storing only if every file of
    /// it was read with the stat the walk took (`seen`, per definition): a file edited since
    /// the walk holds other bytes than the blob its key names.
    pub(super) fn settle(self, seen: &[[Seen; 3]]) -> Plan {
        let ByGit {
            plan: Plan { chunks, missed },
            named,
            ..
        } = self;
        let unmoved = |r: &Member| {
            let k = r.kind as usize;
            matches!(seen[r.def][k], Seen::Read { stat, .. } if Some(stat) == named[r.def][k])
        };
        let missed = missed
            .into_iter()
            .filter(|&c| chunks[c].1.iter().all(unmoved))
            .collect();
        Plan { chunks, missed }
    }
}

/// Fetches the chunks' blobs and decodes each on every core: which chunks were missed, and
/// the served values, each with its definition.
fn fetch_and_decode(
    remote: &Remote,
    chunks: &[(Vec<u8>, Vec<Member>)],
) -> (Vec<usize>, Vec<(usize, Fetched)>) {
    let materials: Vec<Vec<u8>> = chunks.iter().map(|(m, _)| m.clone()).collect();
    // Decoded on every core: a served run's blobs hold what parsing 150,000 files made.
    let decoded: Vec<Option<Vec<Fetched>>> = remote
        .fetch(&materials)
        .into_par_iter()
        .zip(chunks)
        .map(|(blob, (_, members))| decode(&blob?, members))
        .collect();
    let missed = (0..chunks.len())
        .filter(|&c| decoded[c].is_none())
        .collect();
    let values = chunks
        .iter()
        .zip(decoded)
        .flat_map(|((_, members), values)| {
            let defs = members.iter().map(|r| r.def);
            defs.zip(values.into_iter().flatten())
        })
        .collect();
    (missed, values)
}

/// Looks up the chunks of the files `files` read from disk (but those in a chunk by git,
/// `by_git`) and puts what the server serves in place of their bytes.
pub(super) fn prefetch(remote: &Remote, files: &mut [Files], by_git: &[[Option<Stat>; 3]]) -> Plan {
    let _phase = crate::logging::phase("remote cache lookups");
    let read: Vec<(Member, [u8; 32])> = files
        .par_iter()
        .enumerate()
        .flat_map_iter(|(def, f)| {
            [f.tr.bytes(), f.lock.bytes(), f.soil.bytes()]
                .into_iter()
                .zip(Kind::ALL)
                .filter(move |&(_, kind)| {
                    by_git.get(def).is_none_or(|n| n[kind as usize].is_none())
                })
                .filter_map(move |(taken, kind)| {
                    Some((Member { def, kind }, Sha256::digest(taken?).into()))
                })
        })
        .collect();
    // Definitions come sorted by path, so their files are in path order.
    let paths: Vec<&str> = read
        .iter()
        .map(|(r, _)| files[r.def].stem.as_str())
        .collect();
    let chunks: Vec<(Vec<u8>, Vec<Member>)> = chunks_of(&paths)
        .into_iter()
        .map(|(name, members)| {
            let ids = members.iter().map(|&i| {
                let (r, hash) = &read[i];
                (files[r.def].stem.as_str(), r.kind, hash.as_slice())
            });
            let material = material(BY_CONTENT, &name, ids);
            (material, members.iter().map(|&i| read[i].0).collect())
        })
        .collect();
    let (missed, values) = fetch_and_decode(remote, &chunks);
    for (def, value) in values {
        let f = &mut files[def];
        match value {
            Value::Tr(v) => f.tr = Taken::Known(v),
            Value::Lock(v) => f.lock = Taken::Known(v),
            Value::Soil(v) => f.soil = Taken::Known(v),
        }
    }
    Plan { chunks, missed }
}

/// How a chunk's files are identified in its key: by the SHA-256 of their bytes, or by the
/// blob ids git's index records.
const BY_CONTENT: &[u8] = b"lockgraph soil-lock chunk v2\0";
const BY_GIT: &[u8] = b"lockgraph soil-lock chunk by git v1\0";

/// A chunk's key material: what its values depend on. `how` says how the files are
/// identified ([`BY_CONTENT`], [`BY_GIT`]); each member is its definition's stem, which
/// file, and its identity.
fn material<'a>(
    how: &[u8],
    name: &str,
    members: impl ExactSizeIterator<Item = (&'a str, Kind, &'a [u8])>,
) -> Vec<u8> {
    let mut m = Vec::with_capacity(64 + members.len() * 80);
    m.extend_from_slice(how);
    m.extend_from_slice(super::cache::engine_key().as_bytes());
    m.push(0);
    m.extend_from_slice(name.as_bytes());
    for (stem, kind, id) in members {
        m.push(0);
        m.extend_from_slice(stem.as_bytes());
        m.push(kind as u8);
        m.extend_from_slice(id);
    }
    m
}

/// A chunk's blob: the engine key and each file's value, in the chunk's order. The
/// files' hashes are not repeated: the chunk's key names every one of them, and they were
/// most of a packed blob's bytes.
fn encode<T: Serialize>(values: &[T]) -> Option<Vec<u8>> {
    postcard::to_stdvec(&(super::cache::engine_key(), values)).ok()
}

/// The values of a blob, if it is this engine's and holds a value of the right kind for
/// each file asked for, in order.
fn decode(blob: &[u8], members: &[Member]) -> Option<Vec<Fetched>> {
    let (engine, values): (String, Vec<Fetched>) = postcard::from_bytes(blob).ok()?;
    let fits = engine == super::cache::engine_key()
        && values.len() == members.len()
        && members.iter().zip(&values).all(|(r, value)| {
            matches!(
                (r.kind, value),
                (Kind::Tr, Value::Tr(_))
                    | (Kind::Lock, Value::Lock(_))
                    | (Kind::Soil, Value::Soil(_))
            )
        });
    fits.then_some(values)
}

/// Stores the chunks the server did not serve, with the values the engine computed, on a
/// thread of its own (unless read-only, or there are none): the upload mostly waits on the
/// server, while the run computes and prints (it took 218–365 ms at 50,000 definitions,
/// after the output). The values are encoded here, from `db`. Join it before the process
/// exits.
pub(super) fn store_beside(
    remote: Remote,
    plan: &Plan,
    db: &Database,
    defs: &[Definition],
) -> Option<std::thread::JoinHandle<()>> {
    if plan.missed.is_empty() || remote.read_only() || remote.is_gone() {
        return None;
    }
    let blobs: Vec<(Vec<u8>, Vec<u8>)> = plan
        .missed
        .par_iter()
        .map_with(db.clone(), |db, &c| {
            let (material, members) = &plan.chunks[c];
            let values: Option<Vec<_>> = members.iter().map(|r| computed(db, defs, r)).collect();
            Some((material.clone(), encode(&values?)?))
        })
        .flatten()
        .collect();
    let missed = plan.missed.len();
    Some(std::thread::spawn(move || {
        remote.store_missed(missed, || blobs)
    }))
}

/// What the engine made of one file, as a chunk's blob holds it.
type Computed<'db> = Value<&'db TrKnown, &'db LockKnown, &'db SoilKnown>;

/// The value the engine computed for the file `r` (the memoised query result).
fn computed<'db>(db: &'db Database, defs: &[Definition], r: &Member) -> Option<Computed<'db>> {
    let def = defs[r.def];
    let value = match r.kind {
        Kind::Tr => Value::Tr(engine::tr_summary(db, def)?),
        Kind::Lock => Value::Lock(engine::parsed_sidecar(db, def)?),
        Kind::Soil => Value::Soil(soil_hash::own_forms(db, def)?),
    };
    Some(value)
}
