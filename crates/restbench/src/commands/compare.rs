//! `restbench compare A B`: two runs side by side as ratios.

use std::process::ExitCode;

use restbench_model::{Versioned, read_run};

use crate::cli::CompareArgs;

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let a = read_run(&args.a)?;
    let b = read_run(&args.b)?;
    let comparison = restbench_report::compare::compare(&a, &b);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&Versioned::new(comparison))?
        );
    } else if args.markdown {
        print!("{}", comparison.to_markdown());
    } else {
        print!("{}", comparison.to_text());
    }
    Ok(ExitCode::SUCCESS)
}
