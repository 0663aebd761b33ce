//! Edit-to-output latency of `copy-audit --watch`: opens a watch session on a corpus,
//! then edits one file (alternating two contents) and times `Session::refresh`, the work
//! between a debounced file event and the printed findings.
//! `cargo run --release --example watch_latency -- <corpus dir> <file> [edits]`

use lockgraph::copy_audit::watch::Session;
use lockgraph::copy_audit::workspace::Workspace;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(file)) = (args.first(), args.get(1)) else {
        eprintln!("usage: watch_latency <corpus dir> <file relative to it> [edits]");
        std::process::exit(2);
    };
    let edits: usize = args.get(2).map_or(21, |n| n.parse().expect("a number"));
    let dir = std::fs::canonicalize(dir).expect("corpus dir");
    let ws = Workspace::load(Some(&dir.join(".copy-editor.yaml")), None)
        .unwrap_or_else(|f| panic!("{}", f.message));
    let matcher = ws.config.matcher(None).expect("matcher");
    let t = Instant::now();
    let mut session =
        Session::open(&ws, matcher, false).unwrap_or_else(|f| panic!("{}", f.message));
    println!(
        "session loaded in {:.0} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let path = dir.join(file);
    let original = std::fs::read_to_string(&path).expect("the file to edit");
    let mut times = Vec::new();
    for i in 0..edits {
        let text = if i % 2 == 0 {
            format!("{original}\nDoplněná věta s chybou v domě {i}.\n")
        } else {
            original.clone()
        };
        std::fs::write(&path, text).expect("write");
        let t = Instant::now();
        let deltas = session
            .refresh(&ws, std::slice::from_ref(&path))
            .expect("refresh");
        times.push(t.elapsed().as_secs_f64() * 1e3);
        assert!(!deltas.is_empty(), "each edit changes the findings");
    }
    std::fs::write(&path, original).expect("restore");
    times.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    println!(
        "{} single-file edits: median {:.2} ms, max {:.2} ms",
        times.len(),
        times[times.len() / 2],
        times[times.len() - 1]
    );
}
