//! Tests of YAML extraction, kept apart from the extractor's code.

use super::schema::is_core_non_string;
use super::*;
use crate::copy::extract::testing::{assert_maps_back, hints, src_of, texts};
use saphyr_parser::ScalarStyle;

fn views(src: &str) -> Vec<View> {
    let views = extract(src, PathHints::With).unwrap();
    assert_maps_back(src, &views);
    views
}

#[test]
fn string_values_with_key_paths() {
    let src = "\
meta:
  en:
    title: Harness Lab
  cs:
    title: Žluťoučký kůň v lese
    count: 3
    on: true
    none: ~
    pi: -1.5e3
items:
  - name: první
  - [x, \"y\"]
\"weird key\": {a: b, n: 0x1F}
tagged: !!str 5
empty: ''
";
    let v = views(src);
    assert_eq!(
        texts(&v),
        [
            "Harness Lab",
            "Žluťoučký kůň v lese",
            "první",
            "x",
            "y",
            "b",
            "5"
        ]
    );
    assert_eq!(
        hints(&v),
        [
            Some("meta.en.title"),
            Some("meta.cs.title"),
            Some("items[0].name"),
            Some("items[1][0]"),
            Some("items[1][1]"),
            Some("[\"weird key\"].a"),
            Some("tagged"),
        ]
    );
    for view in &v {
        assert!(view.is_verbatim(0..view.text.len()), "{:?}", view.text);
    }
    // Byte offsets, not character offsets, after the Czech title.
    assert_eq!(src_of(src, &v[2], "první"), "první");
}

#[test]
fn plain_multi_line_scalars_fold() {
    let src = "a: one v\n  lese\n\n  three\n";
    let v = views(src);
    assert_eq!(v[0].text, "one v lese\nthree");
    let at = v[0].text.find(' ').unwrap();
    assert_eq!(src_of(src, &v[0], "v lese"), "v\n  lese");
    assert!(v[0].is_verbatim(0..at));
    assert_eq!(src_of(src, &v[0], "three"), "three");
}

#[test]
fn quoted_scalars_decode_escapes() {
    let src = "s: 'it''s v\n  lese'\nd: \"a\\\"b\\u00e9 c\\\n  d\\n\\x41\"\n";
    let v = views(src);
    assert_eq!(texts(&v), ["it's v lese", "a\"bé cd\nA"]);
    assert_eq!(src_of(src, &v[0], "'s"), "''s");
    assert_eq!(src_of(src, &v[1], "\"b"), "\\\"b");
    assert_eq!(src_of(src, &v[1], "é c"), "\\u00e9 c");
    assert_eq!(src_of(src, &v[1], "cd"), "c\\\n  d");
    assert_eq!(src_of(src, &v[1], "A"), "\\x41");
}

#[test]
fn block_scalars_map_line_by_line() {
    let src = "lit: |\n  line one\n  v lese\n\nfold: >-\n  f one\n  f two\n\n  f three\n";
    let v = views(src);
    assert_eq!(texts(&v), ["line one\nv lese\n", "f one f two\nf three"]);
    assert_eq!(src_of(src, &v[0], "v lese"), "v lese");
    assert_eq!(src_of(src, &v[0], "one\nv"), "one\n  v");
    assert_eq!(src_of(src, &v[1], "one f"), "one\n  f");
    assert_eq!(src_of(src, &v[1], "f three"), "f three");
    // A kept final line break ends at the line ending, not at the next key.
    let src = "a:\n  b: |\n    x\n  c: y\n";
    let v = views(src);
    assert_eq!(src_of(src, &v[0], "x\n"), "x\n");
}

#[test]
fn anchored_and_kept_block_scalars() {
    let src = "a: &x |\n\n  line\n\n    more\n  end\n\nb: *x\nc: >+\n  keep\n\n";
    let v = views(src);
    assert_eq!(texts(&v), ["\nline\n\n  more\nend\n", "keep\n\n"]);
    assert_eq!(hints(&v), [Some("a"), Some("c")]);
    assert_eq!(src_of(src, &v[0], "more"), "more");
    assert_eq!(src_of(src, &v[1], "keep"), "keep");
}

#[test]
fn explicit_indentation_indicators() {
    let src = "e: |2\n    two\n   three\n";
    let v = views(src);
    assert_eq!(v[0].text, "  two\n three\n");
    assert_eq!(v[0].source_offset(0), src.find("  two").unwrap());
    assert!(v[0].is_verbatim(0..5));
}

#[test]
fn scalars_the_decoder_does_not_know_fall_back_to_one_opaque_piece() {
    let src = "a: x\n";
    let d = map_scalar(src, 3..4, ScalarStyle::Plain, "not x");
    let v = d
        .into_view_unless_empty(ViewRole::Text, None, None)
        .unwrap();
    assert_eq!(v.text, "not x");
    assert_eq!(v.source_range(0..5), 3..4);
    assert!(!v.is_verbatim(0..1));
}

#[test]
fn crlf_line_breaks() {
    let src = "a: one\r\n  two\r\nb: |\r\n  x\r\n  y\r\n";
    let v = views(src);
    assert_eq!(texts(&v), ["one two", "x\ny\n"]);
    assert_eq!(src_of(src, &v[0], " "), "\r\n  ");
    assert_eq!(src_of(src, &v[1], "y"), "y");
}

#[test]
fn keys_are_never_views() {
    let src = "? [a, b]\n: value\nplain: x\n";
    let v = views(src);
    assert_eq!(texts(&v), ["value", "x"]);
    assert_eq!(hints(&v), [Some("[\"?\"]"), Some("plain")]);
}

#[test]
fn top_level_sequences_and_documents() {
    let v = views("- a\n- x: b\n---\nc: d\n");
    assert_eq!(hints(&v), [Some("[0]"), Some("[1].x"), Some("c")]);
    let v = views("just text\n");
    assert_eq!(hints(&v), [None]);
}

#[test]
fn invalid_yaml_is_an_error_with_a_byte_offset() {
    let src = "á: b: c\n";
    let e = extract(src, PathHints::With).unwrap_err();
    assert!(e.message.starts_with("invalid YAML: "), "{e:?}");
    assert_eq!(e.offset, src.find(": c").unwrap());
    let e = extract("ž: [1, 2\nb: x\n", PathHints::With).unwrap_err();
    assert!(e.offset <= 16, "{e:?}");
}

#[test]
fn core_schema_non_strings() {
    for v in [
        "1", "-2", "+3", "0x1F", "0o17", "1.5", ".5", "1e3", "-1.5E-3", ".inf", "-.Inf",
    ] {
        assert!(is_core_non_string(v), "{v}");
    }
    for v in ["1.2.3", "v1", "0x", "e3", "1e", "abc", "yes", "-", "."] {
        assert!(!is_core_non_string(v), "{v}");
    }
}

#[test]
fn char_index_counts_characters() {
    let text = "ž".repeat(600) + "x";
    let idx = CharIndex::new(&text);
    assert_eq!(idx.byte(0), 0);
    assert_eq!(idx.byte(300), 600);
    assert_eq!(idx.byte(301), 602);
    assert_eq!(idx.byte(600), 1200);
    assert_eq!(idx.byte(10), 20);
    assert_eq!(idx.byte(601), 1201);
    assert_eq!(idx.byte(5000), 1201);
    assert_eq!(idx.byte(599), 1198);
}
