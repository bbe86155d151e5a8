//! `restbench compare A B`: two runs side by side as ratios.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use restbench_harness::runner::read_results;
use restbench_model::RunResults;

use crate::cli::CompareArgs;

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let a = load(&args.a)?;
    let b = load(&args.b)?;
    let comparison = restbench_report::compare::compare(&a, &b);
    let text = if args.json {
        serde_json::to_string_pretty(&comparison)? + "\n"
    } else if args.markdown {
        comparison.to_markdown()
    } else {
        comparison.to_text()
    };
    // Written, not print!ed: a closed stdout (`| head`) is an error main ends quietly, not a panic.
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
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
