//! A [`RunRequest`] made a [`RunPlan`]: every default that depends on the run's length, the
//! machine's placement, one rule for when a run needs the database and where it runs, and whether
//! the generator is calibrated. `run`, `bench` and `study` all resolve here.

use std::net::IpAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use restbench_loadgen::{LoadError, StopAt};
use restbench_model::{RunResults, Slo, StudyInfo, Workload};

use super::request::{
    ConformanceStep, DatabaseRequest, Length, Machine, OpenLoopRequest, RemoteRequest,
    RoundsRequest, RunRequest, ShapeOverrides,
};
use crate::error::HarnessError;
use crate::events::{Events, Observer};
use crate::runner::ResultsFile;
use crate::runner::{LoadShape, Mode, OpenLoop, RunEntry, RunPlan};
use restbench_db::{self as db, Provision};
use restbench_host::cgroup::Backend;
use restbench_host::error::chain;
use restbench_host::placement::{Placement, available_cpus, format_cpu_list};

/// Database connections in total over all server processes when none are asked for: seed 003's
/// pool (study c: "a pool of 100"), so every stack gets the pool the seed gave it.
pub const DEFAULT_DB_POOL: u32 = 100;

/// Connections of the generator in a `run` when none are asked for.
pub const DEFAULT_CONNECTIONS: u32 = 64;

/// Why a request cannot be planned.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    /// A flag's value, or a combination of flags, that cannot be run (the binary exits 2).
    #[error("{0}")]
    BadArgument(String),
    #[error(
        "nothing to run: no selected subject serves the selected workloads over the selected \
         protocols (see `restbench subjects` and each subject.toml's `protocols`)"
    )]
    NothingToRun,
    /// The given database does not answer, or cannot be seeded.
    #[error("--database-url")]
    Database(#[source] restbench_db::DbError),
    #[error(transparent)]
    Load(LoadError),
    /// The published figures name a workload this version does not know.
    #[error("study {id} names an unknown workload")]
    StudyWorkload {
        id: String,
        #[source]
        source: restbench_model::UnknownName,
    },
}

impl PlanError {
    /// A shape the load engine refuses as invalid is a bad argument, as in `restbench load`;
    /// every other load error stays an error.
    pub fn from_load(e: LoadError) -> Self {
        match e {
            e @ (LoadError::InvalidSpec(_) | LoadError::InvalidUrl { .. }) => {
                PlanError::BadArgument(e.to_string())
            }
            e => PlanError::Load(e),
        }
    }
}

/// A plan ready to run, and what must live as long as it does.
pub struct Resolved {
    pub plan: RunPlan,
    /// The run's database: its own cluster is stopped and removed when this drops.
    pub database: Provision,
    /// Said before the run starts (cells that will fail, and why).
    pub warnings: Vec<String>,
    /// What the database must allow at once, for the plan's lines; `None` without one.
    database_line: Option<String>,
    /// How long one calibration runs, when the generator is calibrated.
    calibration: Option<Duration>,
    /// Hosts to connect when the run begins (`--loadgen-hosts`, `--server-host`).
    hosts: Option<Arc<RemoteRequest>>,
}

/// The CPU placement and the enforcement backend of a run.
#[derive(Clone)]
pub struct Site {
    pub placement: Placement,
    pub backend: Backend,
}

impl Site {
    /// `machine` on this host, or the local side of `remote`'s placement.
    pub fn new(machine: &Machine, remote: Option<&RemoteRequest>) -> Result<Self, PlanError> {
        let available = available_cpus();
        let placement = match (&machine.loadgen_cpus, remote) {
            (list, Some(r)) => r
                .placement(list.as_deref())
                .map_err(PlanError::BadArgument)?,
            (Some(list), None) => Placement::with_loadgen(&available, list)
                .map_err(|e| PlanError::BadArgument(format!("--loadgen-cpus {list}: {e}")))?,
            (None, None) => Placement::split(&available),
        };
        let backend = if machine.cgroups {
            Backend::probe()
        } else {
            Backend::affinity_only("--no-cgroups given")
        };
        Ok(Self { placement, backend })
    }
}

/// Plans a `run` or `bench`: the shape from the length and the flags, the cells, then the
/// database (started only when a cell needs it, after the cells are known to be there).
pub fn resolve(req: RunRequest) -> Result<Resolved, PlanError> {
    let site = Site::new(&req.machine, req.remote.as_deref())?;
    let shape = run_shape(
        &req.shape,
        req.length,
        site.placement.loadgen.len(),
        !req.shape.rounds.interleaved,
    );
    shape.check().map_err(PlanError::from_load)?;
    if req.selection.workloads.contains(&Workload::Delay) {
        // Checked (and the open-file limit raised, which the servers started later inherit)
        // for the connections a delay cell holds, before anything is built.
        let mut held = shape.clone();
        held.connections = Workload::Delay.connections_under(shape.connections);
        held.check().map_err(PlanError::from_load)?;
    }
    let quick_note = req
        .length
        .is_quick()
        .then(|| "A --quick pass: a few short rounds per cell, for a first look only.".to_string());
    let repeats = repeats(req.shape.repeats, req.length);
    let open_loop = open_loop(&req.open_loop, req.length)?;
    let mut rounds = rounds(&req.shape.rounds, req.length, repeats, &open_loop)?;
    if req.shape.rounds.duet {
        duet_possible(rounds.as_ref(), req.remote.as_deref())?;
    }
    let method_note = duets_here(&mut rounds, req.remote.as_deref());
    let parts = Parts {
        kind: req.kind,
        entries: RunEntry::all(req.selection.subjects, &req.selection.scenarios),
        workloads: req.selection.workloads,
        protocols: req.selection.protocols,
        shape,
        repeats,
        restarts: restarts(req.shape.restarts, req.length, repeats),
        out_dir: req.out_dir,
        cache: req.cache,
        note: join_notes(join_notes(req.note, quick_note), method_note),
        study: None,
        open_loop,
        rounds,
        db_pool: req.database.pool,
        conformance: req.conformance,
    };
    let mut plan = assemble(parts, site, req.remote.as_deref());
    plan.profile = profile_slice(req.profile || req.explain, req.length);
    plan.explain = req.explain;
    if plan.cells() == 0 {
        return Err(PlanError::NothingToRun);
    }
    let calibrate = req.calibrate;
    place(
        plan,
        &req.machine,
        &req.database,
        req.remote.as_ref(),
        calibrate,
        req.length,
    )
}

