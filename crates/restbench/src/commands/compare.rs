//! `restbench compare A B`: two runs side by side as ratios.

use std::io::Write;
use std::process::ExitCode;

use restbench_model::{Versioned, read_run};

use crate::cli::CompareArgs;

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let a = read_run(&args.a)?;
    let b = read_run(&args.b)?;
    let comparison = restbench_report::compare::compare(&a, &b);
    let text = if args.json {
        serde_json::to_string_pretty(&Versioned::new(comparison))? + "\n"
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
