//! `soil-lock server`: the Language Server Protocol over standard input and output, for
//! trellis roots.
//!
//! One live [`Session`] per root (each workspace folder's nearest `soil.toml`, or the
//! one `--root` names) holds the open `.tr`, `.soil` and `.lock` documents' unsaved text
//! as inputs, so an edit re-runs what it reaches and nothing else: the caller of an edited
//! callee gets new diagnostics through the database, and a prose edit re-runs no caller.
//!
//! Diagnostics of an open spec: its parse's (trellis's `tr-…` codes, errors and
//! warnings), undeclared tags, and each flag (`formal-stale`, `stale-callees`, …) with
//! `relatedInformation` walking the `why` chain to the cause. Of an open `.soil`: why it
//! cannot be read, and the flags whose cause is there; of a sidecar: why it cannot be
//! read. The core places them (`soil::editor`); this module turns them into the protocol.
//! Hover on a spec's `name:` line shows the ladder, acceptance and hashes. A definition
//! whose sidecar `refresh` would rewrite gets a "refresh" quick fix (and `fixAll`) that
//! writes it as `soil-lock refresh` does.

use super::Failure;
use super::root::{self, Root};
use super::session::Session;
use super::sidecars::{self, Outcome};
use crate::lsp::{Encoding, file_path, params, position_of, send, uri_of, watches_files};
use lockgraph_queries::db::{Database, ExecutionLog};
use lockgraph_queries::soil::editor::{self, Anchor, Note, Severity};
use lockgraph_queries::soil::engine::Definition;
use lockgraph_queries::soil::sidecar::Versions;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument,
    Notification as LspNotification, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, ExecuteCommand, HoverRequest, RegisterCapability, Request as LspRequest,
};
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, CodeDescription, Command, Diagnostic,
    DiagnosticRelatedInformation, DiagnosticSeverity, DidChangeWatchedFilesRegistrationOptions,
    ExecuteCommandOptions, ExecuteCommandParams, FileSystemWatcher, GlobPattern, Hover,
    HoverContents, HoverParams, HoverProviderCapability, InitializeParams, Location, MarkupContent,
    MarkupKind, NumberOrString, PublishDiagnosticsParams, Range, Registration, RegistrationParams,
    ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use salsa::plumbing::AsId;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The command the "refresh" action runs; its argument is the document's URI.
pub const REFRESH: &str = "soil-lock.refresh";
/// The kind of "fix all" for a spec: its refresh.
pub const FIX_ALL: &str = "source.fixAll.soil-lock";
/// The queries salsa executed since the last ask, for a client that asked to record them
/// (`initializationOptions.recordQueries`): what an edit re-ran.
pub const EXECUTED: &str = "soil-lock/executedQueries";

/// Serves on standard input and output until the client shuts the server down.
pub fn run(root: Option<&Path>) -> Result<(), Failure> {
    let (connection, io) = Connection::stdio();
    serve(connection, root)?;
    io.join()
        .map_err(|e| Failure::new(format!("server I/O: {e}")))
}

/// Serves one client on `connection` (standard I/O, or an in-memory pair in tests).
pub fn serve(connection: Connection, root: Option<&Path>) -> Result<(), Failure> {
    let protocol = |e: lsp_server::ProtocolError| Failure::new(format!("server: {e}"));
    let (id, raw) = connection.initialize_start().map_err(protocol)?;
    let params: InitializeParams = serde_json::from_value(raw.clone())
        .map_err(|e| Failure::new(format!("server: initialize: {e}")))?;
    let encoding = Encoding::negotiate(&params);
    let info = ServerInfo {
        name: "soil-lock".to_owned(),
        version: Some(env!("CARGO_PKG_VERSION").to_owned()),
    };
    let result = serde_json::json!({ "capabilities": capabilities(encoding), "serverInfo": info });
    connection.initialize_finish(id, result).map_err(protocol)?;
    let record = raw["initializationOptions"]["recordQueries"] == true;
    let mut server = Server {
        roots: Vec::new(),
        docs: BTreeMap::new(),
        encoding,
        record,
        dirty: false,
    };
    for dir in root_dirs(&params, root) {
        match Served::open(&dir, record) {
            Ok(served) => server.roots.push(served),
            // One broken root does not take the others down.
            Err(e) => eprintln!("soil-lock server: {}: {}", dir.display(), e.message),
        }
    }
    if watches_files(&params) {
        let register = watch_registration();
        send(&connection, Message::Request(register))?;
    }
    crate::lsp::serve_batches(&connection, &mut server)
}

