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

use super::cache::{Files, LockKnown, SoilKnown, Taken, TrKnown};
use crate::remote::{Remote, chunks_of};
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

/// One file's kept value. Generic so that storing serialises borrowed values (from the
/// database) and fetching deserialises boxed ones (as the inputs take them), one layout.
#[derive(Serialize, Deserialize)]
enum Value<T, L, S> {
    Tr(T),
    Lock(L),
    Soil(S),
}

type Fetched = Value<Box<TrKnown>, Box<LockKnown>, Box<SoilKnown>>;

/// One file read from disk: its definition (an index into the run's definitions), which
/// file, its content hash.
#[derive(Clone, Copy)]
struct Read {
    def: usize,
    kind: Kind,
    hash: [u8; 32],
}

/// The chunks a run looked up, kept until the values are computed and the missed ones
/// stored.
pub struct Plan {
    /// Each chunk: its key material and its files.
    chunks: Vec<(Vec<u8>, Vec<Read>)>,
    /// The chunks the server did not serve (indices into `chunks`).
    missed: Vec<usize>,
}

/// Looks up the chunks of the files `files` read from disk and puts what the server
/// serves in place of their bytes.
pub(super) fn prefetch(remote: &Remote, files: &mut [Files]) -> Plan {
    let _phase = crate::logging::phase("remote cache lookups");
    let read: Vec<Read> = files
        .par_iter()
        .enumerate()
        .flat_map_iter(|(def, f)| {
            let hash = |kind, taken: &[u8]| Read {
                def,
                kind,
                hash: Sha256::digest(taken).into(),
            };
            [
                bytes(&f.tr).map(|b| hash(Kind::Tr, b)),
                bytes(&f.lock).map(|b| hash(Kind::Lock, b)),
                bytes(&f.soil).map(|b| hash(Kind::Soil, b)),
            ]
            .into_iter()
            .flatten()
        })
        .collect();
    // Definitions come sorted by path, so their files are in path order.
    let paths: Vec<&str> = read.iter().map(|r| files[r.def].stem.as_str()).collect();
    let chunks: Vec<(Vec<u8>, Vec<Read>)> = chunks_of(&paths)
        .into_iter()
        .map(|(name, members)| {
            let members: Vec<Read> = members.into_iter().map(|i| read[i]).collect();
            (material(&name, &members, files), members)
        })
        .collect();
    let materials: Vec<Vec<u8>> = chunks.iter().map(|(m, _)| m.clone()).collect();
    // Decoded on every core: a served run's blobs hold what parsing 150,000 files made.
    let decoded: Vec<Option<Vec<Fetched>>> = remote
        .fetch(&materials)
        .into_par_iter()
        .zip(&chunks)
        .map(|(blob, (_, members))| decode(&blob?, members))
        .collect();
    let mut missed = Vec::new();
    for (c, values) in decoded.into_iter().enumerate() {
        let members = &chunks[c].1;
        match values {
            Some(values) => {
                for (r, value) in members.iter().zip(values) {
                    let f = &mut files[r.def];
                    match value {
                        Value::Tr(v) => f.tr = Taken::Known(v),
                        Value::Lock(v) => f.lock = Taken::Known(v),
                        Value::Soil(v) => f.soil = Taken::Known(v),
                    }
                }
            }
            None => missed.push(c),
        }
    }
    crate::logging::count("remote blob bytes read, packed", || {
        remote.counts().bytes_read
    });
    crate::logging::count("remote chunks looked up", || chunks.len());
    crate::logging::count("remote chunks served", || chunks.len() - missed.len());
    Plan { chunks, missed }
}

fn bytes<T>(taken: &Taken<T>) -> Option<&[u8]> {
    match taken {
        Taken::Bytes(b) => Some(b),
        Taken::Absent | Taken::Known(_) => None,
    }
}

/// A chunk's key material: what its values depend on.
fn material(name: &str, members: &[Read], files: &[Files]) -> Vec<u8> {
    let mut m = Vec::with_capacity(64 + members.len() * 80);
    m.extend_from_slice(b"lockgraph soil-lock chunk v2\0");
    m.extend_from_slice(super::cache::engine_key().as_bytes());
    m.push(0);
    m.extend_from_slice(name.as_bytes());
    for r in members {
        m.push(0);
        m.extend_from_slice(files[r.def].stem.as_bytes());
        m.push(r.kind as u8);
        m.extend_from_slice(&r.hash);
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
fn decode(blob: &[u8], members: &[Read]) -> Option<Vec<Fetched>> {
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
fn computed<'db>(db: &'db Database, defs: &[Definition], r: &Read) -> Option<Computed<'db>> {
    let def = defs[r.def];
    let value = match r.kind {
        Kind::Tr => Value::Tr(engine::tr_summary(db, def)?),
        Kind::Lock => Value::Lock(engine::parsed_sidecar(db, def)?),
        Kind::Soil => Value::Soil(soil_hash::own_forms(db, def)?),
    };
    Some(value)
}
