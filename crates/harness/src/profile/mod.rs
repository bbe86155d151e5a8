//! A cell's profiling slice: after the measured repeats, the same load again for a few seconds
//! while `perf` samples the server (`cpu-clock` with call graphs), counts its system calls and
//! reads its context switches and page faults; the samples folded (inferno) and classified into
//! the CPU split. Nothing here touches the measured figures: a runtime that needs flags to be
//! profiled (the JVM, Node, .NET) gets a server started for the slice, and the cell's own
//! server is started again afterwards, unflagged, for the cells that follow.
//!
//! - `perf.rs`: perf itself (availability, record, stat, script);
//! - `counters.rs`: /proc's context switches and faults of the server's process group;
//! - `runtime.rs`: each language's flags and the symbol table of its runtime;
//! - `fold.rs`: folding (inferno) and the split.

pub mod counters;
pub mod fold;
pub mod perf;
pub mod runtime;

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use restbench_loadgen::{LoadOutcome, LoadSpec, Progress, StopAt, Target};
use restbench_model::{CellProfile, Scenario, encode_folded};

use crate::HarnessError;
use crate::events::Events;
use crate::serve::start::{RunningSubject, StartOptions, restart_subject};
use restbench_host::placement::pin_current_thread;
use restbench_subject::Subject;

pub use perf::{Availability, availability};

/// Why a cell has no profile.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    #[error("profiling is not available: {0}")]
    Unavailable(String),
    #[error("could not start {what}")]
    Spawn {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("perf record wrote nothing ({status}): {log}")]
    Record { status: String, log: String },
    #[error("perf script failed ({0})")]
    Script(String),
    #[error("folding the samples failed")]
    Fold(#[source] std::io::Error),
    #[error("the profiling slice's load or server failed")]
    Harness(#[source] Box<HarnessError>),
    #[error("perf took no sample of the server: was it idle?")]
    NoSamples,
}

impl From<HarnessError> for ProfileError {
    fn from(e: HarnessError) -> Self {
        ProfileError::Harness(Box::new(e))
    }
}

/// The server a slice profiles, and how to start it again.
pub struct ProfiledServer<'a> {
    pub server: &'a mut RunningSubject,
    pub subject: &'a Subject,
    pub scenario: Scenario,
    pub options: &'a StartOptions<'a>,
}

/// The load of a slice and where the generator runs.
pub struct Slice<'a> {
    /// The cell's load; its stop becomes the slice's duration, its target the server's address.
    pub spec: &'a LoadSpec,
    pub loadgen_cpus: &'a [usize],
    pub duration: Duration,
    /// A discarded load before the slice (zero after a cell's measured repeats).
    pub warmup: Duration,
    pub stop: &'a AtomicBool,
    pub observer: &'a Events<'a>,
}

/// A slice's folded stacks and what they hold, plus the raw files of the recording.
pub struct SliceOutcome {
    pub profile: CellProfile,
    pub folded: String,
    /// `perf script`'s own text, for other tools.
    pub script: String,
}

/// Profiles one cell: a slice of its load under perf. See the module doc.
pub fn profile_cell(
    target: &mut ProfiledServer,
    slice: &Slice,
) -> Result<CellProfile, ProfileError> {
    profile_slice(target, slice).map(|outcome| outcome.profile)
}