/// Why the memory limits the plan asks for (a scenario's `memory_limit`, `--memory-limit`) will
/// not be enforced, if they will not: the backend has no usable memory controller (affinity
/// only, `--no-cgroups`, no delegation). The servers then run unlimited, and each cell's
/// enforcement says so too.
fn unenforced_memory_limit(plan: &RunPlan) -> Option<String> {
    let asked = plan.entries.iter().any(|e| {
        e.scenarios.iter().any(|s| {
            e.subject
                .scenarios
                .get(s)
                .is_some_and(|s| s.memory_limit.is_some())
        })
    });
    (asked && !plan.backend.capabilities.memory_accounting).then(|| {
        format!(
            "memory limits will not be enforced: the {} backend has no usable memory \
             controller ({})",
            plan.backend.kind.name(),
            plan.backend.reason
        )
    })
}

/// The closed-loop shape of a `run`: 5 s slices after a 3 s warm-up (30 s at most), or with
/// `--quick` 1 s slices in duets (2 s interleaved) after 1 s (8 s at most); one thread per
/// generator CPU. Short slices and more rounds: a machine's drift, not a slice's length, is what
/// widens the intervals, and a duet cancels the drift, so in the same time more, shorter duet
/// rounds narrow the intervals (t of 3 rounds is 4.30, of 4 3.18).
fn run_shape(
    flags: &ShapeOverrides,
    length: Length,
    loadgen_cpus: usize,
    duets: bool,
) -> LoadShape {
    let quick = length.is_quick();
    let (duration_ms, warmup, warmup_max) = match (quick, duets) {
        (true, true) => (1000, 1, 8),
        (true, false) => (2000, 1, 8),
        (false, _) => (5000, 3, 30),
    };
    LoadShape {
        connections: flags.connections.unwrap_or(DEFAULT_CONNECTIONS),
        threads: flags.threads.unwrap_or(loadgen_cpus as u32).max(1),
        stop: StopAt::Duration(flags.duration.unwrap_or(Duration::from_millis(duration_ms))),
        warmup: flags.warmup.unwrap_or(Duration::from_secs(warmup)),
        warmup_max: Duration::from_secs(warmup_max),
        pipeline: flags.pipeline.unwrap_or(1).max(1),
        ..LoadShape::default()
    }
}

/// Repeats per cell — the rounds always taken: as asked (at least one), else three.
pub fn repeats(given: Option<u32>, _length: Length) -> u32 {
    given.unwrap_or(3).max(1)
}

/// The default target of a run's rounds: every paired ratio within ±3 %.
pub const DEFAULT_TARGET_CI: f64 = 0.03;

/// The default cap on a group's rounds when a target is set.
pub const DEFAULT_MAX_ROUNDS: u32 = 6;

/// How the closed-loop repeats are taken as rounds: `min_rounds` = the repeats; a full run adds
/// rounds up to `--max-rounds` (6) until every ratio is within `--target-ci` (3 %); `--quick`
/// and `--faithful` take a fixed count, with two more rounds at most to re-measure a contended
/// cell. `None` when the run measures no closed loop.
pub fn rounds(
    req: &RoundsRequest,
    length: Length,
    repeats: u32,
    open_loop: &OpenLoop,
) -> Result<Option<restbench_model::RoundsPolicy>, PlanError> {
    if !open_loop.mode.throughput() {
        return Ok(None);
    }
    if let Some(t) = req.target_ci
        && !(t > 0.0 && t < 1.0)
    {
        return Err(PlanError::BadArgument(format!(
            "--target-ci {:.1}%: give a width between 0 and 100 %, such as 3%",
            t * 100.0
        )));
    }
    let fixed = matches!(length, Length::Quick | Length::Faithful) && req.target_ci.is_none();
    let target_ci = (!fixed).then(|| req.target_ci.unwrap_or(DEFAULT_TARGET_CI));
    let beside_reference = !req.duet && !req.interleaved;
    // A quick pass beside a reference: the repeats alone (each cell's own figures) and one duet
    // round more than that, of shorter slices, in about the time the repeats took alone.
    let duet_rounds = if beside_reference && length.is_quick() {
        repeats + 1
    } else {
        repeats
    };
    let max_rounds = match (req.max_rounds, fixed) {
        (Some(m), _) => m,
        (None, true) => duet_rounds + 2,
        (None, false) => DEFAULT_MAX_ROUNDS.max(repeats),
    };
    let duet_rounds = duet_rounds.min(max_rounds);
    if max_rounds < repeats {
        return Err(PlanError::BadArgument(format!(
            "--max-rounds {max_rounds} is below the {repeats} repeats every cell gets: raise it              or lower --repeats"
        )));
    }
    let seed = req.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    Ok(Some(restbench_model::RoundsPolicy {
        seed,
        min_rounds: if beside_reference {
            duet_rounds
        } else {
            repeats
        },
        max_rounds,
        target_ci,
        rewarm_s: if length.is_quick() { 0.5 } else { 1.0 },
        duet: req.duet,
        beside_reference,
        solo_rounds: beside_reference.then_some(repeats),
    }))
}

