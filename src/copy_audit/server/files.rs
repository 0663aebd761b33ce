//! The roots and the files on disk: where configs are or may appear, a root loaded from
//! its config, and what a changed config or lockfile does to the open documents.

use super::diagnostics::file_diagnostic;
use super::*;
use crate::lsp::{canonical, uri_of};

impl Server {
    /// A watched file changed on disk: a config (its root reloaded) or a lockfile (its
    /// entries read again); the documents whose diagnostics that changes.
    pub(super) fn file_changed(&mut self, path: &Path) -> Vec<String> {
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
    pub(super) fn config_changed(&mut self, config: &Path) -> Vec<String> {
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
    pub(super) fn watch_registration(&self) -> Request {
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
}

/// Where the roots' configs are or may appear: the one `config` names, else
/// `.copy-editor.yaml` at the top of each workspace folder (or of the root URI older
/// clients send).
pub(super) fn config_candidates(params: &InitializeParams, config: Option<&Path>) -> Vec<PathBuf> {
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
pub(super) fn open_root(config: &Path) -> Result<Root, (Option<u64>, Option<u64>, String)> {
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
