//! Capacity under a latency SLO: the highest constant rate a server answers while every clause of
//! an [`Slo`] holds. Pure orchestration over [`crate::run`]:
//!
//! 1. a short closed-loop probe gives an upper bound (the rate the connections reach saturated);
//! 2. open-loop steps at constant rates (latency from each request's intended send time, as
//!    wrk2), each with its own warm-up and a stated duration, first bracket the capacity (from the
//!    probe's rate down by ×0.7, then by halves, until a step passes, or up by ×1.5 until one fails), then bisect
//!    until a passing and a failing rate are within the resolution (2 % by default), with a
//!    bounded number of steps.
//!
//! The capacity is the highest *achieved* rate of a passing step. A step passes when it met every
//! clause and held its rate (achieved at least 97 % of the target by default): a rate the server
//! could not keep up with is a failure, never averaged away. When the failure above the capacity
//! was the generator's (its CPUs saturated), or the probe itself was generator-bound and the
//! capacity came near it, the capacity is a floor and [`BoundBy::Generator`] says so.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use restbench_model::documents::histogram;
use restbench_model::{
    BoundBy, Capacity, CapacityProbe, LatencySummary, RateStep, Slo, StepServer,
};

use crate::{LoadError, LoadOutcome, LoadSpec, StopAt};

/// Stop when a passing and a failing rate are within this fraction of the failing one.
pub const DEFAULT_RESOLUTION: f64 = 0.02;
/// The most open-loop steps of one search (the probe not counted).
pub const DEFAULT_MAX_STEPS: u32 = 14;
/// A step holds its rate when it achieved at least this fraction of the target.
pub const DEFAULT_HOLD_FRACTION: f64 = 0.97;
/// The generator counts as saturated at this fraction of the CPU it has.
pub const SATURATED_FRACTION: f64 = 0.85;
/// Bracketing: down from a failing probe rate by this factor, as the capacity is usually not far
/// below what the closed loop reached...
const DOWN: f64 = 0.7;
/// ...up from a passing rate by this one, so that a capacity above the probe's is bracketed in a
/// few steps...
const UP: f64 = 1.5;
/// ...and down by halves once a rate below the probe's failed too: the capacity is far off, and
/// halving reaches any floor in a handful of steps.
const FAST_DOWN: f64 = 0.5;
/// A capacity of at least this fraction of a generator-bound probe's rate, or of the calibrated
/// ceiling, is the generator's: within 10 %, the server may be faster than the generator shows.
pub const GENERATOR_BOUND_FRACTION: f64 = 0.9;
/// The defaults of [`CapacitySpec::new`]: a probe long enough for a closed-loop rate to settle...
const DEFAULT_PROBE_DURATION: Duration = Duration::from_secs(2);
/// ...steps long enough for a p99 of thousands of requests at any useful rate...
const DEFAULT_STEP_DURATION: Duration = Duration::from_secs(5);
/// ...each after a warm-up that lets the connections and the server's caches settle.
const DEFAULT_STEP_WARMUP: Duration = Duration::from_secs(1);
/// The resolutions a search accepts: finer than 0.1 % is below run-to-run noise, coarser than
/// 50 % says nothing.
const RESOLUTION_RANGE: std::ops::RangeInclusive<f64> = 0.001..=0.5;
/// The step budgets a search accepts: at least one step, and at most as many as anyone waits for.
const MAX_STEPS_RANGE: std::ops::RangeInclusive<u32> = 1..=100;
/// The hold fractions a search accepts: below half the target, a rate was not held.
const HOLD_FRACTION_RANGE: std::ops::RangeInclusive<f64> = 0.5..=1.0;
/// The shortest probe or step: shorter ones measure the warm-up's tail, not a rate.
const MIN_STEP_DURATION: Duration = Duration::from_millis(50);
/// The longest probe, step or step warm-up: a search of many steps must end the same day.
const MAX_STEP_DURATION: Duration = Duration::from_secs(3600);
/// A rate [`CapacitySpec::validate`] gives the step it checks: any valid one does, as the rate
/// of each step is checked again when the step runs.
const RATE_CHECKED: f64 = 1000.0;
/// Fewer requests than this in a step say nothing about a p99: the lowest rate tried.
const MIN_REQUESTS_PER_STEP: f64 = 20.0;

