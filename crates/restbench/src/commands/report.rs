//! `restbench report DIR`: renders report.md again from results.json.

use std::process::ExitCode;

use anyhow::Context;
use restbench_harness::runner::read_results;

use crate::cli::ReportArgs;

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let results = read_results(&args.dir.join("results.json"))?;
    let md = restbench_report::markdown::report(&results);
    let path = args.dir.join("report.md");
    std::fs::write(&path, &md).with_context(|| format!("cannot write {}", path.display()))?;
    print!("{md}");
    eprintln!("wrote {}", path.display());
    Ok(ExitCode::SUCCESS)
}
