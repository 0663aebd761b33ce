//! The remote cache in the audit pass ([`crate::remote`] speaks to the server).
//!
//! Files are grouped into **chunks** ([`crate::remote::chunks_of`]: runs of about 512
//! files in path order). A chunk's key is made of the engine version and each of its
//! files' path and findings key (the local cache's key: content hash, spans, settings),
//! so an edit invalidates its chunk and no other, and a run makes one lookup per chunk,
//! not per file. A chunk whose every file git's index names is keyed by their blob keys
//! instead (git's blob id, the whole lockfile entry, settings): its files need not be read.
//!
//! A chunk's blob holds the reports of its files, in the chunk's order, without their
//! keys: the chunk's key names every one of them already, and the keys were most of a
//! packed blob's bytes (32 random bytes each, beside a report that packs to a few). A
//! chunk by git adds each file's content hash where its lockfile entry does not record
//! it. A blob is believed only if it holds a report for each file of the chunk (the
//! digest was checked by the client).

use super::super::cache::{CachedReport, Caches, ENGINE_VERSION, ReportRef};
use crate::remote::Remote;
use crate::statcache::HashBytes;
use lockgraph_queries::hash::ContentHash;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// The chunks a run looked up, with what became of them.
pub(super) struct Plan {
    chunks: Vec<Chunk>,
    /// The chunks the server did not serve (indices into `chunks`): to be stored.
    missed: Vec<usize>,
    /// How many of `chunks` the server has answered for (they are answered in order).
    answered: usize,
    /// For each file, once audited: the key its report may be stored under, None if it
    /// may not (see [`Plan::made`]). Read only for the chunks missed.
    made_for: Vec<Option<[u8; 32]>>,
}

/// A chunk looked up.
struct Chunk {
    /// What its key is the digest of: [`material`].
    material: Vec<u8>,
    /// Its files: indices into the pass's files.
    files: Vec<usize>,
    /// Their keys, in the same order: findings keys, or blob keys for a chunk by git.
    keys: Vec<[u8; 32]>,
    by_git: bool,
    /// For a chunk by git, its files' lockfile entries' recorded hashes: a file's hash
    /// is in the blob only where it differs (an entry fresh for the bytes needs none).
    recorded: Vec<Option<[u8; 32]>>,
}

/// The key material of a chunk: what its reports depend on. `keys` are the keys of the
/// files at `paths`, in their order: findings keys (content hash, spans, settings), or,
/// for a chunk `by_git`, blob keys (git's blob id, the lockfile entry, settings).
fn material(name: &str, paths: &[&str], keys: &[[u8; 32]], by_git: bool) -> Vec<u8> {
    let mut m = Vec::with_capacity(64 + paths.len() * 64);
    m.extend_from_slice(match by_git {
        false => b"lockgraph copy-audit chunk v2\0".as_slice(),
        true => b"lockgraph copy-audit chunk by git blob v1\0",
    });
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

/// One chunk of the pass's files ([`crate::remote::chunks_of`]), as [`Plan::ask`] takes it.
pub(super) struct Group {
    /// Its first path: part of its key.
    pub name: String,
    /// Its files: indices into the pass's files, in path order.
    pub files: Vec<usize>,
    /// Its files are named by git's blob ids, not read ([`crate::gitindex`]).
    pub by_git: bool,
}

/// A file as [`Plan::ask`] sees it.
pub(super) struct Keyed<'p> {
    pub path: &'p str,
    /// Its key in its chunk; None if it could not be read (the chunk is neither looked
    /// up nor stored).
    pub key: Option<[u8; 32]>,
    /// Its findings key, where its content hash is known: the local cache may hold it.
    pub local: Option<[u8; 32]>,
    /// The hash its lockfile entry records, if any (part of its blob key).
    pub recorded: Option<[u8; 32]>,
}

impl Plan {
    /// A plan for a pass over `files` files.
    pub(super) fn new(files: usize) -> Plan {
        Plan {
            chunks: Vec::new(),
            missed: Vec::new(),
            answered: 0,
            made_for: vec![None; files],
        }
    }