/// A capacity search: the request and connections of `load`, the SLO, and the step settings.
#[derive(Debug, Clone)]
pub struct CapacitySpec {
    /// The request, connections, threads and timeout; its `stop`, `rate` and `warmup` are set by
    /// each step.
    pub load: LoadSpec,
    pub slo: Slo,
    pub probe_duration: Duration,
    pub step_duration: Duration,
    pub step_warmup: Duration,
    pub resolution: f64,
    pub max_steps: u32,
    pub hold_fraction: f64,
    /// The CPU cores the generator may use, when known: a step whose generator used nearly all
    /// of them was limited by the generator. `None` (generator and server share CPUs) never
    /// blames the generator on CPU alone.
    pub generator_cores: Option<f64>,
    /// The generator's calibrated ceiling (req/s against a trivial server), when known: a
    /// capacity within 10 % of it is the generator's.
    pub ceiling_rps: Option<f64>,
}

impl CapacitySpec {
    /// The defaults around a load spec: 2 s probe, 5 s steps after 1 s warm-up each, 2 %.
    pub fn new(load: LoadSpec, slo: Slo) -> Self {
        Self {
            generator_cores: Some(generator_cores(load.effective_threads())),
            load,
            slo,
            probe_duration: DEFAULT_PROBE_DURATION,
            step_duration: DEFAULT_STEP_DURATION,
            step_warmup: DEFAULT_STEP_WARMUP,
            resolution: DEFAULT_RESOLUTION,
            max_steps: DEFAULT_MAX_STEPS,
            hold_fraction: DEFAULT_HOLD_FRACTION,
            ceiling_rps: None,
        }
    }

    /// Checks the search's own settings and the load spec a step would run.
    pub fn validate(&self) -> Result<(), LoadError> {
        let bad = |m: &str| Err(LoadError::InvalidSpec(m.to_string()));
        if self.slo.is_empty() {
            return bad("a capacity search needs at least one --slo clause");
        }
        if !(self.resolution.is_finite() && RESOLUTION_RANGE.contains(&self.resolution)) {
            return bad("--resolution must be from 0.1% to 50%");
        }
        if !MAX_STEPS_RANGE.contains(&self.max_steps) {
            return bad("the step budget must be from 1 to 100 steps");
        }
        if !(self.hold_fraction.is_finite() && HOLD_FRACTION_RANGE.contains(&self.hold_fraction)) {
            return bad("the hold fraction must be from 0.5 to 1");
        }
        for (name, d) in [
            ("--step-duration", self.step_duration),
            ("the probe duration", self.probe_duration),
        ] {
            if d < MIN_STEP_DURATION || d > MAX_STEP_DURATION {
                return bad(&format!("{name} must be from 50ms to 1h"));
            }
        }
        if self.step_warmup > MAX_STEP_DURATION {
            return bad("the step warm-up must be at most 1h");
        }
        let mut step = self.load.clone();
        step.rate = Some(RATE_CHECKED);
        step.stop = StopAt::Duration(self.step_duration);
        step.warmup = self.step_warmup;
        step.validate()
    }

    /// The spec of the closed-loop probe.
    pub fn probe_spec(&self) -> LoadSpec {
        let mut s = self.load.clone();
        s.rate = None;
        s.stop = StopAt::Duration(self.probe_duration);
        s.warmup = self.step_warmup;
        s
    }

    /// The spec of one constant-rate step.
    pub fn step_spec(&self, target: f64) -> LoadSpec {
        let mut s = self.load.clone();
        s.rate = Some(target);
        s.stop = StopAt::Duration(self.step_duration);
        s.warmup = self.step_warmup;
        s
    }

