//! The arguments of the commands that read results already written: `report` (a run's reports
//! again), `compare` (two runs or loads) and `merge` (the shards of one load).

use std::path::PathBuf;

use clap::Args;

use super::shared::GateArgs;

/// `restbench report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// A run's folder or its results.json; report.md and report.html are written beside it.
    #[arg(value_name = "DIR|RESULTS")]
    pub dir: PathBuf,
    /// Also print report.md to stdout (the paths written then go to stderr).
    #[arg(long)]
    pub stdout: bool,
}

/// `restbench compare`.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The baseline: a run's folder or its results.json, or a `restbench load --json` result.
    pub a: PathBuf,
    /// The run (or load result) compared with it.
    pub b: PathBuf,
    /// Markdown instead of aligned text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// The comparison as JSON.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub gate: GateArgs,
}

/// `restbench merge`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
Counts and error classes are summed and the HdrHistograms added (percentiles
are read from the sum, never averaged); the time series are aligned by
wall-clock second; the rate is the total answered over the window from the
earliest start to the latest end. Results of different loads (URL, method,
body size, keep-alive, HTTP version, pipeline, timeout, warm-up, duration,
open or closed loop) or the same shard twice are refused with what differs,
unless --force.")]
pub struct MergeArgs {
    /// The `restbench load --json` results to merge.
    #[arg(required = true, value_name = "RESULT")]
    pub results: Vec<PathBuf>,
    /// Write the merged result (JSON) to PATH, or to stdout with '-'.
    #[arg(long, value_name = "PATH")]
    pub json: Option<PathBuf>,
    /// Merge results of different loads anyway.
    #[arg(long)]
    pub force: bool,
    /// Print the latency distribution.
    #[arg(long)]
    pub latency: bool,
}
