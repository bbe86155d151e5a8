//! The arguments of the commands that check subjects without measuring them: `verify` (the
//! workload contract) and `conformance` (how they read HTTP/1.1).

use clap::Args;
use restbench_model::{Scenario, Workload};

use super::shared::SubjectsDir;
use super::vocabulary;

/// `restbench verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// Subjects to verify [default: all available].
    pub subjects: Vec<String>,
    /// Workloads, comma-separated [default: all each subject serves].
    #[arg(long, value_delimiter = ',', value_name = "NAMES", value_parser = vocabulary::<Workload>)]
    pub workloads: Vec<Workload>,
    /// The scenario to start subjects in.
    #[arg(long, default_value = "single-thread", value_parser = vocabulary::<Scenario>)]
    pub scenario: Scenario,
    /// An existing PostgreSQL server [default: a throwaway one when users is verified].
    /// Also from the environment (DATABASE_URL), which `ps` does not show; the value is never
    /// printed unredacted.
    #[arg(long, value_name = "URL", env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Print passing checks too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Write the findings as JSON to stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench conformance`.
#[derive(Debug, Args)]
pub struct ConformanceArgs {
    /// Subjects to check [default: all available].
    pub subjects: Vec<String>,
    /// Workloads whose requests are split and pipelined, comma-separated [default: all each
    /// subject serves].
    #[arg(long, value_delimiter = ',', value_name = "NAMES", value_parser = vocabulary::<Workload>)]
    pub workloads: Vec<Workload>,
    /// An existing PostgreSQL server for subjects that serve users [default: a throwaway one].
    /// Also from the environment (DATABASE_URL); the value is never printed unredacted.
    #[arg(long, value_name = "URL", env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Run the cases even for a build whose result is cached.
    #[arg(long)]
    pub fresh: bool,
    /// Print every case, passing ones too.
    #[arg(short, long)]
    pub verbose: bool,
    /// Write the conformance document as JSON to stdout.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}
