//! `soil-lock server`, driven in-process as an editor drives it: specs, `.soil` files and
//! sidecars opened and edited, their diagnostics compared with what the CLI says of the
//! same bytes, the chain of causes, hover, "refresh", files changed on disk, the
//! executed-query log through the server, malformed messages, `shutdown` and `exit`.

mod common;
#[path = "common/lsp_client.rs"]
mod lsp_client;

use common::Tree;
use lsp_client::{Client, uri};
use lsp_server::Message;
use serde_json::{Value, json};
use std::collections::BTreeSet;
use std::path::Path;

fn start(root: &Path) -> Client {
    start_with(root, json!({}))
}

fn start_with(root: &Path, params: Value) -> Client {
    Client::connect(root, params, |conn| {
        lockgraph::soil_lock::server::serve(conn, None).unwrap()
    })
}

/// A client that asked the server to record the queries salsa executes.
fn recording(root: &Path) -> Client {
    start_with(
        root,
        json!({ "initializationOptions": { "recordQueries": true } }),
    )
}

/// The shared trellis root, copied; `None` (and a line saying so) without `../shared/`.
fn trellis_root() -> Option<Tree> {
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance/trellis");
    if !shared.exists() {
        eprintln!("skipped: {} is missing", shared.display());
        return None;
    }
    Some(Tree::copy_of_dir(&shared))
}

fn codes(diagnostics: &Value) -> Vec<String> {
    let mut out: Vec<String> = diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_owned())
        .collect();
    out.sort();
    out
}

fn with_code<'a>(diagnostics: &'a Value, code: &str) -> &'a Value {
    diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == code)
        .unwrap_or_else(|| panic!("no {code} in {diagnostics}"))
}

/// Which definitions' `flags` query ran, from the server's log.
fn flags_ran(client: &mut Client) -> BTreeSet<String> {
    let answer = client.request("soil-lock/executedQueries", Value::Null);
    let ran = answer.response_result.expect("the log is served");
    ran.as_array()
        .unwrap()
        .iter()
        .filter(|e| e["query"] == "flags")
        .filter_map(|e| e["definition"].as_str().map(str::to_owned))
        .collect()
}

/// On the real root: every spec, opened, shows exactly the flags `soil-lock status`
/// gives its definition, on its `name:` line, and no parse diagnostic where `check`
/// reports none.
#[test]
fn every_real_spec_shows_the_flags_status_gives_it() {
    let Some(tree) = trellis_root() else { return };
    let root = tree.path("examples");
    let status = tree
        .soil_lock()
        .args(["--root", root.to_str().unwrap(), "status", "--json"])
        .output()
        .unwrap();
    assert!(status.status.success(), "{status:?}");
    let status = common::json(&status.stdout);
    let client = start(&root);
    let mut opened = 0;
    for def in status["defs"].as_array().unwrap() {
        let path = def["path"].as_str().unwrap();
        let file = root.join(format!("{path}.tr"));
        let text = std::fs::read_to_string(&file).unwrap();
        let uri = uri(&file);
        client.open(&uri, 1, &text);
        let published = client.diagnostics(&uri);
        assert_eq!(published["version"], 1);
        let mut want: Vec<String> = def["flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().split(':').next().unwrap().to_owned())
            .collect();
        want.sort();
        assert_eq!(codes(&published), want, "{path}");
        let name_line = text.lines().position(|l| l.starts_with("name:")).unwrap();
        for d in published["diagnostics"].as_array().unwrap() {
            assert_eq!(d["range"]["start"]["line"], name_line, "{path}: {d}");
            assert_eq!(d["source"], "soil-lock");
        }
        opened += 1;
    }
    assert!(opened >= 18, "{opened}");
    client.stop();
}

/// A broken spec shows trellis's codes where `check` places them, and the definition's
/// hover shows its ladder and hashes.
#[test]
fn parse_diagnostics_are_where_check_puts_them_and_hover_shows_the_hashes() {
    let tree = Tree::copy_of("soil");
    let client = start(tree.dir.path());
    let rel = "csvstats/sum.tr";
    let broken = tree
        .read(rel)
        .replace("tags: [stats]", "tags: [stats, nope]")
        .replace("```ensures", "```ensures extra words");
    let file = tree.path(rel);
    let uri = uri(&file);
    client.open(&uri, 3, &broken);
    let published = client.diagnostics(&uri);
    // What `check` says of the same bytes on disk.
    tree.write(rel, &broken);
    let check = tree.soil_lock().arg("check").output().unwrap();
    let check = String::from_utf8(check.stdout).unwrap();
    for code in ["tr-undeclared-tag", "tr-block-info"] {
        let d = with_code(&published, code);
        let line = check
            .lines()
            .find(|l| l.starts_with("csvstats/sum: spec: ") && l.contains(code))
            .unwrap_or_else(|| panic!("check says nothing of {code}: {check}"));
        let at = line.split(": ").nth(2).unwrap();
        let (l, c) = at.split_once(':').unwrap();
        assert_eq!(
            d["range"]["start"]["line"].as_u64().unwrap() + 1,
            l.parse::<u64>().unwrap(),
            "{d} vs {line}"
        );
        assert_eq!(
            d["range"]["start"]["character"].as_u64().unwrap() + 1,
            c.parse::<u64>().unwrap(),
            "{d} vs {line}"
        );
        assert_eq!(d["severity"], 1, "{d}");
    }
    let mut client = client;
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 1, "character": 7 } }),
    );
    let value = hover.response_result.unwrap()["contents"]["value"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        value.starts_with("**csvstats/sum** · function · verified · accepted"),
        "{value}"
    );
    let lock = tree.read("csvstats/sum.lock");
    let recorded_formal = lock
        .split("\"formal\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    assert!(value.contains(recorded_formal), "{value}");
    assert!(value.contains("| soil"), "{value}");
    // Off the name line: no hover.
    let none = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": { "line": 8, "character": 0 } }),
    );
    assert_eq!(none.response_result.unwrap(), Value::Null);
    client.stop();
}

