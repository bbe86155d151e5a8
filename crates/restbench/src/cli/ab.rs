//! `restbench ab`'s arguments: the two versions, how they share the rounds, and the gate.

use std::path::PathBuf;

use clap::Args;

use super::shared::{CellArgs, GateArgs};

/// `restbench ab`.
#[derive(Debug, Args)]
#[command(after_help = "Examples:
  restbench ab subjects/my-server /tmp/my-server-patched --quick
  restbench ab my-server --rev origin/main --rev HEAD --fail-if 'cpu_us_per_req>+5%'

The two versions are two subjects of one run (ids <id>@a and <id>@b, or <id>@<commit>), with
the same plan, measured at once in every round (a duet) or, with --interleaved, one after the
other. Exit 1 only when a --fail-if interval lies wholly beyond its
threshold.")]
pub struct AbArgs {
    /// Two folders of one subject, or one subject id with --rev twice.
    #[arg(value_name = "DIR_OR_ID", num_args = 1..=2, required = true)]
    pub targets: Vec<PathBuf>,
    /// A git revision of the checkout (twice: A then B); the subject's folder at each is built
    /// from `git archive`, cached by its tree hash.
    #[arg(long, value_name = "REV")]
    pub rev: Vec<String>,
    /// Markdown instead of aligned text.
    #[arg(long, conflicts_with = "json")]
    pub markdown: bool,
    /// The A/B as JSON.
    #[arg(long)]
    pub json: bool,
    /// Measure without the conformance cases first.
    #[arg(long)]
    pub no_conformance: bool,
    #[command(flatten)]
    pub gate: GateArgs,
    #[command(flatten)]
    pub cells: CellArgs,
}
