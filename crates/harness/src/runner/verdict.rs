//! Turning a cell's measurement into its figures and verdicts: merged latency, server and
//! generator usage, and the flags a reader must see (client-bound, noisy, limit not held …).

use restbench_loadgen::capacity::{GENERATOR_BOUND_FRACTION, SATURATED_FRACTION};
use restbench_model::documents::histogram::{self, new_latency_histogram};
use restbench_model::statistics::interval::log_interval;
use restbench_model::{
    Cell, CellIntervals, CellPlacement, ErrorCounts, FindingLevel, Flag, LatencySummary,
    LoadgenUsage, RepeatResult, RestartSpread, RpsStats, Saturation, ServerUsage, UsageSource,
    Workload,
};

use super::measure::Measurement;
use super::open_loop::OpenLoopResult;
use crate::serve::limits::limit_held;
use crate::stats;
use restbench_host::placement::Placement;

/// Fills a verified cell from its measurement and raises its flags.
pub fn fill_cell(
    cell: &mut Cell,
    m: Measurement,
    placement: &Placement,
    limit: &CellPlacement,
    loadgen_ceiling_rps: Option<f64>,
) {
    let waiting = in_flight_at_end(&m);
    // Each server process's slices, in the order measured: a restart starts a new series.
    let mut memory: Vec<Vec<u64>> = Vec::new();
    for (i, slice) in m.repeats.iter().enumerate() {
        let process = m.processes.get(i).copied().unwrap_or(0) as usize;
        if memory.len() <= process {
            memory.resize(process + 1, Vec::new());
        }
        memory[process].push(slice.sample.memory.rss_mean);
    }
    let t = Totals::of(&m, cell);
    cell.rps = RpsStats {
        median: stats::median(&t.rps),
        min: t.rps.iter().copied().fold(f64::INFINITY, f64::min),
        max: t.rps.iter().copied().fold(0.0, f64::max),
        cv: stats::cv(&t.rps),
        ci95: stats::bootstrap_median_ci(&t.rps),
    };
    cell.latency_us = LatencySummary::from_histogram(&t.merged);
    cell.histogram = Some(histogram::encode(&t.merged));
    cell.errors = t.errors;
    cell.requests = t.requests;
    cell.bytes_per_s = stats::median(&t.bytes_per_s);
    cell.bytes_per_answer = (t.requests > 0).then(|| t.bytes as f64 / t.requests as f64);
    cell.server = t.server_usage(limit);
    cell.placement = limit.clone();
    cell.restarts = RestartSpread::of(&t.rps, &t.processes);
    cell.warmup_s = m.warmup.as_secs_f64();
    cell.generators = restbench_remote::combine_generators(&m.generators);
    let loadgen_cores = t.loadgen_cpu / t.server_time.max(1e-9);
    let client_bound = is_client_bound(
        cell.rps.median,
        loadgen_cores,
        placement,
        loadgen_ceiling_rps,
    );
    cell.loadgen = LoadgenUsage {
        cpu_cores: loadgen_cores,
        cpu_us_per_req: t.per_request(t.loadgen_cpu),
        client_bound,
    };
    raise_flags(cell, client_bound, limit, m.warmup_settled);
    if answered_early(&cell.workload, cell.latency_us.min, cell.requests) {
        cell.raise(Flag::AnsweredEarly);
    }
    if memory.iter().any(|series| memory_kept_growing(series)) {
        cell.raise(Flag::MemoryGrowing);
    }
    if let Some(w) = waiting {
        let answered_p99 = cell.latency_us.p99;
        let censored = restbench_model::InFlightAtEnd {
            // A margin: a few requests waiting about as long as the slowest answers move the
            // p99 by a bucket, not to a floor.
            p99_is_floor: w.p99_floor_us > answered_p99 + (answered_p99 / 10).max(1),
            ..w
        };
        if censored.p99_is_floor {
            cell.latency_us.p99 = censored.p99_floor_us;
        }
        if censored.starved_connections > 0 {
            cell.raise(Flag::StarvedConnections);
        }
        if censored.p99_is_floor || censored.starved_connections > 0 {
            cell.in_flight_at_end = Some(censored);
        }
    }
    cell.intervals = intervals(&cell.repeats);
    let contended = cell
        .repeats
        .iter()
        .filter(|r| r.saturation == Some(Saturation::Contended))
        .count();
    let counted = cell.repeats.len() - contended;
    if contended > 0 && (contended > counted || counted == 0) {
        cell.raise(Flag::Contended);
    }
}

