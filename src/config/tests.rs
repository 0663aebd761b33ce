use super::*;
use std::path::Path;

fn cfg(text: &str) -> Result<Config, ConfigError> {
    parse(text, Path::new("/nonexistent/repo/.copy-editor.yaml"))
}

fn err(text: &str) -> ConfigError {
    cfg(text).expect_err("the config should be refused")
}

const FULL: &str = "\
language: cs
extends: [czech, english]
paths:
  include:
    - \"content/**/*.md\"
    - \"workshop-content/*.json\"
  exclude: [\"content/drafts/**\"]
  surface_profile:
    \"content/talks/**\": presenter
    \"content/**\": participant
  locale:
    \"**/en/**\": en
rules:
  style_guide: docs/style.md
  examples: [docs/good.md, docs/bad.md]
  disable: [cs-R7-sentence-case-heading]
  severity:
    cs-R6-dash: error
voice_doctrine: docs/voice.md
output:
  review_note: true
  format: markdown
ignore_marker: \"lint: off\"
segment:
  cache_path: .cache/spans.lock.json
  unknown_language: default
custom_rules:
  - id: cs-custom-tj
    pattern: 't\\. j\\.'
    message: use tj.
    severity: warning
    languages: [cs]
    kinds: [prose, quote]
    replacement: tj.
";

#[test]
fn a_full_config_reads_every_field() {
    let c = cfg(FULL).unwrap().with_language_override(None).unwrap();
    assert_eq!(c.root, Path::new("/nonexistent/repo"));
    assert_eq!(c.language.as_deref(), Some("cs"));
    assert_eq!(c.declared_profiles, ["cs", "en"]);
    assert_eq!(c.include, ["content/**/*.md", "workshop-content/*.json"]);
    assert_eq!(c.exclude, ["content/drafts/**"]);
    assert_eq!(
        c.surface_profile,
        [
            ("content/talks/**".to_owned(), "presenter".to_owned()),
            ("content/**".to_owned(), "participant".to_owned())
        ]
    );
    assert_eq!(c.locale, [("**/en/**".to_owned(), "en".to_owned())]);
    assert_eq!(c.ignore_marker, "lint: off");
    assert_eq!(c.cache_path, ".cache/spans.lock.json");
    assert!(c.unknown_language_default);
    assert_eq!(c.disable, ["cs-R7-sentence-case-heading"]);
    assert_eq!(c.severity, [("cs-R6-dash".to_owned(), "error".to_owned())]);
    assert_eq!(
        c.custom_rules,
        [CustomRuleConfig {
            id: "cs-custom-tj".to_owned(),
            pattern: "t\\. j\\.".to_owned(),
            message: "use tj.".to_owned(),
            severity: "warning".to_owned(),
            languages: vec!["cs".to_owned()],
            kinds: vec!["prose".to_owned(), "quote".to_owned()],
            replacement: Some("tj.".to_owned()),
        }]
    );
    assert_eq!(
        c.layer2,
        serde_json::json!({
            "rules": {"style_guide": "docs/style.md", "examples": ["docs/good.md", "docs/bad.md"]},
            "voice_doctrine": "docs/voice.md",
            "output": {"review_note": true, "format": "markdown"}
        })
    );
    // The Layer 2 files do not exist under the fake root: warnings, not errors.
    assert_eq!(c.warnings.len(), 4, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("`rules.style_guide`: docs/style.md does not exist"));
}

#[test]
fn defaults() {
    let c = cfg("language: en\npaths:\n  include: ['**/*.md']\n").unwrap();
    assert_eq!(c.ignore_marker, "copy-editor: ignore");
    assert_eq!(c.cache_path, ".copy-editor.lock.json");
    assert!(!c.unknown_language_default);
    assert_eq!(c.declared_profiles, ["en"]);
    assert_eq!(c.layer2, serde_json::json!({}));
    assert!(c.warnings.is_empty());
    assert!(c.custom_rules.is_empty());
}

#[test]
fn declared_profiles_fall_back_to_every_profile_until_the_language_is_known() {
    let c = cfg("paths:\n  include: ['*.md']\n").unwrap();
    assert_eq!(c.language, None);
    assert_eq!(c.declared_profiles, ["cs", "en"]);
    let c = c.with_language_override(Some("en")).unwrap();
    assert_eq!(c.declared_profiles, ["en"]);
    let c = cfg("extends: english\nlanguage: cs\n").unwrap();
    assert_eq!(c.declared_profiles, ["en"]);
    let c = cfg("extends: [cs, czech, en]\n").unwrap();
    assert_eq!(c.declared_profiles, ["cs", "en"]);
}

#[test]
fn the_language_override_wins_and_a_missing_language_names_lang() {
    let c = cfg("language: cs\n").unwrap();
    let c = c.with_language_override(Some("en")).unwrap();
    assert_eq!(c.language.as_deref(), Some("en"));
    let e = cfg("paths:\n  include: ['*.md']\n")
        .unwrap()
        .with_language_override(None)
        .unwrap_err();
    assert!(e.message.contains("--lang"), "{e}");
    assert!(
        e.to_string()
            .starts_with("/nonexistent/repo/.copy-editor.yaml: no default language"),
        "{e}"
    );
    let e = cfg("language: cs\n")
        .unwrap()
        .with_language_override(Some("Czech"))
        .unwrap_err();
    assert_eq!(e.path, None);
    assert!(e.message.contains("--lang Czech"), "{e}");
    let e = err("language: czech\n");
    assert!(e.message.contains("`language: czech`"), "{e}");
    assert_eq!((e.line, e.column), (Some(1), Some(11)));
}

#[test]
fn invalid_yaml_reports_line_and_column() {
    let e = err("language: cs\npaths:\n  include: [\"a\n");
    assert!(e.line.is_some(), "{e:?}");
    let shown = e.to_string();
    assert!(
        shown.starts_with(&format!(
            "/nonexistent/repo/.copy-editor.yaml:{}:",
            e.line.unwrap()
        )),
        "{shown}"
    );
    assert!(!shown.contains('\n'), "{shown}");

    let e = err("language: cs\npaths:\n  include: 5\n");
    assert_eq!(e.line, Some(3), "{e}");
    let e = err("- a\n- b\n");
    assert!(e.message.contains("mapping"), "{e}");
}

#[test]
fn unknown_profile_is_an_error() {
    let e = err("language: cs\nextends: [czech, german]\n");
    assert!(e.message.contains("unknown profile `german`"), "{e}");
    assert!(e.message.contains("czech (cs)"), "{e}");
    assert_eq!(e.line, Some(2));
}

#[test]
fn an_empty_include_list_is_an_error_and_a_missing_one_needs_paths() {
    let e = err("language: cs\npaths:\n  include: []\n");
    assert!(e.message.contains("`paths.include` is empty"), "{e}");
    assert_eq!(e.line, Some(3));

    let c = cfg("language: cs\n").unwrap();
    let e = c.matcher(None).unwrap_err();
    assert!(e.message.contains("--paths"), "{e}");
    let m = c.matcher(Some(&["*.md".to_owned()])).unwrap();
    assert!(m.is_included("a.md"));
}

#[test]
fn bad_globs_are_named() {
    let e = err("language: cs\npaths:\n  include:\n    - 'docs/**'\n    - 'docs/[a'\n");
    assert!(
        e.message
            .contains("invalid glob `docs/[a` in `paths.include`"),
        "{e}"
    );
    assert_eq!(e.line, Some(5));
    let e = err("language: cs\npaths:\n  exclude: ['{a,b']\n");
    assert!(e.message.contains("`{a,b`"), "{e}");
    let e = err("language: cs\npaths:\n  locale:\n    'x/[': en\n");
    assert!(e.message.contains("`paths.locale`"), "{e}");
    let c = cfg("language: cs\n").unwrap();
    let e = c.matcher(Some(&["a/[".to_owned()])).unwrap_err();
    assert!(e.message.contains("invalid glob `a/[` in --paths"), "{e}");
}

#[test]
fn bad_values_are_refused_with_their_position() {
    let cases = [
        (
            "rules:\n  severity:\n    cs-R1-nbsp-prep: fatal\n",
            "severity `fatal` for rule `cs-R1-nbsp-prep` is not error, warning or info",
            3,
        ),
        (
            "paths:\n  surface_profile:\n    'a/**': audience\n",
            "surface profile `audience`",
            3,
        ),
        (
            "paths:\n  locale:\n    'a/**': english\n",
            "locale `english`",
            3,
        ),
        (
            "segment:\n  unknown_language: guess\n",
            "neither skip nor default",
            2,
        ),
        ("ignore_marker: ''\n", "`ignore_marker` is empty", 1),
        (
            "segment:\n  cache_path: ' '\n",
            "`segment.cache_path` is empty",
            2,
        ),
        ("output: loud\n", "`output` must be a mapping", 1),
    ];
    for (text, expect, line) in cases {
        let e = err(&format!("language: cs\n{text}"));
        assert!(e.message.contains(expect), "{text}: {e}");
        assert_eq!(e.line, Some(line + 1), "{text}: {e}");
    }
}

#[test]
fn custom_rules_are_checked() {
    let rule = |extra: &str| {
        format!(
            "language: cs\ncustom_rules:\n  - id: x\n    pattern: 'a+'\n    message: m\n{extra}"
        )
    };
    assert!(cfg(&rule("    severity: info\n")).is_ok());
    let cases = [
        ("    severity: loud\n", "severity `loud` of custom rule `x`"),
        ("", "missing field `severity`"),
        (
            "    severity: info\n    languages: [czech]\n",
            "language `czech`",
        ),
        ("    severity: info\n    kinds: [markup]\n", "kind `markup`"),
        (
            "    severity: info\n    kinds: []\n",
            "`kinds` is an empty list",
        ),
        (
            "    severity: info\n    languages: []\n",
            "`languages` is an empty list",
        ),
        // A fix whose result the rule matches again would grow the file every pass.
        (
            "    severity: info\n    replacement: aa\n",
            "matches its own pattern",
        ),
        (
            "    severity: info\n    replacement: 'b${0}a'\n",
            "matches its own pattern",
        ),
    ];
    for (extra, expect) in cases {
        let e = err(&rule(extra));
        assert!(e.message.contains(expect), "{extra}: {e}");
        assert!(e.line.is_some(), "{e}");
    }
    // Capture references are not literal text: `$1` does not re-match `(a+)b`.
    let settled = "    severity: info\n    replacement: 'b$1 ${x}$$'\n";
    assert!(cfg(&rule(settled).replace("'a+'", "'(a+)b'")).is_ok());
    let e = err("custom_rules:\n  - {id: x, pattern: '(', message: m, severity: info}\n");
    assert!(e.message.contains("not a valid regex"), "{e}");
    let e = err(
        "custom_rules:\n  - {id: x, pattern: a, message: m, severity: info}\n  - {id: x, pattern: b, message: m, severity: info}\n",
    );
    assert!(e.message.contains("used twice"), "{e}");
    assert_eq!(e.line, Some(3));
}

#[test]
fn unknown_keys_are_warnings() {
    let c = cfg(
        "language: cs\nfoo: 1\npaths:\n  include: ['*.md']\n  bar: []\noutput:\n  anything: 1\ncustom_rules:\n  - {id: x, pattern: a, message: m, severity: info, replace: y}\n",
    )
    .unwrap();
    assert_eq!(
        c.warnings,
        [
            "unknown key `foo` in .copy-editor.yaml, ignored",
            "unknown key `paths.bar` in .copy-editor.yaml, ignored",
            "unknown key `custom_rules[0].replace` in .copy-editor.yaml, ignored",
        ]
    );
}

#[test]
fn glob_semantics() {
    let c = cfg(
        "language: cs\npaths:\n  include: ['docs/**/*.md', '*.md', 'src/{a,b}.ts', 'data/[xy]?.json']\n  exclude: ['docs/private/**']\n",
    )
    .unwrap();
    let m = c.matcher(None).unwrap();
    for yes in [
        "docs/a.md",
        "docs/x/y.md",
        "README.md",
        "src/a.ts",
        "src/b.ts",
        "data/x1.json",
    ] {
        assert!(m.is_included(yes), "{yes}");
    }
    for no in [
        "a/b.md",
        "docs/private/a.md",
        "docs/a.txt",
        "src/c.ts",
        "src/x/a.ts",
        "data/z1.json",
        "data/x12.json",
        "data/x/.json",
    ] {
        assert!(!m.is_included(no), "{no}");
    }
    let m = c.matcher(Some(&["./other/*.md".to_owned()])).unwrap();
    assert!(m.is_included("other/a.md"));
    assert!(!m.is_included("docs/a.md"));
}

#[test]
fn named_paths_narrow_the_scope_and_never_widen_it() {
    let c = cfg(
        "language: cs\npaths:\n  include: ['docs/**/*.md', '*.md']\n  exclude: ['docs/private/**']\n",
    )
    .unwrap();
    let named = Named {
        files: ["README.md", "docs/private/a.md", "src/main.rs"]
            .map(String::from)
            .into(),
        dirs: ["docs/guide".to_owned()].into(),
    };
    let m = c.matcher(None).unwrap().only(named.clone());
    assert!(m.is_included("README.md"));
    assert!(m.is_included("docs/guide/a.md"));
    assert!(m.is_included("docs/guide/deep/b.md"));
    // Named, but excluded by the config or outside its includes.
    assert!(!m.is_included("docs/private/a.md"));
    assert!(!m.is_included("src/main.rs"));
    // In the config's scope, but not named.
    assert!(!m.is_included("CHANGELOG.md"));
    assert!(!m.is_included("docs/guidebook/a.md"));
    assert_eq!(m.named(), Some(&named));
    let everything = Named {
        dirs: [String::new()].into(),
        ..Named::default()
    };
    let m = c.matcher(None).unwrap().only(everything);
    assert!(m.is_included("CHANGELOG.md") && !m.is_included("docs/private/a.md"));
}

#[test]
fn locale_and_surface_profile_take_the_first_matching_glob() {
    let c = cfg(FULL).unwrap();
    let m = c.matcher(None).unwrap();
    assert_eq!(
        m.surface_profile_for("content/talks/a.md"),
        Some("presenter")
    );
    assert_eq!(m.surface_profile_for("content/a.md"), Some("participant"));
    assert_eq!(m.surface_profile_for("README.md"), None);
    assert_eq!(m.locale_for("content/en/a.md"), Some("en"));
    assert_eq!(m.locale_for("content/cs/a.md"), None);
}

#[test]
fn layer2_text_and_anchors_are_not_missing_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("examples.md"), "# Příklady\n").unwrap();
    let config_path = dir.path().join(CONFIG_FILE_NAME);
    std::fs::write(
        &config_path,
        "language: cs\nrules:\n  approved_terms: ./examples.md#approved-english-terms\n  \
         reject_list: ./missing.md#x\nvoice_doctrine: |\n  Piš jako zkušený peer.\n  \
         Krátké věty.\npaths:\n  include: ['**/*.md']\n",
    )
    .unwrap();
    let c = load(&config_path).unwrap();
    assert_eq!(c.warnings.len(), 1, "{:?}", c.warnings);
    assert!(c.warnings[0].contains("`rules.reject_list`: ./missing.md#x does not exist"));
}

