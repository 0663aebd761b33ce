//! `action.yml` run the way GitHub's runner runs a composite action: each step's `env`,
//! `if` and `working-directory` evaluated (`inputs`, `github.action_path`, earlier steps'
//! outputs through `$GITHUB_OUTPUT`), each `run` script under `bash --noprofile --norc -eo
//! pipefail`. The `uses: actions/cache` steps cannot run outside GitHub: they are skipped,
//! as on a cache miss, so the build step builds the tools from this checkout with
//! `cargo install --locked` (its profile made cheap and its target directory kept in
//! `target/pre-commit/`, as tests/pre_commit.rs does).

mod common;

use regex::Regex;
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn action() -> Value {
    let text = std::fs::read_to_string(manifest_dir().join("action.yml")).unwrap();
    serde_saphyr::from_str(&text).expect("action.yml is YAML")
}

/// One run of the action: its outputs, the run step's stdout and exit code.
struct Ran {
    outputs: BTreeMap<String, BTreeMap<String, String>>,
    stdout: String,
    code: i32,
    skipped: Vec<String>,
}

/// The value of `${{ expr }}` in the context of the run so far.
fn eval(expr: &str, inputs: &BTreeMap<String, String>, ran: &Ran, runner_temp: &Path) -> String {
    let expr = expr.trim();
    if let Some(name) = expr.strip_prefix("inputs.") {
        return inputs.get(name).cloned().unwrap_or_default();
    }
    if let Some(rest) = expr.strip_prefix("steps.") {
        let (id, key) = rest
            .split_once(".outputs.")
            .expect("steps.<id>.outputs.<key>");
        return ran
            .outputs
            .get(id)
            .and_then(|o| o.get(key))
            .cloned()
            .unwrap_or_default();
    }
    match expr {
        "github.action_path" => manifest_dir().display().to_string(),
        "runner.temp" => runner_temp.display().to_string(),
        _ => panic!("an expression this test does not know: {expr}"),
    }
}

fn substitute(text: &str, inputs: &BTreeMap<String, String>, ran: &Ran, temp: &Path) -> String {
    let re = Regex::new(r"\$\{\{(.*?)\}\}").unwrap();
    re.replace_all(text, |c: &regex::Captures| eval(&c[1], inputs, ran, temp))
        .into_owned()
}

/// An `if:` of the forms the action uses: `A == 'x'` or `A != 'x'`.
fn condition(expr: &str, inputs: &BTreeMap<String, String>, ran: &Ran, temp: &Path) -> bool {
    let (left, right, equal) = match (expr.split_once("!="), expr.split_once("==")) {
        (Some((l, r)), _) => (l, r, false),
        (None, Some((l, r))) => (l, r, true),
        _ => panic!("a condition this test does not know: {expr}"),
    };
    let value = eval(left, inputs, ran, temp);
    let literal = right.trim().trim_matches('\'');
    (value == literal) == equal
}

fn run_action(workspace: &Path, given: &[(&str, &str)]) -> Ran {
    let action = action();
    let mut inputs: BTreeMap<String, String> = action["inputs"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v["default"].as_str().unwrap_or("").to_owned()))
        .collect();
    for (k, v) in given {
        assert!(inputs.contains_key(*k), "no input `{k}`");
        inputs.insert(k.to_string(), v.to_string());
    }
    let temp = tempfile::tempdir().unwrap();
    let mut ran = Ran {
        outputs: BTreeMap::new(),
        stdout: String::new(),
        code: 0,
        skipped: Vec::new(),
    };
    assert_eq!(action["runs"]["using"], "composite");
    for (i, step) in action["runs"]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let name = step["name"].as_str().unwrap_or("?").to_owned();
        if step.get("uses").is_some() {
            ran.skipped.push(name);
            continue;
        }
        if let Some(cond) = step["if"].as_str()
            && !condition(cond, &inputs, &ran, temp.path())
        {
            ran.skipped.push(name);
            continue;
        }
        assert_eq!(step["shell"], "bash", "{name}");
        let script = temp.path().join(format!("step-{i}.sh"));
        std::fs::write(&script, step["run"].as_str().unwrap()).unwrap();
        let output_file = temp.path().join(format!("output-{i}"));
        std::fs::write(&output_file, "").unwrap();
        let dir = match step["working-directory"].as_str() {
            Some(d) => workspace.join(substitute(d, &inputs, &ran, temp.path())),
            None => workspace.to_path_buf(),
        };
        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(dir)
            .env("GITHUB_OUTPUT", &output_file)
            .env("RUNNER_TEMP", temp.path())
            .env("GITHUB_WORKSPACE", workspace)
            .envs(cheap_build());
        for (k, v) in step["env"].as_object().into_iter().flatten() {
            cmd.env(
                k,
                substitute(v.as_str().unwrap(), &inputs, &ran, temp.path()),
            );
        }
        let out = cmd.output().unwrap();
        let code = out.status.code().unwrap();
        let outputs: BTreeMap<String, String> = std::fs::read_to_string(&output_file)
            .unwrap()
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        if let Some(id) = step["id"].as_str() {
            ran.outputs.insert(id.to_owned(), outputs);
        }
        ran.stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        ran.code = code;
        if code != 0 {
            // A failed step ends the job, as on the runner.
            eprintln!("step `{name}`: {}", String::from_utf8_lossy(&out.stderr));
            break;
        }
    }
    // The binaries stay in this run's temporary directory: keep it to the end of the run.
    std::mem::forget(temp);
    ran
}

