//! The run loop: for each subject and scenario, prepare → start → ready → verify → warm up →
//! measure N repeats → stop. Every finished cell is written to `results.json` at once, so an
//! interrupted run keeps what it finished.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use restbench_loadgen::{HttpVersion, LoadOutcome, LoadSpec, Progress, StopAt, Target};
use restbench_model::histogram::{self, new_latency_histogram};
use restbench_model::{
    Cell, CellPlacement, CellStatus, ErrorCounts, Finding, LatencySummary, LoadgenUsage,
    RepeatResult, RpsStats, RunProtocol, RunResults, SCHEMA_VERSION, ServerUsage, UsageSource,
};

use crate::cgroup::{Backend, ServerCgroup};
use crate::db::Database;
use crate::placement::{Placement, pin_current_thread};
use crate::prepare::{self, Prepared};
use crate::process::{self, ManagedChild, SpawnSpec};
use crate::sample::{MemorySampler, MemoryStats, group_usage};
use crate::subject::{Placeholders, Subject};
use crate::workload::Workload;
use crate::{HarnessError, environment, stats, verify};

/// The load shape of every cell.
#[derive(Debug, Clone)]
pub struct LoadShape {
    pub connections: u32,
    pub threads: u32,
    pub stop: StopAt,
    pub warmup: Duration,
    /// Time warm-ups repeat `warmup` until the rate settles, for at most this long in all: a JIT
    /// runtime is still speeding up well after the first seconds.
    pub warmup_max: Duration,
    /// A warm-up by request count on one connection (h2load's `-n100000 -c1`), instead of time.
    pub warmup_requests: Option<u64>,
    pub keepalive: bool,
    pub http_version: HttpVersion,
    pub timeout: Duration,
    pub pipeline: u32,
}

impl Default for LoadShape {
    fn default() -> Self {
        Self {
            connections: 10,
            threads: 2,
            stop: StopAt::Duration(Duration::from_secs(10)),
            warmup: Duration::from_secs(3),
            warmup_max: Duration::from_secs(30),
            warmup_requests: None,
            keepalive: true,
            http_version: HttpVersion::Http11,
            timeout: Duration::from_secs(2),
            pipeline: 1,
        }
    }
}

/// Everything a run needs, resolved.
pub struct RunPlan {
    pub kind: String,
    /// Subjects in order, each with its scenarios.
    pub entries: Vec<RunEntry>,
    pub workloads: Vec<Workload>,
    /// Load shape per workload (a study may differ from the default).
    pub shape: LoadShape,
    pub repeats: u32,
    pub out_dir: PathBuf,
    pub cache: PathBuf,
    pub placement: Placement,
    /// How scenarios are enforced and servers accounted.
    pub backend: Backend,
    /// The generator's ceiling (req/s against a trivial server on the server CPUs), if calibrated.
    pub loadgen_ceiling_rps: Option<f64>,
    pub database_url: Option<String>,
    pub db_pool_total: u32,
    /// A sentence for the report about how this run differs from the defaults.
    pub note: Option<String>,
    /// Set when the run is a seed study.
    pub study: Option<restbench_model::StudyInfo>,
}

/// A subject and the scenarios to run it in; a study may list one subject twice with different
/// settings (seed 000's GOMAXPROCS unset and =1).
#[derive(Debug, Clone)]
pub struct RunEntry {
    pub subject: Subject,
    pub scenarios: Vec<String>,
}

impl RunEntry {
    /// Every subject in every scenario, the plain `restbench run`.
    pub fn all(subjects: Vec<Subject>, scenarios: &[String]) -> Vec<Self> {
        subjects
            .into_iter()
            .map(|subject| Self {
                subject,
                scenarios: scenarios.to_vec(),
            })
            .collect()
    }

