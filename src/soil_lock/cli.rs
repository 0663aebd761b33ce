//! The `soil-lock` command line (see `docs/soil-lock.md`).

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "soil-lock",
    version,
    about = "Keeps per-definition lock sidecars honest: spec hashes, status, invalidation, manifest",
    after_help = "Exit codes: 0 clean; 1 violations, an out-of-date manifest or a failed gate; \
                  2 usage, I/O, or an unreadable spec or sidecar."
)]
pub struct Cli {
    /// The root (a directory with soil.toml); default: the nearest one walking up.
    #[arg(long, global = true, value_name = "DIR")]
    pub root: Option<PathBuf>,

    /// No progress bar (it only ever appears on a terminal, after about a second).
    #[arg(long, short, global = true)]
    pub quiet: bool,

    /// Neither read nor write the cache in `<root>/.lockgraph/soil/` (every spec and sidecar
    /// is read and parsed; the output is the same).
    #[arg(long, global = true)]
    pub no_cache: bool,

    /// A cache shared between machines, on the Remote Execution API (BuildGrid,
    /// bazel-remote, …): grpc://HOST:PORT, or grpcs:// for TLS. What the files a run reads
    /// derive (summaries, parsed sidecars, hash forms) is looked up there and stored.
    #[arg(
        long,
        global = true,
        value_name = "URL",
        env = "LOCKGRAPH_REMOTE_CACHE"
    )]
    pub remote_cache: Option<String>,

    /// The remote cache's instance name.
    #[arg(
        long,
        global = true,
        value_name = "NAME",
        default_value = "",
        hide_default_value = true
    )]
    pub remote_instance: String,

    /// A header sent with every remote cache call, such as an API key (repeatable).
    #[arg(long = "remote-header", global = true, value_name = "NAME: VALUE", value_parser = crate::remote::parse_header)]
    pub remote_headers: Vec<(String, String)>,

    /// Fetch from the remote cache but never store in it (for untrusted pull requests).
    #[arg(long, global = true)]
    pub remote_cache_read_only: bool,

    #[command(subcommand)]
    pub command: Command,
}

impl Cli {
    /// The remote cache the flags (or `LOCKGRAPH_REMOTE_CACHE`) name; none with
    /// `--no-cache`, which turns every cache off.
    pub fn remote(&self) -> Result<Option<crate::remote::Remote>, String> {
        let Some(url) = self.remote_cache.clone().filter(|_| !self.no_cache) else {
            return Ok(None);
        };
        crate::remote::Remote::new(crate::remote::Settings {
            url,
            instance: self.remote_instance.clone(),
            headers: self.remote_headers.clone(),
            read_only: self.remote_cache_read_only,
        })
        .map(Some)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Per definition: kind, ladder status, accepted, flags and the recomputed hashes.
    Status {
        #[arg(long)]
        json: bool,
        /// Definitions to show (paths like `stats/median`); default: all.
        defs: Vec<String>,
    },
    /// Check the invariants and the CI policy; exit 1 with one line per violation.
    Check {
        /// Require every definition in scope to be at least this.
        #[arg(long, value_enum)]
        require: Option<Require>,
        /// Apply --require to exported definitions only (module `exports` blocks).
        #[arg(long, conflicts_with = "tag")]
        exported: bool,
        /// Apply --require to definitions with this tag only.
        #[arg(long, value_name = "TAG")]
        tag: Option<String>,
        /// How to report: lines for people, JSON, GitHub workflow commands, GitLab's Code
        /// Quality report, or SARIF 2.1.0.
        #[arg(long, value_enum, default_value = "human")]
        format: CheckFormat,
        /// Report only the violations of shard K of N of the definitions (by path; the
        /// whole root is still read, since a verdict depends on callees and oracles).
        #[arg(long, value_name = "K/N")]
        shard: Option<lockgraph_queries::shard::Shard>,
    },
    /// Create missing sidecars; re-anchor prose changes with `review-suggested`.
    Refresh,
    /// Write the derived soil.lock manifest (or, with --check, fail if it is out of date).
    Manifest {
        #[arg(long)]
        check: bool,
    },
    /// Print the call and oracle graph.
    Graph {
        #[arg(long, value_enum, default_value = "dot")]
        format: GraphFormat,
    },
    /// What an edit of a definition (or a reference file, or `cli:<command>`) would reach.
    Impact {
        target: String,
        #[arg(long, value_enum, default_value = "formal")]
        change: ChangeArg,
        #[arg(long)]
        json: bool,
    },
    /// Keep one database for the session and print the definitions whose status or
    /// flags change with each edit.
    Watch,
    /// Speak the Language Server Protocol on standard input and output: diagnostics,
    /// hover and "refresh" for the open specs, `.soil` files and sidecars (see
    /// `docs/editors.md`).
    Server,
    /// Why a definition is flagged, as a path of edges to the cause.
    Why {
        def: String,
        #[arg(long)]
        json: bool,
    },
    /// Print the completion script for a shell, e.g.
    /// `soil-lock completions zsh > ~/.zfunc/_soil-lock`.
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Write a man page for soil-lock and each subcommand into DIR.
    #[command(hide = true)]
    ManPages {
        /// Where the pages go (created if missing).
        dir: PathBuf,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Require {
    Accepted,
    Tested,
    Verified,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum CheckFormat {
    Human,
    Json,
    Github,
    Gitlab,
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    Dot,
    Json,
    Mermaid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ChangeArg {
    Formal,
    Test,
    Prose,
    Soil,
}
