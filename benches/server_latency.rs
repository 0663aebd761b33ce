//! The language server as an editor uses it, in-process over lsp-server's memory
//! connection (the protocol's messages, without a pipe):
//!
//! 1. every file in scope of a corpus opened as a document (its diagnostics awaited), the
//!    resident memory then, and again after each quarter of `edits` edits spread over the
//!    documents (each an appended sentence, its diagnostics awaited): memory that stays
//!    flat after the first pass is what a server running all day needs;
//! 2. a 5 MB Markdown document made of the corpus' own Markdown files, edited 21 times at
//!    its end: the time from the change sent to its diagnostics received.
//!
//! `cargo run --release --example server_latency -- <corpus dir> [edits]` (the realistic
//! corpus: `cargo run --release --example real_corpus -- <dir> 40`).

use lockgraph::copy_audit::workspace::Workspace;

/// The allocator the `copy-audit` binary serves with: its memory is what is measured.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

fn rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

struct Client {
    conn: Connection,
}

impl Client {
    fn notify(&self, method: &str, params: Value) {
        let n = Notification::new(method.to_owned(), params);
        self.conn.sender.send(Message::Notification(n)).unwrap();
    }

    /// Waits for the diagnostics of `uri` at `version`.
    fn diagnostics(&self, uri: &str, version: i64) -> usize {
        self.received(uri, version).0
    }

    /// Waits for the diagnostics of `uri` at `version`: their count and when they arrived
    /// (before the client drops them: a client's own parsing is not the server's time).
    fn received(&self, uri: &str, version: i64) -> (usize, Instant) {
        loop {
            let message = self
                .conn
                .receiver
                .recv_timeout(Duration::from_secs(120))
                .expect("the server answers");
            if let Message::Notification(n) = message
                && n.params["uri"] == uri
                && n.params["version"] == version
            {
                let at = Instant::now();
                return (n.params["diagnostics"].as_array().map_or(0, Vec::len), at);
            }
        }
    }

    fn change(&self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: server_latency <corpus dir> [edits]");
        std::process::exit(2);
    };
    let edits: usize = args.get(1).map_or(1000, |n| n.parse().expect("a number"));
    let dir = std::fs::canonicalize(dir).expect("corpus dir");
    let ws = Workspace::load(Some(&dir.join(".copy-editor.yaml")), None)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let files = ws
        .files_in_scope(&ws.config.matcher(None).unwrap())
        .unwrap();
    println!("before the server: {:.0} MB resident", rss_mb());

    let (server_side, conn) = Connection::memory();
    let server = std::thread::spawn(move || {
        lockgraph::copy_audit::server::serve(server_side, None).unwrap();
    });
    let client = Client { conn };
    let init = Request::new(
        RequestId::from(1),
        "initialize".to_owned(),
        json!({
            "processId": null, "rootUri": null, "capabilities": {},
            "workspaceFolders": [{ "uri": format!("file://{}", dir.display()), "name": "corpus" }],
        }),
    );
    client.conn.sender.send(Message::Request(init)).unwrap();
    while !matches!(client.conn.receiver.recv().unwrap(), Message::Response(_)) {}
    client.notify("initialized", json!({}));

    let uris: Vec<String> = files
        .iter()
        .map(|f| format!("file://{}", dir.join(f).display()))
        .collect();
    let texts: Vec<String> = files
        .iter()
        .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
        .collect();
    let t = Instant::now();
    let mut findings = 0;
    for (uri, text) in uris.iter().zip(&texts) {
        client.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "markdown", "version": 1, "text": text } }),
        );
        findings += client.diagnostics(uri, 1);
    }
    println!(
        "opened {} documents ({findings} diagnostics) in {:.2} s: {:.0} MB resident",
        uris.len(),
        t.elapsed().as_secs_f64(),
        rss_mb()
    );
    let mut versions = vec![1i64; uris.len()];
    let mut edited: Vec<String> = texts.clone();
    let mut first_pass = None;
    for e in 0..edits {
        let i = e % uris.len();
        versions[i] += 1;
        // Alternating two texts keeps every document's size as it was.
        edited[i] = if versions[i] % 2 == 0 {
            format!("{}\nDoplněná věta číslo {e} ... na konci.\n", texts[i])
        } else {
            texts[i].clone()
        };
        client.change(&uris[i], versions[i], &edited[i]);
        client.diagnostics(&uris[i], versions[i]);
        if (e + 1) % (edits / 4).max(1) == 0 {
            let rss = rss_mb();
            let base = *first_pass.get_or_insert(rss);
            println!(
                "after {:>5} edits: {rss:.0} MB resident ({:+.1}% against the first quarter)",
                e + 1,
                (rss / base - 1.0) * 100.0
            );
        }
    }

    // One 5 MB document: the corpus' Markdown files, end to end.
    let mut big = String::new();
    for text in texts.iter().cycle().take(texts.len() * 64) {
        if big.len() >= 5 << 20 {
            break;
        }
        big.push_str(text);
        big.push('\n');
    }
    let md = files
        .iter()
        .position(|f| f.ends_with(".md"))
        .expect("a Markdown file");
    let uri = &uris[md];
    let mut version = versions[md] + 1;
    client.change(uri, version, &big);
    let t = Instant::now();
    let (n, at) = client.received(uri, version);
    println!(
        "a {:.1} MB document: first diagnostics ({n}) in {:.0} ms",
        big.len() as f64 / 1048576.0,
        (at - t).as_secs_f64() * 1e3
    );
    let mut times = Vec::new();
    for e in 0..21 {
        version += 1;
        let text = format!("{big}\nDoplněná věta číslo {e} ... na konci.\n");
        let t = Instant::now();
        client.change(uri, version, &text);
        let (_, at) = client.received(uri, version);
        times.push((at - t).as_secs_f64() * 1e3);
    }
    println!(
        "an edit of it: diagnostics in {:.0} ms median, {:.0} ms max (21 edits)",
        median(times.clone()),
        times.iter().copied().fold(0.0, f64::max)
    );
    let stop = Request::new(RequestId::from(2), "shutdown".to_owned(), Value::Null);
    client.conn.sender.send(Message::Request(stop)).unwrap();
    client.notify("exit", Value::Null);
    server.join().unwrap();
}
