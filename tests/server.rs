//! `copy-audit server`, driven in-process as an editor drives it: an in-memory connection,
//! `initialize`, documents opened and changed, diagnostics compared with the CLI's
//! findings for the same bytes, malformed messages, `shutdown` and `exit`.

mod common;
#[path = "common/lsp_client.rs"]
mod lsp_client;

use common::Tree;
use lsp_client::{Client, uri};
use lsp_server::{Message, Request, RequestId, Response};
use serde_json::{Value, json};
use std::path::Path;
use std::time::Duration;

/// A client of `copy-audit server` with `root` as the one workspace folder; `encodings`
/// are the position encodings the client offers, in its order of preference.
fn start(root: &Path, encodings: &[&str]) -> Client {
    let general = if encodings.is_empty() {
        json!({})
    } else {
        json!({ "positionEncodings": encodings })
    };
    start_with(root, json!({ "capabilities": { "general": general } }))
}

/// A client of `copy-audit server` with `root` as the one workspace folder and the rest
/// of the parameters (`capabilities`, `initializationOptions`) from `params`.
fn start_with(root: &Path, params: Value) -> Client {
    Client::connect(root, params, |conn| {
        lockgraph::copy_audit::server::serve(conn, None).unwrap()
    })
}

/// The diagnostics' (rule, 1-based line, 1-based column, message), as the CLI prints
/// findings (UTF-16 columns).
fn seen(diagnostics: &Value) -> Vec<(String, u64, u64, String)> {
    let mut out: Vec<_> = findings_of(diagnostics)
        .into_iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap().to_owned(),
                d["range"]["start"]["line"].as_u64().unwrap() + 1,
                d["range"]["start"]["character"].as_u64().unwrap() + 1,
                d["message"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    out.sort();
    out
}

/// The diagnostics that are findings (not the `copy-audit/…` note on an entry's state).
fn findings_of(diagnostics: &Value) -> Vec<&Value> {
    diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| !d["code"].as_str().unwrap().starts_with("copy-audit/"))
        .collect()
}

/// The CLI's findings of every file of the tree at `root`, by root-relative path.
fn cli_findings(
    root: &Path,
) -> std::collections::BTreeMap<String, Vec<(String, u64, u64, String)>> {
    let out = assert_cmd::Command::cargo_bin("copy-audit")
        .unwrap()
        .current_dir(root)
        .args(["--json", "--no-cache"])
        .output()
        .unwrap();
    let report = common::json(&out.stdout);
    let mut by_file: std::collections::BTreeMap<_, Vec<_>> = Default::default();
    for f in report["findings"].as_array().unwrap() {
        by_file
            .entry(f["relativePath"].as_str().unwrap().to_owned())
            .or_default()
            .push((
                f["ruleId"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap(),
                f["column"].as_u64().unwrap(),
                f["message"].as_str().unwrap().to_owned(),
            ));
    }
    for list in by_file.values_mut() {
        list.sort();
    }
    by_file
}

const UVOD: &str = "content/talks/uvod.md";

#[test]
fn open_documents_get_the_clis_findings_and_follow_each_edit() {
    let tree = Tree::copy_of("copy");
    let cli = cli_findings(tree.dir.path());
    let client = start(tree.dir.path(), &[]);
    assert_eq!(client.capabilities["positionEncoding"], "utf-16");
    let doc = uri(&tree.path(UVOD));
    let text = tree.read(UVOD);
    client.open(&doc, 1, &text);
    let first = client.diagnostics(&doc);
    assert_eq!(first["version"], 1);
    assert_eq!(seen(&first), cli[UVOD]);
    let d = &first["diagnostics"][0];
    assert_eq!(d["source"], "copy-audit");
    assert_eq!(d["data"]["segmentation"], "cached");
    let code = d["code"].as_str().unwrap();
    let href = d["codeDescription"]["href"].as_str().unwrap();
    // An absolute link: a relative one leads an editor nowhere.
    assert!(
        href.starts_with("https://")
            && href.ends_with(&format!("docs/rules.md#{}", code.to_ascii_lowercase())),
        "{href}"
    );

    // An unsaved edit: its findings, not the file's on disk; the entry is now stale, so
    // the spans are provisional.
    let edited = format!("{text}\nDoplněná věta s chybou ... na konci.\n");
    client.change(&doc, 2, &edited);
    let second = client.diagnostics(&doc);
    assert_eq!(second["version"], 2);
    tree.write(UVOD, &edited);
    assert_eq!(seen(&second), cli_findings(tree.dir.path())[UVOD]);
    assert_eq!(
        second["diagnostics"][0]["data"]["segmentation"],
        "provisional"
    );

    // Closing clears them.
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": doc } }),
    );
    assert_eq!(client.diagnostics(&doc)["diagnostics"], json!([]));
    client.stop();
}

