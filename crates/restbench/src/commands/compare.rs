//! `restbench compare A B`: two runs side by side as ratios.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use restbench_harness::runner::read_results;
use restbench_model::RunResults;

use crate::cli::CompareArgs;

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let a = load(&args.a)?;
    let b = load(&args.b)?;
    let comparison = restbench_report::compare::compare(&a, &b);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else if args.markdown {
        print!("{}", comparison.to_markdown());
    } else {
        print!("{}", comparison.to_text());
    }
    Ok(ExitCode::SUCCESS)
}

/// A run's folder or its results.json.
fn load(path: &Path) -> anyhow::Result<RunResults> {
    let file: PathBuf = if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    };
    Ok(read_results(&file)?)
}