#[test]
fn discover_walks_up_and_load_reads_relative_to_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    let deep = root.join("a/b/c");
    std::fs::create_dir_all(&deep).unwrap();
    assert_eq!(discover(&deep), None);
    let config_path = root.join(CONFIG_FILE_NAME);
    std::fs::write(
        &config_path,
        "language: cs\nrules:\n  style_guide: docs/style.md\n  reject_list: missing.md\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docs/style.md"), "# Style\n").unwrap();
    assert_eq!(discover(&deep), Some(config_path.clone()));
    assert_eq!(discover(&root), Some(config_path.clone()));
    // A nearer config wins.
    std::fs::write(deep.join("../.copy-editor.yaml"), "language: en\n").unwrap();
    assert_eq!(discover(&deep), Some(root.join("a/b/.copy-editor.yaml")));

    let c = load(&config_path).unwrap();
    assert_eq!(c.root, root);
    assert_eq!(
        c.warnings,
        [format!(
            "`rules.reject_list`: missing.md does not exist (relative to {})",
            root.display()
        )]
    );
    let e = load(&root.join("nope.yaml")).unwrap_err();
    assert!(e.message.starts_with("cannot read the config"), "{e}");
}

/// Issue 28, item 9: globs that leave the root can never match, and Layer 2 files outside
/// the root are read by the agent: both are said, neither stops the audit.
#[test]
fn globs_and_layer2_paths_that_leave_the_root_are_warned_about() {
    let c = cfg(
        "language: cs\npaths:\n  include: ['../x/**', 'docs/**/*.md', '/abs/*.md']\n  exclude: ['a/../../b']\nrules:\n  style_guide: ../outside/style.md\n  examples: docs/x.md#anchor\n",
    )
    .unwrap();
    let about = |needle: &str| c.warnings.iter().filter(|w| w.contains(needle)).count();
    assert_eq!(about("`../x/**` can never match"), 1, "{:?}", c.warnings);
    assert_eq!(about("`/abs/*.md` can never match"), 1, "{:?}", c.warnings);
    assert_eq!(about("`paths.exclude`: `a/../../b`"), 1, "{:?}", c.warnings);
    assert_eq!(about("docs/**/*.md"), 0, "{:?}", c.warnings);
    assert_eq!(
        about("`rules.style_guide`: ../outside/style.md is outside the root"),
        1,
        "{:?}",
        c.warnings
    );
    assert_eq!(about("docs/x.md#anchor is outside"), 0, "{:?}", c.warnings);
}

#[test]
fn remote_cache_is_read_and_its_url_checked() {
    let c = cfg("language: cs\npaths:\n  include: ['*.md']\nremote_cache:\n  url: grpcs://cache.example.com:443\n  instance: main\n  read_only: true\n  headers:\n    x-api-key: k\n").unwrap();
    assert_eq!(
        c.remote_cache,
        Some(RemoteCacheConfig {
            url: "grpcs://cache.example.com:443".into(),
            instance: "main".into(),
            read_only: true,
            headers: vec![("x-api-key".into(), "k".into())],
        })
    );
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let e = err("language: cs\nremote_cache:\n  url: http://cache:9092\n");
    assert_eq!(e.line, Some(3), "{e}");
    assert!(e.to_string().contains("must be grpc:// or grpcs://"), "{e}");
    let c = cfg("language: cs\nremote_cache:\n  url: grpc://h:1\n  readonly: true\n").unwrap();
    assert_eq!(
        c.warnings,
        ["unknown key `remote_cache.readonly` in .copy-editor.yaml, ignored"]
    );
}
