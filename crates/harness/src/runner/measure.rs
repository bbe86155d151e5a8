//! The loads of one cell: the warm-up (discarded; time slices repeat until the rate settles,
//! capped), the re-warm slice of a round, and a measured slice with the server's CPU and memory
//! over the same interval. The rounds that order them are [`super::rounds`].

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use restbench_loadgen::{HttpVersion, LoadOutcome, LoadSpec, Progress, StopAt, Target};
use restbench_model::{Protocol, Saturation, ShardSummary};

use super::cell::CellRun;
use super::plan::RunPlan;
use crate::HarnessError;
use crate::events::{Events, RunEvent};
use crate::serve::RunningSubject;
use restbench_host::placement::{Placement, pin_current_thread};
use restbench_host::sample::ServerSample;
use restbench_verify::requests;

/// What the repeats of one cell measured: its slices, one per round it was measured in.
pub struct Measurement {
    pub repeats: Vec<Slice>,
    /// How long the time warm-up ran before the rate settled (zero for a warm-up by count).
    pub warmup: Duration,
    /// False when the time warm-up reached its cap with the rate still changing.
    pub warmup_settled: bool,
    /// With remote generators: each repeat's hosts, their shares and CPU.
    pub generators: Vec<Vec<ShardSummary>>,
    /// The server process (0, 1, … in start order) each repeat ran against.
    pub processes: Vec<u32>,
}

/// One measured slice of a cell: the load, the server's usage over it, the round it belonged
/// to and what limited it.
pub struct Slice {
    pub outcome: LoadOutcome,
    pub sample: ServerSample,
    pub round: Option<u32>,
    /// `None` where it cannot be judged (a server on another host, one CPU for both sides).
    pub saturation: Option<Saturation>,
    /// Why the slice does not count, in words, when it does not: who took the CPU, or which
    /// side failed to show it was the bound.
    pub contention: Option<String>,
    /// When the measured slice began and ended, in seconds since the Unix epoch (when judged).
    pub window: Option<(f64, f64)>,
}

impl Slice {
    /// Whether the slice counts in the cell's figures (it was not contended).
    pub fn counts(&self) -> bool {
        self.saturation.is_none_or(Saturation::counts)
    }
}

/// The server process (from 0) repeat `i` of `repeats` runs in, with the repeats split as evenly
/// as they go over `processes` consecutive groups (the earlier groups never larger).
pub fn process_of_repeat(i: u32, repeats: u32, processes: u32) -> u32 {
    let processes = processes.clamp(1, repeats.max(1));
    (u64::from(i) * u64::from(processes) / u64::from(repeats.max(1))) as u32
}

/// The load of one cell (request, connections, threads) with the run's shape; `stop` is the
/// shape's, set by each caller. h2c is HTTP/2 with prior knowledge on `http://`; the shape's
/// requests in flight per connection (`pipeline`) become concurrent streams, so both protocols
/// keep the same number of requests outstanding.
pub(crate) fn cell_spec(cell: &CellRun) -> Result<LoadSpec, HarnessError> {
    let (plan, w, protocol) = (cell.plan, cell.workload, cell.protocol);
    let url = format!("http://{}{}", cell.server.addr, w.path());
    let mut spec = plan.shape.spec(Target::parse(&url)?);
    spec.method = w.method().into();
    spec.headers = requests::headers(w);
    spec.body = requests::body(w);
    // Only plaintext is pipelined (as TechEmpower loads it); its cells are labelled apart.
    spec.pipeline = w.pipeline_under(plan.shape.pipeline);
    // A slow handler is loaded with thousands of waiting connections, whatever the run's count.
    spec.connections = w.connections_under(spec.connections);
    // Static files are asked for in the tree's seeded mix, not one path.
    if w.rotates() {
        spec.path_mix = Some(std::sync::Arc::new(requests::path_mix(w)));
    }
    if protocol == Protocol::H2c {
        spec.http_version = HttpVersion::Http2;
        spec.max_streams = spec.pipeline.max(1);
        spec.pipeline = 1;
    }
    Ok(spec)
}

/// The discarded warm-up: by request count on one connection, or time slices repeated until two
/// agree (capped). Returns the time spent and whether the rate settled; an interrupt ends it
/// early (the caller sees the stop flag).
pub(crate) fn warm_up(cell: &CellRun, spec: &LoadSpec) -> Result<(Duration, bool), HarnessError> {
    warm_up_at(cell, spec).map(|(spent, settled, _)| (spent, settled))
}

