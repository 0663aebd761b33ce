use super::*;
use proptest::prelude::*;

const GOLDEN: &str = include_str!("../../../../fixtures/golden/cell_count/cell_count.lock");

fn h(c: char, n: usize) -> String {
    format!("sha256:{}", c.to_string().repeat(n))
}

fn read(text: &str) -> Sidecar {
    parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn assert_round_trip(text: &str) -> Sidecar {
    let sidecar = read(text);
    assert_eq!(to_canonical_string(&sidecar), text);
    sidecar
}

fn error(text: &str) -> SidecarError {
    match parse(text) {
        Ok(s) => panic!("expected an error, read {s:?}"),
        Err(e) => e,
    }
}

/// Replaces exactly one occurrence, so that a mutation cannot silently miss.
fn mutate(text: &str, from: &str, to: &str) -> String {
    assert_eq!(text.matches(from).count(), 1, "`{from}` is not unique");
    text.replacen(from, to, 1)
}

/// The 1-based line and column of the first occurrence of `needle`.
fn position_of(text: &str, needle: &str) -> (usize, usize) {
    let offset = text.find(needle).expect("needle present");
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap().chars().count() + 1;
    (line, column)
}

#[test]
fn golden_sidecar_round_trips_byte_for_byte() {
    let s = assert_round_trip(GOLDEN);
    assert_eq!(s.name, "cell_count");
    assert_eq!(s.kind, DefKind::Function);
    assert_eq!(s.versions.get("soil"), Some("0.1"));
    assert_eq!(s.spec.blocks.len(), 3);
    assert_eq!(s.spec.blocks[2].block, "test basics");
    let lowering = s.lowering.as_ref().unwrap();
    assert_eq!(lowering.provenance, LoweringProvenance::HumanVerified);
    assert_eq!(lowering.provider, None);
    assert_eq!(lowering.decisions.as_ref().unwrap().applied, vec![]);
    assert_eq!(s.checks.termination, Some(Termination::Verified));
    assert_eq!(
        s.checks.refinements,
        Refinements::Clauses(ClauseMap::from(BTreeMap::from([(
            "non-negative".to_owned(),
            ClauseState::Runtime
        )])))
    );
    assert_eq!(s.checks.holes, Some(0));
    assert_eq!(s.tests[2].origin, Origin::Derived);
    assert!(!s.accepted);
}

#[test]
fn non_canonical_layout_reads_to_the_same_sidecar() {
    // Compact, reordered keys, and escapes the writer does not use.
    let compact: String = GOLDEN.lines().map(str::trim_start).collect();
    let reordered = mutate(&compact, r#""kind": "function","#, "");
    let reordered = mutate(
        &reordered,
        r#""accepted": false}"#,
        "\"accepted\": false ,\r\n\t\"kind\" :\"function\" }",
    );
    let reordered = mutate(&reordered, r#""cell_count""#, r#""cell\u005fcount""#);
    assert_eq!(to_canonical_string(&read(&reordered)), GOLDEN);
}

/// The seed's prototype fragments as one sidecar: one-word `refinements` with its
/// `demoted` list, no `termination` or `holes`, no `lowering.decisions`, abbreviated
/// hashes, an agent provider and model.
const PROTOTYPE: &str = r#"{
  "lock_format": 1,
  "name": "median",
  "kind": "function",
  "versions": { "trellis": "0.1.0", "soil": "0.1" },
  "spec": {
    "provenance": "human",
    "hashes": {
      "formal": "sha256:9f2c41aa",
      "test": "sha256:41aa73c0",
      "prose": "sha256:c8172d99"
    },
    "prose_state": "fresh",
    "blocks": [
      { "block": "soil-sig", "author": "agent" },
      { "block": "test odd-length", "author": "human" }
    ],
    "pinned": false,
    "escape_hatches": []
  },
  "lowering": {
    "soil_hash": "sha256:77b04e12",
    "provenance": "agent",
    "provider": "claude-code",
    "model": "claude-opus-4-7",
    "private_helpers": [
      { "name": "_parse_cell", "hash": "sha256:3fe210bb" }
    ],
    "calls": [
      { "name": "sort_by", "hash": "sha256:aa90b1f3" }
    ]
  },
  "checks": {
    "types": "ok",
    "refinements": "demoted",
    "demoted": ["upper bound"]
  },
  "tests": [
    { "name": "odd-length#1", "tier": "expect", "mode": "sandboxed", "origin": "spec", "result": "pass" },
    { "name": "ensures lower bound", "tier": "property", "mode": "sandboxed", "origin": "derived", "result": "pass" },
    { "name": "real-read#1", "tier": "cram", "mode": "real", "origin": "spec", "result": "pass" }
  ],
  "oracles": [
    { "kind": "reference", "path": "ref/stats.py::median", "hash": "sha256:5e8f0b2a" },
    { "kind": "definition", "name": "sort_by", "formal_hash": "sha256:aa90b1f3" }
  ],
  "accepted": false
}
"#;

#[test]
fn prototype_shape_round_trips_byte_for_byte() {
    let s = assert_round_trip(PROTOTYPE);
    assert_eq!(
        s.checks.refinements,
        Refinements::Prototype(RefinementSummary::Demoted)
    );
    assert_eq!(s.checks.demoted, Some(vec!["upper bound".to_owned()]));
    assert_eq!(s.checks.termination, None);
    assert_eq!(s.checks.holes, None);
    let lowering = s.lowering.unwrap();
    assert_eq!(lowering.decisions, None);
    assert_eq!(lowering.model.as_deref(), Some("claude-opus-4-7"));
    assert_eq!(
        s.oracles[1],
        Oracle::Definition {
            name: "sort_by".to_owned(),
            formal_hash: "sha256:aa90b1f3".parse().unwrap()
        }
    );
    assert_eq!(s.oracles[0].recorded_hash().to_string(), "sha256:5e8f0b2a");
}

const BINDING: &str = r#"{
  "lock_format": 1,
  "name": "http_get",
  "kind": "function",
  "versions": {},
  "spec": {
    "provenance": "agent",
    "hashes": {
      "formal": "sha256:0123456789abcdef",
      "test": "sha256:fedcba9876543210",
      "prose": "sha256:00112233"
    },
    "prose_state": "review-suggested",
    "blocks": [],
    "pinned": true,
    "escape_hatches": ["net: fetches the URL it is given", "émoji 😀 \"quoted\"\ttab"]
  },
  "lowering": null,
  "checks": {
    "types": "error",
    "termination": "n/a",
    "refinements": {},
    "holes": 2
  },
  "tests": [
    { "name": "contract get", "tier": "contract", "mode": "replay", "origin": "derived", "result": "xpass" }
  ],
  "oracles": [
    { "kind": "cli", "command": "soil0 parse", "hash": "sha256:be77a0c1" }
  ],
  "ffi": {
    "trust": "contract",
    "symbol": "requests.get",
    "symbol_hash": "sha256:be77a0c1",
    "package": "/nix/store/a1b2…-python3.12-requests-2.32.3"
  },
  "accepted": false
}
"#;

#[test]
fn binding_with_ffi_round_trips_byte_for_byte() {
    let s = assert_round_trip(BINDING);
    assert_eq!(s.ffi.as_ref().unwrap().trust, FfiTrust::Contract);
    assert_eq!(s.tests[0].mode, "replay");
    assert_eq!(s.spec.escape_hatches[1], "émoji 😀 \"quoted\"\ttab");
    assert_eq!(s.lowering, None);
    assert_eq!(
        s.checks.refinements,
        Refinements::Clauses(ClauseMap::default())
    );
    assert_eq!(s.versions, Versions::default());
}

const TYPE_ENTRY: &str = r#"{
  "lock_format": 1,
  "name": "Interval",
  "kind": "type",
  "versions": { "soil": "0.1", "trellis": "0.1.0" },
  "spec": {
    "provenance": "human",
    "hashes": {
      "formal": "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      "test": null,
      "prose": "sha256:bbbbbbbb"
    },
    "prose_state": "fresh",
    "blocks": [
      { "block": "soil-type", "author": "human" },
      { "block": "invariant", "author": "agent" }
    ],
    "pinned": false,
    "escape_hatches": []
  },
  "lowering": {
    "soil_hash": "sha256:cccccccc",
    "provenance": "hand-edited",
    "provider": null,
    "model": null,
    "private_helpers": [],
    "calls": [
      { "name": "geometry/clamp", "hash": "sha256:dddddddd" }
    ],
    "decisions": {
      "scope_hash": "sha256:eeeeeeee",
      "applied": []
    }
  },
  "checks": {
    "types": "ok",
    "termination": "unverified",
    "invariants": {
      "lo <= hi": "proven",
      "non-empty": "trusted"
    },
    "holes": 0
  },
  "tests": [],
  "oracles": [],
  "cycle_hash": "sha256:ffffffff",
  "accepted": true
}
"#;