    /// The subject with `env` added to one scenario's environment.
    pub fn with_settings(
        mut subject: Subject,
        scenario: &str,
        env: &BTreeMap<String, String>,
    ) -> Self {
        if let Some(s) = subject.scenarios.get_mut(scenario) {
            s.env
                .extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Self {
            subject,
            scenarios: vec![scenario.to_string()],
        }
    }
}

/// What a run reports while it goes.
pub trait Observer: Sync {
    /// A new step of a cell (`building`, `starting`, `verifying`, `warming up`, `measuring 2/3`).
    fn step(&self, subject: &str, scenario: &str, workload: Option<Workload>, step: &str);
    /// Progress of the current load, as a fraction 0..1.
    fn load_progress(&self, _fraction: f64) {}
    fn cell_done(&self, cell: &Cell, done: usize, total: usize);
    fn note(&self, message: &str);
}

/// Runs the plan; returns the results (also written to `out_dir/results.json`).
pub fn run(
    plan: &RunPlan,
    stop: &AtomicBool,
    observer: &dyn Observer,
) -> Result<RunResults, HarnessError> {
    std::fs::create_dir_all(&plan.out_dir).map_err(|source| HarnessError::Results {
        path: plan.out_dir.clone(),
        source,
    })?;
    let mut env = environment::describe(&plan.placement, &plan.backend);
    env.loadgen_ceiling_rps = plan.loadgen_ceiling_rps;
    for s in plan.entries.iter().map(|e| &e.subject) {
        if s.unavailable_reason().is_none() {
            for (name, cmd) in &s.versions {
                let key = if name == "toolchain" {
                    s.language.clone()
                } else {
                    format!("{}/{name}", s.language)
                };
                env.toolchains
                    .entry(key)
                    .or_insert_with(|| environment::command_version(&s.dir, cmd));
            }
        }
    }
    let mut results = RunResults {
        schema_version: SCHEMA_VERSION,
        kind: plan.kind.clone(),
        started_at: utc_now(),
        finished_at: None,
        interrupted: false,
        environment: env,
        protocol: RunProtocol {
            connections: plan.shape.connections,
            threads: plan.shape.threads,
            duration_s: match plan.shape.stop {
                StopAt::Duration(d) => Some(d.as_secs_f64()),
                StopAt::Requests(_) => None,
            },
            requests: match plan.shape.stop {
                StopAt::Requests(n) => Some(n),
                StopAt::Duration(_) => None,
            },
            warmup_s: plan.shape.warmup.as_secs_f64(),
            warmup_requests: plan.shape.warmup_requests,
            repeats: plan.repeats,
            keepalive: plan.shape.keepalive,
            http_version: if plan.shape.http_version == HttpVersion::Http10 {
                "1.0".into()
            } else {
                "1.1".into()
            },
            timeout_s: plan.shape.timeout.as_secs_f64(),
            db_pool_total: plan.db_pool_total,
            note: plan.note.clone(),
        },
        cells: Vec::new(),
        study: plan.study.clone(),
    };
    let total = plan_cells(plan);
    let db = match &plan.database_url {
        Some(url) => match Database::connect(url).and_then(|db| db.seed().map(|_| db)) {
            Ok(db) => Some(db),
            Err(e) => {
                observer.note(&format!("users cells will fail: {e}"));
                None
            }
        },
        None => None,
    };
    write_results(&plan.out_dir, &results)?;

    'subjects: for entry in &plan.entries {
        let subject = &entry.subject;
        let workloads: Vec<Workload> = plan
            .workloads
            .iter()
            .copied()
            .filter(|w| subject.supports(*w))
            .collect();
        if workloads.is_empty() {
            continue;
        }
        let fail_all = |results: &mut RunResults,
                        status: CellStatus,
                        reason: &str,
                        scenarios: &[String]|
         -> Result<(), HarnessError> {
            for scenario in scenarios {
                for w in &workloads {
                    let cell = empty_cell(subject, *w, scenario, status, reason);
                    results.cells.push(cell.clone());
                    observer.cell_done(&cell, results.cells.len(), total);
                }
            }
            write_results(&plan.out_dir, results)
        };
        if let Some(reason) = subject.unavailable_reason() {
            fail_all(&mut results, CellStatus::Skipped, &reason, &entry.scenarios)?;
            continue;
        }
        observer.step(&subject.id, "", None, "building");
        match prepare::prepare(subject, &plan.cache) {
            Ok(Prepared::Built { seconds }) => {
                observer.note(&format!("built {} in {seconds:.0}s", subject.id))
            }
            Ok(_) => {}
            Err(e) => {
                fail_all(
                    &mut results,
                    CellStatus::Failed,
                    &e.to_string(),
                    &entry.scenarios,
                )?;
                continue;
            }
        }
        for scenario in &entry.scenarios {
            if stop.load(Ordering::Relaxed) {
                break 'subjects;
            }
            if !subject.scenarios.contains_key(scenario) {
                fail_all(
                    &mut results,
                    CellStatus::Skipped,
                    &format!("{} declares no {scenario} scenario", subject.id),
                    std::slice::from_ref(scenario),
                )?;
                continue;
            };
            observer.step(&subject.id, scenario, None, "starting");
            let options = StartOptions {
                placement: &plan.placement,
                backend: &plan.backend,
                cache: &plan.cache,
                database_url: plan.database_url.as_deref(),
                db_pool_total: plan.db_pool_total,
            };
            let started = process::free_port()
                .and_then(|port| start_subject_with(subject, scenario, &options, port));
            let mut server = match started {
                Ok(s) => s,
                Err(e) => {
                    fail_all(
                        &mut results,
                        CellStatus::Failed,
                        &e.to_string(),
                        std::slice::from_ref(scenario),
                    )?;
                    continue;
                }
            };
            observer.step(&subject.id, scenario, None, "verifying");
            let common = verify::common(server.addr);
            for w in &workloads {
                if stop.load(Ordering::Relaxed) {
                    break 'subjects;
                }
                observer.step(&subject.id, scenario, Some(*w), "verifying");
                let mut findings = common.clone();
                findings.extend(verify::workload(server.addr, *w, db.as_ref()));
                let mut cell = empty_cell(subject, *w, scenario, CellStatus::Ok, "");
                cell.reason = None;
                cell.settings = server.settings.clone();
                if !verify::passed(&findings) {
                    let first = findings
                        .iter()
                        .find(|f| f.level == restbench_model::FindingLevel::Fail)
                        .map(|f| f.message.clone())
                        .unwrap_or_default();
                    cell.status = CellStatus::Failed;
                    cell.reason = Some(format!("verification failed: {first}"));
                    cell.findings = findings;
                } else {
                    cell.findings = findings;
                    match measure(plan, &mut server, *w, subject, scenario, stop, observer) {
                        Ok(Some(m)) => fill_cell(
                            &mut cell,
                            m,
                            &plan.placement,
                            &server.limit,
                            plan.loadgen_ceiling_rps,
                        ),
                        Ok(None) => break 'subjects, // interrupted: the cell in flight is dropped
                        Err(e) => {
                            cell.status = CellStatus::Failed;
                            cell.reason = Some(e.to_string());
                        }
                    }
                }
                results.cells.push(cell.clone());
                observer.cell_done(&cell, results.cells.len(), total);
                write_results(&plan.out_dir, &results)?;
            }
            server.child.stop(Duration::from_secs(5));
        }
    }
    results.interrupted = stop.load(Ordering::Relaxed);
    results.finished_at = Some(utc_now());
    write_results(&plan.out_dir, &results)?;
    Ok(results)
}