/// Duets beside a reference need the servers and the generator here: with a remote server or
/// generator host the run measures interleaved, and the plan says so. The sentence for the
/// plan's note, or `None`.
pub fn duets_here(
    rounds: &mut Option<restbench_model::RoundsPolicy>,
    remote: Option<&RemoteRequest>,
) -> Option<String> {
    let policy = rounds.as_mut()?;
    if !policy.beside_reference {
        return None;
    }
    if remote.is_some() {
        policy.beside_reference = false;
        policy.min_rounds = policy.solo_rounds.take().unwrap_or(policy.min_rounds);
        return Some(
            "Measured interleaved, not in duets: a duet runs both servers and their \
             generators on this machine, and this run has a remote server or generator host."
                .into(),
        );
    }
    Some(format!(
        "Measured in duets: each cell of a group beside the group's reference ({}), at the \
         same instant on the same server CPUs, each with its own generator run; rankings and \
         verdicts come from the duets' ratios, each cell's own figures (req/s with its whole \
         allowance, latency, CPU, memory) from slices alone. One-cpu groups are measured \
         interleaved (a shared CPU would keep its quota from throttling), and so are the \
         workloads that query PostgreSQL (the two sides would share one database); \
         --interleaved measures every group so.",
        restbench_model::statistics::rounds::REFERENCE_RULE
    ))
}

/// Duet needs rounds of closed loop, and the servers and the generator here: both sides are
/// started on this machine's server CPUs and driven from its generator CPUs.
fn duet_possible(
    rounds: Option<&restbench_model::RoundsPolicy>,
    remote: Option<&RemoteRequest>,
) -> Result<(), PlanError> {
    if rounds.is_none() {
        return Err(PlanError::BadArgument(
            "a duet measures closed-loop rounds, and this run has none: drop --mode capacity, \
             or give ab --interleaved"
                .into(),
        ));
    }
    if remote.is_some() {
        return Err(PlanError::BadArgument(
            "a duet runs both servers and their generators on this machine: drop --server-host \
             and --loadgen-hosts, or give ab --interleaved"
                .into(),
        ));
    }
    Ok(())
}

/// `--restarts` when not given: two server processes per cell, so every full run carries the
/// spread between processes that one process's repeats cannot show; one with `--quick` (a
/// smoke run) or when a single repeat leaves nothing to split.
pub fn restarts(given: Option<u32>, length: Length, repeats: u32) -> u32 {
    given
        .unwrap_or(if length.is_quick() || repeats < 2 {
            1
        } else {
            2
        })
        .max(1)
}

/// One calibration of the generator with `--quick`: long enough for a closed loop to reach its
/// rate on loopback, short beside 2 s slices.
const QUICK_CALIBRATION: Duration = Duration::from_secs(1);
/// One calibration otherwise: a few seconds, so one slow second does not set the ceiling.
const CALIBRATION: Duration = Duration::from_secs(3);

/// How long one calibration of the generator runs.
fn calibration_time(length: Length) -> Duration {
    if length.is_quick() {
        QUICK_CALIBRATION
    } else {
        CALIBRATION
    }
}

/// The open-loop measures asked for: `--slo` alone means both measures; capacity without an SLO
/// is refused; every rate must be one the generator can be asked for.
pub fn open_loop(req: &OpenLoopRequest, length: Length) -> Result<OpenLoop, PlanError> {
    let bad = PlanError::BadArgument;
    let quick = length.is_quick();
    let slo = Slo::parse_all(&req.slo).map_err(|e| bad(e.to_string()))?;
    let mode = match (req.mode, slo.is_empty()) {
        (None, true) | (Some(Mode::Throughput), _) => Mode::Throughput,
        (None, false) | (Some(Mode::Both), false) => Mode::Both,
        (Some(Mode::Capacity), false) => Mode::Capacity,
        (Some(m @ (Mode::Capacity | Mode::Both)), true) => {
            return Err(bad(format!(
                "--mode {} needs an SLO: add --slo 'p99<=10ms' (and --slo 'errors<=0.1%' …)",
                m.name()
            )));
        }
    };
    let (lo, hi) = restbench_loadgen::RATE_RANGE;
    if let Some(r) = req
        .at_rates
        .iter()
        .find(|r| !(r.is_finite() && (lo..=hi).contains(*r)))
    {
        return Err(bad(format!(
            "--at-rate {r} is not a rate from {lo} to {hi} requests per second"
        )));
    }
    let step_duration = req
        .step_duration
        .unwrap_or(Duration::from_secs(if quick { 1 } else { 3 }));
    if !(Duration::from_millis(50)..=Duration::from_secs(3600)).contains(&step_duration) {
        return Err(bad("--step-duration must be from 50ms to 1h".into()));
    }
    Ok(OpenLoop {
        mode,
        slo,
        at_rates: req.at_rates.clone(),
        step_duration,
        step_warmup: if quick {
            Duration::from_millis(500)
        } else {
            Duration::from_secs(1)
        },
        resolution: req.resolution,
        max_steps: if quick { 10 } else { 14 },
    })
}

/// Two optional sentences as one.
pub fn join_notes(a: Option<String>, b: Option<String>) -> Option<String> {
    match (a, b) {
        (Some(a), Some(b)) => Some(format!("{a} {b}")),
        (a, b) => a.or(b),
    }
}

/// The profiling slice's length with `--profile`: long enough for a few thousand samples.
pub(crate) fn profile_slice(profile: bool, length: Length) -> Option<Duration> {
    profile.then(|| Duration::from_secs(if length.is_quick() { 3 } else { 5 }))
}

