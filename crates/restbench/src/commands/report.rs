//! `restbench report DIR`: renders report.md and report.html again from results.json.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::bail;
use restbench_model::read_results;
use restbench_report::document::DocumentKind;

use crate::cli::ReportArgs;
use crate::output;

pub fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    // A folder holding results.json, or the file itself: the reports go beside it.
    let (file, dir) = if args.dir.is_dir() {
        (args.dir.join("results.json"), args.dir.clone())
    } else {
        let parent = args.dir.parent().filter(|p| !p.as_os_str().is_empty());
        (
            args.dir.clone(),
            parent.unwrap_or(Path::new(".")).to_path_buf(),
        )
    };
    refuse_other_documents(&file)?;
    let results = read_results(&file)?;
    let written = output::write_reports(&results, &dir)?;
    // Written, not print!ed: a closed stdout (`| head`) is an error main ends quietly, not a panic.
    let mut out = std::io::stdout().lock();
    if args.stdout {
        out.write_all(restbench_report::markdown::report(&results).as_bytes())?;
        for path in written {
            eprintln!("wrote {}", path.display());
        }
    } else {
        for path in written {
            writeln!(out, "wrote {}", path.display())?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// A `load --json` result is a document restbench wrote too, but not a run: say which command
/// takes it instead of serde's "missing field". Anything unreadable is left to `read_results`,
/// which names the problem.
fn refuse_other_documents(file: &Path) -> anyhow::Result<()> {
    let Ok(text) = crate::output::read_document(file) else {
        return Ok(());
    };
    let Ok(value) = serde_json::from_str::<serde_json::Value>(&text) else {
        return Ok(());
    };
    match DocumentKind::detect(&value) {
        Some(DocumentKind::Load) => bail!(
            "{}: this is a `restbench load --json` result: use `restbench compare A B` for \
             load results",
            file.display()
        ),
        Some(DocumentKind::Export) => bail!(
            "{}: this is {}: `restbench report` takes a run's results.json",
            file.display(),
            DocumentKind::Export.describe()
        ),
        _ => Ok(()),
    }
}
