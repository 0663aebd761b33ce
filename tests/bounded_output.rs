//! Output stays linear in the root (issue 19): `why` on a long stale chain and `check` on
//! a long oracle cycle once printed the whole chain or cycle per line.

mod common;

use lockgraph_queries::soil::sidecar::{
    self, Author, BlockAuthor, DefKind, Lowering, LoweringProvenance, NameHash, Oracle, SpecHashes,
    Versions,
};
use lockgraph_queries::soil::{spec_hash, tr};
use std::fmt::Write as _;

const N: usize = 2_000;

/// A root of `N` definitions `m/d0` … : each calls the one before it, recorded against a
/// hash that is not that one's (so every one is `stale-callees`), and each is accepted
/// with the next as its oracle (one cycle through all of them).
fn root() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("soil.toml"),
        "[toolchain]\ntrellis = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::create_dir(dir.path().join("m")).unwrap();
    let h = |i: usize, tag: &str| format!("sha256:{:064x}", i * 4 + tag.len());
    let spec = |i: usize| {
        let text = format!(
            "---\nname: d{i}\n---\n\n# d{i}\n\nStep {i}.\n\n```test basics\n(1) => {i}\n```\n"
        );
        let parsed = tr::parse(&format!("d{i}.tr"), &text);
        (text.clone(), spec_hash::spec_hashes(&parsed, &text), parsed)
    };
    let formal: Vec<String> = (0..N).map(|i| spec(i).1.formal.to_string()).collect();
    for i in 0..N {
        let name = format!("d{i}");
        let (text, hashes, parsed) = spec(i);
        let blocks = parsed
            .blocks
            .iter()
            .map(|b| BlockAuthor {
                block: b.identity().into(),
                author: Author::Human,
            })
            .collect();
        let mut s = sidecar::default_for(
            &name,
            DefKind::Function,
            SpecHashes {
                formal: hashes.formal.into(),
                test: hashes.test.map(Into::into),
                prose: hashes.prose.into(),
            },
            blocks,
            Versions(vec![("trellis".into(), "0.1.0".into())]),
        );
        s.lowering = Some(Lowering {
            soil_hash: h(i, "sss").parse().unwrap(),
            provenance: LoweringProvenance::Agent,
            provider: None,
            model: None,
            private_helpers: Vec::new(),
            calls: (i > 0)
                .then(|| NameHash {
                    name: format!("d{}", i - 1).into(),
                    hash: h(i, "x").parse().unwrap(),
                })
                .into_iter()
                .collect(),
            decisions: None,
        });
        s.oracles = vec![Oracle::Definition {
            name: format!("d{}", (i + 1) % N),
            formal_hash: formal[(i + 1) % N].parse().unwrap(),
        }];
        s.accepted = true;
        let base = dir.path().join(format!("m/{name}"));
        std::fs::write(base.with_extension("tr"), text).unwrap();
        std::fs::write(
            base.with_extension("lock"),
            sidecar::to_canonical_string(&s),
        )
        .unwrap();
    }
    dir
}

fn stdout(dir: &std::path::Path, args: &[&str]) -> String {
    let out = assert_cmd::Command::cargo_bin("soil-lock")
        .unwrap()
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn why_and_check_print_linear_output_on_long_chains_and_cycles() {
    let dir = root();
    if std::env::var_os("KEEP_ROOT").is_some() {
        let kept = dir.keep();
        eprintln!("root kept at {}", kept.display());
        return;
    }
    let last = format!("m/d{}", N - 1);
    let why = stdout(dir.path(), &["why", &last]);
    // The chain runs through every definition: its start and its cause are shown.
    assert!(why.contains("more steps (--json lists them)"), "{why}");
    assert!(why.contains("m/d1 [stale-callees]"), "{why}");
    assert!(why.len() < 16 * 1024, "{} bytes", why.len());
    let json = stdout(dir.path(), &["why", &last, "--json"]);
    let steps = common::json(json.as_bytes())["chains"][0]
        .as_array()
        .unwrap()
        .len();
    assert_eq!(steps, N - 1, "--json has every step");

    let check = stdout(dir.path(), &["check"]);
    let cycle_lines = check.lines().filter(|l| l.contains("oracle-cycle")).count();
    assert_eq!(cycle_lines, N, "one line per accepted member");
    let mut longest = 0;
    for line in check.lines() {
        longest = longest.max(line.len());
    }
    assert!(longest < 400, "a line of {longest} bytes");
    let mut expected = String::new();
    let _ = write!(expected, "→ … ({N} definitions)");
    assert!(
        check.contains(&expected),
        "{}",
        &check[..check.len().min(2000)]
    );
}
