//! `copy-audit --format sarif` and `soil-lock check --format sarif` are valid SARIF 2.1.0
//! and say what the JSON reports say.

mod common;

use common::{Tree, json};
use serde_json::Value;

#[test]
fn sarif_output_is_valid_sarif_2_1_0_with_every_finding_and_fix() {
    let tree = Tree::copy_of("copy");
    tree.write("content/talks/úvod 2.md", "😀 Sejdeme se v lese...\n");
    let sarif = tree
        .copy_audit()
        .args(["--format", "sarif"])
        .output()
        .unwrap();
    assert_eq!(
        sarif.status.code(),
        Some(1),
        "error findings still fail the run"
    );
    let log = json(&sarif.stdout);
    let validator = validator();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // The validator does check: a result without its message is refused, and so is a
    // path that is not a URI reference.
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]
        .as_object_mut()
        .unwrap()
        .remove("message");
    assert!(!validator.is_valid(&broken));
    let mut broken = log.clone();
    broken["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
        "content/a b%zz.md".into();
    assert!(!validator.is_valid(&broken));

    let (_, report) = {
        let out = tree.copy_audit().arg("--json").output().unwrap();
        (out.status.code(), json(&out.stdout))
    };
    let run = &log["runs"][0];
    assert_eq!(run["columnKind"], "utf16CodeUnits");
    let results = run["results"].as_array().unwrap();
    let findings = report["findings"].as_array().unwrap();
    assert_eq!(results.len(), findings.len());
    let rules = run["tool"]["driver"]["rules"].as_array().unwrap();
    for (r, f) in results.iter().zip(findings) {
        assert_eq!(r["ruleId"], f["ruleId"]);
        let region = &r["locations"][0]["physicalLocation"]["region"];
        assert_eq!(
            (&region["startLine"], &region["startColumn"]),
            (&f["line"], &f["column"])
        );
        let uri = r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
            .as_str()
            .unwrap();
        assert!(uri.is_ascii(), "{uri}");
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], f["ruleId"]);
        assert!(rules[index]["help"]["text"].as_str().unwrap().len() > 40);
        assert_eq!(r.get("fixes").is_some(), f.get("fix").is_some());
        if let Some(fix) = f.get("fix") {
            let region = &r["fixes"][0]["artifactChanges"][0]["replacements"][0]["deletedRegion"];
            assert_eq!(
                (&region["startLine"], &region["startColumn"]),
                (&fix["line"], &fix["column"])
            );
        }
    }
    // The emoji before the preposition: column 6 in UTF-16 code units, as in the JSON.
    let emoji = results
        .iter()
        .find(|r| {
            r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                == "content/talks/%C3%BAvod%202.md"
                && r["ruleId"] == "cs-R1-nbsp-prep"
        })
        .expect("the new file's finding");
    assert_eq!(
        emoji["locations"][0]["physicalLocation"]["region"]["startColumn"],
        15
    );
}

/// SARIF 2.1.0's schema, formats checked.
fn validator() -> jsonschema::Validator {
    let mut schema: Value =
        serde_json::from_str(include_str!("data/sarif-schema-2.1.0.json")).unwrap();
    // The schema's own pattern for a `language` ("en" or "en-US") has a stray `]` that the
    // validator's regular-expression check refuses, which would refuse the whole schema
    // with formats checked: each is written as meant, so that every format is checked.
    let fixed = fix_language_patterns(&mut schema);
    assert_eq!(fixed, 2, "the run's and the tool component's");
    jsonschema::options()
        .should_validate_formats(true)
        .build(&schema)
        .expect("the schema compiles")
}

fn schema_errors(log: &Value) -> Vec<String> {
    validator()
        .iter_errors(log)
        .map(|e| format!("{e} at {}", e.instance_path()))
        .collect()
}

#[test]
fn soil_lock_check_sarif_is_valid_with_every_violation_where_json_places_it() {
    let tree = Tree::copy_of("soil");
    let edit = |rel: &str, from: &str, to: &str| {
        let text = tree.read(rel);
        assert!(text.contains(from), "{rel}");
        tree.write(rel, &text.replacen(from, to, 1));
    };
    edit("csvstats/sum.tr", "```ensures\n", "```ensures @agent\n");
    edit("csvstats/sum.soil", "sum xs =", "sum xs = =");
    let run = |format: &str| {
        let out = tree
            .soil_lock()
            .args(["check", "--format", format])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{format}");
        json(&out.stdout)
    };
    let log = run("sarif");
    let errors = schema_errors(&log);
    assert!(errors.is_empty(), "{errors:#?}");
    let report = run("json");
    let violations = report["violations"].as_array().unwrap();
    let run0 = &log["runs"][0];
    let results = run0["results"].as_array().unwrap();
    assert_eq!(results.len(), violations.len());
    assert!(results.len() >= 3, "{results:#?}");
    let rules = run0["tool"]["driver"]["rules"].as_array().unwrap();
    for (r, v) in results.iter().zip(violations) {
        assert_eq!(r["ruleId"], v["code"]);
        assert_eq!(r["level"], "error");
        let index = r["ruleIndex"].as_u64().unwrap() as usize;
        assert_eq!(rules[index]["id"], v["code"]);
        let location = &r["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], v["file"]);
        assert_eq!(location["region"]["startLine"], v["line"]);
        assert_eq!(location["region"]["startColumn"], v["column"]);
    }
    let base = run0["originalUriBaseIds"]["ROOT"]["uri"].as_str().unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with('/'),
        "{base}"
    );
}

/// Replaces the schema's malformed `language` patterns; how many there were.
fn fix_language_patterns(v: &mut Value) -> usize {
    const BROKEN: &str = "^[a-zA-Z]{2}|^[a-zA-Z]{2}-[a-zA-Z]{2}]?$";
    match v {
        Value::String(s) if s == BROKEN => {
            *s = "^[a-zA-Z]{2}(-[a-zA-Z]{2})?$".to_owned();
            1
        }
        Value::Array(items) => items.iter_mut().map(fix_language_patterns).sum(),
        Value::Object(map) => map.values_mut().map(fix_language_patterns).sum(),
        _ => 0,
    }
}
