//! `restbench report DIR`: renders report.md and report.html again from results.json.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use restbench_model::read_results;

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
    let results = read_results(&file)?;
    let written = output::write_reports(&results, &dir)?;
    // Written, not print!ed: a closed stdout (`| head`) is an error main ends quietly, not a panic.
    let mut out = std::io::stdout().lock();
    out.write_all(restbench_report::markdown::report(&results).as_bytes())?;
    out.flush()?;
    for path in written {
        eprintln!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
