//! Property: applying every surviving fix, pass after pass, reaches a fixed point quickly —
//! so `--fix` is idempotent — and never touches text outside the fixed ranges' lines.

mod common;

use lockgraph_queries::copy::engine::{self, RuleTable, Setup, Source, SourceFile};
use lockgraph_queries::copy::extract::Format;
use lockgraph_queries::copy::fix::apply;
use lockgraph_queries::copy::rules::RuleSet;
use lockgraph_queries::db::Database;
use lockgraph_queries::hash::ContentHash;
use proptest::prelude::*;
use salsa::Setter;
use std::collections::BTreeMap;
use std::sync::Arc;

fn text() -> impl Strategy<Value = String> {
    common::text_of(common::PIECES, 40)
}

fn fixed_point(lang: &str, format: Format, source: &str) -> (String, usize) {
    let db = &mut Database::default();
    let table = RuleTable {
        set: Arc::new(RuleSet::builtin()),
        kinds: BTreeMap::new(),
        fingerprint: ContentHash::of(b"builtin"),
    };
    Setup {
        rules: table,
        default_language: lang.to_string(),
        declared: vec!["cs".to_string(), "en".to_string()],
        unknown_language_default: false,
        ignore_marker: "copy-editor: ignore".into(),
        prompt_outdated: false,
    }
    .install(db);
    let file = SourceFile::new(db, "t".into(), format, Source::from(source), None, None);
    let mut current = source.to_string();
    for pass in 0..8 {
        let report = engine::report(db, file);
        let fixes: Vec<_> = report.findings.iter().filter_map(|f| f.fix).collect();
        let next = apply(&current, fixes.iter().collect()).text;
        if next == current {
            return (current, pass);
        }
        current = next;
        file.set_source(db).to(Source::from(current.as_str()));
    }
    panic!("no fixed point after 8 passes for {source:?}, last {current:?}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn czech_fixes_converge(source in text()) {
        let (_, passes) = fixed_point("cs", Format::Text, &source);
        prop_assert!(passes <= 4, "{passes} passes for {source:?}");
    }

    #[test]
    fn english_fixes_converge(source in text()) {
        fixed_point("en", Format::Text, &source);
    }

    #[test]
    fn markdown_fixes_converge_and_keep_markup(source in text()) {
        let md = format!("# Nadpis\n\n**{}** a `kód v domě`\n", source.replace('\n', " "));
        let (fixed, _) = fixed_point("cs", Format::Markdown, &md);
        prop_assert!(fixed.contains("`kód v domě`"), "inline code is never fixed: {fixed:?}");
        prop_assert!(fixed.starts_with("# Nadpis\n\n**"), "{fixed:?}");
    }
}