/// How many cells a plan has.
pub fn plan_cells(plan: &RunPlan) -> usize {
    plan.entries
        .iter()
        .map(|e| {
            plan.workloads
                .iter()
                .filter(|w| e.subject.supports(**w))
                .count()
                * e.scenarios.len()
        })
        .sum()
}

/// A started subject.
pub struct RunningSubject {
    /// Declared before `cgroup`: the processes stop before their cgroup is removed.
    pub child: ManagedChild,
    pub cgroup: Option<ServerCgroup>,
    pub addr: SocketAddr,
    pub settings: BTreeMap<String, String>,
    pub ready_after: Duration,
    pub limit: CellPlacement,
}

/// Where and under which limits subjects start.
pub struct StartOptions<'a> {
    pub placement: &'a Placement,
    pub backend: &'a Backend,
    pub cache: &'a Path,
    pub database_url: Option<&'a str>,
    pub db_pool_total: u32,
}

/// Starts a subject for one scenario, pinned to the server CPUs without a cgroup, and waits
/// until it answers (`serve`, `verify`).
pub fn start_subject(
    subject: &Subject,
    scenario: &str,
    placement: &Placement,
    cache: &Path,
    database_url: Option<&str>,
    db_pool_total: u32,
) -> Result<RunningSubject, HarnessError> {
    let port = process::free_port()?;
    start_subject_on(
        subject,
        scenario,
        placement,
        cache,
        database_url,
        db_pool_total,
        port,
    )
}