#[test]
fn a_burst_of_changes_is_audited_once_at_its_last_version() {
    let tree = Tree::copy_of("copy");
    let client = start(tree.dir.path(), &[]);
    let doc = uri(&tree.path(UVOD));
    let text = tree.read(UVOD);
    client.open(&doc, 1, &text);
    client.diagnostics(&doc);
    for v in 2..=30 {
        client.change(&doc, v, &format!("{text}\nVěta číslo {v} ...\n"));
    }
    // Whatever batches the server took them in, the last published is the last version,
    // and no version is published after a later one.
    let mut last = 0;
    while last < 30 {
        let version = client.diagnostics(&doc)["version"].as_i64().unwrap();
        assert!(version > last, "{version} after {last}");
        last = version;
    }
    client.stop();
}

#[test]
fn columns_after_an_emoji_in_each_encoding() {
    let tree = Tree::copy_of("copy");
    // `...` after an emoji (two UTF-16 units, four UTF-8 bytes, one character) and a
    // Czech letter (one unit, two bytes, one character).
    let text = "# Úvod\n\n😀 Čekejte ... prosím.\n";
    let doc = uri(&tree.path("content/talks/emoji.md"));
    for (offered, expected, character) in [
        (vec![], "utf-16", 11),
        (vec!["utf-8", "utf-16"], "utf-8", 14),
        (vec!["utf-32"], "utf-32", 10),
        (vec!["utf-7", "utf-16"], "utf-16", 11),
    ] {
        let client = start(tree.dir.path(), &offered);
        assert_eq!(
            client.capabilities["positionEncoding"], expected,
            "{offered:?}"
        );
        client.open(&doc, 1, text);
        let published = client.diagnostics(&doc);
        let ellipsis = published["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["code"].as_str().unwrap().contains("ellipsis"))
            .unwrap_or_else(|| panic!("{published}"));
        assert_eq!(ellipsis["range"]["start"]["line"], 2);
        assert_eq!(
            ellipsis["range"]["start"]["character"], character,
            "{expected}"
        );
        client.stop();
    }
}

#[test]
fn documents_out_of_scope_get_nothing() {
    let tree = Tree::copy_of("copy");
    let client = start(tree.dir.path(), &[]);
    // Outside the config's `paths.include`, and outside the root.
    let outside = tempfile::tempdir().unwrap();
    for path in [tree.path("notes/todo.txt"), outside.path().join("x.md")] {
        let doc = uri(&path);
        client.open(&doc, 1, "Čekejte ... prosím.\n");
        assert_eq!(client.diagnostics(&doc)["diagnostics"], json!([]));
    }
    client.stop();
}

#[test]
fn a_malformed_message_gets_an_error_and_the_server_keeps_serving() {
    let tree = Tree::copy_of("copy");
    let mut client = start(tree.dir.path(), &[]);
    // A notification whose parameters do not parse: noted, nothing published.
    client.notify("textDocument/didOpen", json!({ "textDocument": 42 }));
    // A request the server does not serve: an error naming it.
    let answer = client.request("textDocument/unknownThing", json!({}));
    let error = answer.response_result.expect_err("an error");
    assert_eq!(error.code, lsp_server::ErrorCode::MethodNotFound as i32);
    assert!(
        error.message.contains("textDocument/unknownThing"),
        "{}",
        error.message
    );
    // Still serving.
    let doc = uri(&tree.path(UVOD));
    client.open(&doc, 7, &tree.read(UVOD));
    assert_eq!(client.diagnostics(&doc)["version"], 7);
    client.stop();
}

/// A writable copy of each shared real tree with the files in scope of its config; none
/// (and a line saying so) where `../shared/` is absent.
fn real_trees() -> Vec<(&'static str, Tree, Vec<String>)> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    if !shared.exists() {
        eprintln!("skipped: {} is missing", shared.display());
        return Vec::new();
    }
    ["58cfea7", "b14f4c7", "ff85c84"]
        .into_iter()
        .map(|commit| {
            let tree = Tree::copy_of_dir(&shared.join(commit));
            let ws = lockgraph::copy_audit::workspace::Workspace::load(
                Some(&tree.path(".copy-editor.yaml")),
                None,
            )
            .unwrap();
            let files = ws
                .files_in_scope(&ws.config.matcher(None).unwrap())
                .unwrap();
            assert!(files.len() > 10, "{commit}: {} files", files.len());
            (commit, tree, files)
        })
        .collect()
}

