//! Builds the model from the positioned JSON tree, checking every key and value.

use super::json::{self, Member, Node, Seg, Value, render_path};
use super::{
    AppliedDecision, Author, BlockAuthor, Checks, ClauseState, DefKind, Ffi, FfiTrust, LOCK_FORMAT,
    Lowering, LoweringDecisions, LoweringProvenance, MAX_HASH_HEX_DIGITS, MIN_HASH_HEX_DIGITS,
    NameHash, Oracle, Origin, Present, RefinementSummary, Refinements, Scalar, Sidecar,
    SidecarError, Spec, SpecHashes, Termination, TestResult, TestRow, Tier, TypeCheck, Versions,
    is_hash,
};
use crate::text::LineIndex;
use std::collections::BTreeMap;

/// A string value from a closed set; implemented by `keyword_enum!`.
pub(super) trait Keyword: Sized {
    /// What the value is called in "unknown …" messages.
    const WHAT: &'static str;
    fn spellings() -> Vec<&'static str>;
    fn from_str(text: &str) -> Option<Self>;
}

/// An error before line and column are known: the tree holds byte offsets, and the line
/// index is only worth building once something went wrong.
struct Problem {
    offset: usize,
    path: Vec<Seg>,
    message: String,
}

type Read<T> = Result<T, Problem>;

pub(super) fn sidecar(text: &str) -> Result<Sidecar, SidecarError> {
    let problem = match json::parse(text) {
        Ok(root) => match top(&root) {
            Ok(sidecar) => return Ok(sidecar),
            Err(problem) => problem,
        },
        Err(e) => Problem {
            offset: e.offset,
            path: e.path,
            message: e.message,
        },
    };
    let at = LineIndex::new(text).line_col(text, problem.offset);
    Err(SidecarError {
        path: render_path(&problem.path),
        line: Some(at.line as usize),
        column: Some(at.column as usize),
        message: problem.message,
    })
}

fn problem(offset: usize, path: &[Seg], message: impl Into<String>) -> Problem {
    Problem {
        offset,
        path: path.to_vec(),
        message: message.into(),
    }
}

fn child(path: &[Seg], key: &str) -> Vec<Seg> {
    let mut p = path.to_vec();
    p.push(Seg::Key(key.to_owned()));
    p
}

fn index(path: &[Seg], i: usize) -> Vec<Seg> {
    let mut p = path.to_vec();
    p.push(Seg::Index(i));
    p
}

/// `a`, `a or b`, `a, b or c`.
fn one_of(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [only] => (*only).to_owned(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

fn mismatch(node: &Node, path: &[Seg], expected: &str) -> Problem {
    problem(
        node.start,
        path,
        format!("expected {expected}, found {}", node.value.describe()),
    )
}

/// An object's members, checked against the keys it may have.
struct Fields<'a> {
    members: &'a [Member],
    start: usize,
    path: &'a [Seg],
}

impl<'a> Fields<'a> {
    fn new(node: &'a Node, path: &'a [Seg], allowed: &[&str], what: &str) -> Read<Fields<'a>> {
        let Value::Object(members) = &node.value else {
            return Err(mismatch(node, path, what));
        };
        for m in members {
            if !allowed.contains(&m.key.as_str()) {
                return Err(problem(
                    m.key_start,
                    &child(path, &m.key),
                    format!(
                        "unknown key `{}`; expected {}",
                        m.key.escape_debug(),
                        one_of(allowed)
                    ),
                ));
            }
        }
        Ok(Fields {
            members,
            start: node.start,
            path,
        })
    }

    fn member(&self, key: &str) -> Option<&'a Member> {
        self.members.iter().find(|m| m.key == key)
    }

    fn get(&self, key: &str) -> Option<&'a Node> {
        self.member(key).map(|m| &m.value)
    }

    fn required(&self, key: &str) -> Read<&'a Node> {
        self.get(key)
            .ok_or_else(|| problem(self.start, self.path, format!("missing key `{key}`")))
    }

    /// Reads a required key with `read`, which receives the key's path.
    fn req<T>(&self, key: &str, read: impl FnOnce(&Node, &[Seg]) -> Read<T>) -> Read<T> {
        let node = self.required(key)?;
        read(node, &child(self.path, key))
    }

    /// Reads an optional key: `None` when absent.
    fn opt<T>(&self, key: &str, read: impl FnOnce(&Node, &[Seg]) -> Read<T>) -> Read<Option<T>> {
        self.get(key)
            .map(|node| read(node, &child(self.path, key)))
            .transpose()
    }

    /// Refuses a key the entry's kind may not carry, pointing at the key.
    fn forbid(&self, key: &str, why: &str) -> Read<()> {
        match self.member(key) {
            Some(m) => Err(problem(
                m.key_start,
                &child(self.path, key),
                format!("unexpected key `{key}`: {why}"),
            )),
            None => Ok(()),
        }
    }
}

