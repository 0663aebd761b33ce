//! The remote cache in the audit pass ([`crate::remote`] speaks to the server).
//!
//! Files are grouped into **chunks** ([`chunks_of`]: runs of about 512 files in path
//! order). A chunk's key is made of the engine version and each of its files' path and
//! findings key (the local cache's key: content hash, spans, settings), so an edit
//! invalidates its chunk and no other, and a run makes one lookup per chunk, not per
//! file. A chunk's blob holds the reports of its files; it is believed only if it holds a
//! report for exactly the keys asked for (the digest was checked by the client).

use super::super::cache::{CachedReport, Caches, ENGINE_VERSION, ReportRef};
use crate::remote::{Remote, chunks_of};

/// The chunks a run looked up, with what became of them.
pub(super) struct Plan {
    /// Each chunk: its key material and its files (indices into the pass's files).
    chunks: Vec<(Vec<u8>, Vec<usize>)>,
    /// The chunks the server did not serve (indices into `chunks`): to be stored.
    missed: Vec<usize>,
}

/// The key material of a chunk: what its reports depend on.
/// `keys` are the findings keys of `files`, in their order.
fn material(name: &str, files: &[usize], paths: &[&str], keys: &[[u8; 32]]) -> Vec<u8> {
    let mut m = Vec::with_capacity(64 + files.len() * 64);
    m.extend_from_slice(b"lockgraph copy-audit chunk v1\0");
    m.extend_from_slice(ENGINE_VERSION.as_bytes());
    m.push(0);
    m.extend_from_slice(name.as_bytes());
    for (&i, key) in files.iter().zip(keys) {
        m.push(0);
        m.extend_from_slice(paths[i].as_bytes());
        m.push(0);
        m.extend_from_slice(key);
    }
    m
}

/// Looks up every chunk that holds a file the local cache has no report for, and offers
/// what the server serves to the local cache, where the pass takes it as a cached report.
/// `keys[i]` is file `i`'s findings key (None for a file that could not be read: its
/// chunk is neither looked up nor stored).
pub(super) fn prefetch(
    remote: &Remote,
    caches: &mut Caches,
    paths: &[&str],
    keys: &[Option<[u8; 32]>],
) -> Plan {
    let _phase = crate::logging::phase("remote cache lookups");
    let mut plan = Plan {
        chunks: Vec::new(),
        missed: Vec::new(),
    };
    for (name, files) in chunks_of(paths) {
        let Some(chunk_keys) = files.iter().map(|&i| keys[i]).collect::<Option<Vec<_>>>() else {
            continue;
        };
        if chunk_keys.iter().all(|k| caches.has_findings(k)) {
            continue;
        }
        plan.chunks
            .push((material(&name, &files, paths, &chunk_keys), files));
    }
    let materials: Vec<Vec<u8>> = plan.chunks.iter().map(|(m, _)| m.clone()).collect();
    let blobs = remote.fetch(&materials);
    for (c, blob) in blobs.into_iter().enumerate() {
        let files = &plan.chunks[c].1;
        let wanted: Vec<[u8; 32]> = files.iter().filter_map(|&i| keys[i]).collect();
        match blob.and_then(|b| decode(&b, &wanted)) {
            Some(reports) => {
                for (key, report) in reports {
                    caches.offer(key, report);
                }
            }
            None => plan.missed.push(c),
        }
    }
    crate::logging::count("remote chunks looked up", || plan.chunks.len());
    crate::logging::count("remote chunks served", || {
        plan.chunks.len() - plan.missed.len()
    });
    plan
}

/// A chunk's blob: the engine version and each key with its report.
fn encode(reports: &[([u8; 32], ReportRef)]) -> Option<Vec<u8>> {
    postcard::to_stdvec(&(ENGINE_VERSION, reports)).ok()
}

/// The reports of a blob, if it is this engine's and holds exactly the `wanted` keys.
fn decode(blob: &[u8], wanted: &[[u8; 32]]) -> Option<Vec<([u8; 32], CachedReport)>> {
    let (engine, reports): (String, Vec<([u8; 32], CachedReport)>) =
        postcard::from_bytes(blob).ok()?;
    let mut got: Vec<[u8; 32]> = reports.iter().map(|(k, _)| *k).collect();
    let mut want = wanted.to_vec();
    got.sort_unstable();
    got.dedup();
    want.sort_unstable();
    want.dedup();
    (engine == ENGINE_VERSION && got == want).then_some(reports)
}

/// Stores the chunks the server did not serve, from the reports the pass made:
/// `report(i)` is file `i`'s key and report, None if it could not be read.
pub(super) fn upload<'r>(
    remote: &Remote,
    plan: &Plan,
    report: impl Fn(usize) -> Option<([u8; 32], ReportRef<'r>)>,
) {
    remote.store_missed(plan.missed.len(), || {
        plan.missed
            .iter()
            .filter_map(|&c| {
                let (material, files) = &plan.chunks[c];
                let reports: Option<Vec<_>> = files.iter().map(|&i| report(i)).collect();
                Some((material.clone(), encode(&reports?)?))
            })
            .collect()
    });
}