/// What a plan is made of before the database is placed.
pub(crate) struct Parts {
    pub kind: String,
    pub entries: Vec<RunEntry>,
    pub workloads: Vec<Workload>,
    pub protocols: Vec<restbench_model::Protocol>,
    pub shape: LoadShape,
    pub repeats: u32,
    pub restarts: u32,
    pub out_dir: PathBuf,
    pub cache: PathBuf,
    pub note: Option<String>,
    pub study: Option<StudyInfo>,
    pub open_loop: OpenLoop,
    pub rounds: Option<restbench_model::RoundsPolicy>,
    pub db_pool: u32,
    pub conformance: ConformanceStep,
}

/// The plan of `parts` on `site`, without its database yet and not calibrated.
pub(crate) fn assemble(parts: Parts, site: Site, remote: Option<&RemoteRequest>) -> RunPlan {
    RunPlan {
        kind: parts.kind,
        entries: parts.entries,
        workloads: parts.workloads,
        protocols: parts.protocols,
        shape: parts.shape,
        repeats: parts.repeats,
        restarts: parts.restarts,
        out_dir: parts.out_dir,
        cache: parts.cache,
        placement: site.placement,
        backend: site.backend,
        loadgen_ceiling_rps: None,
        calibration: None,
        database_url: None,
        database_pid: None,
        db_cpus: Vec::new(),
        database: String::new(),
        db_pool_total: parts.db_pool,
        note: join_notes(parts.note, parts.conformance.note()),
        study: parts.study,
        open_loop: parts.open_loop,
        rounds: parts.rounds,
        server_address: remote.and_then(|r| r.server_address),
        server_host: None,
        remote: None,
        conformance: parts.conformance == ConformanceStep::Check,
        profile: None,
        explain: false,
    }
}

/// True when a cell of `plan` will query the database: an available subject with a scenario and
/// a protocol of the run serves a selected workload that needs it. The one rule for `run`,
/// `bench` and `study`: a cluster is started only for cells that use it.
pub fn needs_database(plan: &RunPlan) -> bool {
    plan.entries.iter().any(|e| {
        e.subject.unavailable_reason().is_none()
            && !e.scenarios.is_empty()
            && !plan.protocols_of(&e.subject).is_empty()
            && plan
                .workloads
                .iter()
                .any(|w| w.needs_database() && e.subject.supports(*w))
    })
}

/// Connections restbench itself may hold on the run's database beside the servers' pools (the
/// seed, the verifier, the query counter).
pub const OWN_DB_CONNECTIONS: u32 = 10;

/// What the run's database must allow at once: every server of a scenario stays up through its
/// groups with its pool open, so the largest scenario's sum of pools (servers of subjects that
/// serve a workload needing the database, `--db-pool` each), and restbench's own. The servers'
/// count and the scenario, for the plan's sentence. `(0, 0, "")` without a database.
pub fn database_connections(plan: &RunPlan) -> (u32, u32, String) {
    let mut scenarios: Vec<restbench_model::Scenario> = Vec::new();
    for e in &plan.entries {
        for s in &e.scenarios {
            if !scenarios.contains(s) {
                scenarios.push(*s);
            }
        }
    }
    let mut most = (0u32, String::new());
    for s in scenarios {
        let servers = plan
            .entries
            .iter()
            .filter(|e| {
                e.subject.unavailable_reason().is_none()
                    && e.scenarios.contains(&s)
                    && !plan.protocols_of(&e.subject).is_empty()
                    && plan
                        .workloads
                        .iter()
                        .any(|w| w.needs_database() && e.subject.supports(*w))
            })
            .count() as u32;
        if servers > most.0 {
            most = (servers, s.name().to_string());
        }
    }
    if most.0 == 0 {
        return (0, 0, String::new());
    }
    (
        most.0 * plan.db_pool_total.max(1) + OWN_DB_CONNECTIONS,
        most.0,
        most.1,
    )
}

/// The `max_connections` of the run's own cluster for `needed` connections: a tenth more, and
/// never below 100.
pub fn cluster_connections(needed: u32) -> u32 {
    (needed + needed / 10).max(100)
}

