//! What an editor shows of one definition: the diagnostics of its `.tr`, `.soil` and
//! `.lock` (trellis's codes where trellis has them, the flags by their names, each flag
//! with the chain of causes `why` walks), and the hover on its name.
//!
//! Every note is placed in the text it is about, which the caller hands in (an editor's
//! unsaved text, or the file); the flags come from the database, so an edit of another
//! definition reaches these notes exactly as far as it reaches the flags. Places are byte
//! ranges of that text; the shell turns them into the client's positions.

use super::engine::{
    self, Definition, Project, def_index, flags, ladder, reference_file, short_name, sidecar_of,
};
use super::graph::{self, Step};
use super::lang::lex::{Token, lex};
use super::soil_hash::{computed_soil_hash, own_forms};
use super::status::Flag;
use super::tr::{self, BlockClass, DiagSeverity, TrFile};
use std::fmt::Write;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    Error,
    Warning,
    Information,
}

/// One diagnostic, placed in the text it was computed for.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Note {
    /// Bytes of the text handed in.
    pub range: Range<usize>,
    pub severity: Severity,
    /// A `.tr` diagnostic's code (`tr-missing-name`, …), a flag's name (`prose-stale`), or
    /// `soil-syntax` / `sidecar` for a file that cannot be read.
    pub code: String,
    pub message: String,
    /// The steps from this note to its cause, nearest first.
    pub related: Vec<Related>,
}

/// A place elsewhere that explains a note: a step of its `why` chain.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Related {
    /// Root-relative: a definition's `csvstats/sum.tr`, or an oracle's `ref/stats.py`.
    pub file: String,
    pub at: Anchor,
    pub message: String,
}

/// Where in a related file: a spec's `name:` line ([`name_range`]) or the file's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Anchor {
    Name,
    Start,
}

/// The notes of `def`'s spec, whose text is `text`: the parse's diagnostics (errors and
/// warnings), undeclared tags, and one note per flag.
pub fn spec_notes(db: &dyn salsa::Database, def: Definition, text: &str) -> Vec<Note> {
    let path = def.path(db);
    let parsed = tr::parse(&format!("{path}.tr"), text);
    let mut out: Vec<Note> = parsed
        .diagnostics
        .iter()
        .map(|d| {
            let at = offset_at(text, d.at.line, d.at.column, true);
            Note {
                range: at..line_end(text, at),
                severity: match d.severity {
                    DiagSeverity::Error => Severity::Error,
                    DiagSeverity::Warning => Severity::Warning,
                },
                code: d.code.to_owned(),
                message: d.message.clone(),
                related: Vec::new(),
            }
        })
        .collect();
    if let (Some(fm), Some(vocabulary)) = (&parsed.frontmatter, Project::get(db).tag_vocabulary(db))
    {
        for (tag, &at) in fm.tags.iter().zip(&fm.tag_offsets) {
            if !vocabulary.contains(tag) {
                out.push(Note {
                    range: at..at + tag.len(),
                    severity: Severity::Error,
                    code: "tr-undeclared-tag".to_owned(),
                    message: format!("the tag `{tag}` is not declared under [tags] in soil.toml"),
                    related: Vec::new(),
                });
            }
        }
    }
    for chain in graph::why(db, def) {
        let reason = &chain[0].reason;
        out.push(Note {
            range: flag_range(&parsed, text, reason.flag),
            severity: severity_of(reason.flag),
            code: reason.flag.as_str().to_owned(),
            message: format!("{}: {}", reason.name(), reason.detail),
            related: related(db, &chain),
        });
    }
    out
}

