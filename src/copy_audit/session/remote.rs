//! The remote cache in the audit pass ([`crate::remote`] speaks to the server).
//!
//! Files are grouped into **chunks**: the files of one directory, split by the first bits
//! of their path's SHA-256 when the directory holds more than [`CHUNK_FILES`] (so a chunk
//! stays bounded, and adding a file moves no other file to another chunk unless the
//! directory doubles). A chunk's key is made of the engine version and each of its files'
//! path and findings key (the local cache's key: content hash, spans, settings), so an
//! edit invalidates its chunk and no other, and a run makes one lookup per chunk, not per
//! file. A chunk's blob holds the reports of its files; it is believed only if it holds a
//! report for exactly the keys asked for (the digest was checked by the client).

use super::super::cache::{CachedReport, Caches, ENGINE_VERSION, ReportRef};
use crate::remote::Remote;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// At most this many files per chunk, where a directory allows.
const CHUNK_FILES: usize = 256;

/// The chunks a run looked up, with what became of them.
pub(super) struct Plan {
    /// Each chunk: its key material and its files (indices into the pass's files).
    chunks: Vec<(Vec<u8>, Vec<usize>)>,
    /// The chunks the server did not serve (indices into `chunks`): to be stored.
    missed: Vec<usize>,
}

/// Files by chunk: `paths` in path order, each file's index once.
fn chunks_of(paths: &[&str]) -> Vec<(String, Vec<usize>)> {
    let dir = |p: &str| p.rsplit_once('/').map_or("", |(d, _)| d).to_owned();
    let mut by_dir: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (i, p) in paths.iter().enumerate() {
        by_dir.entry(dir(p)).or_default().push(i);
    }
    let mut out = Vec::new();
    for (dir, files) in by_dir {
        let mut bits = 0u32;
        while bits < 16 && files.len() >> bits > CHUNK_FILES {
            bits += 1;
        }
        if bits == 0 {
            out.push((format!("{dir}\0"), files));
            continue;
        }
        let mut buckets: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
        for i in files {
            let h = Sha256::digest(paths[i].as_bytes());
            let top = u32::from(u16::from_be_bytes([h[0], h[1]])) >> (16 - bits);
            buckets.entry(top).or_default().push(i);
        }
        for (bucket, files) in buckets {
            out.push((format!("{dir}\0{bits}:{bucket}"), files));
        }
    }
    out
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
    if plan.missed.is_empty() || remote.read_only() {
        return;
    }
    let _phase = crate::logging::phase("remote cache uploads");
    let entries: Vec<(Vec<u8>, Vec<u8>)> = plan
        .missed
        .iter()
        .filter_map(|&c| {
            let (material, files) = &plan.chunks[c];
            let reports: Option<Vec<_>> = files.iter().map(|&i| report(i)).collect();
            Some((material.clone(), encode(&reports?)?))
        })
        .collect();
    remote.store(&entries);
    crate::logging::count("remote chunks stored", || remote.counts().stored);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_directories_split_when_large_and_stable_as_files_come() {
        let mut paths: Vec<String> = (0..600).map(|i| format!("big/f{i:04}.md")).collect();
        paths.extend(["a.md", "small/x.md", "small/y.md"].map(String::from));
        paths.sort();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let chunks = chunks_of(&refs);
        let mut seen: Vec<usize> = chunks.iter().flat_map(|(_, f)| f.clone()).collect();
        seen.sort();
        assert_eq!(seen, (0..refs.len()).collect::<Vec<_>>(), "every file once");
        assert!(chunks.iter().all(|(_, f)| f.len() <= CHUNK_FILES + 60));
        // 600 files: split in 4 (2 bits); the root and `small/` one chunk each.
        assert_eq!(
            chunks.len(),
            6,
            "{:?}",
            chunks.iter().map(|c| &c.0).collect::<Vec<_>>()
        );
        // A new file moves no other: every other chunk keeps its files.
        let name_of = |chunks: &[(String, Vec<usize>)], refs: &[&str], p: &str| {
            let i = refs.iter().position(|r| *r == p).unwrap();
            chunks
                .iter()
                .find(|(_, f)| f.contains(&i))
                .unwrap()
                .0
                .clone()
        };
        let mut grown = paths.clone();
        grown.push("big/new.md".into());
        grown.sort();
        let grown_refs: Vec<&str> = grown.iter().map(String::as_str).collect();
        let grown_chunks = chunks_of(&grown_refs);
        for p in &refs {
            assert_eq!(
                name_of(&chunks, &refs, p),
                name_of(&grown_chunks, &grown_refs, p),
                "{p}"
            );
        }
    }
}