/// The database of `plan` placed and provided, and the calibration decided: a given URL must work
/// now, not after the first subject was built; without one, a throwaway cluster placed by
/// [`Placement::with_database`] (`--db-cpus` chooses; the users cells fail with the reason when it
/// cannot start). Remote generators are not calibrated: the ceiling is a local generator's.
pub(crate) fn place(
    mut plan: RunPlan,
    machine: &Machine,
    database: &DatabaseRequest,
    remote: Option<&Arc<RemoteRequest>>,
    calibrate: bool,
    length: Length,
) -> Result<Resolved, PlanError> {
    if let Some(bytes) = machine.memory_limit {
        for entry in &mut plan.entries {
            for settings in entry.subject.scenarios.values_mut() {
                settings.memory_limit = Some(bytes);
            }
        }
    }
    let memory_note = unenforced_memory_limit(&plan);
    let needs_db = needs_database(&plan);
    let url = database.url.as_deref();
    let db_cpus = machine.db_cpus.as_deref();
    if db_cpus.is_some() && url.is_some() {
        return Err(PlanError::BadArgument(
            "--db-cpus places the PostgreSQL cluster restbench starts; with --database-url (or \
             DATABASE_URL) the database is external: drop one of them"
                .into(),
        ));
    }
    let (chosen, carved) = plan
        .placement
        .with_database(&available_cpus(), db_cpus)
        .map_err(|e| PlanError::BadArgument(format!("--db-cpus {}: {e}", db_cpus.unwrap_or(""))))?;
    let own = needs_db && url.is_none();
    let (needed, servers, scenario) = database_connections(&plan);
    let allowed = cluster_connections(needed);
    let provision = db::provide_sized(
        needs_db,
        url,
        &plan.cache.join("logs"),
        own.then(|| chosen.clone()),
        Some(allowed),
    )
    .map_err(PlanError::Database)?;
    let must_allow = format!(
        "{needed} connections at once ({servers} servers of {scenario} up together, each with a \
         pool of {}, and {OWN_DB_CONNECTIONS} of restbench's)",
        plan.db_pool_total
    );
    if needs_db
        && url.is_some()
        && let Some(db) = &provision.database
    {
        let max = db.max_connections().map_err(PlanError::Database)?;
        if max < needed {
            return Err(PlanError::BadArgument(format!(
                "--database-url allows {max} connections (max_connections) and this plan needs \
                 {must_allow}: raise its max_connections or lower --db-pool"
            )));
        }
    }
    let mut warnings: Vec<String> = memory_note.into_iter().collect();
    if own && needed > 0 {
        let mb = db::SHARED_BUFFERS_MB + allowed * db::MB_PER_CONNECTION;
        if let Some(free) = restbench_host::environment::available_memory_mb()
            && u64::from(mb) > free
        {
            warnings.push(format!(
                "the database must allow {must_allow}: about {mb} MB for PostgreSQL, more than \
                 the {free} MB available; users cells may fail: lower --db-pool"
            ));
        }
    }
    if let Some(e) = &provision.problem {
        warnings.push(format!("users cells will fail: {}", chain(e)));
    }
    for w in &plan.workloads {
        for p in &plan.protocols {
            if let Some(why) = w.unloadable_over(*p) {
                warnings.push(format!("{w} has no {p} cells: {why}"));
            }
        }
    }
    if let Some(server) = remote.and_then(|r| r.server_host.as_ref())
        && needs_db
        && let Some(url) = provision.url.as_deref().filter(|u| names_loopback(u))
    {
        warnings.push(format!(
            "users cells will fail: the database at {} is on this machine's loopback, which the \
             subjects on {} cannot reach; start one there with `restbench db start --host {}` and \
             pass its URL to --database-url",
            db::redact(url),
            server,
            server
        ));
    }
    if let Some(cluster) = &provision.cluster {
        plan.database_pid = cluster.server_pid();
        plan.database = database_place(&chosen, &plan.placement);
        plan.placement = carved;
        plan.db_cpus = chosen;
    } else if provision.url.is_some() && needs_db {
        plan.database = "external".into();
    }
    plan.database_url = provision.url.clone();
    let local_generators = remote.is_none_or(|r| r.generator_hosts.is_empty());
    let database_line = (needs_db && needed > 0).then(|| {
        let how = if own {
            format!("its own cluster allows {allowed} (max_connections)")
        } else {
            "the given --database-url allows enough".to_string()
        };
        format!("database: must allow {must_allow}; {how}")
    });
    Ok(Resolved {
        plan,
        database: provision,
        database_line,
        warnings,
        calibration: (calibrate && local_generators).then(|| calibration_time(length)),
        hosts: remote.cloned(),
    })
}

impl Resolved {
    /// Measures the generator's ceiling against a trivial server with the run's shape, when the
    /// plan calibrates; says what it found (or why it could not) through `observer`.
    pub fn calibrate(&mut self, stop: &AtomicBool, observer: &Events) {
        let Some(duration) = self.calibration else {
            return;
        };
        let plan = &mut self.plan;
        let calibrate = || {
            crate::runner::calibrate::loadgen_ceiling(&plan.placement, &plan.shape, duration, stop)
        };
        // A ceiling measured while something else took the CPU is no ceiling: once more.
        let measured = match calibrate() {
            Ok(c) if c.contended.is_some() => {
                observer.note(&format!(
                    "the generator's calibration was contended ({}): calibrating again",
                    c.contended.as_deref().unwrap_or_default()
                ));
                calibrate()
            }
            other => other,
        };
        match measured {
            Ok(c) if c.contended.is_some() => {
                observer.note(&format!(
                    "the generator's calibration was contended again ({}): no ceiling, so no \
                     slice is judged client-bound from one",
                    c.contended.as_deref().unwrap_or_default()
                ));
                plan.calibration = Some(duration);
            }
            Ok(c) => {
                observer.note(&format!(
                    "generator ceiling: {:.0} req/s against a trivial server ({:.2} generator cores)",
                    c.rps, c.loadgen_cores
                ));
                plan.loadgen_ceiling_rps = Some(c.rps);
                plan.calibration = Some(duration);
            }
            Err(e) => {
                observer.note(&format!("cannot calibrate the generator: {}", chain(&e)));
            }
        }
    }

    /// Connects the remote hosts (when there are any), calibrates when the plan does, then runs
    /// it: the database stays up until `self` drops.
    ///
    /// The run's results file is the first of its observers, then `observer` (the caller's
    /// display); both see every event with the same time.
    pub fn run(
        &mut self,
        stop: &AtomicBool,
        observer: &dyn Observer,
    ) -> Result<RunResults, HarnessError> {
        // Hosts first: their connections' note belongs in the document the file starts with.
        self.connect_hosts(&Events::new(vec![observer]))?;
        let file = ResultsFile::create(&self.plan)?;
        let events = Events::new(vec![&file, observer]);
        self.calibrate(stop, &events);
        crate::runner::run(&self.plan, stop, &events)?;
        file.into_results()
    }

    /// The hosts of `--loadgen-hosts` and `--server-host` connected (once for every run that
    /// shares them), and the plan given their connections, address and note.
    fn connect_hosts(&mut self, events: &Events) -> Result<(), HarnessError> {
        let Some(hosts) = self.hosts.clone() else {
            return Ok(());
        };
        let connected = hosts.connect(&|m| events.note(m))?;
        self.plan.remote = connected.generators.clone();
        self.plan.server_host = connected.server.clone();
        self.plan.server_address = Some(connected.address);
        self.plan.note = join_notes(self.plan.note.take(), Some(connected.note.clone()));
        Ok(())
    }

