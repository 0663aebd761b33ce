//! `copy-audit server`: the Language Server Protocol over standard input and output.
//!
//! One live [`Session`] per workspace root (each workspace folder with a
//! `.copy-editor.yaml`, or the one `--config` names) holds the open documents' unsaved text
//! as inputs, so a keystroke re-runs only what it reaches. Diagnostics are the CLI's
//! findings for the same bytes, lockfile and config: the rule id as `code`, a link to the
//! rule's section of `docs/rules.md`, the severity, and whether the spans that filtered
//! them are the lockfile's (`cached`) or the structural segmenter's (`provisional`).
//!
//! Messages are taken in batches: everything the client has sent by the time one
//! arrives is applied first, then each changed document is audited once, at its latest
//! version, and its diagnostics are published tagged with that version. A document
//! outside every root's scope gets no diagnostics. A malformed message is answered with
//! an error (a request) or noted on stderr (a notification); the server keeps serving.
//!
//! Built on `lsp-server` (synchronous, as the engine is): no async runtime.

use super::lockedit;
use super::report::segmentation;
use super::session::Session;
use super::workspace::Workspace;
use super::{Failure, Outcome};
use lockgraph_queries::copy::engine::{FileReport, Finding};
use lockgraph_queries::copy::fix::apply;
use lockgraph_queries::copy::lockfile::Entry;
use lockgraph_queries::copy::rules::Severity;
use lockgraph_queries::hash::ContentHash;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    DidSaveTextDocument, Exit, Notification as LspNotification, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, DocumentDiagnosticRequest, HoverRequest, RegisterCapability,
    Request as LspRequest, Shutdown, WorkspaceDiagnosticRefresh,
};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CodeDescription, Diagnostic, DiagnosticOptions,
    DiagnosticServerCapabilities, DiagnosticSeverity, DidChangeWatchedFilesRegistrationOptions,
    DocumentDiagnosticParams, FileSystemWatcher, GlobPattern, Hover, HoverContents, HoverParams,
    HoverProviderCapability, InitializeParams, MarkupContent, MarkupKind, NumberOrString, Position,
    PositionEncodingKind, PublishDiagnosticsParams, Range, Registration, RegistrationParams,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, TextDocumentSyncSaveOptions, TextEdit, Uri, WorkspaceEdit,
};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The code action kind of "fix all", under `source.fixAll` as editors run it on save.
const FIX_ALL: &str = "source.fixAll.copy-audit";

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
    let capabilities = ServerCapabilities {
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
    };
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
    };
    for config in &candidates {
        server.config_changed(config);
    }
    if watches_files(&params) {
        let register = server.watch_registration();
        send(&connection, Message::Request(register))?;
    }
    loop {
        let Ok(first) = connection.receiver.recv() else {
            return Ok(()); // the client went away
        };
        let batch: Vec<Message> = std::iter::once(first)
            .chain(connection.receiver.try_iter())
            .collect();
        let mut changed = BTreeSet::new();
        for message in batch {
            match message {
                // `shutdown` is answered here, not by lsp-server's `handle_shutdown`, which
                // waits on the channel for the `exit` this batch may already hold.
                Message::Request(request) if request.method == Shutdown::METHOD => {
                    let ok = Response::new_ok(request.id, ());
                    send(&connection, Message::Response(ok))?;
                }
                Message::Request(request) => {
                    let response = server.request(request);
                    send(&connection, Message::Response(response))?;
                }
                Message::Notification(n) if n.method == Exit::METHOD => return Ok(()),
                Message::Notification(n) => changed.extend(server.notification(n)),
                Message::Response(_) => {}
            }
        }
        // A config's or lockfile's own diagnostics first, then the documents it changed
        // (a client that pulls is asked to pull again after a change on disk).
        let ready = std::mem::take(&mut server.pending);
        let documents: Vec<PublishDiagnosticsParams> = match server.pull {
            false => changed.iter().map(|uri| server.diagnostics(uri)).collect(),
            true => Vec::new(),
        };
        if std::mem::take(&mut server.files_changed) && server.pull && refresh {
            let id = format!("copy-audit/refresh-{}", server.docs.len());
            let ask = Request::new(id.into(), WorkspaceDiagnosticRefresh::METHOD.to_owned(), ());
            send(&connection, Message::Request(ask))?;
        }
        for params in ready.into_iter().chain(documents) {
            let note = Notification::new(PublishDiagnostics::METHOD.to_owned(), params);
            send(&connection, Message::Notification(note))?;
        }
    }
}

fn send(connection: &Connection, message: Message) -> Result<(), Failure> {
    connection
        .sender
        .send(message)
        .map_err(|e| Failure::new(format!("server: the client went away: {e}")))
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
}

