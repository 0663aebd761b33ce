//! What the rest of the engine reads of a `.tr` file, distilled from its parse: the three
//! spec hashes, the kind, the front matter's name and tags, the reserved blocks as
//! `spec.blocks` records them, the names `exports` blocks list, the `decisions` entries and
//! the error diagnostics.
//!
//! Everything downstream of a spec's bytes (flags, `check`, `refresh`, output) reads this
//! summary rather than the parse, for two reasons. It is a fraction of the parse's size:
//! once the hashes are taken, block contents and byte ranges are dead weight held for the
//! whole run. And it is a plain value that the shell can keep between runs, so a spec whose
//! file did not change is neither read nor parsed again (`src/soil_lock/cache.rs`); the
//! engine takes the kept summary in place of the bytes and computes the rest as usual.
//!
//! It is a pure function of the file's name and bytes: the same bytes always give the same
//! summary, which is what makes keeping it sound.

use super::sidecar::{Author, BlockAuthor};
use super::spec_hash::{self, SpecHashes};
use super::tr::{DiagSeverity, FileKind, TrFile, allowed_hatches};
use compact_str::CompactString;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TrSummary {
    pub kind: FileKind,
    /// The front-matter `name` as written; empty without one.
    pub name: CompactString,
    /// The 1-based line of the `name:` key, else 1: where a report places what is said
    /// of the definition as a whole (`check`'s violations).
    pub name_line: u32,
    /// The front-matter `tags`.
    pub tags: Vec<CompactString>,
    /// Line and column of each of `tags`, for `tr-undeclared-tag`, which needs `soil.toml`
    /// and is therefore checked outside the parse.
    pub tags_at: Vec<(u32, u32)>,
    pub hashes: SpecHashes,
    /// The reserved blocks in document order: identity and author, the shape of the lock's
    /// `spec.blocks`.
    pub blocks: Vec<BlockAuthor>,
    /// The names the `exports` blocks list (module headers), relative to the module, in
    /// order: one per line or separated by commas or spaces; `#` starts a comment.
    pub exports: Vec<String>,
    /// A header's `decisions` block as `spec.decisions` records it: each entry's label and
    /// hash ([`spec_hash::decision_entry_hashes`]), in order; `None` without the block.
    pub decisions: Option<Vec<(String, String)>>,
    /// The escape hatches the `allow` block names, one per non-blank line.
    pub escape_hatches: Vec<String>,
    /// The error diagnostics, in document order (warnings are reported nowhere).
    pub errors: Vec<TrError>,
}

/// An error diagnostic of a `.tr` file, as `check` reports it.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TrError {
    /// The stable code (`tr-missing-name`, …).
    pub code: String,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

