//! The remote cache client (`src/remote.rs`) against a real BuildGrid (`pip install
//! buildgrid`; `.ci/run` installs it into a virtual environment and names its `bgd` in
//! `LOCKGRAPH_BGD`), started by each test on a free loopback port with its in-memory CAS
//! and action cache (`tests/data/buildgrid.yml`) and stopped when the test ends. Without
//! BuildGrid the tests say they were skipped, and why.

mod common;

use lockgraph::remote::{Remote, Settings};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn bgd() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("LOCKGRAPH_BGD") {
        return Some(PathBuf::from(p));
    }
    Command::new("bgd")
        .arg("--help")
        .output()
        .is_ok_and(|o| o.status.success())
        .then(|| PathBuf::from("bgd"))
}

/// A BuildGrid server for one test, stopped on drop.
struct Server {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Server {
    fn start() -> Option<Server> {
        let Some(bgd) = bgd() else {
            println!(
                "skipped: BuildGrid's bgd is not installed (pip install buildgrid; .ci/run \
                 installs it into a virtual environment), so no server could be started"
            );
            return None;
        };
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("buildgrid.yml");
        std::fs::write(
            &config,
            include_str!("data/buildgrid.yml").replace("PORT", &port.to_string()),
        )
        .unwrap();
        let child = Command::new(bgd)
            .args(["server", "start"])
            .arg(&config)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("bgd starts");
        let server = Server {
            child,
            port,
            _dir: dir,
        };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "BuildGrid did not listen on {port} within a minute"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        Some(server)
    }

    fn url(&self) -> String {
        format!("grpc://127.0.0.1:{}", self.port)
    }

    fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

fn settings(url: &str) -> Settings {
    Settings {
        url: url.to_owned(),
        instance: String::new(),
        headers: vec![("x-api-key".into(), "test".into())],
        read_only: false,
    }
}

#[test]
fn blobs_stored_under_keys_come_back_and_nothing_else_does() {
    let Some(server) = Server::start() else {
        return;
    };
    let remote = Remote::new(settings(&server.url())).unwrap();
    let keys: Vec<Vec<u8>> = (0..70).map(|i| format!("key {i}").into_bytes()).collect();
    assert!(remote.fetch(&keys).iter().all(Option::is_none));
    // Seventy entries: more than one window of calls in flight, and one blob of 3.5 MB,
    // a batch of its own.
    let entries: Vec<(Vec<u8>, Vec<u8>)> = keys
        .iter()
        .enumerate()
        .map(|(i, k)| {
            let blob = if i == 7 {
                // Bytes that do not pack smaller: a batch of its own still.
                std::iter::successors(Some(0x2545_F491_4F6C_DD1Du64), |x| {
                    let x = x ^ x << 13;
                    let x = x ^ x >> 7;
                    Some(x ^ x << 17)
                })
                .map(|x| (x >> 56) as u8)
                .take(3_500_000)
                .collect()
            } else {
                format!("blob {i}").into_bytes()
            };
            (k.clone(), blob)
        })
        .collect();
    remote.store(&entries);
    assert_eq!(remote.counts().stored, 70);
    let mut asked = keys.clone();
    asked.push(b"never stored".to_vec());
    let got = remote.fetch(&asked);
    for (i, (_, blob)) in entries.iter().enumerate() {
        assert_eq!(got[i].as_ref(), Some(blob), "entry {i}");
    }
    assert_eq!(got[70], None);
    let counts = remote.counts();
    assert_eq!((counts.hits, counts.corrupt), (70, 0));
    // Another client (another machine) sees them; a read-only one stores nothing.
    let reader = Remote::new(Settings {
        read_only: true,
        ..settings(&server.url())
    })
    .unwrap();
    assert_eq!(reader.fetch(&keys[..1])[0].as_ref(), Some(&entries[0].1));
    reader.store(&[(b"from a fork".to_vec(), b"poison".to_vec())]);
    assert_eq!(reader.counts().stored, 0);
    assert_eq!(remote.fetch(&[b"from a fork".to_vec()])[0], None);
}

#[test]
fn a_vanished_server_is_a_miss_within_the_deadline_and_ends_the_remote_for_the_run() {
    let Some(mut server) = Server::start() else {
        return;
    };
    let remote = Remote::new(settings(&server.url())).unwrap();
    remote.store(&[(b"k".to_vec(), b"v".to_vec())]);
    assert_eq!(
        remote.fetch(&[b"k".to_vec()])[0].as_deref(),
        Some(&b"v"[..])
    );
    server.stop();
    let start = Instant::now();
    assert_eq!(
        remote.fetch(&[b"k".to_vec(), b"j".to_vec()]),
        vec![None, None]
    );
    assert!(remote.is_gone());
    // Later calls do not wait again.
    remote.store(&[(b"j".to_vec(), b"w".to_vec())]);
    assert_eq!(remote.fetch(&[b"k".to_vec()]), vec![None]);
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn a_server_that_never_was_is_a_miss_and_bad_addresses_are_refused() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let remote = Remote::new(settings(&format!("grpc://127.0.0.1:{port}"))).unwrap();
    let start = Instant::now();
    assert_eq!(remote.fetch(&[b"k".to_vec()]), vec![None]);
    assert!(remote.is_gone());
    assert!(start.elapsed() < Duration::from_secs(8));
    // What the run computed in its place is not even encoded for a server that is gone.
    remote.store_missed(1, || {
        panic!("the upload was built for a server that is gone")
    });
    for (url, says) in [
        ("http://127.0.0.1:1", "grpc:// or grpcs://"),
        ("127.0.0.1:1", "not grpc://HOST:PORT"),
        ("grpc://", "not grpc://HOST:PORT"),
        ("grpc://host:1/path", "not grpc://HOST:PORT"),
    ] {
        let err = Remote::new(settings(url)).err().expect(url);
        assert!(err.contains(says), "{url}: {err}");
    }
    let mut bad = settings("grpc://127.0.0.1:1");
    bad.headers = vec![("bad header".into(), "v".into())];
    assert!(
        Remote::new(bad)
            .err()
            .unwrap()
            .contains("not a header name")
    );
}

/// A server that answers every lookup with a blob whose bytes are not its digest's, or
/// are but were never packed: what a corrupt or malicious cache serves. BuildGrid checks
/// what it stores, so this one is made here: an action cache and nothing else, the blob
/// inlined in the result.
mod lying {
    use bazel_remote_apis::build::bazel::remote::execution::v2 as re;
    use re::action_cache_server::{ActionCache, ActionCacheServer};

