use super::*;

const GOLDEN: &str = include_str!("../../../../fixtures/golden/cell_count/cell_count.tr");

/// `(code, line, column)` of every diagnostic.
fn all_diags(file_name: &str, text: &str) -> Vec<(&'static str, u32, u32)> {
    parse(file_name, text)
        .diagnostics
        .iter()
        .map(|d| (d.code, d.at.line, d.at.column))
        .collect()
}

/// What a definition cannot do without; [`obligations`] tests them, the tests of the
/// other rules use files too small to meet them.
const OBLIGATIONS: [&str; 2] = ["tr-missing-prose", "tr-missing-test-block"];

/// `(code, line, column)` of every diagnostic but the [`OBLIGATIONS`].
fn diags(file_name: &str, text: &str) -> Vec<(&'static str, u32, u32)> {
    all_diags(file_name, text)
        .into_iter()
        .filter(|(code, ..)| !OBLIGATIONS.contains(code))
        .collect()
}

/// The diagnostics of a parse but the [`OBLIGATIONS`].
fn others(tr: &TrFile) -> Vec<&Diagnostic> {
    tr.diagnostics
        .iter()
        .filter(|d| !OBLIGATIONS.contains(&d.code))
        .collect()
}

/// A function file around `body`, well formed once `body` holds a test block.
fn function(body: &str) -> String {
    format!("---\nname: f\n---\n\n```soil-sig\nf : I64\n```\n{body}")
}

#[test]
fn golden_file_parses_cleanly() {
    let tr = parse("cell_count.tr", GOLDEN);
    assert_eq!(tr.kind, FileKind::Function);
    assert_eq!(tr.diagnostics, []);
    let fm = tr.frontmatter.as_ref().unwrap();
    assert_eq!(fm.name, "cell_count");
    assert_eq!(fm.tags, ["stats"]);
    assert_eq!(&GOLDEN[fm.name_line_range.clone()], "name: cell_count\n");
    assert_eq!(
        &GOLDEN[fm.range.clone()],
        "---\nname: cell_count\ntags: [stats]\n---\n"
    );
    let ids: Vec<_> = tr.blocks.iter().map(Block::identity).collect();
    assert_eq!(ids, ["soil-sig", "ensures", "test basics"]);
    let test = &tr.blocks[2];
    assert_eq!(test.content, "([]) => 0\n([1.0, 2.5, 3.0]) => 3\n");
    assert_eq!(test.line, 19);
    assert_eq!(
        &GOLDEN[test.fence_range.clone()],
        "```test basics\n([]) => 0\n([1.0, 2.5, 3.0]) => 3\n```\n"
    );
    assert_eq!(test.class(), BlockClass::Test);
    assert_eq!(tr.blocks[0].class(), BlockClass::Formal);
}

#[test]
fn info_is_normalised_and_identity_drops_modifiers() {
    let text = function("\n```test  odd\txfail   @agent\n(1) => 1\n```\n");
    let tr = parse("f.tr", &text);
    assert_eq!(others(&tr), Vec::<&Diagnostic>::new());
    let b = &tr.blocks[1];
    assert_eq!((b.xfail, b.agent), (true, true));
    assert_eq!(b.identity(), "test odd");
    assert_eq!(b.normalized_info(), "test odd xfail @agent");
}

#[test]
fn kind_comes_from_file_name_then_soil_type() {
    let ty = "---\nname: point\n---\n```soil-type\nPoint\n```\n```invariant\nok\n```\n";
    assert_eq!(parse("point.tr", ty).kind, FileKind::Type);
    assert_eq!(others(&parse("point.tr", ty)), Vec::<&Diagnostic>::new());
    let module = "---\nname: stats\n---\n```exports\nmedian\n```\n```decisions\nd\n```\n";
    assert_eq!(parse("stats/_module.tr", module).kind, FileKind::Module);
    assert_eq!(parse("stats\\_module.tr", module).diagnostics, []);
    let project = "---\nname: demo\n---\n```decisions\nd\n```\n";
    assert_eq!(parse("_project.tr", project).kind, FileKind::Project);
    assert_eq!(parse("_project.tr", project).diagnostics, []);
    assert_eq!(parse("cell_count.tr", GOLDEN).kind, FileKind::Function);
    assert_eq!(FileKind::Module.as_str(), "module");
    // The file name wins over the blocks: a soil-type in a header is misplaced, not a type.
    let odd = "---\nname: m\n---\n```soil-type\nT\n```\n";
    assert_eq!(parse("_module.tr", odd).kind, FileKind::Module);
    // And it still needs its `exports` block.
    assert_eq!(
        diags("_module.tr", odd),
        [("tr-block-count", 1, 1), ("tr-block-kind", 4, 1)]
    );
}