/// On the real files: every file in scope of each shared tree, opened, gets exactly the
/// CLI's findings.
#[test]
fn every_real_file_gets_the_clis_findings() {
    let trees = real_trees();
    let mut compared = 0;
    for (commit, tree, files) in &trees {
        let cli = cli_findings(tree.dir.path());
        let client = start(tree.dir.path(), &[]);
        for rel in files {
            let doc = uri(&tree.path(rel));
            client.open(&doc, 1, &tree.read(rel));
            let published = client.diagnostics(&doc);
            let expected = cli.get(rel).cloned().unwrap_or_default();
            assert_eq!(seen(&published), expected, "{commit}: {rel}");
            compared += expected.len();
        }
        client.stop();
    }
    assert!(
        trees.is_empty() || compared > 100,
        "{compared} findings compared"
    );
}

impl Client {
    /// The code actions for the whole of `uri` (`only`: the kinds asked for).
    fn code_actions(&mut self, uri: &str, only: Option<&[&str]>) -> Vec<Value> {
        let mut context = json!({ "diagnostics": [] });
        if let Some(only) = only {
            context["only"] = json!(only);
        }
        let answer = self.request(
            "textDocument/codeAction",
            json!({
                "textDocument": { "uri": uri },
                "range": { "start": { "line": 0, "character": 0 },
                           "end": { "line": 100000, "character": 0 } },
                "context": context,
            }),
        );
        answer.response_result.unwrap().as_array().unwrap().clone()
    }
}

/// `text` with a code action's edits of `uri` applied (UTF-16 positions).
fn applied(text: &str, uri: &str, action: &Value) -> String {
    let mut edits: Vec<&Value> = action["edit"]["changes"][uri]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    let offset = |p: &Value| {
        let (line, character) = (
            p["line"].as_u64().unwrap() as usize,
            p["character"].as_u64().unwrap() as usize,
        );
        let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
        let rest = &text[start..];
        let mut units = 0;
        let mut at = 0;
        for c in rest.chars() {
            if units >= character || c == '\n' {
                break;
            }
            units += c.len_utf16();
            at += c.len_utf8();
        }
        start + at
    };
    edits.sort_by_key(|e| std::cmp::Reverse(offset(&e["range"]["start"])));
    let mut out = text.to_owned();
    for e in edits {
        let (a, b) = (offset(&e["range"]["start"]), offset(&e["range"]["end"]));
        out.replace_range(a..b, e["newText"].as_str().unwrap());
    }
    out
}