    struct Liar;

    #[tonic::async_trait]
    impl ActionCache for Liar {
        async fn get_action_result(
            &self,
            request: tonic::Request<re::GetActionResultRequest>,
        ) -> Result<tonic::Response<re::ActionResult>, tonic::Status> {
            // Under the key `whole`, bytes that are their digest's but no packed blob;
            // under any other, bytes that are not their digest's.
            let asked = request.into_inner().action_digest;
            let (digest, contents): (&[u8], &[u8]) =
                if asked == Some(lockgraph::remote::digest_of(b"whole")) {
                    (b"not packed", b"not packed")
                } else {
                    (b"what was stored", b"something else")
                };
            Ok(tonic::Response::new(re::ActionResult {
                output_files: vec![re::OutputFile {
                    path: "lockgraph".into(),
                    digest: Some(lockgraph::remote::digest_of(digest)),
                    contents: contents.to_vec(),
                    ..Default::default()
                }],
                ..Default::default()
            }))
        }

        async fn update_action_result(
            &self,
            request: tonic::Request<re::UpdateActionResultRequest>,
        ) -> Result<tonic::Response<re::ActionResult>, tonic::Status> {
            Ok(tonic::Response::new(
                request.into_inner().action_result.unwrap_or_default(),
            ))
        }
    }

    /// Serves on a free loopback port, on a thread of its own, until the process ends. The
    /// server takes the very socket that was bound: a port let go and bound again could be
    /// taken in between by another test of this file, run in parallel.
    pub fn start() -> u16 {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                tonic::transport::Server::builder()
                    .add_service(ActionCacheServer::new(Liar))
                    .serve_with_incoming(tonic::transport::server::TcpIncoming::from(listener))
                    .await
            })
        });
        let start = std::time::Instant::now();
        while std::net::TcpStream::connect(addr).is_err() {
            assert!(
                start.elapsed().as_secs() < 10,
                "the lying server did not start"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        addr.port()
    }
}

#[test]
fn a_blob_that_is_not_its_digest_or_does_not_unpack_is_ignored() {
    let port = lying::start();
    let remote = Remote::new(settings(&format!("grpc://127.0.0.1:{port}"))).unwrap();
    assert_eq!(
        remote.fetch(&[b"k".to_vec(), b"j".to_vec()]),
        vec![None, None]
    );
    let counts = remote.counts();
    assert_eq!((counts.hits, counts.corrupt), (0, 2));
    // Whole bytes that do not unpack are as corrupt.
    assert_eq!(remote.fetch(&[b"whole".to_vec()]), vec![None]);
    assert_eq!(remote.counts().corrupt, 3);
    // Not a failure of the server: the cache stays in use.
    assert!(!remote.is_gone());
}

