//! The command line, flag for flag the reference script's (see `docs/cli.md`).

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

#[derive(Debug, Parser)]
#[command(
    name = "copy-audit",
    version,
    about = "Deterministic typography audit for bilingual prose, with a committed span lockfile",
    after_help = "Exit codes: 0 clean; 1 error findings, a failed review gate or unsegmented files \
                  listed; 2 usage, config, I/O or lockfile error."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    /// The config file; default: the nearest .copy-editor.yaml walking up from here.
    #[arg(long, global = true, value_name = "YAML")]
    pub config: Option<PathBuf>,

    /// Print JSON (same as --format json).
    #[arg(long, global = true)]
    pub json: bool,

    #[command(flatten)]
    pub audit: AuditArgs,
}

#[derive(Debug, Args)]
pub struct AuditArgs {
    /// Default language code, overriding the config's `language`.
    #[arg(long, value_name = "CODE")]
    pub lang: Option<String>,

    /// Audit only these files, and the files under these directories (as pre-commit passes
    /// them): each must lie under the root; those the config's `paths` leave out are
    /// skipped.
    #[arg(value_name = "PATH")]
    pub files: Vec<PathBuf>,

    /// Audit one shard of the files in scope, K of N (1-based), for a CI matrix: a file's
    /// shard depends on its path alone. `copy-audit report merge` joins the shards' reports.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<lockgraph_queries::shard::Shard>,

    /// A cache shared between machines, on the Remote Execution API (BuildGrid,
    /// bazel-remote, …): grpc://HOST:PORT, or grpcs:// for TLS.
    #[arg(long, value_name = "URL", env = "LOCKGRAPH_REMOTE_CACHE")]
    pub remote_cache: Option<String>,

    /// The remote cache's instance name.
    #[arg(
        long,
        value_name = "NAME",
        default_value = "",
        hide_default_value = true
    )]
    pub remote_instance: String,

    /// A header sent with every remote cache call, such as an API key (repeatable).
    #[arg(long = "remote-header", value_name = "NAME: VALUE", value_parser = crate::remote::parse_header)]
    pub remote_headers: Vec<(String, String)>,

    /// Fetch from the remote cache but never store in it (for untrusted pull requests).
    #[arg(long)]
    pub remote_cache_read_only: bool,

    /// Comma-separated globs replacing `paths.include` (`paths.exclude` still applies).
    #[arg(long, value_name = "GLOB,GLOB", value_delimiter = ',')]
    pub paths: Option<Vec<String>>,

    /// Output format.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub format: Option<OutputFormat>,

    /// Apply the fixes of findings that survived span filtering, in files with a fresh
    /// lockfile entry.
    #[arg(long)]
    pub fix: bool,

    /// With --fix: also fix files whose lockfile entry is missing or stale.
    #[arg(long, requires = "fix")]
    pub fix_unsegmented: bool,

    /// Fail (exit 1) if any file in scope has no entry, a stale entry or `reviewedBy: null`.
    #[arg(long)]
    pub require_reviewed: bool,

    /// List files whose lockfile entry is missing, stale or predates the prompt version.
    #[arg(long)]
    pub list_unsegmented: bool,

    /// Segment missing and stale files with the deterministic structural backend.
    #[arg(long)]
    pub offline: bool,

    /// Review the unreviewed entries in the terminal, one at a time: accept, edit, skip or
    /// quit. `$COPY_EDITOR_REVIEWER` names the reviewer; `$EDITOR` edits the spans.
    #[arg(long, conflicts_with_all = ["fix", "list_unsegmented", "watch", "self_test"])]
    pub review_cache: bool,

    /// Before the audit, remove the lockfile entries matching GLOB (every entry without
    /// one): their files are segmented again, by the agent or with --offline.
    #[arg(long, value_name = "GLOB", num_args = 0..=1, default_missing_value = "**")]
    pub refresh_cache: Option<String>,

    /// Keep auditing: re-audit what each file change reaches and print the findings that
    /// appeared or went away.
    #[arg(long, conflicts_with_all = ["fix", "list_unsegmented", "self_test"])]
    pub watch: bool,

    /// No progress bar (it only ever appears on a terminal, after about a second).
    #[arg(long, short)]
    pub quiet: bool,

    /// Neither read nor write the caches in `.lockgraph/` (results are identical).
    #[arg(long)]
    pub no_cache: bool,

    /// Also report per-file lockfile state and timings on stderr.
    #[arg(long)]
    pub verbose: bool,

    /// Run every rule's built-in good and bad examples and exit.
    #[arg(long)]
    pub self_test: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// Findings with their source line and a caret, then counts.
    Human,
    /// The machine contract: totals, byRule and findings.
    Json,
    /// GitHub Actions workflow commands (`::error file=…,line=…`).
    Github,
    /// GitLab's Code Quality report (a JSON array of issues).
    Gitlab,
    /// SARIF 2.1.0: one run, the rules with their docs, results with regions and fixes.
    Sarif,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the hand-off payload for the host agent to segment one file.
    Segment {
        /// The file to segment.
        path: PathBuf,
    },
    /// Read and edit the lockfile.
    #[command(subcommand)]
    Lockfile(LockfileCommand),
    /// Work with reports: join the reports of a sharded run.
    #[command(subcommand)]
    Report(ReportCommand),
    /// Serve the Language Server Protocol on standard input and output: each open
    /// document's findings as diagnostics, updated as it is edited.
    Server,
    /// Print the completion script for a shell, e.g.
    /// `copy-audit completions bash > ~/.local/share/bash-completion/completions/copy-audit`.
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Write a man page for copy-audit and each subcommand into DIR.
    #[command(hide = true)]
    ManPages {
        /// Where the pages go (created if missing).
        dir: PathBuf,
    },
}