/// The notes of `def`'s `.soil`, whose text is `text`: why it cannot be read, and the
/// flags whose cause is in it (a hand edit, an untracked file, a callee that moved, at
/// its first call).
pub fn soil_notes(db: &dyn salsa::Database, def: Definition, text: &str) -> Vec<Note> {
    let mut out = Vec::new();
    if let Some(Err(e)) = own_forms(db, def) {
        let at = offset_at(text, e.line, e.column, false);
        out.push(Note {
            range: at..line_end(text, at),
            severity: Severity::Error,
            code: e.code.clone(),
            message: e.message.clone(),
            related: Vec::new(),
        });
    }
    let first_line = 0..line_end(text, 0);
    for chain in graph::why(db, def) {
        let reason = &chain[0].reason;
        let range = match reason.flag {
            Flag::SoilDrift | Flag::SoilUntracked => first_line.clone(),
            Flag::StaleCallees | Flag::MissingCallee => reason
                .other
                .as_deref()
                .and_then(|callee| first_call(text, short_name(callee)))
                .unwrap_or(first_line.clone()),
            _ => continue,
        };
        out.push(Note {
            range,
            severity: severity_of(reason.flag),
            code: reason.flag.as_str().to_owned(),
            message: format!("{}: {}", reason.name(), reason.detail),
            related: related(db, &chain),
        });
    }
    out
}

/// The notes of `def`'s sidecar, whose text is `text`: why it cannot be read.
pub fn sidecar_notes(db: &dyn salsa::Database, def: Definition, text: &str) -> Vec<Note> {
    let Some(Err(e)) = engine::parsed_sidecar(db, def) else {
        return Vec::new();
    };
    let at = match (e.line, e.column) {
        (Some(line), Some(column)) => offset_at(text, line as u32, column as u32, false),
        _ => 0,
    };
    vec![Note {
        range: at..line_end(text, at),
        severity: Severity::Error,
        code: "sidecar".to_owned(),
        message: e.to_string(),
        related: Vec::new(),
    }]
}

/// The spec's `name:` line (without its line break), else its first line: where a
/// definition's flags and hover are.
pub fn name_range(path: &str, text: &str) -> Range<usize> {
    name_line(&tr::parse(&format!("{path}.tr"), text), text)
}

fn name_line(parsed: &TrFile, text: &str) -> Range<usize> {
    match &parsed.frontmatter {
        Some(fm) if !fm.name_line_range.is_empty() => {
            fm.name_line_range.start..line_end(text, fm.name_line_range.start)
        }
        _ => 0..line_end(text, 0),
    }
}

/// The hover on a definition's name, in Markdown: kind, ladder, acceptance, flags, and
/// each hash as recorded and as it is now.
pub fn hover(db: &dyn salsa::Database, def: Definition) -> String {
    let sidecar = sidecar_of(db, def);
    let mut out = format!("**{}**", def.path(db));
    if let Some(kind) = super::refresh::kind_of(db, def) {
        let _ = write!(out, " · {}", kind.as_str());
    }
    let _ = write!(out, " · {}", ladder(db, def).as_str());
    out.push_str(match sidecar {
        Some(s) if s.accepted => " · accepted",
        Some(_) => " · not accepted",
        None => " · no sidecar",
    });
    let names: Vec<String> = flags(db, def).iter().map(|r| r.name()).collect();
    if !names.is_empty() {
        let _ = write!(out, "\n\nflags: {}", names.join(", "));
    }
    let now = engine::spec_hashes(db, def);
    let recorded = sidecar.map(|s| &s.spec.hashes);
    let rows = [
        (
            "formal",
            recorded.map(|r| r.formal.to_string()),
            now.map(|h| h.formal.to_string()),
        ),
        (
            "test",
            recorded.and_then(|r| r.test.map(|t| t.to_string())),
            now.and_then(|h| h.test.map(|t| t.to_string())),
        ),
        (
            "prose",
            recorded.map(|r| r.prose.to_string()),
            now.map(|h| h.prose.to_string()),
        ),
        (
            "soil",
            sidecar.and_then(|s| s.lowering.as_ref().map(|l| l.soil_hash.to_string())),
            computed_soil_hash(db, def).map(|h| h.to_string()),
        ),
    ];
    out.push_str("\n\n| hash | recorded | now |\n|---|---|---|");
    for (name, recorded, now) in rows {
        if recorded.is_none() && now.is_none() {
            continue;
        }
        let cell = |h: Option<String>| h.map_or("—".to_owned(), |h| format!("`{h}`"));
        let same = if recorded == now { " ✓" } else { "" };
        let _ = write!(
            out,
            "\n| {name}{same} | {} | {} |",
            cell(recorded),
            cell(now)
        );
    }
    out
}

