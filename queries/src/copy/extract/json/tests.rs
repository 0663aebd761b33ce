//! Tests of JSON extraction, kept apart from the scanner's code.

use super::*;
use crate::copy::extract::testing::{assert_maps_back, hints, src_of, texts};
use proptest::prelude::*;

fn views(src: &str) -> Vec<View> {
    let views = extract(src, PathHints::With).unwrap();
    assert_maps_back(src, &views);
    views
}

fn error(src: &str) -> ExtractError {
    extract(src, PathHints::With).expect_err("invalid JSON")
}

#[test]
fn one_view_per_leaf_string_with_its_key_path() {
    let src = r#"{
  "meta": { "en": { "title": "Harness Lab", "n": 3, "ok": true, "x": null } },
  "items": [ {}, [], 1, { "cs": { "body": "v lese" } } ],
  "weird key": { "a-b": "c" },
  "empty": ""
}"#;
    let v = views(src);
    assert_eq!(texts(&v), ["Harness Lab", "v lese", "c"]);
    assert_eq!(
        hints(&v),
        [
            Some("meta.en.title"),
            Some("items[3].cs.body"),
            Some("[\"weird key\"][\"a-b\"]")
        ]
    );
    // The source range of a view is the inside of the quotes.
    assert_eq!(&src[v[0].source_range(0..v[0].text.len())], "Harness Lab");
    assert!(v[0].is_verbatim(0..v[0].text.len()));
}