#[derive(Debug, Subcommand)]
pub enum ReportCommand {
    /// Merge the JSON (or SARIF) reports of `--shard 1/N` … `--shard N/N` into the report
    /// an unsharded run prints, byte for byte, and exit as that run would.
    Merge {
        /// Every shard's report, in any order.
        #[arg(required = true, value_name = "REPORT")]
        reports: Vec<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum LockfileCommand {
    /// Add (or with --force replace) a file's entry from `{"spans":[…]}`.
    Add {
        path: PathBuf,
        /// A JSON file holding `{"spans":[…]}`, or `-` for standard input.
        #[arg(long, value_name = "FILE|-")]
        spans: String,
        /// Replace an existing entry (a reviewed one keeps its notes and path hints).
        #[arg(long)]
        force: bool,
    },
    /// Record a human review of a file's entry.
    MarkReviewed {
        path: PathBuf,
        /// Reviewer id, e.g. `ondrej@2026-04-12`.
        #[arg(long, value_name = "ID")]
        by: String,
    },
    /// Remove the entries whose path matches a glob.
    Invalidate { glob: String },
    /// Show the entries.
    List,
    /// Report, per entry, what is wrong: stale, a span covering nothing, a span reaching
    /// past the end of its line or the file. Writes nothing; exits 1 when an entry is
    /// stale or has a span covering nothing.
    Check,
    /// Rewrite fresh entries' spans exactly: a span reaching past an end is written as the
    /// span covering the same text, one covering nothing is dropped. Reviews are kept (the
    /// covered text does not change).
    Normalize,
    /// A git merge driver: merge two lockfiles entry by entry into OURS (see
    /// docs/lockfile.md for the `.gitattributes` and `git config` lines). Exit 1 names
    /// what it could not settle.
    Merge {
        /// The common ancestor's lockfile (git's %O; empty when it had none).
        base: std::path::PathBuf,
        /// Our lockfile (git's %A): the merge is written here.
        ours: std::path::PathBuf,
        /// Their lockfile (git's %B).
        theirs: std::path::PathBuf,
    },
}
