//! The invariants of `ARCHITECTURE.md` that a reading of the source can check: each test
//! here is one of them, so the document cannot claim what the code no longer keeps.

use std::fs;
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`, with its non-test lines: a file's top-level `mod tests`
/// (after `#[cfg(test)]`) and files named `tests.rs` are left out.
fn sources(dir: &str) -> Vec<(PathBuf, Vec<(usize, String)>)> {
    let mut files = Vec::new();
    let mut pending = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join(dir)];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path.file_name().is_some_and(|n| n != "tests.rs")
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let mut kept = Vec::new();
            let mut i = 0;
            while i < lines.len() {
                let starts_tests = lines[i].trim() == "#[cfg(test)]"
                    && lines.get(i + 1).is_some_and(|l| l.starts_with("mod tests"));
                if starts_tests {
                    // `mod tests;` is a file of its own (named `tests.rs`); an inline
                    // top-level module ends at the first `}` in column one (rustfmt).
                    i += 1;
                    if !lines[i].ends_with(';') {
                        while i < lines.len() && lines[i] != "}" {
                            i += 1;
                        }
                    }
                } else {
                    kept.push((i + 1, lines[i].to_owned()));
                }
                i += 1;
            }
            (path, kept)
        })
        .collect()
}

fn shown(path: &Path) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The engine never does I/O: no file system, environment, clock, process or network in
/// `queries/` outside its tests. The shell reads, the engine computes, the shell writes.
#[test]
fn the_engine_does_no_io() {
    let banned = [
        "std::fs",
        "std::env",
        "std::time",
        "std::process",
        "std::net",
        "stdin()",
    ];
    let mut found = Vec::new();
    for (path, lines) in sources("queries/src") {
        for (n, line) in lines {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for word in banned {
                if line.contains(word) {
                    found.push(format!("{}:{n}: {word}", shown(&path)));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The two wings of the engine stand apart: `copy/` never names `soil/`, nor the reverse.
/// What both need lives below them (`db`, `hash`, `text`).
#[test]
fn the_wings_never_import_each_other() {
    let mut found = Vec::new();
    for (wing, other) in [("copy", "crate::soil"), ("soil", "crate::copy")] {
        for (path, lines) in sources(&format!("queries/src/{wing}")) {
            for (n, line) in lines {
                if line.contains(other) {
                    found.push(format!("{}:{n}", shown(&path)));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `unsafe` lives in a few files, each for a reason `ARCHITECTURE.md` names, and every
/// `unsafe` block states why it is sound in a `SAFETY` comment just above it (or on it).
#[test]
fn unsafe_is_rare_and_every_block_says_why() {
    let allowed = [
        "queries/src/copy/bytescan/x86.rs",
        "queries/src/copy/rules/triggers.rs",
        "queries/src/copy/rules/repeat/masks.rs",
        "queries/src/copy/source.rs",
        "src/fsutil.rs",
        "src/memory.rs",
        "src/output.rs",
    ];
    let mut found = Vec::new();
    for dir in ["queries/src", "src"] {
        for (path, lines) in sources(dir) {
            let name = shown(&path);
            for (i, (n, line)) in lines.iter().enumerate() {
                let code = line.split("//").next().unwrap_or("");
                if !code.contains("unsafe {") && !code.contains("unsafe{") {
                    continue;
                }
                if !allowed.contains(&name.as_str()) {
                    found.push(format!("{name}:{n}: unsafe outside the files allowed it"));
                }
                let said = lines[i.saturating_sub(4)..=i]
                    .iter()
                    .any(|(_, l)| l.contains("SAFETY"));
                if !said {
                    found.push(format!("{name}:{n}: unsafe block without a SAFETY comment"));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}
