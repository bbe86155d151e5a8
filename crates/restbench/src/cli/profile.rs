//! `restbench profile`'s arguments: one subject under one workload's load, or two profiles
//! compared.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use restbench_model::{Scenario, Workload};

use super::shared::SubjectsDir;
use super::{parse_duration, vocabulary};

#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// The subject's id (see `restbench subjects`); not with --diff.
    #[arg(required_unless_present = "diff", conflicts_with = "diff")]
    pub id: Option<String>,
    /// The workload whose load the subject is profiled under.
    #[arg(long, default_value = "plaintext", value_parser = vocabulary::<Workload>)]
    pub workload: Workload,
    /// The scenario to start it in: single-thread, one-cpu, all-cores.
    #[arg(long, default_value = "single-thread", value_parser = vocabulary::<Scenario>)]
    pub scenario: Scenario,
    /// How long perf samples the server.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub duration: Duration,
    /// A discarded load before the slice, so JIT runtimes are profiled warm.
    #[arg(long, default_value = "5s", value_parser = parse_duration)]
    pub warmup: Duration,
    /// Concurrent connections of the load.
    #[arg(short, long, default_value_t = 10)]
    pub connections: u32,
    /// The folder written: stacks.folded, flamegraph.svg, profile.html, profile.json
    /// [default: profiles/SUBJECT-WORKLOAD-SCENARIO, or profiles/diff with --diff].
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// A differential flame graph of two profiles, A then B (red: more of B's samples): each a
    /// folded-stacks file, a `restbench profile` folder, or RUN_DIR:SUBJECT/WORKLOAD/SCENARIO for
    /// a profiled cell of a run.
    #[arg(long, num_args = 2, value_names = ["A", "B"])]
    pub diff: Vec<String>,
    /// Also write perf's own text (perf.script) in the folder, for other tools.
    #[arg(long)]
    pub keep_script: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}