impl Server {
    /// Answers a request: code actions; an error for malformed parameters or a method
    /// the server does not serve.
    fn request(&mut self, request: Request) -> Response {
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

    /// The documentation of the rules whose findings cover the position: each rule's
    /// summary and paragraph, as its declaration (and `docs/rules.md`) has them.
    fn hover(&mut self, p: &HoverParams) -> Option<Hover> {
        let at = p.text_document_position_params.position;
        let key = p.text_document_position_params.text_document.uri.as_str();
        let doc = self.docs.get(key)?;
        let (root, rel) = doc.place.as_ref()?;
        let root = &mut self.roots[*root];
        let rules = root.session.rules().clone();
        let report = root.session.report_of(rel)?;
        let starts = line_starts(&doc.text);
        let mut sections = Vec::new();
        let mut covered: Option<Range> = None;
        for f in report.findings.iter() {
            let d = to_diagnostic(&f, &doc.text, &starts, self.encoding, "");
            if d.range.start > at || d.range.end < at {
                continue;
            }
            covered.get_or_insert(d.range);
            let Some(rule) = rules.get(&f.rule_id) else {
                continue;
            };
            let meta = rule.meta();
            let section = format!("**{}** — {}\n\n{}", meta.id, meta.summary, meta.doc);
            if !sections.contains(&section) {
                sections.push(section);
            }
        }
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: sections.join("\n\n---\n\n"),
            }),
            range: covered,
        })
        .filter(|_| !sections.is_empty())
    }

    /// The fixes of the findings in the requested range, each a quick fix, and "fix all":
    /// every fix of the document as `--fix` would apply them. Offered only where `--fix`
    /// applies them: a document whose lockfile entry is fresh (its spans say which text is
    /// which language; an edit makes it stale until the file is segmented again).
    fn code_actions(&mut self, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let Some(doc) = self.docs.get(p.text_document.uri.as_str()) else {
            return Vec::new();
        };
        let Some((root, rel)) = &doc.place else {
            return Vec::new();
        };
        let wants = |kind: &CodeActionKind| {
            p.context.only.as_ref().is_none_or(|only| {
                only.iter().any(|o| {
                    kind.as_str() == o.as_str()
                        || kind.as_str().starts_with(&format!("{}.", o.as_str()))
                })
            })
        };
        let session = &mut self.roots[*root].session;
        let entry = session.entry_of(rel);
        let Some(report) = session.report_of(rel) else {
            return Vec::new();
        };
        if !report.state.has_usable_spans() {
            return Vec::new();
        }
        let starts = line_starts(&doc.text);
        let segmentation = segmentation(report.state);
        let mut anchors = Vec::new();
        let mut actions = Vec::new();
        if wants(&CodeActionKind::QUICKFIX) {
            for f in report.findings.iter() {
                let Some(fix) = &f.fix else { continue };
                let diagnostic = to_diagnostic(&f, &doc.text, &starts, self.encoding, segmentation);
                let r = diagnostic.range;
                if r.end < p.range.start || r.start > p.range.end {
                    continue;
                }
                let range = Range::new(
                    position(
                        &doc.text,
                        &starts,
                        fix.start.line,
                        fix.start.column,
                        self.encoding,
                    ),
                    position(
                        &doc.text,
                        &starts,
                        fix.end.line,
                        fix.end.column,
                        self.encoding,
                    ),
                );
                let old = doc.text.get(fix.range.clone()).unwrap_or_default();
                let one = apply(&doc.text, vec![fix]);
                if let Some(entry) = entry.as_ref().filter(|_| one.keeps_coordinates) {
                    let hash = ContentHash::of(one.text.as_bytes()).to_string();
                    anchors.push(Entry {
                        content_hash: hash,
                        ..entry.clone()
                    });
                }
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("{}: “{old}” → “{}”", f.rule_id, fix.replacement),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![diagnostic]),
                    edit: Some(edit(&doc.uri, range, fix.replacement.to_string())),
                    is_preferred: Some(true),
                    ..CodeAction::default()
                }));
            }
        }
        let fix_all = CodeActionKind::from(FIX_ALL);
        if wants(&fix_all) {
            let fixed = session.fix_all(rel, &doc.text);
            anchors.extend(fixed.entry);
            if fixed.text != doc.text {
                let whole = Range::new(
                    Position::new(0, 0),
                    end_of(&doc.text, &starts, self.encoding),
                );
                actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("copy-audit: fix all ({} fixes)", fixed.count),
                    kind: Some(fix_all),
                    edit: Some(edit(&doc.uri, whole, fixed.text)),
                    ..CodeAction::default()
                }));
            }
        }
        let key = p.text_document.uri.as_str();
        self.docs
            .get_mut(key)
            .expect("the document is open")
            .anchors = anchors;
        actions
    }

    /// Applies a notification; the documents whose diagnostics it changes.
    fn notification(&mut self, n: Notification) -> Vec<String> {
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

    /// A watched file changed on disk: a config (its root reloaded) or a lockfile (its
    /// entries read again); the documents whose diagnostics that changes.
    fn file_changed(&mut self, path: &Path) -> Vec<String> {
        self.files_changed = true;
        let path = canonical(path);
        if let Some(config) = self.candidates.iter().find(|c| canonical(c) == path) {
            return self.config_changed(&config.clone());
        }
        let Some(i) = self
            .roots
            .iter()
            .position(|r| canonical(&r.ws.lock_path) == path)
        else {
            return Vec::new();
        };
        let root = &mut self.roots[i];
        let lock_uri = uri_of(&root.ws.lock_path);
        match root.session.reload_lockfile(&root.ws) {
            Ok(_) => {
                if let Some(uri) = lock_uri {
                    self.pending
                        .push(PublishDiagnosticsParams::new(uri, Vec::new(), None));
                }
            }
            Err(e) => {
                // The entries last read serve on; the lockfile shows why it was not read.
                if let Some(uri) = lock_uri {
                    let d = file_diagnostic(None, None, e.message);
                    self.pending
                        .push(PublishDiagnosticsParams::new(uri, vec![d], None));
                }
                return Vec::new();
            }
        }
        let mut keys = Vec::new();
        for (key, doc) in &mut self.docs {
            if doc.place.as_ref().is_some_and(|(r, _)| *r == i) {
                // Re-anchored entries give way to what the lockfile now says.
                doc.reanchored = None;
                doc.anchors.clear();
                keys.push(key.clone());
            }
        }
        keys
    }

    /// Loads `config` again (or for the first time): on success its root is replaced (or
    /// added) and every open document placed anew; on an error the error is shown on the
    /// config and the root serves on as it was; a config deleted takes its root away.
    /// The documents whose diagnostics that changes.
    fn config_changed(&mut self, config: &Path) -> Vec<String> {
        let uri = uri_of(config);
        let opened = match open_root(config) {
            Ok(root) => Some(root),
            Err(_) if !config.exists() => None,
            Err((line, column, message)) => {
                self.broken.insert(config.to_owned());
                if let Some(uri) = uri {
                    let d = file_diagnostic(line, column, message);
                    self.pending
                        .push(PublishDiagnosticsParams::new(uri, vec![d], None));
                }
                return Vec::new();
            }
        };
        if self.broken.remove(config)
            && let Some(uri) = uri
        {
            self.pending
                .push(PublishDiagnosticsParams::new(uri, Vec::new(), None));
        }
        // Every open document leaves its session, then is placed again under the roots
        // as they now are (a changed `paths` may take a document in or out).
        let placed: Vec<(String, (usize, String))> = self
            .docs
            .iter()
            .filter_map(|(k, d)| Some((k.clone(), d.place.clone()?)))
            .collect();
        for (_, (root, rel)) in placed {
            self.roots[root].session.forget(&rel);
        }
        let at = self.roots.iter().position(|r| r.config == config);
        match (at, opened) {
            (Some(i), Some(root)) => self.roots[i] = root,
            (None, Some(root)) => self.roots.push(root),
            (Some(i), None) => {
                self.roots.remove(i);
            }
            (None, None) => {}
        }
        let docs: Vec<(Uri, i32, String)> = std::mem::take(&mut self.docs)
            .into_values()
            .map(|d| (d.uri, d.version, d.text))
            .collect();
        docs.into_iter()
            .filter_map(|(uri, version, text)| self.set(uri, version, text))
            .collect()
    }

    /// The request that asks the client to tell the server when a config or a lockfile
    /// changes on disk (the client watches; the server runs no watcher of its own).
    fn watch_registration(&self) -> Request {
        let mut globs: BTreeSet<String> = ["**/.copy-editor.yaml".to_owned()].into();
        globs.extend(
            self.candidates
                .iter()
                .filter_map(|c| Some(format!("**/{}", c.file_name()?.to_string_lossy()))),
        );
        globs.extend(self.roots.iter().filter_map(|r| {
            Some(format!(
                "**/{}",
                r.ws.lock_path.file_name()?.to_string_lossy()
            ))
        }));
        globs.insert("**/.copy-editor.lock.json".to_owned());
        let watchers: Vec<FileSystemWatcher> = globs
            .into_iter()
            .map(|g| FileSystemWatcher {
                glob_pattern: GlobPattern::String(g),
                kind: None,
            })
            .collect();
        let registration = Registration {
            id: "copy-audit/watched-files".to_owned(),
            method: DidChangeWatchedFiles::METHOD.to_owned(),
            register_options: Some(
                serde_json::to_value(DidChangeWatchedFilesRegistrationOptions { watchers })
                    .expect("options serialise"),
            ),
        };
        Request::new(
            "copy-audit/register-watched-files".to_owned().into(),
            RegisterCapability::METHOD.to_owned(),
            RegistrationParams {
                registrations: vec![registration],
            },
        )
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
            let hash = ContentHash::of(text.as_bytes()).to_string();
            reanchored = anchors.into_iter().find(|e| e.content_hash == hash);
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
                let report = self.roots[*root].session.report_of(rel);
                report.map_or_else(Vec::new, |r| to_diagnostics(r, &doc.text, self.encoding))
            }
            None => Vec::new(),
        };
        PublishDiagnosticsParams::new(doc.uri.clone(), diagnostics, Some(doc.version))
    }
}