#[test]
fn missing_frontmatter() {
    let text = "```soil-sig\nf : I64\n```\n";
    let tr = parse("f.tr", text);
    assert_eq!(tr.frontmatter, None);
    assert_eq!(diags("f.tr", text), [("tr-missing-frontmatter", 1, 1)]);
    let bom = format!("\u{feff}{}", function(""));
    let tr = parse("f.tr", &bom);
    assert_eq!(tr.diagnostics[0].code, "tr-missing-frontmatter");
    assert!(tr.diagnostics[0].message.contains("byte order mark"));
    assert_eq!(diags("f.tr", ""), [("tr-missing-frontmatter", 1, 1)]);
}

#[test]
fn frontmatter_syntax_errors_point_at_the_line() {
    let unclosed = "---\nname: f\n\n```soil-sig\nf : I64\n```\n";
    assert_eq!(diags("f.tr", unclosed), [("tr-frontmatter-syntax", 1, 1)]);
    assert_eq!(parse("f.tr", unclosed).frontmatter, None);
    let cases = [
        ("---\nname: f\nnot a key\n---\n", 3, 4),
        ("---\nname: f\n  indented: x\n---\n", 3, 3),
        ("---\nname: f\n\tname: x\n---\n", 3, 1),
        ("---\nname: f\nname: g\n---\n", 3, 1),
        ("---\nname: f\n- stray\n---\n", 3, 1),
        ("---\nname: f\ntags: api\n---\n", 3, 7),
        ("---\nname: f\ntags: [a, , b]\n---\n", 3, 10),
        ("---\nname: f\ntags: [\"a b\"]\n---\n", 3, 8),
        ("---\nname: f\ntags:\n  - a\n - b\n---\n", 5, 2),
        ("---\nname: f\ntags:\n  -\n---\n", 4, 3),
        ("---\nname: f\n: x\n---\n", 3, 1),
        ("---\nname: f\nname2:x\n---\n", 3, 6),
    ];
    for (fm, line, column) in cases {
        let text = format!("{fm}```soil-sig\nf : I64\n```\n");
        assert_eq!(
            diags("f.tr", &text),
            [("tr-frontmatter-syntax", line, column)],
            "{fm:?}"
        );
    }
}

#[test]
fn frontmatter_subset_accepts_its_forms() {
    let cases: [(&str, &[&str]); 6] = [
        ("tags: [a, b-c]\n", &["a", "b-c"]),
        ("tags: []\n", &[]),
        ("tags: [a, b,]\n", &["a", "b"]),
        ("tags:\n- a\n- b  # why\n", &["a", "b"]),
        ("tags:\n\n    - a\n    - b\n", &["a", "b"]),
        ("# comment\ntags: [x] # trailing\n\n", &["x"]),
    ];
    for (lines, tags) in cases {
        let text = format!("---  \nname: f # the name\n{lines}---\n```soil-sig\nf\n```\n");
        let tr = parse("f.tr", &text);
        assert_eq!(others(&tr), Vec::<&Diagnostic>::new(), "{lines:?}");
        let fm = tr.frontmatter.unwrap();
        assert_eq!(fm.name, "f");
        assert_eq!(fm.tags, tags, "{lines:?}");
        assert_eq!(&text[fm.name_line_range], "name: f # the name\n");
    }
    // The name key need not come first, and its line is cut wherever it is.
    let text = "---\ntags: [a]\nname: g\n---\n```soil-sig\ng\n```\n";
    let fm = parse("g.tr", text).frontmatter.unwrap();
    assert_eq!(&text[fm.name_line_range], "name: g\n");
}

