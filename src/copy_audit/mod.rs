//! `copy-audit`: the shell around the copy engine.

mod audit;
mod cache;
pub mod cli;
mod fix;
mod journal;
mod lockedit;
mod lockfile_cmd;
mod lockview;
mod offline;
mod problems;
mod report;
mod report_merge;
mod review;
mod segment;
pub mod server;
mod session;
pub mod watch;
pub mod workspace;

use clap::{CommandFactory, Parser};
use cli::{Cli, Command, LockfileCommand, OutputFormat, ReportCommand};
use std::process::ExitCode;

pub use crate::Failure;

/// What a finished command says about the tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Clean,
    /// Error findings, a failed gate, or unsegmented files listed.
    Failed,
}

pub fn main() -> ExitCode {
    crate::memory::free_pages_soon();
    crate::output::guard();
    crate::logging::init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Failed) => ExitCode::from(1),
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> Result<Outcome, Failure> {
    let format = match (cli.json, cli.audit.format) {
        (true, Some(f)) if f != OutputFormat::Json => {
            return Err(Failure::new(
                "--json conflicts with --format; pass one of them",
            ));
        }
        (true, _) => OutputFormat::Json,
        (false, f) => f.unwrap_or(OutputFormat::Human),
    };
    if cli.audit.self_test {
        return audit::self_test(format);
    }
    let lang = cli.audit.lang.as_deref();
    let replay = audit::replay::key(&cli);
    match cli.command {
        Some(Command::Segment { path }) => {
            let ws = workspace::Workspace::load(cli.config.as_deref(), lang)?;
            segment::run(&ws, &path, format)
        }
        // A merge driver runs from the top of a repository, wherever the config is: it
        // needs none.
        Some(Command::Lockfile(LockfileCommand::Merge { base, ours, theirs })) => {
            lockfile_cmd::merge(&base, &ours, &theirs)
        }
        Some(Command::Server) => server::run(cli.config.as_deref()),
        // Reports name their files: no config is needed to merge them.
        Some(Command::Report(ReportCommand::Merge { reports })) => report_merge::run(&reports),
        Some(Command::Completions { shell }) => {
            crate::shellkit::print_completions(Cli::command(), shell).map(|()| Outcome::Clean)
        }
        Some(Command::ManPages { dir }) => {
            crate::shellkit::write_man_pages(Cli::command(), &dir).map(|_| Outcome::Clean)
        }
        Some(Command::Lockfile(cmd)) => {
            let ws = workspace::Workspace::load(cli.config.as_deref(), lang)?;
            lockfile_cmd::run(&ws, cmd, format)
        }
        None => {
            let ws = workspace::Workspace::load(cli.config.as_deref(), lang)?;
            run_audit(&ws, &cli.audit, format, replay.as_ref())
        }
    }
}

/// The audit and what its flags run before it (`--refresh-cache`, `--offline`, `--fix`,
/// in that order) or instead of it (`--review-cache`, `--watch`): each a command of its
/// own, called from here and never from another command.
fn run_audit(
    ws: &workspace::Workspace,
    args: &cli::AuditArgs,
    format: OutputFormat,
    replay: Option<&crate::replay::Key>,
) -> Result<Outcome, Failure> {
    if let Some(glob) = &args.refresh_cache {
        lockedit::invalidate(ws, glob)?;
    }
    if args.review_cache {
        return review::run(ws);
    }
    let mut matcher = ws
        .config
        .matcher(args.paths.as_deref())
        .map_err(|e| Failure::new(e.to_string()))?;
    if !args.files.is_empty() {
        matcher = matcher.only(ws.named(&args.files)?);
    }
    if let Some(shard) = args.shard {
        matcher = matcher.in_shard(shard);
    }
    if args.offline {
        offline::segment(ws, &matcher)?;
    }
    ws.warn_about_config();
    if args.watch {
        return watch::run(ws, matcher).map(|()| Outcome::Clean);
    }
    if args.fix {
        fix::run(ws, &matcher, args.fix_unsegmented, args.quiet)?;
    }
    audit::run(ws, args, &matcher, format, replay)
}
