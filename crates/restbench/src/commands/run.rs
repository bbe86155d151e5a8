//! `restbench run`: the main job.

use std::process::ExitCode;

use restbench_harness::planner;
use restbench_harness::planner::ConformanceStep;
use restbench_model::Workload;
use restbench_model::vocabulary::time::utc_stamp;
use restbench_subject as subject;

use crate::cli::RunArgs;
use crate::common::{plan_error, refuse_finished_run, subjects_root};
use crate::options::{self, Measured};
use crate::{output, progress, signals};

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
    // `run ID…` and `run --subjects IDS` are one selection (clap refuses both at once).
    let ids = if args.ids.is_empty() {
        &args.subjects
    } else {
        &args.ids
    };
    let subjects = subject::select(subject::discover(&root)?, ids)?;
    let workloads = match &cells.workloads {
        w if w.is_empty() => Workload::ALL.to_vec(),
        w => w.clone(),
    };
    let stop = signals::stop_flag()?;
    let exports = output::open_exports(&cells.measure.export)?;
    let conformance = ConformanceStep::unless_skipped(args.no_conformance);
    let request = options::run_request(subjects, workloads, cells, &root, what, conformance)?;
    let resolved = planner::resolve(request).map_err(plan_error)?;
    progress::measure(resolved, &stop, exports)
}