    fn saturated(&self, cores: f64) -> bool {
        self.generator_cores
            .is_some_and(|budget| budget > 0.0 && cores >= SATURATED_FRACTION * budget)
    }
}

/// The CPUs this thread may run on (its affinity), at most `threads`: the generator's budget.
pub fn generator_cores(threads: u32) -> f64 {
    let cpus = nix::sched::sched_getaffinity(nix::unistd::Pid::from_raw(0))
        .map(|set| {
            (0..nix::sched::CpuSet::count())
                .filter(|&i| set.is_set(i).unwrap_or(false))
                .count()
        })
        .unwrap_or(1)
        .max(1);
    cpus.min(threads.max(1) as usize) as f64
}

/// What one load measured: the generator's outcome and, when the caller accounts for it, the
/// server's usage over the same interval.
pub type Measured = (LoadOutcome, Option<StepServer>);

/// Runs one load for the search (the probe, then each step).
pub type LoadRunner<'a, E> = dyn FnMut(&LoadSpec) -> Result<Measured, E> + 'a;

/// Runs the search with a caller's load runner (the harness measures the server's CPU and memory
/// around each load). `run` gets the probe's spec first, then each step's.
pub fn search_with<E: From<LoadError>>(
    spec: &CapacitySpec,
    stop: &AtomicBool,
    run: &mut LoadRunner<'_, E>,
    on_step: &mut dyn FnMut(&RateStep),
) -> Result<Capacity, E> {
    spec.validate()?;
    let probe_spec = spec.probe_spec();
    let (outcome, _) = run(&probe_spec)?;
    let probe_cores = cores(&outcome);
    let probe = CapacityProbe {
        rps: outcome.rps(),
        connections: probe_spec.connections,
        duration_s: outcome.duration.as_secs_f64(),
        loadgen_cpu_cores: probe_cores,
        generator_saturated: spec.saturated(probe_cores),
    };
    let mut steps: Vec<RateStep> = Vec::new();
    let floor = MIN_REQUESTS_PER_STEP / spec.step_duration.as_secs_f64();
    let mut planner = Planner::new(probe.rps.max(floor), floor, spec.resolution, spec.max_steps);
    let mut interrupted = stop.load(Ordering::Relaxed);
    while !interrupted && let Some(target) = planner.next() {
        let (outcome, server) = run(&spec.step_spec(target))?;
        if stop.load(Ordering::Relaxed) {
            interrupted = true;
            break;
        }
        let step = judge(spec, target, &outcome, server);
        planner.record(target, step.pass);
        on_step(&step);
        steps.push(step);
    }
    let (bound_by, reason) = bound_by(&probe, &steps, spec.ceiling_rps);
    let rate = best_passing(&steps).map(|s| s.achieved_rps);
    Ok(Capacity {
        slo: spec.slo.clone(),
        rate,
        bound_by,
        reason,
        probe,
        resolution: spec.resolution,
        hold_fraction: spec.hold_fraction,
        step_duration_s: spec.step_duration.as_secs_f64(),
        step_warmup_s: spec.step_warmup.as_secs_f64(),
        generator_cores: spec.generator_cores,
        steps,
        interrupted,
    })
}

/// One step at a given rate, judged against the SLO (the equal-load points of a run).
pub fn measure_at<E: From<LoadError>>(
    spec: &CapacitySpec,
    target: f64,
    run: &mut LoadRunner<'_, E>,
) -> Result<RateStep, E> {
    let step = spec.step_spec(target);
    // A step by itself may have no SLO: only the load spec must be valid.
    step.validate()?;
    let (outcome, server) = run(&step)?;
    Ok(judge(spec, target, &outcome, server))
}

fn cores(o: &LoadOutcome) -> f64 {
    let secs = o.duration.as_secs_f64();
    if secs > 0.0 {
        (o.cpu_user + o.cpu_system).as_secs_f64() / secs
    } else {
        0.0
    }
}