fn string(node: &Node, path: &[Seg]) -> Read<String> {
    match &node.value {
        Value::String(s) => Ok(s.clone()),
        _ => Err(mismatch(node, path, "a string")),
    }
}

fn nonempty(node: &Node, path: &[Seg]) -> Read<String> {
    let s = string(node, path)?;
    if s.is_empty() {
        return Err(problem(node.start, path, "expected a non-empty string"));
    }
    Ok(s)
}

fn hash(node: &Node, path: &[Seg]) -> Read<String> {
    let s = string(node, path)?;
    if !is_hash(&s) {
        return Err(problem(
            node.start,
            path,
            format!(
                "`{}` is not a hash; expected `sha256:` followed by {MIN_HASH_HEX_DIGITS} to \
                 {MAX_HASH_HEX_DIGITS} lowercase hex digits",
                s.escape_debug()
            ),
        ));
    }
    Ok(s)
}

fn boolean(node: &Node, path: &[Seg]) -> Read<bool> {
    match node.value {
        Value::Bool(b) => Ok(b),
        _ => Err(mismatch(node, path, "`true` or `false`")),
    }
}

fn count(node: &Node, path: &[Seg]) -> Read<u32> {
    match &node.value {
        Value::Number(n) => n.parse::<u32>().map_err(|_| {
            problem(
                node.start,
                path,
                format!("expected a whole number from 0 to {}, found {n}", u32::MAX),
            )
        }),
        _ => Err(mismatch(node, path, "a whole number")),
    }
}

fn keyword<K: Keyword>(node: &Node, path: &[Seg]) -> Read<K> {
    let spellings = K::spellings();
    let Value::String(s) = &node.value else {
        return Err(mismatch(
            node,
            path,
            &format!("one of {}", one_of(&spellings)),
        ));
    };
    K::from_str(s).ok_or_else(|| {
        problem(
            node.start,
            path,
            format!(
                "unknown {} `{}`; expected {}",
                K::WHAT,
                s.escape_debug(),
                one_of(&spellings)
            ),
        )
    })
}

/// `null` as `None`, anything else through `read`.
fn nullable<T>(
    read: impl FnOnce(&Node, &[Seg]) -> Read<T>,
) -> impl FnOnce(&Node, &[Seg]) -> Read<Option<T>> {
    move |node, path| match node.value {
        Value::Null => Ok(None),
        _ => read(node, path).map(Some),
    }
}

fn array<T>(node: &Node, path: &[Seg], read: impl Fn(&Node, &[Seg]) -> Read<T>) -> Read<Vec<T>> {
    let Value::Array(elements) = &node.value else {
        return Err(mismatch(node, path, "an array"));
    };
    elements
        .iter()
        .enumerate()
        .map(|(i, e)| read(e, &index(path, i)))
        .collect()
}

/// An object used as a map; keys are unique already (the JSON reader refuses duplicates).
fn map<T>(
    node: &Node,
    path: &[Seg],
    what: &str,
    read: impl Fn(&Node, &[Seg]) -> Read<T>,
) -> Read<BTreeMap<String, T>> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, what));
    };
    let mut out = BTreeMap::new();
    for m in members {
        let p = child(path, &m.key);
        if m.key.is_empty() {
            return Err(problem(m.key_start, &p, "empty key"));
        }
        out.insert(m.key.clone(), read(&m.value, &p)?);
    }
    Ok(out)
}