/// As [`start_subject`], on a given port.
#[allow(clippy::too_many_arguments)]
pub fn start_subject_on(
    subject: &Subject,
    scenario: &str,
    placement: &Placement,
    cache: &Path,
    database_url: Option<&str>,
    db_pool_total: u32,
    port: u16,
) -> Result<RunningSubject, HarnessError> {
    let backend = Backend::affinity_only("not requested");
    let options = StartOptions {
        placement,
        backend: &backend,
        cache,
        database_url,
        db_pool_total,
    };
    start_subject_with(subject, scenario, &options, port)
}

/// How a scenario limits the server with a given backend (DESIGN.md §5).
pub fn scenario_limit(scenario: &str, placement: &Placement, backend: &Backend) -> CellPlacement {
    let server = &placement.server;
    let cpus = |c: &[usize]| c.iter().map(|&c| c as u32).collect::<Vec<u32>>();
    let on = crate::placement::format_cpu_list(server);
    let mut limit = CellPlacement {
        backend: backend.kind.name().into(),
        loadgen_cpus: cpus(&placement.loadgen),
        server_cpus: cpus(server),
        cpu_quota_cores: None,
        allowed_cores: server.len().max(1) as f64,
        enforcement: String::new(),
    };
    match scenario {
        "single-thread" => {
            limit.allowed_cores = 1.0;
            limit.enforcement =
                format!("runtime told to use one thread or process; server CPUs {on}");
        }
        "one-cpu" if backend.enforces_quota() => {
            limit.allowed_cores = 1.0;
            limit.cpu_quota_cores = Some(1.0);
            limit.enforcement = format!(
                "runtime defaults; CFS quota of 1 CPU ({}) over server CPUs {on}",
                backend.kind.name()
            );
        }
        "one-cpu" => {
            limit.allowed_cores = 1.0;
            limit.server_cpus = cpus(&server[..1.min(server.len())]);
            limit.enforcement = format!(
                "runtime defaults; pinned to CPU {} (no cgroup quota here: {})",
                server.first().copied().unwrap_or(0),
                backend.reason
            );
        }
        _ => {
            limit.enforcement = format!("one worker per server CPU ({on})");
        }
    }
    if placement.shared {
        limit
            .enforcement
            .push_str("; generator and server share the CPU");
    }
    limit
}

/// Starts a subject for one scenario in its own cgroup (when the backend has cgroups) and waits
/// until it answers.
pub fn start_subject_with(
    subject: &Subject,
    scenario: &str,
    options: &StartOptions,
    port: u16,
) -> Result<RunningSubject, HarnessError> {
    process::ensure_port_free(port)?;
    let settings = subject
        .scenarios
        .get(scenario)
        .ok_or_else(|| HarnessError::Unavailable {
            subject: subject.id.clone(),
            reason: format!("it declares no {scenario} scenario"),
        })?;
    let limit = scenario_limit(scenario, options.placement, options.backend);
    let server_cpus: Vec<usize> = limit.server_cpus.iter().map(|&c| c as usize).collect();
    let p = Placeholders {
        port,
        cores: server_cpus.len(),
        machine_cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        cache: options.cache.to_path_buf(),
        dir: subject.dir.clone(),
    };
    let processes: u32 = p.apply(&settings.processes).parse().unwrap_or(1).max(1);
    let mut env: BTreeMap<String, String> = BTreeMap::new();
    for (k, v) in subject.env.iter().chain(settings.env.iter()) {
        env.insert(k.clone(), p.apply(v));
    }
    let mut shown = env.clone();
    env.insert("PORT".into(), port.to_string());
    env.insert("HOST".into(), "127.0.0.1".into());
    env.insert("RESTBENCH_SCENARIO".into(), scenario.into());
    let pool = (options.db_pool_total / processes).max(1);
    env.insert("DB_POOL_SIZE".into(), pool.to_string());
    shown.insert("DB_POOL_SIZE".into(), pool.to_string());
    if let Some(url) = options.database_url {
        env.insert("DATABASE_URL".into(), url.into());
    }
    let cgroup = options.backend.create(
        &format!("{}-{scenario}", subject.id),
        &server_cpus,
        limit.cpu_quota_cores,
    )?;
    let spec = SpawnSpec {
        name: subject.id.clone(),
        shell_command: p.apply(&subject.start_command),
        cwd: subject.dir.clone(),
        env,
        cpus: Some(server_cpus.clone()),
        user: None,
        log: options
            .cache
            .join("logs")
            .join(format!("{}-{scenario}.log", subject.id)),
        remove_on_death: None,
        cgroup_dirs: cgroup.as_ref().map_or_else(Vec::new, |c| c.dirs().to_vec()),
    };
    let mut child = ManagedChild::spawn(&spec)?;
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let probe = subject.workloads.first().map_or("/", |w| {
        if *w == Workload::Echo {
            "/api/test"
        } else {
            w.path()
        }
    });
    match process::wait_ready(&mut child, addr, probe, subject.ready_timeout) {
        Ok(ready_after) => Ok(RunningSubject {
            child,
            cgroup,
            addr,
            settings: shown,
            ready_after,
            limit,
        }),
        Err(exit) => Err(HarnessError::NotReady {
            subject: subject.id.clone(),
            port,
            waited_s: subject.ready_timeout.as_secs_f64(),
            exit,
            tail: child.log_tail(12),
        }),
    }
}