/// A notification's parameters, or why they do not parse.
fn params<N: LspNotification>(n: Notification) -> Result<N::Params, String> {
    serde_json::from_value(n.params).map_err(|e| e.to_string())
}

/// Where the roots' configs are or may appear: the one `config` names, else
/// `.copy-editor.yaml` at the top of each workspace folder (or of the root URI older
/// clients send).
fn config_candidates(params: &InitializeParams, config: Option<&Path>) -> Vec<PathBuf> {
    if let Some(config) = config {
        return vec![config.to_owned()];
    }
    #[allow(deprecated)] // `rootUri` is what older clients send
    let folders: Vec<Uri> = match &params.workspace_folders {
        Some(f) => f.iter().map(|f| f.uri.clone()).collect(),
        None => params.root_uri.iter().cloned().collect(),
    };
    folders
        .iter()
        .filter_map(file_path)
        .map(|dir| dir.join(".copy-editor.yaml"))
        .collect()
}

/// A root from its config, or why it does not load (the line and column where known).
fn open_root(config: &Path) -> Result<Root, (Option<u64>, Option<u64>, String)> {
    // The config's own reader first: its errors know their position.
    if let Err(e) = crate::config::load(config) {
        return Err((e.line, e.column, e.to_string()));
    }
    let at_top = |e: Failure| (None, None, e.message);
    let ws = Workspace::load(Some(config), None).map_err(at_top)?;
    let matcher = ws
        .config
        .matcher(None)
        .map_err(|e| (None, None, e.to_string()))?;
    let session = Session::empty(&ws, matcher, false).map_err(at_top)?;
    Ok(Root {
        config: config.to_owned(),
        ws,
        session,
    })
}