/// [`warm_up`], with the rate of its last time slice (`0.0` for a warm-up by count): what a
/// group's reference is chosen by.
pub(crate) fn warm_up_at(
    cell: &CellRun,
    spec: &LoadSpec,
) -> Result<(Duration, bool, f64), HarnessError> {
    let (plan, stop, observer) = (cell.plan, cell.stop, cell.observer);
    let mut warmup_spent = Duration::ZERO;
    let mut settled = true;
    let mut last_rate = 0.0;
    if let Some(n) = plan.shape.warmup_requests {
        let mut warm = spec.clone();
        warm.connections = 1;
        warm.threads = 1;
        warm.stop = StopAt::Requests(n);
        load_once(plan, &warm, stop, observer)?;
    } else if !plan.shape.warmup.is_zero() {
        let mut warm = spec.clone();
        warm.stop = StopAt::Duration(plan.shape.warmup);
        let mut previous: Option<f64> = None;
        let mut spent = Duration::ZERO;
        loop {
            let Some((outcome, _)) = load_once(plan, &warm, stop, observer)? else {
                break;
            };
            let rate = outcome.rps();
            last_rate = rate;
            spent += plan.shape.warmup;
            settled = previous.is_some_and(|p| warmup_settled(p, rate));
            if settled
                || spent + plan.shape.warmup > plan.shape.warmup_max
                || stop.load(Ordering::Relaxed)
            {
                break;
            }
            previous = Some(rate);
        }
        // A single slice (cap ≤ one slice) was all the user asked for: nothing to judge.
        settled |= previous.is_none();
        warmup_spent = spent;
    }
    Ok((warmup_spent, settled, last_rate))
}

/// The short slice before a round's measured one, discarded: caches and connections warm
/// again after the other subjects' slices.
pub(crate) fn rewarm(cell: &CellRun, spec: &LoadSpec, d: Duration) -> Result<(), HarnessError> {
    if d.is_zero() {
        return Ok(());
    }
    let mut warm = spec.clone();
    warm.stop = StopAt::Duration(d);
    load_once(cell.plan, &warm, cell.stop, cell.observer).map(|_| ())
}

/// An error when the server has exited.
pub(crate) fn check_alive(cell: &mut CellRun) -> Result<(), HarnessError> {
    let server = &mut *cell.server;
    match server.child.exited() {
        Some(status) => Err(HarnessError::ExitedDuringLoad {
            subject: cell.subject.id.clone(),
            status: status.to_string(),
            tail: server.child.log_tail(12),
        }),
        None => Ok(()),
    }
}

/// How long a server whose load failed is watched for its exit: a server that dies refuses
/// connections a moment before it can be reaped, and its exit status says more than "cannot
/// connect".
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(1);

/// The server of `cell` gone, in words, if it is: exited (its status and last lines), or a
/// process of its group stopped (SIGSTOP, a debugger): the server stopped answering.
pub(crate) fn server_gone(cell: &mut CellRun) -> Option<String> {
    if let Some(killed) = killed_at_memory_limit(cell.server) {
        return Some(killed);
    }
    if let Err(exited) = check_alive(cell) {
        return Some(restbench_host::error::chain(&exited));
    }
    let pgid = cell.server.child.pgid();
    let states: Vec<char> = restbench_host::procfs::pids()
        .into_iter()
        .filter_map(restbench_host::procfs::stat)
        .filter(|&(_, _, group)| group == pgid)
        .map(|(_, state, _)| state)
        .collect();
    // A shell that waits for the server is not stopped with it: any stopped process of the
    // group is the server's.
    let stopped = states.iter().filter(|s| matches!(s, 'T' | 't')).count();
    (stopped > 0).then(|| {
        format!(
            "the server stopped answering: {stopped} of the {} processes of {} are stopped \
             (state T), their connections open but unread",
            states.len(),
            cell.subject.id
        )
    })
}

/// The server killed by the kernel's OOM killer at the memory limit its cgroup was given, in
/// words, if it was: `killed at its memory limit of 512 MiB (…)`. The kill is read from the
/// cgroup's own count, so it names the limit even when the server's exit says only SIGKILL.
pub(crate) fn killed_at_memory_limit(server: &RunningSubject) -> Option<String> {
    let limit = server.limit.memory_limit_bytes?;
    let kills = server.cgroup.as_ref()?.oom_kills().filter(|&n| n > 0)?;
    let processes = if kills == 1 {
        "1 of its processes".to_string()
    } else {
        format!("{kills} of its processes")
    };
    Some(format!(
        "killed at its memory limit of {}: the kernel's OOM killer ended {processes} \
         (oom_kill in its cgroup's memory events)",
        restbench_model::documents::io::size_words(limit)
    ))
}

