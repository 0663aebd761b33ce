use super::write::js_property_order;
use super::*;
use crate::text::{LineCol, LineIndex};
use proptest::prelude::*;

/// The seed's three worked examples as one canonical lockfile (with real hashes: the
/// seed's `sha256:1a2b3c...` placeholders are not valid hashes).
const WORKED_EXAMPLES: &str = r#"{
  "schemaVersion": 1,
  "segmenter": {
    "backend": "agent",
    "promptVersion": 2
  },
  "files": {
    "content/talks/all-czech.md": {
      "contentHash": "sha256:4f435046a870111ca5c326d335ac847602f7f06cfab7c051b073daf171306bd6",
      "segmentedAt": "2026-04-12T10:30:00Z",
      "reviewedBy": null,
      "spans": []
    },
    "workshop-content/agenda.json": {
      "contentHash": "sha256:df71fb0bd94cb72795bae4dce7bb6bd33efa6f7aa7ad11d78bfd6f734ca30e0b",
      "segmentedAt": "2026-04-12T10:30:00Z",
      "reviewedBy": "ondrej@2026-04-12",
      "spans": [
        {
          "startLine": 6,
          "startColumn": 7,
          "endLine": 6,
          "endColumn": 28,
          "language": "en",
          "kind": "prose",
          "pathHint": "meta.en.title",
          "note": "no diacritics; tagged from key path"
        },
        {
          "startLine": 7,
          "startColumn": 7,
          "endLine": 7,
          "endColumn": 72,
          "language": "en",
          "kind": "prose",
          "pathHint": "meta.en.subtitle",
          "note": null
        },
        {
          "startLine": 10,
          "startColumn": 7,
          "endLine": 10,
          "endColumn": 28,
          "language": "cs",
          "kind": "prose",
          "pathHint": "meta.cs.title",
          "note": "no diacritics; tagged from key path"
        },
        {
          "startLine": 11,
          "startColumn": 7,
          "endLine": 11,
          "endColumn": 65,
          "language": "cs",
          "kind": "prose",
          "pathHint": "meta.cs.subtitle",
          "note": null
        }
      ]
    },
    "workshop-skill/SKILL-facilitator.md": {
      "contentHash": "sha256:9c53c074d7ac6a2728b638ac1f376c5fa9eb8f71603017c3ea638c2fd40548df",
      "segmentedAt": "2026-04-12T10:30:00Z",
      "reviewedBy": "ondrej@2026-04-12",
      "spans": [
        {
          "startLine": 1,
          "startColumn": 1,
          "endLine": 200,
          "endColumn": 1,
          "language": "en",
          "kind": "prose",
          "pathHint": null,
          "note": "entire file is English operational doc"
        }
      ]
    }
  }
}
"#;

const HASH: &str = "sha256:df71fb0bd94cb72795bae4dce7bb6bd33efa6f7aa7ad11d78bfd6f734ca30e0b";

fn span(start: (u32, u32), end: (u32, u32), language: &str, kind: Kind) -> Span {
    Span {
        start_line: start.0,
        start_column: start.1,
        end_line: end.0,
        end_column: end.1,
        language: language.to_owned(),
        kind,
        path_hint: Field::Absent,
        note: Field::Absent,
    }
}

fn entry(spans: Vec<Span>, reviewed_by: Option<&str>) -> Entry {
    Entry {
        content_hash: HASH.to_owned(),
        segmented_at: "2026-04-12T10:30:00Z".to_owned(),
        reviewed_by: reviewed_by.map(str::to_owned),
        spans,
    }
}

fn lock_with(path: &str, entry: Entry) -> Lockfile {
    let mut lock = Lockfile::new(Segmenter {
        backend: Backend::Agent,
        prompt_version: Some(2),
    });
    lock.files.insert(path.to_owned(), entry);
    lock
}

/// A one-entry lockfile in canonical text, for tests that then break one thing in it.
fn one_entry_text(path: &str, spans: Vec<Span>) -> String {
    to_canonical_string(&lock_with(path, entry(spans, None)))
}

fn parse_err(text: &str) -> LockfileError {
    parse(text).expect_err("the lockfile should be refused")
}

#[test]
fn worked_examples_round_trip_byte_for_byte() {
    let lock = parse(WORKED_EXAMPLES).unwrap();
    assert_eq!(lock.files.len(), 3);
    let agenda = &lock.files["workshop-content/agenda.json"];
    assert_eq!(agenda.spans[1].note, Field::Null);
    assert_eq!(
        agenda.spans[0].path_hint,
        Field::Value("meta.en.title".to_owned())
    );
    assert_eq!(to_canonical_string(&lock), WORKED_EXAMPLES);
}

#[test]
fn absent_null_and_value_survive_a_rewrite() {
    let text = WORKED_EXAMPLES
        .replacen("          \"pathHint\": \"meta.en.subtitle\",\n", "", 1)
        .replacen(",\n          \"note\": null\n", "\n", 1);
    let lock = parse(&text).unwrap();
    let s = &lock.files["workshop-content/agenda.json"].spans[1];
    assert_eq!(s.path_hint, Field::Absent);
    assert_eq!(s.note, Field::Absent);
    assert_eq!(to_canonical_string(&lock), text);
}

#[test]
fn empty_files_and_structural_backend_without_prompt_version() {
    let text = "{\n  \"schemaVersion\": 1,\n  \"segmenter\": {\n    \"backend\": \"structural\"\n  },\n  \"files\": {}\n}\n";
    let lock = parse(text).unwrap();
    assert_eq!(lock.segmenter.prompt_version, None);
    assert_eq!(to_canonical_string(&lock), text);
}

#[test]
fn schema_version_two_is_refused_before_its_shape_is_judged() {
    let text = r#"{"schemaVersion": 2, "segmenter": {"backend": "agent"}, "entries": []}"#;
    let err = parse_err(text);
    assert_eq!(err.kind, LockfileErrorKind::SchemaVersion);
    assert_eq!(
        err.to_string(),
        "unknown lockfile schemaVersion 2; this copy-audit reads 1"
    );
}

#[test]
fn syntax_errors_carry_the_lockfile_position() {
    let text = WORKED_EXAMPLES.replacen("\"kind\": \"prose\",", "\"kind\": \"prose\"", 1);
    let err = parse_err(&text);
    assert_eq!(err.kind, LockfileErrorKind::Syntax);
    assert_eq!(err.entry.as_deref(), Some("workshop-content/agenda.json"));
    assert_eq!(err.span, Some(0));
    assert_eq!(err.line, Some(26));
    assert_eq!(err.column, Some(11));
    let shown = err.to_string();
    assert!(
        shown.starts_with("entry \"workshop-content/agenda.json\", span 1: expected `,` or `}`"),
        "{shown}"
    );
    assert!(shown.ends_with("(line 26, column 11)"), "{shown}");

    let err = parse_err("{\"schemaVersion\": 1,");
    assert_eq!(err.kind, LockfileErrorKind::Syntax);
    assert_eq!(err.entry, None);
}

