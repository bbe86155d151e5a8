//! `restbench new NAME --from ID`: a new subject started from an existing one.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use restbench_subject::{self as subject, scaffold};

use crate::cli::{NewArgs, SubjectsDir};

pub fn run(args: NewArgs) -> anyhow::Result<ExitCode> {
    if let Err(reason) = scaffold::check_id(&args.name) {
        bail!("{reason}");
    }
    // The copy goes where the user points, else ./subjects; the original is looked up there
    // first, then in the catalogue restbench finds by itself (checkout or installed).
    let target = args
        .dir
        .subjects_dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("subjects"));
    let from = match subject::Subject::load(&target.join(&args.from)) {
        Ok(s) => s,
        Err(_) => {
            let catalogue = crate::common::subjects_root(&SubjectsDir { subjects_dir: None })?;
            subject::select(
                subject::discover(&catalogue)?,
                std::slice::from_ref(&args.from),
            )?
            .remove(0)
        }
    };
    let made = scaffold::new_subject(&from, &target, &args.name)?;
    println!(
        "created {} from {} ({} files; the id renamed in {})",
        made.dir.display(),
        from.id,
        made.files,
        made.renamed_in
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!(
        "{} is now part of `restbench run`'s default grid; `--subjects` selects",
        args.name
    );
    let dir_flag = format!(" --subjects-dir {}", target.display());
    println!(
        "next: edit its sources, then `restbench verify {0}{dir_flag}` and \
         `restbench run --subjects {0}{dir_flag}`",
        args.name
    );
    Ok(ExitCode::SUCCESS)
}