/// A step's figures and verdict: every SLO clause, and the rate held.
pub fn judge(
    spec: &CapacitySpec,
    target: f64,
    outcome: &LoadOutcome,
    server: Option<StepServer>,
) -> RateStep {
    let latency = LatencySummary::from_histogram(&outcome.latency);
    let failed_requests = outcome.errors.status + outcome.errors.unanswered();
    let errors_percent = if outcome.sent > 0 {
        failed_requests as f64 * 100.0 / outcome.sent as f64
    } else {
        100.0
    };
    let achieved = outcome.rps();
    let mut failed = spec.slo.broken(&latency, errors_percent);
    if outcome.answered == 0 {
        failed.push("no request was answered".into());
    } else if achieved < spec.hold_fraction * target {
        failed.push(format!(
            "held {:.1}% of the target rate (at least {:.0}% needed)",
            achieved * 100.0 / target,
            spec.hold_fraction * 100.0
        ));
    }
    let loadgen = cores(outcome);
    RateStep {
        target_rps: target,
        achieved_rps: achieved,
        duration_s: outcome.duration.as_secs_f64(),
        sent: outcome.sent,
        requests: outcome.answered,
        errors: outcome.errors,
        errors_percent,
        latency_us: latency,
        pass: failed.is_empty(),
        failed,
        loadgen_cpu_cores: loadgen,
        generator_saturated: spec.saturated(loadgen),
        max_schedule_lag_us: outcome.max_lag.map_or(0, |d| d.as_micros() as u64),
        histogram: histogram::encode(&outcome.latency),
        server,
    }
}

fn best_passing(steps: &[RateStep]) -> Option<&RateStep> {
    steps.iter().filter(|s| s.pass).max_by(|a, b| {
        a.achieved_rps
            .partial_cmp(&b.achieved_rps)
            .unwrap_or(std::cmp::Ordering::Equal)
    })
}

/// Who set the capacity, and why, from the probe and the steps alone (no clock, no sockets).
///
/// - the failing step just above the capacity failed with the generator's CPUs saturated, or the
///   capacity came within 10 % of a generator-bound probe or of the calibrated ceiling:
///   `generator` (a floor);
/// - it failed with CPU to spare: `server`;
/// - no step above the capacity failed (the step budget ran out climbing): `search` (a floor).
pub fn bound_by(
    probe: &CapacityProbe,
    steps: &[RateStep],
    ceiling_rps: Option<f64>,
) -> (BoundBy, String) {
    let best = best_passing(steps);
    let above = steps
        .iter()
        .filter(|s| !s.pass && best.is_none_or(|b| s.target_rps > b.target_rps))
        .min_by(|a, b| {
            a.target_rps
                .partial_cmp(&b.target_rps)
                .unwrap_or(std::cmp::Ordering::Equal)
        });
    if let Some(b) = best {
        if probe.generator_saturated && b.achieved_rps >= GENERATOR_BOUND_FRACTION * probe.rps {
            return (
                BoundBy::Generator,
                format!(
                    "the closed-loop probe saturated the generator ({:.2} cores) at {:.0} req/s \
                     and the capacity reached {:.0} % of it: a floor",
                    probe.loadgen_cpu_cores,
                    probe.rps,
                    b.achieved_rps * 100.0 / probe.rps.max(1e-9)
                ),
            );
        }
        if let Some(c) =
            ceiling_rps.filter(|c| *c > 0.0 && b.achieved_rps >= GENERATOR_BOUND_FRACTION * c)
        {
            return (
                BoundBy::Generator,
                format!(
                    "the capacity came within {:.0} % of the generator's calibrated ceiling \
                     ({c:.0} req/s): a floor",
                    (1.0 - GENERATOR_BOUND_FRACTION) * 100.0
                ),
            );
        }
    }
    match (above, best) {
        (Some(f), _) if f.generator_saturated => (
            BoundBy::Generator,
            format!(
                "at {:.0} req/s the generator saturated its CPUs ({:.2} cores) and achieved \
                 {:.0} req/s: a floor, not the server's capacity",
                f.target_rps, f.loadgen_cpu_cores, f.achieved_rps
            ),
        ),
        (Some(f), _) => (
            BoundBy::Server,
            format!(
                "at {:.0} req/s the server failed: {}",
                f.target_rps,
                f.failed.join("; ")
            ),
        ),
        (None, Some(b)) if b.generator_saturated => (
            BoundBy::Generator,
            format!(
                "the highest rate tried ({:.0} req/s) passed with the generator saturated: a floor",
                b.target_rps
            ),
        ),
        (None, Some(b)) => (
            BoundBy::Search,
            format!(
                "every rate tried passed, up to {:.0} req/s, before the step budget ran out: a floor",
                b.target_rps
            ),
        ),
        (None, None) => (BoundBy::Search, "no step ran".into()),
    }
}

