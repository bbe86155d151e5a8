//! `restbench run`: the main job.

use std::process::ExitCode;

use restbench_harness::runner::Observer;
use restbench_harness::{plan, subject};
use restbench_model::Workload;
use restbench_model::time::utc_stamp;

use super::progress::TerminalProgress;
use crate::cli::RunArgs;
use crate::common::{plan_error, refuse_finished_run, subjects_root};
use crate::options::{self, Measured};
use crate::{output, signals};

pub fn run(args: RunArgs) -> anyhow::Result<ExitCode> {
    let cells = &args.cells;
    let root = subjects_root(&cells.measure.dir)?;
    let what = Measured {
        kind: "run",
        out_name: utc_stamp(),
        note: None,
    };
    // Refused before the subjects are read: a finished run is never at risk.
    refuse_finished_run(&options::out_dir(cells, &what), cells.measure.force)?;
    let subjects = subject::select(subject::discover(&root)?, &args.subjects)?;
    let workloads = match &cells.workloads {
        w if w.is_empty() => Workload::ALL.to_vec(),
        w => w.clone(),
    };
    let stop = signals::stop_flag()?;
    let exports = output::open_exports(&cells.measure.export)?;
    let request = options::run_request(subjects, workloads, cells, &root, what)?;
    let mut resolved = plan::resolve(request).map_err(plan_error)?;
    resolved.plan.check_conformance(!args.no_conformance);
    output::warn(&resolved.warnings);
    let progress = TerminalProgress::new(resolved.plan.cells());
    for note in resolved.opening_notes() {
        progress.note(&note);
    }
    let result = resolved.run(&stop, &progress);
    progress.finish();
    let out_dir = resolved.plan.out_dir.clone();
    drop(resolved);
    let results = result?;
    output::report_written(&exports.write_runs(&[&results])?);
    output::finish_run(&results, &out_dir)
}
