//! One reader per object of the sidecar format, from the top object down: which keys
//! it has, which it may have for the entry's kind, and what each holds.

use super::super::json::{Node, Value};
use super::super::{
    AppliedDecision, Author, BlockAuthor, Checks, ClauseMap, ClauseState, DefKind, Ffi, FfiTrust,
    LOCK_FORMAT, Lowering, LoweringDecisions, LoweringProvenance, NameHash, Oracle, Origin,
    Present, RefinementSummary, Refinements, Scalar, Sidecar, Spec, SpecHashes, Termination,
    TestResult, TestRow, Tier, TypeCheck, Versions,
};
use super::values::{
    Fields, array, boolean, count, exact, hash, keyword, map, nonempty, nullable, string,
};
use super::{Path, Read, mismatch, one_of, problem};

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

pub(super) fn top(root: &Node) -> Read<Sidecar> {
    let path = &Path::ROOT;
    // A sidecar of another format may have any shape; say so before any key complaint.
    if let Value::Object(members) = &root.value
        && let Some(m) = members.iter().find(|m| m.key == "lock_format")
        && let Value::Number(n) = &m.value.value
        && n.parse::<u32>() != Ok(LOCK_FORMAT)
    {
        return Err(problem(
            m.value.start,
            &path.key("lock_format"),
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
        ffi: f.opt("ffi", ffi)?.map(Box::new),
        cycle_hash: cycle_hash.flatten(),
        accepted: f.req("accepted", boolean)?,
        present,
    })
}

fn versions(node: &Node, path: &Path) -> Read<Versions> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, "an object of tool versions"));
    };
    exact(members.iter().map(|m| {
        let p = path.key(&m.key);
        if m.key.is_empty() {
            return Err(problem(m.key_start, &p, "empty tool name"));
        }
        Ok((m.key.clone().into(), string(&m.value, &p)?))
    }))
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

fn spec(node: &Node, path: &Path, kind: DefKind) -> Read<Spec> {
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

fn spec_hashes(node: &Node, path: &Path, kind: DefKind) -> Read<SpecHashes> {
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

fn block_author(node: &Node, path: &Path) -> Read<BlockAuthor> {
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

fn lowering(node: &Node, path: &Path) -> Read<Lowering> {
    let f = Fields::new(node, path, LOWERING_KEYS, "a lowering object or null")?;
    Ok(Lowering {
        soil_hash: f.req("soil_hash", hash)?,
        provenance: f.req::<LoweringProvenance>("provenance", keyword)?,
        provider: f.req("provider", nullable(nonempty))?,
        model: f.req("model", nullable(nonempty))?,
        private_helpers: f.req("private_helpers", |n, p| array(n, p, name_hash))?,
        calls: f.req("calls", |n, p| array(n, p, name_hash))?,
        decisions: f.opt("decisions", lowering_decisions)?.map(Box::new),
    })
}

fn name_hash(node: &Node, path: &Path) -> Read<NameHash> {
    let f = Fields::new(node, path, &["name", "hash"], "a {name, hash} object")?;
    Ok(NameHash {
        name: f.req("name", nonempty)?,
        hash: f.req("hash", hash)?,
    })
}

fn lowering_decisions(node: &Node, path: &Path) -> Read<LoweringDecisions> {
    let f = Fields::new(node, path, &["scope_hash", "applied"], "a decisions object")?;
    Ok(LoweringDecisions {
        scope_hash: f.req("scope_hash", hash)?,
        applied: f.req("applied", |n, p| array(n, p, applied_decision))?,
    })
}

fn applied_decision(node: &Node, path: &Path) -> Read<AppliedDecision> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, "an object"));
    };
    exact(members.iter().map(|m| {
        let p = path.key(&m.key);
        let value = match &m.value.value {
            Value::Null => Scalar::Null,
            Value::Bool(b) => Scalar::Bool(*b),
            Value::Number(n) => Scalar::Number((*n).to_owned()),
            Value::String(s) => Scalar::String(s.clone().into_owned()),
            Value::Array(_) | Value::Object(_) => {
                return Err(mismatch(&m.value, &p, "a string, number, boolean or null"));
            }
        };
        Ok((m.key.clone().into_owned(), value))
    }))
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

fn checks(node: &Node, path: &Path, kind: DefKind) -> Read<Checks> {
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
                .map(|clauses| Refinements::Clauses(clauses.into())),
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
            .map(ClauseMap::from)
        })?,
    })
}

const TEST_KEYS: &[&str] = &["name", "tier", "mode", "origin", "result"];

fn test_row(node: &Node, path: &Path) -> Read<TestRow> {
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

fn oracle(node: &Node, path: &Path) -> Read<Oracle> {
    let Value::Object(members) = &node.value else {
        return Err(mismatch(node, path, "an oracle object"));
    };
    let Some(kind) = members.iter().find(|m| m.key == "kind") else {
        return Err(problem(node.start, path, "missing key `kind`"));
    };
    let kind_path = path.key("kind");
    let kind_name: String = string(&kind.value, &kind_path)?;
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

fn ffi(node: &Node, path: &Path) -> Read<Ffi> {
    let keys = &["trust", "symbol", "symbol_hash", "package"];
    let f = Fields::new(node, path, keys, "an ffi object")?;
    Ok(Ffi {
        trust: f.req::<FfiTrust>("trust", keyword)?,
        symbol: f.req("symbol", nonempty)?,
        symbol_hash: f.req("symbol_hash", hash)?,
        package: f.req("package", nonempty)?,
    })
}
