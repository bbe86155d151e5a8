//! `restbench compare A B`: two runs, or two `load` results, side by side as ratios.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use restbench_harness::runner::read_results;
use restbench_model::{LoadResult, RunResults};
use restbench_report::DocumentKind;

use crate::cli::CompareArgs;

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let (fa, fb) = (file(&args.a), file(&args.b));
    match (kind(&fa)?, kind(&fb)?) {
        (DocumentKind::Load, DocumentKind::Load) => {
            let comparison =
                restbench_report::compare_loads(&load_result(&fa)?, &load_result(&fb)?);
            if args.json {
                println!("{}", serde_json::to_string_pretty(&comparison)?);
            } else if args.markdown {
                print!("{}", comparison.to_markdown());
            } else {
                print!("{}", comparison.to_text());
            }
            return Ok(ExitCode::SUCCESS);
        }
        (DocumentKind::Run, DocumentKind::Run) => {}
        (ka, kb) => bail!(
            "cannot compare {} ({}) with {} ({}): give two runs or two load results",
            fa.display(),
            ka.describe(),
            fb.display(),
            kb.describe()
        ),
    }
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

/// The file a path names: a folder's results.json, or the path itself.
fn file(path: &Path) -> PathBuf {
    if path.is_dir() {
        path.join("results.json")
    } else {
        path.to_path_buf()
    }
}

/// Which document a file holds; an export or anything else is an error that says what to give.
fn kind(file: &Path) -> anyhow::Result<DocumentKind> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let value: serde_json::Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    match DocumentKind::detect(&value) {
        Some(DocumentKind::Export) => bail!(
            "{} is an --export-json table; compare the results themselves (a run's results.json \
             or a `restbench load --json` file)",
            file.display()
        ),
        Some(k) => Ok(k),
        None => bail!(
            "{} is neither a run's results.json nor a `restbench load --json` result",
            file.display()
        ),
    }
}

fn load_result(file: &Path) -> anyhow::Result<LoadResult> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    serde_json::from_str(&text)
        .with_context(|| format!("{} is not a readable load result", file.display()))
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