#[test]
fn quick_fixes_and_fix_all_write_what_fix_writes() {
    let tree = Tree::copy_of("copy");
    let mut client = start(tree.dir.path(), &[]);
    assert_eq!(
        client.capabilities["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix", "source.fixAll.copy-audit"])
    );
    let doc = uri(&tree.path(UVOD));
    let text = tree.read(UVOD);
    client.open(&doc, 1, &text);
    let published = client.diagnostics(&doc);
    let quick = client.code_actions(&doc, Some(&["quickfix"]));
    let fixable = findings_of(&published).len();
    assert!(
        !quick.is_empty() && quick.len() <= fixable,
        "{} of {fixable}",
        quick.len()
    );
    for action in &quick {
        assert_eq!(action["kind"], "quickfix");
        let one = applied(&text, &doc, action);
        assert_ne!(one, text);
        assert!(one.len().abs_diff(text.len()) <= 8, "{action}");
    }
    let all = client.code_actions(&doc, Some(&["source.fixAll"]));
    assert_eq!(all.len(), 1, "{all:?}");
    let fixed = applied(&text, &doc, &all[0]);
    tree.copy_audit()
        .args(["--fix", "--quiet"])
        .output()
        .unwrap();
    assert_eq!(fixed, tree.read(UVOD), "fix all is what --fix writes");

    // An unsaved edit leaves the entry stale: no fixes until it is segmented again, and
    // the note on the first line says so.
    client.change(&doc, 2, &format!("{text}\nNová věta ... zde.\n"));
    let stale = client.diagnostics(&doc);
    let note = stale["diagnostics"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(note["code"], "copy-audit/stale");
    assert_eq!(note["range"]["start"]["line"], 0);
    let offered = client.code_actions(&doc, None);
    assert_eq!(offered.len(), 1, "{offered:?}");
    assert_eq!(offered[0]["command"]["command"], "copy-audit.segment");
    client.stop();
}

/// On the real files: for every file in scope of each shared tree, "fix all" (or no
/// action) leaves exactly the bytes `copy-audit --fix` writes.
#[test]
fn fix_all_is_fix_on_every_real_file() {
    let trees = real_trees();
    let mut fixed_files = 0;
    for (commit, tree, files) in &trees {
        let fixed = tree.fixed_copy();
        let mut client = start(tree.dir.path(), &[]);
        for rel in files {
            let doc = uri(&tree.path(rel));
            let text = tree.read(rel);
            client.open(&doc, 1, &text);
            client.diagnostics(&doc);
            let all = client.code_actions(&doc, Some(&["source.fixAll.copy-audit"]));
            let after = all
                .first()
                .map_or(text.clone(), |a| applied(&text, &doc, a));
            assert_eq!(after, fixed.read(rel), "{commit}: {rel}");
            fixed_files += usize::from(after != text);
        }
        client.stop();
    }
    assert!(
        trees.is_empty() || fixed_files > 0,
        "no real file had a fix"
    );
    eprintln!("{fixed_files} real files fixed alike");
}

/// The quick fix of `rule` among `actions`.
fn quick_fix<'a>(actions: &'a [Value], rule: &str) -> &'a Value {
    actions
        .iter()
        .find(|a| a["title"].as_str().unwrap().starts_with(rule))
        .unwrap_or_else(|| panic!("no quick fix of {rule}: {actions:?}"))
}

/// A client with the fixture's `uvod.md` open, its no-break-space quick fix applied as
/// version 2 (one character for one: the entry follows): the client, the document's URI,
/// its fixed text and the diagnostics of it.
fn nbsp_fixed(tree: &Tree) -> (Client, String, String, Value) {
    let mut client = start(tree.dir.path(), &[]);
    let doc = uri(&tree.path(UVOD));
    let text = tree.read(UVOD);
    client.open(&doc, 1, &text);
    client.diagnostics(&doc);
    let quick = client.code_actions(&doc, Some(&["quickfix"]));
    let fixed = applied(&text, &doc, quick_fix(&quick, "cs-R1-nbsp-prep"));
    client.change(&doc, 2, &fixed);
    let after = client.diagnostics(&doc);
    (client, doc, fixed, after)
}