    /// Adds the chunks of `chunks` that hold a file the local cache has no report for,
    /// and returns what to look them up by, in order. `file(i)` is file `i` keyed.
    pub(super) fn ask<'p>(
        &mut self,
        caches: &Caches,
        chunks: &[Group],
        file: impl Fn(usize) -> Keyed<'p>,
    ) -> Vec<Vec<u8>> {
        let first = self.chunks.len();
        for chunk in chunks {
            let files: Vec<Keyed> = chunk.files.iter().map(|&i| file(i)).collect();
            let Some(keys) = files.iter().map(|f| f.key).collect::<Option<Vec<_>>>() else {
                continue;
            };
            let local = |f: &Keyed| f.local.is_some_and(|k| caches.has_findings(&k));
            if files.iter().all(local) {
                continue;
            }
            let paths: Vec<&str> = files.iter().map(|f| f.path).collect();
            self.chunks.push(Chunk {
                material: material(&chunk.name, &paths, &keys, chunk.by_git),
                files: chunk.files.clone(),
                keys,
                by_git: chunk.by_git,
                recorded: files.iter().map(|f| f.recorded).collect(),
            });
        }
        self.chunks[first..]
            .iter()
            .map(|c| c.material.clone())
            .collect()
    }

    /// The server's answers to the next chunks asked, in the order asked: the reports it
    /// served, by file index, each with its file's content hash for a chunk by git (the
    /// file was not read). The chunks it did not serve are to be stored. Blobs are decoded
    /// on every core: the pass waits for them.
    pub(super) fn answer(&mut self, blobs: Vec<Option<Vec<u8>>>) -> Vec<Served> {
        let asked = self.answered..self.answered + blobs.len();
        self.answered = asked.end;
        let decoded: Vec<Option<Decoded>> = blobs
            .into_par_iter()
            .zip(&self.chunks[asked.clone()])
            .map(|(blob, chunk)| decode(blob?, chunk))
            .collect();
        let mut served = Vec::new();
        for (c, decoded) in asked.zip(decoded) {
            let Some(Decoded { blob, reports }) = decoded else {
                self.missed.push(c);
                continue;
            };
            let files = self.chunks[c].files.iter();
            served.extend(files.zip(reports).map(|(&file, (hash, report, at))| {
                let encoded = Encoded {
                    blob: Arc::clone(&blob),
                    at,
                };
                Served {
                    file,
                    hash,
                    report: ServedReport { report, encoded },
                }
            }));
        }
        served
    }

    /// Records that file `i`'s report was made for `key` (its key in its chunk): only
    /// then is its chunk stored.
    pub(super) fn made(&mut self, i: usize, key: [u8; 32]) {
        self.made_for[i] = Some(key);
    }

    /// How many chunks the server has not served so far.
    pub(super) fn missed(&self) -> usize {
        self.missed.len()
    }

    /// Counts what was looked up and served, for `LOCKGRAPH_LOG`.
    pub(super) fn log(&self, remote: &Remote) {
        let counts = remote.counts();
        crate::logging::report("  remote cache lookups (their own thread)", counts.fetching);
        crate::logging::count("remote blob bytes read, packed", || counts.bytes_read);
        crate::logging::count("remote chunks looked up", || self.chunks.len());
        crate::logging::count("remote chunks served", || {
            self.chunks.len() - self.missed.len()
        });
    }
}

/// A report the server served.
pub(super) struct Served {
    pub file: usize,
    /// The file's content hash, for a chunk by git.
    pub hash: Option<HashBytes>,
    pub report: ServedReport,
}

/// A report as the server served it: decoded for the audit, and its bytes in the blob,
/// which the local findings cache stores as they are.
pub(in crate::copy_audit::session) struct ServedReport {
    pub report: CachedReport,
    pub encoded: Encoded,
}

/// A served report's bytes: a [`CachedReport`]'s postcard bytes, as a chunk's blob holds
/// each report and a findings shard stores it. The blob is shared by its reports.
pub(in crate::copy_audit::session) struct Encoded {
    blob: Arc<[u8]>,
    at: Range<usize>,
}

impl Encoded {
    pub fn bytes(&self) -> &[u8] {
        &self.blob[self.at.clone()]
    }
}

/// A chunk's blob: the engine version and each file's report, in the chunk's order; for
/// a chunk by git, each with its file's content hash where it is not the one its
/// lockfile entry records (the reader has not read the file, and its hash is what its
/// entry is compared with; most entries are fresh, and 32 random bytes a file were most
/// of a packed blob).
fn encode(chunk: &Chunk, reports: &[(ContentHash, ReportRef)]) -> Option<Vec<u8>> {
    let only: Vec<&ReportRef> = reports.iter().map(|(_, r)| r).collect();
    if !chunk.by_git {
        return postcard::to_stdvec(&(ENGINE_VERSION, only)).ok();
    }
    let hashes: Vec<Option<HashBytes>> = reports
        .iter()
        .zip(&chunk.recorded)
        .map(|((hash, _), recorded)| (*recorded != Some(hash.0)).then_some(HashBytes(hash.0)))
        .collect();
    postcard::to_stdvec(&(ENGINE_VERSION, hashes, only)).ok()
}

/// A blob decoded: its bytes, and each report with its file's content hash (for a chunk
/// by git) and where the report lies in the bytes.
struct Decoded {
    blob: Arc<[u8]>,
    reports: Vec<(Option<HashBytes>, CachedReport, Range<usize>)>,
}