/// The same cheap profile and shared target directory as tests/pre_commit.rs.
fn cheap_build() -> Vec<(&'static str, String)> {
    vec![
        (
            "CARGO_TARGET_DIR",
            manifest_dir()
                .join("target/pre-commit")
                .display()
                .to_string(),
        ),
        ("CARGO_PROFILE_RELEASE_LTO", "false".into()),
        ("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0".into()),
        ("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256".into()),
        ("CARGO_PROFILE_RELEASE_DEBUG", "false".into()),
    ]
}

/// A user's checkout: the copy-audit fixture at its top and a soil-lock root in `specs/`,
/// committed.
fn checkout() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    common::copy_dir(&manifest_dir().join("fixtures/copy"), dir.path());
    common::copy_dir(
        &manifest_dir().join("fixtures/soil"),
        &dir.path().join("specs"),
    );
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(["-c", "user.name=Test", "-c", "user.email=test@example.com"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "-A"]);
    git(&["commit", "-q", "-m", "checkout"]);
    dir
}

#[test]
fn the_action_builds_the_tools_and_reports_as_annotations_or_sarif() {
    let work = checkout();
    let ws = work.path();

    // copy-audit, annotations: the fixture's error findings fail the step.
    let ran = run_action(ws, &[]);
    assert_eq!(ran.code, 1, "{}", ran.stdout);
    assert!(
        ran.skipped
            .iter()
            .any(|s| s.contains("Restore the binaries")),
        "{:?}",
        ran.skipped
    );
    let lines: Vec<&str> = ran.stdout.lines().collect();
    assert!(!lines.is_empty());
    assert!(lines.iter().all(|l| l.starts_with("::")), "{}", ran.stdout);
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("::error file=content/talks/uvod.md,line=")),
        "{}",
        ran.stdout
    );
    let keys = &ran.outputs["key"];
    assert!(keys["cache"].starts_with(&keys["cache-prefix"]), "{keys:?}");

    // SARIF: the file is written and named even though the step fails.
    let ran = run_action(
        ws,
        &[
            ("format", "sarif"),
            ("args", "--lang cs"),
            ("sarif-file", "out.sarif"),
        ],
    );
    assert_eq!(ran.code, 1);
    let written = &ran.outputs["run"]["sarif-file"];
    assert_eq!(
        Path::new(written),
        ws.canonicalize().unwrap().join("out.sarif")
    );
    let log: Value = serde_json::from_slice(&std::fs::read(written).unwrap()).unwrap();
    assert_eq!(log["version"], "2.1.0");
    assert!(!log["runs"][0]["results"].as_array().unwrap().is_empty());

    // soil-lock on the clean root under specs/, from a working directory.
    let ran = run_action(ws, &[("tool", "soil-lock"), ("working-directory", "specs")]);
    assert_eq!((ran.code, ran.stdout.as_str()), (0, ""));
    let ran = run_action(
        ws,
        &[
            ("tool", "soil-lock"),
            ("args", "--root specs --require verified"),
        ],
    );
    assert_eq!(ran.code, 1);
    assert!(
        ran.stdout
            .lines()
            .any(|l| l.starts_with("::error file=specs/csvstats/")
                && l.contains("title=policy::requires verified")),
        "{}",
        ran.stdout
    );

    // A tool it does not know stops at the first step, with an annotation.
    let ran = run_action(ws, &[("tool", "ruff")]);
    assert_eq!(ran.code, 2);
    assert!(ran.stdout.contains("::error title=lockgraph::tool must be"));
}
