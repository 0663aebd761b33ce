//! The remote cache: what the local caches hold, shared between machines through the
//! Remote Execution API v2 (its `ActionCache` and `ContentAddressableStorage` services, as
//! BuildGrid, bazel-remote, BuildBuddy and NativeLink serve them).
//!
//! An entry is a blob under a key. The key is the digest of the caller's key material (the
//! engine version, the settings and the content hashes of a chunk of files), used as an
//! action digest; the action result names one output file, `lockgraph`, whose digest is
//! the blob's in the CAS. A blob is believed only when its bytes hash to the digest the
//! action result names.
//!
//! Blobs are stored and sent compressed ([`pack`]): a chunk's reports repeat their
//! rules' messages, and a served run at 100,000 files spent most of its lookups reading
//! them (19 MB, from BuildGrid on loopback; a shared cache is usually further away). The
//! caller sees the bytes it stored.
//!
//! This is the one module that speaks gRPC (tonic on a tokio runtime of its own, one
//! thread); to the rest of the shell it is a synchronous call that never fails: a slow,
//! failing or vanished server gives "not found" and one warning, and the run computes
//! locally what it could not fetch. The engine knows nothing of it.

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use rayon::prelude::*;
use re::action_cache_client::ActionCacheClient;
use re::content_addressable_storage_client::ContentAddressableStorageClient;
use sha2::{Digest as _, Sha256};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue};
use tonic::transport::{Channel, ClientTlsConfig, Endpoint};

/// The output file an action result names.
const OUTPUT: &str = "lockgraph";
/// How long one call may take before the server counts as gone.
const DEADLINE: Duration = Duration::from_secs(5);
/// Bytes per batch call, under the 4 MiB a gRPC message is allowed by default.
const BATCH_BYTES: usize = 3 << 20;
/// Calls in flight at once: BuildGrid, by default, refuses more than its thread pool
/// serves at once (`RESOURCE_EXHAUSTED`), and those are retried ([`with_retry`]).
const IN_FLIGHT: usize = 8;
/// The zstd level blobs are packed at: its default, several hundred MB/s.
const PACK_LEVEL: i32 = 3;
/// The most a blob may unpack to: a blob that would unpack to more is no blob this tool
/// stored (a chunk's reports are a few hundred kilobytes) and is ignored, not unpacked.
const UNPACKED_MAX: u64 = 1 << 30;

/// Where the cache is and how to use it: `--remote-cache` and its companions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// `grpc://host:port` (plain text) or `grpcs://host:port` (TLS).
    pub url: String,
    /// The REAPI instance name (empty for the default instance).
    pub instance: String,
    /// Extra request headers (an API key, say), as `name: value`.
    pub headers: Vec<(String, String)>,
    /// Fetch, never store: for runs that must not write (untrusted pull requests).
    pub read_only: bool,
}

impl Settings {
    /// The endpoint `url` names: `grpc://` is plain text, `grpcs://` TLS; anything else
    /// is refused, naming it.
    fn endpoint(&self) -> Result<Endpoint, String> {
        let (tls, rest) = lockgraph_queries::copy::config::remote_address(&self.url)?;
        let http = if tls { "https" } else { "http" };
        let mut endpoint = Endpoint::from_shared(format!("{http}://{rest}"))
            .map_err(|e| format!("`{}`: {e}", self.url))?
            .connect_timeout(Duration::from_secs(2))
            .timeout(DEADLINE);
        if tls {
            endpoint = endpoint
                .tls_config(ClientTlsConfig::new().with_native_roots())
                .map_err(|e| format!("`{}`: {e}", self.url))?;
        }
        Ok(endpoint)
    }

    /// Checks the header names and values (ASCII, as gRPC metadata must be).
    fn metadata(&self) -> Result<Vec<(AsciiMetadataKey, AsciiMetadataValue)>, String> {
        self.headers
            .iter()
            .map(|(k, v)| {
                let key = AsciiMetadataKey::from_bytes(k.to_ascii_lowercase().as_bytes())
                    .map_err(|_| format!("remote cache header `{k}`: not a header name"))?;
                let value = AsciiMetadataValue::try_from(v.as_str())
                    .map_err(|_| format!("remote cache header `{k}`: the value is not ASCII"))?;
                Ok((key, value))
            })
            .collect()
    }
}

