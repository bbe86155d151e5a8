//! `restbench report DIR`: renders report.md and report.html again from results.json.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;

use restbench_model::{RunResults, read_results};

use crate::cli::ReportArgs;

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
    let results = read_results(&file)?;
    let written = write_reports(&results, &dir)?;
    // Written, not print!ed: a closed stdout (`| head`) is an error main ends quietly, not a panic.
    let mut out = std::io::stdout().lock();
    out.write_all(restbench_report::markdown::report(&results).as_bytes())?;
    out.flush()?;
    for path in written {
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Writes `report.md` and the self-contained `report.html` into `dir`.
pub fn write_reports(results: &RunResults, dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let md = dir.join("report.md");
    std::fs::write(&md, restbench_report::markdown::report(results))
        .with_context(|| format!("cannot write {}", md.display()))?;
    let html = dir.join("report.html");
    std::fs::write(&html, restbench_report::html::render(results))
        .with_context(|| format!("cannot write {}", html.display()))?;
    Ok(vec![md, html])
}