/// What the repeats of one cell measured.
pub struct Measurement {
    pub repeats: Vec<(LoadOutcome, ServerSample)>,
    /// How long the time warm-up ran before the rate settled (zero for a warm-up by count).
    pub warmup: Duration,
    /// False when the time warm-up reached its cap with the rate still changing.
    pub warmup_settled: bool,
}

/// Server usage during one repeat.
#[derive(Debug, Clone, Copy, Default)]
pub struct ServerSample {
    /// From the cgroup when the server has one, else from /proc.
    pub cpu: Duration,
    pub cpu_source: UsageSource,
    /// From /proc, the cross-check.
    pub proc_cpu: Duration,
    pub memory: MemoryStats,
}

fn measure(
    plan: &RunPlan,
    server: &mut RunningSubject,
    w: Workload,
    subject: &Subject,
    scenario: &str,
    stop: &AtomicBool,
    observer: &dyn Observer,
) -> Result<Option<Measurement>, HarnessError> {
    let url = format!("http://{}{}", server.addr, w.path());
    let mut spec = LoadSpec::get(Target::parse(&url)?);
    spec.method = w.method().into();
    spec.headers = w.headers();
    spec.body = w.body();
    spec.connections = plan.shape.connections;
    spec.threads = plan.shape.threads;
    spec.keepalive = plan.shape.keepalive;
    spec.http_version = plan.shape.http_version;
    spec.timeout = plan.shape.timeout;
    spec.pipeline = plan.shape.pipeline;

    // Warm-up: discarded.
    observer.step(&subject.id, scenario, Some(w), "warming up");
    let mut warmup_spent = Duration::ZERO;
    let mut settled = true;
    if let Some(n) = plan.shape.warmup_requests {
        let mut warm = spec.clone();
        warm.connections = 1;
        warm.threads = 1;
        warm.stop = StopAt::Requests(n);
        run_load(&warm, &plan.placement, stop, observer)?;
    } else if !plan.shape.warmup.is_zero() {
        let mut warm = spec.clone();
        warm.stop = StopAt::Duration(plan.shape.warmup);
        let mut previous: Option<f64> = None;
        let mut spent = Duration::ZERO;
        loop {
            let rate = run_load(&warm, &plan.placement, stop, observer)?.rps();
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
    spec.stop = plan.shape.stop;
    let mut repeats = Vec::new();
    for i in 0..plan.repeats {
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        if server.child.exited().is_some() {
            return Err(HarnessError::NotReady {
                subject: subject.id.clone(),
                port: server.addr.port(),
                waited_s: 0.0,
                exit: " (it exited during the load)".into(),
                tail: server.child.log_tail(12),
            });
        }
        observer.step(
            &subject.id,
            scenario,
            Some(w),
            &format!("measuring {}/{}", i + 1, plan.repeats),
        );
        let pgid = server.child.pgid();
        let cgroup_cpu = || server.cgroup.as_ref().and_then(|c| c.cpu_usage());
        let before = (group_usage(pgid).cpu, cgroup_cpu());
        let sampler = MemorySampler::start(pgid, server.cgroup.as_ref().and_then(|c| c.memory()));
        let outcome = run_load(&spec, &plan.placement, stop, observer)?;
        let after = (group_usage(pgid).cpu, cgroup_cpu());
        let memory = sampler.finish();
        if stop.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let proc_cpu = after.0.saturating_sub(before.0);
        let (cpu, cpu_source) = match (before.1, after.1) {
            (Some(b), Some(a)) => (a.saturating_sub(b), UsageSource::Cgroup),
            _ => (proc_cpu, UsageSource::Proc),
        };
        repeats.push((
            outcome,
            ServerSample {
                cpu,
                cpu_source,
                proc_cpu,
                memory,
            },
        ));
    }
    Ok(Some(Measurement {
        repeats,
        warmup: warmup_spent,
        warmup_settled: settled,
    }))
}

/// Runs one load on the generator's CPUs.
fn run_load(
    spec: &LoadSpec,
    placement: &Placement,
    stop: &AtomicBool,
    observer: &dyn Observer,
) -> Result<LoadOutcome, HarnessError> {
    let progress = Arc::new(Progress::default());
    let cpus = placement.loadgen.clone();
    let started = Instant::now();
    let expected = match spec.stop {
        StopAt::Duration(d) => Some(d + spec.warmup),
        StopAt::Requests(_) => None,
    };
    std::thread::scope(|scope| {
        let p = progress.clone();
        let handle = scope.spawn(move || {
            let _ = pin_current_thread(&cpus);
            restbench_loadgen::run(spec, stop, p)
        });
        while !handle.is_finished() {
            std::thread::sleep(Duration::from_millis(100));
            let fraction = match (expected, spec.stop) {
                (Some(total), _) => started.elapsed().as_secs_f64() / total.as_secs_f64(),
                (None, StopAt::Requests(n)) => {
                    progress.answered.load(Ordering::Relaxed) as f64 / n as f64
                }
                _ => 0.0,
            };
            observer.load_progress(fraction.min(1.0));
        }
        handle
            .join()
            .map_err(|_| HarnessError::Load(restbench_loadgen::LoadError::ThreadPanicked))?
            .map_err(HarnessError::from)
    })
}

fn fill_cell(
    cell: &mut Cell,
    m: Measurement,
    placement: &Placement,
    limit: &CellPlacement,
    loadgen_ceiling_rps: Option<f64>,
) {
    let mut merged = new_latency_histogram();
    let mut errors = ErrorCounts::default();
    let mut rps = Vec::new();
    let mut requests = 0;
    let mut bytes_per_s = Vec::new();
    let (mut server_cpu, mut server_time, mut loadgen_cpu) = (0.0, 0.0, 0.0);
    let (mut rss_peak, mut rss_means) = (0u64, Vec::new());
    let (mut proc_cpu, mut cpu_source) = (0.0, UsageSource::Cgroup);
    let (mut cg_peak, mut cg_means) = (None::<u64>, Vec::new());
    for (outcome, sample) in &m.repeats {
        let _ = histogram::merge(&mut merged, &outcome.latency);
        let e = outcome.errors;
        errors.connect += e.connect;
        errors.read += e.read;
        errors.write += e.write;
        errors.timeout += e.timeout;
        errors.status += e.status;
        errors.parse += e.parse;
        rps.push(outcome.rps());
        requests += outcome.answered;
        bytes_per_s.push(outcome.bytes as f64 / outcome.duration.as_secs_f64().max(1e-9));
        let secs = outcome.duration.as_secs_f64().max(1e-9);
        server_cpu += sample.cpu.as_secs_f64();
        proc_cpu += sample.proc_cpu.as_secs_f64();
        if sample.cpu_source == UsageSource::Proc {
            cpu_source = UsageSource::Proc;
        }
        server_time += secs;
        loadgen_cpu += (outcome.cpu_user + outcome.cpu_system).as_secs_f64();
        rss_peak = rss_peak.max(sample.memory.rss_peak);
        rss_means.push(sample.memory.rss_mean as f64);
        if let Some(p) = sample.memory.cgroup_peak {
            cg_peak = Some(cg_peak.unwrap_or(0).max(p));
        }
        if let Some(m) = sample.memory.cgroup_mean {
            cg_means.push(m as f64);
        }
        cell.repeats.push(RepeatResult {
            rps: outcome.rps(),
            requests: outcome.answered,
            duration_s: secs,
            latency_us: LatencySummary::from_histogram(&outcome.latency),
            errors: e,
            server_cpu_cores: sample.cpu.as_secs_f64() / secs,
            loadgen_cpu_cores: (outcome.cpu_user + outcome.cpu_system).as_secs_f64() / secs,
        });
    }
    cell.rps = RpsStats {
        median: stats::median(&rps),
        min: rps.iter().copied().fold(f64::INFINITY, f64::min),
        max: rps.iter().copied().fold(0.0, f64::max),
        cv: stats::cv(&rps),
        ci95: stats::bootstrap_median_ci(&rps),
    };
    cell.latency_us = LatencySummary::from_histogram(&merged);
    cell.histogram = Some(histogram::encode(&merged));
    cell.errors = errors;
    cell.requests = requests;
    cell.bytes_per_s = stats::median(&bytes_per_s);
    let per_req = |cpu: f64| {
        if requests > 0 {
            cpu * 1e6 / requests as f64
        } else {
            0.0
        }
    };
    cell.server = ServerUsage {
        cpu_cores: server_cpu / server_time.max(1e-9),
        cpu_us_per_req: per_req(server_cpu),
        rss_peak_bytes: rss_peak,
        rss_mean_bytes: stats::mean(&rss_means) as u64,
        cpu_limit_cores: limit.cpu_quota_cores,
        cpu_source,
        proc_cpu_cores: Some(proc_cpu / server_time.max(1e-9)),
        cgroup_memory_peak_bytes: cg_peak,
        cgroup_memory_mean_bytes: (!cg_means.is_empty()).then(|| stats::mean(&cg_means) as u64),
    };
    cell.placement = limit.clone();
    cell.warmup_s = m.warmup.as_secs_f64();
    let loadgen_cores = loadgen_cpu / server_time.max(1e-9);
    let client_bound = is_client_bound(
        cell.rps.median,
        loadgen_cores,
        placement,
        loadgen_ceiling_rps,
    );
    cell.loadgen = LoadgenUsage {
        cpu_cores: loadgen_cores,
        cpu_us_per_req: per_req(loadgen_cpu),
        client_bound,
    };
    if client_bound {
        cell.flags.push("client_bound".into());
    }
    if cell.rps.cv > 0.10 {
        cell.flags.push("noisy".into());
    }
    if !limit_held(cell.server.cpu_cores, limit.allowed_cores) {
        cell.flags.push("limit_not_held".into());
    }
    if !m.warmup_settled {
        cell.flags.push("warmup_unsettled".into());
    }
    if errors.total() > 0 {
        cell.flags.push("errors".into());
    }
    if cell
        .findings
        .iter()
        .any(|f| f.level == restbench_model::FindingLevel::Warn)
    {
        cell.flags.push("verification_warnings".into());
    }
}

/// Two warm-up slices in a row within 7 % of each other: the runtime has stopped speeding up.
pub fn warmup_settled(previous: f64, now: f64) -> bool {
    (now - previous).abs() <= 0.07 * previous.max(1.0)
}

/// The generator, not the server, set the rate: it saturated its CPUs, or the rate came within
/// 10 % of the generator's calibrated ceiling.
pub fn is_client_bound(
    rps: f64,
    loadgen_cores: f64,
    placement: &Placement,
    ceiling_rps: Option<f64>,
) -> bool {
    let saturated = !placement.shared && loadgen_cores >= 0.85 * placement.loadgen.len() as f64;
    let near_ceiling = ceiling_rps.is_some_and(|c| c > 0.0 && rps >= 0.9 * c);
    saturated || near_ceiling
}

/// The server stayed within what its scenario allows (5 % and 0.05 cores of slack for
/// accounting granularity).
pub fn limit_held(cpu_cores: f64, allowed_cores: f64) -> bool {
    cpu_cores <= allowed_cores * 1.05 + 0.05
}

fn empty_cell(
    subject: &Subject,
    w: Workload,
    scenario: &str,
    status: CellStatus,
    reason: &str,
) -> Cell {
    Cell {
        subject: subject.id.clone(),
        language: subject.language.clone(),
        framework: subject.framework.clone(),
        framework_version: subject.framework_version.clone(),
        workload: w.name().into(),
        scenario: scenario.into(),
        status,
        reason: (!reason.is_empty()).then(|| reason.to_string()),
        rps: RpsStats::default(),
        latency_us: LatencySummary::default(),
        errors: ErrorCounts::default(),
        requests: 0,
        bytes_per_s: 0.0,
        server: ServerUsage::default(),
        loadgen: LoadgenUsage::default(),
        findings: Vec::<Finding>::new(),
        flags: Vec::new(),
        settings: BTreeMap::new(),
        repeats: Vec::new(),
        histogram: None,
        placement: Default::default(),
        warmup_s: 0.0,
    }
}

/// Writes `results.json` atomically (a temporary file renamed over the old one).
pub fn write_results(dir: &Path, results: &RunResults) -> Result<(), HarnessError> {
    let path = dir.join("results.json");
    let tmp = dir.join(".results.json.tmp");
    let text = serde_json::to_string_pretty(results).map_err(|e| HarnessError::Results {
        path: path.clone(),
        source: e.into(),
    })?;
    std::fs::write(&tmp, text).map_err(|source| HarnessError::Results {
        path: tmp.clone(),
        source,
    })?;
    std::fs::rename(&tmp, &path).map_err(|source| HarnessError::Results { path, source })
}

/// Reads a `results.json`.
pub fn read_results(path: &Path) -> Result<RunResults, HarnessError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| HarnessError::io(format!("cannot read {}", path.display()), e))?;
    serde_json::from_str(&text).map_err(|e| {
        HarnessError::io(
            format!("{} is not a restbench results document", path.display()),
            e.into(),
        )
    })
}