#[test]
fn missing_and_invalid_names() {
    let no_key = "---\ntags: [a]\n---\n```soil-sig\nf\n```\n";
    assert_eq!(diags("f.tr", no_key), [("tr-missing-name", 1, 1)]);
    let fm = parse("f.tr", no_key).frontmatter.unwrap();
    assert_eq!(fm.name, "");
    assert!(fm.name_line_range.is_empty());
    let empty = "---\nname:\n---\n```soil-sig\nf\n```\n";
    assert_eq!(diags("f.tr", empty), [("tr-missing-name", 2, 1)]);
    let invalid = "---\nname: cell.count\n---\n```soil-sig\nf\n```\n";
    assert_eq!(diags("f.tr", invalid), [("tr-invalid-name", 2, 11)]);
    assert_eq!(
        parse("f.tr", invalid).frontmatter.unwrap().name,
        "cell.count"
    );
    let quoted = "---\nname: \"f\"\n---\n```soil-sig\nf\n```\n";
    assert_eq!(diags("f.tr", quoted), [("tr-invalid-name", 2, 7)]);
    let accented = "---\nname: číslo\n---\n```soil-sig\nf\n```\n";
    assert_eq!(diags("f.tr", accented), [("tr-invalid-name", 2, 7)]);
}

#[test]
fn unknown_frontmatter_keys_are_errors_and_their_values_are_skipped() {
    let text = "---\nname: f\nauthor: me\nlabels:\n  - a\n  - b\n---\n```soil-sig\nf\n```\n";
    assert_eq!(
        diags("f.tr", text),
        [
            ("tr-unknown-frontmatter-key", 3, 1),
            ("tr-unknown-frontmatter-key", 4, 1)
        ]
    );
}

#[test]
fn block_info_grammar() {
    let cases = [
        ("```ensures positive\nx\n```\n", 9, 12),
        ("```ensures xfail\nx\n```\n", 9, 12),
        ("```test a @agent xfail\nx\n```\n", 9, 18),
        ("```test a xfail xfail\nx\n```\n", 9, 17),
        ("```test a @agent @agent\nx\n```\n", 9, 18),
        ("```test a @human\nx\n```\n", 9, 11),
        ("```test a b\nx\n```\n", 9, 11),
        ("```test xfail a\nx\n```\n", 9, 15),
        ("```reference ref/f.py\nx\n```\n", 9, 14),
        ("- ```test a b\n  x\n  ```\n", 9, 13),
    ];
    for (block, line, column) in cases {
        let text = function(&format!("\n{block}"));
        assert_eq!(
            diags("f.tr", &text),
            [("tr-block-info", line, column)],
            "{block:?}"
        );
    }
    // A misplaced name is still the block's name.
    let text = function("\n```test xfail a\nx\n```\n");
    assert_eq!(parse("f.tr", &text).blocks[1].identity(), "test a");
}

#[test]
fn info_positions_fall_back_to_the_fence_when_the_parser_decoded_escapes() {
    let text = function("\n  ```test a&#32;b\nx\n```\n");
    let tr = parse("f.tr", &text);
    assert_eq!(tr.blocks[1].identity(), "test a");
    assert_eq!(diags("f.tr", &text), [("tr-block-info", 9, 3)]);
}

#[test]
fn test_blocks_need_names() {
    for lang in ["test", "property", "cram"] {
        let text = function(&format!("\n```{lang}\nx\n```\n"));
        assert_eq!(
            diags("f.tr", &text),
            [("tr-missing-block-name", 9, 4)],
            "{lang}"
        );
        let text = function(&format!("\n```{lang} xfail\nx\n```\n"));
        assert_eq!(
            diags("f.tr", &text),
            [("tr-missing-block-name", 9, 4)],
            "{lang}"
        );
    }
}

