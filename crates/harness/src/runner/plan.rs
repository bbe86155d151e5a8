//! What a run is asked to do: the load shape, the entries (subject × scenarios) and where it
//! runs.

use std::collections::BTreeMap;
use std::net::IpAddr;
use std::path::PathBuf;
use std::time::Duration;

use restbench_loadgen::{HttpVersion, LoadError, LoadSpec, StopAt, Target};
use restbench_model::{Protocol, Scenario, Slo, StudyInfo, Workload};

use crate::serve::location::{Here, OverSsh, ServerLocation};
use crate::serve::start::StartOptions;
use restbench_host::cgroup::Backend;
use restbench_host::placement::Placement;
use restbench_remote::RemoteGenerators;
use restbench_subject::Subject;

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

impl LoadShape {
    /// A GET of `target` with this shape's connections, threads, keep-alive, HTTP version,
    /// timeout and pipeline; how long it runs and warms up is each caller's.
    pub fn spec(&self, target: Target) -> LoadSpec {
        let mut spec = LoadSpec::get(target);
        spec.connections = self.connections;
        spec.threads = self.threads;
        spec.keepalive = self.keepalive;
        spec.http_version = self.http_version;
        spec.timeout = self.timeout;
        spec.pipeline = self.pipeline;
        spec
    }

    /// Checks the shape as the load engine would (flag ranges, open files), before anything is
    /// built or started: a refused shape would otherwise fail every cell one by one.
    pub fn check(&self) -> Result<(), LoadError> {
        let mut spec = self.spec(Target::parse("http://127.0.0.1/")?);
        spec.stop = self.stop;
        spec.warmup = self.warmup;
        spec.validate()?;
        restbench_loadgen::ensure_open_files(spec.connections, spec.effective_threads())
    }
}

/// What each cell measures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Mode {
    /// Closed loop at saturation, the seeds' measure (the default).
    #[default]
    Throughput,
    /// The capacity under the SLO, open loop.
    Capacity,
    /// Both, throughput first.
    Both,
}

impl Mode {
    pub fn throughput(self) -> bool {
        matches!(self, Mode::Throughput | Mode::Both)
    }
    pub fn capacity(self) -> bool {
        matches!(self, Mode::Capacity | Mode::Both)
    }
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Throughput => "throughput",
            Mode::Capacity => "capacity",
            Mode::Both => "both",
        }
    }
}

/// The open-loop measures of a run: the capacity search and the equal-load rates.
#[derive(Debug, Clone)]
pub struct OpenLoop {
    pub mode: Mode,
    /// Judges capacity steps and equal-load points (the latter are also judged on the rate held).
    pub slo: Slo,
    /// Every cell is loaded at each of these rates (req/s), in order.
    pub at_rates: Vec<f64>,
    pub step_duration: Duration,
    pub step_warmup: Duration,
    pub resolution: f64,
    pub max_steps: u32,
}

impl Default for OpenLoop {
    fn default() -> Self {
        Self {
            mode: Mode::Throughput,
            slo: Slo::default(),
            at_rates: Vec::new(),
            step_duration: Duration::from_secs(3),
            step_warmup: Duration::from_secs(1),
            resolution: restbench_loadgen::capacity::DEFAULT_RESOLUTION,
            max_steps: restbench_loadgen::capacity::DEFAULT_MAX_STEPS,
        }
    }
}

impl OpenLoop {
    /// True when cells get any open-loop measure.
    pub fn any(&self) -> bool {
        self.mode.capacity() || !self.at_rates.is_empty()
    }
}