/// Files a chunk holds on average: about 200 lookups at 100,000 files.
const CHUNK_FILES: u64 = 512;

/// Files by **chunk**, the unit both tools look up and store: a run of files in path
/// order, ended after a path whose SHA-256 falls in the lowest 1/[`CHUNK_FILES`] of its
/// range, or at four times that many files; the files of one path stay together
/// (soil-lock chunks a definition's three files by its stem). Where a chunk ends depends
/// on its own paths alone, so a file added or removed changes the one chunk it is in
/// (splitting or joining it at most), whatever the directories: chunks by directory took
/// a lookup per folder, thousands in a tree of small ones. Each chunk is a name (its
/// first path; part of its key) and its files' indices, each index once, in path order.
pub fn chunks_of(paths: &[&str]) -> Vec<(String, Vec<usize>)> {
    chunks_around(paths, crate::testhook::chunk_files().unwrap_or(CHUNK_FILES))
}

/// [`chunks_of`] with chunks of `size` files on average.
fn chunks_around(paths: &[&str], size: u64) -> Vec<(String, Vec<usize>)> {
    let most = 4 * size as usize;
    let mut order: Vec<usize> = (0..paths.len()).collect();
    order.sort_by_key(|&i| paths[i]);
    let mut out: Vec<(String, Vec<usize>)> = Vec::new();
    let mut chunk: Vec<usize> = Vec::new();
    for (k, &i) in order.iter().enumerate() {
        chunk.push(i);
        // Equal paths (a definition's three files, for soil-lock) stay in one chunk.
        let last_of_path = order.get(k + 1).is_none_or(|&j| paths[j] != paths[i]);
        if last_of_path && (chunk.len() >= most || ends_chunk(paths[i], size)) {
            out.push((paths[chunk[0]].to_owned(), std::mem::take(&mut chunk)));
        }
    }
    if !chunk.is_empty() {
        out.push((paths[chunk[0]].to_owned(), chunk));
    }
    out
}

/// Whether a chunk of `size` files on average ends after `path`: its SHA-256 is in the
/// lowest 1/`size` of the range.
fn ends_chunk(path: &str, size: u64) -> bool {
    let h = Sha256::digest(path.as_bytes());
    u64::from_be_bytes(h[..8].try_into().expect("eight bytes")) < u64::MAX / size
}

/// Parses `name: value` (or `name=value`), as `--remote-cache-header` takes it.
pub fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .or_else(|| s.split_once('='))
        .ok_or_else(|| format!("`{s}` is not NAME: VALUE"))?;
    let (name, value) = (name.trim(), value.trim());
    if name.is_empty() {
        return Err(format!("`{s}`: the header has no name"));
    }
    Ok((name.to_owned(), value.to_owned()))
}

/// What a run did with the remote cache, for `LOCKGRAPH_LOG` and the tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub hits: usize,
    /// Blobs whose bytes did not hash to their digest: ignored.
    pub corrupt: usize,
    pub stored: usize,
    /// Bytes of the blobs read, as the server sent them (packed).
    pub bytes_read: usize,
    /// Time spent waiting for lookups.
    pub fetching: std::time::Duration,
}

/// A connection to the remote cache. Connecting is lazy: an unreachable server shows at
/// the first call, as a warning.
pub struct Remote {
    settings: Settings,
    runtime: tokio::runtime::Runtime,
    channel: Channel,
    metadata: std::sync::Arc<Vec<(AsciiMetadataKey, AsciiMetadataValue)>>,
    /// Set by the first failure: the rest of the run does not ask again.
    gone: AtomicBool,
    counts: std::sync::Mutex<Counts>,
}