/// A fresh checkout of the shared tree `58cfea7` (no `.lockgraph/`), or of the fixture
/// where the shared trees are not.
fn checkout() -> tempfile::TempDir {
    let shared = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/conformance/harness-lab/58cfea7");
    let from = if shared.exists() {
        shared
    } else {
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/copy")
    };
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&from, dir.path());
    dir
}

/// A copy-audit run in `dir` with the remote cache at `url` (and `extra` flags): its
/// stdout, its stderr, and the counts it logged (`timing: <name> <n>` lines).
struct Run {
    stdout: Vec<u8>,
    stderr: String,
    code: i32,
}

impl Run {
    fn count(&self, name: &str) -> usize {
        self.stderr
            .lines()
            .find_map(|l| l.strip_prefix(&format!("timing: {name} ")))
            .unwrap_or_else(|| panic!("no `{name}` in\n{}", self.stderr))
            .trim()
            .parse()
            .unwrap()
    }
}

impl Run {
    /// Runs `command`, the remote cache only as its arguments name it.
    fn of(command: &mut assert_cmd::Command) -> Run {
        Run::from(
            command
                .env_remove("LOCKGRAPH_REMOTE_CACHE")
                .output()
                .unwrap(),
        )
    }
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Run {
        Run {
            stdout: out.stdout,
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap(),
        }
    }
}

/// Files per chunk on average in the runs of `audit` and `soil_status`: a shared tree of a
/// few dozen files makes several chunks, as a large tree does at the real 512.
const CHUNK_FILES: &str = "4";

fn audit(dir: &std::path::Path, args: &[&str]) -> Run {
    Run::of(
        assert_cmd::Command::cargo_bin("copy-audit")
            .unwrap()
            .args(["--json"])
            .args(args)
            .current_dir(dir)
            .env("LOCKGRAPH_LOG", "info")
            .env("LOCKGRAPH_TEST_CHUNK_FILES", CHUNK_FILES),
    )
}

#[test]
fn fresh_checkouts_are_served_from_the_cache_and_an_edit_recomputes_its_chunk() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    let remote = ["--remote-cache", url.as_str()];
    // The first checkout computes everything and stores every chunk.
    let first = checkout();
    let local = audit(first.path(), &["--no-cache"]);
    let run = audit(first.path(), &remote);
    assert!(run.stdout == local.stdout, "{}", run.stderr);
    assert_eq!(run.code, local.code);
    let chunks = run.count("remote chunks looked up");
    assert!(chunks >= 2, "{}", run.stderr);
    assert_eq!(run.count("remote chunks served"), 0);
    assert_eq!(run.count("remote chunks stored"), chunks);
    let files = run.count("reports computed");
    // A second fresh checkout (another machine): served whole, nothing computed, the same
    // report as without any cache.
    let second = checkout();
    let run = audit(second.path(), &remote);
    assert!(run.stdout == audit(second.path(), &["--no-cache"]).stdout);
    assert_eq!(run.count("remote chunks served"), chunks);
    assert_eq!(run.count("reports computed"), 0);
    // Its local cache learnt it all (the reports as served): the next run asks the
    // remote nothing, and prints the same.
    let again = audit(second.path(), &remote);
    assert_eq!(again.count("remote chunks looked up"), 0);
    assert_eq!(again.count("reports computed"), 0);
    assert!(again.stdout == run.stdout, "{}", again.stderr);
    // An edit: its chunk is recomputed and stored, every other is served.
    let third = checkout();
    let edited = first_markdown(third.path());
    append_a_finding(&edited);
    let run = serves_all_but_one(third.path(), &url, chunks);
    assert_eq!(run.count("remote chunks stored"), 1);
    let recomputed = run.count("reports computed");
    assert!(
        recomputed >= 1 && recomputed < files,
        "{recomputed} of {files}"
    );
    read_only_stores_nothing(chunks, &url, |args| {
        let tree = checkout();
        std::fs::write(first_markdown(tree.path()), "A different edit...\n").unwrap();
        audit(tree.path(), args)
    });
}

/// A file edited between its hash for the remote's keys and its read for the engine (the
/// stat index vouched for its hash, so it was read only when its chunk missed): its
/// report is of the new bytes, so its chunk, keyed by the old, is not stored; another
/// checkout of the old bytes computes that chunk and prints what `--no-cache` prints.
#[test]
fn a_file_edited_during_a_run_stores_no_chunk_for_bytes_it_no_longer_has() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    let first = checkout();
    // A run that reads a file hashes and audits the same bytes; a file the stat index
    // vouches for is only read once its chunk missed, and can have changed by then. So
    // a local run first (the stat index), then a run whose local findings are gone.
    audit(first.path(), &[]);
    std::fs::remove_dir_all(first.path().join(".lockgraph/findings")).unwrap();
    let run = edited_mid_run(first.path(), &url);
    assert_eq!(
        run.count("file reads"),
        run.count("reports computed"),
        "{}",
        run.stderr
    );
    let chunks = stores_all_but_one(&run);
    // The old bytes, elsewhere: the edited file's chunk is computed, the rest served.
    serves_all_but_one(checkout().path(), &url, chunks);
}

