//! One module per subcommand.

mod compare;
mod db;
mod doctor;
mod k8s;
mod load;
mod merge;
mod output;
mod progress;
mod remote;
mod report;
mod run;
mod serve;
mod start_at;
mod study;
mod subjects;
mod verify;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;

use crate::cli::{Cli, Command, DbCommand, K8sCommand, SubjectsDir};

/// Runs the chosen subcommand and returns the process exit code.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Load(args) => load::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Subjects(args) => subjects::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Db(DbCommand::Start(args)) => db::start(args),
        Command::Report(args) => report::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Study(args) => study::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Merge(args) => merge::run(args),
        Command::K8s(K8sCommand::Load(args)) => k8s::load(*args),
        Command::K8s(K8sCommand::Collect(args)) => k8s::collect(args),
    }
}

/// The subjects folder: `--subjects-dir`, else `subjects/` in the current folder or a parent,
/// else beside the executable's checkout (`target/release/restbench` → `subjects/`).
pub fn subjects_root(dir: &SubjectsDir) -> anyhow::Result<PathBuf> {
    if let Some(d) = &dir.subjects_dir {
        if !d.is_dir() {
            bail!("the subjects folder {} does not exist", d.display());
        }
        return Ok(d.clone());
    }
    let mut starts = Vec::new();
    if let Ok(cwd) = std::env::current_dir() {
        starts.push(cwd);
    }
    if let Ok(exe) = std::env::current_exe() {
        starts.push(exe);
    }
    for start in starts {
        for dir in start.ancestors() {
            let candidate = dir.join("subjects");
            if candidate.join("README.md").is_file() || candidate.join("rust-hyper").is_dir() {
                return Ok(candidate);
            }
        }
    }
    bail!("cannot find the subjects folder: run restbench from its checkout or pass --subjects-dir")
}
