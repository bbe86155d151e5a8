//! The open-loop measures of one cell, after verification and in the same cgroup and placement as
//! its throughput: the capacity under the run's SLO (`restbench_loadgen::capacity`) and one step
//! per equal-load rate, each with the server's CPU and memory over the step.

use restbench_loadgen::LoadSpec;
use restbench_loadgen::capacity::{self, CapacitySpec, Measured};
use restbench_model::{Capacity, RateStep, StepServer};

use super::cell::CellRun;
use super::measure;
use super::plan::RunPlan;
use crate::HarnessError;
use crate::events::Step;
use restbench_host::sample::ServerSample;

/// What the open-loop measures of a cell found.
#[derive(Debug, Default)]
pub struct OpenLoopResult {
    pub capacity: Option<Capacity>,
    pub at_rate: Vec<RateStep>,
    /// Set when a warm-up ran here (no throughput measure before): its length and whether the
    /// rate settled.
    pub warmup: Option<(std::time::Duration, bool)>,
}

/// Runs the cell's capacity search and equal-load steps (warmed up first unless `warm`); `None`
/// when interrupted.
pub fn measure_open_loop(
    cell: &mut CellRun,
    warm: bool,
) -> Result<Option<OpenLoopResult>, HarnessError> {
    let plan = cell.plan;
    let base = measure::cell_spec(cell)?;
    let mut out = OpenLoopResult::default();
    if !warm {
        cell.step(Step::WarmingUp);
        out.warmup = Some(measure::warm_up(cell, &base)?);
    }
    let spec = capacity_spec(plan, base);
    if plan.open_loop.mode.capacity() {
        measure::check_alive(cell)?;
        let cell = &*cell;
        let mut n = 0;
        let mut run = |s: &LoadSpec| -> Result<Measured, HarnessError> {
            cell.step(match s.rate {
                None => Step::CapacityProbe,
                Some(rate) => {
                    n += 1;
                    Step::CapacityStep { n, rate }
                }
            });
            step_load(cell, s)
        };
        let found = capacity::search_with(&spec, cell.stop, &mut run, &mut |_| {})?;
        if cell.stopped() {
            return Ok(None);
        }
        out.capacity = Some(found);
    }
    for &rate in &plan.open_loop.at_rates {
        if cell.stopped() {
            return Ok(None);
        }
        measure::check_alive(cell)?;
        cell.step(Step::EqualLoad { rate });
        let cell = &*cell;
        let mut run = |s: &LoadSpec| step_load(cell, s);
        let step = capacity::measure_at(&spec, rate, &mut run)?;
        if cell.stopped() {
            return Ok(None);
        }
        out.at_rate.push(step);
    }
    Ok(Some(out))
}

/// The search's settings from the run's: the cell's load, the SLO, the generator's CPUs (none
/// when it shares the server's) and its calibrated ceiling.
pub fn capacity_spec(plan: &RunPlan, load: LoadSpec) -> CapacitySpec {
    let threads = load.effective_threads();
    let o = &plan.open_loop;
    let mut spec = CapacitySpec::new(load, o.slo.clone());
    spec.step_duration = o.step_duration;
    spec.step_warmup = o.step_warmup;
    spec.probe_duration = o.step_duration;
    spec.resolution = o.resolution;
    spec.max_steps = o.max_steps;
    spec.generator_cores = (!plan.placement.shared)
        .then(|| (plan.placement.loadgen.len().max(1) as f64).min(f64::from(threads)));
    spec.ceiling_rps = plan.loadgen_ceiling_rps;
    spec
}

fn step_load(cell: &CellRun, spec: &LoadSpec) -> Result<Measured, HarnessError> {
    let Some((outcome, sample, _hosts)) = measure::measured_load(cell, spec)? else {
        // Only an interrupt ends remote shards without a result: the run is stopping.
        return Err(HarnessError::io(
            "the open-loop step",
            std::io::Error::from(std::io::ErrorKind::Interrupted),
        ));
    };
    let usage = step_server(&sample, outcome.duration.as_secs_f64(), outcome.answered);
    Ok((outcome, Some(usage)))
}

/// The server's usage over one step.
pub fn step_server(sample: &ServerSample, secs: f64, answered: u64) -> StepServer {
    let cpu = sample.cpu.as_secs_f64();
    StepServer {
        cpu_cores: if secs > 0.0 { cpu / secs } else { 0.0 },
        cpu_us_per_req: if answered > 0 {
            cpu * 1e6 / answered as f64
        } else {
            0.0
        },
        rss_peak_bytes: sample.memory.rss_peak,
        cgroup_memory_peak_bytes: sample.memory.cgroup_peak,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_step_charges_the_server_its_cpu_per_answered_request() {
        let sample = ServerSample {
            cpu: Duration::from_millis(500),
            ..ServerSample::default()
        };
        let s = step_server(&sample, 2.0, 10_000);
        assert_eq!(s.cpu_cores, 0.25);
        assert_eq!(s.cpu_us_per_req, 50.0);
        assert_eq!(step_server(&sample, 0.0, 0).cpu_us_per_req, 0.0);
    }
}
