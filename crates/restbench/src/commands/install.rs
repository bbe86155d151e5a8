//! `restbench subjects --install [DIR]`: the catalogue copied to a data folder, so that a
//! restbench installed with `cargo install` finds subjects from any folder.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use restbench_harness::subject::scaffold;

use crate::cli::SubjectsDir;

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

/// Copies the subjects folder in use to `to` (default: [`data_subjects_dir`]).
pub fn run(dir: &SubjectsDir, to: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let from = super::subjects_root(dir)?;
    let to = match to {
        Some(to) => to,
        None => data_subjects_dir()
            .context("neither XDG_DATA_HOME nor HOME is set: pass the folder, --install DIR")?,
    };
    let ids = scaffold::install_catalogue(&from, &to)?;
    println!(
        "installed {} subjects from {} into {}",
        ids.len(),
        from.display(),
        to.display()
    );
    if Some(&to) != data_subjects_dir().as_ref() {
        println!(
            "restbench finds them there with --subjects-dir {0} or RESTBENCH_SUBJECTS={0}",
            to.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