/// Appends a line with a finding to `file`.
fn append_a_finding(file: &std::path::Path) {
    let text = std::fs::read_to_string(file).unwrap();
    std::fs::write(file, format!("{text}\nSejdeme se v lese...\n")).unwrap();
}

/// A run in `dir` with the remote cache at `url`, during which (once the first chunks
/// are looked up, before they are audited) the first Markdown file is edited.
fn edited_mid_run(dir: &std::path::Path, url: &str) -> Run {
    let edited = first_markdown(dir);
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("copy-audit"));
    command
        .args(["--json", "--remote-cache", url])
        .current_dir(dir)
        .env("LOCKGRAPH_LOG", "info")
        .env("LOCKGRAPH_TEST_CHUNK_FILES", CHUNK_FILES);
    Run::from(paused_at(command, "remote-looked-up", || {
        append_a_finding(&edited)
    }))
}

/// The chunks `run` looked up, of which it stored every one but the edited file's.
fn stores_all_but_one(run: &Run) -> usize {
    let chunks = run.count("remote chunks looked up");
    assert!(chunks >= 2, "{}", run.stderr);
    assert_eq!(
        run.count("remote chunks stored"),
        chunks - 1,
        "{}",
        run.stderr
    );
    chunks
}

/// A checkout, `dir`, is served every chunk but one (the one not stored, or the one its
/// edit changed), and prints what `--no-cache` prints. The run, for more checks.
fn serves_all_but_one(dir: &std::path::Path, url: &str, chunks: usize) -> Run {
    let run = audit(dir, &["--remote-cache", url]);
    assert_eq!(
        run.count("remote chunks served"),
        chunks - 1,
        "{}",
        run.stderr
    );
    assert!(
        run.stdout == audit(dir, &["--no-cache"]).stdout,
        "{}",
        run.stderr
    );
    run
}

/// A fresh checkout reads each file once, for its chunk's key and for the engine alike.
#[test]
fn a_cold_remote_run_reads_each_file_once() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    let dir = checkout();
    let run = audit(dir.path(), &["--remote-cache", url.as_str()]);
    let files = run.count("reports computed");
    assert!(
        files > 0 && run.count("remote chunks looked up") >= 2,
        "{}",
        run.stderr
    );
    assert_eq!(run.count("file reads"), files, "{}", run.stderr);
}