impl TrSummary {
    /// The summary of `tr`, the parse of `text`.
    pub fn of(tr: &TrFile, text: &str) -> TrSummary {
        let blocks = tr
            .blocks
            .iter()
            .map(|b| BlockAuthor {
                block: b.identity().into(),
                author: if b.agent {
                    Author::Agent
                } else {
                    Author::Human
                },
            })
            .collect();
        let contents = |lang: &'static str| {
            tr.blocks
                .iter()
                .filter(move |b| b.lang == lang)
                .flat_map(|b| b.content.lines())
        };
        let exports = contents("exports")
            .flat_map(|line| {
                line.split('#')
                    .next()
                    .unwrap_or("")
                    .split([',', ' ', '\t'])
                    .filter(|n| !n.is_empty())
            })
            .map(str::to_string)
            .collect();
        let decisions = tr.blocks.iter().find(|b| b.lang == "decisions").map(|b| {
            spec_hash::decision_entry_hashes(&b.content)
                .into_iter()
                .map(|(label, hash)| (label, hash.to_string()))
                .collect()
        });
        let escape_hatches = tr
            .blocks
            .iter()
            .filter(|b| b.lang == "allow")
            .flat_map(|b| allowed_hatches(&b.content))
            .map(str::to_string)
            .collect();
        let errors = tr
            .diagnostics
            .iter()
            .filter(|d| d.severity == DiagSeverity::Error)
            .map(|d| TrError {
                code: d.code.to_string(),
                line: d.at.line,
                column: d.at.column,
                message: d.message.clone(),
            })
            .collect();
        let tags_at = match &tr.frontmatter {
            Some(fm) if !fm.tag_offsets.is_empty() => {
                // The tags are in the front matter: the lines up to the last of them
                // are all the index needs (see `tr::Sink` for what the whole cost).
                let last = fm
                    .tag_offsets
                    .iter()
                    .max()
                    .map_or(0, |&at| at.min(text.len()));
                let index = crate::text::LineIndex::of_bytes(&text.as_bytes()[..last]);
                fm.tag_offsets
                    .iter()
                    .map(|&at| {
                        let at = index.line_col(text, at);
                        (at.line, at.column)
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        let name_line = match &tr.frontmatter {
            Some(fm) if !fm.name_line_range.is_empty() => {
                let before = &text.as_bytes()[..fm.name_line_range.start.min(text.len())];
                1 + memchr::memchr_iter(b'\n', before).count() as u32
            }
            _ => 1,
        };
        TrSummary {
            kind: tr.kind,
            tags_at,
            name_line,
            name: tr.name().into(),
            tags: tr
                .frontmatter
                .as_ref()
                .map(|f| f.tags.iter().map(|t| t.as_str().into()).collect())
                .unwrap_or_default(),
            hashes: spec_hash::spec_hashes(tr, text),
            blocks,
            exports,
            decisions,
            escape_hatches,
            errors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::soil::tr;

    #[test]
    fn a_module_header_keeps_its_exports_and_decisions() {
        let text = "---\nname: csvstats\ntags: [api, core]\n---\n\n# csvstats\n\n\
                    ```exports\nmean, median # the averages\nsum\tvariance\n```\n\n\
                    ```decisions @agent\nfloat: f64\nempty: ignored: kept\nno colon\n```\n";
        let parsed = tr::parse("csvstats/_module.tr", text);
        let s = TrSummary::of(&parsed, text);
        assert_eq!(s.kind, FileKind::Module);
        assert_eq!(s.name, "csvstats");
        assert_eq!(s.tags, ["api", "core"]);
        assert_eq!(s.exports, ["mean", "median", "sum", "variance"]);
        let entry = |text: &str| spec_hash::digest(&[text.as_bytes()]).to_string();
        assert_eq!(
            s.decisions,
            Some(vec![
                ("float".to_string(), entry("float: f64")),
                ("empty".to_string(), entry("empty: ignored: kept"))
            ])
        );
        assert_eq!(
            s.blocks,
            [
                BlockAuthor {
                    block: "exports".into(),
                    author: Author::Human
                },
                BlockAuthor {
                    block: "decisions".into(),
                    author: Author::Agent
                }
            ]
        );
        assert_eq!(s.hashes, spec_hash::spec_hashes(&parsed, text));
        assert!(s.errors.is_empty(), "{:?}", s.errors);
    }

    #[test]
    fn only_errors_are_kept_with_their_codes_and_positions() {
        let text = "---\ntags: [a]\n---\r\n\n```test\nx\n```\n";
        let parsed = tr::parse("f.tr", text);
        let s = TrSummary::of(&parsed, text);
        let expected: Vec<_> = parsed
            .diagnostics
            .iter()
            .filter(|d| d.severity == DiagSeverity::Error)
            .map(|d| (d.code.to_string(), d.at.line, d.at.column))
            .collect();
        assert!(!expected.is_empty());
        assert!(
            parsed
                .diagnostics
                .iter()
                .any(|d| d.severity == DiagSeverity::Warning),
            "the CRLF warning exists but is not kept"
        );
        let got: Vec<_> = s
            .errors
            .iter()
            .map(|e| (e.code.clone(), e.line, e.column))
            .collect();
        assert_eq!(got, expected);
    }
}