/// A clause map is the `BTreeMap` it replaced: sorted by label, the last state of a
/// repeated label kept, looked up by label.
#[test]
fn a_clause_map_reads_as_the_ordered_map_it_replaced() {
    let entries = [
        ("upper", ClauseState::Runtime),
        ("lower", ClauseState::Proven),
        ("upper", ClauseState::Trusted),
        ("mid dle", ClauseState::Proven),
    ]
    .map(|(l, s)| (l.to_owned(), s));
    let ordered: BTreeMap<String, ClauseState> = entries.iter().cloned().collect();
    let map: ClauseMap = entries.iter().cloned().collect();
    assert_eq!(map, ClauseMap::from(ordered.clone()));
    assert!(map.iter().eq(ordered.iter().map(|(l, s)| (l.as_str(), *s))));
    assert_eq!(map.iter().count(), 3);
    for label in ["lower", "mid dle", "upper", "absent", ""] {
        assert_eq!(map.get(label), ordered.get(label).copied(), "{label}");
    }
    assert!(ClauseMap::default().is_empty());
}

#[test]
fn type_entry_with_invariants_and_cycle_hash_round_trips() {
    let s = assert_round_trip(TYPE_ENTRY);
    assert_eq!(s.kind, DefKind::Type);
    assert_eq!(s.spec.hashes.test, None);
    assert_eq!(s.checks.refinements, Refinements::Absent);
    assert_eq!(
        s.checks
            .invariants
            .as_ref()
            .unwrap()
            .get("lo <= hi")
            .unwrap(),
        ClauseState::Proven
    );
    assert_eq!(
        s.cycle_hash.map(|h| h.to_string()).as_deref(),
        Some("sha256:ffffffff")
    );
    // Versions keep the file's order, not a sorted one.
    assert_eq!(s.versions.0[0].0, "soil");
}

const MODULE_ENTRY: &str = r#"{
  "lock_format": 1,
  "name": "csvstats",
  "kind": "module",
  "versions": { "trellis": "0.1.0" },
  "spec": {
    "provenance": "human",
    "hashes": {
      "formal": "sha256:12345678",
      "test": null,
      "prose": "sha256:87654321"
    },
    "prose_state": "fresh",
    "blocks": [
      { "block": "exports", "author": "human" },
      { "block": "decisions", "author": "human" }
    ],
    "pinned": false,
    "escape_hatches": [],
    "decisions": {
      "errors": "Result, never panics",
      "floats": "F64 only; NaN is an error"
    }
  },
  "lowering": {
    "soil_hash": "sha256:9abcdef0",
    "provenance": "prelude-fork",
    "provider": "claude-code",
    "model": null,
    "private_helpers": [],
    "calls": [],
    "decisions": {
      "scope_hash": "sha256:0fedcba9",
      "applied": [
        { "key": "errors", "hash": "sha256:11111111" },
        { "key": "floats", "weight": 1.50, "forced": false, "note": null },
        {}
      ]
    }
  },
  "checks": {
    "types": "ok"
  },
  "tests": [],
  "oracles": [],
  "accepted": false
}
"#;

