//! `restbench merge`: load results of several generators made one, exactly (the merge itself is
//! `restbench_model::documents::merge`).

use std::process::ExitCode;

use restbench_model::merge_load_results;

use crate::cli::MergeArgs;
use crate::output::{read_load_result, write_merged};

pub fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut inputs = Vec::with_capacity(args.results.len());
    for path in &args.results {
        inputs.push((path.display().to_string(), read_load_result(path)?));
    }
    let merged = merge_load_results(&inputs, args.force)?;
    write_merged(&merged, args.json.as_deref(), args.latency)?;
    Ok(ExitCode::SUCCESS)
}
