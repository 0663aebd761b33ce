//! The real files the benches are built from, shared by `real_tree`, `real_stages` and
//! `real_report`.

#![allow(dead_code)]

use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::lockfile::{self, Entry, Field, Kind, Span};
use lockgraph_queries::hash::ContentHash;
use std::path::Path;

/// The newest tree's (`58cfea7`) Czech Markdown files in scope of its config
/// (`coaching-codex.md` is excluded there).
pub const MARKDOWN: &[&str] = &[
    "content/challenge-cards/locales/cs/deck.md",
    "content/challenge-cards/locales/cs/print-spec.md",
    "content/facilitation/locales/cs/codex-setup-verification.md",
    "content/facilitation/locales/cs/master-guide.md",
    "content/project-briefs/locales/cs/code-review-helper.md",
    "content/project-briefs/locales/cs/devtoolbox-cli.md",
    "content/project-briefs/locales/cs/doc-generator.md",
    "content/project-briefs/locales/cs/metrics-dashboard.md",
    "content/project-briefs/locales/cs/standup-bot.md",
    "content/talks/locales/cs/codex-demo-script.md",
    "content/talks/locales/cs/context-is-king.md",
    "materials/locales/cs/participant-resource-kit.md",
];

/// One whole-file span, as the agent tags a uniformly Czech file: from the first
/// character to the last character of the last line that has one.
pub fn whole_file(text: &str) -> Span {
    let trimmed = text.trim_end_matches(['\n', '\r']);
    let end_line = trimmed.lines().count().max(1) as u32;
    let last = trimmed.lines().last().unwrap_or("");
    Span {
        start_line: 1,
        start_column: 1,
        end_line,
        end_column: last.encode_utf16().count().max(1) as u32,
        language: "cs".to_owned(),
        kind: Kind::Prose,
        path_hint: Field::Null,
        note: Field::Value("uniformly Czech file".to_owned()),
    }
}

/// One real file of [`audited`]: its format, text, and the entry the agent wrote for it.
pub struct Audited {
    pub format: Format,
    pub text: String,
    pub agent: Entry,
}

/// The agent's entry of a Markdown file: one whole-file `cs prose` span.
fn whole_file_entry(text: &str) -> Entry {
    Entry {
        content_hash: ContentHash::of(text.as_bytes()).to_string(),
        segmented_at: "2026-04-12T21:18:18.965Z".into(),
        reviewed_by: Some("bench".into()),
        spans: vec![whole_file(text)],
    }
}

/// The [`MARKDOWN`] files of `shared` (`../shared/conformance/harness-lab`), each with a
/// whole-file entry, and the bilingual `agenda.json` of `b14f4c7` with its real reviewed
/// entry.
pub fn audited(shared: &Path) -> Vec<Audited> {
    let mut out: Vec<Audited> = MARKDOWN
        .iter()
        .map(|rel| {
            let text = std::fs::read_to_string(shared.join("58cfea7").join(rel)).unwrap();
            let agent = whole_file_entry(&text);
            Audited {
                format: Format::Markdown,
                text,
                agent,
            }
        })
        .collect();
    let b14 = shared.join("b14f4c7");
    let lock =
        lockfile::parse(&std::fs::read_to_string(b14.join(".copy-editor.lock.json")).unwrap())
            .unwrap();
    out.push(Audited {
        format: Format::Json,
        text: std::fs::read_to_string(b14.join("workshop-content/agenda.json")).unwrap(),
        agent: lock.files["workshop-content/agenda.json"].clone(),
    });
    out
}
