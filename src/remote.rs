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
//! This is the one module that speaks gRPC (tonic on a tokio runtime of its own, one
//! thread); to the rest of the shell it is a synchronous call that never fails: a slow,
//! failing or vanished server gives "not found" and one warning, and the run computes
//! locally what it could not fetch. The engine knows nothing of it.

use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
use re::action_cache_client::ActionCacheClient;
use re::content_addressable_storage_client::ContentAddressableStorageClient;
use sha2::{Digest as _, Sha256};
use std::collections::BTreeMap;
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

/// At most this many files per chunk, where a directory allows.
const CHUNK_FILES: usize = 256;

/// Files by **chunk**, the unit both tools look up and store: the files of one directory,
/// split by the first bits of their path's SHA-256 when the directory holds more than
/// [`CHUNK_FILES`] (so a chunk stays bounded, and adding a file moves no other file to
/// another chunk unless the directory doubles). `paths` in path order; each chunk is a
/// name (part of its key) and its files' indices, each index once.
pub fn chunks_of(paths: &[&str]) -> Vec<(String, Vec<usize>)> {
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
    /// mode, where `entries` (each chunk's key material and blob) is never built — timed
    /// and counted for `LOCKGRAPH_LOG`.
    pub fn store_missed(&self, missed: usize, entries: impl FnOnce() -> Vec<(Vec<u8>, Vec<u8>)>) {
        if missed == 0 || self.read_only() {
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
        let found = self.runtime.block_on(self.fetch_all(keys));
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).hits +=
            found.iter().filter(|b| b.is_some()).count();
        found
    }

    async fn fetch_all(&self, keys: &[Vec<u8>]) -> Vec<Option<Vec<u8>>> {
        // The action results, many calls at once.
        let mut outputs: Vec<Option<re::Digest>> = vec![None; keys.len()];
        let mut inline: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
        for (window, start) in keys.chunks(IN_FLIGHT).zip((0..).step_by(IN_FLIGHT)) {
            if self.is_gone() {
                break;
            }
            let mut set = tokio::task::JoinSet::new();
            for (i, key) in window.iter().enumerate() {
                let client = ActionCacheClient::new(self.channel.clone());
                let metadata = self.metadata.clone();
                let message = re::GetActionResultRequest {
                    instance_name: self.settings.instance.clone(),
                    action_digest: Some(digest_of(key)),
                    inline_output_files: vec![OUTPUT.to_owned()],
                    ..Default::default()
                };
                set.spawn(async move {
                    let answer = with_retry(|| {
                        let mut client = client.clone();
                        let request = request(&metadata, message.clone());
                        async move { client.get_action_result(request).await }
                    })
                    .await;
                    (start + i, answer)
                });
            }
            while let Some(done) = set.join_next().await {
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
        let stored = self.runtime.block_on(self.store_all(entries));
        self.counts.lock().unwrap_or_else(|e| e.into_inner()).stored += stored;
    }

    async fn store_all(&self, entries: &[(Vec<u8>, Vec<u8>)]) -> usize {
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
        for (window, blobs) in entries.chunks(IN_FLIGHT).zip(blobs.chunks(IN_FLIGHT)) {
            if self.is_gone() {
                break;
            }
            let mut set = tokio::task::JoinSet::new();
            for ((key, _), (digest, _)) in window.iter().zip(blobs) {
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
            while let Some(done) = set.join_next().await {
                match done {
                    Ok(Ok(_)) => stored += 1,
                    Ok(Err(status)) => self.failed("storing results", &status),
                    Err(_) => {}
                }
            }
        }
        stored
    }
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