/// What waited at the ends of the counted slices: the requests at their age (censored
/// latencies) merged with the answered ones for the p99 floor, and the most connections any
/// slice left without an answer. `None` without counted slices.
fn in_flight_at_end(m: &Measurement) -> Option<restbench_model::InFlightAtEnd> {
    let counted: Vec<&super::measure::Slice> = m.repeats.iter().filter(|s| s.counts()).collect();
    if counted.is_empty() {
        return None;
    }
    let mut all = new_latency_histogram();
    let mut requests = 0;
    let mut oldest = 0;
    let mut starved = 0;
    let mut connections = 0;
    for s in &counted {
        let _ = histogram::merge(&mut all, &s.outcome.latency);
        let _ = histogram::merge(&mut all, &s.outcome.waiting_at_end);
        requests += s.outcome.waiting_at_end.len();
        oldest = oldest.max(s.outcome.waiting_at_end.max());
        starved = starved.max(s.outcome.starved_connections());
        connections = connections.max(s.outcome.answers_per_connection.len());
    }
    Some(restbench_model::InFlightAtEnd {
        requests,
        oldest_us: oldest,
        p99_floor_us: all.value_at_quantile(0.99),
        p99_is_floor: false,
        starved_connections: starved as u32,
        connections: connections as u32,
    })
}

/// The fewest slices a growth of memory is judged over: two are one step, not a trend.
pub const MEMORY_GROWTH_SLICES: usize = 3;
/// How many times its first slice's memory the last must reach to be growing: a server that
/// settles (a pool filled, a JIT done) rises once and stays.
pub const MEMORY_GROWTH_RATIO: f64 = 1.5;
/// The least the memory must have grown by (bytes): below, half again of a small server is
/// noise of its allocator, not a leak a reader must see.
pub const MEMORY_GROWTH_BYTES: u64 = 64 << 20;

/// Whether a server's memory kept growing through a cell (flag `memory_growing`), from the
/// resident memory of its process tree averaged over each slice, in the order measured: no
/// slice below the one before, and the last at least [`MEMORY_GROWTH_RATIO`] times the first
/// and [`MEMORY_GROWTH_BYTES`] above it, over at least [`MEMORY_GROWTH_SLICES`] slices. A slice
/// with no reading (0: a server on another host) leaves it unjudged. Each server process of a
/// cell (`--restarts`) is judged over its own slices.
pub fn memory_kept_growing(per_slice: &[u64]) -> bool {
    let (Some(&first), Some(&last)) = (per_slice.first(), per_slice.last()) else {
        return false;
    };
    per_slice.len() >= MEMORY_GROWTH_SLICES
        && per_slice.iter().all(|&b| b > 0)
        && per_slice.windows(2).all(|w| w[1] >= w[0])
        && last as f64 >= first as f64 * MEMORY_GROWTH_RATIO
        && last - first >= MEMORY_GROWTH_BYTES
}

/// The most a cell's failed requests may be of all it sent before the cell fails: beyond half,
/// its figures describe the errors, not the server.
pub const ERROR_SHARE_LIMIT: f64 = 0.5;

/// Why a measured cell cannot stand as "ok", if it cannot: a slice that answered nothing (the
/// server stopped answering: stopped, hung, or gone with its port still open), or most requests
/// failed. `database` is how the run's database ended, when the cell queries one and it did:
/// then that is the reason.
pub fn not_answering(cell: &Cell, database: Option<&str>) -> Option<String> {
    let failed = cell.errors.total();
    // An answer with a failing status (a 503 while the database is gone) is among the answered
    // `requests` already; the other errors (connect, reset, timeout …) got no answer.
    let sent = cell.requests + failed.saturating_sub(cell.errors.status);
    let silent = cell
        .repeats
        .iter()
        .enumerate()
        .filter(|(_, r)| r.saturation != Some(Saturation::Contended))
        .find(|(_, r)| r.requests == 0)
        .map(|(i, _)| i + 1);
    let mostly_errors = sent > 0 && failed as f64 > ERROR_SHARE_LIMIT * sent as f64;
    if silent.is_none() && !mostly_errors {
        return None;
    }
    let seen = if let Some(slice) = silent {
        format!(
            "slice {slice} of {} had no answer ({} answered, {failed} failed in all)",
            cell.repeats.len(),
            cell.requests
        )
    } else {
        format!("{failed} of {sent} requests failed")
    };
    Some(match database {
        Some(end) => format!("the database went away (PostgreSQL {end}): {seen}"),
        None if silent.is_some() => format!("the server stopped answering: {seen}"),
        None => format!("most requests failed: {seen}"),
    })
}

