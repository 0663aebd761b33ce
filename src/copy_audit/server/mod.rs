//! `copy-audit server`: the Language Server Protocol over standard input and output.
//!
//! One live [`Session`] per workspace root (each workspace folder with a
//! `.copy-editor.yaml`, or the one `--config` names) holds the open documents' unsaved text
//! as inputs, so a keystroke re-runs only what it reaches. Diagnostics are the CLI's
//! findings for the same bytes, lockfile and config: the rule id as `code`, a link to the
//! rule's section of `docs/rules.md`, the severity, and whether the spans that filtered
//! them are the lockfile's (`cached`) or the structural segmenter's (`provisional`).
//!
//! Messages are taken in batches (`crate::lsp::serve_batches`): each changed document is
//! audited once per batch, at its latest version, and its diagnostics are published
//! tagged with that version. A document
//! outside every root's scope gets no diagnostics. A malformed message is answered with
//! an error (a request) or noted on stderr (a notification); the server keeps serving.

mod actions;
mod diagnostics;
mod files;

use super::lockedit;
use super::report::segmentation;
use super::session::Session;
use super::workspace::Workspace;
use super::{Failure, Outcome};
use crate::lsp::{Encoding, file_path, params, send, watches_files};
use actions::{FIX_ALL, MARK_REVIEWED, SEGMENT};
use diagnostics::{segmentation_state, to_diagnostics};
use files::config_candidates;
use lockgraph_queries::copy::engine::{FileReport, Finding};
use lockgraph_queries::copy::fix::apply;
use lockgraph_queries::copy::lockfile::Entry;
use lockgraph_queries::copy::rules::Severity;
use lockgraph_queries::hash::ContentHash;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Notification as LspNotification, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, DocumentDiagnosticRequest, ExecuteCommand, HoverRequest, RegisterCapability,
    Request as LspRequest, WorkspaceDiagnosticRefresh,
};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CodeDescription, Diagnostic, DiagnosticOptions,
    DiagnosticServerCapabilities, DiagnosticSeverity, DidChangeWatchedFilesRegistrationOptions,
    DocumentDiagnosticParams, ExecuteCommandOptions, ExecuteCommandParams, FileSystemWatcher,
    GlobPattern, Hover, HoverContents, HoverParams, HoverProviderCapability, InitializeParams,
    MarkupContent, MarkupKind, NumberOrString, Position, PublishDiagnosticsParams, Range,
    Registration, RegistrationParams, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit, Uri,
    WorkspaceEdit,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// Serves on standard input and output until the client shuts the server down.
pub fn run(config: Option<&Path>) -> Result<Outcome, Failure> {
    let (connection, io) = Connection::stdio();
    serve(connection, config)?;
    io.join()
        .map_err(|e| Failure::new(format!("server I/O: {e}")))?;
    Ok(Outcome::Clean)
}

/// Serves one client on `connection` (standard I/O, or an in-memory pair in tests).
pub fn serve(connection: Connection, config: Option<&Path>) -> Result<(), Failure> {
    let protocol = |e: lsp_server::ProtocolError| Failure::new(format!("server: {e}"));
    let (id, params) = connection.initialize_start().map_err(protocol)?;
    let raw = params.clone();
    let params: InitializeParams = serde_json::from_value(params)
        .map_err(|e| Failure::new(format!("server: initialize: {e}")))?;
    let encoding = Encoding::negotiate(&params);
    // A client that pulls diagnostics asks for them; pushing them too would show each
    // finding twice.
    let pull = params
        .capabilities
        .text_document
        .as_ref()
        .is_some_and(|t| t.diagnostic.is_some());
    // The protocol names it `workspace.diagnostics`; lsp-types reads `diagnostic`.
    let workspace = &raw["capabilities"]["workspace"];
    let refresh = ["diagnostics", "diagnostic"]
        .iter()
        .any(|k| workspace[k]["refreshSupport"] == true);
    let capabilities = capabilities(encoding, pull);
    let info = ServerInfo {
        name: "copy-audit".to_owned(),
        version: Some(env!("CARGO_PKG_VERSION").to_owned()),
    };
    let result = serde_json::json!({ "capabilities": capabilities, "serverInfo": info });
    connection.initialize_finish(id, result).map_err(protocol)?;
    let candidates = config_candidates(&params, config);
    let mut server = Server {
        roots: Vec::new(),
        docs: BTreeMap::new(),
        encoding,
        candidates: candidates.clone(),
        broken: BTreeSet::new(),
        pending: Vec::new(),
        pull,
        files_changed: false,
        republish: Vec::new(),
        reviewer: reviewer(&raw),
        refresh,
        changed: BTreeSet::new(),
    };
    for config in &candidates {
        server.config_changed(config);
    }
    if watches_files(&params) {
        let register = server.watch_registration();
        send(&connection, Message::Request(register))?;
    }
    crate::lsp::serve_batches(&connection, &mut server)
}