/// Everything a run needs, resolved.
pub struct RunPlan {
    pub kind: String,
    /// Subjects in order, each with its scenarios.
    pub entries: Vec<RunEntry>,
    pub workloads: Vec<Workload>,
    /// Protocols to measure each cell over (`--protocols`, default `[H1]`): a subject gets cells
    /// only for those it declares in its `subject.toml`.
    pub protocols: Vec<Protocol>,
    /// Load shape per workload (a study may differ from the default).
    pub shape: LoadShape,
    pub repeats: u32,
    /// Server processes the repeats of a cell are split over (`--restarts`, at least 1): with 2
    /// or more the server is stopped and started afresh between groups of repeats, so the cell
    /// records the variance between processes too.
    pub restarts: u32,
    pub out_dir: PathBuf,
    pub cache: PathBuf,
    pub placement: Placement,
    /// How scenarios are enforced and servers accounted.
    pub backend: Backend,
    /// The generator's ceiling (req/s against a trivial server on the server CPUs), if calibrated.
    pub loadgen_ceiling_rps: Option<f64>,
    /// How long one calibration runs, when the run calibrates: the loop calibrates again when a
    /// cell beats the ceiling, and at the end to measure the machine's drift.
    pub calibration: Option<Duration>,
    pub database_url: Option<String>,
    /// The postmaster of the PostgreSQL cluster the run started, so that a cell whose database
    /// went away says how it ended (`None` with an external database or none).
    pub database_pid: Option<u32>,
    /// The CPUs of the PostgreSQL cluster the run started (empty with an external one or none).
    pub db_cpus: Vec<usize>,
    /// Where the database runs, in a few words, for every cell (empty without a database).
    pub database: String,
    pub db_pool_total: u32,
    /// A sentence for the report about how this run differs from the defaults.
    pub note: Option<String>,
    /// Set when the run is a seed study.
    pub study: Option<StudyInfo>,
    /// Capacity and equal-load measures (`--mode`, `--slo`, `--at-rate`).
    pub open_loop: OpenLoop,
    /// Load generators on other hosts (`--loadgen-hosts`): every load is split over them and
    /// merged; the server then has every local CPU.
    pub remote: Option<std::sync::Arc<RemoteGenerators>>,
    /// The address servers bind and are loaded at (default 127.0.0.1); remote generators need
    /// one they reach.
    pub server_address: Option<IpAddr>,
    /// The host that serves the subjects (`--server-host`): each is copied, built, started,
    /// sampled and stopped there; `server_address` is then that host's.
    pub server_host: Option<std::sync::Arc<crate::serve::remote_server::ServerHost>>,
    /// Run the conformance cases (cached per build) before a subject's cells; off for `bench`
    /// and with `--no-conformance`.
    pub conformance: bool,
    /// How the closed-loop repeats are taken as interleaved rounds; `None` when the run
    /// measures no closed loop.
    pub rounds: Option<restbench_model::RoundsPolicy>,
    /// With `--profile`: the length of each cell's profiling slice (`crate::profile`).
    pub profile: Option<Duration>,
    /// With `--explain`: the report compares the profiles of each ranking's neighbours.
    pub explain: bool,
}

impl RunPlan {
    /// The run's protocols that `subject` serves, in the run's order; a protocol it does not
    /// declare gets no cell (not a failure: not every stack speaks h2c).
    pub fn protocols_of(&self, subject: &Subject) -> Vec<Protocol> {
        self.protocols
            .iter()
            .copied()
            .filter(|p| subject.protocols.contains(p))
            .collect()
    }

    /// The cells of `subject` in one scenario, in the order they run: each workload it serves,
    /// over each of its protocols. One start serves them all.
    pub fn cells_of(&self, subject: &Subject) -> Vec<(Workload, Protocol)> {
        let protocols = self.protocols_of(subject);
        self.workloads
            .iter()
            .copied()
            .filter(|w| subject.supports(*w))
            .flat_map(|w| protocols.iter().map(move |p| (w, *p)))
            // The planner's warnings say which workload cannot go over which protocol, and why.
            .filter(|(w, p)| w.unloadable_over(*p).is_none())
            .collect()
    }

    /// How many cells the plan has.
    pub fn cells(&self) -> usize {
        self.entries
            .iter()
            .map(|e| self.cells_of(&e.subject).len() * e.scenarios.len())
            .sum()
    }

    /// Where the servers run, chosen once for the run: here, or on the `--server-host`.
    pub fn server_location(&self) -> Box<dyn ServerLocation> {
        match &self.server_host {
            Some(host) => Box::new(OverSsh(host.clone())),
            None => Box::new(Here),
        }
    }

    /// The options every server of the run starts with, here (see [`ServerLocation`]).
    pub fn start_options(&self) -> StartOptions<'_> {
        StartOptions {
            placement: &self.placement,
            backend: &self.backend,
            cache: &self.cache,
            database_url: self.database_url.as_deref(),
            db_pool_total: self.db_pool_total,
            address: self.server_address,
            remote: None,
        }
    }
}

/// A subject and the scenarios to run it in; a study may list one subject twice with different
/// settings (seed 000's GOMAXPROCS unset and =1).
#[derive(Debug, Clone)]
pub struct RunEntry {
    pub subject: Subject,
    pub scenarios: Vec<Scenario>,
}

impl RunEntry {
    /// Every subject in every scenario, the plain `restbench run`.
    pub fn all(subjects: Vec<Subject>, scenarios: &[Scenario]) -> Vec<Self> {
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
        scenario: Scenario,
        env: &BTreeMap<String, String>,
    ) -> Self {
        if let Some(s) = subject.scenarios.get_mut(&scenario) {
            s.env
                .extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
        Self {
            subject,
            scenarios: vec![scenario],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_as_the_engine_checks_them() {
        assert!(LoadShape::default().check().is_ok());
        for shape in [
            LoadShape {
                connections: 0,
                ..LoadShape::default()
            },
            LoadShape {
                threads: 0,
                ..LoadShape::default()
            },
            LoadShape {
                stop: StopAt::Duration(Duration::ZERO),
                ..LoadShape::default()
            },
        ] {
            assert!(
                matches!(shape.check(), Err(LoadError::InvalidSpec(_))),
                "{shape:?}"
            );
        }
    }
}
