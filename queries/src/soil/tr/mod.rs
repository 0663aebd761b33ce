//! `.tr` spec files: front matter, reserved fenced blocks, and the diagnostics that keep
//! them well formed.
//!
//! Parsing never fails. Whatever is wrong becomes a [`Diagnostic`] with a stable code, and
//! the parse still yields every block it found, so the spec hashes can be computed (and a
//! stale sidecar reported) even for a file that is being edited.
//!
//! Decisions the spec leaves open, made here:
//!
//! - Fences are found by a strict CommonMark parser (no GFM extensions): a fence inside a
//!   list item or block quote counts, an indented "fence" is an indented code block and
//!   therefore prose, and a footnote definition is not a container.
//! - Every fence whose first info word is reserved is a [`Block`], whatever the file kind;
//!   a block the kind does not allow is `tr-block-kind` but still hashed and cut from the
//!   prose, so fixing the error is what moves the hashes, not the error itself.
//! - Cardinalities: a function has at most one `soil-sig` (none is legal, as in trellis),
//!   a type exactly one `soil-type`, a module header exactly one `exports`;
//!   every other unnamed block occurs at most once per file, because the lock's
//!   `spec.blocks` tells blocks apart by identity alone (`tr-block-count`). `test`,
//!   `property` and `cram` blocks may repeat, but their names must differ across all three
//!   langs, since a test row in the lock is named after the block name without its lang
//!   (`basics#1`) (`tr-duplicate-test-name`).
//! - CRLF files parse like LF files. Block contents come out of the CommonMark parser with
//!   `\n` line ends, so `formal` and `test` do not depend on line endings; `prose` hashes
//!   raw bytes and does. A `tr-line-endings` warning says so, because a checkout that
//!   converts line endings would otherwise look like a prose edit.
//! - A reserved fence that is never closed runs to the end of its container or of the file,
//!   as CommonMark says; `tr-unclosed-fence` warns, because it silently swallows whatever
//!   follows.

mod fences;
mod frontmatter;
mod plain;
#[cfg(test)]
mod tests;

use crate::text::{LineCol, LineIndex};
use std::collections::HashMap;
use std::ops::Range;

/// What a `.tr` file defines; decides which reserved blocks it may hold and whether it has
/// a `test` hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum FileKind {
    Function,
    Type,
    /// `_module.tr`, the header of a folder.
    Module,
    /// `_project.tr`, the header of a root.
    Project,
}

impl FileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Function => "function",
            FileKind::Type => "type",
            FileKind::Module => "module",
            FileKind::Project => "project",
        }
    }

    /// The reserved langs a file of this kind may hold (spec §2).
    pub fn allowed_langs(self) -> &'static [&'static str] {
        match self {
            FileKind::Function => &[
                "soil-sig",
                "requires",
                "ensures",
                "test",
                "property",
                "cram",
                "reference",
                "allow",
            ],
            FileKind::Type => &["soil-type", "invariant"],
            FileKind::Module => &["exports", "decisions"],
            FileKind::Project => &["decisions"],
        }
    }

    /// The block that makes the definition, required exactly once.
    /// The block a file of this kind cannot do without. A function's `soil-sig` may be
    /// left out, as in trellis (a function whose signature is inferred), so only a type
    /// has one — and a file is a type because it has it.
    fn defining_lang(self) -> Option<&'static str> {
        match self {
            FileKind::Type => Some("soil-type"),
            FileKind::Function | FileKind::Module | FileKind::Project => None,
        }
    }
}

/// Which spec hash a block feeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockClass {
    Formal,
    Test,
    /// Module and project decisions: cut from the prose, hashed nowhere (the lock keeps
    /// them under `spec.decisions`).
    Decisions,
}

/// The first info words that make a fence a reserved block, in the spec's order.
pub const RESERVED_LANGS: [&str; 12] = [
    "soil-sig",
    "requires",
    "ensures",
    "test",
    "property",
    "cram",
    "reference",
    "allow",
    "soil-type",
    "invariant",
    "exports",
    "decisions",
];

/// The class of a reserved lang; `None` for a fence that is prose.
pub fn reserved_class(lang: &str) -> Option<BlockClass> {
    match lang {
        "soil-sig" | "requires" | "ensures" | "soil-type" | "invariant" | "exports" | "allow" => {
            Some(BlockClass::Formal)
        }
        "test" | "property" | "cram" | "reference" => Some(BlockClass::Test),
        "decisions" => Some(BlockClass::Decisions),
        _ => None,
    }
}