/// `2026-11-29T19:01:24Z`.
pub fn utc_now() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    verify::format_timestamp(secs).replace(' ', "T") + "Z"
}

/// `20261129T190124Z`, for folder names.
pub fn utc_stamp() -> String {
    utc_now().replace(['-', ':'], "")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_cpus() -> Placement {
        Placement::split(&[0, 1])
    }

    #[test]
    fn client_bound_by_saturation_or_by_the_ceiling() {
        let p = two_cpus();
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
        // Sharing one CPU, saturation says nothing about who limited whom.
        let shared = Placement::split(&[0]);
        assert!(!is_client_bound(1000.0, 1.0, &shared, None));
    }

    #[test]
    fn warm_up_settles_when_the_rate_stops_climbing() {
        assert!(!warmup_settled(1_000.0, 3_000.0), "a JIT still compiling");
        assert!(warmup_settled(10_000.0, 10_400.0));
        assert!(warmup_settled(10_000.0, 9_500.0));
        assert!(!warmup_settled(10_000.0, 8_000.0));
    }

    #[test]
    fn limits_held_with_accounting_slack() {
        assert!(limit_held(1.0, 1.0));
        assert!(limit_held(1.09, 1.0));
        assert!(!limit_held(1.3, 1.0));
        assert!(limit_held(3.9, 4.0));
        assert!(!limit_held(4.5, 4.0));
    }

    #[test]
    fn scenarios_limit_the_server_as_designed() {
        let p = Placement::split(&(0..16).collect::<Vec<_>>());
        let affinity = Backend::affinity_only("test");
        let single = scenario_limit("single-thread", &p, &affinity);
        assert_eq!(single.allowed_cores, 1.0);
        assert_eq!(single.server_cpus.len(), 12);
        let all = scenario_limit("all-cores", &p, &affinity);
        assert_eq!(all.allowed_cores, 12.0);
        assert_eq!(all.cpu_quota_cores, None);
        // Without a quota, one-cpu pins to one CPU.
        let one = scenario_limit("one-cpu", &p, &affinity);
        assert_eq!(one.server_cpus, vec![4]);
        assert_eq!(one.allowed_cores, 1.0);
        assert!(one.enforcement.contains("pinned"), "{}", one.enforcement);
        assert_eq!(one.loadgen_cpus, vec![0, 1, 2, 3]);
    }
}
