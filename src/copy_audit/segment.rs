//! `copy-audit segment <path>`: the hand-off payload for the host agent.
//!
//! The script never calls a model. It prints what the agent needs to segment one file —
//! the prompt with the file interpolated, the output shape, and the exact command that
//! takes the agent's answer back into the lockfile.

use super::cli::OutputFormat;
use super::report::print_json;
use super::workspace::Workspace;
use super::{Failure, Outcome};
use lockgraph_queries::copy::lockfile::CURRENT_PROMPT_VERSION;
use serde::Serialize;
use std::path::Path;

/// The prompt document; its fenced block under "## The literal prompt template" is the
/// template. Embedding it keeps the binary self-contained while the document stays the
/// single source of truth.
const PROMPT_DOC: &str = include_str!("../../docs/segmentation-prompt-v3.md");
const PROMPT_DOC_PATH: &str = "docs/segmentation-prompt-v3.md";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Handoff {
    file_path: String,
    relative_path: String,
    declared_profiles: Vec<String>,
    prompt_version: u32,
    /// `paths.surface_profile` for this file: passed through for the agent, no rule effect.
    #[serde(skip_serializing_if = "Option::is_none")]
    surface_profile: Option<String>,
    /// `paths.locale` for this file: the project's own hint about its language.
    #[serde(skip_serializing_if = "Option::is_none")]
    locale_hint: Option<String>,
    /// Layer 2 material from the config (`rules.style_guide`, `voice_doctrine`, `output`, …)
    /// as written, for the agent's judgment passes; never interpreted here.
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    layer2: serde_json::Value,
    output_schema: OutputSchema,
    next_step: String,
    prompt: String,
}

#[derive(Serialize)]
struct OutputSchema {
    reference: &'static str,
    shape: serde_json::Value,
}

pub fn run(ws: &Workspace, path: &Path, format: OutputFormat) -> Result<Outcome, Failure> {
    // The payload carries the Layer 2 paths to the agent: what the config's warnings say
    // of them (missing, outside the root) is said here too.
    ws.warn_about_config();
    let rel = ws.lockfile_key(path)?;
    let abs = ws.root.join(&rel);
    let text = ws.read_text(&rel)?;
    let profiles = ws.config.declared_profiles.clone();
    let matcher = ws
        .config
        .matcher(None)
        .map_err(|e| Failure::new(e.to_string()))?;
    let file_path = abs.to_string_lossy().into_owned();
    let prompt = template()?
        .replace("{{filePath}}", &rel)
        .replace("{{declaredProfiles}}", &profiles.join(", "))
        .replace("{{fileBytes}}", &text);
    let surface_profile = matcher.surface_profile_for(&rel).map(str::to_string);
    let locale_hint = matcher.locale_for(&rel).map(str::to_string);
    let handoff = Handoff {
        next_step: format!(
            "copy-audit lockfile add {} --spans - --config {}",
            shell_quote(&file_path),
            shell_quote(&ws.config.path.to_string_lossy())
        ),
        file_path,
        relative_path: rel,
        declared_profiles: profiles,
        prompt_version: CURRENT_PROMPT_VERSION,
        surface_profile,
        locale_hint,
        layer2: ws.config.layer2.clone(),
        output_schema: OutputSchema {
            reference: "docs/lockfile.md",
            shape: serde_json::json!({
                "spans": [{
                    "startLine": "int, 1-based",
                    "startColumn": "int, 1-based, in UTF-16 code units (an emoji is two)",
                    "endLine": "int, inclusive",
                    "endColumn": "int, inclusive",
                    "language": "ISO 639-1 code or \"unknown\"",
                    "kind": "prose | code | quote | data",
                    "pathHint": "string or null",
                    "note": "string or null"
                }]
            }),
        },
        prompt,
    };
    if format == OutputFormat::Json {
        print_json(&handoff);
    } else {
        println!(
            "# Segment {} (prompt v{})",
            handoff.relative_path, handoff.prompt_version
        );
        println!(
            "# Then pipe the agent's JSON into:\n#   {}\n",
            handoff.next_step
        );
        println!("{}", handoff.prompt);
    }
    Ok(Outcome::Clean)
}

/// The fenced block under the template heading of the prompt document.
fn template() -> Result<&'static str, Failure> {
    let missing = || {
        Failure::new(format!(
            "{PROMPT_DOC_PATH}: no fenced block under \"## The literal prompt template\""
        ))
    };
    let after = PROMPT_DOC
        .split_once("## The literal prompt template")
        .ok_or_else(missing)?
        .1;
    let open = after.find("````").ok_or_else(missing)?;
    let body_start = open + after[open..].find('\n').ok_or_else(missing)? + 1;
    let close = after[body_start..].find("\n````").ok_or_else(missing)?;
    Ok(&after[body_start..body_start + close + 1])
}

fn shell_quote(s: &str) -> String {
    if s.chars()
        .all(|c| c.is_ascii_alphanumeric() || "/._-+:@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prompt_document_has_a_template_with_every_placeholder() {
        let t = template().unwrap();
        for p in ["{{filePath}}", "{{declaredProfiles}}", "{{fileBytes}}"] {
            assert!(t.contains(p), "template lacks {p}");
        }
    }

    #[test]
    fn quoting_survives_spaces_and_quotes() {
        assert_eq!(shell_quote("a/b.md"), "a/b.md");
        assert_eq!(shell_quote("a b'c"), r"'a b'\''c'");
    }
}