/// Runs git in `dir`, with an identity for commits; false if it fails or is missing.
fn git(dir: &std::path::Path, args: &[&str]) -> bool {
    Command::new("git")
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A repository of a shared tree, committed; None (the test says it was skipped) without
/// git.
fn repository() -> Option<tempfile::TempDir> {
    committed(checkout())
}

/// `repo` made a git repository with everything in it committed; None (the test says it
/// was skipped) without git.
fn committed(repo: tempfile::TempDir) -> Option<tempfile::TempDir> {
    if !git(repo.path(), &["init", "-q"]) {
        println!("skipped: no git to make a checkout with");
        return None;
    }
    assert!(git(repo.path(), &["add", "-A"]));
    assert!(git(repo.path(), &["commit", "-q", "-m", "tree"]));
    Some(repo)
}

/// A fresh clone of `repo`, as a CI runner has it. Its index is refreshed a moment after
/// the clone: files written in the tick the index was are not trusted by git (it
/// refreshes them at its next command) nor by the audit, and a test's clone writes every
/// file in that tick.
fn clone(repo: &std::path::Path) -> GitClone {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clone");
    assert!(git(
        dir.path(),
        &[
            "clone",
            "-q",
            repo.to_str().unwrap(),
            path.to_str().unwrap()
        ]
    ));
    std::thread::sleep(Duration::from_millis(50));
    assert!(git(&path, &["update-index", "-q", "--really-refresh"]));
    GitClone { _dir: dir, path }
}

/// A clone, removed when dropped.
struct GitClone {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

/// A fresh clone is named by git's index: a cold run reads each file once, and the next
/// fresh clone is served without reading a file; an edited file's chunk is read and
/// audited, the rest still served.
#[test]
fn a_fresh_git_checkout_is_served_without_reading_a_file() {
    let Some(server) = Server::start() else {
        return;
    };
    let Some(repo) = repository() else {
        return;
    };
    let url = server.url();
    let remote = ["--remote-cache", url.as_str()];
    let first = clone(repo.path());
    let first = &first.path;
    let run = audit(first, &remote);
    let files = run.count("reports computed");
    let chunks = run.count("remote chunks looked up");
    assert!(files > 0 && chunks >= 2, "{}", run.stderr);
    assert_eq!(
        run.count("files named by git's index"),
        files,
        "{}",
        run.stderr
    );
    assert_eq!(run.count("file reads"), files, "{}", run.stderr);
    assert_eq!(run.count("remote chunks stored"), chunks, "{}", run.stderr);
    let second = clone(repo.path());
    let second = &second.path;
    let run = audit(second, &remote);
    assert_eq!(run.count("remote chunks served"), chunks, "{}", run.stderr);
    assert_eq!(run.count("file reads"), 0, "{}", run.stderr);
    assert!(
        run.stdout == audit(second, &["--no-cache"]).stdout,
        "{}",
        run.stderr
    );
    // What it was served, its local cache learnt: the next run reads nothing either.
    let again = audit(second, &remote);
    assert_eq!(
        again.count("remote chunks looked up"),
        0,
        "{}",
        again.stderr
    );
    assert_eq!(again.count("reports computed"), 0, "{}", again.stderr);
    assert!(again.stdout == run.stdout, "{}", again.stderr);
    let third = clone(repo.path());
    let third = &third.path;
    let edited = first_markdown(third);
    append_a_finding(&edited);
    let run = serves_all_but_one(third, &url, chunks);
    let reads = run.count("file reads");
    assert!(
        reads >= 1 && reads < files,
        "{reads} of {files}: {}",
        run.stderr
    );
}

/// A file named by git edited between the lookup and its read (its chunk missed): the
/// report is of other bytes than the blob its chunk's key names, so that chunk is not
/// stored; the next clone is served the rest and computes it.
#[test]
fn a_file_named_by_git_edited_during_a_run_stores_no_chunk_for_its_blob() {
    let Some(server) = Server::start() else {
        return;
    };
    let Some(repo) = repository() else {
        return;
    };
    let url = server.url();
    let run = edited_mid_run(&clone(repo.path()).path, &url);
    let chunks = stores_all_but_one(&run);
    serves_all_but_one(&clone(repo.path()).path, &url, chunks);
}

/// Read-only (an untrusted pull request): served, but what it computed is not stored, as
/// the same edit on another fresh checkout shows. `edited(args)` runs the tool with `args`
/// on a fresh checkout with one chunk's file edited, the same edit each time.
fn read_only_stores_nothing(chunks: usize, url: &str, edited: impl Fn(&[&str]) -> Run) {
    let run = edited(&["--remote-cache", url, "--remote-cache-read-only"]);
    assert_eq!(run.count("remote chunks served"), chunks - 1);
    assert!(
        !run.stderr.contains("remote chunks stored"),
        "{}",
        run.stderr
    );
    let run = edited(&["--remote-cache", url]);
    assert_eq!(
        run.count("remote chunks served"),
        chunks - 1,
        "nothing was stored"
    );
}

/// The first Markdown file of a checkout, in path order.
fn first_markdown(root: &std::path::Path) -> PathBuf {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|e| e == "md") {
                out.push(p);
            }
        }
    }
    let mut found = Vec::new();
    walk(root, &mut found);
    found.sort();
    // One the config audits: under content/ (the shared trees) or the fixture's.
    found
        .into_iter()
        .find(|p| p.to_string_lossy().contains("/locales/cs/") || p.ends_with("uvod.md"))
        .expect("an audited Markdown file")
}

#[test]
fn a_server_stopped_mid_run_changes_nothing_but_a_warning() {
    let Some(mut server) = Server::start() else {
        return;
    };
    let url = server.url();
    let tree = checkout();
    let local = audit(tree.path(), &["--no-cache"]);
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("copy-audit"));
    command
        .args(["--json", "--remote-cache", &url])
        .current_dir(tree.path());
    let out = stopped_before_storing(command, &mut server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.stdout == local.stdout,
        "a different report ({:?}, {} bytes): {stderr}",
        out.status,
        out.stdout.len()
    );
    assert_eq!(out.status.code(), Some(local.code), "{stderr}");
    let warnings: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{stderr}");
    assert!(
        warnings[0].contains("remote cache") && warnings[0].contains(&url),
        "{stderr}"
    );
    // And with no server at all, from the start: the same report, one warning.
    let fresh = checkout();
    let run = audit(fresh.path(), &["--remote-cache", &url]);
    assert!(run.stdout == audit(fresh.path(), &["--no-cache"]).stdout);
    assert_eq!(
        run.stderr
            .lines()
            .filter(|l| l.starts_with("warning:"))
            .count(),
        1,
        "{}",
        run.stderr
    );
}

