//! Output of `soil-lock`: status tables and JSON, the graph in dot, mermaid and JSON,
//! `impact` and `why`.

use super::root::Root;
use lockgraph_queries::db::Database;
use lockgraph_queries::soil::engine::{self, Definition, EdgeKind};
use lockgraph_queries::soil::graph::{self, DepGraph, NodeKind, Reached};
use lockgraph_queries::soil::refresh;
use lockgraph_queries::soil::soil_hash;
use lockgraph_queries::soil::status::Ladder;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{self, Write};

/// `{"defs": [...]}` as serde's pretty printer lays it out, the rows rendered on every
/// core a window at a time (`output::write_pretty_elements_with`): a large root's rows and
/// text are never all held at once.
fn status_json(mut out: &mut dyn Write, root: &Root, defs: &[Definition]) -> io::Result<()> {
    write_status_json(
        &mut out,
        defs.iter(),
        STATUS_WINDOW,
        root.db.clone(),
        |db, &&def| def_json(db, def),
    )
}

/// The document of [`status_json`], each row `render` of an item.
fn write_status_json<T: Sync, S: Clone + Send>(
    out: &mut impl Write,
    items: impl Iterator<Item = T>,
    window_len: usize,
    state: S,
    render: impl Fn(&mut S, &T) -> DefJson + Sync,
) -> io::Result<()> {
    out.write_all(b"{\n  \"defs\": [")?;
    crate::output::write_pretty_elements_with(out, items, 2, window_len, state, render)?;
    out.write_all(b"\n}\n")
}

/// Rows rendered at a time by `status --json`: enough to keep every core busy, few
/// enough that the window's text (about 600 bytes a row) is not what a large root's
/// peak memory is made of.
const STATUS_WINDOW: usize = 2048;

#[derive(Clone, Serialize)]
struct DefJson {
    path: String,
    kind: Option<&'static str>,
    /// trellis's status: `accepted` above every rung, else the rung.
    status: &'static str,
    /// The rung beneath acceptance, which trellis does not show for accepted entries.
    ladder: &'static str,
    accepted: bool,
    flags: Vec<String>,
    hashes: Option<HashesJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Clone, Serialize)]
struct HashesJson {
    formal: String,
    test: Option<String>,
    prose: String,
    /// The `soil_hash` the `.soil` files give now (what a re-lowering records); `null`
    /// when it cannot be computed (not a function, no `.soil`, or one that does not
    /// parse).
    soil: Option<String>,
}

/// Why `def`'s sidecar or spec cannot be taken in, naming the file: a definition with such
/// an error and no sidecar is `unreadable`.
pub fn input_error(db: &Database, def: Definition) -> Option<String> {
    match engine::parsed_sidecar(db, def) {
        Some(Err(e)) => Some(format!("{}.lock: {e}", def.path(db))),
        _ => match engine::tr_summary(db, def) {
            Some(Err(e)) => Some(format!("{}.tr: {}", def.path(db), e.message)),
            _ => None,
        },
    }
}

fn def_json(db: &Database, def: Definition) -> DefJson {
    let sidecar = engine::sidecar_of(db, def);
    let error = input_error(db, def);
    let accepted = sidecar.is_some_and(|s| s.accepted);
    let ladder = engine::ladder(db, def).as_str();
    let flags = flag_names(db, def);
    DefJson {
        path: def.path(db).clone(),
        kind: refresh::kind_of(db, def).map(|k| k.as_str()),
        status: if error.is_some() && sidecar.is_none() {
            "unreadable"
        } else if accepted {
            "accepted"
        } else {
            ladder
        },
        ladder,
        accepted,
        flags,
        hashes: engine::spec_hashes(db, def).map(|h| HashesJson {
            formal: h.formal.to_string(),
            test: h.test.map(|t| t.to_string()),
            prose: h.prose.to_string(),
            soil: soil_hash::computed_soil_hash(db, def).map(|h| h.to_string()),
        }),
        error,
    }
}

/// `status`'s table, or its JSON with `json`.
pub fn status(out: &mut dyn Write, root: &Root, defs: &[Definition], json: bool) -> io::Result<()> {
    if json {
        return status_json(out, root, defs);
    }
    let rows: Vec<DefJson> = defs.iter().map(|&d| def_json(&root.db, d)).collect();
    let width = rows.iter().map(|r| r.path.len()).max().unwrap_or(0);
    for r in &rows {
        let flags = if r.flags.is_empty() {
            String::new()
        } else {
            format!("  [{}]", r.flags.join(", "))
        };
        writeln!(
            out,
            "{:<width$}  {:<8}  {:<10}{}{}",
            r.path,
            r.kind.unwrap_or("?"),
            // The rung, with acceptance beside it rather than in its place.
            if r.status == "unreadable" {
                r.status
            } else {
                r.ladder
            },
            if r.accepted { "  accepted" } else { "" },
            flags
        )?;
        if let Some(e) = &r.error {
            writeln!(out, "{:<width$}  error: {e}", "")?;
        }
    }
    Ok(())
}

