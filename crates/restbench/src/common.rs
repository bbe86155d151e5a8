//! What the commands share that is not output: where the subjects and the results are, the
//! refusal of a finished run, exit codes, and library errors that are bad arguments.

use std::path::{Path, PathBuf};

use anyhow::bail;
use restbench_harness::planner::PlanError;
use restbench_model::documents::io::RESULTS_FILE;

use crate::cli::{BadArgument, SubjectsDir};

/// Exit status of a load that finished but saw errors, or got no answer at all.
pub const EXIT_WITH_ERRORS: u8 = 3;

/// Exit status of a load or run that Ctrl-C cut short.
pub const EXIT_INTERRUPTED: u8 = 130;

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
    if let Some(installed) = data_subjects_dir().filter(|d| d.is_dir()) {
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
pub fn refuse_finished_run(dir: &Path, force: bool) -> anyhow::Result<()> {
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

/// A request the planner refuses: a bad argument exits 2, anything else 1.
pub fn plan_error(e: PlanError) -> anyhow::Error {
    match e {
        PlanError::BadArgument(m) => BadArgument(m).into(),
        e => e.into(),
    }
}

/// `$XDG_DATA_HOME/restbench/subjects` (when absolute, as XDG says), else
/// `~/.local/share/restbench/subjects`; `None` without a home folder.
pub fn data_subjects_dir() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = std::env::var_os("XDG_DATA_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/share"))
        })?;
    Some(base.join("restbench").join("subjects"))
}