    /// The run's plan in a few lines, before anything is built: the grid, the rounds budget and
    /// the expected time from what builds, starts and warm-ups cost on earlier runs here.
    pub fn plan_lines(&self) -> Vec<String> {
        use crate::runner::costs::{Costs, estimate, human_duration};
        let plan = &self.plan;
        let costs = Costs::load(&plan.cache);
        let built = |id: &str| {
            plan.entries
                .iter()
                .find(|e| e.subject.id == id)
                .is_some_and(|e| restbench_subject::prepare::is_built(&e.subject, &plan.cache))
        };
        let e = estimate(plan, &costs, &built);
        let mut lines = vec![format!(
            "plan: {} cells in {} groups (workload × scenario × protocol)",
            e.cells, e.groups
        )];
        if let Some(r) = &plan.rounds {
            let target = r.target_ci.map_or("a fixed count".to_string(), |t| {
                format!("until every ratio is within ±{:.0} %", t * 100.0)
            });
            let method = if r.beside_reference {
                "in duets beside each group's reference (one-cpu interleaved)"
            } else if r.duet {
                "every cell at once (a duet)"
            } else {
                "interleaved"
            };
            lines.push(format!(
                "rounds: {} to {} per group, {method}, {target}; seed {}",
                r.min_rounds, r.max_rounds, r.seed
            ));
        }
        if let Some(line) = &self.database_line {
            lines.push(line.clone());
        }
        let range = if (e.max_s - e.min_s).abs() < 1.0 {
            human_duration(e.min_s)
        } else {
            format!("{} to {}", human_duration(e.min_s), human_duration(e.max_s))
        };
        let guess = if e.unmeasured > 0 {
            format!(
                " ({} subjects not yet measured here: guessed)",
                e.unmeasured
            )
        } else {
            String::new()
        };
        lines.push(format!("expected time: {range}{guess}"));
        lines
    }

    /// The lines a `run` or `bench` starts with: the database it started, and where it writes
    /// on which placement and backend.
    pub fn opening_notes(&self) -> Vec<String> {
        let plan = &self.plan;
        let mut notes = Vec::new();
        if self.database.cluster.is_some() {
            notes.push("started PostgreSQL for the users workload".to_string());
        }
        notes.push(format!(
            "results: {}  ({}; {})",
            plan.out_dir.display(),
            plan.placement.describe(),
            plan.backend.kind.name()
        ));
        notes
    }
}

/// Where the run's own cluster runs, in a few words: whose CPUs it shares.
fn database_place(db: &[usize], placement: &Placement) -> String {
    let list = format_cpu_list(db);
    let shares = |side: &[usize]| db.iter().any(|c| side.contains(c));
    match (shares(&placement.loadgen), shares(&placement.server)) {
        (true, true) => format!("own cluster on CPU {list}, shared with generator and server"),
        (true, false) => format!("own cluster on CPU {list}, the generator's"),
        (false, true) => format!("own cluster on CPU {list}, shared with the server"),
        (false, false) => format!("own cluster on CPU {list}, its own"),
    }
}

