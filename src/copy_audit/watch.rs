//! `copy-audit --watch`: the live session ([`Session`]) driven by file events, the
//! difference in findings printed after each.

use super::Failure;
pub use super::session::{Delta, Session};
use super::workspace::Workspace;
use crate::config::PathMatcher;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn print_deltas(deltas: &[Delta], elapsed: Duration) {
    for d in deltas {
        match d.created {
            Some(true) => println!("+ {} (new file)", d.path),
            Some(false) => println!("- {} (deleted)", d.path),
            None => {}
        }
        for f in &d.removed {
            println!(
                "  fixed  {}:{}:{} {} {}",
                d.path, f.line, f.column, f.rule_id, f.message
            );
        }
        for f in &d.added {
            println!(
                "  {:<6} {}:{}:{} {} {}",
                f.severity.as_str(),
                d.path,
                f.line,
                f.column,
                f.rule_id,
                f.message
            );
        }
    }
    if !deltas.is_empty() {
        println!(
            "-- {} file(s) changed, re-audited in {:.1} ms",
            deltas.len(),
            elapsed.as_secs_f64() * 1e3
        );
    }
}

/// Runs until interrupted.
pub fn run(ws: &Workspace, matcher: PathMatcher) -> Result<(), Failure> {
    let started = Instant::now();
    let session = Session::open(ws, matcher, false)?;
    let watch = crate::watch::Watch::start(&ws.root)?;
    println!(
        "watching {} ({} files, {} findings, loaded in {:.0} ms); Ctrl-C to stop",
        ws.root.display(),
        session.len(),
        session.findings(),
        started.elapsed().as_secs_f64() * 1e3
    );
    watch.run(&mut Watching { ws, session })
}

/// A session as the watch loop sees it.
struct Watching<'a> {
    ws: &'a Workspace,
    session: Session,
}

impl crate::watch::Session for Watching<'_> {
    /// The files in scope and the lockfile: the walk's own filter, so a log or a build
    /// written beside the prose costs nothing.
    fn wants(&self, path: &Path) -> bool {
        super::session::rel_of(&self.ws.root, path).is_some_and(|rel| {
            rel == self.ws.config.cache_path || self.session.matcher().is_included(&rel)
        })
    }

    fn changed(&mut self, paths: &[PathBuf]) -> Result<(), Failure> {
        let t = Instant::now();
        let deltas = self.session.refresh(self.ws, paths)?;
        print_deltas(&deltas, t.elapsed());
        Ok(())
    }
}
