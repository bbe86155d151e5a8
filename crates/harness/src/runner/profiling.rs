//! A cell's profiling slice (`--profile`), after its measured repeats: the glue between a
//! [`CellRun`] and [`crate::profile::profile_cell`], kept apart so the run loop calls it from one
//! line.

use std::time::Duration;

use restbench_model::Cell;

use super::cell::CellRun;
use super::measure::cell_spec;
use crate::events::Step;
use crate::profile::{self, ProfiledServer, Slice};
use restbench_host::error::chain;

/// Profiles `cell` for `slice` and keeps the profile in it; a profile that cannot be taken is
/// said as a note (the cell's figures stand either way).
pub fn profile_into(run: &mut CellRun, cell: &mut Cell, slice: Duration) {
    run.step(Step::Profiling);
    let outcome = cell_spec(run)
        .map_err(profile::ProfileError::from)
        .and_then(|spec| {
            let mut target = ProfiledServer {
                server: &mut *run.server,
                subject: run.subject,
                scenario: run.scenario,
                options: run.options,
            };
            let slice = Slice {
                spec: &spec,
                loadgen_cpus: &run.plan.placement.loadgen,
                duration: slice,
                warmup: Duration::ZERO,
                stop: run.stop,
                observer: run.observer,
            };
            profile::profile_cell(&mut target, &slice)
        });
    match outcome {
        Ok(profile) => cell.profile = Some(profile),
        Err(e) => run.observer.note(&format!(
            "no profile for {} {} {}: {}",
            run.subject.id,
            run.workload,
            run.scenario,
            chain(&e)
        )),
    }
}
