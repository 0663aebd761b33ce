//! The canonical sidecar text (soil-lock spec §4), byte for byte what the toolchain writes.
//!
//! The layout mixes two styles — nested objects expanded one key per line, list elements
//! and `versions` packed on one line as `{ "k": v }` — which no general-purpose JSON
//! pretty-printer produces, so the text is laid out from a small tree of [`Layout`]s that
//! says which style each value takes. The manifest reuses the tree to nest whole sidecars.

use super::{
    AppliedDecision, BlockAuthor, Checks, ClauseMap, Ffi, Lowering, NameHash, Oracle, RecordedHash,
    Refinements, Scalar, Sidecar, Spec, TestRow,
};
use std::fmt::Write as _;

/// How a value is laid out.
pub(super) enum Layout {
    /// Finished JSON text that stays on the current line: a scalar, or an inline object or
    /// array.
    Inline(String),
    /// An object with one member per line.
    Object(Vec<(String, Layout)>),
    /// An array with one element per line, each element finished JSON text.
    Lines(Vec<String>),
}

/// The canonical text of `sidecar`; [`super::parse`] of the result gives `sidecar` back.
pub fn to_canonical_string(sidecar: &Sidecar) -> String {
    render_document(&sidecar_layout(sidecar))
}

/// Renders a top-level value with the trailing newline every file ends with.
pub(super) fn render_document(layout: &Layout) -> String {
    render_document_sized(2048, layout)
}

/// [`render_document`] into a string of `capacity` bytes to start with.
pub(super) fn render_document_sized(capacity: usize, layout: &Layout) -> String {
    let mut out = String::with_capacity(capacity);
    render(layout, 0, &mut out);
    out.push('\n');
    out
}

/// `layout` as it is written standing `depth` deep in a document.
pub(super) fn render_at(layout: &Layout, depth: usize) -> String {
    let mut out = String::new();
    render(layout, depth, &mut out);
    out
}

fn render(layout: &Layout, depth: usize, out: &mut String) {
    match layout {
        Layout::Inline(text) => out.push_str(text),
        Layout::Object(members) if members.is_empty() => out.push_str("{}"),
        Layout::Lines(lines) if lines.is_empty() => out.push_str("[]"),
        Layout::Object(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                separate(i, depth + 1, out);
                out.push_str(&quote(key));
                out.push_str(": ");
                render(value, depth + 1, out);
            }
            close('}', depth, out);
        }
        Layout::Lines(lines) => {
            out.push('[');
            for (i, line) in lines.iter().enumerate() {
                separate(i, depth + 1, out);
                out.push_str(line);
            }
            close(']', depth, out);
        }
    }
}

fn separate(i: usize, depth: usize, out: &mut String) {
    if i > 0 {
        out.push(',');
    }
    newline(depth, out);
}

fn close(bracket: char, depth: usize, out: &mut String) {
    newline(depth, out);
    out.push(bracket);
}

fn newline(depth: usize, out: &mut String) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("  ");
    }
}

/// A JSON string literal: `"` and `\` escaped, the short escapes where JSON has them,
/// `\u00xx` for the other C0 controls, everything else (non-ASCII included) as is.
pub(super) fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0'..='\u{1f}' => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    out
}

/// `{ "k": v, "k2": v2 }`, or `{}` without members.
pub(super) fn inline_object<K: AsRef<str>>(members: &[(K, String)]) -> String {
    if members.is_empty() {
        return "{}".to_owned();
    }
    let inner: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("{}: {v}", quote(k.as_ref())))
        .collect();
    format!("{{ {} }}", inner.join(", "))
}

/// `["a", "b"]`, or `[]`: the seed's layout of `demoted` and of the manifest's `owners`.
pub(super) fn inline_strings(items: &[String]) -> String {
    let inner: Vec<String> = items.iter().map(|s| quote(s)).collect();
    format!("[{}]", inner.join(", "))
}

fn string(s: &str) -> Layout {
    Layout::Inline(quote(s))
}

fn nullable(s: Option<&str>) -> Layout {
    s.map_or_else(|| Layout::Inline("null".to_owned()), string)
}

fn boolean(b: bool) -> Layout {
    Layout::Inline(b.to_string())
}

