//! `copy-audit server`, driven in-process as an editor drives it: an in-memory connection,
//! `initialize`, documents opened and changed, diagnostics compared with the CLI's
//! findings for the same bytes, malformed messages, `shutdown` and `exit`.

mod common;

use common::Tree;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};
use std::path::Path;
use std::thread::JoinHandle;
use std::time::Duration;

/// A client connected to a server thread serving `root`.
struct Client {
    conn: Connection,
    server: Option<JoinHandle<()>>,
    next_id: i32,
    /// What `initialize` answered.
    capabilities: Value,
}

fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

impl Client {
    /// Connects and initializes with `root` as the one workspace folder; `encodings` are
    /// the position encodings the client offers, in its order of preference.
    fn start(root: &Path, encodings: &[&str]) -> Client {
        let (server_side, conn) = Connection::memory();
        let server = std::thread::spawn(move || {
            lockgraph::copy_audit::server::serve(server_side, None).unwrap();
        });
        let mut client = Client {
            conn,
            server: Some(server),
            next_id: 0,
            capabilities: Value::Null,
        };
        let general = if encodings.is_empty() {
            json!({})
        } else {
            json!({ "positionEncodings": encodings })
        };
        let answer = client.request(
            "initialize",
            json!({
                "processId": null,
                "rootUri": null,
                "capabilities": { "general": general },
                "workspaceFolders": [{ "uri": uri(root), "name": "root" }],
            }),
        );
        client.capabilities =
            answer.response_result.expect("initialize answered")["capabilities"].clone();
        client.notify("initialized", json!({}));
        client
    }

    fn request(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let request = Request::new(id.clone(), method.to_owned(), params);
        self.conn.sender.send(Message::Request(request)).unwrap();
        loop {
            match self.receive() {
                Message::Response(r) if r.id == id => return r,
                _ => {}
            }
        }
    }

    fn notify(&self, method: &str, params: Value) {
        let note = Notification::new(method.to_owned(), params);
        self.conn.sender.send(Message::Notification(note)).unwrap();
    }

    fn receive(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers")
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&self, uri: &str) -> Value {
        loop {
            if let Message::Notification(n) = self.receive()
                && n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == uri
            {
                return n.params;
            }
        }
    }

    fn open(&self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": uri, "languageId": "markdown", "version": version, "text": text,
            }}),
        );
    }

    fn change(&self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }

    fn stop(mut self) {
        let answer = self.request("shutdown", Value::Null);
        assert!(answer.response_result.is_ok(), "{answer:?}");
        self.notify("exit", Value::Null);
        self.server.take().unwrap().join().unwrap();
    }
}

/// The diagnostics' (rule, 1-based line, 1-based column, message), as the CLI prints
/// findings (UTF-16 columns).
fn seen(diagnostics: &Value) -> Vec<(String, u64, u64, String)> {
    let mut out: Vec<_> = diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
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
    let client = Client::start(tree.dir.path(), &[]);
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
    assert!(
        href.ends_with(&format!("docs/rules.md#{}", code.to_ascii_lowercase())),
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
    let client = Client::start(tree.dir.path(), &[]);
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
        let client = Client::start(tree.dir.path(), &offered);
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
    let client = Client::start(tree.dir.path(), &[]);
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
    let mut client = Client::start(tree.dir.path(), &[]);
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

/// On the real files: every file in scope of each shared tree, opened, gets exactly the
/// CLI's findings.
#[test]
fn every_real_file_gets_the_clis_findings() {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/harness-lab");
    if !shared.exists() {
        eprintln!("skipped: {} is missing", shared.display());
        return;
    }
    let mut compared = 0;
    for commit in ["58cfea7", "b14f4c7", "ff85c84"] {
        let tree = Tree::copy_of_dir(&shared.join(commit));
        let cli = cli_findings(tree.dir.path());
        let ws = lockgraph::copy_audit::workspace::Workspace::load(
            Some(&tree.path(".copy-editor.yaml")),
            None,
        )
        .unwrap();
        let files = ws
            .files_in_scope(&ws.config.matcher(None).unwrap())
            .unwrap();
        assert!(files.len() > 10, "{commit}: {} files", files.len());
        let client = Client::start(tree.dir.path(), &[]);
        for rel in &files {
            let doc = uri(&tree.path(rel));
            client.open(&doc, 1, &tree.read(rel));
            let published = client.diagnostics(&doc);
            let expected = cli.get(rel).cloned().unwrap_or_default();
            assert_eq!(seen(&published), expected, "{commit}: {rel}");
            compared += expected.len();
        }
        client.stop();
    }
    assert!(compared > 100, "{compared} findings compared");
}