/// Runs `command` until it has looked its chunks up and is about to store what missed,
/// stops the server there, and lets it finish.
fn stopped_before_storing(command: Command, server: &mut Server) -> std::process::Output {
    paused_at(command, "remote-store", || server.stop())
}

/// Runs `command` until it reaches the pause point `point`, does `meanwhile`, and lets
/// it finish.
fn paused_at(mut command: Command, point: &str, meanwhile: impl FnOnce()) -> std::process::Output {
    let pause = tempfile::tempdir().unwrap();
    let child = command
        .env("LOCKGRAPH_TEST_PAUSE", pause.path())
        .env("LOCKGRAPH_TEST_PAUSE_AT", point)
        .env_remove("LOCKGRAPH_REMOTE_CACHE")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !pause.path().join("paused").exists() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "never paused at {point}"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    meanwhile();
    std::fs::write(pause.path().join("go"), b"").unwrap();
    child.wait_with_output().unwrap()
}

#[test]
fn keys_whose_blobs_are_equal_each_get_theirs() {
    let Some(server) = Server::start() else {
        return;
    };
    let remote = Remote::new(settings(&server.url())).unwrap();
    // Identical files in two directories: two chunks, one blob.
    let entries = vec![
        (b"chunk a".to_vec(), b"same reports".to_vec()),
        (b"chunk b".to_vec(), b"same reports".to_vec()),
    ];
    remote.store(&entries);
    let got = remote.fetch(&[b"chunk a".to_vec(), b"chunk b".to_vec()]);
    assert_eq!(got, vec![Some(b"same reports".to_vec()); 2]);
}

#[test]
fn the_config_can_name_the_remote_cache_and_a_flag_makes_it_read_only() {
    let Some(server) = Server::start() else {
        return;
    };
    let tree = checkout();
    let config = tree.path().join(".copy-editor.yaml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}\nremote_cache:\n  url: {}\n", server.url()),
    )
    .unwrap();
    let first = audit(tree.path(), &["--remote-cache-read-only"]);
    assert!(first.count("remote chunks looked up") > 0);
    assert!(
        !first.stderr.contains("remote chunks stored"),
        "{}",
        first.stderr
    );
    let other = checkout();
    std::fs::write(
        other.path().join(".copy-editor.yaml"),
        std::fs::read_to_string(&config).unwrap(),
    )
    .unwrap();
    let run = audit(other.path(), &[]);
    assert_eq!(
        run.count("remote chunks served"),
        0,
        "the read-only run stored nothing"
    );
    assert!(run.count("remote chunks stored") > 0);
}

/// A fresh copy of a soil root: trellis's own example root (`shared`) or the fixture.
fn soil_checkout(shared: bool) -> Option<tempfile::TempDir> {
    let from = match shared {
        true => std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../shared/conformance/trellis/examples"),
        false => std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/soil"),
    };
    if !from.exists() {
        println!("skipped: {} is not beside the clone", from.display());
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&from, dir.path());
    Some(dir)
}

/// `soil-lock status --json` in `root` with `args`, at `LOCKGRAPH_LOG=info`: the counts are
/// on stderr.
fn soil_status(root: &std::path::Path, args: &[&str]) -> Run {
    Run::of(
        assert_cmd::Command::cargo_bin("soil-lock")
            .unwrap()
            .arg("--root")
            .arg(root)
            .args(args)
            .args(["status", "--json"])
            .env("LOCKGRAPH_LOG", "info")
            .env("LOCKGRAPH_TEST_CHUNK_FILES", CHUNK_FILES),
    )
}

/// How many files the run parsed: those neither served nor vouched for by the local cache.
fn parsed(run: &Run) -> usize {
    run.count("files parsed")
}

