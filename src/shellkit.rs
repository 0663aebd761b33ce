//! What a shell needs of both binaries, generated from their clap definitions so that it
//! cannot fall behind them: completion scripts (`completions <shell>`) and man pages (the
//! hidden `man-pages <dir>`, one page per command and subcommand).
//!
//! Man pages are a subcommand of each binary rather than a `cargo xtask`: a user who
//! installed the binaries with `cargo install` has no source tree, and packagers call the
//! binary they ship.

use crate::Failure;
use clap_complete::Shell;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Prints the completion script of `cmd` for `shell` on standard output.
pub fn print_completions(mut cmd: clap::Command, shell: Shell) -> Result<(), Failure> {
    let name = cmd.get_name().to_owned();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    std::io::stdout()
        .write_all(&script)
        .map_err(|e| Failure::new(format!("standard output: {e}")))
}

/// Writes a man page for `cmd` and each of its visible subcommands into `dir` (created if
/// missing), named as `man` finds them (`copy-audit-lockfile-add.1`); a page whose bytes
/// are already there is not rewritten. Returns the pages' paths.
pub fn write_man_pages(cmd: clap::Command, dir: &Path) -> Result<Vec<PathBuf>, Failure> {
    let io = |what: &Path, e: std::io::Error| Failure::new(format!("{}: {e}", what.display()));
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut pages = Vec::new();
    collect(&cmd, &mut pages);
    let mut written = Vec::new();
    for page in pages {
        let man = clap_mangen::Man::new(page).manual("lockgraph");
        let path = dir.join(man.get_filename());
        let mut roff = Vec::new();
        man.render(&mut roff).map_err(|e| io(&path, e))?;
        crate::fsutil::write_if_changed(dir, &path, &roff).map_err(|e| io(&path, e))?;
        written.push(path);
    }
    Ok(written)
}

/// `cmd` and its visible subcommands, depth first; a built command names its
/// subcommands `parent-child`, which is the page's name.
fn collect(cmd: &clap::Command, out: &mut Vec<clap::Command>) {
    out.push(cmd.clone());
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, out);
    }
}