#[test]
fn a_fix_that_keeps_coordinates_keeps_the_entry_and_saving_re_anchors_it() {
    let tree = Tree::copy_of("copy");
    let (mut client, doc, fixed, after) = nbsp_fixed(&tree);
    assert_eq!(after["diagnostics"][0]["data"]["segmentation"], "cached");
    assert!(!client.code_actions(&doc, None).is_empty(), "still fixable");
    // Saved: the lockfile's entry is re-anchored to the saved bytes, its review kept.
    let lock_before = common::json(tree.read(".copy-editor.lock.json").as_bytes());
    tree.write(UVOD, &fixed);
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": doc } }),
    );
    // The save is a notification: a request after it is answered after it is applied.
    client.code_actions(&doc, None);
    let lock_after = common::json(tree.read(".copy-editor.lock.json").as_bytes());
    let (was, now) = (&lock_before["files"][UVOD], &lock_after["files"][UVOD]);
    let hash = lockgraph_queries::hash::ContentHash::of(fixed.as_bytes()).to_string();
    assert_eq!(now["contentHash"], hash);
    assert_eq!(now["reviewedBy"], was["reviewedBy"]);
    assert_eq!(now["spans"], was["spans"]);
    // `lockfile check` finds nothing wrong with the entry: fresh for the saved bytes.
    let out = tree
        .copy_audit()
        .args(["lockfile", "check", "--json"])
        .output()
        .unwrap();
    let check = common::json(&out.stdout);
    let problems: Vec<_> = check["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["path"] == UVOD)
        .collect();
    assert!(problems.is_empty(), "{problems:?}");
    client.stop();
}

#[test]
fn a_quick_fix_then_fix_all_then_save_is_what_fix_writes() {
    let tree = Tree::copy_of("copy");
    let expected = tree.fixed_copy();
    let (mut client, doc, one, _) = nbsp_fixed(&tree);
    let all = client.code_actions(&doc, Some(&["source.fixAll.copy-audit"]));
    let fixed = applied(&one, &doc, &all[0]);
    client.change(&doc, 3, &fixed);
    client.diagnostics(&doc);
    tree.write(UVOD, &fixed);
    client.notify(
        "textDocument/didSave",
        json!({ "textDocument": { "uri": doc } }),
    );
    client.code_actions(&doc, None);
    assert_eq!(tree.read(UVOD), expected.read(UVOD));
    assert_eq!(
        tree.read(".copy-editor.lock.json"),
        expected.read(".copy-editor.lock.json")
    );
    client.stop();
}

impl Client {
    /// The next request the server sends the client with `method` (answered with null).
    fn server_request(&self, method: &str) -> Request {
        loop {
            if let Message::Request(r) = self.receive()
                && r.method == method
            {
                let answer = Response::new_ok(r.id.clone(), Value::Null);
                self.conn.sender.send(Message::Response(answer)).unwrap();
                return r;
            }
        }
    }

    /// Tells the server that `paths` changed on disk.
    fn files_changed(&self, paths: &[&Path]) {
        let changes: Vec<Value> = paths
            .iter()
            .map(|p| json!({ "uri": uri(p), "type": 2 }))
            .collect();
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": changes }),
        );
    }
}

/// Starts a client that lets servers register for file changes.
fn watching_client(root: &Path) -> Client {
    let watching = json!({ "didChangeWatchedFiles": { "dynamicRegistration": true } });
    start_with(root, json!({ "capabilities": { "workspace": watching } }))
}