#[test]
fn module_entry_with_decisions_round_trips() {
    let s = assert_round_trip(MODULE_ENTRY);
    let decisions = s.spec.decisions.as_ref().unwrap();
    assert_eq!(decisions["floats"], "F64 only; NaN is an error");
    let applied = &s
        .lowering
        .as_ref()
        .unwrap()
        .decisions
        .as_ref()
        .unwrap()
        .applied;
    assert_eq!(
        applied[1].0[1],
        ("weight".to_owned(), Scalar::Number("1.50".to_owned()))
    );
    assert_eq!(applied[2], AppliedDecision::default());
    assert_eq!(s.checks.refinements, Refinements::Absent);
}

#[test]
fn maps_are_written_sorted_whatever_the_file_order() {
    let unsorted = mutate(
        TYPE_ENTRY,
        "      \"lo <= hi\": \"proven\",\n      \"non-empty\": \"trusted\"\n",
        "      \"non-empty\": \"trusted\",\n      \"lo <= hi\": \"proven\"\n",
    );
    assert_eq!(to_canonical_string(&read(&unsorted)), TYPE_ENTRY);
}

fn sample_hashes(kind: DefKind) -> SpecHashes {
    SpecHashes {
        formal: h('1', 64).parse().unwrap(),
        test: (kind == DefKind::Function).then(|| h('2', 64).parse().unwrap()),
        prose: h('3', 64).parse().unwrap(),
    }
}

#[test]
fn defaults_are_unlowered_unaccepted_and_round_trip() {
    for &kind in DefKind::ALL {
        let blocks = vec![BlockAuthor {
            block: "soil-sig".into(),
            author: Author::Human,
        }];
        let versions = Versions(vec![("trellis".into(), "0.1.0".into())]);
        let s = default_for("thing", kind, sample_hashes(kind), blocks, versions);
        assert_eq!(s.lowering, None);
        assert!(!s.accepted);
        // Nothing checked yet: no `checks` key, as trellis creates them.
        assert!(!s.present.checks);
        let text = to_canonical_string(&s);
        assert!(!text.contains("\"checks\""), "{text}");
        assert_eq!(
            text.contains("\"lowering\""),
            kind == DefKind::Function,
            "{text}"
        );
        assert_eq!(
            text.contains("\"cycle_hash\": null"),
            kind == DefKind::Type,
            "{text}"
        );
        assert_eq!(read(&text), s, "{text}");
    }
}

#[test]
fn default_function_sidecar_text() {
    let s = default_for(
        "cell_count",
        DefKind::Function,
        sample_hashes(DefKind::Function),
        vec![BlockAuthor {
            block: "test basics".into(),
            author: Author::Agent,
        }],
        Versions(vec![
            ("trellis".into(), "0.1.0".into()),
            ("soil".into(), "0.1".into()),
        ]),
    );
    let expected = format!(
        r#"{{
  "lock_format": 1,
  "name": "cell_count",
  "kind": "function",
  "versions": {{ "trellis": "0.1.0", "soil": "0.1" }},
  "spec": {{
    "provenance": "human",
    "hashes": {{
      "formal": "{}",
      "test": "{}",
      "prose": "{}"
    }},
    "prose_state": "fresh",
    "blocks": [
      {{ "block": "test basics", "author": "agent" }}
    ],
    "pinned": false,
    "escape_hatches": []
  }},
  "lowering": null,
  "tests": [],
  "oracles": [],
  "accepted": false
}}
"#,
        h('1', 64),
        h('2', 64),
        h('3', 64)
    );
    assert_eq!(to_canonical_string(&s), expected);
}

/// Mutates the golden sidecar and checks the error's path, position and message.
#[track_caller]
fn check_error(text: &str, path: &str, at: &str, message: &str) -> SidecarError {
    let e = error(text);
    let (line, column) = position_of(text, at);
    assert_eq!(e.path, path, "{e}");
    assert_eq!((e.line, e.column), (Some(line), Some(column)), "{e}");
    assert!(e.message.contains(message), "{e}");
    e
}

#[test]
fn bad_enum_value_names_the_path_and_the_choices() {
    let text = mutate(
        GOLDEN,
        r#""origin": "derived", "result": "pass""#,
        r#""origin": "derived", "result": "passed""#,
    );
    let e = check_error(&text, "tests[2].result", "\"passed\"", "");
    assert_eq!(
        e.to_string(),
        "at `tests[2].result` (line 45, column 119): unknown result `passed`; \
         expected pass, fail, xfail or xpass"
    );
}

#[test]
fn unknown_key_at_depth_names_the_path() {
    let text = mutate(
        GOLDEN,
        r#""applied": []"#,
        r#""applied": [], "reviewer": "me""#,
    );
    let e = check_error(
        &text,
        "lowering.decisions.reviewer",
        "\"reviewer\"",
        "unknown key `reviewer`; expected scope_hash or applied",
    );
    assert!(
        e.to_string()
            .starts_with("at `lowering.decisions.reviewer` (line 31,")
    );

    let text = mutate(
        GOLDEN,
        r#"{ "block": "ensures", "author": "human" }"#,
        r#"{ "block": "ensures", "author": "human", "xfail": true }"#,
    );
    check_error(
        &text,
        "spec.blocks[1].xfail",
        "\"xfail\"",
        "unknown key `xfail`",
    );

    let text = mutate(
        GOLDEN,
        r#""accepted": false"#,
        r#""accepted": false, "extra": {}"#,
    );
    check_error(&text, "extra", "\"extra\"", "unknown key `extra`");
}

