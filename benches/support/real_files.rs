//! The real files the benches are built from, shared by `real_tree` and `real_stages`.

#![allow(dead_code)]

use lockgraph_queries::copy::lockfile::{Field, Kind, Span};

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