#[test]
fn a_config_or_lockfile_change_on_disk_rechecks_open_documents_without_a_restart() {
    let tree = Tree::copy_of("copy");
    let client = watching_client(tree.dir.path());
    let register = client.server_request("client/registerCapability");
    let watchers = &register.params["registrations"][0]["registerOptions"]["watchers"];
    let globs: Vec<&str> = watchers
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["globPattern"].as_str().unwrap())
        .collect();
    assert!(globs.contains(&"**/.copy-editor.yaml"), "{globs:?}");
    assert!(globs.contains(&"**/.copy-editor.lock.json"), "{globs:?}");

    let doc = uri(&tree.path(UVOD));
    let text = tree.read(UVOD);
    client.open(&doc, 1, &text);
    let before = client.diagnostics(&doc);
    assert_eq!(before["diagnostics"][0]["data"]["segmentation"], "cached");

    // The lockfile loses the entry: the spans are provisional from then on.
    tree.copy_audit()
        .args(["lockfile", "invalidate", UVOD])
        .assert()
        .success();
    client.files_changed(&[&tree.path(".copy-editor.lock.json")]);
    let after = client.diagnostics(&doc);
    assert_eq!(
        after["diagnostics"][0]["data"]["segmentation"],
        "provisional"
    );

    // A config that does not load: its error on the config, the last good one serves on.
    let config = tree.path(".copy-editor.yaml");
    let good = tree.read(".copy-editor.yaml");
    tree.write(".copy-editor.yaml", &format!("{good}\nlanguage: [\n"));
    client.files_changed(&[&config]);
    let error = client.diagnostics(&uri(&config));
    let shown = &error["diagnostics"][0];
    assert_eq!(shown["severity"], 1, "{error}");
    assert!(
        shown["range"]["start"]["line"].as_u64().unwrap() > 0,
        "{error}"
    );
    client.change(&doc, 2, &format!("{text}\nVěta ... zde.\n"));
    let served = client.diagnostics(&doc);
    assert_eq!(served["version"], 2);
    assert!(!served["diagnostics"].as_array().unwrap().is_empty());

    // Mended, and now excluding the document: its error cleared, the document out of scope.
    let excluding = good.replace(
        "    - \"content/drafts/**\"",
        "    - \"content/drafts/**\"\n    - \"content/talks/**\"",
    );
    assert_ne!(excluding, good);
    tree.write(".copy-editor.yaml", &excluding);
    client.files_changed(&[&config]);
    assert_eq!(client.diagnostics(&uri(&config))["diagnostics"], json!([]));
    assert_eq!(client.diagnostics(&doc)["diagnostics"], json!([]));
    client.stop();
}

#[test]
fn hover_on_a_finding_shows_its_rules_documentation() {
    let tree = Tree::copy_of("copy");
    let mut client = start(tree.dir.path(), &[]);
    assert_eq!(client.capabilities["hoverProvider"], true);
    let doc = uri(&tree.path(UVOD));
    client.open(&doc, 1, &tree.read(UVOD));
    let published = client.diagnostics(&doc);
    let first = &published["diagnostics"][0];
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": doc }, "position": first["range"]["start"] }),
    );
    let hover = hover.response_result.unwrap();
    let text = hover["contents"]["value"].as_str().unwrap();
    assert_eq!(hover["contents"]["kind"], "markdown");
    assert!(text.contains(first["code"].as_str().unwrap()), "{text}");
    assert!(
        text.len() > 80,
        "the rule's paragraph, not only its id: {text}"
    );
    // Nowhere near a finding: nothing.
    let far = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": doc }, "position": { "line": 9999, "character": 0 } }),
    );
    assert_eq!(far.response_result.unwrap(), Value::Null);
    client.stop();
}

#[test]
fn a_client_that_pulls_diagnostics_gets_them_when_it_asks_and_is_asked_to_pull_again() {
    let tree = Tree::copy_of("copy");
    let doc = uri(&tree.path(UVOD));
    let text = tree.read(UVOD);
    let pushing = start(tree.dir.path(), &[]);
    pushing.open(&doc, 1, &text);
    let pushed = pushing.diagnostics(&doc);
    pushing.stop();

    let mut client = start_with(
        tree.dir.path(),
        json!({ "capabilities": {
            "textDocument": { "diagnostic": { "dynamicRegistration": false } },
            "workspace": {
                "diagnostics": { "refreshSupport": true },
                "didChangeWatchedFiles": { "dynamicRegistration": true },
            },
        }}),
    );
    assert_eq!(
        client.capabilities["diagnosticProvider"]["identifier"],
        "copy-audit"
    );
    client.server_request("client/registerCapability");
    client.open(&doc, 1, &text);
    let pulled = client.request(
        "textDocument/diagnostic",
        json!({ "textDocument": { "uri": doc } }),
    );
    let pulled = pulled.response_result.unwrap();
    assert_eq!(pulled["kind"], "full");
    assert_eq!(pulled["items"], pushed["diagnostics"]);
    // A change on disk: the client is asked to pull again.
    client.files_changed(&[&tree.path(".copy-editor.lock.json")]);
    client.server_request("workspace/diagnostic/refresh");
    client.stop();
}

