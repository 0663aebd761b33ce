//! The JSON Schemas of `.copy-editor.yaml` and `soil.toml`, generated from the types the
//! tools read the files into, are committed in `docs/` and kept true here: the committed
//! files are what the types generate (`UPDATE_SCHEMAS=1 cargo test --test config_schema`
//! rewrites them); every config of the fixtures, of this repository, of `docs/config.md`
//! and of the shared real trees validates; and each known-bad config is refused by both
//! the schema and the reader.

use jsonschema::Validator;
use lockgraph_queries::copy::config;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn shared() -> PathBuf {
    manifest_dir().join("../shared/conformance")
}

/// The committed file equals `generated`, or is rewritten with `UPDATE_SCHEMAS=1`.
fn committed_is_current(rel: &str, generated: &Value) {
    let path = manifest_dir().join(rel);
    let text = serde_json::to_string_pretty(generated).unwrap() + "\n";
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        if std::fs::read_to_string(&path).ok().as_deref() != Some(&text) {
            std::fs::write(&path, &text).unwrap();
        }
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{rel} is not what the config's types generate; run \
         `UPDATE_SCHEMAS=1 cargo test --test config_schema` and commit it"
    );
}

fn validator(schema: &Value) -> Validator {
    jsonschema::options()
        .should_validate_formats(true)
        .build(schema)
        .expect("the schema compiles")
}

fn yaml(text: &str) -> Value {
    serde_saphyr::from_str(text).expect("YAML")
}

fn errors(v: &Validator, doc: &Value) -> Vec<String> {
    v.iter_errors(doc)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

/// Every `.copy-editor.yaml` this test knows of: the fixtures', this repository's, the
/// shared trees' (when they are there).
fn configs() -> Vec<PathBuf> {
    let mut found = vec![manifest_dir().join(".copy-editor.yaml")];
    fn walk(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                walk(&path, name, out);
            } else if entry.file_name() == name {
                out.push(path);
            }
        }
    }
    walk(
        &manifest_dir().join("fixtures"),
        ".copy-editor.yaml",
        &mut found,
    );
    walk(
        &shared().join("harness-lab"),
        ".copy-editor.yaml",
        &mut found,
    );
    found
}

#[test]
fn the_copy_editor_schema_is_current_and_accepts_every_real_config() {
    let schema = config::json_schema();
    committed_is_current("docs/copy-editor.schema.json", &schema);
    let v = validator(&schema);
    let configs = configs();
    let shared_ones = configs.iter().filter(|p| p.starts_with(shared())).count();
    assert!(
        shared_ones == 3 || std::env::var_os("LOCKGRAPH_SKIP_CONFORMANCE").is_some(),
        "the three shared trees' configs ({shared_ones} found; LOCKGRAPH_SKIP_CONFORMANCE=1 \
         skips them)"
    );
    for path in &configs {
        let text = std::fs::read_to_string(path).unwrap();
        config::parse(&text, path, &|_| true).expect("the reader takes it");
        let problems = errors(&v, &yaml(&text));
        assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
    }
    // The example in docs/config.md, and the line that names the schema.
    let doc = std::fs::read_to_string(manifest_dir().join("docs/config.md")).unwrap();
    let example = doc
        .split("```yaml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/config.md has a YAML example");
    assert!(
        example.starts_with("# yaml-language-server: $schema="),
        "{example}"
    );
    let problems = errors(&v, &yaml(example));
    assert!(problems.is_empty(), "docs/config.md: {problems:#?}");
}

/// Configs the reader refuses, each for a reason a schema can state.
const BAD: &[(&str, &str)] = &[
    ("language: czech\n", "a language that is not a code"),
    ("language: cs\nextends: [klingon]\n", "an unknown profile"),
    (
        "language: cs\npaths:\n  include: []\n",
        "an empty include list",
    ),
    ("paths: [content]\n", "paths as a list"),
    (
        "language: cs\nrules:\n  severity:\n    cs-R6-dash: fatal\n",
        "an unknown severity",
    ),
    (
        "language: cs\nsegment:\n  unknown_language: maybe\n",
        "an unknown unknown_language",
    ),
    (
        "language: cs\npaths:\n  include: ['**/*.md']\n  surface_profile:\n    \"a/**\": audience\n",
        "an unknown surface profile",
    ),
    (
        "language: cs\npaths:\n  include: ['**/*.md']\n  locale:\n    \"a/**\": czech\n",
        "a locale that is not a code",
    ),
    (
        "language: cs\nignore_marker: \"  \"\n",
        "a blank ignore marker",
    ),
    (
        "language: cs\nsegment:\n  cache_path: \"\"\n",
        "an empty cache path",
    ),
    (
        "language: cs\ncustom_rules:\n  - id: x\n    pattern: y\n",
        "a custom rule without message and severity",
    ),
    (
        "language: cs\ncustom_rules:\n  - {id: x, pattern: y, message: m, severity: loud}\n",
        "a custom rule's unknown severity",
    ),
    (
        "language: cs\ncustom_rules:\n  - {id: x, pattern: y, message: m, severity: info, kinds: []}\n",
        "an empty kinds list",
    ),
    (
        "language: cs\ncustom_rules:\n  - {id: x, pattern: y, message: m, severity: info, kinds: [heading]}\n",
        "an unknown kind",
    ),
    (
        "language: cs\ncustom_rules:\n  - {id: x, pattern: y, message: m, severity: info, languages: [czech]}\n",
        "a custom rule's language that is not a code",
    ),
];