#[test]
fn blocks_must_suit_the_file_kind() {
    let text = function("\n```decisions\nd\n```\n\n```invariant\ni\n```\n");
    assert_eq!(
        diags("f.tr", &text),
        [("tr-block-kind", 9, 1), ("tr-block-kind", 13, 1)]
    );
    let ty = "---\nname: t\n---\n```soil-type\nT\n```\n```test a\nx\n```\n";
    assert_eq!(diags("t.tr", ty), [("tr-block-kind", 7, 1)]);
    let module = "---\nname: m\n---\n```exports\ne\n```\n```soil-sig\nf\n```\n";
    assert_eq!(diags("_module.tr", module), [("tr-block-kind", 7, 1)]);
    let project = "---\nname: p\n---\n```exports\ne\n```\n";
    assert_eq!(diags("_project.tr", project), [("tr-block-kind", 4, 1)]);
    // A misplaced block is still a block: it is cut from the prose like any other.
    assert_eq!(parse("_project.tr", project).blocks.len(), 1);
}

#[test]
fn block_cardinalities() {
    // A function without a signature is legal, as in trellis (`csvstats/mean`).
    let no_sig = "---\nname: f\n---\n```ensures\nx\n```\n";
    assert_eq!(diags("f.tr", no_sig), []);
    let no_type = "---\nname: t\n---\n```invariant\nx\n```\n";
    // Without a soil-type block the file is a function, so the invariant is misplaced.
    assert_eq!(diags("t.tr", no_type), [("tr-block-kind", 4, 1)]);
    let two_sigs = function("\n```soil-sig\nf : I64\n```\n");
    assert_eq!(diags("f.tr", &two_sigs), [("tr-block-count", 9, 1)]);
    let two_ensures = function("```ensures\na\n```\n```ensures\nb\n```\n");
    assert_eq!(diags("f.tr", &two_ensures), [("tr-block-count", 11, 1)]);
    let two_types = "---\nname: t\n---\n```soil-type\nA\n```\n```soil-type\nB\n```\n";
    assert_eq!(diags("t.tr", two_types), [("tr-block-count", 7, 1)]);
    let two_decisions = "---\nname: p\n---\n```decisions\na\n```\n```decisions\nb\n```\n";
    assert_eq!(
        diags("_project.tr", two_decisions),
        [("tr-block-count", 7, 1)]
    );
    // A project needs no block at all; a module header exactly one `exports`, as in trellis.
    assert_eq!(diags("_project.tr", "---\nname: p\n---\nWords.\n"), []);
    assert_eq!(
        diags("_module.tr", "---\nname: m\n---\nWords.\n"),
        [("tr-block-count", 1, 1)]
    );
    // Named blocks repeat freely.
    let tests = function("```test a\n1\n```\n```test b\n2\n```\n```cram c\n3\n```\n");
    assert_eq!(diags("f.tr", &tests), []);
}

#[test]
fn duplicate_test_names_across_langs() {
    let text = function("```test a\n1\n```\n```property a\n2\n```\n");
    assert_eq!(diags("f.tr", &text), [("tr-duplicate-test-name", 11, 1)]);
    let text = function("```test a\n1\n```\n```test a xfail\n2\n```\n");
    assert_eq!(diags("f.tr", &text), [("tr-duplicate-test-name", 11, 1)]);
}

#[test]
fn crlf_parses_like_lf() {
    let crlf = GOLDEN.replace('\n', "\r\n");
    let tr = parse("cell_count.tr", &crlf);
    let lf = parse("cell_count.tr", GOLDEN);
    assert_eq!(diags("cell_count.tr", &crlf), [("tr-line-endings", 1, 4)]);
    assert_eq!(tr.diagnostics[0].severity, DiagSeverity::Warning);
    assert!(!tr.has_errors());
    let strip = |tr: &TrFile| {
        tr.blocks
            .iter()
            .map(|b| (b.normalized_info(), b.content.clone(), b.line))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&tr), strip(&lf));
    let fm = tr.frontmatter.unwrap();
    assert_eq!(fm.tags, ["stats"]);
    assert_eq!(&crlf[fm.name_line_range], "name: cell_count\r\n");
    assert!(crlf[tr.blocks[2].fence_range.clone()].ends_with("```\r\n"));
}

