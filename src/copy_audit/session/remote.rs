//! The remote cache in the audit pass ([`crate::remote`] speaks to the server).
//!
//! Files are grouped into **chunks** ([`crate::remote::chunks_of`]: runs of about 512 files in path
//! order). A chunk's key is made of the engine version and each of its files' path and
//! findings key (the local cache's key: content hash, spans, settings), so an edit
//! invalidates its chunk and no other, and a run makes one lookup per chunk, not per
//! file. A chunk's blob holds the reports of its files, in the chunk's order, without
//! their keys: the chunk's key names every one of them already, and the keys were most of
//! a packed blob's bytes (32 random bytes each, beside a report that packs to a few). It
//! is believed only if it holds a report for each file of the chunk (the digest was
//! checked by the client).

use super::super::cache::{CachedReport, Caches, ENGINE_VERSION, ReportRef};
use crate::remote::Remote;

/// The chunks a run looked up, with what became of them.
pub(super) struct Plan {
    chunks: Vec<Chunk>,
    /// The chunks the server did not serve (indices into `chunks`): to be stored.
    missed: Vec<usize>,
    /// How many of `chunks` the server has answered for (they are answered in order).
    answered: usize,
}

/// A chunk looked up.
struct Chunk {
    /// What its key is the digest of: [`material`].
    material: Vec<u8>,
    /// Its files: indices into the pass's files.
    files: Vec<usize>,
    /// Their findings keys, in the same order.
    keys: Vec<[u8; 32]>,
}

/// The key material of a chunk: what its reports depend on.
/// `keys` are the findings keys of the files at `paths`, in their order.
fn material(name: &str, paths: &[&str], keys: &[[u8; 32]]) -> Vec<u8> {
    let mut m = Vec::with_capacity(64 + paths.len() * 64);
    m.extend_from_slice(b"lockgraph copy-audit chunk v2\0");
    m.extend_from_slice(ENGINE_VERSION.as_bytes());
    m.push(0);
    m.extend_from_slice(name.as_bytes());
    for (path, key) in paths.iter().zip(keys) {
        m.push(0);
        m.extend_from_slice(path.as_bytes());
        m.push(0);
        m.extend_from_slice(key);
    }
    m
}

impl Plan {
    pub(super) fn new() -> Plan {
        Plan {
            chunks: Vec::new(),
            missed: Vec::new(),
            answered: 0,
        }
    }

    /// Adds the chunks of `chunks` (each a name and its files' indices) that hold a file
    /// the local cache has no report for, and returns what to look them up by, in order.
    /// `file(i)` is file `i`'s path and findings key (no key for a file that could not be
    /// read: its chunk is neither looked up nor stored).
    pub(super) fn ask<'p>(
        &mut self,
        caches: &Caches,
        chunks: &[(String, Vec<usize>)],
        file: impl Fn(usize) -> (&'p str, Option<[u8; 32]>),
    ) -> Vec<Vec<u8>> {
        let first = self.chunks.len();
        for (name, files) in chunks {
            let Some(keys) = files.iter().map(|&i| file(i).1).collect::<Option<Vec<_>>>() else {
                continue;
            };
            if keys.iter().all(|k| caches.has_findings(k)) {
                continue;
            }
            let paths: Vec<&str> = files.iter().map(|&i| file(i).0).collect();
            self.chunks.push(Chunk {
                material: material(name, &paths, &keys),
                files: files.clone(),
                keys,
            });
        }
        self.chunks[first..]
            .iter()
            .map(|c| c.material.clone())
            .collect()
    }

    /// The server's answers to the next chunks asked, in the order asked: the reports it
    /// served, by file index. The chunks it did not serve are to be stored.
    pub(super) fn answer(&mut self, blobs: Vec<Option<Vec<u8>>>) -> Vec<(usize, CachedReport)> {
        let mut served = Vec::new();
        for blob in blobs {
            let c = self.answered;
            self.answered += 1;
            let Chunk { files, keys, .. } = &self.chunks[c];
            match blob.and_then(|b| decode(&b, keys.len())) {
                Some(reports) => served.extend(files.iter().copied().zip(reports)),
                None => self.missed.push(c),
            }
        }
        served
    }

    /// How many chunks the server has not served so far.
    pub(super) fn missed(&self) -> usize {
        self.missed.len()
    }

    /// Counts what was looked up and served, for `LOCKGRAPH_LOG`.
    pub(super) fn log(&self) {
        crate::logging::count("remote chunks looked up", || self.chunks.len());
        crate::logging::count("remote chunks served", || {
            self.chunks.len() - self.missed.len()
        });
    }
}

/// A chunk's blob: the engine version and each file's report, in the chunk's order.
fn encode(reports: &[ReportRef]) -> Option<Vec<u8>> {
    postcard::to_stdvec(&(ENGINE_VERSION, reports)).ok()
}

/// The reports of a blob, if it is this engine's and holds one for each of the chunk's
/// `files` files.
fn decode(blob: &[u8], files: usize) -> Option<Vec<CachedReport>> {
    let (engine, reports): (String, Vec<CachedReport>) = postcard::from_bytes(blob).ok()?;
    (engine == ENGINE_VERSION && reports.len() == files).then_some(reports)
}

/// Stores the chunks the server did not serve, from the reports the pass made:
/// `report(i)` is file `i`'s report and the key it was made for, None if it could not be
/// read. A chunk is stored only where every report was made for the key the chunk was
/// looked up by: a file edited during the run has a report of other bytes, which the
/// chunk's key does not name.
pub(super) fn upload<'r>(
    remote: &Remote,
    plan: &Plan,
    report: impl Fn(usize) -> Option<([u8; 32], ReportRef<'r>)>,
) {
    remote.store_missed(plan.missed.len(), || {
        plan.missed
            .iter()
            .filter_map(|&c| {
                let Chunk {
                    material,
                    files,
                    keys,
                } = &plan.chunks[c];
                let reports: Option<Vec<_>> = files
                    .iter()
                    .zip(keys)
                    .map(|(&i, key)| match report(i)? {
                        (made_for, report) if made_for == *key => Some(report),
                        _ => None,
                    })
                    .collect();
                Some((material.clone(), encode(&reports?)?))
            })
            .collect()
    });
}