/// Chooses the next target rate: bracket from the probe's rate, then bisect.
#[derive(Debug, Clone)]
pub struct Planner {
    start: f64,
    floor: f64,
    resolution: f64,
    max_steps: u32,
    taken: u32,
    /// Highest passing and lowest failing targets so far.
    lo: Option<f64>,
    hi: Option<f64>,
}

impl Planner {
    pub fn new(start: f64, floor: f64, resolution: f64, max_steps: u32) -> Self {
        Self {
            start,
            floor,
            resolution,
            max_steps,
            taken: 0,
            lo: None,
            hi: None,
        }
    }

    /// The next rate to try, or `None` when the bracket is within the resolution, the budget is
    /// spent, or even the lowest sensible rate failed.
    pub fn next(&self) -> Option<f64> {
        if self.taken >= self.max_steps {
            return None;
        }
        match (self.lo, self.hi) {
            (None, None) => Some(self.start),
            (Some(lo), None) => Some(lo * UP),
            (None, Some(hi)) => {
                // Near the probe's rate first; halving once that failed too.
                let down = if hi < self.start {
                    hi * FAST_DOWN
                } else {
                    hi * DOWN
                };
                if hi <= self.floor {
                    None
                } else {
                    Some(down.max(self.floor))
                }
            }
            (Some(lo), Some(hi)) => {
                ((hi - lo) > self.resolution * hi).then_some(lo + (hi - lo) / 2.0)
            }
        }
    }