const TOP_KEYS: &[&str] = &[
    "lock_format",
    "name",
    "kind",
    "versions",
    "spec",
    "lowering",
    "checks",
    "tests",
    "oracles",
    "ffi",
    "cycle_hash",
    "accepted",
];

fn top(root: &Node) -> Read<Sidecar> {
    let path: &[Seg] = &[];
    // A sidecar of another format may have any shape; say so before any key complaint.
    if let Value::Object(members) = &root.value
        && let Some(m) = members.iter().find(|m| m.key == "lock_format")
        && let Value::Number(n) = &m.value.value
        && n.parse::<u32>() != Ok(LOCK_FORMAT)
    {
        return Err(problem(
            m.value.start,
            &child(path, "lock_format"),
            format!("unsupported lock_format {n}; this soil-lock reads lock_format {LOCK_FORMAT}"),
        ));
    }
    let f = Fields::new(root, path, TOP_KEYS, "a sidecar object")?;
    let lock_format = f.req("lock_format", count)?;
    let kind: DefKind = f.req("kind", keyword)?;
    if kind != DefKind::Type {
        f.forbid("cycle_hash", "only type entries carry a cycle hash")?;
    }
    if kind != DefKind::Function {
        f.forbid("ffi", "only function entries are bindings")?;
    }
    // Keys trellis writes only for some kinds (see `Present`): absent is their empty
    // value, and the shape is kept for the write.
    let lowering = f.opt("lowering", nullable(lowering))?;
    let checks = f.opt("checks", |n, p| checks(n, p, kind))?;
    let tests = f.opt("tests", |n, p| array(n, p, test_row))?;
    let oracles = f.opt("oracles", |n, p| array(n, p, oracle))?;
    let cycle_hash = f.opt("cycle_hash", nullable(hash))?;
    let present = Present {
        lowering: lowering.is_some(),
        checks: checks.is_some(),
        tests: tests.is_some(),
        oracles: oracles.is_some(),
        cycle_hash: cycle_hash.is_some(),
    };
    Ok(Sidecar {
        lock_format,
        name: f.req("name", nonempty)?,
        kind,
        versions: f.req("versions", versions)?,
        spec: f.req("spec", |n, p| spec(n, p, kind))?,
        lowering: lowering.flatten(),
        checks: checks.unwrap_or_else(Checks::absent),
        tests: tests.unwrap_or_default(),
        oracles: oracles.unwrap_or_default(),
        ffi: f.opt("ffi", ffi)?,
        cycle_hash: cycle_hash.flatten(),
        accepted: f.req("accepted", boolean)?,
        present,
    })
}

fn versions(node: &Node, path: &[Seg]) -> Read<Versions> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, "an object of tool versions"));
    };
    members
        .iter()
        .map(|m| {
            let p = child(path, &m.key);
            if m.key.is_empty() {
                return Err(problem(m.key_start, &p, "empty tool name"));
            }
            Ok((m.key.clone(), string(&m.value, &p)?))
        })
        .collect::<Read<_>>()
        .map(Versions)
}

const SPEC_KEYS: &[&str] = &[
    "provenance",
    "hashes",
    "prose_state",
    "blocks",
    "pinned",
    "escape_hatches",
    "decisions",
];

fn spec(node: &Node, path: &[Seg], kind: DefKind) -> Read<Spec> {
    let f = Fields::new(node, path, SPEC_KEYS, "a spec object")?;
    if matches!(kind, DefKind::Function | DefKind::Type) {
        f.forbid(
            "decisions",
            "only module and project entries carry decisions",
        )?;
    }
    Ok(Spec {
        provenance: f.req("provenance", keyword)?,
        hashes: f.req("hashes", |n, p| spec_hashes(n, p, kind))?,
        prose_state: f.req("prose_state", keyword)?,
        blocks: f.req("blocks", |n, p| array(n, p, block_author))?,
        pinned: f.req("pinned", boolean)?,
        escape_hatches: f.req("escape_hatches", |n, p| array(n, p, nonempty))?,
        decisions: f.opt("decisions", |n, p| {
            map(n, p, "an object of decisions", string)
        })?,
    })
}