/// Whether blocks of this lang are test cases: they need a name and may be `xfail`.
pub fn is_test_case_lang(lang: &str) -> bool {
    matches!(lang, "test" | "property" | "cram")
}

/// A reserved fenced block.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub lang: String,
    pub name: Option<String>,
    pub xfail: bool,
    /// Marked `@agent`: written by an agent, so the agent may rewrite it.
    pub agent: bool,
    /// The fence body as the CommonMark parser yields it: every line with its trailing
    /// `\n` (also in CRLF files), container prefixes and fence indentation removed.
    pub content: String,
    /// From the first fence character of the opening fence through the line break after
    /// the closing fence; for an unclosed fence, through the end of its container.
    pub fence_range: Range<usize>,
    /// 1-based line of the opening fence.
    pub line: u32,
}

impl Block {
    /// The block's name in the lock's `spec.blocks`: modifiers are not part of it, so
    /// toggling `xfail` keeps the block's provenance record.
    pub fn identity(&self) -> String {
        match &self.name {
            Some(name) => format!("{} {}", self.lang, name),
            None => self.lang.clone(),
        }
    }

    /// The info string as it enters the hashes: however the author spaced it, the same
    /// words give the same hash.
    pub fn normalized_info(&self) -> String {
        let mut info = self.identity();
        if self.xfail {
            info.push_str(" xfail");
        }
        if self.agent {
            info.push_str(" @agent");
        }
        info
    }