/// The 95 % intervals of a cell's counted repeats (not contended): req/s, p99 and CPU µs per
/// request; `None` with fewer than two.
pub fn intervals(repeats: &[RepeatResult]) -> Option<CellIntervals> {
    let counted: Vec<&RepeatResult> = repeats
        .iter()
        .filter(|r| r.saturation.is_none_or(Saturation::counts))
        .collect();
    let values =
        |f: &dyn Fn(&RepeatResult) -> f64| -> Vec<f64> { counted.iter().map(|r| f(r)).collect() };
    let rps = log_interval(&values(&|r| r.rps))?;
    Some(CellIntervals {
        rps,
        p99_us: log_interval(&values(&|r| r.latency_us.p99 as f64)),
        cpu_us_per_req: log_interval(&values(&cpu_us_per_req)),
        rounds: counted.len() as u32,
        contended_rounds: (repeats.len() - counted.len()) as u32,
    })
}

/// Server CPU µs per answered request of one repeat.
pub fn cpu_us_per_req(r: &RepeatResult) -> f64 {
    if r.requests == 0 {
        return 0.0;
    }
    r.server_cpu_cores * r.duration_s * 1e6 / r.requests as f64
}

/// The sums and series over a cell's repeats.
struct Totals {
    merged: hdrhistogram::Histogram<u64>,
    errors: ErrorCounts,
    rps: Vec<f64>,
    requests: u64,
    bytes: u64,
    bytes_per_s: Vec<f64>,
    server_cpu: f64,
    server_time: f64,
    loadgen_cpu: f64,
    rss_peak: u64,
    rss_means: Vec<f64>,
    proc_cpu: f64,
    cpu_source: UsageSource,
    cg_peak: Option<u64>,
    cg_means: Vec<f64>,
    /// The server process of each counted repeat.
    processes: Vec<u32>,
}

impl Totals {
    /// Adds up the repeats, each also written into `cell.repeats`.
    fn of(m: &Measurement, cell: &mut Cell) -> Self {
        let mut t = Totals {
            merged: new_latency_histogram(),
            errors: ErrorCounts::default(),
            rps: Vec::new(),
            requests: 0,
            bytes: 0,
            bytes_per_s: Vec::new(),
            server_cpu: 0.0,
            server_time: 0.0,
            loadgen_cpu: 0.0,
            rss_peak: 0,
            rss_means: Vec::new(),
            proc_cpu: 0.0,
            cpu_source: UsageSource::Cgroup,
            cg_peak: None,
            cg_means: Vec::new(),
            processes: Vec::new(),
        };
        // A contended slice is kept in the repeats but left out of the figures, unless no
        // slice counts (the cell is then flagged and never ranked).
        let any_counts = m.repeats.iter().any(|r| r.counts());
        for (i, slice) in m.repeats.iter().enumerate() {
            let (outcome, sample) = (&slice.outcome, &slice.sample);
            let secs = outcome.duration.as_secs_f64().max(1e-9);
            cell.repeats.push(RepeatResult {
                rps: outcome.rps(),
                requests: outcome.answered,
                duration_s: secs,
                latency_us: LatencySummary::from_histogram(&outcome.latency),
                errors: outcome.errors,
                server_cpu_cores: sample.cpu.as_secs_f64() / secs,
                loadgen_cpu_cores: (outcome.cpu_user + outcome.cpu_system).as_secs_f64() / secs,
                round: slice.round,
                saturation: slice.saturation,
                timeseries: outcome.seconds(),
            });
            if any_counts && !slice.counts() {
                continue;
            }
            t.processes.push(m.processes.get(i).copied().unwrap_or(0));
            let _ = histogram::merge(&mut t.merged, &outcome.latency);
            let e = outcome.errors;
            t.errors += e;
            t.rps.push(outcome.rps());
            t.requests += outcome.answered;
            t.bytes += outcome.bytes;
            t.bytes_per_s
                .push(outcome.bytes as f64 / outcome.duration.as_secs_f64().max(1e-9));
            t.server_cpu += sample.cpu.as_secs_f64();
            t.proc_cpu += sample.proc_cpu.as_secs_f64();
            if sample.cpu_source == UsageSource::Proc {
                t.cpu_source = UsageSource::Proc;
            }
            t.server_time += secs;
            t.loadgen_cpu += (outcome.cpu_user + outcome.cpu_system).as_secs_f64();
            t.rss_peak = t.rss_peak.max(sample.memory.rss_peak);
            t.rss_means.push(sample.memory.rss_mean as f64);
            if let Some(p) = sample.memory.cgroup_peak {
                t.cg_peak = Some(t.cg_peak.unwrap_or(0).max(p));
            }
            if let Some(m) = sample.memory.cgroup_mean {
                t.cg_means.push(m as f64);
            }
        }
        t
    }

