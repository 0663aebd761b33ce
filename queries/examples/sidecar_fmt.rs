//! Rewrites sidecars in canonical form, in place: a developer tool for building fixtures
//! (`cargo run -p lockgraph-queries --example sidecar_fmt -- a.lock b.lock`).

fn main() -> std::process::ExitCode {
    let mut failed = false;
    for path in std::env::args().skip(1) {
        let result = std::fs::read_to_string(&path)
            .map_err(|e| e.to_string())
            .and_then(|text| {
                lockgraph_queries::soil::sidecar::parse(&text).map_err(|e| e.to_string())
            })
            .and_then(|s| {
                let text = lockgraph_queries::soil::sidecar::to_canonical_string(&s);
                std::fs::write(&path, text).map_err(|e| e.to_string())
            });
        if let Err(e) = result {
            eprintln!("{path}: {e}");
            failed = true;
        }
    }
    if failed {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}