impl Remote {
    /// A client for `settings`; an address or header that cannot be used is an error
    /// naming it (a usage error, exit 2), never a network error.
    pub fn new(settings: Settings) -> Result<Remote, String> {
        let endpoint = settings.endpoint()?;
        let metadata = settings.metadata()?;
        crate::output::sockets_need_no_sigpipe();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("remote cache: cannot start its runtime: {e}"))?;
        let channel = {
            let _in = runtime.enter();
            endpoint.connect_lazy()
        };
        Ok(Remote {
            settings,
            runtime,
            channel,
            metadata: std::sync::Arc::new(metadata),
            gone: AtomicBool::new(false),
            counts: Default::default(),
        })
    }

    pub fn counts(&self) -> Counts {
        *self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn read_only(&self) -> bool {
        self.settings.read_only
    }

    fn request<T>(&self, message: T) -> tonic::Request<T> {
        request(&self.metadata, message)
    }

    /// The first failure warns, once, and ends the use of the cache for this run.
    fn failed(&self, what: &str, status: &tonic::Status) {
        if !self.gone.swap(true, Ordering::Relaxed) {
            eprintln!(
                "warning: remote cache {}: {what}: {}; what it would have served is computed \
                 here",
                self.settings.url,
                describe(status)
            );
        }
    }

    /// Stores the chunks a run computed because the server lacked them — none in read-only
    /// mode or once the server failed, where `entries` (each chunk's key material and
    /// blob) is never built — timed and counted for `LOCKGRAPH_LOG`.
    pub fn store_missed(&self, missed: usize, entries: impl FnOnce() -> Vec<(Vec<u8>, Vec<u8>)>) {
        if missed == 0 || self.read_only() || self.is_gone() {
            return;
        }
        // Where the tests stop the server mid-run.
        crate::testhook::pause("remote-store");
        let _phase = crate::logging::phase("remote cache uploads");
        self.store(&entries());
        crate::logging::count("remote chunks stored", || self.counts().stored);
    }

    /// Whether a failure ended the use of the cache for this run.
    pub fn is_gone(&self) -> bool {
        self.gone.load(Ordering::Relaxed)
    }

    /// The blob stored under each key, if the server has it and its bytes check.
    pub fn fetch(&self, keys: &[Vec<u8>]) -> Vec<Option<Vec<u8>>> {
        if keys.is_empty() || self.is_gone() {
            return vec![None; keys.len()];
        }
        let began = std::time::Instant::now();
        let packed = self.runtime.block_on(self.fetch_all(keys));
        let packed_len = packed.iter().flatten().map(Vec::len).sum::<usize>();
        // Unpacked on every core. A blob that checks but does not unpack is as corrupt
        // as one that does not check.
        let unpacked: Vec<Option<Option<Vec<u8>>>> = packed
            .into_par_iter()
            .map(|blob| blob.map(|b| unpack(&b)))
            .collect();
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        counts.fetching += began.elapsed();
        counts.bytes_read += packed_len;
        counts.corrupt += unpacked.iter().filter(|b| matches!(b, Some(None))).count();
        let found: Vec<Option<Vec<u8>>> = unpacked.into_iter().map(Option::flatten).collect();
        counts.hits += found.iter().filter(|b| b.is_some()).count();
        found
    }

    async fn fetch_all(&self, keys: &[Vec<u8>]) -> Vec<Option<Vec<u8>>> {
        // The action results, many calls at once.
        let mut outputs: Vec<Option<re::Digest>> = vec![None; keys.len()];
        let mut inline: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
        // Each call started as one ends, so that `IN_FLIGHT` are always in flight.
        let mut set = tokio::task::JoinSet::new();
        let mut next = 0;
        loop {
            while set.len() < IN_FLIGHT && next < keys.len() && !self.is_gone() {
                let client = ActionCacheClient::new(self.channel.clone());
                let metadata = self.metadata.clone();
                let message = re::GetActionResultRequest {
                    instance_name: self.settings.instance.clone(),
                    action_digest: Some(digest_of(&keys[next])),
                    inline_output_files: vec![OUTPUT.to_owned()],
                    ..Default::default()
                };
                let i = next;
                set.spawn(async move {
                    let answer = with_retry(|| {
                        let mut client = client.clone();
                        let request = request(&metadata, message.clone());
                        async move { client.get_action_result(request).await }
                    })
                    .await;
                    (i, answer)
                });
                next += 1;
            }
            let Some(done) = set.join_next().await else {
                break;
            };
            let Ok((i, answer)) = done else { continue };
            match answer {
                Ok(result) => {
                    let result = result.into_inner();
                    if let Some(file) = result.output_files.iter().find(|f| f.path == OUTPUT) {
                        if !file.contents.is_empty() {
                            inline[i] = Some(file.contents.clone());
                        }
                        outputs[i] = file.digest.clone();
                    }
                }
                Err(status) if status.code() == tonic::Code::NotFound => {}
                Err(status) => self.failed("looking up results", &status),
            }
        }
        let expected = outputs.clone();
        // The blobs not inlined, a batch at a time.
        let mut blobs: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
        let mut wanted: Vec<(usize, re::Digest)> = Vec::new();
        for (i, digest) in outputs.into_iter().enumerate() {
            let Some(digest) = digest else { continue };
            match inline[i].take() {
                Some(bytes) => blobs[i] = Some(bytes),
                None => wanted.push((i, digest)),
            }
        }
        for batch in batches(&wanted, |(_, d)| d.size_bytes.max(0) as usize) {
            if self.is_gone() {
                break;
            }
            let client = ContentAddressableStorageClient::new(self.channel.clone());
            // Each blob asked for once, however many chunks share it.
            let mut digests: Vec<re::Digest> = batch.iter().map(|(_, d)| d.clone()).collect();
            digests.sort_by(|a, b| a.hash.cmp(&b.hash));
            digests.dedup();
            let message = re::BatchReadBlobsRequest {
                instance_name: self.settings.instance.clone(),
                digests,
                ..Default::default()
            };
            let answer = with_retry(|| {
                let mut client = client.clone();
                let request = self.request(message.clone());
                async move { client.batch_read_blobs(request).await }
            })
            .await;
            match answer {
                Ok(answer) => {
                    let by_hash: std::collections::HashMap<String, Vec<u8>> = answer
                        .into_inner()
                        .responses
                        .into_iter()
                        .filter(|r| r.status.as_ref().is_none_or(|s| s.code == 0))
                        .filter_map(|r| Some((r.digest?.hash, r.data)))
                        .collect();
                    // Chunks with equal reports (files copied across directories) share
                    // one blob: each takes a copy.
                    for (i, digest) in batch {
                        blobs[*i] = by_hash.get(&digest.hash).cloned();
                    }
                }
                Err(status) => self.failed("reading blobs", &status),
            }
        }
        // Believed only when the bytes are the digest's.
        let mut corrupt = 0;
        let checked = blobs
            .into_iter()
            .zip(expected)
            .map(|(blob, want)| match (blob, want) {
                (Some(bytes), Some(want)) if digest_of(&bytes) == want => Some(bytes),
                (Some(_), _) => {
                    corrupt += 1;
                    None
                }
                _ => None,
            })
            .collect();
        self.counts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .corrupt += corrupt;
        checked
    }

    /// Stores each blob under its key (unless read-only): the blobs into the CAS first,
    /// then the action results that name them, as servers that check references want.
    pub fn store(&self, entries: &[(Vec<u8>, Vec<u8>)]) {
        if entries.is_empty() || self.read_only() || self.is_gone() {
            return;
        }
        let packed: Vec<(&[u8], Vec<u8>)> = entries
            .par_iter()
            .map(|(key, blob)| (key.as_slice(), pack(blob)))
            .collect();
        crate::logging::count("remote blob bytes to store, unpacked", || {
            entries.iter().map(|(_, blob)| blob.len()).sum()
        });
        crate::logging::count("remote blob bytes to store, packed", || {
            packed.iter().map(|(_, blob)| blob.len()).sum()
        });
        let stored = self.runtime.block_on(self.store_all(&packed));
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).stored += stored;
    }

    async fn store_all(&self, entries: &[(&[u8], Vec<u8>)]) -> usize {
        let blobs: Vec<(re::Digest, &[u8])> = entries
            .iter()
            .map(|(_, blob)| (digest_of(blob), blob.as_slice()))
            .collect();
        let mut refused: std::collections::HashSet<String> = Default::default();
        for batch in batches(&blobs, |(_, b)| b.len()) {
            if self.is_gone() {
                return 0;
            }
            let client = ContentAddressableStorageClient::new(self.channel.clone());
            let message = re::BatchUpdateBlobsRequest {
                instance_name: self.settings.instance.clone(),
                requests: batch
                    .iter()
                    .map(|(digest, data)| re::batch_update_blobs_request::Request {
                        digest: Some(digest.clone()),
                        data: data.to_vec(),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            };
            let answer = with_retry(|| {
                let mut client = client.clone();
                let request = self.request(message.clone());
                async move { client.batch_update_blobs(request).await }
            })
            .await;
            match answer {
                // A blob the server did not take is named by no result.
                Ok(answer) => refused.extend(
                    answer
                        .into_inner()
                        .responses
                        .into_iter()
                        .filter(|r| r.status.as_ref().is_some_and(|s| s.code != 0))
                        .filter_map(|r| r.digest.map(|d| d.hash)),
                ),
                Err(status) => {
                    self.failed("storing blobs", &status);
                    return 0;
                }
            }
        }
        let mut stored = 0;
        // As for lookups: each call started as one ends.
        let mut set = tokio::task::JoinSet::new();
        let mut next = 0;
        loop {
            while set.len() < IN_FLIGHT && next < entries.len() && !self.is_gone() {
                let ((key, _), (digest, _)) = (&entries[next], &blobs[next]);
                next += 1;
                if refused.contains(&digest.hash) {
                    continue;
                }
                let client = ActionCacheClient::new(self.channel.clone());
                let metadata = self.metadata.clone();
                let message = re::UpdateActionResultRequest {
                    instance_name: self.settings.instance.clone(),
                    action_digest: Some(digest_of(key)),
                    action_result: Some(re::ActionResult {
                        output_files: vec![re::OutputFile {
                            path: OUTPUT.to_owned(),
                            digest: Some(digest.clone()),
                            ..Default::default()
                        }],
                        ..Default::default()
                    }),
                    ..Default::default()
                };
                set.spawn(async move {
                    with_retry(|| {
                        let mut client = client.clone();
                        let request = request(&metadata, message.clone());
                        async move { client.update_action_result(request).await }
                    })
                    .await
                });
            }
            let Some(done) = set.join_next().await else {
                break;
            };
            match done {
                Ok(Ok(_)) => stored += 1,
                Ok(Err(status)) => self.failed("storing results", &status),
                Err(_) => {}
            }
        }
        stored
    }
}

/// `blob` as it is stored and sent: a zstd frame, which records its own length.
fn pack(blob: &[u8]) -> Vec<u8> {
    zstd::bulk::compress(blob, PACK_LEVEL).expect("compressing into memory cannot fail")
}

/// The bytes [`pack`] packed into `packed`, or `None` if it is not such a frame or would
/// unpack to more than [`UNPACKED_MAX`].
fn unpack(packed: &[u8]) -> Option<Vec<u8>> {
    unpack_within(packed, UNPACKED_MAX)
}

/// [`unpack`], to at most `max` bytes: a frame made to unpack to more is read no further.
fn unpack_within(packed: &[u8], max: u64) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut out = Vec::new();
    let decoder = zstd::stream::read::Decoder::with_buffer(packed).ok()?;
    decoder.take(max + 1).read_to_end(&mut out).ok()?;
    (out.len() as u64 <= max).then_some(out)
}

