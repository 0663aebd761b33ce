//! The engine version the caches are keyed by, derived from the sources rather than bumped
//! by hand: a hash of every Rust source of both crates and of `Cargo.lock` (a dependency
//! such as `regex` decides findings too). Any change to what could decide a finding or a
//! cache's layout gives a new version, so no cache written by another build is trusted;
//! an identical rebuild keeps its caches.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut files = Vec::new();
    for dir in ["src", "queries/src"] {
        println!("cargo:rerun-if-changed={dir}");
        sources(&root.join(dir), &mut files);
    }
    files.push(root.join("Cargo.lock"));
    println!("cargo:rerun-if-changed=Cargo.lock");
    files.sort();
    let mut hash = Sha256::new();
    for file in &files {
        let rel = file.strip_prefix(&root).unwrap_or(file);
        let bytes = std::fs::read(file).unwrap_or_default();
        for part in [rel.to_string_lossy().as_bytes(), &bytes[..]] {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
    }
    let digest = hash.finalize();
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    println!("cargo:rustc-env=LOCKGRAPH_SOURCE_HASH={hex}");
}
