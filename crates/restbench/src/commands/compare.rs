//! `restbench compare A B`: two runs, or two `load` results, side by side as ratios.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use restbench_model::{LoadResult, Versioned, read_run};
use restbench_report::DocumentKind;

use crate::cli::CompareArgs;

pub fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let (fa, fb) = (file(&args.a), file(&args.b));
    match (kind(&fa)?, kind(&fb)?) {
        (DocumentKind::Load, DocumentKind::Load) => {
            if !args.gate.fail_if.is_empty() {
                return Err(crate::cli::BadArgument(
                    "--fail-if gates two runs, not two load results".into(),
                )
                .into());
            }
            let comparison =
                restbench_report::compare_loads(&load_result(&fa)?, &load_result(&fb)?);
            let text = if args.json {
                serde_json::to_string_pretty(&Versioned::new(comparison))? + "\n"
            } else if args.markdown {
                restbench_report::markdown::load_comparison(&comparison)
            } else {
                restbench_report::text::load_comparison_at(
                    &comparison,
                    crate::output::table_width(),
                )
            };
            return write_out(&text);
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
    let a = read_run(&fa)?;
    let b = read_run(&fb)?;
    // Refused before anything is printed: figures of two machines do not compare.
    let differences = if args.gate.fail_if.is_empty() {
        Vec::new()
    } else {
        crate::gate::machines(&a.environment, &b.environment, args.gate.across_machines)?
    };
    let comparison = restbench_report::compare::compare(&a, &b);
    // What a document carries never becomes a GitHub Actions workflow command (`escape`).
    use restbench_report::escape::{workflow, workflow_json};
    let text = if args.json {
        workflow_json(&(serde_json::to_string_pretty(&Versioned::new(comparison))? + "\n"))
    } else if args.markdown {
        workflow(&restbench_report::markdown::comparison(&comparison))
    } else {
        workflow(&restbench_report::text::comparison_at(
            &comparison,
            crate::output::table_width(),
        ))
    };
    write_out(&text)?;
    if args.gate.fail_if.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    let rows = restbench_model::statistics::ab_ratios::run_rows(&a.cells, &b.cells);
    let mut gate = restbench_model::statistics::gate::evaluate(&args.gate.fail_if, &rows);
    gate.machine_differences = differences;
    let lines = workflow(&if args.markdown {
        restbench_report::markdown::ab::gate_summary(&gate)
    } else {
        restbench_report::text::ab::gate_lines(&gate)
    });
    // The JSON on stdout stays one document; the gate's lines go beside it.
    if args.json {
        eprint!("{lines}");
    } else {
        write_out(&format!("\n{lines}"))?;
    }
    crate::gate::finish(&gate)
}

/// Written, not print!ed: a closed stdout (`| head`) is an error main ends quietly, not a panic.
fn write_out(text: &str) -> anyhow::Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
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
    let text = crate::output::read_document(file)?;
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

/// Read as `merge` reads it: version, then every count, bound and time validated.
fn load_result(file: &Path) -> anyhow::Result<LoadResult> {
    Ok(restbench_model::read_load(file)?)
}