/// True when a PostgreSQL URL or key=value string names a loopback host (or none: a socket).
fn names_loopback(url: &str) -> bool {
    let host = if let Some(rest) = url
        .strip_prefix("postgres://")
        .or_else(|| url.strip_prefix("postgresql://"))
    {
        let authority = rest.split(['/', '?']).next().unwrap_or("");
        let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
        match host_port.strip_prefix('[') {
            Some(v6) => v6.split(']').next().unwrap_or("").to_string(),
            None => host_port.split(':').next().unwrap_or("").to_string(),
        }
    } else {
        url.split_whitespace()
            .find_map(|kv| kv.strip_prefix("host="))
            .unwrap_or("")
            .to_string()
    };
    host.is_empty()
        || host == "localhost"
        || host.starts_with('/')
        || host.parse::<IpAddr>().is_ok_and(|a| a.is_loopback())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(mode: Option<Mode>, slo: &[&str], rates: &[f64]) -> OpenLoopRequest {
        OpenLoopRequest {
            mode,
            slo: slo.iter().map(|s| s.to_string()).collect(),
            at_rates: rates.to_vec(),
            step_duration: None,
            resolution: 0.02,
        }
    }

    #[test]
    fn the_mode_follows_the_slo_and_refuses_capacity_without_one() {
        let full = Length::Default;
        assert_eq!(
            open_loop(&request(None, &[], &[]), full).unwrap().mode,
            Mode::Throughput
        );
        let both = open_loop(&request(None, &["p99<=5ms"], &[20_000.0]), Length::Quick).unwrap();
        assert_eq!(both.mode, Mode::Both);
        assert_eq!(both.at_rates, vec![20_000.0]);
        assert_eq!(both.step_duration, Duration::from_secs(1), "--quick steps");
        let cap = open_loop(&request(Some(Mode::Capacity), &["p99<=5ms"], &[]), full).unwrap();
        assert_eq!(cap.mode, Mode::Capacity);
        let e = open_loop(&request(Some(Mode::Capacity), &[], &[]), full).unwrap_err();
        assert!(e.to_string().contains("needs an SLO"), "{e}");
        let e = open_loop(&request(None, &["p99<=fast"], &[]), full).unwrap_err();
        assert!(e.to_string().contains("invalid SLO clause"), "{e}");
        let e = open_loop(&request(None, &[], &[f64::NAN]), full).unwrap_err();
        assert!(e.to_string().contains("--at-rate"), "{e}");
        let e = open_loop(&request(None, &[], &[0.0]), full).unwrap_err();
        assert!(e.to_string().contains("--at-rate"), "{e}");
    }

    #[test]
    fn full_runs_restart_once_quick_runs_and_single_repeats_do_not() {
        assert_eq!(restarts(None, Length::Default, 3), 2);
        assert_eq!(restarts(None, Length::Quick, 3), 1);
        assert_eq!(restarts(None, Length::Default, 1), 1);
        assert_eq!(
            restarts(Some(4), Length::Quick, 1),
            4,
            "what the user asked for stands"
        );
        assert_eq!(
            repeats(None, Length::Quick),
            3,
            "three rounds, for an interval"
        );
        assert_eq!(repeats(Some(0), Length::Default), 1);
    }

    #[test]
    fn rounds_adapt_in_full_runs_and_are_fixed_in_quick_ones() {
        let throughput = OpenLoop::default();
        let none = RoundsRequest::default();
        let full = rounds(&none, Length::Default, 3, &throughput)
            .unwrap()
            .unwrap();
        assert_eq!((full.min_rounds, full.max_rounds), (3, DEFAULT_MAX_ROUNDS));
        assert_eq!(full.target_ci, Some(DEFAULT_TARGET_CI));
        assert!(full.beside_reference, "duets beside a reference by default");
        assert_eq!(full.solo_rounds, Some(3));
        let quick = rounds(&none, Length::Quick, 3, &throughput)
            .unwrap()
            .unwrap();
        assert_eq!(
            (quick.min_rounds, quick.max_rounds, quick.solo_rounds),
            (4, 6, Some(3)),
            "three alone, a fourth duet round, two to re-measure"
        );
        assert_eq!(quick.target_ci, None);
        let interleaved = RoundsRequest {
            interleaved: true,
            ..none
        };
        let quick = rounds(&interleaved, Length::Quick, 3, &throughput)
            .unwrap()
            .unwrap();
        assert_eq!(
            (quick.min_rounds, quick.max_rounds, quick.solo_rounds),
            (3, 5, None),
            "today's method: two to re-measure"
        );
        assert!(!quick.beside_reference);
        let seeded = RoundsRequest {
            seed: Some(7),
            target_ci: Some(0.05),
            max_rounds: Some(20),
            duet: true,
            interleaved: false,
        };
        let r = rounds(&seeded, Length::Quick, 3, &throughput)
            .unwrap()
            .unwrap();
        assert_eq!((r.seed, r.target_ci, r.max_rounds), (7, Some(0.05), 20));
        assert!(r.duet, "a duet is recorded in the policy");
        let bad = RoundsRequest {
            target_ci: Some(1.5),
            ..none
        };
        assert!(matches!(
            rounds(&bad, Length::Default, 3, &throughput),
            Err(PlanError::BadArgument(m)) if m.contains("--target-ci")
        ));
        let low = RoundsRequest {
            max_rounds: Some(2),
            ..none
        };
        assert!(rounds(&low, Length::Default, 3, &throughput).is_err());
        assert!(duet_possible(Some(&r), None).is_ok());
        assert!(matches!(
            duet_possible(None, None),
            Err(PlanError::BadArgument(m)) if m.contains("closed-loop")
        ));
        let capacity = OpenLoop {
            mode: Mode::Capacity,
            ..OpenLoop::default()
        };
        assert!(
            rounds(&none, Length::Default, 3, &capacity)
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn quick_shapes_are_short_and_threads_follow_the_generator_cpus() {
        let quick = run_shape(&ShapeOverrides::default(), Length::Quick, 0, false);
        assert_eq!(quick.threads, 1);
        assert!(matches!(quick.stop, StopAt::Duration(d) if d == Duration::from_secs(2)));
        assert_eq!(quick.warmup_max, Duration::from_secs(8));
        let duets = run_shape(&ShapeOverrides::default(), Length::Quick, 1, true);
        assert!(
            matches!(duets.stop, StopAt::Duration(d) if d == Duration::from_secs(1)),
            "more, shorter slices in duets"
        );
        let full = run_shape(&ShapeOverrides::default(), Length::Default, 3, true);
        assert_eq!((full.connections, full.threads), (64, 3));
        assert_eq!(full.warmup, Duration::from_secs(3));
        assert_eq!(full.pipeline, 1);
        let pipelined = ShapeOverrides {
            pipeline: Some(restbench_model::TFB_PIPELINE),
            ..ShapeOverrides::default()
        };
        assert_eq!(run_shape(&pipelined, Length::Quick, 1, false).pipeline, 16);
    }

    #[test]
    fn only_a_cell_that_queries_it_needs_the_database() {
        use restbench_model::{Protocol, Scenario, Workload};
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
        let subjects = restbench_subject::discover(&root).unwrap();
        let hyper = subjects.into_iter().find(|s| s.id == "rust-hyper").unwrap();
        let plan = |workloads: Vec<Workload>, protocols: Vec<Protocol>| {
            let parts = Parts {
                kind: "run".into(),
                entries: RunEntry::all(vec![hyper.clone()], &[Scenario::SingleThread]),
                workloads,
                protocols,
                shape: LoadShape::default(),
                repeats: 1,
                restarts: 1,
                out_dir: PathBuf::new(),
                cache: PathBuf::new(),
                note: None,
                study: None,
                open_loop: OpenLoop::default(),
                rounds: None,
                db_pool: DEFAULT_DB_POOL,
                conformance: ConformanceStep::Check,
            };
            let site = Site {
                placement: Placement::split(&[0, 1]),
                backend: Backend::affinity_only("test"),
            };
            assemble(parts, site, None)
        };
        assert!(needs_database(&plan(
            vec![Workload::Plaintext, Workload::Users],
            vec![Protocol::H1]
        )));
        assert!(!needs_database(&plan(
            vec![Workload::Plaintext],
            vec![Protocol::H1]
        )));
        assert!(
            !needs_database(&plan(vec![Workload::Users], Vec::new())),
            "no protocol, no cell"
        );
    }

    #[test]
    fn memory_limit_is_set_for_every_scenario_and_said_unenforced_without_a_controller() {
        use restbench_model::{Protocol, Scenario, Workload};
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
        let subjects = restbench_subject::discover(&root).unwrap();
        let hyper = subjects.into_iter().find(|s| s.id == "rust-hyper").unwrap();
        let parts = Parts {
            kind: "run".into(),
            entries: RunEntry::all(vec![hyper], &[Scenario::SingleThread]),
            workloads: vec![Workload::Plaintext],
            protocols: vec![Protocol::H1],
            shape: LoadShape::default(),
            repeats: 1,
            restarts: 1,
            out_dir: PathBuf::new(),
            cache: PathBuf::new(),
            note: None,
            study: None,
            open_loop: OpenLoop::default(),
            rounds: None,
            db_pool: DEFAULT_DB_POOL,
            conformance: ConformanceStep::Check,
        };
        let site = Site {
            placement: Placement::split(&[0, 1]),
            backend: Backend::affinity_only("--no-cgroups"),
        };
        let machine = Machine {
            loadgen_cpus: None,
            db_cpus: None,
            cgroups: false,
            memory_limit: Some(512 << 20),
        };
        let database = DatabaseRequest {
            url: None,
            pool: DEFAULT_DB_POOL,
        };
        let resolved = place(
            assemble(parts, site, None),
            &machine,
            &database,
            None,
            false,
            Length::Quick,
        )
        .unwrap();
        let settings = &resolved.plan.entries[0].subject.scenarios;
        assert!(
            settings.values().all(|s| s.memory_limit == Some(512 << 20)),
            "{settings:?}"
        );
        assert!(
            resolved.warnings.iter().any(|w| w
                .starts_with("memory limits will not be enforced: the affinity-only backend")
                && w.contains("--no-cgroups")),
            "{:?}",
            resolved.warnings
        );
    }

    #[test]
    fn the_database_is_sized_for_every_pool_of_a_scenario_open_at_once() {
        use restbench_model::{Protocol, Scenario, Workload};
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../subjects");
        let subjects: Vec<_> = restbench_subject::discover(&root)
            .unwrap()
            .into_iter()
            .filter(|s| s.supports(Workload::Users) && s.unavailable_reason().is_none())
            .take(3)
            .collect();
        let n = subjects.len() as u32;
        let plan = |workloads: Vec<Workload>| {
            let parts = Parts {
                kind: "run".into(),
                entries: RunEntry::all(
                    subjects.clone(),
                    &[Scenario::SingleThread, Scenario::OneCpu],
                ),
                workloads,
                protocols: vec![Protocol::H1],
                shape: LoadShape::default(),
                repeats: 1,
                restarts: 1,
                out_dir: PathBuf::new(),
                cache: PathBuf::new(),
                note: None,
                study: None,
                open_loop: OpenLoop::default(),
                rounds: None,
                db_pool: DEFAULT_DB_POOL,
                conformance: ConformanceStep::Check,
            };
            let site = Site {
                placement: Placement::split(&[0, 1]),
                backend: Backend::affinity_only("test"),
            };
            assemble(parts, site, None)
        };
        let (needed, servers, _) = database_connections(&plan(vec![Workload::Users]));
        assert_eq!(servers, n, "one scenario's servers, not both scenarios'");
        assert_eq!(needed, n * DEFAULT_DB_POOL + OWN_DB_CONNECTIONS);
        assert!(cluster_connections(needed) > needed, "with headroom");
        assert_eq!(cluster_connections(5), 100);
        assert_eq!(
            database_connections(&plan(vec![Workload::Plaintext])).0,
            0,
            "no database workload, no pool"
        );
    }

    #[test]
    fn loopback_databases_are_told_apart() {
        for url in [
            "postgres://u:p@127.0.0.1:5432/x",
            "postgresql://u@localhost/x",
            "postgres://u@[::1]:5/x",
            "host=127.0.0.1 port=5 user=u",
            "host=/run/postgresql user=u",
        ] {
            assert!(names_loopback(url), "{url}");
        }
        for url in [
            "postgres://u:p@10.0.0.2:5432/x",
            "postgres://u@[fd00::2]:5/x",
            "host=db.example port=5",
        ] {
            assert!(!names_loopback(url), "{url}");
        }
    }

    #[test]
    fn the_conformance_step_is_the_requests_and_a_skip_is_said() {
        let plan = |conformance: ConformanceStep| {
            let parts = Parts {
                kind: "run".into(),
                entries: Vec::new(),
                workloads: Vec::new(),
                protocols: Vec::new(),
                shape: LoadShape::default(),
                repeats: 1,
                restarts: 1,
                out_dir: PathBuf::new(),
                cache: PathBuf::new(),
                note: Some("A --quick pass.".into()),
                study: None,
                open_loop: OpenLoop::default(),
                rounds: None,
                db_pool: DEFAULT_DB_POOL,
                conformance,
            };
            let site = Site {
                placement: Placement::split(&[0, 1]),
                backend: Backend::affinity_only("test"),
            };
            assemble(parts, site, None)
        };
        let checked = plan(ConformanceStep::Check);
        assert!(checked.conformance);
        assert_eq!(checked.note.as_deref(), Some("A --quick pass."));
        let skipped = plan(ConformanceStep::Skip);
        assert!(!skipped.conformance);
        assert_eq!(
            skipped.note.as_deref(),
            Some("A --quick pass. Conformance not checked (--no-conformance).")
        );
        let ad_hoc = plan(ConformanceStep::NotApplicable);
        assert!(!ad_hoc.conformance);
        assert_eq!(ad_hoc.note.as_deref(), Some("A --quick pass."));
    }
}