/// The node's status colour: green verified/tested, yellow typed, red error/partial/
/// unlowered, grey otherwise (helpers, external files).
fn colour(root: &Root, id: &str, kind: NodeKind) -> &'static str {
    if kind != NodeKind::Definition {
        return "#dddddd";
    }
    let Some(def) = engine::def_index(&root.db).get(id) else {
        return "#ffffff";
    };
    match engine::ladder(&root.db, def) {
        Ladder::Verified => "#7fd67f",
        Ladder::Tested | Ladder::Ok => "#b8e6a0",
        Ladder::Typed => "#f3e48a",
        Ladder::Partial | Ladder::Error => "#f08a8a",
        Ladder::Unlowered | Ladder::Unlocked | Ladder::Unchecked => "#f5c28a",
    }
}

/// A definition's flags as printed, each once (a flag raised by several callees or
/// oracles is one flag).
fn flag_names(db: &Database, def: Definition) -> Vec<String> {
    let mut names: Vec<String> = engine::flags(db, def).iter().map(|r| r.name()).collect();
    names.dedup();
    names
}

fn status_of(root: &Root, id: &str) -> String {
    engine::def_index(&root.db)
        .get(id)
        .map(|d| {
            let mut s = engine::ladder(&root.db, d).as_str().to_string();
            if engine::sidecar_of(&root.db, d).is_some_and(|s| s.accepted) {
                s.push_str(", accepted");
            }
            // Stale flags show in every format, not only in `status`.
            let flags = flag_names(&root.db, d);
            if !flags.is_empty() {
                s.push_str(&format!(" [{}]", flags.join(", ")));
            }
            s
        })
        .unwrap_or_default()
}

/// A Graphviz double-quoted string: quotes and backslashes escaped, and each line break
/// written `\n`, which Graphviz draws as a new centred line (Rust's `{:?}` doubled the
/// backslash, and the label showed a literal `\n`).
fn dot_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub fn dot(root: &Root, g: &DepGraph) -> String {
    let mut out = String::from(
        "digraph soil {\n  rankdir=LR;\n  node [shape=box, style=filled, fontname=\"monospace\"];\n",
    );
    for n in g.nodes() {
        let label = match n.kind {
            NodeKind::Definition => format!("{}\n{}", n.id, status_of(root, &n.id)),
            _ => n.id.clone(),
        };
        let shape = match n.kind {
            NodeKind::Definition => "box",
            NodeKind::Helper => "ellipse",
            NodeKind::External => "note",
            NodeKind::Missing => "octagon",
        };
        let _ = writeln!(
            out,
            "  {} [label={}, shape={shape}, fillcolor={}];",
            dot_string(&n.id),
            dot_string(&label),
            dot_string(colour(root, &n.id, n.kind))
        );
    }
    for (a, kind, b) in g.edge_list() {
        let style = match kind {
            EdgeKind::Call => "solid",
            EdgeKind::Oracle => "dashed",
            EdgeKind::External => "dotted",
            EdgeKind::Helper => "bold",
        };
        let _ = writeln!(
            out,
            "  {} -> {} [label={}, style={style}];",
            dot_string(&a),
            dot_string(&b),
            dot_string(kind.as_str())
        );
    }
    out.push_str("}\n");
    out
}

pub fn mermaid(root: &Root, g: &DepGraph) -> String {
    let ids: BTreeMap<&str, String> = g
        .nodes()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), format!("n{i}")))
        .collect();
    let mut out = String::from("flowchart LR\n");
    for n in g.nodes() {
        let label = match n.kind {
            NodeKind::Definition => format!("{}<br/>{}", n.id, status_of(root, &n.id)),
            _ => n.id.clone(),
        };
        let _ = writeln!(
            out,
            "  {}[\"{}\"]",
            ids[n.id.as_str()],
            label.replace('"', "#quot;")
        );
    }
    for (a, kind, b) in g.edge_list() {
        // Mermaid has three strokes: solid calls, bold helpers (as in dot), dotted for
        // the oracle and external edges that dot tells apart as dashed and dotted.
        let arrow = match kind {
            EdgeKind::Call => "-->",
            EdgeKind::Helper => "==>",
            EdgeKind::Oracle | EdgeKind::External => "-.->",
        };
        let _ = writeln!(
            out,
            "  {} {arrow}|{}| {}",
            ids[a.as_str()],
            kind.as_str(),
            ids[b.as_str()]
        );
    }
    for n in g.nodes() {
        let _ = writeln!(
            out,
            "  style {} fill:{}",
            ids[n.id.as_str()],
            colour(root, &n.id, n.kind)
        );
    }
    out
}

pub fn graph_json(root: &Root, g: &DepGraph) -> String {
    let nodes: Vec<_> = g
        .nodes()
        .map(|n| {
            serde_json::json!({
                "id": n.id,
                "kind": format!("{:?}", n.kind).to_lowercase(),
                "status": (n.kind == NodeKind::Definition).then(|| status_of(root, &n.id)),
            })
        })
        .collect();
    let edges: Vec<_> = g
        .edge_list()
        .into_iter()
        .map(|(a, k, b)| serde_json::json!({"from": a, "kind": k.as_str(), "to": b}))
        .collect();
    let mut text =
        serde_json::to_string_pretty(&serde_json::json!({"nodes": nodes, "edges": edges}))
            .expect("serialises");
    text.push('\n');
    text
}