    /// `cpu` seconds per answered request, in µs.
    fn per_request(&self, cpu: f64) -> f64 {
        if self.requests > 0 {
            cpu * 1e6 / self.requests as f64
        } else {
            0.0
        }
    }

    fn server_usage(&self, limit: &CellPlacement) -> ServerUsage {
        ServerUsage {
            cpu_cores: self.server_cpu / self.server_time.max(1e-9),
            cpu_us_per_req: self.per_request(self.server_cpu),
            rss_peak_bytes: self.rss_peak,
            rss_mean_bytes: stats::mean(&self.rss_means) as u64,
            cpu_limit_cores: limit.cpu_quota_cores,
            cpu_source: self.cpu_source,
            proc_cpu_cores: Some(self.proc_cpu / self.server_time.max(1e-9)),
            cgroup_memory_peak_bytes: self.cg_peak,
            cgroup_memory_mean_bytes: (!self.cg_means.is_empty())
                .then(|| stats::mean(&self.cg_means) as u64),
        }
    }
}

/// Repeats whose coefficient of variation passes this are flagged `noisy`: beyond 10 % the
/// spread is larger than most differences a reader would act on.
pub const NOISY_CV: f64 = 0.10;

/// A `delay` cell whose fastest counted answer came sooner than its wait, less a timer's
/// granularity ([`restbench_model::DELAY_TIMER_SLACK_US`]: libuv starts a timer from the loop's
/// cached clock, so node-http answered a 10 ms wait after 9.77 ms here): the verifier's few
/// requests found the server waiting, the load's did not always.
pub fn answered_early(workload: &str, min_latency_us: u64, requests: u64) -> bool {
    let wait_us = u64::from(restbench_model::DELAY_MS) * 1000;
    workload == Workload::Delay.name()
        && requests > 0
        && min_latency_us < wait_us.saturating_sub(restbench_model::DELAY_TIMER_SLACK_US)
}

/// The flags a reader must see, from the cell's filled figures.
fn raise_flags(cell: &mut Cell, client_bound: bool, limit: &CellPlacement, warmup_settled: bool) {
    if client_bound {
        cell.raise(Flag::ClientBound);
    }
    if cell.rps.cv > NOISY_CV {
        cell.raise(Flag::Noisy);
    }
    if !limit_held(cell.server.cpu_cores, limit.allowed_cores) {
        cell.raise(Flag::LimitNotHeld);
    }
    if !warmup_settled {
        cell.raise(Flag::WarmupUnsettled);
    }
    if cell.errors.total() > 0 {
        cell.raise(Flag::Errors);
    }
    if cell.findings.iter().any(|f| f.level == FindingLevel::Warn) {
        cell.raise(Flag::VerificationWarnings);
    }
}

