//! One module per subcommand.

mod agent;
mod bench;
mod compare;
mod completions;
mod db;
mod doctor;
mod install;
mod k8s;
mod live;
mod load;
mod merge;
mod new;
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

/// Exit status of a load that finished but saw errors, or got no answer at all.
pub const EXIT_WITH_ERRORS: u8 = 3;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::bail;
use restbench_loadgen::LoadError;
use restbench_model::io::RESULTS_FILE;

use crate::cli::{BadArgument, Cli, Command, DbCommand, K8sCommand, SubjectsDir};

/// Runs the chosen subcommand and returns the process exit code.
pub fn dispatch(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Run(args) => run::run(args),
        Command::Load(args) => load::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Subjects(args) => subjects::run(args),
        Command::New(args) => new::run(args),
        Command::Completions(args) => completions::completions(args),
        Command::Man => completions::man(),
        Command::Serve(args) => serve::run(args),
        Command::Db(DbCommand::Start(args)) => db::start(args),
        Command::Report(args) => report::run(args),
        Command::Doctor(args) => doctor::run(args),
        Command::Study(args) => study::run(args),
        Command::Compare(args) => compare::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Merge(args) => merge::run(args),
        Command::K8s(K8sCommand::Load(args)) => k8s::load(*args),
        Command::K8s(K8sCommand::Collect(args)) => k8s::collect(args),
        Command::RemoteAgent(command) => agent::run(command),
    }
}

/// The subjects folder: `--subjects-dir`, else `subjects/` in the current folder or a parent,
/// else beside the executable's checkout (`target/release/restbench` → `subjects/`), else the
/// catalogue installed in the data folder (`restbench subjects --install`).
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
    if let Some(installed) = install::data_subjects_dir().filter(|d| d.is_dir()) {
        return Ok(installed);
    }
    bail!(
        "cannot find the subjects folder: run restbench from its checkout, pass --subjects-dir, or \
         install the catalogue once with `restbench subjects --install --subjects-dir <checkout>/subjects`"
    )
}

/// Where `run` and `study` write by default: `results/` in the current folder.
pub fn results_folder() -> PathBuf {
    std::env::current_dir().unwrap_or_default().join("results")
}

/// Refuses an output folder that already holds a run, unless `force`: the runner writes a fresh
/// `results.json` at its start, and a finished run must never be lost to a reused `--out`.
/// Checked before anything is built, started or calibrated.
pub(crate) fn refuse_finished_run(dir: &Path, force: bool) -> anyhow::Result<()> {
    let existing = dir.join(RESULTS_FILE);
    // symlink_metadata: a results.json that is a (dangling) link is refused too.
    if !force && existing.symlink_metadata().is_ok() {
        return Err(BadArgument(format!(
            "{} already holds a run ({RESULTS_FILE}); choose another --out, or pass --force to replace it",
            dir.display()
        ))
        .into());
    }
    Ok(())
}

/// A load the engine refuses as invalid is a bad argument (exit 2), as in `restbench load`;
/// every other load error stays an error (exit 1).
pub(crate) fn load_error(e: LoadError) -> anyhow::Error {
    match e {
        e @ (LoadError::InvalidSpec(_) | LoadError::InvalidUrl { .. }) => {
            BadArgument(e.to_string()).into()
        }
        e => e.into(),
    }
}

/// `--restarts` when not given: two server processes per cell, so every full run carries the
/// spread between processes that one process's repeats cannot show; one with `--quick` (a
/// smoke run) or when a single repeat leaves nothing to split.
pub(crate) fn default_restarts(given: Option<u32>, quick: bool, repeats: u32) -> u32 {
    given
        .unwrap_or(if quick || repeats < 2 { 1 } else { 2 })
        .max(1)
}

#[cfg(test)]
mod restart_tests {
    use super::default_restarts;

    #[test]
    fn full_runs_restart_once_quick_runs_and_single_repeats_do_not() {
        assert_eq!(default_restarts(None, false, 3), 2);
        assert_eq!(default_restarts(None, true, 3), 1);
        assert_eq!(default_restarts(None, false, 1), 1);
        assert_eq!(
            default_restarts(Some(4), true, 1),
            4,
            "what the user asked for stands"
        );
    }
}
