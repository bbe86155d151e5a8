//! The arguments of the commands about the subjects themselves rather than a measurement:
//! `subjects` (list, install), `new` (one copied from another), `serve` (one running) and
//! `doctor` (which of them this machine can run).

use std::path::PathBuf;

use clap::Args;
use restbench_model::Scenario;

use super::shared::SubjectsDir;
use super::vocabulary;

/// `restbench subjects`.
#[derive(Debug, Args)]
pub struct SubjectsArgs {
    /// A JSON document (an object: schema_version and the subjects) instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Copy the subjects folder in use (this checkout's, or --subjects-dir) to DIR [default:
    /// $XDG_DATA_HOME/restbench/subjects, or ~/.local/share/restbench/subjects], where an installed
    /// restbench finds it from any folder. Build outputs are left out; subjects made there with
    /// `restbench new` are kept.
    #[arg(long, value_name = "DIR", num_args = 0..=1)]
    pub install: Option<Option<PathBuf>>,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench new`.
#[derive(Debug, Args)]
#[command(after_long_help = "\
The copy goes to --subjects-dir (or RESTBENCH_SUBJECTS) when given, else to
./subjects. Every whole-word occurrence of the old id in the copied text files
becomes the new name (subject.toml's id and start command, Cargo.toml and
Cargo.lock, package.json and package-lock.json, go.mod and its imports,
pom.xml); seeds is emptied. Then edit the sources and check the copy:
  restbench verify my-server --subjects-dir subjects
  restbench run --subjects my-server --subjects-dir subjects")]
pub struct NewArgs {
    /// The new subject's id: lowercase letters, digits and '-' (such as my-server).
    pub name: String,
    /// The subject to start from (see `restbench subjects`).
    #[arg(long, value_name = "ID")]
    pub from: String,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The subject's id (see `restbench subjects`).
    pub id: String,
    /// Port to listen on [default: a free one, printed].
    #[arg(long)]
    pub port: Option<u16>,
    /// The scenario to start it in: single-thread, one-cpu, all-cores.
    #[arg(long, default_value = "single-thread", value_parser = vocabulary::<Scenario>)]
    pub scenario: Scenario,
    /// PostgreSQL for the users workload [default: a throwaway one when the subject serves users].
    /// Also from the environment (DATABASE_URL), which `ps` does not show; the value is never
    /// printed unredacted.
    #[arg(long, value_name = "URL", env = "DATABASE_URL", hide_env_values = true)]
    pub database_url: Option<String>,
    /// Database connections in total over all server processes.
    #[arg(long, default_value_t = restbench_harness::planner::DEFAULT_DB_POOL)]
    pub db_pool: u32,
    #[command(flatten)]
    pub dir: SubjectsDir,
}

/// `restbench doctor`.
#[derive(Debug, Args)]
pub struct DoctorArgs {
    /// A JSON document instead of lines.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub dir: SubjectsDir,
}