#[test]
fn shutdown_and_exit_sent_together_end_the_server_at_once() {
    let tree = Tree::copy_of("copy");
    let mut client = start(tree.dir.path(), &[]);
    // As a client that does not wait for the answer: both land in one batch.
    let shutdown = Request::new(RequestId::from(99), "shutdown".to_owned(), Value::Null);
    client.conn.sender.send(Message::Request(shutdown)).unwrap();
    client.notify("exit", Value::Null);
    let started = std::time::Instant::now();
    client.server.take().unwrap().join().unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
}

/// The command of the code action among `offered` that runs `name`.
fn command_of(offered: &[Value], name: &str) -> Value {
    offered
        .iter()
        .map(|a| &a["command"])
        .find(|c| c["command"] == name)
        .unwrap_or_else(|| panic!("no {name} among {offered:?}"))
        .clone()
}

#[test]
fn segment_and_mark_reviewed_write_the_entry_through_commands() {
    const WELCOME: &str = "src/components/Welcome.tsx";
    let tree = Tree::copy_of("copy");
    // With initializationOptions: "mark reviewed" needs a reviewer.
    let mut client = start_with(
        tree.dir.path(),
        json!({ "initializationOptions": { "reviewer": "tester@2026-12-04" } }),
    );
    assert_eq!(
        client.capabilities["executeCommandProvider"]["commands"],
        json!(["copy-audit.segment", "copy-audit.markReviewed"])
    );

    let doc = uri(&tree.path(WELCOME));
    client.open(&doc, 1, &tree.read(WELCOME));
    let first = client.diagnostics(&doc);
    let note = first["diagnostics"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(note["code"], "copy-audit/unsegmented", "{first}");
    let offered = client.code_actions(&doc, Some(&["source"]));
    let segment = command_of(&offered, "copy-audit.segment");
    let done = client.request("workspace/executeCommand", segment.clone());
    assert!(done.response_result.is_ok(), "{done:?}");
    let lock = common::json(tree.read(".copy-editor.lock.json").as_bytes());
    let entry = &lock["files"][WELCOME];
    assert!(entry["spans"].is_array(), "{lock}");
    assert_eq!(entry["reviewedBy"], Value::Null);
    // Re-checked with the new entry: fresh, not yet reviewed.
    let second = client.diagnostics(&doc);
    let note = second["diagnostics"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(note["code"], "copy-audit/unreviewed", "{second}");
    assert_eq!(findings_of(&second)[0]["data"]["segmentation"], "cached");

    let offered = client.code_actions(&doc, Some(&["source"]));
    let review = command_of(&offered, "copy-audit.markReviewed");
    let done = client.request("workspace/executeCommand", review.clone());
    assert!(done.response_result.is_ok(), "{done:?}");
    let lock = common::json(tree.read(".copy-editor.lock.json").as_bytes());
    assert_eq!(lock["files"][WELCOME]["reviewedBy"], "tester@2026-12-04");
    let third = client.diagnostics(&doc);
    assert!(
        third["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .all(|d| !d["code"].as_str().unwrap().starts_with("copy-audit/")),
        "{third}"
    );
    // A command for a document not open: an error naming it.
    let missing = client.request(
        "workspace/executeCommand",
        json!({ "command": "copy-audit.segment", "arguments": ["file:///nowhere.md"] }),
    );
    let error = missing.response_result.expect_err("an error");
    assert!(
        error.message.contains("file:///nowhere.md"),
        "{}",
        error.message
    );
    client.stop();
}