#[test]
fn unclosed_fences() {
    let text = function("\n```test a\n(1) => 1\n\n```ensures\nx\n");
    let tr = parse("f.tr", &text);
    assert_eq!(diags("f.tr", &text), [("tr-unclosed-fence", 9, 1)]);
    assert_eq!(
        tr.blocks.len(),
        2,
        "the open test block swallows the ensures fence"
    );
    assert_eq!(tr.blocks[1].content, "(1) => 1\n\n```ensures\nx\n");
    assert_eq!(tr.blocks[1].fence_range.end, text.len());
    let at_eof = function("\n```test a");
    let tr = parse("f.tr", &at_eof);
    assert_eq!(tr.blocks[1].content, "");
    assert_eq!(tr.blocks[1].fence_range.end, at_eof.len());
    assert_eq!(diags("f.tr", &at_eof), [("tr-unclosed-fence", 9, 1)]);
    // In a container the fence ends with the container, and the text after it is prose.
    let quoted = function("\n> ```test a\n> (1) => 1\n\nAfter.\n");
    let tr = parse("f.tr", &quoted);
    assert_eq!(tr.blocks[1].content, "(1) => 1\n");
    assert_eq!(&quoted[tr.blocks[1].fence_range.end..], "\nAfter.\n");
    assert_eq!(diags("f.tr", &quoted), [("tr-unclosed-fence", 9, 3)]);
}

#[test]
fn fence_rules_are_commonmark() {
    // A longer closing fence closes; a shorter one or the other fence character is content.
    let text = function("~~~~test a\n```\n~~~\n~~~~~~  \nafter\n");
    let tr = parse("f.tr", &text);
    assert_eq!(others(&tr), Vec::<&Diagnostic>::new());
    assert_eq!(tr.blocks[1].content, "```\n~~~\n");
    assert_eq!(&text[tr.blocks[1].fence_range.end..], "after\n");
    // An indented fence is an indented code block: prose.
    let indented = function("\n    ```test a\n    x\n    ```\n");
    assert_eq!(parse("f.tr", &indented).blocks.len(), 1);
    // Reserved words are exact and case-sensitive; other fences are prose.
    let prose = function("```Test a\nx\n```\n```soil\nx\n```\n```\nx\n```\n");
    assert_eq!(parse("f.tr", &prose).blocks.len(), 1);
}

#[test]
fn fences_inside_list_items_and_quotes() {
    let text = function("\n- case:\n\n  ```test a\n  (1) => 1\n    (2) => 2\n  ```\n- next\n");
    let tr = parse("f.tr", &text);
    assert_eq!(others(&tr), Vec::<&Diagnostic>::new());
    let b = &tr.blocks[1];
    assert_eq!(b.content, "(1) => 1\n  (2) => 2\n");
    assert_eq!(b.line, 11);
    assert_eq!(
        &text[b.fence_range.clone()],
        "```test a\n  (1) => 1\n    (2) => 2\n  ```\n"
    );
    let quoted = function("\n> ```test a\n> (1) => 1\n> ```\n\nAfter.\n");
    let tr = parse("f.tr", &quoted);
    assert_eq!(tr.blocks[1].content, "(1) => 1\n");
    assert_eq!(&quoted[tr.blocks[1].fence_range.end..], "\nAfter.\n");
}

#[test]
fn frontmatter_is_not_markdown() {
    // Without blanking, `---`/`name: …`/`---` would be a thematic break and a setext heading;
    // a fence-like line inside the front matter must not open a block either.
    let text = "---\nname: f\n---\n```soil-sig\nf\n```\n";
    let tr = parse("f.tr", text);
    assert_eq!(tr.blocks[0].line, 4);
    assert_eq!(tr.blocks[0].fence_range.start, text.find("```").unwrap());
}