/// The reports of a blob (with their files' hashes, for a chunk by git), if it is this
/// engine's and holds one for each of the chunk's files. Read field by field ([`encode`]'s
/// tuple is its fields one after another, a list its length then its items) to learn
/// where each report's bytes lie.
fn decode(blob: Vec<u8>, chunk: &Chunk) -> Option<Decoded> {
    let files = chunk.files.len();
    let (engine, mut rest): (&str, &[u8]) = postcard::take_from_bytes(&blob).ok()?;
    if engine != ENGINE_VERSION {
        return None;
    }
    let hashes: Vec<Option<HashBytes>> = match chunk.by_git {
        false => vec![None; files],
        true => {
            let (hashes, more): (Vec<Option<HashBytes>>, _) =
                postcard::take_from_bytes(rest).ok()?;
            rest = more;
            if hashes.len() != files {
                return None;
            }
            // A hash left out is the entry's; a file without an entry has one.
            hashes
                .into_iter()
                .zip(&chunk.recorded)
                .map(|(hash, recorded)| hash.or(recorded.map(HashBytes)).map(Some))
                .collect::<Option<Vec<_>>>()?
        }
    };
    let (count, more): (usize, _) = postcard::take_from_bytes(rest).ok()?;
    rest = more;
    if count != files {
        return None;
    }
    let mut reports = Vec::with_capacity(files);
    for hash in hashes {
        let start = blob.len() - rest.len();
        let (report, more): (CachedReport, _) = postcard::take_from_bytes(rest).ok()?;
        rest = more;
        reports.push((hash, report, start..blob.len() - rest.len()));
    }
    Some(Decoded {
        blob: blob.into(),
        reports,
    })
}

/// Stores the chunks the server did not serve, from the reports the pass made:
/// `report(i)` is file `i`'s report and content hash, None if it could not be read. A
/// chunk is stored only where every report was made for the key the chunk was looked up
/// by ([`Plan::made`]): a file edited during the run has a report of other bytes, which
/// the chunk's key does not name.
pub(super) fn upload<'r>(
    remote: &Remote,
    plan: &Plan,
    report: impl Fn(usize) -> Option<(ContentHash, ReportRef<'r>)>,
) {
    remote.store_missed(plan.missed.len(), || {
        plan.missed
            .iter()
            .filter_map(|&c| {
                let chunk = &plan.chunks[c];
                let reports: Option<Vec<_>> = chunk
                    .files
                    .iter()
                    .zip(&chunk.keys)
                    .map(|(&i, key)| match plan.made_for[i] {
                        Some(made_for) if made_for == *key => report(i),
                        _ => None,
                    })
                    .collect();
                Some((chunk.material.clone(), encode(chunk, &reports?)?))
            })
            .collect()
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use lockgraph_queries::copy::engine::{Finding, Findings};
    use lockgraph_queries::copy::rules::Severity;
    use lockgraph_queries::copy::source::FileError;
    use lockgraph_queries::text::LineCol;

    fn report(n: u32) -> CachedReport {
        let at = LineCol { line: n, column: 2 };
        let finding = |rule: &str| Finding {
            rule_id: rule.into(),
            severity: Severity::Warning,
            line: at.line,
            column: at.column,
            end: at,
            offset: n as usize * 10,
            snippet: "v lese".into(),
            message: format!("finding {n}").into(),
            fix: None,
        };
        let findings: Findings = [finding("cs-R1-nbsp-prep"), finding("cs-R3-ellipsis")]
            .into_iter()
            .take(n as usize % 3)
            .collect();
        let error = (n == 4).then(|| FileError {
            line_col: Some(at),
            message: "unreadable".into(),
        });
        CachedReport { findings, error }
    }

    /// A served report's bytes are what the local cache would have encoded for it: a
    /// served run writes them into its shards as they came.
    #[test]
    fn each_served_report_lies_in_its_blob_as_the_cache_encodes_it() {
        let reports: Vec<CachedReport> = (0..6).map(report).collect();
        let refs: Vec<(ContentHash, ReportRef)> = reports
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let report = ReportRef {
                    findings: &r.findings,
                    error: &r.error,
                };
                (ContentHash([i as u8; 32]), report)
            })
            .collect();
        for by_git in [false, true] {
            let chunk = Chunk {
                material: Vec::new(),
                files: (10..16).collect(),
                keys: vec![[0; 32]; 6],
                by_git,
                // Half the entries record their file's hash: the blob carries the rest.
                recorded: (0..6u8).map(|i| (i % 2 == 0).then_some([i; 32])).collect(),
            };
            let blob = encode(&chunk, &refs).unwrap();
            let decoded = decode(blob.clone(), &chunk).unwrap();
            assert_eq!(decoded.reports.len(), 6);
            for (i, (hash, report, at)) in decoded.reports.into_iter().enumerate() {
                let want = postcard::to_stdvec(&refs[i].1).unwrap();
                assert_eq!(&blob[at], want.as_slice(), "report {i}, by git {by_git}");
                assert!(report.findings == reports[i].findings);
                assert_eq!(hash, by_git.then_some(HashBytes([i as u8; 32])));
            }
            // A blob for fewer files than the chunk holds, or cut short, is no answer.
            let short = Chunk {
                files: (10..17).collect(),
                recorded: vec![None; 7],
                keys: vec![[0; 32]; 7],
                material: Vec::new(),
                by_git,
            };
            assert!(decode(blob.clone(), &short).is_none());
            assert!(decode(blob[..blob.len() - 1].to_vec(), &chunk).is_none());
        }
    }
}
