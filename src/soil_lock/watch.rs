//! `soil-lock watch`: one live [`Session`] (the root is read once); each batch of file
//! events (`crate::watch`) is taken in, and the definitions whose status or flags changed
//! are printed.

use super::root::Root;
use super::session::{Session, Shown, definition_file};
use super::{Failure, kind_of};
use crate::fsutil::relative;
use std::path::{Path, PathBuf};
use std::time::Instant;

fn describe(s: &Shown) -> String {
    let flags: Vec<&str> = s.flags.iter().map(|f| f.as_str()).collect();
    format!(
        "{}{}{}",
        if s.unreadable {
            "unreadable"
        } else {
            s.ladder.as_str()
        },
        if s.accepted { ", accepted" } else { "" },
        if flags.is_empty() {
            String::new()
        } else {
            format!(" [{}]", flags.join(", "))
        }
    )
}

pub fn run(root: Root) -> Result<(), Failure> {
    let dir = root.dir.clone();
    let started = Instant::now();
    let mut session = Session::new(root);
    let watch = crate::watch::Watch::start(&dir)?;
    println!(
        "watching {} ({} definitions, loaded in {:.0} ms); Ctrl-C to stop",
        dir.display(),
        session.root.defs.len(),
        started.elapsed().as_secs_f64() * 1e3
    );
    watch.run(&mut session)
}

impl crate::watch::Session for Session {
    /// Specs, sidecars and `.soil` files where the walk looks for them (not in dot
    /// directories, not the manifest), and the files the oracles read.
    fn wants(&self, path: &Path) -> bool {
        if self.root.oracle_files.contains(path) {
            return true;
        }
        relative(&self.root.dir, path).is_some_and(|rel| {
            definition_file(&rel)
                .is_some_and(|(stem, _)| !stem.split('/').any(|part| part.starts_with('.')))
        })
    }

    fn changed(&mut self, paths: &[PathBuf]) -> Result<(), Failure> {
        let t = Instant::now();
        let changes = self.refresh(paths)?;
        for c in &changes {
            let kind = self
                .root
                .find(&c.path)
                .ok()
                .and_then(|d| kind_of(&self.root, d))
                .map_or("?", |k| k.as_str());
            let after = describe(&c.after);
            match c.before.as_ref().map(describe) {
                // Only the reason changed (a sidecar half written, then emptied): the error
                // line below says so.
                Some(before) if before == after => {}
                Some(before) => println!("{} ({kind}): {before} → {after}", c.path),
                None => println!("{} ({kind}): new, {after}", c.path),
            }
            // What `status` prints below such a row, once per new reason.
            if let Some(e) = &c.after.error
                && c.before.as_ref().and_then(|b| b.error.as_ref()) != Some(e)
            {
                eprintln!("error: {e}");
            }
        }
        if !changes.is_empty() {
            println!(
                "-- {} definition(s) changed, in {:.1} ms",
                changes.len(),
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok(())
    }
}