#[test]
fn diagnostics_are_in_document_order() {
    let text = "---\nname: a.b\nextra: 1\n---\n```ensures x\ny\n```\n```test\nz\n```\n";
    assert_eq!(
        diags("f.tr", text),
        [
            ("tr-invalid-name", 2, 8),
            ("tr-unknown-frontmatter-key", 3, 1),
            ("tr-block-info", 5, 12),
            ("tr-missing-block-name", 8, 4),
        ]
    );
}

#[test]
fn every_reserved_lang_has_a_class_and_a_home() {
    for lang in RESERVED_LANGS {
        assert!(reserved_class(lang).is_some(), "{lang}");
        let homes = [
            FileKind::Function,
            FileKind::Type,
            FileKind::Module,
            FileKind::Project,
        ]
        .into_iter()
        .filter(|k| k.allowed_langs().contains(&lang))
        .count();
        let expected = if lang == "decisions" { 2 } else { 1 };
        assert_eq!(homes, expected, "{lang}");
    }
    assert_eq!(reserved_class("soil"), None);
}

/// Fragments that exercise front matter, fences, containers, CRLF and multi-byte text.
const PIECES: [&str; 24] = [
    "---\n",
    "name: f\n",
    "tags: [a]\n",
    "tags:\n",
    "  - b\n",
    "```test a\n",
    "```soil-sig\n",
    "```\n",
    "~~~ensures\n",
    "~~~\n",
    "> ",
    "- ",
    "  ",
    "x\n",
    "\r\n",
    "\n",
    "ž",
    "😀",
    "&amp;",
    "```",
    "\t",
    " xfail",
    " @agent",
    "\u{feff}",
];

proptest::proptest! {
    #[test]
    fn parsing_never_fails_and_ranges_stay_sound(
        picks in proptest::collection::vec(0..PIECES.len(), 0..24)
    ) {
        let text: String = picks.iter().map(|&i| PIECES[i]).collect();
        let tr = parse("f.tr", &text);
        let mut at = 0;
        if let Some(fm) = &tr.frontmatter {
            proptest::prop_assert!(fm.range.start == 0 && fm.range.end <= text.len());
            proptest::prop_assert!(fm.name_line_range.start >= fm.range.start);
            proptest::prop_assert!(fm.name_line_range.end <= fm.range.end);
            at = fm.range.end;
        }
        for b in &tr.blocks {
            let r = &b.fence_range;
            proptest::prop_assert!(at <= r.start && r.start < r.end && r.end <= text.len());
            proptest::prop_assert!(text.is_char_boundary(r.start) && text.is_char_boundary(r.end));
            proptest::prop_assert!(reserved_class(&b.lang).is_some());
            at = r.end;
        }
        proptest::prop_assert!(tr.diagnostics.windows(2).all(|w| w[0].at <= w[1].at));
        proptest::prop_assert!(tr.diagnostics.iter().all(|d| d.at.line >= 1 && d.at.column >= 1));
        let _ = crate::soil::spec_hash::spec_hashes(&tr, &text);
    }
}

#[test]
fn obligations() {
    let bare = "---\nname: f\n---\n# F\n\n```soil-sig\nf : I64\n```\n";
    assert_eq!(
        all_diags("f.tr", bare),
        [("tr-missing-prose", 1, 1), ("tr-missing-test-block", 1, 1)]
    );
    // Any of the three test langs will do; prose is a paragraph, an indented code block or
    // an unreserved fence — not a heading, and not a tight list item.
    for (prose, test) in [
        ("Adds.\n", "```test a\n1\n```\n"),
        ("    indented\n", "```property p\nx\n```\n"),
        ("```text\nan example\n```\n", "```cram c\n$ f\n```\n"),
    ] {
        let text = format!("{bare}\n{prose}\n{test}");
        assert_eq!(all_diags("f.tr", &text), [], "{text}");
    }
    let listed = format!("{bare}\n- one\n- two\n\n```test a\n1\n```\n");
    assert_eq!(all_diags("f.tr", &listed), [("tr-missing-prose", 1, 1)]);
    // A type needs prose but no test; headers need neither.
    let ty = "---\nname: Row\n---\n```soil-type\ntype Row = { a : I64 }\n```\n";
    assert_eq!(all_diags("row.tr", ty), [("tr-missing-prose", 1, 1)]);
    let module = "---\nname: m\n---\n```exports\nf\n```\n";
    assert_eq!(all_diags("m/_module.tr", module), []);
}

