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
    /// A revision's page, http or https only: points link to this URL with {rev} replaced
    /// (such as https://github.com/me/my-server/commit/{rev}).
    #[arg(long, value_name = "URL", value_parser = parse_commit_url)]
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

/// `--commit-url`: http(s) only.
fn parse_commit_url(text: &str) -> Result<String, String> {
    restbench_report::html::history::commit_url_checked(text).map(str::to_string)
}

/// The most runs `history check --against last:N` takes as its baseline: more is not a recent
/// history, and reads the whole table.
pub const AGAINST_LIMIT: u32 = 1000;

/// `last:N` with N from 2 to [`AGAINST_LIMIT`].
pub fn parse_last(text: &str) -> Result<u32, String> {
    let shape = || format!("{text:?} is not last:N with N at least 2 (such as last:5)");
    let digits = text.strip_prefix("last:").ok_or_else(shape)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(shape());
    }
    match digits.parse::<u32>() {
        Ok(n) if n < 2 => Err(shape()),
        Ok(n) if n <= AGAINST_LIMIT => Ok(n),
        _ => Err(format!(
            "{text:?}: N is at most {AGAINST_LIMIT} (a baseline of the recent runs, such as last:5)"
        )),
    }
}