fn severity_of(flag: Flag) -> Severity {
    match flag {
        Flag::ReviewSuggested => Severity::Information,
        _ => Severity::Warning,
    }
}

/// Where a flag is shown in its spec: on the first block of the class that moved, else
/// on the `name:` line.
fn flag_range(parsed: &TrFile, text: &str, flag: Flag) -> Range<usize> {
    let class = match flag {
        Flag::FormalStale => Some(BlockClass::Formal),
        Flag::TestStale => Some(BlockClass::Test),
        _ => None,
    };
    let block = parsed.blocks.iter().find(|b| match class {
        Some(class) => b.class() == class,
        None => flag == Flag::BlocksDrift,
    });
    match block {
        Some(b) => b.fence_range.start..line_end(text, b.fence_range.start),
        None => name_line(parsed, text),
    }
}

/// The steps after a note's own, each where its definition's name is, and the cause at
/// the end of the chain: the callee or oracle the last step disagrees with.
fn related(db: &dyn salsa::Database, chain: &[Step]) -> Vec<Related> {
    let step = |s: &Step| {
        let hashes = match (&s.reason.recorded, &s.reason.current) {
            (Some(r), Some(c)) => format!(" (recorded {r}, now {c})"),
            (Some(r), None) => format!(" (recorded {r}, now none)"),
            _ => String::new(),
        };
        format!(
            "{} [{}] {}{hashes}",
            s.def,
            s.reason.name(),
            s.reason.detail
        )
    };
    let mut out: Vec<Related> = chain[1..]
        .iter()
        .map(|s| Related {
            file: format!("{}.tr", s.def),
            at: Anchor::Name,
            message: step(s),
        })
        .collect();
    let last = chain.last().expect("a chain has its first step");
    let follows = matches!(last.reason.flag, Flag::StaleCallees | Flag::StaleOracle);
    if let (true, Some(other)) = (follows, &last.reason.other)
        && !chain.iter().any(|s| &s.def == other)
    {
        let (file, at) = match def_index(db).get(other) {
            Some(_) => (format!("{other}.tr"), Anchor::Name),
            None => (reference_file(other).to_owned(), Anchor::Start),
        };
        out.push(Related {
            file,
            at,
            message: format!("the cause: {}", step(last)),
        });
    }
    out
}

/// The first call of `name` in Soil `text`: its identifier's bytes.
fn first_call(text: &str, name: &str) -> Option<Range<usize>> {
    lex(text).ok()?.into_iter().find_map(|t| match t.token {
        Token::Ident(id) if id == name => Some(t.span),
        _ => None,
    })
}

/// The byte offset of 1-based `line` and `column` (UTF-16 units, else scalar values).
fn offset_at(text: &str, line: u32, column: u32, utf16: bool) -> usize {
    let start = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1) as usize)
        .map(str::len)
        .sum::<usize>();
    let mut seen = 1;
    for (i, c) in text[start..].char_indices() {
        if seen >= column || c == '\n' {
            return start + i;
        }
        seen += if utf16 { c.len_utf16() as u32 } else { 1 };
    }
    text.len()
}

/// Where the line holding `at` ends (before its line break).
fn line_end(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    memchr::memchr(b'\n', &text.as_bytes()[at..]).map_or(text.len(), |i| at + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_columns_in_either_unit() {
        let text = "a😀b\nčd\n";
        assert_eq!(offset_at(text, 1, 4, true), text.find('b').unwrap());
        assert_eq!(offset_at(text, 1, 3, false), text.find('b').unwrap());
        assert_eq!(offset_at(text, 2, 2, false), text.find('d').unwrap());
        // Past the end of a line: its end.
        assert_eq!(offset_at(text, 2, 9, false), text.find("d\n").unwrap() + 1);
        assert_eq!(line_end(text, 0), text.find('\n').unwrap());
    }
}