#[test]
fn names_agree_with_the_path_and_the_declaration() {
    let text =
        "---\nname: mean\n---\nAverages.\n\n```soil-sig\nmean : I64\n```\n```test a\n1\n```\n";
    assert_eq!(all_diags("csvstats/mean.tr", text), []);
    assert_eq!(
        all_diags("csvstats/average.tr", text),
        [("tr-name-mismatch", 2, 1)]
    );
    let sig_differs = text.replace("mean : I64", "avg : I64");
    assert_eq!(
        all_diags("csvstats/mean.tr", &sig_differs),
        [("tr-name-mismatch", 6, 1)]
    );
    // A type's file name is its name in snake_case; its soil-type declares the name itself.
    let ty =
        "---\nname: ParseError\n---\nWhy.\n\n```soil-type\ntype ParseError = { line : I64 }\n```\n";
    assert_eq!(all_diags("csvstats/parse_error.tr", ty), []);
    assert_eq!(
        all_diags("csvstats/parseerror.tr", ty),
        [("tr-name-mismatch", 2, 1)]
    );
    let declares_other = ty.replace("type ParseError =", "type Oops =");
    assert_eq!(
        all_diags("csvstats/parse_error.tr", &declares_other),
        [("tr-name-mismatch", 6, 1)]
    );
    // A module header is named after its folder; a root's project header has none to match.
    let module = "---\nname: csvstats\n---\n```exports\nmean\n```\n";
    assert_eq!(all_diags("csvstats/_module.tr", module), []);
    assert_eq!(
        all_diags("stats/_module.tr", module),
        [("tr-name-mismatch", 2, 1)]
    );
    assert_eq!(all_diags("_project.tr", "---\nname: anything\n---\n"), []);
    assert_eq!(snake_case("ParseError"), "parse_error");
    assert_eq!(snake_case("row"), "row");
}

#[test]
fn allow_names_only_the_known_escape_hatches() {
    let ok = function("```test a\n1\n```\n```allow\npartial\n\n  ffi-raw\n```\n");
    assert_eq!(diags("f.tr", &ok), []);
    let odd = function("```test a\n1\n```\n```allow\npartial\nyolo\n```\n");
    assert_eq!(diags("f.tr", &odd), [("tr-allow-unknown", 11, 1)]);
}

/// Lines of bodies the plain reader takes and of bodies it must leave to the parser.
const BODY_LINES: [&str; 55] = [
    "# Title\n",
    "#\n",
    "###### six\n",
    "####### seven\n",
    "#hash\n",
    "Prose, with `code` inside.\n",
    "Žluťoučký kůň úpěl.\n",
    "`len(xs) > 0` preconditions.\n",
    "`only`\n",
    "``x``\n",
    "\n",
    "   \n",
    "\t\n",
    "```soil-sig\n",
    "```test basics\n",
    "```test  basics  xfail \n",
    "```text\n",
    "```\n",
    "````\n",
    "``` \n",
    "  ```\n",
    "\t```\n",
    "```x`y\n",
    "```a\\b\n",
    "```ensures &amp;\n",
    "f : I64\n",
    "(1.0) => 6114.0\n",
    "  indented\n",
    "    code\n",
    "\tcode\n",
    "- item\n",
    "> quote\n",
    "1. one\n",
    "<div>\n",
    "---\n",
    "===\n",
    "x\r\n",
    "a\tb\n",
    "\u{a0}\n",
    "```",
    "(`count_of`). Because\n",
    "1. one\n",
    "1) one\n",
    "10. ten\n",
    "3.7 is a section\n",
    "[a]: /url\n",
    "\"Quoted\" text\n",
    "— a dash\n",
    "* star\n",
    "+ plus\n",
    "~~~\n",
    "&amp; x\n",
    "\\# escaped\n",
    "```test b\x0c\nx\n```\n",
    "```text \x0b\n```\n",
];