impl crate::lsp::Handler for Server {
    fn request(&mut self, request: Request) -> Response {
        let response = self.answer(request);
        let republish = std::mem::take(&mut self.republish);
        self.changed.extend(republish);
        response
    }

    fn notification(&mut self, n: Notification) {
        let changed = self.take_in(n);
        self.changed.extend(changed);
    }

    /// A config's or lockfile's own diagnostics first, then the documents it changed
    /// (a client that pulls is asked to pull again after a change on disk).
    fn after_batch(&mut self) -> Vec<Message> {
        let changed = std::mem::take(&mut self.changed);
        let mut out = Vec::new();
        if std::mem::take(&mut self.files_changed) && self.pull && self.refresh {
            let id = format!("copy-audit/refresh-{}", self.docs.len());
            let ask = Request::new(id.into(), WorkspaceDiagnosticRefresh::METHOD.to_owned(), ());
            out.push(Message::Request(ask));
        }
        let ready = std::mem::take(&mut self.pending);
        let documents: Vec<PublishDiagnosticsParams> = match self.pull {
            false => changed.iter().map(|uri| self.diagnostics(uri)).collect(),
            true => Vec::new(),
        };
        for params in ready.into_iter().chain(documents) {
            let note = Notification::new(PublishDiagnostics::METHOD.to_owned(), params);
            out.push(Message::Notification(note));
        }
        out
    }
}