fn spec_hashes(node: &Node, path: &[Seg], kind: DefKind) -> Read<SpecHashes> {
    let f = Fields::new(
        node,
        path,
        &["formal", "test", "prose"],
        "an object of hashes",
    )?;
    let test = f.req("test", |n, p| match (kind, &n.value) {
        (DefKind::Function, Value::Null) => Err(problem(
            n.start,
            p,
            "a function entry has a test hash; `null` is for type, module and project entries",
        )),
        (DefKind::Function, _) => hash(n, p).map(Some),
        (_, Value::Null) => Ok(None),
        (_, _) => Err(problem(
            n.start,
            p,
            format!(
                "a {} entry has no test hash; expected null, found {}",
                kind.as_str(),
                n.value.describe()
            ),
        )),
    })?;
    Ok(SpecHashes {
        formal: f.req("formal", hash)?,
        test,
        prose: f.req("prose", hash)?,
    })
}

fn block_author(node: &Node, path: &[Seg]) -> Read<BlockAuthor> {
    let f = Fields::new(node, path, &["block", "author"], "a block object")?;
    Ok(BlockAuthor {
        block: f.req("block", nonempty)?,
        author: f.req::<Author>("author", keyword)?,
    })
}

const LOWERING_KEYS: &[&str] = &[
    "soil_hash",
    "provenance",
    "provider",
    "model",
    "private_helpers",
    "calls",
    "decisions",
];

fn lowering(node: &Node, path: &[Seg]) -> Read<Lowering> {
    let f = Fields::new(node, path, LOWERING_KEYS, "a lowering object or null")?;
    Ok(Lowering {
        soil_hash: f.req("soil_hash", hash)?,
        provenance: f.req::<LoweringProvenance>("provenance", keyword)?,
        provider: f.req("provider", nullable(nonempty))?,
        model: f.req("model", nullable(nonempty))?,
        private_helpers: f.req("private_helpers", |n, p| array(n, p, name_hash))?,
        calls: f.req("calls", |n, p| array(n, p, name_hash))?,
        decisions: f.opt("decisions", lowering_decisions)?,
    })
}

fn name_hash(node: &Node, path: &[Seg]) -> Read<NameHash> {
    let f = Fields::new(node, path, &["name", "hash"], "a {name, hash} object")?;
    Ok(NameHash {
        name: f.req("name", nonempty)?,
        hash: f.req("hash", hash)?,
    })
}

fn lowering_decisions(node: &Node, path: &[Seg]) -> Read<LoweringDecisions> {
    let f = Fields::new(node, path, &["scope_hash", "applied"], "a decisions object")?;
    Ok(LoweringDecisions {
        scope_hash: f.req("scope_hash", hash)?,
        applied: f.req("applied", |n, p| array(n, p, applied_decision))?,
    })
}

fn applied_decision(node: &Node, path: &[Seg]) -> Read<AppliedDecision> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, "an object"));
    };
    members
        .iter()
        .map(|m| {
            let p = child(path, &m.key);
            let value = match &m.value.value {
                Value::Null => Scalar::Null,
                Value::Bool(b) => Scalar::Bool(*b),
                Value::Number(n) => Scalar::Number(n.clone()),
                Value::String(s) => Scalar::String(s.clone()),
                Value::Array(_) | Value::Object(_) => {
                    return Err(mismatch(&m.value, &p, "a string, number, boolean or null"));
                }
            };
            Ok((m.key.clone(), value))
        })
        .collect::<Read<_>>()
        .map(AppliedDecision)
}

const CHECKS_KEYS: &[&str] = &[
    "exports",
    "types",
    "termination",
    "refinements",
    "invariants",
    "demoted",
    "holes",
];