/// Whether the client tells a server about changed files it registers for.
fn watches_files(params: &InitializeParams) -> bool {
    params
        .capabilities
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|d| d.dynamic_registration)
        .unwrap_or(false)
}

/// A diagnostic on a file that is not a document: a config or lockfile that did not load.
fn file_diagnostic(line: Option<u64>, column: Option<u64>, message: String) -> Diagnostic {
    let at = |n: Option<u64>| n.map_or(0, |n| n.saturating_sub(1) as u32);
    let start = Position::new(at(line), at(column));
    Diagnostic {
        range: Range::new(start, start),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("copy-audit".to_owned()),
        message,
        ..Diagnostic::default()
    }
}

/// A path with its directory canonicalised, to compare the client's paths with ours.
fn canonical(path: &Path) -> PathBuf {
    match (path.parent().map(std::fs::canonicalize), path.file_name()) {
        (Some(Ok(dir)), Some(name)) => dir.join(name),
        _ => path.to_owned(),
    }
}

/// The `file:` URI of a local path (percent-encoding what a URI cannot hold).
fn uri_of(path: &Path) -> Option<Uri> {
    let mut text = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            text.push(b as char);
        } else {
            text.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&text).ok()
}

/// The local path of a `file:` URI, percent-decoded.
fn file_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///home/…`; a host (`file://server/…`) is not a local file.
    let path = rest.strip_prefix('/').map(|p| format!("/{p}"))?;
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied(),
            bytes.get(i + 2).copied(),
        ) {
            (b'%', Some(h), Some(l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b'?' | b'#', _, _) => break,
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    use std::os::unix::ffi::OsStringExt;
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

/// How the client counts a position's character: UTF-16 code units unless it prefers
/// UTF-8 bytes or UTF-32 characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Encoding {
    Utf8,
    Utf16,
    Utf32,
}

impl Encoding {
    /// The first of the client's encodings, in its order of preference, that the server
    /// speaks; UTF-16, the protocol's default, if none.
    fn negotiate(params: &InitializeParams) -> Encoding {
        let offered = params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_ref());
        offered
            .into_iter()
            .flatten()
            .find_map(|kind| match kind.as_str() {
                "utf-8" => Some(Encoding::Utf8),
                "utf-16" => Some(Encoding::Utf16),
                "utf-32" => Some(Encoding::Utf32),
                _ => None,
            })
            .unwrap_or(Encoding::Utf16)
    }

    fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
            Encoding::Utf32 => PositionEncodingKind::UTF32,
        }
    }
}