/// Adds a cell's open-loop measures. A cell measured only open loop takes its placement and
/// warm-up from here; its closed-loop figures stay empty (no repeats).
pub fn fill_open_loop(cell: &mut Cell, r: OpenLoopResult, limit: &CellPlacement) {
    if let Some((spent, settled)) = r.warmup {
        cell.placement = limit.clone();
        cell.warmup_s = spent.as_secs_f64();
        if !settled {
            cell.raise(Flag::WarmupUnsettled);
        }
        if cell.findings.iter().any(|f| f.level == FindingLevel::Warn) {
            cell.raise(Flag::VerificationWarnings);
        }
    }
    cell.capacity = r.capacity;
    cell.at_rate = r.at_rate;
}

/// The generator, not the server, set the rate: it saturated its CPUs, or the rate came within
/// 10 % of the generator's calibrated ceiling. A rate above the ceiling proves that calibration
/// wrong: it never flags on a ceiling a cell has beaten.
pub fn is_client_bound(
    rps: f64,
    loadgen_cores: f64,
    placement: &Placement,
    ceiling_rps: Option<f64>,
) -> bool {
    // No local generator CPUs: the generators ran on other hosts, their saturation is theirs.
    let saturated = !placement.shared
        && !placement.loadgen.is_empty()
        && loadgen_cores >= SATURATED_FRACTION * placement.loadgen.len() as f64;
    let near_ceiling =
        ceiling_rps.is_some_and(|c| c > 0.0 && rps >= GENERATOR_BOUND_FRACTION * c && rps <= c);
    saturated || near_ceiling
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_loop_figures_land_in_the_cell_and_old_cells_still_read() {
        use restbench_model::{CellSubject, RateStep, Scenario, Workload};
        let mut cell = Cell::new(
            &CellSubject::named("demo"),
            Workload::Plaintext,
            Scenario::SingleThread,
        );
        let old = serde_json::to_value(&cell).unwrap();
        assert!(old.get("capacity").is_none() && old.get("at_rate").is_none());
        let back: Cell = serde_json::from_value(old).unwrap();
        assert_eq!(back, cell);
        let step = RateStep {
            target_rps: 20_000.0,
            achieved_rps: 15_000.0,
            duration_s: 1.0,
            sent: 15_000,
            requests: 15_000,
            errors: ErrorCounts::default(),
            errors_percent: 0.0,
            latency_us: LatencySummary::default(),
            pass: false,
            failed: vec!["held 75.0% of the target rate".into()],
            loadgen_cpu_cores: 0.3,
            generator_saturated: false,
            max_schedule_lag_us: 0,
            histogram: String::new(),
            server: None,
        };
        let limit = CellPlacement {
            enforcement: "pinned".into(),
            ..CellPlacement::default()
        };
        let r = OpenLoopResult {
            capacity: None,
            at_rate: vec![step.clone()],
            warmup: Some((std::time::Duration::from_secs(2), false)),
        };
        fill_open_loop(&mut cell, r, &limit);
        assert_eq!(cell.at_rate, vec![step]);
        assert_eq!(cell.placement.enforcement, "pinned");
        assert!(cell.has_flag(Flag::WarmupUnsettled));
        let json = serde_json::to_value(&cell).unwrap();
        assert_eq!(json["at_rate"][0]["target_rps"], 20_000.0);
        assert_eq!(json["at_rate"][0]["achieved_rps"], 15_000.0);
        assert_eq!(json["at_rate"][0]["pass"], false);
    }

    #[test]
    fn memory_that_rose_through_every_slice_by_half_and_64_mib_is_growing() {
        const MIB: u64 = 1 << 20;
        // The server of the issue: 40 MiB, then steadily up to 2.1 GiB.
        assert!(memory_kept_growing(&[
            40 * MIB,
            600 * MIB,
            1300 * MIB,
            2150 * MIB
        ]));
        // Just at both bounds.
        assert!(memory_kept_growing(&[128 * MIB, 150 * MIB, 192 * MIB]));
        // Flat at the end still counts as never falling.
        assert!(memory_kept_growing(&[100 * MIB, 200 * MIB, 200 * MIB]));
        for (not, why) in [
            (
                vec![100 * MIB, 180 * MIB, 170 * MIB, 300 * MIB],
                "fell once",
            ),
            (vec![128 * MIB, 150 * MIB, 191 * MIB], "under 1.5 times"),
            (
                vec![20 * MIB, 40 * MIB, 80 * MIB],
                "4 times, but only 60 MiB more",
            ),
            (
                vec![2000 * MIB, 2500 * MIB, 2900 * MIB],
                "900 MiB more, but under 1.5 times",
            ),
            (vec![40 * MIB, 400 * MIB], "two slices are one step"),
            (vec![40 * MIB, 0, 400 * MIB], "a slice without a reading"),
            (vec![300 * MIB, 30 * MIB, 60 * MIB], "fell at the start"),
            (vec![], "no slices"),
        ] {
            assert!(!memory_kept_growing(&not), "{why}: {not:?}");
        }
    }

    #[test]
    fn a_silent_slice_or_mostly_errors_fail_the_cell_and_a_dead_database_is_named() {
        let slice = |requests: u64| RepeatResult {
            rps: requests as f64,
            requests,
            duration_s: 1.0,
            latency_us: Default::default(),
            errors: Default::default(),
            server_cpu_cores: 0.1,
            loadgen_cpu_cores: 0.1,
            timeseries: Vec::new(),
            round: None,
            saturation: Some(Saturation::Server),
        };
        let mut cell = restbench_testkit::fixtures::cell("s", 1000.0);
        cell.repeats = vec![slice(1000), slice(1000)];
        assert_eq!(not_answering(&cell, None), None, "a healthy cell stands");
        cell.repeats.push(slice(0));
        let why = not_answering(&cell, None).unwrap();
        assert!(
            why.starts_with("the server stopped answering: slice 3 of 3"),
            "{why}"
        );
        // The users cells of a run whose database was killed: most requests failed, with 503s,
        // which are answers (counted in `requests`) as well as errors.
        cell.repeats.pop();
        cell.requests = 3274;
        cell.errors.status = 2763;
        let why = not_answering(&cell, Some("killed by SIGKILL")).unwrap();
        assert_eq!(
            why,
            "the database went away (PostgreSQL killed by SIGKILL): 2763 of 3274 requests failed"
        );
        // Every answer a 503 (a run the old rule let stand: half of answers plus errors).
        cell.requests = 48194;
        cell.errors.status = 48194;
        assert_eq!(
            not_answering(&cell, None).unwrap(),
            "most requests failed: 48194 of 48194 requests failed"
        );
        // Errors without an answer add to what was sent.
        cell.requests = 100;
        cell.errors.status = 0;
        cell.errors.reset = 101;
        assert!(
            not_answering(&cell, None)
                .unwrap()
                .ends_with("101 of 201 requests failed")
        );
        cell.errors.reset = 99;
        assert_eq!(not_answering(&cell, None), None, "99 of 199 is not most");
    }

    #[test]
    fn a_delay_answer_sooner_than_its_wait_is_early_and_no_other_workload_is() {
        assert!(answered_early("delay", 2_000, 100));
        assert!(!answered_early("delay", 10_050, 100));
        assert!(
            !answered_early("delay", 9_950, 100),
            "within the timer's slack"
        );
        assert!(
            !answered_early("delay", 0, 0),
            "no answer is not an early one"
        );
        assert!(!answered_early("plaintext", 50, 100));
    }

    #[test]
    fn client_bound_by_saturation_or_by_the_ceiling() {
        let p = Placement::split(&[0, 1]);
        assert!(
            is_client_bound(1000.0, 0.95, &p, None),
            "saturated generator"
        );
        assert!(!is_client_bound(1000.0, 0.5, &p, None));
        assert!(
            is_client_bound(95_000.0, 0.5, &p, Some(100_000.0)),
            "near ceiling"
        );
        assert!(!is_client_bound(50_000.0, 0.5, &p, Some(100_000.0)));
        assert!(
            !is_client_bound(138_164.0, 0.5, &p, Some(93_592.0)),
            "a cell faster than the ceiling proves the calibration wrong"
        );
        // Sharing one CPU, saturation says nothing about who limited whom.
        let shared = Placement::split(&[0]);
        assert!(!is_client_bound(1000.0, 1.0, &shared, None));
    }
}