#[test]
fn soil_lock_fresh_checkouts_are_served_and_an_edit_recomputes_its_chunk() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    let remote = ["--remote-cache", url.as_str()];
    for shared in [true, false] {
        let Some(first) = soil_checkout(shared) else {
            continue;
        };
        let local = soil_status(first.path(), &["--no-cache"]);
        assert_eq!(local.code, 0, "{}", local.stderr);
        let files = parsed(&local);
        assert!(files >= 10, "{}", local.stderr);
        // The first checkout parses every file and stores every chunk.
        let run = soil_status(first.path(), &remote);
        assert!(run.stdout == local.stdout, "{}", run.stderr);
        let chunks = run.count("remote chunks looked up");
        assert!(chunks >= 2, "{}", run.stderr);
        assert_eq!(run.count("remote chunks served"), 0);
        assert_eq!(run.count("remote chunks stored"), chunks);
        assert_eq!(parsed(&run), files);
        // Another machine's fresh checkout: served whole, nothing parsed, the same status.
        let second = soil_checkout(shared).unwrap();
        let run = soil_status(second.path(), &remote);
        assert!(run.stdout == local.stdout, "{}", run.stderr);
        assert_eq!(run.count("remote chunks served"), chunks, "{}", run.stderr);
        assert_eq!(parsed(&run), 0, "{}", run.stderr);
        // The local cache took what was served: the next run parses nothing either (files
        // it must read again, their stats too recent to trust, are served again). Its
        // replay is removed, or the run would print the served run's output without
        // looking at the cache at all.
        remove_replays(second.path());
        let again = soil_status(second.path(), &remote);
        assert!(again.stdout == local.stdout);
        assert_eq!(parsed(&again), 0, "{}", again.stderr);
    }
    // An edit (a spec's prose, on the fixture): its chunk is parsed again and stored, every
    // other one is served; read-only stores nothing.
    let edit = |root: &std::path::Path, prose: &str| {
        let spec = root.join("csvstats/mean.tr");
        let text = std::fs::read_to_string(&spec).unwrap();
        std::fs::write(&spec, format!("{text}\n{prose}\n")).unwrap();
    };
    let Some(third) = soil_checkout(false) else {
        return;
    };
    let chunks = soil_status(third.path(), &["--no-cache", "--remote-cache", &url]);
    assert!(
        !chunks.stderr.contains("remote chunks"),
        "--no-cache is no cache at all"
    );
    edit(third.path(), "More prose.");
    let expected = soil_status(third.path(), &["--no-cache"]);
    let run = soil_status(third.path(), &remote);
    assert!(run.stdout == expected.stdout, "{}", run.stderr);
    let chunks = run.count("remote chunks looked up");
    assert_eq!(run.count("remote chunks served"), chunks - 1);
    assert_eq!(run.count("remote chunks stored"), 1);
    let in_chunk = parsed(&run);
    assert!(
        in_chunk > 0 && in_chunk < parsed(&expected),
        "{in_chunk}: {}",
        run.stderr
    );
    read_only_stores_nothing(chunks, &url, |args| {
        let tree = soil_checkout(false).unwrap();
        edit(tree.path(), "Other prose.");
        soil_status(tree.path(), args)
    });
}

/// Removes a soil root's kept replays, so that the next run takes its files in.
fn remove_replays(root: &std::path::Path) {
    for replay in std::fs::read_dir(root.join(".lockgraph/soil")).unwrap() {
        let replay = replay.unwrap().path();
        if replay
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("replay-")
        {
            std::fs::remove_file(replay).unwrap();
        }
    }
}

/// A committed soil root (trellis's examples, or the fixture); None (the test says it was
/// skipped) without git or the shared files.
fn soil_repository(shared: bool) -> Option<tempfile::TempDir> {
    committed(soil_checkout(shared)?)
}

/// A soil root's fresh clone is named by git's index: the first reads each file once and
/// stores every chunk; the next is served whole without reading a file, with the status
/// `--no-cache` prints; an edited spec's chunk is read, the rest still served.
#[test]
fn soil_lock_fresh_git_checkouts_are_served_without_reading_a_file() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    let remote = ["--remote-cache", url.as_str()];
    for shared in [true, false] {
        let Some(repo) = soil_repository(shared) else {
            continue;
        };
        let first = clone(repo.path());
        let run = soil_status(&first.path, &remote);
        assert_eq!(run.code, 0, "{}", run.stderr);
        let files = run.count("file reads");
        let chunks = run.count("remote chunks looked up");
        assert!(files >= 10 && chunks >= 2, "{}", run.stderr);
        assert_eq!(
            run.count("files named by git's index"),
            files,
            "{}",
            run.stderr
        );
        assert_eq!(run.count("remote chunks stored"), chunks, "{}", run.stderr);
        assert_eq!(parsed(&run), files, "{}", run.stderr);
        let second = clone(repo.path());
        let run = soil_status(&second.path, &remote);
        assert_eq!(run.count("remote chunks served"), chunks, "{}", run.stderr);
        assert_eq!(run.count("file reads"), 0, "{}", run.stderr);
        assert_eq!(parsed(&run), 0, "{}", run.stderr);
        let expected = soil_status(&second.path, &["--no-cache"]);
        assert!(run.stdout == expected.stdout, "{}", run.stderr);
        // What it was served, its local cache learnt: without the replay, the next run
        // parses nothing either.
        remove_replays(&second.path);
        let again = soil_status(&second.path, &remote);
        assert!(again.stdout == expected.stdout, "{}", again.stderr);
        assert_eq!(parsed(&again), 0, "{}", again.stderr);
        if shared {
            continue;
        }
        let third = clone(repo.path());
        let spec = third.path.join("csvstats/mean.tr");
        let text = std::fs::read_to_string(&spec).unwrap();
        std::fs::write(&spec, format!("{text}\nMore prose.\n")).unwrap();
        let run = soil_status(&third.path, &remote);
        assert_eq!(
            run.count("remote chunks served"),
            chunks - 1,
            "{}",
            run.stderr
        );
        let read = run.count("file reads");
        assert!(
            read >= 1 && read < files,
            "{read} of {files}: {}",
            run.stderr
        );
        let expected = soil_status(&third.path, &["--no-cache"]);
        assert!(run.stdout == expected.stdout, "{}", run.stderr);
    }
}