    /// Blocks from [`parse`] only hold reserved langs; anything else would count as
    /// formal, the class whose changes invalidate the most.
    pub fn class(&self) -> BlockClass {
        reserved_class(&self.lang).unwrap_or(BlockClass::Formal)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Frontmatter {
    /// The `name` value as written (also when it is invalid); empty when the key is
    /// missing.
    pub name: String,
    pub tags: Vec<String>,
    /// Byte offset of each of `tags`.
    pub tag_offsets: Vec<usize>,
    /// The `name:` line including its line break, which the prose hash leaves out; empty
    /// (at the closing delimiter) when there is no `name` key.
    pub name_line_range: Range<usize>,
    /// From the opening `---` through the line break after the closing `---`.
    pub range: Range<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DiagSeverity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    /// Stable across versions: tools and tests match on it, not on the message.
    pub code: &'static str,
    pub severity: DiagSeverity,
    pub at: LineCol,
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TrFile {
    pub kind: FileKind,
    /// `None` when the file has no front matter or it is never closed.
    pub frontmatter: Option<Frontmatter>,
    /// Reserved blocks in document order.
    pub blocks: Vec<Block>,
    /// In document order.
    pub diagnostics: Vec<Diagnostic>,
}

impl TrFile {
    /// The `name` value, or `""` without one: what the formal hash starts with.
    pub fn name(&self) -> &str {
        self.frontmatter.as_ref().map_or("", |fm| fm.name.as_str())
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics
            .iter()
            .any(|d| d.severity == DiagSeverity::Error)
    }
}

/// Parses a `.tr` file. `file_name` is its path relative to the root (`csvstats/mean.tr`):
/// the base name tells module and project headers (`_module.tr`, `_project.tr`) from
/// definitions, and the name in the front matter must agree with it — a function's with
/// the stem, a type's snake_case with the stem, a module header's with its folder.
pub fn parse(file_name: &str, text: &str) -> TrFile {
    let mut sink = Sink::new(text);
    if let Some(at) = text.find("\r\n") {
        sink.warning(
            "tr-line-endings",
            at,
            "CRLF line endings: block contents hash as if they were LF, but the prose hash \
             covers the raw bytes and differs from the same file with LF endings"
                .to_owned(),
        );
    }
    let frontmatter = frontmatter::parse(text, &mut sink);
    let blanked;
    let body = match &frontmatter {
        Some(fm) => {
            blanked = blank(text, fm.range.clone());
            blanked.as_str()
        }
        None => text,
    };
    let (blocks, has_prose) = fences::scan(text, body, &mut sink);
    let kind = detect_kind(file_name, &blocks);
    check_blocks(kind, &blocks, &mut sink);
    check_obligations(kind, &blocks, has_prose, &mut sink);
    if let Some(fm) = &frontmatter {
        check_names(file_name, kind, fm, &blocks, &mut sink);
    }
    let mut diagnostics = sink.out;
    diagnostics.sort_by_key(|d| d.at);
    TrFile {
        kind,
        frontmatter,
        blocks,
        diagnostics,
    }
}

/// For the fuzzer (`fuzz/fuzz_targets/tr.rs`): whether the plain reader, where it reads
/// the front-matter-blanked `body`, reads it as the parser does.
#[cfg(fuzzing)]
pub fn plain_reads_as_the_parser(body: &str) -> bool {
    plain::fences(body).is_none_or(|read| read == fences::parsed(body))
}

fn detect_kind(file_name: &str, blocks: &[Block]) -> FileKind {
    let base = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    match base {
        "_module.tr" => FileKind::Module,
        "_project.tr" => FileKind::Project,
        _ if blocks.iter().any(|b| b.lang == "soil-type") => FileKind::Type,
        _ => FileKind::Function,
    }
}

/// `text` with `range` replaced by spaces (line breaks kept), so the Markdown parser never
/// sees the front matter and every offset stays valid.
fn blank(text: &str, range: Range<usize>) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for b in &mut bytes[range] {
        if !matches!(*b, b'\n' | b'\r') {
            *b = b' ';
        }
    }
    String::from_utf8(bytes).expect("whole characters replaced by ASCII")
}

/// Kind, cardinality and test-name checks, which need the whole list of blocks.
fn check_blocks(kind: FileKind, blocks: &[Block], sink: &mut Sink) {
    let allowed = kind.allowed_langs();
    let mut first_of_lang: HashMap<&str, &Block> = HashMap::new();
    let mut first_of_name: HashMap<&str, &Block> = HashMap::new();
    for block in blocks {
        let at = block.fence_range.start;
        if !allowed.contains(&block.lang.as_str()) {
            sink.error(
                "tr-block-kind",
                at,
                format!(
                    "a {} file cannot hold `{}` blocks (it allows {})",
                    kind.as_str(),
                    block.lang,
                    allowed
                        .iter()
                        .map(|l| format!("`{l}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
            continue;
        }
        if is_test_case_lang(&block.lang) {
            if let Some(name) = block.name.as_deref() {
                if let Some(first) = first_of_name.get(name) {
                    sink.error(
                        "tr-duplicate-test-name",
                        at,
                        format!(
                            "the test name `{name}` is already used by `{}` on line {}; test \
                             results are recorded by name",
                            first.identity(),
                            first.line
                        ),
                    );
                } else {
                    first_of_name.insert(name, block);
                }
            }
        } else if let Some(first) = first_of_lang.get(block.lang.as_str()) {
            sink.error(
                "tr-block-count",
                at,
                format!(
                    "a second `{}` block (the first is on line {}); merge them into one",
                    block.lang, first.line
                ),
            );
        } else {
            first_of_lang.insert(&block.lang, block);
        }
    }
    if let Some(lang) = kind.defining_lang()
        && !first_of_lang.contains_key(lang)
    {
        sink.error(
            "tr-block-count",
            0,
            format!("a {} file needs one `{lang}` block", kind.as_str()),
        );
    }
}

/// The escape hatches an `allow` block may name, one per line (trellis's fixed set).
pub const ESCAPE_HATCHES: [&str; 3] = ["partial", "unsafe", "ffi-raw"];

/// The escape hatches an `allow` block's content names: its non-blank lines, trimmed.
pub fn allowed_hatches(content: &str) -> impl Iterator<Item = &str> {
    content.lines().map(str::trim).filter(|l| !l.is_empty())
}

/// What a definition cannot do without, as trellis requires it: a function and a type
/// need prose, a function a test of some kind, a module header its one `exports` block.
/// Reported at the start of the file, where the missing thing would go.
fn check_obligations(kind: FileKind, blocks: &[Block], has_prose: bool, sink: &mut Sink) {
    if matches!(kind, FileKind::Function | FileKind::Type) && !has_prose {
        sink.error(
            "tr-missing-prose",
            0,
            format!(
                "a {} file needs at least one paragraph of prose outside its blocks",
                kind.as_str()
            ),
        );
    }
    if kind == FileKind::Function && !blocks.iter().any(|b| is_test_case_lang(&b.lang)) {
        sink.error(
            "tr-missing-test-block",
            0,
            "a function file needs at least one `test`, `property` or `cram` block".to_owned(),
        );
    }
    for block in blocks.iter().filter(|b| b.lang == "allow") {
        for hatch in allowed_hatches(&block.content) {
            if !ESCAPE_HATCHES.contains(&hatch) {
                sink.error(
                    "tr-allow-unknown",
                    block.fence_range.start,
                    format!(
                        "`{hatch}` is not an escape hatch (an `allow` block names {})",
                        ESCAPE_HATCHES.map(|h| format!("`{h}`")).join(", ")
                    ),
                );
            }
        }
    }
    if kind == FileKind::Module && !blocks.iter().any(|b| b.lang == "exports") {
        sink.error(
            "tr-block-count",
            0,
            "a module header needs one `exports` block".to_owned(),
        );
    }
}

/// The name in the front matter against the file's path and the name the `soil-sig` or
/// `soil-type` block declares (`tr-name-mismatch`). A root's `_project.tr` has no folder
/// in its relative path, so its name is not compared.
fn check_names(
    file_name: &str,
    kind: FileKind,
    fm: &Frontmatter,
    blocks: &[Block],
    sink: &mut Sink,
) {
    if fm.name.is_empty() || !fm.name.chars().all(frontmatter::is_name_char) {
        return; // `tr-missing-name` or `tr-invalid-name` already says what is wrong
    }
    let at = fm.name_line_range.start;
    let mut parts = file_name.rsplit(['/', '\\']);
    let base = parts.next().unwrap_or(file_name);
    let stem = base.strip_suffix(".tr").unwrap_or(base);
    let folder = parts.next().unwrap_or("");
    let (written, expected, what) = match kind {
        FileKind::Function => (fm.name.clone(), stem, "the file name"),
        FileKind::Type => (
            snake_case(&fm.name),
            stem,
            "the file name (a type's name in snake_case)",
        ),
        FileKind::Module | FileKind::Project => (fm.name.clone(), folder, "the folder"),
    };
    // A root's `_project.tr` has no folder in its relative path to compare with.
    if !expected.is_empty() && written != expected {
        sink.error(
            "tr-name-mismatch",
            at,
            format!("the name `{}` does not match {what} `{expected}`", fm.name),
        );
    }
    for block in blocks {
        let declared = match (kind, block.lang.as_str()) {
            (FileKind::Function, "soil-sig") => declared_name(&block.content, ""),
            (FileKind::Type, "soil-type") => declared_name(&block.content, "type"),
            _ => None, // misplaced: `tr-block-kind` says so
        };
        if let Some(declared) = declared
            && declared != fm.name
        {
            sink.error(
                "tr-name-mismatch",
                block.fence_range.start,
                format!(
                    "the `{}` block declares `{declared}` but the front matter names `{}`",
                    block.lang, fm.name
                ),
            );
        }
    }
}

/// The name a `soil-sig` (`median : …`) or `soil-type` (`type Row = …`) block declares:
/// the identifier that opens its first non-blank line, after `keyword` when there is one.
fn declared_name<'a>(content: &'a str, keyword: &str) -> Option<&'a str> {
    let line = content.lines().map(str::trim).find(|l| !l.is_empty())?;
    let rest = if keyword.is_empty() {
        line
    } else {
        line.strip_prefix(keyword)?
            .strip_prefix([' ', '\t'])?
            .trim_start()
    };
    let end = rest
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
        .unwrap_or(rest.len());
    (end > 0).then(|| &rest[..end])
}

/// PascalCase to snake_case, the file-name form of a type's name (`ParseError` →
/// `parse_error`).
fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Collects diagnostics, turning byte offsets into line:column. The line index is built
/// for the first diagnostic: most specs have none, and indexing every line of every spec
/// (here and for its tags) was 3% of a cold soil-lock run's profile.
struct Sink<'a> {
    text: &'a str,
    index: std::cell::OnceCell<LineIndex>,
    out: Vec<Diagnostic>,
}

impl<'a> Sink<'a> {
    fn new(text: &'a str) -> Self {
        Sink {
            text,
            index: std::cell::OnceCell::new(),
            out: Vec::new(),
        }
    }

    fn line_col(&self, offset: usize) -> LineCol {
        let index = self.index.get_or_init(|| LineIndex::new(self.text));
        index.line_col(self.text, offset)
    }

    fn error(&mut self, code: &'static str, offset: usize, message: String) {
        self.push(code, DiagSeverity::Error, offset, message);
    }

    fn warning(&mut self, code: &'static str, offset: usize, message: String) {
        self.push(code, DiagSeverity::Warning, offset, message);
    }

    fn push(&mut self, code: &'static str, severity: DiagSeverity, offset: usize, message: String) {
        let at = self.line_col(offset);
        self.out.push(Diagnostic {
            code,
            severity,
            at,
            message,
        });
    }
}

/// Byte offset of `sub` in `text`; `sub` must be a slice of `text`.
fn offset_in(text: &str, sub: &str) -> usize {
    let offset = (sub.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
    debug_assert!(offset <= text.len(), "not a slice of the text");
    offset
}