#[test]
fn unknown_keys_are_named() {
    let top = WORKED_EXAMPLES.replacen("\"files\": {", "\"extra\": true,\n  \"files\": {", 1);
    let err = parse_err(&top);
    assert_eq!(err.kind, LockfileErrorKind::Shape);
    assert!(err.message.contains("unknown field `extra`"), "{err}");

    let in_segmenter = WORKED_EXAMPLES.replacen(
        "\"promptVersion\": 2",
        "\"promptVersion\": 2, \"model\": 1",
        1,
    );
    assert!(
        parse_err(&in_segmenter)
            .message
            .contains("unknown field `model`")
    );

    let in_entry = WORKED_EXAMPLES.replacen(
        "\"reviewedBy\": null,",
        "\"reviewedBy\": null, \"x\": 1,",
        1,
    );
    let err = parse_err(&in_entry);
    assert_eq!(err.entry.as_deref(), Some("content/talks/all-czech.md"));
    assert_eq!(err.span, None);
    assert!(err.message.contains("unknown field `x`"), "{err}");

    let in_span = WORKED_EXAMPLES.replacen(
        "\"pathHint\": \"meta.cs.title\",",
        "\"pathHint\": \"meta.cs.title\", \"confidence\": 0.9,",
        1,
    );
    let err = parse_err(&in_span);
    assert_eq!(err.entry.as_deref(), Some("workshop-content/agenda.json"));
    assert_eq!(err.span, Some(2));
    assert!(err.message.contains("unknown field `confidence`"), "{err}");
    assert!(
        err.to_string().starts_with(
            "entry \"workshop-content/agenda.json\", span 3: unknown field `confidence`"
        ),
        "{err}"
    );
}

#[test]
fn wrong_types_and_missing_fields_are_refused() {
    let cases = [
        ("\"startLine\": 6,", "\"startLine\": \"6\",", "invalid type"),
        ("\"startLine\": 6,", "\"startLine\": -6,", "invalid value"),
        ("\"startLine\": 6,", "\"startLine\": 6.5,", "invalid type"),
        (
            "\"kind\": \"prose\",",
            "\"kind\": \"comment\",",
            "unknown variant `comment`",
        ),
        (
            "\"backend\": \"agent\"",
            "\"backend\": \"llm\"",
            "unknown variant `llm`",
        ),
        (
            "\"promptVersion\": 2",
            "\"promptVersion\": null",
            "invalid type: null",
        ),
        (
            "\"schemaVersion\": 1,",
            "\"schemaVersion\": \"1\",",
            "invalid type",
        ),
        ("\"reviewedBy\": null,\n", "", "missing field `reviewedBy`"),
        ("\"spans\": []", "\"spans\": {}", "an array of spans"),
        (
            "          \"language\": \"en\",\n",
            "",
            "missing field `language`",
        ),
    ];
    for (from, to, expect) in cases {
        let text = WORKED_EXAMPLES.replacen(from, to, 1);
        assert_ne!(text, WORKED_EXAMPLES, "{from}");
        let err = parse_err(&text);
        assert_eq!(err.kind, LockfileErrorKind::Shape, "{err}");
        assert!(err.message.contains(expect), "{from} → {to}: {err}");
        assert!(err.line.is_some(), "{err}");
    }
    let err = parse_err("[]");
    assert!(err.message.contains("a lockfile object"), "{err}");
}

#[test]
fn duplicate_keys_are_refused() {
    let text = r#"{"schemaVersion": 1, "segmenter": {"backend": "manual"}, "files": {
        "a.md": {"contentHash": "x", "segmentedAt": "y", "reviewedBy": null, "spans": []},
        "a.md": {"contentHash": "x", "segmentedAt": "y", "reviewedBy": null, "spans": []}}}"#;
    let err = parse_err(text);
    assert_eq!(err.entry.as_deref(), Some("a.md"));
    assert!(err.message.contains("two entries"), "{err}");

    let text = WORKED_EXAMPLES.replacen("\"endLine\": 6,", "\"endLine\": 6, \"endLine\": 6,", 1);
    assert!(
        parse_err(&text)
            .message
            .contains("duplicate field `endLine`")
    );
}

#[test]
fn segmenter_invariants() {
    let no_version = WORKED_EXAMPLES.replacen(",\n    \"promptVersion\": 2", "", 1);
    let err = parse_err(&no_version);
    assert_eq!(err.kind, LockfileErrorKind::Invariant);
    assert!(err.message.contains("promptVersion is required"), "{err}");

    let zero = WORKED_EXAMPLES.replacen("\"promptVersion\": 2", "\"promptVersion\": 0", 1);
    assert!(parse_err(&zero).message.contains("positive integer"));

    let manual = no_version.replacen("\"agent\"", "\"manual\"", 1);
    assert!(parse(&manual).is_ok());
}

#[test]
fn entry_invariants_name_the_entry() {
    let cases = [
        (
            "\"contentHash\": \"sha256:4f43",
            "\"contentHash\": \"sha256:4F43",
            "contentHash",
        ),
        (
            "\"contentHash\": \"sha256:4f435046a870111ca5c326d335ac847602f7f06cfab7c051b073daf171306bd6\"",
            "\"contentHash\": \"md5:abc\"",
            "contentHash",
        ),
        (
            "\"segmentedAt\": \"2026-04-12T10:30:00Z\",\n      \"reviewedBy\": null",
            "\"segmentedAt\": \"2026-04-12 10:30:00\",\n      \"reviewedBy\": null",
            "segmentedAt",
        ),
        (
            "\"reviewedBy\": null",
            "\"reviewedBy\": \"\"",
            "reviewedBy is blank",
        ),
    ];
    for (from, to, expect) in cases {
        let text = WORKED_EXAMPLES.replacen(from, to, 1);
        assert_ne!(text, WORKED_EXAMPLES, "{from}");
        let err = parse_err(&text);
        assert_eq!(err.kind, LockfileErrorKind::Invariant);
        assert_eq!(err.entry.as_deref(), Some("content/talks/all-czech.md"));
        assert!(err.message.contains(expect), "{err}");
        assert!(
            err.to_string()
                .starts_with("entry \"content/talks/all-czech.md\": "),
            "{err}"
        );
    }
}

