//! `restbench subjects --install [DIR]`: the catalogue copied to a data folder, so that a
//! restbench installed with `cargo install` finds subjects from any folder.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use restbench_subject::scaffold;

use crate::cli::SubjectsDir;
use crate::common::data_subjects_dir;

/// Copies the subjects folder in use to `to` (default: [`data_subjects_dir`]).
pub fn run(dir: &SubjectsDir, to: Option<PathBuf>) -> anyhow::Result<ExitCode> {
    let from = crate::common::subjects_root(dir)?;
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
