//! Line endings (issue 28, item 8). LF and CRLF files are audited alike; a file with a
//! lone carriage return (a classic Mac OS line ending) is one file's error at that CR,
//! never a report on "line 1" nor a file whose findings silently vanish: editors disagree
//! on where its lines are (see `LONE_CR` in `queries/src/copy/engine/compute.rs`).

mod common;

use common::{Tree, json};

#[test]
fn a_lone_cr_is_one_files_error_at_its_position() {
    let tree = Tree::copy_of("copy");
    let markdown = "---\ntitle: Úvod\n---\n# Nadpis\n\nJdu v lese.\rA k poli.\r";
    tree.write("content/mac.md", markdown);
    let tsx = "// Komentář\rexport const a = \"Jdu v lese...\";\r";
    tree.write("src/mac.tsx", tsx);
    // The same text with CRLF line endings is audited as usual.
    tree.write("content/dos.md", &markdown.replace('\r', "\r\n"));
    let out = tree.copy_audit().arg("--json").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let report = json(&out.stdout);
    let errors = report["fileErrors"].as_array().unwrap();
    let at = |path: &str| {
        errors
            .iter()
            .find(|e| e["relativePath"] == path)
            .unwrap_or_else(|| panic!("no error for {path}: {errors:#?}"))
    };
    let md = at("content/mac.md");
    assert_eq!(
        (md["line"].as_u64(), md["column"].as_u64()),
        (Some(6), Some(12))
    );
    assert!(
        md["message"]
            .as_str()
            .unwrap()
            .contains("carriage return without a line feed")
    );
    let ts = at("src/mac.tsx");
    assert_eq!(
        (ts["line"].as_u64(), ts["column"].as_u64()),
        (Some(1), Some(12))
    );
    assert!(
        errors.iter().all(|e| e["relativePath"] != "content/dos.md"),
        "{errors:#?}"
    );
    let findings = report["findings"].as_array().unwrap();
    let dos: Vec<_> = findings
        .iter()
        .filter(|f| f["relativePath"] == "content/dos.md")
        .collect();
    assert!(!dos.is_empty(), "the CRLF copy is audited");
    assert!(
        dos.iter().all(|f| f["line"].as_u64() >= Some(6)),
        "{dos:#?}"
    );
}
