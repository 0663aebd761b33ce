//! An LSP client for in-process server tests: an in-memory connection to a server
//! thread, requests answered in order, notifications waited for.

#![allow(dead_code)]

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{Value, json};
use std::path::Path;
use std::thread::JoinHandle;
use std::time::Duration;

/// A client connected to a server thread serving `root`.
pub struct Client {
    pub conn: Connection,
    pub server: Option<JoinHandle<()>>,
    pub next_id: i32,
    /// What `initialize` answered.
    pub capabilities: Value,
}

pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

impl Client {
    /// Connects to a server thread running `serve` and initializes with `root` as the one
    /// workspace folder and the rest of the parameters (`capabilities`,
    /// `initializationOptions`) from `params`.
    pub fn connect(root: &Path, params: Value, serve: fn(Connection)) -> Client {
        let (server_side, conn) = Connection::memory();
        let server = std::thread::spawn(move || serve(server_side));
        let mut client = Client {
            conn,
            server: Some(server),
            next_id: 0,
            capabilities: Value::Null,
        };
        let mut initialize = json!({
            "processId": null,
            "rootUri": null,
            "capabilities": {},
            "workspaceFolders": [{ "uri": uri(root), "name": "root" }],
        });
        for (key, value) in params.as_object().unwrap() {
            initialize[key] = value.clone();
        }
        let answer = client.request("initialize", initialize);
        let result = answer.response_result.expect("initialize answered");
        client.capabilities = result["capabilities"].clone();
        client.notify("initialized", json!({}));
        client
    }

    pub fn request(&mut self, method: &str, params: Value) -> Response {
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

    pub fn notify(&self, method: &str, params: Value) {
        let note = Notification::new(method.to_owned(), params);
        self.conn.sender.send(Message::Notification(note)).unwrap();
    }

    pub fn receive(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("the server answers")
    }

    /// The next diagnostics published for `uri`.
    pub fn diagnostics(&self, uri: &str) -> Value {
        loop {
            if let Message::Notification(n) = self.receive()
                && n.method == "textDocument/publishDiagnostics"
                && n.params["uri"] == uri
            {
                return n.params;
            }
        }
    }

    pub fn open(&self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": {
                "uri": uri, "languageId": "markdown", "version": version, "text": text,
            }}),
        );
    }

    pub fn change(&self, uri: &str, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({
                "textDocument": { "uri": uri, "version": version },
                "contentChanges": [{ "text": text }],
            }),
        );
    }

    pub fn stop(mut self) {
        let answer = self.request("shutdown", Value::Null);
        assert!(answer.response_result.is_ok(), "{answer:?}");
        self.notify("exit", Value::Null);
        self.server.take().unwrap().join().unwrap();
    }
}