#[test]
fn top_level_arrays_and_strings() {
    let v = views(r#"[{"x": "a"}, "b", ["c"]]"#);
    assert_eq!(hints(&v), [Some("[0].x"), Some("[1]"), Some("[2][0]")]);
    let v = views(r#" "solo" "#);
    assert_eq!(texts(&v), ["solo"]);
    assert_eq!(hints(&v), [None]);
}

#[test]
fn escapes_are_decoded_and_map_back_exactly() {
    let src = r#"{"k": "a \"q\" b \u00e9 c \uD83D\uDE00 d \\ e \/ f\n g"}"#;
    let v = views(src);
    let view = &v[0];
    assert_eq!(view.text, "a \"q\" b é c 😀 d \\ e / f\n g");
    // A finding right after each escape lands on the right source byte.
    assert_eq!(src_of(src, view, "q\""), "q\\\"");
    assert_eq!(src_of(src, view, " b"), " b");
    assert_eq!(src_of(src, view, "é"), "\\u00e9");
    assert_eq!(src_of(src, view, " c"), " c");
    assert_eq!(src_of(src, view, "😀"), "\\uD83D\\uDE00");
    assert_eq!(src_of(src, view, " d"), " d");
    assert_eq!(src_of(src, view, "\\ e"), "\\\\ e");
    assert_eq!(src_of(src, view, "/ f"), "\\/ f");
    assert_eq!(src_of(src, view, "\n g"), "\\n g");
    let d = view.text.find(" d").unwrap();
    assert_eq!(view.source_offset(d + 1), src.find(" d").unwrap() + 1);
    assert!(!view.is_verbatim(d - 4..d));
    assert!(view.is_verbatim(d..d + 2));
}

#[test]
fn keys_with_escapes_are_decoded_in_path_hints() {
    let v = views(r#"{"a\u0062": {"q\"": "x"}}"#);
    assert_eq!(hints(&v), [Some("ab[\"q\\\"\"]")]);
}

#[test]
fn crlf_bom_and_whitespace_are_fine() {
    let src = "\u{FEFF}{\r\n\t\"a\": \"b\"\r\n}\r\n";
    let v = views(src);
    assert_eq!(texts(&v), ["b"]);
    assert_eq!(v[0].source_offset(0), src.find('b').unwrap());
}

#[test]
fn invalid_json_is_an_error_at_the_problem() {
    let cases = [
        (r#"{"a": 1,}"#, 7, "trailing comma"),
        (r#"[1, 2, ]"#, 5, "trailing comma"),
        ("{\"a\": 1 // c\n}", 8, "comments"),
        ("/* c */ {}", 0, "comments"),
        (r#"{"a": "b\x"}"#, 8, "invalid escape"),
        ("[\"a\nb\"]", 3, "control character U+000A"),
        (r#"[01]"#, 1, "leading zeros"),
        (r#"[1.]"#, 1, "invalid number"),
        (r#"[-]"#, 1, "invalid number"),
        (r#"[.5]"#, 1, "unexpected '.'"),
        (r#"{"a": "b"#, 6, "unterminated string"),
        (r#"{"a" "b"}"#, 5, "':'"),
        (r#"{a: 1}"#, 1, "object key"),
        (r#"['a']"#, 1, "single-quoted"),
        (r#"{"a": 1} x"#, 9, "after the JSON value"),
        (r#"{"a": [1 2]}"#, 9, "',' or ']'"),
        (r#"{"a": 1 "b": 2}"#, 8, "',' or '}'"),
        (r#"["\uD800"]"#, 2, "unpaired surrogate"),
        (r#"["\uDE00 "]"#, 2, "unpaired surrogate"),
        (r#"["\u12"]"#, 2, "four hex digits"),
        (r#"[tru]"#, 1, "unexpected 't'"),
        ("", 0, "end of input"),
        ("[", 1, "end of input"),
    ];
    for (src, offset, needle) in cases {
        let e = error(src);
        assert_eq!(e.offset, offset, "{src}: {e:?}");
        assert!(e.message.contains(needle), "{src}: {e:?}");
    }
}

#[test]
fn deep_nesting_does_not_overflow() {
    let depth = 100_000;
    let src = format!("{}\"x\"{}", "[".repeat(depth), "]".repeat(depth));
    let v = extract(&src, PathHints::With).unwrap();
    assert_eq!(texts(&v), ["x"]);
}

#[test]
fn many_strings_extract_in_one_pass() {
    let mut src = String::from("{\"items\": [");
    for i in 0..20_000 {
        if i > 0 {
            src.push(',');
        }
        src.push_str(&format!(
            "{{\"cs\": {{\"title\": \"Položka \\\"{i}\\\" v lese\", \"n\": {i}}}}}"
        ));
    }
    src.push_str("]}");
    let v = extract(&src, PathHints::With).unwrap();
    assert_eq!(v.len(), 20_000);
    assert_eq!(v[7].text, "Položka \"7\" v lese");
    assert_eq!(v[7].path_hint.as_deref(), Some("items[7].cs.title"));
}

/// A JSON value written with a random choice of escapes for every character.
fn json_text() -> impl Strategy<Value = String> {
    let chars = prop::sample::select(vec![
        "a",
        "é",
        "😀",
        " ",
        "\\\"",
        "\\\\",
        "\\/",
        "\\n",
        "\\t",
        "\\u00e9",
        "\\uD83D\\uDE00",
        "\\u0041",
        "x",
        "ř",
    ]);
    let string = prop::collection::vec(chars, 0..6).prop_map(|p| format!("\"{}\"", p.concat()));
    let leaf = prop_oneof![
        string,
        Just("1".to_owned()),
        Just("-0.5e3".to_owned()),
        Just("true".to_owned()),
        Just("null".to_owned()),
    ];
    leaf.prop_recursive(4, 32, 4, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(inner, 0..4).prop_map(|v| {
                let members: Vec<_> = v
                    .iter()
                    .enumerate()
                    .map(|(i, v)| format!("\"k{i}\":\n {v}"))
                    .collect();
                format!("{{{}}}", members.join(","))
            }),
        ]
    })
}

fn leaf_strings(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) if !s.is_empty() => out.push(s.clone()),
        serde_json::Value::Array(a) => a.iter().for_each(|x| leaf_strings(x, out)),
        serde_json::Value::Object(o) => o.values().for_each(|x| leaf_strings(x, out)),
        _ => {}
    }
}

proptest! {
    #[test]
    fn valid_json_gives_serde_json_strings_mapped_back(src in json_text()) {
        let v = extract(&src, PathHints::With).unwrap();
        assert_maps_back(&src, &v);
        let parsed: serde_json::Value = serde_json::from_str(&src).unwrap();
        let mut expected = Vec::new();
        leaf_strings(&parsed, &mut expected);
        // serde_json's maps are sorted by key, so compare as sorted lists.
        let mut got: Vec<_> = v.iter().map(|v| v.text.clone()).collect();
        got.sort();
        expected.sort();
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn json_ish_noise_is_accepted_exactly_when_serde_json_accepts_it(
        parts in prop::collection::vec(prop::sample::select(vec![
            "{", "}", "[", "]", ":", ",", "\"", "\\", "u", "D83D", "a", "é", "1", "0", "-",
            ".", "e", " ", "\n", "\r\n", "true", "null", "/", "*", "\t", "'",
        ]), 0..24)
    ) {
        let src = parts.concat();
        let ours = extract(&src, PathHints::With);
        if let Ok(v) = &ours {
            assert_maps_back(&src, v);
        } else if let Err(e) = &ours {
            prop_assert!(e.offset <= src.len());
        }
        let theirs = serde_json::from_str::<serde_json::Value>(&src);
        prop_assert_eq!(ours.is_ok(), theirs.is_ok(), "{:?}: {:?}", src, ours);
    }
}