    pub fn record(&mut self, target: f64, pass: bool) {
        self.taken += 1;
        if pass {
            self.lo = Some(self.lo.map_or(target, |l| l.max(target)));
        } else {
            self.hi = Some(self.hi.map_or(target, |h| h.min(target)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs the planner against a server that passes every rate up to `capacity`.
    fn plan(start: f64, capacity: f64, max_steps: u32) -> (Vec<(f64, bool)>, Planner) {
        let mut p = Planner::new(start, 10.0, 0.02, max_steps);
        let mut tried = Vec::new();
        while let Some(t) = p.next() {
            let pass = t <= capacity;
            p.record(t, pass);
            tried.push((t, pass));
        }
        (tried, p)
    }

    #[test]
    fn the_planner_brackets_then_bisects_to_the_resolution() {
        for (start, capacity) in [
            (10_000.0, 8_000.0),
            (10_000.0, 500.0),
            (10_000.0, 25_000.0),
            (10_000.0, 9_990.0),
        ] {
            let (tried, p) = plan(start, capacity, 40);
            let lo = p.lo.unwrap();
            let hi = p.hi.unwrap();
            assert!(
                lo <= capacity && capacity < hi,
                "{start} {capacity}: {tried:?}"
            );
            assert!((hi - lo) <= 0.02 * hi, "{tried:?}");
            assert!(tried.len() <= 14, "{capacity}: {} steps", tried.len());
            // Consistent: every passing rate below every failing one.
            let max_pass = tried
                .iter()
                .filter(|t| t.1)
                .map(|t| t.0)
                .fold(0.0, f64::max);
            let min_fail = tried
                .iter()
                .filter(|t| !t.1)
                .map(|t| t.0)
                .fold(f64::MAX, f64::min);
            assert!(max_pass < min_fail);
        }
    }

    #[test]
    fn the_planner_stops_at_its_budget_and_at_its_floor() {
        let (tried, _) = plan(10_000.0, 8_000.0, 3);
        assert_eq!(tried.len(), 3);
        let (tried, p) = plan(10_000.0, 0.0, 100);
        assert!(p.lo.is_none());
        assert_eq!(
            tried.last().unwrap().0,
            10.0,
            "ends at the floor: {tried:?}"
        );
    }

    fn step(target: f64, achieved: f64, pass: bool, saturated: bool) -> RateStep {
        RateStep {
            target_rps: target,
            achieved_rps: achieved,
            duration_s: 1.0,
            sent: achieved as u64,
            requests: achieved as u64,
            errors: Default::default(),
            errors_percent: 0.0,
            latency_us: LatencySummary::default(),
            pass,
            failed: if pass {
                vec![]
            } else {
                vec!["p99<=10ms (was 30000us)".into()]
            },
            loadgen_cpu_cores: if saturated { 0.98 } else { 0.3 },
            generator_saturated: saturated,
            max_schedule_lag_us: 0,
            histogram: String::new(),
            server: None,
        }
    }

    fn probe(rps: f64, saturated: bool) -> CapacityProbe {
        CapacityProbe {
            rps,
            connections: 10,
            duration_s: 1.0,
            loadgen_cpu_cores: if saturated { 0.99 } else { 0.4 },
            generator_saturated: saturated,
        }
    }

    #[test]
    fn a_failure_with_the_generator_saturated_makes_the_capacity_a_floor() {
        // Synthetic: a server faster than the generator. The generator falls short of 150k with
        // its CPU saturated; the capacity is the generator's.
        let steps = [
            step(100_000.0, 99_000.0, true, false),
            step(150_000.0, 110_000.0, false, true),
            step(125_000.0, 110_000.0, false, true),
            step(112_000.0, 109_500.0, true, true),
        ];
        let (b, why) = bound_by(&probe(100_000.0, false), &steps, None);
        assert_eq!(b, BoundBy::Generator, "{why}");
        assert!(why.contains("saturated"), "{why}");
        // The same failure with CPU to spare is the server's.
        let mut server = steps.clone();
        server[2].generator_saturated = false;
        let (b, why) = bound_by(&probe(100_000.0, false), &server, None);
        assert_eq!(b, BoundBy::Server, "{why}");
        assert!(why.contains("p99<=10ms"), "{why}");
    }

    #[test]
    fn a_generator_bound_probe_or_ceiling_makes_a_near_capacity_a_floor() {
        let steps = [
            step(100_000.0, 97_000.0, true, false),
            step(150_000.0, 120_000.0, false, false),
        ];
        assert_eq!(
            bound_by(&probe(100_000.0, true), &steps, None).0,
            BoundBy::Generator
        );
        assert_eq!(
            bound_by(&probe(100_000.0, false), &steps, Some(105_000.0)).0,
            BoundBy::Generator
        );
        // Far below a generator-bound probe, the SLO (the server) set the capacity.
        let low = [
            step(100_000.0, 60_000.0, false, false),
            step(70_000.0, 69_000.0, false, false),
            step(49_000.0, 49_000.0, true, false),
        ];
        assert_eq!(
            bound_by(&probe(100_000.0, true), &low, None).0,
            BoundBy::Server
        );
        // Nothing failed: the budget ran out.
        let climbing = [step(1_000.0, 1_000.0, true, false)];
        assert_eq!(
            bound_by(&probe(1_000.0, false), &climbing, None).0,
            BoundBy::Search
        );
    }
}
