//! `soil-lock`: the shell around the soil engine.

mod cache;
pub mod cli;
mod remote;
mod render;
mod replay;
mod report;
pub mod root;
pub mod server;
pub mod session;
mod sidecars;
mod walk;
pub mod watch;

use crate::fsutil::write_if_changed;
use clap::{CommandFactory, Parser};
use cli::{ChangeArg, Cli, Command, GraphFormat, Require};
use lockgraph_queries::soil::check::{self, Policy, Requirement, Scope};
use lockgraph_queries::soil::engine::{self, Definition};
use lockgraph_queries::soil::graph::{self, Change};
use lockgraph_queries::soil::refresh;
use lockgraph_queries::soil::sidecar::{self, DefKind};
use lockgraph_queries::soil::soil_hash;
use root::Root;
use sidecars::Outcome;
use std::io::Write;
use std::process::ExitCode;

pub use crate::Failure;

pub fn main() -> ExitCode {
    crate::memory::free_pages_soon();
    crate::output::guard();
    crate::logging::init();
    let cli = Cli::parse();
    match run(cli) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(f) => {
            eprintln!("error: {}", f.message);
            ExitCode::from(2)
        }
    }
}

/// `Ok(true)`: clean; `Ok(false)`: violations or a failed gate.
fn run(cli: Cli) -> Result<bool, Failure> {
    // Neither needs a root.
    match &cli.command {
        Command::Completions { shell } => {
            return crate::shellkit::print_completions(Cli::command(), *shell).map(|()| true);
        }
        Command::ManPages { dir } => {
            return crate::shellkit::write_man_pages(Cli::command(), dir).map(|_| true);
        }
        _ => {}
    }
    if matches!(cli.command, Command::Server) {
        return server::run(cli.root.as_deref()).map(|()| true);
    }
    if matches!(cli.command, Command::Watch) {
        // A session holds every file's bytes to compare with each event's: no cache.
        return watch::run(Root::open_with(cli.root.as_deref(), Default::default())?)
            .map(|()| true);
    }
    let remote = cli
        .remote()
        .map_err(|e| Failure::new(format!("--remote-cache {e}")))?;
    let replay = (!cli.no_cache).then(|| replay::key(&cli.command)).flatten();
    let mut root = match Root::open(cli.root.as_deref(), !cli.no_cache, remote, replay.as_ref())? {
        root::Opened::Root(root) => root,
        root::Opened::Replayed(clean) => return Ok(clean),
    };
    let mut storing = None;
    {
        let _phase = crate::logging::phase("flags and ladders");
        let cache = root.take_cache();
        let remote = root.take_remote();
        let (db, defs) = (root.db.clone(), &root.defs);
        let storing = &mut storing;
        warm(&root, cli.quiet, move || {
            // The remote's upload first, so that it waits on the server while the cache is
            // saved and the rest of the run goes on.
            if let Some((remote, plan)) = remote {
                *storing = remote::store_beside(remote, &plan, &db, defs);
            }
            if let Some((cache, seen)) = cache {
                cache.save(&db, defs, &seen);
            }
        });
    }
    let _phase = crate::logging::phase("command and output");
    let result = match (replay, root.replay_inputs.take()) {
        (Some(key), Some(inputs)) => {
            let dir = root.dir.clone();
            replay::record(&dir, &key, inputs, |out| {
                (command(&mut root, cli.command, out), root::warned())
            })
        }
        _ => crate::output::to_stdout(|out| command(&mut root, cli.command, out)),
    };
    drop(_phase);
    if let Some(storing) = storing {
        let _ = storing.join();
    }
    // The process ends next. Dropping the database value by value made a warm `check` on
    // 50k definitions take 772 ms instead of 585 (docs/performance.md); the OS takes the
    // memory back at once.
    std::mem::forget(root);
    result
}

/// A write to standard output that failed ends the run ([`crate::output::failed`]).
fn written(result: std::io::Result<()>) {
    result.unwrap_or_else(|e| crate::output::failed(&e));
}