/// [`profile_cell`], keeping the folded text (for `restbench profile`'s files).
pub fn profile_slice(
    target: &mut ProfiledServer,
    slice: &Slice,
) -> Result<SliceOutcome, ProfileError> {
    let found = availability(target.options.backend.kind);
    if !found.usable {
        return Err(ProfileError::Unavailable(found.detail));
    }
    if target.server.remote.is_some() {
        return Err(ProfileError::Unavailable(
            "the server runs on another host (--server-host)".into(),
        ));
    }
    let runtime = runtime::for_language(&target.subject.language);
    if !runtime.needs_restart() {
        return record_slice(target.server, &runtime, slice, slice.warmup);
    }
    let flagged = flagged_subject(target.subject, &runtime);
    if let Err(e) = restart_subject(target.server, &flagged, target.scenario, target.options) {
        // The cells that follow still need the cell's own server.
        restart_subject(
            target.server,
            target.subject,
            target.scenario,
            target.options,
        )?;
        return Err(e.into());
    }
    // A fresh JIT runtime: warm it up until its rate settles, then profile.
    let floor = slice
        .warmup
        .max(slice.duration)
        .max(Duration::from_secs(10));
    let outcome = warm_jit(target.server, slice, floor)
        .and_then(|()| record_slice(target.server, &runtime, slice, Duration::ZERO));
    let pids = counters::group_pids(target.server.child.pgid());
    restart_subject(
        target.server,
        target.subject,
        target.scenario,
        target.options,
    )?;
    for pid in pids {
        let _ = std::fs::remove_file(format!("/tmp/perf-{pid}.map"));
    }
    outcome
}

/// One step of a restarted JIT runtime's warm-up after its floor.
const JIT_WARMUP_STEP: Duration = Duration::from_secs(2);

/// The longest a restarted JIT runtime is warmed before its slice, floor included.
const JIT_WARMUP_MAX: Duration = Duration::from_secs(30);

/// A restarted JIT runtime's warm-up: `floor`, then [`JIT_WARMUP_STEP`] loads until two in a
/// row agree as a cell's own warm-up is judged ([`warmup_settled`]), up to [`JIT_WARMUP_MAX`].
/// A fixed 10 s left Jersey's C2 compiler in 36 % of the samples on one core; a profile still
/// compiling after this is flagged in the reports.
///
/// [`warmup_settled`]: crate::runner::measure::warmup_settled
fn warm_jit(server: &RunningSubject, slice: &Slice, floor: Duration) -> Result<(), ProfileError> {
    run_load(&with_server(slice.spec, server, floor)?, slice)?;
    let (mut spent, mut previous) = (floor, None::<f64>);
    while spent + JIT_WARMUP_STEP <= JIT_WARMUP_MAX
        && !slice.stop.load(std::sync::atomic::Ordering::Relaxed)
    {
        let rate = run_load(&with_server(slice.spec, server, JIT_WARMUP_STEP)?, slice)?.rps();
        spent += JIT_WARMUP_STEP;
        if previous.is_some_and(|p| crate::runner::measure::warmup_settled(p, rate)) {
            break;
        }
        previous = Some(rate);
    }
    Ok(())
}

/// The subject with `runtime`'s profiling environment added to its own.
fn flagged_subject(subject: &Subject, runtime: &runtime::RuntimeProfile) -> Subject {
    let mut flagged = subject.clone();
    for (key, value) in &runtime.env {
        let joined = match flagged.env.get(*key) {
            Some(own) if !own.is_empty() => format!("{own} {value}"),
            _ => (*value).to_string(),
        };
        flagged.env.insert((*key).into(), joined);
    }
    flagged
}