fn checks(node: &Node, path: &[Seg], kind: DefKind) -> Read<Checks> {
    let f = Fields::new(node, path, CHECKS_KEYS, "a checks object")?;
    if kind == DefKind::Type {
        f.forbid("refinements", "type entries record `invariants` instead")?;
    } else {
        f.forbid("invariants", "only type entries carry invariants")?;
    }
    let refinements = f
        .opt("refinements", |n, p| match &n.value {
            Value::String(_) => keyword::<RefinementSummary>(n, p).map(Refinements::Prototype),
            Value::Object(_) => map(n, p, "an object of clause states", keyword::<ClauseState>)
                .map(Refinements::Clauses),
            _ => Err(mismatch(
                n,
                p,
                "one of proven, demoted or none, or an object of clause states",
            )),
        })?
        .unwrap_or(Refinements::Absent);
    if !matches!(refinements, Refinements::Prototype(_)) {
        f.forbid(
            "demoted",
            "the `demoted` list goes with the one-word `refinements` of the prototype shape; \
             a clause map records demotion as `runtime`",
        )?;
    }
    if kind != DefKind::Module {
        f.forbid("exports", "only a module header's checks record `exports`")?;
    }
    let exports = f.opt::<TypeCheck>("exports", keyword)?;
    // A module header records `exports` alone; every other entry its `types`.
    let types = match exports {
        Some(_) => f.opt::<TypeCheck>("types", keyword)?,
        None => Some(f.req::<TypeCheck>("types", keyword)?),
    };
    Ok(Checks {
        types,
        exports,
        termination: f.opt::<Termination>("termination", keyword)?,
        refinements,
        demoted: f.opt("demoted", |n, p| array(n, p, nonempty))?,
        holes: f.opt("holes", count)?,
        invariants: f.opt("invariants", |n, p| {
            map(
                n,
                p,
                "an object of invariant states",
                keyword::<ClauseState>,
            )
        })?,
    })
}

const TEST_KEYS: &[&str] = &["name", "tier", "mode", "origin", "result"];

fn test_row(node: &Node, path: &[Seg]) -> Read<TestRow> {
    let f = Fields::new(node, path, TEST_KEYS, "a test object")?;
    Ok(TestRow {
        name: f.req("name", nonempty)?,
        tier: f.req::<Tier>("tier", keyword)?,
        mode: f.req("mode", nonempty)?,
        origin: f.req::<Origin>("origin", keyword)?,
        result: f.req::<TestResult>("result", keyword)?,
    })
}

const ORACLE_KINDS: &[&str] = &["reference", "definition", "cli"];

fn oracle(node: &Node, path: &[Seg]) -> Read<Oracle> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, "an oracle object"));
    };
    let Some(kind) = members.iter().find(|m| m.key == "kind") else {
        return Err(problem(node.start, path, "missing key `kind`"));
    };
    let kind_path = child(path, "kind");
    let kind_name = string(&kind.value, &kind_path)?;
    match kind_name.as_str() {
        "reference" => {
            let f = Fields::new(node, path, &["kind", "path", "hash"], "an oracle object")?;
            Ok(Oracle::Reference {
                path: f.req("path", nonempty)?,
                hash: f.req("hash", hash)?,
            })
        }
        "definition" => {
            let f = Fields::new(
                node,
                path,
                &["kind", "name", "formal_hash"],
                "an oracle object",
            )?;
            Ok(Oracle::Definition {
                name: f.req("name", nonempty)?,
                formal_hash: f.req("formal_hash", hash)?,
            })
        }
        "cli" => {
            let f = Fields::new(node, path, &["kind", "command", "hash"], "an oracle object")?;
            Ok(Oracle::Cli {
                command: f.req("command", nonempty)?,
                hash: f.req("hash", hash)?,
            })
        }
        other => Err(problem(
            kind.value.start,
            &kind_path,
            format!(
                "unknown oracle kind `{}`; expected {}",
                other.escape_debug(),
                one_of(ORACLE_KINDS)
            ),
        )),
    }
}

fn ffi(node: &Node, path: &[Seg]) -> Read<Ffi> {
    let keys = &["trust", "symbol", "symbol_hash", "package"];
    let f = Fields::new(node, path, keys, "an ffi object")?;
    Ok(Ffi {
        trust: f.req::<FfiTrust>("trust", keyword)?,
        symbol: f.req("symbol", nonempty)?,
        symbol_hash: f.req("symbol_hash", hash)?,
        package: f.req("package", nonempty)?,
    })
}