/// Runs `command`, writing what it prints to `out`.
fn command(root: &mut Root, command: Command, out: &mut dyn Write) -> Result<bool, Failure> {
    let root = &mut *root;
    match command {
        Command::Status { json, defs } => status(out, root, json, &defs),
        Command::Check {
            require,
            exported,
            tag,
            format,
            shard,
        } => {
            unreadable_inputs(root, &root.defs)?;
            let policy = Policy {
                require: require.map(|r| match r {
                    Require::Accepted => Requirement::Accepted,
                    Require::Tested => Requirement::Tested,
                    Require::Verified => Requirement::Verified,
                }),
                scope: match (exported, tag) {
                    (true, _) => Scope::Exported,
                    (false, Some(t)) => Scope::Tag(t),
                    (false, None) => Scope::All,
                },
            };
            let mut violations = check::check(&root.db, &policy);
            if let Some(shard) = shard {
                violations.retain(|v| shard.holds(&v.def));
                root.unnamed.retain(|rel| shard.holds(rel));
            }
            // A file no report can name is one no check can vouch for.
            written(report::write(out, root, &violations, format, shard));
            Ok(violations.is_empty() && root.unnamed.is_empty())
        }
        Command::Refresh => refresh(root),
        Command::Manifest { check } => manifest(out, root, check),
        Command::Graph { format } => {
            let g = graph::build(&root.db);
            let text = match format {
                GraphFormat::Dot => render::dot(root, &g),
                GraphFormat::Mermaid => render::mermaid(root, &g),
                GraphFormat::Json => render::graph_json(root, &g),
            };
            written(out.write_all(text.as_bytes()));
            Ok(true)
        }
        Command::Impact {
            target,
            change,
            json,
        } => {
            // Any sidecar may hold an edge into the target: one that cannot be read
            // would silently shrink the answer.
            unreadable_inputs(root, &root.defs)?;
            let g = graph::build(&root.db);
            let target = impact_target(root, &g, &target)?;
            let change = match change {
                ChangeArg::Formal => Change::Formal,
                ChangeArg::Test => Change::Test,
                ChangeArg::Prose => Change::Prose,
                ChangeArg::Soil => Change::Soil,
            };
            let reached = graph::impact(&g, &target, change);
            written(render::impact(out, &target, &reached, json));
            Ok(true)
        }
        Command::Watch
        | Command::Server
        | Command::Completions { .. }
        | Command::ManPages { .. } => {
            unreachable!(
                "watch, server, completions and man pages are run before the root is opened"
            )
        }
        Command::Why { def, json } => {
            let d = root.find(&def)?;
            // "Nothing is stale" about a sidecar that cannot be read would be a lie.
            unreadable_inputs(root, &[d])?;
            written(render::why(out, root, d, json));
            Ok(true)
        }
    }
}

/// The graph node `target` names: a definition (by path or bare name), a file an oracle
/// names (`ref/stats.py`, also in the oracle's own `ref/stats.py::median` form), or a CLI
/// (`cli:<command>`).
fn impact_target(root: &Root, g: &graph::DepGraph, target: &str) -> Result<String, Failure> {
    let target = target.trim_end_matches(".tr");
    for candidate in [target, engine::reference_file(target)] {
        if g.index(candidate).is_some() {
            return Ok(candidate.to_string());
        }
    }
    if matches!(root.resolve(target), engine::Resolution::Missing) {
        return Err(Failure::new(format!(
            "`{target}` is neither a definition nor a file or CLI an oracle names"
        )));
    }
    root.find(target).map(|def| def.path(&root.db).clone())
}

/// Computes every definition's flags and ladder up front, in parallel (each rayon worker
/// with its own database clone) and with a progress bar on long runs; the commands then
/// read memoised results. Per-definition queries never depend on one another's results
/// beyond the cut-off points, so the order is free.
///
/// `save` (the cache's, which needs only what the files parsed to) runs beside the one
/// root-wide query, which keeps a single core busy.
fn warm(root: &Root, quiet: bool, save: impl FnOnce() + Send) {
    use rayon::prelude::*;
    let progress = crate::progress::Progress::new(root.defs.len(), "checking", quiet);
    // The one root-wide query on its own first, its inputs (each definition's `.soil`
    // parsed and resolved) prepared in parallel: the per-definition work below then
    // never waits on it.
    {
        let _phase = crate::logging::phase("  prepare the Soil hashes");
        root.defs
            .par_iter()
            .for_each_with(root.db.clone(), |db, &def| {
                soil_hash::prepared(db, def);
            });
    }
    let db = root.db.clone();
    rayon::join(
        move || {
            let _phase = crate::logging::phase("  hash the root's Soil (one query)");
            soil_hash::computed_soil_hashes(&db);
        },
        || {
            let _phase = crate::logging::phase("  save the cache, beside it");
            save();
        },
    );
    let _phase = crate::logging::phase("  flags and ladders per definition");
    root.defs
        .par_iter()
        .for_each_with(root.db.clone(), |db, &def| {
            engine::flags(db, def);
            engine::ladder(db, def);
            progress.inc();
        });
}