#[test]
fn wrong_types_name_the_path() {
    let text = mutate(GOLDEN, r#""name": "basics#2""#, r#""name": 2"#);
    check_error(
        &text,
        "tests[1].name",
        "2, \"tier\"",
        "expected a string, found a number",
    );

    let text = mutate(GOLDEN, r#""pinned": false"#, r#""pinned": "no""#);
    check_error(
        &text,
        "spec.pinned",
        "\"no\"",
        "expected `true` or `false`, found a string",
    );

    let text = mutate(GOLDEN, r#""holes": 0"#, r#""holes": -1"#);
    check_error(&text, "checks.holes", "-1", "expected a whole number");

    let text = mutate(GOLDEN, r#""holes": 0"#, r#""holes": 1.5"#);
    check_error(&text, "checks.holes", "1.5", "found 1.5");

    let text = mutate(GOLDEN, r#""tests": ["#, r#""tests": {"x": ["#);
    let text = mutate(&text, "  ],\n  \"oracles\"", "  ]},\n  \"oracles\"");
    check_error(
        &text,
        "tests",
        "{\"x\"",
        "expected an array, found an object",
    );

    let text = mutate(GOLDEN, r#""oracles": []"#, r#""oracles": null"#);
    check_error(
        &text,
        "oracles",
        "null,\n  \"accepted\"",
        "expected an array, found null",
    );

    let text = mutate(GOLDEN, r#""types": "ok""#, r#""types": true"#);
    check_error(
        &text,
        "checks.types",
        "true",
        "expected one of ok or error, found a boolean",
    );

    let start = GOLDEN.find("\"lowering\"").unwrap();
    let end = GOLDEN.find("\"checks\"").unwrap();
    let text = format!(
        "{}\"lowering\": [1],\n  {}",
        &GOLDEN[..start],
        &GOLDEN[end..]
    );
    check_error(
        &text,
        "lowering",
        "[1]",
        "expected a lowering object or null",
    );
}

#[test]
fn bad_hashes_name_the_path() {
    let formal = "sha256:023e31d91591f58338d930f7bfb343a2fa32325e10f63398ea9561e20f912d5f";
    let text = mutate(
        GOLDEN,
        formal,
        &formal.to_uppercase().replace("SHA256", "sha256"),
    );
    check_error(
        &text,
        "spec.hashes.formal",
        "\"sha256:023E",
        "expected `sha256:` followed by 8 to 64 lowercase hex digits",
    );

    let text = mutate(
        GOLDEN,
        r#""scope_hash": "sha256:af"#,
        r#""scope_hash": "sha256:af55"#,
    );
    check_error(
        &text,
        "lowering.decisions.scope_hash",
        "\"sha256:af55",
        "is not a hash",
    );

    let text = mutate(
        GOLDEN,
        r#""oracles": []"#,
        r#""oracles": [{ "kind": "reference", "path": "ref.py", "hash": "sha256:1234567" }]"#,
    );
    check_error(
        &text,
        "oracles[0].hash",
        "\"sha256:1234567\"",
        "is not a hash",
    );
}

#[test]
fn missing_keys_point_at_the_enclosing_object() {
    let text = mutate(GOLDEN, "    \"pinned\": false,\n", "");
    check_error(
        &text,
        "spec",
        "{\n    \"provenance\"",
        "missing key `pinned`",
    );

    let text = mutate(
        GOLDEN,
        "  \"accepted\": false\n",
        "  \"accepted_\": false\n",
    );
    check_error(&text, "accepted_", "\"accepted_\"", "unknown key");

    let text = mutate(GOLDEN, ",\n  \"accepted\": false\n", "\n");
    let e = check_error(&text, "", "{", "missing key `accepted`");
    assert!(
        e.to_string()
            .starts_with("at the top level (line 1, column 1): ")
    );

    let text = mutate(
        GOLDEN,
        r#""oracles": []"#,
        r#""oracles": [{ "path": "ref.py", "hash": "sha256:12345678" }]"#,
    );
    check_error(&text, "oracles[0]", "{ \"path\"", "missing key `kind`");
}

#[test]
fn kind_dependent_keys_are_refused() {
    let text = mutate(
        GOLDEN,
        r#""accepted": false"#,
        r#""cycle_hash": "sha256:12345678", "accepted": false"#,
    );
    check_error(&text, "cycle_hash", "\"cycle_hash\"", "only type entries");

    let text = mutate(
        GOLDEN,
        r#""test": "sha256:04b487368277f7da17745403f2bb108d2bd41aa118ea20ee8291f94b1a6311be""#,
        r#""test": null"#,
    );
    check_error(
        &text,
        "spec.hashes.test",
        "null",
        "a function entry has a test hash",
    );

    let text = mutate(
        TYPE_ENTRY,
        r#""test": null"#,
        r#""test": "sha256:12345678""#,
    );
    check_error(
        &text,
        "spec.hashes.test",
        "\"sha256:12345678\"",
        "a type entry has no test hash",
    );

    let text = mutate(GOLDEN, r#""holes": 0"#, r#""holes": 0, "invariants": {}"#);
    check_error(
        &text,
        "checks.invariants",
        "\"invariants\"",
        "only type entries",
    );

    let text = mutate(
        TYPE_ENTRY,
        r#""holes": 0"#,
        r#""holes": 0, "refinements": {}"#,
    );
    check_error(
        &text,
        "checks.refinements",
        "\"refinements\"",
        "`invariants` instead",
    );

    let text = mutate(
        GOLDEN,
        r#""escape_hatches": []"#,
        r#""escape_hatches": [], "decisions": {}"#,
    );
    check_error(
        &text,
        "spec.decisions",
        "\"decisions\": {}",
        "only module and project",
    );

    let text = mutate(
        TYPE_ENTRY,
        r#""accepted": true"#,
        r#""ffi": { "trust": "harvested", "symbol": "s", "symbol_hash": "sha256:12345678", "package": "p" }, "accepted": true"#,
    );
    check_error(&text, "ffi", "\"ffi\"", "only function entries");

    let text = mutate(GOLDEN, r#""holes": 0"#, r#""holes": 0, "demoted": []"#);
    check_error(
        &text,
        "checks.demoted",
        "\"demoted\"",
        "a clause map records demotion",
    );
}

#[test]
fn clause_map_errors_quote_labels_that_are_not_plain_words() {
    let text = mutate(
        GOLDEN,
        r#""non-negative": "runtime""#,
        r#""non-negative": "runtime", "upper bound": "demoted""#,
    );
    check_error(
        &text,
        r#"checks.refinements["upper bound"]"#,
        "\"demoted\"",
        "unknown clause state `demoted`; expected proven, runtime or trusted",
    );

    let text = mutate(
        GOLDEN,
        r#""non-negative": "runtime""#,
        r#""non-negative": "proven", "": "proven""#,
    );
    check_error(
        &text,
        r#"checks.refinements[""]"#,
        r#""": "proven""#,
        "empty key",
    );

    let text = mutate(
        GOLDEN,
        "\"refinements\": {\n      \"non-negative\": \"runtime\"\n    }",
        r#""refinements": "partly""#,
    );
    check_error(
        &text,
        "checks.refinements",
        "\"partly\"",
        "unknown refinements summary `partly`",
    );
}

#[test]
fn other_field_errors() {
    let text = mutate(GOLDEN, r#""name": "cell_count""#, r#""name": """#);
    check_error(&text, "name", "\"\",", "expected a non-empty string");

    let text = mutate(
        GOLDEN,
        r#""mode": "sandboxed", "origin": "derived""#,
        r#""mode": "", "origin": "derived""#,
    );
    check_error(
        &text,
        "tests[2].mode",
        "\"\", \"origin\": \"derived\"",
        "non-empty",
    );

    let text = mutate(
        GOLDEN,
        r#""oracles": []"#,
        r#""oracles": [{ "kind": "cli", "command": "soil0", "hash": "sha256:12345678" }, { "kind": "shell", "command": "x" }]"#,
    );
    check_error(
        &text,
        "oracles[1].kind",
        "\"shell\"",
        "unknown oracle kind `shell`; expected reference, definition or cli",
    );

    let text = mutate(
        GOLDEN,
        r#""oracles": []"#,
        r#""oracles": [{ "kind": "definition", "name": "f", "hash": "sha256:12345678" }]"#,
    );
    check_error(
        &text,
        "oracles[0].hash",
        "\"hash\"",
        "unknown key `hash`; expected kind, name or formal_hash",
    );

    let text = mutate(
        GOLDEN,
        r#""applied": []"#,
        r#""applied": [{ "keys": ["a"] }]"#,
    );
    check_error(
        &text,
        "lowering.decisions.applied[0].keys",
        "[\"a\"]",
        "expected a string, number, boolean or null, found an array",
    );

    let text = mutate(GOLDEN, r#""provider": null"#, r#""provider": """#);
    check_error(
        &text,
        "lowering.provider",
        "\"\",\n    \"model\"",
        "non-empty",
    );
}

#[test]
fn positions_count_utf16_code_units_not_bytes() {
    let text = mutate(
        GOLDEN,
        r#"{ "name": "basics#1", "tier": "expect""#,
        r#"{ "name": "žluťoučký 😀", "tier": "expected""#,
    );
    let e = error(&text);
    assert_eq!(e.path, "tests[0].tier");
    let line = text.lines().nth(e.line.unwrap() - 1).unwrap();
    let column = line.find("\"expected\"").unwrap();
    // Columns are UTF-16 code units, as in copy-audit and LSP: the emoji counts two.
    assert_eq!(e.column, Some(line[..column].encode_utf16().count() + 1));
    assert_ne!(e.column, Some(column + 1));
}

#[test]
fn unsupported_lock_format_is_reported_before_shape_problems() {
    let text = mutate(
        GOLDEN,
        r#""lock_format": 1,"#,
        r#""lock_format": 2, "lowering_v2": {},"#,
    );
    let e = check_error(&text, "lock_format", "2,", "unsupported lock_format 2");
    assert!(e.message.contains("reads lock_format 1"));
    let text = mutate(GOLDEN, r#""lock_format": 1,"#, r#""lock_format": "1","#);
    check_error(
        &text,
        "lock_format",
        "\"1\"",
        "expected a whole number, found a string",
    );
}

#[test]
fn syntax_errors_carry_the_path_being_read() {
    let text = mutate(
        GOLDEN,
        r#""escape_hatches": []"#,
        r#""escape_hatches": [],"#,
    );
    check_error(
        &text,
        "spec",
        "},\n  \"lowering\"",
        "trailing comma before `}`",
    );

    let text = mutate(
        GOLDEN,
        r#""soil-sig", "author": "human" }"#,
        r#""soil-sig", "author": "human" },]"#,
    );
    let e = error(&text);
    assert_eq!(e.path, "spec.blocks");
    assert_eq!(e.message, "trailing comma before `]`");

    let text = mutate(GOLDEN, r#""holes": 0"#, r#""holes": 0, "holes": 1"#);
    check_error(
        &text,
        "checks.holes",
        "\"holes\": 1",
        "duplicate key `holes`",
    );

    // A key with an escape is named as it reads.
    let text = mutate(GOLDEN, r#""holes": 0"#, r#""hol\u0065s": [0,]"#);
    let e = error(&text);
    assert_eq!(e.path, "checks.holes");
    assert_eq!(e.message, "trailing comma before `]`");

    let text = mutate(GOLDEN, r#""basics#1""#, "\"basics\u{1}#1\"");
    check_error(&text, "tests[0].name", "\u{1}", "control character U+0001");

    let e = error(&GOLDEN[..GOLDEN.len() - 10]);
    assert!(e.message.contains("unexpected end of input"), "{e}");

    let e = error(&format!("{GOLDEN}{{}}"));
    assert!(e.message.contains("unexpected text after"), "{e}");
    assert_eq!(e.path, "");

    let e = error(&format!("\u{feff}{GOLDEN}"));
    assert_eq!(e.message, "unexpected character U+FEFF");

    let text = mutate(GOLDEN, r#""basics#1""#, r#""basics\ud800#1""#);
    check_error(&text, "tests[0].name", "\\ud800", "unpaired surrogate");

    let e = error(&"[".repeat(100));
    assert!(e.message.contains("nested more than"), "{e}");

    let e = error("[1, 2]");
    assert_eq!(e.message, "expected a sidecar object, found an array");
}

#[test]
fn escapes_are_read_and_written_canonically() {
    let text = mutate(
        GOLDEN,
        r#""basics#1""#,
        r##""b\u00e1sics\/\"#1\"\n\u001f\ud83d\ude00""##,
    );
    let s = read(&text);
    assert_eq!(s.tests[0].name, "básics/\"#1\"\n\u{1f}😀");
    let written = to_canonical_string(&s);
    assert!(
        written.contains(r##""básics/\"#1\"\n\u001f😀""##),
        "{written}"
    );
    assert_eq!(read(&written), s);
}

fn named(path: &str, helpers: &[(&str, &str)], hatches: &[&str]) -> (String, Sidecar) {
    let mut s = read(GOLDEN);
    s.name = path.rsplit('/').next().unwrap().into();
    let lowering = s.lowering.as_mut().unwrap();
    lowering.private_helpers = helpers
        .iter()
        .map(|(name, hash)| NameHash {
            name: (*name).into(),
            hash: hash.parse().unwrap(),
        })
        .collect();
    s.spec.escape_hatches = hatches.iter().map(|h| (*h).to_owned()).collect();
    (path.to_owned(), s)
}

#[test]
fn manifest_derives_private_nodes_and_escape_hatches() {
    let defs = vec![
        named(
            "csvstats/parse_row",
            &[("_parse_cell", "sha256:3fe210bb")],
            &[],
        ),
        named(
            "csvstats/median",
            &[
                ("_parse_cell", "sha256:3fe210bb"),
                ("_sorted", "sha256:00000001"),
            ],
            &["io: reads stdin"],
        ),
        named("csvstats/mean", &[("_parse_cell", "sha256:99999999")], &[]),
        named("top", &[("_util", "sha256:12121212")], &[]),
        named(
            "other/parse_row",
            &[("_parse_cell", "sha256:3fe210bb")],
            &[],
        ),
    ];
    let m = build_manifest(borrowed(&defs), BTreeMap::new());
    let nodes: Vec<(&str, String, Vec<&str>)> = m
        .soil_private
        .iter()
        .map(|n| {
            (
                n.name.as_str(),
                n.hash.to_string(),
                n.owners.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        nodes,
        vec![
            ("_util", "sha256:12121212", vec!["top"]),
            (
                "csvstats/_parse_cell",
                "sha256:3fe210bb",
                vec!["csvstats/median", "csvstats/parse_row"]
            ),
            (
                "csvstats/_parse_cell",
                "sha256:99999999",
                vec!["csvstats/mean"]
            ),
            (
                "csvstats/_sorted",
                "sha256:00000001",
                vec!["csvstats/median"]
            ),
            (
                "other/_parse_cell",
                "sha256:3fe210bb",
                vec!["other/parse_row"]
            ),
        ]
        .into_iter()
        .map(|(name, hash, owners)| (name, hash.to_string(), owners))
        .collect::<Vec<_>>()
    );
    assert_eq!(
        m.escape_hatches,
        BTreeMap::from([(
            "csvstats/median".to_owned(),
            vec!["io: reads stdin".to_owned()]
        )])
    );
}

#[test]
fn manifest_ignores_input_order_and_unlowered_definitions() {
    let mut defs = vec![
        named("a/x", &[("_h", "sha256:11111111")], &["net"]),
        named("a/y", &[("_h", "sha256:11111111")], &[]),
        named("b/z", &[], &["fs", "net"]),
    ];
    let mut unlowered = named("a/w", &[], &[]);
    unlowered.1.lowering = None;
    defs.push(unlowered);
    let trusted = BTreeMap::from([
        ("soil-rs-std".to_owned(), h('f', 64)),
        ("prelude".to_owned(), h('e', 64)),
    ]);
    let forward = manifest_to_canonical_string(&build_manifest(borrowed(&defs), trusted.clone()));
    defs.reverse();
    let backward = manifest_to_canonical_string(&build_manifest(borrowed(&defs), trusted));
    assert_eq!(forward, backward);
    let m = build_manifest(borrowed(&defs), BTreeMap::new());
    assert_eq!(m.soil_private.len(), 1);
    assert_eq!(m.soil_private[0].owners, vec!["a/x", "a/y"]);
    assert!(forward.ends_with(
        "  \"soil_private\": [\n    \
         { \"name\": \"a/_h\", \"hash\": \"sha256:11111111\", \"owners\": [\"a/x\", \"a/y\"] }\n  ],\n  \
         \"escape_hatches\": {\n    \"a/x\": [\"net\"],\n    \"b/z\": [\"fs\", \"net\"]\n  },\n  \
         \"trusted_packages\": {\n    \"prelude\": \"sha256:eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\",\n    \
         \"soil-rs-std\": \"sha256:ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff\"\n  }\n}\n"
    ));
}

#[test]
fn manifest_nests_each_sidecar_indented_under_its_path() {
    let defs = vec![("csvstats/cell_count".to_owned(), read(GOLDEN))];
    let text = manifest_to_canonical_string(&build_manifest(borrowed(&defs), BTreeMap::new()));
    let nested: String = GOLDEN
        .lines()
        .enumerate()
        .map(|(i, line)| {
            if i == 0 {
                format!("{line}\n")
            } else {
                format!("    {line}\n")
            }
        })
        .collect();
    let expected = format!(
        "{{\n  \"lock_format\": 1,\n  \"definitions\": {{\n    \"csvstats/cell_count\": {}  }},\n  \
         \"soil_private\": [],\n  \"escape_hatches\": {{}},\n  \"trusted_packages\": {{}}\n}}\n",
        nested
    );
    assert_eq!(text, expected);
    // The manifest is itself JSON whose definitions are the sidecars.
    let value: serde_json::Value = serde_json::from_str(&text).unwrap();
    let golden: serde_json::Value = serde_json::from_str(GOLDEN).unwrap();
    assert_eq!(value["definitions"]["csvstats/cell_count"], golden);
}

#[test]
fn empty_manifest() {
    let text = manifest_to_canonical_string(&build_manifest([], BTreeMap::new()));
    assert_eq!(
        text,
        "{\n  \"lock_format\": 1,\n  \"definitions\": {},\n  \"soil_private\": [],\n  \
         \"escape_hatches\": {},\n  \"trusted_packages\": {}\n}\n"
    );
}

// Random valid sidecars.

fn arb_text() -> impl Strategy<Value = String> {
    r#"[a-zA-Z0-9 _#:/."\\\x00-\x1féž😀-]{1,10}"#
}

fn arb_any_text() -> impl Strategy<Value = String> {
    r#"[a-z "\\\n\té😀]{0,6}"#
}

fn arb_hash() -> impl Strategy<Value = RecordedHash> {
    prop::collection::vec(0u32..16, MIN_HASH_HEX_DIGITS..=MAX_HASH_HEX_DIGITS).prop_map(|d| {
        let hex: String = d
            .into_iter()
            .map(|n| char::from_digit(n, 16).unwrap())
            .collect();
        format!("sha256:{hex}").parse().unwrap()
    })
}

fn arb_kw<T: Clone + std::fmt::Debug + 'static>(all: &'static [T]) -> impl Strategy<Value = T> {
    prop::sample::select(all)
}

fn arb_clause_map() -> impl Strategy<Value = ClauseMap> {
    prop::collection::btree_map(arb_text(), arb_kw(ClauseState::ALL), 0..4)
        .prop_map(ClauseMap::from)
}

fn arb_name_hashes() -> impl Strategy<Value = Vec<NameHash>> {
    prop::collection::vec(
        (arb_text(), arb_hash()).prop_map(|(name, hash)| NameHash {
            name: name.into(),
            hash,
        }),
        0..3,
    )
}

fn arb_scalar() -> impl Strategy<Value = Scalar> {
    prop_oneof![
        Just(Scalar::Null),
        any::<bool>().prop_map(Scalar::Bool),
        any::<i64>().prop_map(|n| Scalar::Number(n.to_string())),
        arb_kw(&["0.5", "1.50", "-2e10", "3E+2", "-0"]).prop_map(|n| Scalar::Number(n.to_owned())),
        arb_any_text().prop_map(Scalar::String),
    ]
}

fn arb_applied() -> impl Strategy<Value = AppliedDecision> {
    prop::collection::btree_map(arb_text(), arb_scalar(), 0..3)
        .prop_map(|m| AppliedDecision(m.into_iter().rev().collect()))
}

fn arb_lowering() -> impl Strategy<Value = Lowering> {
    (
        arb_hash(),
        arb_kw(LoweringProvenance::ALL),
        prop::option::of(arb_text()),
        prop::option::of(arb_text()),
        arb_name_hashes(),
        arb_name_hashes(),
        prop::option::of((arb_hash(), prop::collection::vec(arb_applied(), 0..3))),
    )
        .prop_map(
            |(soil_hash, provenance, provider, model, private_helpers, calls, decisions)| {
                Lowering {
                    soil_hash,
                    provenance,
                    provider: provider.map(Into::into),
                    model: model.map(Into::into),
                    private_helpers,
                    calls,
                    decisions: decisions.map(|(scope_hash, applied)| {
                        Box::new(LoweringDecisions {
                            scope_hash,
                            applied,
                        })
                    }),
                }
            },
        )
}

fn arb_spec(kind: DefKind) -> impl Strategy<Value = Spec> {
    let header = matches!(kind, DefKind::Module | DefKind::Project);
    (
        arb_kw(Author::ALL),
        (arb_hash(), arb_hash(), arb_hash()),
        arb_kw(ProseState::ALL),
        prop::collection::vec(
            (arb_text(), arb_kw(Author::ALL)).prop_map(|(block, author)| BlockAuthor {
                block: block.into(),
                author,
            }),
            0..4,
        ),
        any::<bool>(),
        prop::collection::vec(arb_text(), 0..3),
        prop::option::of(prop::collection::btree_map(
            arb_text(),
            arb_any_text(),
            0..3,
        )),
    )
        .prop_map(
            move |(
                provenance,
                (formal, test, prose),
                prose_state,
                blocks,
                pinned,
                escape_hatches,
                decisions,
            )| Spec {
                provenance,
                hashes: SpecHashes {
                    formal,
                    test: (kind == DefKind::Function).then_some(test),
                    prose,
                },
                prose_state,
                blocks,
                pinned,
                escape_hatches,
                decisions: decisions.filter(|_| header),
            },
        )
}

fn arb_checks(kind: DefKind) -> impl Strategy<Value = Checks> {
    let refinements = prop_oneof![
        Just(Refinements::Absent),
        arb_kw(RefinementSummary::ALL).prop_map(Refinements::Prototype),
        arb_clause_map().prop_map(Refinements::Clauses),
    ];
    (
        arb_kw(TypeCheck::ALL),
        prop::option::of(arb_kw(Termination::ALL)),
        refinements,
        prop::option::of(prop::collection::vec(arb_text(), 0..3)),
        prop::option::of(any::<u32>()),
        prop::option::of(arb_clause_map()),
    )
        .prop_map(
            move |(types, termination, refinements, demoted, holes, invariants)| {
                let is_type = kind == DefKind::Type;
                let refinements = if is_type {
                    Refinements::Absent
                } else {
                    refinements
                };
                Checks {
                    types: Some(types),
                    exports: None,
                    termination,
                    demoted: demoted.filter(|_| matches!(refinements, Refinements::Prototype(_))),
                    refinements,
                    holes,
                    invariants: invariants.filter(|_| is_type),
                }
            },
        )
}

fn arb_oracle() -> impl Strategy<Value = Oracle> {
    prop_oneof![
        (arb_text(), arb_hash()).prop_map(|(path, hash)| Oracle::Reference { path, hash }),
        (arb_text(), arb_hash())
            .prop_map(|(name, formal_hash)| Oracle::Definition { name, formal_hash }),
        (arb_text(), arb_hash()).prop_map(|(command, hash)| Oracle::Cli { command, hash }),
    ]
}

fn arb_test_row() -> impl Strategy<Value = TestRow> {
    (
        arb_text(),
        arb_kw(Tier::ALL),
        prop_oneof![
            Just("sandboxed".to_owned()),
            Just("real".to_owned()),
            arb_text()
        ],
        arb_kw(Origin::ALL),
        arb_kw(TestResult::ALL),
    )
        .prop_map(|(name, tier, mode, origin, result)| TestRow {
            name: name.into(),
            tier,
            mode: mode.into(),
            origin,
            result,
        })
}

fn arb_ffi() -> impl Strategy<Value = Ffi> {
    (arb_kw(FfiTrust::ALL), arb_text(), arb_hash(), arb_text()).prop_map(
        |(trust, symbol, symbol_hash, package)| Ffi {
            trust,
            symbol,
            symbol_hash,
            package,
        },
    )
}

fn arb_versions() -> impl Strategy<Value = Versions> {
    prop::collection::vec((arb_text(), arb_any_text()), 0..3).prop_map(|pairs| {
        let mut seen = std::collections::BTreeSet::new();
        Versions(
            pairs
                .into_iter()
                .filter(|(tool, _)| seen.insert(tool.clone()))
                .map(|(tool, version)| (tool.into(), version.into()))
                .collect(),
        )
    })
}

fn arb_sidecar() -> impl Strategy<Value = Sidecar> {
    arb_kw(DefKind::ALL).prop_flat_map(|kind| {
        (
            (arb_text(), arb_versions(), arb_spec(kind)),
            prop::option::of(arb_lowering()),
            arb_checks(kind),
            prop::collection::vec(arb_test_row(), 0..4),
            prop::collection::vec(arb_oracle(), 0..3),
            prop::option::of(arb_ffi()),
            prop::option::of(arb_hash()),
            any::<bool>(),
        )
            .prop_map(
                move |(
                    (name, versions, spec),
                    lowering,
                    checks,
                    tests,
                    oracles,
                    ffi,
                    cycle_hash,
                    accepted,
                )| Sidecar {
                    lock_format: LOCK_FORMAT,
                    name: name.into(),
                    kind,
                    versions,
                    spec,
                    lowering,
                    checks,
                    tests,
                    oracles,
                    ffi: ffi.filter(|_| kind == DefKind::Function).map(Box::new),
                    cycle_hash: cycle_hash.filter(|_| kind == DefKind::Type),
                    accepted,
                    present: Present {
                        cycle_hash: cycle_hash.is_some() && kind == DefKind::Type,
                        ..Present::ALL
                    },
                },
            )
    })
}

proptest! {
    #[test]
    fn canonical_write_then_read_is_the_identity(sidecar in arb_sidecar()) {
        let text = to_canonical_string(&sidecar);
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&back, &sidecar);
        prop_assert_eq!(to_canonical_string(&back), text.clone());
        // The canonical text is plain JSON to any other reader.
        prop_assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
    }

    #[test]
    fn manifest_is_independent_of_input_order(
        sidecars in prop::collection::vec(arb_sidecar(), 0..5),
        folders in prop::collection::vec(arb_kw(&["a", "b", "a/b", ""]), 5),
    ) {
        let mut defs: Vec<(String, Sidecar)> = sidecars
            .into_iter()
            .zip(folders)
            .enumerate()
            .map(|(i, (s, folder))| {
                let path = if folder.is_empty() { format!("d{i}") } else { format!("{folder}/d{i}") };
                (path, s)
            })
            .collect();
        let m = build_manifest(borrowed(&defs), BTreeMap::new());
        let text = manifest_to_canonical_string(&m);
        prop_assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok());
        for node in &m.soil_private {
            prop_assert!(!node.owners.is_empty());
            prop_assert!(node.owners.windows(2).all(|w| w[0] < w[1]));
        }
        drop(m);
        defs.reverse();
        prop_assert_eq!(manifest_to_canonical_string(&build_manifest(borrowed(&defs), BTreeMap::new())), text);
    }
}

/// Definitions as [`build_manifest`] takes them: each path with its sidecar borrowed.
fn borrowed(defs: &[(String, Sidecar)]) -> impl Iterator<Item = (String, &Sidecar)> {
    defs.iter().map(|(path, sidecar)| (path.clone(), sidecar))
}