/// What the server offers: full text sync with saves, hover, the commands, code actions,
/// and pulled diagnostics for a client that pulls.
fn capabilities(encoding: Encoding, pull: bool) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::FULL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![SEGMENT.to_owned(), MARK_REVIEWED.to_owned()],
            ..ExecuteCommandOptions::default()
        }),
        diagnostic_provider: pull.then(|| {
            DiagnosticServerCapabilities::Options(DiagnosticOptions {
                identifier: Some("copy-audit".to_owned()),
                ..DiagnosticOptions::default()
            })
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, FIX_ALL.into()]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// A workspace root and its live session.
struct Root {
    /// The config file it was loaded from, as the server watches it.
    config: PathBuf,
    ws: Workspace,
    session: Session,
}

/// An open document: the client's name for it, its latest version and text, and the
/// root and root-relative path it is audited under (none: out of every scope).
struct Doc {
    uri: Uri,
    version: i32,
    text: String,
    place: Option<(usize, String)>,
    /// The entries re-anchored to the texts that the fixes offered would make, for the
    /// fixes that keep every coordinate: a change to one of those texts keeps the entry
    /// fresh, as `--fix` re-anchors the entry it fixed.
    anchors: Vec<Entry>,
    /// The entry the document is audited with now, when a fix re-anchored it; written to
    /// the lockfile when the document is saved with that text.
    reanchored: Option<Entry>,
}

struct Server {
    roots: Vec<Root>,
    docs: BTreeMap<String, Doc>,
    encoding: Encoding,
    /// Where a root's config is or may appear: `--config`, else `.copy-editor.yaml` at
    /// the top of each workspace folder.
    candidates: Vec<PathBuf>,
    /// The configs whose last change did not load: each shows its error as a diagnostic,
    /// and its root (if it had one) serves on with the config that last loaded.
    broken: BTreeSet<PathBuf>,
    /// Diagnostics of files that are not documents (a config's error) to publish.
    pending: Vec<PublishDiagnosticsParams>,
    /// The client pulls documents' diagnostics (`textDocument/diagnostic`).
    pull: bool,
    /// A config or lockfile changed since the last batch.
    files_changed: bool,
    /// Documents a request changed the diagnostics of (a command's lockfile edit).
    republish: Vec<String>,
    /// The client lets the server ask it to pull diagnostics again.
    refresh: bool,
    /// The documents whose diagnostics the batch so far changed.
    changed: BTreeSet<String>,
    /// Who "mark reviewed" names: `$COPY_EDITOR_REVIEWER`, else the client's `reviewer`
    /// setting (`initializationOptions`).
    reviewer: Option<String>,
}

impl Server {
    /// Answers a request: code actions; an error for malformed parameters or a method
    /// the server does not serve.
    fn answer(&mut self, request: Request) -> Response {
        let Request { id, method, params } = request;
        let answer = match method.as_str() {
            CodeActionRequest::METHOD => serde_json::from_value::<CodeActionParams>(params)
                .map(|p| serde_json::to_value(self.code_actions(&p)).expect("actions serialise")),
            DocumentDiagnosticRequest::METHOD => {
                serde_json::from_value::<DocumentDiagnosticParams>(params).map(|p| {
                    let items = self.diagnostics(p.text_document.uri.as_str()).diagnostics;
                    serde_json::json!({ "kind": "full", "items": items })
                })
            }
            ExecuteCommand::METHOD => {
                match serde_json::from_value::<ExecuteCommandParams>(params) {
                    Ok(p) => {
                        return match self.execute(&p) {
                            Ok(()) => Response::new_ok(id, ()),
                            Err(e) => {
                                Response::new_err(id, ErrorCode::RequestFailed as i32, e.message)
                            }
                        };
                    }
                    Err(e) => Err(e),
                }
            }
            HoverRequest::METHOD => serde_json::from_value::<HoverParams>(params)
                .map(|p| serde_json::to_value(self.hover(&p)).expect("a hover serialises")),
            _ => {
                let message = format!("copy-audit does not serve {method}");
                return Response::new_err(id, ErrorCode::MethodNotFound as i32, message);
            }
        };
        match answer {
            Ok(result) => Response::new_ok(id, result),
            Err(e) => Response::new_err(
                id,
                ErrorCode::InvalidParams as i32,
                format!("{method}: {e}"),
            ),
        }
    }

    /// Applies a notification; the documents whose diagnostics it changes.
    fn take_in(&mut self, n: Notification) -> Vec<String> {
        if n.method == DidChangeWatchedFiles::METHOD {
            return match params::<DidChangeWatchedFiles>(n) {
                Ok(p) => p
                    .changes
                    .iter()
                    .filter_map(|c| file_path(&c.uri))
                    .flat_map(|path| self.file_changed(&path))
                    .collect(),
                Err(e) => {
                    eprintln!("copy-audit server: {}: {e}", DidChangeWatchedFiles::METHOD);
                    Vec::new()
                }
            };
        }
        self.document_notification(n).into_iter().collect()
    }

    /// Applies a notification about a document; the document whose diagnostics it
    /// changes, if any.
    fn document_notification(&mut self, n: Notification) -> Option<String> {
        let method = n.method.clone();
        let applied = match method.as_str() {
            DidOpenTextDocument::METHOD => params::<DidOpenTextDocument>(n).map(|p| {
                let doc = p.text_document;
                self.set(doc.uri, doc.version, doc.text)
            }),
            DidChangeTextDocument::METHOD => params::<DidChangeTextDocument>(n).map(|p| {
                // Full sync: the last change holds the whole text.
                let text = p.content_changes.into_iter().last().map(|c| c.text);
                text.map(|t| self.set(p.text_document.uri, p.text_document.version, t))
                    .unwrap_or_default()
            }),
            DidSaveTextDocument::METHOD => params::<DidSaveTextDocument>(n).map(|p| {
                self.saved(&p.text_document.uri);
                None
            }),
            DidCloseTextDocument::METHOD => params::<DidCloseTextDocument>(n).map(|p| {
                self.close(&p.text_document.uri);
                // Cleared: an editor keeps a closed file's diagnostics otherwise.
                Some(p.text_document.uri.as_str().to_owned())
            }),
            _ => Ok(None),
        };
        applied.unwrap_or_else(|e| {
            eprintln!("copy-audit server: {method}: {e}");
            None
        })
    }

    /// Takes in a document's new text; its key when the server audits it.
    fn set(&mut self, uri: Uri, version: i32, text: String) -> Option<String> {
        let key = uri.as_str().to_owned();
        let place = self.place(&uri);
        let anchors = self
            .docs
            .remove(&key)
            .map(|d| d.anchors)
            .unwrap_or_default();
        let mut reanchored = None;
        if let Some((root, rel)) = &place {
            let session = &mut self.roots[*root].session;
            // Hashed only when a fix was offered: a keystroke's text is hashed once, by
            // the session.
            if !anchors.is_empty() {
                let hash = ContentHash::of(text.as_bytes()).to_string();
                reanchored = anchors.into_iter().find(|e| e.content_hash == hash);
            }
            let entry = reanchored
                .clone()
                .or_else(|| session.locked_entry(rel).cloned());
            session.set_entry(rel, entry);
            session.set_text(rel, text.as_bytes().to_vec());
        }
        self.docs.insert(
            key.clone(),
            Doc {
                uri,
                version,
                text,
                place,
                anchors: Vec::new(),
                reanchored,
            },
        );
        // A document out of every scope still gets its (empty) diagnostics once.
        Some(key)
    }

    /// A document saved with the text a fix re-anchored its entry to: the lockfile's
    /// entry follows it, as after `--fix` (only if the lockfile still holds the entry the
    /// fix started from, and the file on disk holds that text).
    fn saved(&mut self, uri: &Uri) {
        let Some(doc) = self.docs.get(uri.as_str()) else {
            return;
        };
        let (Some((root, rel)), Some(entry)) = (&doc.place, &doc.reanchored) else {
            return;
        };
        let root = &mut self.roots[*root];
        let Some(before) = root.session.locked_entry(rel).cloned() else {
            return;
        };
        let on_disk = crate::fsutil::read_regular(&root.ws.root.join(rel))
            .is_ok_and(|b| ContentHash::of(&b).to_string() == entry.content_hash);
        if !on_disk {
            return;
        }
        let written = lockedit::edit(&root.ws, |_, lock| {
            match lock.files.get_mut(rel.as_str()) {
                Some(now) if *now == before => *now = entry.clone(),
                _ => {
                    return Ok(format!(
                        "{rel}: the lockfile changed since; entry left as it is"
                    ));
                }
            }
            Ok(format!("{rel}: entry re-anchored to the fixed text"))
        });
        match written {
            Ok(_) => root.session.locked(rel, entry.clone()),
            Err(e) => eprintln!("copy-audit server: {}", e.message),
        }
    }

    fn close(&mut self, uri: &Uri) {
        if let Some(Doc {
            place: Some((root, rel)),
            ..
        }) = self.docs.remove(uri.as_str())
        {
            self.roots[root].session.forget(&rel);
        }
    }

    /// The root a document is audited under, and its path there: the first root whose
    /// directory holds it and whose config takes it in.
    fn place(&self, uri: &Uri) -> Option<(usize, String)> {
        let path = file_path(uri)?;
        self.roots.iter().enumerate().find_map(|(i, root)| {
            let rel = crate::fsutil::relative(&root.ws.root, &path)?;
            root.session.matcher().is_included(&rel).then_some((i, rel))
        })
    }

    /// The diagnostics of the document `key` at its latest version (none once closed).
    fn diagnostics(&mut self, key: &str) -> PublishDiagnosticsParams {
        let Some(doc) = self.docs.get(key) else {
            let uri = Uri::from_str(key).expect("a key is a URI the client sent");
            return PublishDiagnosticsParams::new(uri, Vec::new(), None);
        };
        let diagnostics = match &doc.place {
            Some((root, rel)) => {
                let session = &mut self.roots[*root].session;
                let entry = session.entry_of(rel);
                match session.report_of(rel) {
                    Some(report) => {
                        let mut all = to_diagnostics(report, &doc.text, self.encoding);
                        all.extend(segmentation_state(report.state, entry.as_ref()));
                        all
                    }
                    None => Vec::new(),
                }
            }
            None => Vec::new(),
        };
        PublishDiagnosticsParams::new(doc.uri.clone(), diagnostics, Some(doc.version))
    }
}

/// The reviewer "mark reviewed" names: `$COPY_EDITOR_REVIEWER`, else the client's
/// `initializationOptions.reviewer`.
fn reviewer(initialize: &serde_json::Value) -> Option<String> {
    std::env::var("COPY_EDITOR_REVIEWER")
        .ok()
        .or_else(|| {
            initialize["initializationOptions"]["reviewer"]
                .as_str()
                .map(str::to_owned)
        })
        .filter(|r| !r.trim().is_empty())
}