#[test]
fn timestamps() {
    use super::check::is_utc_timestamp;
    for good in [
        "2026-04-12T10:30:00Z",
        "2026-04-12T10:30:00.123Z",
        "2024-02-29T23:59:59.5Z",
    ] {
        assert!(is_utc_timestamp(good), "{good}");
    }
    for bad in [
        "2026-04-12T10:30:00",
        "2026-04-12T10:30:00+02:00",
        "2026-04-12T10:30Z",
        "2026-02-29T10:30:00Z",
        "2026-13-01T10:30:00Z",
        "2026-04-31T10:30:00Z",
        "2026-04-12T24:00:00Z",
        "2026-04-12T10:60:00Z",
        "2026-04-12T10:30:00.Z",
        "2026-04-12t10:30:00z",
        "2026-4-12T10:30:00Z",
        "２026-04-12T10:30:00Z",
    ] {
        assert!(!is_utc_timestamp(bad), "{bad}");
    }
}

#[test]
fn entry_paths() {
    for bad in [
        "",
        "/abs/a.md",
        "C:/a.md",
        "c:a.md",
        "docs\\a.md",
        "./a.md",
        "a/./b",
        "../a.md",
        "a/../b",
        "a//b",
        "a/",
    ] {
        let text = one_entry_text("placeholder.md", vec![]).replacen("placeholder.md", bad, 1);
        let text = text.replace('\\', "\\\\");
        let err = parse_err(&text);
        assert_eq!(err.kind, LockfileErrorKind::Invariant, "{bad}");
        assert_eq!(err.entry.as_deref(), Some(bad));
        assert!(err.message.starts_with("the path"), "{err}");
    }
    // Written as JSON's escape, read as the character: named as what it is, not as the
    // backslash of its escape.
    let text =
        one_entry_text("placeholder.md", vec![]).replacen("placeholder.md", "a\\u0000b.md", 1);
    let err = parse_err(&text);
    assert_eq!(err.entry.as_deref(), Some("a\0b.md"));
    assert!(err.message.contains("NUL character"), "{err}");
    for good in [
        "a.md",
        "docs/x/y.md",
        ".github/a.md",
        "a..b/c",
        "žluť/kůň.md",
    ] {
        assert!(check_entry_path(good).is_ok(), "{good}");
    }
}

#[test]
fn span_invariants_name_the_entry_and_the_span() {
    let ok = |s, e| span(s, e, "en", Kind::Prose);
    let cases: Vec<(Vec<Span>, usize, &str)> = vec![
        (vec![ok((0, 1), (1, 1))], 0, "startLine is 0"),
        (vec![ok((1, 0), (1, 1))], 0, "startColumn is 0"),
        (vec![ok((1, 1), (0, 1))], 0, "endLine is 0"),
        (vec![ok((1, 1), (1, 0))], 0, "endColumn is 0"),
        (
            vec![ok((3, 5), (3, 4))],
            0,
            "the span ends at 3:4, before it starts",
        ),
        (
            vec![ok((3, 5), (2, 9))],
            0,
            "the span ends at 2:9, before it starts",
        ),
        (
            vec![ok((1, 1), (1, 4)), ok((5, 1), (5, 4)), ok((2, 1), (2, 4))],
            2,
            "spans are out of order: this span starts before the previous one (at 5:1)",
        ),
        (
            vec![ok((1, 1), (1, 4)), ok((5, 1), (5, 9)), ok((5, 9), (6, 1))],
            2,
            "spans overlap the previous span (ends at 5:9)",
        ),
        (
            vec![ok((1, 1), (4, 2)), ok((2, 1), (2, 4))],
            1,
            "spans overlap the previous span (ends at 4:2)",
        ),
        (vec![ok((1, 1), (1, 4)), ok((1, 1), (1, 4))], 1, "overlap"),
        (
            vec![span((1, 1), (1, 1), "EN", Kind::Prose)],
            0,
            "language \"EN\"",
        ),
        (
            vec![span((1, 1), (1, 1), "eng", Kind::Prose)],
            0,
            "language \"eng\"",
        ),
        (
            vec![span((1, 1), (1, 1), "", Kind::Code)],
            0,
            "language \"\"",
        ),
        (
            vec![span((1, 1), (1, 1), "Unknown", Kind::Data)],
            0,
            "ISO 639-1",
        ),
    ];
    for (spans, index, expect) in cases {
        let at = spans[index].start();
        let err = parse_err(&one_entry_text("docs/a.md", spans));
        assert_eq!(err.kind, LockfileErrorKind::Invariant);
        assert_eq!(err.entry.as_deref(), Some("docs/a.md"));
        assert_eq!(err.span, Some(index));
        assert_eq!(err.span_start, Some(at));
        assert!(err.message.contains(expect), "{err}");
    }

    let overlap = vec![ok((1, 1), (1, 4)), ok((5, 1), (5, 9)), ok((5, 9), (6, 1))];
    assert_eq!(
        parse_err(&one_entry_text("docs/a.md", overlap)).to_string(),
        "entry \"docs/a.md\", span 3 (line 5:9): spans overlap the previous span (ends at 5:9)"
    );

    let touching = vec![
        ok((1, 1), (5, 8)),
        ok((5, 9), (5, 9)),
        span((5, 10), (9, 1), "unknown", Kind::Code),
    ];
    assert!(parse(&one_entry_text("docs/a.md", touching)).is_ok());
}