/// An unsaved edit of a callee's sidecar reaches its callers' open specs through the
/// database: `stale-callees`, with the chain to the callee's spec as related information.
#[test]
fn a_callee_edited_in_the_editor_flags_its_open_callers_with_the_cause() {
    let tree = Tree::copy_of("soil");
    let client = start(tree.dir.path());
    let mean = uri(&tree.path("csvstats/mean.tr"));
    client.open(&mean, 1, &tree.read("csvstats/mean.tr"));
    assert_eq!(codes(&client.diagnostics(&mean)), Vec::<String>::new());
    let lock = "csvstats/sum.lock";
    let text = tree.read(lock);
    let old = text
        .split("\"soil_hash\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    let edited = text.replace(old, &format!("sha256:{}", "ab".repeat(32)));
    let sum_lock = uri(&tree.path(lock));
    client.open(&sum_lock, 1, &edited);
    let published = loop {
        let d = client.diagnostics(&mean);
        if !codes(&d).is_empty() {
            break d;
        }
    };
    assert_eq!(codes(&published), vec!["stale-callees"]);
    let d = with_code(&published, "stale-callees");
    assert!(
        d["message"].as_str().unwrap().contains("csvstats/sum"),
        "{d}"
    );
    let related = d["relatedInformation"]
        .as_array()
        .expect("the chain to the cause");
    let last = related.last().unwrap();
    assert_eq!(
        last["location"]["uri"],
        uri(&tree.path("csvstats/sum.tr")),
        "{d}"
    );
    assert_eq!(
        last["location"]["range"]["start"]["line"], 1,
        "sum's name: line: {d}"
    );
    // Nothing was saved: the disk still has the old sidecar, and closing it takes the disk's
    // bytes back.
    assert_eq!(tree.read(lock), text);
    client.notify(
        "textDocument/didClose",
        json!({ "textDocument": { "uri": sum_lock } }),
    );
    let back = client.diagnostics(&mean);
    assert_eq!(codes(&back), Vec::<String>::new());
    client.stop();
}

/// A prose edit of an open callee re-runs the callee's flags and no caller's, counted
/// through the server; its callers' diagnostics are not published again.
#[test]
fn a_prose_edit_through_the_server_reruns_no_caller() {
    let tree = Tree::copy_of("soil");
    let mut client = recording(tree.dir.path());
    let sum = uri(&tree.path("csvstats/sum.tr"));
    let mean = uri(&tree.path("csvstats/mean.tr"));
    let text = tree.read("csvstats/sum.tr");
    client.open(&mean, 1, &tree.read("csvstats/mean.tr"));
    client.open(&sum, 1, &text);
    client.diagnostics(&sum);
    flags_ran(&mut client);
    client.change(
        &sum,
        2,
        &text.replace("Adds the floats", "Adds up the floats"),
    );
    let published = client.diagnostics(&sum);
    assert_eq!(published["version"], 2);
    assert_eq!(codes(&published), vec!["prose-stale"]);
    let ran = flags_ran(&mut client);
    assert!(ran.contains("csvstats/sum"), "{ran:?}");
    for caller in ["csvstats/mean", "csvstats/variance", "csvstats/summarize"] {
        assert!(!ran.contains(caller), "{caller} re-ran: {ran:?}");
    }
    // A new recorded Soil hash in sum's sidecar reaches its recorded callers.
    let lock = tree.read("csvstats/sum.lock");
    let old = lock
        .split("\"soil_hash\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    client.open(
        &uri(&tree.path("csvstats/sum.lock")),
        1,
        &lock.replace(old, &format!("sha256:{}", "cd".repeat(32))),
    );
    client.diagnostics(&mean);
    let ran = flags_ran(&mut client);
    assert!(ran.contains("csvstats/mean"), "{ran:?}");
    assert!(!ran.contains("parity/is_even"), "{ran:?}");
    client.stop();
}

/// "Refresh" on a spec with a prose edit writes the sidecar `soil-lock refresh` writes for
/// the same spec, and the flag turns into `review-suggested`.
#[test]
fn refresh_writes_what_the_cli_writes() {
    let tree = Tree::copy_of("soil");
    let expected = Tree::copy_of("soil");
    let rel = "csvstats/sum.tr";
    let edited = tree
        .read(rel)
        .replace("Adds the floats", "Adds up the floats");
    let mut client = start(tree.dir.path());
    let sum = uri(&tree.path(rel));
    client.open(&sum, 1, &tree.read(rel));
    assert_eq!(codes(&client.diagnostics(&sum)), Vec::<String>::new());
    let none = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": sum }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "context": { "diagnostics": [] } }),
    );
    assert_eq!(
        none.response_result.unwrap(),
        json!([]),
        "nothing to refresh yet"
    );
    client.change(&sum, 2, &edited);
    assert_eq!(codes(&client.diagnostics(&sum)), vec!["prose-stale"]);
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": sum }, "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 0, "character": 0 } }, "context": { "diagnostics": [], "only": ["quickfix"] } }),
    );
    let actions = actions.response_result.unwrap();
    assert_eq!(actions.as_array().unwrap().len(), 1, "{actions}");
    let command = actions[0]["command"].clone();
    assert_eq!(command["command"], "soil-lock.refresh");
    let done = client.request(
        "workspace/executeCommand",
        json!({ "command": command["command"], "arguments": command["arguments"] }),
    );
    assert!(done.response_result.is_ok(), "{done:?}");
    assert_eq!(codes(&client.diagnostics(&sum)), vec!["review-suggested"]);
    // The editor saves the spec; the CLI, on the same spec, writes the same sidecar.
    tree.write(rel, &edited);
    expected.write(rel, &edited);
    let cli = expected.soil_lock().arg("refresh").output().unwrap();
    assert!(cli.status.success(), "{cli:?}");
    assert_eq!(
        tree.read("csvstats/sum.lock"),
        expected.read("csvstats/sum.lock")
    );
    // A refresh of a sidecar that changed on disk since the session read it is refused.
    client.change(&sum, 3, &edited.replace("Adds up", "Sums up"));
    client.diagnostics(&sum);
    let lock = tree.read("csvstats/sum.lock");
    tree.write(
        "csvstats/sum.lock",
        &lock.replace("\"pinned\": false", "\"pinned\": true"),
    );
    let refused = client.request(
        "workspace/executeCommand",
        json!({ "command": "soil-lock.refresh", "arguments": [sum] }),
    );
    let message = refused.response_result.expect_err("refused").message;
    assert!(message.contains("changed on disk"), "{message}");
    client.stop();
}