/// `message` with the deadline and the extra headers.
fn request<T>(
    metadata: &[(AsciiMetadataKey, AsciiMetadataValue)],
    message: T,
) -> tonic::Request<T> {
    let mut request = tonic::Request::new(message);
    request.set_timeout(DEADLINE);
    for (k, v) in metadata {
        request.metadata_mut().insert(k.clone(), v.clone());
    }
    request
}

/// Calls `call` again while the server answers that it is busy (`RESOURCE_EXHAUSTED`),
/// waiting 20, 40, … 320 ms between tries; any other answer is final.
async fn with_retry<T, F, Fut>(mut call: F) -> Result<T, tonic::Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, tonic::Status>>,
{
    let mut wait = Duration::from_millis(20);
    for _ in 0..5 {
        match call().await {
            Err(status) if status.code() == tonic::Code::ResourceExhausted => {
                tokio::time::sleep(wait).await;
                wait *= 2;
            }
            answer => return answer,
        }
    }
    call().await
}

/// The digest of a blob, as REAPI names blobs: SHA-256 in lowercase hex, and the size.
pub fn digest_of(bytes: &[u8]) -> re::Digest {
    re::Digest {
        hash: hex(&Sha256::digest(bytes)),
        size_bytes: bytes.len() as i64,
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `items` in batches of at most [`BATCH_BYTES`] (an item larger than that is a batch of
/// its own).
fn batches<T>(items: &[T], size: impl Fn(&T) -> usize) -> Vec<&[T]> {
    let mut out = Vec::new();
    let (mut start, mut bytes) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        let n = size(item);
        if i > start && bytes + n > BATCH_BYTES {
            out.push(&items[start..i]);
            (start, bytes) = (i, 0);
        }
        bytes += n;
    }
    if start < items.len() {
        out.push(&items[start..]);
    }
    out
}

/// A status as one short phrase.
fn describe(status: &tonic::Status) -> String {
    match status.code() {
        tonic::Code::DeadlineExceeded => format!("no answer within {} s", DEADLINE.as_secs()),
        tonic::Code::Unavailable => format!("unavailable ({})", status.message()),
        code => format!("{code:?}: {}", status.message()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// What is packed unpacks to itself; reports, which repeat their messages, pack
    /// small; what is not a frame, a cut frame, and a frame that would unpack to more
    /// than a blob may, unpack to nothing.
    #[test]
    fn blobs_unpack_to_what_was_packed_and_nothing_else_unpacks() {
        let report = "cs-R1-nbsp-prep: one-letter preposition followed by a breakable space\n";
        let reports = report.repeat(2_000).into_bytes();
        for blob in [&b""[..], b"x", &reports] {
            assert_eq!(unpack(&pack(blob)).as_deref(), Some(blob));
        }
        let packed = pack(&reports);
        assert!(packed.len() * 20 < reports.len(), "{} bytes", packed.len());
        assert_eq!(unpack(b"not a frame"), None);
        assert_eq!(unpack(&packed[..packed.len() / 2]), None);
        // A frame of more zeros than a blob may hold, packed small: read to the bound,
        // no further.
        let bound = 1 << 20;
        let bomb = pack(&vec![0u8; 64 << 20]);
        assert!(bomb.len() < 64 << 10, "{} bytes", bomb.len());
        assert_eq!(unpack_within(&bomb, bound), None);
        let within = pack(&vec![0u8; bound as usize]);
        assert_eq!(
            unpack_within(&within, bound).map(|b| b.len()),
            Some(1 << 20)
        );
    }

    #[test]
    fn chunks_are_runs_of_paths_bounded_and_stable_as_files_come_and_go() {
        // A tree of small folders, one of many files, and files at the top.
        let mut paths: Vec<String> = (0..8_000)
            .map(|i| format!("docs/{:04}/page-{}.md", i / 7, i % 7))
            .collect();
        paths.extend((0..3_000).map(|i| format!("big/f{i:05}.md")));
        paths.extend(["README.md", "a.md", "zz.md"].map(String::from));
        paths.sort();
        let refs: Vec<&str> = paths.iter().map(String::as_str).collect();
        let chunks = chunks_around(&refs, CHUNK_FILES);
        let mut seen: Vec<usize> = chunks.iter().flat_map(|(_, f)| f.clone()).collect();
        seen.sort();
        assert_eq!(seen, (0..refs.len()).collect::<Vec<_>>(), "every file once");
        for (name, files) in &chunks {
            assert!(files.len() <= 4 * CHUNK_FILES as usize);
            assert_eq!(name, refs[files[0]], "a chunk is named by its first path");
            assert!(
                files.windows(2).all(|w| w[0] + 1 == w[1]),
                "a run in path order"
            );
        }
        // A path's files stay together, even where the path ends a chunk.
        let stems: Vec<String> = (0..2_000).map(|i| format!("m{:02}/d{i}", i / 50)).collect();
        let thrice: Vec<&str> = stems.iter().flat_map(|s| [s.as_str(); 3]).collect();
        for (_, files) in chunks_around(&thrice, 8) {
            let (first, last) = (thrice[files[0]], thrice[*files.last().unwrap()]);
            assert!(
                files.len() % 3 == 0,
                "{first}..{last}: {} files",
                files.len()
            );
        }
        // About 512 files a chunk, not a chunk per folder (1,143 folders here).
        let n = refs.len() / chunks.len();
        assert!(
            (256..=1024).contains(&n),
            "{} chunks, {n} files each",
            chunks.len()
        );
        // A file added or removed changes no chunk outside the stretch between the
        // paths around it that end a chunk whatever was counted before them.
        let fixed_end = |ps: &[String], k: usize| ends_chunk(&ps[k], CHUNK_FILES);
        let chunk_of = |ps: &[String]| -> BTreeMap<String, Vec<String>> {
            let refs: Vec<&str> = ps.iter().map(String::as_str).collect();
            let mut out = BTreeMap::new();
            for (_, files) in chunks_around(&refs, CHUNK_FILES) {
                let members: Vec<String> = files.iter().map(|&i| ps[i].clone()).collect();
                for m in &members {
                    out.insert(m.clone(), members.clone());
                }
            }
            out
        };
        let before = chunk_of(&paths);
        // One path that ends a chunk (it splits the one it joins) and one that does not.
        let ending = (0..)
            .map(|i| format!("docs/0100/new-{i}.md"))
            .find(|p| ends_chunk(p, CHUNK_FILES))
            .unwrap();
        let grown = |added: &str| {
            let mut grown = paths.clone();
            grown.push(added.to_owned());
            grown.sort();
            grown
        };
        let removed = "big/f01000.md".to_owned();
        let shrunk: Vec<String> = paths.iter().filter(|p| **p != removed).cloned().collect();
        let plain = "docs/0100/page-9.md".to_owned();
        assert!(!ends_chunk(&plain, CHUNK_FILES) && !ends_chunk(&removed, CHUNK_FILES));
        for (after_paths, changed) in [
            (grown(&plain), &plain),
            (grown(&ending), &ending),
            (shrunk, &removed),
        ] {
            let after = chunk_of(&after_paths);
            // The stretch, in the longer of the two lists, around the changed path.
            let longer = if after_paths.len() > paths.len() {
                &after_paths
            } else {
                &paths
            };
            let at = longer.iter().position(|p| p == changed).unwrap();
            let from = (0..at)
                .rev()
                .find(|&k| fixed_end(longer, k))
                .map_or(0, |k| k + 1);
            let to = (at + 1..longer.len())
                .find(|&k| fixed_end(longer, k))
                .unwrap_or(longer.len() - 1);
            let stretch = &longer[from..=to];
            for (p, members) in &after {
                if before.get(p) != Some(members) {
                    assert!(stretch.contains(p), "{changed}: {p} moved");
                }
            }
            assert!(
                stretch.len() <= 12 * CHUNK_FILES as usize,
                "{}",
                stretch.len()
            );
        }
    }
}