fn object(members: Vec<(&str, Layout)>) -> Layout {
    Layout::Object(
        members
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

/// A map written one entry per line, in the order given: sorted by key, as the maps
/// that call it (`BTreeMap`, [`ClauseMap`]) iterate.
fn sorted_map<'a>(entries: impl Iterator<Item = (&'a str, &'a str)>) -> Layout {
    Layout::Object(
        entries
            .map(|(key, value)| (key.to_owned(), string(value)))
            .collect(),
    )
}

fn clause_map(map: &ClauseMap) -> Layout {
    sorted_map(map.iter().map(|(label, state)| (label, state.as_str())))
}

fn lines<T>(items: &[T], line: impl Fn(&T) -> String) -> Layout {
    Layout::Lines(items.iter().map(line).collect())
}

pub(super) fn sidecar_layout(s: &Sidecar) -> Layout {
    let mut members = vec![
        ("lock_format", Layout::Inline(s.lock_format.to_string())),
        ("name", string(&s.name)),
        ("kind", string(s.kind.as_str())),
        (
            "versions",
            Layout::Inline(inline_object(
                &s.versions
                    .0
                    .iter()
                    .map(|(tool, version)| (tool.as_str(), quote(version)))
                    .collect::<Vec<_>>(),
            )),
        ),
        ("spec", spec(&s.spec)),
    ];
    // Each key the file had, and only those (see `Present`).
    let p = s.present;
    if p.lowering {
        let l = s.lowering.as_ref();
        members.push((
            "lowering",
            l.map_or_else(|| Layout::Inline("null".to_owned()), lowering),
        ));
    }
    if p.checks {
        members.push(("checks", checks(&s.checks)));
    }
    if p.tests {
        members.push(("tests", lines(&s.tests, test_row)));
    }
    if p.oracles {
        members.push(("oracles", lines(&s.oracles, oracle)));
    }
    if let Some(f) = &s.ffi {
        members.push(("ffi", ffi(f)));
    }
    if p.cycle_hash || s.cycle_hash.is_some() {
        members.push((
            "cycle_hash",
            nullable(s.cycle_hash.map(|h| h.to_string()).as_deref()),
        ));
    }
    members.push(("accepted", boolean(s.accepted)));
    object(members)
}

/// A hash's text: never escaped, so written as it is.
fn hash(h: &RecordedHash) -> Layout {
    string(&h.to_string())
}

fn spec(s: &Spec) -> Layout {
    let mut members = vec![
        ("provenance", string(s.provenance.as_str())),
        (
            "hashes",
            object(vec![
                ("formal", hash(&s.hashes.formal)),
                (
                    "test",
                    nullable(s.hashes.test.map(|h| h.to_string()).as_deref()),
                ),
                ("prose", hash(&s.hashes.prose)),
            ]),
        ),
        ("prose_state", string(s.prose_state.as_str())),
        ("blocks", lines(&s.blocks, block_author)),
        ("pinned", boolean(s.pinned)),
        (
            "escape_hatches",
            Layout::Inline(inline_strings(&s.escape_hatches)),
        ),
    ];
    if let Some(decisions) = &s.decisions {
        let entries = decisions.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        members.push(("decisions", sorted_map(entries)));
    }
    object(members)
}

fn block_author(b: &BlockAuthor) -> String {
    inline_object(&[
        ("block", quote(&b.block)),
        ("author", quote(b.author.as_str())),
    ])
}

fn lowering(l: &Lowering) -> Layout {
    let mut members = vec![
        ("soil_hash", hash(&l.soil_hash)),
        ("provenance", string(l.provenance.as_str())),
        ("provider", nullable(l.provider.as_deref())),
        ("model", nullable(l.model.as_deref())),
        ("private_helpers", lines(&l.private_helpers, name_hash)),
        ("calls", lines(&l.calls, name_hash)),
    ];
    if let Some(d) = &l.decisions {
        members.push((
            "decisions",
            object(vec![
                ("scope_hash", hash(&d.scope_hash)),
                ("applied", lines(&d.applied, applied_decision)),
            ]),
        ));
    }
    object(members)
}

fn name_hash(n: &NameHash) -> String {
    inline_object(&[
        ("name", quote(&n.name)),
        ("hash", quote(&n.hash.to_string())),
    ])
}

fn applied_decision(d: &AppliedDecision) -> String {
    let members: Vec<(&str, String)> =
        d.0.iter()
            .map(|(k, v)| {
                let value = match v {
                    Scalar::Null => "null".to_owned(),
                    Scalar::Bool(b) => b.to_string(),
                    Scalar::Number(n) => n.clone(),
                    Scalar::String(s) => quote(s),
                };
                (k.as_str(), value)
            })
            .collect();
    inline_object(&members)
}

/// Key order: `types`, `termination`, then `refinements` or (types) `invariants` in the
/// same slot, the prototype's `demoted` after them as in the seed, and v1's `holes` last as
/// in the golden sidecar.
fn checks(c: &Checks) -> Layout {
    let mut members = Vec::new();
    if let Some(e) = c.exports {
        members.push(("exports", string(e.as_str())));
    }
    if let Some(t) = c.types {
        members.push(("types", string(t.as_str())));
    }
    if let Some(t) = c.termination {
        members.push(("termination", string(t.as_str())));
    }
    match &c.refinements {
        Refinements::Prototype(summary) => members.push(("refinements", string(summary.as_str()))),
        Refinements::Clauses(clauses) => {
            members.push(("refinements", clause_map(clauses)));
        }
        Refinements::Absent => {}
    }
    if let Some(invariants) = &c.invariants {
        members.push(("invariants", clause_map(invariants)));
    }
    if let Some(demoted) = &c.demoted {
        members.push(("demoted", Layout::Inline(inline_strings(demoted))));
    }
    if let Some(holes) = c.holes {
        members.push(("holes", Layout::Inline(holes.to_string())));
    }
    object(members)
}

fn test_row(t: &TestRow) -> String {
    inline_object(&[
        ("name", quote(&t.name)),
        ("tier", quote(t.tier.as_str())),
        ("mode", quote(&t.mode)),
        ("origin", quote(t.origin.as_str())),
        ("result", quote(t.result.as_str())),
    ])
}

fn oracle(o: &Oracle) -> String {
    match o {
        Oracle::Reference { path, hash } => inline_object(&[
            ("kind", quote("reference")),
            ("path", quote(path)),
            ("hash", quote(&hash.to_string())),
        ]),
        Oracle::Definition { name, formal_hash } => inline_object(&[
            ("kind", quote("definition")),
            ("name", quote(name)),
            ("formal_hash", quote(&formal_hash.to_string())),
        ]),
        Oracle::Cli { command, hash } => inline_object(&[
            ("kind", quote("cli")),
            ("command", quote(command)),
            ("hash", quote(&hash.to_string())),
        ]),
    }
}

fn ffi(f: &Ffi) -> Layout {
    object(vec![
        ("trust", string(f.trust.as_str())),
        ("symbol", string(&f.symbol)),
        ("symbol_hash", hash(&f.symbol_hash)),
        ("package", string(&f.package)),
    ])
}