/// A root below its checkout's top (as trellis's own `examples/`) is named by the top's
/// index: a fresh clone is served without reading a file.
#[test]
fn soil_lock_a_root_below_the_checkouts_top_is_named_by_git_too() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    let remote = ["--remote-cache", url.as_str()];
    let tree = tempfile::tempdir().unwrap();
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/soil");
    common::copy_dir(&fixture, &tree.path().join("roots/fixture"));
    let Some(repo) = committed(tree) else {
        return;
    };
    let first = clone(repo.path());
    let run = soil_status(&first.path.join("roots/fixture"), &remote);
    let files = run.count("file reads");
    assert!(files >= 10, "{}", run.stderr);
    assert_eq!(
        run.count("files named by git's index"),
        files,
        "{}",
        run.stderr
    );
    let second = clone(repo.path());
    let root = second.path.join("roots/fixture");
    let run = soil_status(&root, &remote);
    assert_eq!(run.count("file reads"), 0, "{}", run.stderr);
    assert!(run.stdout == soil_status(&root, &["--no-cache"]).stdout);
}

/// A spec named by git edited between the lookup and its read (its chunk missed): what it
/// parses to is not the blob's its chunk's key names, so that chunk is not stored; the
/// next clone is served the rest and computes it.
#[test]
fn soil_lock_a_file_named_by_git_edited_during_a_run_stores_no_chunk_for_its_blob() {
    let Some(server) = Server::start() else {
        return;
    };
    let url = server.url();
    let Some(repo) = soil_repository(false) else {
        return;
    };
    let first = clone(repo.path());
    let spec = first.path.join("csvstats/mean.tr");
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("soil-lock"));
    command
        .arg("--root")
        .arg(&first.path)
        .args(["--remote-cache", &url, "status", "--json"])
        .env("LOCKGRAPH_LOG", "info")
        .env("LOCKGRAPH_TEST_CHUNK_FILES", CHUNK_FILES);
    let run = Run::from(paused_at(command, "soil-named", || {
        let text = std::fs::read_to_string(&spec).unwrap();
        std::fs::write(&spec, format!("{text}\nEdited mid-run.\n")).unwrap();
    }));
    assert!(
        run.stdout == soil_status(&first.path, &["--no-cache"]).stdout,
        "{}",
        run.stderr
    );
    let chunks = stores_all_but_one(&run);
    let second = clone(repo.path());
    let run = soil_status(&second.path, &["--remote-cache", &url]);
    assert_eq!(
        run.count("remote chunks served"),
        chunks - 1,
        "{}",
        run.stderr
    );
    assert!(run.stdout == soil_status(&second.path, &["--no-cache"]).stdout);
}

#[test]
fn soil_lock_with_its_server_stopped_mid_run_gives_the_same_status_and_one_warning() {
    let Some(mut server) = Server::start() else {
        return;
    };
    let url = server.url();
    let Some(root) = soil_checkout(true) else {
        return;
    };
    let local = soil_status(root.path(), &["--no-cache"]);
    let mut command = Command::new(assert_cmd::cargo::cargo_bin("soil-lock"));
    command
        .arg("--root")
        .arg(root.path())
        .args(["--remote-cache", &url, "status", "--json"]);
    let out = stopped_before_storing(command, &mut server);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.stdout == local.stdout, "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let warnings = stderr.lines().filter(|l| l.starts_with("warning:"));
    assert_eq!(warnings.count(), 1, "{stderr}");
    assert!(stderr.contains(&url), "{stderr}");
}

#[test]
fn soil_lock_without_its_server_gives_the_same_status_and_one_warning() {
    // A port nothing listens on: the server that never was.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let Some(root) = soil_checkout(false) else {
        return;
    };
    let url = format!("grpc://127.0.0.1:{port}");
    let run = soil_status(root.path(), &["--remote-cache", &url]);
    assert!(run.stdout == soil_status(root.path(), &["--no-cache"]).stdout);
    assert_eq!(run.code, 0);
    let warnings: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("warning:"))
        .collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(warnings[0].contains(&url), "{}", run.stderr);
    // An address that cannot be one is a usage error naming it.
    let bad = soil_status(root.path(), &["--remote-cache", "http://x:1"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("http://x:1"), "{}", bad.stderr);
}