pub fn impact(
    out: &mut dyn Write,
    target: &str,
    reached: &[Reached],
    json: bool,
) -> io::Result<()> {
    if json {
        let rows: Vec<_> = reached
            .iter()
            .map(|r| {
                serde_json::json!({
                    "def": r.def,
                    "effect": r.effect,
                    "via": r.via.as_ref().map(|(a, k, b)| serde_json::json!({"from": a, "kind": k.as_str(), "to": b})),
                })
            })
            .collect();
        let text =
            serde_json::to_string_pretty(&serde_json::json!({"target": target, "reached": rows}))
                .expect("serialises");
        return writeln!(out, "{text}");
    }
    if reached.is_empty() {
        writeln!(out, "{target}: the change reaches nothing")?;
    }
    for r in reached {
        match &r.via {
            Some((a, k, b)) => writeln!(
                out,
                "{}: {}  (via {a} -{}-> {b})",
                r.def,
                r.effect,
                k.as_str()
            )?,
            None => writeln!(out, "{}: {}", r.def, r.effect)?,
        }
    }
    Ok(())
}

pub fn why(out: &mut dyn Write, root: &Root, def: Definition, json: bool) -> io::Result<()> {
    let chains = graph::why(&root.db, def);
    let path = def.path(&root.db);
    if json {
        let rows: Vec<_> = chains
            .iter()
            .map(|chain| {
                chain
                    .iter()
                    .map(|s| {
                        serde_json::json!({
                            "def": s.def,
                            "flag": s.reason.flag.as_str(),
                            "other": s.reason.other,
                            "recorded": s.reason.recorded,
                            "current": s.reason.current,
                            "detail": s.reason.detail,
                        })
                    })
                    .collect::<Vec<_>>()
            })
            .collect();
        let text = serde_json::to_string_pretty(&serde_json::json!({"def": path, "chains": rows}))
            .expect("serialises");
        return writeln!(out, "{text}");
    }
    if chains.is_empty() {
        writeln!(out, "{path}: no flags; nothing is stale")?;
    }
    // A long chain shows its start and its cause, indented at most so deep: the output
    // stays linear in the chain (`--json` has every step).
    const SHOWN: usize = 12;
    for chain in &chains {
        let first = &chain[0];
        writeln!(out, "{}: {}", first.reason.flag, first.reason.detail)?;
        for (i, step) in chain.iter().enumerate() {
            if chain.len() > 2 * SHOWN && (SHOWN..chain.len() - SHOWN).contains(&i) {
                if i == SHOWN {
                    let hidden = chain.len() - 2 * SHOWN;
                    writeln!(
                        out,
                        "  {}… {hidden} more steps (--json lists them)",
                        "  ".repeat(i)
                    )?;
                }
                continue;
            }
            let hashes = match (&step.reason.recorded, &step.reason.current) {
                (Some(r), Some(c)) => format!(" (recorded {}, now {})", short(r), short(c)),
                (Some(r), None) => format!(" (recorded {}, now none)", short(r)),
                _ => String::new(),
            };
            writeln!(
                out,
                "  {}{} [{}] {}{}",
                "  ".repeat(i.min(SHOWN)),
                step.def,
                step.reason.flag,
                step.reason.detail,
                hashes
            )?;
        }
    }
    Ok(())
}

fn short(hash: &str) -> &str {
    let end = hash.len().min("sha256:".len() + 12);
    &hash[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &str, flags: &[&str], error: bool) -> DefJson {
        DefJson {
            path: path.into(),
            kind: Some("function"),
            status: "typed",
            ladder: "typed",
            accepted: false,
            flags: flags.iter().map(|f| f.to_string()).collect(),
            hashes: (!error).then(|| HashesJson {
                formal: "sha256:aa".into(),
                test: None,
                prose: "sha256:bb".into(),
                soil: Some("sha256:cc".into()),
            }),
            error: error.then(|| "at `spec` (line 2, column 3): \"x\"".into()),
        }
    }

    /// The streamed document is serde's pretty one, at every window length and with no
    /// rows at all.
    #[test]
    fn the_streamed_status_is_the_serde_status() {
        #[derive(Serialize)]
        struct Status {
            defs: Vec<DefJson>,
        }
        let rows = [
            row("a/b", &[], false),
            row("a/c", &["formal-stale", "callee-changed:a/b"], false),
            row("d", &[], true),
        ];
        for n in 0..=rows.len() {
            let defs = rows[..n].to_vec();
            let want = serde_json::to_string_pretty(&Status { defs: defs.clone() }).unwrap() + "\n";
            for window in [1, 2, 8192] {
                let mut got = Vec::new();
                write_status_json(&mut got, defs.iter(), window, (), |(), r| (*r).clone()).unwrap();
                assert_eq!(
                    String::from_utf8(got).unwrap(),
                    want,
                    "{n} rows, window {window}"
                );
            }
        }
    }
}