/// Configs the reader refuses for what only the reader can check: the schema lets them
/// through.
const READER_ONLY: &[&str] = &[
    "language: cs\npaths:\n  include: ['content/[a.md']\n",
    "language: cs\nrules:\n  disable: [cs-R99-none]\n",
    "language: cs\ncustom_rules:\n  - {id: x, pattern: '(', message: m, severity: info}\n",
    "language: cs\nsegment:\n  cache_path: ../outside.json\n",
];

/// What `copy-audit` makes of `text` as the config of an empty tree: its exit code and
/// stderr.
fn read_by_copy_audit(text: &str) -> (i32, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(".copy-editor.yaml");
    std::fs::write(&path, text).unwrap();
    let out = assert_cmd::Command::cargo_bin("copy-audit")
        .unwrap()
        .arg("--config")
        .arg(&path)
        .current_dir(dir.path())
        .output()
        .unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn known_bad_configs_are_refused_by_the_schema_and_the_reader() {
    let v = validator(&config::json_schema());
    let include = "paths:\n  include: ['**/*.md']\n";
    // Each otherwise complete, so that the one fault is what is refused.
    let complete = |text: &str| {
        if text.contains("include") || text.starts_with("paths") {
            text.to_string()
        } else {
            format!("{text}{include}")
        }
    };
    for (text, why) in BAD {
        let text = complete(text);
        let (code, stderr) = read_by_copy_audit(&text);
        assert_eq!(code, 2, "copy-audit takes {why}:\n{text}\n{stderr}");
        assert!(stderr.contains(".copy-editor.yaml"), "{stderr}");
        assert!(!v.is_valid(&yaml(&text)), "the schema takes {why}:\n{text}");
    }
    for text in READER_ONLY {
        let text = complete(text);
        let (code, stderr) = read_by_copy_audit(&text);
        assert_eq!(code, 2, "copy-audit takes:\n{text}\n{stderr}");
        assert!(v.is_valid(&yaml(&text)), "{text}");
    }
    // A clean config of an empty tree is a clean run.
    assert_eq!(read_by_copy_audit(&complete("language: cs\n")).0, 0);
    // A typo of a key: the reader warns and goes on; the schema refuses it, as an editor
    // should show it.
    let typo = complete("language: cs\nignore_maker: x\n");
    let (code, stderr) = read_by_copy_audit(&typo);
    assert_eq!(code, 0);
    assert!(stderr.contains("ignore_maker"), "{stderr}");
    assert!(!v.is_valid(&yaml(&typo)));
}

#[test]
fn the_soil_toml_schema_is_current_and_accepts_the_real_roots() {
    let schema = lockgraph::soil_lock::root::soil_toml_schema();
    committed_is_current("docs/soil.schema.json", &schema);
    let v = validator(&schema);
    let mut roots = vec![manifest_dir().join("fixtures/soil/soil.toml")];
    let real = shared().join("trellis/examples/soil.toml");
    if real.exists() || std::env::var_os("LOCKGRAPH_SKIP_CONFORMANCE").is_none() {
        roots.push(real);
    }
    for path in &roots {
        let text = std::fs::read_to_string(path).unwrap();
        let doc: Value = toml::from_str(&text).unwrap();
        let problems = errors(&v, &doc);
        assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
    }
    for (bad, why) in [
        ("[tags]\napi = 1\n", "a tag without its meaning"),
        ("[toolchains]\ntrellis = \"0.1.0\"\n", "an unknown table"),
        (
            "[toolchain]\ntrellis = 1\n",
            "a version that is not a string",
        ),
    ] {
        let doc: Value = toml::from_str(bad).unwrap();
        assert!(!v.is_valid(&doc), "the schema takes {why}");
    }
}