/// The slice itself against the running `server`.
fn record_slice(
    server: &mut RunningSubject,
    runtime: &runtime::RuntimeProfile,
    slice: &Slice,
    warmup: Duration,
) -> Result<SliceOutcome, ProfileError> {
    if !warmup.is_zero() {
        run_load(&with_server(slice.spec, server, warmup)?, slice)?;
    }
    let spec = with_server(slice.spec, server, slice.duration)?;
    let pids = counters::group_pids(server.child.pgid());
    let dirs = server
        .cgroup
        .as_ref()
        .map_or_else(Vec::new, |c| c.dirs().to_vec());
    let scope = perf::Scope::of(&dirs, pids.clone());
    let dir = tempfile::Builder::new()
        .prefix("restbench-profile-")
        .tempdir()
        .map_err(|e| ProfileError::Spawn {
            what: "a folder for perf's files".into(),
            source: e,
        })?;
    let before = counters::read(&pids);
    let recording = perf::Recording::start(&scope, runtime.call_graph, dir.path())?;
    // perf attaches to every thread before the load begins.
    std::thread::sleep(Duration::from_millis(300));
    let load = run_load(&spec, slice);
    let after = counters::read(&pids);
    let (data, syscalls) = recording.finish(dir.path())?;
    let outcome = load?;
    if runtime.jvm_perfmap {
        write_jvm_perfmaps(&pids);
    }
    let script = perf::script(&data)?;
    let folded = fold::fold(&script).map_err(ProfileError::Fold)?;
    let classified = fold::classify(&folded, runtime);
    let samples = perf::sample_count(&script);
    if classified.samples == 0 || samples == 0 {
        return Err(ProfileError::NoSamples);
    }
    let requests = outcome.answered.max(1) as f64;
    let delta = before.delta(&after);
    let per_request = |n: u64| Some(n as f64 / requests);
    let profile = CellProfile {
        rps: outcome.rps(),
        duration_s: outcome.duration.as_secs_f64(),
        samples,
        recorder: format!(
            "perf record -e cpu-clock --call-graph {} -F {} over {}",
            runtime.call_graph,
            perf::FREQUENCY_HZ,
            scope.describe()
        ),
        split: classified.split,
        top_symbols: classified.top_symbols,
        syscalls_per_request: syscalls.map(|n| n as f64 / requests),
        voluntary_switches_per_request: per_request(delta.voluntary_switches),
        involuntary_switches_per_request: per_request(delta.involuntary_switches),
        minor_faults_per_request: per_request(delta.minor_faults),
        major_faults_per_request: per_request(delta.major_faults),
        folded_gz: encode_folded(&folded),
        notes: runtime.note.map(String::from).into_iter().collect(),
    };
    Ok(SliceOutcome {
        profile,
        folded,
        script,
    })
}

/// `jcmd PID Compiler.perfmap` for each JVM among `pids`: it writes /tmp/perf-PID.map, which
/// `perf script` reads to name compiled Java frames.
fn write_jvm_perfmaps(pids: &[u32]) {
    for pid in pids {
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() == "java" {
            let _ = std::process::Command::new("jcmd")
                .arg(pid.to_string())
                .arg("Compiler.perfmap")
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .status();
        }
    }
}

/// `spec` aimed at `server`'s address (a restart moves it to a fresh port), for `duration`.
fn with_server(
    spec: &LoadSpec,
    server: &RunningSubject,
    duration: Duration,
) -> Result<LoadSpec, ProfileError> {
    let mut spec = spec.clone();
    let path = spec.target.path.clone();
    spec.target = Target::parse(&format!("http://{}{}", server.addr, path))
        .map_err(|e| ProfileError::from(HarnessError::from(e)))?;
    spec.stop = StopAt::Duration(duration);
    spec.warmup = Duration::ZERO;
    Ok(spec)
}

/// One load on the generator's CPUs.
fn run_load(spec: &LoadSpec, slice: &Slice) -> Result<LoadOutcome, ProfileError> {
    let progress = Arc::new(Progress::default());
    let started = Instant::now();
    std::thread::scope(|scope| {
        let handle = scope.spawn(|| {
            let _ = pin_current_thread(slice.loadgen_cpus);
            restbench_loadgen::run(spec, slice.stop, progress.clone())
        });
        while !handle.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            let fraction = started.elapsed().as_secs_f64() / slice.duration.as_secs_f64().max(0.1);
            slice
                .observer
                .emit(crate::events::RunEvent::LoadProgress(fraction.min(1.0)));
        }
        handle
            .join()
            .map_err(|_| HarnessError::Load(restbench_loadgen::LoadError::ThreadPanicked))?
            .map_err(|e| ProfileError::from(HarnessError::from(e)))
    })
}

/// Writes a profile folder: the folded stacks (`stacks.folded`) beside what `restbench profile`
/// adds to it.
pub fn write_folded(dir: &Path, folded: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("stacks.folded"), folded)
}
