//! `restbench bench --cmd`: your own server, measured as a subject without writing a folder.

use std::process::ExitCode;

use anyhow::Context;
use restbench_harness::planner::{self, ConformanceStep};
use restbench_model::Workload;
use restbench_model::vocabulary::time::utc_stamp;
use restbench_subject::ad_hoc;

use crate::cli::{BadArgument, BenchArgs};
use crate::common::{plan_error, refuse_finished_run, subjects_root};
use crate::options::{self, Measured};
use crate::{output, progress, signals};

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let cells = &args.cells;
    let workloads = match &cells.workloads {
        w if w.is_empty() => vec![Workload::Plaintext],
        w => w.clone(),
    };
    let cwd = std::env::current_dir().context("cannot read the current folder")?;
    let subject = ad_hoc::subject(&args.cmd, &args.name, &workloads, cwd.clone())
        .map_err(|e| BadArgument(e.to_string()))?;
    // Results and the cache go where `run` puts them: beside the subjects folder of a checkout,
    // else in the current folder.
    let root = subjects_root(&cells.measure.dir).unwrap_or_else(|_| cwd.join("subjects"));
    let what = Measured {
        kind: "bench",
        out_name: format!("bench-{}-{}", args.name, utc_stamp()),
        note: Some(format!(
            "An ad-hoc subject: `{}` ({}), started as given in every scenario.",
            args.cmd, args.name
        )),
    };
    refuse_finished_run(&options::out_dir(cells, &what), cells.measure.force)?;
    let stop = signals::stop_flag()?;
    let exports = output::open_exports(&cells.measure.export)?;
    let request = options::run_request(
        vec![subject],
        workloads,
        cells,
        &root,
        what,
        ConformanceStep::NotApplicable,
    )?;
    let resolved = planner::resolve(request).map_err(plan_error)?;
    progress::measure(resolved, &stop, exports)
}
