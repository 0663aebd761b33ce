//! The physical floor of an audit: walk the tree, read every file and SHA-256 it, in
//! parallel — what any content-hashing tool must at least do. The scaling script reports
//! every timing as a multiple of this, measured in the same run on the same machine.
//! `cargo run --release --example floor -- <dir> [extension…]`

use rayon::prelude::*;
use sha2::{Digest, Sha256};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(dir) = args.next() else {
        eprintln!("usage: floor <dir> [extension…]");
        std::process::exit(2);
    };
    let exts: Vec<String> = args.collect();
    let files: Vec<std::path::PathBuf> = ignore::WalkBuilder::new(&dir)
        .hidden(false)
        .build()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_some_and(|t| t.is_file()))
        .map(|e| e.into_path())
        .filter(|p| {
            exts.is_empty()
                || p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| exts.iter().any(|x| x == e))
        })
        .collect();
    let bytes: u64 = files
        .par_iter()
        .map(|p| {
            let data = std::fs::read(p).expect("readable file");
            std::hint::black_box(Sha256::digest(&data));
            data.len() as u64
        })
        .sum();
    println!("{} files, {} bytes", files.len(), bytes);
}