/// Stops with exit 2 when any spec or sidecar cannot be read, naming each one.
fn unreadable_inputs(root: &Root, defs: &[Definition]) -> Result<(), Failure> {
    let mut problems = Vec::new();
    for &def in defs {
        if let Some(Err(e)) = engine::parsed_sidecar(&root.db, def) {
            problems.push(format!("{}.lock: {e}", def.path(&root.db)));
        }
        if let Some(Err(e)) = engine::tr_summary(&root.db, def) {
            problems.push(format!("{}.tr: {}", def.path(&root.db), e.message));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(problems.join("\nerror: ")))
    }
}

fn status(
    out: &mut dyn Write,
    root: &Root,
    json: bool,
    wanted: &[String],
) -> Result<bool, Failure> {
    let defs: Vec<Definition> = if wanted.is_empty() {
        root.defs.clone()
    } else {
        wanted
            .iter()
            .map(|w| root.find(w))
            .collect::<Result<_, _>>()?
    };
    written(render::status(out, root, &defs, json));
    // Asked about some definitions, only theirs decide the exit code: a broken file
    // elsewhere is not their problem.
    unreadable_inputs(root, &defs)?;
    Ok(true)
}

/// What kind a definition is, from its sidecar or else its spec.
pub fn kind_of(root: &Root, def: Definition) -> Option<DefKind> {
    refresh::kind_of(&root.db, def)
}

/// Writes what `refresh::refreshed` makes of each definition, when its bytes differ from
/// the file's; a sidecar that cannot be read is named and left alone, the rest still done.
fn refresh(root: &Root) -> Result<bool, Failure> {
    let mut problems = Vec::new();
    let mut written = 0;
    let versions = root.toml.versions();
    crate::testhook::pause("soil-write");
    for &def in &root.defs {
        let path = def.path(&root.db);
        match sidecars::refresh_one(root, def, &versions)? {
            Outcome::Skipped | Outcome::Unchanged => {}
            Outcome::Unreadable(e) => problems.push(format!("{path}.lock: {e}; left untouched")),
            Outcome::Written => {
                written += 1;
                eprintln!("wrote {path}.lock");
            }
            Outcome::Changed => problems.push(format!(
                "{path}.lock: changed during the run; not refreshed, the saved version is kept"
            )),
        }
    }
    eprintln!("{written} sidecars written");
    if problems.is_empty() {
        Ok(true)
    } else {
        Err(Failure::new(problems.join("\nerror: ")))
    }
}

fn manifest(out: &mut dyn Write, root: &Root, check: bool) -> Result<bool, Failure> {
    unreadable_inputs(root, &root.defs)?;
    let defs = root
        .defs
        .iter()
        .filter_map(|&d| engine::sidecar_of(&root.db, d).map(|s| (d.path(&root.db).clone(), s)));
    let text = sidecar::manifest_to_canonical_string(&sidecar::build_manifest(
        defs,
        root.toml.trusted_packages.clone(),
    ));
    let file = root.dir.join(root::MANIFEST);
    if check {
        let current = crate::fsutil::read_regular(&file).unwrap_or_default();
        if current != text.as_bytes() {
            written(writeln!(
                out,
                "{} is out of date; run `soil-lock manifest`",
                root::MANIFEST
            ));
            return Ok(false);
        }
        return Ok(true);
    }
    let wrote = write_if_changed(&root.dir, &file, text.as_bytes())
        .map_err(|e| Failure::new(format!("{}: {e}", file.display())))?;
    eprintln!(
        "{} {}",
        root::MANIFEST,
        if wrote { "written" } else { "unchanged" }
    );
    Ok(true)
}
