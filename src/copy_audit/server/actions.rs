//! Code actions (each finding's fix, and "fix all" as `--fix` applies them) and hover.

use super::diagnostics::{finding_range, to_diagnostic};
use super::*;
use crate::lsp::{Column, end_of, line_starts, position};
use lockgraph_queries::copy::engine::EntryState;
use lsp_types::{Command, ExecuteCommandParams};

/// The code action kind of "fix all", under `source.fixAll` as editors run it on save.
pub(super) const FIX_ALL: &str = "source.fixAll.copy-audit";

/// The command that writes a document's entry as `--offline` does.
pub(super) const SEGMENT: &str = "copy-audit.segment";

/// The command that marks a document's fresh entry reviewed.
pub(super) const MARK_REVIEWED: &str = "copy-audit.markReviewed";

impl Server {
    /// The documentation of the rules whose findings cover the position: each rule's
    /// summary and paragraph, as its declaration (and `docs/rules.md`) has them.
    pub(super) fn hover(&mut self, p: &HoverParams) -> Option<Hover> {
        let at = p.text_document_position_params.position;
        let key = p.text_document_position_params.text_document.uri.as_str();
        let doc = self.docs.get(key)?;
        let (root, rel) = doc.place.as_ref()?;
        let root = &mut self.roots[*root];
        let rules = root.session.rules();
        let report = root.session.report_of(rel)?;
        let starts = line_starts(&doc.text);
        let mut sections = Vec::new();
        let mut covered: Option<Range> = None;
        for f in report.findings.iter() {
            let range = finding_range(&f, &doc.text, &starts, self.encoding);
            if range.start > at || range.end < at {
                continue;
            }
            covered.get_or_insert(range);
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
    pub(super) fn code_actions(&mut self, p: &CodeActionParams) -> Vec<CodeActionOrCommand> {
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
        // The entry itself: written, or reviewed, by a command (through the lockfile).
        let lockfile_action = match report.state {
            EntryState::Missing | EntryState::Stale => Some((
                "Segment with the structural backend (as --offline)",
                SEGMENT,
            )),
            EntryState::Fresh if entry.as_ref().is_some_and(|e| e.reviewed_by.is_none()) => {
                Some(("Mark the lockfile entry reviewed", MARK_REVIEWED))
            }
            _ => None,
        };
        let mut lockfile_actions = Vec::new();
        if let Some((title, command)) = lockfile_action
            && wants(&CodeActionKind::SOURCE)
        {
            let arguments = Some(vec![serde_json::json!(p.text_document.uri.as_str())]);
            lockfile_actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: title.to_owned(),
                kind: Some(CodeActionKind::SOURCE),
                command: Some(Command::new(
                    title.to_owned(),
                    command.to_owned(),
                    arguments,
                )),
                ..CodeAction::default()
            }));
        }
        if !report.state.has_usable_spans() {
            return lockfile_actions;
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
                        Column::Utf16,
                        self.encoding,
                    ),
                    position(
                        &doc.text,
                        &starts,
                        fix.end.line,
                        fix.end.column,
                        Column::Utf16,
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
        actions.extend(lockfile_actions);
        actions
    }

    /// Runs a command of the server's: segments the document's file on disk as
    /// `--offline` does, or marks its entry reviewed; then the lockfile is read again and
    /// the root's documents are checked anew.
    pub(super) fn execute(&mut self, p: &ExecuteCommandParams) -> Result<(), Failure> {
        let uri = p
            .arguments
            .first()
            .and_then(|a| a.as_str())
            .ok_or_else(|| Failure::new(format!("{}: the document's URI is missing", p.command)))?;
        let doc = self
            .docs
            .get(uri)
            .ok_or_else(|| Failure::new(format!("{uri}: not an open document")))?;
        let (root, rel) = doc
            .place
            .clone()
            .ok_or_else(|| Failure::new(format!("{uri}: outside every config's scope")))?;
        let r = &mut self.roots[root];
        match p.command.as_str() {
            SEGMENT => {
                let matcher = r.session.matcher().clone();
                lockedit::segment(
                    &r.ws,
                    &matcher,
                    std::slice::from_ref(&rel),
                    "copy-audit server",
                )?;
            }
            MARK_REVIEWED => {
                let by = self.reviewer.as_deref().ok_or_else(|| {
                    Failure::new(
                        "no reviewer: set $COPY_EDITOR_REVIEWER or the client's `reviewer` \
                         setting (initializationOptions)",
                    )
                })?;
                lockedit::mark_reviewed(&r.ws, &rel, by)?;
            }
            other => return Err(Failure::new(format!("copy-audit has no command {other}"))),
        }
        r.session.reload_lockfile(&r.ws)?;
        for (key, doc) in &mut self.docs {
            if doc.place.as_ref().is_some_and(|(i, _)| *i == root) {
                doc.anchors.clear();
                doc.reanchored = None;
                self.republish.push(key.clone());
            }
        }
        Ok(())
    }
}

/// One edit of one document.
// `lsp_types::Uri` caches its parse in a cell; as a key it is only hashed by its text.
#[allow(clippy::mutable_key_type)]
fn edit(uri: &Uri, range: Range, new_text: String) -> WorkspaceEdit {
    let changes = [(uri.clone(), vec![TextEdit::new(range, new_text)])].into();
    WorkspaceEdit::new(changes)
}