#[test]
fn spans_for_lockfile_add() {
    let one = r#"{"startLine": 1, "startColumn": 1, "endLine": 1, "endColumn": 3, "language": "en", "kind": "prose"}"#;
    let wrapped = format!(r#"{{"filePath": "/x/a.md", "spans": [{one}, {one}]}}"#);
    let spans = parse_spans(&wrapped).unwrap();
    assert_eq!(spans.len(), 2);
    assert_eq!(spans[0].note, Field::Absent);
    assert_eq!(parse_spans(&format!("[{one}]")).unwrap().len(), 1);
    assert_eq!(parse_spans(r#"{"spans": []}"#).unwrap(), vec![]);
    // Shape only: the overlap is for `fit_spans_for_add` to find.
    let err = fit_spans_for_add("abc\n", &LineIndex::new("abc\n"), &spans).unwrap_err();
    assert_eq!(err.span, Some(1));

    let err = parse_spans(&format!(r#"{{"spans": [{one}, {{"startLine": 1}}]}}"#)).unwrap_err();
    assert_eq!(err.kind, LockfileErrorKind::Shape);
    assert_eq!(err.span, Some(1));
    assert!(
        err.to_string().starts_with("span 2: missing field"),
        "{err}"
    );
    let err = parse_spans(r#"{"span": []}"#).unwrap_err();
    assert!(err.message.contains("missing field `spans`"), "{err}");
    let err = parse_spans("\"spans\"").unwrap_err();
    assert!(
        err.message.contains("an object with a `spans` array"),
        "{err}"
    );
    assert_eq!(
        parse_spans("[] x").unwrap_err().kind,
        LockfileErrorKind::Syntax
    );
}

#[test]
fn kind_names_round_trip() {
    for kind in [Kind::Prose, Kind::Code, Kind::Quote, Kind::Data] {
        assert_eq!(Kind::parse(kind.as_str()), Some(kind));
    }
    assert_eq!(Kind::parse("Prose"), None);
}

#[test]
fn validate_before_write_catches_what_parse_would() {
    let mut lock = parse(WORKED_EXAMPLES).unwrap();
    assert!(lock.validate().is_ok());
    lock.schema_version = 2;
    assert_eq!(
        lock.validate().unwrap_err().kind,
        LockfileErrorKind::SchemaVersion
    );
    lock.schema_version = 1;
    lock.files
        .insert("../escape.md".to_owned(), entry(vec![], None));
    assert_eq!(
        lock.validate().unwrap_err().entry.as_deref(),
        Some("../escape.md")
    );
}

#[test]
fn writer_escapes_strings_like_json_stringify() {
    let mut e = entry(
        vec![span((1, 1), (1, 1), "cs", Kind::Quote)],
        Some("a\"b\\c"),
    );
    e.spans[0].note =
        Field::Value("\u{8}\u{c}\n\r\t\u{0}\u{1}\u{1f}\u{7f}\u{2028}\u{2029}é😀/<".to_owned());
    e.spans[0].path_hint = Field::Null;
    let text = to_canonical_string(&lock_with("žluťoučký kůň.md", e));
    // Expected lines checked against node's JSON.stringify.
    assert!(text.contains("    \"žluťoučký kůň.md\": {\n"), "{text}");
    assert!(
        text.contains("      \"reviewedBy\": \"a\\\"b\\\\c\",\n"),
        "{text}"
    );
    assert!(
        text.contains(
            "          \"note\": \"\\b\\f\\n\\r\\t\\u0000\\u0001\\u001f\u{7f}\u{2028}\u{2029}é😀/<\"\n"
        ),
        "{text}"
    );
    assert!(text.contains("          \"pathHint\": null,\n"), "{text}");
    assert_eq!(to_canonical_string(&parse(&text).unwrap()), text);
}

#[test]
fn files_are_ordered_as_javascript_orders_them() {
    // The order node prints for `JSON.stringify` of an object filled in sorted order.
    let expected = [
        "0", "10", "42", "01", "Z.md", "a.md", "b.md", "é.md", "😀.md", "～.md",
    ];
    let mut lock = Lockfile::new(Segmenter {
        backend: Backend::Manual,
        prompt_version: None,
    });
    for path in expected.iter().rev() {
        lock.files.insert((*path).to_owned(), entry(vec![], None));
    }
    let text = to_canonical_string(&lock);
    let positions: Vec<usize> = expected
        .iter()
        .map(|p| text.find(&format!("\n    \"{p}\": {{")).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{text}");
    assert_eq!(
        js_property_order("4294967294", "0"),
        std::cmp::Ordering::Greater
    );
    assert_eq!(
        js_property_order("4294967295", "0"),
        std::cmp::Ordering::Greater
    );
    assert_eq!(
        js_property_order("4294967295", "A"),
        std::cmp::Ordering::Less
    );
    assert_eq!(
        js_property_order("4294967294", "A"),
        std::cmp::Ordering::Less
    );
    assert_eq!(js_property_order("a/😀", "a/～"), std::cmp::Ordering::Less);
    assert_eq!(js_property_order("a/b", "a/b"), std::cmp::Ordering::Equal);
}

#[test]
fn span_range_covers_through_the_end_character() {
    let text = "ab\nžluť kůň\n😀x\r\nend";
    let idx = LineIndex::new(text);
    let range = |s, e| span_range(text, &idx, &span(s, e, "cs", Kind::Prose));
    assert_eq!(range((1, 1), (1, 1)), Some(0..1));
    let zl = text.find("žluť").unwrap();
    // `ť` is two bytes and is included whole.
    assert_eq!(range((2, 1), (2, 4)), Some(zl..zl + "žluť".len()));
    assert_eq!(&text[range((2, 6), (2, 8)).unwrap()], "kůň");
    // One past the line's end is its line break.
    assert_eq!(&text[range((2, 6), (2, 9)).unwrap()], "kůň\n");
    // The emoji is two columns. Its position is its first: a span ending on either
    // column covers it, one starting on its second starts after it.
    assert_eq!(&text[range((3, 1), (3, 1)).unwrap()], "😀");
    assert_eq!(&text[range((3, 1), (3, 2)).unwrap()], "😀");
    assert_eq!(range((3, 2), (3, 2)), None);
    assert_eq!(&text[range((3, 2), (3, 3)).unwrap()], "x");
    assert_eq!(&text[range((3, 3), (3, 4)).unwrap()], "x\r\n");
    assert_eq!(&text[range((1, 3), (4, 3)).unwrap()], &text[2..]);
    // At the end of a file without a final newline, the line-end column adds nothing.
    assert_eq!(range((4, 1), (4, 4)), Some(text.len() - 3..text.len()));
    assert_eq!(range((4, 1), (4, 5)), Some(text.len() - 3..text.len()));
    // Positions compared as pairs: an end past its line covers the rest of it, an end
    // past the last line covers the rest of the file, a start past its line starts on
    // the next one.
    assert_eq!(&text[range((2, 6), (2, 40)).unwrap()], "kůň\n");
    assert_eq!(
        &text[range((2, 6), (9, 1)).unwrap()],
        &text[text.find("kůň").unwrap()..]
    );
    assert_eq!(&text[range((1, 9), (2, 3)).unwrap()], "žlu");
    // A span that starts past the end of the file covers nothing.
    assert_eq!(range((4, 4), (4, 9)), None);
    assert_eq!(range((5, 1), (5, 1)), None);
    assert_eq!(range((2, 11), (2, 11)), None);
}

#[test]
fn whole_file_span_of_the_worked_example() {
    // 199 lines and a final newline: line 200 is the empty line after it.
    let text: String = (1..200).map(|i| format!("line {i}\n")).collect();
    let idx = LineIndex::new(&text);
    let whole = span((1, 1), (200, 1), "en", Kind::Prose);
    assert_eq!(span_range(&text, &idx, &whole), Some(0..text.len()));
    let index = SpanIndex::new(&text, &idx, std::slice::from_ref(&whole)).unwrap();
    assert_eq!(index.at(text.len() - 1), Some((Kind::Prose, "en")));
    // 200 full lines: the span ends at the first character of line 200.
    let text: String = (1..=200).map(|i| format!("line {i}\n")).collect();
    let idx = LineIndex::new(&text);
    let last = idx.line_range(&text, 200).unwrap().start;
    assert_eq!(span_range(&text, &idx, &whole), Some(0..last + 1));
}

#[test]
fn lockfile_add_clamps_ends_and_refuses_starts_past_the_file() {
    let text = "one\ntwo čtyři\n";
    let idx = LineIndex::new(text);
    let check = |spans: Vec<Span>| fit_spans_for_add(text, &idx, &spans);
    let exact = vec![span((1, 1), (2, 10), "cs", Kind::Prose)];
    assert_eq!(check(exact.clone()).unwrap(), (exact.clone(), vec![]));
    // The empty line after the final newline, a column past the end of line 2: both the
    // same text as the exact span, which is what gets written.
    for end in [(3, 1), (2, 11), (2, 99), (7, 1)] {
        let (fitted, clamped) = check(vec![span((1, 1), end, "cs", Kind::Prose)]).unwrap();
        assert_eq!(fitted, exact, "end {end:?}");
        assert_eq!(clamped.len(), 1);
        assert_eq!(
            clamped[0].to.1,
            LineCol {
                line: 2,
                column: 10
            }
        );
    }
    let err = check(vec![
        span((1, 1), (1, 2), "en", Kind::Prose),
        span((4, 1), (4, 1), "cs", Kind::Prose),
    ])
    .unwrap_err();
    assert_eq!(err.span, Some(1));
    assert_eq!(
        err.message,
        "the span starts on line 4, but the file has 3 lines"
    );
    assert_eq!(
        err.clone().in_entry("docs/a.md").to_string(),
        "entry \"docs/a.md\", span 2 (line 4:1): the span starts on line 4, but the file has 3 lines"
    );
    let err = check(vec![span((1, 6), (2, 2), "cs", Kind::Prose)]).unwrap_err();
    assert_eq!(
        err.message,
        "the span starts at column 6, past the end of line 1 (3 columns)"
    );
    let err = check(vec![span((3, 1), (3, 1), "cs", Kind::Prose)]).unwrap_err();
    assert!(err.message.contains("covers no character"), "{err}");
    let err = check(vec![
        span((1, 1), (1, 2), "en", Kind::Prose),
        span((1, 2), (1, 3), "en", Kind::Code),
    ])
    .unwrap_err();
    assert!(err.message.contains("overlap"));
    assert!(check(vec![span((1, 1), (1, 2), "xx1", Kind::Prose)]).is_err());
}

#[test]
fn normalize_writes_spans_exactly_and_drops_empty_ones() {
    let text = "one\ntwo 😀\n";
    let idx = LineIndex::new(text);
    let mut spans = vec![
        span((1, 1), (1, 40), "en", Kind::Prose),
        span((2, 1), (2, 6), "en", Kind::Prose),
        span((2, 7), (3, 1), "en", Kind::Prose),
        span((3, 1), (3, 1), "en", Kind::Prose),
    ];
    assert_eq!(normalize_spans(text, &idx, &mut spans), (2, 1));
    let ends: Vec<_> = spans.iter().map(|s| (s.start(), s.end())).collect();
    let at = |line, column| LineCol { line, column };
    assert_eq!(
        ends,
        vec![
            (at(1, 1), at(1, 4)),
            // The emoji's second column ends the span.
            (at(2, 1), at(2, 6)),
            (at(2, 7), at(2, 7)),
        ]
    );
    assert_eq!(normalize_spans(text, &idx, &mut spans), (0, 0));
}

#[test]
fn span_index_finds_spans_by_binary_search() {
    let text: String = (0..3000)
        .map(|i| format!("řádek {i:04} je tady\n"))
        .collect();
    let idx = LineIndex::new(&text);
    // Every other line is a span, alternating kind and language; odd lines are gaps.
    let spans: Vec<Span> = (1..=3000)
        .step_by(2)
        .map(|l| {
            if l % 4 == 1 {
                span((l, 1), (l, 5), "cs", Kind::Prose)
            } else {
                span((l, 3), (l, 15), "unknown", Kind::Code)
            }
        })
        .collect();
    let index = SpanIndex::new(&text, &idx, &spans).unwrap();
    assert_eq!(index.len(), 1500);
    for offset in 0..text.len() {
        let linear = index
            .iter()
            .find(|(r, _, _)| r.contains(&offset))
            .map(|(_, k, l)| (k, l));
        assert_eq!(index.at(offset), linear, "offset {offset}");
    }
    assert_eq!(index.at(0), Some((Kind::Prose, "cs")));
    assert_eq!(index.at("řádek".len()), None);
    assert_eq!(index.at(text.find("0001").unwrap()), None);
    assert_eq!(index.at(text.len()), None);
    assert_eq!(index.at(usize::MAX), None);

    let short = SpanIndex::new("short\n", &LineIndex::new("short\n"), &spans[..1]).unwrap();
    assert_eq!(short.at(0), Some((Kind::Prose, "cs")));
    // A span past the end of the file covers nothing and is left out.
    let outside = [span((9, 1), (9, 2), "cs", Kind::Prose)];
    let index = SpanIndex::new("short\n", &LineIndex::new("short\n"), &outside).unwrap();
    assert!(index.is_empty());
    assert!(
        SpanIndex::new("", &LineIndex::new(""), &[])
            .unwrap()
            .is_empty()
    );
}

#[test]
fn refresh_of_a_reviewed_entry_carries_notes_and_path_hints() {
    let mut title = span((6, 7), (6, 28), "en", Kind::Prose);
    title.path_hint = Field::Value("meta.en.title".to_owned());
    title.note = Field::Value("tagged from key path".to_owned());
    let mut code = span((8, 1), (9, 4), "unknown", Kind::Code);
    code.note = Field::Value("shell".to_owned());
    let mut cs = span((10, 7), (12, 3), "cs", Kind::Prose);
    cs.note = Field::Value("first cs".to_owned());
    let mut cs2 = span((12, 5), (12, 9), "cs", Kind::Prose);
    cs2.note = Field::Value("second cs".to_owned());
    cs2.path_hint = Field::Value("meta.cs.x".to_owned());
    let previous = entry(vec![title, code, cs, cs2], Some("ondrej@2026-04-12"));

    let mut own = span((12, 1), (12, 9), "cs", Kind::Prose);
    own.note = Field::Value("mine".to_owned());
    let new_spans = vec![
        // Moved down a line and grown: lines 6–7 intersect the old 6–6.
        span((6, 7), (7, 35), "en", Kind::Prose),
        // Same lines as the code span, but a different kind: nothing to inherit.
        span((8, 1), (8, 9), "en", Kind::Prose),
        // Intersects both Czech spans: the first one wins, whole.
        span((11, 1), (12, 1), "cs", Kind::Prose),
        // Has its own note; only the missing pathHint is inherited (from `cs`, the first
        // match, which has none, so it stays absent).
        own,
        span((30, 1), (30, 2), "cs", Kind::Prose),
    ];
    let refreshed = refreshed_entry(
        Some(&previous),
        new_spans,
        "sha256:new".to_owned(),
        "2026-04-15T14:00:00Z".to_owned(),
    );
    assert_eq!(refreshed.reviewed_by, None);
    assert_eq!(refreshed.content_hash, "sha256:new");
    assert_eq!(refreshed.segmented_at, "2026-04-15T14:00:00Z");
    let s = &refreshed.spans;
    assert_eq!(s[0].path_hint.value().unwrap(), "meta.en.title");
    assert_eq!(s[0].note.value().unwrap(), "tagged from key path");
    assert_eq!(s[1].note, Field::Absent);
    assert_eq!(s[2].note.value().unwrap(), "first cs");
    assert_eq!(s[2].path_hint, Field::Absent);
    assert_eq!(s[3].note.value().unwrap(), "mine");
    assert_eq!(s[3].path_hint, Field::Absent);
    assert_eq!(s[4].note, Field::Absent);
}

#[test]
fn refresh_fills_null_fields_but_replaces_unreviewed_entries_wholesale() {
    let mut old = span((1, 1), (3, 1), "en", Kind::Prose);
    old.note = Field::Value("keep".to_owned());
    let mut new = span((2, 1), (2, 5), "en", Kind::Prose);
    new.note = Field::Null;
    let reviewed = entry(vec![old.clone()], Some("r"));
    let out = refreshed_entry(Some(&reviewed), vec![new.clone()], HASH.into(), "t".into());
    assert_eq!(out.spans[0].note.value().unwrap(), "keep");

    let unreviewed = entry(vec![old], None);
    let out = refreshed_entry(
        Some(&unreviewed),
        vec![new.clone()],
        HASH.into(),
        "t".into(),
    );
    assert_eq!(out.spans, vec![new.clone()]);
    let out = refreshed_entry(None, vec![new.clone()], HASH.into(), "t".into());
    assert_eq!(out.spans, vec![new]);
    assert_eq!(out.reviewed_by, None);
}

#[test]
fn entry_states() {
    let lock = lock_with("a.md", entry(vec![], None));
    let e = &lock.files["a.md"];
    assert_eq!(entry_state(&lock, None, HASH, 1), EntryState::Missing);
    assert_eq!(
        entry_state(&lock, Some(e), "sha256:other", 1),
        EntryState::Stale
    );
    // The lockfile's prompt is version 2: ours (1) is older, nothing is outdated.
    assert_eq!(entry_state(&lock, Some(e), HASH, 1), EntryState::Fresh);
    assert_eq!(entry_state(&lock, Some(e), HASH, 2), EntryState::Fresh);
    assert_eq!(
        entry_state(&lock, Some(e), HASH, 3),
        EntryState::PromptOutdated
    );
    let reviewed = entry(vec![], Some("ondrej"));
    assert_eq!(
        entry_state(&lock, Some(&reviewed), HASH, 3),
        EntryState::Fresh
    );
    // A changed file is stale whatever the prompt.
    assert_eq!(
        entry_state(&lock, Some(e), "sha256:other", 3),
        EntryState::Stale
    );
    let mut manual = lock.clone();
    manual.segmenter = Segmenter {
        backend: Backend::Manual,
        prompt_version: Some(1),
    };
    assert_eq!(entry_state(&manual, Some(e), HASH, 3), EntryState::Fresh);
}

// ---- properties ----

fn arb_text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9 @._-]{1,12}",
        "[\\x00-\\x1f\"\\\\ \\x7f\u{2028}\u{2029}é😀～]{1,8}",
        any::<String>(),
    ]
    .prop_filter("a reviewer may not be blank", |s| !s.trim().is_empty())
}

fn arb_field() -> impl Strategy<Value = Field<String>> {
    prop_oneof![
        Just(Field::Absent),
        Just(Field::Null),
        arb_text().prop_map(Field::Value),
    ]
}

fn arb_path() -> impl Strategy<Value = String> {
    let component = "[a-zA-Z0-9_é😀～-][a-zA-Z0-9_.é😀～ -]{0,6}"
        .prop_filter("no dot components", |c| c != "." && c != "..");
    prop_oneof![
        prop::collection::vec(component, 1..4).prop_map(|c| c.join("/")),
        (0u32..100).prop_map(|n| n.to_string()),
    ]
}

/// Sorted, disjoint spans built from gaps and lengths, so every list is valid.
fn arb_spans() -> impl Strategy<Value = Vec<Span>> {
    let one = (
        (0u32..3, 0u32..40),
        (0u32..3, 0u32..40),
        prop_oneof![Just("en"), Just("cs"), Just("unknown"), Just("de")],
        prop_oneof![
            Just(Kind::Prose),
            Just(Kind::Code),
            Just(Kind::Quote),
            Just(Kind::Data)
        ],
        arb_field(),
        arb_field(),
    );
    prop::collection::vec(one, 0..6).prop_map(|parts| {
        let mut at = (1u32, 0u32);
        parts
            .into_iter()
            .map(|(gap, len, language, kind, path_hint, note)| {
                let start = advance(at, gap, true);
                let end = advance(start, len, false);
                at = end;
                Span {
                    start_line: start.0,
                    start_column: start.1,
                    end_line: end.0,
                    end_column: end.1,
                    language: language.to_owned(),
                    kind,
                    path_hint,
                    note,
                }
            })
            .collect()
    })
}

/// Moves forward by whole lines (to a column from `step.1`) or within the line; a start
/// must move strictly forward, an end may stay put (a one-character span).
fn advance(at: (u32, u32), step: (u32, u32), strictly: bool) -> (u32, u32) {
    if step.0 > 0 {
        (at.0 + step.0, step.1 + 1)
    } else {
        (at.0, at.1 + step.1 + u32::from(strictly))
    }
}

fn arb_lockfile() -> impl Strategy<Value = Lockfile> {
    let segmenter = prop_oneof![
        (1u32..5).prop_map(|v| Segmenter {
            backend: Backend::Agent,
            prompt_version: Some(v)
        }),
        prop::option::of(1u32..5).prop_map(|v| Segmenter {
            backend: Backend::Structural,
            prompt_version: v
        }),
        Just(Segmenter {
            backend: Backend::Manual,
            prompt_version: None
        }),
    ];
    let entry = (
        any::<[u8; 32]>(),
        (
            2000u32..2100,
            1u32..13,
            1u32..29,
            0u32..24,
            prop::option::of(0u32..1000),
        ),
        prop::option::of(arb_text()),
        arb_spans(),
    )
        .prop_map(|(hash, (y, mo, d, h, frac), reviewed_by, spans)| Entry {
            content_hash: crate::hash::ContentHash(hash).to_string(),
            segmented_at: match frac {
                Some(f) => format!("{y:04}-{mo:02}-{d:02}T{h:02}:05:09.{f:03}Z"),
                None => format!("{y:04}-{mo:02}-{d:02}T{h:02}:59:00Z"),
            },
            reviewed_by,
            spans,
        });
    (
        segmenter,
        prop::collection::btree_map(arb_path(), entry, 0..5),
    )
        .prop_map(|(segmenter, files)| Lockfile {
            schema_version: 1,
            segmenter,
            files,
        })
}

/// The definition the checker must agree with, written as plainly as possible.
fn spans_are_valid(spans: &[Span]) -> bool {
    let key = |l: u32, c: u32| (l, c);
    spans.iter().all(|s| {
        s.start_line >= 1
            && s.start_column >= 1
            && s.end_line >= 1
            && s.end_column >= 1
            && key(s.start_line, s.start_column) <= key(s.end_line, s.end_column)
    }) && spans
        .windows(2)
        .all(|w| key(w[0].end_line, w[0].end_column) < key(w[1].start_line, w[1].start_column))
}

proptest! {
    #[test]
    fn canonical_write_then_read_is_the_identity(lock in arb_lockfile()) {
        let text = to_canonical_string(&lock);
        let read = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert_eq!(&read, &lock);
        prop_assert_eq!(to_canonical_string(&read), text);
    }

    #[test]
    fn span_checks_accept_exactly_sorted_disjoint_lists(
        raw in prop::collection::vec((0u32..4, 0u32..4, 0u32..4, 0u32..4), 0..5)
    ) {
        let spans: Vec<Span> = raw
            .iter()
            .map(|&(a, b, c, d)| span((a, b), (c, d), "en", Kind::Prose))
            .collect();
        prop_assert_eq!(
            super::check::check_span_list(&spans).is_ok(),
            spans_are_valid(&spans)
        );
    }

    #[test]
    fn span_index_agrees_with_span_range(
        lines in prop::collection::vec("[a-zž😀 ]{0,6}", 1..8),
        spans in arb_spans(),
    ) {
        let text = lines.join("\n");
        let idx = LineIndex::new(&text);
        let ranges: Vec<_> = spans.iter().map(|s| span_range(&text, &idx, s)).collect();
        match SpanIndex::new(&text, &idx, &spans) {
            Ok(index) => {
                for offset in 0..=text.len() {
                    let expected = spans
                        .iter()
                        .zip(&ranges)
                        .find(|(_, r)| r.as_ref().is_some_and(|r| r.contains(&offset)))
                        .map(|(s, _)| (s.kind, s.language.as_str()));
                    prop_assert_eq!(index.at(offset), expected);
                }
            }
            Err(_) => prop_assert!(super::check::check_span_list(&spans).is_err()),
        }
    }

    /// The findings cache keys a report by `filter_key`: spans that differ only in what
    /// the filter does not read (notes, path hints) have one key and filter alike; a
    /// change to anything it reads changes the key.
    #[test]
    fn the_filter_key_covers_exactly_what_the_filter_reads(
        lines in prop::collection::vec("[a-zž😀 ]{0,6}", 1..8),
        spans in arb_spans(),
        note in "[a-z ]{0,8}",
    ) {
        let text = lines.join("\n");
        let idx = LineIndex::new(&text);
        let mut annotated = spans.clone();
        for s in &mut annotated {
            s.note = Field::Value(note.clone());
            s.path_hint = Field::Value(format!("hint.{note}"));
        }
        prop_assert_eq!(filter_key(&spans), filter_key(&annotated));
        if let (Ok(a), Ok(b)) = (
            SpanIndex::new(&text, &idx, &spans),
            SpanIndex::new(&text, &idx, &annotated),
        ) {
            for offset in 0..=text.len() {
                prop_assert_eq!(a.at(offset), b.at(offset));
            }
        }
        if let Some(first) = spans.first() {
            let mut relabelled = spans.clone();
            relabelled[0].language = if first.language == "cs" { "en".into() } else { "cs".into() };
            prop_assert_ne!(filter_key(&spans), filter_key(&relabelled));
            let mut moved = spans.clone();
            moved[0].end_column += 1;
            prop_assert_ne!(filter_key(&spans), filter_key(&moved));
        }
    }
}

// ---- the canonical layout's reader ----

/// The members of a lockfile's `files` object as the layout reader takes a piece: from
/// the line break before the first path to the last entry's closing brace. None for a
/// lockfile without entries.
fn files_piece(text: &str) -> Option<String> {
    let open = text.find("\n  \"files\": {\n")? + "\n  \"files\": {".len();
    let piece = text[open..].strip_suffix("\n  }\n}\n")?;
    Some(piece.to_owned())
}

/// What the layout reader makes of `piece`, which must be what the strict reader makes
/// of it (as a JSON object) whenever the layout reader accepts it.
fn layout_agrees(piece: &str) -> Result<Option<Vec<(String, Entry)>>, TestCaseError> {
    let fast = super::layout::files(piece);
    if let Some(fast) = &fast {
        let strict = super::de::files_object(&format!("{{{piece}}}"));
        prop_assert_eq!(strict.as_ref(), Some(fast), "{}", piece);
    }
    Ok(fast)
}

/// What the fast path makes of a whole lockfile's `text`, cut into `pieces` pieces: when it
/// reads it at all, the strict reader's lockfile.
fn whole_read_agrees(text: &str, pieces: usize) -> Result<Option<Lockfile>, TestCaseError> {
    let fast = super::layout::read(text, pieces);
    if let Some(fast) = &fast {
        let strict = parse(text).ok();
        prop_assert_eq!(strict.as_ref(), Some(fast), "{}", text);
    }
    prop_assert_eq!(read(text).ok(), parse(text).ok());
    Ok(fast)
}

/// `text` with `edits` made (a character replaced, inserted or removed at each index);
/// None once nothing is left.
fn edited(text: &str, edits: &[(prop::sample::Index, u8, char)]) -> Option<String> {
    let mut chars: Vec<char> = text.chars().collect();
    for (at, op, c) in edits {
        let i = at.index(chars.len());
        match op {
            0 => chars[i] = *c,
            1 => chars.insert(i, *c),
            _ => {
                chars.remove(i);
            }
        }
        if chars.is_empty() {
            return None;
        }
    }
    Some(chars.into_iter().collect())
}

/// Characters that make or break JSON and the layout.
const LAYOUT_EDITS: &[char] = &[
    ' ', '\n', '\t', '"', '\\', '0', '1', '9', ',', '{', '}', '[', ']', ':', 'n', 'u', 'e', '.',
    '-', '\u{1}', '\u{7f}', 'é', '😀',
];

proptest! {
    #[test]
    fn the_layout_reader_reads_every_canonical_lockfile(lock in arb_lockfile()) {
        let text = to_canonical_string(&lock);
        let Some(piece) = files_piece(&text) else {
            return Ok(());
        };
        let read = layout_agrees(&piece)?.expect("a canonical lockfile is in the layout");
        // In the text's order, which is JavaScript's, not the map's.
        prop_assert_eq!(read.len(), lock.files.len());
        prop_assert_eq!(read.into_iter().collect::<BTreeMap<_, _>>(), lock.files.clone());
        // Whole, cut into any number of pieces.
        for pieces in 1..=5 {
            let whole = whole_read_agrees(&text, pieces)?;
            prop_assert_eq!(whole.as_ref(), Some(&lock));
        }
    }

    #[test]
    fn the_fast_path_reads_a_whole_lockfile_as_the_strict_reader_or_not_at_all(
        lock in arb_lockfile(),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), 0u8..3, prop::sample::select(LAYOUT_EDITS)),
            1..4,
        ),
        pieces in 1usize..5,
    ) {
        let Some(text) = edited(&to_canonical_string(&lock), &edits) else {
            return Ok(());
        };
        whole_read_agrees(&text, pieces)?;
    }

    #[test]
    fn the_layout_reader_accepts_only_what_the_strict_reader_reads_alike(
        lock in arb_lockfile(),
        edits in prop::collection::vec(
            (any::<prop::sample::Index>(), 0u8..3, prop::sample::select(LAYOUT_EDITS)),
            1..4,
        ),
    ) {
        let Some(piece) = files_piece(&to_canonical_string(&lock)) else {
            return Ok(());
        };
        let Some(piece) = edited(&piece, &edits) else {
            return Ok(());
        };
        layout_agrees(&piece)?;
    }
}

#[test]
fn the_layout_reader_reads_the_worked_examples() {
    let lock = parse(WORKED_EXAMPLES).unwrap();
    let piece = files_piece(&to_canonical_string(&lock)).unwrap();
    let expected: Vec<_> = lock.files.into_iter().collect();
    assert_eq!(super::layout::files(&piece), Some(expected));
}

#[test]
fn the_layout_reader_leaves_to_the_strict_reader_what_it_does_not_predict() {
    let lock = parse(WORKED_EXAMPLES).unwrap();
    let piece = files_piece(&to_canonical_string(&lock)).unwrap();
    assert!(piece.contains("\"startLine\": 1,"), "{piece}");
    assert!(piece.contains("\"pathHint\": "), "{piece}");
    let cases = [
        // Still JSON, and read alike by the strict reader.
        piece.replacen("\"startLine\": 1,", "\"startLine\": 1 ,", 1),
        piece.replacen("\"startLine\": 1,", "\"startLine\":1,", 1),
        // Not JSON, or not a lockfile: the strict reader reports it.
        piece.replacen("\"startLine\": 1,", "\"startLine\": 01,", 1),
        piece.replacen("\"startLine\": 1,", "\"startLine\": 4294967296,", 1),
        piece.replacen("\"startLine\": 1,", "\"startLine\": 1.0,", 1),
        piece.replacen("\"kind\": \"prose\"", "\"kind\": \"verse\"", 1),
        piece.replacen("\"kind\": \"prose\"", "\"kind\": \"pro\u{1}se\"", 1),
    ];
    for case in cases {
        assert_ne!(case, piece);
        assert_eq!(super::layout::files(&case), None, "{case}");
    }
    // Strings with escapes are in the layout: serde_json decodes them.
    for quoted in [
        piece.replacen("\"pathHint\": \"", "\"pathHint\": \"\\\"\\u00e9\\\"", 1),
        piece.replacen("\"kind\": \"prose\"", "\"kind\": \"pr\\u006fse\"", 1),
    ] {
        assert_ne!(quoted, piece);
        let read = super::layout::files(&quoted).unwrap();
        assert_eq!(
            Some(read),
            super::de::files_object(&format!("{{{quoted}}}"))
        );
    }
}

#[test]
fn conflict_markers_are_named_with_their_line() {
    let mut lines: Vec<&str> = WORKED_EXAMPLES.lines().collect();
    lines.insert(4, "<<<<<<< HEAD");
    lines.insert(6, "=======");
    lines.insert(8, ">>>>>>> feature/agenda");
    let text = lines.join("\n");
    let err = parse(&text).unwrap_err();
    assert_eq!((err.line, err.column), (Some(5), Some(1)));
    assert!(
        err.to_string().contains("git merge conflict markers"),
        "{err}"
    );
}

/// Issue 28: an empty lockfile is named as such, and no position is column 0 (serde_json
/// counts 0 before a line's first character).
#[test]
fn an_empty_or_cut_lockfile_is_placed_at_a_real_column() {
    for empty in ["", "\n", "  \n\t"] {
        let err = parse(empty).unwrap_err();
        assert_eq!((err.line, err.column), (Some(1), Some(1)));
        assert!(err.to_string().contains("the lockfile is empty"), "{err}");
    }
    let cut = &WORKED_EXAMPLES[..WORKED_EXAMPLES.find("\"files\"").unwrap()];
    let err = parse(cut).unwrap_err();
    assert!(err.column.is_some_and(|c| c >= 1), "{err:?}");
}