/// Where each line of a text starts (byte offsets).
fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect()
}

/// The position of 1-based `line` and 1-based UTF-16 `column` (the CLI's coordinates) in
/// `encoding`.
fn position(text: &str, starts: &[usize], line: u32, column: u32, encoding: Encoding) -> Position {
    let row = line.saturating_sub(1);
    let utf16 = column.saturating_sub(1);
    let character = match encoding {
        Encoding::Utf16 => utf16,
        Encoding::Utf8 | Encoding::Utf32 => {
            let start = starts.get(row as usize).copied().unwrap_or(text.len());
            let end = starts.get(row as usize + 1).copied().unwrap_or(text.len());
            let (mut units, mut out) = (0, 0);
            for c in text[start..end].chars() {
                if units >= utf16 {
                    break;
                }
                units += c.len_utf16() as u32;
                out += match encoding {
                    Encoding::Utf8 => c.len_utf8() as u32,
                    _ => 1,
                };
            }
            out
        }
    };
    Position::new(row, character)
}

/// A report's findings as diagnostics on `text`, the bytes they were found in.
fn to_diagnostics(report: &FileReport, text: &str, encoding: Encoding) -> Vec<Diagnostic> {
    let starts = line_starts(text);
    let segmentation = segmentation(report.state);
    report
        .findings
        .iter()
        .map(|f| to_diagnostic(&f, text, &starts, encoding, segmentation))
        .collect()
}

/// One edit of one document.
// `lsp_types::Uri` caches its parse in a cell; as a key it is only hashed by its text.
#[allow(clippy::mutable_key_type)]
fn edit(uri: &Uri, range: Range, new_text: String) -> WorkspaceEdit {
    let changes = [(uri.clone(), vec![TextEdit::new(range, new_text)])].into();
    WorkspaceEdit::new(changes)
}

/// Where `text` ends, as a position.
fn end_of(text: &str, starts: &[usize], encoding: Encoding) -> Position {
    let row = starts.len() - 1;
    let last = &text[starts[row]..];
    let character = match encoding {
        Encoding::Utf8 => last.len(),
        Encoding::Utf16 => last.encode_utf16().count(),
        Encoding::Utf32 => last.chars().count(),
    };
    Position::new(row as u32, character as u32)
}

fn to_diagnostic(
    f: &Finding,
    text: &str,
    starts: &[usize],
    encoding: Encoding,
    segmentation: &str,
) -> Diagnostic {
    let start = position(text, starts, f.line, f.column, encoding);
    let end = position(text, starts, f.end.line, f.end.column, encoding);
    Diagnostic {
        range: Range::new(start, end.max(start)),
        severity: Some(match f.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        }),
        code: Some(NumberOrString::String(f.rule_id.to_string())),
        code_description: rule_link(&f.rule_id).map(|href| CodeDescription { href }),
        source: Some("copy-audit".to_owned()),
        message: f.message.to_string(),
        related_information: None,
        tags: None,
        data: Some(serde_json::json!({ "segmentation": segmentation })),
    }
}

/// The rule's section of `docs/rules.md`, for a rule documented there (the built-in
/// ones; a config's own rules have no section).
fn rule_link(id: &str) -> Option<Uri> {
    static DOCUMENTED: std::sync::OnceLock<BTreeSet<String>> = std::sync::OnceLock::new();
    let documented = DOCUMENTED.get_or_init(|| {
        include_str!("../../docs/rules.md")
            .lines()
            .filter_map(|l| l.strip_prefix("## `")?.strip_suffix('`').map(str::to_owned))
            .collect()
    });
    if !documented.contains(id) {
        return None;
    }
    let href = format!(
        "{}/blob/main/docs/rules.md#{}",
        env!("CARGO_PKG_REPOSITORY"),
        id.to_ascii_lowercase()
    );
    Uri::from_str(&href).ok()
}