/// A file changed on disk (the editor does not hold it) is taken in when the client says
/// so; malformed messages get an error and the server serves on.
#[test]
fn disk_changes_are_taken_in_and_bad_messages_answered() {
    let tree = Tree::copy_of("soil");
    let watching = json!({ "didChangeWatchedFiles": { "dynamicRegistration": true } });
    let mut client = start_with(
        tree.dir.path(),
        json!({ "capabilities": { "workspace": watching } }),
    );
    let mean = uri(&tree.path("csvstats/mean.tr"));
    client.open(&mean, 1, &tree.read("csvstats/mean.tr"));
    client.diagnostics(&mean);
    let lock = "csvstats/sum.lock";
    let text = tree.read(lock);
    let old = text
        .split("\"soil_hash\": \"")
        .nth(1)
        .unwrap()
        .split('"')
        .next()
        .unwrap();
    tree.write(
        lock,
        &text.replace(old, &format!("sha256:{}", "ef".repeat(32))),
    );
    client.notify(
        "workspace/didChangeWatchedFiles",
        json!({ "changes": [{ "uri": uri(&tree.path(lock)), "type": 2 }] }),
    );
    assert_eq!(codes(&client.diagnostics(&mean)), vec!["stale-callees"]);
    let bad = client.request("textDocument/hover", json!({ "textDocument": 7 }));
    assert_eq!(bad.response_result.expect_err("an error").code, -32602);
    let unknown = client.request("textDocument/formatting", json!({}));
    assert_eq!(unknown.response_result.expect_err("an error").code, -32601);
    client.notify("textDocument/didOpen", json!({ "nonsense": true }));
    // Still serving: an edit is answered.
    client.change(
        &mean,
        2,
        &tree
            .read("csvstats/mean.tr")
            .replace("---\n\n", "---\n\nMean. "),
    );
    let published = client.diagnostics(&mean);
    assert_eq!(published["version"], 2);
    client.stop();
}