/// Why a load of `cell` failed: the server's end ([`server_gone`]) when it is gone or goes
/// within [`EXIT_GRACE`], else the load's own error.
pub(crate) fn load_failure(cell: &mut CellRun, e: &HarnessError) -> String {
    let deadline = Instant::now() + EXIT_GRACE;
    loop {
        if let Some(gone) = server_gone(cell) {
            return gone;
        }
        if Instant::now() >= deadline {
            return restbench_host::error::chain(e);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// One load with the server's CPU and memory over the same interval, read where the server
/// runs ([`ServerLocation::sampled_load`]), and, with remote generators, each host's share.
/// `None` when interrupted while remote shards ran.
pub(crate) fn measured_load(
    cell: &CellRun,
    spec: &LoadSpec,
) -> Result<Option<(LoadOutcome, ServerSample, Vec<ShardSummary>)>, HarnessError> {
    let mut load = || load_once(cell.plan, spec, cell.stop, cell.observer);
    cell.location
        .sampled_load(cell.server, spec.warmup, cell.stop, &mut load)
}

/// One load: on the generator's CPUs here, or split over the remote generators and merged
/// (then with each host's share). `None` when interrupted while remote shards ran.
fn load_once(
    plan: &RunPlan,
    spec: &LoadSpec,
    stop: &AtomicBool,
    observer: &Events,
) -> Result<Option<(LoadOutcome, Vec<ShardSummary>)>, HarnessError> {
    let Some(remote) = &plan.remote else {
        return run_load(spec, &plan.placement, stop, observer).map(|o| Some((o, Vec::new())));
    };
    let Some(load) = remote.run(spec, stop)? else {
        return Ok(None);
    };
    let outcome = LoadOutcome::from_result(&load.merged)?;
    Ok(Some((outcome, load.merged.shards)))
}

/// Runs one load on the generator's CPUs.
pub(crate) fn run_load(
    spec: &LoadSpec,
    placement: &Placement,
    stop: &AtomicBool,
    observer: &Events,
) -> Result<LoadOutcome, HarnessError> {
    let mut outcomes = run_loads_together(std::slice::from_ref(spec), placement, stop, observer)?;
    Ok(outcomes.remove(0))
}

/// Several loads at once (a duet round's slices), each its own generator run (own threads and
/// connections) on the generator's CPUs, with the progress of the slowest told as it goes.
/// Their outcomes in the order of `specs`, one each.
pub(crate) fn run_loads_together(
    specs: &[LoadSpec],
    placement: &Placement,
    stop: &AtomicBool,
    observer: &Events,
) -> Result<Vec<LoadOutcome>, HarnessError> {
    let started = Instant::now();
    let progress: Vec<Arc<Progress>> = specs.iter().map(|_| Arc::default()).collect();
    let fraction = |spec: &LoadSpec, p: &Progress| match spec.stop {
        StopAt::Duration(d) => started.elapsed().as_secs_f64() / (d + spec.warmup).as_secs_f64(),
        StopAt::Requests(n) => p.answered.load(Ordering::Relaxed) as f64 / n as f64,
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = specs
            .iter()
            .zip(&progress)
            .map(|(spec, p)| {
                let (cpus, p) = (placement.loadgen.clone(), p.clone());
                scope.spawn(move || {
                    let _ = pin_current_thread(&cpus);
                    restbench_loadgen::run(spec, stop, p)
                })
            })
            .collect();
        while !handles.iter().all(|h| h.is_finished()) {
            std::thread::sleep(Duration::from_millis(100));
            let slowest = specs
                .iter()
                .zip(&progress)
                .map(|(spec, p)| fraction(spec, p))
                .fold(1.0, f64::min);
            observer.emit(RunEvent::LoadProgress(slowest.clamp(0.0, 1.0)));
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| HarnessError::Load(restbench_loadgen::LoadError::ThreadPanicked))?
                    .map_err(HarnessError::from)
            })
            .collect()
    })
}

/// Two warm-up slices in a row within this fraction of each other: the runtime has stopped
/// speeding up (a JIT still compiling moves more than 7 % from one slice to the next; the
/// machine's own noise between two adjacent slices rarely does).
pub const WARMUP_AGREEMENT: f64 = 0.07;

/// Two warm-up slices in a row within [`WARMUP_AGREEMENT`] of each other.
pub fn warmup_settled(previous: f64, now: f64) -> bool {
    (now - previous).abs() <= WARMUP_AGREEMENT * previous.max(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeats_split_evenly_over_processes() {
        let split = |r, p| {
            (0..r)
                .map(|i| process_of_repeat(i, r, p))
                .collect::<Vec<_>>()
        };
        assert_eq!(split(3, 1), vec![0, 0, 0], "the default: one process");
        assert_eq!(split(3, 2), vec![0, 0, 1]);
        assert_eq!(split(4, 2), vec![0, 0, 1, 1]);
        assert_eq!(split(3, 3), vec![0, 1, 2]);
        assert_eq!(split(2, 5), vec![0, 1], "never more processes than repeats");
        assert_eq!(split(6, 0), vec![0; 6], "0 counts as 1");
    }

    #[test]
    fn warm_up_settles_when_the_rate_stops_climbing() {
        assert!(!warmup_settled(1_000.0, 3_000.0), "a JIT still compiling");
        assert!(warmup_settled(10_000.0, 10_400.0));
        assert!(warmup_settled(10_000.0, 9_500.0));
        assert!(!warmup_settled(10_000.0, 8_000.0));
    }
}
