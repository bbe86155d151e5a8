//! `restbench history`'s subcommands and their arguments: where the history is, and the
//! baseline a check reads from it.

use std::path::PathBuf;

use clap::{Args, Subcommand};

use super::shared::GateArgs;

/// `restbench history`.
#[derive(Debug, Subcommand)]
pub enum HistoryCommand {
    /// Store runs (folders or results.json files); a run already stored is kept once.
    Import(HistoryImportArgs),
    /// A self-contained HTML timeline of every measure with its interval.
    Show(HistoryShowArgs),
    /// The gate (--fail-if) of a run against the recent history of its cells.
    Check(HistoryCheckArgs),
}

/// Where the history is.
#[derive(Debug, Args, Clone)]
pub struct HistoryStoreArgs {
    /// A PostgreSQL URL (postgres://…) or a SQLite file [default:
    /// $XDG_DATA_HOME/restbench/history.sqlite, else ~/.local/share/restbench/history.sqlite].
    #[arg(
        long,
        value_name = "URL_OR_FILE",
        env = "RESTBENCH_HISTORY",
        hide_env_values = true
    )]
    pub history: Option<String>,
}

/// `restbench history import`.
#[derive(Debug, Args)]
pub struct HistoryImportArgs {
    /// Runs: their folders or results.json files.
    #[arg(value_name = "RUN", required = true)]
    pub runs: Vec<PathBuf>,
    /// The git revision the runs measured (for subjects without one in their id).
    #[arg(long, value_name = "REV")]
    pub rev: Option<String>,
    #[command(flatten)]
    pub store: HistoryStoreArgs,
}

/// `restbench history show`.
#[derive(Debug, Args)]
pub struct HistoryShowArgs {
    /// Only this subject (a revision's id such as rust-hyper@1a2b3c4 counts as rust-hyper).
    #[arg(long)]
    pub subject: Option<String>,
    /// Only this workload.
    #[arg(long)]
    pub workload: Option<String>,
    /// Where to write the page.
    #[arg(long, value_name = "FILE", default_value = "history.html")]
    pub out: PathBuf,
    /// A revision's page: points link to this URL with {rev} replaced (such as
    /// https://github.com/me/my-server/commit/{rev}).
    #[arg(long, value_name = "URL")]
    pub commit_url: Option<String>,
    #[command(flatten)]
    pub store: HistoryStoreArgs,
}

/// `restbench history check`.
#[derive(Debug, Args)]
pub struct HistoryCheckArgs {
    /// The run to check (its folder or results.json).
    #[arg(value_name = "RUN")]
    pub run: PathBuf,
    /// The baseline: the last N runs of each cell on this machine (last:5).
    #[arg(long, value_name = "last:N", default_value = "last:5", value_parser = parse_last)]
    pub against: u32,
    #[command(flatten)]
    pub gate: GateArgs,
    #[command(flatten)]
    pub store: HistoryStoreArgs,
}

/// `last:N` with N at least 2.
pub fn parse_last(text: &str) -> Result<u32, String> {
    text.strip_prefix("last:")
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|n| *n >= 2)
        .ok_or_else(|| format!("{text:?} is not last:N with N at least 2 (such as last:5)"))
}