/// The roots to serve: `--root`, else each workspace folder's (or the root URI's) nearest
/// directory with a `soil.toml`, each once; without either, the working directory's.
fn root_dirs(params: &InitializeParams, root: Option<&Path>) -> Vec<PathBuf> {
    if let Some(root) = root {
        return vec![root.to_owned()];
    }
    #[allow(deprecated)] // `rootUri`: what a client without workspace folders sends
    let folders: Vec<PathBuf> = match &params.workspace_folders {
        Some(folders) => folders.iter().filter_map(|f| file_path(&f.uri)).collect(),
        None => params.root_uri.iter().filter_map(file_path).collect(),
    };
    let mut dirs: Vec<PathBuf> = folders.iter().filter_map(|f| root::discover(f)).collect();
    if folders.is_empty()
        && let Some(dir) = std::env::current_dir()
            .ok()
            .and_then(|d| root::discover(&d))
    {
        // No folder named: the root the CLI would use here.
        dirs.push(dir);
    }
    dirs.sort();
    dirs.dedup();
    dirs
}

fn capabilities(encoding: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(encoding.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        execute_command_provider: Some(ExecuteCommandOptions {
            commands: vec![REFRESH.to_owned()],
            ..ExecuteCommandOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX, FIX_ALL.into()]),
            ..CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// Specs, sidecars, `.soil` files and `soil.toml`, wherever they change on disk.
fn watch_registration() -> Request {
    let watchers = ["**/*.tr", "**/*.lock", "**/*.soil", "**/soil.toml"]
        .into_iter()
        .map(|glob| FileSystemWatcher {
            glob_pattern: GlobPattern::String(glob.to_owned()),
            kind: None,
        })
        .collect();
    let options = DidChangeWatchedFilesRegistrationOptions { watchers };
    let registration = Registration {
        id: "soil-lock/watched-files".to_owned(),
        method: DidChangeWatchedFiles::METHOD.to_owned(),
        register_options: Some(serde_json::to_value(options).expect("options serialise")),
    };
    let params = RegistrationParams {
        registrations: vec![registration],
    };
    Request::new(
        "soil-lock/register".to_owned().into(),
        RegisterCapability::METHOD.to_owned(),
        params,
    )
}

/// A root and its live session.
struct Served {
    session: Session,
    versions: Versions,
    /// Salsa's executions, when the client asked for them.
    log: Option<ExecutionLog>,
}

impl Served {
    fn open(dir: &Path, record: bool) -> Result<Served, Failure> {
        let (db, log) = match record {
            true => {
                let (db, log) = Database::with_execution_log();
                (db, Some(log))
            }
            false => (Database::default(), None),
        };
        // A session holds every file's bytes to compare with each edit's: no cache.
        let root = Root::open_with(Some(dir), db)?;
        let versions = root.toml.versions();
        let session = Session::new(root);
        if let Some(log) = &log {
            log.take(&session.root.db); // the first load is not an edit's
        }
        Ok(Served {
            session,
            versions,
            log,
        })
    }

    fn root(&self) -> &Root {
        &self.session.root
    }

    /// The text of a root-relative file: an open document's, else the disk's.
    fn text_of(&self, docs: &BTreeMap<String, Doc>, rel: &str) -> Option<String> {
        let path = self.root().dir.join(rel);
        let open = uri_of(&path).and_then(|uri| docs.get(uri.as_str()));
        match open {
            Some(doc) => Some(doc.text.clone()),
            None => crate::fsutil::read_regular(&path)
                .ok()
                .and_then(|b| String::from_utf8(b).ok()),
        }
    }
}

/// An open document: its latest version and text, where it is (root, root-relative
/// path, definition), and what was last published for it.
struct Doc {
    uri: Uri,
    version: i32,
    text: String,
    place: Option<Place>,
    published: Option<(i32, Vec<Diagnostic>)>,
}

#[derive(Clone)]
struct Place {
    root: usize,
    rel: String,
    def: Definition,
}

impl Place {
    fn ext(&self) -> &str {
        self.rel.rsplit_once('.').map_or("", |(_, ext)| ext)
    }
}

struct Server {
    roots: Vec<Served>,
    docs: BTreeMap<String, Doc>,
    encoding: Encoding,
    record: bool,
    /// An input changed since the last batch: every open document is looked at again.
    dirty: bool,
}

impl crate::lsp::Handler for Server {
    fn request(&mut self, request: Request) -> Response {
        let Request { id, method, params } = request;
        let answer = match method.as_str() {
            CodeActionRequest::METHOD => serde_json::from_value::<CodeActionParams>(params)
                .map(|p| serde_json::to_value(self.code_actions(&p)).expect("actions serialise")),
            HoverRequest::METHOD => serde_json::from_value::<HoverParams>(params)
                .map(|p| serde_json::to_value(self.hover(&p)).expect("a hover serialises")),
            ExecuteCommand::METHOD => {
                return match serde_json::from_value::<ExecuteCommandParams>(params) {
                    Ok(p) => match self.execute(&p) {
                        Ok(()) => Response::new_ok(id, ()),
                        Err(e) => Response::new_err(id, ErrorCode::RequestFailed as i32, e.message),
                    },
                    Err(e) => Response::new_err(
                        id,
                        ErrorCode::InvalidParams as i32,
                        format!("{method}: {e}"),
                    ),
                };
            }
            EXECUTED if self.record => Ok(self.executed()),
            _ => {
                let message = format!("soil-lock does not serve {method}");
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

    fn notification(&mut self, n: Notification) {
        let method = n.method.clone();
        let applied = match method.as_str() {
            DidOpenTextDocument::METHOD => params::<DidOpenTextDocument>(n).map(|p| {
                let doc = p.text_document;
                self.set(doc.uri, doc.version, doc.text);
            }),
            DidChangeTextDocument::METHOD => params::<DidChangeTextDocument>(n).map(|p| {
                // Full sync: the last change holds the whole text.
                if let Some(change) = p.content_changes.into_iter().last() {
                    self.set(p.text_document.uri, p.text_document.version, change.text);
                }
            }),
            DidCloseTextDocument::METHOD => {
                params::<DidCloseTextDocument>(n).map(|p| self.close(&p.text_document.uri))
            }
            DidChangeWatchedFiles::METHOD => params::<DidChangeWatchedFiles>(n).map(|p| {
                let paths: Vec<PathBuf> =
                    p.changes.iter().filter_map(|c| file_path(&c.uri)).collect();
                self.files_changed(&paths);
            }),
            _ => Ok(()),
        };
        if let Err(e) = applied {
            eprintln!("soil-lock server: {method}: {e}");
        }
    }

    /// Each open document whose diagnostics changed (or that has a new version), at its
    /// latest version.
    fn after_batch(&mut self) -> Vec<Message> {
        if !std::mem::take(&mut self.dirty) {
            return Vec::new();
        }
        let keys: Vec<String> = self.docs.keys().cloned().collect();
        let mut out = Vec::new();
        for key in keys {
            let diagnostics = self.diagnostics(&key);
            let doc = self.docs.get_mut(&key).expect("an open document");
            let now = Some((doc.version, diagnostics));
            if doc.published != now {
                let (version, diagnostics) = now.clone().expect("just made");
                doc.published = now;
                let params =
                    PublishDiagnosticsParams::new(doc.uri.clone(), diagnostics, Some(version));
                let note = Notification::new(PublishDiagnostics::METHOD.to_owned(), params);
                out.push(Message::Notification(note));
            }
        }
        out
    }
}

impl Server {
    /// Takes in a document's new text.
    fn set(&mut self, uri: Uri, version: i32, text: String) {
        let place = self.place(&uri, &text);
        let published = self.docs.remove(uri.as_str()).and_then(|d| d.published);
        self.docs.insert(
            uri.as_str().to_owned(),
            Doc {
                uri,
                version,
                text,
                place,
                published,
            },
        );
        self.dirty = true;
    }

    /// Where a document is, with its text taken in as the file's input: the first root
    /// holding it that has its definition.
    fn place(&mut self, uri: &Uri, text: &str) -> Option<Place> {
        let path = file_path(uri)?;
        self.roots.iter_mut().enumerate().find_map(|(i, served)| {
            let rel = crate::fsutil::relative(&served.root().dir, &path)?;
            let def = served.session.edit(&rel, text.as_bytes())?;
            Some(Place { root: i, rel, def })
        })
    }

    fn close(&mut self, uri: &Uri) {
        let Some(doc) = self.docs.remove(uri.as_str()) else {
            return;
        };
        if let Some(place) = doc.place
            && let Err(e) = self.roots[place.root].session.close(&place.rel)
        {
            eprintln!("soil-lock server: {}", e.message);
        }
        self.dirty = true;
    }

    /// Files changed on disk: a root whose `soil.toml` changed is read again (the open
    /// documents' text taken in anew); every other change is taken in by its session.
    fn files_changed(&mut self, paths: &[PathBuf]) {
        self.dirty = true;
        for i in 0..self.roots.len() {
            let dir = self.roots[i].root().dir.clone();
            let toml = crate::lsp::canonical(&dir.join("soil.toml"));
            if paths.iter().any(|p| crate::lsp::canonical(p) == toml) {
                match Served::open(&dir, self.record) {
                    Ok(served) => self.roots[i] = served,
                    Err(e) => eprintln!("soil-lock server: {}", e.message),
                }
                continue;
            }
            let mine: Vec<PathBuf> = paths
                .iter()
                .filter(|p| p.starts_with(&dir))
                .cloned()
                .collect();
            if let Err(e) = self.roots[i].session.take_in(&mine) {
                eprintln!("soil-lock server: {}", e.message);
            }
        }
        // A new definition, or a root read again: documents are placed anew.
        let keys: Vec<String> = self.docs.keys().cloned().collect();
        for key in keys {
            let (uri, text) = {
                let doc = &self.docs[&key];
                (doc.uri.clone(), doc.text.clone())
            };
            let place = self.place(&uri, &text);
            self.docs.get_mut(&key).expect("open").place = place;
        }
    }

    /// The diagnostics of the open document `key` now.
    fn diagnostics(&self, key: &str) -> Vec<Diagnostic> {
        let doc = &self.docs[key];
        let Some(place) = &doc.place else {
            return Vec::new();
        };
        let served = &self.roots[place.root];
        let db = &served.root().db;
        let notes = match place.ext() {
            "tr" => editor::spec_notes(db, place.def, &doc.text),
            "soil" => editor::soil_notes(db, place.def, &doc.text),
            _ => editor::sidecar_notes(db, place.def, &doc.text),
        };
        let starts = crate::lsp::line_starts(&doc.text);
        notes
            .iter()
            .map(|n| self.to_diagnostic(served, n, &doc.text, &starts))
            .collect()
    }

    fn to_diagnostic(&self, served: &Served, n: &Note, text: &str, starts: &[usize]) -> Diagnostic {
        let at = |offset| position_of(text, starts, offset, self.encoding);
        let related: Vec<DiagnosticRelatedInformation> = n
            .related
            .iter()
            .filter_map(|r| {
                let path = served.root().dir.join(&r.file);
                let uri = uri_of(&path)?;
                // A cause that is not there to look at (an oracle's missing file) is still
                // in the message; a location on it would lead nowhere.
                let other = served.text_of(&self.docs, &r.file)?;
                let other_starts = crate::lsp::line_starts(&other);
                let range = match r.at {
                    Anchor::Name => {
                        let stem = r.file.strip_suffix(".tr").unwrap_or(&r.file);
                        editor::name_range(stem, &other)
                    }
                    Anchor::Start => 0..0,
                };
                let pos = |o| position_of(&other, &other_starts, o, self.encoding);
                Some(DiagnosticRelatedInformation {
                    location: Location::new(uri, Range::new(pos(range.start), pos(range.end))),
                    message: r.message.clone(),
                })
            })
            .collect();
        let flag = !n.code.starts_with("tr-") && n.code != "sidecar";
        Diagnostic {
            range: Range::new(at(n.range.start), at(n.range.end)),
            severity: Some(match n.severity {
                Severity::Error => DiagnosticSeverity::ERROR,
                Severity::Warning => DiagnosticSeverity::WARNING,
                Severity::Information => DiagnosticSeverity::INFORMATION,
            }),
            code: Some(NumberOrString::String(n.code.clone())),
            code_description: flag.then(flags_link).flatten(),
            source: Some("soil-lock".to_owned()),
            message: n.message.clone(),
            related_information: (!related.is_empty()).then_some(related),
            ..Diagnostic::default()
        }
    }

    /// The hover on a spec's `name:` line: the definition's ladder, acceptance, hashes.
    fn hover(&self, p: &HoverParams) -> Option<Hover> {
        let at = &p.text_document_position_params;
        let doc = self.docs.get(at.text_document.uri.as_str())?;
        let place = doc.place.as_ref().filter(|p| p.ext() == "tr")?;
        let served = &self.roots[place.root];
        let stem = place.rel.strip_suffix(".tr").unwrap_or(&place.rel);
        let name = editor::name_range(stem, &doc.text);
        let starts = crate::lsp::line_starts(&doc.text);
        let range = Range::new(
            position_of(&doc.text, &starts, name.start, self.encoding),
            position_of(&doc.text, &starts, name.end, self.encoding),
        );
        if at.position < range.start || at.position > range.end {
            return None;
        }
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value: editor::hover(&served.root().db, place.def),
            }),
            range: Some(range),
        })
    }

    /// "Refresh" for a document whose definition's sidecar `refresh` would rewrite: as a
    /// quick fix and as the document's "fix all".
    fn code_actions(&self, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
        let Some(doc) = self.docs.get(p.text_document.uri.as_str()) else {
            return Vec::new();
        };
        let Some(place) = &doc.place else {
            return Vec::new();
        };
        let served = &self.roots[place.root];
        if !sidecars::would_write(served.root(), place.def, &served.versions) {
            return Vec::new();
        }
        let path = place.def.path(&served.root().db);
        let wanted = |kind: &CodeActionKind| {
            p.context
                .only
                .as_ref()
                .is_none_or(|only| only.iter().any(|o| kind.as_str().starts_with(o.as_str())))
        };
        let command = Command::new(
            format!("Refresh {path}.lock"),
            REFRESH.to_owned(),
            Some(vec![serde_json::json!(doc.uri.as_str())]),
        );
        [CodeActionKind::QUICKFIX, FIX_ALL.into()]
            .into_iter()
            .filter(wanted)
            .map(|kind| {
                CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("Refresh {path}.lock (as `soil-lock refresh` writes it)"),
                    kind: Some(kind),
                    command: Some(command.clone()),
                    ..CodeAction::default()
                })
            })
            .collect()
    }

    /// `soil-lock.refresh <uri>`: writes the document's definition's sidecar as `refresh`
    /// does (atomically, only if the file still holds what the session read), then takes
    /// it in.
    fn execute(&mut self, p: &ExecuteCommandParams) -> Result<(), Failure> {
        if p.command != REFRESH {
            return Err(Failure::new(format!("unknown command {}", p.command)));
        }
        let uri = p.arguments.first().and_then(|a| a.as_str()).unwrap_or("");
        let place = self
            .docs
            .get(uri)
            .and_then(|d| d.place.clone())
            .ok_or_else(|| {
                Failure::new(format!("{REFRESH}: `{uri}` is no open definition file"))
            })?;
        let served = &mut self.roots[place.root];
        let path = place.def.path(&served.root().db).clone();
        match sidecars::refresh_one(served.root(), place.def, &served.versions)? {
            Outcome::Written | Outcome::Unchanged => {}
            Outcome::Skipped => {
                return Err(Failure::new(format!(
                    "{path}.tr cannot be read: nothing to anchor to"
                )));
            }
            Outcome::Unreadable(e) => {
                return Err(Failure::new(format!("{path}.lock: {e}; left untouched")));
            }
            Outcome::Changed => {
                return Err(Failure::new(format!(
                    "{path}.lock changed on disk since it was read; not refreshed"
                )));
            }
        }
        let lock = served.root().file(place.def, "lock");
        served.session.take_in(&[lock])?;
        self.dirty = true;
        Ok(())
    }

    /// The queries executed since the last ask: `[{query, definition}]`, the definition's
    /// path when the query's key is one.
    fn executed(&self) -> serde_json::Value {
        let mut out = Vec::new();
        for served in &self.roots {
            let Some(log) = &served.log else { continue };
            let db = &served.root().db;
            let by_id: BTreeMap<_, _> = served
                .root()
                .defs
                .iter()
                .map(|&d| (d.as_id(), d.path(db).clone()))
                .collect();
            for e in log.take(db) {
                out.push(serde_json::json!({
                    "query": e.query,
                    "definition": by_id.get(&e.key),
                }));
            }
        }
        serde_json::Value::Array(out)
    }
}

/// The flags' section of `docs/soil-lock.md`.
fn flags_link() -> Option<CodeDescription> {
    let href = format!(
        "{}/blob/main/docs/soil-lock.md#flags",
        env!("CARGO_PKG_REPOSITORY")
    );
    Some(CodeDescription {
        href: Uri::from_str(&href).ok()?,
    })
}