/// The plain reader on a body: the parser's blocks and prose, or nothing.
fn plain_agrees(text: &str) -> Result<bool, String> {
    match super::plain::fences(text) {
        None => Ok(false),
        Some(read) => {
            let parsed = super::fences::parsed(text);
            if read == parsed {
                Ok(true)
            } else {
                Err(format!("{text:?}: plain {read:?}, parser {parsed:?}"))
            }
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4096))]

    #[test]
    fn the_plain_reader_reads_as_the_parser(
        picks in proptest::collection::vec(0..BODY_LINES.len(), 0..16)
    ) {
        let text: String = picks.iter().map(|&i| BODY_LINES[i]).collect();
        if let Err(e) = plain_agrees(&text) {
            proptest::prop_assert!(false, "{}", e);
        }
    }

    /// A plain body with one line of any kind put in: where the plain reader's edges are.
    #[test]
    fn the_plain_reader_reads_a_line_put_in_as_the_parser(
        blocks in proptest::collection::vec(0..PLAIN_BLOCKS.len(), 0..8),
        line in 0..BODY_LINES.len(),
        at in 0..64usize,
    ) {
        let mut text: String = blocks.iter().map(|&i| PLAIN_BLOCKS[i]).collect();
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        text.insert_str(starts[at % starts.len()], BODY_LINES[line]);
        if let Err(e) = plain_agrees(&text) {
            proptest::prop_assert!(false, "{}", e);
        }
    }

    /// Bodies built of what the plain reader takes: it reads each whole.
    #[test]
    fn the_plain_reader_takes_plain_bodies(
        picks in proptest::collection::vec(0..PLAIN_BLOCKS.len(), 0..12)
    ) {
        let text: String = picks.iter().map(|&i| PLAIN_BLOCKS[i]).collect();
        proptest::prop_assert_eq!(plain_agrees(&text), Ok(true), "{:?}", text);
    }
}

/// Headings, paragraphs and fences as a spec writes them.
const PLAIN_BLOCKS: [&str; 11] = [
    "# Title\n",
    "###### six\n",
    "\n",
    "   \n",
    "Prose, with `code`.\n(`count_of`) and — more.\n3.7 and [a]: /b\n",
    "Žluťoučký kůň.\n",
    "```soil-sig\nf : I64\n```\n",
    "```test basics\n(1.0) => 2.0\n\n    x\n```\n",
    "```text\n```\n",
    "```ensures  \n`x` ~~~\n- y\n```\n",
    "```test  b  xfail\n# not a heading\n```\n",
];

/// CommonMark trims an info string of every whitespace character, the form feed and the
/// vertical tab among them; the plain reader trims only spaces, so it leaves such an info
/// string to the parser (found by the `tr` fuzz target, 12-07).
#[test]
fn an_info_string_with_a_form_feed_or_vertical_tab_is_the_parsers() {
    for text in [
        "Prose.\n\n```test bas# \x0c\n(\"  a b \"a b\"\n```\n",
        "```soil-sig\x0b\nf : I64\n```\n",
    ] {
        assert_eq!(plain_agrees(text), Ok(false), "{text:?}");
    }
}

#[test]
fn the_plain_reader_reads_trellis_examples_as_the_parser() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/conformance/trellis/examples");
    let mut specs = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "tr") {
                specs.push(path);
            }
        }
    }
    assert!(specs.len() >= 19, "trellis's examples have 19 specs");
    let texts = specs.iter().map(|path| {
        let text = std::fs::read_to_string(path).expect("a spec");
        (path.display().to_string(), text)
    });
    for (name, text) in texts.chain([("golden cell_count.tr".to_owned(), GOLDEN.to_owned())]) {
        let mut sink = Sink::new(&text);
        let body = match frontmatter::parse(&text, &mut sink) {
            Some(fm) => blank(&text, fm.range),
            None => text.clone(),
        };
        assert_eq!(plain_agrees(&body), Ok(true), "{name}");
    }
}