/// A hand edit of an open `.soil` shows `soil-drift` on it, and each caller's open `.soil`
/// shows `stale-callees` at its call of the edited callee; a syntax error is shown where
/// it is.
#[test]
fn soil_files_show_the_flags_whose_cause_is_in_them() {
    let tree = Tree::copy_of("soil");
    let client = start(tree.dir.path());
    let sum = uri(&tree.path("csvstats/sum.soil"));
    let mean = uri(&tree.path("csvstats/mean.soil"));
    let mean_text = tree.read("csvstats/mean.soil");
    client.open(&mean, 1, &mean_text);
    assert_eq!(codes(&client.diagnostics(&mean)), Vec::<String>::new());
    let sum_text = tree.read("csvstats/sum.soil");
    client.open(&sum, 1, &sum_text.replace("0.0 xs", "1.0 xs"));
    let (mut on_sum, mut on_mean) = (None, None);
    while on_sum.is_none() || on_mean.is_none() {
        let Message::Notification(n) = client.receive() else {
            continue;
        };
        if n.params["uri"] == sum {
            on_sum = Some(n.params);
        } else if n.params["uri"] == mean {
            on_mean = Some(n.params);
        }
    }
    let on_sum = on_sum.unwrap();
    assert_eq!(codes(&on_sum), vec!["soil-drift"]);
    let on_mean = on_mean.unwrap();
    assert_eq!(codes(&on_mean), vec!["stale-callees"]);
    let call = with_code(&on_mean, "stale-callees");
    let at = mean_text.lines().nth(1).unwrap().find("sum").unwrap();
    assert_eq!(
        call["range"]["start"],
        json!({ "line": 1, "character": at })
    );
    assert_eq!(
        call["range"]["end"],
        json!({ "line": 1, "character": at + 3 })
    );
    client.change(&sum, 2, "sum : (xs : List F64) -> \n");
    let broken = client.diagnostics(&sum);
    let error = broken["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["severity"] == 1)
        .unwrap_or_else(|| panic!("no syntax error in {broken}"));
    // The file ends after its first line: that is where a type was expected.
    assert_eq!(error["code"], "soil-expected", "{error}");
    assert_eq!(error["range"]["start"]["line"], 1, "{error}");
    client.stop();
}
